"""The n-gram lab: a model counts the corpus, then writes text token by token. The next-token
distribution, the context it conditions on and the spans copied verbatim from the corpus are
drawn live; two analysis runs compare N = 1..4 samples and held-out perplexity against N."""

from __future__ import annotations

import html
import math
import os
from typing import Callable, Iterator

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from smlengine.datasets import list_plays

from ... import style as theme
from ...lab import Lab
from ...tasks import start_thread
from ...widgets.params import Param
from . import maths, run
from .run import SMOOTHING_LABELS
from .tabs import ORDER_NAMES, GenerateTab, LearningTab, PerplexityTab, tokens_above_bars
from .text_view import current_color, tint_color, verbatim_mask

TAB_INDEX = {"generate": 0, "learning": 1, "perplexity": 2}


def show_token(tok: str) -> str:
    """A token as a bar label: line ends and spaces made visible."""
    if tok == "</s>":
        return "¶ (line end)"
    if tok == " ":
        return "␣ (space)"
    return tok


class NGramsLab(GenerateTab, LearningTab, PerplexityTab, Lab):
    id = "ngrams"
    title = "n-gram text generation"
    order = 60
    description = "Count n-grams in Shakespeare, then write new text one token at a time."
    chapter = "Sequences and text"
    summary = "n-gram models count Shakespeare and write new text; smoothing, perplexity and Zipf's law."
    keywords = ("n-gram", "bigram", "trigram", "language model", "Markov chain", "Shakespeare", "Hamlet",
                "text generation", "smoothing", "Laplace", "add-k", "Kneser-Ney", "maximum likelihood", "temperature",
                "top-k", "sampling", "perplexity", "entropy", "Zipf", "Zipf's law", "tokens", "characters",
                "overfitting", "plagiarism")
    screenshot_steps = 98
    self_test_steps = 8

    # ------------------------------------------------------------------ building
    def init_state(self) -> None:
        self._mode = "generate"  # which run the buttons asked for: generate, learning, perplexity
        self._generate_note = None  # the other run the "Generated text" tab says is playing
        self._file_path = ""  # the opened text file (saved in sessions)
        self._tokens: list = []  # token snapshots drawn so far, appended frame by frame
        self._zipf_shown = None

    def parameter_specs(self):
        corpora = [("shakespeare", "All of Shakespeare (38 plays)")]
        corpora += [(f"play:{t}", t) for t in list_plays()]
        corpora.append(("file", "Opened text file…"))
        return [
            # Default: one play, so every step stays short (all 38 plays: counting one order
            # of n-grams takes up to a second in a single step of the engine).
            Param("corpus", "Corpus", "choice", "play:Macbeth", choices=corpora,
                  tooltip="The training text: all plays (about 1.2 million words), one play, or a UTF-8 .txt "
                          "opened with Open text file…"),
            Param("level", "Tokens", "choice", "word", choices=[("word", "words"), ("char", "characters")],
                  tooltip="words (and punctuation marks) or single characters; a line end is the token ¶"),
            Param("n", "Order N", "int", 3, minimum=1, maximum=5,
                  tooltip="An N-gram model conditions each token on the N − 1 tokens before it (N = 1: bag of words)"),
            Param("smoothing", "Smoothing", "choice", "mle",
                  choices=[("mle", "none (maximum likelihood)"), ("laplace", "add-k (Laplace)"),
                           ("kneser-ney", "Kneser–Ney (interpolated)")],
                  tooltip="How unseen n-grams get probability"),
            Param("k", "Pseudo-count k", "float", 1.0, minimum=0.0, maximum=10.0, step=0.1, decimals=2,
                  tooltip="add-k: (c(h w) + k) / (c(h ·) + k|V|); k = 1 is Laplace",
                  visible_when=lambda v: v["smoothing"] == "laplace"),
            Param("discount", "Discount D", "float", 0.75, minimum=0.05, maximum=1.0, step=0.05, decimals=2,
                  tooltip="Kneser–Ney absolute discount subtracted from every seen count",
                  visible_when=lambda v: v["smoothing"] == "kneser-ney"),
            Param("temperature", "Temperature", "float", 1.0, minimum=0.0, maximum=5.0, step=0.1, decimals=2,
                  tooltip="Sample from p^(1/T): T < 1 sharper, T > 1 flatter, T = 0 always the most probable token"),
            Param("top_k", "Top-k", "int", 0, minimum=0, maximum=10000,
                  tooltip="Sample only among the k most probable tokens (0 = all)"),
            Param("length", "Length (tokens)", "int", 200, minimum=1, maximum=2000, step=50,
                  tooltip="Number of tokens to generate"),
        ]

    def build_controls(self, layout: QtWidgets.QVBoxLayout) -> None:
        self.open_button = QtWidgets.QPushButton("Open text file…")
        self.open_button.setToolTip("Train on any UTF-8 .txt file (read on a background thread)")
        self.open_button.clicked.connect(self._open_dialog)
        self.file_label = QtWidgets.QLabel("no file opened")
        self.file_label.setWordWrap(True)
        layout.addWidget(self.open_button)
        layout.addWidget(self.file_label)
        box = QtWidgets.QGroupBox("Run")
        bl = QtWidgets.QVBoxLayout(box)
        self.generate_button = QtWidgets.QPushButton("Generate text")
        self.generate_button.setToolTip("Fit the model with the settings above and write text token by token")
        self.learning_button = QtWidgets.QPushButton("Learning (N = 1…4)")
        self.learning_button.setToolTip("Unigram, bigram, trigram and 4-gram samples side by side, same seed")
        self.perplexity_button = QtWidgets.QPushButton("Perplexity vs N")
        self.perplexity_button.setToolTip("Held-out perplexity for N = 1…5 and every smoothing (90/10 split of the "
                                          "lines), entropy and Zipf plot of the corpus; about half a minute on all "
                                          "of Shakespeare, a second or two on one play")
        for b, mode in ((self.generate_button, "generate"), (self.learning_button, "learning"),
                        (self.perplexity_button, "perplexity")):
            b.clicked.connect(lambda _=False, m=mode: self.run_mode(m))
            bl.addWidget(b)
        layout.addWidget(box)

    def build_plots(self) -> QtWidgets.QWidget:
        self.tabs = QtWidgets.QTabWidget()
        self.tabs.addTab(self._build_generate_tab(), "Generated text")
        self.tabs.addTab(self._build_learning_tab(), "Learning Shakespeare")
        self.tabs.addTab(self._build_perplexity_tab(), "Perplexity, entropy, Zipf")
        return self.tabs

    # ------------------------------------------------------------------ controls
    def run_mode(self, mode: str) -> None:
        """Switch between text generation and the two analysis runs, and play it (a button
        press asks for the result; Pause and Step still work as usual)."""
        if mode not in run.RUNS:
            raise ValueError(f"unknown mode {mode!r}")
        self._mode = mode
        self.tabs.setCurrentIndex(TAB_INDEX[mode])
        self.start(play=True)

    @property
    def mode(self) -> str:
        return self._mode

    def _open_dialog(self) -> None:
        path = self.ask_open_path("Open a text file", "Text files (*.txt);;All files (*)")
        if path:
            self.open_file(path)

    def open_file(self, path: str, wait: bool = False) -> bool | None:
        """Train on a text file and start playing. The file is read, checked and tokenized on a
        side task first (progress under the text); only then does the lab switch its corpus
        to it, so a file that cannot be used changes nothing and its problem (missing, empty,
        binary, not UTF-8) goes to the banner. ``wait=True`` (scripts, tests) blocks until it is
        read and returns whether it was taken."""
        path = str(path)
        outcome: list[bool] = []

        def taken(_key) -> None:
            outcome.append(True)
            self._file_path = path
            self.file_label.setText(f"file: {html.escape(os.path.basename(path))}")
            self.file_label.setToolTip(path)
            self.form.set_values({"corpus": "file"})  # quietly: the run starts just below
            self.start(play=True)

        def refused(message: str) -> None:
            outcome.append(False)
            self.show_error(f"{os.path.basename(path)}: {message}" if os.path.basename(path) not in message
                            else message)

        def progress(fraction: float, phase: str) -> None:
            self.status_label.setText(f"{html.escape(os.path.basename(path))}: {phase} {fraction:.0%}")

        task = self.task("open-file", on_done=taken, on_error=refused, on_progress=progress)
        task.start(run.read_text_source, path, self.params()["level"])
        if not wait:
            return None
        if not task.wait(120):
            task.cancel()
            return False
        return bool(outcome and outcome[0])

    # ------------------------------------------------------------------ running
    def make_run(self, params: dict, seed: int) -> Callable[[], Iterator]:
        p = dict(params)
        if p["corpus"] == "file" and not self._file_path:
            raise ValueError("No text file opened yet: press “Open text file…” and choose a UTF-8 .txt file, "
                             "or choose Shakespeare as the corpus.")
        key = run.source_key(p["corpus"], self._file_path)
        mode, seed = self._mode, int(seed)
        return lambda: run.run_steps(mode, p, key, seed, start_thread=start_thread)

    def show_idle(self) -> None:
        self._zipf_shown = None
        self._tokens = []
        self.text.clear()
        self.bars.setOpts(x0=[], y=[], width=[], brushes=[])
        self.context_label.setText("")
        self.status_label.setText("")
        for label in self.bar_labels:
            label.setText("")
        self._update_legend(theme.current(), int(self.params()["n"]))  # the N of the run about to start

    #: what each run is called where another run's tab says which one the run bar drives
    RUN_NAMES = {"learning": "the “Learning (N = 1…4)” run", "perplexity": "the “Perplexity vs N” run"}

    def render(self, snapshot, prepared, history) -> None:
        if snapshot.mode == "generate":
            self._render_generate(snapshot, history)
            return
        self._note_generate_idle(snapshot.mode)
        if snapshot.mode == "learning":
            self._render_learning(snapshot)
        else:
            self._render_perplexity(snapshot)

    def _note_generate_idle(self, mode: str) -> None:
        """The "Generated text" tab while another run plays: empty, and saying so (never an
        earlier run's text and token under a run bar that drives something else)."""
        if self._generate_note == mode:
            return
        self._generate_note = mode
        self._tokens = []
        self.text.clear()
        self.bars.setOpts(x0=[], y=[], width=[], brushes=[])
        for label in self.bar_labels:
            label.setText("")
        self.context_label.setText("")
        self.status_label.setText(f"The run bar drives {self.RUN_NAMES.get(mode, 'another run')} now. "
                                  "Press “Generate text” to write text here again.")

    # --- generate
    @staticmethod
    def _token_history(history) -> list:
        return [h for h in history if h.kind == "token"]

    def generated_text(self, history=None) -> str:
        """The text written so far (up to the snapshot shown)."""
        history = self.runner.history() if history is None else history
        return "".join(h.piece for h in self._token_history(history))

    def _render_generate(self, snap, history) -> None:
        s = theme.current()
        self._generate_note = None
        if history.rewound:
            self._tokens = []
            self.text.clear()
        self._tokens.extend(h for h in history.added if h.kind == "token")
        toks = self._tokens
        if snap.kind != "token":
            self.status_label.setText(f"<i>{html.escape(snap.phase)}…</i> ({100 * (snap.progress or 0):.0f} %)")
        else:
            p = snap.params
            self.status_label.setText(
                f"{ORDER_NAMES.get(snap.n, f'{snap.n}-gram')} model, {SMOOTHING_LABELS[p['smoothing']]}, "
                f"trained on {snap.n_tokens:,} tokens (|V| = {snap.vocab_size:,}) · token {snap.index + 1} of "
                f"{p['length']} · longest verbatim run {snap.longest_span}")
        self.text.show(toks, s)
        self._bars_snap = snap
        self._draw_bars(snap, s)

    def verbatim_mask(self, toks) -> np.ndarray:
        """True for tokens inside a run of ≥ N + 1 tokens copied verbatim from the corpus."""
        return np.array(verbatim_mask(toks), bool)

    def _update_legend(self, s: theme.Style, n: int) -> None:
        self.legend_label.setText(
            f"<span style='background-color:{tint_color(s)}; color:{s.foreground}'>&nbsp;tinted&nbsp;</span> "
            f"copied verbatim from the corpus (a run of ≥ N + 1 = {n + 1} tokens) · "
            f"<span style='background-color:{current_color(s)}; color:#000000'><b>&nbsp;current token&nbsp;</b></span>")

    def _draw_bars(self, snap, s: theme.Style) -> None:
        pi = self.bar_plot.getPlotItem()
        if snap.kind != "token":
            self.bars.setOpts(x0=[], y=[], width=[], brushes=[])
            self.context_label.setText("")
            return
        keep = np.asarray(snap.top_probs, float) > 0  # a context with few continuations: no empty bars
        probs = np.asarray(snap.top_probs, float)[keep]
        tokens = [t for t, kept in zip(snap.top_tokens, keep) if kept]
        # a short plot (projector fonts, small screen) shows as many of the top tokens as have a
        # readable row each, not all fifteen squashed: the sampled token's rank is in the text above
        rows = self._bars_shown = self.bar_rows(s)
        probs, tokens = probs[:rows], tokens[:rows]
        k = len(probs)
        above = tokens_above_bars(s)
        # a token written above its bar: the bar takes the row's lower half
        y = np.arange(k, dtype=float) + (0.25 if above else 0.0)
        brushes = [pg.mkBrush(theme.NEG_COLOR if i == snap.sampled_rank else theme.POS_COLOR) for i in range(k)]
        self.bars.setOpts(x0=np.zeros(k), y=y, width=probs, height=0.42 if above else 0.75, brushes=brushes,
                          pen=pg.mkPen(s.foreground, width=max(1.0, 0.5 * s.scale)))
        axis = pi.getAxis("left")
        axis.setStyle(showValues=not above)
        if above:
            axis.setTicks([[], []])  # the names are written above the bars
            for i, t in enumerate(tokens):
                label = self.token_label(i)
                color = theme.NEG_COLOR if i == snap.sampled_rank else s.foreground
                weight = "bold" if i == snap.sampled_rank else "normal"
                label.setHtml(f"<span style='color:{color}; font-size:{s.font_pt:.0f}pt; font-weight:{weight}'>"
                              f"{html.escape(show_token(t))}</span>")
                label.setPos(0.0, i + 0.02)
                label.setVisible(True)
            for label in self.bar_labels[k:]:
                label.setText("")
                label.setVisible(False)
        else:
            for label in self.bar_labels:
                label.setText("")
                label.setVisible(False)
            # every k-th label when the plot is too short for all of them (projector fonts), the
            # sampled token always
            rows_px = max(pi.getViewBox().height(), 1.0) / max(k, rows)
            every = max(1, math.ceil(1.15 * s.font_pt * 1.33 / rows_px))
            axis.setTicks([[(float(i), show_token(t)) for i, t in enumerate(tokens)
                            if i == snap.sampled_rank
                            or (i % every == 0 and abs(i - snap.sampled_rank) >= every)]])
        pi.setYRange(-0.6, max(k, rows) - 0.4, padding=0)
        pi.setXRange(0, max(float(probs.max()) if k else 1.0, snap.probability, 0.05) * 1.08, padding=0)
        ctx = "  ".join(f"“{show_token(c)}”" for c in snap.context) if snap.context else \
            "(empty: a unigram model ignores the past)"
        if "<s>" in snap.context:
            ctx += "   (<s> = start of a line)"
        where = (f"rank {snap.sampled_rank + 1}" if snap.sampled_rank >= 0 else "not in the top 15")
        self.context_label.setText(
            f"<b>context</b> h = <span style='font-family:monospace'>{html.escape(ctx)}</span><br>"
            f"<b>sampled</b> <span style='color:{theme.NEG_COLOR}'><b>{html.escape(show_token(snap.token))}</b></span> "
            f"with p = {snap.probability:.4f} ({where})")

    # --- learning
    def _render_learning(self, snap) -> None:
        s = theme.current()
        done = {n: (text, span) for n, text, span in snap.samples}
        for n, view in self.sample_views.items():
            if n in done:
                text, span = done[n]
                body = html.escape(text).replace("\n", "<br>")
                view.setHtml(f"<div style='font-family: serif; font-size: {s.font_pt * 1.1:.0f}pt; color: "
                             f"{s.foreground}'>{body}</div>"
                             f"<p style='color: {s.foreground}'><i>longest run copied verbatim from the corpus: "
                             f"{span} tokens</i></p>")
            else:
                view.setHtml(f"<i>{'computing…' if n == snap.n else 'waiting'}</i>")
        if snap.kind != "sample":
            self.learning_note.setText(f"<i>{html.escape(snap.phase)}…</i>")
        else:
            p = snap.params
            self.learning_note.setText(
                f"Same corpus ({snap.n_tokens:,} tokens), same seed, {SMOOTHING_LABELS[p['smoothing']]}, "
                f"{min(int(p['length']), run.LEARNING_SAMPLE_MAX)} tokens each.")

    # --- perplexity
    def _render_perplexity(self, snap) -> None:
        for sm, series in self.ppl_series.items():
            pts = [(c[0], c[2]) for c in snap.cells if c[1] == sm and math.isfinite(c[2])]
            series.set([p[0] for p in pts], [p[1] for p in pts])
        finite = [c[2] for c in snap.cells if math.isfinite(c[2])]
        if finite:  # head room above the curves for the legend (log10 units)
            lo, hi = math.log10(min(finite)), math.log10(max(finite))
            y0, y1 = lo - 0.05 * (hi - lo + 0.2), hi + 0.45 * (hi - lo + 0.2)
            self.ppl_plot.getPlotItem().setYRange(y0, y1, padding=0)
            # ticks at 1, 2, 5 × 10^k only: minor labels of a log axis crowd a small plot
            ticks = [(math.log10(m * 10.0**e), f"{m * 10.0**e:g}")
                     for e in range(int(math.floor(y0)), int(math.ceil(y1)) + 1)
                     for m in (1, 2, 5) if y0 <= math.log10(m * 10.0**e) <= y1]
            self.ppl_plot.getPlotItem().getAxis("left").setTicks([ticks, []])
            self.ppl_plot.getPlotItem().setXRange(0.7, 5.3, padding=0)
        infinite = sorted({c[0] for c in snap.cells if c[1] == "mle" and not math.isfinite(c[2])})
        if snap.cells:
            note = (f"<i>{html.escape(snap.phase)}</i>" if snap.kind != "cell" else "")
            if infinite:
                mle = [c for c in snap.cells if c[1] == "mle" and c[4]]
                zeros = ", ".join(f"N={c[0]}: {c[4]:,}" for c in mle)
                note += (f"<br>MLE perplexity is <b>infinite</b> for N = {', '.join(map(str, infinite))} (not drawn): "
                         f"test n-grams never seen in training get probability 0. Zero-probability events out of "
                         f"{mle[0][5]:,}: {zeros}.")
            self.ppl_note.setText(note or "Lower is better: perplexity 2<sup>H</sup> on the held-out lines.")
        else:
            self.ppl_note.setText(f"<i>{html.escape(snap.phase)}…</i>")
        if snap.zipf_rank is self._zipf_shown:
            return
        self._zipf_shown = snap.zipf_rank
        if snap.zipf_rank.size:
            r = np.asarray(snap.zipf_rank, float)
            f = np.asarray(snap.zipf_freq, float)
            self.zipf_curve.setData(r, f)
            self.zipf_ref.setData(np.array([1.0, r[-1]]), np.array([f[0], f[0] / r[-1]]))
            zi = self.zipf_plot.getPlotItem()
            for axis, top in (("bottom", r[-1]), ("left", f[0])):  # decades only: readable on a projector
                zi.getAxis(axis).setTicks([[(float(e), f"{10 ** e:,}") for e in range(int(math.log10(top)) + 2)], []])
            unit = "word" if snap.params["level"] == "word" else "character"
            self.entropy_label.setText(
                f"Entropy of the {unit} frequencies: <b>H = {snap.entropy_bits:.3f} bits per {unit}</b> "
                f"(uniform over the {len(r):,} distinct tokens: log₂ {len(r):,} = {math.log2(len(r)):.2f} bits).")
        else:
            self.zipf_curve.setData([], [])
            self.zipf_ref.setData([], [])
            self.entropy_label.setText("")

    # ------------------------------------------------------------------ maths
    def maths_html(self, snap) -> str:
        return maths.maths_html(snap)

    # ------------------------------------------------------------------ style, sessions, export
    def apply_style(self, s: theme.Style) -> None:
        # on a projector the fonts are large: text above the bars, both full width
        # a projector leaves the plots little width: stack them
        self.ppl_split.setOrientation(QtCore.Qt.Orientation.Vertical if s.projector
                                      else QtCore.Qt.Orientation.Horizontal)
        self.ppl_split.setSizes([500, 400] if s.projector else [500, 500])
        # projector fonts: room for the title, the axis and at least five token rows (the page
        # scrolls on a small screen rather than squash them)
        self.bar_plot.setMinimumHeight(int(14 * s.font_pt * 96 / 72) if s.projector else 170)
        # the text beside the bars in both modes: stacked, a 1024×768 projector would leave the
        # text two lines or the bars a sliver (each token is written above its bar instead of
        # on the axis in projector mode, so the narrower plot keeps its width for the bars)
        self.gen_split.setOrientation(QtCore.Qt.Orientation.Horizontal)
        self.gen_split.setSizes([450, 450] if s.projector else [520, 420])
        self._style_perplexity(s)
        shown = self.runner.current
        self._update_legend(s, int((shown.params if shown is not None and shown.params else self.params())["n"]))
        if self.runner.current is not None:
            self.runner.flush()

    def main_plot(self):
        return self.ppl_plot if self._mode == "perplexity" else self.bar_plot

    def user_data(self) -> dict:
        return {"mode": self._mode, "file": self._file_path}

    def set_user_data(self, data: dict) -> None:
        mode = data.get("mode", "generate")
        path = data.get("file", "") or ""
        if mode not in run.RUNS or not isinstance(path, str):
            raise ValueError("the saved n-gram settings are malformed")
        self._mode = mode
        self._file_path = path
        self.file_label.setText(f"file: {html.escape(os.path.basename(path))}" if path else "no file opened")
        self.tabs.setCurrentIndex(TAB_INDEX[mode])

    def export_rows(self):
        history = self.runner.history()
        snap = self.runner.current
        if snap is not None and snap.mode == "perplexity":
            return (["N", "smoothing", "perplexity", "cross-entropy (bits/token)", "zero-probability events", "events"],
                    [list(c) for c in snap.cells])
        if snap is not None and snap.mode == "learning":
            return ["N", "sample", "longest verbatim run"], [list(c) for c in snap.samples]
        return (["index", "token", "probability", "context", "order used", "n-gram in corpus", "verbatim run"],
                [[h.index, h.token, h.probability, " ".join(h.context), h.order, int(h.ngram_in_corpus), h.span_length]
                 for h in self._token_history(history)])
