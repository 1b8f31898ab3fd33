"""The n-gram lab's runs: plain generators (no Qt) executed on the runner's worker thread.

Three modes share one snapshot type so every run is numbered ``step = 0, 1, 2, ...``:

* ``generate``: load and tokenize the corpus, fit the model (progress snapshots), then one
  snapshot per generated token;
* ``learning``: fit N = 1, 2, 3, 4 in turn and draw one sample from each, same seed;
* ``perplexity``: entropy and Zipf data of the corpus, then held-out perplexity of every
  (N, smoothing) cell on a train/test split of the lines.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Callable, Iterator, Mapping

import numpy as np
import numpy.random  # noqa: F401  (imported lazily by numpy otherwise: 50 ms inside the first generation step)

from smlengine.cache import LRUCache, file_key
from smlengine.datasets import load_corpus, load_play, read_text_file
from smlengine.phases import StepCounter
from smlengine import Snapshot
from smlengine.ngram import NGramModel, entropy, split_lines, tokenize, zipf

SMOOTHINGS = ("mle", "laplace", "kneser-ney")
SMOOTHING_LABELS = {"mle": "MLE", "laplace": "add-k (Laplace)", "kneser-ney": "Kneser–Ney"}
LEARNING_ORDERS = (1, 2, 3, 4)
PERPLEXITY_ORDERS = (1, 2, 3, 4, 5)
LEARNING_SAMPLE_MAX = 120  # tokens per sample of the "Learning Shakespeare" view

_EMPTY = np.zeros(0)
_EMPTY.setflags(write=False)
_NO_PARAMS: Mapping = MappingProxyType({})


@dataclass(frozen=True, kw_only=True, eq=False)
class NGramsLabSnapshot(Snapshot):
    """One step of any of the lab's runs (``kind`` says which fields are meaningful).

    kind : 'progress' (loading, tokenizing, counting), 'token' (one generated token),
        'sample' (one finished sample of the learning view), 'cell' (one perplexity cell).
    params : the run's parameters (a read-only copy), for the text drawn beside each frame.
    """

    kind: str = "progress"
    mode: str = "generate"
    params: Mapping = field(default_factory=lambda: _NO_PARAMS)
    n: int = 0
    n_tokens: int = 0  # training tokens
    vocab_size: int = 0
    # --- kind == 'token'
    index: int = -1  # 0-based position of the token in the generated text
    token: str = ""
    piece: str = ""
    context: tuple = ()
    probability: float = 0.0
    top_tokens: tuple = ()
    top_probs: np.ndarray = field(default_factory=lambda: _EMPTY)
    sampled_rank: int = -1  # position of the drawn token among top_tokens, -1 if absent
    order: int = 0
    ngram_in_corpus: bool = False
    span_length: int = 0
    longest_span: int = 0
    count_hw: int = 0  # c(h w) at order N
    count_h: int = 0  # c(h .) at order N
    n_types: int = 0  # N1+(h .): distinct continuations of h
    # --- kind == 'sample'
    samples: tuple = ()  # ((N, text, longest verbatim span), ...)
    # --- kind == 'cell'
    cells: tuple = ()  # ((N, smoothing, perplexity, cross-entropy, n_zero, n_events), ...)
    entropy_bits: float = 0.0
    zipf_rank: np.ndarray = field(default_factory=lambda: _EMPTY)
    zipf_freq: np.ndarray = field(default_factory=lambda: _EMPTY)


# --------------------------------------------------------------------------- data caches
_text_cache = LRUCache(4)  # source key -> text
_token_cache = LRUCache(4)  # (source key, level) -> (tokens, line bounds)


def source_key(corpus: str, path: str) -> tuple:
    """A hashable name of the text source (a file is identified by its path, size and time)."""
    if corpus == "file":
        try:
            return file_key(path, missing_ok=False)
        except OSError:
            raise ValueError(f"cannot open {path!r}: the file does not exist any more") from None
    return (corpus,)


def _read_file(path: str, progress: Callable[[float], None] | None = None) -> str:
    """The text of a file; ``ValueError`` with a short message when it cannot be used."""
    try:
        return read_text_file(path, progress=progress)
    except OSError as exc:
        raise ValueError(f"cannot read {os.path.basename(path)}: {exc.strerror or exc}") from None
    except TypeError as exc:
        raise ValueError(str(exc)) from None


def _load_text(key: tuple, start_thread: Callable | None = None) -> Iterator:
    """Yield read progress fractions, then the text itself as the last item (a str).

    ``start_thread(target, name)`` starts the helper thread a file is read on, so the run
    stays pausable and cancellable between the 1 MiB chunks of a large file (the application
    passes its tracked :func:`app.tasks.start_thread`); without it the file is read here, on
    the caller's thread.
    """
    text = _text_cache.get(key)
    if text is not None:
        yield text
        return
    if key[0] == "shakespeare":
        text = load_corpus("shakespeare")
    elif key[0].startswith("play:"):
        text = load_play(key[0][len("play:"):])
    elif key[0] == "file" and start_thread is None:
        text = _read_file(key[1])
    elif key[0] == "file":
        box: dict = {"progress": 0.0}

        def read():
            try:
                box["text"] = _read_file(key[1], progress=lambda f: box.__setitem__("progress", f))
            except ValueError as exc:
                box["error"] = exc

        reader = start_thread(read, "ngrams-read")
        while reader.is_alive():
            reader.join(0.03)
            if reader.is_alive():
                yield float(box["progress"])
        if "error" in box:
            raise box["error"]
        text = box["text"]
    else:
        raise ValueError(f"unknown corpus {key[0]!r}")
    _text_cache.put(key, text)
    yield text


TOKENIZE_CHUNK = 50_000  # characters per tokenizing step (about 10-20 ms)


def _chunks(text: str) -> list[tuple[int, int]]:
    """Cut ``text`` after line ends into pieces of about TOKENIZE_CHUNK characters.

    Every piece but the last ends with a newline, so tokenizing the pieces one by one gives
    exactly the tokens of the whole text (tokenize works line by line).
    """
    bounds = []
    start = 0
    while start < len(text):
        cut = text.find("\n", start + TOKENIZE_CHUNK)
        end = len(text) if cut < 0 else cut + 1
        bounds.append((start, end))
        start = end
    return bounds


def _tokens(key: tuple, level: str, counter, start_thread: Callable | None = None) -> Iterator:
    """Progress snapshots while loading and tokenizing; returns the token list.

    The same steps are yielded whether the tokens are cached or not (same seed, same
    snapshots); only reading a file reports a timing-dependent number of progress steps.
    """
    yield counter("loading text", 0.0)
    cached = _token_cache.get((key, level))
    if cached is None:
        text = None
        for item in _load_text(key, start_thread):
            if isinstance(item, str):
                text = item
            else:
                yield counter("reading file", 0.5 * item)
        bounds = _chunks(text)
    else:
        toks, bounds = cached
    what = "words" if level == "word" else "characters"
    if cached is None:
        toks = []  # extended piece by piece: joining a million tokens at the end takes 40 ms
    for i, (a, b) in enumerate(bounds):
        yield counter(f"tokenizing ({what}) {i + 1}/{len(bounds)}", 0.5 + 0.5 * i / len(bounds))
        if cached is None:
            try:
                toks.extend(tokenize(text[a:b], level=level))
            except ValueError:  # a piece with only blank lines
                pass
    if cached is None:
        if not toks:
            raise ValueError("the text is empty: it contains no words or characters")
        if len(toks) < 2:
            raise ValueError("the text is too short: it needs at least two tokens")
        _token_cache.put((key, level), (toks, bounds))
    return toks


def read_text_source(path: str, level: str, state=None) -> tuple:
    """Read and tokenize a text file before the lab uses it (a side task); returns its source key.

    The text and its tokens stay in the caches, so the run that follows starts from them.
    ``ValueError`` (missing, empty, binary, not UTF-8, fewer than two tokens) leaves the lab
    as it was: it changes its corpus only once this returns.
    """
    key = source_key("file", path)
    if _token_cache.get((key, level)) is None and _text_cache.get(key) is None:
        def progress(fraction: float) -> None:  # between chunks: cancel, and progress under the text
            if state is not None:
                state.check()
                state.set_progress(0.5 * fraction, "reading file")

        _text_cache.put(key, _read_file(path, progress))
    steps = _tokens(key, level, lambda phase, fraction: (phase, fraction))
    try:
        while True:
            phase, fraction = next(steps)
            if state is not None:
                state.check()
                state.set_progress(fraction, phase)
    except StopIteration:
        pass
    return key


class _Counter(StepCounter):
    """Consecutive step numbers for one run (from 0), and the run's progress snapshots."""

    def __init__(self, mode: str, params: dict):
        super().__init__()
        self.mode = mode
        self.params: Mapping = MappingProxyType(dict(params))

    def __call__(self, phase: str, progress: float, **kw) -> NGramsLabSnapshot:
        return NGramsLabSnapshot(step=self.next(), phase=phase, progress=float(progress), mode=self.mode,
                                params=self.params, **kw)


