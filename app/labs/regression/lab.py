"""The regression lab: 1-D points fitted with basis functions by least squares, gradient
descent, ridge and lasso (coordinate by coordinate), the ridge and lasso paths against λ, the
ℓ1/ℓ2 constraint picture for two coefficients, and the bias–variance trade-off over 50
training sets drawn from the truth (a side task)."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from smlengine.datasets._regression import TRUTHS, make_regression_1d

from ... import style as theme
from ...widgets import plot_style
from ...points_data import read_xy_points, undrawable
from ...points_lab import PointsLab
from ...widgets.params import Param
from ...widgets.plots import PlotPanel
from . import maths, run
from .tabs import BLACK, BLUE, PURPLE, VERMILLION, BiasTab, ConstraintTab, FitTab, PathsTab, themed_pen

TAB_FIT, TAB_PATHS, TAB_CONSTRAINT, TAB_BIAS = range(4)
MAX_POINTS = 2000
DATA_PARAMS = ("truth", "n_points", "noise")


def _set_title(plot_item: pg.PlotItem, text: str, panel: PlotPanel | None = None) -> None:
    """Change a plot's title only (a full restyle each frame would lay out its axes again)."""
    if getattr(plot_item, "_sml_title", None) == text:
        return
    s = theme.current()
    plot_item._sml_title = text
    if panel is not None:
        panel._title = text
    plot_item.setTitle(text, color=s.foreground, size=f"{s.font_pt * 1.1:.0f}pt")


