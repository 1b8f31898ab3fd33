"""A 2-D point canvas: a pyqtgraph plot whose labelled points the user can edit.

Left click adds a point of class +1, right click one of class −1, dragging a point moves
it, Ctrl+click (or the eraser) removes the nearest point; every edit can be undone.
Labs add their own items (hyperplanes, heat maps) to :attr:`PointCanvas.plot_item`.

The view stays where it is while the user edits: it never follows the data by itself, a
left drag that starts off every point does nothing (the wheel zooms, a middle-button drag
pans), and the "Fit view" button in the plot's corner (key Home) brings the points back.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from .. import style as theme
from . import plot_style
from .plots import TidyAxis

PICK_RADIUS_PX = 12
#: a drag that starts this many pick radii from a point still moves it (a near miss is meant for it)
DRAG_PICK_FACTOR = 2.0
#: the key that fits the view to the points
FIT_KEY = "Home"


class _CanvasViewBox(pg.ViewBox):
    def __init__(self, canvas: "PointCanvas"):
        super().__init__()
        self._canvas = canvas
        self._drag_index: int | None = None
        self.setMenuEnabled(False)

    def mouseClickEvent(self, ev):
        c = self._canvas
        if not c.editable:
            return super().mouseClickEvent(ev)
        pos = self.mapSceneToView(ev.scenePos())
        erase = c.erase_mode or bool(ev.modifiers() & QtCore.Qt.KeyboardModifier.ControlModifier)
        if erase and ev.button() in (QtCore.Qt.MouseButton.LeftButton, QtCore.Qt.MouseButton.RightButton):
            idx = c.nearest(ev.scenePos())
            if idx is not None:
                c.remove_point(idx)
            ev.accept()
        elif ev.button() == QtCore.Qt.MouseButton.LeftButton:
            c.add_point(pos.x(), pos.y(), +1.0)
            ev.accept()
        elif ev.button() == QtCore.Qt.MouseButton.RightButton:
            c.add_point(pos.x(), pos.y(), -1.0)
            ev.accept()
        else:
            super().mouseClickEvent(ev)

    def mouseDragEvent(self, ev, axis=None):
        c = self._canvas
        if not c.editable or ev.button() != QtCore.Qt.MouseButton.LeftButton:
            return super().mouseDragEvent(ev, axis)
        if ev.isStart():
            self._drag_index = c.nearest(ev.buttonDownScenePos(), DRAG_PICK_FACTOR)
            if self._drag_index is not None:
                c.begin_move()
        ev.accept()
        if self._drag_index is None:
            return  # a left drag off every point leaves the view alone: panning it loses the points

        pos = self.mapSceneToView(ev.scenePos())
        c.move_point(self._drag_index, pos.x(), pos.y(), final=ev.isFinish())
        if ev.isFinish():
            self._drag_index = None


class PointCanvas(pg.PlotWidget):
    """Plot widget holding labelled 2-D points (labels −1/+1), editable with the mouse.

    Signals
    -------
    pointsChanged()
        Emitted after every completed edit (add, remove, move, clear, undo, set).
    """

    pointsChanged = QtCore.Signal()

    def __init__(self, parent=None):
        self._vb = _CanvasViewBox(self)
        super().__init__(parent, viewBox=self._vb, axisItems={"left": TidyAxis("left"), "bottom": TidyAxis("bottom")})
        self.plot_item: pg.PlotItem = self.getPlotItem()
        self.plot_item.setAspectLocked(True)
        # pyqtgraph's tiny "A" button turns auto-range on for good: every later click would
        # re-fit the view and move the points under the mouse; the fit button fits once
        self.plot_item.hideButtons()
        self.editable = True
        self.erase_mode = False
        self.X = np.zeros((0, 2))
        self.y = np.zeros(0)
        self.test_mask = np.zeros(0, dtype=bool)
        self._undo: list[tuple[np.ndarray, np.ndarray]] = []
        self._redo: list[tuple[np.ndarray, np.ndarray]] = []
        self._pos_item = pg.ScatterPlotItem()
        self._neg_item = pg.ScatterPlotItem()
        self._test_pos_item = pg.ScatterPlotItem()
        self._test_neg_item = pg.ScatterPlotItem()
        for item in (self._neg_item, self._pos_item, self._test_neg_item, self._test_pos_item):
            item.setZValue(10)
            # The points change when the user edits them, not while a run plays: Qt keeps
            # each layer as a pixmap and repaints a frame by copying it (a few thousand
            # symbols cost ~1.3 ms a layer a frame otherwise).
            item.setCacheMode(QtWidgets.QGraphicsItem.CacheMode.DeviceCoordinateCache)
            self.plot_item.addItem(item)
        #: what the fit button and key call; None fits the padded box of the points
        self.fit_handler: Callable[[], None] | None = None
        self.fit_button = QtWidgets.QToolButton(self)
        self.fit_button.setText("Fit\nview")
        self.fit_button.setObjectName("fitView")
        self.fit_button.setToolTip(f"Fit the view to the points ({FIT_KEY}). The view stays put while you edit; "
                                   "the mouse wheel zooms, a middle-button drag pans.")
        self.fit_button.setCursor(QtCore.Qt.CursorShape.ArrowCursor)
        self.fit_button.clicked.connect(self.fit_view)
        self.fit_shortcut = QtGui.QShortcut(QtGui.QKeySequence(FIT_KEY), self, self.fit_view)
        for item in (self.plot_item.getAxis("left"), self.plot_item.getAxis("bottom"), self._vb):
            item.geometryChanged.connect(self._place_fit_button)
        self.apply_style(theme.current())

    # --- the view ---------------------------------------------------------------------
    def fit_view(self) -> None:
        """Fit the view to the points once (the lab's :attr:`fit_handler` when it has one)."""
        if self.fit_handler is not None:
            self.fit_handler()
        else:
            xmin, xmax, ymin, ymax = self.data_bounds()
            self.plot_item.setRange(xRange=(xmin, xmax), yRange=(ymin, ymax), padding=0)

    def fit_button_corner(self) -> QtCore.QRectF:
        """The corner of the plot between the left and the bottom axis (scene coordinates):
        the fit button's place, off the data and off the tick labels."""
        left = self.plot_item.getAxis("left").sceneBoundingRect()
        bottom = self.plot_item.getAxis("bottom").sceneBoundingRect()
        data = self.plot_item.getViewBox().sceneBoundingRect()
        return QtCore.QRectF(QtCore.QPointF(left.left(), data.bottom()), QtCore.QPointF(data.left(), bottom.bottom()))

    def _place_fit_button(self) -> None:
        corner = self.mapFromScene(self.fit_button_corner()).boundingRect().adjusted(1, 2, -2, -1)
        if corner.width() < 8 or corner.height() < 8:
            self.fit_button.hide()
            return
        b = self.fit_button
        font = QtGui.QFont(QtWidgets.QApplication.font())  # the application's, projector mode's size included
        metrics = QtGui.QFontMetrics(font)
        two_lines = (metrics.height() * 2 + 2 <= corner.height()
                     and metrics.horizontalAdvance("view") + 4 <= corner.width())
        b.setText("Fit\nview" if two_lines else "Fit")
        while not two_lines and font.pointSizeF() > 6 and metrics.horizontalAdvance("Fit") + 6 > corner.width():
            font.setPointSizeF(font.pointSizeF() - 1)  # a narrow corner: a smaller label, never one cut
            metrics = QtGui.QFontMetrics(font)
        b.setFont(font)
        b.setGeometry(corner)
        b.show()
        b.raise_()

    def resizeEvent(self, ev):
        super().resizeEvent(ev)
        if getattr(self, "fit_button", None) is not None:  # pyqtgraph resizes the view while it builds it
            self._place_fit_button()

    # --- editing ----------------------------------------------------------------------
    #: undo history: at most this many states and this many bytes (oldest dropped first)
    UNDO_STATES = 200
    UNDO_BYTES = 64 * 2**20

    def _push_undo(self) -> None:
        self._undo.append((self.X.copy(), self.y.copy()))
        used = sum(X.nbytes + y.nbytes for X, y in self._undo)
        while len(self._undo) > 1 and (len(self._undo) > self.UNDO_STATES or used > self.UNDO_BYTES):
            X, y = self._undo.pop(0)
            used -= X.nbytes + y.nbytes
        self._redo.clear()

    def set_points(self, X, y, *, test_mask=None, undoable: bool = True) -> None:
        X = np.asarray(X, dtype=float).reshape(-1, 2)
        y = np.asarray(y, dtype=float).reshape(-1)
        if len(X) != len(y):
            raise ValueError("X and y must have the same length")
        if undoable:
            self._push_undo()
        self.X, self.y = X.copy(), y.copy()
        self.test_mask = np.zeros(len(y), dtype=bool) if test_mask is None else np.asarray(test_mask, bool).copy()
        self._refresh()
        self.pointsChanged.emit()

    def set_test_mask(self, mask) -> None:
        """Mark held-out test points (drawn hollow); does not count as an edit."""
        self.test_mask = np.asarray(mask, dtype=bool).copy()
        self._refresh()

    def add_point(self, x: float, y: float, label: float) -> None:
        self._push_undo()
        self.X = np.vstack([self.X, [[x, y]]])
        self.y = np.append(self.y, float(label))
        self.test_mask = np.append(self.test_mask, False)
        self._refresh()
        self.pointsChanged.emit()

    def remove_point(self, index: int) -> None:
        self._push_undo()
        keep = np.ones(len(self.y), dtype=bool)
        keep[index] = False
        self.X, self.y, self.test_mask = self.X[keep], self.y[keep], self.test_mask[keep]
        self._refresh()
        self.pointsChanged.emit()

    def begin_move(self) -> None:
        self._push_undo()

    def move_point(self, index: int, x: float, y: float, final: bool = False) -> None:
        self.X = self.X.copy()
        self.X[index] = (x, y)
        self._refresh()
        if final:
            self.pointsChanged.emit()

    def clear_points(self) -> None:
        self.set_points(np.zeros((0, 2)), np.zeros(0))

    def undo(self) -> bool:
        if not self._undo:
            return False
        self._redo.append((self.X.copy(), self.y.copy()))
        self.X, self.y = self._undo.pop()
        self.test_mask = np.zeros(len(self.y), dtype=bool)
        self._refresh()
        self.pointsChanged.emit()
        return True

    def redo(self) -> bool:
        if not self._redo:
            return False
        self._undo.append((self.X.copy(), self.y.copy()))
        self.X, self.y = self._redo.pop()
        self.test_mask = np.zeros(len(self.y), dtype=bool)
        self._refresh()
        self.pointsChanged.emit()
        return True

    @property
    def can_undo(self) -> bool:
        return bool(self._undo)

    def nearest(self, scene_pos: QtCore.QPointF, reach: float = 1.0) -> int | None:
        """Index of the point within a few pixels (``reach`` pick radii) of a scene position, else None."""
        if not len(self.y):
            return None
        view = self._vb.mapSceneToView(scene_pos)
        px, py = self._vb.viewPixelSize()
        d = np.hypot((self.X[:, 0] - view.x()) / px, (self.X[:, 1] - view.y()) / py)
        i = int(np.argmin(d))
        return i if d[i] <= reach * PICK_RADIUS_PX * theme.current().scale else None

    # --- drawing ----------------------------------------------------------------------
    def _refresh(self) -> None:
        s = theme.current()
        size = s.marker_size
        edge = pg.mkPen(s.foreground, width=max(1.0, s.scale))
        pos = (self.y > 0) & ~self.test_mask
        neg = (self.y <= 0) & ~self.test_mask
        tpos = (self.y > 0) & self.test_mask
        tneg = (self.y <= 0) & self.test_mask
        self._pos_item.setData(pos=self.X[pos], symbol="o", size=size, brush=pg.mkBrush(theme.POS_COLOR), pen=edge)
        self._neg_item.setData(pos=self.X[neg], symbol="s", size=size * 0.9, brush=pg.mkBrush(theme.NEG_COLOR),
                               pen=edge)
        self._test_pos_item.setData(pos=self.X[tpos], symbol="o", size=size, brush=pg.mkBrush(None),
                                    pen=pg.mkPen(theme.POS_COLOR, width=2 * s.scale))
        self._test_neg_item.setData(pos=self.X[tneg], symbol="s", size=size * 0.9, brush=pg.mkBrush(None),
                                    pen=pg.mkPen(theme.NEG_COLOR, width=2 * s.scale))

    def apply_style(self, s: theme.Style) -> None:
        plot_style.style_plot(self, s)
        self._refresh()
        self._place_fit_button()

    def data_bounds(self, margin: float = 0.15) -> tuple[float, float, float, float]:
        """(xmin, xmax, ymin, ymax) of the points, padded; a unit box when empty."""
        if not len(self.y):
            return (-3.0, 3.0, -3.0, 3.0)
        lo, hi = self.X.min(axis=0), self.X.max(axis=0)
        span = np.maximum(hi - lo, 1.0)
        lo, hi = lo - margin * span, hi + margin * span
        return (float(lo[0]), float(hi[0]), float(lo[1]), float(hi[1]))

    def scatter_items(self):
        return self._pos_item, self._neg_item


class XYCanvas(PointCanvas):
    """The point canvas for 1-D data: x → y, free aspect, every point in one class.

    A click (left or right) adds a point, dragging moves one, Ctrl+click or the eraser
    removes one; test points are drawn hollow."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.plot_item.setAspectLocked(False)

    def add_point(self, x: float, y: float, label: float = 1.0) -> None:
        super().add_point(x, y, 1.0)


class CanvasToolbar(QtWidgets.QWidget):
    """Undo / redo / eraser / clear buttons for a :class:`PointCanvas`, and a mouse hint
    (:attr:`hint`, a separate label the lab places).

    ``columns`` None puts the buttons in one row; a number puts them in a grid of that many
    columns (for a narrow control panel). ``hint`` replaces the default text of the hint.
    """

    HINT = "Left click: class +1 · right click: class −1 · drag: move"

    def __init__(self, canvas: PointCanvas, parent=None, *, columns: int | None = None, hint: str | None = None):
        super().__init__(parent)
        self.canvas = canvas
        lay = QtWidgets.QHBoxLayout(self) if columns is None else QtWidgets.QGridLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        self.undo_button = QtWidgets.QPushButton("Undo")
        self.undo_button.setToolTip("Undo the last edit of the points (Ctrl+Z)")
        self.redo_button = QtWidgets.QPushButton("Redo")
        self.redo_button.setToolTip("Redo the edit undone last (Ctrl+Shift+Z)")
        self.erase_button = QtWidgets.QPushButton("Eraser")
        self.erase_button.setCheckable(True)
        self.erase_button.setToolTip("When on, clicking a point removes it (Ctrl+click does too)")
        self.clear_button = QtWidgets.QPushButton("Clear")
        self.clear_button.setToolTip("Remove every point (undoable)")
        for i, b in enumerate((self.undo_button, self.redo_button, self.erase_button, self.clear_button)):
            if columns is None:
                lay.addWidget(b)
            else:
                lay.addWidget(b, i // columns, i % columns)
        self.undo_button.clicked.connect(canvas.undo)
        self.redo_button.clicked.connect(canvas.redo)
        self.clear_button.clicked.connect(canvas.clear_points)
        self.erase_button.toggled.connect(lambda on: setattr(canvas, "erase_mode", on))
        hint = QtWidgets.QLabel(self.HINT if hint is None else hint)
        hint.setWordWrap(True)
        # a palette colour, not a style sheet: a style sheet would freeze the label's font at
        # its first polish, and the hint would stay small when projector mode is switched on
        pal = hint.palette()
        pal.setColor(QtGui.QPalette.ColorRole.WindowText, QtGui.QColor("gray"))
        hint.setPalette(pal)
        self.hint = hint
        QtGui.QShortcut(QtGui.QKeySequence.StandardKey.Undo, canvas, canvas.undo)
        QtGui.QShortcut(QtGui.QKeySequence.StandardKey.Redo, canvas, canvas.redo)
