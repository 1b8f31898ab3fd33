"""The mixtures lab: unlabelled points in the plane (a preset sampled from a stated mixture,
drawn by hand or loaded), EM for a Gaussian mixture step by step (points coloured by their
responsibilities, 1σ and 2σ ellipses, the density's contours, the true ellipses dashed,
E- and M-step apart on request, the log-likelihood curve), k-means from the same start and
EM with Σ = σ² I beside it, a collapsing component, seeded restarts, and BIC, AIC and
stability against K."""

from __future__ import annotations

from dataclasses import replace
from typing import Callable, Iterator

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from smlengine.datasets import make_gaussian_mixture
from smlengine.datasets._mixture import mixture_truth

from ... import style as theme
from ...points_data import read_plane_points
from ...points_lab import PointsLab
from ...widgets.params import Param
from ...widgets.shapes import PALETTE, blend_colours, ellipse_xy
from . import maths, run
from .em_tab import MAX_K, EMTab
from .mouse import MODES, MouseModes, TruthHandles
from .tabs import TAB_EM, TAB_KMEANS, KMeansLimitTab, ModelOrderTab, RestartsTab, SideResults

DISPLAY_PARAMS = ("show_density", "show_truth")
DATA_PARAMS = ("data", "n_points")
DENSITY_GREY = "#8C8C8C"
POINT_SIZE = 0.75  # of the style's marker size: ellipses stay visible among hundreds of points


def _truth_from(data):
    """A saved true mixture (weights, means, covariances of 2-D components), validated; None stays None."""
    if data is None:
        return None
    if not isinstance(data, dict):
        raise ValueError("the saved true mixture is malformed")
    try:
        t = mixture_truth(data.get("means"), data.get("covariances"), data.get("weights"),
                          str(data.get("title", ""))[:100])
    except (TypeError, ValueError) as exc:
        raise ValueError(f"the saved true mixture is malformed: {str(exc)[:100]}") from None
    too_big = np.abs(t.means).max() > 1e6 or np.abs(t.covariances).max() > 1e12
    if t.means.shape[1] != 2 or len(t.means) > MAX_K or too_big:
        raise ValueError("the saved true mixture is malformed")
    return t


