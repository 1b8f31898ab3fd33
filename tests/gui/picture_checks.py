"""Checks on what a lab draws, in scene coordinates: shared by the picture tests.

Each function returns a list of problems (empty when the picture tells the truth), so a
test can assert on it and say exactly what is wrong where.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets


def _views(lab):
    for view in lab.findChildren(pg.GraphicsView):
        if view.isVisible() and view.width() > 2 and view.height() > 2:
            yield view


def _scene_items(lab, kind):
    seen = set()
    for view in _views(lab):
        for item in view.scene().items():
            if isinstance(item, kind) and item.isVisible() and id(item) not in seen:
                seen.add(id(item))
                yield view, item


def _name(plot_item) -> str:
    title = getattr(plot_item, "titleLabel", None)
    return repr(getattr(title, "text", "") or type(plot_item).__name__)


def tick_label_overlaps(lab) -> list[str]:
    """No two tick labels of an axis overlap (their text boxes as pyqtgraph draws them)."""
    bad = []
    image = QtGui.QImage(8, 8, QtGui.QImage.Format.Format_ARGB32)
    painter = QtGui.QPainter(image)
    try:
        for _view, axis in _scene_items(lab, pg.AxisItem):
            if not axis.style.get("showValues", True) or axis.linkedView() is None:
                continue
            painter.save()
            specs = axis.generateDrawSpecs(painter)
            painter.restore()
            if not specs:
                continue
            texts = specs[2]
            rects = [(QtCore.QRectF(r), t) for r, _flags, t in texts]
            for i in range(len(rects)):
                for j in range(i + 1, len(rects)):
                    a, b = rects[i][0], rects[j][0]
                    inter = a.intersected(b)
                    if inter.width() > 0.5 and inter.height() > 0.5:
                        bad.append(f"{axis.orientation} axis: ticks {rects[i][1]!r} and {rects[j][1]!r} overlap")
                        break
    finally:
        painter.end()
    return bad


def _data_points(item) -> tuple[np.ndarray, np.ndarray]:
    x, y = item.getData() if hasattr(item, "getData") else (None, None)
    if x is None or len(x) == 0:
        return np.zeros(0), np.zeros(0)
    x, y = np.asarray(x, float), np.asarray(y, float)
    if isinstance(item, pg.PlotDataItem) and item.opts.get("logMode", [False, False])[1]:
        y = np.log10(np.clip(y, 1e-300, None))
    return x, y


def legends_over_data(lab) -> list[str]:
    """No legend box covers a data point of its plot (curves and scatter points)."""
    bad = []
    for _view, item in _scene_items(lab, pg.PlotItem):
        legend = item.legend
        if legend is None or not legend.isVisible() or not legend.items:
            continue
        vb = item.getViewBox()
        legend_rect = legend.sceneBoundingRect().adjusted(1, 1, -1, -1)  # touching is not covering
        if not legend_rect.intersects(vb.sceneBoundingRect()):
            continue
        area = vb.mapSceneToView(legend_rect).boundingRect()
        for data in item.listDataItems():
            if not data.isVisible():
                continue
            x, y = _data_points(data)
            ok = np.isfinite(x) & np.isfinite(y)
            x, y = x[ok], y[ok]
            inside = (x > area.left()) & (x < area.right()) & (y > area.top()) & (y < area.bottom())
            if inside.any():
                bad.append(f"legend of {_name(item)} covers {int(inside.sum())} point(s)")
                break
    return bad


def _sample_image(sample) -> QtGui.QImage:
    image = QtGui.QImage(24, 24, QtGui.QImage.Format.Format_ARGB32)
    image.fill(QtCore.Qt.GlobalColor.transparent)
    painter = QtGui.QPainter(image)
    sample.paint(painter, None, None)
    painter.end()
    return image


def legend_keys_wrong(lab) -> list[str]:
    """Every legend key of scattered points is filled with the colour of the points drawn (the
    first point's, when each point has its own)."""
    bad = []
    for _view, legend in _scene_items(lab, pg.LegendItem):
        for sample, label in legend.items:
            item = sample.item
            if not isinstance(item, pg.ScatterPlotItem) or not len(item.data) or not item.isVisible():
                continue
            first = item.data[0]
            brush = pg.mkBrush(first["brush"] if first["brush"] is not None else item.opts["brush"])
            want = brush.color()
            if brush.style() == QtCore.Qt.BrushStyle.NoBrush or want.alpha() < 128:
                continue
            image = _sample_image(sample)
            found = any(
                max(abs(c.red() - want.red()), abs(c.green() - want.green()), abs(c.blue() - want.blue())) <= 12
                for c in (image.pixelColor(x, y) for x in range(24) for y in range(24)) if c.alpha() > 200)
            if not found:
                bad.append(f"legend key {label.text!r} is not filled with its points' colour {want.name()}")
    return bad


def cut_titles(lab) -> list[str]:
    """No plot title is cut with an ellipsis; no axis label is longer than its axis."""
    bad = []
    for _view, item in _scene_items(lab, pg.PlotItem):
        title = item.titleLabel
        if title.isVisible() and title.text:
            shown = QtGui.QTextDocumentFragment.fromHtml(title.item.toHtml()).toPlainText()
            full = QtGui.QTextDocumentFragment.fromHtml(title.text).toPlainText()
            if "…" in shown and "…" not in full:
                bad.append(f"title {full!r} cut to {shown!r}")
    for _view, axis in _scene_items(lab, pg.AxisItem):
        label = axis.label
        if not axis.showLabel or not label.isVisible() or not label.toPlainText().strip():
            continue
        length = axis.geometry().height() if axis.orientation in ("left", "right") else axis.geometry().width()
        width = max(label.boundingRect().width(), label.document().idealWidth()) * label.scale()
        if width > length + 2:
            bad.append(f"axis label {label.toPlainText()!r}: {width:.0f} px on a {length:.0f} px axis")
        doc = label.document()
        lines = sum(doc.findBlockByNumber(i).layout().lineCount() for i in range(doc.blockCount()))
        if lines > 2:
            bad.append(f"axis label {label.toPlainText()!r} wrapped over {lines} lines")
    return bad


def cut_headers(lab) -> list[str]:
    """Table headers show whole words (no word broken over two lines, none cut)."""
    bad = []
    for table in lab.findChildren(QtWidgets.QTableWidget):
        if not table.isVisible():
            continue
        header = table.horizontalHeader()
        metrics = QtGui.QFontMetrics(header.font())
        for col in range(table.columnCount()):
            if header.isSectionHidden(col):
                continue
            item = table.horizontalHeaderItem(col)
            if item is None:
                continue
            room = header.sectionSize(col) - 8
            for word in item.text().split():
                if metrics.horizontalAdvance(word) > room:
                    bad.append(f"header {item.text()!r}: the word {word!r} does not fit in {room} px")
                    break
    return bad


def legend_labels_off_their_keys(lab) -> list[str]:
    """Each legend label sits level with its key: a legend stretched taller than its rows
    spreads them apart, the labels drifting above their keys."""
    bad = []
    for _view, legend in _scene_items(lab, pg.LegendItem):
        for sample, label in legend.items:
            if not (sample.isVisible() and label.isVisible()):
                continue
            # the text as drawn: a stretched label item is a row tall with its text at the top
            key, text = sample.sceneBoundingRect(), label.item.sceneBoundingRect()
            if abs(key.center().y() - text.center().y()) > 0.5 * max(text.height(), 1.0):
                bad.append(f"legend label {label.text!r} {abs(key.center().y() - text.center().y()):.0f} px "
                           f"off its key")
    return bad


def plots_cut_by_window(lab, window) -> list[str]:
    """Every plot shows whole inside the window: a layout taller than the window (panels that
    cannot shrink) pushes the bottom plots' axes out of sight. Plots inside a scroll area may
    scroll and are left out."""
    bad = []
    inside = window.contentsRect()
    for view in _views(lab):
        parent = view.parentWidget()
        scrolled = False
        while parent is not None and parent is not window:
            if isinstance(parent, QtWidgets.QAbstractScrollArea) and parent is not view:
                scrolled = True
                break
            parent = parent.parentWidget()
        if scrolled:
            continue
        top_left = view.mapTo(window, QtCore.QPoint(0, 0))
        box = QtCore.QRect(top_left, view.size())
        status = window.statusBar() if hasattr(window, "statusBar") else None
        bottom = inside.bottom() - (status.height() if status is not None and status.isVisible() else 0)
        shown = box.intersected(QtCore.QRect(inside.left(), inside.top(), inside.width(), bottom - inside.top() + 1))
        if shown.height() < box.height() - 2 or shown.width() < box.width() - 2:
            plot_item = getattr(view, "getPlotItem", lambda: None)()
            name = _name(plot_item) if plot_item is not None else type(view).__name__
            bad.append(f"plot {name} cut by the window: {shown.width()}×{shown.height()} px of "
                       f"{box.width()}×{box.height()} shown")
    return bad


def main_plot_room(lab, window) -> list[str]:
    """The lab's main plot: ≥ 35 % of the window's height, ≥ 60 % of its own widget for data."""
    bad = []
    plot = lab.main_plot()
    if plot is None or not plot.isVisible():
        return bad
    vb = plot.getPlotItem().getViewBox()
    data = vb.sceneBoundingRect()
    widget = plot.viewport().rect()
    if data.height() < 0.35 * window.height():
        bad.append(f"main plot's data area {data.height():.0f} px tall, < 35 % of {window.height()} px")
    share = (data.width() * data.height()) / max(widget.width() * widget.height(), 1)
    if share < 0.60:
        bad.append(f"main plot's data area is {100 * share:.0f} % of its widget (< 60 %)")
    return bad


def all_problems(lab, window) -> list[str]:
    return (tick_label_overlaps(lab) + legends_over_data(lab) + cut_titles(lab) + cut_headers(lab)
            + legend_keys_wrong(lab) + legend_labels_off_their_keys(lab) + plots_cut_by_window(lab, window))


def _shown_part(widget, top) -> QtCore.QRect:
    """The part of ``widget`` (in ``top``'s coordinates) that its containers let through: each
    ancestor up to ``top`` clips what lies outside it (a scroll area's viewport, a splitter's
    pane, the window)."""
    box = QtCore.QRect(widget.mapTo(top, QtCore.QPoint(0, 0)), widget.size())
    parent = widget.parentWidget()
    while parent is not None:
        box = box.intersected(QtCore.QRect(parent.mapTo(top, QtCore.QPoint(0, 0)), parent.size()))
        if parent is top:
            break
        parent = parent.parentWidget()
    return box


def _in_vertical_scroll(view) -> bool:
    parent = view.parentWidget()
    while parent is not None:
        if isinstance(parent, QtWidgets.QAbstractScrollArea) and parent is not view:
            return True
        parent = parent.parentWidget()
    return False


def plots_clipped(lab, window) -> list[str]:
    """No plot is clipped by its container: a pane narrower than the plot it holds (a side
    panel opened beside plots that cannot yield) cuts the plot's right part away, its titles
    and axes with it. A page that scrolls may cut a plot at its top or bottom, never at a side.
    Inside each plot, no title or axis label runs past the plot's edge."""
    bad = []
    for view in _views(lab):
        box = QtCore.QRect(view.mapTo(window, QtCore.QPoint(0, 0)), view.size())
        shown = _shown_part(view, window)
        if shown.isEmpty():
            continue  # a pane folded away by its splitter: not on screen, not cut
        cut_side = shown.width() < box.width() - 2
        cut_height = shown.height() < box.height() - 2 and not _in_vertical_scroll(view)
        plot_item = getattr(view, "getPlotItem", lambda: None)()
        name = _name(plot_item) if plot_item is not None else type(view).__name__
        if cut_side or cut_height:
            bad.append(f"plot {name} clipped by its container: {shown.width()}×{shown.height()} px of "
                       f"{box.width()}×{box.height()} shown")
            continue
        area = view.mapToScene(view.viewport().rect()).boundingRect()
        for item in view.scene().items():
            if not item.isVisible():
                continue
            if isinstance(item, pg.PlotItem):
                title = item.titleLabel
                if title.isVisible() and title.text.strip() and not _inside(title.item, area):
                    text = QtGui.QTextDocumentFragment.fromHtml(title.text).toPlainText()
                    bad.append(f"title {text!r} runs past its plot's edge")
            elif isinstance(item, pg.AxisItem) and item.showLabel and item.label.isVisible() and \
                    item.label.toPlainText().strip() and not _inside(item.label, area):
                bad.append(f"axis label {item.label.toPlainText()!r} runs past its plot's edge")
    return bad


def _inside(text_item: QtWidgets.QGraphicsTextItem, area: QtCore.QRectF) -> bool:
    """The text of ``text_item`` lies in ``area`` (its document's empty margin may stick out)."""
    margin = text_item.document().documentMargin() + 1
    return area.adjusted(-margin, -margin, margin, margin).contains(text_item.sceneBoundingRect())
