"""The PageRank lab: a web graph drawn with nodes sized and coloured by rank, the
highest-ranked pages labelled and links ending in arrowheads, the power method converging,
random surfers moving along links, and the textbook chains that do not converge (reducible,
periodic). Opened edge lists and HTML folders are read and checked before they replace
anything."""

from __future__ import annotations

import html
import math
from typing import Callable, Iterator

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from ... import style as theme
from ...lab import Lab
from ...widgets.params import Param
from ...widgets.plots import PlotPanel, frame_height, leave_room_below, outside_legend
from . import run as pagerank_run

GRAPH_CHOICES = [
    ("python-docs", "Python docs (530 pages)"),
    ("karate-club", "Karate club (34 members)"),
    ("scale-free", "Scale-free (n nodes)"),
    ("two-state", "Chain: two states"),
    ("reducible", "Chain: reducible"),
    ("periodic", "Chain: periodic"),
    ("periodic-self-loops", "Chain: periodic + self-loops"),
    ("custom", "Opened file (Open…)"),
]
TOP_N = 15
SHOWN_STATES_MAX = 8
LOG_MIN, LOG_MAX = -1.0, 2.0  # colour scale of log10(d · P_i)
#: points of the surfers' error curve at most (one per bucket of moves): a frame's cost stays
#: flat however many moves the surfers make, and 2,000 points fill any plot's width
SURFER_POINTS = 2000
# While the force layout moves the nodes, the links are re-stroked every frame (Qt needs
# ~30 ms for 15,000 lines): draw a fixed sample of this many links until the layout stops.
LAYOUT_EDGES = 2000
#: page labels drawn at most (the highest-ranked that fit without overlapping), and how many
#: pages, in rank order, are tried for a place
MAX_LABELS = 20
LABEL_CANDIDATES = 120
LABEL_CHARS = 24  # a longer title is cut with "…"
#: graphs with at most this many drawn links get an arrowhead on every link; larger ones on
#: the links between labelled pages (drawn stronger), so the picture stays readable
ARROW_MAX_LINKS = 1500
#: pages drawn at most: on a larger graph (an opened file of up to a million links) the
#: highest-ranked ones, so a frame never costs seconds of the GUI thread
MAX_DRAWN_NODES = 10_000


def top_indices(values, k: int) -> np.ndarray:
    """Indices of the ``k`` largest values, largest first, ties in index order: the first ``k``
    of ``np.argsort(-values, kind="stable")`` in O(n) instead of O(n log n)."""
    v = np.asarray(values, dtype=float)
    n = v.size
    if k >= n:
        return np.argsort(-v, kind="stable")
    if k <= 0:
        return np.zeros(0, dtype=np.intp)
    kth = np.partition(v, n - k)[n - k]  # the k-th largest value
    above = np.flatnonzero(v > kth)
    ties = np.flatnonzero(v == kth)[: k - above.size]
    pick = np.concatenate([above, ties])
    return pick[np.argsort(-v[pick], kind="stable")]


def label_text(title: str, name: str) -> str:
    """A page's short label: its title up to " — " (Sphinx: "os — Miscellaneous ..."), cut to
    LABEL_CHARS; a title that only puts a word before the name ("member 33") gives the name."""
    words = (title or "").split()
    if len(words) == 2 and words[1] == name:
        return name
    text = (title or name).split(" \u2014 ")[0].strip() or name
    return text if len(text) <= LABEL_CHARS else text[: LABEL_CHARS - 1] + "…"


def _viridis_brushes(n: int = 256) -> list[QtGui.QBrush]:
    cmap = pg.colormap.get("viridis")
    colors = cmap.map(np.linspace(0, 1, n), mode="qcolor")
    return [QtGui.QBrush(c) for c in colors]


class _GraphPanel(PlotPanel):
    """The drawing of the graph: a self-styling panel without axes (the layout has no units)."""

    def apply_style(self, s: theme.Style | None = None) -> None:
        super().apply_style(s)  # labels the axes, which shows them: hide them again
        self.plot_item.hideAxis("left")
        self.plot_item.hideAxis("bottom")