class MixturesLab(EMTab, MouseModes, TruthHandles, KMeansLimitTab, RestartsTab, ModelOrderTab, SideResults,
                  PointsLab):
    id = "mixtures"
    title = "Gaussian mixtures"
    order = 55
    description = ("EM for Gaussian mixtures in the plane: responsibilities and ellipses step by step, k-means from "
                   "the same start, a collapsing component, restarts, and BIC/AIC/stability for K.")
    chapter = "Clustering and mixtures"
    summary = "EM fits Gaussian mixtures in the plane: responsibilities, ellipses, and how many clusters."
    keywords = ("EM", "expectation maximisation", "expectation maximization", "E-step", "M-step", "GMM",
                "Gaussian mixture", "mixture model", "responsibilities", "log-likelihood", "covariance", "full",
                "diagonal", "spherical", "tied", "k-means", "k-means++", "soft clustering", "collapse", "singularity",
                "reg_covar", "restarts", "local optimum", "BIC", "AIC", "model selection", "number of clusters", "K",
                "clustering", "density")
    points_kind = "unlabelled"
    MAX_POINTS = run.MAX_POINTS
    VIEW_MARGIN = 0.08
    points_reader = staticmethod(read_plane_points)
    screenshot_steps = 12
    self_test_steps = 5

    # ------------------------------------------------------------------ building
    def init_state(self) -> None:
        self.truth = None              # MixtureTruth of the sampled preset, None for own points
        self.source = ""               # what the points are, for the data label
        self._sampled = ""             # the preset the points were sampled from ("" for loaded points)
        self._edited_truth = False     # the user moved or stretched the preset's components
        self.clicked: list[tuple[float, float]] = []  # clicked initial means
        self.collapse = False          # the collapse demonstration's start
        self.selected = -1             # point shown in the maths panel (-1: none)
        self.mode = "edit"
        self._ctx: run.RunContext | None = None
        self._drawn_key = None
        self._start_means: np.ndarray | None = None
        self._ellipse_style = None
        self._brush_cache: dict = {}
        self._km_key = None
        self._handles: list[tuple] = []  # (centre, major, minor) TargetItems of the true components
        self.restarts_result = None
        self.order_result = None
        self.sigma_result = None

    def parameter_specs(self):
        return [
            Param("data", "Data", "choice", "anisotropic", choices=run.DATA_CHOICES,
                  tooltip="Points sampled from a stated mixture (its ellipses dashed), or your own points"),
            Param("n_points", "Points", "int", 400, minimum=20, maximum=run.MAX_POINTS, step=50,
                  tooltip="How many points to sample from the preset"),
            Param("K", "Components K", "int", 3, minimum=1, maximum=MAX_K),
            Param("covariance_type", "Covariance", "choice", "full", choices=run.COVARIANCE_CHOICES,
                  tooltip="full: any ellipse; diagonal: axis-aligned; spherical: circles; tied: one shared ellipse"),
            Param("init", "Start", "choice", "k-means++", choices=run.INIT_CHOICES,
                  tooltip="Initial means: random data points, k-means++ (D² seeding), a k-means fit, or clicked"),
            Param("floor", "Covariance floor", "bool", True,
                  tooltip="Add reg_covar·I to every Σₖ. Off: a component on a lone point collapses and ℓ → ∞"),
            Param("reg_covar", "reg_covar", "log", 1e-6, minimum=1e-9, maximum=1.0,
                  tooltip="The floor added to the diagonal of every covariance", visible_when=lambda v: v["floor"]),
            Param("tol", "Tolerance Δℓ/n", "log", 1e-5, minimum=1e-10, maximum=0.1,
                  tooltip="Stop when the mean log-likelihood per point changes by less than this"),
            Param("max_iter", "Max iterations", "int", 300, minimum=1, maximum=10000),
            Param("half_steps", "E and M apart", "bool", False,
                  tooltip="Show the E-step (colours change, ellipses still) and the M-step (ellipses move) "
                          "as separate steps, with the lower bound F(a, θ)"),
            Param("show_density", "Density contours", "bool", True,
                  tooltip="Contours of π(x) enclosing 25, 50, 75 and 95 % of the probability"),
            Param("show_truth", "True ellipses", "bool", True, tooltip="The sampled mixture's 1σ and 2σ ellipses"),
        ]

    def build_controls(self, layout: QtWidgets.QVBoxLayout) -> None:
        self.new_button = QtWidgets.QPushButton("New sample")
        self.new_button.setToolTip("Sample the preset again with the current seed")
        self.new_button.clicked.connect(self.new_sample)
        self.load_button = QtWidgets.QPushButton("Load points…")
        self.load_button.setToolTip("Read points from a CSV file: two columns x1,x2 (further columns are ignored)")
        self.load_button.clicked.connect(self._load_points_dialog)
        row = QtWidgets.QHBoxLayout()
        row.addWidget(self.new_button)
        row.addWidget(self.load_button)
        layout.addLayout(row)
        self.data_label = QtWidgets.QLabel()
        self.data_label.setWordWrap(True)
        layout.addWidget(self.data_label)
        self.mode_box = QtWidgets.QComboBox()
        for value, label in MODES:
            self.mode_box.addItem(label, value)
        self.mode_box.setToolTip("What a click on the plot does")
        self.mode_box.currentIndexChanged.connect(lambda _i: self.set_mode(self.mode_box.currentData()))
        mode_row = QtWidgets.QHBoxLayout()
        mode_row.addWidget(QtWidgets.QLabel("Mouse"))
        mode_row.addWidget(self.mode_box, 1)
        layout.addLayout(mode_row)
        self.clicked_label = QtWidgets.QLabel()
        self.clicked_label.setWordWrap(True)
        layout.addWidget(self.clicked_label)
        self.clear_means_button = QtWidgets.QPushButton("Clear clicked means")
        self.clear_means_button.clicked.connect(self.clear_clicked)
        layout.addWidget(self.clear_means_button)
        self.collapse_button = QtWidgets.QPushButton("Collapse a component")
        self.collapse_button.setToolTip("Start with one mean on the loneliest point, a tiny covariance and no floor: "
                                        "the likelihood runs off to infinity")
        self.collapse_button.clicked.connect(self.start_collapse)
        layout.addWidget(self.collapse_button)
        self.note_label = QtWidgets.QLabel()
        self.note_label.setWordWrap(True)
        layout.addWidget(self.note_label)
        self._toolbar_slot = QtWidgets.QVBoxLayout()
        layout.addLayout(self._toolbar_slot)
        self._update_clicked_label()

    def build_plots(self) -> QtWidgets.QWidget:
        self.tabs = QtWidgets.QTabWidget()
        self.tabs.addTab(self._build_em_tab(), "EM")
        self.tabs.addTab(self._build_kmeans_tab(), "k-means limit")
        self.tabs.addTab(self._build_restarts_tab(), "Restarts")
        self.tabs.addTab(self._build_order_tab(), "How many clusters")
        self.tabs.currentChanged.connect(self._tab_changed)
        return self.tabs

    def after_build(self) -> None:
        self.regenerate(undoable=False, restart=False)

    # ------------------------------------------------------------------ data
    def regenerate(self, undoable: bool = True, restart: bool = True) -> None:
        """Sample the chosen preset (own points stay as they are)."""
        p = self.params()
        name = p["data"]
        if name == run.OWN:
            self.truth = None
            if restart:
                self.reset()
            return
        edited = self._edited_truth and self._sampled == name and self.truth is not None
        try:
            if edited:
                t = self.truth
                X, _ = make_gaussian_mixture(p["n_points"], t.means, t.covariances, t.weights, self.seed)
            else:
                X = run.sample_preset(name, p["n_points"], self.seed)
        except (ValueError, TypeError) as exc:
            self.show_error(str(exc))
            return
        if not edited:
            self.truth = run.preset_truth(name)
            self._edited_truth = False
        self._sampled = name
        self.source = (f"{len(X)} points sampled from the mixture '{name}'{' as you edited it' if edited else ''} "
                       f"(seed {self.seed})")
        if self.mode == "truth" and not self._handles:
            self._show_handles()
        self._set_points(X, undoable=undoable)
        self._side_results_stale()
        if restart:
            self.reset()

    def new_sample(self) -> None:
        """Sample again; edited or drawn points give way to a new sample of the preset they came from."""
        if self.form.value("data") == run.OWN and self._sampled:
            self.form.set_values({"data": self._sampled})
        self.collapse = False
        self.regenerate()

    def _set_points(self, X, undoable: bool = True) -> None:
        self.set_canvas_points(X, undoable=undoable)
        self.selected = -1
        self._update_data_label()

    def _update_data_label(self) -> None:
        self.data_label.setText(self.source or f"{len(self.canvas.X)} points")

    def points_edited(self) -> None:
        n = len(self.canvas.X)
        if self.form.value("data") != run.OWN:
            self.form.set_values({"data": run.OWN})
        origin = f"the sample of '{self._sampled}'" if self._sampled else "points"
        self.source = f"{n} points: {origin} edited by hand"
        self.selected = -1
        self.collapse = False
        self._update_data_label()
        self._side_results_stale()
        self.reset()

    def points_loaded(self, X, name: str) -> None:
        self.truth = None
        self._sampled = ""
        self._edited_truth = False
        self._show_handles()
        self.form.set_values({"data": run.OWN})
        self.source = f"{len(X)} points loaded from {name}"
        self.collapse = False
        self._set_points(X)
        self._side_results_stale()

    # ------------------------------------------------------------------ parameters
    def on_param_changed(self, name: str) -> None:
        if name in DISPLAY_PARAMS:
            self._redraw()
            return
        if name in DATA_PARAMS:
            self.collapse = False
            if name == "data":
                self._edited_truth = False
            self.regenerate()
            self._show_handles()
            self._update_clicked_label()
            return
        if name in ("K", "init"):
            self.collapse = False
            self._update_clicked_label()
        if name != "floor" and name != "reg_covar":
            self.collapse = self.collapse and name in ("tol", "max_iter", "half_steps")
        self._side_results_stale()
        self.reset()

    def on_seed_changed(self, seed: int) -> None:
        self.collapse = False
        if self.form.value("data") == run.OWN:
            self.reset()
        else:
            self.regenerate()

    def after_params_restored(self) -> None:
        self._update_clicked_label()

    def start_collapse(self) -> None:
        """One mean on the loneliest point with a tiny covariance, no floor: watch ℓ → ∞."""
        self.collapse = True
        self.form.set_values({"floor": False})
        self.tabs.setCurrentIndex(TAB_EM)
        self.reset()
        self.play()

    def _redraw(self) -> None:
        if self.runner.current is not None:
            self.runner.request_rewind()
            self.runner.flush()

    # ------------------------------------------------------------------ running
    def view_extent(self) -> tuple[float, float, float, float]:
        xmin, xmax, ymin, ymax = self.canvas.data_bounds(margin=0.5)
        (vx0, vx1), (vy0, vy1) = self.canvas.plot_item.viewRange()
        return (min(xmin, vx0), max(xmax, vx1), min(ymin, vy0), max(ymax, vy1))

    def make_run(self, params: dict, seed: int) -> Callable[[], Iterator]:
        X = self.canvas.X.copy()
        X.setflags(write=False)
        lone = run.lone_point(X) if self.collapse and len(X) >= 2 else -1
        clicked = np.array(self.clicked, dtype=float) if self.clicked else None
        t = self.truth
        truth = None if t is None else replace(t, weights=t.weights.copy(), means=t.means.copy(),
                                                covariances=t.covariances.copy())
        ctx = run.RunContext(X=X, params=dict(params), seed=int(seed), truth=truth, clicked=clicked,
                             collapse=self.collapse, lone=lone, extent=self.view_extent())
        run.check_context(ctx)
        self._ctx = ctx
        note = ""
        if self.collapse and params["covariance_type"] == "tied":
            note = ("Collapse demo: one mean on the ringed lone point. With a tied covariance all components share "
                    "one Σ, so none can shrink onto a single point.")
        elif self.collapse:
            note = ("Collapse demo: one mean on the ringed lone point, a tiny covariance"
                    + (", no floor." if not params["floor"] else f", floor reg_covar = {params['reg_covar']:g}."))
        self.note_label.setText(note)
        return lambda: run.run_steps(ctx)

    def prepare(self, snapshot):
        return run.prepare_frame(snapshot)

    def show_idle(self) -> None:
        s = theme.current()
        X = self.canvas.X
        self._drawn_key = None
        self.points_item.setData(pos=X, size=POINT_SIZE * s.marker_size, brush=pg.mkBrush(150, 150, 150),
                                 pen=pg.mkPen(s.foreground, width=0.5 * s.scale))
        for one, two in self.ellipse_items:
            one.setData([], [])
            two.setData([], [])
        self.means_item.setData([], [])
        self.density_item.setData([], [])
        self.ll_panel.clear_series()
        self.ll_marker.setText("")
        self._draw_truth()
        self._draw_clicked()

    def render(self, frame, prepared, history) -> None:
        ctx, em = frame.ctx, frame.em
        s = theme.current()
        key = (id(ctx), s)
        if key != self._drawn_key:
            self._drawn_key = key
            self.points_item.setData(pos=ctx.X, size=POINT_SIZE * s.marker_size,
                                     pen=pg.mkPen(s.foreground, width=0.5 * s.scale))
            self._draw_truth()
            self._draw_rings()
        self.points_item.setBrush(self._brushes(blend_colours(em.responsibilities, PALETTE), 215))
        k = len(em.weights)
        for j, (one, two) in enumerate(self.ellipse_items):
            if j < k:
                x1, y1 = ellipse_xy(em.means[j], em.covariances[j], radii=(1.0,))
                x2, y2 = ellipse_xy(em.means[j], em.covariances[j], radii=(2.0,))
                one.setData(x1, y1)
                two.setData(x2, y2)
            else:
                one.setData([], [])
                two.setData([], [])
        self._style_ellipses(s)
        self.means_item.setData(pos=np.asarray(em.means), symbol="d", size=s.marker_size * 1.9,
                                brush=[pg.mkBrush(theme.CATEGORICAL[j % 8]) for j in range(k)],
                                pen=pg.mkPen(s.foreground, width=1.5 * s.scale))
        if prepared is not None and self.form.value("show_density"):
            xs, ys = [], []
            for level in sorted(prepared.contours):
                cx, cy = prepared.contours[level]
                xs += [cx, [np.nan]]
                ys += [cy, [np.nan]]
            self.density_item.setData(np.concatenate(xs) if xs else [], np.concatenate(ys) if ys else [])
        elif not self.form.value("show_density"):
            self.density_item.setData([], [])
        self._append_curves(history)
        self._render_kmeans(frame, s)
        if frame.step == 0 or self._start_means is None:
            self._start_means = np.array(em.means)
            if self.tabs.currentIndex() == TAB_KMEANS:
                self.update_sigma()
        self.note_label.setText(frame.note if frame.note else self.note_label.text())
        if self.selected >= 0:
            self._draw_pie()

    # ------------------------------------------------------------------ side results (restarts, K)

    # ------------------------------------------------------------------ maths, style, sessions, export
    def maths_html(self, snapshot) -> str:
        return maths.maths_html(snapshot, self.selected)

    def apply_style(self, s: theme.Style) -> None:
        self.style_canvas(s)
        density_pen = pg.mkPen(DENSITY_GREY, width=max(1.0, 0.8 * s.scale))
        self.density_item.setPen(density_pen)
        truth_pen = pg.mkPen(s.foreground, width=1.6 * s.scale, style=QtCore.Qt.PenStyle.DashDotLine)
        self.truth_item.setPen(truth_pen)
        self._style_ellipses(s)
        samples = self._legend_samples
        samples["1σ ellipse"].setPen(pg.mkPen(s.foreground, width=s.line_width * 1.1))
        samples["2σ ellipse"].setPen(pg.mkPen(s.foreground, width=max(1.0, s.line_width * 0.6),
                                              style=QtCore.Qt.PenStyle.DashLine))
        samples["truth"].setPen(truth_pen)
        samples["density"].setPen(density_pen)
        self.best_k_line.setPen(pg.mkPen(s.foreground, width=1.5 * s.scale, style=QtCore.Qt.PenStyle.DotLine))
        self.best_k_line.label.setColor(s.foreground)
        for panel in (self.ll_panel, self.km_plot, self.sigma_plot, self.strip_plot, self.best_plot, self.crit_plot,
                      self.stab_plot, self.thumbs):
            panel.apply_style(s)
        self._style_criteria(s)
        for name in ("left", "bottom"):
            self.thumbs.plot_item.hideAxis(name)
        self._draw_clicked()
        self._draw_rings()

    def user_data(self) -> dict:
        t = self.truth
        truth = None if t is None else {"weights": t.weights.tolist(), "means": t.means.tolist(),
                                        "covariances": t.covariances.tolist(), "title": t.title}
        return {**super().user_data(), "source": self.source, "sampled": self._sampled,
                "edited_truth": bool(self._edited_truth), "truth": truth,
                "clicked": [list(c) for c in self.clicked], "collapse": bool(self.collapse)}

    def set_user_data(self, data: dict) -> None:
        if "points" not in data:
            return
        X, _, _ = self.session_points(data)
        try:
            clicked = np.asarray(data.get("clicked", []), dtype=float).reshape(-1, 2)
        except (TypeError, ValueError):
            raise ValueError("the saved points are malformed") from None
        if not np.all(np.isfinite(clicked)):
            raise ValueError("the saved points are malformed")
        if len(clicked) > MAX_K:
            raise ValueError("the saved session has too many points")
        truth = _truth_from(data.get("truth"))
        source, sampled = data.get("source", ""), data.get("sampled", "")
        if not isinstance(source, str) or sampled not in ("", *run.PRESETS):
            raise ValueError("the saved data description is malformed")
        self.truth = truth
        self.source = source[:200]
        self._sampled = sampled
        self._edited_truth = bool(data.get("edited_truth", False)) and truth is not None
        self.clicked = [tuple(map(float, c)) for c in clicked]
        self.collapse = bool(data.get("collapse", False))
        self._set_points(X, undoable=False)
        self._update_clicked_label()
        self._draw_clicked()
        self._show_handles()

    def export_rows(self):
        snap = self.runner.current
        X = self.canvas.X
        if snap is None or len(snap.ctx.X) != len(X) or not np.array_equal(snap.ctx.X, X):
            return ["x1", "x2"], [[float(a), float(b)] for a, b in X]
        R = np.asarray(snap.em.responsibilities)
        k = R.shape[1]
        header = ["x1", "x2", "component"] + [f"a{j + 1}" for j in range(k)]
        labels = np.argmax(R, axis=1)
        return header, [[float(x[0]), float(x[1]), int(lab) + 1, *map(float, r)] for x, r, lab in zip(X, R, labels)]
