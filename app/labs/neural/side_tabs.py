"""The neural lab's tabs of side tasks, one class each, mixed into :class:`~.lab.NeuralLab`: three
learning rates from the same start (their losses and last maps) and capacity against error (hidden
units or weight decay, with the maps of the best and of the most flexible network)."""

from __future__ import annotations

import numpy as np
from PySide6 import QtWidgets

from ...widgets.labels import NoteLabel
from ...widgets.pages import page, splitter
from ...widgets.plots import PlotPanel
from . import maths, side_tasks
from .views import MapPanel

#: padding of the small maps around the points (a fraction of their span)
MAP_MARGIN = 0.15
AXES = {"units": ("hidden units", "hidden units per layer"), "alpha": ("weight decay α", "weight decay α")}


class RateTab:
    """The run three times from the same start: η/10, η and 30η side by side."""

    def _build_rate_tab(self) -> QtWidgets.QWidget:
        self.rate_button = QtWidgets.QPushButton("Train at η/10, η, 30η")
        self.rate_button.setToolTip("Train three copies of the network from the same start on the same training "
                                    "points, at a tenth of the learning rate, at it and at thirty times it")
        self.rate_button.clicked.connect(self.run_rate_race)
        self.rate_status = NoteLabel("", lines=1, tight=True)
        self.rate_loss = PlotPanel("Loss from the same start", "epoch", "L", log_y=True, legend_corner="top")
        self.rate_maps = [MapPanel(title) for title in ("η / 10", "η", "30 η")]
        self.rate_note = NoteLabel("", lines=3, tight=True)
        body = splitter(True, self.rate_loss, splitter(False, *self.rate_maps), sizes=[270, 290], stretch=[1, 1])
        return page([self.rate_button, (self.rate_status, 1)], body, (self.rate_note, 0))

    def run_rate_race(self) -> None:
        Xtr, ytr, Xte, yte = self.train_test()
        if np.unique(ytr).size < 2:
            self.show_error("Training needs training points of both classes.")
            return
        val = (Xte.copy(), yte.copy()) if len(yte) else (None, None)
        task = self.task("rates", on_done=self._rates_done, on_error=self._side_failed)
        task.start(side_tasks.rate_race, Xtr.copy(), ytr.copy(), *val, self.params(), self.seed,
                   self.canvas.data_bounds(margin=MAP_MARGIN))
        self._rate_points = (Xtr.copy(), ytr.copy(), Xte.copy(), yte.copy())
        self.rate_status.setText("Training three copies …")

    def _rates_done(self, copies) -> None:
        self.rate_result = copies
        self._draw_rates()

    def _draw_rates(self) -> None:
        copies = self.rate_result
        if copies is None:
            return
        Xtr, ytr, Xte, yte = self._rate_points
        X, y = np.vstack([Xtr, Xte]), np.concatenate([ytr, yte])
        test = np.r_[np.zeros(len(ytr), bool), np.ones(len(yte), bool)]
        self.rate_loss.clear_series()
        lines = []
        for copy, panel in zip(copies, self.rate_maps):
            name = f"η = {copy.learning_rate:g}"
            self.rate_loss.curve(name).set(np.arange(len(copy.losses)), copy.losses)
            panel.set_title(name)
            panel.show(copy.frame, X, y, test)
            lines.append(f"<b>{name}</b>: {maths.loss_verdict(copy.losses, copy.diverged)}; "
                         f"training error {100 * copy.train_error:.1f} %")
        self.rate_note.setText("<br>".join(lines))
        self.rate_status.setText("Same start, same points; only η differs.")


class CapacityTab:
    """Training and test error against hidden units or weight decay; the best and the most flexible network."""

    def _build_capacity_tab(self) -> QtWidgets.QWidget:
        self.capacity_axis = QtWidgets.QComboBox()
        for key, (label, _) in AXES.items():
            self.capacity_axis.addItem(label, key)
        self.capacity_axis.setToolTip("What the sweep changes; everything else is as in the Train tab")
        self.capacity_button = QtWidgets.QPushButton("Sweep")
        self.capacity_button.setToolTip("Train one network per value on the training points; measure its error "
                                        "on them and on the test points")
        self.capacity_button.clicked.connect(self.run_capacity_sweep)
        self.capacity_status = NoteLabel("", lines=1, tight=True)
        self.capacity_panel = PlotPanel("Error against capacity", "hidden units per layer", "error (%)",
                                        legend_corner="top")
        self.best_map = MapPanel("best on test")
        self.flexible_map = MapPanel("most flexible")
        self.capacity_note = NoteLabel("Few points and many units overfit: the training error falls to 0 while "
                                       "the test error rises. Weight decay and early stopping hold it back.", lines=2,
                                       tight=True)
        body = splitter(False, self.capacity_panel, splitter(True, self.best_map, self.flexible_map),
                        sizes=[420, 260])
        return page([self.capacity_axis, self.capacity_button, (self.capacity_status, 1)], body,
                    (self.capacity_note, 0))

    def run_capacity_sweep(self) -> None:
        Xtr, ytr, Xte, yte = self.train_test()
        if np.unique(ytr).size < 2:
            self.show_error("Training needs training points of both classes.")
            return
        if not len(yte):
            self.capacity_status.setText("The sweep compares training and test error: set a test fraction above 0.")
            return
        axis = self.capacity_axis.currentData()
        task = self.task("capacity", on_done=self._capacity_done, on_error=self._side_failed)
        task.start(side_tasks.capacity_sweep, Xtr.copy(), ytr.copy(), Xte.copy(), yte.copy(), self.params(),
                   self.seed, axis, self.canvas.data_bounds(margin=MAP_MARGIN))
        self._capacity_points = (Xtr.copy(), ytr.copy(), Xte.copy(), yte.copy(), axis)
        self.capacity_status.setText(f"Training {len(side_tasks.SWEEPS[axis])} networks …")

    def _capacity_done(self, points) -> None:
        self.capacity_result = points
        self._draw_capacity()

    def _draw_capacity(self) -> None:
        points = self.capacity_result
        if points is None:
            return
        Xtr, ytr, Xte, yte, axis = self._capacity_points
        label = AXES[axis][1]
        values = np.array([p.value for p in points])
        log_x = axis == "alpha"
        self.capacity_panel.plot_item.setLogMode(x=log_x)
        self.capacity_panel.set_labels(x_label=label)
        self.capacity_panel.clear_series()
        self.capacity_panel.curve("training").set(values, [100 * p.train_error for p in points])
        self.capacity_panel.curve("test").set(values, [100 * p.test_error for p in points])
        best = min(points, key=lambda p: (p.test_error, -p.value if log_x else p.value))
        flexible = points[0] if log_x else points[-1]
        X, y = np.vstack([Xtr, Xte]), np.concatenate([ytr, yte])
        test = np.r_[np.zeros(len(ytr), bool), np.ones(len(yte), bool)]
        for panel, p, what in ((self.best_map, best, "best on test"), (self.flexible_map, flexible, "most flexible")):
            panel.set_title(f"{what}: {_value(axis, p.value)}")
            panel.show(p.frame, X, y, test)
        self.capacity_status.setText(
            f"Lowest test error {100 * best.test_error:.1f} % at {_value(axis, best.value)}; "
            f"training error there {100 * best.train_error:.1f} %.")


def _value(axis: str, value: float) -> str:
    return f"{int(value)} units" if axis == "units" else f"α = {value:g}"
