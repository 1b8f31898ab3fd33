"""The topics lab: latent Dirichlet allocation learned by collapsed Gibbs sampling. The topics'
top words change sweep by sweep; each word of a document takes its topic's colour; on a corpus
drawn from known topics the learned ones are matched with the truth."""

from __future__ import annotations

from PySide6 import QtWidgets

from ... import style as theme
from ...lab import Lab
from ...widgets.params import Param
from . import maths, run
from .tabs import DocumentsTab, TopicsTab, TruthTab

MAX_TOPICS = 12


class TopicsLab(TopicsTab, DocumentsTab, TruthTab, Lab):
    id = "topics"
    title = "Topic models: LDA by Gibbs sampling"
    order = 130
    description = ("Latent Dirichlet allocation learned by collapsed Gibbs sampling: topics emerge sweep by sweep "
                   "from passages of six plays, or from documents drawn from known topics.")
    chapter = "Bayesian inference"
    summary = "Topics emerge sweep by sweep: each word of each document resampled from its collapsed conditional."
    keywords = ("topic model", "topics", "latent Dirichlet allocation", "LDA", "Dirichlet", "admixture",
                "mixed membership", "collapsed Gibbs sampling", "Gibbs sampling", "MCMC", "burn-in", "label switching",
                "alpha", "eta", "bag of words", "stop words", "Shakespeare", "bars", "documents", "vocabulary")
    screenshot_steps = 100
    self_test_steps = 5

    def init_state(self) -> None:
        self.corpus = run.load_corpus("plays")

    def parameter_specs(self):
        return [
            Param("corpus", "Corpus", "choice", "plays", choices=run.CORPORA,
                  tooltip="Passages of about 200 words from six plays (stop words left out), or 100 documents drawn "
                          "from 10 known topics: bars on a 5 × 5 grid of words"),
            Param("n_topics", "Topics K", "int", 6, minimum=1, maximum=MAX_TOPICS, tooltip="The number of topics"),
            Param("alpha", "α (documents)", "log", 0.1, minimum=0.001, maximum=10.0,
                  tooltip="Dirichlet prior of each document's topic mixture θ_d: small, few topics per document"),
            Param("eta", "η (topics)", "log", 0.01, minimum=0.001, maximum=10.0,
                  tooltip="Dirichlet prior of each topic's word distribution φ_k: small, few words per topic"),
            Param("n_sweeps", "Sweeps", "int", 100, minimum=2, maximum=1000,
                  tooltip="Sweeps through every token of the corpus"),
            Param("burn_in", "Burn-in", "int", 50, minimum=0, maximum=999,
                  tooltip="Sweeps before the estimates are averaged (at most the sweeps − 1)"),
            Param("document", "Document", "int", 1, minimum=1, maximum=500,
                  tooltip="The document shown on the Documents tab"),
            Param("token", "Highlighted word", "int", 1, minimum=1, maximum=500,
                  tooltip="The word of the document whose conditional the maths panel shows"),
        ]

    def build_controls(self, layout: QtWidgets.QVBoxLayout) -> None:
        self.restart_button = QtWidgets.QPushButton("Restart with a new seed")
        self.restart_button.setToolTip("Another random start: the same topics come back under other numbers "
                                       "(label switching)")
        self.restart_button.clicked.connect(self._restart)
        layout.addWidget(self.restart_button)

    def _restart(self) -> None:
        """The next seed: another random start of the same sampler."""
        self.set_seed(min(self.seed + 1, 2**31 - 1))
        self.on_seed_changed(self.seed)

    def build_plots(self) -> QtWidgets.QWidget:
        self.tabs = QtWidgets.QTabWidget()
        self.tabs.addTab(self._build_topics_tab(), "Topics emerging")
        self.tabs.addTab(self._build_documents_tab(), "Documents")
        self.tabs.addTab(self._build_truth_tab(), "Synthetic truth")
        self.tabs.currentChanged.connect(self._tab_changed)
        return self.tabs

    def _tab_changed(self, index: int) -> None:
        """The document and the pictures are drawn for the tab in front: draw the step on screen."""
        snap = self.runner.current
        if snap is not None:
            self._render_documents(snap)
            self._render_pictures(snap)

    def after_build(self) -> None:
        self.show_idle()
        # the sweep in compiled code (numba, when installed), built or loaded from its cache on a
        # worker: the run sweeps without it until then and switches (the same chain either way)
        self.task("compile").start(run.compile_sweep)

    def doc_number(self) -> int:
        return min(self.form.value("document"), len(self.corpus.docs))

    def on_param_changed(self, name: str) -> None:
        if name == "corpus":
            self.corpus = run.load_corpus(self.form.value("corpus"), self.seed)
        self.reset()

    def on_seed_changed(self, seed: int) -> None:
        if self.corpus.name == "bars":
            self.corpus = run.load_corpus("bars", seed)
        self.reset()

    def after_params_restored(self) -> None:
        self.corpus = run.load_corpus(self.form.value("corpus"), self.seed)

    def make_run(self, params: dict, seed: int):
        corpus = self.corpus = run.load_corpus(params["corpus"], seed)
        if params["n_sweeps"] < 2:
            raise ValueError("Sweeps must be at least 2.")
        return lambda: run.run_steps(corpus, dict(params), seed)

    def show_idle(self) -> None:
        self.top_words.clear_topics()
        self.trace.clear_series()
        self.changed.clear_series()
        self.distance.clear_series()
        self.burn_line.setValue(min(self.form.value("burn_in"), self.form.value("n_sweeps") - 1) + 0.5)
        self._show_document()
        self._show_truth()

    def render(self, snapshot, prepared, history) -> None:
        self._render_topics(snapshot, history)
        self._render_truth(snapshot, history)
        if self.tabs.currentIndex() == 1:
            self._render_documents(snapshot)
        if self.tabs.currentIndex() == 2:
            self._render_pictures(snapshot)

    def apply_style(self, s: theme.Style) -> None:
        self.doc_text.apply_style(s)

    def main_plot(self):
        """The tab's main plot: the topics' top words, the map of the documents, the bar pictures."""
        return (self.top_words, self.doc_map, self.pictures)[max(self.tabs.currentIndex(), 0)]

    def maths_html(self, snapshot) -> str:
        word = self.corpus.vocabulary[snapshot.token_word]
        return maths.maths_html(snapshot, word, self.form.value("alpha"), self.form.value("eta"),
                                len(self.corpus.vocabulary))
