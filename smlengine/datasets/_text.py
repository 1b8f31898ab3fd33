"""Text corpora: the shipped Shakespeare plays and any UTF-8 text file.

The plays live in ``resources/data/shakespeare.zip`` (one member per play plus
``index.tsv``), derived by ``resources/data/scripts/derive_shakespeare.py``. Only the spoken
lines are kept; speeches are separated by a blank line.
"""

from __future__ import annotations

import codecs
import os
import zipfile
from functools import lru_cache
from typing import Callable

from .._resources import resource_path

__all__ = ["load_corpus", "list_plays", "load_play", "read_text_file"]

_CORPORA = ("shakespeare",)
_CHUNK = 1 << 20  # read large files 1 MiB at a time so progress can be reported


@lru_cache(maxsize=1)
def _index() -> tuple[tuple[str, str], ...]:
    """(slug, title) of every play, in the archive's (alphabetical) order."""
    with zipfile.ZipFile(resource_path("data", "shakespeare.zip")) as zf:
        lines = zf.read("index.tsv").decode("utf-8").splitlines()[1:]
    return tuple((row.split("\t")[0], row.split("\t")[1]) for row in lines if row)


def list_plays() -> list[str]:
    """Titles of the 38 shipped plays, e.g. ``'Hamlet'``, ``'Henry IV, Part 1'``."""
    return [title for _, title in _index()]


def _slug(title: str) -> str:
    wanted = title.strip().casefold()
    for slug, name in _index():
        if wanted in (slug, name.casefold()):
            return slug
    raise ValueError(f"unknown play {title!r}; choose one of list_plays(), e.g. 'Hamlet'")


def load_play(title: str) -> str:
    """The spoken lines of one play (title as in :func:`list_plays` or its file slug)."""
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
        raise ValueError(f"unknown corpus {name!r}; available: {', '.join(_CORPORA)}")
    with zipfile.ZipFile(resource_path("data", "shakespeare.zip")) as zf:
        return "\n".join(zf.read(f"{slug}.txt").decode("utf-8") for slug, _ in _index())


def _looks_binary(chunk: str) -> bool:
    if "\x00" in chunk:
        return True
    control = sum(1 for ch in chunk if ord(ch) < 32 and ch not in "\t\n\r\f\v")
    return control > 0.1 * max(len(chunk), 1)


def read_text_file(path, progress: Callable[[float], None] | None = None) -> str:
    """Read a UTF-8 text file (a BOM is dropped), reporting progress for large files.

    Parameters
    ----------
    path : str or path-like
    progress : callable or None
        Called with the fraction read in ``[0, 1]`` after every 1 MiB chunk and at the end.

    Raises
    ------
    ValueError
        If the file is empty (or only whitespace), looks binary (NUL bytes or more than
        10 % control characters) or is not valid UTF-8.
    """
    path = os.fspath(path)
    size = os.path.getsize(path)
    if size == 0:
        raise ValueError(f"{os.path.basename(path)} is empty")
    decoder = codecs.getincrementaldecoder("utf-8-sig")()
    parts: list[str] = []
    done = 0
    with open(path, "rb") as fh:
        while True:
            raw = fh.read(_CHUNK)
            final = not raw
            try:
                text = decoder.decode(raw, final=final)
            except UnicodeDecodeError as exc:
                where = done + (exc.start if exc.object is raw else 0)
                if b"\x00" in raw:
                    raise ValueError(f"{os.path.basename(path)} looks like a binary file, not text") from None
                raise ValueError(
                    f"{os.path.basename(path)} is not valid UTF-8 text (bad byte near offset {where}); "
                    "save it as UTF-8 first"
                ) from None
            if _looks_binary(text):
                raise ValueError(f"{os.path.basename(path)} looks like a binary file, not text")
            parts.append(text)
            done += len(raw)
            if progress is not None:
                progress(min(1.0, done / size) if not final else 1.0)
            if final:
                break
    result = "".join(parts)
    if not result.strip():
        raise ValueError(f"{os.path.basename(path)} contains no text")
    return result
