"""The trees lab: AdaBoost with stumps round by round (weighted points, the current stump,
the boosted decision map, errors, exponential loss and bound), a decision tree growing split
by split (partition, split scanner, tree diagram, error against depth) and bagging / random
forests (vote map, out-of-bag error, left-out fraction, vote histogram, Condorcet)."""

from __future__ import annotations

import html
from typing import Callable, Iterator

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from ... import style as theme
from ...widgets import plot_style
from ...points_lab import PointsLab
from ...widgets.params import Param
from ...widgets.plots import outside_legend
from . import maths, run
from .boost_method import BoostMethod
from .forest_method import ForestMethod
from .tree_method import TreeMethod

PAGES = {"adaboost": 0, "tree": 1, "bagging": 2, "forest": 2}


def _for(*methods: str):
    return lambda values: values["method"] in methods


class TreesLab(BoostMethod, TreeMethod, ForestMethod, PointsLab):
    id = "trees"
    title = "Trees and boosting"
    order = 20
    description = ("AdaBoost with stumps round by round, a decision tree growing split by split, bagging and random "
                   "forests with out-of-bag error and votes.")
    chapter = "Trees and ensembles"
    summary = "AdaBoost's stumps round by round, a decision tree split by split, bagging and random forests."
    keywords = ("AdaBoost", "boosting", "stump", "decision stump", "weak learner", "exponential loss",
                "training error bound", "decision tree", "CART", "split", "impurity", "Gini", "entropy",
                "misclassification", "max depth", "pruning", "bagging", "bootstrap", "random forest", "out-of-bag",
                "OOB", "ensemble", "majority vote", "Condorcet", "margin", "overfitting")
    method_param = "method"
    PROJECTOR_SIDE_BY_SIDE = True  # the scatter keeps the projector's height, the curves beside it
    PROJECTOR_SIDE_SHARE = 0.56  # the curves' legends (Condorcet: three long keys) need a wider column
    DEFAULT_NOISE = {"blobs": 0.6, "moons": 0.25, "circles": 0.1, "xor": 0.25, "spirals": 0.05}
    screenshot_steps = 20
    self_test_steps = 5

    # ------------------------------------------------------------------ building
    def init_state(self) -> None:
        self._ctx: run.RunContext | None = None
        self._run_extent = (-3.0, 3.0, -3.0, 3.0)
        self._weights_key = None
        self._alpha_n = -1
        self._alpha_width = -1.0
        self._round_span = -1
        self._stump_style = None
        self._frame_key = None
        self.inspect_point: np.ndarray | None = None
        #: "You split": the student prices a split of the region about to be split
        self.you_split = False
        self.split_guess: dict | None = None
        self._guess_key = None
        self._scan_fixed = False
        self.sweep_result: dict | None = None

    def after_build(self) -> None:
        # long choice labels must not widen the parameter panel (projector fonts)
        for name in ("method", "criterion", "dataset"):
            w = self.form.widgets.get(name)
            if isinstance(w, QtWidgets.QComboBox):
                w.setSizeAdjustPolicy(QtWidgets.QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
                w.setMinimumContentsLength(8)
        self.regenerate(undoable=False, restart=False)

    def parameter_specs(self):
        return [
            Param("method", "Method", "choice", "adaboost", choices=run.METHODS,
                  tooltip="The learner (changing it restarts the run)"),
            Param("n_rounds", "Rounds M", "int", 200, minimum=1, maximum=5000, step=10,
                  tooltip="Boosting rounds: one stump per round", visible_when=_for("adaboost")),
            Param("max_depth", "Max depth", "int", 6, minimum=0, maximum=30,
                  tooltip="Depth limit of the tree (0: grow until every leaf is pure)", visible_when=_for("tree")),
            Param("n_estimators", "Trees B", "int", 60, minimum=1, maximum=500, step=10,
                  tooltip="Number of bootstrap trees", visible_when=_for("bagging", "forest")),
            Param("forest_depth", "Tree depth", "int", 0, minimum=0, maximum=30,
                  tooltip="Depth limit of every tree (0: grow until pure)", visible_when=_for("bagging", "forest")),
            Param("max_features", "Axes per split", "int", 1, minimum=1, maximum=2,
                  tooltip="Random forest: axes drawn at random for every split (of 2)", visible_when=_for("forest")),
            Param("criterion", "Criterion", "choice", "misclassification", choices=run.CRITERIA,
                  tooltip="Impurity Q of a region: misclassified fraction, Gini index or entropy"),
            Param("p_voter", "Condorcet p", "float", 0.7, minimum=0.5, maximum=0.99, step=0.01, decimals=2,
                  tooltip="Accuracy p of independent voters for the Condorcet curve",
                  visible_when=_for("bagging", "forest")),
            *self.data_params("circles", 300, 0.1, 0.5, balance_label="Fraction of +1"),
        ]

    def build_controls(self, layout: QtWidgets.QVBoxLayout) -> None:
        self.add_data_buttons(layout)
        self.sweep_button = QtWidgets.QPushButton("Error vs depth")
        self.sweep_button.setToolTip("Grow trees of depth 1..12 on the training points and plot their "
                                     "training and test errors (the overfitting picture)")
        self.sweep_button.clicked.connect(self.run_depth_sweep)
        layout.addWidget(self.sweep_button)
        self.add_reference_check(layout, "Check vs scikit-learn")
        self._controls_layout = layout

    def build_plots(self) -> QtWidgets.QWidget:
        left = self._build_canvas()
        self.pages = QtWidgets.QStackedWidget()  # one page per method (PAGES)
        for page in (self._build_boost_page(), self._build_tree_page(), self._build_forest_page()):
            self.pages.addWidget(page)
        self._fit_pages()
        split = QtWidgets.QSplitter(QtCore.Qt.Orientation.Vertical)
        split.addWidget(left)
        split.addWidget(self.pages)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        split.setSizes([440, 330])
        split.setCollapsible(0, False)
        self.central_split = split
        self._update_visibility()
        return split

    def _build_canvas(self) -> QtWidgets.QWidget:
        """The points over the decision map with what each method draws on them, and the Inspect
        and "You split" controls (above the sweep button); returns the plot with its toolbar."""
        self.make_canvas()
        plot_style.set_axis_labels(self.canvas, "x₁", "x₂")
        pi = self.canvas.plot_item
        self.make_decision_map()
        self.legend = outside_legend(pi, "top", columns=3)
        self._add_boost_items(pi)
        self._add_tree_items(pi)
        self.inspect_marker = pg.ScatterPlotItem()
        self.inspect_marker.setZValue(20)
        pi.addItem(self.inspect_marker)
        self._legend_method = None
        self.inspect_button = QtWidgets.QPushButton("Inspect")
        self.inspect_button.setCheckable(True)
        self.inspect_button.setToolTip("When on, clicking the plot does not add a point: it shows the trees' votes "
                                       "there (forests) or the point's path through the tree")
        self.inspect_button.toggled.connect(self._inspect_toggled)
        self.canvas.scene().sigMouseClicked.connect(self._canvas_clicked)
        self._build_you_split_row()
        left = self.canvas_with_toolbar()
        self._controls_layout.insertWidget(self._controls_layout.indexOf(self.sweep_button), self.inspect_button)
        self._controls_layout.insertWidget(self._controls_layout.indexOf(self.sweep_button), self.you_row)
        return left

    def _fit_pages(self) -> None:
        """Tab bars in projector fonts must not widen a page (the stack takes its widest page); short
        tick labels leave the curves room; the panels restyled with the theme."""
        pages = [self.pages.widget(i) for i in range(self.pages.count())]
        for w in (self.tree_tabs, self.forest_tabs, *pages, self.pages):
            w.setMinimumSize(120, 90)
        for tabs in (self.tree_tabs, self.forest_tabs):
            tabs.setUsesScrollButtons(True)
            tabs.tabBar().setExpanding(False)
        for p in (self.boost_panel, self.alpha_panel, self.scan_panel, self.depth_panel, self.oob_panel,
                  self.condorcet_panel, self.votes_panel, self.tree_diagram):
            p.LEFT_AXIS_EM = 2.6  # short tick labels (errors, α, counts): room for the curves
        self.scan_panel.LEFT_AXIS_EM = 3.4  # costs such as 0.015 need four digits
        self.panels = [self.boost_panel, self.alpha_panel, self.tree_diagram, self.scan_panel, self.depth_panel,
                       self.oob_panel, self.condorcet_panel, self.votes_panel]

    # ------------------------------------------------------------------ method choice
    @property
    def method(self) -> str:
        return self.form.value("method")

    def _update_visibility(self) -> None:
        m = self.method
        self.pages.setCurrentIndex(PAGES.get(m, 0))
        boosting = m == "adaboost"
        for item in self.canvas.scatter_items():
            item.setVisible(not boosting)
        self._update_legend(m)
        self._update_buttons(m)

    def _update_legend(self, m: str) -> None:
        if m == self._legend_method:
            return
        self._legend_method = m
        self.legend.clear()
        if m == "adaboost":
            self.legend.addItem(self.weighted_pos, "+1 (size ∝ √w)")
            self.legend.addItem(self.weighted_neg, "−1")
            pen = pg.mkPen(theme.OKABE_ITO["bluish_green"], width=theme.current().line_width * 1.3)
            pen.setStyle(QtCore.Qt.PenStyle.DashLine)
            self._stump_sample.setPen(pen)
            self.legend.addItem(self._stump_sample, "stump g_m")
            self.legend.addItem(self.decision.boundary, "F = 0")
        else:
            pos, neg = self.canvas.scatter_items()
            self.legend.addItem(pos, "+1")
            self.legend.addItem(neg, "−1")
            if m == "tree":
                self.legend.addItem(self.split_lines, "splits")
                self.legend.addItem(self.chosen_split, "new split")
            else:
                self.legend.addItem(self.decision.boundary, "vote boundary")
        plot_style.style_plot(self.canvas, theme.current())

    REFERENCE_TIP = ("Fit scikit-learn's model on the same training points (on a worker thread) and "
                     "compare the predictions on a dense grid")

    def reference_unsupported(self) -> str:
        if self.method in ("adaboost", "tree"):
            return ""
        return "The reference check covers the decision tree and AdaBoost (forests are random)"

    def _update_buttons(self, m: str) -> None:
        self.update_reference_button()
        self.sweep_button.setVisible(m == "tree")
        self.you_row.setVisible(m == "tree")

    # ------------------------------------------------------------------ data
    def data_changed(self) -> None:
        self.sweep_result = None
        self.depth_train.clear()
        self.depth_test.clear()
        self.inspect_point = None

    def on_param_changed(self, name: str) -> None:
        if name == "method":
            self._update_visibility()
            self.reference_label.setText("")
        if self.data_param_changed(name):
            return
        if name == "criterion":
            self.sweep_result = None
        self.reset()

    def after_params_restored(self) -> None:
        self._update_visibility()

    # ------------------------------------------------------------------ running
    def make_run(self, params: dict, seed: int) -> Callable[[], Iterator]:
        ctx = self.labelled_run(run.RunContext, params, seed)
        self._ctx = ctx
        self._run_extent = ctx.extent
        if ctx.method == "tree" and self.sweep_result is None and ctx.n_test and np.unique(ctx.y_train).size == 2:
            self.run_depth_sweep()
        return lambda: run.run_steps(ctx)

    def prepare(self, snapshot):
        return run.prepare_frame(snapshot, self.map_extent.extent)

    def show_idle(self) -> None:
        self.decision.set_frame(None)
        self._frame_key = None
        self._weights_key = None
        self._alpha_n = -1
        self._round_span = -1
        for item in (self.weighted_pos, self.weighted_neg, self.inspect_marker, self.scan_min, self.scan_guess):
            item.setData([], [])
        for item in (self.split_lines, self.region_box, self.chosen_split, self.guess_line):
            item.setData([], [])
        for t in self.scan_labels:
            t.setVisible(False)
        self.split_guess = None
        self._guess_key = None
        self.stump_line.setVisible(False)
        self.alpha_bars.setData([], [])
        self.tree_diagram.clear_tree()
        for p in (self.boost_panel, self.oob_panel):
            p.clear_series()
        for c in (self.scan_x, self.scan_y, self.cond_p, self.cond_hat, self.cond_forest):
            c.clear()
        self.votes_bars.setOpts(height=[0, 0])

    def render(self, snapshot, prepared, history) -> None:
        method = snapshot.ctx.method
        if method == "adaboost":
            self._render_boost(snapshot, prepared, history)
        elif method == "tree":
            self._render_tree(snapshot, prepared, history)
        else:
            self._render_forest(snapshot, prepared, history)

    def _set_frame(self, frame) -> None:
        if frame is not self._frame_key:
            self._frame_key = frame
            self.decision.set_frame(frame)

    # --- AdaBoost

    # --- forests

    # ------------------------------------------------------------------ inspecting a point
    def _inspect_toggled(self, on: bool) -> None:
        if on and self.you_button.isChecked():
            self.you_button.setChecked(False)
        self.canvas.editable = not (on or self.you_split)
        if not on:
            self.inspect_point = None
            self.inspect_marker.setData([], [])
            self.tree_diagram.set_path([])

    def _canvas_clicked(self, ev) -> None:
        you = self._you_split_active()
        if not (self.inspect_button.isChecked() or you):
            return
        vb = self.canvas.plot_item.getViewBox()
        if not vb.sceneBoundingRect().contains(ev.scenePos()):
            return
        p = vb.mapSceneToView(ev.scenePos())
        if you:
            self.guess_split(p.x() if self.you_axis.currentIndex() == 0 else p.y())
        else:
            self.inspect_at(p.x(), p.y())
        ev.accept()

    def inspect_at(self, x: float, y: float) -> None:
        """Show the trees' votes (forests) or the path through the tree at (x, y)."""
        self.inspect_point = np.array([x, y], float)
        if self.runner.current is not None:
            self._update_inspect(self.runner.current)
        if self.method in ("bagging", "forest"):
            self.forest_tabs.setCurrentWidget(self.votes_panel)

    def _update_inspect(self, snap) -> None:
        if self.inspect_point is None:
            self.inspect_marker.setData([], [])
            return
        s = theme.current()
        self.inspect_marker.setData([self.inspect_point[0]], [self.inspect_point[1]], symbol="+",
                                    size=s.marker_size * 2.4, pen=pg.mkPen(s.foreground, width=2.5 * s.scale),
                                    brush=pg.mkBrush(s.foreground))
        method = snap.ctx.method
        if method == "tree":
            self.tree_diagram.set_path(run.node_path(snap.engine.tree, self.inspect_point))
        elif method in ("bagging", "forest"):
            neg, pos = self.point_votes(snap, self.inspect_point)
            self.votes_bars.setOpts(height=[neg, pos])
            self.votes_panel.set_title(f"Votes −1 : +1 = {neg} : {pos}")

    # ------------------------------------------------------------------ maths
    def maths_html(self, snapshot) -> str:
        text = maths.maths_html(snapshot)
        if self._you_split_active() and snapshot.ctx.method == "tree":
            text += maths.guess_html(self._guess_for(snapshot))
        return text

    # ------------------------------------------------------------------ side tasks
    def run_depth_sweep(self) -> None:
        Xtr, ytr, Xte, yte = self.train_test()
        if np.unique(ytr).size < 2:
            self.show_error("The depth sweep needs training points of both classes.")
            return
        task = self.task("depth", on_done=self._sweep_done, on_error=self.show_error)
        task.start(run.depth_sweep, Xtr.copy(), ytr.copy(), Xte.copy(), yte.copy(), self.form.value("criterion"))
        self.depth_panel.set_title("Error vs depth (computing …)")

    def _sweep_done(self, result: dict) -> None:
        self.sweep_result = result
        self.depth_train.set(result["depth"], result["train"])
        self.depth_test.set(result["depth"], result["test"])
        title = "Error vs depth"
        if np.isfinite(result["test"]).any():
            best = int(result["depth"][np.nanargmin(result["test"])])
            title += f" (best test: depth {best})"
        self.depth_panel.set_title(title)

    def run_reference_check(self) -> None:
        method = self.method
        if not self.reference_available() or self.reference_unsupported():
            return
        Xtr, ytr, _, _ = self.train_test()
        self.start_reference_check(run.reference_check, method, self.params(), Xtr.copy(), ytr.copy(),
                                   self.view_extent())

    def reference_html(self, r: dict) -> str:
        return (
            f"<b>vs scikit-learn {html.escape(r['name'])}</b> on {r['n_points']} training points:<br>"
            f"equal predictions on a {r['grid']}×{r['grid']} grid: <b>{100 * r['agreement']:.2f}%</b>, "
            f"on the training points: {100 * r['train_agreement']:.1f}%")

    # ------------------------------------------------------------------ style, sessions, export
    def apply_style(self, s: theme.Style) -> None:
        self.style_canvas(s)
        for p in self.panels:
            p.apply_style(s)
        self._boost_y_range(s)
        self._weights_key = None
        self._alpha_n = -1
        self._alpha_width = -1.0
        self._round_span = -1
        self._stump_style = None
        self._frame_key = None

    def user_data(self) -> dict:
        return {**super().user_data(), "you_split": bool(self.you_split)}

    def set_user_data(self, data: dict) -> None:
        you = data.get("you_split", False)
        if not isinstance(you, bool):
            raise ValueError("the saved 'You split' switch is malformed")
        self.you_button.setChecked(you)
        self.restore_points(data)

    def export_rows(self):
        snap = self.runner.current
        X, y = self.canvas.X, self.canvas.y
        header = ["x1", "x2", "label", "test"]
        rows = [[x[0], x[1], int(l), int(t)] for x, l, t in zip(X, y, self.canvas.test_mask)]
        if snap is None or len(snap.ctx.y) != len(y):
            return header, rows
        method = snap.ctx.method
        if method == "adaboost":
            f = run.boosted_values(snap.stumps, X)
            header.append("F(x)")
        elif method == "tree":
            f = run.tree_predict_pm(snap.engine.tree, X)
            header.append("leaf vote")
        else:
            votes = np.array([self.point_votes(snap, x)[1] for x in X]) if snap.trees else np.zeros(len(X))
            f = votes
            header.append("trees voting +1")
        for row, v in zip(rows, f):
            row.append(float(v))
        return header, rows
