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
from ...widgets.plots import leave_room_below
from . import maths, run
from .graph_view import LAYOUT_EDGES, LOG_MAX, LOG_MIN, GraphDrawing, top_indices
from .panels import PageLayout, RankingPanels

__all__ = ["PageRankLab", "LAYOUT_EDGES", "MAX_DRAWN_NODES", "top_indices"]

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
#: pages drawn at most: on a larger graph (an opened file of up to a million links) the
#: highest-ranked ones, so a frame never costs seconds of the GUI thread
MAX_DRAWN_NODES = 10_000
#: settled layouts remembered (a restart on one of these graphs draws it settled at once)
SETTLED_LAYOUTS = 8


class PageRankLab(GraphDrawing, RankingPanels, PageLayout, Lab):
    id = "pagerank"
    title = "PageRank"
    order = 70
    description = ("Markov chains on a web graph: the power method Pₙ₊₁ = pᵀPₙ converges to the PageRank, random "
                   "surfers estimate it, and textbook chains show when it fails.")
    chapter = "Graphs"
    summary = "PageRank by the power method and by random surfers; the chains where it fails."
    keywords = ("PageRank", "Google", "power method", "Markov chain", "stationary distribution", "random walk",
                "random surfer", "teleport", "damping factor", "alpha", "α", "web graph", "link analysis",
                "karate club", "scale-free", "periodic chain", "reducible chain", "irreducible", "aperiodic",
                "ergodic", "convergence", "Monte Carlo", "eigenvector", "graph")
    screenshot_steps = 5000
    self_test_steps = 5

    # ------------------------------------------------------------------ building
    def init_state(self) -> None:
        self._edits: list[tuple[int, int]] = []  # the user's link edits (saved in sessions)
        self._custom: tuple = ()  # the opened edge list or HTML folder (saved in sessions)
        self._selected = -1
        self._graph: run.GraphInfo | None = None
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
        #: the settled layout of each graph laid out by a run of this lab, (base graph, seed, d)
        #: -> positions, taken from the run's snapshots; the most recent SETTLED_LAYOUTS are kept
        self._settled_layouts: dict[tuple, np.ndarray] = {}

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
        self._build_graph_panel()
        self._build_ranking_panels()
        self._build_convergence_panel()
        self._build_state_panels()
        return self._build_page()

    # ------------------------------------------------------------------ parameters
    def _is_chain(self, graph=None) -> bool:
        return (graph or self.form.value("graph")) in run.CHAINS

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
        if g in run.CHAINS:
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
        self.open_on_worker(run.describe_source(source), self.file_label, run.load_source, source,
                            on_opened=lambda note: self._opened(source, note), restore=self._update_file_label)

    def _opened(self, source: tuple, note: str) -> None:
        self._custom = tuple(source)
        self._file_note = note
        self._edits = []
        self._selected = -1
        self.form.set_values({"graph": "custom", "teleport": 0.15, "start": "uniform"})
        self._update_visibility()
        self.reset()

    def _update_file_label(self) -> None:
        """Name the graph on screen: the opened file and what reading it found, or the preset."""
        g = self.form.value("graph")
        if g == "custom" and self._custom:
            name = run.describe_source(tuple(self._custom))
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
        path = self.ask_open_path("Open an edge list", "Edge lists (*.txt *.tsv *.csv *.edges);;All files (*)")
        if path:
            self.open_graph(path, "edges")

    def _open_html_dialog(self) -> None:
        path = self.ask_open_path("Open a folder of HTML pages", folder=True)
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

    # ------------------------------------------------------------------ running
    def make_run(self, params: dict, seed: int) -> Callable[[], Iterator]:
        source = self._source(params, seed)
        edits = tuple(self._edits)
        args = dict(source=source, edits=edits, seed=int(seed), teleport=float(params["teleport"]),
                    tol=float(params["tol"]), max_iter=int(params["max_iter"]), start=str(params["start"]),
                    n_walkers=int(params["walkers"]), surfer_moves=int(params["surfer_moves"]),
                    moves_per_step=int(params["moves_per_step"]))
        return lambda: run.run_steps(**args)

    # ------------------------------------------------------------------ drawing
    def render(self, snapshot, prepared, history) -> None:
        s = theme.current()
        g = snapshot.graph
        self._graph = g
        positions = snapshot.positions
        moving = snapshot.phase == "layout" and snapshot.progress < 1.0
        layout_key = (g.base_key, self.run_seed, g.n)
        for h in (*history.added, snapshot):
            if h.phase != "layout" or h.progress >= 1.0:  # the layout of this run has settled
                self._settled_layouts.pop(layout_key, None)
                self._settled_layouts[layout_key] = h.positions
                while len(self._settled_layouts) > SETTLED_LAYOUTS:
                    self._settled_layouts.pop(next(iter(self._settled_layouts)))
                break
        if moving:
            # A restart on a graph this lab has seen laid out (α, τ, an edit): the run replays
            # the same layout frames; draw the settled picture instead of animating it again.
            final = self._settled_layouts.get(layout_key)
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

    def _draw_nodes(self, snapshot, positions, s) -> None:
        g = snapshot.graph
        shown = np.arange(g.n)
        if g.n > MAX_DRAWN_NODES:
            shown = np.sort(top_indices(snapshot.distribution, MAX_DRAWN_NODES))
        brushes, size = self._node_visuals(snapshot.distribution, g.n, s, shown)
        self._node_sizes = size
        self.node_item.setData(pos=positions[shown], size=size[shown], brush=brushes, data=shown,
                               pen=self._looks_for(s)["node_pen"], symbol="o")

    def maths_html(self, snapshot) -> str:
        return maths.maths_html(snapshot, self.run_params.get("tol", 0))

    def lesson_values(self, snapshot) -> dict:
        """The snapshot's numbers; the residual and the surfers' error are named even at steps
        where they are undefined (None: before the first iteration, before the surfers), so a
        lesson waiting for them keeps playing."""
        values = super().lesson_values(snapshot)
        for name in ("change", "l1_error"):
            values.setdefault(name, getattr(snapshot, name, None))
        return values

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

    def shutdown(self) -> None:
        super().shutdown()
        run.clear_caches()  # what the runs kept for the next one does not outlive the lab

    def export_rows(self):
        snap = self.runner.current
        if snap is None:
            return ["page", "title", "rank"], []
        g = snap.graph
        dist = np.asarray(snap.distribution)
        order = np.argsort(-dist, kind="stable")
        return ["position", "page", "title", "rank"], [[k + 1, g.names[i], g.titles[i], float(dist[i])]
                                                      for k, i in enumerate(order)]
