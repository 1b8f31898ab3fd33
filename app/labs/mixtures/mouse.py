"""What the mouse does on the mixtures lab's EM plot, mixed into :class:`~.lab.MixturesLab`:
edit points (the canvas), place initial means, inspect a point's responsibilities, or drag the
true mixture's components (a mean and two axis ends each) to sample the points again.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore

from ... import style as theme

MODES = [("edit", "edit points"), ("means", "place initial means"), ("inspect", "inspect a point"),
         ("truth", "edit the true mixture")]


class MouseModes:
    """The mouse modes and the clicked initial means."""

    def set_mode(self, mode: str) -> None:
        self.mode = mode
        self.canvas.editable = mode == "edit"
        idx = self.mode_box.findData(mode)
        if self.mode_box.currentIndex() != idx:
            self.mode_box.setCurrentIndex(idx)
        if mode == "means" and self.form.value("init") != "clicked":
            self.form.set_values({"init": "clicked"})
            self.reset()
        self._update_clicked_label()
        self._show_handles()

    def _scene_clicked(self, ev) -> None:
        if self.mode == "edit" or ev.button() != QtCore.Qt.MouseButton.LeftButton:
            return
        vb = self.canvas.plot_item.getViewBox()
        if not vb.sceneBoundingRect().contains(ev.scenePos()):
            return
        pos = vb.mapSceneToView(ev.scenePos())
        if self.mode == "means":
            self.add_clicked_mean(pos.x(), pos.y())
        elif self.mode == "inspect":
            self.select_nearest(pos.x(), pos.y())
        else:
            return  # 'edit the true mixture': the handles take the drags
        ev.accept()

    def add_clicked_mean(self, x: float, y: float) -> None:
        k = self.form.value("K")
        if len(self.clicked) >= k:
            self.clicked = []
        self.clicked.append((float(x), float(y)))
        self.collapse = False
        self._update_clicked_label()
        self._draw_clicked()
        if len(self.clicked) == k:
            self.reset()

    def clear_clicked(self) -> None:
        self.clicked = []
        self._update_clicked_label()
        self._draw_clicked()
        if self.form.value("init") == "clicked":
            self.reset()

    def _update_clicked_label(self) -> None:
        k = self.form.value("K")
        if self.mode == "truth":
            self.clicked_label.setText(
                "Drag a true mean (◯) to move its component, a handle (◇) to stretch or turn its ellipse; "
                "the points are sampled again from the edited mixture." if self.truth is not None else
                "Only points sampled from a preset have a true mixture to edit: choose a preset.")
        elif self.form.value("init") == "clicked" or self.clicked:
            self.clicked_label.setText(f"Clicked initial means: {len(self.clicked)} of {k}"
                                       + ("" if self.mode == "means" else " (mouse: place initial means)"))
        else:
            self.clicked_label.setText("")

    def _draw_clicked(self) -> None:
        s = theme.current()
        if self.clicked:
            self.clicked_item.setData(pos=np.array(self.clicked), symbol="star", size=s.marker_size * 2.2,
                                      pen=pg.mkPen(s.foreground, width=1.5 * s.scale), brush=pg.mkBrush(None))
        else:
            self.clicked_item.setData([], [])

    def select_nearest(self, x: float, y: float) -> None:
        X = self._ctx.X if self._ctx is not None else self.canvas.X
        if not len(X):
            return
        px, py = self.canvas.plot_item.getViewBox().viewPixelSize()
        d = np.hypot((X[:, 0] - x) / px, (X[:, 1] - y) / py)
        i = int(np.argmin(d))
        self.selected = i if d[i] <= 20 * theme.current().scale else -1
        self._draw_rings()
        self.maths.set_html(self.maths_html(self.runner.current))


class TruthHandles:
    """Handles on the true mixture (mouse mode 'edit the true mixture')."""

    def _show_handles(self) -> None:
        """Handles on the true mixture (mode 'edit the true mixture'): a mean and two axis ends per component."""
        for trio in self._handles:
            for h in trio:
                self.canvas.plot_item.removeItem(h)
        self._handles = []
        t = self.truth
        if self.mode != "truth" or t is None:
            return
        s = theme.current()
        # neutral handles: the true components are not EM's, whose colours they would suggest
        for k, (m, S) in enumerate(zip(t.means, t.covariances)):
            centre = pg.TargetItem(pos=tuple(m), size=s.marker_size * 2.2, symbol="o",
                                   pen=pg.mkPen(s.foreground, width=2 * s.scale), brush=pg.mkBrush(s.background),
                                   hoverBrush=pg.mkBrush(theme.HIGHLIGHT))
            ends = []
            for _ in range(2):
                ends.append(pg.TargetItem(pos=tuple(m), size=s.marker_size * 1.6, symbol="d",
                                          pen=pg.mkPen(s.foreground, width=1.5 * s.scale),
                                          brush=pg.mkBrush(s.background), hoverBrush=pg.mkBrush(theme.HIGHLIGHT)))
            trio = (centre, *ends)
            for h in trio:
                h.setZValue(40)
                self.canvas.plot_item.addItem(h)
            centre.sigPositionChanged.connect(lambda _h, k=k: self._truth_dragged(k, "centre"))
            ends[0].sigPositionChanged.connect(lambda _h, k=k: self._truth_dragged(k, "major"))
            ends[1].sigPositionChanged.connect(lambda _h, k=k: self._truth_dragged(k, "minor"))
            for h in trio:
                h.sigPositionChangeFinished.connect(lambda _h: self._truth_edited())
            self._handles.append(trio)
            self._place_handles(k)

    def _place_handles(self, k: int) -> None:
        m, S = self.truth.means[k], self.truth.covariances[k]
        vals, vecs = np.linalg.eigh(S)
        centre, major, minor = self._handles[k]
        for h, p in ((centre, m), (major, m + np.sqrt(max(vals[1], 0.0)) * vecs[:, 1]),
                     (minor, m + np.sqrt(max(vals[0], 0.0)) * vecs[:, 0])):
            h.blockSignals(True)
            h.setPos(float(p[0]), float(p[1]))
            h.blockSignals(False)

    def _truth_dragged(self, k: int, which: str) -> None:
        """Move a true mean, or set an axis of its ellipse from a handle (the other axis kept perpendicular)."""
        t = self.truth
        centre, major, minor = self._handles[k]
        m = t.means[k]
        if which == "centre":
            p = centre.pos()
            t.means[k] = (p.x(), p.y())
        else:
            vals, vecs = np.linalg.eigh(t.covariances[k])
            h = major.pos() if which == "major" else minor.pos()
            d = np.array([h.x(), h.y()]) - m
            length = max(float(np.hypot(*d)), 1e-3)
            if which == "major":
                u = d / length
                a, b = length, np.sqrt(max(vals[0], 1e-12))
            else:
                u = vecs[:, 1]
                a, b = np.sqrt(max(vals[1], 1e-12)), length
            v = np.array([-u[1], u[0]])
            t.covariances[k] = a**2 * np.outer(u, u) + b**2 * np.outer(v, v)
        self._place_handles(k)
        self._draw_truth()

    def _truth_edited(self) -> None:
        """Sample the points again from the edited true mixture (same seed) and restart."""
        self._edited_truth = True
        self.regenerate()
