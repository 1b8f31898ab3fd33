"""The sampling lab's tabs, one class each, mixed into :class:`~.lab.SamplingLab`: one tab per
sampler (rejection, Metropolis–Hastings, Gibbs) and the Metropolis–Hastings diagnostics. Each
builds its tab; the lab draws the snapshots on them.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from ... import style as theme
from ...widgets.image_view import ImageView
from ...widgets.plots import PlotPanel
from .views import CompactPanel, EmptyNote, PathCurve, TargetPlot, stacked

MAX_CHAINS = 8
TRIO_LABELS = ("too small", "right", "too big")


class RejectionTab:
    """Rejection sampling under M q(x): the kept and rejected proposals, the kept draws'
    histogram, and the acceptance rate against 1/M."""

    def _build_rejection_tab(self) -> QtWidgets.QWidget:
        self.rej_panel = CompactPanel("Rejection sampling", "x", "density", legend=False)
        self.rej_panel.setToolTip("Proposals x ~ q drawn at height u ~ U(0, M q(x)): kept (green dots) under "
                                  "p, rejected (grey crosses) above; the histogram of the kept draws fills p")
        self.rej_target = self.rej_panel.curve("p", dash=0)
        self.rej_env = self.rej_panel.curve("M q", dash=1)
        self.hist_curve = self.rej_panel.curve("kept", dash=0, color=theme.OKABE_ITO["black"])
        # the curves are named where they are (a legend box would take the plot's room)
        self.p_label = pg.TextItem("p(x)", anchor=(0, 1))
        self.env_label = pg.TextItem("M q(x)", anchor=(0.5, 1))
        self.rej_acc = pg.ScatterPlotItem(pxMode=True)
        self.rej_rej = pg.ScatterPlotItem(pxMode=True)
        for item in (self.rej_acc, self.rej_rej, self.p_label, self.env_label):
            self.rej_panel.addItem(item)
        self.rate_panel = CompactPanel("Rate", "proposals", "kept / proposed", legend=False)
        self.rate_curve = self.rate_panel.curve("rate", dash=0)
        self.rate_ref = pg.InfiniteLine(pos=0, angle=0, label="1/M", labelOpts={"position": 0.5})
        self.rate_panel.addItem(self.rate_ref)
        split = QtWidgets.QSplitter(QtCore.Qt.Orientation.Horizontal)
        split.addWidget(self.rej_panel)
        split.addWidget(self.rate_panel)
        split.setStretchFactor(0, 2)
        split.setStretchFactor(1, 1)
        split.setSizes([680, 320])
        return split


class MHTab:
    """Metropolis–Hastings: the chains' paths on the target, the trace of x₁ and the marginals."""

    def _build_mh_tab(self) -> QtWidgets.QWidget:
        self.mh_panel = CompactPanel("Chains on the target", "x₁", "x₂", legend=False)
        self.mh_panel.setToolTip("Paths of the chains (their last steps); big dots: where they are now; "
                                 "chain 1's recent proposals: ○ accepted, ✕ rejected")
        self.mh_map = TargetPlot(self.mh_panel)
        self.paths = [PathCurve(self.mh_panel, theme.CATEGORICAL[c % len(theme.CATEGORICAL)])
                      for c in range(MAX_CHAINS)]
        self.heads = pg.ScatterPlotItem(pxMode=True)
        self.heads.setZValue(10)
        self.prop_acc = pg.ScatterPlotItem(pxMode=True, symbol="o")
        self.prop_rej = pg.ScatterPlotItem(pxMode=True, symbol="x")
        for item in (self.prop_acc, self.prop_rej, self.heads):
            item.setZValue(max(item.zValue(), 8))
            self.mh_panel.addItem(item)
        self.trace_panel = PlotPanel("Trace of x₁", "step", "x₁", legend=False)
        self.trace_panel.setToolTip("x₁ of every chain step by step; grey: burn-in (left out)")
        self.traces = [self.trace_panel.curve(f"chain {c + 1}", dash=0) for c in range(MAX_CHAINS)]
        self.burn_region = pg.LinearRegionItem(values=(0, 0), movable=False)
        self.burn_region.setZValue(-10)
        self.trace_panel.addItem(self.burn_region)
        self.marg_panel = CompactPanel("Marginals vs truth", "value", "density", legend_corner="top")
        self.marg_panel.setToolTip("Histograms of the draws after burn-in (solid) against the true marginal "
                                   "densities (dashed)")
        self.marg_note = EmptyNote(self.marg_panel, corner=True)  # how many draws the histograms show
        self.marg_x = self.marg_panel.curve("x₁", dash=0)
        self.marg_y = self.marg_panel.curve("x₂", dash=0)
        # the truths: the same colours, dashed, without a legend entry of their own
        self.marg_x_true = self.marg_panel.plot_item.plot([], [])
        self.marg_y_true = self.marg_panel.plot_item.plot([], [])
        right = QtWidgets.QSplitter(QtCore.Qt.Orientation.Vertical)
        right.addWidget(self.trace_panel)
        right.addWidget(self.marg_panel)
        split = QtWidgets.QSplitter(QtCore.Qt.Orientation.Horizontal)
        split.addWidget(self.mh_panel)
        split.addWidget(right)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        split.setSizes([560, 440])
        return split


