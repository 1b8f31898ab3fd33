"""The neural lab's tabs that follow the run, one class each, mixed into :class:`~.lab.NeuralLab`:
training (the points over the probability map, the loss and gradient-norm curves), inside the
network (every unit's picture, the weights as edges, a point's numbers on the nodes) and one
step of backpropagation (that point's deltas and the update of one SGD step as edges).

Each class builds its tab and draws a snapshot on it; the lab's state stays on the lab.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtWidgets

from ... import style as theme
from ...widgets import plot_style
from ...widgets.labels import NoteLabel
from ...widgets.metrics import MetricPanel
from ...widgets.pages import page, splitter
from ...widgets.plots import outside_legend
from . import maths, run, side_tasks
from .views import NetworkView

TAB_TRAIN, TAB_INSIDE, TAB_BACKPROP, TAB_RATE, TAB_CAPACITY = range(5)  # in the order the lab adds them


def epochs_done(s: run.NeuralLabSnapshot) -> float:
    """The snapshot's time in epochs: whole epochs plus the share of the epoch under way."""
    n, batch = len(s.ctx.y_train), int(s.ctx.params["batch_size"])
    batches = -(-n // batch) if 0 < batch < n else 1
    return s.epoch + s.net.batch / batches


def node_numbers(step: run.PointStep | None, units) -> list[list[str]] | None:
    """The text beside each node for one point: its value h (the inputs: x) and its delta δ."""
    if step is None:
        return None
    t = step.trace
    out = [[f"{maths.number(v)}" for v in step.x]]
    for l in range(1, len(units)):
        h, d = t.activations[l][0], t.deltas[l - 1][0]
        out.append([f"h {maths.number(a)}\nδ {maths.number(b)}" for a, b in zip(h, d)])
    return out


class TrainTab:
    """The points over the map of p(+1 | x), the boundary p = ½; the loss and the gradient norm."""

    def _build_train_tab(self) -> QtWidgets.QWidget:
        self.make_canvas()
        plot_style.set_axis_labels(self.canvas, "x₁", "x₂")
        self.make_decision_map()
        pi = self.canvas.plot_item
        self.chosen_marker = pg.ScatterPlotItem()
        self.chosen_marker.setZValue(20)
        pi.addItem(self.chosen_marker)
        self.legend = outside_legend(pi, "top", columns=4)
        pos, neg = self.canvas.scatter_items()
        for item, name in ((pos, "class +1"), (neg, "class −1"), (self.decision.boundary, "p(+1 | x) = ½"),
                           (self.chosen_marker, "chosen point")):
            self.legend.addItem(item, name)
        self.loss_panel = MetricPanel("Loss", "epoch", "cross-entropy")
        self.stop_line = pg.InfiniteLine(angle=90, movable=False)
        self.stop_line.setVisible(False)
        self.loss_panel.plot_item.addItem(self.stop_line, ignoreBounds=True)
        self.grad_panel = MetricPanel("Gradient norm", "epoch", "‖∇L‖", log_y=True)
        self.panels = [self.loss_panel, self.grad_panel]
        for p in self.panels:
            p.LEFT_AXIS_EM = 3.0
        curves = splitter(False, self.loss_panel, self.grad_panel)
        return splitter(True, self.canvas_with_toolbar(), curves, sizes=[520, 230], stretch=[3, 1],
                        collapsible=False)

    def _draw_train(self, s: run.NeuralLabSnapshot, prepared, history) -> None:
        if prepared is not None:
            self.decision.set_frame(prepared.decision)
        if history.rewound:
            for p in self.panels:
                p.clear_series()
            self._best_test = (np.inf, 0.0)
        added = history.added
        if added:
            t = [epochs_done(h) for h in added]
            self.loss_panel.curve("training").extend(t, [h.net.data_loss for h in added])
            self.grad_panel.curve("‖∇L‖").extend(t, [h.net.grad_norm for h in added])
            if s.test_error is not None:
                tests = [h.net.val_loss for h in added]
                self.loss_panel.curve("test").extend(t, tests)
                k = int(np.argmin(tests))
                if tests[k] < self._best_test[0]:
                    self._best_test = (tests[k], t[k])
        # early stopping: the epoch of the lowest test loss so far
        self.stop_line.setVisible(s.test_error is not None and np.isfinite(self._best_test[0]) and s.epoch > 0)
        self.stop_line.setValue(self._best_test[1])
        self._draw_chosen(s)

    def _draw_chosen(self, s: run.NeuralLabSnapshot) -> None:
        ctx = s.ctx
        if not len(ctx.y_train):
            self.chosen_marker.setData([], [])
            return
        i = min(self.chosen, len(ctx.y_train) - 1)
        st = theme.current()
        self.chosen_marker.setData(pos=ctx.X_train[i:i + 1], symbol="o", size=st.marker_size * 2.6,
                                   pen=pg.mkPen(theme.OKABE_ITO["bluish_green"], width=3 * st.scale),
                                   brush=pg.mkBrush(None))


class InsideTab:
    """The network drawn: every unit a picture of its value over the plane, the weights as edges."""

    def _build_inside_tab(self) -> QtWidgets.QWidget:
        self.inside_view = NetworkView("Inside the network")
        self.inside_view.picked.connect(self._picture_clicked)
        note = NoteLabel("Each node: its unit's value over the plane (class −1 colour … +1 colour). Edge width |w|, "
                         "colour the sign of w. Click a picture: the nearest training point goes through the network "
                         "(h: its value, δ: its delta).", lines=3, tight=True)
        return page([], self.inside_view, (note, 0))

    def _draw_inside(self, s: run.NeuralLabSnapshot, prepared, step) -> None:
        view = self.inside_view
        units = [W.shape[0] for W in s.net.coefs] + [s.net.coefs[-1].shape[1]]
        view.set_units(units)
        if prepared is not None and prepared.pictures is not None:
            view.set_pictures(prepared.pictures, key=id(prepared))
        view.set_edges(s.net.coefs)
        view.set_numbers(node_numbers(step, units))
        view.mark(*self._chosen_uv(s))

    def _chosen_uv(self, s: run.NeuralLabSnapshot) -> tuple[float, float]:
        """Where the chosen point falls in the units' pictures ((u, v) in [0, 1]², NaN: none)."""
        ctx = s.ctx
        if not len(ctx.y_train):
            return np.nan, np.nan
        x = ctx.X_train[min(self.chosen, len(ctx.y_train) - 1)]
        x0, x1, y0, y1 = ctx.extent
        return (x[0] - x0) / (x1 - x0), (x[1] - y0) / (y1 - y0)

    def _picture_clicked(self, u: float, v: float) -> None:
        snap = self.runner.current
        if snap is None:
            return
        x0, x1, y0, y1 = snap.ctx.extent
        index = run.nearest_training_point(snap.ctx, (x0 + u * (x1 - x0), y0 + v * (y1 - y0)))
        if index >= 0:
            self.choose_point(index)


class BackpropTab:
    """One SGD step on the chosen point: its numbers on the nodes, the updates Δw as edges, and
    backpropagation checked against finite differences."""

    def _build_backprop_tab(self) -> QtWidgets.QWidget:
        self.step_view = NetworkView("One SGD step: edges are the updates Δw")
        self.step_view.picked.connect(self._picture_clicked)
        self.point_box = QtWidgets.QSpinBox()
        self.point_box.setRange(0, 0)
        self.point_box.setToolTip("The training point whose forward and backward pass is shown")
        self.point_box.valueChanged.connect(self.choose_point)
        self.check_button = QtWidgets.QPushButton("Check the gradient")
        self.check_button.setToolTip("Compare backpropagation with central finite differences "
                                     "(L(w + ε) − L(w − ε)) / 2ε, weight by weight, on this point's loss")
        self.check_button.clicked.connect(self.check_gradient)
        self.check_label = NoteLabel("", lines=2, tight=True)
        top = [QtWidgets.QLabel("Point"), self.point_box, self.check_button, (self.check_label, 1)]
        return page(top, self.step_view)

    def _draw_backprop(self, s: run.NeuralLabSnapshot, prepared, step) -> None:
        view = self.step_view
        units = [W.shape[0] for W in s.net.coefs] + [s.net.coefs[-1].shape[1]]
        view.set_units(units)
        if prepared is not None and prepared.pictures is not None:
            view.set_pictures(prepared.pictures, key=id(prepared))
        view.set_edges(step.coef_updates if step is not None else s.net.coefs)
        view.set_numbers(node_numbers(step, units))
        view.mark(*self._chosen_uv(s))
        n = len(s.ctx.y_train)
        self.point_box.blockSignals(True)
        self.point_box.setRange(0, max(n - 1, 0))
        self.point_box.setValue(min(self.chosen, max(n - 1, 0)))
        self.point_box.blockSignals(False)

    def check_gradient(self) -> None:
        """Backpropagation against finite differences on the chosen point at the step on screen (a side task)."""
        snap = self.runner.current
        if snap is None or not len(snap.ctx.y_train):
            return
        ctx, net = snap.ctx, snap.net
        i = min(self.chosen, len(ctx.y_train) - 1)
        y_idx = np.array([1 if ctx.y_train[i] > 0 else 0])
        where = f"point {i}, epoch {snap.epoch}"
        task = self.task("gradient check", on_done=lambda result: self._check_done(result, where),
                         on_error=self.show_error)
        task.start(side_tasks.point_gradient_check, ctx.X_train[i:i + 1].copy(), y_idx, net.coefs, net.intercepts,
                   net.activation, float(ctx.params["alpha"]))
        self.check_label.setText(f"Checking the gradient of {where} …")

    def _check_done(self, result, where: str) -> None:
        agree = "they agree" if result.relative_error < 1e-6 else "they disagree"
        self.check_label.setText(f"{where}: backprop vs finite differences (ε = {result.epsilon:g}, "
                                 f"{result.backprop.size} weights): relative error {result.relative_error:.1e}, "
                                 f"{agree}.")
