"""The one reader of points files: every lab that opens points reads them with :func:`read_points`.

A student's points come from anywhere: the app's own export, a spreadsheet saved as CSV in
English or in French, a column copied into a text editor. One dialect rule reads all of them
the same way in every lab (its statement is :func:`read_points`' docstring), and anything it
cannot read unambiguously is refused with the line that shows why, never guessed.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from .._base import LineErrors, display_path, quote_text
from ._lines import iter_text_lines, line_budget

__all__ = ["read_points", "PointsTable", "MAX_POINTS_FILE_BYTES", "MAX_POINTS_READ", "MAX_COORDINATES_READ",
           "MAX_LINE_ERRORS"]

#: most bytes a points file may have: the labs draw every point, so a larger file is a
#: mistake (or another kind of file) rather than a data set
MAX_POINTS_FILE_BYTES = 50 * 2**20
#: most rows :func:`read_points` reads when no smaller limit is given
MAX_POINTS_READ = 1_000_000
#: most numbers (rows × columns kept) :func:`read_points` reads
MAX_COORDINATES_READ = 2_000_000
#: malformed lines after which a file is taken for something else and the reading stops
MAX_LINE_ERRORS = 10_000

# A number as the rule reads it: ASCII digits, an optional sign, one optional decimal mark
# (the file's), an optional exponent. Python's float() also takes '1_000', full-width or
# Arabic-Indic digits, 'nan' and 'infinity'; none of them is a coordinate a student typed.
_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:[.,][0-9]*)?|[.,][0-9]+)(?:[eE][+-]?[0-9]+)?")
_NOT_FINITE = {"nan", "+nan", "-nan", "inf", "+inf", "-inf", "infinity", "+infinity", "-infinity"}
_LABEL = "label"  # the column that may hold class names instead of numbers
_DELIMITER_NAMES = {"\t": "tabs", ";": "';'", ",": "','", None: "spaces"}


@dataclass(frozen=True, eq=False)
class PointsTable:
    """What :func:`read_points` read.

    Attributes
    ----------
    data : ndarray of shape (n, k)
        The numbers, float64, all finite; a ``label`` column of class names holds their
        indices in ``classes``.
    names : tuple of str or None
        The header's names of these columns (as the file writes them), None without a header.
    classes : tuple of str or None
        The class names of a ``label`` column written as names (sorted), None when every
        label is a number.
    header : tuple of str or None
        Every name of the header, the columns left out included (None without a header).

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.datasets import PointsTable
    >>> table = PointsTable(np.array([[0.5, 1.0, 1.0], [2.0, -1.0, 0.0]]), ("x1", "x2", "label"), ("cat", "dog"))
    >>> [table.classes[int(c)] for c in table.data[:, 2]]
    ['dog', 'cat']
    """

    data: np.ndarray
    names: tuple[str, ...] | None
    classes: tuple[str, ...] | None = None
    header: tuple[str, ...] | None = None


def _delimiter(line: str) -> str | None:
    """The file's delimiter, from its first line that is not blank or a comment."""
    for sep in ("\t", ";", ","):
        if sep in line:
            return sep
    return None  # runs of spaces


def _split(line: str, sep: str | None) -> list[str]:
    return line.split() if sep is None else [f.strip() for f in line.split(sep)]


def _is_number(field: str, sep: str | None) -> bool:
    """Whether ``field`` is a number under the rule (either decimal mark where one is allowed)."""
    return bool(_NUMBER.fullmatch(field)) and (sep is not None and sep != "," or "," not in field)


