"""The classifiers lab: 2-D labelled points, a classifier trained step by step, and the
decision regions, the boundary and the training cost drawn live."""

from __future__ import annotations

import html
from typing import Callable, Iterator

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from smlengine.datasets import GENERATORS, make_dataset
from smlengine.linear import Perceptron

from ... import style as st
from ...lab import Lab
from ...widgets.decision_map import DecisionMap, decision_frame
from ...widgets.metrics import MetricPanel
from ...widgets.params import Param
from ...widgets.point_canvas import CanvasToolbar, PointCanvas

DATASET_DEFAULT_NOISE = {"blobs": 0.6, "moons": 0.15, "circles": 0.08, "xor": 0.25, "spirals": 0.05}
DATA_PARAMS = ("dataset", "n_samples", "noise", "balance")


class ClassifiersLab(Lab):
    id = "classifiers"
    title = "Linear classifiers"
    order = 10
    description = "A perceptron learns a separating hyperplane, one mistake at a time."

    # ------------------------------------------------------------------ building
    def parameter_specs(self):
        return [
            Param("classifier", "Classifier", "choice", "perceptron", choices=[("perceptron", "Perceptron")],
                  tooltip="The learning algorithm"),
            Param("mode", "Update", "choice", "single",
                  choices=[("single", "single sample"), ("batch", "batch (all mistakes)")],
                  tooltip="single: update on each misclassified point in turn; batch: one step per epoch"),
            Param("learning_rate", "Learning rate α", "log", 1.0, minimum=0.001, maximum=10.0,
                  tooltip="Step size α of the update z ← z + α y x̃"),
            Param("max_epochs", "Max epochs", "int", 100, minimum=1, maximum=100000,
                  tooltip="Stop after this many passes over the data if it is not separable"),
            Param("dataset", "Data set", "choice", "blobs", choices=[(k, k.capitalize()) for k in GENERATORS],
                  tooltip="Generated toy problem (you can then edit the points with the mouse)"),
            Param("n_samples", "Points", "int", 120, minimum=4, maximum=20000, step=10),
            Param("noise", "Noise", "float", 0.6, minimum=0.0, maximum=5.0, step=0.05, decimals=2,
                  tooltip="Spread of the generated points"),
            Param("balance", "Fraction of class +1", "float", 0.5, minimum=0.05, maximum=0.95, step=0.05, decimals=2),
        ]

    def build_controls(self, layout: QtWidgets.QVBoxLayout) -> None:
        self.new_data_button = QtWidgets.QPushButton("New data")
        self.new_data_button.setToolTip("Draw a fresh sample of the chosen data set with the current seed")
        self.new_data_button.clicked.connect(lambda: self.regenerate())
        layout.addWidget(self.new_data_button)
        self._toolbar_holder = layout

    def build_plots(self) -> QtWidgets.QWidget:
        self.canvas = PointCanvas()
        st.set_axis_labels(self.canvas, "x₁", "x₂")
        self.legend = self.canvas.plot_item.addLegend(offset=(10, 10))
        self.decision = DecisionMap(self.canvas.plot_item, margins=False)
        self.current_marker = pg.ScatterPlotItem()
        self.current_marker.setZValue(20)
        self.canvas.plot_item.addItem(self.current_marker)
        self.mistake_marker = pg.ScatterPlotItem()
        self.mistake_marker.setZValue(15)
        self.canvas.plot_item.addItem(self.mistake_marker)
        self.normal_arrow = pg.PlotCurveItem()
        self.normal_arrow.setZValue(6)
        self.canvas.plot_item.addItem(self.normal_arrow)
        pos_item, neg_item = self.canvas.scatter_items()
        self.legend.addItem(pos_item, "class +1")
        self.legend.addItem(neg_item, "class −1")
        self.legend.addItem(self.decision.boundary, "hyperplane f(x) = 0")
        self.legend.addItem(self.mistake_marker, "misclassified")
        self.legend.addItem(self.current_marker, "point just used")

        self.mistakes_panel = MetricPanel("Mistakes", "step", "misclassified points")
        self.cost_panel = MetricPanel("Perceptron cost", "step", "C_P(z)")
        curves = QtWidgets.QSplitter(QtCore.Qt.Orientation.Horizontal)
        curves.addWidget(self.mistakes_panel)
        curves.addWidget(self.cost_panel)

        self.toolbar = CanvasToolbar(self.canvas)
        top = QtWidgets.QWidget()
        tl = QtWidgets.QVBoxLayout(top)
        tl.setContentsMargins(0, 0, 0, 0)
        tl.addWidget(self.canvas, 1)
        row = QtWidgets.QHBoxLayout()
        row.addWidget(self.toolbar)
        row.addWidget(self.toolbar.hint, 1)
        tl.addLayout(row)

        split = QtWidgets.QSplitter(QtCore.Qt.Orientation.Vertical)
        split.addWidget(top)
        split.addWidget(curves)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        split.setSizes([560, 220])

        self.canvas.pointsChanged.connect(self._points_changed)
        self._run_extent = (-3.0, 3.0, -3.0, 3.0)
        self._run_X = np.zeros((0, 2))
        self._run_y = np.zeros(0)
        self._suppress_points_signal = False
        self.regenerate(undoable=False, restart=False)
        return split

    # ------------------------------------------------------------------ data
    def regenerate(self, undoable: bool = True, restart: bool = True) -> None:
        p = self.params()
        try:
            X, y = make_dataset(p["dataset"], p["n_samples"], p["noise"], random_state=self.seed, balance=p["balance"])
        except (ValueError, TypeError) as exc:
            self.show_error(str(exc))
            return
        self._suppress_points_signal = True
        try:
            self.canvas.set_points(X, y, undoable=undoable)
        finally:
            self._suppress_points_signal = False
        self._fit_view()
        if restart:
            self.reset()

    def _fit_view(self) -> None:
        xmin, xmax, ymin, ymax = self.canvas.data_bounds()
        self.canvas.plot_item.setRange(xRange=(xmin, xmax), yRange=(ymin, ymax), padding=0)

    def _view_extent(self) -> tuple[float, float, float, float]:
        """The data box grown to the visible range, so shading fills the plot."""
        xmin, xmax, ymin, ymax = self.canvas.data_bounds(margin=0.6)
        (vx0, vx1), (vy0, vy1) = self.canvas.plot_item.viewRange()
        return (min(xmin, vx0), max(xmax, vx1), min(ymin, vy0), max(ymax, vy1))

    def _points_changed(self) -> None:
        if not self._suppress_points_signal:
            self.reset()

    def on_param_changed(self, name: str) -> None:
        if name == "dataset":
            self.form.set_values({"noise": DATASET_DEFAULT_NOISE.get(self.form.value("dataset"), 0.2)})
        if name in DATA_PARAMS:
            self.regenerate()
        else:
            self.reset()

    def _seed_changed(self, seed: int) -> None:
        self.seed = int(seed)
        self.regenerate()

    # ------------------------------------------------------------------ running
    def make_run(self, params: dict, seed: int) -> Callable[[], Iterator]:
        X = self.canvas.X.copy()
        y = self.canvas.y.copy()
        self._run_X, self._run_y = X, y
        self._run_extent = self._view_extent()
        self._run_params = dict(params)
        model = Perceptron(
            max_epochs=params["max_epochs"],
            learning_rate=params["learning_rate"],
            mode=params["mode"],
            random_state=seed,
        )
        if len(y) == 0:
            raise ValueError("There are no points: draw some (left click +1, right click −1) or press New data.")
        return lambda: model.fit_steps(X, y)

    def prepare(self, snapshot):
        v, c = snapshot.v, snapshot.c
        if not np.any(v):
            return None
        return decision_frame(lambda P: P @ v - c, self._run_extent, resolution=120, levels=(0.0,))

    def render(self, snapshot, prepared, history) -> None:
        s = st.current()
        if prepared is not None or not np.any(snapshot.v):
            self.decision.set_frame(prepared)
        X, y = self._run_X, self._run_y
        if len(y):
            wrong = y * (X @ snapshot.v - snapshot.c) <= 0
            self.mistake_marker.setData(pos=X[wrong], symbol="x", size=s.marker_size * 0.9,
                                        pen=pg.mkPen(s.foreground, width=1.5 * s.scale), brush=pg.mkBrush(s.foreground))
        if snapshot.index is not None and snapshot.index < len(X):
            self.current_marker.setData(pos=X[[snapshot.index]], symbol="o", size=s.marker_size * 2.6,
                                        pen=pg.mkPen(st.OKABE_ITO["bluish_green"], width=3 * s.scale), brush=pg.mkBrush(None))
        else:
            self.current_marker.setData([], [])
        self._draw_normal(snapshot)
        steps = np.fromiter((h.step for h in history), float, len(history))
        self.mistakes_panel.set_series("mistakes", steps, np.fromiter((h.n_mistakes for h in history), float, len(history)))
        self.cost_panel.set_series("C_P", steps, np.fromiter((h.cost for h in history), float, len(history)))

    def _draw_normal(self, snapshot) -> None:
        """A short arrow along v from the boundary point closest to the data centre."""
        v, c = snapshot.v, snapshot.c
        norm = float(np.hypot(*v))
        if norm == 0 or not len(self._run_y):
            self.normal_arrow.setData([], [])
            return
        centre = self._run_X.mean(axis=0)
        foot = centre - (centre @ v - c) / norm**2 * v
        xmin, xmax, ymin, ymax = self._run_extent
        length = 0.12 * max(xmax - xmin, ymax - ymin)
        tip = foot + length * v / norm
        side = np.array([-v[1], v[0]]) / norm * length * 0.15
        back = tip - 0.25 * length * v / norm
        xs = [foot[0], tip[0], np.nan, back[0] + side[0], tip[0], back[0] - side[0]]
        ys = [foot[1], tip[1], np.nan, back[1] + side[1], tip[1], back[1] - side[1]]
        self.normal_arrow.setData(xs, ys, connect="finite", pen=pg.mkPen(st.OKABE_ITO["bluish_green"], width=st.current().line_width))

    def show_idle(self) -> None:
        self.decision.set_frame(None)
        self.current_marker.setData([], [])
        self.mistake_marker.setData([], [])
        self.normal_arrow.setData([], [])
        self.mistakes_panel.clear_series()
        self.cost_panel.clear_series()

    def start(self, play: bool = False) -> None:
        self.show_idle()
        super().start(play)

    def maths_html(self, snapshot) -> str:
        p = getattr(self, "_run_params", self.params())
        alpha = p["learning_rate"]
        v = ", ".join(f"{x:.3f}" for x in snapshot.v)
        rows = [
            "<h3>Perceptron</h3>",
            "<p class='eq'>f(x) = ⟨v, x⟩ − c = ⟨z, x̃⟩, &nbsp; z = (−c, v), &nbsp; x̃ = (1, x)</p>",
            "<p>Cost over the misclassified points (y<sub>i</sub>⟨z, x̃<sub>i</sub>⟩ ≤ 0):</p>",
            "<p class='eq'>C<sub>P</sub>(z) = Σ<sub>i ∈ M</sub> |⟨z, x̃<sub>i</sub>⟩|</p>",
        ]
        if p["mode"] == "batch":
            rows.append("<p>Batch step (gradient descent on C<sub>P</sub>):</p>"
                        "<p class='eq'>z ← z + α Σ<sub>i ∈ M</sub> y<sub>i</sub> x̃<sub>i</sub></p>")
        else:
            rows.append("<p>Single-sample step, for each misclassified x<sub>i</sub> in turn:</p>"
                        "<p class='eq'>z ← z + α y<sub>i</sub> x̃<sub>i</sub></p>")
        rows.append("<h3>Now</h3><p class='num'>")
        rows.append(f"step {snapshot.step}, epoch {snapshot.epoch}<br>α = {alpha:g}<br>v = ({html.escape(v)})<br>c = {snapshot.c + 0.0:.4f}<br>")
        if snapshot.index is not None and snapshot.index < len(self._run_y):
            xi = self._run_X[snapshot.index]
            yi = self._run_y[snapshot.index]
            rows.append(f"used x<sub>{snapshot.index}</sub> = ({xi[0]:.3f}, {xi[1]:.3f}), y = {yi:+.0f}<br>")
        rows.append(f"mistakes |M| = {snapshot.n_mistakes}<br>C<sub>P</sub> = {snapshot.cost:.4f}</p>")
        if snapshot.converged:
            rows.append("<p><b>Converged:</b> every point is on its side, C<sub>P</sub> = 0.</p>")
        return "".join(rows)

    # ------------------------------------------------------------------ style, sessions, export
    def apply_style(self, s: st.Style) -> None:
        self.canvas.apply_style(s)
        st.set_axis_labels(self.canvas, "x₁", "x₂", s)
        st.style_plot(self.canvas, s)
        self.decision.apply_style(s)
        self.mistakes_panel.apply_style(s)
        self.cost_panel.apply_style(s)

    def main_plot(self):
        return self.canvas

    def user_data(self) -> dict:
        return {"points": self.canvas.X.tolist(), "labels": self.canvas.y.tolist()}

    def set_user_data(self, data: dict) -> None:
        if "points" not in data:
            return
        X = np.asarray(data.get("points", []), dtype=float).reshape(-1, 2)
        y = np.asarray(data.get("labels", []), dtype=float).reshape(-1)
        if len(X) != len(y) or not np.all(np.isfinite(X)):
            raise ValueError("the saved points are malformed")
        self._suppress_points_signal = True
        try:
            self.canvas.set_points(X, y, undoable=False)
        finally:
            self._suppress_points_signal = False
        self._fit_view()

    def export_rows(self):
        snap = self.runner.current
        X, y = self.canvas.X, self.canvas.y
        if snap is None:
            return ["x1", "x2", "label"], [[*x, int(l)] for x, l in zip(X, y)]
        f = X @ snap.v - snap.c
        return (["x1", "x2", "label", "f(x)", "predicted"],
                [[x[0], x[1], int(l), fx, 1 if fx > 0 else -1] for x, l, fx in zip(X, y, f)])
