"""The run (Qt-free): collapsed Gibbs sampling of LDA on a corpus, one snapshot per sweep.

Corpora: passages of six plays (the shipped Shakespeare, stop words left out) or documents
drawn from ten known "bar" topics on a 5 × 5 grid of words, whose learned topics are matched
with the truth.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from smlengine import Snapshot, frozen_array
from smlengine.datasets import build_vocabulary, make_lda_corpus, shakespeare_passages
from smlengine.topics import LatentDirichletAllocation, match_topics, warm_compiled

CORPORA = [("plays", "Passages of six plays"), ("bars", "Bars on a 5 × 5 grid (known topics)")]
TOP_WORDS = 6
SIDE = 5  # the bars corpus: words on a SIDE × SIDE grid
BAR_TOPICS = 10
_WORD = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)?")


@dataclass(frozen=True)
class Corpus:
    """Documents as word ids, their vocabulary, their text (plays) and the true topics (bars)."""

    name: str
    vocabulary: tuple
    docs: tuple
    titles: tuple
    texts: tuple  # the passages' text ("" for the bars)
    truth: np.ndarray | None  # K × V true topics (bars), None for the plays

    @property
    def n_tokens(self) -> int:
        return int(sum(len(d) for d in self.docs))


@lru_cache(maxsize=4)
def load_corpus(name: str, seed: int = 0) -> Corpus:
    """The corpus ``name`` ("plays" or "bars"; the bars are drawn with ``seed``)."""
    if name == "plays":
        passages = shakespeare_passages()
        vocab, docs = build_vocabulary([t for _, t in passages], min_count=3)
        keep = [i for i, d in enumerate(docs) if len(d)]
        return Corpus("plays", tuple(vocab), tuple(frozen_array(docs[i]) for i in keep),
                      tuple(passages[i][0] for i in keep), tuple(passages[i][1] for i in keep), None)
    if name == "bars":
        docs, truth, _ = make_lda_corpus(100, 50, n_topics=BAR_TOPICS, side=SIDE, alpha=0.5, random_state=seed)
        vocab = tuple(f"({w // SIDE},{w % SIDE})" for w in range(SIDE * SIDE))
        titles = tuple(f"Document {d + 1}" for d in range(len(docs)))
        return Corpus("bars", vocab, tuple(frozen_array(d) for d in docs), titles, ("",) * len(docs),
                      frozen_array(truth))
    raise ValueError(f"corpus must be one of {[c for c, _ in CORPORA]}; got {name!r}")


def compile_sweep() -> bool:
    """The lab's side task: build the compiled sweep (numba), or load it from numba's cache, while
    the run sweeps without it; False when numba is not installed."""
    return warm_compiled()


def text_tokens(text: str, vocabulary) -> list[tuple[str, int | None]]:
    """The passage cut into pieces: (text, token number) for each word kept in the vocabulary
    (numbered in order, as in the document's word ids), (text, None) for everything else."""
    index = set(vocabulary)
    out, n, last = [], 0, 0
    for m in _WORD.finditer(text):
        if m.start() > last:
            out.append((text[last:m.start()], None))
        word = m.group(0)
        if word.lower() in index:
            out.append((word, n))
            n += 1
        else:
            out.append((word, None))
        last = m.end()
    if last < len(text):
        out.append((text[last:], None))
    return out


@dataclass(frozen=True, kw_only=True, eq=False)
class TopicsLabSnapshot(Snapshot):
    """One sweep: the topics' top words, the trace, the shown document and the map of documents."""

    sweep: int
    n_topics: int
    burn_in: int
    burning_in: bool
    log_joint: float
    changed_fraction: float
    top_ids: np.ndarray  # K × TOP_WORDS word ids, most probable first
    top_weights: np.ndarray  # their φ̂_kw
    theta: np.ndarray  # D × K, θ̂ of this sweep
    doc_index: int
    doc_assignments: np.ndarray  # the topic of each token of the shown document
    token: int  # the highlighted token of the shown document
    token_word: int
    conditional: np.ndarray  # p(z = k | z_−i, w) of the highlighted token
    doc_map: np.ndarray  # D × 2: the simplex (K = 3) or the first two principal axes of θ̂
    phi: np.ndarray  # K × V, φ̂ of this sweep (float32)
    truth_distance: float | None  # mean total variation to the true topics after matching (bars)
    truth_order: np.ndarray | None  # learned topic matched with each true topic


def simplex_or_projection(theta: np.ndarray) -> np.ndarray:
    """θ on the triangle for K = 3; otherwise on its first two principal axes (signs fixed)."""
    K = theta.shape[1]
    if K == 3:
        corners = np.array([[0.0, 0.0], [1.0, 0.0], [0.5, np.sqrt(3) / 2]])
        return theta @ corners
    if K < 3:
        return np.column_stack([theta[:, 0], np.zeros(len(theta))]) if K == 1 else np.column_stack(
            [theta[:, 1] - theta[:, 0], np.zeros(len(theta))])
    centred = theta - theta.mean(axis=0)
    _, _, vt = np.linalg.svd(centred, full_matrices=False)
    axes = vt[:2]
    axes *= np.sign(axes[np.arange(2), np.abs(axes).argmax(axis=1)])[:, None]
    return centred @ axes.T


def run_steps(corpus: Corpus, params: dict, seed: int):
    """Yield a :class:`TopicsLabSnapshot` for the start and after every sweep."""
    K = int(params["n_topics"])
    n_sweeps = int(params["n_sweeps"])
    burn = min(int(params["burn_in"]), n_sweeps - 1)
    d = min(int(params["document"]), len(corpus.docs)) - 1
    token = min(int(params["token"]), len(corpus.docs[d])) - 1
    model = LatentDirichletAllocation(K, alpha=float(params["alpha"]), eta=float(params["eta"]), n_sweeps=n_sweeps,
                                      burn_in=burn, random_state=seed)
    model.sweep_path = "auto-nowait"  # no wait for numba: compiled sweeps once the lab's side task has built them
    top = min(TOP_WORDS, len(corpus.vocabulary))
    start = sum(len(x) for x in corpus.docs[:d])
    for snap in model.fit_steps(list(corpus.docs), n_words=len(corpus.vocabulary)):
        phi = model.phi(snap)
        theta = model.theta(snap)
        order = np.argsort(-phi, axis=1, kind="stable")[:, :top]
        distance, matched = None, None
        if corpus.truth is not None and K >= len(corpus.truth):
            matched, tv = match_topics(phi, corpus.truth)
            distance = float(tv.mean())
        yield TopicsLabSnapshot(
            step=snap.step, sweep=snap.step, n_topics=K, burn_in=burn, burning_in=snap.burning_in,
            log_joint=snap.log_joint, changed_fraction=snap.changed_fraction,
            top_ids=frozen_array(order), top_weights=frozen_array(np.take_along_axis(phi, order, axis=1)),
            theta=frozen_array(theta, dtype=np.float32), doc_index=d,
            doc_assignments=frozen_array(snap.assignments[start:start + len(corpus.docs[d])]),
            token=token, token_word=int(corpus.docs[d][token]),
            conditional=frozen_array(model.conditional(d, token, snap)),
            doc_map=frozen_array(simplex_or_projection(theta), dtype=np.float32),
            phi=frozen_array(phi, dtype=np.float32), truth_distance=distance,
            truth_order=None if matched is None else frozen_array(matched))
