"""The classifiers lab's "Cross-validation" tab: the grid of k-fold CV errors filling in cell by
cell on a worker thread, the chosen cell marked, and the test error of the retrained model
(:class:`CrossValidationView`); :class:`CrossValidationTab` builds it into the lab and applies a
chosen cell."""

from __future__ import annotations


import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from ... import style as theme
from ...widgets import plot_style
from ...tasks import BackgroundTask
from ...widgets.plots import TidyAxis
from .run import cv_grid, cv_steps

AXIS_LABEL = {"C": "C", "gamma": "γ", "degree": "degree"}


def _fmt(v) -> str:
    return f"{v:g}"


class CrossValidationView(QtWidgets.QWidget):
    """Heat map of the CV error over the grid; ``run(...)`` starts a cancellable search.

    Attributes used by tests: ``snapshots`` (one GridSearchSnapshot per evaluated cell),
    ``result`` (the final dict), ``errors`` (the grid so far), ``best_marker``.
    """

    applyRequested = QtCore.Signal(object)  # dict of the chosen parameters
    failed = QtCore.Signal(str)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.run_button = QtWidgets.QPushButton("Run grid search")
        self.run_button.setToolTip("k-fold cross-validation of every cell on the training points, on a worker thread")
        self.cancel_button = QtWidgets.QPushButton("Cancel")
        self.cancel_button.setEnabled(False)
        self.apply_button = QtWidgets.QPushButton("Use the chosen parameters")
        self.apply_button.setEnabled(False)
        self.apply_button.setToolTip("Set the sliders to the chosen cell and restart the training run")
        self.folds = QtWidgets.QSpinBox()
        self.folds.setRange(2, 10)
        self.folds.setValue(5)
        self.folds.setPrefix("k = ")
        self.folds.setToolTip("Number of cross-validation folds")
        # a flowing row that may wrap: in projector mode four buttons side by side would
        # otherwise set a minimum width larger than a small window
        row = QtWidgets.QHBoxLayout()
        for w in (self.run_button, self.cancel_button, self.folds, self.apply_button):
            w.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Fixed)
            w.setMinimumWidth(40)
            row.addWidget(w)

        self.plot = pg.PlotWidget(axisItems={"left": TidyAxis("left"), "bottom": TidyAxis("bottom")})
        self.plot_item = self.plot.getPlotItem()
        self.plot_item.setMenuEnabled(False)
        self.plot_item.getViewBox().setMouseEnabled(False, False)
        self.image = pg.ImageItem()
        self.plot_item.addItem(self.image)
        self.best_marker = pg.ScatterPlotItem()
        self.best_marker.setZValue(10)
        self.plot_item.addItem(self.best_marker)
        self.current_marker = pg.ScatterPlotItem()
        self.current_marker.setZValue(9)
        self.plot_item.addItem(self.current_marker)
        self.texts: dict[tuple, pg.TextItem] = {}
        self.summary = QtWidgets.QLabel()
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)

        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(2, 2, 2, 2)
        lay.addLayout(row)
        lay.addWidget(self.plot, 1)
        lay.addWidget(self.summary)

        self.cancel_button.clicked.connect(self.cancel)
        self.apply_button.clicked.connect(
            lambda: self.result and self.applyRequested.emit(dict(self.result["best_params"])))
        self._cmap = pg.colormap.get("viridis")
        self.task = BackgroundTask(self, on_item=self._on_item, on_done=self._on_finished, on_error=self._on_error,
                                   name="cv-grid")
        self.snapshots: list = []
        self.result: dict | None = None
        self.errors: np.ndarray | None = None
        self.names: tuple = ()
        self.values: list = []
        self.kind = ""
        self.set_kind("svm_rbf")
        self.apply_style(theme.current())

    def heightForWidth(self, width: int) -> int:
        """The least height at ``width``: the tab's scroll area asks this, and the wrapped
        summary would otherwise add the grid's preferred height to it, so a page that fits
        (grid shrunk, summary whole) would scroll its summary out of sight."""
        return self.layout().totalMinimumHeightForWidth(width)

    # ------------------------------------------------------------------ grid
    def set_kind(self, kind: str) -> None:
        """Prepare an empty grid for a classifier (or explain why there is none)."""
        if self.running:
            self.cancel()
        self.kind = kind
        try:
            grid = cv_grid(kind)
        except ValueError as exc:
            self._setup_grid({})
            self.run_button.setEnabled(False)
            self.run_button.setToolTip(str(exc))
            self.summary.setText(f"The perceptron has no hyper-parameter to choose: {exc}.")
            return
        self.run_button.setEnabled(True)
        self.run_button.setToolTip("k-fold cross-validation of every cell on the training points, on a worker thread")
        self._setup_grid(grid)
        self.summary.setText(
            "Press <b>Run grid search</b>: every cell is scored by k-fold cross-validation on the training points; "
            "the cell with the smallest CV error is retrained on all training points and scored once on the "
            "test points (set a test fraction in the parameters)."
        )

    def _setup_grid(self, grid: dict) -> None:
        for t in self.texts.values():
            self.plot_item.removeItem(t)
        self.texts.clear()
        self.snapshots = []
        self.result = None
        self.apply_button.setEnabled(False)
        self.best_marker.setData([], [])
        self.current_marker.setData([], [])
        self.names = tuple(grid)
        self.values = [list(v) for v in grid.values()]
        if not grid:
            self.errors = None
            self.image.clear()
            return
        shape = tuple(len(v) for v in self.values)
        if len(shape) == 1:
            shape = (shape[0], 1)
        self.errors = np.full(shape, np.nan)
        bottom, left = self.plot_item.getAxis("bottom"), self.plot_item.getAxis("left")
        bottom.setTicks([[(i + 0.5, _fmt(v)) for i, v in enumerate(self.values[0])]])
        bottom.setLabel(AXIS_LABEL.get(self.names[0], self.names[0]))
        if len(self.names) > 1:
            left.setTicks([[(i + 0.5, _fmt(v)) for i, v in enumerate(self.values[1])]])
            left.setLabel(AXIS_LABEL.get(self.names[1], self.names[1]))
        else:
            left.setTicks([[(0.5, "")]])
            left.setLabel("")
        for a in range(shape[0]):
            for b in range(shape[1]):
                t = pg.TextItem("", anchor=(0.5, 0.5), color="#000000", fill=pg.mkBrush(255, 255, 255, 170))
                t.setPos(a + 0.5, b + 0.5)
                t.setZValue(5)
                self.plot_item.addItem(t)
                self.texts[(a, b)] = t
        plot_style.style_plot(self.plot, theme.current(), title="k-fold cross-validation error (lower is better)")
        self.apply_style(theme.current())
        self.plot_item.getViewBox().setRange(xRange=(0, shape[0]), yRange=(0, shape[1]), padding=0.02)
        self._draw_image()

    def _draw_image(self) -> None:
        if self.errors is None:
            return
        e = self.errors
        rgba = np.zeros(e.shape + (4,), dtype=np.ubyte)
        ok = np.isfinite(e)
        if ok.any():
            lo, hi = float(np.nanmin(e)), float(np.nanmax(e))
            t = (e[ok] - lo) / (hi - lo) if hi > lo else np.zeros(ok.sum())
            rgba[ok] = self._cmap.map(0.15 + 0.8 * t, mode="byte")
        self.image.setImage(rgba, autoLevels=False)
        self.image.setRect(QtCore.QRectF(0, 0, e.shape[0], e.shape[1]))

    def _cell(self, index) -> tuple[int, int]:
        return (index[0], index[1] if len(index) > 1 else 0)

    # ------------------------------------------------------------------ running
    @property
    def running(self) -> bool:
        return self.task.busy

    def run(self, kind: str, params: dict, X_train, y_train, X_test, y_test, seed: int = 0) -> None:
        """Start the search on a worker thread (cancelling a previous one)."""
        self.cancel()
        self.set_kind(kind)
        if self.errors is None:
            return
        self.task.start(cv_steps, kind, dict(params), np.array(X_train), np.array(y_train),
                        np.array(X_test), np.array(y_test), int(self.folds.value()), int(seed))
        self.run_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.summary.setText(f"Cross-validating {self.errors.size} cells with k = {self.folds.value()} folds on "
                             f"{len(y_train)} training points …")

    def cancel(self) -> None:
        if self.task.busy:
            self.task.cancel()  # whatever the old search still sends is dropped
            self.summary.setText(self.summary.text() + "<br><i>Cancelled.</i>" if not self.result
                                 else self.summary.text())
        self.cancel_button.setEnabled(False)
        self.run_button.setEnabled(self.errors is not None)

    def mark_stale(self) -> None:
        """The data changed: stop a running search; old results no longer apply."""
        was = self.running or self.snapshots
        self.cancel()
        if was:
            self._setup_grid(cv_grid(self.kind) if self.errors is not None else {})
            self.summary.setText("The data or the classifier changed: run the grid search again.")

    def _on_item(self, item) -> None:
        tag, payload = item
        if tag == "cell":
            snap = payload
            self.snapshots.append(snap)
            errs = np.asarray(snap.errors, float)
            self.errors = errs.reshape(self.errors.shape)
            cell = self._cell(snap.index)
            self.texts[cell].setText(f"{100 * snap.mean_error:.1f}%")
            for idx, t in self.texts.items():
                if not np.isfinite(self.errors[idx]):
                    t.setText("")
            best = self._cell(snap.best_index)
            s = theme.current()
            self.best_marker.setData(pos=[(best[0] + 0.5, best[1] + 0.5)], symbol="s", size=46 * s.scale,
                                     pen=pg.mkPen(theme.OKABE_ITO["vermillion"], width=3 * s.scale),
                                     brush=pg.mkBrush(None))
            # the cell being computed: a dot in its top-left corner, off the error written in it
            self.current_marker.setData(pos=[(cell[0] + 0.1, cell[1] + 0.82)], symbol="o", size=10 * s.scale,
                                        pen=pg.mkPen(s.foreground), brush=pg.mkBrush(s.foreground))
            self._draw_image()
            params = ", ".join(f"{AXIS_LABEL.get(k, k)} = {_fmt(v)}" for k, v in snap.best_params.items())
            self.summary.setText(f"{len(self.snapshots)} of {self.errors.size} cells · best so far: {params}, "
                                 f"CV error {100 * snap.best_error:.1f}%")
        else:
            r = payload
            self.result = r
            self.current_marker.setData([], [])
            params = ", ".join(f"{AXIS_LABEL.get(k, k)} = {_fmt(v)}" for k, v in r["best_params"].items())
            test = (f"test error <b>{100 * r['test_error']:.1f}%</b> on {r['n_test']} test points"
                    if r["test_error"] is not None
                    else "no test points (set a test fraction to report a test error)")
            sv = f", {r['n_support']} support vectors" if r["n_support"] >= 0 else ""
            self.summary.setText(
                f"<b>Chosen</b> (smallest {self.folds.value()}-fold CV error, first in grid order on ties): {params}, "
                f"CV error {100 * r['cv_error']:.1f}%.<br>Retrained on all {r['n_train']} training points{sv}: {test}."
            )
            self.apply_button.setEnabled(True)

    def _on_error(self, message: str) -> None:
        self.summary.setText(f"⚠ The grid search failed: {message}")
        self.cancel_button.setEnabled(False)
        self.run_button.setEnabled(self.errors is not None)
        self.failed.emit(message)

    def _on_finished(self, _result) -> None:
        self.cancel_button.setEnabled(False)
        self.run_button.setEnabled(self.errors is not None)

    def shutdown(self) -> None:
        self.cancel()
        self.task.shutdown()

    def apply_style(self, s: theme.Style) -> None:
        plot_style.style_plot(self.plot, s)
        for t in self.texts.values():
            font = t.textItem.font()
            font.setPointSizeF(s.font_pt * 0.9)
            t.setFont(font)


class CrossValidationTab:
    """The Cross-validation tab of :class:`~app.labs.classifiers.lab.ClassifiersLab` (a mixin: it
    uses the lab's ``kind``, ``params``, ``train_test``, ``seed``, ``form`` and ``tabs``): the grid
    search runs at the run bar's speed, and a chosen cell becomes the lab's parameters."""

    def _build_cv_tab(self) -> QtWidgets.QWidget:
        self.cv_view = CrossValidationView()
        self.cv_view.task.pace = self.side_task_pace  # the grid fills in at the run bar's speed
        self.cv_view.run_button.clicked.connect(self.run_grid_search)
        self.cv_view.applyRequested.connect(self._apply_cv_choice)
        self.cv_view.failed.connect(self.show_error)
        return self.cv_view

    def run_grid_search(self) -> None:
        Xtr, ytr, Xte, yte = self.train_test()
        if np.unique(ytr).size < 2:
            self.show_error("The grid search needs training points of both classes.")
            return
        self.cv_view.run(self.kind, self.params(), Xtr, ytr, Xte, yte, self.seed)

    def _apply_cv_choice(self, params: dict) -> None:
        self.form.set_values(params, quiet=True)
        self.tabs.setCurrentIndex(0)
        self.reset()
