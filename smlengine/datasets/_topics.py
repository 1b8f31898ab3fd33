"""Corpora for topic models: synthetic documents from known topics, and passages of the plays.

* :func:`make_lda_corpus` draws documents from the generative model of latent Dirichlet
  allocation with known topics: "bars" on a side × side grid of words (topic r < side is row r,
  topic side + c is column c), so a topic can be drawn as a picture.
* :func:`shakespeare_passages` cuts shipped plays into passages of consecutive speeches, and
  :func:`build_vocabulary` turns texts into word ids, leaving out the stop words of
  ``resources/data/topics-stopwords.txt`` and rare words.
"""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache

import numpy as np

from .._base import check_random_state
from .._params import Integral, Interval, Real, RandomState, validate_call
from .._resources import resource_path
from ._text import list_plays, load_play

__all__ = ["make_lda_corpus", "bar_topics", "shakespeare_passages", "build_vocabulary", "tokenize_words",
           "load_stop_words", "TOPIC_PLAYS"]

#: plays of distinct settings (Rome, Scotland, the fairy wood, the island, France...), whose
#: passages make the default corpus of the topics lab
TOPIC_PLAYS = ("Julius Caesar", "Macbeth", "A Midsummer Night's Dream", "The Tempest", "Henry V",
               "Romeo and Juliet")
_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?")


def bar_topics(n_topics: int = 10, side: int = 5) -> np.ndarray:
    """The true topics of :func:`make_lda_corpus`: K × side² rows, each uniform on one bar.

    Examples
    --------
    >>> from smlengine.datasets import bar_topics
    >>> bar_topics(2, side=2).tolist()
    [[0.5, 0.5, 0.0, 0.0], [0.0, 0.0, 0.5, 0.5]]
    """
    if not 1 <= n_topics <= 2 * side:
        raise ValueError(f"n_topics must be in [1, {2 * side}] for bars on a {side} × {side} grid; got {n_topics}")
    topics = np.zeros((n_topics, side, side))
    for k in range(n_topics):
        if k < side:
            topics[k, k, :] = 1.0 / side
        else:
            topics[k, :, k - side] = 1.0 / side
    return topics.reshape(n_topics, side * side)


@validate_call({
    "n_documents": [Interval(Integral, 1, 100_000)],
    "document_length": [Interval(Integral, 1, 10_000)],
    "n_topics": [Interval(Integral, 1, 40)],
    "side": [Interval(Integral, 2, 20)],
    "alpha": [Interval(Real, 0, 1e6, closed="right")],
    "random_state": [RandomState(), None],
})
def make_lda_corpus(n_documents: int = 200, document_length: int = 50, n_topics: int = 10, side: int = 5,
                    alpha: float = 1.0, random_state=None):
    """Documents drawn from latent Dirichlet allocation with the bar topics of :func:`bar_topics`.

    θ_d ~ Dir(α) for each document, then for each of its ``document_length`` words a topic
    z ~ Cat(θ_d) and a word w ~ Cat(φ_z).

    Returns
    -------
    documents : list of ndarray of int
        Word ids in [0, side²).
    topic_word : ndarray of shape (n_topics, side²)
        The true φ.
    doc_topic : ndarray of shape (n_documents, n_topics)
        The drawn θ.

    Examples
    --------
    >>> from smlengine.datasets import make_lda_corpus
    >>> docs, phi, theta = make_lda_corpus(3, 4, n_topics=4, random_state=0)
    >>> len(docs), docs[0].shape, phi.shape, theta.shape
    (3, (4,), (4, 25), (3, 4))
    """
    if n_topics > 2 * side:
        raise ValueError(f"n_topics must be at most {2 * side} for bars on a {side} × {side} grid; got {n_topics}")
    rng = check_random_state(random_state)
    phi = bar_topics(n_topics, side)
    theta = rng.dirichlet(np.full(n_topics, float(alpha)), size=n_documents)
    theta = np.where(np.isfinite(theta), theta, 1.0 / n_topics)  # tiny α can underflow every entry
    theta /= theta.sum(axis=1, keepdims=True)
    docs = []
    for d in range(n_documents):
        z = rng.choice(n_topics, size=document_length, p=theta[d])
        bar = rng.integers(0, side, size=document_length)
        rows = np.where(z < side, z, bar)
        cols = np.where(z < side, bar, z - side)
        docs.append((rows * side + cols).astype(np.int32))
    return docs, phi, theta


