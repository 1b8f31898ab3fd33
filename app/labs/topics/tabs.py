"""The tabs of the topics lab, one mixin each: topics emerging, documents, synthetic truth."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtWidgets

from ... import style as theme
from ...widgets.labels import NoteLabel
from ...widgets.metrics import MetricPanel
from ...widgets.pages import splitter
from ...widgets.plots import PlotPanel
from . import run
from .views import DocumentText, TopicPictures, TopWordsPanel, brush, topic_color


class TopicsTab:
    """The topics' top words; the log-joint trace with burn-in marked; the fraction of changed tokens."""

    def _build_topics_tab(self) -> QtWidgets.QWidget:
        self.top_words = TopWordsPanel()
        self.trace = MetricPanel("Log joint log p(w, z)", "sweep", "")
        self.burn_line = pg.InfiniteLine(angle=90, pen=theme.current().pen(theme.OKABE_ITO["vermillion"], 2))
        self.trace.plot_item.addItem(self.burn_line)
        self.changed = MetricPanel("Share changed", "sweep", "")
        lower = splitter(False, self.trace, self.changed, sizes=[400, 300])
        return splitter(True, self.top_words, lower, sizes=[520, 220], stretch=[3, 1])

    def _render_topics(self, s, history) -> None:
        vocab = self.corpus.vocabulary
        self.top_words.set_topics([[vocab[i] for i in row] for row in s.top_ids], s.top_weights)
        if history.rewound:
            self.trace.clear_series()
            self.changed.clear_series()
        sweeps = [h.sweep for h in history.added]
        self.trace.curve("log joint").extend(sweeps, [h.log_joint for h in history.added])
        self.changed.curve("changed").extend(sweeps, [h.changed_fraction for h in history.added])


class DocumentsTab:
    """The shown document coloured by topic, its mixture θ̂_d, and all documents by their mixture."""

    def _build_documents_tab(self) -> QtWidgets.QWidget:
        self.doc_text = DocumentText()
        self.doc_theta = PlotPanel("Its topic mixture", "topic", "θ", legend=False)
        self.theta_bars = pg.BarGraphItem(x=[], height=[], width=0.8)
        self.doc_theta.plot_item.addItem(self.theta_bars)
        self.doc_map = PlotPanel("Documents by θ", "", "", legend=False)
        self.map_points = pg.ScatterPlotItem(size=9)
        self.map_current = pg.ScatterPlotItem(size=20, symbol="o", brush=pg.mkBrush(None),
                                              pen=pg.mkPen(theme.OKABE_ITO["black"], width=2))
        self.map_corners = pg.PlotCurveItem(pen=pg.mkPen("#888888"))
        for item in (self.map_corners, self.map_points, self.map_current):
            self.doc_map.plot_item.addItem(item)
        left = splitter(True, self.doc_text, self.doc_theta, sizes=[420, 200], stretch=[3, 1])
        return splitter(False, left, self.doc_map, sizes=[520, 420])

    def _show_document(self) -> None:
        """Put the shown document's words in the text view (before a snapshot colours them)."""
        c, d = self.corpus, self.doc_number() - 1
        if c.name == "plays":
            pieces = run.text_tokens(c.texts[d], c.vocabulary)
        else:
            pieces = [piece for t, w in enumerate(c.docs[d]) for piece in ((c.vocabulary[w], t), (" ", None))]
        self.doc_text.set_pieces(pieces, c.titles[d])
        self.doc_text.show_topics(np.zeros(0, dtype=int), -1)
        K = self.form.value("n_topics")
        if K == 3:
            self.map_corners.setData([0, 1, 0.5, 0], [0, 0, np.sqrt(3) / 2, 0])
            self.doc_map.set_labels(x_label="", y_label="")
        else:
            self.map_corners.setData([], [])
            self.doc_map.set_labels(x_label="θ's 1st principal axis", y_label="2nd principal axis")

    def _render_documents(self, s) -> None:
        self.doc_text.show_topics(s.doc_assignments, s.token)
        K = s.n_topics
        theta = s.theta[s.doc_index]
        self.theta_bars.setOpts(x=np.arange(1, K + 1), height=theta, width=0.8,
                                brushes=[brush(topic_color(k)) for k in range(K)])
        self.doc_theta.plot_item.setRange(xRange=(0.4, K + 0.6), yRange=(0, 1), padding=0)
        colours = [brush(topic_color(int(k))) for k in s.theta.argmax(axis=1)]
        self.map_points.setData(s.doc_map[:, 0], s.doc_map[:, 1], brush=colours, pen=pg.mkPen(None))
        self.map_current.setData([s.doc_map[s.doc_index, 0]], [s.doc_map[s.doc_index, 1]])


class TruthTab:
    """Learned topics next to the true ones (the bars corpus) and their distance sweep by sweep."""

    def _build_truth_tab(self) -> QtWidgets.QWidget:
        self.pictures = TopicPictures(run.SIDE)
        self.truth_note = NoteLabel("", lines=2)
        self.distance = MetricPanel("Distance to truth", "sweep", "mean TV")
        top = QtWidgets.QWidget()
        box = QtWidgets.QVBoxLayout(top)
        box.setContentsMargins(0, 0, 0, 0)
        box.addWidget(self.pictures, 1)
        box.addWidget(self.truth_note)
        return splitter(False, top, self.distance, sizes=[560, 320], stretch=[2, 1])

    def _show_truth(self) -> None:
        truth = run.load_corpus("bars", self.seed).truth
        self.pictures.set_pictures(None, truth)
        if self.corpus.name != "bars":
            self.truth_note.setText("These are the true topics of the bars corpus: choose it under Corpus to learn "
                                    "them from documents drawn from the model.")
        elif self.form.value("n_topics") < len(truth):
            self.truth_note.setText(f"K = {self.form.value('n_topics')} learned topics cannot be matched with the "
                                    f"{len(truth)} true ones: set K to {len(truth)} or more.")
        else:
            self.truth_note.setText("Each learned topic is drawn above the true topic it is matched with "
                                    "(least total-variation distance).")

    def _render_truth(self, s, history) -> None:
        if history.rewound:
            self.distance.clear_series()
        added = [h for h in history.added if h.truth_distance is not None]
        self.distance.curve("distance").extend([h.sweep for h in added], [h.truth_distance for h in added])

    def _render_pictures(self, s) -> None:
        if s.truth_order is not None:
            self.pictures.set_pictures(np.asarray(s.phi)[s.truth_order], self.corpus.truth)
