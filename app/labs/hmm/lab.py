"""Hidden Markov models: the dishonest casino, filtering, smoothing, Viterbi and Baum-Welch."""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from app import style as theme
from app.lab import Lab
from app.widgets.params import Param
from app.widgets.plots import PlotPanel

from . import maths, run

DIE_GLYPHS = "⚀⚁⚂⚃⚄⚅"
STATE_COLORS = (theme.OKABE_ITO["sky_blue"], theme.OKABE_ITO["orange"])  # fair / vowel, loaded / consonant
PATH_COLOR = theme.OKABE_ITO["vermillion"]
LETTERS_SHOWN = 80  # letters shown by default (the letter model switches state every letter or two)
ROLL_Y0, ROLL_SPAN = 1.14, 0.6  # the rolls' strip above the probabilities: symbol 0 at ROLL_Y0


def roll_height(symbols, n_symbols: int) -> np.ndarray:
    """Where a symbol's dot sits in the strip above the probabilities."""
    return ROLL_Y0 + ROLL_SPAN * np.asarray(symbols, dtype=float) / max(n_symbols - 1, 1)


def _rgba(color: str, alpha: int = 255) -> tuple:
    c = QtGui.QColor(color)
    return c.red(), c.green(), c.blue(), alpha


class _Note(QtWidgets.QLabel):
    """A wrapped note under a plot that takes ``lines`` lines: it reports no height-for-width, so
    the scroll area around a tab page sizes the page from its minimum, not from the plots' hints."""

    def __init__(self, lines: int = 2):
        super().__init__()
        self.lines = lines
        self.setWordWrap(True)
        self.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Fixed)

    def hasHeightForWidth(self) -> bool:  # Qt's name
        return False

    def sizeHint(self):  # Qt's name
        return QtCore.QSize(100, self.lines * self.fontMetrics().lineSpacing() + 4)

    def minimumSizeHint(self):  # Qt's name
        return self.sizeHint()


class _Band(pg.ImageItem):
    """A one-row image of states along t (one cell per step) between y0 and y1."""

    def __init__(self, y0: float, y1: float):
        super().__init__()
        self.y0, self.y1 = y0, y1
        self.states = np.zeros(0, dtype=np.int64)
        self.setZValue(-1)

    def set_states(self, states: np.ndarray, shown: int) -> None:
        states = np.asarray(states, dtype=np.int64)
        self.states = states[:shown]
        T = states.shape[0]
        img = np.zeros((T, 1, 4), dtype=np.ubyte)
        for k, color in enumerate(STATE_COLORS):
            img[states == k, 0] = _rgba(color, 230)
        img[shown:] = 0
        self.setImage(img, levels=(0, 255))
        self.setRect(QtCore.QRectF(0.5, self.y0, T, self.y1 - self.y0))


class MatrixView(PlotPanel):
    """A probability matrix as a heat map with its numbers written in small matrices."""

    LEFT_AXIS_EM = 5.0  # room for the state names
    def __init__(self, title: str, x_label: str, y_label: str):
        super().__init__(title, x_label, y_label, legend=False)
        self.image = pg.ImageItem()
        self.image.setLookupTable(pg.colormap.get("viridis").getLookupTable(nPts=256))
        self.plot_item.addItem(self.image)
        self.plot_item.invertY(True)
        self.plot_item.setMouseEnabled(False, False)
        self.plot_item.hideButtons()
        self.texts: list[pg.TextItem] = []
        self.values = np.zeros((0, 0))
        self.setMinimumHeight(90)

    def _fit_height(self, s: theme.Style) -> None:
        self.setMinimumHeight(int(s.font_pt * 1.33 * 6))

    def set_labels(self, rows, cols) -> None:
        left, bottom = self.plot_item.getAxis("left"), self.plot_item.getAxis("bottom")
        left.setTicks([[(i, str(r)) for i, r in enumerate(rows)]])
        cols = [c if len(str(c)) <= 6 else str(c)[:4] + "." for c in cols]  # column labels share a cell's width
        if len(cols) > 8:  # many symbols: name the vowels only
            cols_shown = [(i, str(c)) for i, c in enumerate(cols) if str(c) in run.VOWELS]
        else:
            cols_shown = [(i, str(c)) for i, c in enumerate(cols)]
        bottom.setTicks([cols_shown])

    def set_matrix(self, values: np.ndarray, top: float = 1.0) -> None:
        """Draw ``values`` with the colour scale 0..top (learned and true matrices share one)."""
        values = np.asarray(values, dtype=float)
        self.values = values
        K, M = values.shape
        self.image.setImage(values.T, levels=(0.0, top), autoLevels=False)
        self.image.setRect(QtCore.QRectF(-0.5, -0.5, M, K))
        self.plot_item.setRange(xRange=(-0.5, M - 0.5), yRange=(-0.5, K - 0.5), padding=0)
        want = K * M if M <= 3 else 0  # numbers where the cells are wide enough to hold them
        while len(self.texts) < want:
            item = pg.TextItem("", anchor=(0.5, 0.5))
            self.plot_item.addItem(item)
            self.texts.append(item)
        s = theme.current()
        font = QtGui.QFont()
        font.setPointSizeF(s.font_pt * 0.85)
        for i, item in enumerate(self.texts):
            if i >= want:
                item.setVisible(False)
                continue
            r, c = divmod(i, M)
            v = values[r, c]
            item.setText(f"{v:.2f}", color="#000000" if v > 0.55 * top else "#FFFFFF")
            item.setFont(font)
            item.setPos(c, r)
            item.setVisible(True)


