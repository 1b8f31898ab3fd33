"""Legends that take their own room beside the data and never cover it.

:func:`outside_legend` puts a plot's legend in a row above the data (its columns re-flow with
the plot's width) or in a column to its right; :func:`place_legend` moves it between the two
(projector mode); keys of scattered points show the look of the points as drawn
(:func:`scatter_look`) and repaint whenever their item changes.
"""

from __future__ import annotations

import pyqtgraph as pg
from pyqtgraph.graphicsItems.LegendItem import ItemSample
from pyqtgraph.graphicsItems.ScatterPlotItem import drawSymbol
from PySide6 import QtCore, QtGui, QtWidgets


def outside_legend(plot_item: pg.PlotItem, where: str = "top", columns: int = 3) -> pg.LegendItem:
    """A legend that takes its own room next to the data area, so it never covers data.

    ``where="top"``: a row (``columns`` entries wide) between the title and the data;
    ``where="right"``: a column to the right of the plot. It is the plot's ``legend``, so
    :func:`app.widgets.plot_style.style_plot` restyles it with the rest.
    """
    legend = _FlowLegend(offset=None, colCount=columns if where == "top" else 1)
    legend._sml_home = where
    legend._sml_where = where
    if where == "top":
        # the (unused) top axis holds that cell of the plot's grid: the legend takes it
        top = plot_item.getAxis("top")
        plot_item.layout.removeItem(top)
        top.hide()
        plot_item.layout.addItem(legend, 1, 1)
    else:
        plot_item.layout.addItem(legend, 2, 3)
        _hold_at_top(plot_item, legend)
    plot_item.legend = legend
    if where == "top":
        legend._sml_fit = lambda: _fit_columns(plot_item, legend, columns)
        plot_item.geometryChanged.connect(legend._sml_fit)
    return legend


def place_legend(plot_item: pg.PlotItem, where: str) -> None:
    """Move an :func:`outside_legend` made for the top to the right of the plot ("right") or
    back ("top"): a wide, short plot (projector mode on a small screen) keeps its height for
    data with the legend as a column beside it."""
    legend = plot_item.legend
    if getattr(legend, "_sml_home", None) != "top" or legend._sml_where == where:
        return
    plot_item.layout.removeItem(legend)
    legend._sml_where = where
    if where == "right":
        legend.setColumnCount(1)
        plot_item.layout.addItem(legend, 2, 3)
        _hold_at_top(plot_item, legend)
        # the emptied row above the data keeps room for the top tick label's upper half
        font = plot_item.getAxis("left").style.get("tickFont") or QtGui.QFont()
        plot_item.layout.setRowMinimumHeight(1, 0.6 * QtGui.QFontMetricsF(font).height())
    else:
        plot_item.layout.setRowMinimumHeight(1, 0)
        legend.setSizePolicy(QtWidgets.QSizePolicy.Policy.Preferred, QtWidgets.QSizePolicy.Policy.Preferred)
        plot_item.layout.addItem(legend, 1, 1)
        legend._sml_fit()
    plot_item.layout.invalidate()


def _hold_at_top(plot_item: pg.PlotItem, legend: pg.LegendItem) -> None:
    """A legend in the column beside the data keeps its own height at the column's top: the
    grid's row is as tall as the data, and a stretched legend would spread its rows apart,
    each label drifting above its key."""
    legend.setSizePolicy(QtWidgets.QSizePolicy.Policy.Preferred, QtWidgets.QSizePolicy.Policy.Maximum)
    plot_item.layout.setAlignment(legend, QtCore.Qt.AlignmentFlag.AlignTop)


class _Sample(ItemSample):
    """A legend sample whose marker is at most a legend row high: a large ring (the point
    just used) would otherwise spill over its own label."""

    LARGEST = 18.0

    def paint(self, p, *args):
        item = self.item
        if isinstance(item, pg.ScatterPlotItem) and item.isVisible():
            # the look of the points as drawn: a lab that gives each point its own brush (or
            # symbol) leaves the item's defaults unused, and the key must not show those
            symbol, size, pen, brush = scatter_look(item)
            if symbol is None:
                return
            p.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
            p.translate(10, 10)
            if size > self.LARGEST:
                p.scale(self.LARGEST / size, self.LARGEST / size)
            drawSymbol(p, symbol, size, pen, brush)
            return
        opts = item.scatter.opts if isinstance(item, pg.PlotDataItem) else item.opts
        size = opts.get("size") if opts.get("symbol") is not None else None
        if isinstance(size, (int, float)) and size > self.LARGEST:
            shrink = self.LARGEST / size
            p.translate(10, 10)
            p.scale(shrink, shrink)
            p.translate(-10, -10)
        super().paint(p, *args)


