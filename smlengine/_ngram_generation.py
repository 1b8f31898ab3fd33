"""Generation from a fitted n-gram model: sampling, temperature and top-k, verbatim spans.

The generating side of :class:`smlengine.ngram.NGramModel`, as the mixin ``NGramGeneration``
it inherits: one sampling loop (``_sample``) draws either straight from the mixture
structure of the estimate (``_draw_fast``, no vector built) or from the full distribution
reshaped by temperature and top-k (``_transform``); :meth:`generate` returns text and
:meth:`generate_steps` yields an :class:`NGramStep` per token, with the longest run of
generated tokens found verbatim in the training stream (``_SpanTracker``, on the index of
``verbatim_index_steps``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._base import Snapshot, check_choice, check_random_state, frozen_array
from ._ngram_text import BOS, EOS, text_piece
from ._params import check_param


@dataclass(frozen=True, kw_only=True, eq=False)
class NGramStep(Snapshot):
    """One generated token.

    Attributes
    ----------
    token : str
        The generated token.
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

    Examples
    --------
    >>> from smlengine.ngram import NGramModel, tokenize
    >>> lm = NGramModel(n=2).fit(tokenize("the cat sat on the mat\\nthe dog sat on the log\\n"))
    >>> for s in lm.generate_steps(4, random_state=0):
    ...     print(repr(s.piece), s.context, round(s.probability, 3), s.top_tokens[:2], s.span_length)
    'the' ('<s>',) 1.0 ('the', '<UNK>') 1
    ' dog' ('the',) 0.25 ('cat', 'dog') 2
    ' sat' ('dog',) 1.0 ('sat', '<UNK>') 3
    ' on' ('sat',) 1.0 ('on', '<UNK>') 4
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


class _Uniforms:
    """Uniform draws taken from the generator in blocks (one numpy call per 4096 draws)."""

    def __init__(self, rng: np.random.Generator):
        self.rng = rng
        self.buf: list[float] = []

    def __call__(self) -> float:
        if not self.buf:
            self.buf = self.rng.random(4096).tolist()[::-1]
        return self.buf.pop()


class NGramGeneration:
    """Sampling and generation of a fitted :class:`smlengine.ngram.NGramModel`."""

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
            parts.append(text_piece(prev, t, level))
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
            piece = text_piece(prev, token, level)
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

    def __init__(self, model: NGramGeneration):
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