class PageRankLab(Lab):
    id = "pagerank"
    title = "PageRank"
    order = 70
    description = ("Markov chains on a web graph: the power method Pₙ₊₁ = pᵀPₙ converges to the PageRank, random "
                   "surfers estimate it, and textbook chains show when it fails.")
    screenshot_steps = 5000
    self_test_steps = 5

    # ------------------------------------------------------------------ building
    def init_state(self) -> None:
        self._edits: list[tuple[int, int]] = []  # the user's link edits (saved in sessions)
        self._custom: tuple = ()  # the opened edge list or HTML folder (saved in sessions)
        self._selected = -1
        self._graph: pagerank_run.GraphInfo | None = None
        self._drawn_graph_key = None
        self._drawn_positions = None
        self._edges_moving = False  # the links drawn are the layout's sample
        self._sample_key: tuple = (None, None)  # (graph key, sampled link indices)
        self._drawn_dist = None
        self._nodes_key = None
        self._bars_key = None
        self._chain_points: dict[int, np.ndarray] = {}
        self._mc_bucket = -1.0  # bucket of moves of the last surfer point drawn
        self._looks_key = None
        self._looks: dict = {}
        self._node_sizes = None  # marker diameters (pixels) of the nodes drawn
        self._placing = False  # labels and arrowheads are being placed (the view may signal meanwhile)
        self._file_note = ""  # what reading the opened file found (separator, style)
        self._label_pages: list[int] = []
        self._arrow_links = (np.zeros(0, int), np.zeros(0, int))

    def parameter_specs(self):
        return [
            Param("graph", "Graph", "choice", "python-docs", choices=GRAPH_CHOICES,
                  tooltip="The web graph or Markov chain to rank. Open… loads your own edge list or HTML folder."),
            Param("n_nodes", "Nodes (scale-free)", "int", 300, minimum=10, maximum=5000, step=50,
                  tooltip="Size of the seeded scale-free graph (the force layout is used up to 700 nodes)",
                  visible_when=lambda v: v["graph"] == "scale-free"),
            Param("teleport", "Teleport α", "float", 0.15, minimum=0.0, maximum=1.0, step=0.01, decimals=3,
                  tooltip="Probability of jumping to a uniformly random page: p = (1 − α)A + (α/d)𝟙𝟙ᵀ"),
            Param("tol", "Tolerance τ", "log", 1e-10, minimum=1e-14, maximum=1e-2,
                  tooltip="Stop the power method when ‖P_{n+1} − P_n‖₁ < τ"),
            Param("max_iter", "Max iterations", "int", 500, minimum=1, maximum=10000, step=50,
                  tooltip="Power-method iterations at most (textbook chains: at most 30)"),
            Param("start", "Start P₀", "choice", "uniform",
                  choices=[("uniform", "uniform 1/d"), ("first", "all on the first state"),
                           ("last", "all on the last state")],
                  tooltip="Initial distribution of the power method: on the reducible chain the limit depends on it"),
            Param("walkers", "Surfers", "int", 1000, minimum=1, maximum=100000, step=100,
                  tooltip="Number of random surfers moved together (Monte Carlo estimate of the ranks)"),
            Param("surfer_moves", "Moves per surfer", "int", 400, minimum=0, maximum=100000, step=100,
                  tooltip="How many moves each surfer makes after the power method"),
            Param("moves_per_step", "Moves per step", "int", 2, minimum=1, maximum=100,
                  tooltip="Surfer moves computed between two drawn steps"),
        ]

    def build_controls(self, layout: QtWidgets.QVBoxLayout) -> None:
        box = QtWidgets.QGroupBox("Teleport α (live)")
        bl = QtWidgets.QVBoxLayout(box)
        self.alpha_slider = QtWidgets.QSlider(QtCore.Qt.Orientation.Horizontal)
        self.alpha_slider.setRange(0, 100)
        self.alpha_slider.setValue(15)
        self.alpha_slider.setToolTip("Drag to change α; the ranks are recomputed at once")
        self.alpha_slider.valueChanged.connect(self._alpha_from_slider)
        bl.addWidget(self.alpha_slider)
        layout.addWidget(box)

        row = QtWidgets.QVBoxLayout()
        self.open_edges_button = QtWidgets.QPushButton("Open edge list…")
        self.open_edges_button.setToolTip(
            "A text file with one 'source target' link per line: spaces, a TAB or a comma between the ids; "
            "# and % comments (SNAP, KONECT files); CSV with quoted ids and a header line")
        self.open_edges_button.clicked.connect(self._open_edges_dialog)
        self.open_html_button = QtWidgets.QPushButton("Open HTML folder…")
        self.open_html_button.setToolTip("Crawl the links between the HTML pages of a folder")
        self.open_html_button.clicked.connect(self._open_html_dialog)
        row.addWidget(self.open_edges_button)
        row.addWidget(self.open_html_button)
        layout.addLayout(row)
        self.file_label = QtWidgets.QLabel()
        self.file_label.setWordWrap(True)
        self.file_label.setTextFormat(QtCore.Qt.TextFormat.RichText)
        layout.addWidget(self.file_label)

        self.undo_button = QtWidgets.QPushButton("Undo link edit")
        self.undo_button.setToolTip("Take back the last link you added or removed")
        self.undo_button.clicked.connect(lambda: self.undo_edit())
        self.undo_button.setEnabled(False)
        layout.addWidget(self.undo_button)
        self.edit_hint = QtWidgets.QLabel("Click a page, then another: adds the link (or removes it if it exists).")
        self.edit_hint.setWordWrap(True)
        layout.addWidget(self.edit_hint)

    def build_plots(self) -> QtWidgets.QWidget:
        self._brushes = _viridis_brushes()

        # --- the graph
        self.graph_plot = _GraphPanel("Pages by rank", legend=False)
        gp = self.graph_plot.plot_item
        gp.setAspectLocked(True)
        self.edge_item = pg.PlotCurveItem(connect="pairs", antialias=False)
        self.edge_item.setZValue(0)
        # 15,000 links take ~10 ms to stroke: cache the picture, it only changes with the layout.
        self.edge_item.setCacheMode(QtWidgets.QGraphicsItem.CacheMode.DeviceCoordinateCache)
        gp.addItem(self.edge_item)
        self.move_item = pg.PlotCurveItem(connect="pairs")
        self.move_item.setZValue(5)
        gp.addItem(self.move_item)
        self.node_item = pg.ScatterPlotItem(hoverable=True, tip=self._tip, pxMode=True)
        self.node_item.setZValue(10)
        self.node_item.sigClicked.connect(self._node_clicked)
        gp.addItem(self.node_item)
        self.selected_item = pg.ScatterPlotItem(pxMode=True)
        self.selected_item.setZValue(12)
        gp.addItem(self.selected_item)
        # its key is right before the first surfer moves: the stars' symbol and first colour
        self.walker_item = pg.ScatterPlotItem(pxMode=True, symbol="star", brush=theme.CATEGORICAL[1])
        self.walker_item.setZValue(20)
        self.walker_item.setAcceptedMouseButtons(QtCore.Qt.MouseButton.NoButton)
        gp.addItem(self.walker_item)
        # links between labelled pages (large graphs), arrowheads and page labels: placed in
        # pixels, so they are recomputed whenever the view's transform changes
        self.top_edge_item = pg.PlotCurveItem(connect="pairs")
        self.top_edge_item.setZValue(1)
        gp.addItem(self.top_edge_item, ignoreBounds=True)
        self.arrow_item = QtWidgets.QGraphicsPathItem()
        self.arrow_item.setZValue(8)
        gp.addItem(self.arrow_item, ignoreBounds=True)
        self.label_items: list[pg.TextItem] = []
        gp.vb.sigTransformChanged.connect(self._place_overlays)
        self.legend = outside_legend(gp, "top", columns=3)
        self.legend.addItem(self.node_item, "page (size ∝ rank)")
        self.legend.addItem(self.walker_item, "surfers")
        self.legend.addItem(self.move_item, "last move")
        self.colorbar = pg.ColorBarItem(values=(LOG_MIN, LOG_MAX), colorMap=pg.colormap.get("viridis"),
                                        interactive=False, width=14)
        gp.layout.addItem(self.colorbar, 2, 5)

        # --- ranked list and bar chart
        self.table = QtWidgets.QTableWidget(TOP_N, 4)
        self.table.setHorizontalHeaderLabels(["#", "title", "rank", "page"])
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QtWidgets.QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QtWidgets.QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(2, QtWidgets.QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(3, QtWidgets.QHeaderView.ResizeMode.Interactive)
        self.table.setColumnWidth(3, 120)
        self.table.setTextElideMode(QtCore.Qt.TextElideMode.ElideMiddle)
        self.table.setToolTip("The top pages by PageRank (hover a title for its page)")
        self.table.installEventFilter(self)  # a narrow table folds its page column (resize)
        self.bar_plot = PlotPanel(f"Top {TOP_N} ranks", "position in ranking", "PageRank Pᵢ", legend=False)
        self.bar_item = pg.BarGraphItem(x=np.zeros(0), height=np.zeros(0), width=0.75)
        self.bar_plot.addItem(self.bar_item)
        self.mc_item = pg.ScatterPlotItem()
        self.mc_item.setZValue(5)
        self.bar_plot.addItem(self.mc_item)
        self.bar_legend = outside_legend(self.bar_plot.plot_item, "top", columns=2)
        self.bar_legend.addItem(self.bar_item, "power method")
        self.bar_legend.addItem(self.mc_item, "surfers")

        # --- convergence
        self.conv_plot = PlotPanel("Convergence", "n (iteration / surfer move)", "L1 distance", log_y=True,
                                   legend_corner="top")
        self.conv_plot.LEFT_AXIS_EM = 2.8  # decades only (1, 10⁻⁵, 10⁻¹⁰): room for the legend and curves
        self.conv_plot.apply_style()
        cp = self.conv_plot.plot_item
        cp.showGrid(x=True, y=True, alpha=0.25)
        self.conv_legend = self.conv_plot.legend
        self.change_series = self.conv_plot.curve("power method", color=theme.POS_COLOR, dash=0)
        # the bound is drawn in the text colour (dashed): its pen follows the theme in apply_style
        # it never sets the view's range (that follows the measured curves): a bound that
        # reaches down a little further every frame would re-lay out the axes every frame
        self.bound_curve = pg.PlotDataItem([], [], name="2(1−α)<sup>n</sup>")
        cp.addItem(self.bound_curve, ignoreBounds=True)
        self.mc_series = self.conv_plot.curve("surfers", color=theme.NEG_COLOR, dash=0)
        self.change_curve = self.change_series.item
        self.mc_curve = self.mc_series.item
        self._conv_nmax, self._conv_floor = 1.0, 1e-3

        # --- adjacency image / P_n per state
        self.adj_plot = PlotPanel("Adjacency", "target page j", "source page i", legend=False)
        ap = self.adj_plot.plot_item
        ap.invertY(True)
        ap.setAspectLocked(True)
        self.adj_image = pg.ImageItem(axisOrder="row-major")
        ap.addItem(self.adj_image)
        self.chain_plot = PlotPanel("Pₙ per state", "n (iterations)", "Pₙ(state)", legend=False)
        self.chain_plot.plot_item.showGrid(x=True, y=True, alpha=0.25)
        self.chain_legend = outside_legend(self.chain_plot.plot_item, "top", columns=4)
        self.chain_curves: list[pg.PlotDataItem] = []
        self.lower_right = QtWidgets.QStackedWidget()
        self.lower_right.addWidget(self.adj_plot)
        self.lower_right.addWidget(self.chain_plot)

        right = QtWidgets.QSplitter(QtCore.Qt.Orientation.Vertical)
        right.addWidget(self.table)
        right.addWidget(self.bar_plot)
        right.setSizes([300, 240])
        self.right_split = right
        top = QtWidgets.QSplitter(QtCore.Qt.Orientation.Horizontal)
        top.addWidget(self.graph_plot)
        top.addWidget(right)
        top.setStretchFactor(0, 3)
        top.setStretchFactor(1, 2)
        top.setSizes([520, 440])
        bottom = QtWidgets.QSplitter(QtCore.Qt.Orientation.Horizontal)
        bottom.addWidget(self.conv_plot)
        bottom.addWidget(self.lower_right)
        bottom.setSizes([560, 380])
        self.bottom_split = bottom
        self._arranged_for = False
        for w in (self.graph_plot, self.table, self.bar_plot, self.conv_plot, self.adj_plot, self.chain_plot,
                  self.lower_right):
            w.setMinimumSize(80, 60)  # let the splitters shrink them in projector mode
        split = QtWidgets.QSplitter(QtCore.Qt.Orientation.Vertical)
        split.addWidget(top)
        split.addWidget(bottom)
        split.setSizes([520, 280])
        self.plot_split = split
        for panel in (self.graph_plot, self.bar_plot, self.chain_plot):
            panel.apply_style()  # their legends were added after the panel styled itself
        self._update_visibility()
        # a small screen in projector mode: the plots keep a readable height (apply_style) and
        # the page scrolls vertically instead of squashing them under their legends
        page = QtWidgets.QScrollArea()
        page.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
        page.setWidgetResizable(True)
        page.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        page.setWidget(split)
        return page

    # ------------------------------------------------------------------ parameters
    def _is_chain(self, graph=None) -> bool:
        return (graph or self.form.value("graph")) in pagerank_run.CHAINS

    def eventFilter(self, obj, event) -> bool:
        if obj is self.table and event.type() == QtCore.QEvent.Type.Resize:
            self._fold_page_column()
        return super().eventFilter(obj, event)

    def _fold_page_column(self) -> None:
        """The page file name needs room the titles need more: a table too narrow for four
        columns (projector fonts, a small screen) drops it (it is in each title's tooltip)."""
        metrics = QtGui.QFontMetrics(self.table.font())
        need = metrics.horizontalAdvance("#  0.00000  " + "M" * 12) + 120
        self.table.setColumnHidden(3, theme.current().projector or self.table.viewport().width() < need)

    def _arrange(self, projector: bool) -> None:
        """Normal mode: graph and ranking above, convergence and adjacency below. Projector
        mode: the graph takes the whole height on the left, and one column beside it holds the
        ranking bars (Pₙ per state for a textbook chain) over the convergence; the table and
        the adjacency image fold away (File ▸ Export keeps the numbers)."""
        if projector == self._arranged_for:
            return
        self._arranged_for = projector
        if projector:
            self.right_split.addWidget(self.conv_plot)
            self.right_split.addWidget(self.lower_right)
            self.bottom_split.hide()
        else:
            self.right_split.insertWidget(0, self.table)
            self.bottom_split.addWidget(self.conv_plot)
            self.bottom_split.addWidget(self.lower_right)
            self.bottom_split.show()
            self.bottom_split.setSizes([560, 380])
        self._update_visibility()

    def _update_visibility(self) -> None:
        g = self.form.value("graph")
        chain = self._is_chain(g)
        self.lower_right.setCurrentIndex(1 if chain else 0)
        projector = self._arranged_for
        self.table.setVisible(not projector)
        self.bar_plot.setVisible(not (projector and chain))
        self.lower_right.setVisible(not projector or chain)
        self.undo_button.setEnabled(bool(self._edits))
        self._update_file_label()
        self.alpha_slider.blockSignals(True)
        self.alpha_slider.setValue(int(round(self.form.value("teleport") * 100)))
        self.alpha_slider.blockSignals(False)

    def _alpha_from_slider(self, value: int) -> None:
        self.form.set_value("teleport", value / 100.0)  # emits changed -> restart

    def on_param_changed(self, name: str) -> None:
        if name == "graph":
            self._edits = []
            self._selected = -1
            if self._is_chain():
                # The course's counter-examples are the raw chains (α = 0) started on one state.
                self.form.set_values({"teleport": 0.0, "start": "first"})
            else:
                self.form.set_values({"teleport": 0.15, "start": "uniform"})
        self._update_visibility()
        self.reset()

    def after_params_restored(self) -> None:
        self._update_visibility()

    def _source(self, params: dict, seed: int) -> tuple:
        g = params["graph"]
        if g in ("python-docs", "karate-club"):
            return ("builtin", g)
        if g == "scale-free":
            return ("scale-free", int(params["n_nodes"]), int(seed))
        if g in pagerank_run.CHAINS:
            return ("chain", g)
        if g == "custom":
            if not self._custom:
                raise ValueError("No file opened yet: use “Open edge list…” or “Open HTML folder…”.")
            return tuple(self._custom)
        raise ValueError(f"unknown graph {g!r}")

    # ------------------------------------------------------------------ opening files, editing
    def open_graph(self, path: str, kind: str = "edges") -> None:
        """Use an edge list (``kind='edges'``) or a folder of HTML pages (``'html'``).

        The file is read and checked on a worker first; only when that succeeds does it become
        the graph (link edits cleared, graph "Opened file", teleport back to 0.15). A file
        that cannot be read leaves everything as it was and says why in the banner.
        """
        if kind not in ("edges", "html"):
            raise ValueError("kind must be 'edges' or 'html'")
        source = (kind, str(path))
        name = pagerank_run.describe_source(source)
        self.file_label.setText(f"Opening <b>{html.escape(name[:80])}</b> …")
        task = self.task("open", on_done=lambda note, src=source: self._opened(src, note),
                         on_error=lambda message, n=name: self._open_failed(n, message))
        task.start(pagerank_run.load_source, source)

    def _opened(self, source: tuple, note: str) -> None:
        self._custom = tuple(source)
        self._file_note = note
        self._edits = []
        self._selected = -1
        self.form.set_values({"graph": "custom", "teleport": 0.15, "start": "uniform"})
        self._update_visibility()
        self.reset()

    def _open_failed(self, name: str, message: str) -> None:
        self._update_file_label()
        self.show_error(f"Could not open {name}: {message}")

    def _update_file_label(self) -> None:
        """Name the graph on screen: the opened file and what reading it found, or the preset."""
        g = self.form.value("graph")
        if g == "custom" and self._custom:
            name = pagerank_run.describe_source(tuple(self._custom))
            kind = "Edge list" if self._custom[0] == "edges" else "HTML folder"
            text = f"{kind}: <b>{html.escape(name[:80])}</b>"
            if self._file_note:
                text += f"<br><small>{html.escape(self._file_note, quote=False)}</small>"
            self.file_label.setText(text)
            self.file_label.setToolTip(str(self._custom[1]))
        else:
            self.file_label.setText("")
            self.file_label.setToolTip("")

    def _open_edges_dialog(self) -> None:
        path, _ = QtWidgets.QFileDialog.getOpenFileName(self, "Open an edge list", "",
                                                        "Edge lists (*.txt *.tsv *.csv *.edges);;All files (*)")
        if path:
            self.open_graph(path, "edges")

    def _open_html_dialog(self) -> None:
        path = QtWidgets.QFileDialog.getExistingDirectory(self, "Open a folder of HTML pages")
        if path:
            self.open_graph(path, "html")

    def toggle_link(self, i: int, j: int) -> None:
        """Add the link i → j, or remove it if the graph has it; restarts the run."""
        if self._is_chain():
            self.show_error("The links of a textbook chain are fixed: pick a graph to edit links.")
            return
        i, j = int(i), int(j)
        if i == j:
            return
        n = self._graph.n if self._graph is not None else None
        if n is not None and not (0 <= i < n and 0 <= j < n):
            raise ValueError(f"pages must be between 0 and {n - 1}")
        self._edits.append((i, j))
        self._selected = -1
        self._update_visibility()
        self.reset()

    def undo_edit(self) -> bool:
        if not self._edits:
            return False
        self._edits.pop()
        self._update_visibility()
        self.reset()
        return True

    def has_link(self, i: int, j: int) -> bool:
        return self._graph is not None and self._graph.adjacency[i, j] != 0

    def _node_clicked(self, _item, points, _ev=None) -> None:
        if not len(points):
            return
        idx = int(points[0].data())
        if self._selected < 0:
            self._selected = idx
            self._draw_selected()
        elif self._selected == idx:
            self._selected = -1
            self._draw_selected()
        else:
            self.toggle_link(self._selected, idx)

    def _draw_selected(self) -> None:
        s = theme.current()
        pos = self._drawn_positions
        if self._selected < 0 or pos is None or self._selected >= len(pos):
            self.selected_item.setData([], [])
            return
        looks = self._looks_for(s)
        self.selected_item.setData(pos=pos[[self._selected]], size=s.marker_size * 3.2, symbol="o",
                                   pen=looks["selected_pen"], brush=looks["no_brush"])

    def _looks_for(self, s: theme.Style) -> dict:
        """Pens and brushes of the per-frame items, made once per style: pyqtgraph caches a
        scatter symbol per pen and brush *object*, so new ones every frame would render new
        symbols every frame."""
        if self._looks_key != s:
            self._looks_key = s
            self._looks = {
                "selected_pen": pg.mkPen(theme.OKABE_ITO["vermillion"], width=3 * s.scale),
                "no_brush": pg.mkBrush(None),
                "walker_brushes": [pg.mkBrush(theme.CATEGORICAL[(k + 1) % 6]) for k in range(6)],
                "walker_pen": pg.mkPen(s.foreground, width=1.2 * s.scale),
                "move_pen": pg.mkPen(theme.OKABE_ITO["vermillion"], width=2.5 * s.scale),
                "mc_brush": pg.mkBrush(theme.OKABE_ITO["orange"]),
                "mc_pen": pg.mkPen(s.foreground, width=s.scale),
                "walkers": {},  # number of walkers -> list of their brushes
            }
        return self._looks

    # ------------------------------------------------------------------ running
    def make_run(self, params: dict, seed: int) -> Callable[[], Iterator]:
        source = self._source(params, seed)
        edits = tuple(self._edits)
        args = dict(source=source, edits=edits, seed=int(seed), teleport=float(params["teleport"]),
                    tol=float(params["tol"]), max_iter=int(params["max_iter"]), start=str(params["start"]),
                    n_walkers=int(params["walkers"]), surfer_moves=int(params["surfer_moves"]),
                    moves_per_step=int(params["moves_per_step"]))
        return lambda: pagerank_run.lab_run(**args)

    # ------------------------------------------------------------------ drawing
    def _tip(self, x=0.0, y=0.0, data=0, **_kw) -> str:
        g = self._graph
        dist = self._drawn_dist
        try:
            i = int(data)
        except (TypeError, ValueError):
            return ""
        if g is None or not (0 <= i < g.n):
            return ""
        rank = float(dist[i]) if dist is not None and i < len(dist) else float("nan")
        title = g.titles[i] if g.titles[i] else g.names[i]
        return (f"{title}\n{g.names[i]}\nrank {rank:.5f}  ({rank * g.n:.2f} × average)\n"
                f"{g.in_degree[i]} links in, {g.out_degree[i]} links out")

    def render(self, snapshot, prepared, history) -> None:
        s = theme.current()
        g = snapshot.graph
        self._graph = g
        positions = snapshot.positions
        moving = snapshot.phase == "layout" and snapshot.progress < 1.0
        if snapshot.phase == "layout":
            # A restart on a graph laid out before (α, τ, an edit): the cached layout replays
            # the same frames; draw the settled picture instead of animating it again.
            final = pagerank_run.cached_final_layout(g.base_key, self.run_seed, g.n)
            if final is not None:
                positions = final
                moving = False
        new_graph = g.key != self._drawn_graph_key
        if new_graph:
            self._draw_adjacency(g)
            self._setup_chain_curves(g)
        if new_graph or positions is not self._drawn_positions or moving != self._edges_moving:
            self._draw_edges(g, positions, moving)
        self._drawn_graph_key = g.key
        self._drawn_positions = positions
        # Only what changed is redrawn: the surfer phase keeps the ranks, so nodes and bars stay.
        nodes_key = (id(snapshot.distribution), id(positions), s)
        nodes_changed = nodes_key != self._nodes_key
        if nodes_changed:
            self._draw_nodes(snapshot, positions, s)
            self._nodes_key = nodes_key
        self._draw_walkers(snapshot, positions, s)
        self._draw_selected()
        if snapshot.distribution is not self._drawn_dist:
            self._fill_table(g, snapshot.distribution)
        self._drawn_dist = snapshot.distribution
        if new_graph or nodes_changed:
            if g.note and g.base_key == tuple(self._custom) and g.note != self._file_note:
                self._file_note = g.note  # a session's file, read by the run
                self._update_file_label()
            self._place_overlays()
        self._draw_bars(g, snapshot, s)
        self._draw_convergence(snapshot, history, s)
        if g.chain:
            self._draw_chain(history)

    def layout_edges(self, g) -> np.ndarray:
        """Indices of the links drawn while the layout moves: all of them up to LAYOUT_EDGES,
        else a fixed random sample of LAYOUT_EDGES (the same for every frame of a graph, so
        the picture thins out evenly and does not flicker), in link order."""
        if self._sample_key[0] != g.key:
            E = g.edge_rows.size
            if E <= LAYOUT_EDGES:
                pick = np.arange(E)
            else:
                pick = np.sort(np.random.default_rng(0).choice(E, LAYOUT_EDGES, replace=False))
            self._sample_key = (g.key, pick)
        return self._sample_key[1]

    def _draw_edges(self, g, positions, moving: bool = False) -> None:
        self._edges_moving = moving
        if g.edge_rows.size == 0:
            self.edge_item.setData([], [])
            return
        rows, cols = g.edge_rows, g.edge_cols
        if moving:
            pick = self.layout_edges(g)
            rows, cols = rows[pick], cols[pick]
        xy = np.empty((2 * rows.size, 2))
        xy[0::2] = positions[rows]
        xy[1::2] = positions[cols]
        self.edge_item.setData(xy[:, 0], xy[:, 1], connect="pairs", pen=self._edge_pen(g))
        gp = self.graph_plot.getPlotItem()
        gp.setRange(xRange=(-1.1, 1.1), yRange=(-1.1, 1.1), padding=0.02)

    def _edge_pen(self, g=None):
        s = theme.current()
        g = g or self._graph
        many = g is not None and g.n_links > 3000
        # An opaque colour between foreground and background: faster than alpha blending.
        fg, bg = QtGui.QColor(s.foreground), QtGui.QColor(s.background)
        t = 0.18 if many else 0.5
        mix = QtGui.QColor(*(int(round(t * a + (1 - t) * b)) for a, b in
                             ((fg.red(), bg.red()), (fg.green(), bg.green()), (fg.blue(), bg.blue()))))
        return pg.mkPen(mix, width=1.0 if many else 1.5 * s.scale)

    def _node_visuals(self, dist, n, s, shown=None):
        """Brushes of the pages ``shown`` (all by default) and the sizes of all pages."""
        d = max(n, 1)
        rel = np.asarray(dist, float) * d
        level = (np.log10(np.maximum(rel, 1e-12)) - LOG_MIN) / (LOG_MAX - LOG_MIN)
        # Quantized colours and sizes: pyqtgraph renders one symbol per distinct (size, brush),
        # so a few dozen levels keep a frame of 500+ nodes at a few milliseconds.
        idx = np.clip(np.round(level * 31).astype(int), 0, 31) * 8
        brushes = [self._brushes[k] for k in (idx if shown is None else idx[shown])]
        # Size by rank relative to the average page (d · P_i = 1): equal ranks give equal small
        # discs, and fewer pixels per node on big graphs so a heap never hides the links.
        crowd = float(np.clip(np.sqrt(300.0 / max(n, 1)), 0.45, 1.6))
        size = s.scale * crowd * np.clip(3.0 + 5.0 * np.sqrt(np.round(rel * 4) / 4), 3.0, 34.0)
        return brushes, size

    def _draw_nodes(self, snapshot, positions, s) -> None:
        g = snapshot.graph
        shown = np.arange(g.n)
        if g.n > MAX_DRAWN_NODES:
            shown = np.sort(top_indices(snapshot.distribution, MAX_DRAWN_NODES))
        brushes, size = self._node_visuals(snapshot.distribution, g.n, s, shown)
        self._node_sizes = size
        self.node_item.setData(pos=positions[shown], size=size[shown], brush=brushes, data=shown,
                               pen=pg.mkPen(s.foreground + "90", width=max(1.0, 0.6 * s.scale)), symbol="o")

    def _draw_walkers(self, snapshot, positions, s) -> None:
        w = snapshot.walkers
        if w.size == 0:
            self.walker_item.setData([], [])
            self.move_item.setData([], [])
            return
        looks = self._looks_for(s)
        brushes = looks["walkers"].get(w.size)
        if brushes is None:
            brushes = looks["walkers"][w.size] = [looks["walker_brushes"][k % 6] for k in range(w.size)]
        self.walker_item.setData(pos=positions[w], symbol="star", size=s.marker_size * 2.8,
                                 brush=brushes, pen=looks["walker_pen"])
        follow = ~snapshot.walkers_jumped
        src, dst = snapshot.walkers_prev[follow], w[follow]
        if src.size:
            xy = np.empty((2 * src.size, 2))
            xy[0::2] = positions[src]
            xy[1::2] = positions[dst]
            self.move_item.setData(xy[:, 0], xy[:, 1], connect="pairs", pen=looks["move_pen"])
        else:
            self.move_item.setData([], [])

    # ------------------------------------------------------------------ labels and arrowheads
    def _place_overlays(self, *_args) -> None:
        """Page labels and arrowheads for the current view: both are sized in pixels, so they
        follow every change of the view's transform (resize, projector mode, a new layout)."""
        if self._placing:
            return
        self._placing = True
        try:
            g, pos, dist = self._graph, self._drawn_positions, self._drawn_dist
            ok = (g is not None and pos is not None and dist is not None and self._node_sizes is not None
                  and len(pos) == g.n == len(dist) == len(self._node_sizes))
            vb = self.graph_plot.plot_item.vb
            vb.updateMatrix()  # the range set this frame, not the last one painted
            labelled = self._place_labels(g, pos, dist, vb) if ok else []
            self._draw_arrows(g, pos, labelled, vb) if ok else self._clear_arrows()
        finally:
            self._placing = False

    def _scene_xy(self, vb, pos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        t = vb.childGroup.sceneTransform()  # data -> scene (pixels): a scale and a shift
        x, y = pos[:, 0], pos[:, 1]
        return t.m11() * x + t.m21() * y + t.m31(), t.m12() * x + t.m22() * y + t.m32()

    def _label_item(self, k: int, s: theme.Style) -> pg.TextItem:
        while len(self.label_items) <= k:
            item = pg.TextItem(anchor=(0.5, 1.0))
            item.setZValue(25)  # above the surfers: a label stays readable
            item.setAcceptedMouseButtons(QtCore.Qt.MouseButton.NoButton)
            item.textItem.document().setDocumentMargin(1.0)  # tight boxes: more labels fit
            self.graph_plot.plot_item.addItem(item, ignoreBounds=True)
            self.label_items.append(item)
        item = self.label_items[k]
        if getattr(item, "_style", None) != s:
            font = QtGui.QFont()
            font.setPointSizeF(s.font_pt * 0.9)
            item.setFont(font)
            item.setColor(s.foreground)
            bg = QtGui.QColor(s.background)
            bg.setAlpha(170)
            item.fill = pg.mkBrush(bg)
            item._style = s
        return item

    def _place_labels(self, g, pos, dist, vb) -> list[int]:
        """Label the highest-ranked pages, each above (else below) its disc, centred or shifted to
        one side, skipping any whose label would overlap one already placed or leave the view;
        returns the pages labelled."""
        s = theme.current()
        xs, ys = self._scene_xy(vb, pos)
        view = vb.sceneBoundingRect()
        inverse, _ = vb.childGroup.sceneTransform().inverted()
        placed: list[QtCore.QRectF] = []
        pages: list[int] = []
        order = top_indices(dist, LABEL_CANDIDATES)
        for i in order:
            if len(pages) == MAX_LABELS:
                break
            if not (np.isfinite(xs[i]) and np.isfinite(ys[i]) and view.contains(QtCore.QPointF(xs[i], ys[i]))):
                continue
            item = self._label_item(len(pages), s)
            text = label_text(g.titles[i], g.names[i])
            if item.toPlainText() != text:
                item.setText(text)
            box = item.textItem.boundingRect()
            w, h = box.width(), box.height()
            gap = float(self._node_sizes[i]) / 2 + 1.0
            # above the disc, else below it; centred, else shifted right or left (near an edge)
            for anchor_y, anchor_x in ((1.0, 0.5), (0.0, 0.5), (1.0, 0.0), (1.0, 1.0), (0.0, 0.0), (0.0, 1.0)):
                top = ys[i] - gap - h if anchor_y == 1.0 else ys[i] + gap
                rect = QtCore.QRectF(xs[i] - anchor_x * w, top, w, h)
                if view.contains(rect) and not any(rect.intersects(r) for r in placed):
                    break
            else:
                continue
            placed.append(rect.adjusted(-1, -1, 1, 1))  # a pixel apart at least
            item.setAnchor((anchor_x, anchor_y))
            item.setPos(inverse.map(QtCore.QPointF(xs[i], ys[i] - gap if anchor_y == 1.0 else ys[i] + gap)))
            item.setToolTip(f"{g.titles[i]}\n{g.names[i]}")
            item.setVisible(True)
            item.updateTransform(force=True)
            pages.append(int(i))
        for item in self.label_items[len(pages):]:
            item.setVisible(False)
        self._label_pages = pages
        return pages

    def labels_shown(self) -> list[tuple[int, str, QtCore.QRectF]]:
        """(page, text, scene bounding rectangle) of every page label drawn."""
        return [(i, item.toPlainText(), item.sceneBoundingRect())
                for i, item in zip(self._label_pages, self.label_items) if item.isVisible()]

    def _clear_arrows(self) -> None:
        self.arrow_item.setPath(QtGui.QPainterPath())
        self.top_edge_item.setData([], [])
        self._arrow_links = (np.zeros(0, int), np.zeros(0, int))

    def _draw_arrows(self, g, pos, labelled: list[int], vb) -> None:
        """A filled arrowhead at the target end of each link, its tip on the target's disc.

        Every drawn link gets one on graphs with at most ARROW_MAX_LINKS links; on larger
        graphs the links between labelled pages get one (and a stronger line), so the picture
        says which of the named pages links to which.
        """
        rows, cols = g.edge_rows, g.edge_cols
        if self._edges_moving:
            pick = self.layout_edges(g)
            rows, cols = rows[pick], cols[pick]
        strong = rows.size > ARROW_MAX_LINKS
        if strong:
            mark = np.zeros(g.n, bool)
            mark[labelled] = True
            keep = mark[rows] & mark[cols]
            rows, cols = rows[keep], cols[keep]
        s = theme.current()
        if strong and rows.size:
            xy = np.empty((2 * rows.size, 2))
            xy[0::2], xy[1::2] = pos[rows], pos[cols]
            self.top_edge_item.setData(xy[:, 0], xy[:, 1], connect="pairs",
                                       pen=pg.mkPen(s.foreground, width=1.2 * s.scale))
        else:
            self.top_edge_item.setData([], [])
        xs, ys = self._scene_xy(vb, pos)
        dx, dy = xs[cols] - xs[rows], ys[cols] - ys[rows]
        length = np.hypot(dx, dy)
        head = 7.0 * s.scale  # arrowhead length in pixels
        gap = self._node_sizes[cols] / 2 + 1.0
        ok = length > gap + head  # a link shorter than its arrowhead keeps none
        rows, cols, dx, dy, length, gap = rows[ok], cols[ok], dx[ok], dy[ok], length[ok], gap[ok]
        self._arrow_links = (rows, cols)
        if rows.size == 0:
            self.arrow_item.setPath(QtGui.QPainterPath())
            return
        ux, uy = dx / length, dy / length
        tip_x, tip_y = xs[cols] - ux * gap, ys[cols] - uy * gap
        base_x, base_y = tip_x - ux * head, tip_y - uy * head
        half = 0.45 * head
        # triangles tip -> left -> right (-> tip), in scene pixels, then back to data coordinates
        px = np.column_stack([tip_x, base_x - uy * half, base_x + uy * half, tip_x]).ravel()
        py = np.column_stack([tip_y, base_y + ux * half, base_y - ux * half, tip_y]).ravel()
        t = vb.childGroup.sceneTransform()
        inverse, _ = t.inverted()
        data_x = inverse.m11() * px + inverse.m21() * py + inverse.m31()
        data_y = inverse.m12() * px + inverse.m22() * py + inverse.m32()
        connect = np.tile(np.array([1, 1, 1, 0], dtype=np.int32), rows.size)
        path = pg.arrayToQPath(data_x, data_y, connect=connect)
        path.setFillRule(QtCore.Qt.FillRule.WindingFill)
        self.arrow_item.setPath(path)
        colour = QtGui.QColor(s.foreground) if strong or rows.size <= 400 else self._edge_pen(g).color()
        pen = QtGui.QPen(colour)
        pen.setCosmetic(True)
        pen.setWidthF(0.8)
        self.arrow_item.setPen(pen)
        self.arrow_item.setBrush(QtGui.QBrush(colour))

    def arrow_heads(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(source pages, target pages, tips, bases) of the arrowheads drawn, tips and the
        bases' midpoints in data coordinates, read back from the drawn path."""
        path = self.arrow_item.path()
        pts = np.array([[path.elementAt(k).x, path.elementAt(k).y] for k in range(path.elementCount())])
        rows, cols = self._arrow_links
        if pts.size == 0:
            return rows, cols, np.zeros((0, 2)), np.zeros((0, 2))
        pts = pts.reshape(-1, 4, 2)
        return rows, cols, pts[:, 0], (pts[:, 1] + pts[:, 2]) / 2

    def _fill_table(self, g, dist) -> None:
        order = top_indices(dist, TOP_N)
        self.table.setRowCount(len(order))
        for row, i in enumerate(order):
            cells = [str(row + 1), g.titles[i], f"{dist[i]:.5f}", g.names[i]]
            for col, text in enumerate(cells):
                item = self.table.item(row, col)
                if item is None:
                    item = QtWidgets.QTableWidgetItem()
                    self.table.setItem(row, col, item)
                item.setText(text)
                if col in (1, 3):
                    item.setToolTip(f"{g.titles[i]}\n{g.names[i]}")

    def top_pages(self) -> list[tuple[str, str, float]]:
        """(page, title, rank) rows of the ranked list as shown."""
        out = []
        for row in range(self.table.rowCount()):
            items = [self.table.item(row, c) for c in range(4)]
            if any(it is None for it in items):
                break
            out.append((items[3].text(), items[1].text(), float(items[2].text())))
        return out

    def _draw_bars(self, g, snapshot, s) -> None:
        dist = np.asarray(snapshot.distribution)
        order = top_indices(dist, TOP_N)
        x = np.arange(1, len(order) + 1, dtype=float)
        if snapshot.moves > 0:
            looks = self._looks_for(s)
            self.mc_item.setData(x, np.asarray(snapshot.frequencies)[order], symbol="d", size=s.marker_size * 1.3,
                                 brush=looks["mc_brush"], pen=looks["mc_pen"])
        else:
            self.mc_item.setData([], [])
        key = (id(snapshot.distribution), s)
        if key == self._bars_key:
            return
        self._bars_key = key
        self.bar_item.setOpts(x=x, height=dist[order], width=0.75, brush=pg.mkBrush(theme.POS_COLOR),
                              pen=pg.mkPen(s.foreground, width=max(1.0, 0.5 * s.scale)))
        top = float(dist[order[0]]) if len(order) else 1.0
        self.bar_plot.getPlotItem().setRange(xRange=(0.3, TOP_N + 0.7), yRange=(0, 1.55 * top), padding=0)

    def _draw_convergence(self, snapshot, history, s) -> None:
        """Residual and surfer curves grow by the snapshots that arrived since the last frame."""
        if history.rewound:
            self.change_series.clear()
            self.mc_series.clear()
            self._conv_nmax, self._conv_floor = 1.0, 1e-3
            self._mc_bucket = -1.0
        added = history.added
        power = [h for h in added if h.phase == "power method"]
        n = np.fromiter((h.iteration for h in power), float, len(power))
        change = np.fromiter((h.change for h in power), float, len(power))
        ok = np.isfinite(change) & (change > 0)
        self.change_series.extend(n[ok], change[ok])
        surf = [h for h in added if h.phase == "random surfer"]
        m = np.fromiter((h.moves for h in surf), float, len(surf))
        err = np.fromiter((h.l1_error for h in surf), float, len(surf))
        good = np.isfinite(err) & (err > 0)
        # the first point of each bucket of moves: at most SURFER_POINTS points in all
        stride = max(1, -(-int(self.run_params.get("surfer_moves", 0) or 0) // SURFER_POINTS))
        bucket = np.floor(m / stride)
        first = bucket != np.concatenate(([self._mc_bucket], bucket[:-1]))
        if bucket.size:
            self._mc_bucket = float(bucket[-1])
        pick = good & first
        self.mc_series.extend(m[pick], err[pick])
        self._conv_nmax = max(self._conv_nmax, float(n.max()) if n.size else 0.0, float(m.max()) if m.size else 0.0)
        if ok.any():
            self._conv_floor = min(self._conv_floor, float(change[ok].min()))
        alpha = snapshot.teleport
        if alpha > 0:
            nb = np.linspace(0, self._conv_nmax, 200)
            bound = 2.0 * (1.0 - alpha) ** nb
            keep = bound > self._conv_floor / 30.0
            self.bound_curve.setData(nb[keep], bound[keep])
        else:
            self.bound_curve.setData([0.0, self._conv_nmax], [2.0, 2.0])

    def _setup_chain_curves(self, g) -> None:
        cp = self.chain_plot.getPlotItem()
        for c in self.chain_curves:
            cp.removeItem(c)
            self.chain_legend.removeItem(c)
        self.chain_curves = []
        if not g.chain:
            return
        s = theme.current()
        for k in range(min(g.n, SHOWN_STATES_MAX)):
            pen = pg.mkPen(theme.CATEGORICAL[k % len(theme.CATEGORICAL)], width=s.line_width)
            c = cp.plot([], [], pen=pen, symbol="o", symbolSize=s.marker_size * 0.6,
                        symbolBrush=theme.CATEGORICAL[k % len(theme.CATEGORICAL)], symbolPen=None,
                        name=f"P<sub>n</sub>({html.escape(g.names[k])})")
            self.chain_curves.append(c)

    def _draw_chain(self, history) -> None:
        changed = history.rewound
        if history.rewound:
            self._chain_points = {}
        for h in history.added:  # the layout frame(s) hold P_0: one point per iteration
            if h.phase != "random surfer":
                self._chain_points[h.iteration] = h.distribution
                changed = True
        n = np.array(sorted(self._chain_points), float)
        if not n.size or not changed:  # the surfers' moves leave P_n as it is
            return
        P = np.array([self._chain_points[int(k)] for k in n])
        for k, c in enumerate(self.chain_curves):
            c.setData(n, P[:, k])

    def chain_series(self) -> np.ndarray:
        """P_n as drawn: array of shape (n_iterations + 1, states)."""
        if not self.chain_curves:
            return np.zeros((0, 0))
        return np.column_stack([c.yData for c in self.chain_curves])

    def _draw_adjacency(self, g) -> None:
        img = g.image
        self.adj_image.setImage(img, levels=(0.0, 1.0), autoLevels=False)
        self.adj_image.setLookupTable(self._adj_lut())
        scale = g.n / img.shape[0]
        side = g.n if scale != 1 else img.shape[0]
        self.adj_image.setRect(QtCore.QRectF(0, 0, side, side))
        self.adj_plot.getPlotItem().setRange(xRange=(0, g.n), yRange=(0, g.n), padding=0.02)

    def _adj_lut(self):
        s = theme.current()
        bg = QtGui.QColor(s.background)
        fg = QtGui.QColor(theme.POS_COLOR if s.theme == "light" else theme.OKABE_ITO["sky_blue"])
        lut = np.array([[bg.red(), bg.green(), bg.blue()], [fg.red(), fg.green(), fg.blue()]], np.ubyte)
        return np.repeat(lut, [128, 128], axis=0)

    def show_idle(self) -> None:
        self._nodes_key = self._bars_key = None
        self._chain_points = {}
        self._mc_bucket = -1.0
        self.walker_item.setData([], [])
        self.move_item.setData([], [])
        self.change_series.clear()
        self.bound_curve.setData([], [])
        self.mc_series.clear()
        self.mc_item.setData([], [])


    # ------------------------------------------------------------------ maths
    def maths_html(self, snapshot) -> str:
        g = snapshot.graph
        a = snapshot.teleport
        n_dangling = int(np.sum(g.out_degree == 0))
        rows = [
            "<h3>The web chain</h3>",
            "<p>Row convention: p[s, t] = p<sub>s→t</sub> = Pr{X<sub>n</sub> = t | X<sub>n−1</sub> = s}; "
            "rows sum to 1.</p>",
            "<p class='eq'>p = (1 − α) A + (α / d) 𝟙𝟙<sup>T</sup></p>",
            "<p>A<sub>i→j</sub> = 1 / #out-links of i; a dangling page (no out-link) jumps uniformly: "
            "its row of A is 𝟙<sup>T</sup>/d.</p>",
            "<h3>Power method</h3>",
            "<p class='eq'>P<sub>n+1</sub> = p<sup>T</sup> P<sub>n</sub>, &nbsp; stop when "
            "‖P<sub>n+1</sub> − P<sub>n</sub>‖₁ &lt; τ</p>",
            "<p>For α &gt; 0: ‖P<sub>n</sub> − P‖₁ ≤ 2(1 − α)<sup>n</sup>. The surfers' visit "
            "frequencies tend to the same P (error ∝ 1/√visits).</p>",
            "<h3>Now</h3><p class='num'>",
            f"{html.escape(pagerank_run.describe_source(g.base_key))}: d = {g.n} pages, {g.n_links} links, "
            f"{n_dangling} dangling<br>",
        ]
        if g.note:
            rows.append(f"{html.escape(g.note, quote=False)}<br>")
        if g.key[1]:
            rows.append(f"edited links: {len(g.key[1])}<br>")
        rows.append(f"α = {a:.3f}, τ = {self.run_params.get('tol', 0):.0e}<br>")
        rows.append(f"step {snapshot.step} — {html.escape(snapshot.phase)}<br>")
        if snapshot.iteration > 0:
            rows.append(f"iteration n = {snapshot.iteration}<br>")
            rows.append(f"residual ‖P<sub>n</sub> − P<sub>n−1</sub>‖₁ = {snapshot.change:.3e}<br>")
            rows.append(f"bound 2(1 − α)<sup>n</sup> = {2 * snapshot.bound:.3e}<br>")
            if snapshot.converged:
                rows.append("<b>converged</b> (residual &lt; τ)<br>")
        if snapshot.moves > 0:
            rows.append(f"surfers: {snapshot.n_walkers} × {snapshot.moves} moves, "
                        f"‖freq − P‖₁ = {snapshot.l1_error:.4f}<br>")
        rows.append("</p><p>")
        rows.append(f"irreducible: <b>{'yes' if snapshot.irreducible else 'no'}</b>, "
                    f"aperiodic: <b>{'yes' if snapshot.aperiodic else 'no'}</b><br>")
        if not snapshot.irreducible:
            rows.append("Several closed classes: the equilibrium is not unique, the limit depends on P₀ "
                        "(try another <i>Start P₀</i>).")
        elif not snapshot.aperiodic:
            rows.append("Periodic: P<sub>n</sub> oscillates and has no limit unless P₀ is the equilibrium.")
        else:
            rows.append("Unique equilibrium P = p<sup>T</sup>P, the limit from any start.")
        rows.append("</p>")
        if g.chain and g.n <= 6:
            dist = ", ".join(f"{v:.4f}" for v in snapshot.distribution)
            rows.append(f"<p class='num'>P<sub>n</sub> = ({dist})</p>")
        return "".join(rows)

    # ------------------------------------------------------------------ style, sessions, export
    def apply_style(self, s: theme.Style) -> None:
        # the plots are PlotPanels (titles, axes, legends and the two curves restyle
        # themselves); here only what the lab draws in its own colours and sizes
        self.bound_curve.setPen(s.pen(s.foreground, s.line_width * 0.8, QtCore.Qt.PenStyle.DashLine))
        for k, c in enumerate(self.chain_curves):
            c.setPen(pg.mkPen(theme.CATEGORICAL[k % len(theme.CATEGORICAL)], width=s.line_width))
            c.setSymbolSize(s.marker_size * 0.6)
        font = QtGui.QFont()
        font.setPointSizeF(s.font_pt)
        self.colorbar.axis.setTickFont(font)
        # whole decades only: short labels that leave the bar's own label its room
        decades = range(int(math.ceil(LOG_MIN)), int(math.floor(LOG_MAX)) + 1)
        self.colorbar.axis.setTicks([[(float(v), "−" + str(-v) if v < 0 else str(v)) for v in decades], []])
        self.colorbar.axis.setTextPen(pg.mkPen(s.foreground))
        self.colorbar.axis.setPen(pg.mkPen(s.foreground))
        self.colorbar.axis.setLabel("log₁₀(d · rank)", **{"font-size": f"{s.font_pt:.0f}pt",
                                                           "color": s.foreground})
        leave_room_below(self.graph_plot.plot_item, font)  # for the colour bar's end labels
        font = self.table.font()
        font.setPointSizeF(9.0 * s.scale)
        self.table.setFont(font)
        self.table.horizontalHeader().setFont(font)
        self.table.verticalHeader().setDefaultSectionSize(int(20 * s.scale))
        # projector fonts leave the table too narrow for four columns: the page file name goes
        # (it is in each title's tooltip) and the titles get the room
        self._fold_page_column()
        self._arrange(s.projector)
        # a first guess at the least height that keeps a plot's data area readable under its
        # title, outside legend and axis (in lines of the plot font); _fit_min_widths refines
        # it once the legends have found their columns
        line = s.font_pt * 96 / 72
        lines = 14 if s.projector else 9
        for w in (self.bar_plot, self.conv_plot, self.chain_plot, self.lower_right):
            w.setMinimumHeight(int(lines * line))
        self.table.setMinimumHeight(int(3.5 * 20 * s.scale))  # header and three pages
        # once the plots have laid out their new fonts
        QtCore.QTimer.singleShot(0, self.graph_plot, self._fit_min_widths)

    def _fit_min_widths(self) -> None:
        """Each plot at least as wide as its title, axes and one-column legend need: the splitters
        then never cut a plot's right edge (projector fonts at 1024 px)."""
        for panel in (self.graph_plot, self.bar_plot, self.conv_plot, self.adj_plot, self.chain_plot):
            pi = panel.plot_item
            least = pi.effectiveSizeHint(QtCore.Qt.SizeHint.MinimumSize).width()
            legend = pi.legend
            if legend is not None and legend.items and legend.columnCount > 1:
                widest = max(a.boundingRect().width() + b.item.boundingRect().width() + 16 for a, b in legend.items)
                least -= legend.effectiveSizeHint(QtCore.Qt.SizeHint.MinimumSize).width() - widest
            panel.setMinimumWidth(max(80, int(math.ceil(least)) + 2))
        # each plot as tall as its title, legend (in the columns it now has) and axis need,
        # plus four lines of data: legends that went side by side give their rows back
        s = theme.current()
        data = 4 * s.font_pt * 96 / 72
        for panel in (self.bar_plot, self.conv_plot, self.chain_plot):
            frame = frame_height(panel.plot_item)
            if frame > 0:
                panel.setMinimumHeight(int(math.ceil(frame + data)) + 4)
        self.lower_right.setMinimumHeight(max(self.adj_plot.minimumHeight(), self.chain_plot.minimumHeight()))
        if self._graph is not None:
            self.edge_item.setPen(self._edge_pen())
            self.adj_image.setLookupTable(self._adj_lut())
            self._place_overlays()  # labels measured in the new font

    def main_plot(self):
        return self.graph_plot

    def user_data(self) -> dict:
        return {"edits": [list(e) for e in self._edits],
                "custom": list(self._custom)}

    def set_user_data(self, data: dict) -> None:
        edits = data.get("edits", [])
        custom = data.get("custom", [])
        try:
            edits = [(int(i), int(j)) for i, j in edits]
        except (TypeError, ValueError):
            raise ValueError("the saved link edits are malformed") from None
        if custom and (len(custom) != 2 or custom[0] not in ("edges", "html")):
            raise ValueError("the saved graph file is malformed")
        self._edits = edits
        self._custom = tuple(custom)
        self._selected = -1
        self._update_visibility()

    def export_rows(self):
        snap = self.runner.current
        if snap is None:
            return ["page", "title", "rank"], []
        g = snap.graph
        dist = np.asarray(snap.distribution)
        order = np.argsort(-dist, kind="stable")
        return ["position", "page", "title", "rank"], [[k + 1, g.names[i], g.titles[i], float(dist[i])]
                                                      for k, i in enumerate(order)]
