"""N-gram language models: counting, smoothing, sampling and evaluation.

The course's model. A corpus is a sequence of tokens w_1, ..., w_L. An N-gram model
conditions each token on the N - 1 tokens before it; the bigram model is a family of
multinomials, one per previous token,

    Pr(w_l = j | w_{l-1} = k) = H_kj / sum_j' H_kj',

with H_kj the number of times term j follows term k (maximum likelihood). N = 1 is the
bag-of-words (unigram) model.

Conventions (the same in ``fit``, ``perplexity`` and the NLTK comparison of the tests)
-------------------------------------------------------------------------------------
* :func:`tokenize` ends every non-empty line with the marker ``'</s>'`` (:data:`EOS`).
* A model cuts the token stream after every ``'</s>'`` into sentences and pads each
  sentence on the left with N - 1 start symbols ``'<s>'`` (:data:`BOS`). Every real token,
  ``'</s>'`` included, is one event predicted from its N - 1 predecessors; n-grams never
  cross a line end. ``'<s>'`` is only ever a context, never predicted, and is not in
  ``vocab_``. (NLTK: ``pad_sequence(sentence, n, pad_left=True, left_pad_symbol='<s>')``.)
* ``vocab_`` holds ``'<UNK>'`` (:data:`UNK`, id 0) plus every distinct training token; unseen
  tokens at evaluation time count as ``'<UNK>'``. |V| = len(vocab_) is the |V| of Laplace.
* Generation starts at a line start (context of ``'<s>'``) unless a context is given, and
  after a generated ``'</s>'`` starts a new line. ``'<UNK>'`` is never generated (its
  probability is set to 0 and the rest renormalised).

Counts are held as sorted int64 keys: an m-gram is encoded as (rank of its (m-1)-token
prefix among all (m-1)-grams) * (|V| + 1) + (id of its last token), so any vocabulary and
order fit in 64 bits, and a context's continuations form one contiguous slice.

This module holds the counting: the encoding of the stream, ``fit_steps`` and the index of
token positions, all in steps of at most ``2 * CHUNK`` tokens. Tokens and corpus statistics
are defined in :mod:`smlengine._ngram_text`; :class:`NGramModel` inherits its lookups,
smoothed probabilities and evaluation from :mod:`smlengine._ngram_probabilities` and its
generation from :mod:`smlengine._ngram_generation`. The public names of all three are
re-exported here.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from .cache import LRUCache
from ._base import BaseEstimator, IterativeMixin, Snapshot
from ._ngram_generation import NGramStep, NGramGeneration
from ._ngram_probabilities import Evaluation, NGramProbabilities
from ._ngram_text import BOS, EOS, UNK, check_tokens, detokenize, entropy, split_lines, split_sentences, tokenize, zipf
from ._params import Integral, Interval, Options, Real

__all__ = [
    "BOS",
    "EOS",
    "split_sentences",
    "UNK",
    "tokenize",
    "detokenize",
    "NGramModel",
    "NGramFitSnapshot",
    "NGramStep",
    "Evaluation",
    "entropy",
    "zipf",
    "split_lines",
]


def _distinct_strings(tokens: list, name="tokens") -> dict:
    """Distinct tokens in order of appearance; checking types on them is cheap."""
    try:
        distinct = dict.fromkeys(tokens)
    except TypeError:
        raise TypeError(f"{name} must contain strings only") from None
    if not all(isinstance(t, str) for t in distinct):
        raise TypeError(f"{name} must contain strings only")
    return distinct


_ENCODINGS = LRUCache(1)  # tuple of tokens -> (vocab, index, ids) of the last fit (any thread)

CHUNK = 50_000

#: Most tokens one call of ``generate`` may produce.
MAX_GENERATED = 1_000_000
"""Tokens handled per step of a fit where each token costs Python work (a dict lookup):
about 10 ms each, so a fit of all of Shakespeare (1.2 M tokens) never holds its thread, or
the interpreter lock, for long. Vectorised steps (sorting the m-grams of a range of
contexts, indexing positions) take ``2 * CHUNK`` events; a single context more frequent
than that is sorted in one step of its own."""


def _n_chunks(size: int, chunk: int | None = None) -> int:
    return max(1, -(-int(size) // (chunk or CHUNK)))


def _encode_steps(tokens: list):
    """Vocabulary (<UNK> first, then sorted) and the id array of ``tokens``, in steps.

    A generator: yields progress fractions in [0, 1) (one between every two pieces of
    work of at most :data:`CHUNK` tokens) and returns ``(vocab, index, ids)``. It yields the
    same number of times whether the result is cached or not (the step numbers of a run do
    not depend on what ran before), ``2 * ceil(len / CHUNK) + 2`` times in all.

    Mapping a million tokens through a dict is the costliest step of a low-order fit, so the
    last result is kept: fitting N = 1..5 on the same tokens encodes them once. The cache
    compares the whole token tuple (fast: mostly identity checks), so a changed list is
    never mistaken for the old one.
    """
    L = len(tokens)
    k = _n_chunks(L)
    key = tuple(tokens)
    yield 0.0
    hit = _ENCODINGS.get(key)  # hashing and comparing a million tokens: another 10-20 ms
    if hit is not None:
        for i in range(2 * k + 1):
            yield min(i, 2 * k - 1) / (2 * k)
        return hit
    # distinct tokens, one chunk at a time (dict.fromkeys of a million strings is one long
    # call that never releases the interpreter lock)
    distinct: dict = {}
    for i in range(k):
        yield i / (2 * k)
        distinct.update(_distinct_strings(tokens[i * CHUNK:(i + 1) * CHUNK]))
    if BOS in distinct:
        raise ValueError(f"{BOS!r} is reserved for padding and may not appear in the tokens")
    distinct.pop(UNK, None)
    yield 0.5  # sorting the vocabulary: ~30 ms for Shakespeare's 23,000 words
    vocab = (UNK, *sorted(distinct))
    index = {t: i for i, t in enumerate(vocab)}
    ids = np.empty(L, dtype=np.int64)
    get = index.__getitem__
    for i in range(k):
        yield (k + i) / (2 * k)
        a, b = i * CHUNK, min(L, (i + 1) * CHUNK)
        ids[a:b] = np.fromiter(map(get, tokens[a:b]), dtype=np.int64, count=b - a)
    ids.setflags(write=False)
    _ENCODINGS.put(key, (vocab, index, ids))
    return vocab, index, ids


def _relay(gen, make):
    """Yield ``make(f)`` for every fraction ``f`` that ``gen`` yields; return its value."""
    while True:
        try:
            f = next(gen)
        except StopIteration as done:
            return done.value
        yield make(f)


def _encode(tokens: list) -> tuple[tuple, dict, np.ndarray]:
    """:func:`_encode_steps` in one call."""
    steps = _encode_steps(tokens)
    while True:
        try:
            next(steps)
        except StopIteration as done:
            return done.value


def _count_order(key: np.ndarray, prefix: np.ndarray, n_prefix: int, n_real: int, B: int):
    """Sorted distinct ``key`` values, the rank of every element and the counts, in steps.

    ``key`` = prefix * B + token is sorted by ``prefix`` first, so the events are cut into
    buckets of consecutive prefix values of at most ``2 * CHUNK`` events each (a single
    prefix more frequent than that is cut by ranges of its tokens) and each bucket is sorted
    alone: the distinct keys of the buckets, one after the other, are the distinct keys of
    all, exactly as one ``np.unique`` would give them. Only a single m-gram more frequent
    than ``2 * CHUNK`` makes a longer step.

    A generator: yields the fraction done before every bucket and returns
    ``(keys, inverse, counts)`` with ``counts`` counting only the first ``n_real`` elements
    (the others, e.g. the all-pad window, are listed among the keys with count 0).
    """
    size = 2 * CHUNK

    def cut(hist):
        """Bounds of consecutive ranges of at most `size` events (or one value)."""
        cum = np.cumsum(hist)
        cuts = [0]
        while cuts[-1] < hist.size:
            lo = cuts[-1]
            base = int(cum[lo - 1]) if lo else 0
            cuts.append(max(lo + 1, int(np.searchsorted(cum, base + size, side="right"))))
        cuts[-1] = hist.size
        return cuts, cum

    cuts, cum = cut(np.bincount(prefix, minlength=n_prefix))
    inverse = np.empty(key.size, dtype=np.int64)
    keys, counts = [], []
    n_buckets = len(cuts) - 1

    offset = 0
    for b in range(n_buckets):
        yield b / n_buckets
        lo, hi = cuts[b], cuts[b + 1]
        n_events = int(cum[hi - 1]) - (int(cum[lo - 1]) if lo else 0)
        if n_events == 0:
            continue
        sel = np.flatnonzero((key >= lo * B) & (key < hi * B))
        if n_events <= size or hi > lo + 1:
            pieces = [sel]
        else:  # one context alone: cut it by ranges of the next token
            tok = key[sel] - lo * B
            tcuts, _ = cut(np.bincount(tok, minlength=B))
            pieces = [sel[(tok >= tcuts[j]) & (tok < tcuts[j + 1])] for j in range(len(tcuts) - 1)]
        for j, part in enumerate(pieces):
            if j:
                yield (b + j / len(pieces)) / n_buckets
            if part.size == 0:
                continue
            u, inv = np.unique(key[part], return_inverse=True)
            inv = inv.reshape(-1)
            inverse[part] = inv + offset
            counts.append(np.bincount(inv[part < n_real], minlength=u.size))
            keys.append(u)
            offset += u.size
    return np.concatenate(keys), inverse, np.concatenate(counts)


# --------------------------------------------------------------------------- snapshots
@dataclass(frozen=True, kw_only=True, eq=False)
class NGramFitSnapshot(Snapshot):
    """Progress of :meth:`NGramModel.fit_steps` (``phase`` and ``progress`` say where).

    Attributes
    ----------
    order : int
        The order being counted (0 while building the vocabulary).

    Examples
    --------
    >>> from smlengine.ngram import NGramModel, tokenize
    >>> tokens = tokenize("the cat sat on the mat\\nthe dog sat on the log\\n")
    >>> snaps = list(NGramModel(n=2).fit_steps(tokens))
    >>> list(dict.fromkeys(s.phase for s in snaps))
    ['vocabulary', 'counting 1-grams', 'counting 2-grams', 'context statistics', 'done']
    >>> snaps[-1].progress
    1.0
    """

    order: int  # the order being counted (0 while building the vocabulary)


# --------------------------------------------------------------------------- tables
class _Order:
    """Counts of all m-grams of one order m, sorted by (context rank, token id)."""

    __slots__ = ("keys", "word", "count", "kn", "start", "end", "tot", "kn_tot", "kn_types",
                 "rcum", "dcum", "lam")


class NGramModel(NGramProbabilities, NGramGeneration, IterativeMixin, BaseEstimator):
    """N-gram language model with MLE, add-k (Laplace) or interpolated Kneser-Ney estimates.

    With c(h w) the count of context h followed by w and c(h .) = sum_w c(h w):

    * ``'mle'``: Pr(w | h) = c(h w) / c(h .); 0 when h was never seen.
    * ``'laplace'``: Pr(w | h) = (c(h w) + k) / (c(h .) + k |V|).
    * ``'kneser-ney'`` (interpolated, Chen & Goodman 1998), discount D:

          Pr(w | h) = max(c'(h w) - D, 0) / c'(h .) + D N1+(h .) / c'(h .) * Pr(w | h'),

      h' = h without its first token; c' = c at the highest order and the continuation
      count N1+(. h w) (number of distinct tokens seen before h w) at lower orders;
      N1+(h .) = number of distinct continuations of h. An unseen h uses Pr(w | h')
      directly. The recursion ends with the unigram level interpolated with the uniform
      distribution 1/|V|, so every token of the vocabulary has probability > 0.

    Parameters
    ----------
    n : int, default=3
        Order N (1 to 10).
    smoothing : {'mle', 'laplace', 'kneser-ney'}, default='mle'
        The estimate of Pr(w | h), see above.
    k : float, default=1.0
        Pseudo-count of add-k smoothing (>= 0; k = 1 is Laplace).
    discount : float, default=0.75
        Kneser-Ney absolute discount D, 0 < D <= 1.

    Attributes
    ----------
    vocab_ : tuple of str
        ``'<UNK>'`` first, then the training tokens sorted.
    n_tokens_ : int
        Number of training tokens (events).
    n_sentences_ : int
        Number of padded sentences (lines).
    n_ngrams_ : tuple of int
        Number of distinct m-grams for m = 1..N.

    Notes
    -----
    ``next_distribution`` under MLE backs off to the longest suffix of the context seen in
    training when the whole context is unseen (otherwise there is no distribution to draw
    from); ``prob`` stays the strict MLE (0 for an unseen context), as does ``perplexity``.

    Examples
    --------
    >>> from smlengine.ngram import NGramModel, tokenize
    >>> tokens = tokenize("the cat sat on the mat\\nthe dog sat on the log\\n")
    >>> tokens[:7]
    ['the', 'cat', 'sat', 'on', 'the', 'mat', '</s>']
    >>> lm = NGramModel(n=2).fit(tokens)
    >>> len(lm.vocab_), lm.n_tokens_, lm.n_ngrams_
    (9, 14, (8, 11))
    >>> lm.counts(["the"])
    {'cat': 1, 'dog': 1, 'log': 1, 'mat': 1}
    >>> lm.prob("cat", ["the"]), lm.prob("sat", ["dog"])
    (0.25, 1.0)
    >>> round(lm.perplexity(tokenize("the cat sat on the log\\n")), 3)
    1.486
    >>> lm.generate(8, random_state=0)
    'the dog sat on the mat\\nthe'

    Kneser-Ney gives unseen bigrams some probability:

    >>> kn = NGramModel(n=2, smoothing="kneser-ney").fit(tokens)
    >>> lm.prob("dog", ["on"]), round(kn.prob("dog", ["on"]), 3)
    (0.0, 0.031)
    """

    _parameter_constraints = {
        "n": [Interval(Integral, 1, 10)],
        "smoothing": [Options(("mle", "laplace", "kneser-ney"))],
        # k |V| joins every denominator: beyond 1e6 per token the estimate is the uniform one to
        # working precision, and near 1e308 the sum overflows to inf and the ratio to NaN
        "k": [Interval(Real, 0, 1e6)],
        "discount": [Interval(Real, 0, 1, closed="right")],
    }

    #: constraints of the generation arguments
    _generation_constraints = {
        "length": [Interval(Integral, 1, MAX_GENERATED)],
        "temperature": [Interval(Real, 0, 1e3)],
        "top_k": [Interval(Integral, 1, None), None],
        "n_top": [Interval(Integral, 1, None)],
        "level": [Options(("word", "char"))],
    }

    def __init__(self, n=3, smoothing="mle", k=1.0, discount=0.75):
        self.n = n
        self.smoothing = smoothing
        self.k = k
        self.discount = discount

    # ------------------------------------------------------------------ fitting
    def _validate(self):
        self.validate_params()

    def fit_steps(self, tokens):
        """Count all m-grams, m = 1..N, of the padded token stream.

        Yields
        ------
        NGramFitSnapshot
            Phases 'vocabulary', 'counting m-grams' for m = 1..N, 'context statistics' and
            'done'; the last one has ``progress=1.0`` and the model is then fitted. Long
            phases yield between pieces of work of at most :data:`CHUNK` tokens (twice that
            for vectorised work on m-grams), so a step stays short on a million tokens:
            about 2 L / CHUNK + 4 + N (L / (2 CHUNK) + 2) + 2 N steps for L tokens.
        """
        self._validate()
        tokens = check_tokens(tokens)
        n = int(self.n)
        steps = itertools.count()
        total = n + 2

        def snap(phase, progress, order):
            return NGramFitSnapshot(step=next(steps), phase=phase, progress=progress, order=order)

        yield snap("vocabulary", 0.0, 0)
        vocab, index, ids = yield from _relay(_encode_steps(tokens), lambda f: snap("vocabulary", f / total, 0))
        yield snap("vocabulary", 1 / total, 0)
        V = len(vocab)
        B = V + 1  # ids 0..V-1 are tokens, V is the start pad
        seq, real = self._pad(ids, index.get(EOS, -1), n, V)

        # R[j]: rank of the j-gram ending at each position of seq (R[1] = the ids);
        # U[j]: the sorted distinct j-gram keys, so R[j] indexes U[j]. Only windows ending
        # at a real token are sorted; at every pad position R[j] is the rank of the
        # all-pad j-gram, which is what a window ending at the last pad of a sentence is
        # (the padding is n-1 long), and no other window ending at a pad is ever used.
        R: list = [None, seq]
        U: list = [None, None]
        orders: list = [None]
        before = real - 1
        for m in range(1, n + 1):
            phase = f"counting {m}-grams"
            yield snap(phase, m / total, m)
            t = _Order()
            if m == 1:
                t.keys = np.arange(V, dtype=np.int64)
                t.count = np.bincount(ids, minlength=V)
                rep = None
            else:
                prefix = R[m - 1][before]
                key = prefix * B + ids
                n_prefix = B if m == 2 else U[m - 1].size
                if m < n:  # the all-pad window is listed too: pads of order m point to it
                    pad_rank = int(R[m - 1][0])  # seq[0] is always a pad
                    prefix = np.append(prefix, pad_rank)
                    key = np.append(key, pad_rank * B + V)
                t.keys, inv, t.count = yield from _relay(
                    _count_order(key, prefix, n_prefix, real.size, B),
                    lambda f, m=m, phase=phase: snap(phase, (m + f) / total, m))
                del prefix, key
                yield snap(phase, (m + 1) / total, m)
                if m < n:
                    Rm = np.full(seq.size, inv[-1], dtype=np.int64)
                    inv = inv[:-1]
                    Rm[real] = inv
                    R.append(Rm)
                    U.append(t.keys)
                # one occurrence per distinct m-gram, for the continuation counts below
                rep = np.full(t.keys.size, -1, dtype=np.int64)
                rep[inv] = real
                rep = rep[rep >= 0]
                del inv
            t.word = t.keys % B if m > 1 else t.keys
            orders.append(t)
            if m > 1:
                # continuation counts of order m-1: N1+(. g) = distinct m-grams ending in g
                prev = orders[m - 1]
                suffix = R[m - 1][rep] if m - 1 > 1 else seq[rep]
                prev.kn = np.bincount(suffix, minlength=prev.keys.size)[: prev.keys.size]
        orders[n].kn = orders[n].count

        D = float(self.discount)
        for m in range(1, n + 1):
            yield snap("context statistics", (n + 1 + (m - 1) / n) / total, m)
            t = orders[m]
            n_ctx = 1 if m == 1 else (B if m == 2 else U[m - 1].size)
            if m == 1:
                bounds = np.array([0, V], dtype=np.int64)
            else:
                # keys are sorted by context: a context's block ends at the running count
                bounds = np.zeros(n_ctx + 1, dtype=np.int64)
                np.cumsum(np.bincount(t.keys // B, minlength=n_ctx), out=bounds[1:])
            t.start, t.end = bounds[:-1], bounds[1:]
            rcum = np.concatenate([[0], np.cumsum(t.count)])
            kcum = np.concatenate([[0], np.cumsum(t.kn)])
            tcum = np.concatenate([[0], np.cumsum(t.kn > 0)])
            t.tot = rcum[t.end] - rcum[t.start]
            t.kn_tot = kcum[t.end] - kcum[t.start]
            t.kn_types = tcum[t.end] - tcum[t.start]
            del rcum, kcum, tcum
            yield snap("context statistics", (n + 1 + (m - 0.5) / n) / total, m)
            rcum = np.concatenate([[0], np.cumsum(t.count)])
            t.rcum = rcum.astype(np.float64)
            t.dcum = np.concatenate([[0.0], np.cumsum(np.maximum(t.kn - D, 0.0))])
            # Kneser-Ney weight of the lower order per context; 1 for contexts never followed
            # by a token, so sampling simply moves down a level there.
            with np.errstate(divide="ignore", invalid="ignore"):
                t.lam = np.where(t.kn_tot > 0, D * t.kn_types / np.maximum(t.kn_tot, 1), 1.0)

        self._orders = orders
        self._U = U
        self._B = B
        self._index = index
        self._ids = ids
        self._occ = None
        self.vocab_ = vocab
        self.n_tokens_ = int(ids.size)
        self.n_sentences_ = int(np.count_nonzero(ids[:-1] == index.get(EOS, -1))) + 1
        self.n_ngrams_ = tuple(int(np.count_nonzero(orders[m].count)) for m in range(1, n + 1))
        self._fit_params = (n, self.smoothing, float(self.k), D)
        self._bos_ranks = self._chain([V] * (n - 1))
        yield snap("done", 1.0, n)

    @staticmethod
    def _pad(ids: np.ndarray, eos: int, n: int, bos: int) -> tuple[np.ndarray, np.ndarray]:
        """Left-pad every sentence with n-1 start ids; return (sequence, positions of real ids)."""
        pad = n - 1
        sentence = np.zeros(ids.size, dtype=np.int64)
        if ids.size > 1:
            np.cumsum(ids[:-1] == eos, out=sentence[1:])
        real = np.arange(ids.size, dtype=np.int64) + pad * (sentence + 1)
        seq = np.full(ids.size + pad * (int(sentence[-1]) + 1), bos, dtype=np.int64)
        seq[real] = ids
        return seq, real

    def _encode(self, tokens) -> tuple[np.ndarray, int]:
        tokens = check_tokens(tokens)
        if BOS in _distinct_strings(tokens):
            raise ValueError(f"{BOS!r} is reserved for padding and may not appear in the tokens")
        get = self._index.get
        ids = np.fromiter((get(t, 0) for t in tokens), dtype=np.int64, count=len(tokens))
        n_oov = sum(1 for t in tokens if t not in self._index or t == UNK)
        return ids, n_oov

    def verbatim_index_steps(self):
        """Index every token's positions in the training stream, in steps.

        The verbatim check of :meth:`generate_steps` (``span_length``) needs, for every
        token id, its positions in the training stream in increasing order: a stable sort
        of the ids, done here as a counting sort of ``2 * CHUNK`` positions per step (a
        single sort of a million ids holds the thread for 0.1-0.2 s). ``generate_steps``
        builds the index itself when it is missing; a caller that must stay responsive
        runs this first. Kept until the next fit.

        Yields
        ------
        float
            The fraction done, before each chunk: ``ceil(n_tokens_ / (2 CHUNK))`` yields, also
            when the index already exists.
        """
        self._check_fitted_model()
        ids = self._ids
        V = len(self.vocab_)
        step = 2 * CHUNK
        k = _n_chunks(ids.size, step)
        if self._occ is not None:
            for i in range(k):
                yield i / k
            return
        bounds = np.zeros(V + 1, dtype=np.int64)
        np.cumsum(np.bincount(ids, minlength=V), out=bounds[1:])
        fill = bounds[:-1].copy()  # next free slot of every id
        order = np.empty(ids.size, dtype=np.int64)
        small = V <= 1 << 16  # numpy sorts 16-bit integers stably by radix, in linear time
        for i in range(k):
            yield i / k
            a = i * step
            c = ids[a:a + step]
            o = np.argsort(c.astype(np.uint16) if small else c, kind="stable")
            sc = c[o]
            within = np.arange(sc.size) - np.searchsorted(sc, sc, side="left")
            order[fill[sc] + within] = a + o
            fill += np.bincount(c, minlength=V)
        self._occ = (order, bounds)
