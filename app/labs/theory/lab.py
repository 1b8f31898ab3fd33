"""The learning-theory lab: the PAC rectangle game and its trials, shattering the points one places with a class
of hypotheses, the growth functions beside 2^m and Sauer's bound, and the bounds against the measured error.

Each tab is one run: choosing a tab (or the Tab parameter) starts that tab's run.
"""

from __future__ import annotations

from typing import Callable, Iterator

import numpy as np
from PySide6 import QtWidgets

from ...points_data import read_plane_points
from ...points_lab import PointsLab
from ...widgets.params import Param
from . import maths, run
from .run import TheoryBoundsSnapshot, TheoryGameSnapshot, TheoryGrowthSnapshot, TheoryShatterSnapshot
from .tabs import BoundsTab, GameTab, GrowthTab, ShatterTab

TAB_OF_TASK = {task: i for i, (task, _label) in enumerate(run.TASKS)}
CHALLENGES = {
    "half-planes": [[0.2, 0.3], [0.75, 0.2], [0.8, 0.7], [0.3, 0.8]],  # four points in convex position
    "rectangles": [[0.5, 0.85], [0.85, 0.5], [0.5, 0.15], [0.15, 0.5]],  # the diamond
}


def _for(*tasks: str):
    return lambda v: v["task"] in tasks


