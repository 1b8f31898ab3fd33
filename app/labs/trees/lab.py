"""The trees lab: AdaBoost with stumps round by round (weighted points, the current stump,
the boosted decision map, errors, exponential loss and bound), a decision tree growing split
by split (partition, split scanner, tree diagram, error against depth) and bagging / random
forests (vote map, out-of-bag error, left-out fraction, vote histogram, Condorcet)."""

from __future__ import annotations

import html
import math
from typing import Callable, Iterator

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from ... import style as theme
from ...widgets import plot_style
from ...points_lab import PointsLab
from ...widgets.params import Param
from ...widgets.plots import PlotPanel, outside_legend
from . import maths, run
from .tree_method import AXES, TreeMethod
from .tree_view import TreeDiagram

PAGES = {"adaboost": 0, "tree": 1, "bagging": 2, "forest": 2}
#: point sizes while boosting: marker × sqrt(n w_i), clipped (uniform weights = normal size)
WEIGHT_SIZE_CLIP = (0.35, 4.0)
#: the α_m plot draws at most one bar per pixel column (but at least this many bars)
ALPHA_MIN_BARS = 200


def alpha_bar_segments(alpha: np.ndarray, max_bars: int) -> tuple[np.ndarray, np.ndarray]:
    """Vertical segments (m, 0)–(m, α_m) for a ``connect="pairs"`` curve.

    With more rounds than ``max_bars`` the rounds are binned and each bin is drawn as one bar
    at its centre with the largest α of the bin (what a pixel column would show anyway), so
    the drawing cost stays bounded however long boosting runs."""
    alpha = np.asarray(alpha, float)
    n = len(alpha)
    if n <= max_bars:
        m, h = np.arange(1.0, n + 1), alpha
    else:
        size = -(-n // max_bars)
        starts = np.arange(0, n, size)
        h = np.maximum.reduceat(alpha, starts)
        ends = np.minimum(starts + size, n)
        m = 0.5 * (starts + 1 + ends)
    xs = np.repeat(m, 2)
    ys = np.zeros(2 * len(h))
    ys[1::2] = h
    return xs, ys


def round_axis_span(rounds: int, most: int) -> int:
    """Right end of the round axis: the first of 10, 20, 50, 100, 200, ... ≥ ``rounds``, at
    most ``most`` (the axis changes a dozen times in a run, not at every frame)."""
    span = 10
    while span < rounds:
        span = span * 5 // 2 if str(span)[0] == "2" else span * 2
    return max(1, min(span, max(int(most), 1)))


def set_sizes(item: pg.ScatterPlotItem, sizes: np.ndarray) -> None:
    """Give the points of ``item`` these sizes, restyling only the points whose size changed.

    ``ScatterPlotItem.setSize`` looks every point up in the symbol atlas again (a Python loop,
    milliseconds for a few thousand points); with sizes in a few classes only the handful of
    points that changed class since the last frame need that."""
    data = item.data
    names = data.dtype.names or ()
    if len(data) != len(sizes) or "size" not in names or "sourceRect" not in names:
        item.setSize(sizes)
        return
    changed = np.flatnonzero(data["size"] != sizes)
    if changed.size:
        data["size"][changed] = sizes[changed]
        data["sourceRect"][changed] = 0  # these points look their symbol up again
        item.updateSpots()


def _gap(value) -> float:
    """A rate for a curve: undefined at a step (None) is a gap."""
    return np.nan if value is None else value


def _for(*methods: str):
    return lambda values: values["method"] in methods


class TreesLab(TreeMethod, PointsLab):
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
        self.make_canvas()
        plot_style.set_axis_labels(self.canvas, "x₁", "x₂")
        pi = self.canvas.plot_item
        self.make_decision_map()
        self.legend = outside_legend(pi, "top", columns=3)
        self.weighted_pos = pg.ScatterPlotItem()
        self.weighted_neg = pg.ScatterPlotItem()
        for item in (self.weighted_neg, self.weighted_pos):
            item.setZValue(11)
            pi.addItem(item)
        self.stump_line = pg.InfiniteLine(angle=90, movable=False)
        self.stump_line.setZValue(8)
        self.stump_line.setVisible(False)
        pi.addItem(self.stump_line, ignoreBounds=True)
        self._stump_sample = pg.PlotDataItem([], [])  # legend sample (an InfiniteLine cannot be one)
        self.split_lines = pg.PlotCurveItem(connect="finite")
        self.split_lines.setZValue(6)
        self.region_box = pg.PlotCurveItem()
        self.region_box.setZValue(7)
        self.chosen_split = pg.PlotCurveItem()
        self.chosen_split.setZValue(8)
        self.guess_line = pg.PlotCurveItem()  # "You split": the student's threshold
        self.guess_line.setZValue(9)
        self.inspect_marker = pg.ScatterPlotItem()
        self.inspect_marker.setZValue(20)
        for item in (self.split_lines, self.region_box, self.chosen_split, self.guess_line, self.inspect_marker):
            pi.addItem(item)
        self._legend_method = None

        self.inspect_button = QtWidgets.QPushButton("Inspect")
        self.inspect_button.setCheckable(True)
        self.inspect_button.setToolTip("When on, clicking the plot does not add a point: it shows the trees' votes "
                                       "there (forests) or the point's path through the tree")
        self.inspect_button.toggled.connect(self._inspect_toggled)
        self.canvas.scene().sigMouseClicked.connect(self._canvas_clicked)
        self.you_button = QtWidgets.QPushButton("You split")
        self.you_button.setCheckable(True)
        self.you_button.setToolTip("Before every split, click a threshold on the split scanner (or on the points, "
                                   "along the chosen axis): the lab prices your split Q(R, t) next to the best one. "
                                   "Step lets the algorithm make its own split.")
        self.you_button.toggled.connect(self._you_split_toggled)
        self.you_axis = QtWidgets.QComboBox()
        self.you_axis.addItems(list(AXES))
        self.you_axis.setToolTip("The axis of your split: x₁ ≤ t (a vertical line) or x₂ ≤ t (a horizontal one)")
        self.you_axis.currentIndexChanged.connect(lambda _i: self._redraw_you_split())
        self.you_row = QtWidgets.QWidget()
        yl = QtWidgets.QHBoxLayout(self.you_row)
        yl.setContentsMargins(0, 0, 0, 0)
        yl.addWidget(self.you_button, 1)
        yl.addWidget(self.you_axis)
        left = self.canvas_with_toolbar()
        self._controls_layout.insertWidget(self._controls_layout.indexOf(self.sweep_button), self.inspect_button)
        self._controls_layout.insertWidget(self._controls_layout.indexOf(self.sweep_button), self.you_row)

        # --- AdaBoost page
        self.boost_panel = PlotPanel("Errors and bound", "round m", "value", legend_corner="top")
        for name in ("train error", "test error", "exp. loss", "bound"):  # as the maths panel names them
            self.boost_panel.curve(name)
        self.boost_panel.plot_item.enableAutoRange(x=False, y=False)
        self._boost_y_range(theme.current())
        self.alpha_panel = PlotPanel("α_m", "round m", "α_m", legend=False)
        self.alpha_panel.plot_item.enableAutoRange(x=False)
        # one vertical segment per round (a curve with connect="pairs": cheap for thousands of rounds)
        self.alpha_bars = pg.PlotCurveItem(connect="pairs")
        self.alpha_panel.plot_item.addItem(self.alpha_bars)
        boost_page = QtWidgets.QSplitter(QtCore.Qt.Orientation.Horizontal)
        boost_page.addWidget(self.boost_panel)
        boost_page.addWidget(self.alpha_panel)
        boost_page.setSizes([580, 260])

        # --- tree page
        self.tree_diagram = TreeDiagram()
        self.scan_panel = PlotPanel("Split scanner", "threshold t", "Q(R, t)", legend_corner="top")
        self.scan_x = self.scan_panel.curve("x₁ ≤ t")
        self.scan_y = self.scan_panel.curve("x₂ ≤ t")
        self.scan_min = pg.ScatterPlotItem()
        self.scan_min.setZValue(10)
        self.scan_panel.plot_item.addItem(self.scan_min)
        # "You split": the student's threshold and its cost, labelled next to the optimum
        self.scan_guess = pg.ScatterPlotItem()
        self.scan_guess.setZValue(11)
        self.scan_panel.plot_item.addItem(self.scan_guess)
        self.scan_labels = (pg.TextItem("best", anchor=(0.5, -0.3)), pg.TextItem("yours", anchor=(0.5, 1.3)))
        for t in self.scan_labels:
            t.setZValue(12)
            t.setVisible(False)
            self.scan_panel.plot_item.addItem(t, ignoreBounds=True)
        self.scan_panel.scene().sigMouseClicked.connect(self._scan_clicked)
        self.depth_panel = PlotPanel("Error vs depth", "max depth", "error", legend_corner="top")
        self.depth_train = self.depth_panel.curve("training")
        self.depth_test = self.depth_panel.curve("test")
        self.depth_marker = pg.InfiniteLine(angle=90, movable=False)
        self.depth_panel.plot_item.addItem(self.depth_marker, ignoreBounds=True)
        self.tree_tabs = QtWidgets.QTabWidget()
        self.tree_tabs.addTab(self.scan_panel, "Split scanner")
        self.tree_tabs.addTab(self.depth_panel, "Error vs depth")
        tree_page = QtWidgets.QSplitter(QtCore.Qt.Orientation.Horizontal)
        tree_page.addWidget(self.tree_diagram)
        tree_page.addWidget(self.tree_tabs)
        tree_page.setSizes([450, 350])

        # --- forest page
        self.oob_panel = PlotPanel("Out of bag", "trees", "value", legend_corner="top")
        for name in ("OOB error", "test error", "left-out fraction"):
            self.oob_panel.curve(name)
        self.e_line = pg.InfiniteLine(pos=math.exp(-1), angle=0, movable=False, label="1/e",
                                      labelOpts={"position": 0.08})
        self.oob_panel.plot_item.addItem(self.e_line, ignoreBounds=True)
        self.oob_panel.plot_item.setYRange(0.0, 1.0, padding=0)  # the legend sits above the curves
        self.oob_panel.plot_item.enableAutoRange(y=False)
        self.condorcet_panel = PlotPanel("Condorcet", "voters m", "P(vote right)", legend_corner="top")
        self.cond_p = self.condorcet_panel.curve("independent, p")
        self.cond_hat = self.condorcet_panel.curve("independent, p̂ of a tree")
        self.cond_forest = self.condorcet_panel.curve("forest (test)")
        self.votes_panel = PlotPanel("Votes at the inspected point", "class", "trees", legend=False)
        self.votes_bars = pg.BarGraphItem(x=[-1, 1], height=[0, 0], width=1.2,
                                          brushes=[pg.mkBrush(theme.NEG_COLOR), pg.mkBrush(theme.POS_COLOR)])
        self.votes_panel.plot_item.addItem(self.votes_bars)
        self.votes_panel.plot_item.getAxis("bottom").setTicks([[(-1, "−1"), (1, "+1")]])
        self.votes_panel.plot_item.setXRange(-2.0, 2.0, padding=0)
        self.votes_panel.plot_item.enableAutoRange(x=False)
        self.forest_tabs = QtWidgets.QTabWidget()
        self.forest_tabs.addTab(self.condorcet_panel, "Condorcet")
        self.forest_tabs.addTab(self.votes_panel, "Votes")
        forest_page = QtWidgets.QSplitter(QtCore.Qt.Orientation.Horizontal)
        forest_page.addWidget(self.oob_panel)
        forest_page.addWidget(self.forest_tabs)
        forest_page.setSizes([400, 400])

        self.pages = QtWidgets.QStackedWidget()
        for page in (boost_page, tree_page, forest_page):
            self.pages.addWidget(page)
        # tab bars in projector fonts must not widen the page (the stack takes its widest page)
        for w in (self.tree_tabs, self.forest_tabs, boost_page, tree_page, forest_page, self.pages):
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
    def _render_boost(self, snap, prepared, history) -> None:
        ctx, e = snap.ctx, snap.engine
        s = theme.current()
        if prepared is not None or e.n_learners == 0:
            self._set_frame(prepared)
        # weighted training points: positions once per run and style, sizes every frame
        key = (id(ctx), s)
        pos = ctx.y_train > 0
        if key != self._weights_key:
            self._weights_key = key
            edge = pg.mkPen(s.foreground, width=max(1.0, s.scale))
            self.weighted_pos.setData(pos=ctx.X_train[pos], symbol="o", brush=pg.mkBrush(theme.POS_COLOR), pen=edge,
                                      size=s.marker_size)
            self.weighted_neg.setData(pos=ctx.X_train[~pos], symbol="s", brush=pg.mkBrush(theme.NEG_COLOR), pen=edge,
                                      size=s.marker_size * 0.9)
        sizes = self.weight_sizes(e.weights, s.marker_size)
        set_sizes(self.weighted_pos, sizes[pos])
        set_sizes(self.weighted_neg, sizes[~pos] * 0.9)
        # the current stump
        if e.axis is not None and e.axis >= 0:
            if self._stump_style is not s:
                self._stump_style = s
                pen = pg.mkPen(theme.OKABE_ITO["bluish_green"], width=s.line_width * 1.3)
                pen.setStyle(QtCore.Qt.PenStyle.DashLine)
                self.stump_line.setPen(pen)
            self.stump_line.setAngle(90 if e.axis == 0 else 0)
            self.stump_line.setPos(e.threshold)
            self.stump_line.setVisible(True)
        else:
            self.stump_line.setVisible(False)
        if history.rewound:
            self.boost_panel.clear_series()
        added = history.added
        if added:
            r = np.fromiter((h.engine.round for h in added), float, len(added))
            c = self.boost_panel.series
            names = list(c)
            c[names[0]].extend(r, [_gap(h.train_error) for h in added])
            if ctx.n_test:
                c[names[1]].extend(r, [_gap(h.test_error) for h in added])
            c[names[2]].extend(r, [h.engine.exp_loss_half for h in added])
            c[names[3]].extend(r, [h.engine.bound for h in added])
        # the round axis grows in steps 10, 20, 50, 100, ... up to M (set before painting: an
        # auto range changing while painting would make every frame paint these plots twice)
        span = round_axis_span(e.round, int(ctx.params["n_rounds"]))
        if history.rewound or span != self._round_span:
            self._round_span = span
            for panel in (self.boost_panel, self.alpha_panel):
                panel.plot_item.setXRange(0.0, span + 0.5, padding=0)
        n = len(snap.stumps)
        if n != self._alpha_n:
            self._alpha_n = n
            view_px = self.alpha_panel.plot_item.getViewBox().width()
            xs, ys = alpha_bar_segments(snap.stumps[:, 4], max(int(view_px * n / span), ALPHA_MIN_BARS))
            # bars as thick as the rounds allow (thin lines once there are hundreds)
            rounds_per_bar = n / max(len(xs) // 2, 1)
            width = max(1.0, min(6.0 * s.scale, 0.5 * view_px * rounds_per_bar / span))
            if width != self._alpha_width:
                self._alpha_width = width
                self.alpha_bars.setPen(pg.mkPen(theme.OKABE_ITO["bluish_green"], width=width))
            self.alpha_bars.setData(xs, ys)

    @staticmethod
    def weight_sizes(w: np.ndarray, base: float) -> np.ndarray:
        """Marker sizes ∝ √(n w_i), clipped to WEIGHT_SIZE_CLIP and rounded to one of a few
        size classes a factor √2 apart (a factor 2 in weight): from one frame to the next only
        the few points that change class are restyled."""
        f = np.sqrt(len(w) * np.asarray(w, float))
        lo, hi = (2.0 * math.log2(c) for c in WEIGHT_SIZE_CLIP)
        k = np.clip(np.round(2.0 * np.log2(np.maximum(f, 1e-300))), math.ceil(lo), math.floor(hi))
        return base * np.exp2(0.5 * k)

    # --- forests
    def _render_forest(self, snap, prepared, history) -> None:
        e = snap.engine
        s = theme.current()
        frame = prepared.frame if prepared is not None and hasattr(prepared, "frame") else prepared
        if prepared is not None or e.n_trees == 0:
            self._set_frame(frame)
        if history.rewound:
            self.oob_panel.clear_series()
            self.cond_forest.clear()
        added = [h for h in history.added if h.engine.n_trees > 0]
        if added:
            k = np.fromiter((h.engine.n_trees for h in added), float, len(added))
            c = self.oob_panel.series
            names = list(c)
            c[names[0]].extend(k, [np.nan if h.engine.oob_error is None else h.engine.oob_error for h in added])
            if snap.ctx.n_test:
                c[names[1]].extend(k, [_gap(h.test_error) for h in added])
                self.cond_forest.extend(k, [1.0 - _gap(h.test_error) for h in added])
            c[names[2]].extend(k, [h.engine.oob_fraction for h in added])
        self.e_line.setPen(pg.mkPen(s.foreground, width=1, style=QtCore.Qt.PenStyle.DotLine))
        if history.rewound or not self.cond_p.n:
            B = int(snap.ctx.params["n_estimators"])
            m, pm = run.condorcet_curve(B, float(snap.ctx.params["p_voter"]))
            self.cond_p.set(m, pm)
            self.condorcet_panel.set_title(f"Condorcet (p = {float(snap.ctx.params['p_voter']):.2f})")
        if prepared is not None and getattr(prepared, "condorcet_hat", None) is not None:
            self.cond_hat.set(*prepared.condorcet_hat)
        elif e.n_trees == 0:
            self.cond_hat.clear()
        self._update_inspect(snap)

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

    def point_votes(self, snap, point) -> tuple[int, int]:
        """(votes for −1, votes for +1) of the trees of ``snap`` at ``point``."""
        trees = snap.trees or ()
        p = np.asarray(point, float).reshape(1, 2)
        pos = sum(int(run.tree_predict_pm(t.tree_, p)[0] > 0) for t in trees)
        return len(trees) - pos, pos

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

    def _boost_y_range(self, s: theme.Style) -> None:
        # the curves stay in [0, 1]; the band above is the legend's, so it never hides them
        self.boost_panel.plot_item.setYRange(0.0, 2.6 if s.projector else 1.6, padding=0)

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
