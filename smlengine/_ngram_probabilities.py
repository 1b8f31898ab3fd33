"""Probabilities of a fitted n-gram model: context lookups, the smoothed estimates, perplexity.

The query side of :class:`smlengine.ngram.NGramModel`, as the mixin ``NGramProbabilities``
it inherits: a context becomes the ranks of its suffixes among the counted m-grams
(``_chain``, ``_advance``), the estimate of the model's smoothing (MLE, add-k, interpolated
Kneser-Ney) gives one distribution (``_vector``) or the probabilities of many events at once
(``_probs``), and the public queries (:meth:`counts`, :meth:`prob`,
:meth:`next_distribution`, :meth:`evaluate` with its :class:`Evaluation`, cross-entropy,
perplexity, score) are built on them. The tables they read are made by ``fit_steps`` in
:mod:`smlengine.ngram`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ._ngram_text import BOS, EOS


@dataclass(frozen=True)
class Evaluation:
    """Cross-entropy and perplexity of a model on a token sequence.

    ``cross_entropy`` H = -(1/M) sum_i log2 Pr(w_i | context_i) over the M events, and
    ``perplexity`` = 2^H; both are ``inf`` when ``n_zero`` events got probability 0
    (possible with MLE). ``n_oov`` counts tokens not in the vocabulary.

    Attributes
    ----------
    cross_entropy : float
        H in bits per token.
    perplexity : float
        2^H.
    n_events : int
        M, the number of predicted tokens.
    n_zero : int
        Events that got probability 0.
    n_oov : int
        Tokens not in the vocabulary.

    Examples
    --------
    >>> from smlengine.ngram import NGramModel, tokenize
    >>> lm = NGramModel(n=2).fit(tokenize("the cat sat on the mat\\nthe dog sat on the log\\n"))
    >>> lm.evaluate(tokenize("the cat sat on the dog\\n"))
    Evaluation(cross_entropy=inf, perplexity=inf, n_events=7, n_zero=1, n_oov=0)
    >>> laplace = NGramModel(n=2, smoothing="laplace").fit(tokenize("the cat sat on the mat\\n"))
    >>> ev = laplace.evaluate(tokenize("the cat sat\\n"))
    >>> round(ev.cross_entropy, 3), round(ev.perplexity, 3), ev.n_zero, ev.n_oov
    (2.292, 4.899, 0, 0)
    """

    cross_entropy: float
    perplexity: float
    n_events: int
    n_zero: int
    n_oov: int


class NGramProbabilities:
    """Lookups, smoothed probabilities and evaluation of a fitted :class:`smlengine.ngram.NGramModel`."""

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
