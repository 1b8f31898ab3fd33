"""Plots that style themselves, and curves that grow by appending.

:class:`PlotPanel` is a ``pg.PlotWidget`` that knows its title and axis labels and
re-applies the theme and projector scale whenever the style changes (no per-lab
``style_plot`` calls). Its axes never use automatic SI prefixes (no "(x0.001)" on a step
axis) and its left axis has a fixed width, so a changing tick label cannot make the view
range and the axis width chase each other forever.

:class:`Series` is a curve whose data lives in amortised, growing numpy buffers:
``extend`` appends the points of the frames that arrived since the last one, so drawing
costs the same at step 10 and at step 100,000.

While a run plays (``PlotPanel.set_calm``, switched by the lab), a panel's automatic range
is calm for histories (curves fed by ``extend``; a curve given whole by ``set`` is shown
tight as usual, and so is everything once the run pauses or ends): the view grows in steps with headroom (a step axis to
the next round number past 1.25 times the data) instead of following every new point.
Between those steps the range, and with it the axes, stay as they are, so pyqtgraph does
not lay out and redraw the tick labels of every panel on every frame (the largest part of
a metric panel's paint while a run plays).
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from pyqtgraph.graphicsItems.PlotCurveItem import arrayToLineSegments
from PySide6 import QtCore, QtGui, QtWidgets

from .. import style as theme
from . import plot_style
from .legends import (  # noqa: F401 - the legend helpers are part of this module's interface
    _column_width, _FlowLegend, _Sample, _visible_cells, outside_legend, place_legend, scatter_look)
from .titles import _ElidingTitle, eliding_title  # noqa: F401 - as the legends

DASHES = [QtCore.Qt.PenStyle.SolidLine, QtCore.Qt.PenStyle.DashLine, QtCore.Qt.PenStyle.DotLine,
          QtCore.Qt.PenStyle.DashDotLine]


class _HistoryCurve(pg.PlotCurveItem):
    """A curve that strokes only its newest points each frame.

    A growing history is drawn as a head, stroked once into an image of the view and reused
    frame after frame, and a tail of at most :attr:`BLOCK` points stroked on top. The head
    is stroked again only when it grows by a block, when its points change (a history
    thinned, a new view range or downsampling) or when the view moves or resizes; so a
    long curve costs a few hundred segments a frame instead of thousands. Anything but a
    plain solid curve on screen (fills, dashes, export to SVG or an image) is drawn as
    usual, in one piece.
    """

    BLOCK = 128

    _head = None  # (key, head x, head y, image)

    def paint(self, p, opt, widget):
        x, y = self.xData, self.yData
        n = 0 if x is None else len(x)
        device = p.device()
        o = self.opts
        pen = o["pen"]
        if (n <= 2 * self.BLOCK or widget is None or self._exportOpts is not False
                or not isinstance(device, QtWidgets.QWidget) or o["fillLevel"] is not None
                or o["stepMode"] or o["connect"] not in ("all", "finite") or o["compositionMode"] is not None
                or (o["shadowPen"] is not None and o["shadowPen"].style() != QtCore.Qt.PenStyle.NoPen)
                or pen is None or pen.style() != QtCore.Qt.PenStyle.SolidLine):
            self._head = None
            return super().paint(p, opt, widget)
        h = (n - 1) // self.BLOCK * self.BLOCK  # head: points 0 … h; tail: h … n − 1
        t = p.combinedTransform()
        dpr = device.devicePixelRatioF()
        key = (t.m11(), t.m12(), t.m21(), t.m22(), t.m31(), t.m32(), device.width(), device.height(), dpr,
               pen.color().rgba(), pen.widthF(), bool(o["antialias"]), h)
        head = self._head
        if (head is None or head[0] != key or not np.array_equal(head[1], x[: h + 1])
                or not np.array_equal(head[2], y[: h + 1])):
            image = QtGui.QImage(max(1, round(device.width() * dpr)), max(1, round(device.height() * dpr)),
                                 QtGui.QImage.Format.Format_ARGB32_Premultiplied)
            image.setDevicePixelRatio(dpr)
            image.fill(0)
            q = QtGui.QPainter(image)
            q.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing, bool(o["antialias"]))
            q.setTransform(t)
            self._stroke(q, pen, x[: h + 1], y[: h + 1])
            q.end()
            head = self._head = (key, x[: h + 1].copy(), y[: h + 1].copy(), image)
        p.save()
        p.resetTransform()
        p.drawImage(QtCore.QPointF(0.0, 0.0), head[3])
        p.restore()
        p.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing, bool(o["antialias"]))
        self._stroke(p, pen, x[h:], y[h:])

    def _stroke(self, painter, pen, xs, ys) -> None:
        painter.setPen(pen)
        finite_check = not self.opts["skipFiniteCheck"]
        connect = self.opts["connect"]
        if self._shouldUseDrawLineSegments(pen):  # thick pens: separate segments, as pyqtgraph does
            segments = arrayToLineSegments(xs, ys, connect=connect, finiteCheck=finite_check)
            painter.drawLines(*segments.drawargs())  # (drawargs points into segments' buffer: keep it alive)
        else:
            painter.drawPath(pg.arrayToQPath(xs, ys, connect=connect, finiteCheck=finite_check))


class _HistoryItem(pg.PlotDataItem):
    """A PlotDataItem whose line is a :class:`_HistoryCurve`."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        plain = self.curve
        plain.setParentItem(None)
        if plain.scene() is not None:
            plain.scene().removeItem(plain)
        self.curve = _HistoryCurve()
        self.curve.setParentItem(self)
        self.curve.sigClicked.connect(self.sigClicked)
        self.updateItems()


