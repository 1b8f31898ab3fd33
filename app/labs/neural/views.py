"""The network drawn as nodes and edges: every unit a picture of its value over the plane, every
weight an edge whose width is its size and whose colour its sign, numbers beside the nodes.

Layout, in the view's own units (one unit per pixel of a unit's picture): column c (inputs,
hidden layers, output) stands at x = c · COLUMN, its nodes one ROW apart and centred on the
tallest column. Edges are drawn as eight polylines (two signs × four widths), so the cost does
not grow with the number of weights.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui

from ... import style as theme
from ...widgets.decision_map import DecisionMap
from ...widgets.image_view import ImageView
from ...widgets.plots import PlotPanel
from .run import THUMB

COLUMN = 3.5 * THUMB  # room for the edges and the numbers to the right of a node
ROW = 1.2 * THUMB
TOP = 0.8 * THUMB
#: edge widths (points) and the share of the largest |weight| where each begins
WIDTHS = ((0.6, 0.0), (1.6, 0.15), (3.0, 0.4), (5.0, 0.7))


def picture_lut(s: theme.Style) -> np.ndarray:
    """Values in [−1, 1] as colours: the class −1 colour, the background, the class +1 colour (opaque)."""
    neg = np.array(QtGui.QColor(theme.NEG_COLOR).getRgb()[:3], float)
    pos = np.array(QtGui.QColor(theme.POS_COLOR).getRgb()[:3], float)
    mid = np.array(QtGui.QColor(s.background).getRgb()[:3], float)
    t = np.linspace(-1, 1, 256)[:, None]
    rgb = np.where(t < 0, mid + (neg - mid) * (-t), mid + (pos - mid) * t)
    return np.column_stack([rgb.astype(np.ubyte), np.full(256, 255, np.ubyte)])


def node_positions(units, column: float = COLUMN) -> list[np.ndarray]:
    """(m, 2) centres of the nodes of each column, for layer sizes ``units`` (inputs first), columns
    ``column`` apart, below a band of TOP for the columns' names."""
    tallest = max(units)
    return [np.column_stack([np.full(m, THUMB / 2 + c * column),
                             TOP + (tallest - m) * ROW / 2 + ROW / 2 + np.arange(m) * ROW])
            for c, m in enumerate(units)]


def extent_of(units, column: float = COLUMN) -> tuple[float, float]:
    """(height, width) of the drawing of a network of layer sizes ``units``."""
    return TOP + max(units) * ROW, (len(units) - 1) * column + THUMB * 2.6


def column_for(units, width: float, height: float) -> float:
    """The columns' spacing that fills a view of this shape (pixels): at least COLUMN, at most 8 pictures."""
    if len(units) < 2 or width <= 0 or height <= 0:
        return COLUMN
    tall, _ = extent_of(units)
    spread = (tall * width / height - THUMB * 2.6) / (len(units) - 1)
    return float(np.clip(spread, COLUMN, 8 * THUMB))


def edge_segments(centres, coefs, largest: float) -> dict[tuple[int, int], tuple[np.ndarray, np.ndarray]]:
    """NaN-separated segments of the edges, keyed by (sign, width class): edge (i → j) of layer l
    joins node i's right side to node j's left side."""
    groups: dict[tuple[int, int], list] = {}
    for l, W in enumerate(coefs):
        a, b = centres[l], centres[l + 1]
        i, j = np.meshgrid(np.arange(W.shape[0]), np.arange(W.shape[1]), indexing="ij")
        w = W.ravel()
        share = np.abs(w) / largest if largest > 0 else np.zeros_like(w)
        kind = np.searchsorted([start for _, start in WIDTHS], share, side="right") - 1
        x0, y0 = a[i.ravel(), 0] + THUMB / 2, a[i.ravel(), 1]
        x1, y1 = b[j.ravel(), 0] - THUMB / 2, b[j.ravel(), 1]
        for sign in (0, 1):
            for k in range(len(WIDTHS)):
                pick = (kind == k) & ((w >= 0) == bool(sign))
                if pick.any():
                    groups.setdefault((sign, k), []).append((x0[pick], y0[pick], x1[pick], y1[pick]))
    out = {}
    for key, parts in groups.items():
        x0, y0, x1, y1 = (np.concatenate(p) for p in zip(*parts))
        nan = np.full_like(x0, np.nan)
        out[key] = (np.column_stack([x0, x1, nan]).ravel(), np.column_stack([y0, y1, nan]).ravel())
    return out


