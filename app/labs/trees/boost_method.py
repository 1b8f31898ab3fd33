"""The trees lab's AdaBoost method: the weighted training points (size ∝ √w) and the current
stump on the points, the errors, exponential loss and bound against the round, and the α_m of
every stump. :class:`BoostMethod` is a part of :class:`app.labs.trees.lab.TreesLab`: it builds
the method's items and page and draws its snapshots."""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from ... import style as theme
from ...widgets.plots import PlotPanel

#: point sizes while boosting: marker × sqrt(n w_i), clipped (uniform weights = normal size)
WEIGHT_SIZE_CLIP = (0.35, 4.0)
#: the α_m plot draws at most one bar per pixel column (but at least this many bars)
ALPHA_MIN_BARS = 200


def alpha_bar_segments(alpha: np.ndarray, max_bars: int) -> tuple[np.ndarray, np.ndarray]:
    """Vertical segments (m, 0)–(m, α_m) for a ``connect="pairs"`` curve.

    With more rounds than ``max_bars`` the rounds are binned and each bin is drawn as one bar
    at its centre with the largest α of the bin (what a pixel column would show anyway), so
    the drawing cost stays bounded however long boosting runs."""
    alpha = np.asarray(alpha, float)
    n = len(alpha)
    if n <= max_bars:
        m, h = np.arange(1.0, n + 1), alpha
    else:
        size = -(-n // max_bars)
        starts = np.arange(0, n, size)
        h = np.maximum.reduceat(alpha, starts)
        ends = np.minimum(starts + size, n)
        m = 0.5 * (starts + 1 + ends)
    xs = np.repeat(m, 2)
    ys = np.zeros(2 * len(h))
    ys[1::2] = h
    return xs, ys


def round_axis_span(rounds: int, most: int) -> int:
    """Right end of the round axis: the first of 10, 20, 50, 100, 200, ... ≥ ``rounds``, at
    most ``most`` (the axis changes a dozen times in a run, not at every frame)."""
    span = 10
    while span < rounds:
        span = span * 5 // 2 if str(span)[0] == "2" else span * 2
    return max(1, min(span, max(int(most), 1)))


def set_sizes(item: pg.ScatterPlotItem, sizes: np.ndarray) -> None:
    """Give the points of ``item`` these sizes, restyling only the points whose size changed.

    ``ScatterPlotItem.setSize`` looks every point up in the symbol atlas again (a Python loop,
    milliseconds for a few thousand points); with sizes in a few classes only the handful of
    points that changed class since the last frame need that."""
    data = item.data
    names = data.dtype.names or ()
    if len(data) != len(sizes) or "size" not in names or "sourceRect" not in names:
        item.setSize(sizes)
        return
    changed = np.flatnonzero(data["size"] != sizes)
    if changed.size:
        data["size"][changed] = sizes[changed]
        data["sourceRect"][changed] = 0  # these points look their symbol up again
        item.updateSpots()


def _gap(value) -> float:
    """A rate for a curve: undefined at a step (None) is a gap."""
    return np.nan if value is None else value


class BoostMethod:
    """Building and drawing the AdaBoost method (methods of the trees lab)."""

    def _add_boost_items(self, pi) -> None:
        """The weighted training points and the current stump, on the points' plot ``pi``."""
        self.weighted_pos = pg.ScatterPlotItem()
        self.weighted_neg = pg.ScatterPlotItem()
        for item in (self.weighted_neg, self.weighted_pos):
            item.setZValue(11)
            pi.addItem(item)
        self.stump_line = pg.InfiniteLine(angle=90, movable=False)
        self.stump_line.setZValue(8)
        self.stump_line.setVisible(False)
        pi.addItem(self.stump_line, ignoreBounds=True)
        self._stump_sample = pg.PlotDataItem([], [])  # legend sample (an InfiniteLine cannot be one)

    def _build_boost_page(self) -> QtWidgets.QWidget:
        """The errors and bound against the round beside the α_m of every stump."""
        self.boost_panel = PlotPanel("Errors and bound", "round m", "value", legend_corner="top")
        for name in ("train error", "test error", "exp. loss", "bound"):  # as the maths panel names them
            self.boost_panel.curve(name)
        self.boost_panel.plot_item.enableAutoRange(x=False, y=False)
        self._boost_y_range(theme.current())
        self.alpha_panel = PlotPanel("α_m", "round m", "α_m", legend=False)
        self.alpha_panel.plot_item.enableAutoRange(x=False)
        # one vertical segment per round (a curve with connect="pairs": cheap for thousands of rounds)
        self.alpha_bars = pg.PlotCurveItem(connect="pairs")
        self.alpha_panel.plot_item.addItem(self.alpha_bars)
        boost_page = QtWidgets.QSplitter(QtCore.Qt.Orientation.Horizontal)
        boost_page.addWidget(self.boost_panel)
        boost_page.addWidget(self.alpha_panel)
        boost_page.setSizes([580, 260])
        return boost_page

    def _render_boost(self, snap, prepared, history) -> None:
        ctx, e = snap.ctx, snap.engine
        s = theme.current()
        if prepared is not None or e.n_learners == 0:
            self._set_frame(prepared)
        # weighted training points: positions once per run and style, sizes every frame
        key = (id(ctx), s)
        pos = ctx.y_train > 0
        if key != self._weights_key:
            self._weights_key = key
            edge = pg.mkPen(s.foreground, width=max(1.0, s.scale))
            self.weighted_pos.setData(pos=ctx.X_train[pos], symbol="o", brush=pg.mkBrush(theme.POS_COLOR), pen=edge,
                                      size=s.marker_size)
            self.weighted_neg.setData(pos=ctx.X_train[~pos], symbol="s", brush=pg.mkBrush(theme.NEG_COLOR), pen=edge,
                                      size=s.marker_size * 0.9)
        sizes = self.weight_sizes(e.weights, s.marker_size)
        set_sizes(self.weighted_pos, sizes[pos])
        set_sizes(self.weighted_neg, sizes[~pos] * 0.9)
        # the current stump
        if e.axis is not None and e.axis >= 0:
            if self._stump_style is not s:
                self._stump_style = s
                pen = pg.mkPen(theme.OKABE_ITO["bluish_green"], width=s.line_width * 1.3)
                pen.setStyle(QtCore.Qt.PenStyle.DashLine)
                self.stump_line.setPen(pen)
            self.stump_line.setAngle(90 if e.axis == 0 else 0)
            self.stump_line.setPos(e.threshold)
            self.stump_line.setVisible(True)
        else:
            self.stump_line.setVisible(False)
        if history.rewound:
            self.boost_panel.clear_series()
        added = history.added
        if added:
            r = np.fromiter((h.engine.round for h in added), float, len(added))
            c = self.boost_panel.series
            names = list(c)
            c[names[0]].extend(r, [_gap(h.train_error) for h in added])
            if ctx.n_test:
                c[names[1]].extend(r, [_gap(h.test_error) for h in added])
            c[names[2]].extend(r, [h.engine.exp_loss_half for h in added])
            c[names[3]].extend(r, [h.engine.bound for h in added])
        # the round axis grows in steps 10, 20, 50, 100, ... up to M (set before painting: an
        # auto range changing while painting would make every frame paint these plots twice)
        span = round_axis_span(e.round, int(ctx.params["n_rounds"]))
        if history.rewound or span != self._round_span:
            self._round_span = span
            for panel in (self.boost_panel, self.alpha_panel):
                panel.plot_item.setXRange(0.0, span + 0.5, padding=0)
        n = len(snap.stumps)
        if n != self._alpha_n:
            self._alpha_n = n
            view_px = self.alpha_panel.plot_item.getViewBox().width()
            xs, ys = alpha_bar_segments(snap.stumps[:, 4], max(int(view_px * n / span), ALPHA_MIN_BARS))
            # bars as thick as the rounds allow (thin lines once there are hundreds)
            rounds_per_bar = n / max(len(xs) // 2, 1)
            width = max(1.0, min(6.0 * s.scale, 0.5 * view_px * rounds_per_bar / span))
            if width != self._alpha_width:
                self._alpha_width = width
                self.alpha_bars.setPen(pg.mkPen(theme.OKABE_ITO["bluish_green"], width=width))
            self.alpha_bars.setData(xs, ys)

    @staticmethod
    def weight_sizes(w: np.ndarray, base: float) -> np.ndarray:
        """Marker sizes ∝ √(n w_i), clipped to WEIGHT_SIZE_CLIP and rounded to one of a few
        size classes a factor √2 apart (a factor 2 in weight): from one frame to the next only
        the few points that change class are restyled."""
        f = np.sqrt(len(w) * np.asarray(w, float))
        lo, hi = (2.0 * math.log2(c) for c in WEIGHT_SIZE_CLIP)
        k = np.clip(np.round(2.0 * np.log2(np.maximum(f, 1e-300))), math.ceil(lo), math.floor(hi))
        return base * np.exp2(0.5 * k)

    def _boost_y_range(self, s: theme.Style) -> None:
        # the curves stay in [0, 1]; the band above is the legend's, so it never hides them
        self.boost_panel.plot_item.setYRange(0.0, 2.6 if s.projector else 1.6, padding=0)
