"""The PCA lab's Draw tab: a canvas to draw a digit (or an image) at a fine resolution, the
image the model sees beside its reconstruction and residual, the projection's coefficients
and the novelty verdict (the residual against the threshold of the training images)."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from ... import style as theme
from ...widgets.plots import PlotPanel
from . import run
from .views import DIVERGING, DrawCanvas, ImagePanel

#: where the novelty threshold comes from, as the verdict says it
HELD_OUT = "99th percentile of the training images' held-out residuals"
IN_SAMPLE = "99th percentile of the training images' residuals"


def hbox(*widgets, stretch_last: bool = False) -> QtWidgets.QHBoxLayout:
    lay = QtWidgets.QHBoxLayout()
    lay.setContentsMargins(0, 0, 0, 0)
    for w in widgets:
        lay.addWidget(w)
    if not stretch_last:
        lay.addStretch(1)
    return lay

class FlatLabel(QtWidgets.QLabel):
    """A wrapping label that does not make its page height-for-width: the page's scroll area
    would then size the page from the plots' preferred heights, not from the screen, and the
    drawing canvas would reach below a 1024×768 window. Its minimum height is two lines."""

    def hasHeightForWidth(self) -> bool:  # Qt's name
        return False

class DrawTab:
    """The Draw tab of :class:`~app.labs.pca.lab.PCALab` (a mixin: it uses the lab's
    ``_data``, ``d``, ``drawn`` and ``_selected_index``)."""

    def _build_draw_tab(self) -> QtWidgets.QWidget:
        self.canvas = DrawCanvas("Draw a digit")
        self.canvas.setToolTip("Left button: ink; right button: erase. The model sees the 8×8 digit on the right")
        self.canvas.changed.connect(self._drawing_changed)
        self.clear_button = QtWidgets.QPushButton("Clear")
        self.clear_button.setToolTip("Erase the drawing (Undo brings it back)")
        self.clear_button.clicked.connect(self.canvas.clear_drawing)
        self.undo_button = QtWidgets.QPushButton("Undo")
        self.undo_button.setToolTip("Undo the last stroke, Clear or Copy (Ctrl+Z)")
        self.undo_button.clicked.connect(self.canvas.undo)
        QtGui.QShortcut(QtGui.QKeySequence.StandardKey.Undo, self.canvas, self.canvas.undo)
        self.copy_button = QtWidgets.QPushButton("Copy digit")
        self.copy_button.setToolTip("Start from the digit clicked in the scores plot (or the first one shown)")
        self.copy_button.clicked.connect(self.copy_selected_to_canvas)
        left = QtWidgets.QWidget()
        ll = QtWidgets.QVBoxLayout(left)
        ll.setContentsMargins(0, 0, 0, 0)
        ll.addWidget(self.canvas, 1)
        ll.addLayout(hbox(self.clear_button, self.undo_button, self.copy_button))
        self.draw_view = ImagePanel("What the model sees")
        self.coeff_panel = PlotPanel("Projection", "j", "cⱼ", legend=False)
        self.coeff_bars = pg.BarGraphItem(x=[], height=[], width=0.7, brush=theme.OKABE_ITO["blue"])
        self.coeff_panel.plot_item.addItem(self.coeff_bars)
        self.novelty_label = FlatLabel()
        self.novelty_label.setWordWrap(True)
        right = QtWidgets.QSplitter(QtCore.Qt.Orientation.Vertical)
        right.addWidget(self.draw_view)
        right.addWidget(self.coeff_panel)
        split = QtWidgets.QSplitter(QtCore.Qt.Orientation.Horizontal)
        split.addWidget(left)
        split.addWidget(right)
        split.setSizes([420, 480])
        page = QtWidgets.QWidget()
        pl = QtWidgets.QVBoxLayout(page)
        pl.setContentsMargins(0, 0, 0, 0)
        pl.addWidget(split, 1)
        pl.addWidget(self.novelty_label)
        return page

    # ------------------------------------------------------------------ drawing
    def _drawing_changed(self) -> None:
        self.drawn = self.canvas.ink.copy() if self.canvas.ink.any() else None
        self._update_drawing()

    def copy_selected_to_canvas(self) -> None:
        data = self._data
        i = self._selected_index()
        if data is None or i < 0:
            return
        self.canvas.set_ink(run.ink_of_image(data, data.X[i]))

    def model_input(self) -> np.ndarray | None:
        """The image the model sees of the drawing (digits: the UCI 8 × 8 digit), None when blank."""
        data = self._data
        if data is None or self.canvas.ink.shape != run.drawing_geometry(data)[0]:
            return None
        return run.model_input(data, self.canvas.ink)

    def drawing_result(self) -> dict | None:
        """Projection of the drawing: the image x the model sees, coefficients, reconstruction,
        residual norm, threshold, novelty (None while the canvas is blank)."""
        data = self._data
        x = self.model_input()
        if x is None:
            return None
        c, rec, res = run.project(data, x, self.d)
        thr = run.novelty_threshold(data, self.d)
        return {"input": x, "coeffs": c, "reconstruction": rec.reshape(data.shape), "residual": res,
                "threshold": thr, "novelty": res > thr}

    def _update_drawing(self) -> None:
        data = self._data
        if data is None:
            return
        h, w = data.shape
        pad = max(1, round(max(h, w) / 4))
        r = self.drawing_result()
        what = "digit" if run.is_digits(data) else "image"
        if r is None:
            for name in ("input", "rec", "res"):
                self.draw_view.hide_image(name)
            self.draw_view.set_labels([])
            self.coeff_bars.setOpts(x=[], height=[], width=0.7)
            self.novelty_label.setText(f"Draw a {what} with the mouse: left button ink, right button erase.")
            return
        resid = r["input"] - r["reconstruction"]
        m = max(float(np.max(np.abs(resid))), 1e-12, 0.25 * (data.hi - data.lo))
        step = w + pad
        self.draw_view.draw("input", r["input"], (data.lo, data.hi))
        self.draw_view.draw("rec", r["reconstruction"], (data.lo, data.hi), x=step)
        self.draw_view.draw("res", resid, (-m, m), x=2 * step, lut=DIVERGING)
        self.draw_view.set_labels([(w / 2, 0, "x"), (step + w / 2, 0, f"x⁽{self.d}⁾"),
                                   (2 * step + w / 2, 0, "x − x⁽ᵈ⁾")])
        self.draw_view.fit(3 * w + 2 * pad, h, top=-0.3 * h)
        c = r["coeffs"][:30]
        self.coeff_bars.setOpts(x=np.arange(1, len(c) + 1), height=c, width=0.7)
        if len(c):
            self.coeff_panel.plot_item.setXRange(0.4, len(c) + 0.6, padding=0)
        source = HELD_OUT if run.heldout_affordable(data) else IN_SAMPLE
        if r["novelty"]:
            verdict = f"&gt; {r['threshold']:.3g} ({source}): <b style='color:#D55E00'>novelty</b>"
        else:
            verdict = f"≤ {r['threshold']:.3g} ({source}): like the training images"
        self.novelty_label.setText(f"‖x − x⁽{self.d}⁾‖ = {r['residual']:.3g} {verdict}")