class Series:
    """One curve fed by appending; ``log_y`` keeps only positive values (drawn on a log axis).

    A dashed curve turns solid once it holds more than :attr:`DASHED_POINTS` points: Qt strokes
    a dash pattern along a long, jagged path many times slower than a solid line (tens of
    milliseconds a frame), and a long curve is told apart by its colour. It is dashed again
    when cleared.
    """

    DASHED_POINTS = 1000
    #: a history keeps at most this many points (plus an unfinished block): past it, each
    #: block of points is kept as its lowest and highest, blocks doubling in length as the
    #: history grows (the curve's envelope stays), so a frame costs the same at step 100,000
    #: as at step 5,000
    MAX_POINTS = 4096

    def __init__(self, item: pg.PlotDataItem, *, log_y: bool = False, on_change=None):
        self.item = item
        self.log_y = log_y
        self._x = np.empty(256)
        self._y = np.empty(256)
        self.n = 0
        self.bounds: tuple[float, float, float, float] | None = None  # x_lo, x_hi, y_lo, y_hi
        self.whole = False  # set whole by `set` (not a growing history): shown tight, no headroom
        self._on_change = on_change
        self._level = 0  # past MAX_POINTS: each stored pair stands for 2 ** (level + 1) points
        self._px = self._py = np.empty(0)  # newest points, not yet a whole block

    def clear(self) -> None:
        self.n = 0
        self._level = 0
        self._px = self._py = np.empty(0)
        self.bounds = None
        self.whole = False
        self._set_dashed(True)
        self.item.setData([], [])
        if self._on_change is not None:
            self._on_change(self)

    def _set_dashed(self, dashed: bool) -> None:
        pen = self.item.opts.get("pen")
        style = getattr(self.item, "_sml_style", None)
        if style is None or not isinstance(pen, QtGui.QPen):
            return
        want = style[1] if dashed else QtCore.Qt.PenStyle.SolidLine
        if pen.style() != want:
            pen = QtGui.QPen(pen)
            pen.setStyle(want)
            self.item.setPen(pen)

    def extend(self, xs, ys) -> None:
        self.whole = False
        self._append(xs, ys)

    def _append(self, xs, ys) -> None:
        xs = np.asarray(xs, dtype=float).ravel()
        ys = np.asarray(ys, dtype=float).ravel()
        if xs.shape != ys.shape:
            raise ValueError("x and y must have the same length")
        if self.log_y:
            ys = np.maximum(ys, 1e-12)  # a converged gap (0) is drawn at the floor, not dropped
        keep = np.isfinite(xs) & np.isfinite(ys)
        xs, ys = xs[keep], ys[keep]
        if not xs.size:
            return
        before = self.n + self._px.size
        if self._level == 0:
            self._store(xs, ys)
        else:
            self._px, self._py = np.concatenate([self._px, xs]), np.concatenate([self._py, ys])
            self._fold_pending()
        while not self.whole and self.n > self.MAX_POINTS:
            self._thin()
        if before <= self.DASHED_POINTS < self.n + self._px.size:
            self._set_dashed(False)
        new = (float(xs.min()), float(xs.max()), float(ys.min()), float(ys.max()))
        b = self.bounds
        self.bounds = new if b is None else (min(b[0], new[0]), max(b[1], new[1]), min(b[2], new[2]), max(b[3], new[3]))
        self.item.setData(self.x if self._px.size else self._x[: self.n],
                          self.y if self._px.size else self._y[: self.n])
        if self._on_change is not None:
            self._on_change(self)

    def _store(self, xs, ys) -> None:
        need = self.n + xs.size
        if need > self._x.size:
            size = max(need, 2 * self._x.size)
            self._x = np.resize(self._x, size)
            self._y = np.resize(self._y, size)
        self._x[self.n:need] = xs
        self._y[self.n:need] = ys
        self.n = need

    @staticmethod
    def _fold(xs, ys, block: int):
        """Every ``block`` points -> their lowest and highest, in x order."""
        X, Y = xs.reshape(-1, block), ys.reshape(-1, block)
        rows = np.arange(len(X))
        lo, hi = Y.argmin(axis=1), Y.argmax(axis=1)
        first, second = np.minimum(lo, hi), np.maximum(lo, hi)
        return (np.column_stack([X[rows, first], X[rows, second]]).ravel(),
                np.column_stack([Y[rows, first], Y[rows, second]]).ravel())

    def _thin(self) -> None:
        """Halve the stored points (each pair then stands for twice as many points)."""
        m = (self.n // 4) * 4
        fx, fy = self._fold(self._x[:m], self._y[:m], 4)
        rest_x, rest_y = self._x[m:self.n].copy(), self._y[m:self.n].copy()
        self.n = 0
        self._store(fx, fy)
        self._level += 1
        self._px = np.concatenate([rest_x, self._px])  # an unpaired pair is folded with what follows
        self._py = np.concatenate([rest_y, self._py])
        self._fold_pending()

    def _fold_pending(self) -> None:
        block = 2 ** (self._level + 1)
        m = (self._px.size // block) * block
        if m:
            fx, fy = self._fold(self._px[:m], self._py[:m], block)
            self._store(fx, fy)
            self._px, self._py = self._px[m:], self._py[m:]

    def set(self, xs, ys) -> None:
        """Replace the whole curve (for series that are not a history)."""
        self.n = 0
        self._level = 0
        self._px = self._py = np.empty(0)
        self.bounds = None
        self.whole = True
        self._append(xs, ys)
        if self.n == 0:
            self.item.setData([], [])
            if self._on_change is not None:
                self._on_change(self)

    @property
    def x(self) -> np.ndarray:
        return np.concatenate([self._x[: self.n], self._px])

    @property
    def y(self) -> np.ndarray:
        return np.concatenate([self._y[: self.n], self._py])


def frame_height(plot_item: pg.PlotItem) -> float:
    """How tall a plot's title, top legend and bottom axis are: its height less the data area."""
    grid = plot_item.layout
    rows = [r for r in range(grid.rowCount()) if r != 2]  # row 2 holds the view box
    return sum(item.geometry().height() for item in _visible_cells(grid, rows, [1]))


def leave_room_below(plot_item: pg.PlotItem, font: QtGui.QFont) -> None:
    """Half a line of ``font`` below the plot: a colour bar's end labels stand that far past it."""
    plot_item.layout.setContentsMargins(1, 1, 1, int(QtGui.QFontMetricsF(font).height() / 2) + 1)


def nice_ceil(value: float) -> float:
    """The smallest of 1, 2, 2.5, 5 times a power of ten that is >= ``value`` (> 0)."""
    if not value > 0 or not math.isfinite(value):
        return 1.0
    decade = 10.0 ** math.floor(math.log10(value))
    for m in (1.0, 2.0, 2.5, 5.0, 10.0):
        if m * decade >= value * (1 - 1e-12):
            return m * decade
    return 10.0 * decade


def calm_box(data, box, *, log_y: bool = False):
    """The view box to show ``data`` = (x_lo, x_hi, y_lo, y_hi) in, given the current ``box``.

    The box is kept while it holds the data and the data fill at least a third of it in
    each direction; otherwise it grows (or is remade) with headroom: x to ``x_lo`` plus a
    round span past 1.25 times the data's, y by a quarter of the data's span on the side the
    data left (whole decades on a log axis, where ``data`` and the box are log10 values).
    """
    x_lo, x_hi, y_lo, y_hi = data
    if box is not None:
        bx0, bx1, by0, by1 = box
        inside = bx0 <= x_lo and x_hi <= bx1 and by0 <= y_lo and y_hi <= by1
        filled = (x_hi - x_lo) >= (bx1 - bx0) / 3 and (log_y or (y_hi - y_lo) >= (by1 - by0) / 3)
        if inside and filled:
            return box
        if not filled:
            box = None  # the data shrank (a new curve): start over
    span_x = x_hi - x_lo
    nx1 = x_lo + nice_ceil(1.25 * span_x) if span_x > 0 else x_hi + max(1.0, abs(x_hi)) * 0.5
    if log_y:
        ny0, ny1 = math.floor(y_lo), math.ceil(y_hi)
        if ny1 <= ny0:
            ny1 = ny0 + 1
    else:
        span_y = y_hi - y_lo
        if is_flat(y_lo, y_hi):  # a constant: a sane span about it, never rounding noise magnified
            ny0, ny1 = flat_range(y_lo, y_hi)
        else:
            ny0, ny1 = y_lo - 0.25 * span_y, y_hi + 0.25 * span_y
    if box is None:
        return (x_lo, nx1, ny0, ny1)
    bx0, bx1, by0, by1 = box
    return (min(bx0, x_lo), bx1 if x_hi <= bx1 else nx1,
            by0 if y_lo >= by0 else ny0, by1 if y_hi <= by1 else ny1)


#: values equal within this relative difference are one value: an axis never spans less
FLAT = 1e-6


def is_flat(lo: float, hi: float) -> bool:
    """True when ``lo`` … ``hi`` is one value as far as the numbers are true (equal within a
    relative :data:`FLAT`, or both zero)."""
    return hi - lo <= FLAT * max(abs(lo), abs(hi))


def flat_range(lo: float, hi: float) -> tuple[float, float]:
    """The range an axis shows for the constant ``lo`` ≈ ``hi``: a quarter of its size on each
    side (a half unit about zero), as a class reads "a flat line at 73.6" or "at 0"."""
    mid = 0.5 * (lo + hi)
    pad = 0.25 * abs(mid) if mid != 0 else 0.5
    return mid - pad, mid + pad


class _RangeAnchor(pg.GraphicsObject):
    """An invisible item whose data bounds are the panel's calm box (see :func:`calm_box`):
    the view's automatic range covers it, so the range changes only when the box does."""

    def __init__(self):
        super().__init__()
        self.box = None
        self.setFlag(self.GraphicsItemFlag.ItemHasNoContents)

    def dataBounds(self, ax, frac=1.0, orthoRange=None):
        if self.box is None:
            return None
        return (self.box[0], self.box[1]) if ax == 0 else (self.box[2], self.box[3])

    def boundingRect(self):
        return QtCore.QRectF()

    def paint(self, p, *args):
        pass


def _minor_rank(v: float) -> tuple[int, float]:
    """Which minor log ticks to keep first: 5 × and 2 × a decade, then 3, 4, 6 …"""
    mantissa = int(round(10.0 ** (v - math.floor(v))))
    return ({5: 0, 2: 1}.get(mantissa, 2), v)


def _line_count(doc: QtGui.QTextDocument) -> int:
    """Lines of ``doc`` as laid out (a wrapped paragraph counts each of its lines)."""
    doc.documentLayout().documentSize()  # lays the document out
    return sum(max(doc.findBlockByNumber(i).layout().lineCount(), 1) for i in range(doc.blockCount()))


class TidyAxis(pg.AxisItem):
    """An axis whose labelled ticks never run together, at any size or font.

    pyqtgraph always labels its coarsest tick level, however close the labels come ("50
    100150" on a narrow plot, "0.20.40.60.8" at projector font sizes). Here the coarsest
    level is made coarse enough for its labels: along a vertical axis labels stay 1.25 lines
    apart, along a horizontal one the widest label plus an em of space fits between ticks.
    """

    def tickSpacing(self, minVal, maxVal, size):
        levels = super().tickSpacing(minVal, maxVal, size)
        if not levels or self._tickSpacing is not None or size <= 0:
            return levels
        span = abs(maxVal - minVal)
        if not (math.isfinite(span) and span > 0):
            return levels
        font = self.style.get("tickFont") or QtGui.QFont()
        metrics = QtGui.QFontMetricsF(font)
        spacing = levels[0][0]
        for _ in range(6):
            need = self._label_room(metrics, minVal, maxVal, spacing)
            if spacing * size / span >= need:
                break
            spacing = max(nice_ceil(need * span / size), nice_ceil(spacing * 1.01))
        if spacing == levels[0][0]:
            return levels
        return [(spacing, 0.0)]

    _base_width = None
    #: a label this much longer than its axis is set smaller on one line, not wrapped
    LEAST_SHRINK = 0.75

    def setWidth(self, w=None):
        self._base_width = w
        super().setWidth(w)

    def resizeEvent(self, ev=None):
        """An axis label longer than its axis wraps at word boundaries instead of running
        past the plot's corner (a short metric panel in projector mode)."""
        label = self.label
        if label is None or not self.showLabel:
            super().resizeEvent(ev)
            return
        vertical = self.orientation in ("left", "right")
        length = self.size().height() if vertical else self.size().width()
        before = label.boundingRect().height()
        label.setScale(1.0)
        label.setTextWidth(-1)
        fixed = vertical and self._base_width is not None
        full = label.boundingRect().width()
        if length > 24 and length < full <= length / self.LEAST_SHRINK:
            label.setScale(length / full)  # a little too long: smaller, still on one line
        elif length > 24 and full > length:
            if not fixed:  # a fixed-width axis has no room for a second line: it only shrinks
                option = label.document().defaultTextOption()
                option.setWrapMode(QtGui.QTextOption.WrapMode.WordWrap)  # whole words only
                label.document().setDefaultTextOption(option)
                # two lines at most: wrapped wider than its axis if need be, then set smaller
                width = max(length, 0.5 * full)
                label.setTextWidth(width)
                while _line_count(label.document()) > 2 and width < full:
                    width = min(full + 1, 1.15 * width)
                    label.setTextWidth(width)
                label.setTextWidth(min(width, label.document().idealWidth() + 1))  # no empty margin
            widest = max(label.document().idealWidth(), label.boundingRect().width() if fixed else 0.0)
            if widest > length:  # longer than the axis: the label shrinks (to 60 % at most)
                label.setScale(max(0.6, length / widest))
        if abs(label.boundingRect().height() - before) > 0.5:
            if vertical and self._base_width is not None:
                pass  # width fixed by its owner; the label shrank instead of wrapping
            elif vertical:
                self._updateWidth()
            else:
                self._updateHeight()
        super().resizeEvent(ev)
        scale = label.scale()
        if scale != 1.0:  # centre the shrunk label along the axis, as pyqtgraph does at full size
            br = label.boundingRect()
            pos = label.pos()
            if self.orientation == "left":
                pos.setY(int(self.size().height() / 2 + scale * br.width() / 2))
            elif self.orientation == "right":
                pos.setY(int(self.size().height() / 2 + scale * br.width() / 2))
                pos.setX(int(self.size().width() - scale * br.height() + 5))
            elif self.orientation == "bottom":
                pos.setX(int(self.size().width() / 2 - scale * br.width() / 2))
                pos.setY(int(self.size().height() - scale * br.height() + 5))
            else:
                pos.setX(int(self.size().width() / 2 - scale * br.width() / 2))
            label.setPos(pos)

    def _label_room(self, metrics: QtGui.QFontMetricsF, lo: float, hi: float, spacing: float) -> float:
        """Pixels a tick label needs along the axis at this spacing (with its gap)."""
        if self.orientation in ("left", "right"):
            return 1.25 * metrics.height()
        lo, hi = min(lo, hi), max(lo, hi)
        first = math.ceil(lo / spacing) * spacing
        count = min(int((hi - first) / spacing) + 1, 40)
        values = [first + i * spacing for i in range(max(count, 1))]
        if self.logMode:
            return max(metrics.horizontalAdvance("10000"), 1.0) + metrics.horizontalAdvance("M")
        strings = self.tickStrings(values, self.autoSIPrefixScale * self.scale, spacing)
        widest = max((metrics.horizontalAdvance(str(t)) for t in strings), default=0.0)
        return widest + metrics.horizontalAdvance("M")

    def logTickValues(self, minVal, maxVal, size, stdTicks):
        """Over two decades or more a log axis ticks (and grids) whole decades only: the
        eight minor lines per decade added nothing readable and, as grid lines across the
        plot, cost more to paint than the curves."""
        levels = super().logTickValues(minVal, maxVal, size, stdTicks)
        # a decade at either end of the range is ticked too (pyqtgraph ticks those strictly
        # inside): a range of one decade, as an empty plot shows, never reads as a bare "2 … 9"
        ends = [float(v) for v in (math.ceil(minVal - 1e-9), math.floor(maxVal + 1e-9))
                if math.isfinite(v) and minVal - 1e-9 <= v <= maxVal + 1e-9] if maxVal - minVal < 2.0 else []
        if ends:
            majors = [i for i, (spacing, _values) in enumerate(levels) if spacing is not None]
            if majors:
                spacing, values = levels[majors[0]]
                levels[majors[0]] = (spacing, sorted(set(values) | set(ends)))
            else:
                levels.insert(0, (1.0, sorted(set(ends))))
        if maxVal - minVal >= 2.0:
            levels = [level for level in levels if level[0] is not None] or levels
        elif self.orientation in ("left", "right") and maxVal > minVal and size > 0:
            # under two decades the minor ticks (2 … 9 × a decade) are labelled too: on a
            # short axis keep only those 1.25 lines clear of every tick already kept
            font = self.style.get("tickFont") or QtGui.QFont()
            gap = 1.25 * QtGui.QFontMetricsF(font).height() * (maxVal - minVal) / size
            kept = [v for spacing, values in levels if spacing is not None for v in values]
            thinned = []
            for spacing, values in levels:
                if spacing is not None:
                    thinned.append((spacing, values))
                    continue
                mine = []
                for v in sorted(values, key=_minor_rank):  # 5× and 2× a decade before the others
                    if all(abs(v - k) >= gap for k in kept):
                        kept.append(v)
                        mine.append(v)
                thinned.append((spacing, sorted(mine)))
            levels = thinned
        return levels


class PlotPanel(pg.PlotWidget):
    """A plot with a title, axis labels and named curves, restyled on every style change.

    Curves get the Okabe–Ito colours in order and their own dash pattern, so they stay
    distinguishable in grey scale. The legend sits outside the data area (``legend_corner``
    "top" or "right"; or a corner inside, "top-left" ...), appears only once there are two
    curves (one curve is named by the axis label), can be hidden (``show_legend``) and
    follows the style both ways.
    """

    LEFT_AXIS_EM = 4.2  # width of the left axis in units of the tick font
    _refit_pending = False

    def __init__(self, title: str = "", x_label: str = "", y_label: str = "", parent=None, *,
                 log_y: bool = False, legend: bool = True, legend_corner: str = "top"):
        super().__init__(parent, axisItems={"left": TidyAxis("left"), "bottom": TidyAxis("bottom")})
        self.plot_item = self.getPlotItem()
        self.plot_item.setDownsampling(auto=True, mode="peak")
        self.plot_item.setClipToView(True)
        self.plot_item.setLogMode(y=log_y)
        self._title, self._x_label, self._y_label = title, x_label, y_label
        self.log_y = log_y
        for name in ("left", "bottom"):
            axis = self.plot_item.getAxis(name)
            axis.setSIPrefixEnableRanges(())  # never a silent SI scaling of the ticks
            axis.enableAutoSIPrefix(False)
        self.legend = None
        self._legend_wanted = legend
        if legend:
            offsets = {"top-right": (-10, 10), "top-left": (10, 10), "bottom-right": (-10, -10),
                       "bottom-left": (10, -10)}
            if legend_corner in ("top", "right"):
                self.legend = outside_legend(self.plot_item, legend_corner)
            else:
                self.legend = self.plot_item.addLegend(offset=offsets[legend_corner])
            self.legend.setVisible(False)
        self.series: dict[str, Series] = {}
        self._anchor = _RangeAnchor()
        self._calm = False
        self.plot_item.addItem(self._anchor)
        self.setMinimumSize(120, 90)
        self.apply_style(theme.current())
        theme.manager().changed.connect(self.apply_style)

    # --- curves
    def curve(self, name: str, *, color: str | None = None, dash: int | None = None) -> Series:
        """The named curve, created on first use."""
        if name not in self.series:
            i = len(self.series)
            # a long history is drawn as about two points (its lowest and highest) per pixel
            # column: the same picture, and a stroke of a few hundred segments, not thousands
            item = _HistoryItem([], [], autoDownsampleFactor=1.0)
            self.plot_item.addItem(item)
            if self.legend is not None:
                self.legend.addItem(item, name)
                self.legend.setVisible(self._legend_wanted and len(self.series) >= 1)
            item._sml_style = (color or theme.CATEGORICAL[i % len(theme.CATEGORICAL)],
                               DASHES[(dash if dash is not None else i) % 4])
            self.series[name] = Series(item, log_y=self.log_y, on_change=self._series_changed)
            self._style_curve(item, theme.current())
        return self.series[name]

    def set_calm(self, calm: bool) -> None:
        """Calm range (growing in steps, for a run that plays) or tight range (the default)."""
        self._calm = bool(calm)
        self._series_changed()

    def _series_changed(self, _series=None) -> None:
        bounds = [s.bounds for s in self.series.values()
                  if s.bounds is not None and not s.whole and s.item.isVisible()]
        if not bounds or not self._calm:
            box = None if self.log_y else self._flat_box()
        else:
            data = (min(b[0] for b in bounds), max(b[1] for b in bounds),
                    min(b[2] for b in bounds), max(b[3] for b in bounds))
            if self.log_y:
                data = (data[0], data[1], math.log10(max(data[2], 1e-300)), math.log10(max(data[3], 1e-300)))
            box = calm_box(data, self._anchor.box, log_y=self.log_y)
        if box != self._anchor.box:
            self._anchor.box = box
            self.plot_item.getViewBox().itemBoundsChanged(self._anchor)

    def _flat_box(self):
        """A tight range over curves that are one constant (see :func:`is_flat`): the box that
        widens the view to a sane span about it; None otherwise (the data's own range)."""
        bounds = [s.bounds for s in self.series.values() if s.bounds is not None and s.item.isVisible()]
        if not bounds:
            return None
        x_lo, x_hi = min(b[0] for b in bounds), max(b[1] for b in bounds)
        y_lo, y_hi = min(b[2] for b in bounds), max(b[3] for b in bounds)
        if not is_flat(y_lo, y_hi):
            return None
        return (x_lo, x_hi, *flat_range(y_lo, y_hi))

    def clear_series(self) -> None:
        for s in self.series.values():
            s.clear()

    def show_legend(self, visible: bool) -> None:
        self._legend_wanted = visible
        if self.legend is not None:
            self.legend.setVisible(visible and len(self.series) >= 2)

    def set_title(self, title: str) -> None:
        self._title = title
        plot_style.style_plot(self, theme.current(), title=title)

    @property
    def labels(self) -> tuple[str, str, str]:
        """(title, x-axis label, y-axis label) as shown."""
        return self._title, self._x_label, self._y_label

    def set_labels(self, title: str | None = None, x_label: str | None = None, y_label: str | None = None) -> None:
        """Change the title and the axis labels (None keeps one); restyles only when one of them changes."""
        new = (self._title if title is None else title, self._x_label if x_label is None else x_label,
               self._y_label if y_label is None else y_label)
        if new != self.labels:
            self._title, self._x_label, self._y_label = new
            self.apply_style()

    # --- style
    def _style_curve(self, item, s: theme.Style) -> None:
        color, dash = item._sml_style
        pen = pg.mkPen(color, width=s.line_width)
        series = next((x for x in self.series.values() if x.item is item), None)
        long_curve = series is not None and series.n > Series.DASHED_POINTS
        pen.setStyle(QtCore.Qt.PenStyle.SolidLine if long_curve else dash)
        item.setPen(pen)

    def apply_style(self, s: theme.Style | None = None) -> None:
        s = s or theme.current()
        plot_style.set_axis_labels(self, self._x_label, self._y_label, s)
        plot_style.style_plot(self, s, title=self._title)
        left = self.plot_item.getAxis("left")
        left.setWidth(int(self.LEFT_AXIS_EM * s.font_pt * 1.4 + 18 * s.scale))
        self._fit_height(s)
        for series in self.series.values():
            self._style_curve(series.item, s)

    def _fit_height(self, s: theme.Style) -> None:
        """Title + axis + a few tick labels' worth of data area (two labelled ticks at
        projector font sizes), and at least the room the left axis label needs along the data
        area (shrunk to 70 % at most): secondary plots yield the rest of the height to the main
        one, never so much that their label runs past the plot."""
        line = s.font_pt * 1.33
        least = 8 * line
        legend = self.legend
        above = 0.0  # a legend in a row above the data takes its height from the plot
        if legend is not None and legend.isVisible() and getattr(legend, "_sml_where", "") == "top":
            above = legend.boundingRect().height()
        plain = QtGui.QTextDocumentFragment.fromHtml(self._y_label or "").toPlainText().strip()
        if plain:
            font = QtGui.QFont()
            font.setPointSizeF(s.font_pt)
            length = QtGui.QFontMetricsF(font).horizontalAdvance(plain)
            least = max(least, 30 + 3 * line + 0.7 * length + 4 + above)  # title row, bottom axis, label
        least = max(least, 30 + 3 * line + 2.5 * line + above)  # two labelled ticks under the legend
        if int(least) != self.minimumHeight():
            self.setMinimumHeight(int(least))

    def resizeEvent(self, ev):
        super().resizeEvent(ev)
        # a top legend re-flows its columns with the width: the least height follows it
        if getattr(self, "legend", None) is not None and not self._refit_pending:
            self._refit_pending = True
            QtCore.QTimer.singleShot(0, self, self._refit_height)

    def _refit_height(self) -> None:
        self._refit_pending = False
        try:
            self._fit_height(theme.current())
        except RuntimeError:  # the plot's items were deleted before this deferred call (closing)
            pass
