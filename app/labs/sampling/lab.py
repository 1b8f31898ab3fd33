"""The Monte Carlo sampling lab: rejection sampling under a scaled proposal; Metropolis–Hastings
chains on a 2-D target with their trace, marginals, autocorrelation, ESS and R̂, and step sizes
too small, right and too big side by side; Gibbs sweeps of a Potts field denoising a picture.

Each tab is one sampler: choosing a tab (or the Sampler parameter) starts that sampler's run.
"""

from __future__ import annotations

from collections import deque
from typing import Callable, Iterator

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from smlengine.sampling import get_target

from ... import style as theme
from ...lab import Lab
from ...widgets.params import Param
from . import maths, run
from .run import SamplingGibbsSnapshot, SamplingMHSnapshot, SamplingRejectionSnapshot
from .tabs import MAX_CHAINS, TRIO_LABELS, DiagnosticsTab, GibbsTab, MHTab, RejectionTab
from .views import PathCurve, histogram_steps

TAB_REJECTION, TAB_MH, TAB_DIAG, TAB_GIBBS = range(4)
METHOD_OF_TAB = {TAB_REJECTION: "rejection", TAB_MH: "mh", TAB_DIAG: "mh", TAB_GIBBS: "gibbs"}
TAB_OF_METHOD = {"rejection": TAB_REJECTION, "mh": TAB_MH, "gibbs": TAB_GIBBS}
ACCEPT_COLOR = theme.OKABE_ITO["bluish_green"]
REJECT_COLOR = theme.OKABE_ITO["vermillion"]
REJECT_GREY = "#808080"
#: steps per second the run bar starts at: the default chains (4, burn-in 200) then keep 2,000
#: draws within 15 s and, within a minute, R̂ < 1.01 and marginals near the truth (the run bar's
#: general default, 20 steps/s, takes four minutes for that)
DEFAULT_PACE = 50.0


def _for(*methods: str):
    return lambda v: v["method"] in methods


