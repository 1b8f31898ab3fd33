"""Text corpora: the shipped Shakespeare plays and any UTF-8 text file.

The plays live in ``resources/data/shakespeare.zip`` (one member per play plus
``index.tsv``), derived by ``resources/data/scripts/derive_shakespeare.py``. Only the spoken
lines are kept; speeches are separated by a blank line.
"""

from __future__ import annotations

import codecs
import os
import re
import zipfile
from functools import lru_cache
from typing import Callable

from .._base import display_path, quote_text
from .._resources import resource_path

__all__ = ["load_corpus", "list_plays", "load_play", "read_text_file"]

_CORPORA = ("shakespeare",)
_CHUNK = 1 << 20  # read large files 1 MiB at a time so progress can be reported
# Largest user text file read_text_file accepts: about five times the shipped Shakespeare
# corpus. Counting n-grams keeps several objects per token, so a much larger text would
# need gigabytes of memory and minutes before the lab could show anything.
MAX_TEXT_BYTES = 20 * 2**20
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f]")  # control characters other than \t \n \v \f \r


@lru_cache(maxsize=1)
def _index() -> tuple[tuple[str, str], ...]:
    """(slug, title) of every play, in the archive's (alphabetical) order."""
    with zipfile.ZipFile(resource_path("data", "shakespeare.zip")) as zf:
        lines = zf.read("index.tsv").decode("utf-8").splitlines()[1:]
    return tuple((row.split("\t")[0], row.split("\t")[1]) for row in lines if row)


def list_plays() -> list[str]:
    """Titles of the 38 shipped plays, e.g. ``'Hamlet'``, ``'Henry IV, Part 1'``.

    Examples
    --------
    >>> from smlengine.datasets import list_plays
    >>> plays = list_plays()
    >>> len(plays), "Hamlet" in plays
    (38, True)
    """
    return [title for _, title in _index()]


def _slug(title: str) -> str:
    wanted = title.strip().casefold()
    for slug, name in _index():
        if wanted in (slug, name.casefold()):
            return slug
    raise ValueError(f"unknown play {quote_text(title)}; choose one of list_plays(), e.g. 'Hamlet'")


def load_play(title: str) -> str:
    """The spoken lines of one play (title as in :func:`list_plays` or its file slug).

    Examples
    --------
    >>> from smlengine.datasets import load_play
    >>> load_play("Hamlet").splitlines()[:3]
    ["Who's there?", '', 'Nay, answer me: stand, and unfold yourself.']
    """
    if not isinstance(title, str):
        raise TypeError(f"title must be a string, got {type(title).__name__}")
    slug = _slug(title)
    with zipfile.ZipFile(resource_path("data", "shakespeare.zip")) as zf:
        return zf.read(f"{slug}.txt").decode("utf-8")


def load_corpus(name: str = "shakespeare") -> str:
    """A shipped corpus as one string. ``'shakespeare'``: all plays, separated by a blank line.

    About 4.4 million characters and 1.1 million word tokens.
    """
    if name not in _CORPORA:
        raise ValueError(f"unknown corpus {quote_text(name)}; available: {', '.join(_CORPORA)}")
    with zipfile.ZipFile(resource_path("data", "shakespeare.zip")) as zf:
        return "\n".join(zf.read(f"{slug}.txt").decode("utf-8") for slug, _ in _index())


def _looks_binary(chunk: str) -> bool:
    if "\x00" in chunk:
        return True
    control = len(chunk) - len(_CONTROL.sub("", chunk))  # C-speed count
    return control > 0.1 * max(len(chunk), 1)


def read_text_file(path, progress: Callable[[float], None] | None = None) -> str:
    """Read a UTF-8 text file (a BOM is dropped), reporting progress for large files.

    The file is read 1 MiB at a time through an incremental decoder, so memory stays at
    about the size of the text, and at most :data:`MAX_TEXT_BYTES` (20 MB) are accepted.

    Parameters
    ----------
    path : str or path-like
    progress : callable or None
        Called with the fraction read in ``[0, 1]`` after every 1 MiB chunk and at the end.

    Raises
    ------
    FileNotFoundError
        If the file does not exist.
    ValueError
        If the path is a folder, the file is larger than 20 MB, empty (or only
        whitespace), binary (NUL bytes or more than 10 % control characters) or not valid
        UTF-8. The message names the file (at most 80 characters of its path).
    """
    path = os.fspath(path)
    name = display_path(os.path.basename(path) or path)
    if os.path.isdir(path):
        raise ValueError(f"{name} is a folder, not a text file")
    size = os.path.getsize(path)
    too_big = (
        f"{name} is larger than the {MAX_TEXT_BYTES // 2**20} MB limit for text files"
        " (split it, or use a part of it)"
    )
    if size > MAX_TEXT_BYTES:
        raise ValueError(f"{too_big}; it has {size / 2**20:.0f} MB")
    if size == 0:
        raise ValueError(f"{name} is empty")
    decoder = codecs.getincrementaldecoder("utf-8-sig")()
    parts: list[str] = []
    done = 0
    binary = f"{name} is not a text file (binary data)"
    with open(path, "rb") as fh:
        while True:
            raw = fh.read(_CHUNK)
            final = not raw
            done += len(raw)
            if done > MAX_TEXT_BYTES:  # the file grew after the size check
                raise ValueError(too_big)
            try:
                text = decoder.decode(raw, final=final)
            except UnicodeDecodeError as exc:
                where = done - len(raw) + (exc.start if exc.object is raw else 0)
                if b"\x00" in raw:
                    raise ValueError(binary) from None
                raise ValueError(
                    f"{name} is not valid UTF-8 text (bad byte near offset {where}); save it as UTF-8 first"
                ) from None
            if _looks_binary(text):
                raise ValueError(binary)
            parts.append(text)
            if progress is not None:
                progress(min(1.0, done / size) if not final else 1.0)
            if final:
                break
    result = "".join(parts)
    del parts
    if not result.strip():
        raise ValueError(f"{name} contains no text")
    return result
