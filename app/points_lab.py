"""The base of the labs whose data are points the user draws, edits and loads.

Three kinds of points share one canvas (:class:`~app.widgets.point_canvas.PointCanvas`) and
this base class:

``"labelled"``
    2-D points of two classes (±1): left click adds +1, right click −1 (classifiers, trees).
``"unlabelled"``
    2-D points without classes (mixtures); every point has label 1.
``"xy"``
    1-D regression data: x → y, free aspect (:class:`~app.widgets.point_canvas.XYCanvas`).

A :class:`PointsLab` gives a lab: the canvas (:meth:`make_canvas`), setting the points
without the edit signal (:meth:`set_canvas_points`), the held-out test points drawn from the
``test_fraction`` parameter and the seed (:meth:`holdout`), the view fitted to the points,
opening a points CSV off the GUI thread (:meth:`load_points_file`), the points in sessions
(:meth:`user_data` / :meth:`restore_points`), the arrays a run trains on
(:meth:`canvas_arrays`, :meth:`train_test`) and, for labs that shade a decision function
under the points, the map and its extent (:meth:`make_decision_map`).

A lab reacts to its points through three hooks: :meth:`data_changed` (any change: drop
results computed from the old points), :meth:`points_edited` (a mouse edit; default:
:meth:`data_changed`) and :meth:`points_loaded` (a file was read; default for labelled points:
show them with a fresh split). After an edit or a load the base restarts the run.

The Qt-free half (the run context of labelled points, the held-out mask) is
:mod:`app.points_data`, which a lab's ``run.py`` imports.
"""

from __future__ import annotations

import html
import os
from typing import Any, ClassVar

import numpy as np
from PySide6 import QtCore, QtWidgets

from smlengine.datasets import GENERATORS, make_dataset

from . import style as theme
from .widgets import plot_style
from .lab import Lab
from . import points_data
from .points_data import read_labelled_points, sklearn_available, split_mask
from .widgets.decision_map import DecisionMap, MapExtent
from .widgets.params import Param
from .widgets.point_canvas import CanvasToolbar, PointCanvas, XYCanvas

KINDS = ("labelled", "unlabelled", "xy")


