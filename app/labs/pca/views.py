"""Image views of the PCA lab: tiles of images in one shared image view (no axes, pixels
square, row 0 at the top) with text labels, and a canvas to draw a digit on with the mouse."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui

from ... import style as theme
from ...widgets.image_view import ImageView
from .run import paint_polyline


def _lut(colors) -> np.ndarray:
    pos = np.linspace(0.0, 1.0, len(colors))
    return pg.ColorMap(pos, [QtGui.QColor(c) for c in colors]).getLookupTable(0.0, 1.0, 256)


#: pictures of digits: white paper, dark ink (0 → white)
GREYS = _lut(["#FFFFFF", "#000000"])
#: signed images (eigen-digits, residuals): blue − white 0 − red, used with symmetric levels
DIVERGING = _lut(["#2166AC", "#92C5DE", "#F7F7F7", "#F4A582", "#B2182B"])


class ImagePanel(ImageView):
    """Several images placed side by side in one view (named image layers, digits drawn dark
    on white by default), with short text labels."""

    fit_padding = 0.02

    def __init__(self, title: str = "", parent=None):
        self._labels: list[pg.TextItem] = []
        self._label_specs: list[tuple[float, float, str, tuple]] = []
        super().__init__(title, parent)

    def draw(self, name: str, array: np.ndarray, levels, *, x: float = 0.0, y: float = 0.0, lut=GREYS) -> pg.ImageItem:
        """Draw ``array`` (rows × cols) with its top-left corner at (x, y), one unit per pixel."""
        return super().draw(name, np.asarray(array, dtype=float), levels, x=x, y=y, lut=lut)

    def set_labels(self, specs) -> None:
        """Text labels ``(x, y, text[, anchor])``, anchor (0.5, 1) = centred above the point."""
        specs = [(float(s[0]), float(s[1]), str(s[2]), tuple(s[3]) if len(s) > 3 else (0.5, 1.0)) for s in specs]
        self._label_specs = specs
        while len(self._labels) < len(specs):
            t = pg.TextItem()
            self.plot_item.addItem(t)
            self._labels.append(t)
        s = theme.current()
        for item, (x, y, text, anchor) in zip(self._labels, specs):
            item.setAnchor(anchor)
            item.setPos(x, y)
            item.setHtml(f"<span style='font-size:{s.font_pt:.0f}pt; color:{s.foreground}'>{text}</span>")
            item.setVisible(True)
        for item in self._labels[len(specs):]:
            item.setVisible(False)

    def label_texts(self) -> list[str]:
        return [spec[2] for spec in self._label_specs]

    def apply_style(self, s: theme.Style | None = None) -> None:
        s = s or theme.current()
        super().apply_style(s)
        if self._label_specs:
            self.set_labels(self._label_specs)


class _PaintImage(pg.ImageItem):
    """The drawing the mouse paints on: a drag draws a stroke through the pointer's positions
    (left button ink, right button eraser), a click a dot."""

    def __init__(self, owner: "DrawCanvas"):
        super().__init__(axisOrder="row-major")
        self.owner = owner
        self._erase = False
        self._last: tuple[float, float] | None = None
        self.setAcceptHoverEvents(True)

    def mouseClickEvent(self, ev):
        if ev.button() in (QtCore.Qt.MouseButton.LeftButton, QtCore.Qt.MouseButton.RightButton):
            ev.accept()
            p = ev.pos()
            self.owner.stroke([(p.x(), p.y())], ev.button() == QtCore.Qt.MouseButton.RightButton)

    def mouseDragEvent(self, ev):
        if ev.button() not in (QtCore.Qt.MouseButton.LeftButton, QtCore.Qt.MouseButton.RightButton):
            ev.ignore()
            return
        ev.accept()
        p = ev.pos()
        if ev.isStart():
            self._erase = ev.button() == QtCore.Qt.MouseButton.RightButton
            start = ev.buttonDownPos()
            self._last = (start.x(), start.y())
            self.owner.begin_stroke()
        if self._last is None:  # a drag that began outside the drawing
            self._last = (p.x(), p.y())
            self.owner.begin_stroke()
        self.owner.extend_stroke([self._last, (p.x(), p.y())], self._erase)
        self._last = (p.x(), p.y())
        if ev.isFinish():
            self._last = None
            self.owner.end_stroke()


class DrawCanvas(ImagePanel):
    """A drawing of h × w fine pixels (ink 0..1) painted with a round pen.

    Each stroke, Clear and every replacement of the drawing is one undoable edit. ``changed``
    is emitted after every edit (while a stroke is drawn too, so the views follow the pen).
    Note: ``clear`` is not a method of this class on purpose: ``pg.PlotWidget`` binds
    ``clear`` (and ``addItem``, ``setRange`` ...) of its plot item onto every instance, so a
    method of that name would never be called and the plot item's ``clear`` would remove the
    drawing and its grid from the view.
    """

    changed = QtCore.Signal()
    #: undo history: at most this many drawings (oldest dropped first)
    UNDO_STATES = 64

    def __init__(self, title: str = "Draw here", parent=None):
        super().__init__(title, parent)
        self.paint = _PaintImage(self)
        self.paint.setLookupTable(GREYS)
        self.plot_item.addItem(self.paint)
        self.ink = np.zeros((64, 64))
        self.pen_radius = 4.0
        self.grid_step = 8
        self._undo: list[np.ndarray] = []
        self._in_stroke = False
        self.grid = pg.PlotCurveItem(pen=pg.mkPen("#C8C8C8", width=1), connect="pairs")
        self.plot_item.addItem(self.grid)
        self._redraw()

    # --- the drawing as a whole
    def set_canvas(self, shape, pen_radius: float, grid_step: int = 0, ink=None) -> None:
        """A blank (or the given) drawing of ``shape`` fine pixels; forgets the undo history."""
        h, w = int(shape[0]), int(shape[1])
        self.pen_radius = float(pen_radius)
        self.grid_step = int(grid_step)
        if ink is not None and np.shape(ink) == (h, w):
            self.ink = np.clip(np.asarray(ink, dtype=float), 0.0, 1.0)
        else:
            self.ink = np.zeros((h, w))
        self._undo.clear()
        self._in_stroke = False
        self._redraw()
        self.fit(w, h)

    def set_ink(self, ink, undoable: bool = True) -> None:
        """Replace the drawing (ink 0..1 of the canvas's shape)."""
        ink = np.asarray(ink, dtype=float)
        if ink.shape != self.ink.shape:
            raise ValueError(f"a drawing of shape {self.ink.shape} was expected, got {ink.shape}")
        if undoable:
            self._push_undo()
        self.ink = np.clip(ink, 0.0, 1.0)
        self._redraw()
        self.changed.emit()

    def clear_drawing(self) -> None:
        """Erase everything (undoable)."""
        if not self.ink.any():
            return
        self.set_ink(np.zeros_like(self.ink))

    # --- undo
    def _push_undo(self) -> None:
        self._undo.append(self.ink.copy())
        del self._undo[: max(0, len(self._undo) - self.UNDO_STATES)]

    def can_undo(self) -> bool:
        return bool(self._undo)

    def undo(self) -> bool:
        """Put the drawing back as it was before the last edit; False when there is none."""
        if not self._undo:
            return False
        self._in_stroke = False
        self.ink = self._undo.pop()
        self._redraw()
        self.changed.emit()
        return True

    # --- strokes
    def stroke(self, points, erase: bool = False) -> None:
        """Draw one polyline (image coordinates: x = column, y = row) as one undoable edit."""
        self.begin_stroke()
        self.extend_stroke(points, erase)
        self.end_stroke()

    def begin_stroke(self) -> None:
        self._push_undo()
        self._in_stroke = True

    def extend_stroke(self, points, erase: bool = False) -> None:
        if paint_polyline(self.ink, points, self.pen_radius, 0.0 if erase else 1.0):
            self._redraw()
            self.changed.emit()

    def end_stroke(self) -> None:
        self._in_stroke = False
        if self._undo and np.array_equal(self._undo[-1], self.ink):
            self._undo.pop()  # the stroke changed nothing: no edit to undo

    # --- drawing
    def _redraw(self) -> None:
        h, w = self.ink.shape
        self.paint.setImage(self.ink, levels=(0.0, 1.0), autoLevels=False)
        self.paint.setRect(QtCore.QRectF(0, 0, w, h))
        xs, ys = [], []
        k = self.grid_step
        if k > 0:
            for i in range(0, h + 1, k):
                xs += [0, w]
                ys += [i, i]
            for j in range(0, w + 1, k):
                xs += [j, j]
                ys += [0, h]
        else:  # a frame
            xs, ys = [0, w, w, w, w, 0, 0, 0], [0, 0, 0, h, h, h, h, 0]
        self.grid.setData(np.array(xs, float), np.array(ys, float), connect="pairs")
