"""The classifiers lab: 2-D labelled points, a classifier trained step by step (perceptron,
logistic regression, soft-margin SVM by SMO with linear, polynomial or RBF kernel), the
decision regions, boundary, margins and support vectors drawn live, a cross-validation
tab and a reference check against scikit-learn."""

from __future__ import annotations

import html
from typing import Callable, Iterator

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from ... import style as theme
from ...widgets import plot_style
from ...points_lab import PointsLab
from ...widgets.markers import MaskedMarkers
from ...widgets.metrics import MetricPanel
from ...widgets.params import Param
from ...widgets.plots import outside_legend
from . import maths, reference, run
from .cv_view import CrossValidationTab

SVMS = ("svm_linear", "svm_poly", "svm_rbf")


def _for(*kinds: str):
    """``visible_when`` of a parameter row that applies to these classifiers only."""
    return lambda values: values["classifier"] in kinds


PAGES = {"perceptron": 0, "logistic": 1}


class ClassifiersLab(CrossValidationTab, PointsLab):
    id = "classifiers"
    title = "Linear and kernel classifiers"
    order = 10
    description = ("Perceptron, logistic regression and the soft-margin SVM (SMO, linear/polynomial/RBF kernels) "
                   "learning a decision boundary live; cross-validation of C and γ.")
    chapter = "Classification"
    summary = "A perceptron, logistic regression and SVMs learn a decision boundary, point by point."
    keywords = ("perceptron", "logistic regression", "Newton", "IRLS", "gradient descent", "learning rate", "epoch",
                "SVM", "support vector machine", "soft margin", "margin", "hinge loss", "SMO", "kernel",
                "kernel trick", "linear SVM", "polynomial kernel", "RBF", "Gaussian kernel", "C", "gamma", "γ",
                "degree", "cross-validation", "grid search", "decision boundary", "linearly separable", "moons",
                "circles", "xor", "spirals", "blobs", "overfitting")
    method_param = "classifier"
    PROJECTOR_SIDE_BY_SIDE = True  # the scatter keeps the projector's height, the curves beside it
    PROJECTOR_SIDE_SHARE = 0.72  # the SVM's legend holds eight entries in two columns
    DEFAULT_NOISE = {"blobs": 0.6, "moons": 0.15, "circles": 0.08, "xor": 0.25, "spirals": 0.05}

    # ------------------------------------------------------------------ building
    def init_state(self) -> None:
        # The points themselves live in the canvas (with their undo history); these are the
        # run's context and the last reference check.
        self._ctx: run.RunContext | None = None
        self._pair_look: tuple = (None, None, None)  # style, pen, brush of the SMO pair's rings
        self._run_extent = (-3.0, 3.0, -3.0, 3.0)

    def after_build(self) -> None:
        self.regenerate(undoable=False, restart=False)

    def parameter_specs(self):
        return [
            Param("classifier", "Classifier", "choice", "perceptron", choices=run.CLASSIFIERS,
                  tooltip="The learning algorithm (changing it restarts the run)"),
            Param("mode", "Update", "choice", "single",
                  choices=[("single", "single sample"), ("batch", "batch (all mistakes)")],
                  tooltip="single: update on each misclassified point in turn; batch: one step per epoch",
                  visible_when=_for("perceptron")),
            Param("learning_rate", "Learning rate α", "log", 1.0, minimum=0.001, maximum=10.0,
                  tooltip="Step size α of the update z ← z + α y x̃",
                  visible_when=_for("perceptron")),
            Param("max_epochs", "Max epochs", "int", 100, minimum=1, maximum=100000,
                  tooltip="Stop after this many passes over the data if it is not separable",
                  visible_when=_for("perceptron")),
            Param("solver", "Solver", "choice", "newton",
                  choices=[("newton", "Newton (IRLS)"), ("gd", "gradient descent")],
                  tooltip="Newton: w ← w − t H⁻¹∇L; gradient descent: w ← w − t ∇L (t by backtracking line search)",
                  visible_when=_for("logistic")),
            Param("max_iter", "Max iterations", "int", 200, minimum=1, maximum=100000,
                  tooltip="Stop after this many iterations if ‖∇L‖ is still above the tolerance",
                  visible_when=_for("logistic")),
            Param("C", "C", "log", 1.0, minimum=0.001, maximum=1000.0,
                  tooltip="Regularisation: small C = wide margin / strong penalty ‖v‖²/(2C), large C = fit the "
                          "training data",
                  visible_when=_for("logistic", *SVMS)),
            Param("gamma", "Kernel width γ", "log", 1.0, minimum=0.01, maximum=100.0,
                  tooltip="RBF kernel k(x, y) = exp(−γ‖x − y‖²): large γ = wiggly boundary",
                  visible_when=_for("svm_rbf")),
            Param("degree", "Degree", "int", 3, minimum=1, maximum=10,
                  tooltip="Polynomial kernel k(x, y) = (⟨x, y⟩ + 1)^degree",
                  visible_when=_for("svm_poly")),
            Param("smo_every", "SMO updates per step", "int", 1, minimum=1, maximum=1000,
                  tooltip="Pair updates between two recorded steps (1: every update is a step)",
                  visible_when=_for(*SVMS)),
            *self.data_params("blobs", 120, 0.6, 0.0),
        ]

    def build_controls(self, layout: QtWidgets.QVBoxLayout) -> None:
        self.add_data_buttons(layout)
        self.add_reference_check(layout, "Check against scikit-learn")
        self._toolbar_holder = layout

    def build_plots(self) -> QtWidgets.QWidget:
        self.tabs = QtWidgets.QTabWidget()
        self.tabs.addTab(self._build_training_tab(), "Training")
        self.tabs.addTab(self._build_cv_tab(), "Cross-validation")
        self._update_visibility()
        return self.tabs

    def _build_training_tab(self) -> QtWidgets.QWidget:
        """The points over the decision map above the curves of the chosen classifier's family."""
        self._build_canvas()
        self._build_curve_pages()
        split = QtWidgets.QSplitter(QtCore.Qt.Orientation.Vertical)
        split.addWidget(self.canvas_with_toolbar())
        split.addWidget(self.curve_pages)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        split.setSizes([560, 220])
        return split

    def _build_canvas(self) -> None:
        """The points, the decision map under them and the markers of the current point, the
        mistakes, the support vectors and the normal vector."""
        self.make_canvas()
        plot_style.set_axis_labels(self.canvas, "x₁", "x₂")
        self.legend = outside_legend(self.canvas.plot_item, "top", columns=3)
        self.make_decision_map()
        pi = self.canvas.plot_item
        self.current_marker = pg.ScatterPlotItem()
        self.current_marker.setZValue(20)
        self.mistake_marker = MaskedMarkers()
        self.mistake_marker.setZValue(15)
        self.sv_free_marker = MaskedMarkers()
        self.sv_free_marker.setZValue(12)
        self.sv_bound_marker = MaskedMarkers()
        self.sv_bound_marker.setZValue(12)
        self.normal_arrow = pg.PlotCurveItem()
        self.normal_arrow.setZValue(6)
        for item in (self.current_marker, self.mistake_marker, self.sv_free_marker, self.sv_bound_marker,
                     self.normal_arrow):
            pi.addItem(item)
        self._legend_kind = None

    def _build_curve_pages(self) -> None:
        """The curves, one page per family of classifiers (perceptron, logistic regression, SVM)."""
        self.mistakes_panel = MetricPanel("Mistakes", "step", "|M|")
        self.cost_panel = MetricPanel("Perceptron cost", "step", "C_P(z)")
        self.loss_panel = MetricPanel("Loss L(w)", "step", "L(w)")
        self.grad_panel = MetricPanel("Gradient norm", "step", "‖∇L(w)‖", log_y=True)
        self.lr_error_panel = MetricPanel("Error", "step", "error (%)")
        self.dual_panel = MetricPanel("Dual objective", "step", "W(α)")
        self.kkt_panel = MetricPanel("KKT gap", "step", "m(α) − M(α)", log_y=True)
        self.error_panel = MetricPanel("Error", "step", "error (%)")
        self.panels = [self.mistakes_panel, self.cost_panel, self.loss_panel, self.grad_panel, self.lr_error_panel,
                       self.dual_panel, self.kkt_panel, self.error_panel]
        self.curve_pages = QtWidgets.QStackedWidget()
        for group in ((self.mistakes_panel, self.cost_panel), (self.loss_panel, self.grad_panel, self.lr_error_panel),
                      (self.dual_panel, self.kkt_panel, self.error_panel)):
            page = QtWidgets.QSplitter(QtCore.Qt.Orientation.Horizontal)
            for p in group:
                page.addWidget(p)
            self.curve_pages.addWidget(page)

    # ------------------------------------------------------------------ classifier choice
    @property
    def kind(self) -> str:
        return self.form.value("classifier")

    def _update_visibility(self) -> None:
        kind = self.kind
        self.curve_pages.setCurrentIndex(PAGES.get(kind, 2))
        self.decision.margins = kind != "perceptron"
        self._update_legend(kind)
        if self.cv_view.kind != kind:
            self.cv_view.set_kind(kind)
        self.update_reference_button()

    def _update_legend(self, kind: str) -> None:
        family = "perceptron" if kind == "perceptron" else ("logistic" if kind == "logistic" else "svm")
        if family == self._legend_kind:
            return
        self._legend_kind = family
        self.legend.clear()
        pos_item, neg_item = self.canvas.scatter_items()
        if family == "svm":
            # three columns, filled row by row: the classes, the curves f(x) = 0, ±1 and the
            # support vectors each share a column, so the eight keys fit in three rows
            for item, name in ((pos_item, "class +1"), (self.decision.boundary, "boundary f(x) = 0"),
                               (self.sv_free_marker, "support vector, α &lt; C"), (neg_item, "class −1"),
                               (self.decision.margin_curves[1.0], "margins f(x) = ±1"),
                               (self.sv_bound_marker, "support vector, α = C"),
                               (self.current_marker, "SMO pair (i, j)"), (self.mistake_marker, "misclassified")):
                self.legend.addItem(item, name)
            plot_style.style_plot(self.canvas, theme.current())
            return
        self.legend.addItem(pos_item, "class +1")
        self.legend.addItem(neg_item, "class −1")
        self.legend.addItem(self.decision.boundary, "boundary f(x) = 0")
        if family == "logistic":
            self.legend.addItem(self.decision.margin_curves[1.0], "P(+1 | x) = ¼, ¾")
        self.legend.addItem(self.mistake_marker, "misclassified")
        if family == "perceptron":
            self.legend.addItem(self.current_marker, "point just used")
        plot_style.style_plot(self.canvas, theme.current())

    REFERENCE_TIP = ("Fit scikit-learn's model on the same training points and parameters (in a separate process) "
                     "and compare predictions on a dense grid, decision values and support-vector counts")

    def reference_available(self) -> bool:
        return reference.sklearn_available()

    def reference_unsupported(self) -> str:
        return "" if reference.supported(self.kind) else "The reference check covers logistic regression and the SVMs"

    # ------------------------------------------------------------------ data
    def data_changed(self) -> None:
        self.cv_view.mark_stale()

    def on_param_changed(self, name: str) -> None:
        if name == "classifier":
            self._update_visibility()
            self.reference_label.setText("")
        if not self.data_param_changed(name):
            self.reset()

    def after_params_restored(self) -> None:
        self._update_visibility()

    # ------------------------------------------------------------------ running
    def make_run(self, params: dict, seed: int) -> Callable[[], Iterator]:
        self._cancel_reference()
        ctx = self.labelled_run(run.RunContext, params, seed)
        self._ctx = ctx
        self._run_extent = ctx.extent
        every = int(params["smo_every"])
        return lambda: run.run_steps(ctx, every)

    @property
    def _run_X(self) -> np.ndarray:
        return self._ctx.X if self._ctx is not None else np.zeros((0, 2))

    @property
    def _run_y(self) -> np.ndarray:
        return self._ctx.y if self._ctx is not None else np.zeros(0)

    def prepare(self, snapshot):
        return run.prepare_frame(snapshot, self.map_extent.extent)

    def render(self, snapshot, prepared, history) -> None:
        ctx: run.RunContext = snapshot.ctx
        kind = ctx.kind
        s = theme.current()
        if prepared is not None or (kind == "perceptron" and not np.any(snapshot.engine.v)):
            self.decision.set_frame(prepared)
        self.mistake_marker.set_points((ctx, s), ctx.X, symbol="x", size=s.marker_size * 0.9,
                                       pen=pg.mkPen(s.foreground, width=1.5 * s.scale), brush=pg.mkBrush(s.foreground))
        self.mistake_marker.show_indices(snapshot.wrong, len(ctx.y))
        if kind == "perceptron":
            self._render_perceptron(snapshot, history, s)
        elif kind == "logistic":
            self._render_logistic(snapshot, history, s)
        else:
            self._render_svm(snapshot, history, s)

    def _append_curves(self, history, kind: str, n_test: int) -> None:
        """Curves grow by the snapshots that arrived since the last frame."""
        if history.rewound:
            for p in self.panels:
                p.clear_series()
        added = history.added
        if not added:
            return
        steps = np.fromiter((h.step for h in added), float, len(added))
        # a value undefined at a step (no test points: test error None) leaves a gap in its curve
        m = np.array([[np.nan if v is None else v for v in h.metrics] for h in added], dtype=float)
        m = m.reshape(len(added), -1)
        if kind == "perceptron":
            self.mistakes_panel.curve("mistakes").extend(steps, m[:, 0])
            self.cost_panel.curve("C_P").extend(steps, m[:, 1])
            return
        if kind == "logistic":
            panels = (self.loss_panel, "L(w)"), (self.grad_panel, "‖∇L‖"), self.lr_error_panel
        else:
            panels = (self.dual_panel, "W(α)"), (self.kkt_panel, "m − M"), self.error_panel
        (p0, n0), (p1, n1), errors = panels
        p0.curve(n0).extend(steps, m[:, 0])
        p1.curve(n1).extend(steps, m[:, 1])
        errors.curve("train").extend(steps, 100 * m[:, 2])
        if n_test:
            errors.curve("test").extend(steps, 100 * m[:, 3])

    def _render_perceptron(self, snapshot, history, s) -> None:
        ctx, eng = snapshot.ctx, snapshot.engine
        self.sv_free_marker.hide_all()
        self.sv_bound_marker.hide_all()
        if eng.index is not None and eng.index < len(ctx.train_idx):
            p = ctx.X_train[[eng.index]]
            self.current_marker.setData(pos=p, symbol="o", size=s.marker_size * 2.6,
                                        pen=pg.mkPen(theme.OKABE_ITO["bluish_green"], width=3 * s.scale),
                                        brush=pg.mkBrush(None))
        else:
            self.current_marker.setData([], [])
        self._draw_normal(snapshot)
        self._append_curves(history, "perceptron", ctx.n_test)

    def _render_logistic(self, snapshot, history, s) -> None:
        self.sv_free_marker.hide_all()
        self.sv_bound_marker.hide_all()
        self.current_marker.setData([], [])
        self.normal_arrow.setData([], [])
        self._append_curves(history, "logistic", snapshot.ctx.n_test)

    def _render_svm(self, snapshot, history, s) -> None:
        ctx, eng = snapshot.ctx, snapshot.engine
        self.normal_arrow.setData([], [])
        alpha = eng.alpha
        C = float(ctx.params["C"])
        ring = s.marker_size * 2.0
        key = (ctx, s)
        self.sv_free_marker.set_points(key, ctx.X_train, symbol="o", size=ring, brush=pg.mkBrush(None),
                                       pen=pg.mkPen(theme.OKABE_ITO["bluish_green"], width=2.2 * s.scale))
        self.sv_bound_marker.set_points(key, ctx.X_train, symbol="d", size=ring * 1.1, brush=pg.mkBrush(None),
                                        pen=pg.mkPen(theme.OKABE_ITO["reddish_purple"], width=1.6 * s.scale))
        self.sv_free_marker.show_mask((alpha > 0) & (alpha < C))
        self.sv_bound_marker.show_mask(alpha >= C)
        if eng.pair is not None:
            if self._pair_look[0] != s:  # one pen per style: pyqtgraph renders a symbol per pen object
                self._pair_look = (s, pg.mkPen(theme.OKABE_ITO["orange"], width=3.5 * s.scale), pg.mkBrush(None))
            self.current_marker.setData(pos=ctx.X_train[list(eng.pair)], symbol="o", size=s.marker_size * 3.0,
                                        pen=self._pair_look[1], brush=self._pair_look[2])
        else:
            self.current_marker.setData([], [])
        self._append_curves(history, ctx.kind, ctx.n_test)

    def support_indices(self) -> np.ndarray:
        """Training indices of the support vectors drawn now (free and at bound)."""
        snap = self.runner.current
        if snap is None or not run.is_svm(snap.ctx.kind):
            return np.zeros(0, dtype=int)
        return np.flatnonzero(snap.engine.alpha > 0)

    def _draw_normal(self, snapshot) -> None:
        """A short arrow along v from the boundary point closest to the data centre."""
        v, c = snapshot.engine.v, snapshot.engine.c
        norm = float(np.hypot(*v))
        if norm == 0 or not len(self._run_y):
            self.normal_arrow.setData([], [])
            return
        centre = self._run_X.mean(axis=0)
        foot = centre - (centre @ v - c) / norm**2 * v
        xmin, xmax, ymin, ymax = self._run_extent
        length = 0.12 * max(xmax - xmin, ymax - ymin)
        tip = foot + length * v / norm
        side = np.array([-v[1], v[0]]) / norm * length * 0.15
        back = tip - 0.25 * length * v / norm
        xs = [foot[0], tip[0], np.nan, back[0] + side[0], tip[0], back[0] - side[0]]
        ys = [foot[1], tip[1], np.nan, back[1] + side[1], tip[1], back[1] - side[1]]
        self.normal_arrow.setData(xs, ys, connect="finite",
                                  pen=pg.mkPen(theme.OKABE_ITO["bluish_green"], width=theme.current().line_width))

    def show_idle(self) -> None:
        self.decision.set_frame(None)
        for item in (self.current_marker, self.normal_arrow):
            item.setData([], [])
        for item in (self.mistake_marker, self.sv_free_marker, self.sv_bound_marker):
            item.forget()
        for p in self.panels:
            p.clear_series()

    # ------------------------------------------------------------------ maths
    def maths_html(self, snapshot) -> str:
        idx = self.runner.current_index
        previous = self.runner.timeline[idx - 1] if idx > 0 and self.runner.current is snapshot else None
        return maths.maths_html(snapshot, previous)

    # ------------------------------------------------------------------ reference check
    def run_reference_check(self) -> None:
        kind = self.kind
        if not (reference.sklearn_available() and reference.supported(kind)):
            return
        Xtr, ytr, _, _ = self.train_test()
        # in a child process: cancelling the task (new parameters or data, Reset, another
        # check, closing) terminates the fit instead of letting it compute on
        self.start_reference_check(reference.reference_check_in_process, kind, self.params(), Xtr.copy(), ytr.copy(),
                                   self.view_extent())

    def _cancel_reference(self) -> None:
        """A restart (parameters, data, seed, Reset) makes a running check stale: stop it."""
        task = self.task("reference")
        if task.busy:
            task.cancel()
            self.update_reference_button()
            self.reference_label.setText("Reference check stopped: the parameters or the data changed.")

    def reference_html(self, r: dict) -> str:
        text = (f"<b>vs scikit-learn {html.escape(r['name'])}</b> on {r['n_points']} training points:<br>"
                f"equal predictions on a {r['grid']}×{r['grid']} grid: <b>{100 * r['agreement']:.2f}%</b><br>"
                f"max |f<sub>ours</sub> − f<sub>sklearn</sub>| = {r['max_diff']:.2e} (|f| up to {r['scale']:.2g})")
        if r["n_support"][0] >= 0:
            text += f"<br>support vectors: ours {r['n_support'][0]}, sklearn {r['n_support'][1]}"
        return text

    def shutdown(self) -> None:
        self.cv_view.shutdown()
        super().shutdown()

    # ------------------------------------------------------------------ style, sessions, export
    def apply_style(self, s: theme.Style) -> None:
        self.style_canvas(s)
        for p in self.panels:
            p.apply_style(s)
        self.cv_view.apply_style(s)

    def export_rows(self):
        snap = self.runner.current
        X, y = self.canvas.X, self.canvas.y
        if snap is None or len(snap.ctx.y) != len(y):
            return ["x1", "x2", "label"], [[*x, int(l)] for x, l in zip(X, y)]
        f = self._decision_on(snap, X)
        rows = [[x[0], x[1], int(l), fx, 1 if fx > 0 else -1] for x, l, fx in zip(X, y, f)]
        header = ["x1", "x2", "label", "f(x)", "predicted"]
        if snap.ctx.n_test:
            header.append("test")
            for row, t in zip(rows, snap.ctx.test_mask):
                row.append(int(t))
        return header, rows

    @staticmethod
    def _decision_on(snap, X) -> np.ndarray:
        ctx = snap.ctx
        if ctx.kind == "perceptron":
            return X @ snap.engine.v - snap.engine.c
        if ctx.kind == "logistic":
            return X @ snap.engine.w[1:] + snap.engine.w[0]
        return ctx.model.snapshot_decision_function(snap.engine, X)
