"""The Gaussian-process lab: x → y points (sampled from a truth, clicked or opened), functions drawn
from the prior, the posterior mean and its band tightening at the points, the evidence over
(length-scale, noise) with the optimiser's path climbing it, and the same points under five
kernels with their evidence."""

from __future__ import annotations

import numpy as np
from PySide6 import QtWidgets

from smlengine.datasets import TRUTHS

from ... import style as theme
from ...points_data import read_xy_points
from ...points_lab import PointsLab
from ...widgets import plot_style
from ...widgets.legends import place_legend
from ...widgets.params import Param
from ...widgets.point_canvas import CanvasToolbar
from . import maths, run
from .tabs import TAB_EVIDENCE, TAB_KERNELS, TAB_POSTERIOR, TAB_PRIOR, EvidenceTab, KernelsTab, PosteriorTab, PriorTab

MAX_POINTS = 300


class GPLab(PosteriorTab, PriorTab, EvidenceTab, KernelsTab, PointsLab):
    id = "gp"
    title = "Gaussian processes"
    order = 120
    description = ("Functions drawn from a GP prior; the posterior mean and band after each click; the evidence over "
                   "(length-scale, noise) climbed by its optimiser; five kernels compared by their evidence.")
    chapter = "Gaussian processes"
    summary = "A prior over functions, a posterior that tightens where you click, kernels chosen by the evidence."
    keywords = ("Gaussian process", "GP", "kernel", "covariance function", "RBF", "squared exponential", "Matérn",
                "Matern", "periodic", "linear kernel", "length-scale", "lengthscale", "noise", "prior", "posterior",
                "posterior mean", "credible band", "uncertainty", "Cholesky", "evidence", "marginal likelihood",
                "log marginal likelihood", "type II maximum likelihood", "hyper-parameters", "L-BFGS", "restarts",
                "Bayesian regression", "kernel ridge regression", "overfitting", "Occam's razor")
    points_kind = "xy"
    MAX_POINTS = MAX_POINTS
    DATA_PARAMS = ("truth", "n_points", "sample_noise")
    points_reader = staticmethod(read_xy_points)
    method_param = "kernel"
    screenshot_steps = 30
    screenshot_tab = TAB_EVIDENCE

    # ------------------------------------------------------------------ building
    def init_state(self) -> None:
        self.source = {"kind": "sample", "name": ""}  # where the points came from
        self._map_shown = False  # the evidence tab is on screen (read by prepare on a worker)

    def parameter_specs(self):
        def has_scale(v):
            return v["kernel"] != "linear"

        return [
            Param("kernel", "Kernel k", "choice", "rbf", choices=run.KERNELS,
                  tooltip="The prior's covariance: RBF (smooth), Matérn (rougher as ν falls), periodic, linear "
                          "(a straight line: Bayesian linear regression), or RBF + linear"),
            Param("nu", "Smoothness ν", "choice", 1.5, choices=run.NUS, visible_when=lambda v: v["kernel"] == "matern",
                  tooltip="The Matérn kernel's ν: 1/2 gives rough paths, 3/2 once and 5/2 twice differentiable "
                          "ones (as ν → ∞, the RBF)"),
            Param("length_scale", "Length-scale ℓ", "log", 0.03, minimum=1e-3, maximum=1e3, visible_when=has_scale,
                  tooltip="How far apart two inputs must be for their values to decorrelate"),
            Param("variance", "Variance v", "log", 1.0, minimum=1e-3, maximum=1e3,
                  tooltip="The prior variance of f(x): how far functions stray from 0"),
            Param("period", "Period p", "log", 1.0, minimum=1e-2, maximum=1e2,
                  visible_when=lambda v: v["kernel"] == "periodic", tooltip="The periodic kernel's period"),
            Param("noise", "Noise σ²", "log", 0.01, minimum=1e-8, maximum=1e3,
                  tooltip="The model's noise variance: y = f(x) + ε, ε ~ N(0, σ²)"),
            Param("restarts", "Restarts", "int", 0, minimum=0, maximum=10,
                  tooltip="Further ascents of the evidence from random starts (within two decades of the "
                          "parameters); the best state wins"),
            Param("truth", "Truth f(x)", "choice", "sine", choices=run.TRUTH_CHOICES,
                  tooltip="; ".join(f for _, f in TRUTHS.values()) + ". New samples are drawn from it."),
            Param("n_points", "Points", "int", 12, minimum=1, maximum=MAX_POINTS,
                  tooltip="How many points to sample from the truth (x uniform on [0, 1])"),
            Param("sample_noise", "Sample noise σ", "float", 0.1, minimum=0.0, maximum=2.0, step=0.05,
                  tooltip="The sampled points are y = f(x) + σ ε, ε standard normal"),
        ]

    def build_controls(self, layout: QtWidgets.QVBoxLayout) -> None:
        self.sample_button = QtWidgets.QPushButton("New sample")
        self.sample_button.setToolTip("Draw new points from the truth (next seed)")
        self.sample_button.clicked.connect(self.new_sample)
        self.open_button = QtWidgets.QPushButton("Open CSV…")
        self.open_button.setToolTip("Load points from a CSV file with columns x and y")
        self.open_button.clicked.connect(self._load_points_dialog)
        row = QtWidgets.QHBoxLayout()
        row.addWidget(self.sample_button)
        row.addWidget(self.open_button)
        row.addStretch(1)
        layout.addLayout(row)
        self.data_label = QtWidgets.QLabel()
        self.data_label.setWordWrap(True)
        layout.addWidget(self.data_label)
        self._toolbar_slot = QtWidgets.QVBoxLayout()  # the canvas's buttons, once the canvas exists
        layout.addLayout(self._toolbar_slot)

    def build_plots(self) -> QtWidgets.QWidget:
        self.tabs = QtWidgets.QTabWidget()
        self.tabs.addTab(self._build_posterior_tab(), "Posterior")
        self.tabs.addTab(self._build_prior_tab(), "Prior")
        self.tabs.addTab(self._build_evidence_tab(), "Evidence")
        self.tabs.addTab(self._build_kernels_tab(), "Kernels")
        self.tabs.currentChanged.connect(self._tab_changed)
        self.toolbar = CanvasToolbar(self.canvas, columns=2,
                                     hint="Click the plot to add a point, drag one to move it, Ctrl+click to "
                                          "remove it.")
        self._toolbar_slot.addWidget(self.toolbar)
        self._toolbar_slot.addWidget(self.toolbar.hint)
        return self.tabs

    def after_build(self) -> None:
        self.regenerate(undoable=False, restart=False)
        self.apply_style(theme.current())

    # ------------------------------------------------------------------ data
    def sample_points(self):
        p = self.params()
        x, y = run.sample(p["truth"], p["n_points"], p["sample_noise"], self.seed)
        return np.column_stack([x, y]), None

    def regenerate(self, undoable: bool = True, restart: bool = True) -> None:
        """Replace the points by a new sample from the truth (seeded)."""
        self.source = {"kind": "sample", "name": ""}
        super().regenerate(undoable=undoable, restart=restart)

    def new_sample(self) -> None:
        self.runbar.seed.setValue(min(self.seed + 1, 2**31 - 1))  # the seed handler draws the sample

    def data_changed(self) -> None:
        self._update_data_label()

    def points_edited(self) -> None:
        if self.source["kind"] == "sample":
            self.source = {"kind": "drawn", "name": ""}
        self._update_data_label()

    def points_loaded(self, result, name: str) -> None:
        x, y = result
        self.source = {"kind": "file", "name": name}
        self.set_canvas_points(np.column_stack([x[:, 0], y]))
        self._update_data_label()

    def _grid_range(self) -> tuple[float, float]:
        """The x range of the curves: [0, 1] for a sample, the points' range otherwise, padded."""
        xs = self.canvas.X[:, 0]
        lo, hi = (0.0, 1.0) if self.source["kind"] == "sample" or not len(xs) else (float(xs.min()), float(xs.max()))
        if len(xs):
            lo, hi = min(lo, float(xs.min())), max(hi, float(xs.max()))
        span = max(hi - lo, 1e-6)
        return lo - 0.1 * span, hi + 0.1 * span

    def fit_view(self) -> None:
        lo, hi = self._grid_range()
        ys = self.canvas.X[:, 1]
        y0, y1 = (float(ys.min()), float(ys.max())) if len(ys) else (-1.0, 1.0)
        span = max(y1 - y0, 1.0)
        self.canvas.plot_item.setRange(xRange=(lo, hi), yRange=(y0 - 0.4 * span, y1 + 0.4 * span), padding=0)

    def _update_data_label(self) -> None:
        n = len(self.canvas.y)
        kind = self.source["kind"]
        if kind == "file":
            where = f"file {self.source['name']}"
        elif kind == "drawn":
            where = "drawn or edited by hand"
        else:
            where = f"sampled from {TRUTHS[self.form.value('truth')][1]}, σ = {self.form.value('sample_noise'):.3g}"
        self.data_label.setText(f"{n} point{'s' if n != 1 else ''}, {where}.")
        self.data_label.setToolTip(self.data_label.text())

    # ------------------------------------------------------------------ parameters
    def on_param_changed(self, name: str) -> None:
        if name in self.DATA_PARAMS and self.source["kind"] == "sample":
            self.regenerate()
            return
        self.reset()

    def on_seed_changed(self, seed: int) -> None:
        if self.source["kind"] == "sample":
            self.regenerate()
        else:
            self.reset()

    # ------------------------------------------------------------------ the run
    def make_run(self, params: dict, seed: int):
        X = self.canvas.X
        if len(X) == 0:
            raise ValueError("There are no points: click the plot to add some, press New sample or open a CSV file.")
        x, y = X[:, 0].copy(), X[:, 1].copy()
        kernel = run.make_kernel(params["kernel"], params["length_scale"], params["variance"], params["period"],
                                 params["nu"])
        param, _ = run.map_axis(params["kernel"])
        truth = params["truth"] if self.source["kind"] == "sample" else None
        ctx = run.make_context(x, y, kernel=params["kernel"], truth=truth, truth_noise=params["sample_noise"],
                               start=(float(kernel.get_params()[param]), params["noise"]), seed=seed)
        if self.tabs.currentIndex() == TAB_KERNELS:
            self._start_kernels()
        noise, restarts = float(params["noise"]), int(params["restarts"])
        return lambda: run.run_steps(ctx, kernel, noise, restarts)

    def prepare(self, snapshot):  # on a worker thread: the evidence map of the step, while its tab shows
        return run.evidence_frame(snapshot) if self._map_shown else run.HIDDEN

    def _tab_changed(self, index: int) -> None:
        self._map_shown = index == TAB_EVIDENCE
        if index == TAB_KERNELS:
            self._start_kernels()
        snap = self.runner.current
        if snap is not None:
            self._draw_tab(snap, self.runner.prepared_for(snap))

    # ------------------------------------------------------------------ drawing
    def show_idle(self) -> None:
        self.evidence_curve.clear()
        for item in (self.band_hi, self.band_lo, self.noise_hi, self.noise_lo, self.mean_item, self.path_item,
                     *self.sample_items):
            item.setData([], [])
        self.now_item.setData([], [])
        self.band.clear()

    def render(self, snapshot, prepared, history) -> None:
        if history.rewound:
            self.evidence_curve.clear()
        self.evidence_curve.extend([h.step for h in history.added], [h.log_evidence for h in history.added])
        self.evidence_panel.plot_item.setXRange(0, max(snapshot.step, 1), padding=0.02)  # whole steps from 0
        self._draw_tab(snapshot, prepared)

    def _draw_tab(self, snapshot, prepared) -> None:
        """Draw the tab on screen (the others are drawn when they are opened)."""
        index = self.tabs.currentIndex()
        if index == TAB_POSTERIOR:
            self._draw_posterior(snapshot)
        elif index == TAB_PRIOR:
            self._draw_prior(snapshot)
        elif index == TAB_EVIDENCE:
            if prepared is run.HIDDEN:  # prepared while the tab was hidden: map this step now
                self.runner.reprepare()
                prepared = None
            self._draw_evidence(snapshot, prepared)

    def apply_style(self, s: theme.Style) -> None:
        self.style_canvas(s)
        plot_style.set_axis_labels(self.canvas, "x", "y", s)
        self._style_posterior(s)
        self._style_prior(s)
        self._style_evidence(s)
        self._style_kernels(s)

    def favour_main_plot(self, s: theme.Style | None = None) -> None:
        super().favour_main_plot(s)
        # the five short entries stay in rows above the data: beside it they would take its width
        place_legend(self.canvas.plot_item, "top")

    def maths_html(self, snapshot) -> str:
        return maths.maths_html(snapshot)

    # ------------------------------------------------------------------ sessions, export
    def user_data(self) -> dict:
        return {**super().user_data(), "source": dict(self.source)}

    def set_user_data(self, data: dict) -> None:
        if "points" not in data:
            return
        X, y, mask = self.session_points(data)
        source = data.get("source", {"kind": "drawn", "name": ""})
        if not isinstance(source, dict) or source.get("kind") not in ("sample", "file", "drawn"):
            raise ValueError("the saved data source is malformed")
        self.source = {"kind": source["kind"], "name": str(source.get("name", ""))[:200]}
        self.set_canvas_points(X, y, test_mask=mask)
        self._update_data_label()

    def export_rows(self):
        X = self.canvas.X
        header, rows = ["x", "y"], [[float(a), float(b)] for a, b in X]
        snap = self.runner.current
        if snap is not None and np.array_equal(snap.ctx.x, X[:, 0]) and np.array_equal(snap.ctx.y, X[:, 1]):
            mean, std = run.posterior_at(snap, X[:, 0])
            header += ["posterior mean", "posterior std"]
            for row, m, sd in zip(rows, mean, std):
                row += [float(m), float(sd)]
        return header, rows