def _fit(model: NGramModel, toks, counter, lo: float, hi: float, label: str = "", **kw) -> Iterator:
    for s in model.fit_steps(toks):
        yield counter(f"{label}{s.phase}", lo + (hi - lo) * float(s.progress or 0.0), n=int(model.n), **kw)


def _make_model(p: dict, n: int | None = None, smoothing: str | None = None) -> NGramModel:
    return NGramModel(n=int(n or p["n"]), smoothing=smoothing or p["smoothing"], k=float(p["k"]),
                      discount=float(p["discount"]))


# --------------------------------------------------------------------------- runs
def generate_run(p: dict, key: tuple, seed: int, start_thread: Callable | None = None) -> Iterator[NGramsLabSnapshot]:
    c = _Counter("generate", p)
    toks = yield from _tokens(key, p["level"], lambda ph, f: c(ph, 0.3 * f), start_thread)
    model = _make_model(p)
    yield from _fit(model, toks, c, 0.3, 0.95)
    top_k = int(p["top_k"]) or None
    common = dict(mode="generate", params=c.params, n=int(model.n), n_tokens=int(model.n_tokens_),
                  vocab_size=len(model.vocab_))
    for f in model.verbatim_index_steps():  # positions of every token, for the verbatim check
        yield NGramsLabSnapshot(step=c.next(), phase="generating (building the verbatim index)",
                               progress=0.95 + 0.05 * f, **common)
    length = int(p["length"])
    seen_contexts: dict = {}
    for i, s in enumerate(model.generate_steps(length, temperature=float(p["temperature"]), top_k=top_k,
                                               random_state=seed, level=p["level"])):
        # c(h w), c(h .) and N1+(h .) for the maths panel; contexts recur (every line starts
        # with the same one, which has thousands of continuations), so keep them per run
        stats = seen_contexts.get(s.context)
        if stats is None:
            counts = model.counts(list(s.context)) if model.n > 1 else model.counts()
            stats = (counts, int(sum(counts.values())))
            if len(seen_contexts) > 512:
                seen_contexts.clear()
            seen_contexts[s.context] = stats
        counts, c_h = stats
        rank = s.top_tokens.index(s.token) if s.token in s.top_tokens else -1
        yield NGramsLabSnapshot(
            step=c.next(), kind="token", phase="generating", progress=(i + 1) / length, **common,
            index=i, token=s.token, piece=s.piece, context=s.context, probability=float(s.probability),
            top_tokens=s.top_tokens, top_probs=s.top_probs, sampled_rank=rank, order=int(s.order),
            ngram_in_corpus=bool(s.ngram_in_corpus), span_length=int(s.span_length),
            longest_span=int(s.longest_span), count_hw=int(counts.get(s.token, 0)), count_h=c_h,
            n_types=len(counts),
        )


