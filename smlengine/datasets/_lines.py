"""One streaming reader for the text files a user opens (points CSV, x,y files).

The loaders built on it never hold more than one block of the file (1 MB) besides what they
keep, and they stop as soon as a limit is reached: a file with more points than a lab draws
is refused after reading those points, not after parsing all of it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

from .._base import display_path

__all__ = ["iter_text_lines", "BLOCK_BYTES", "MAX_LINE_CHARS", "line_budget"]

#: bytes read at a time
BLOCK_BYTES = 1 << 20
#: longest line a points file may have; a longer one is a mistake (a file without line
#: breaks, or a header of millions of columns), refused before it is split into fields
MAX_LINE_CHARS = 65_536


def line_budget(max_points: int) -> int:
    """Most lines a file for ``max_points`` points may have: two a point (a blank line or a
    comment between points) and a thousand more for headers and notes."""
    return 2 * int(max_points) + 1000


def _too_many_lines(name: str, max_lines: int, what: str) -> ValueError:
    return ValueError(f"{name} has more than {max_lines:,} lines; {what}")


def iter_text_lines(path, *, max_bytes: int, kind: str = "points file", max_lines: int | None = None,
                    lines_note: str = "", binary_note: str = "points files are UTF-8 CSV text",
                    ) -> Iterator[tuple[int, str]]:
    """Yield ``(line number, line)`` of a UTF-8 text file, reading it one block at a time.

    Line numbers start at 1; line ends (``\\n``, ``\\r\\n``, ``\\r``) are removed and a
    leading byte-order mark is skipped. The file's size is checked before any byte is read;
    the block being read is checked for binary data (NUL bytes) and UTF-8 before its lines
    are handed out. Stopping the iteration (``break``, an exception in the caller) closes the
    file, so a caller that counts what it keeps stops reading at its own limit.

    Parameters
    ----------
    path : str or Path
        The file.
    max_bytes : int
        Largest file accepted, in bytes.
    kind : str
        What such a file is called in messages ("points file").
    max_lines : int, optional
        Most lines read; one more raises ``ValueError`` (a file of millions of blank or
        malformed lines is refused in bounded time).
    lines_note, binary_note : str
        The end of the message for too many lines and for a binary file.

    Raises
    ------
    FileNotFoundError
        If ``path`` does not exist.
    ValueError
        If the file is a folder, larger than ``max_bytes``, binary, not UTF-8, has a line
        longer than :data:`MAX_LINE_CHARS` characters or more than ``max_lines`` lines.
    """
    path = Path(path)
    name = display_path(path.name)
    if path.is_dir():
        raise ValueError(f"{name} is a folder, not a {kind}")
    size = path.stat().st_size  # FileNotFoundError for a missing file
    if size > max_bytes:
        raise ValueError(f"{name} is {size / 2**20:.1f} MB; {kind}s are limited to {max_bytes / 2**20:.0f} MB")
    number = 0
    rest = b""
    first = True
    pending_cr = False
    with path.open("rb") as fh:
        while True:
            block = fh.read(BLOCK_BYTES)
            at_end = not block
            if b"\x00" in block:
                raise ValueError(f"{name} is not a text file (binary data); {binary_note}")
            data = rest + block
            if first:
                if len(data) < 3 and not at_end:
                    rest = data  # too short yet to tell a byte-order mark
                    continue
                first = False
                if data.startswith(b"\xef\xbb\xbf"):
                    data = data[3:]
            if pending_cr and data.startswith(b"\n"):
                data = data[1:]  # the second half of a '\r\n' split between blocks
            cut = len(data) if at_end else max(data.rfind(b"\n"), data.rfind(b"\r")) + 1
            pending_cr = cut > 0 and data[cut - 1:cut] == b"\r"
            rest = data[cut:]
            try:
                text = data[:cut].decode("utf-8")
            except UnicodeDecodeError:
                raise ValueError(f"{name}: not a UTF-8 text file") from None
            for line in text.splitlines():
                number += 1
                if max_lines is not None and number > max_lines:
                    raise _too_many_lines(name, max_lines, lines_note or f"{kind}s hold one point a line")
                if len(line) > MAX_LINE_CHARS:
                    raise ValueError(f"{name}, line {number}: longer than {MAX_LINE_CHARS:,} characters; "
                                     f"{kind}s hold one short line per point")
                yield number, line
            if at_end:
                return
            if len(rest) > 4 * MAX_LINE_CHARS:  # UTF-8 takes at most 4 bytes a character
                raise ValueError(f"{name}, line {number + 1}: longer than {MAX_LINE_CHARS:,} characters; "
                                 f"{kind}s hold one short line per point")
