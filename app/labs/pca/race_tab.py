"""The PCA lab's Race tab: full SVD, covariance eigh, randomized SVD and the power method
timed on the current data, with the angle of each one's subspace to the exact one."""

from __future__ import annotations

import html

import pyqtgraph as pg
from PySide6 import QtWidgets

from ... import style as theme
from ...widgets.pages import page, splitter
from ...widgets.plots import PlotPanel
from . import side_tasks
from .side_tasks import RACE_SOLVERS


class SolverBarsPanel(PlotPanel):
    """The race's bars: a self-styling panel whose left axis is as wide as the solvers' names."""

    def apply_style(self, s: theme.Style | None = None) -> None:
        super().apply_style(s)
        self.plot_item.getAxis("left").setWidth(None)


class RaceTab:
    """The Race tab of :class:`~app.labs.pca.lab.PCALab` (a mixin: it uses the lab's
    ``_data``, ``form``, ``seed``, ``task`` and ``show_error``)."""

    def _build_race_tab(self) -> QtWidgets.QWidget:
        self.race_q = QtWidgets.QSpinBox()
        self.race_q.setRange(0, 20)
        self.race_q.setValue(2)
        self.race_q.setToolTip("Power iterations q of the randomized SVD (sketch (X_c X_cᵀ)^q X_c Ω)")
        self.race_button = QtWidgets.QPushButton("Race")
        self.race_button.setToolTip("Time full SVD, covariance eigh, randomized SVD and the power method on "
                                    "the current data (k = power comps.) and measure the angle of each "
                                    "subspace to the exact one")
        self.race_button.clicked.connect(self.start_race)
        self.race_status = QtWidgets.QLabel("")
        self.race_status.setWordWrap(True)
        self.race_table = QtWidgets.QTableWidget(len(RACE_SOLVERS), 3)
        self.race_table.setHorizontalHeaderLabels(["time (ms)", "angle (rad)", "iterations"])
        self.race_table.setVerticalHeaderLabels([label for _, label in RACE_SOLVERS])
        self.race_table.horizontalHeader().setSectionResizeMode(QtWidgets.QHeaderView.ResizeMode.Stretch)
        self.race_table.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        # one bar per solver, lying down: each named in full on the left axis, as in the table
        self.race_panel = SolverBarsPanel("Time per solver", "time (ms)", "", legend=False)
        self.race_bars = pg.BarGraphItem(x0=[], y=[], width=[], height=0.6, brush=theme.OKABE_ITO["orange"])
        self.race_panel.plot_item.addItem(self.race_bars)
        self.race_panel.plot_item.getViewBox().invertY(True)  # the table's order, top to bottom
        ticks = [[(float(i), label) for i, (_, label) in enumerate(RACE_SOLVERS)], []]
        self.race_panel.plot_item.getAxis("left").setTicks(ticks)
        self.race_panel.plot_item.setYRange(-0.6, len(RACE_SOLVERS) - 0.4, padding=0)
        return page([QtWidgets.QLabel("randomized q"), self.race_q, self.race_button, (self.race_status, 1)],
                    splitter(True, self.race_table, self.race_panel, sizes=(200, 400)), margin=2)

    # ------------------------------------------------------------------ solver race
    def start_race(self) -> None:
        data = self._data
        if data is None:
            self.show_error("No data yet: wait for the run to start.")
            return
        k = min(int(self.form.value("n_power")), data.K)
        task = self.task("race", on_done=self._race_done, on_error=self._race_failed,
                         on_progress=lambda f, text: self.race_status.setText(f"Running {text} …"))
        task.start(side_tasks.race, data, k, int(self.race_q.value()), int(self.seed))
        self.race_button.setEnabled(False)
        self.race_status.setText(f"Racing for k = {k} components …")

    def _race_done(self, rows) -> None:
        self.race_button.setEnabled(True)
        self.race_rows = list(rows or [])
        self._show_race(self.race_rows)
        if self.race_rows:
            fastest = min(self.race_rows, key=lambda r: r["seconds"])
            self.race_status.setText(f"Fastest: {fastest['label']}. Angles are to the exact (eigh) subspace.")

    def _race_failed(self, message: str) -> None:
        self.race_button.setEnabled(True)
        self.race_status.setText(f"⚠ race failed: {html.escape(message)}")

    def _show_race(self, rows) -> None:
        by = {r["method"]: r for r in rows}
        for i, (method, _label) in enumerate(RACE_SOLVERS):
            r = by.get(method)
            texts = ["", "", ""] if r is None else [f"{1e3 * r['seconds']:.3g}", f"{r['angle']:.2e}",
                                                     str(r["iterations"]) if method == "power" else "–"]
            for col, text in enumerate(texts):
                self.race_table.setItem(i, col, QtWidgets.QTableWidgetItem(text))
        ys = [float(i) for i, (m, _) in enumerate(RACE_SOLVERS) if m in by]
        ms = [1e3 * by[m]["seconds"] for m, _ in RACE_SOLVERS if m in by]
        self.race_bars.setOpts(x0=[0.0] * len(ms), y=ys, width=ms, height=0.6)
        self.race_panel.plot_item.setYRange(-0.6, len(RACE_SOLVERS) - 0.4, padding=0)
        if ms:
            self.race_panel.plot_item.setXRange(0, max(ms) * 1.1, padding=0)