def learning_run(p: dict, key: tuple, seed: int, start_thread: Callable | None = None) -> Iterator[NGramsLabSnapshot]:
    c = _Counter("learning", p)
    toks = yield from _tokens(key, p["level"], lambda ph, f: c(ph, 0.2 * f), start_thread)
    length = min(int(p["length"]), LEARNING_SAMPLE_MAX)
    top_k = int(p["top_k"]) or None
    samples: tuple = ()
    span = 1.0 / len(LEARNING_ORDERS)
    for j, n in enumerate(LEARNING_ORDERS):
        lo = 0.2 + 0.8 * j * span
        model = _make_model(p, n=n)
        yield from _fit(model, toks, c, lo, lo + 0.6 * span, label=f"N = {n}: ")
        yield c(f"N = {n}: sampling", lo + 0.7 * span, n=n)
        longest = 0
        pieces = []
        for s in model.generate_steps(length, temperature=float(p["temperature"]), top_k=top_k,
                                      random_state=seed, level=p["level"]):
            pieces.append(s.piece)
            longest = s.longest_span
        samples = samples + ((n, "".join(pieces), int(longest)),)
        yield NGramsLabSnapshot(step=c.next(), kind="sample", phase=f"N = {n}: sample", progress=lo + 0.8 * span,
                               mode="learning", params=c.params, n=n, n_tokens=int(model.n_tokens_),
                               vocab_size=len(model.vocab_), samples=samples)


