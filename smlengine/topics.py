"""Topic models: latent Dirichlet allocation learned by collapsed Gibbs sampling.

Generative model
----------------
For each topic k = 1..K a distribution over the V words, φ_k ~ Dir(η); for each document d a
mixture of topics, θ_d ~ Dir(α); for each word position i of document d a topic
z_i ~ Cat(θ_d) and a word w_i ~ Cat(φ_{z_i}). α and η are symmetric (one number each): a small
α gives documents of few topics, a small η topics of few words.

Collapsed Gibbs sampling
------------------------
θ and φ are integrated out; the state is the topic z_i of every token, summarised by the counts
n_dk (tokens of document d in topic k), n_kw (tokens of word w in topic k) and n_k = Σ_w n_kw.
A sweep resamples each token in turn from

    p(z_i = k | z_−i, w) ∝ (n_dk + α)(n_kw + η)/(n_k + Vη)

with the counts taken without token i (:meth:`LatentDirichletAllocation.conditional` returns
these K probabilities for any token).

Estimates and trace
-------------------
After each sweep φ̂_kw = (n_kw + η)/(n_k + Vη) and θ̂_dk = (n_dk + α)/(n_d + Kα); the fitted
``topic_word_`` and ``doc_topic_`` average them over the sweeps after burn-in. The trace is the
log joint of the words and the assignments, with θ and φ integrated out:

    log p(w, z) = Σ_d [log Γ(Kα) − log Γ(n_d + Kα) + Σ_k (log Γ(n_dk + α) − log Γ(α))]
                + Σ_k [log Γ(Vη) − log Γ(n_k + Vη) + Σ_w (log Γ(n_kw + η) − log Γ(η))]

The topic numbers carry no meaning: two runs find the same topics in another order (label
switching), so runs are compared after matching their topics (:func:`match_topics`).
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np
from scipy.optimize import linear_sum_assignment
from scipy.special import gammaln

from ._base import BaseEstimator, NotFittedError, Snapshot, check_random_state, frozen_array
from ._params import Interval, Options, RandomState
from ._topics_sweep import compiled_ready, compiled_sweep, sweep_numpy, warm_compiled

__all__ = [
    "LatentDirichletAllocation",
    "LDASnapshot",
    "as_token_lists",
    "log_joint",
    "match_topics",
    "warm_compiled",
]

MAX_TOPICS = 200
MAX_SWEEPS = 100_000
MAX_PRIOR = 1e6
#: most tokens a corpus may hold (the token arrays and one uniform per token and sweep)
MAX_TOKENS = 20_000_000
#: token draws (tokens × sweeps) from which ``sweep_path = "auto"`` compiles the sweep before it
#: starts: a second or more without numba (about 10 µs a draw), as long as compiling it (or
#: loading it from numba's cache) takes
COMPILED_MIN_WORK = 100_000


@dataclass(frozen=True, kw_only=True)
class LDASnapshot(Snapshot):
    """The sampler's state after one sweep (``step`` 0: the random initial assignment).

    Attributes
    ----------
    assignments : ndarray of shape (n_tokens,)
        The topic of every token, documents one after the other.
    doc_topic_counts : ndarray of shape (n_documents, n_topics)
        n_dk.
    topic_word_counts : ndarray of shape (n_topics, n_words)
        n_kw.
    log_joint : float
        log p(w, z) with θ and φ integrated out.
    changed_fraction : float
        Fraction of tokens whose topic changed in this sweep (1 for the initial state).
    burning_in : bool
        Whether this sweep is part of the burn-in (not averaged into the estimates).

    Examples
    --------
    >>> from smlengine.topics import LatentDirichletAllocation
    >>> model = LatentDirichletAllocation(2, n_sweeps=3, random_state=0)
    >>> snaps = list(model.fit_steps([[0, 1, 1], [2, 2, 3]]))
    >>> [s.step for s in snaps], snaps[-1].topic_word_counts.shape, int(snaps[-1].doc_topic_counts.sum())
    ([0, 1, 2, 3], (2, 4), 6)
    """

    assignments: np.ndarray
    doc_topic_counts: np.ndarray
    topic_word_counts: np.ndarray
    log_joint: float
    changed_fraction: float
    burning_in: bool


def as_token_lists(docs, n_words: int | None = None, *, what: str = "docs") -> tuple[list[np.ndarray], int]:
    """Documents as arrays of word ids, and the vocabulary size.

    ``docs`` is a sequence of documents, each a sequence of integer word ids, or a (sparse or
    dense) D × V matrix of word counts (each row becomes its words in column order). Refused
    with a ValueError or TypeError: no document, an empty document, a negative, fractional or
    too-large word id, and ids ≥ ``n_words`` when ``n_words`` is given.

    Examples
    --------
    >>> from smlengine.topics import as_token_lists
    >>> docs, V = as_token_lists([[0, 2, 2], [1]])
    >>> [d.tolist() for d in docs], V
    ([[0, 2, 2], [1]], 3)
    >>> docs, V = as_token_lists(np.array([[1, 0, 2], [0, 1, 0]]))
    >>> [d.tolist() for d in docs], V
    ([[0, 2, 2], [1]], 3)
    """
    if hasattr(docs, "tocsr") or (isinstance(docs, np.ndarray) and docs.ndim == 2):
        matrix = docs.tocsr() if hasattr(docs, "tocsr") else docs
        counts = matrix.toarray() if hasattr(matrix, "toarray") else np.asarray(matrix)
        if not np.issubdtype(counts.dtype, np.number) or np.issubdtype(counts.dtype, np.complexfloating):
            raise TypeError(f"{what} as a count matrix must hold numbers; got {counts.dtype}")
        if not np.all(np.isfinite(counts)) or np.any(counts < 0) or np.any(counts != np.round(counts)):
            raise ValueError(f"{what} as a count matrix must hold non-negative whole counts")
        if counts.shape[0] == 0:
            raise ValueError(f"{what} holds no document")
        vocab = counts.shape[1]
        if n_words is not None and vocab != n_words:
            raise ValueError(f"{what} has {vocab} word columns; the model has a vocabulary of {n_words} words")
        if counts.sum() > MAX_TOKENS:
            raise ValueError(f"{what} holds {int(counts.sum()):,} tokens; at most {MAX_TOKENS:,}")
        columns = np.arange(vocab)
        out = [np.repeat(columns, row.astype(np.int64)).astype(np.int32) for row in counts]
    else:
        if isinstance(docs, (str, bytes)) or not hasattr(docs, "__len__"):
            raise TypeError(f"{what} must be a list of documents (lists of word ids) or a count matrix; "
                            f"got {type(docs).__name__}")
        if len(docs) == 0:
            raise ValueError(f"{what} holds no document")
        out = []
        total = 0
        for d, doc in enumerate(docs):
            if isinstance(doc, (str, bytes)):
                raise TypeError(f"document {d} of {what} is text; give word ids (see build_vocabulary)")
            arr = np.asarray(doc)
            if arr.ndim != 1:
                raise ValueError(f"document {d} of {what} must be a flat list of word ids; got shape {arr.shape}")
            if arr.size and not (np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)):
                raise TypeError(f"document {d} of {what} must hold integer word ids; got {arr.dtype}")
            if arr.size and np.issubdtype(arr.dtype, np.floating):
                if not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr)):
                    raise ValueError(f"document {d} of {what} holds a word id that is not a whole number")
            total += arr.size
            if total > MAX_TOKENS:
                raise ValueError(f"{what} holds more than {MAX_TOKENS:,} tokens")
            out.append(arr.astype(np.int64))
        vocab = 0
        for d, arr in enumerate(out):
            if arr.size and arr.min() < 0:
                raise ValueError(f"document {d} of {what} holds the negative word id {int(arr.min())}")
            if arr.size:
                vocab = max(vocab, int(arr.max()) + 1)
        if n_words is not None:
            for d, arr in enumerate(out):
                if arr.size and arr.max() >= n_words:
                    raise ValueError(f"document {d} of {what} holds the word id {int(arr.max())}, out of range "
                                     f"for a vocabulary of {n_words} words (ids 0 to {n_words - 1})")
            vocab = n_words
        out = [arr.astype(np.int32) for arr in out]
    for d, arr in enumerate(out):
        if arr.size == 0:
            raise ValueError(f"document {d} of {what} is empty; every document needs at least one word")
    return out, int(vocab)


def log_joint(doc_topic_counts, topic_word_counts, alpha: float, eta: float) -> float:
    """log p(w, z) with θ and φ integrated out, from the counts n_dk (D × K) and n_kw (K × V).

    Examples
    --------
    >>> from smlengine.topics import log_joint
    >>> round(log_joint(np.array([[1]]), np.array([[1, 0]]), 1.0, 1.0), 6)  # one token, K=1, V=2
    -0.693147
    """
    ndk = np.asarray(doc_topic_counts, dtype=float)
    nkw = np.asarray(topic_word_counts, dtype=float)
    n_docs, n_topics = ndk.shape
    vocab = nkw.shape[1]
    theta_part = (n_docs * (gammaln(n_topics * alpha) - n_topics * gammaln(alpha))
                  - gammaln(ndk.sum(axis=1) + n_topics * alpha).sum() + gammaln(ndk + alpha).sum())
    phi_part = (n_topics * (gammaln(vocab * eta) - vocab * gammaln(eta))
                - gammaln(nkw.sum(axis=1) + vocab * eta).sum() + gammaln(nkw + eta).sum())
    return float(theta_part + phi_part)


def match_topics(learned, truth) -> tuple[np.ndarray, np.ndarray]:
    """Pair learned topics with true ones by least total-variation distance.

    Returns ``order`` (``learned[order[j]]`` is matched with ``truth[j]``) and the K distances
    ½ Σ_w |φ̂ − φ|. Both arguments are K × V with rows that sum to one.

    Examples
    --------
    >>> from smlengine.topics import match_topics
    >>> order, tv = match_topics([[0.0, 1.0], [1.0, 0.0]], [[1.0, 0.0], [0.0, 1.0]])
    >>> order.tolist(), tv.tolist()
    ([1, 0], [0.0, 0.0])
    """
    a = np.asarray(learned, dtype=float)
    b = np.asarray(truth, dtype=float)
    if a.ndim != 2 or b.ndim != 2 or a.shape[1] != b.shape[1]:
        raise ValueError(f"learned and truth must be K × V with the same V; got {a.shape} and {b.shape}")
    if a.shape[0] < b.shape[0]:
        raise ValueError(f"{a.shape[0]} learned topics cannot be matched with {b.shape[0]} true ones")
    cost = 0.5 * np.abs(a[:, None, :] - b[None, :, :]).sum(axis=2)  # learned × truth
    rows, cols = linear_sum_assignment(cost)
    order = np.empty(b.shape[0], dtype=np.intp)
    order[cols] = rows
    return order, cost[order, np.arange(b.shape[0])]


class LatentDirichletAllocation(BaseEstimator):
    """Latent Dirichlet allocation fitted by collapsed Gibbs sampling, one sweep per snapshot.

    Parameters
    ----------
    n_topics : int
        K, the number of topics (at least 1).
    alpha : float
        Symmetric Dirichlet prior of every document's topic mixture θ_d (> 0).
    eta : float
        Symmetric Dirichlet prior of every topic's word distribution φ_k (> 0).
    n_sweeps : int
        Sweeps through all tokens.
    burn_in : int or None
        Sweeps left out of the averaged estimates; None: half of ``n_sweeps``. Must be less than
        ``n_sweeps``.
    random_state : int, Generator or None
        Seed of the initial assignment and of the draws.

    Attributes
    ----------
    topic_word_ : ndarray of shape (n_topics, n_words)
        φ̂ averaged over the sweeps after burn-in; rows sum to one.
    doc_topic_ : ndarray of shape (n_documents, n_topics)
        θ̂ averaged over the sweeps after burn-in; rows sum to one.
    assignments_ : list of ndarray
        The topic of every token of every document after the last sweep.
    doc_topic_counts_, topic_word_counts_ : ndarray
        n_dk and n_kw after the last sweep.
    log_joint_ : ndarray of shape (n_sweeps + 1,)
        The trace of log p(w, z), from the initial state on.
    n_words_ : int
        V, the vocabulary size.

    Notes
    -----
    The attribute ``sweep_path`` (of the class or of one model) chooses the inner loop:
    ``"numpy"``, ``"compiled"`` (numba), ``"auto"`` or ``"auto-nowait"``; every loop draws the
    same chain. ``"auto-nowait"`` sweeps without numba until the compiled loop is ready in the
    process (a side task may compile it: ``smlengine._topics_sweep.warm_compiled``), then in
    compiled code from the next sweep on. ``"auto"`` does the same, except that a fit of at least
    :data:`COMPILED_MIN_WORK` token draws (tokens × sweeps) compiles the loop before it starts.

    Examples
    --------
    >>> from smlengine.topics import LatentDirichletAllocation
    >>> docs = [[0, 0, 1, 1, 0], [2, 3, 3, 2, 2], [0, 1, 0, 1], [3, 2, 3, 3]]
    >>> lda = LatentDirichletAllocation(2, alpha=0.1, eta=0.01, n_sweeps=50, random_state=0).fit(docs)
    >>> lda.topic_word_.shape, bool(np.allclose(lda.doc_topic_.sum(axis=1), 1.0))
    ((2, 4), True)
    >>> sorted(int(lda.doc_topic_[d].argmax()) for d in (0, 1))
    [0, 1]
    """

    _parameter_constraints = {
        "n_topics": [Interval(Integral, 1, MAX_TOPICS)],
        "alpha": [Interval(Real, 0, MAX_PRIOR, closed="right")],
        "eta": [Interval(Real, 0, MAX_PRIOR, closed="right")],
        "n_sweeps": [Interval(Integral, 1, MAX_SWEEPS)],
        "burn_in": [Interval(Integral, 0, MAX_SWEEPS), None],
        "random_state": [RandomState(), None],
    }
    _sweep_paths = Options(("auto", "auto-nowait", "numpy", "compiled"))
    #: which inner loop runs a sweep: "auto", "auto-nowait", "numpy" or "compiled" (see Notes)
    sweep_path = "auto"

    def __init__(self, n_topics=3, alpha=0.1, eta=0.01, n_sweeps=200, burn_in=None, random_state=None):
        self.n_topics = n_topics
        self.alpha = alpha
        self.eta = eta
        self.n_sweeps = n_sweeps
        self.burn_in = burn_in
        self.random_state = random_state

    # ------------------------------------------------------------------ helpers
    def _burn_in(self) -> int:
        burn = self.n_sweeps // 2 if self.burn_in is None else int(self.burn_in)
        if burn >= self.n_sweeps:
            raise ValueError(f"burn_in must be less than n_sweeps ({self.n_sweeps}); got {burn}")
        return burn

    def _sweep(self, work: int):
        """The compiled sweep to run now (None: the loop without numba), for a fit of ``work``
        token draws; under "auto", None may become the compiled loop later (see Notes)."""
        if not self._sweep_paths.is_satisfied_by(self.sweep_path):
            raise ValueError("sweep_path must be one of 'auto', 'auto-nowait', 'numpy', 'compiled'; "
                             f"got {self.sweep_path!r}")
        if self.sweep_path == "numpy":
            return None
        if self.sweep_path == "compiled":
            if not warm_compiled():
                raise RuntimeError("the compiled sweep needs numba, which is not installed")
        elif not compiled_ready():
            wait = self.sweep_path == "auto" and work >= COMPILED_MIN_WORK
            if not (wait and warm_compiled()):
                return None
        return compiled_sweep()

    def phi(self, snapshot: LDASnapshot) -> np.ndarray:
        """φ̂_kw = (n_kw + η)/(n_k + Vη) of one snapshot (K × V)."""
        nkw = np.asarray(snapshot.topic_word_counts, dtype=float)
        return (nkw + self.eta) / (nkw.sum(axis=1, keepdims=True) + nkw.shape[1] * self.eta)

    def theta(self, snapshot: LDASnapshot) -> np.ndarray:
        """θ̂_dk = (n_dk + α)/(n_d + Kα) of one snapshot (D × K)."""
        ndk = np.asarray(snapshot.doc_topic_counts, dtype=float)
        return (ndk + self.alpha) / (ndk.sum(axis=1, keepdims=True) + ndk.shape[1] * self.alpha)

    # ------------------------------------------------------------------ fitting
    def fit_steps(self, docs, *, n_words: int | None = None):
        """Sample sweep by sweep, yielding an :class:`LDASnapshot` after each (and the start).

        Parameters
        ----------
        docs : list of lists of int, or (sparse) count matrix of shape (n_documents, n_words)
            The corpus as word ids.
        n_words : int, optional
            Vocabulary size V when it exceeds the largest word id + 1.
        """
        self.validate_params()
        burn = self._burn_in()
        if n_words is not None and (not isinstance(n_words, Integral) or isinstance(n_words, bool) or n_words < 1):
            raise ValueError(f"n_words must be a positive integer; got {n_words!r}")
        token_lists, vocab = as_token_lists(docs, n_words)
        n_tokens = sum(len(t) for t in token_lists)
        loop = self._sweep(n_tokens * self.n_sweeps)
        switch = loop is None and self.sweep_path != "numpy"  # to the compiled loop once it is ready
        rng = check_random_state(self.random_state)
        n_topics = int(self.n_topics)
        alpha, eta = float(self.alpha), float(self.eta)
        lengths = np.array([len(t) for t in token_lists], dtype=np.int64)
        word = np.concatenate(token_lists).astype(np.int32)
        doc = np.repeat(np.arange(len(token_lists), dtype=np.int32), lengths)
        z = rng.integers(0, n_topics, size=n_tokens).astype(np.int32)
        ndk = np.zeros((len(token_lists), n_topics), dtype=np.int64)
        nwk = np.zeros((vocab, n_topics), dtype=np.int64)
        np.add.at(ndk, (doc, z), 1)
        np.add.at(nwk, (word, z), 1)
        nk = nwk.sum(axis=0)
        # the corpus being sampled: conditional() reads it for snapshots of a run still going
        self._word, self._offsets, self._vocab = word, np.concatenate([[0], np.cumsum(lengths)]), vocab
        phi_sum = np.zeros((n_topics, vocab))
        theta_sum = np.zeros((len(token_lists), n_topics))
        trace = []
        cum = np.empty(n_topics)
        v_eta = vocab * eta

        def snapshot(step, changed):
            trace.append(log_joint(ndk, nwk.T, alpha, eta))
            return LDASnapshot(step=step, phase="burn-in" if step <= burn else "sampling",
                               progress=step / self.n_sweeps,
                               assignments=frozen_array(z, dtype=np.uint8 if n_topics <= 255 else np.int32),
                               doc_topic_counts=frozen_array(ndk, dtype=np.int32),
                               topic_word_counts=frozen_array(nwk.T, dtype=np.int32),
                               log_joint=trace[-1], changed_fraction=float(changed) / n_tokens,
                               burning_in=step <= burn)

        yield snapshot(0, n_tokens)
        for step in range(1, self.n_sweeps + 1):
            u = rng.random(n_tokens)
            if switch and compiled_ready():
                loop, switch = compiled_sweep(), False
            if loop is None:
                changed = sweep_numpy(doc, word, z, ndk, nwk, nk, alpha, eta, v_eta, u)
            else:
                changed = loop(doc, word, z, ndk, nwk, nk, alpha, eta, v_eta, u, cum)
            if step > burn:
                phi_sum += (nwk.T + eta) / (nk[:, None] + v_eta)
                theta_sum += (ndk + alpha) / (lengths[:, None] + n_topics * alpha)
            snap = snapshot(step, changed)
            if step == self.n_sweeps:
                self._store(z, ndk, nwk, phi_sum, theta_sum, step - burn, trace)
            yield snap

    def _store(self, z, ndk, nwk, phi_sum, theta_sum, n_kept, trace):
        self.assignments_ = [z[a:b].copy() for a, b in zip(self._offsets[:-1], self._offsets[1:])]
        self.doc_topic_counts_ = ndk.copy()
        self.topic_word_counts_ = nwk.T.copy()
        self.topic_word_ = phi_sum / n_kept
        self.doc_topic_ = theta_sum / n_kept
        self.log_joint_ = np.array(trace)
        self.n_words_ = self._vocab

    def fit(self, docs, y=None, *, n_words: int | None = None):
        """Run all sweeps; returns self."""
        for _ in self.fit_steps(docs, n_words=n_words):
            pass
        return self

    # ------------------------------------------------------------------ queries
    def _fitted(self):
        if not hasattr(self, "topic_word_"):
            raise NotFittedError(f"this {type(self).__name__} is not fitted yet; call fit first")

    def conditional(self, doc: int, position: int, snapshot: LDASnapshot | None = None) -> np.ndarray:
        """The K probabilities p(z_i = k | z_−i, w) the sampler draws token ``position`` of
        document ``doc`` from: the counts without that token, at the end of the fit or at
        ``snapshot`` (one of this model's latest :meth:`fit_steps`)."""
        if snapshot is None:
            self._fitted()
            ndk_all, nkw_all = self.doc_topic_counts_, self.topic_word_counts_
            z_all = np.concatenate(self.assignments_)
        else:
            if not hasattr(self, "_word") or snapshot.assignments.shape != self._word.shape:
                raise ValueError("snapshot is not of this model's latest run")
            ndk_all, nkw_all, z_all = snapshot.doc_topic_counts, snapshot.topic_word_counts, snapshot.assignments
        i = self._token_index(doc, position)
        k = int(z_all[i])
        w = int(self._word[i])
        ndk = ndk_all[doc].astype(float)
        nkw = nkw_all[:, w].astype(float)
        nk = nkw_all.sum(axis=1).astype(float)
        ndk[k] -= 1
        nkw[k] -= 1
        nk[k] -= 1
        p = (ndk + self.alpha) * (nkw + self.eta) / (nk + self._vocab * self.eta)
        return p / p.sum()

    def _token_index(self, doc, position) -> int:
        if not hasattr(self, "_word"):
            raise NotFittedError(f"this {type(self).__name__} is not fitted yet; call fit first")
        n_docs = len(self._offsets) - 1
        if isinstance(doc, bool) or not isinstance(doc, Integral) or not 0 <= doc < n_docs:
            raise ValueError(f"doc must be a document index in [0, {n_docs - 1}]; got {doc!r}")
        length = int(self._offsets[doc + 1] - self._offsets[doc])
        if isinstance(position, bool) or not isinstance(position, Integral) or not 0 <= position < length:
            raise ValueError(f"position must be in [0, {length - 1}] for document {doc}; got {position!r}")
        return int(self._offsets[doc]) + int(position)

    def word_of(self, doc: int, position: int) -> int:
        """The word id of token ``position`` of document ``doc`` of the corpus being fitted."""
        return int(self._word[self._token_index(doc, position)])

    def transform(self, new_docs) -> np.ndarray:
        """θ of unseen documents (D' × K), by Gibbs sampling their tokens' topics with φ fixed.

        Each token is drawn from p(z = k) ∝ (n_dk + α) φ̂_kw, for ``n_sweeps`` sweeps; θ̂ is
        averaged after burn-in, as in :meth:`fit_steps`.
        """
        self._fitted()
        self.validate_params()
        burn = self._burn_in()
        token_lists, _ = as_token_lists(new_docs, self.n_words_, what="new_docs")
        rng = check_random_state(self.random_state)
        n_topics = self.topic_word_.shape[0]
        alpha = float(self.alpha)
        phi = self.topic_word_
        out = np.zeros((len(token_lists), n_topics))
        for d, words in enumerate(token_lists):
            z = rng.integers(0, n_topics, size=words.size)
            counts = np.bincount(z, minlength=n_topics).astype(float)
            weights = phi[:, words].T  # tokens × K
            total = np.zeros(n_topics)
            for step in range(1, self.n_sweeps + 1):
                u = rng.random(words.size)
                for i in range(words.size):
                    counts[z[i]] -= 1
                    cum = np.cumsum((counts + alpha) * weights[i])
                    new = min(int(np.searchsorted(cum, u[i] * cum[-1], side="right")), n_topics - 1)
                    z[i] = new
                    counts[new] += 1
                if step > burn:
                    total += (counts + alpha) / (words.size + n_topics * alpha)
            out[d] = total / (self.n_sweeps - burn)
        return out
