"""The n-gram lab's tabs, one class each, mixed into :class:`~.lab.NGramsLab`: the generated text
with the next-token distribution, the samples of N = 1…4 (learning Shakespeare), and perplexity,
entropy and Zipf's law. Each builds its tab; the lab draws the snapshots on them.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from ... import style as theme
from ...widgets.plots import PlotPanel
from . import run
from .run import LEARNING_ORDERS, SMOOTHING_LABELS, SMOOTHINGS
from .text_view import FollowingText, StreamedText

N_TOP = 15  # next tokens drawn at most
ORDER_NAMES = {1: "unigram", 2: "bigram", 3: "trigram", 4: "4-gram", 5: "5-gram"}
SMOOTHING_SYMBOLS = {"mle": "o", "laplace": "s", "kneser-ney": "t"}


class TokenBarsPanel(PlotPanel):
    """The next-token bars: a self-styling panel whose left axis is as wide as its token
    labels (the ticks are set by the lab and the ranges fixed, so the width cannot chase
    the range)."""

    def apply_style(self, s: theme.Style | None = None) -> None:
        super().apply_style(s)
        self.plot_item.getAxis("left").setWidth(None)


class GenerateTab:
    """The generated text as it streams (tokens copied verbatim tinted) beside the next-token bars
    and the context they condition on."""

    def _build_generate_tab(self) -> QtWidgets.QWidget:
        self.text_view = FollowingText()
        self.text_view.setReadOnly(True)
        self.text_view.setOpenLinks(False)
        self.text = StreamedText(self.text_view)
        self.legend_label = QtWidgets.QLabel()
        self.legend_label.setWordWrap(True)
        self.status_label = QtWidgets.QLabel("")
        self.status_label.setWordWrap(True)
        left = QtWidgets.QWidget()
        ll = QtWidgets.QVBoxLayout(left)
        ll.setContentsMargins(0, 0, 0, 0)
        ll.addWidget(self.status_label)
        ll.addWidget(self.text_view, 1)
        ll.addWidget(self.legend_label)

        self.context_label = QtWidgets.QLabel("")
        self.context_label.setWordWrap(True)
        self.context_label.setTextFormat(QtCore.Qt.TextFormat.RichText)
        self.bar_plot = TokenBarsPanel("Next-token distribution", "probability P(w | h)", "next token w",
                                        legend=False)
        pi = self.bar_plot.plot_item
        pi.getViewBox().invertY(True)
        pi.setMouseEnabled(x=False, y=False)
        pi.hideButtons()
        pi.showGrid(x=True, y=False, alpha=0.25)
        self.bars = pg.BarGraphItem(x0=[], y=[], height=0.75, width=[])
        self._bars_shown = N_TOP
        pi.getViewBox().sigResized.connect(self._bars_resized)
        pi.addItem(self.bars)
        self.bar_labels: list[pg.TextItem] = []
        right = QtWidgets.QWidget()
        rl = QtWidgets.QVBoxLayout(right)
        rl.setContentsMargins(0, 0, 0, 0)
        rl.addWidget(self.context_label)
        rl.addWidget(self.bar_plot, 1)

        split = QtWidgets.QSplitter(QtCore.Qt.Orientation.Horizontal)
        split.addWidget(left)
        split.addWidget(right)
        split.setSizes([520, 420])
        self.gen_split = split
        return split

    def _bars_resized(self, *_args) -> None:
        """A taller or shorter plot shows more or fewer token rows: redraw the last bars."""
        snap = getattr(self, "_bars_snap", None)
        if snap is not None and snap.kind == "token" and self.bar_rows(theme.current()) != self._bars_shown:
            self._draw_bars(snap, theme.current())

    def bar_rows(self, s: theme.Style) -> int:
        """How many token bars the next-token plot shows: all fifteen when each gets a row of
        at least 1.5 lines of tick text (2.6 lines when the token is written above its bar, in
        projector mode), fewer (at least three) in a short plot."""
        height = self.bar_plot.plot_item.getViewBox().height()
        if height <= 1:  # not laid out yet
            return N_TOP
        line = (2.6 if tokens_above_bars(s) else 1.5) * s.font_pt * 96 / 72
        return int(min(N_TOP, max(3, height // line)))

    def token_label(self, k: int) -> pg.TextItem:
        """The k-th token name written above its bar (projector mode), made on first use."""
        while len(self.bar_labels) <= k:
            item = pg.TextItem(anchor=(0.0, 1.0))
            item.setAcceptedMouseButtons(QtCore.Qt.MouseButton.NoButton)
            item.textItem.document().setDocumentMargin(0.0)
            self.bar_plot.plot_item.addItem(item, ignoreBounds=True)
            self.bar_labels.append(item)
        return self.bar_labels[k]


def tokens_above_bars(s: theme.Style) -> bool:
    """Projector mode writes each token above its bar (the plot stands beside the text, narrow:
    tick labels on the axis would take most of its width); else they are the axis's ticks."""
    return s.projector


