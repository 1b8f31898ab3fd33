"""Plot titles that fit their plot: a title too long for its width is set smaller (down to
:data:`LEAST_SCALE` of its size), then on two lines, before it is elided; its least width is
its longest word at the smallest size, so a plot given that width never cuts a word.
(:func:`eliding_title` installs it on a ``pg.PlotItem``.)"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6 import QtCore, QtGui


#: the smallest share of its size a title is set at to fit its plot
LEAST_SCALE = 0.7
SCALES = (1.0, 0.9, 0.8, LEAST_SCALE)


class _ElidingTitle(pg.LabelItem):
    """A plot title that never widens its plot: when the plot is narrower than the title,
    the title takes two lines (broken between words); only a title that does not fit on
    two is cut with "…", its whole text then in the tooltip."""

    _shown = None

    def updateMin(self):
        super().updateMin()
        # the longest word at the smallest size: a plot at least that wide never cuts a word
        plain = QtGui.QTextDocumentFragment.fromHtml(self.text or "").toPlainText()
        metrics = QtGui.QFontMetricsF(self._font(LEAST_SCALE))
        word = max((metrics.horizontalAdvance(w) for w in plain.split()), default=0.0)
        least = min(self.minimumWidth(), max(word + 10, 3 * self.itemRect().height() if not plain.strip() else 0))
        self.setMinimumWidth(least)
        hint = dict(self._sizeHint)
        hint[QtCore.Qt.SizeHint.MinimumSize] = (least, hint[QtCore.Qt.SizeHint.MinimumSize][1])
        self._sizeHint = hint

    def setText(self, text, **args):
        self._shown = None
        super().setText(text, **args)
        self._elide()

    def resizeEvent(self, ev):
        self._elide()
        super().resizeEvent(ev)

    def _font(self, scale: float = 1.0) -> QtGui.QFont:
        font = QtGui.QFont()
        size = str(self.opts.get("size") or "")
        if size.endswith("pt"):
            font.setPointSizeF(float(size[:-2]) * scale)
        elif scale != 1.0:
            font.setPointSizeF(font.pointSizeF() * scale)
        font.setBold(bool(self.opts.get("bold")))
        return font

    def _elide(self) -> None:
        width = self.rect().width()
        if width <= 0:
            return
        size = str(self.opts.get("size") or "")
        plain = QtGui.QTextDocumentFragment.fromHtml(self.text).toPlainText()
        shown = None
        for scale in SCALES:  # one line, then two, each a little smaller before the next
            metrics = QtGui.QFontMetricsF(self._font(scale))
            if metrics.horizontalAdvance(plain) + 8 <= width:
                shown, tip = (self.text if scale == 1.0 else _escape(plain)), ""
                break
            lines = _two_lines(plain, metrics, width - 8)
            if lines is not None:  # whole words on two lines, never a word cut
                shown, tip = "<br>".join(_escape(line) for line in lines), ""
                break
        if shown is None:
            cut = metrics.elidedText(plain, QtCore.Qt.TextElideMode.ElideRight, max(width - 8, 1.0))
            shown, tip = _escape(cut), plain
        shown_size = f"{float(size[:-2]) * scale:.1f}pt" if size.endswith("pt") and scale != 1.0 else size
        if (shown, shown_size) == self._shown:
            return
        self._shown = (shown, shown_size)
        color = pg.mkColor(self.opts.get("color") or pg.getConfigOption("foreground"))
        style = [f"color: {color.name(QtGui.QColor.NameFormat.HexArgb)}"]
        if shown_size:
            style.append(f"font-size: {shown_size}")
        if self.opts.get("bold") in (True, False):
            style.append(f"font-weight: {'bold' if self.opts['bold'] else 'normal'}")
        before = self.item.boundingRect().height()
        self.item.setHtml(f"<span style='{'; '.join(style)}'>{shown}</span>")
        self.setToolTip(tip)
        if abs(self.item.boundingRect().height() - before) > 0.5:  # one line more or less
            self.updateMin()
            self.updateGeometry()
        plot = self.parentItem()
        if isinstance(plot, pg.PlotItem) and plot.titleLabel is self and self.isVisible():
            # pyqtgraph gives the title row a fixed 30 px: a title on two lines needs more
            height = max(30, int(self.item.boundingRect().height() + 2)) if "<br>" in shown else 30
            if plot.layout.rowMinimumHeight(0) != height:
                self.setMaximumHeight(height)
                plot.layout.setRowFixedHeight(0, height)


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _two_lines(text: str, metrics: QtGui.QFontMetricsF, width: float) -> list[str] | None:
    """``text`` broken at a space into two lines that each fit ``width``, the first as full as
    possible; None when no such break exists."""
    words = text.split(" ")
    for k in range(len(words) - 1, 0, -1):
        first, second = " ".join(words[:k]), " ".join(words[k:])
        if metrics.horizontalAdvance(first) <= width:
            return [first, second] if metrics.horizontalAdvance(second) <= width else None
    return None


def eliding_title(plot_item: pg.PlotItem) -> None:
    """Give ``plot_item`` a title that is cut with "…" (full text in a tooltip) instead of
    widening the plot past its widget."""
    old = plot_item.titleLabel
    if isinstance(old, _ElidingTitle):
        return
    new = _ElidingTitle(old.text or " ", **{k: v for k, v in old.opts.items() if k in ("size", "color", "justify")})
    plot_item.layout.removeItem(old)
    if old.scene() is not None:
        old.scene().removeItem(old)
    plot_item.layout.addItem(new, 0, 1)
    plot_item.titleLabel = new
    if not old.isVisible():
        new.setVisible(False)