def _wanted(names: tuple[str, ...] | None, columns, width: int, name: str, line: int) -> list[int]:
    """Indices of the chosen columns in the file's fields (see :func:`read_points`, Columns)."""
    if columns is None:
        return list(range(width))
    choices = [(c,) if isinstance(c, str) else tuple(c) for c in columns]
    if not choices or not all(choices) or not all(isinstance(a, str) for c in choices for a in c):
        raise TypeError("columns must be a sequence of column names (a name, or a tuple of names it may go by)")
    wanted = ", ".join(c[0] for c in choices)
    if names is not None:
        lowered = [n.lower() for n in names]
        found = []
        for choice in choices:
            hits = [i for alias in choice for i, n in enumerate(lowered) if n == alias.lower()]
            if len(set(hits)) > 1:
                raise ValueError(f"{name}, line {line}: the header names column {choice[0]!r} "
                                 f"{len(set(hits))} times; a column is named once")
            found.append(hits[0] if hits else None)
        if None not in found and len(set(found)) == len(found):
            return found
    if width == len(choices):
        return list(range(width))
    shown = quote_text(", ".join(names), 60)[1:-1] if names is not None else ""
    return_hint = "name them in the header to choose them among the others" if width > len(choices) else \
        "the file has too few"
    raise ValueError(f"{name}, line {line}: {width} column(s){f' ({shown})' if shown else ''}; this lab reads "
                     f"{len(choices)} ({wanted}): {return_hint}")


def read_points(path, max_rows: int | None = None, *, columns: Sequence | None = None) -> PointsTable:
    """Read a table of numbers, one point a line, under one dialect rule; refuse what it cannot read.

    **The rule.** A points file is UTF-8 text (a byte-order mark is skipped). Blank lines and
    lines whose first character other than a space is ``#`` are skipped. The first other line
    sets the *delimiter*: a tab if it holds one, else ``;`` if it holds one, else ``,`` if it
    holds one, else runs of spaces; every line is split the same way and the spaces around a
    field dropped. The *decimal mark* is ``.`` in a comma-separated file; with ``;`` or tab
    delimiters it is ``.`` or ``,``, one of them for the whole file, as a French or German
    spreadsheet writes ``0,25;1,5``. A file whose numbers use both marks (``1.5;2,5``, or
    ``1.000,5`` with a thousands separator) is ambiguous and refused, naming the line. A
    *number* is ASCII digits with an optional sign, decimal mark and exponent (``-1.5e-3``):
    ``1_000``, other scripts' digits, ``nan`` and ``inf`` are refused, and so is a value too
    large for a float (``1e999``). The first line is a *header* when one of its fields is not
    a number; it names the columns. Every line has as many fields as the first.

    **Columns.** Without ``columns`` every column is read. A lab names the columns it needs,
    e.g. ``("x", "y")`` or ``("x1", "x2", "label")``; a name may be a tuple of the names a
    column goes by (``("x1", "x")``). When the header names every one of them (case aside),
    those columns are read in that order and the others ignored (a table the app exported
    loads again); otherwise the file must have exactly that many columns, read in order. A
    file with other columns and no header naming the lab's is refused: extra columns are
    never dropped silently. A column named ``label`` (in the header or in ``columns``) may
    hold class names (``cat``, ``dog``): they are numbered 0, 1, ... in sorted order, and
    ``classes`` lists them.

    **Limits.** The file is read in blocks, at most 50 MB, and its rows counted as they are
    read: row ``max_rows`` + 1 (default :data:`MAX_POINTS_READ`), or more than
    :data:`MAX_COORDINATES_READ` numbers, stops the reading. Malformed lines are counted
    and the first three quoted with their line numbers; the reading stops after
    :data:`MAX_LINE_ERRORS` of them.

    Parameters
    ----------
    path : str or Path
        The file.
    max_rows : int, optional
        Most rows read; one more is refused.
    columns : sequence of str (or of tuples of str), optional
        The columns the caller needs, in the order it needs them.

    Returns
    -------
    PointsTable
        ``data`` (n × k floats), ``names`` (the header's, or None) and ``classes``.

    Raises
    ------
    FileNotFoundError
        If ``path`` does not exist.
    ValueError
        If the file is a folder, larger than 50 MB, binary or not UTF-8, has a line longer
        than 65,536 characters or more than 2 ``max_rows`` + 1,000 lines, no rows, more
        rows than ``max_rows``, columns other than those asked for, an ambiguous decimal
        mark, or malformed lines. The message names the file and the line.

    Examples
    --------
    >>> import os, tempfile
    >>> from smlengine.datasets import read_points
    >>> folder = tempfile.TemporaryDirectory()
    >>> path = os.path.join(folder.name, "french.csv")
    >>> with open(path, "w", encoding="utf-8") as f:
    ...     _ = f.write("x;y;label\\n0,010;0,100;1\\n-1,5;2;-1\\n")
    >>> table = read_points(path, columns=("x", "y"))
    >>> table.names, table.data.tolist()
    (('x', 'y'), [[0.01, 0.1], [-1.5, 2.0]])
    >>> with open(path, "w", encoding="utf-8") as f:
    ...     _ = f.write("0.5 1.5\\n2 3e-1\\n")
    >>> read_points(path).data.tolist()
    [[0.5, 1.5], [2.0, 0.3]]
    >>> folder.cleanup()
    """
    name = display_path(Path(path).name)
    limit = MAX_POINTS_READ if max_rows is None else int(max_rows)
    if limit < 1:
        raise ValueError(f"max_rows must be >= 1, got {max_rows}")
    lines = iter_text_lines(path, max_bytes=MAX_POINTS_FILE_BYTES, max_lines=line_budget(limit),
                            lines_note=f"this lab reads at most {limit:,} points",
                            binary_note="points files are UTF-8 text: numbers separated by ',', ';', tabs or spaces")
    try:
        return _read(lines, name, limit, columns)
    finally:
        lines.close()