def perplexity_run(p: dict, key: tuple, seed: int, start_thread: Callable | None = None) -> Iterator[NGramsLabSnapshot]:
    c = _Counter("perplexity", p)
    toks = yield from _tokens(key, p["level"], lambda ph, f: c(ph, 0.1 * f), start_thread)
    yield c("entropy and Zipf", 0.1)
    h = entropy(toks)
    rank, freq = zipf(toks)
    rank.setflags(write=False)
    freq.setflags(write=False)
    extra = dict(entropy_bits=float(h), zipf_rank=rank, zipf_freq=freq)
    yield c("splitting lines into train and test (90 % / 10 %)", 0.12, **extra)
    train, test = split_lines(toks, 0.1, random_state=seed)
    cells: tuple = ()
    total = len(PERPLEXITY_ORDERS) * len(SMOOTHINGS)
    done = 0
    for n in PERPLEXITY_ORDERS:
        for sm in SMOOTHINGS:
            lo = 0.15 + 0.85 * done / total
            hi = 0.15 + 0.85 * (done + 1) / total
            model = _make_model(p, n=n, smoothing=sm)
            yield from _fit(model, train, c, lo, lo + 0.8 * (hi - lo), label=f"N = {n}, {SMOOTHING_LABELS[sm]}: ",
                            cells=cells, **extra)
            ev = model.evaluate(test)
            done += 1
            cells = cells + ((n, sm, float(ev.perplexity), float(ev.cross_entropy), int(ev.n_zero), int(ev.n_events)),)
            yield NGramsLabSnapshot(step=c.next(), kind="cell", phase=f"N = {n}, {SMOOTHING_LABELS[sm]}: perplexity",
                                   progress=hi, mode="perplexity", params=c.params, n=n, n_tokens=int(model.n_tokens_),
                                   vocab_size=len(model.vocab_), cells=cells, **extra)


RUNS = {"generate": generate_run, "learning": learning_run, "perplexity": perplexity_run}


def run_steps(mode: str, p: dict, key: tuple, seed: int, start_thread: Callable | None = None
              ) -> Iterator[NGramsLabSnapshot]:
    """The run of one of the lab's modes (:data:`RUNS`): ``generate``, ``learning`` or ``perplexity``."""
    return RUNS[mode](p, key, seed, start_thread=start_thread)