class LearningTab:
    """Samples of the models N = 1…4 side by side, same corpus and seed."""

    def _build_learning_tab(self) -> QtWidgets.QWidget:
        w = QtWidgets.QWidget()
        lay = QtWidgets.QVBoxLayout(w)
        self.learning_note = QtWidgets.QLabel("Press <b>Learning Shakespeare (N = 1…4)</b>: four models, same corpus, "
                                              "same seed; watch word salad turn into quotations.")
        self.learning_note.setWordWrap(True)
        lay.addWidget(self.learning_note)
        row = QtWidgets.QHBoxLayout()
        self.sample_boxes: dict[int, QtWidgets.QGroupBox] = {}
        self.sample_views: dict[int, QtWidgets.QTextBrowser] = {}
        for n in LEARNING_ORDERS:
            box = QtWidgets.QGroupBox(f"N = {n} ({ORDER_NAMES[n]})")
            bl = QtWidgets.QVBoxLayout(box)
            bl.setContentsMargins(4, 4, 4, 4)
            view = QtWidgets.QTextBrowser()
            bl.addWidget(view)
            self.sample_boxes[n] = box
            self.sample_views[n] = view
            row.addWidget(box)
        lay.addLayout(row, 1)
        return w


class PerplexityTab:
    """Held-out perplexity against N for every smoothing, and Zipf's law with the corpus's entropy."""

    def _build_perplexity_tab(self) -> QtWidgets.QWidget:
        self.ppl_plot = PlotPanel("Held-out perplexity vs N", "order N", "perplexity (log)", log_y=True,
                                  legend_corner="top")
        pi = self.ppl_plot.plot_item
        pi.showGrid(x=True, y=True, alpha=0.25)
        pi.getAxis("bottom").setTicks([[(float(n), str(n)) for n in run.PERPLEXITY_ORDERS]])
        self.ppl_series = {sm: self.ppl_plot.curve(SMOOTHING_LABELS[sm], color=theme.CATEGORICAL[i], dash=0)
                           for i, sm in enumerate(SMOOTHINGS)}
        self.ppl_curves = {sm: series.item for sm, series in self.ppl_series.items()}
        self.ppl_note = QtWidgets.QLabel("Press <b>Perplexity vs N</b> to fit N = 1…5 with every smoothing on 90 % of "
                                         "the lines and measure perplexity on the other 10 %.")
        self.ppl_note.setWordWrap(True)

        self.zipf_plot = PlotPanel("Zipf's law", "rank r (log scale)", "f(r) (log)", log_y=True,
                                   legend_corner="top")
        zi = self.zipf_plot.plot_item
        zi.setLogMode(x=True, y=True)
        zi.setDownsampling(ds=1, auto=False)  # a log-x staircase: peak downsampling would drop rank 1
        zi.showGrid(x=True, y=True, alpha=0.25)
        # whole curves set at once (not a history): drawn straight into the panel's items
        self.zipf_curve = self.zipf_plot.curve("corpus", color=theme.CATEGORICAL[0], dash=0).item
        self.zipf_ref = self.zipf_plot.curve("Zipf: f ∝ 1/rank", color=theme.CATEGORICAL[1], dash=1).item
        self.entropy_label = QtWidgets.QLabel("")
        self.entropy_label.setWordWrap(True)

        left = QtWidgets.QWidget()
        ll = QtWidgets.QVBoxLayout(left)
        ll.setContentsMargins(0, 0, 0, 0)
        ll.addWidget(self.ppl_plot, 1)
        ll.addWidget(self.ppl_note)
        right = QtWidgets.QWidget()
        rl = QtWidgets.QVBoxLayout(right)
        rl.setContentsMargins(0, 0, 0, 0)
        rl.addWidget(self.zipf_plot, 1)
        rl.addWidget(self.entropy_label)
        split = QtWidgets.QSplitter(QtCore.Qt.Orientation.Horizontal)
        split.addWidget(left)
        split.addWidget(right)
        self.ppl_split = split
        return split

    def _style_perplexity(self, s: theme.Style) -> None:
        """The markers of the perplexity curves (the panels style axes, titles, legends and pens)."""
        for i, (sm, curve) in enumerate(self.ppl_curves.items()):
            color = theme.CATEGORICAL[i]
            curve.setSymbol(SMOOTHING_SYMBOLS[sm])
            curve.setSymbolSize(s.marker_size * 1.2)
            curve.setSymbolBrush(pg.mkBrush(color))
            curve.setSymbolPen(pg.mkPen(s.foreground, width=0.5 * s.scale))