class TheoryLab(GameTab, ShatterTab, GrowthTab, BoundsTab, PointsLab):
    id = "theory"
    title = "Learning theory: PAC and VC"
    order = 120
    description = ("The PAC rectangle game, shattering points with thresholds, intervals, half-planes, rectangles "
                   "and discs, growth functions against Sauer's bound, and the finite-class and VC bounds.")
    chapter = "Learning theory"
    summary = "Play the PAC rectangle game, try to shatter points, and watch growth functions and bounds."
    keywords = ("PAC", "probably approximately correct", "rectangle game", "tightest rectangle", "epsilon", "delta",
                "sample complexity", "shattering", "VC dimension", "Vapnik-Chervonenkis", "growth function",
                "Sauer's lemma", "half-planes", "discs", "intervals", "thresholds", "finite class", "Radon",
                "double sampling", "generalisation bound")
    points_kind = "unlabelled"
    points_reader = staticmethod(read_plane_points)
    MAX_POINTS = run.MAX_GROWTH
    DATA_PARAMS = ("n_points",)
    screenshot_steps = 30
    self_test_steps = 5

    # ------------------------------------------------------------------ building
    def init_state(self) -> None:
        self._syncing = False

    def parameter_specs(self):
        return [
            Param("task", "Tab", "choice", "game", choices=run.TASKS, tooltip="Which run plays (each has its tab)"),
            Param("epsilon", "ε", "float", 0.1, minimum=0.01, maximum=0.5, step=0.01, decimals=2,
                  tooltip="The error the learner may make", visible_when=_for("game")),
            Param("delta", "δ", "float", 0.05, minimum=0.001, maximum=0.5, step=0.01, decimals=3,
                  tooltip="The chance it may fail to be ε-good", visible_when=_for("game", "bounds")),
            Param("samples", "Samples m", "int", 30, minimum=1, maximum=2000, step=10,
                  tooltip="Samples drawn one by one, then in every trial", visible_when=_for("game")),
            Param("trials", "Trials", "int", 200, minimum=1, maximum=5000, step=50,
                  tooltip="Trials of m samples after the game: the histogram of err(R′)", visible_when=_for("game")),
            Param("cls", "Class", "choice", "half-planes", choices=run.CLASS_CHOICES,
                  tooltip="The hypotheses (1-D classes use x₁ only)", visible_when=_for("shatter")),
            Param("n_points", "Points", "int", 4, minimum=1, maximum=run.MAX_SHATTER,
                  tooltip="Points placed at random by New data (click to add, drag to move)",
                  visible_when=_for("shatter")),
            Param("growth_m", "Largest m", "int", 20, minimum=2, maximum=run.MAX_GROWTH,
                  tooltip="Π(m) for m = 1 … this", visible_when=_for("growth")),
            Param("source", "Points", "choice", "random", choices=run.SOURCES,
                  tooltip="Random points in general position, or the ones on the Shatter it tab",
                  visible_when=_for("growth")),
            Param("m_max", "Largest m", "int", 1000, minimum=50, maximum=2000, step=50,
                  tooltip="m from 5 to this, on a log scale", visible_when=_for("bounds")),
            Param("bound_trials", "Trials per m", "int", 200, minimum=10, maximum=500, step=10,
                  tooltip="Trials measuring the error at each m", visible_when=_for("bounds")),
        ]

    def build_controls(self, layout: QtWidgets.QBoxLayout) -> None:
        self.add_data_buttons(layout)
        for cls, text in (("half-planes", "Challenge: 4 points, half-planes"),
                          ("rectangles", "Challenge: the diamond, rectangles")):
            button = QtWidgets.QPushButton(text)
            button.setToolTip("Place four points for the challenge and try every labelling")
            button.clicked.connect(lambda _=False, c=cls: self.challenge(c))
            layout.addWidget(button)

    def build_plots(self) -> QtWidgets.QWidget:
        self.tabs = QtWidgets.QTabWidget()
        self.tabs.addTab(self._build_game_tab(), "Rectangle game")
        self.tabs.addTab(self._build_shatter_tab(), "Shatter it")
        self.tabs.addTab(self._build_growth_tab(), "Growth")
        self.tabs.addTab(self._build_bounds_tab(), "Bounds")
        return self.tabs

    def after_build(self) -> None:
        self.regenerate(undoable=False, restart=False)
        self._show_tab_of(self.form.value("task"))
        self.tabs.currentChanged.connect(self._tab_changed)

    # ------------------------------------------------------------------ tabs, points and parameters
    def _show_tab_of(self, task: str) -> None:
        if self.tabs.currentIndex() == TAB_OF_TASK[task]:
            return
        self._syncing = True
        try:
            self.tabs.setCurrentIndex(TAB_OF_TASK[task])
        finally:
            self._syncing = False

    def _tab_changed(self, index: int) -> None:
        if self._syncing:
            return
        task = run.TASKS[index][0]
        if task != self.form.value("task"):
            self.form.set_value("task", task)
            self.form.update_visibility()
            self.reset()

    def challenge(self, cls: str) -> None:
        """Four points for the challenge of ``cls`` on the Shatter it tab, every labelling tried in turn."""
        self.form.set_values({"task": "shatter", "cls": cls})
        self.form.update_visibility()
        self._show_tab_of("shatter")
        X = np.array(CHALLENGES[cls])
        self.set_canvas_points(X, np.ones(len(X)))
        self.data_changed()
        self.reset()

    def sample_points(self):
        X = run.random_points(self.form.value("n_points"), self.seed)
        return X, np.ones(len(X))

    def points_loaded(self, X, name: str) -> None:
        self.set_canvas_points(X, np.ones(len(X)))
        self.data_changed()

    def on_param_changed(self, name: str) -> None:
        if name == "task":
            self._show_tab_of(self.form.value("task"))
        if name == "n_points":
            self.regenerate()
            return
        self.reset()

    def after_params_restored(self) -> None:
        self._show_tab_of(self.form.value("task"))

    def make_run(self, params: dict, seed: int) -> Callable[[], Iterator]:
        task = params["task"]
        target = run.target_of(seed)
        if task == "game":
            eps, delta = float(params["epsilon"]), float(params["delta"])
            m, trials = int(params["samples"]), int(params["trials"])
            return lambda: run.run_steps("game", target, eps, delta, m, trials, seed)
        if task == "bounds":
            delta, m_max, trials = float(params["delta"]), int(params["m_max"]), int(params["bound_trials"])
            return lambda: run.run_steps("bounds", target, delta, m_max, trials, seed)
        X = self.canvas.X.copy()
        if task == "shatter":
            cls = params["cls"]
            if len(X) == 0:
                raise ValueError("Place at least one point (click the plot) or press New data.")
            if len(X) > run.MAX_SHATTER:
                raise ValueError(f"{len(X)} points: trying all 2^m labellings needs m ≤ {run.MAX_SHATTER}; "
                                 "erase some points.")
            return lambda: run.run_steps("shatter", cls, X)
        m = int(params["growth_m"])
        if params["source"] == "drawn":
            if len(X) == 0:
                raise ValueError("No points drawn on the Shatter it tab: draw some or choose random points.")
            P = X[:m]
        else:
            P = run.random_points(m, seed)
        return lambda: run.run_steps("growth", P, params["source"])

    # ------------------------------------------------------------------ drawing
    def show_idle(self) -> None:
        self._clear_game()
        self._clear_shatter()
        for panel in (self.growth_panel, self.bounds_panel):
            panel.clear_series()

    def render(self, snapshot, prepared, history) -> None:
        if isinstance(snapshot, TheoryGameSnapshot):
            self._render_game(snapshot, history)
        elif isinstance(snapshot, TheoryShatterSnapshot):
            self._render_shatter(snapshot)
        elif isinstance(snapshot, TheoryGrowthSnapshot):
            self._render_growth(snapshot)
        elif isinstance(snapshot, TheoryBoundsSnapshot):
            self._render_bounds(snapshot)

    def maths_html(self, snapshot) -> str:
        return maths.maths_html(snapshot)

    def apply_style(self, s) -> None:
        self._style_game(s)
        self._style_shatter(s)

    def main_plot(self):
        return (self.square, self.canvas, self.growth_panel, self.bounds_panel)[TAB_OF_TASK[self.form.value("task")]]

    def export_rows(self) -> tuple[list[str], list[list]]:
        s = self.runner.current
        if isinstance(s, TheoryGameSnapshot):
            return ["x1", "x2", "inside"], [[float(a), float(b), int(c)] for (a, b), c in zip(s.X, s.y)]
        if isinstance(s, TheoryShatterSnapshot):
            return ["x1", "x2", "label"], [[float(a), float(b), int(c)] for (a, b), c in zip(s.points, s.labels)]
        if isinstance(s, TheoryGrowthSnapshot):
            return ["m", *s.counts], [[int(m), *(int(s.counts[c][i]) for c in s.counts)] for i, m in enumerate(s.ms)]
        if isinstance(s, TheoryBoundsSnapshot):
            cols = (s.ms, s.mean_error, s.quantile_error, s.finite_bound, s.vc_bound, s.rectangle_bound)
            return (["m", "mean_error", "quantile_error", "finite_bound", "vc_bound", "rectangle_bound"],
                    [[float(v[i]) for v in cols] for i in range(len(s.ms))])
        return [], []