class NetworkView(ImageView):
    """The network: pictures as nodes, weights as edges, a number or two beside each node.

    ``picked(u, v)`` is emitted for a left click inside a node's picture, (u, v) in [0, 1]² being
    where in the plane the click fell (u along x₁, v along x₂, from the lower left corner).
    """

    picked = QtCore.Signal(float, float)

    def __init__(self, title: str):
        super().__init__(title)
        self.units: list[int] = []
        self.centres: list[np.ndarray] = []
        self.texts: list[pg.TextItem] = []
        self.labels: list[pg.TextItem] = []
        for sign, color in ((0, theme.NEG_COLOR), (1, theme.POS_COLOR)):
            for k, (width, _) in enumerate(WIDTHS):
                self.layer(f"edge{sign}{k}", color, width, z=-2)
        self.layer("frames", theme.current().foreground, 0.8, z=2)
        self.marks = pg.ScatterPlotItem(pxMode=True)
        self.marks.setZValue(5)
        self.plot_item.addItem(self.marks)
        self.clicked.connect(self._clicked)
        self._lut = picture_lut(theme.current())
        self._drawn: dict = {}  # what was last drawn, drawn again when the layout changes
        self._column: float | None = None
        self.vb.sigResized.connect(self._view_resized)

    # --- the shape of the network
    def set_units(self, units) -> None:
        """Lay the network out for layer sizes ``units`` (inputs first); nothing happens if unchanged."""
        units = [int(u) for u in units]
        if units == self.units:
            return
        self.units = units
        for item in self.texts + self.labels:
            self.plot_item.removeItem(item)
        self.texts = [pg.TextItem("", anchor=(0.0, 0.5), fill=pg.mkBrush(theme.current().background))
                      for _ in range(sum(units))]
        self.labels = [pg.TextItem(name, anchor=(0.5, 1.0)) for name in ("x₁, x₂", "p(+1 | x)")]
        for item in self.texts + self.labels:
            self.plot_item.addItem(item)
        for name in list(self.images):
            self.hide_image(name)
        self._drawn = {}
        self._column = None
        self._lay_out()
        self.apply_style()

    def _lay_out(self) -> None:
        """Place nodes, numbers and names for the view's shape, and draw again what was drawn."""
        column = column_for(self.units, self.vb.width(), self.vb.height())
        if not self.units or (self._column is not None and abs(column - self._column) < 0.05 * self._column):
            return
        self._column = column
        self.centres = node_positions(self.units, column)
        fx, fy = [], []
        for text, (x, y) in zip(self.texts, np.concatenate(self.centres)):
            text.setPos(x + THUMB / 2 + 2, y)
            fx += [x - THUMB / 2, x + THUMB / 2, x + THUMB / 2, x - THUMB / 2, x - THUMB / 2, np.nan]
            fy += [y - THUMB / 2, y - THUMB / 2, y + THUMB / 2, y + THUMB / 2, y - THUMB / 2, np.nan]
        for label, col in zip(self.labels, (0, len(self.units) - 1)):
            label.setPos(self.centres[col][0, 0], self.centres[col][0, 1] - THUMB / 2)
        self.set_boxes("frames", np.array(fx), np.array(fy))
        self.forget()  # the pictures move: draw them again whatever their keys
        drawn, self._drawn = self._drawn, {}
        for name, args in drawn.items():
            getattr(self, name)(*args)
        self.shape = extent_of(self.units, column)

    def _view_resized(self, *_args) -> None:
        if self.units:
            self._lay_out()

    # --- what is drawn
    def set_pictures(self, pictures, key=None) -> None:
        """Every unit's picture: ``pictures[c]`` of shape (units, THUMB, THUMB) for column c."""
        self._drawn["set_pictures"] = (pictures, key)
        for c, (layer, centres) in enumerate(zip(pictures, self.centres)):
            for j, (x, y) in enumerate(centres):
                self.draw(f"unit{c}_{j}", layer[j], (-1.0, 1.0), x=x - THUMB / 2, y=y - THUMB / 2,
                          key=None if key is None else (key, c, j), z=0, lut=self._lut)

    def set_edges(self, coefs) -> None:
        """Edges for these weights (or updates): width by |w| over the largest, colour by sign."""
        self._drawn["set_edges"] = (coefs,)
        largest = max((float(np.abs(W).max()) for W in coefs if W.size), default=0.0)
        segments = edge_segments(self.centres, coefs, largest)
        for sign in (0, 1):
            for k in range(len(WIDTHS)):
                xs, ys = segments.get((sign, k), (np.zeros(0), np.zeros(0)))
                self.set_boxes(f"edge{sign}{k}", xs, ys)

    def set_numbers(self, numbers) -> None:
        """The text beside each node, column by column (None: no numbers)."""
        flat = [t for column in numbers for t in column] if numbers is not None else []
        for i, item in enumerate(self.texts):
            item.setText(flat[i] if i < len(flat) else "")

    def mark(self, u: float, v: float) -> None:
        """A cross on every picture where the point (u, v) of the plane falls (u, v in [0, 1]; NaN: none)."""
        self._drawn["mark"] = (u, v)
        if not np.isfinite(u) or not np.isfinite(v):
            self.marks.setData([], [])
            return
        pts = np.concatenate([c for c in self.centres]) + THUMB * np.array([u - 0.5, 0.5 - v])
        s = theme.current()
        self.marks.setData(pos=pts, symbol="x", size=7 * s.scale, pen=pg.mkPen(s.foreground, width=s.scale),
                           brush=pg.mkBrush(s.foreground))

    # --- events and style
    def _clicked(self, x: float, y: float) -> None:
        for centres in self.centres:
            inside = (np.abs(centres[:, 0] - x) <= THUMB / 2) & (np.abs(centres[:, 1] - y) <= THUMB / 2)
            if inside.any():
                cx, cy = centres[np.flatnonzero(inside)[0]]
                self.picked.emit(float((x - cx) / THUMB + 0.5), float(0.5 - (y - cy) / THUMB))
                return

    def apply_style(self, s: theme.Style | None = None) -> None:
        s = s or theme.current()
        super().apply_style(s)
        self._lut = picture_lut(s)
        for item in self.images.values():
            item.setLookupTable(self._lut)
        font = QtGui.QFont()
        font.setPointSizeF(s.font_pt * 0.8)
        for item in getattr(self, "texts", []) + getattr(self, "labels", []):
            item.setFont(font)
            item.setColor(s.foreground)
        for item in getattr(self, "texts", []):  # numbers read over the edges they cover
            item.fill = pg.mkBrush(QtGui.QColor(s.background))
            item.update()
        if "frames" in self.layers:  # the frames follow the theme's foreground
            self.layers["frames"].setPen(pg.mkPen(s.foreground, width=0.8 * s.scale, cosmetic=True))


