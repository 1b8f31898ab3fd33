"""Tokens and corpus statistics for the n-gram models: tokenising, detokenising, entropy, Zipf, line splits.

How a text becomes the token stream every model of :mod:`smlengine.ngram` reads: the
markers :data:`BOS`, :data:`EOS` and :data:`UNK`, :func:`tokenize` (words or characters,
each line ended by ``'</s>'``) and its inverse :func:`detokenize`, and the statistics and
splits of a stream that need no model (:func:`entropy`, :func:`zipf`,
:func:`split_sentences`, :func:`split_lines`). :mod:`smlengine.ngram` re-exports them.
"""

from __future__ import annotations

import numbers
import re
from collections import Counter
from typing import Iterable

import numpy as np

from ._base import check_choice, check_random_state, check_scalar

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
        The text.
    level : {'word', 'char'}
        ``'word'``: words and single punctuation marks (regular expression
        ``\\w+|[^\\w\\s]``, so "who's" gives ``who ' s``). ``'char'``: single characters,
        runs of spaces and tabs collapsed to one space.
    lowercase : bool, default=True
        Lower-case the text first.

    Returns
    -------
    list of str
        A line end becomes ``'</s>'``; empty lines add nothing, and a last line without a
        final newline gets no marker (handy for a prompt).

    Examples
    --------
    >>> from smlengine.ngram import tokenize
    >>> tokenize("Who's there?\\nNay, answer me.\\n")
    ['who', "'", 's', 'there', '?', '</s>', 'nay', ',', 'answer', 'me', '.', '</s>']
    >>> tokenize("Ab  c\\n", level="char")
    ['a', 'b', ' ', 'c', '</s>']
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


def text_piece(prev: str | None, tok: str, level: str) -> str:
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

    Examples
    --------
    >>> from smlengine.ngram import detokenize
    >>> detokenize(["who", "'", "s", "there", "?", "</s>", "nay", ",", "answer"])
    "who's there?\\nnay, answer"
    """
    check_choice("level", level, ("word", "char"))
    parts = []
    prev = None
    for tok in tokens:
        parts.append(text_piece(prev, tok, level))
        prev = tok
    return "".join(parts)


def check_tokens(tokens, name="tokens") -> list[str]:
    if isinstance(tokens, str):
        raise TypeError(f"{name} must be a list of tokens, not a string; use tokenize(text) first")
    try:
        tokens = list(tokens)
    except TypeError:
        raise TypeError(f"{name} must be a sequence of strings, got {type(tokens).__name__}") from None
    if not tokens:
        raise ValueError(f"{name} is empty: there is nothing to count")
    return tokens


# --------------------------------------------------------------------------- information
def entropy(tokens: Iterable) -> float:
    """Entropy of the token frequencies in bits per token, H = -sum_j p_j log2 p_j.

    Examples
    --------
    >>> from smlengine.ngram import entropy
    >>> entropy(["a", "b", "a", "c"])
    1.5
    """
    counts = np.fromiter(Counter(check_tokens(tokens)).values(), dtype=np.float64)
    p = counts / counts.sum()
    return float(-(p * np.log2(p)).sum())


def zipf(tokens: Iterable) -> tuple[np.ndarray, np.ndarray]:
    """Zipf's law data: ``(rank, frequency)``, frequencies sorted in decreasing order.

    ``rank`` is 1, 2, ..., d and ``frequency[r - 1]`` the count of the r-th most frequent
    token (ties broken by first appearance). On a log-log plot Zipf's law is a line of
    slope about -1.

    Examples
    --------
    >>> from smlengine.ngram import zipf
    >>> rank, frequency = zipf(["a", "b", "a", "c", "a", "b"])
    >>> print(rank, frequency)
    [1 2 3] [3 2 1]
    """
    counts = np.fromiter(Counter(check_tokens(tokens)).values(), dtype=np.int64)
    freq = np.sort(counts, kind="stable")[::-1].copy()
    return np.arange(1, freq.size + 1), freq


def split_sentences(tokens) -> list[list[str]]:
    """The token stream cut after every ``'</s>'``: one list per sentence (line), each ending
    in ``'</s>'`` except possibly the last. This is how every model here sees sentences.

    Examples
    --------
    >>> from smlengine.ngram import split_sentences
    >>> split_sentences(["a", "b", "</s>", "c", "</s>", "d"])
    [['a', 'b', '</s>'], ['c', '</s>'], ['d']]
    """
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
    """Random train/test split of whole lines (sentences ending in ``'</s>'``).

    Examples
    --------
    >>> from smlengine.ngram import split_lines
    >>> split_lines(["a", "</s>", "b", "</s>", "c", "</s>", "d", "</s>"], test_fraction=0.25, random_state=0)
    (['a', '</s>', 'b', '</s>', 'c', '</s>'], ['d', '</s>'])
    """
    tokens = check_tokens(tokens)
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