class PointsLab(Lab):
    """A lab whose data are the points of a :class:`PointCanvas` (see the module docstring)."""

    #: "labelled" (2-D, classes ±1), "unlabelled" (2-D) or "xy" (1-D x → y)
    points_kind: ClassVar[str] = "labelled"
    #: the most points the lab draws, loads and restores
    MAX_POINTS: ClassVar[int] = 20_000
    #: the largest |coordinate| a file or a saved session may hold (the labs' drawable range)
    MAX_ABS: ClassVar[float] = points_data.MAX_ABS
    #: padding of the fitted view, as a fraction of the points' span
    VIEW_MARGIN: ClassVar[float] = 0.15
    #: after an edit that dropped the held-out points (undo, redo), they are drawn again from
    #: this many points on
    SPLIT_MIN_POINTS: ClassVar[int] = 1
    #: reads and checks a points file on a worker thread: ``points_reader(path, MAX_POINTS)``
    #: (:func:`app.points_data.read_points_file`: one dialect and one set of limits for every
    #: lab); its result goes to :meth:`points_loaded`, a ``ValueError`` to the banner
    points_reader = staticmethod(read_labelled_points)
    #: parameters of the sampled points (labelled labs): changing one draws a new sample
    DATA_PARAMS: ClassVar[tuple] = ("dataset", "n_samples", "noise", "balance")
    #: the noise a data set starts with when it is chosen (labelled labs)
    DEFAULT_NOISE: ClassVar[dict] = {}
    #: the tooltip of the reference-check button when it is enabled
    REFERENCE_TIP: ClassVar[str] = ""

    def __init__(self, parent=None):
        if self.points_kind not in KINDS:
            raise TypeError(f"lab {self.id!r}: points_kind must be one of {KINDS}, got {self.points_kind!r}")
        self._suppress_points_signal = False
        super().__init__(parent)

    # ------------------------------------------------------------------ the canvas
    def make_canvas(self) -> PointCanvas:
        """The lab's canvas (``self.canvas``); its edits reach :meth:`points_edited`."""
        self.canvas = XYCanvas() if self.points_kind == "xy" else PointCanvas()
        self.canvas.fit_handler = self.fit_view  # the canvas's fit button fits as the lab does
        self.canvas.pointsChanged.connect(self._points_changed)
        return self.canvas

    def canvas_with_toolbar(self) -> QtWidgets.QWidget:
        """The canvas above its undo / redo / eraser / clear row and the mouse hint (``self.toolbar``)."""
        self.toolbar = CanvasToolbar(self.canvas)
        box = QtWidgets.QWidget()
        lay = QtWidgets.QVBoxLayout(box)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.canvas, 1)
        row = QtWidgets.QHBoxLayout()
        row.addWidget(self.toolbar)
        row.addWidget(self.toolbar.hint, 1)
        lay.addLayout(row)
        return box

    def add_data_buttons(self, layout: QtWidgets.QBoxLayout, load: bool = True) -> None:
        """"New data" (:meth:`regenerate`) and, with ``load``, "Load points…" (:meth:`load_points_file`)."""
        self.new_data_button = QtWidgets.QPushButton("New data")
        self.new_data_button.setToolTip("Draw a fresh sample of the chosen data set with the current seed")
        self.new_data_button.clicked.connect(lambda: self.regenerate())
        layout.addWidget(self.new_data_button)
        if not load:
            return
        self.load_button = QtWidgets.QPushButton("Load points…")
        self.load_button.setToolTip("Read points from a text file: columns x1, x2, label separated by ',', ';', "
                                    "tabs or spaces, as a spreadsheet saves them")
        self.load_button.clicked.connect(self._load_points_dialog)
        layout.addWidget(self.load_button)

    def make_decision_map(self, margin: float = 0.6) -> DecisionMap:
        """A decision map under the points (``self.decision``) and the box it covers
        (``self.map_extent``: the points grown by ``margin`` of their span, or the visible
        range if larger); when the view outgrows it a paused run maps the frame again."""
        pi = self.canvas.plot_item
        self.decision = DecisionMap(pi, margins=False)
        self.map_extent = MapExtent(pi, lambda: self.canvas.data_bounds(margin=margin), self._map_grown)
        return self.decision

    def _map_grown(self) -> None:
        if not self.runner.playing:
            self.runner.reprepare()

    def view_extent(self) -> tuple[float, float, float, float]:
        """Hook: the box a run's decision map covers: the data box grown to the visible range,
        so shading fills the plot."""
        self.map_extent.refresh()
        return self.map_extent.extent

    def fit_view(self) -> None:
        """Hook: fit the view to the points (after a new sample, a file, a session)."""
        xmin, xmax, ymin, ymax = self.canvas.data_bounds(margin=self.VIEW_MARGIN)
        self.canvas.plot_item.setRange(xRange=(xmin, xmax), yRange=(ymin, ymax), padding=0)

    # ------------------------------------------------------------------ the points
    def test_fraction(self) -> float:
        """The ``test_fraction`` parameter, 0 for a lab without held-out points."""
        return float(self.form.value("test_fraction")) if "test_fraction" in self.form.widgets else 0.0

    def holdout(self, n: int) -> np.ndarray:
        """The held-out mask of ``n`` points: the same points for the same seed and fraction."""
        return split_mask(n, self.test_fraction(), self.seed)

    def _apply_split(self) -> None:
        self.canvas.set_test_mask(self.holdout(len(self.canvas.y)))

    def set_canvas_points(self, X, y=None, *, test_mask=None, undoable: bool = True) -> None:
        """Show these points (``y`` None: all of label 1; ``test_mask`` None: :meth:`holdout`)
        without counting it as an edit, and fit the view to them."""
        X = np.asarray(X, dtype=float).reshape(-1, 2)
        y = np.ones(len(X)) if y is None else y
        mask = self.holdout(len(X)) if test_mask is None else test_mask
        self._suppress_points_signal = True
        try:
            self.canvas.set_points(X, y, test_mask=mask, undoable=undoable)
        finally:
            self._suppress_points_signal = False
        self.fit_view()

    def _points_changed(self) -> None:
        if self._suppress_points_signal:
            return
        mask = self.canvas.test_mask
        if self.test_fraction() > 0 and len(mask) >= self.SPLIT_MIN_POINTS and not mask.any():
            self._apply_split()  # undo/redo forget the split: draw it again from the seed
        self.points_edited()
        self.reset()

    @staticmethod
    def data_params(dataset: str, n_samples: int, noise: float, test_fraction: float,
                    balance_label: str = "Fraction of class +1") -> list[Param]:
        """The parameter rows of sampled labelled points: data set, size, noise, balance, test fraction."""
        return [
            Param("dataset", "Data set", "choice", dataset, choices=[(k, k.capitalize()) for k in GENERATORS],
                  tooltip="Generated toy problem (you can then edit the points with the mouse)"),
            Param("n_samples", "Points", "int", n_samples, minimum=4, maximum=20000, step=10),
            Param("noise", "Noise", "float", noise, minimum=0.0, maximum=5.0, step=0.05, decimals=2,
                  tooltip="Spread of the generated points"),
            Param("balance", balance_label, "float", 0.5, minimum=0.05, maximum=0.95, step=0.05, decimals=2),
            Param("test_fraction", "Test fraction", "float", test_fraction, minimum=0.0, maximum=0.9, step=0.05,
                  decimals=2,
                  tooltip="Fraction of the points held out as test points (drawn hollow, not used for training)"),
        ]

    def data_param_changed(self, name: str) -> bool:
        """React to a change of a points parameter (:meth:`data_params`); True when that
        already restarted the run (a new sample)."""
        if name == "dataset":
            self.form.set_values({"noise": self.DEFAULT_NOISE.get(self.form.value("dataset"), 0.2)})
        if name in self.DATA_PARAMS:
            self.regenerate()
            return True
        if name == "test_fraction":
            self._apply_split()
            self.data_changed()
        return False

    def on_seed_changed(self, seed: int) -> None:
        self.regenerate()

    def sample_points(self) -> tuple[np.ndarray, np.ndarray]:
        """(X, y) of the chosen toy data set with the current seed (labelled labs with the
        ``dataset``, ``n_samples``, ``noise`` and ``balance`` parameters)."""
        p = self.params()
        return make_dataset(p["dataset"], p["n_samples"], p["noise"], random_state=self.seed, balance=p["balance"])

    def regenerate(self, undoable: bool = True, restart: bool = True) -> None:
        """Replace the points by a fresh :meth:`sample_points`; a bad choice shows a message."""
        try:
            X, y = self.sample_points()
        except (ValueError, TypeError) as exc:
            self.show_error(str(exc))
            return
        self.set_canvas_points(X, y, undoable=undoable)
        self.data_changed()
        if restart:
            self.reset()

    def largest_input(self) -> None:
        """Every whole-number parameter at its maximum (the number of points among them), then
        a fresh sample of that many points."""
        super().largest_input()
        self.regenerate(undoable=False, restart=False)

    # ------------------------------------------------------------------ hooks
    def data_changed(self) -> None:
        """Hook: the points changed (edit, sample, file, session); drop what was computed from them."""

    def points_edited(self) -> None:
        """Hook: the user edited the points with the mouse (the run restarts afterwards)."""
        self.data_changed()

    def points_loaded(self, result: Any, name: str) -> None:
        """Hook: ``points_reader`` read the file ``name``; show its points (the run restarts
        afterwards). The default takes labelled ``(X, y)``."""
        X, y = result
        self.set_canvas_points(X, y)
        self.data_changed()

    # ------------------------------------------------------------------ files
    def _load_points_dialog(self) -> None:
        path = self.ask_open_path("Load points", "CSV files (*.csv);;All files (*)")
        if path:
            self.load_points_file(path)

    def load_points_file(self, path: str, wait: bool = False) -> bool | None:
        """Replace the points by those of a CSV file, read on a worker thread; a message in
        the lab if it is unusable (the current points stay). ``wait=True`` blocks until it is
        read and returns whether it was used (scripts and tests)."""
        outcome: list[bool] = []
        name = os.path.basename(str(path))

        def done(result):
            self.points_loaded(result, name)
            self.reset()
            outcome.append(True)

        def failed(message):
            self.show_error(f"Could not load {name}: {message}")
            outcome.append(False)

        task = self.task("load points", on_done=done, on_error=failed)
        task.start(self.points_reader, str(path), self.MAX_POINTS)
        if wait:
            task.wait(120.0)
            return bool(outcome and outcome[0])
        return None

    # ------------------------------------------------------------------ what a run trains on
    def _mask(self) -> np.ndarray:
        mask = self.canvas.test_mask
        return mask if len(mask) == len(self.canvas.y) else np.zeros(len(self.canvas.y), dtype=bool)

    def canvas_arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Copies of (X, y, test mask) of the drawn points; ValueError when none can be trained on."""
        X, y, mask = self.canvas.X.copy(), self.canvas.y.copy(), self._mask().copy()
        if len(y) == 0:
            raise ValueError("There are no points: draw some (left click +1, right click −1) or press New data.")
        if not np.all(np.isfinite(X)):
            raise ValueError("Some points have coordinates that are not finite numbers.")
        return X, y, mask

    def labelled_run(self, context_type, params: dict, seed: int):
        """``context_type`` (a :class:`~app.points_data.LabelledRun`) of the drawn points for a
        run: the learner named by the lab's ``method_param`` ("" for a lab without one), the
        parameters, the points and their split, the map's extent and the seed."""
        X, y, mask = self.canvas_arrays()
        method = str(params[self.method_param]) if self.method_param else ""
        return context_type(method, dict(params), X, y, mask, self.view_extent(), seed)

    def train_test(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(X_train, y_train ±1, X_test, y_test ±1) of the drawn labelled points (views)."""
        X, y = self.canvas.X, np.where(self.canvas.y > 0, 1.0, -1.0)
        mask = self._mask()
        return X[~mask], y[~mask], X[mask], y[mask]

    # ------------------------------------------------------------------ a check against the reference library
    def add_reference_check(self, layout: QtWidgets.QBoxLayout, text: str) -> None:
        """A button that fits the reference library's model (``run_reference_check``) and the
        label that shows the comparison (``reference_label``)."""
        self.reference_result: dict | None = None
        self.reference_button = QtWidgets.QPushButton(text)
        self.reference_button.clicked.connect(self.run_reference_check)
        layout.addWidget(self.reference_button)
        self.reference_label = QtWidgets.QLabel()
        self.reference_label.setWordWrap(True)
        self.reference_label.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.reference_label)

    def run_reference_check(self) -> None:
        """Hook: start the check (:meth:`start_reference_check`) for the current method."""

    def reference_available(self) -> bool:
        return sklearn_available()

    def reference_unsupported(self) -> str:
        """Hook: why the current method has no reference check ("" when it has one)."""
        return ""

    def update_reference_button(self) -> None:
        b = self.reference_button
        why_not = self.reference_unsupported()
        if not self.reference_available():
            b.setEnabled(False)
            b.setToolTip("scikit-learn is not installed, so there is nothing to compare with "
                         "(pip install scikit-learn enables this check)")
        elif why_not:
            b.setEnabled(False)
            b.setToolTip(why_not)
        else:
            b.setEnabled(True)
            b.setToolTip(self.REFERENCE_TIP)

    def start_reference_check(self, func, *args) -> None:
        """Run ``func(*args)`` as the lab's "reference" side task; its dict goes to :meth:`reference_html`."""
        task = self.task("reference", on_done=self._reference_done, on_error=self._reference_failed)
        task.start(func, *args)
        self.reference_result = None
        self.reference_label.setText("Fitting scikit-learn's model …")
        self.reference_button.setEnabled(False)

    def reference_html(self, result: dict) -> str:
        """Hook: the comparison a finished check shows."""
        return ""

    def _reference_done(self, result: dict) -> None:
        self.update_reference_button()
        self.reference_result = result
        self.reference_label.setText(self.reference_html(result))

    def _reference_failed(self, message: str) -> None:
        self.update_reference_button()
        self.reference_label.setText(f"⚠ reference check failed: {html.escape(message)}")

    # ------------------------------------------------------------------ style
    def style_canvas(self, s: theme.Style) -> None:
        """Restyle the canvas, its axis labels x₁, x₂ (x, y for 1-D data) and the decision map if any."""
        self.canvas.apply_style(s)
        plot_style.set_axis_labels(self.canvas, *(("x", "y") if self.points_kind == "xy" else ("x₁", "x₂")), s)
        plot_style.style_plot(self.canvas, s)
        if hasattr(self, "decision"):
            self.decision.apply_style(s)
        toolbar = getattr(self, "toolbar", None)
        if toolbar is not None:
            # the mouse hint is for the one at the keyboard: projector mode gives its row to the
            # plot and keeps the hint as the buttons' tooltip
            toolbar.setToolTip(toolbar.hint.text())
            toolbar.hint.setVisible(not s.projector)

    # ------------------------------------------------------------------ sessions
    def user_data(self) -> dict:
        data: dict = {"points": self.canvas.X.tolist()}
        if self.points_kind == "labelled":
            data["labels"] = self.canvas.y.tolist()
        if self.points_kind != "unlabelled":
            data["test"] = [int(i) for i in np.flatnonzero(self.canvas.test_mask)]
        return data

    def session_points(self, data: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(X, y, test mask) of a saved session's points, checked; ValueError names what is wrong."""
        try:
            X = np.asarray(data.get("points", []), dtype=float).reshape(-1, 2)
            if self.points_kind == "labelled":
                y = np.asarray(data.get("labels", []), dtype=float).reshape(-1)
            else:
                y = np.ones(len(X))
            test = np.asarray(data.get("test", []), dtype=int).reshape(-1)
        except (TypeError, ValueError):
            raise ValueError("the saved points are malformed") from None
        if len(X) != len(y) or not (np.all(np.isfinite(X)) and np.all(np.isfinite(y))):
            raise ValueError("the saved points are malformed")
        if X.size and np.abs(X).max() > self.MAX_ABS:
            raise ValueError(f"the saved points reach {np.abs(X).max():.3g}; this lab draws coordinates "
                             f"within ±{self.MAX_ABS:g}")
        try:
            points_data.check_range(X, self.points_kind)
        except ValueError as exc:
            raise ValueError(f"the saved points: {exc}") from None
        if len(X) > self.MAX_POINTS:
            raise ValueError("the saved session has too many points")
        if test.size and (test.min() < 0 or test.max() >= len(y)):
            raise ValueError("the saved test points are malformed")
        mask = np.zeros(len(y), dtype=bool)
        mask[test] = True
        return X, y, mask

    def restore_points(self, data: dict) -> bool:
        """Show a session's points (:meth:`session_points`); False when it holds none."""
        if "points" not in data:
            return False
        X, y, mask = self.session_points(data)
        self.set_canvas_points(X, y, test_mask=mask, undoable=False)
        self.data_changed()
        return True

    def set_user_data(self, data: dict) -> None:
        self.restore_points(data)

    def main_plot(self):
        return self.canvas