class MapPanel(PlotPanel):
    """A small plane: a network's map of p(+1 | x) − ½ with its boundary, the training points
    filled and the test points hollow (class +1 circles, class −1 squares)."""

    LEFT_AXIS_EM = 2.6  # coordinates need few digits: room for the map

    def __init__(self, title: str):
        super().__init__(title, "x₁", "x₂", legend=False)
        self.plot_item.setAspectLocked(True)
        self.decision = DecisionMap(self.plot_item)
        self.points = [pg.ScatterPlotItem() for _ in range(4)]  # +1, −1, test +1, test −1
        for item in self.points:
            item.setZValue(10)
            self.plot_item.addItem(item)
        self._data = None

    def show(self, frame, X, y, test_mask) -> None:
        """Draw ``frame`` and the points (``y`` ±1, ``test_mask`` the held-out ones)."""
        self.decision.set_frame(frame)
        self._data = (np.asarray(X, float), np.asarray(y, float), np.asarray(test_mask, bool))
        self._draw_points(theme.current())
        x0, x1, y0, y1 = frame.extent
        self.plot_item.setRange(xRange=(x0, x1), yRange=(y0, y1), padding=0)

    def clear_map(self) -> None:
        self.decision.set_frame(None)
        self._data = None
        for item in self.points:
            item.setData([], [])

    def _draw_points(self, s: theme.Style) -> None:
        if self._data is None:
            return
        X, y, test = self._data
        size = s.marker_size * 0.5
        edge = pg.mkPen(s.foreground, width=max(0.6, s.scale * 0.5))
        for item, pick, symbol, color, hollow in (
                (self.points[0], (y > 0) & ~test, "o", theme.POS_COLOR, False),
                (self.points[1], (y <= 0) & ~test, "s", theme.NEG_COLOR, False),
                (self.points[2], (y > 0) & test, "o", theme.POS_COLOR, True),
                (self.points[3], (y <= 0) & test, "s", theme.NEG_COLOR, True)):
            item.setData(pos=X[pick], symbol=symbol, size=size,
                         brush=pg.mkBrush(None) if hollow else pg.mkBrush(color),
                         pen=pg.mkPen(color, width=1.6 * s.scale) if hollow else edge)

    def apply_style(self, s: theme.Style | None = None) -> None:
        s = s or theme.current()
        super().apply_style(s)
        if hasattr(self, "decision"):
            self.decision.apply_style(s)
            self._draw_points(s)