class HMMLab(Lab):
    id = "hmm"
    title = "Hidden Markov models"
    order = 75
    description = ("The dishonest casino: filtering roll by roll, smoothing and the Viterbi path, "
                   "the trellis, and learning the dice by Baum–Welch.")
    budget_mb = 256  # at the largest legal input: 20,000 symbols, the tables of 8 restarts
    chapter = "Sequences and text"
    summary = "The dishonest casino: filtering, smoothing, the Viterbi path, and Baum–Welch learning the dice."
    keywords = ("HMM", "hidden Markov model", "dishonest casino", "casino", "dice", "loaded die", "forward algorithm",
                "forward-backward", "filtering", "smoothing", "posterior", "Viterbi", "decoding", "trellis",
                "Baum-Welch", "EM", "transition matrix", "emission probabilities", "log-likelihood", "restarts",
                "vowels and consonants", "Hamlet")
    screenshot_steps = 300
    screenshot_tab = 0

    def init_state(self) -> None:
        self.matrices = run.casino_matrices()
        self._data = None
        self._shown_t = -1
        self._key = ""

    def parameter_specs(self):
        return [
            Param("preset", "Model", "choice", "casino", choices=run.PRESETS,
                  tooltip="The dishonest casino, a 2-state letter model learned from Hamlet, or your own dice"),
            Param("n_steps", "Symbols shown", "int", 300, minimum=20, maximum=2000, step=10,
                  tooltip="Rolls (or letters) read one by one"),
            Param("n_train", "Training length", "int", 2000, minimum=100, maximum=20000, step=100,
                  tooltip="Symbols Baum–Welch learns from (the shown ones first)"),
            Param("restarts", "Restarts", "int", 3, minimum=1, maximum=8,
                  tooltip="Baum–Welch runs from different random starts"),
            Param("max_iter", "Iterations", "int", 100, minimum=5, maximum=1000, step=5,
                  tooltip="Most Baum–Welch iterations per restart"),
            Param("bw_start", "First start", "choice", "random",
                  choices=[("random", "random matrices"), ("editor", "the edited matrices")],
                  tooltip="Where the first Baum–Welch restart begins (the edited matrices: dice models only)"),
        ]

    # ------------------------------------------------------------------ controls
    def build_controls(self, layout: QtWidgets.QVBoxLayout) -> None:
        box = QtWidgets.QGroupBox("Edited model (columns: fair, loaded)")
        self.editor_box = box
        grid = QtWidgets.QGridLayout(box)
        grid.setContentsMargins(4, 4, 4, 4)
        self.editors: dict[tuple, QtWidgets.QDoubleSpinBox] = {}
        rows = [("π (start)", "startprob", None)]
        rows += [(f"A: → {name}", "transmat", k) for k, name in enumerate(("fair", "loaded"))]
        rows += [(f"B: face {f}", "emissionprob", int(f) - 1) for f in run.FACES]
        for r, (label, key, index) in enumerate(rows):
            grid.addWidget(QtWidgets.QLabel(label), r, 0)
            for j in range(2):
                spin = QtWidgets.QDoubleSpinBox()
                spin.setRange(0.0, 1.0)
                spin.setDecimals(3)
                spin.setSingleStep(0.01)
                spin.setKeyboardTracking(False)
                spin.setToolTip("Each column's π row, A rows and B rows must sum to 1 (Normalise fixes it)")
                spin.valueChanged.connect(lambda value, key=key, j=j, index=index: self._edited(key, j, index, value))
                grid.addWidget(spin, r, 1 + j)
                self.editors[(key, j, index)] = spin
        # the knobs of the casino's lesson as sliders that keep every row summing to one
        self.sliders: dict[str, tuple[QtWidgets.QSlider, QtWidgets.QLabel]] = {}
        knobs = [("fair_to_loaded", "fair → loaded", 500), ("loaded_to_fair", "loaded → fair", 500),
                 ("loaded_six", "loaded P(6)", 1000)]
        r = len(rows)
        for name, label, top in knobs:
            slider = QtWidgets.QSlider(QtCore.Qt.Orientation.Horizontal)
            slider.setRange(0, top)
            slider.setToolTip(f"{label}: drag, or use the arrow keys (the other entries of the row follow)")
            value = QtWidgets.QLabel()
            grid.addWidget(QtWidgets.QLabel(label), r, 0)
            grid.addWidget(slider, r, 1)
            grid.addWidget(value, r, 2)
            slider.valueChanged.connect(lambda pos, name=name: self._slid(name, pos))
            slider.sliderReleased.connect(lambda name=name: self._slid(name, self.sliders[name][0].value()))
            self.sliders[name] = (slider, value)
            r += 1
        buttons = QtWidgets.QHBoxLayout()
        self.normalise_button = QtWidgets.QPushButton("Normalise")
        self.normalise_button.setToolTip("Scale every distribution so that it sums to 1")
        self.normalise_button.clicked.connect(self.normalise)
        self.casino_button = QtWidgets.QPushButton("Casino")
        self.casino_button.setToolTip("Put the dishonest casino's numbers back")
        self.casino_button.clicked.connect(lambda: self.set_matrices(run.casino_matrices()))
        buttons.addWidget(self.normalise_button)
        buttons.addWidget(self.casino_button)
        grid.addLayout(buttons, r, 0, 1, 3)
        layout.addWidget(box)
        self._load_editors()
        self.form.changed.connect(lambda *_: self._editor_visibility())
        self._editor_visibility()

    def _editor_visibility(self) -> None:
        v = self.form.values()
        self.editor_box.setVisible(v["preset"] == "custom" or (v["bw_start"] == "editor" and v["preset"] != "letters"))

    def _load_editors(self) -> None:
        for (key, j, index), spin in self.editors.items():
            m = self.matrices[key]
            value = m[j] if key == "startprob" else (m[j][index])
            spin.blockSignals(True)
            spin.setValue(float(value))
            spin.blockSignals(False)
        A, B = self.matrices["transmat"], self.matrices["emissionprob"]
        for name, value in (("fair_to_loaded", A[0][1]), ("loaded_to_fair", A[1][0]), ("loaded_six", B[1][5])):
            slider, label = self.sliders[name]
            slider.blockSignals(True)
            slider.setValue(int(round(1000 * min(max(float(value), 0.0), 1.0))))
            slider.blockSignals(False)
            label.setText(f"{float(value):.3f}")

    def _slid(self, name: str, pos: int) -> None:
        """A slider moved: set its entry and the rest of its row (a drag applies on release)."""
        slider, label = self.sliders[name]
        v = pos / 1000.0
        label.setText(f"{v:.3f}")
        if slider.isSliderDown():
            return
        m = {k: np.asarray(a, dtype=float) for k, a in self.matrices.items()}
        if name == "fair_to_loaded":
            m["transmat"][0] = [1.0 - v, v]
        elif name == "loaded_to_fair":
            m["transmat"][1] = [v, 1.0 - v]
        else:
            m["emissionprob"][1] = [(1.0 - v) / 5] * 5 + [v]
        self.set_matrices(m)

    def _edited(self, key: str, j: int, index, value: float) -> None:
        if key == "startprob":
            self.matrices[key][j] = float(value)
        else:
            self.matrices[key][j][index] = float(value)
        if self._uses_editor():
            self.reset()

    def _uses_editor(self) -> bool:
        v = self.form.values()
        return v["preset"] == "custom" or (v["bw_start"] == "editor" and v["preset"] != "letters")

    def normalise(self) -> None:
        m = self.matrices
        out = {}
        for key in ("startprob", "transmat", "emissionprob"):
            a = np.asarray(m[key], dtype=float)
            sums = a.sum(axis=-1, keepdims=True)
            a = np.where(sums > 0, a / np.where(sums > 0, sums, 1.0), 1.0 / a.shape[-1])
            out[key] = a.tolist()
        self.set_matrices(out)

    def set_matrices(self, matrices: dict) -> None:
        self.matrices = {k: np.asarray(v, dtype=float).tolist() for k, v in matrices.items()}
        self._load_editors()
        if self._uses_editor():
            self.reset()

    # ------------------------------------------------------------------ plots
    def build_plots(self) -> QtWidgets.QWidget:
        self.tabs = QtWidgets.QTabWidget()
        self.tabs.addTab(self._build_filter_tab(), "Filtering")
        self.tabs.addTab(self._build_trellis_tab(), "Trellis")
        self.tabs.addTab(self._build_learn_tab(), "Learning")
        self.tabs.setCurrentIndex(self.screenshot_tab)
        return self.tabs

    def _build_filter_tab(self) -> QtWidgets.QWidget:
        page = QtWidgets.QWidget()
        lay = QtWidgets.QVBoxLayout(page)
        lay.setContentsMargins(0, 0, 0, 0)
        self.strip = QtWidgets.QLabel()
        self.strip.setToolTip("The latest symbols, coloured by the true hidden state")
        self.strip.setTextFormat(QtCore.Qt.TextFormat.RichText)
        self.strip.setMinimumWidth(10)
        self.strip.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Preferred)
        lay.addWidget(self.strip)
        # One plot, so that it keeps most of a projector's height: the rolls as dots above the
        # probabilities (their face on the right axis), the true die as a band below them. No
        # legend box: the note under the plot names curves and colours (a box beside a narrow
        # plot would take its room, one over it would cover data).
        self.prob_panel = PlotPanel("P(loaded | rolls so far)", "roll t", "probability", legend=False)
        self.rolls_scatter = pg.ScatterPlotItem(pxMode=True)
        self.prob_panel.plot_item.addItem(self.rolls_scatter)
        self.prob_panel.plot_item.showAxis("right")
        self.filter_curve = self.prob_panel.curve("filtered")
        self.smooth_curve = self.prob_panel.curve("smoothed")
        self.prob_band = _Band(-0.16, -0.04)  # the truth
        self.rolls_band = self.prob_band
        self.viterbi_band = _Band(-0.32, -0.20)  # the Viterbi path, once the sequence has ended
        self.prob_panel.plot_item.addItem(self.prob_band)
        self.prob_panel.plot_item.addItem(self.viterbi_band)
        self.prob_panel.plot_item.setMouseEnabled(x=True, y=False)
        self.prob_panel.plot_item.enableAutoRange(False)
        self.prob_panel.plot_item.setYRange(-0.34, ROLL_Y0 + ROLL_SPAN + 0.06, padding=0)
        self.prob_panel.plot_item.getAxis("left").setTicks([[(0.0, "0"), (0.5, "0.5"), (1.0, "1")]])
        self.error_label = _Note(3)
        lay.addWidget(self.prob_panel, 1)
        lay.addWidget(self.error_label)
        return page

    def _build_trellis_tab(self) -> QtWidgets.QWidget:
        page = QtWidgets.QWidget()
        lay = QtWidgets.QVBoxLayout(page)
        lay.setContentsMargins(0, 0, 0, 0)
        row = QtWidgets.QHBoxLayout()
        row.addWidget(QtWidgets.QLabel("Window starts at t ="))
        self.window_box = QtWidgets.QSpinBox()
        self.window_box.setRange(1, 1)
        self.window_box.setToolTip(f"The {run.WINDOW} trellis columns shown (after the back-track)")
        self.window_box.valueChanged.connect(lambda *_: self._draw_trellis(self.runner.current))
        row.addWidget(self.window_box)
        row.addStretch(1)
        lay.addLayout(row)
        self.trellis_panel = PlotPanel(f"Viterbi trellis, {run.WINDOW} steps", "step t", "state", legend=False)
        pi = self.trellis_panel.plot_item
        pi.setMouseEnabled(False, False)
        pi.hideButtons()
        self.trellis_edges = pg.PlotCurveItem(connect="pairs")
        self.trellis_path = pg.PlotCurveItem()
        self.trellis_nodes = pg.ScatterPlotItem(pxMode=True)
        for item in (self.trellis_edges, self.trellis_path, self.trellis_nodes):
            pi.addItem(item)
        self.trellis_symbols: list[pg.TextItem] = []
        for _ in range(run.WINDOW):
            t = pg.TextItem("", anchor=(0.5, 1.0))
            pi.addItem(t)
            self.trellis_symbols.append(t)
        self.trellis_label = _Note()
        lay.addWidget(self.trellis_panel, 1)
        lay.addWidget(self.trellis_label)
        return page

    def _build_learn_tab(self) -> QtWidgets.QWidget:
        page = QtWidgets.QWidget()
        lay = QtWidgets.QVBoxLayout(page)
        lay.setContentsMargins(0, 0, 0, 0)
        self.A_learned = MatrixView("A learned", "", "")
        self.A_true = MatrixView("A true", "", "")
        self.B_learned = MatrixView("B learned", "", "")
        self.B_true = MatrixView("B true", "", "")
        grid = QtWidgets.QGridLayout()
        grid.setContentsMargins(0, 0, 0, 0)
        grid.addWidget(self.A_learned, 0, 0)
        grid.addWidget(self.A_true, 0, 1)
        grid.addWidget(self.B_learned, 1, 0)
        grid.addWidget(self.B_true, 1, 1)
        self.ll_panel = PlotPanel("Log-likelihood per iteration", "iteration", "log P(x)", legend_corner="top")
        self.learn_label = _Note(3)
        lay.addLayout(grid, 2)
        lay.addWidget(self.ll_panel, 2)
        lay.addWidget(self.learn_label)
        return page

    def on_param_changed(self, name: str) -> None:
        """A new preset brings its own default length: letters switch state almost every
        letter, so 300 of them make an unreadable picture where 300 rolls make a clear one."""
        if name == "preset":
            preset, n = self.form.value("preset"), self.form.value("n_steps")
            want = {300: LETTERS_SHOWN} if preset == "letters" else {LETTERS_SHOWN: 300}
            if n in want:
                self.form.blockSignals(True)
                try:
                    self.form.set_value("n_steps", want[n])
                finally:
                    self.form.blockSignals(False)
        self.reset()

    # ------------------------------------------------------------------ run
    def make_run(self, params: dict, seed: int):
        preset = params["preset"]
        matrices = None
        if preset == "custom" or (params["bw_start"] == "editor" and preset != "letters"):
            matrices = {k: np.asarray(v, dtype=float).tolist() for k, v in self.matrices.items()}
            run.check_matrices(matrices, 2, 6)  # a ValueError is shown in the banner; the edits stay
        args = (preset, int(params["n_steps"]), int(params["n_train"]), int(params["restarts"]),
                int(params["max_iter"]), params["bw_start"], int(seed), matrices)
        return lambda: run.run_steps(*args)

    def show_idle(self) -> None:
        for s in (self.filter_curve, self.smooth_curve):
            s.clear()
        self.ll_panel.clear_series()
        self._data = None
        self._shown_t = -1
        self.error_label.setText("")

    def _set_data(self, data: run.RunData) -> None:
        self._data = data
        T = data.T
        letters = data.preset == "letters"
        unit = "letter" if letters else "roll"
        focus = data.state_names[data.focus]
        self.prob_panel._x_label = f"{unit} t"
        self.prob_panel.set_title(f"P({focus} | {unit}s so far)")
        colors = theme.CATEGORICAL
        self._key = (
            f"<span style='color:{STATE_COLORS[0]}'>■</span> {data.state_names[0]} &nbsp; "
            f"<span style='color:{STATE_COLORS[1]}'>■</span> {data.state_names[1]}: "
            "the truth (upper band), Viterbi (lower band)<br>"
            f"<span style='color:{colors[0]}'>━</span> filtered &nbsp; "
            f"<span style='color:{colors[1]}'>╍</span> smoothed &nbsp; "
            f"● {unit}s ({data.symbol_names[0]}–{data.symbol_names[-1]})<br>")
        self.prob_panel.apply_style()
        first, last = data.symbol_names[0], data.symbol_names[-1]
        self.prob_panel.plot_item.getAxis("right").setTicks(
            [[(ROLL_Y0, first), (ROLL_Y0 + ROLL_SPAN, last)]])
        self.prob_panel.plot_item.setXRange(0.5, T + 0.5, padding=0.01)
        self.window_box.blockSignals(True)
        self.window_box.setRange(1, max(T - run.WINDOW + 1, 1))
        self.window_box.setValue(data.window + 1)
        self.window_box.blockSignals(False)
        names = data.state_names
        self.A_true.set_labels(names, names)
        self.A_learned.set_labels(names, names)
        self.B_true.set_labels(names, data.symbol_names)
        self.B_learned.set_labels(names, data.symbol_names)
        self.A_true.set_matrix(data.A)
        self.B_true.set_matrix(data.B, self._b_top(data))
        self.A_learned.set_matrix(np.full_like(data.A, np.nan))
        self.B_learned.set_matrix(np.full_like(data.B, np.nan), self._b_top(data))
        self.trellis_panel.plot_item.getAxis("left").setTicks([[(k, n) for k, n in enumerate(names)]])

    def render(self, snapshot, prepared, history) -> None:
        data = snapshot.data
        if data is not self._data:
            self.show_idle()
            self._set_data(data)
        t = snapshot.t if snapshot.stage == "filter" else data.T
        self._draw_filter(data, t, snapshot, history)
        self._draw_trellis(snapshot)
        self._draw_learning(snapshot, history)

    # --- filtering tab
    def _draw_filter(self, data, t: int, snapshot, history) -> None:
        if t != self._shown_t:
            x = data.x[:t]
            ts = np.arange(1, t + 1)
            s = theme.current()
            self.rolls_scatter.setData(ts, roll_height(x, data.M), size=max(4.0, s.marker_size * 0.5),
                                       pen=None, brush=pg.mkBrush(s.foreground))
            self.prob_band.set_states(data.z, t)
            self._draw_strip(data, t)
        if history.rewound or t < self._shown_t or self._shown_t < 0:
            self.filter_curve.clear()
            if t:
                self.filter_curve.extend(np.arange(1, t + 1), data.filtered[:t, data.focus])
        elif t > self._shown_t:
            ts = [h.t for h in history.added if h.stage == "filter" and h.t > max(self._shown_t, 0)]
            if ts and ts[0] == max(self._shown_t, 0) + 1 and ts[-1] == t:
                self.filter_curve.extend(ts, [float(data.filtered[k - 1, data.focus]) for k in ts])
            else:
                self.filter_curve.clear()
                self.filter_curve.extend(np.arange(1, t + 1), data.filtered[:t, data.focus])
        decoded = snapshot.stage != "filter"
        if decoded and self.smooth_curve.n == 0:
            ts = np.arange(1, data.T + 1)
            self.smooth_curve.set(ts, data.smoothed[:, data.focus])
            self.viterbi_band.set_states(data.path, data.T)
        elif not decoded and self.smooth_curve.n:
            self.smooth_curve.clear()
        if not decoded and self.viterbi_band.states.size:
            self.viterbi_band.set_states(data.path, 0)
        self._shown_t = t
        if decoded:
            e = data.errors
            self.error_label.setText(
                f"{self._key}Errors: filtering {100 * e['filtering']:.1f} %, "
                f"smoothing {100 * e['smoothing']:.1f} %, Viterbi {100 * e['Viterbi']:.1f} %")
        else:
            self.error_label.setText(f"{self._key}Read {t} of {data.T}; smoothing and the Viterbi path follow "
                                     "the last one.")

    def _draw_strip(self, data, t: int) -> None:
        letters = data.preset == "letters"
        s = theme.current()
        size = int(round(s.font_pt * (2.0 if not letters else 1.6)))
        font = QtGui.QFont(self.strip.font())
        font.setPointSize(size)
        advance = max(QtGui.QFontMetrics(font).horizontalAdvance("⚅" if not letters else "m") + 2, 8)
        n = max(5, min(60, (max(self.strip.width(), 300) - 20) // advance))
        lo = max(t - n, 0)
        cells = []
        for i in range(lo, t):
            sym = int(data.x[i])
            glyph = data.symbol_names[sym] if letters else DIE_GLYPHS[sym]
            cells.append(f"<span style='color:{STATE_COLORS[int(data.z[i])]}'>{glyph}</span>")
        head = "letters" if letters else "rolls"
        if not cells:
            self.strip.setText(f"<span style='font-size:{s.font_pt:.0f}pt'>The {head} appear here.</span>")
            return
        self.strip.setText(f"<span style='font-size:{size}pt'>{''.join(cells)}</span>")

    # --- trellis tab
    def _draw_trellis(self, snapshot) -> None:
        if snapshot is None or self._data is None:
            return
        data = self._data
        stage = snapshot.stage
        if stage in ("filter", "decode"):
            for item in (self.trellis_nodes, self.trellis_edges, self.trellis_path):
                item.setData([], [])
            for tx in self.trellis_symbols:
                tx.setText("")
            self.trellis_label.setText("The trellis fills column by column after smoothing (next stage).")
            return
        W = run.WINDOW
        if stage == "trellis" and snapshot.t < data.T:
            filled = snapshot.t + 1
            lo = max(filled - W, 0)
            lit = False
        else:
            filled = data.T
            lo = min(self.window_box.value() - 1, max(data.T - W, 0))
            lit = True
        hi = min(lo + W, filled)
        s = theme.current()
        K = data.K
        xs, ys, sizes, brushes = [], [], [], []
        ex, ey = [], []
        for t in range(lo, hi):
            col = data.log_delta[t]
            rel = np.exp(col - col.max())
            for k in range(K):
                xs.append(t + 1)
                ys.append(k)
                sizes.append(6 * s.scale + 22 * s.scale * math.sqrt(float(rel[k])))
                brushes.append(pg.mkBrush(STATE_COLORS[k % 2]))
                if t > lo:
                    ex += [t, t + 1]
                    ey += [int(data.psi[t, k]), k]
        self.trellis_nodes.setData(xs, ys, size=sizes, brush=brushes, pen=pg.mkPen(s.foreground, width=1))
        self.trellis_edges.setData(ex, ey, pen=pg.mkPen(s.foreground, width=max(1.0, s.scale)))
        if lit:
            ts = np.arange(lo, hi)
            self.trellis_path.setData(ts + 1, data.path[lo:hi].astype(float),
                                      pen=pg.mkPen(PATH_COLOR, width=4 * s.scale))
        else:
            self.trellis_path.setData([], [])
        font = QtGui.QFont()
        font.setPointSizeF(s.font_pt)
        for i, tx in enumerate(self.trellis_symbols):
            t = lo + i
            if t < hi:
                sym = int(data.x[t])
                tx.setText(data.symbol_names[sym], color=s.foreground)
                tx.setFont(font)
                tx.setPos(t + 1, K - 0.55)
            else:
                tx.setText("")
        pi = self.trellis_panel.plot_item
        pi.setXRange(lo + 0.3, lo + W + 0.7, padding=0)  # room for the largest nodes at both ends
        pi.setYRange(-0.6, K - 0.2 + 0.3 * s.scale, padding=0)
        if lit:
            self.trellis_label.setText(
                f"Node size grows with δ; lines: best incoming edges. Back-tracked path (red) through steps "
                f"{lo + 1}–{hi}: z*<sub>t−1</sub> = ψ<sub>t</sub>(z*<sub>t</sub>);"
                f" max log P(x, z) = {data.log_prob:.2f}. Choose the window above.")
        else:
            self.trellis_label.setText(f"Filling column {filled} of {data.T}: node size grows with δ, each node keeps "
                                       "its best incoming edge.")

    # --- learning tab
    def _draw_learning(self, snapshot, history) -> None:
        data = self._data
        if history.rewound:
            self.ll_panel.clear_series()
        added = [h for h in (history.added if not history.rewound else list(history))
                 if h.stage == "learn" and h.bw is not None]
        for h in added:
            self.ll_panel.curve(f"restart {h.restart + 1}").extend([h.bw.step], [h.bw.log_likelihood])
        if added:
            true = self._true_ll()
            last = max(max(s.x[-1] for s in self.ll_panel.series.values() if s.n and s is not true), 1)
            true.set([0, last], [data.log_likelihood_train] * 2)
        bw = snapshot.bw
        if bw is None:
            self.A_learned.set_matrix(np.full_like(data.A, np.nan))
            self.B_learned.set_matrix(np.full_like(data.B, np.nan), self._b_top(data))
            self.learn_label.setText("Baum–Welch starts after the trellis (or step there with the run bar).")
            return
        self.A_learned.set_matrix(bw.transmat)
        self.B_learned.set_matrix(bw.emissionprob, self._b_top(data))
        perm = run.best_permutation(np.asarray(bw.emissionprob), data.B)
        switched = perm != sorted(perm)
        self.learn_label.setText(
            f"Restart {snapshot.restart + 1} of {data.n_restarts}, iteration {bw.step}: "
            f"log P(x) = {bw.log_likelihood:.2f} (true model {data.log_likelihood_train:.2f}); "
            + ("learned states come out swapped (label switching)." if switched else "states in the true order.")
            + self._stop_note(bw)
            + self._finals(snapshot.restart))

    def _stop_note(self, bw) -> str:
        if not bw.converged:
            return ""
        if bw.step >= int(self.run_params.get("max_iter", 0) or 0):
            return " Stopped at the iteration limit, still climbing."
        return " Converged: the last iteration gained less than 10⁻⁶."

    def _finals(self, current: int) -> str:
        """The log-likelihood each earlier restart stopped at: different starts, different optima."""
        done = []
        for r in range(current):
            series = self.ll_panel.series.get(f"restart {r + 1}")
            if series is not None and series.n:
                done.append(f"{r + 1}: {series.y[-1]:.2f}")
        return "<br>Earlier restarts stopped at " + ", ".join(done) if done else ""

    @staticmethod
    def _b_top(data) -> float:
        """Top of the emission maps' colour scale: the largest true emission, rounded up to 0.1."""
        return float(min(1.0, np.ceil(10 * data.B.max()) / 10))

    def _true_ll(self):
        """The true model's log-likelihood as a dashed reference line (black: not a restart's colour)."""
        return self.ll_panel.curve("true model", color=theme.OKABE_ITO["black"], dash=2)

    def maths_html(self, snapshot) -> str:
        return maths.maths_html(snapshot)

    def main_plot(self):
        return self.prob_panel

    def apply_style(self, s: theme.Style) -> None:
        if self._data is not None and self.runner.current is not None:
            self._shown_t = -2  # redraw the rolls with the new marker size

    # ------------------------------------------------------------------ sessions and export
    def user_data(self) -> dict:
        return {"matrices": {k: np.asarray(v, dtype=float).tolist() for k, v in self.matrices.items()}}

    def set_user_data(self, data: dict) -> None:
        m = data.get("matrices")
        if m is None:
            return
        if not isinstance(m, dict):
            raise ValueError("the saved model must be a mapping of startprob, transmat and emissionprob")
        shapes = {"startprob": (2,), "transmat": (2, 2), "emissionprob": (2, 6)}
        clean = {}
        for key, shape in shapes.items():
            try:
                a = np.asarray(m.get(key), dtype=float)
            except (TypeError, ValueError):
                raise ValueError(f"the saved {key} must be numbers") from None
            if a.shape != shape or not np.all(np.isfinite(a)) or a.min() < 0 or a.max() > 1:
                raise ValueError(f"the saved {key} must be probabilities of shape {shape}")
            clean[key] = a.tolist()
        self.matrices = clean
        self._load_editors()

    def export_rows(self):
        data = self._data
        if data is None:
            return [], []
        focus = data.state_names[data.focus]
        header = ["t", "symbol", "true state", f"filtered P({focus})", f"smoothed P({focus})", "Viterbi state"]
        rows = [
            [t + 1, data.symbol_names[int(data.x[t])], data.state_names[int(data.z[t])],
             float(data.filtered[t, data.focus]), float(data.smoothed[t, data.focus]),
             data.state_names[int(data.path[t])]]
            for t in range(data.T)
        ]
        return header, rows