def _read(lines, name: str, limit: int, columns) -> PointsTable:
    first_number, first_line, sep, fields = 0, "", None, None
    for number, line in lines:
        bare = line.strip()
        if bare and bare[0] != "#":
            first_number, first_line, sep = number, line, _delimiter(bare)
            fields = _split(bare, sep)
            break
    if fields is None:
        raise ValueError(f"{name}: the file is empty; expected points such as 'x,y' then '0.5,1.5'")
    width = len(fields)
    # a header has a name in it: a field that is neither a number nor what float() reads ('1_000')
    has_header = not all(_is_number(f, sep) or _float_like(f) for f in fields)
    header = names = tuple(fields) if has_header else None
    take = _wanted(names, columns, width, name, first_number)
    if names is not None:
        names = tuple(names[i] for i in take)
    label_at = _label_column(names, columns, len(take))
    k = len(take)
    requested = limit
    limit = min(limit, max(1, MAX_COORDINATES_READ // k))
    comma_ok = sep is not None and sep != ","  # decimal commas are possible
    mark, mark_line, mark_field = None, 0, ""  # the file's decimal mark once a number shows it, and where
    values: list[list[float]] = []
    label_texts: list[str] = []
    errors = LineErrors()
    fullmatch = _NUMBER.fullmatch
    isfinite = math.isfinite

    def read_row(number: int, line: str, row: list[str]) -> list[float] | None:
        nonlocal mark, mark_line, mark_field
        out = []
        for j, f in enumerate(row):
            if not fullmatch(f) or (not comma_ok and "," in f):
                if j == label_at and f and f.lower() not in _NOT_FINITE and not _float_like(f):
                    out.append(math.nan)  # a class name: numbered once the file is read
                    continue
                errors.add(lambda f=f: f"line {number}: {_why_not_a_number(f, sep)}: {quote_text(line)}")
                return None
            if comma_ok and ("," in f or "." in f):
                used = "," if "," in f else "."
                if mark is None:
                    mark, mark_line, mark_field = used, number, f
                elif used != mark:
                    raise ValueError(
                        f"{name}, line {number}: {quote_text(f, 30)} is written with a decimal "
                        f"{'comma' if used == ',' else 'point'}, {quote_text(mark_field, 30)} on line {mark_line} "
                        f"with a decimal "
                        f"{'comma' if mark == ',' else 'point'}; the file is ambiguous (write every number "
                        f"with one decimal mark and no thousands separator)")
                f = f.replace(",", ".")
            v = float(f)
            if not isfinite(v):
                errors.add(lambda f=f: f"line {number}: {quote_text(f, 30)} is too large for a number: "
                                       f"{quote_text(line)}")
                return None
            out.append(v)
        return out

    def take_row(number: int, line: str, row: list[str]) -> None:
        if len(row) != width:
            errors.add(lambda: f"line {number}: expected {width} fields separated by {_DELIMITER_NAMES[sep]}, "
                               f"got {len(row)}: {quote_text(line)}")
            return
        got = read_row(number, line, [row[i] for i in take])
        if got is None:
            return
        if len(values) == limit:
            if limit < requested:
                raise ValueError(f"{name} has more than {limit:,} points of {k} columns; "
                                 f"at most {MAX_COORDINATES_READ:,} numbers are read")
            raise ValueError(f"{name} has more than {limit:,} points; this lab draws at most {limit:,}")
        values.append(got)
        if label_at is not None:
            label_texts.append(row[take[label_at]])

    if not has_header:
        take_row(first_number, first_line, fields)
    # The fast path: a line of numbers only, checked by one regular expression for the whole
    # line in the file's decimal mark (none yet: integers only); any other line takes the
    # field-by-field path above, which finds the mark, the class names and the errors.
    fast, fast_mark = _line_pattern(sep, width, None if comma_ok else "."), None if comma_ok else "."
    every = take == list(range(width))
    for number, line in lines:
        bare = line.strip()
        if not bare or bare[0] == "#":
            continue
        if fast.fullmatch(bare):
            row = (bare.replace(",", ".") if fast_mark == "," else bare).split(sep)
            got = list(map(float, row)) if every else [float(row[i]) for i in take]
            if all(map(isfinite, got)) and len(values) < limit:
                values.append(got)
                if label_at is not None:
                    label_texts.append(row[take[label_at]])
                continue
        if errors.count >= MAX_LINE_ERRORS:
            raise ValueError(errors.message(name) + f"\n  (reading stopped after {MAX_LINE_ERRORS:,} malformed lines)")
        take_row(number, line, _split(bare, sep))
        if mark != fast_mark:
            fast, fast_mark = _line_pattern(sep, width, mark), mark
    if errors:
        raise ValueError(errors.message(name))
    if not values:
        raise ValueError(f"{name}: no points after the header")
    data = np.array(values, dtype=np.float64)
    classes = None
    if label_at is not None and np.isnan(data[:, label_at]).any():
        classes, codes = np.unique(np.array(label_texts), return_inverse=True)  # names, and numbers as names
        data[:, label_at] = codes
        classes = tuple(str(c) for c in classes)
    return PointsTable(data, names, classes, header)


def _line_pattern(sep: str | None, width: int, mark: str | None) -> re.Pattern:
    """A whole line of ``width`` numbers split by ``sep`` with decimal mark ``mark`` (None: no mark)."""
    exponent = r"(?:[eE][+-]?[0-9]+)?"
    if mark is None:
        number = rf"[+-]?[0-9]+{exponent}"
    else:
        m = re.escape(mark)
        number = rf"[+-]?(?:[0-9]+(?:{m}[0-9]*)?|{m}[0-9]+){exponent}"
    between = r"\s+" if sep is None else rf"\s*{re.escape(sep)}\s*"
    return re.compile(rf"{number}(?:{between}{number}){{{width - 1}}}")


def _label_column(names, columns, k: int) -> int | None:
    """The kept column that may hold class names: the one named ``label`` in the header or in ``columns``."""
    if names is not None:
        for j, n in enumerate(names):
            if n.lower() == _LABEL:
                return j
    if columns is not None:
        for j, c in enumerate(columns):
            if j < k and any(a.lower() == _LABEL for a in ((c,) if isinstance(c, str) else c)):
                return j
    return None


def _float_like(field: str) -> bool:
    """Whether Python's float() takes ``field`` although the rule does not (``1_000``, '１２')."""
    try:
        float(field)
    except ValueError:
        return False
    return True


def _why_not_a_number(field: str, sep: str | None) -> str:
    f = quote_text(field, 30)
    if not field:
        return "an empty field"
    if field.lower() in _NOT_FINITE:
        return f"{f} is not a finite number"
    if _float_like(field):
        return f"{f} is not written as a plain number (digits 0-9, one decimal mark, an exponent)"
    if sep is None and "," in field and _NUMBER.fullmatch(field):
        return f"{f} has a decimal comma; decimal commas need ';' or tabs between the fields"
    return f"{f} is not a number"