def scatter_look(item: pg.ScatterPlotItem) -> tuple:
    """(symbol, size, pen, brush) of the first point ``item`` draws (at the item's own size), or
    of its defaults while it has none."""
    opts = item.opts
    symbol, size, pen, brush = opts.get("symbol"), opts.get("size", 7), opts.get("pen"), opts.get("brush")
    data = item.data
    if len(data):  # the size stays the item's own: a key names a kind of point, not one point's weight
        first = data[0]
        if first["symbol"] is not None:
            symbol = first["symbol"]
        if first["pen"] is not None:
            pen = first["pen"]
        if first["brush"] is not None:
            brush = first["brush"]
    return symbol, float(size), pg.mkPen(pen), pg.mkBrush(brush)


class _FlowLegend(pg.LegendItem):
    """A legend that re-flows its columns whenever an entry is added, and takes no room in
    its plot's grid while hidden (a plot with one curve gives that row to its data)."""

    _sml_fit = None

    def setVisible(self, visible: bool) -> None:
        big = 16_777_215  # QWIDGETSIZE_MAX
        self.setMaximumHeight(big if visible else 0)
        self.setMaximumWidth(big if visible else 0)
        super().setVisible(visible)
        parent = self.parentItem()
        if isinstance(parent, pg.PlotItem):
            parent.layout.invalidate()

    def show(self) -> None:
        self.setVisible(True)

    def hide(self) -> None:
        self.setVisible(False)

    def addItem(self, item, name):
        drawn = item
        if isinstance(item, pg.ScatterPlotItem):
            item = _Sample(item)
        super().addItem(item, name)
        # the key repaints whenever its item is given new data or a new look: it is right from
        # the first frame, not from the next time the legend happens to be repainted
        sample = self.items[-1][0]
        changed = getattr(drawn, "sigPlotChanged", None)
        if changed is not None:
            changed.connect(lambda *_args, sample=sample: sample.update())
        if self._sml_fit is not None:
            self._sml_fit()


def _fit_columns(plot_item: pg.PlotItem, legend: pg.LegendItem, most: int) -> None:
    """As many legend entries side by side as the data column's width allows (at most ``most``).

    Entries fill the grid row by row, and each column is as wide as its widest entry, so a
    long label only widens its own column. The room is what the plot is given (its view's
    width, never a width the legend itself forced) less every other column of the plot's
    grid (axes, a colour bar)."""
    if not legend.items or getattr(legend, "_sml_where", "top") != "top":
        return
    given = plot_item.width()
    views = plot_item.scene().views() if plot_item.scene() is not None else []
    if len(views) == 1 and getattr(views[0], "centralWidget", None) is plot_item:
        view = views[0]
        given = min(given, view.width())
        if getattr(legend, "_sml_view", None) is not view:
            # the view shrinking below what the legend's columns need would leave the plot
            # at its old width, cut off at the right: refit as the view resizes, before it
            # lays the plot out at the new size
            legend._sml_view = view
            view.installEventFilter(_LegendRefit(view, lambda: _fit_columns(plot_item, legend, most)))
    grid = plot_item.layout
    others = sum(_column_width(grid, c) for c in range(grid.columnCount()) if c != 1)
    room = given - others - 4
    if room <= 50:
        return  # not laid out yet
    lay = legend.layout
    gap = lay.horizontalSpacing()
    margins = lay.getContentsMargins()
    samples = [sample.boundingRect().width() for sample, _label in legend.items]
    labels = [label.item.boundingRect().width() for _sample, label in legend.items]
    cols = 1
    for n in range(int(min(most, len(labels))), 1, -1):
        need = sum(max(samples[c::n]) + max(labels[c::n]) for c in range(n))
        need += gap * (2 * n - 1) + margins[0] + margins[2] + 4
        if need <= room:
            cols = n
            break
    if cols != legend.columnCount:
        legend.setColumnCount(cols)


class _LegendRefit(QtCore.QObject):
    """Refits an outside legend's columns when its plot's view is resized."""

    def __init__(self, view, fit):
        super().__init__(view)
        self._fit = fit

    def eventFilter(self, obj, event) -> bool:
        if event.type() == QtCore.QEvent.Type.Resize:
            self._fit()
        return False


def _visible_cells(grid: QtWidgets.QGraphicsGridLayout, rows, columns):
    """The layout items of a plot's grid in those rows and columns, hidden ones (an axis not
    shown) left out."""
    for row in rows:
        for column in columns:
            item = grid.itemAt(row, column)
            if item is None:
                continue
            graphics = item.graphicsItem()
            if graphics is not None and not graphics.isVisible():
                continue
            yield item


def _column_width(grid: QtWidgets.QGraphicsGridLayout, column: int) -> float:
    """The width the items of one column of a plot's grid take (0 for a hidden axis)."""
    return max((item.geometry().width() for item in _visible_cells(grid, range(grid.rowCount()), [column])),
               default=0.0)