@lru_cache(maxsize=1)
def load_stop_words() -> frozenset[str]:
    """The shipped stop words (``resources/data/topics-stopwords.txt``): function words of
    modern and Early Modern English ("the", "thou", "hath"...).

    Examples
    --------
    >>> from smlengine.datasets import load_stop_words
    >>> {"the", "thou", "hath"} <= load_stop_words()
    True
    """
    text = resource_path("data", "topics-stopwords.txt").read_text(encoding="utf-8")
    return frozenset(w for line in text.splitlines() if not line.startswith("#") for w in line.split())


def tokenize_words(text: str) -> list[str]:
    """Lower-case words of ``text`` (letters with an inner apostrophe: "o'er", "king's").

    Examples
    --------
    >>> from smlengine.datasets import tokenize_words
    >>> tokenize_words("O'er the King's men, 3 times!")
    ["o'er", 'the', "king's", 'men', 'times']
    """
    return _WORD.findall(text.lower())


def build_vocabulary(texts, *, stop_words=None, min_count: int = 2, max_words: int | None = 5000):
    """Word ids for a list of texts: the words kept and each text as ids.

    Words are those of :func:`tokenize_words`; stop words (the shipped list when
    ``stop_words`` is None) and words seen fewer than ``min_count`` times in all texts are
    left out, and at most ``max_words`` of the most frequent remain (ties in alphabetical
    order). The vocabulary is sorted by decreasing count.

    Returns
    -------
    vocabulary : list of str
    documents : list of ndarray of int
        One per text (possibly empty when a text has no kept word).

    Examples
    --------
    >>> from smlengine.datasets import build_vocabulary
    >>> vocab, docs = build_vocabulary(["the sea, the sea", "a king and the sea", "king"])
    >>> vocab, [d.tolist() for d in docs]
    (['sea', 'king'], [[0, 0], [1, 0], [1]])
    """
    if isinstance(texts, str):
        raise TypeError("texts must be a list of texts, not one string")
    if isinstance(min_count, bool) or not isinstance(min_count, Integral) or min_count < 1:
        raise ValueError(f"min_count must be a positive integer; got {min_count!r}")
    if max_words is not None and (isinstance(max_words, bool) or not isinstance(max_words, Integral)
                                  or max_words < 1):
        raise ValueError(f"max_words must be a positive integer or None; got {max_words!r}")
    stop = load_stop_words() if stop_words is None else frozenset(stop_words)
    tokens = [[w for w in tokenize_words(str(t)) if w not in stop] for t in texts]
    counts = Counter(w for doc in tokens for w in doc)
    kept = sorted((w for w, c in counts.items() if c >= min_count), key=lambda w: (-counts[w], w))
    if max_words is not None:
        kept = kept[:max_words]
    index = {w: i for i, w in enumerate(kept)}
    docs = [np.array([index[w] for w in doc if w in index], dtype=np.int32) for doc in tokens]
    return kept, docs


def shakespeare_passages(plays=TOPIC_PLAYS, *, words: int = 200, per_play: int = 12) -> list[tuple[str, str]]:
    """Passages of consecutive speeches from shipped plays, as (play title, text).

    Each play's speeches are grouped, in order, into passages of at least ``words`` words, and
    ``per_play`` passages spread evenly over the play are kept.

    Examples
    --------
    >>> from smlengine.datasets import shakespeare_passages
    >>> passages = shakespeare_passages(["Macbeth"], words=100, per_play=3)
    >>> len(passages), passages[0][0], len(passages[0][1].split()) >= 100
    (3, 'Macbeth', True)
    """
    if isinstance(plays, str):
        plays = [plays]
    known = set(list_plays())
    out = []
    for title in plays:
        if title not in known:
            raise ValueError(f"no shipped play called {title!r}")
        speeches = [s.strip() for s in load_play(title).split("\n\n") if s.strip()]
        passages, current, n = [], [], 0
        for speech in speeches:
            current.append(speech)
            n += len(speech.split())
            if n >= words:
                passages.append("\n\n".join(current))
                current, n = [], 0
        pick = np.linspace(0, len(passages) - 1, min(per_play, len(passages))).round().astype(int)
        out.extend((title, passages[i]) for i in pick)
    return out
