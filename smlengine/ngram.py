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
"""

from __future__ import annotations

import itertools
import math
import numbers
import re
from collections import Counter
from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np

from .cache import LRUCache
from ._base import (
    BaseEstimator,
    IterativeMixin,
    Snapshot,
    check_choice,
    check_random_state,
    check_scalar,
    frozen_array,
)
from ._params import Integral, Interval, Options, Real, check_param

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

BOS = "<s>"
EOS = "</s>"
UNK = "<UNK>"

_WORD = re.compile(r"\w+|[^\w\s]")
_NO_SPACE_BEFORE = set(".,;:!?)]}'-")
_NO_SPACE_AFTER = set("([{'-")


# --------------------------------------------------------------------------- tokens
def tokenize(text: str, level: str = "word", lowercase: bool = True) -> list[str]:
    """Split text into tokens, marking every line end with ``'</s>'``.

    Parameters
    ----------
    text : str
    level : {'word', 'char'}
        ``'word'``: words and single punctuation marks (regular expression
        ``\\w+|[^\\w\\s]``, so "who's" gives ``who ' s``). ``'char'``: single characters,
        runs of spaces and tabs collapsed to one space.
    lowercase : bool, default=True

    Returns
    -------
    list of str
        A line end becomes ``'</s>'``; empty lines add nothing, and a last line without a
        final newline gets no marker (handy for a prompt).
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a string, got {type(text).__name__}")
    check_choice("level", level, ("word", "char"))
    if lowercase:
        text = text.lower()
    lines = text.splitlines()
    closed = text.endswith(("\n", "\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"))
    out: list[str] = []
    last = len(lines) - 1
    for i, line in enumerate(lines):
        toks = _WORD.findall(line) if level == "word" else list(" ".join(line.split()))
        if not toks:
            continue
        out.extend(toks)
        if i < last or closed:
            out.append(EOS)
    if not out:
        raise ValueError("the text is empty: it contains no words or characters")
    return out


def _piece(prev: str | None, tok: str, level: str) -> str:
    """Text to append for ``tok`` after ``prev`` (approximate inverse of tokenize)."""
    if tok == EOS:
        return "\n"
    if level == "char" or prev is None or prev == EOS:
        return tok
    if tok in _NO_SPACE_BEFORE or prev in _NO_SPACE_AFTER:
        return tok
    return " " + tok


def detokenize(tokens: Iterable[str], level: str = "word") -> str:
    """Join tokens back into readable text: ``'</s>'`` becomes a line break.

    Word level puts spaces between words but not before ``. , ; : ! ? ) ' -`` nor after
    ``( ' -``; the result is approximate ("'tis" after a word loses its space).
    """
    check_choice("level", level, ("word", "char"))
    parts = []
    prev = None
    for tok in tokens:
        parts.append(_piece(prev, tok, level))
        prev = tok
    return "".join(parts)


def _check_tokens(tokens, name="tokens") -> list[str]:
    if isinstance(tokens, str):
        raise TypeError(f"{name} must be a list of tokens, not a string; use tokenize(text) first")
    try:
        tokens = list(tokens)
    except TypeError:
        raise TypeError(f"{name} must be a sequence of strings, got {type(tokens).__name__}") from None
    if not tokens:
        raise ValueError(f"{name} is empty: there is nothing to count")
    return tokens


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


# --------------------------------------------------------------------------- information
def entropy(tokens: Iterable) -> float:
    """Entropy of the token frequencies in bits per token, H = -sum_j p_j log2 p_j."""
    counts = np.fromiter(Counter(_check_tokens(tokens)).values(), dtype=np.float64)
    p = counts / counts.sum()
    return float(-(p * np.log2(p)).sum())


def zipf(tokens: Iterable) -> tuple[np.ndarray, np.ndarray]:
    """Zipf's law data: ``(rank, frequency)``, frequencies sorted in decreasing order.

    ``rank`` is 1, 2, ..., d and ``frequency[r - 1]`` the count of the r-th most frequent
    token (ties broken by first appearance). On a log-log plot Zipf's law is a line of
    slope about -1.
    """
    counts = np.fromiter(Counter(_check_tokens(tokens)).values(), dtype=np.int64)
    freq = np.sort(counts, kind="stable")[::-1].copy()
    return np.arange(1, freq.size + 1), freq


def split_sentences(tokens) -> list[list[str]]:
    """The token stream cut after every ``'</s>'``: one list per sentence (line), each ending
    in ``'</s>'`` except possibly the last. This is how every model here sees sentences."""
    lines, cur = [], []
    for t in tokens:
        cur.append(t)
        if t == EOS:
            lines.append(cur)
            cur = []
    if cur:
        lines.append(cur)
    return lines


def split_lines(tokens, test_fraction: float = 0.1, random_state=None) -> tuple[list[str], list[str]]:
    """Random train/test split of whole lines (sentences ending in ``'</s>'``)."""
    tokens = _check_tokens(tokens)
    check_scalar("test_fraction", test_fraction, numbers.Real, min_value=0.0, max_value=1.0,
                 include_min=False, include_max=False)
    rng = check_random_state(random_state)
    lines = split_sentences(tokens)
    if len(lines) < 2:
        raise ValueError("need at least two lines to split into train and test")
    n_test = min(len(lines) - 1, max(1, round(test_fraction * len(lines))))
    is_test = np.zeros(len(lines), bool)
    is_test[rng.choice(len(lines), n_test, replace=False)] = True
    train = [t for line, te in zip(lines, is_test) if not te for t in line]
    test = [t for line, te in zip(lines, is_test) if te for t in line]
    return train, test


# --------------------------------------------------------------------------- snapshots
@dataclass(frozen=True, kw_only=True, eq=False)
class NGramFitSnapshot(Snapshot):
    """Progress of :meth:`NGramModel.fit_steps` (``phase`` and ``progress`` say where)."""

    order: int  # the order being counted (0 while building the vocabulary)


@dataclass(frozen=True, kw_only=True, eq=False)
class NGramStep(Snapshot):
    """One generated token.

    Attributes
    ----------
    token : str
    token_id : int
        Index in ``vocab_``.
    piece : str
        Text to append to the output for this token (leading space, punctuation, "\\n").
    context : tuple of str
        The N - 1 tokens conditioned on (``'<s>'`` pads at a line start).
    probability : float
        Probability of ``token`` under the distribution it was drawn from.
    top_tokens, top_ids, top_probs : tuple of str, ndarray, ndarray
        The most probable tokens of that distribution (after temperature and top-k),
        descending; the drawn token need not be among them.
    order : int
        1 + length of the longest suffix of the context seen in training (N when the whole
        context was seen).
    ngram_in_corpus : bool
        Whether context + token occurs as an N-gram in the training corpus.
    span_length : int
        Length (tokens) of the longest run of generated tokens ending here that occurs
        verbatim in the training stream.
    longest_span : int
        Largest ``span_length`` so far in this generation.
    """

    token: str
    token_id: int
    piece: str
    context: tuple
    probability: float
    top_tokens: tuple
    top_ids: np.ndarray
    top_probs: np.ndarray
    order: int
    ngram_in_corpus: bool
    span_length: int
    longest_span: int


@dataclass(frozen=True)
class Evaluation:
    """Cross-entropy and perplexity of a model on a token sequence.

    ``cross_entropy`` H = -(1/M) sum_i log2 Pr(w_i | context_i) over the M events, and
    ``perplexity`` = 2^H; both are ``inf`` when ``n_zero`` events got probability 0
    (possible with MLE). ``n_oov`` counts tokens not in the vocabulary.
    """

    cross_entropy: float
    perplexity: float
    n_events: int
    n_zero: int
    n_oov: int


# --------------------------------------------------------------------------- tables
class _Order:
    """Counts of all m-grams of one order m, sorted by (context rank, token id)."""

    __slots__ = ("keys", "word", "count", "kn", "start", "end", "tot", "kn_tot", "kn_types",
                 "rcum", "dcum", "lam")


class _Uniforms:
    """Uniform draws taken from the generator in blocks (one numpy call per 4096 draws)."""

    def __init__(self, rng: np.random.Generator):
        self.rng = rng
        self.buf: list[float] = []

    def __call__(self) -> float:
        if not self.buf:
            self.buf = self.rng.random(4096).tolist()[::-1]
        return self.buf.pop()


class NGramModel(IterativeMixin, BaseEstimator):
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
        tokens = _check_tokens(tokens)
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

    # ------------------------------------------------------------------ lookups
    def _check_fitted_model(self):
        self._check_fitted("vocab_")
        self.validate_params()  # k is read at query time and may have been set after fit
        if self._fit_params[:2] != (self.n, self.smoothing) or self._fit_params[3] != self.discount:
            raise ValueError("n, smoothing or discount changed since fit; call fit again")

    def _lookup(self, j: int, prefix_rank: int, tok: int) -> int:
        """Rank of (j-1)-gram `prefix_rank` followed by `tok` among all j-grams, or -1."""
        if prefix_rank < 0:
            return -1
        keys = self._U[j]
        key = prefix_rank * self._B + tok
        i = int(keys.searchsorted(key))  # the method is cheaper than np.searchsorted on a scalar
        return i if i < keys.size and keys.item(i) == key else -1

    def _chain(self, ctx: Sequence[int]) -> list[int]:
        """ranks[m] = rank of the last m-1 context ids among (m-1)-grams (m = 1..n), -1 unseen."""
        n = len(ctx) + 1
        ranks = [0, 0] + [-1] * (n - 1)
        for m in range(2, n + 1):
            r = ctx[-(m - 1)]
            for j, tok in enumerate(ctx[len(ctx) - (m - 1) + 1:], start=2):
                r = self._lookup(j, r, tok)
            ranks[m] = r
        return ranks

    def _advance(self, ranks: list[int], tok: int) -> list[int]:
        """Context ranks after appending `tok` (each suffix grows by one token)."""
        n = len(ranks) - 1
        new = [0, 0] + [-1] * (n - 1)
        if n >= 2:
            new[2] = tok
        for m in range(3, n + 1):
            new[m] = self._lookup(m - 1, ranks[m - 1], tok)
        return new

    def _context_ids(self, context) -> list[int]:
        n = self.n
        if context is None:
            toks: list[str] = []
        else:
            if isinstance(context, str):
                raise TypeError("context must be a list of tokens, not a string; use tokenize(text)")
            toks = list(context)
        if EOS in toks:  # a line end restarts the context, as in training
            toks = toks[len(toks) - toks[::-1].index(EOS):]
        V = len(self.vocab_)
        ids = [V if t == BOS else self._index.get(t, 0) for t in toks][-(n - 1):] if n > 1 else []
        return [V] * (n - 1 - len(ids)) + ids

    def _seen_order(self, ranks: list[int]) -> int:
        for m in range(len(ranks) - 1, 1, -1):
            r = ranks[m]
            if r >= 0 and self._orders[m].tot.item(r) > 0:
                return m
        return 1

    # ------------------------------------------------------------------ probabilities
    def _vector(self, ranks: list[int]) -> np.ndarray:
        """Full distribution over vocab_ for a context given by its ranks."""
        V = len(self.vocab_)
        O = self._orders
        n = len(ranks) - 1
        if self.smoothing == "mle":
            m = self._seen_order(ranks)
            t, r = O[m], ranks[m]
            p = np.zeros(V)
            s, e = t.start[r], t.end[r]
            words = t.word[s:e]
            ok = words < V  # lower orders also list windows ending in the pad (count 0)
            p[words[ok]] = t.count[s:e][ok] / t.tot[r]
            return p
        if self.smoothing == "laplace":
            t, r = O[n], ranks[n]
            k = float(self.k)
            tot = float(t.tot[r]) if r >= 0 else 0.0
            if k == 0 and tot == 0:
                return np.full(V, 1.0 / V)
            p = np.full(V, k / (tot + k * V))
            if r >= 0:
                s, e = t.start[r], t.end[r]
                p[t.word[s:e]] += t.count[s:e] / (tot + k * V)
            return p
        D = float(self.discount)
        t = O[1]
        tot = float(t.kn_tot[0])
        p = np.maximum(t.kn - D, 0.0) / tot + D * float(t.kn_types[0]) / tot / V
        for m in range(2, n + 1):
            r = ranks[m]
            if r < 0:
                break
            t = O[m]
            tot = float(t.kn_tot[r])
            if tot == 0:
                continue
            s, e = t.start[r], t.end[r]
            p *= D * float(t.kn_types[r]) / tot
            words = t.word[s:e]
            ok = words < V  # lower orders also list windows ending in the pad (count 0)
            p[words[ok]] += np.maximum(t.kn[s:e][ok] - D, 0.0) / tot
        return p

    def _probs(self, ranks: list[np.ndarray], w: np.ndarray) -> np.ndarray:
        """Vectorised Pr(w_i | context_i); ranks[m][i] is the context rank of event i."""
        O = self._orders
        n = len(ranks) - 1
        B = self._B

        def lookup(m, r, field):
            t = O[m]
            if m == 1:
                return getattr(t, field)[w].astype(np.float64)
            key = np.where(r >= 0, r, 0) * B + w
            i = np.minimum(np.searchsorted(t.keys, key), t.keys.size - 1)
            found = (t.keys[i] == key) & (r >= 0)
            return np.where(found, getattr(t, field)[i], 0).astype(np.float64)

        def ctx_stat(m, r, field):
            if m == 1:
                return np.full(w.size, float(getattr(O[1], field)[0]))
            return np.where(r >= 0, getattr(O[m], field)[np.maximum(r, 0)], 0).astype(np.float64)

        if self.smoothing in ("mle", "laplace"):
            c = lookup(n, ranks[n], "count")
            tot = ctx_stat(n, ranks[n], "tot")
            if self.smoothing == "mle":
                with np.errstate(invalid="ignore", divide="ignore"):
                    return np.where(tot > 0, c / np.where(tot > 0, tot, 1), 0.0)
            k, V = float(self.k), len(self.vocab_)
            denom = tot + k * V
            return np.where(denom > 0, (c + k) / np.where(denom > 0, denom, 1), 1.0 / V)
        D, V = float(self.discount), len(self.vocab_)
        t = O[1]
        tot1 = float(t.kn_tot[0])
        p = np.maximum(t.kn[w] - D, 0.0) / tot1 + D * float(t.kn_types[0]) / tot1 / V
        for m in range(2, n + 1):
            tot = ctx_stat(m, ranks[m], "kn_tot")
            typ = ctx_stat(m, ranks[m], "kn_types")
            c = lookup(m, ranks[m], "kn")
            safe = np.where(tot > 0, tot, 1.0)
            p = np.where(tot > 0, (np.maximum(c - D, 0.0) + D * typ * p) / safe, p)
        return p

    def _encode(self, tokens) -> tuple[np.ndarray, int]:
        tokens = _check_tokens(tokens)
        if BOS in _distinct_strings(tokens):
            raise ValueError(f"{BOS!r} is reserved for padding and may not appear in the tokens")
        get = self._index.get
        ids = np.fromiter((get(t, 0) for t in tokens), dtype=np.int64, count=len(tokens))
        n_oov = sum(1 for t in tokens if t not in self._index or t == UNK)
        return ids, n_oov

    def _event_probs(self, ids: np.ndarray) -> np.ndarray:
        n = self.n
        V = len(self.vocab_)
        seq, real = self._pad(ids, self._index.get(EOS, -1), n, V)
        # ranks of every window of the test stream, by the same prefix chain as in fit
        R = [None, seq]
        B = self._B
        for j in range(2, n):
            prev = np.empty_like(seq)
            prev[1:] = R[j - 1][:-1]
            prev[0] = -1
            key = np.where(prev >= 0, prev, 0) * B + seq
            keys = self._U[j]
            i = np.minimum(np.searchsorted(keys, key), keys.size - 1)
            R.append(np.where((keys[i] == key) & (prev >= 0), i, -1))
        ranks = [None, np.zeros(real.size, dtype=np.int64)]
        for m in range(2, n + 1):
            ranks.append(R[m - 1][real - 1])
        return self._probs(ranks, ids)

    # ------------------------------------------------------------------ public queries
    def counts(self, context=None) -> dict[str, int]:
        """Counts c(h w) of every token w seen after context h (its last N-1 tokens).

        ``None`` or ``[]`` means a line start (``'<s>'`` padding). Sorted by decreasing
        count, then token. The empty dict means the context was never seen.
        """
        self._check_fitted_model()
        ranks = self._chain(self._context_ids(context))
        m = self.n
        r = ranks[m]
        if r < 0:
            return {}
        t = self._orders[m]
        s, e = int(t.start[r]), int(t.end[r])
        words, cnt = t.word[s:e], t.count[s:e]
        order = np.lexsort((words, -cnt))
        return {self.vocab_[int(words[i])]: int(cnt[i]) for i in order if cnt[i] > 0}

    def prob(self, token: str, context=None) -> float:
        """Pr(token | context) under the fitted estimate (unknown tokens count as ``'<UNK>'``)."""
        self._check_fitted_model()
        if not isinstance(token, str):
            raise TypeError(f"token must be a string, got {type(token).__name__}")
        ranks = self._chain(self._context_ids(context))
        w = np.array([self._index.get(token, 0)])
        return float(self._probs([None] + [np.array([r]) for r in ranks[1:]], w)[0])

    def next_distribution(self, context=None) -> np.ndarray:
        """Pr(w | context) for every w in ``vocab_`` (sums to 1). See Notes for MLE."""
        self._check_fitted_model()
        return self._vector(self._chain(self._context_ids(context)))

    def evaluate(self, tokens) -> Evaluation:
        """Cross-entropy, perplexity and the number of zero-probability events on ``tokens``."""
        self._check_fitted_model()
        ids, n_oov = self._encode(tokens)
        p = self._event_probs(ids)
        n_zero = int(np.count_nonzero(p <= 0))
        if n_zero:
            h = math.inf
        else:
            h = float(-np.mean(np.log2(p)))
        return Evaluation(cross_entropy=h, perplexity=2.0**h if h != math.inf else math.inf,
                          n_events=int(p.size), n_zero=n_zero, n_oov=n_oov)

    def cross_entropy(self, tokens) -> float:
        """H = -(1/M) sum_i log2 Pr(w_i | w_{i-N+1..i-1}) in bits per token (inf if any Pr = 0)."""
        return self.evaluate(tokens).cross_entropy

    def perplexity(self, tokens) -> float:
        """2^H, with H the cross-entropy; ``inf`` if an event has probability 0 (see evaluate)."""
        return self.evaluate(tokens).perplexity

    def score(self, tokens, y=None) -> float:
        """-H: the mean log2-probability per token of ``tokens`` (higher is better; ``-inf`` if an event
        has probability 0, which only MLE gives). What ``cross_val_score`` and ``GridSearchCV`` maximise."""
        return -self.cross_entropy(tokens)

    # ------------------------------------------------------------------ generation
    def _check_generation(self, length, temperature, top_k):
        self._check_fitted_model()
        for name, value in (("length", length), ("temperature", temperature), ("top_k", top_k)):
            check_param(name, value, self._generation_constraints[name])

    def _draw_fast(self, ranks: list[int], u) -> int:
        """Draw from the mixture structure of the estimate without building the vector.

        Each estimate is a mixture of a (discounted) count distribution over the seen
        continuations and a lower-order (or uniform) distribution, so one uniform number
        picks the component and, rescaled, the token inside it.
        """
        O = self._orders
        n = len(ranks) - 1
        V = len(self.vocab_)
        if self.smoothing == "mle":
            m = self._seen_order(ranks)
            t, r = O[m], ranks[m]
            s, e = int(t.start[r]), int(t.end[r])
            target = t.rcum[s] + u() * float(t.tot[r])
            return int(t.word[s + int(t.rcum[s + 1:e + 1].searchsorted(target, side="right"))])
        if self.smoothing == "laplace":
            t, r = O[n], ranks[n]
            k = float(self.k)
            tot = float(t.tot[r]) if r >= 0 else 0.0
            mass = tot / (tot + k * V) if tot + k * V > 0 else 0.0
            x = u()
            if x < mass:
                s, e = int(t.start[r]), int(t.end[r])
                target = t.rcum[s] + x / mass * tot
                return int(t.word[s + int(t.rcum[s + 1:e + 1].searchsorted(target, side="right"))])
            return min(V - 1, int((x - mass) / (1.0 - mass) * V))
        for m in range(n, 0, -1):
            r = ranks[m]
            if r < 0:
                continue
            t = O[m]
            lam = float(t.lam[r])  # weight of the lower order
            if lam >= 1.0:
                continue
            x = u()
            if x >= lam:
                s, e = int(t.start[r]), int(t.end[r])
                target = t.dcum[s] + (x - lam) / (1.0 - lam) * (t.dcum[e] - t.dcum[s])
                i = s + int(t.dcum[s + 1:e + 1].searchsorted(target, side="right"))
                return int(t.word[min(i, e - 1)])
        return min(V - 1, int(u() * V))

    def _transform(self, p: np.ndarray, temperature: float, top_k: int | None) -> np.ndarray:
        p = p.copy()
        p[0] = 0.0  # never generate <UNK>
        if top_k is not None and top_k < p.size:
            keep = np.argsort(-p, kind="stable")[:top_k]
            mask = np.zeros(p.size, bool)
            mask[keep] = True
            p[~mask] = 0.0
        if temperature == 0:
            q = np.zeros_like(p)
            q[int(np.argmax(p))] = 1.0
            return q
        if temperature != 1.0:
            with np.errstate(divide="ignore"):
                logits = np.log(p) / temperature
            logits -= logits.max()
            p = np.exp(logits)
        return p / p.sum()

    def _sample(self, length, context, temperature, top_k, random_state, want_vector):
        """The one sampling loop behind generate and generate_steps.

        Yields (token id, context ids, context ranks, sampling distribution or None).
        """
        rng = check_random_state(random_state)
        u = _Uniforms(rng)
        fast = temperature == 1.0 and top_k is None
        V = len(self.vocab_)
        eos = self._index.get(EOS, -1)
        ctx = self._context_ids(context)
        ranks = self._chain(ctx)
        for _ in range(int(length)):
            vec = None
            if fast:
                w = self._draw_fast(ranks, u)
                while w == 0:  # <UNK>: redraw, i.e. renormalise without it
                    w = self._draw_fast(ranks, u)
                if want_vector:
                    vec = self._transform(self._vector(ranks), 1.0, None)
            else:
                vec = self._transform(self._vector(ranks), float(temperature), top_k)
                cum = np.cumsum(vec)
                w = int(min(np.searchsorted(cum, u() * cum[-1], side="right"), V - 1))
                while vec[w] == 0:  # guard against landing on a zero-width entry by rounding
                    w -= 1
            yield w, ctx, ranks, vec
            if w == eos:
                ctx = [V] * (self.n - 1)
                ranks = list(self._bos_ranks)
            else:
                ctx = (ctx + [w])[1:] if self.n > 1 else ctx
                ranks = self._advance(ranks, w)

    def generate(self, length=100, context=None, temperature=1.0, top_k=None, random_state=None,
                 level="word") -> str:
        """Generate ``length`` tokens and return them as text (see :func:`detokenize`).

        The same draws as :meth:`generate_steps` with the same arguments.
        """
        self._check_generation(length, temperature, top_k)
        check_choice("level", level, ("word", "char"))
        vocab = self.vocab_
        toks = [vocab[w] for w, *_ in self._sample(length, context, temperature, top_k, random_state, False)]
        prev = None
        if context is not None and not isinstance(context, str) and len(context):
            prev = list(context)[-1]
        parts = []
        for t in toks:
            parts.append(_piece(prev, t, level))
            prev = t
        return "".join(parts)

    def generate_steps(self, length=100, context=None, temperature=1.0, top_k=None, random_state=None,
                       level="word", n_top=15):
        """Generate token by token.

        Each token is drawn from Pr(w | last N-1 tokens) raised to the power 1/temperature
        and renormalised (temperature 0 = arg max, ties to the first token of ``vocab_``),
        restricted to the ``top_k`` most probable tokens when given.

        Yields
        ------
        NGramStep
            One per token; ``progress`` = tokens so far / length. Costs one pass over the
            vocabulary per step (about 0.1-0.3 ms for Shakespeare) plus the verbatim check.
        """
        self._check_generation(length, temperature, top_k)
        check_choice("level", level, ("word", "char"))
        check_param("n_top", n_top, self._generation_constraints["n_top"])
        vocab = self.vocab_
        tracker = _SpanTracker(self)
        prev = None
        if context is not None and not isinstance(context, str) and len(context):
            prev = list(context)[-1]
        longest = 0
        top_n = min(int(n_top), len(vocab))
        V = len(vocab)
        for step, (w, ctx, ranks, vec) in enumerate(
                self._sample(length, context, temperature, top_k, random_state, True), start=1):
            top = np.argpartition(-vec, top_n - 1)[:top_n]
            top = top[np.lexsort((top, -vec[top]))]
            span = tracker.push(w)
            longest = max(longest, span)
            t = self._orders[self.n]
            r = ranks[self.n]
            if self.n == 1:
                seen = bool(t.count[w] > 0)
            else:
                seen = r >= 0 and self._lookup_count(r, w) > 0
            token = vocab[w]
            piece = _piece(prev, token, level)
            prev = token
            yield NGramStep(
                step=step,
                progress=step / length,
                token=token,
                token_id=int(w),
                piece=piece,
                context=tuple(BOS if c == V else vocab[c] for c in ctx),
                probability=float(vec[w]),
                top_tokens=tuple(vocab[i] for i in top),
                top_ids=frozen_array(top, dtype=np.int64),
                top_probs=frozen_array(vec[top]),
                order=self._seen_order(ranks),
                ngram_in_corpus=bool(seen),
                span_length=span,
                longest_span=longest,
            )

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

    def _lookup_count(self, r: int, w: int) -> int:
        t = self._orders[self.n]
        key = r * self._B + w
        i = int(np.searchsorted(t.keys, key))
        return int(t.count[i]) if i < t.keys.size and t.keys[i] == key else 0


class _SpanTracker:
    """Longest suffix of the generated stream that occurs verbatim in the training stream.

    Keeps the end positions of all corpus occurrences of the current match; the next
    token either extends all of them at once or the match restarts from the occurrences
    of the new token and grows to the left (it can be at most as long as before).
    """

    def __init__(self, model: NGramModel):
        if model._occ is None:
            for _ in model.verbatim_index_steps():
                pass
        self.corpus = model._ids
        self.order, self.bounds = model._occ
        self.cand = np.empty(0, dtype=np.int64)
        self.length = 0
        self.history: list[int] = []

    def push(self, w: int) -> int:
        g = self.history
        g.append(w)
        corpus = self.corpus
        if self.length and self.cand.size:
            nxt = self.cand + 1
            nxt = nxt[nxt < corpus.size]
            hit = nxt[corpus[nxt] == w]
            if hit.size:
                self.cand = hit
                self.length += 1
                return self.length
        limit = max(self.length, 1)
        pos = self.order[self.bounds[w]:self.bounds[w + 1]]
        if pos.size == 0:
            self.cand, self.length = pos, 0
            return 0
        length = 1
        while length < limit:
            before = pos - length
            ok = before >= 0
            keep = pos[ok][corpus[before[ok]] == g[-1 - length]]
            if keep.size == 0:
                break
            pos = keep
            length += 1
        self.cand, self.length = pos, length
        return length
