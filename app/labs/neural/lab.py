"""The neural networks lab: a multilayer perceptron trained by backpropagation on labelled points
(the probability map and boundary, the loss and test loss, the gradient norm), the network drawn
with every unit's picture over the plane, one point's backpropagation and one SGD step in numbers
with a gradient check, three learning rates from the same start, and capacity against error."""

from __future__ import annotations

import numpy as np
from PySide6 import QtWidgets

from ... import style as theme
from ...points_data import LabelledRun
from ...points_lab import PointsLab
from ...widgets.params import Param
from . import maths, run
from .side_tabs import CapacityTab, RateTab
from .tabs import TAB_BACKPROP, TAB_INSIDE, BackpropTab, InsideTab, TrainTab

#: mini-batches an epoch may hold when a step is a whole epoch (a step stays well under 50 ms)
MAX_BATCHES_PER_STEP = 500


def _mini_batches(values) -> bool:
    return int(values["batch_size"]) > 0


class NeuralLab(TrainTab, InsideTab, BackpropTab, RateTab, CapacityTab, PointsLab):
    id = "neural"
    title = "Neural networks"
    order = 120
    description = ("A multilayer perceptron learns by backpropagation: the probability map, every unit's picture, "
                   "the numbers of one step, the learning rate and capacity.")
    chapter = "Neural networks"
    summary = "A multilayer perceptron trained by backpropagation, with every unit's picture and one step's numbers."
    keywords = ("neural network", "multilayer perceptron", "MLP", "backpropagation", "backprop", "delta",
                "hidden units", "hidden layer", "activation", "tanh", "ReLU", "logistic", "sigmoid", "softmax",
                "cross-entropy", "gradient descent", "SGD", "stochastic gradient descent", "mini-batch", "momentum",
                "Adam", "learning rate", "epoch", "weight decay", "overfitting", "early stopping",
                "gradient check", "finite differences", "TensorFlow Playground", "XOR", "circles", "spirals")
    method_param = "optimizer"
    PROJECTOR_SIDE_BY_SIDE = True  # the points keep the projector's height, the curves beside them
    DEFAULT_NOISE = {"blobs": 0.6, "moons": 0.15, "circles": 0.1, "xor": 0.2, "spirals": 0.05}
    screenshot_steps = 200
    self_test_steps = 5

    # ------------------------------------------------------------------ building
    def init_state(self) -> None:
        self._ctx: LabelledRun | None = None
        #: the training point whose backpropagation is shown (index among the training points)
        self.chosen = 0
        self._best_test = (np.inf, 0.0)
        self._pictures_wanted = False
        self.rate_result = None
        self.capacity_result = None

    def parameter_specs(self):
        return [
            Param("optimizer", "Optimiser", "choice", "gd", choices=run.OPTIMIZERS,
                  tooltip="Plain gradient descent w ← w − η∇L, with momentum, or Adam"),
            Param("learning_rate", "Learning rate η", "log", 1.0, minimum=0.001, maximum=100.0,
                  tooltip="Step size η (Adam: its first step size)"),
            Param("momentum", "Momentum μ", "float", 0.9, minimum=0.0, maximum=0.99, step=0.05, decimals=2,
                  tooltip="v ← μv − η∇L, w ← w + v", visible_when=lambda v: v["optimizer"] == "momentum"),
            Param("batch_size", "Mini-batch (0: all)", "int", 0, minimum=0, maximum=20000, step=10,
                  tooltip="Points per gradient step, shuffled each epoch; 0 steps on all training points at once"),
            Param("per_batch", "A step per mini-batch", "bool", False, visible_when=_mini_batches,
                  tooltip="Show every mini-batch update, not only the end of each epoch"),
            Param("layers", "Hidden layers", "int", 1, minimum=1, maximum=3),
            Param("units", "Units per layer", "int", 8, minimum=1, maximum=16),
            Param("activation", "Activation g", "choice", "tanh", choices=run.ACTIVATIONS),
            Param("alpha", "Weight decay α", "log", 1e-4, minimum=1e-5, maximum=10.0,
                  tooltip="Penalty α/(2n) Σ‖W‖² on the weights (not the biases)"),
            Param("epochs", "Epochs", "int", 200, minimum=1, maximum=5000, step=50),
            *self.data_params("circles", 300, 0.1, 0.3),
        ]

    def build_controls(self, layout: QtWidgets.QVBoxLayout) -> None:
        self.add_data_buttons(layout)

    def build_plots(self) -> QtWidgets.QWidget:
        self.tabs = QtWidgets.QTabWidget()
        for build, name in ((self._build_train_tab, "Train"), (self._build_inside_tab, "Inside the network"),
                            (self._build_backprop_tab, "Backprop, one step"), (self._build_rate_tab, "Learning rate"),
                            (self._build_capacity_tab, "Capacity")):
            self.tabs.addTab(build(), name)
        self.tabs.setUsesScrollButtons(True)
        self.tabs.currentChanged.connect(self._tab_changed)
        return self.tabs

    def after_build(self) -> None:
        self.regenerate(undoable=False, restart=False)

    # ------------------------------------------------------------------ data and parameters
    def on_param_changed(self, name: str) -> None:
        if not self.data_param_changed(name):
            self.reset()

    def data_changed(self) -> None:
        self.chosen = 0

    def choose_point(self, index: int) -> None:
        """Show the forward and backward pass of training point ``index``."""
        self.chosen = max(int(index), 0)
        snap = self.runner.current
        if snap is not None:
            self._draw_views(snap, self.runner.prepared_for(snap))
            self._draw_chosen(snap)
            self.refresh_maths()

    # ------------------------------------------------------------------ the run
    def make_run(self, params: dict, seed: int):
        ctx = self.labelled_run(LabelledRun, params, seed)
        if np.unique(ctx.y_train).size < 2:
            raise ValueError("Training needs points of both classes: draw some (left click +1, right click −1), "
                             "lower the test fraction or press New data.")
        batch, n = int(params["batch_size"]), len(ctx.y_train)
        updates = -(-n // batch) if batch else 1
        if 0 < batch < n and not params["per_batch"] and updates > MAX_BATCHES_PER_STEP:
            raise ValueError(f"Mini-batches of {batch} make {updates:,} updates an epoch, too many for one step: "
                             f"use mini-batches of at least {-(-n // MAX_BATCHES_PER_STEP)} or tick "
                             "“A step per mini-batch”.")
        self._ctx = ctx
        return lambda: run.run_steps(ctx)

    def prepare(self, snapshot):
        return run.prepare_frame(snapshot, self.map_extent.extent, self._pictures_wanted)

    def show_idle(self) -> None:
        self.decision.set_frame(None)
        self.chosen_marker.setData([], [])
        self.stop_line.setVisible(False)
        for p in self.panels:
            p.clear_series()
        self._best_test = (np.inf, 0.0)
        self.check_label.setText("")

    def render(self, snapshot, prepared, history) -> None:
        self._draw_train(snapshot, prepared, history)
        self._draw_views(snapshot, prepared)

    def _draw_views(self, snapshot, prepared) -> None:
        """The network drawings, on the tab that shows them (drawn again when it is opened)."""
        tab = self.tabs.currentIndex()
        if tab in (TAB_INSIDE, TAB_BACKPROP):
            step = run.point_step(snapshot, self.chosen)
            draw = self._draw_inside if tab == TAB_INSIDE else self._draw_backprop
            draw(snapshot, prepared, step)

    def _tab_changed(self, index: int) -> None:
        self._pictures_wanted = index in (TAB_INSIDE, TAB_BACKPROP)  # read by prepare on the worker
        snap = self.runner.current
        if snap is None:
            return
        prepared = self.runner.prepared_for(snap)
        if self._pictures_wanted and prepared is not None and prepared.pictures is None and not self.runner.playing:
            self.runner.reprepare()  # the step on screen was prepared without the pictures
        self._draw_views(snap, prepared)

    def _side_failed(self, message: str) -> None:
        self.show_error(message)
        self.rate_status.setText("")
        self.capacity_status.setText("")

    def maths_html(self, snapshot) -> str:
        return maths.maths_html(snapshot, run.point_step(snapshot, self.chosen))

    # ------------------------------------------------------------------ sessions, export, style
    def user_data(self) -> dict:
        return {**super().user_data(), "point": int(self.chosen)}

    def set_user_data(self, data: dict) -> None:
        point = data.get("point", 0)
        if isinstance(point, bool) or not isinstance(point, int) or point < 0:
            raise ValueError("the saved point is not a training point's index")
        super().set_user_data(data)
        self.chosen = point

    def export_rows(self):
        snap = self.runner.current
        X, y = self.canvas.X, self.canvas.y
        if snap is None or len(snap.ctx.y) != len(y):
            return ["x1", "x2", "label"], [[*x, int(l)] for x, l in zip(X, y)]
        p = snap.net.predict_proba(X)[:, 1] if len(X) else np.zeros(0)
        test = snap.ctx.test_mask
        return (["x1", "x2", "label", "p(+1|x)", "predicted", "test"],
                [[x[0], x[1], int(l), float(q), 1 if q > 0.5 else -1, int(t)] for x, l, q, t in zip(X, y, p, test)])

    def apply_style(self, s: theme.Style) -> None:
        self.style_canvas(s)
        for p in (*self.panels, self.rate_loss, *self.rate_maps, self.capacity_panel, self.best_map,
                  self.flexible_map, self.inside_view, self.step_view):
            p.apply_style(s)
        snap = self.runner.current
        if snap is not None:
            self._draw_chosen(snap)
