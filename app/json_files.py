"""The one guard of the JSON files the application reads back: sessions, autosaves, lessons.

A file is checked before it is decoded — a folder, an empty file, a file over its size limit
or (for sessions) with more values than a session may hold is refused without being parsed —
then decoded as UTF-8 JSON without the non-numbers ``NaN`` and ``Infinity``. Every refusal is a
``ValueError`` with a short reason that names the file, which the window shows as it is.
"""

from __future__ import annotations

import json
from pathlib import Path


def read_json_file(path, kind: str, max_bytes: int, max_values: int = 0, too_many: str = ""):
    """The decoded JSON document of ``path``, a ``kind`` file ("session", "lesson").

    ``max_bytes`` bounds its size; ``max_values`` (0: no bound) bounds the number of values,
    counted by their commas before decoding, ``too_many`` then saying what the limit is for.
    """
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"{path.name} is a folder, not a {kind} file")
    size = path.stat().st_size
    if size == 0:
        raise ValueError(f"{path.name} is empty")
    if size > max_bytes:
        raise ValueError(f"{path.name} is too large: {size / 2**20:.1f} MB; {kind} files are limited to "
                         f"{max_bytes // 2**20} MB")
    data = path.read_bytes()
    if max_values and data.count(b",") >= max_values:
        raise ValueError(f"{path.name} holds more than {max_values:,} values; {too_many}")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{path.name} is not a text file") from None
    del data

    def refuse(name: str):
        raise ValueError(f"the file contains {name}, which is not a number a {kind} may hold")

    try:
        return json.loads(text, parse_constant=refuse)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path.name} is not valid JSON (line {exc.lineno}: {exc.msg})") from None
    except RecursionError:
        raise ValueError(f"{path.name} is nested too deeply to be a {kind} file") from None
    except ValueError as exc:
        raise ValueError(f"{path.name}: {exc}") from None