class DiagnosticsTab:
    """The chains' diagnostics (autocorrelation, R̂, bulk ESS) and step sizes too small, right and
    too big side by side."""

    def _build_diag_tab(self) -> QtWidgets.QWidget:
        self.trio_panels, self.trio_maps, self.trio_paths, self.trio_heads, self.trio_rejected = [], [], [], [], []
        self.trio_labels = []
        top = QtWidgets.QSplitter(QtCore.Qt.Orientation.Horizontal)
        for label in TRIO_LABELS:
            panel = CompactPanel(f"s {label}", "x₁", "x₂", legend=False)
            self.trio_maps.append(TargetPlot(panel))
            self.trio_paths.append(PathCurve(panel, theme.CATEGORICAL[0]))
            head = pg.ScatterPlotItem(pxMode=True)
            head.setZValue(10)
            rejected = pg.ScatterPlotItem(pxMode=True, symbol="x")
            panel.addItem(rejected)
            panel.addItem(head)
            self.trio_panels.append(panel)
            self.trio_heads.append(head)
            self.trio_rejected.append(rejected)
            text = QtWidgets.QLabel()
            text.setAlignment(QtCore.Qt.AlignmentFlag.AlignCenter)
            text.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Fixed)
            self.trio_labels.append(text)
            box = QtWidgets.QWidget()
            lay = QtWidgets.QVBoxLayout(box)
            lay.setContentsMargins(0, 0, 0, 0)
            lay.setSpacing(0)
            lay.addWidget(panel, 1)
            lay.addWidget(text)
            top.addWidget(box)
        self.acf_panel = CompactPanel("ACF, chain 1", "lag", "ρ(x₁)", legend=False)
        self.acf_curve = self.acf_panel.curve("ρ", dash=0)
        self.acf_zero = pg.InfiniteLine(pos=0, angle=0)
        self.acf_panel.addItem(self.acf_zero)
        self.rhat_panel = CompactPanel("R̂", "step", "R̂", legend_corner="top")
        self.rhat_x = self.rhat_panel.curve("x₁", dash=0)
        self.rhat_y = self.rhat_panel.curve("x₂", dash=1)
        self.rhat_ref = pg.InfiniteLine(pos=1.01, angle=0)
        self.rhat_panel.addItem(self.rhat_ref)
        self.ess_panel = CompactPanel("Bulk ESS", "step", "ESS", legend_corner="top")
        self.ess_x = self.ess_panel.curve("x₁", dash=0)
        self.ess_y = self.ess_panel.curve("x₂", dash=1)
        # why R̂ and ESS are empty until they are not
        self.rhat_note, self.ess_note = EmptyNote(self.rhat_panel), EmptyNote(self.ess_panel)
        bottom = QtWidgets.QSplitter(QtCore.Qt.Orientation.Horizontal)
        for p in (self.acf_panel, self.rhat_panel, self.ess_panel):
            bottom.addWidget(p)
        return stacked(top, bottom, 4, 3)


class GibbsTab:
    """Gibbs sweeps of a Potts field: the sample, the marginal, the noisy picture, energy and error."""

    def _build_gibbs_tab(self) -> QtWidgets.QWidget:
        self.labels_view = ImageView("Label field z")
        self.labels_view.setToolTip("The current sample z of the label field (white: label 1)")
        self.marg_view = ImageView("Marginal after burn-in")
        self.marg_view.setToolTip("Σ_k μ_k × (share of the sweeps after burn-in with z_i = k); grey until "
                                  "burn-in ends")
        self.noisy_view = ImageView("Noisy x")
        self.energy_panel = PlotPanel("Energy", "sweep", "E(z)", legend=False)
        self.energy_panel.setToolTip("E(z) = −β Σ [z_i = z_j] + Σ (x_i − μ_z)² / (2σ²); grey: burn-in sweeps")
        self.energy_curve = self.energy_panel.curve("E", dash=0)
        self.gibbs_burn = pg.LinearRegionItem(values=(0, 0), movable=False)
        self.gibbs_burn.setZValue(-10)
        self.energy_panel.addItem(self.gibbs_burn)
        self.error_panel = CompactPanel("Error", "sweep", "% wrong", legend=False)
        self.error_panel.setToolTip("Pixels whose label differs from the clean picture: solid, the sample z; "
                                    "dashed, the marginal's most frequent label (after burn-in); dotted line, the "
                                    "noisy picture read by nearest level")
        self.err_sample = self.error_panel.curve("sample", dash=0)
        self.err_marg = self.error_panel.curve("marginal", dash=1)
        self.err_noisy = pg.InfiniteLine(pos=0, angle=0, label="noisy x", labelOpts={"position": 0.6})
        self.error_panel.addItem(self.err_noisy)
        top = QtWidgets.QSplitter(QtCore.Qt.Orientation.Horizontal)
        top.addWidget(self.labels_view)
        top.addWidget(self.marg_view)
        bottom = QtWidgets.QSplitter(QtCore.Qt.Orientation.Horizontal)
        for w in (self.noisy_view, self.energy_panel, self.error_panel):
            bottom.addWidget(w)
        return stacked(top, bottom, 3, 2)