class RegressionLab(FitTab, PathsTab, ConstraintTab, BiasTab, PointsLab):
    id = "regression"
    title = "Regression: least squares, ridge, lasso"
    order = 25
    description = ("Fit curves with basis functions by least squares, gradient descent, ridge and lasso (coordinate "
                   "by coordinate); paths against λ, the ℓ1/ℓ2 constraint picture, and bias against variance.")
    chapter = "Regression"
    summary = "Curves fitted by least squares, ridge and lasso; penalty paths and bias against variance."
    keywords = ("least squares", "linear regression", "normal equations", "gradient descent", "ridge", "lasso",
                "coordinate descent", "regularisation", "regularization", "penalty", "lambda", "λ", "L1", "L2",
                "sparsity", "basis functions", "polynomial", "Legendre", "Gaussian bumps", "degree", "overfitting",
                "underfitting", "bias-variance", "bias", "variance", "cross-validation", "k-fold",
                "regularisation path", "constraint", "sine")
    points_kind = "xy"
    MAX_POINTS = MAX_POINTS
    SPLIT_MIN_POINTS = 4
    points_reader = staticmethod(read_xy_points)
    screenshot_steps = 30
    self_test_steps = 5
    screenshot_tab = TAB_BIAS
    method_param = "method"

    # ------------------------------------------------------------------ building
    def init_state(self) -> None:
        self.source = {"kind": "sample", "name": ""}  # where the points came from
        self.sweep = None  # the last bias–variance result (run.SweepResult)
        self._ctx_drawn = None
        self._sweep_key = None

    def parameter_specs(self):
        return [
            Param("truth", "Truth f(x)", "choice", "sine", choices=run.TRUTH_CHOICES,
                  tooltip="; ".join(f for _, f in TRUTHS.values())
                  + ". New samples and the bias–variance sets are drawn from it; 'none' while the points are "
                    "yours (opened or drawn): no f is drawn."),
            Param("n_points", "Points", "int", 20, minimum=2, maximum=MAX_POINTS,
                  tooltip="How many points to sample from the truth (x uniform on [0, 1])",
                  visible_when=lambda v: v["truth"] != run.OWN),
            Param("noise", "Noise σ", "float", 0.25, minimum=0.0, maximum=2.0, step=0.05,
                  tooltip="y = f(x) + σ ε, ε standard normal", visible_when=lambda v: v["truth"] != run.OWN),
            Param("test_fraction", "Test fraction", "float", 0.3, minimum=0.0, maximum=0.8, step=0.05,
                  tooltip="Share of the points held out (hollow) to measure the test error"),
            Param("basis", "Basis", "choice", "legendre", choices=run.BASES,
                  tooltip="Polynomials of degree p (Legendre or plain powers: the same curves) or p Gaussian bumps"),
            Param("size", "Degree / bumps", "int", 9, minimum=1, maximum=30,
                  tooltip="Polynomial degree p, or the number of Gaussian bumps"),
            Param("method", "Method", "choice", "lasso", choices=run.METHODS,
                  tooltip="Least squares (lstsq or gradient descent), ridge (‖y − Φw − b‖² + λ‖w‖²) or the lasso "
                          "((1/2n)‖y − Φw − b‖² + λ‖w‖₁): scikit-learn's objectives and scalings"),
            Param("log_alpha", "log₁₀ λ", "float", -2.5, minimum=-6.0, maximum=2.0, step=0.25, decimals=2,
                  tooltip="Strength of the penalty λ = 10^this (ridge and lasso)",
                  visible_when=lambda v: v["method"] in ("ridge", "lasso") or v["bv_axis"] == "alpha"),
            Param("bv_axis", "Complexity axis", "choice", "alpha",
                  choices=[("alpha", "λ (penalty)"), ("size", "degree / bumps")],
                  tooltip="What the bias–variance panel varies: λ (ridge when the method has no penalty) or the "
                          "basis size"),
            Param("folds", "CV folds", "int", 5, minimum=2, maximum=10,
                  tooltip="k of k-fold cross-validation on the training points (its choice is marked)"),
            Param("pair_i", "Coefficient A", "int", 1, minimum=1, maximum=30,
                  tooltip="First coefficient of the constraint picture"),
            Param("pair_j", "Coefficient B", "int", 2, minimum=1, maximum=30,
                  tooltip="Second coefficient of the constraint picture"),
            Param("budget", "Budget t / ‖ŵ‖₁", "float", 0.5, minimum=0.05, maximum=1.5, step=0.05,
                  tooltip="The budget t as a fraction of ‖ŵ_LS‖₁ of the two coefficients (t itself is in the "
                          "caption): the ℓ1 diamond and ℓ2 disc of radius t"),
        ]

    def build_controls(self, layout: QtWidgets.QVBoxLayout) -> None:
        self.sample_button = QtWidgets.QPushButton("New sample")
        self.sample_button.setToolTip("Draw new points from the truth (next seed)")
        self.sample_button.clicked.connect(self.new_sample)
        self.open_button = QtWidgets.QPushButton("Open CSV…")
        self.open_button.setToolTip("Load points from a CSV file with columns x and y")
        self.open_button.clicked.connect(self._load_points_dialog)
        row = QtWidgets.QWidget()
        lay = QtWidgets.QHBoxLayout(row)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.sample_button)
        lay.addWidget(self.open_button)
        lay.addStretch(1)
        layout.addWidget(row)
        self.data_label = QtWidgets.QLabel()
        self.data_label.setWordWrap(True)
        layout.addWidget(self.data_label)
        self._toolbar_slot = QtWidgets.QVBoxLayout()  # the canvas's buttons, once the canvas exists
        layout.addLayout(self._toolbar_slot)

    def build_plots(self) -> QtWidgets.QWidget:
        self.tabs = QtWidgets.QTabWidget()
        self.tabs.addTab(self._build_fit_tab(), "Fit")
        self.tabs.addTab(self._build_paths_tab(), "Paths")
        self.tabs.addTab(self._build_constraint_tab(), "Constraint")
        self.tabs.addTab(self._build_bias_tab(), "Bias–variance")
        self.tabs.setCurrentIndex(TAB_FIT)
        return self.tabs

    def after_build(self) -> None:
        self.regenerate(undoable=False, restart=False)
        self.apply_style(theme.current())

    # ------------------------------------------------------------------ data
    def regenerate(self, undoable: bool = True, restart: bool = True) -> None:
        """Replace the points by a new sample from the truth (seeded); without a truth the points stay."""
        p = self.params()
        if p["truth"] == run.OWN:
            if restart:
                self.reset()
            return
        try:
            x, y = make_regression_1d(p["truth"], p["n_points"], p["noise"], random_state=self.seed)
        except (ValueError, TypeError) as exc:
            self.show_error(str(exc))
            return
        self.source = {"kind": "sample", "name": ""}
        self._set_points(x[:, 0], y, undoable=undoable)
        if restart:
            self.reset()

    def new_sample(self) -> None:
        self.runbar.seed.setValue(min(self.seed + 1, 2**31 - 1))  # the seed handler draws the sample

    def has_truth(self) -> bool:
        """Whether the points come with a stated truth f (drawn, and the bias–variance sets' source)."""
        return self.form.value("truth") != run.OWN and self.source["kind"] != "file"

    def _set_points(self, x, y, undoable: bool = True) -> None:
        self.set_canvas_points(np.column_stack([x, y]), undoable=undoable)
        self._update_data_label()

    def fit_view(self) -> None:
        if not len(self.canvas.y):
            self.canvas.plot_item.setRange(xRange=(0, 1), yRange=(-1.5, 1.5), padding=0)
            return
        xs, ys = self.canvas.X[:, 0], self.canvas.X[:, 1]
        x0, x1 = min(float(xs.min()), 0.0 if self.source["kind"] == "sample" else float(xs.min())), float(xs.max())
        if self.source["kind"] == "sample":
            x1 = max(x1, 1.0)
        y0, y1 = float(ys.min()), float(ys.max())
        span_x, span_y = max(x1 - x0, 1e-6), max(y1 - y0, 1e-6)
        self.canvas.plot_item.setRange(xRange=(x0 - 0.04 * span_x, x1 + 0.04 * span_x),
                                       yRange=(y0 - 0.25 * span_y, y1 + 0.25 * span_y), padding=0)

    def _update_data_label(self) -> None:
        n = len(self.canvas.y)
        n_test = int(self.canvas.test_mask.sum()) if len(self.canvas.test_mask) == n else 0
        kind = self.source["kind"]
        if kind == "file":
            where = f"file {self.source['name']}"
        elif kind == "drawn":
            where = "drawn or edited by hand"
        else:
            t = self.form.value("truth")
            where = f"sampled from {TRUTHS[t][1]}, σ = {self.form.value('noise'):.3g}" if t in TRUTHS else "yours"
        split = f"{n - n_test} training, {n_test} test" if n_test else "all training: no test points"
        tail = "Bias–variance sets are drawn from the truth f." if self.has_truth() else "No truth f: none is drawn."
        self.data_label.setText(f"{n} points ({split}), {where}. {tail}")
        self.data_label.setToolTip(self.data_label.text())
        self.sample_button.setEnabled(self.form.value("truth") != run.OWN)

    def points_edited(self) -> None:
        if self.source["kind"] == "sample":
            self.source = {"kind": "drawn", "name": ""}
        self._update_data_label()

    def points_loaded(self, result, name: str) -> None:
        """Opened points: no truth, and a test split and basis size that suit how many they are."""
        x, y = result
        self.source = {"kind": "file", "name": name}
        n = len(x)
        self.form.set_values({"truth": run.OWN, "test_fraction": run.test_fraction_for(n, self.test_fraction())})
        self._set_points(x[:, 0], y)
        n_train = n - int(self.canvas.test_mask.sum())
        self.form.set_values({"size": run.basis_size_for(n_train, self.form.value("size"))})
        self.form.update_visibility()

    # ------------------------------------------------------------------ parameters
    def on_param_changed(self, name: str) -> None:
        if name == "truth" and self.form.value("truth") == run.OWN:
            if self.source["kind"] == "sample":
                self.source = {"kind": "drawn", "name": ""}  # the points stay, now as the user's
            self._update_data_label()
        elif name == "truth" or (name in DATA_PARAMS and self.source["kind"] == "sample"):
            self.regenerate()  # a stated truth: points sampled from it
            return
        if name == "test_fraction":
            self._apply_split()
            self._update_data_label()
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
            raise ValueError("There are no points: click to add some, press New sample or open a CSV file.")
        x, y, mask = X[:, 0].copy(), X[:, 1].copy(), self._mask().copy()
        x_tr, y_tr, _x_te, _y_te = run.split_points(x, y, mask)
        self._start_sweep(params, x_tr, y_tr)
        settings = dict(basis=params["basis"], size=params["size"], method=params["method"],
                        log_alpha=params["log_alpha"], truth=params["truth"] if self.has_truth() else None,
                        noise=params["noise"], pair=(params["pair_i"], params["pair_j"]), budget=params["budget"])
        return lambda: run.run_steps(x, y, mask, **settings)

    # ------------------------------------------------------------------ drawing
    def show_idle(self) -> None:
        self.loss_curve.clear()
        self.fit_item.setData([], [])
        self.residual_item.setData([], [])
        self.bars.setOpts(x=[], height=[])
        self.zero_marks.setData([], [])
        self._ctx_drawn = None

    def render(self, snapshot, prepared, history) -> None:
        ctx = snapshot.ctx
        if ctx is not self._ctx_drawn:
            self._draw_context(ctx)
        if history.rewound:
            self.loss_curve.clear()
        added = [h for h in history.added]
        if added:
            self.loss_curve.extend([h.step for h in added], [h.objective for h in added])
        s = theme.current()
        self.fit_item.setData(ctx.x_grid, snapshot.curve)
        x, y, pred = ctx.x_train, ctx.y_train, snapshot.train_pred
        self.residual_item.setData(np.repeat(x, 2), np.column_stack([y, pred]).ravel())
        test = "–" if snapshot.test_mse is None else f"{snapshot.test_mse:.3g}"
        _set_title(self.canvas.plot_item, f"train MSE {snapshot.train_mse:.3g} · test MSE {test}")
        p = len(snapshot.coef)
        k = np.arange(1, p + 1)
        brushes = [pg.mkBrush(VERMILLION if i == snapshot.coordinate else BLUE) for i in range(p)]
        self.bars.setOpts(x=k, height=snapshot.coef, width=0.7, brushes=brushes, pen=pg.mkPen(None))
        zeros = k[snapshot.coef == 0]
        self.zero_marks.setData(zeros, np.zeros(len(zeros)), symbol="x", size=s.marker_size * 1.2,
                                pen=pg.mkPen(s.foreground, width=1.5 * s.scale), brush=pg.mkBrush(s.foreground))

    def _draw_context(self, ctx) -> None:
        """The parts fixed for a run: truth, paths, constraint picture (drawn once per run)."""
        self._ctx_drawn = ctx
        s = theme.current()
        if ctx.truth_grid is not None:
            self.truth_item.setData(ctx.x_grid, ctx.truth_grid)
        else:
            self.truth_item.setData([], [])
        self._show_truth_key(ctx.truth_grid is not None)
        logs = np.log10(ctx.path_alphas)
        for name, coefs, errors in (("ridge", ctx.ridge_coefs, ctx.ridge_errors),
                                    ("lasso", ctx.lasso_coefs, ctx.lasso_errors)):
            panel = self.path_panels[name]
            for j in range(max(len(coefs), len(panel.series))):
                series = panel.curve(f"w{j + 1}", color=theme.CATEGORICAL[j % len(theme.CATEGORICAL)], dash=0)
                if j < len(coefs):
                    series.set(logs, coefs[j])
                else:
                    series.clear()
            err = self.error_panels[name]
            err.series["train"].set(logs, errors[0])
            err.series["test"].set(logs, errors[1])
        for line in self.lambda_lines:
            line.setValue(ctx.log_alpha)
            line.setPen(themed_pen(BLACK if s.theme == "light" else "#E8E8E8", 1.5, QtCore.Qt.PenStyle.DashLine))
        self._draw_constraint(ctx)

    def _draw_constraint(self, ctx) -> None:
        s = theme.current()
        c = ctx.constraint
        i, j = ctx.pair
        names = ctx.names
        label_a = names[i - 1] if i - 1 < len(names) else f"w{i}"
        label_b = names[j - 1] if j - 1 < len(names) else f"w{j}"
        plot_style.set_axis_labels(self.constraint_panel, f"w{i} ({label_a})", f"w{j} ({label_b})", s)
        self.constraint_panel._x_label, self.constraint_panel._y_label = f"w{i} ({label_a})", f"w{j} ({label_b})"
        if c is None:
            for item in (*self.contour_items, self.diamond_item, self.disc_item, self.touch_l1, self.touch_l2):
                item.setData([], [])
            for item in (self.ls_point, self.l1_point, self.l2_point):
                item.setData([], [])
            self.constraint_note.setText(f"No picture: {ctx.constraint_note}.")
            return
        A, w_ls, t = c["A"], c["w_ls"], c["t"]
        e1, e2 = c["e_l1"] - c["e_min"], c["e_l2"] - c["e_min"]
        base = max(e1, e2)
        for item, level in zip(self.contour_items, (0.15 * base, 0.45 * base, 2.0 * base, 3.5 * base)):
            if level > 0:
                item.setData(*run.ellipse(A, w_ls, level))
            else:
                item.setData([], [])
        self.touch_l1.setData(*run.ellipse(A, w_ls, max(e1, 1e-300)))
        self.touch_l2.setData(*run.ellipse(A, w_ls, max(e2, 1e-300)))
        self.diamond_item.setData([t, 0, -t, 0, t], [0, t, 0, -t, 0])
        theta = np.linspace(0, 2 * np.pi, 200)
        self.disc_item.setData(t * np.cos(theta), t * np.sin(theta))
        self.ls_point.setData([w_ls[0]], [w_ls[1]])
        self.l1_point.setData([c["w_l1"][0]], [c["w_l1"][1]])
        self.l2_point.setData([c["w_l2"][0]], [c["w_l2"][1]])
        self._style_constraint(s)
        zero = "a corner: a coefficient is exactly 0" if np.any(np.abs(c["w_l1"]) < 1e-12 * max(t, 1e-300)) \
            else "an edge: no zero at this budget"
        self.constraint_note.setText(
            f"Error of w_A, w_B alone around ŵ; budget t = {c['fraction']:.2f} · ‖ŵ‖₁ = {t:.3g}. The lowest contour "
            f"reaching the diamond "
            f"touches {zero}. The disc has no corners: ridge shrinks both.")

    def _draw_sweep(self) -> None:
        r = self.sweep
        s = theme.current()
        why = "" if r is None else undrawable(r.x_grid, "x")
        if why:  # the rest of the lab stays as it is; this tab says what it cannot show
            self.sweep_label.setText(f"The bias–variance picture cannot be drawn: {why}.")
        if r is None or why:
            self.sets_item.setData([], [])
            self.mean_item.setData([], [])
            self.bv_truth_item.setData([], [])
            for series in self.bv_panel.series.values():
                series.clear()
            self.chosen_line.setVisible(False)
            self.cv_line.setVisible(False)
            self.best_mark.setData([], [])
            return
        n_sets, g = r.curves.shape if r.curves.size else (0, len(r.x_grid))
        if n_sets:
            xs = np.tile(np.append(r.x_grid, np.nan), n_sets)
            ys = np.column_stack([r.curves, np.full(n_sets, np.nan)]).ravel()
            self.sets_item.setData(xs, ys)
        else:
            self.sets_item.setData([], [])
        self.mean_item.setData(r.x_grid, r.mean_curve)
        self.bv_truth_item.setData(r.x_grid, r.truth_grid)
        lo, hi = float(np.min(r.truth_grid)), float(np.max(r.truth_grid))
        span = max(hi - lo, 0.5)
        self.sets_panel.plot_item.setRange(xRange=(r.x_grid[0], r.x_grid[-1]),
                                           yRange=(lo - 0.6 * span, hi + 0.6 * span), padding=0)
        self.bv_panel.series["bias²"].set(r.values, r.bias2)
        self.bv_panel.series["variance"].set(r.values, r.variance)
        self.bv_panel.series["test error"].set(r.values, r.test_error)
        self.bv_panel.series["CV error"].set(r.values, r.cv)
        self.bv_panel._x_label = "log₁₀ λ" if r.axis == "alpha" else "degree / bumps"
        self.bv_panel._title = "Error vs λ" if r.axis == "alpha" else "Error vs size"
        self.bv_panel.apply_style(s)
        if np.isfinite(r.test_error[r.best]):
            self.best_mark.setData([r.values[r.best]], [np.log10(r.test_error[r.best])])
        self.chosen_line.setValue(r.values[r.chosen])
        self.chosen_line.setVisible(True)
        if r.cv_choice >= 0:
            self.cv_line.setValue(r.values[r.cv_choice])
            self.cv_line.setVisible(True)
        else:
            self.cv_line.setVisible(False)
        self._style_sweep(s)
        text = maths.sweep_html(r)
        if r.note:
            text += f" ({r.note})"
        self.sweep_label.setText(text)

    # ------------------------------------------------------------------ style
    def apply_style(self, s: theme.Style) -> None:
        fg = s.foreground
        # projector: the lower panels keep their least height, the fitted curve takes the rest
        for panel in (self.loss_panel, self.coef_panel):
            panel.setMinimumHeight(int(s.font_pt * 1.33 * 7))  # title, axis and a few ticks of data
        self.fit_split.setSizes([10_000, 1] if s.projector else [700, 300])
        self.fit_item.setPen(themed_pen(VERMILLION))
        self.truth_item.setPen(themed_pen(fg, 1.5, QtCore.Qt.PenStyle.DashLine))
        self.residual_item.setPen(themed_pen(PURPLE, 1.5))
        self.canvas.apply_style(s)
        self._style_constraint(s)
        self._style_sweep(s)
        for line in self.lambda_lines:
            line.setPen(themed_pen(fg, 1.5, QtCore.Qt.PenStyle.DashLine))

    # ------------------------------------------------------------------ maths, sessions, export
    def maths_html(self, snapshot) -> str:
        return maths.fit_html(snapshot)

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
        X, mask = self.canvas.X, self.canvas.test_mask
        snap = self.runner.current
        header = ["x", "y", "test"]
        rows = [[float(a), float(b), int(t)] for (a, b), t in zip(X, mask)]
        if snap is not None and len(snap.ctx.x_train) + len(snap.ctx.x_test) == len(X):
            basis_pred = snap.ctx.basis_fit.transform(X[:, :1]) @ snap.coef + snap.intercept
            header.insert(2, "fitted")
            for row, f in zip(rows, basis_pred):
                row.insert(2, float(f))
        return header, rows