class SamplingLab(RejectionTab, MHTab, DiagnosticsTab, GibbsTab, Lab):
    id = "sampling"
    title = "Monte Carlo sampling"
    order = 90
    description = ("Rejection sampling under M q; Metropolis–Hastings chains on 2-D targets with burn-in, "
                   "autocorrelation, ESS and R̂; Gibbs sweeps of a Potts field denoising a picture.")
    budget_mb = 128  # at the largest legal input: a 256 x 256 Potts image and 8 chains of 200,000 steps
    chapter = "Sampling"
    summary = "Rejection sampling, Metropolis–Hastings chains and their diagnostics, Gibbs sweeps denoising a picture."
    keywords = ("Monte Carlo", "MCMC", "rejection sampling", "envelope", "M", "proposal", "Metropolis-Hastings",
                "Metropolis", "random walk", "acceptance rate", "step size", "burn-in", "autocorrelation", "ESS",
                "effective sample size", "R-hat", "Gelman-Rubin", "chains", "banana", "donut", "two modes",
                "Gibbs sampling", "Potts", "Ising", "Markov random field", "MRF", "denoising", "β", "beta")
    screenshot_steps = 2000
    self_test_steps = 5
    screenshot_tab = TAB_MH

    # ------------------------------------------------------------------ building
    def init_state(self) -> None:
        self._syncing = False
        self._recent: deque = deque(maxlen=run.N_RECENT_MH)  # (x1, x2, accepted) of chain 1's proposals
        self._static_key = None

    def parameter_specs(self):
        return [
            Param("method", "Sampler", "choice", "mh", choices=run.METHODS,
                  tooltip="Which sampler runs (each has its own tab)"),
            # rejection
            Param("scale", "Proposal s", "log", 2.0, minimum=0.3, maximum=10.0, decimals=2,
                  tooltip="Standard deviation of the proposal q = N(0, s²)", visible_when=_for("rejection")),
            Param("M", "M", "log", 2.5, minimum=0.5, maximum=200.0, decimals=2,
                  tooltip="Envelope constant: p̃(x) ≤ M q(x) must hold for every x (the smallest valid M "
                          "depends on s)", visible_when=_for("rejection")),
            Param("per_step", "Proposals/step", "int", 5, minimum=1, maximum=500,
                  tooltip="Proposals drawn per step", visible_when=_for("rejection")),
            # Metropolis–Hastings
            Param("target", "Target", "choice", "gaussian", choices=run.TARGET_CHOICES,
                  tooltip="The 2-D density the chains sample", visible_when=_for("mh")),
            Param("step_size", "Step size s", "log", get_target("gaussian").good_step, minimum=0.005, maximum=50.0,
                  decimals=3, tooltip="Standard deviation of the random-walk proposal x′ = x + s ε "
                                      "(choosing a target sets a good s)", visible_when=_for("mh")),
            Param("n_chains", "Chains", "int", 4, minimum=1, maximum=MAX_CHAINS,
                  tooltip="Chains started from dispersed points (R̂ compares them)", visible_when=_for("mh")),
            Param("burn_in", "Burn-in", "int", 200, minimum=0, maximum=100_000, step=50,
                  tooltip="Steps left out of the marginals and diagnostics", visible_when=_for("mh")),
            Param("n_steps", "Steps", "int", 5000, minimum=10, maximum=200_000, step=500,
                  tooltip="Length of the run", visible_when=_for("rejection", "mh")),
            # Gibbs
            Param("picture", "Picture", "choice", "horse", choices=run.PICTURES,
                  tooltip="A shipped scikit-image picture made binary or 3-level", visible_when=_for("gibbs")),
            Param("size", "Size", "int", 128, minimum=32, maximum=256, step=16, suffix=" px",
                  tooltip="Longest side of the picture", visible_when=_for("gibbs")),
            Param("sigma", "Noise σ", "log", 0.6, minimum=0.05, maximum=3.0, decimals=2,
                  tooltip="Standard deviation of the Gaussian noise added to the picture (the model knows it)",
                  visible_when=_for("gibbs")),
            Param("beta", "β", "float", 1.0, minimum=0.0, maximum=5.0, step=0.1, decimals=2,
                  tooltip="Potts coupling: reward for each pair of equal neighbours (0: pixels independent)",
                  visible_when=_for("gibbs")),
            Param("init", "Start", "choice", "one", choices=run.INITS,
                  tooltip="All one label shows that burn-in matters; nearest level starts close",
                  visible_when=_for("gibbs")),
            Param("sweeps", "Sweeps", "int", 60, minimum=1, maximum=5000, step=10, visible_when=_for("gibbs"),
                  tooltip="Number of checkerboard sweeps"),
            Param("gibbs_burn", "Burn-in sweeps", "int", 10, minimum=0, maximum=5000, visible_when=_for("gibbs"),
                  tooltip="Sweeps left out of the marginal"),
        ]

    def build_plots(self) -> QtWidgets.QWidget:
        self.tabs = QtWidgets.QTabWidget()
        self.tabs.addTab(self._build_rejection_tab(), "Rejection")
        self.tabs.addTab(self._build_mh_tab(), "Metropolis–Hastings")
        self.tabs.addTab(self._build_diag_tab(), "Diagnostics && step size")
        self.tabs.addTab(self._build_gibbs_tab(), "Gibbs (Potts)")
        self.tabs.setTabToolTip(TAB_DIAG, "Autocorrelation, ESS and R̂ of the chains; step sizes too small, right "
                                          "and too big side by side")
        return self.tabs

    def after_build(self) -> None:
        self.runbar.speed.setCurrentIndex(self.runbar.speed.findData(DEFAULT_PACE))
        self.form.widgets["target"].setMinimumContentsLength(12)
        self.form.widgets["picture"].setMinimumContentsLength(12)
        self._show_tab_of(self.form.value("method"))
        # connected only now: the base class puts the pages in scroll areas after build_plots, which
        # selects the first tab
        self.tabs.currentChanged.connect(self._tab_changed)

    # ------------------------------------------------------------------ tabs and parameters
    def _show_tab_of(self, method: str) -> None:
        if METHOD_OF_TAB.get(self.tabs.currentIndex()) == method:
            return
        self._syncing = True
        try:
            self.tabs.setCurrentIndex(TAB_OF_METHOD[method])
        finally:
            self._syncing = False

    def _tab_changed(self, index: int) -> None:
        if self._syncing:
            return
        method = METHOD_OF_TAB.get(index, "mh")
        if method != self.form.value("method"):
            self.form.set_value("method", method)
            self.form.update_visibility()
            self.reset()

    def on_param_changed(self, name: str) -> None:
        if name == "method":
            self._show_tab_of(self.form.value("method"))
        elif name == "target":
            self.form.set_value("step_size", get_target(self.form.value("target")).good_step)
        self.reset()

    def after_params_restored(self) -> None:
        self._show_tab_of(self.form.value("method"))

    def make_run(self, params: dict, seed: int) -> Callable[[], Iterator]:
        method = params["method"]
        if method == "rejection":
            scale, m = float(params["scale"]), float(params["M"])
            per, n = int(params["per_step"]), int(params["n_steps"])
            need = run.smallest_m(scale)
            if m < need * (1 - 1e-9):
                raise ValueError(f"M = {m:.3g} is below max p/q = {need:.3g} for s = {scale:.3g}: the envelope "
                                 f"M q would cut into the target. Choose M ≥ {need:.3g}.")
            return lambda: run.run_steps("rejection", scale, m, per, n, seed)
        if method == "mh":
            name, s = params["target"], float(params["step_size"])
            c, burn, n = int(params["n_chains"]), int(params["burn_in"]), int(params["n_steps"])
            if burn >= n:
                raise ValueError(f"burn-in ({burn}) must be shorter than the run ({n} steps)")
            return lambda: run.run_steps("mh", name, s, c, burn, n, seed)
        picture, size = params["picture"], int(params["size"])
        sigma, beta, init = float(params["sigma"]), float(params["beta"]), params["init"]
        sweeps, burn = int(params["sweeps"]), int(params["gibbs_burn"])
        if burn >= sweeps:
            raise ValueError(f"burn-in ({burn} sweeps) must be shorter than the run ({sweeps} sweeps)")
        return lambda: run.run_steps("gibbs", picture, size, sigma, beta, init, sweeps, burn, seed)

    # ------------------------------------------------------------------ drawing
    def show_idle(self) -> None:
        for panel in (self.rej_panel, self.rate_panel, self.mh_panel, self.trace_panel,
                      self.marg_panel, self.acf_panel, self.rhat_panel, self.ess_panel, self.energy_panel,
                      self.error_panel, *self.trio_panels):
            panel.clear_series()
        for item in (self.rej_acc, self.rej_rej, self.heads, self.prop_acc, self.prop_rej, *self.trio_heads,
                     *self.trio_rejected):
            item.setData([], [])
        for path in (*self.paths, *self.trio_paths):
            path.clear()
        for text in self.trio_labels:
            text.setText("")
        for empty in (self.rhat_note, self.ess_note, self.marg_note):
            empty.show_text("")
        self._recent.clear()
        self._static_key = None
        for v in (self.noisy_view, self.labels_view, self.marg_view):
            v.forget()

    def render(self, snapshot, prepared, history) -> None:
        if not history.added:  # drawn already (a repaint): nothing to append
            return
        if isinstance(snapshot, SamplingRejectionSnapshot):
            self._render_rejection(snapshot, history)
        elif isinstance(snapshot, SamplingMHSnapshot):
            self._render_mh(snapshot, history)
        elif isinstance(snapshot, SamplingGibbsSnapshot):
            self._render_gibbs(snapshot, history)

    def _render_rejection(self, snap: SamplingRejectionSnapshot, history) -> None:
        s = theme.current()
        key = ("rejection", snap.M, snap.scale)
        if history.rewound or self._static_key != key:
            self._static_key = key
            xs = np.linspace(*run.X_RANGE, 400)
            p = np.exp(run.target_1d_log(xs))
            env = snap.M * np.exp(-0.5 * (xs / snap.scale) ** 2) / (snap.scale * np.sqrt(2 * np.pi))
            self.rej_target.set(xs, p)
            self.rej_env.set(xs, env)
            self.rate_curve.clear()
            self.rate_ref.setValue(1 / snap.M)
            peak = int(np.argmax(np.where(xs > 0, p, 0)))
            self.p_label.setPos(xs[peak] + 0.3, p[peak])
            self.env_label.setPos(0.0, float(env.max()))
        a = snap.accepted
        size = 0.7 * s.marker_size
        self.rej_acc.setData(snap.xs[a], snap.heights[a], size=size, brush=pg.mkBrush(ACCEPT_COLOR), pen=None)
        self.rej_rej.setData(snap.xs[~a], snap.heights[~a], size=size, symbol="x",
                             brush=pg.mkBrush(REJECT_GREY), pen=None)
        edges = np.linspace(*run.X_RANGE, run.N_BINS + 1)
        total = snap.counts.sum()
        dens = snap.counts / (total * (edges[1] - edges[0])) if total else snap.counts * 0.0
        self.hist_curve.set(*histogram_steps(edges, dens))
        added = [h for h in history.added if h.n_proposed > 0]
        if added:
            self.rate_curve.extend([h.n_proposed for h in added], [h.rate for h in added])

    def _render_mh(self, snap: SamplingMHSnapshot, history) -> None:
        s = theme.current()
        c = snap.state.shape[0]
        key = ("mh", snap.target)
        if history.rewound or self._static_key != key:
            self._static_key = key
            self.mh_map.show(snap.target)
            for m in self.trio_maps:
                m.show(snap.target)
            for panel in (self.mh_panel, self.trace_panel, self.marg_panel, self.acf_panel, self.rhat_panel,
                          self.ess_panel, *self.trio_panels):
                panel.clear_series()
            for path in (*self.paths, *self.trio_paths):
                path.clear()
            self._recent.clear()
            for i in range(3):
                self.trio_panels[i].set_title(f"s = {snap.trio_steps[i]:.3g}")
            _, _, _, _, (mx, px, my, py) = run.target_picture(snap.target)
            self.marg_x_true.setData(mx, px)
            self.marg_y_true.setData(my, py)
            self.burn_region.setRegion((0, snap.burn_in))
        added = history.added
        steps = np.array([h.step for h in added])
        states = np.stack([h.state for h in added])  # (frames, chains, 2)
        for k in range(c):
            self.paths[k].extend(states[-PathCurve.keep:, k, 0], states[-PathCurve.keep:, k, 1])
            self.traces[k].extend(steps, states[:, k, 0])
        for h in added[-run.N_RECENT_MH:]:
            if h.step > 0:
                self._recent.append((h.proposal[0, 0], h.proposal[0, 1], bool(h.accepted[0])))
        recent = np.array(self._recent, dtype=float).reshape(-1, 3)
        ok = recent[:, 2] > 0
        size = 0.8 * s.marker_size
        # told apart by shape (the chains use the categorical colours): ○ accepted, ✕ rejected
        self.prop_acc.setData(recent[ok, 0], recent[ok, 1], size=size, brush=pg.mkBrush(s.background),
                              pen=pg.mkPen(s.foreground, width=1.5))
        self.prop_rej.setData(recent[~ok, 0], recent[~ok, 1], size=size, brush=pg.mkBrush(s.foreground), pen=None)
        colours = [theme.CATEGORICAL[k % len(theme.CATEGORICAL)] for k in range(c)]
        self.heads.setData(snap.state[:, 0], snap.state[:, 1], size=1.3 * s.marker_size,
                           brush=[pg.mkBrush(col) for col in colours], pen=pg.mkPen(s.foreground, width=1.5))
        # marginals after burn-in, once there are enough draws to mean something
        x0, x1, y0, y1 = get_target(snap.target).bounds
        if snap.n_kept >= run.MIN_MARGINAL_DRAWS:
            ex, ey = np.linspace(x0, x1, run.N_BINS + 1), np.linspace(y0, y1, run.N_BINS + 1)
            self.marg_x.set(*histogram_steps(ex, snap.hist_x / (snap.n_kept * (ex[1] - ex[0]))))
            self.marg_y.set(*histogram_steps(ey, snap.hist_y / (snap.n_kept * (ey[1] - ey[0]))))
        else:
            self.marg_x.clear()
            self.marg_y.clear()
        self.marg_note.show_text(maths.marginals_count(snap))
        # diagnostics (appended where they were computed)
        fresh = [h for h in added if h.fresh and h.rhat is not None]
        if fresh:
            fs = [h.step for h in fresh]
            self.rhat_x.extend(fs, [h.rhat[0] for h in fresh])
            self.rhat_y.extend(fs, [h.rhat[1] for h in fresh])
            self.ess_x.extend(fs, [h.ess[0] for h in fresh])
            self.ess_y.extend(fs, [h.ess[1] for h in fresh])
        if snap.acf.size:
            self.acf_curve.set(np.arange(snap.acf.size), snap.acf)
        else:
            self.acf_curve.clear()
        # step-size trio
        trio = np.stack([h.trio_state for h in added])  # (frames, 3, 2)
        for i in range(3):
            self.trio_paths[i].extend(trio[-PathCurve.keep:, i, 0], trio[-PathCurve.keep:, i, 1])
            self.trio_heads[i].setData([snap.trio_state[i, 0]], [snap.trio_state[i, 1]], size=1.3 * s.marker_size,
                                       brush=pg.mkBrush(theme.CATEGORICAL[0]), pen=pg.mkPen(s.foreground, width=1.5))
            if snap.step and not snap.trio_accepted[i]:
                self.trio_rejected[i].setData([snap.trio_proposal[i, 0]], [snap.trio_proposal[i, 1]], size=size,
                                              brush=pg.mkBrush(REJECT_COLOR), pen=None)
            else:
                self.trio_rejected[i].setData([], [])
        note = maths.diagnostics_note(snap)
        for empty in (self.rhat_note, self.ess_note):
            empty.show_text(note)
        for i, label in enumerate(TRIO_LABELS):
            ess = None if snap.trio_ess is None else snap.trio_ess[i]
            stuck = snap.trio_stuck is not None and bool(snap.trio_stuck[i])
            ess_text = f"from step {run.diagnostics_from(snap.burn_in)}" if ess is None else maths.ess_text(ess, stuck)
            self.trio_labels[i].setText(f"{label}: {100 * snap.trio_rates[i]:.0f} % accepted, ESS {ess_text}")

    def _render_gibbs(self, snap: SamplingGibbsSnapshot, history) -> None:
        pic = snap.picture
        k = pic.n_labels
        key = ("gibbs", pic.key, snap.burn_in)
        if history.rewound or self._static_key != key:
            self._static_key = key
            self.energy_panel.clear_series()
            self.error_panel.clear_series()
            lo, hi = float(np.percentile(pic.noisy, 1)), float(np.percentile(pic.noisy, 99))
            self.noisy_view.set_image(pic.noisy, key=("noisy", pic.key), levels=(lo, hi))
            self.gibbs_burn.setRegion((0, snap.burn_in))
            self.err_noisy.setValue(100 * snap.noisy_error)
        self.labels_view.set_image(snap.labels.astype(np.float32) / (k - 1), key=("z", pic.key, snap.step))
        self.labels_view.set_title(f"Sweep {snap.step}: {100 * snap.error:.1f} % wrong")
        if snap.n_kept:
            self.marg_view.set_image(snap.marginal, key=("m", pic.key, snap.step))
            self.marg_view.set_title(f"Marginal: {100 * snap.marginal_error:.1f} % wrong")
        else:  # nothing counted yet
            self.marg_view.set_image(np.full(snap.labels.shape, 0.5, dtype=np.float32), key=("m", pic.key, "none"))
            self.marg_view.set_title("Marginal (after burn-in)")
        added = history.added
        steps = [h.step for h in added]
        self.energy_curve.extend(steps, [h.energy for h in added])
        self.err_sample.extend(steps, [100 * h.error for h in added])
        kept = [h for h in added if h.marginal_error is not None]
        if kept:
            self.err_marg.extend([h.step for h in kept], [100 * h.marginal_error for h in kept])

    def maths_html(self, snapshot) -> str:
        return maths.maths_html(snapshot)

    # ------------------------------------------------------------------ style, export
    def apply_style(self, s: theme.Style) -> None:
        for m in (self.mh_map, *self.trio_maps, *self.paths, *self.trio_paths):
            m.apply_style(s)
        for item, color in ((self.marg_x_true, theme.CATEGORICAL[0]), (self.marg_y_true, theme.CATEGORICAL[1])):
            item.setPen(pg.mkPen(color, width=s.line_width, style=QtCore.Qt.PenStyle.DashLine))
        region_brush = pg.mkBrush(QtGui.QColor(128, 128, 128, 50))
        for region in (self.burn_region, self.gibbs_burn):
            region.setBrush(region_brush)
            for line in region.lines:
                line.setPen(pg.mkPen(s.foreground, width=1, style=QtCore.Qt.PenStyle.DashLine))
        dash = pg.mkPen(s.foreground, width=1, style=QtCore.Qt.PenStyle.DashLine)
        self.rhat_ref.setPen(dash)
        self.acf_zero.setPen(dash)
        font = QtGui.QFont()
        font.setPointSizeF(s.legend_pt)
        for line in (self.err_noisy, self.rate_ref):
            line.setPen(pg.mkPen(s.foreground, width=max(1.0, 0.6 * s.line_width), style=QtCore.Qt.PenStyle.DotLine))
            line.label.setColor(s.foreground)
            line.label.setFont(font)
        for text in (self.p_label, self.env_label):
            text.setColor(s.foreground)
            text.setFont(font)
        for v in (self.noisy_view, self.labels_view, self.marg_view):
            v.apply_style(s)

    def main_plot(self):
        method = self.form.value("method")
        return {"rejection": self.rej_panel, "mh": self.mh_panel}.get(method, self.labels_view)

    def export_rows(self) -> tuple[list[str], list[list]]:
        snap = self.runner.current
        if isinstance(snap, SamplingMHSnapshot):
            rows = []
            for k in range(snap.state.shape[0]):
                for x, y in zip(self.paths[k].x, self.paths[k].y):
                    rows.append([k + 1, float(x), float(y)])
            return ["chain", "x1", "x2"], rows
        if isinstance(snap, SamplingRejectionSnapshot):
            edges = np.linspace(*run.X_RANGE, run.N_BINS + 1)
            return ["bin_left", "bin_right", "accepted"], [[float(a), float(b), int(c)] for a, b, c in
                                                            zip(edges[:-1], edges[1:], snap.counts)]
        if isinstance(snap, SamplingGibbsSnapshot):
            return ["sweep", "energy", "error"], [[int(x), float(e), float(r)] for x, e, r in
                                                  zip(self.energy_curve.x, self.energy_curve.y, self.err_sample.y)]
        return [], []
