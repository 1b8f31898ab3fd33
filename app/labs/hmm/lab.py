"""Hidden Markov models: the dishonest casino, filtering, smoothing, Viterbi and Baum-Welch."""

from __future__ import annotations

import html
import math

import numpy as np
import pyqtgraph as pg
from PySide6 import QtGui, QtWidgets

from app import style as theme
from app.lab import Lab
from app.widgets.params import Param

from . import maths, run
from .editor import ModelEditor
from .tabs import FilterTab, LearningTab, TrellisTab
from .views import DIE_GLYPHS, PATH_COLOR, ROLL_SPAN, ROLL_Y0, STATE_COLORS, roll_height

LETTERS_SHOWN = 80  # letters shown by default (the letter model switches state every letter or two)


class HMMLab(ModelEditor, FilterTab, TrellisTab, LearningTab, Lab):
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
        self._trellis_shown = None  # what the trellis tab shows: it is drawn again only when that changes
        self._key = ""
        self._ends = {}  # restart -> its last Baum-Welch snapshot

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
            Param("max_iter", "Iterations", "int", 300, minimum=5, maximum=1000, step=5,
                  tooltip="Most Baum–Welch iterations per restart"),
            Param("bw_start", "First start", "choice", "random",
                  choices=[("random", "random matrices"), ("editor", "the edited matrices")],
                  tooltip="Where the first Baum–Welch restart begins (the edited matrices: dice models only)"),
        ]

    # ------------------------------------------------------------------ controls
    def build_controls(self, layout: QtWidgets.QVBoxLayout) -> None:
        self._build_editor(layout)

    # ------------------------------------------------------------------ plots
    def build_plots(self) -> QtWidgets.QWidget:
        self.tabs = QtWidgets.QTabWidget()
        self.tabs.addTab(self._build_filter_tab(), "Filtering")
        self.tabs.addTab(self._build_trellis_tab(), "Trellis")
        self.tabs.addTab(self._build_learn_tab(), "Learning")
        self.tabs.setCurrentIndex(self.screenshot_tab)
        return self.tabs

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
        self._trellis_shown = None
        self._ends = {}
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
            self._trellis_shown = None
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
        shown = (id(data), lo, hi, lit)
        if shown == self._trellis_shown:
            return  # the same columns (a Baum–Welch step leaves the finished trellis as it is)
        self._trellis_shown = shown
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
            self._ends = {}
        added = [h for h in (history.added if not history.rewound else list(history))
                 if h.stage == "learn" and h.bw is not None]
        for h in added:
            self.ll_panel.curve(f"restart {h.restart + 1}").extend([h.bw.step], [h.bw.log_likelihood])
            if h.learn.finished:
                self._ends[h.restart] = h
        if added:
            true = self._true_ll()
            last = max(max(s.x[-1] for s in self.ll_panel.series.values() if s.n and s is not true), 1)
            true.set([0, last], [data.log_likelihood_train] * 2)
            self._zoom_ll(data)
        bw = snapshot.bw
        if bw is None:
            self.A_learned.set_matrix(np.full_like(data.A, np.nan))
            self.B_learned.set_matrix(np.full_like(data.B, np.nan), self._b_top(data))
            self.learn_label.setText("Baum–Welch starts after the trellis (or step there with the run bar).")
            return
        perm = list(snapshot.learn.perm)  # drawn in the true states' order, beside the truth
        self.A_learned.set_matrix(np.asarray(bw.transmat)[np.ix_(perm, perm)])
        self.B_learned.set_matrix(np.asarray(bw.emissionprob)[perm], self._b_top(data))
        self.learn_label.setText(self.learn_caption(snapshot))

    def _zoom_ll(self, data) -> None:
        """The log-likelihood axis spans the restarts from their first iteration on and the true
        model: the random starts (iteration 0) lie far below and would flatten the differences
        between optima to a pixel."""
        true = self._true_ll()
        lows, highs = [data.log_likelihood_train], [data.log_likelihood_train]
        for series in self.ll_panel.series.values():
            if series is true or not series.n:
                continue
            ys = series.y[series.x >= 1]
            if ys.size:
                lows.append(float(ys.min()))
                highs.append(float(ys.max()))
        lo, hi = min(lows), max(highs)
        pad = max(0.08 * (hi - lo), 1.0)
        item = self.ll_panel.plot_item
        item.enableAutoRange(y=False)
        item.setYRange(lo - pad, hi + pad, padding=0)

    def learn_caption(self, snapshot) -> str:
        """The Learning tab's note for a Baum–Welch snapshot: the restart's status and its model
        against the truth (the maths panel's words), and where the earlier restarts ended."""
        return (f"Restart {snapshot.restart + 1}/{snapshot.data.n_restarts}, iteration {snapshot.bw.step}: "
                f"{html.escape(maths.status_text(snapshot.learn))}.<br>{html.escape(maths.truth_text(snapshot))}"
                + self._finals(snapshot.restart))

    def _finals(self, current: int) -> str:
        """Where each earlier restart ended: different starts, different ends."""
        done = []
        for r in range(current):
            end = self._ends.get(r)
            if end is not None:
                how = "limit" if end.learn.status == "limit" else "converged"
                done.append(f"{r + 1}: {maths.log_likelihood_text(end.bw.log_likelihood)}, {how}, "
                            f"{end.learn.off:.2f} off")
        return "<br>Earlier: " + "; ".join(done) + "." if done else ""

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
            self._trellis_shown = None

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
