"""The "show the maths" panel: rich text with the equations and the current numbers."""

from __future__ import annotations

from PySide6 import QtGui, QtWidgets

from .. import style as theme


class MathsPanel(QtWidgets.QTextBrowser):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.setOpenExternalLinks(False)
        self.setMinimumWidth(140)
        self._html = ""
        self._shown: str | None = ""
        self._laying_out = False
        self._again = False
        self.apply_style(theme.current())

    def set_html(self, html: str) -> None:
        """Show ``html``; while the panel is hidden (View ▸ maths off, or folded away in
        projector mode) the rich-text layout, the costly part, waits until it is shown."""
        if html != self._html:
            self._html = html
            self._shown = None
        if self._shown != self._html and self._on_screen():
            self._lay_out()

    def _on_screen(self) -> bool:
        return self.isVisible() and self.width() > 0  # a splitter folds a pane to no width

    def _lay_out(self) -> None:
        if self._laying_out:
            # setHtml itself resized the viewport (its scroll bar came or went) and the font was
            # refitted: a nested setHtml would leave the text in the panel twice; lay out again after
            self._again = True
            return
        self._laying_out = True
        try:
            for _ in range(3):  # a refitted font may bring or take the scroll bar once more
                self._again = False
                bar = self.verticalScrollBar()
                pos = bar.value()
                self.setHtml(self._html)
                bar.setValue(pos)
                self._shown = self._html
                if not self._again:
                    break
        finally:
            self._laying_out = False

    def toPlainText(self) -> str:  # Qt's name: reading the text lays out what is pending
        if self._shown != self._html:
            self._lay_out()
        return super().toPlainText()

    def showEvent(self, event) -> None:  # Qt's name
        super().showEvent(event)
        if self._shown != self._html and self._on_screen():
            self._lay_out()

    def resizeEvent(self, event) -> None:  # Qt's name: unfolded by its splitter
        super().resizeEvent(event)
        if event.oldSize().width() != event.size().width():
            self._fit_font()
        if self._shown != self._html and self._on_screen():
            self._lay_out()

    #: the panel's text keeps about this many letters a line: narrower, it is set smaller
    LETTERS_A_LINE = 17
    #: ... never below this share of the style's size
    LEAST_SCALE = 0.7

    def apply_style(self, s: theme.Style) -> None:
        self._style = s
        self._fit_font(force=True)

    def _fit_font(self, force: bool = False) -> None:
        """The style's font size, or smaller on a narrow panel (the maths opened beside the
        plots on a projector's small screen): words stay whole on a line."""
        s = self._style
        pt = s.font_pt
        font = self.font()
        font.setPointSizeF(pt)
        room = self.viewport().width() - 2 * self.document().documentMargin()
        need = QtGui.QFontMetricsF(font).averageCharWidth() * self.LETTERS_A_LINE
        if self.isVisible() and room > 0 and need > room:
            pt = max(self.LEAST_SCALE * s.font_pt, s.font_pt * room / need)
        pt = round(pt * 2) / 2
        if not force and abs(pt - getattr(self, "_pt", 0.0)) < 0.25:
            return
        self._pt = pt
        font.setPointSizeF(pt)
        self.setFont(font)
        self.document().setDefaultStyleSheet(
            f"body {{ color: {s.foreground}; }} .eq {{ font-family: serif; font-size: {pt * 1.15:.0f}pt; }}"
            f" .num {{ font-family: monospace; }} h3 {{ margin-bottom: 2px; }}"
        )
        if self._html:
            self._shown = None
            if self._on_screen():
                self._lay_out()
