"""The text of an edge list: fields, separators, headers, node ids, and links as a sparse matrix.

The line-by-line half of :func:`smlengine.datasets.read_edge_list`, which does the bounded
reading (sizes, chunks, long lines) itself and reads plain integer links with
:mod:`smlengine.datasets._edge_list_numbers`: :func:`split_fields` cuts one link line at
TABs, commas or whitespace (quoted ids allowed), :func:`plain_batch` recognises a chunk of
plain ``id id`` lines that can be split all at once, :func:`is_header` and
:func:`drop_header_line` find a header line, :func:`nodes_of_integer_names` numbers integer
ids, :class:`Findings` gathers what the reading finds (comments, SNAP's and KONECT's marks,
separators, header) and :class:`EdgeListInfo` reports it. :func:`csr_adjacency` turns the
links of every reader and generator of :mod:`smlengine.datasets._graph` into its CSR adjacency.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from .._base import quote_text


# ----------------------------------------------------------------------------- links to adjacency


def csr_adjacency(sources, targets, n: int) -> sp.csr_matrix:
    """0/1 CSR adjacency; duplicate links collapse to one (a page linking twice is one link).

    The links are sorted as the numbers ``source * n + target``: distinct numbers in order
    are the matrix's columns row by row, with sorted indices (one sort of int64 numbers costs
    less than scipy's conversion from coordinates and its summing of duplicates).
    """
    sources = np.asarray(sources, dtype=np.int64)
    targets = np.asarray(targets, dtype=np.int64)
    if n > _MAX_SORTED_NODES:  # source * n + target could overflow
        a = sp.csr_matrix((np.ones(sources.size), (sources, targets)), shape=(n, n))
        a.sum_duplicates()
        a.data[:] = 1.0
        return a
    links = sources * n + targets
    links.sort()
    if links.size:
        links = links[np.concatenate(([True], links[1:] != links[:-1]))]
    rows, columns = np.divmod(links, n)
    index = np.int32 if max(n, links.size) <= np.iinfo(np.int32).max else np.int64  # as scipy chooses
    indptr = np.zeros(n + 1, dtype=index)
    np.cumsum(np.bincount(rows, minlength=n), out=indptr[1:])
    return sp.csr_matrix((np.ones(links.size), columns.astype(index), indptr), shape=(n, n))


_MAX_SORTED_NODES = 3_000_000_000  # n * n below 2**63


# ----------------------------------------------------------------------------- edge-list text

INTEGER = re.compile(r"^[0-9]+$")
NUMBER = re.compile(r"^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$")
# one field of a whitespace-separated line: a "quoted id" ("" is a quote inside it) or a run
# of non-blank characters; the two alternatives start differently, so the scan is linear
_WS_FIELD = re.compile(r'\s*(?:"((?:[^"]|"")*)"|([^\s"]+))')
_QUOTED = re.compile(r'"(?:[^"]|"")*"')  # a quoted id, for finding the separator outside quotes
LINE_BREAK = re.compile(r"\r\n|[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
LINE_ENDS = "\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
# the words of a header line ("source,target", SNAP's "FromNodeId ToNodeId"), compared
# in lower case without anything but letters and digits
_HEADER_WORDS = frozenset(
    "source target from to src dst dest destination fromnodeid tonodeid fromnode tonode node1 node2 "
    "nodea nodeb id1 id2 sourceid targetid sourcenode targetnode u v head tail citing cited "
    "follower followee followed page link linkfrom linkto".split()
)
_KONECT = re.compile(r"^%\s*(sym|asym|bip)\b", re.IGNORECASE)


@dataclass(frozen=True)
class EdgeListInfo:
    """What :func:`read_edge_list` found in a file, for a message to the user.

    Attributes
    ----------
    separators : tuple of str
        The separators of the link lines, in order of first use: ``'whitespace'``,
        ``'TAB'``, ``'comma'``.
    style : {'plain', 'SNAP', 'KONECT', 'Pajek'}
        ``'SNAP'`` when ``#`` comments carry SNAP's header ("Directed graph", "Nodes:",
        "FromNodeId"), ``'KONECT'`` when the first line is KONECT's ``% sym|asym|bip ...``,
        ``'Pajek'`` for a Pajek network file (``*Vertices``, ``*Arcs``, ``*Edges``).
    header : tuple of str or None
        The header line's fields when the file has one.
    undirected : bool
        Each link was read both ways (KONECT ``sym``, SNAP "Undirected graph").
    extra_columns : int
        Link lines whose numeric columns after the two ids (weight, timestamp) were ignored.
    comments : int
        ``#`` and ``%`` comment lines skipped.
    lines : int
        Link lines read (duplicates included).
    """

    separators: tuple
    style: str
    header: tuple | None
    undirected: bool
    extra_columns: int
    comments: int
    lines: int

    @property
    def separator(self) -> str:
        """The separator(s) found, e.g. ``'TAB'`` or ``'TAB and comma'``."""
        return " and ".join(self.separators) if self.separators else "none"

    def summary(self) -> str:
        """One line for the lab: separator, style, header and what was ignored."""
        parts = [f"separator: {self.separator}"]
        if self.style != "plain":
            parts.append(f"{self.style} file")
        if self.header:
            parts.append("header " + " / ".join(quote_text(h, 30) for h in self.header))
        if self.undirected:
            parts.append("undirected: each link read both ways")
        if self.extra_columns:
            parts.append(f"extra columns (weight, time) ignored on {self.extra_columns:,} line(s)")
        parts.append(f"{self.lines:,} link line(s)")
        return ", ".join(parts)


@dataclass
class Findings:
    """What the reading of an edge list has found so far; :meth:`info` makes it an :class:`EdgeListInfo`.

    One object is shared by the fast reader of integer links and the line-by-line parser, so
    whichever of them reads a line, the file is described the same way.
    """

    separators: list = field(default_factory=list)
    style: str = "plain"
    undirected: bool = False
    header: tuple | None = None
    extra_columns: int = 0
    comments: int = 0
    seen_content: bool = False  # a comment or link line was read (KONECT's mark must come first)

    def add_separator(self, sep: str) -> None:
        if sep not in self.separators:
            self.separators.append(sep)

    def comment(self, line: str) -> None:
        """A stripped line starting with ``#`` or ``%``: SNAP's and KONECT's marks are looked for."""
        self.comments += 1
        if not self.seen_content and _KONECT.match(line):
            self.style, self.undirected = "KONECT", line[1:].split()[0].lower() == "sym"
        elif line[0] == "#" and self.style == "plain":
            low = line.lower()
            if "directed graph" in low or "nodeid" in low or ("nodes:" in low and "edges:" in low):
                self.style = "SNAP"
        if line[0] == "#" and "undirected graph" in line.lower():
            self.undirected = True
        self.seen_content = True

    def info(self, lines: int) -> EdgeListInfo:
        return EdgeListInfo(tuple(self.separators), self.style, self.header, self.undirected, self.extra_columns,
                            self.comments, lines)


class LongLine(str):
    """A line cut at MAX_LINE_CHARS: its beginning, and ``length`` the whole line's length."""

    length = 0


def long_line(head: str, length: int) -> LongLine:
    line = LongLine(head)
    line.length = length
    return line


def quote_line(raw: str) -> str:
    if isinstance(raw, LongLine):
        shown = quote_text(str(raw))
        return f"{shown.split('... (')[0]}... ({raw.length:,} characters)"
    return quote_text(raw)


def split_fields(line: str):
    """``(fields, separator)`` of a stripped link line, or ``(None, separator)`` if its quotes are broken.

    A TAB outside quotes makes TAB the separator (so ids may contain spaces; runs of TABs
    count as one); else a comma outside quotes makes it a CSV line (quoted ids, ``""`` for a
    quote); else any run of whitespace separates (an id with spaces or commas is quoted).
    """
    bare = _QUOTED.sub('""', line) if '"' in line else line
    if "\t" in bare:
        if '"' in line:
            try:
                fields = next(csv.reader([line], delimiter="\t", skipinitialspace=True, strict=True))
            except csv.Error:
                return None, "TAB"
        else:
            fields = line.split("\t")
        return [f.strip() for f in fields if f.strip()], "TAB"
    if "," in bare:
        if '"' in line:
            try:
                fields = next(csv.reader([line], delimiter=",", skipinitialspace=True, strict=True))
            except csv.Error:
                return None, "comma"
        else:
            fields = line.split(",")
        return [f.strip() for f in fields], "comma"
    if '"' not in line:
        return line.split(), "whitespace"
    fields, pos = [], 0
    while pos < len(line):
        m = _WS_FIELD.match(line, pos)
        if m is None or m.end() == pos:
            return None, "whitespace"
        fields.append(m.group(1).replace('""', '"') if m.group(1) is not None else m.group(2))
        pos = m.end()
        if pos < len(line) and not line[pos].isspace():
            return None, "whitespace"  # 'a"b' or '"a"b': a quote inside an id
    return fields, "whitespace"


# a chunk of plain link lines: two ids without quotes, commas or comment marks, separated by
# spaces (or by TABs), and blank lines; checked in one linear scan of the joined lines
def _plain_lines(blank: str) -> re.Pattern:
    line = rf'{blank}*(?:[^\s",#%][^\s",]*{blank}+[^\s",]+{blank}*)?'
    return re.compile(rf"(?:{line}\n)*{line}")


_PLAIN_SPACES = _plain_lines("[ ]")
_PLAIN_TABS = _plain_lines(r"\t")


def plain_batch(lines) -> str:
    """``'whitespace'`` or ``'TAB'`` when every line (none cut for length) is blank or two
    plain ids separated by spaces (TABs), else ``''``. Such lines read the same as one by one: the caller then
    takes all their ids with one ``str.split``."""
    text = "\n".join(lines)
    if "\t" not in text and _PLAIN_SPACES.fullmatch(text):
        return "whitespace"
    if " " not in text and _PLAIN_TABS.fullmatch(text):
        return "TAB"
    return ""


def is_header(fields) -> bool:
    return all(re.sub(r"[^0-9a-z]", "", f.lower()) in _HEADER_WORDS for f in fields[:2])


def nodes_of_integer_names(flat, first: int = 0):
    """Node numbers for integer names: ``(names, index of every name in flat)``.

    Only the ids that occur are looked at (``np.unique`` with ``return_inverse``), so the
    cost is O(E log E) whatever the ids' size. Ids are node numbers: when the gaps between
    them are at most as many as the ids themselves (``max + 1 - first <= 2 * distinct``), the
    graph has nodes ``first .. max`` and a missing number is an isolated page, so a graph
    numbered 0..n-1 keeps its isolated pages; sparser ids (``17``, ``1000000000``) give only
    the nodes that occur, in numeric order. ``first`` is 1 for KONECT files (ids 1..n).
    """
    canon = [v.lstrip("0") or "0" for v in flat]  # "007" means node 7
    if max(len(v) for v in canon) <= 18:  # fits int64
        ids = np.array(canon, dtype=np.int64)
        uniq, inverse = np.unique(ids, return_inverse=True)
        first = first if int(uniq[0]) >= first else 0
        if int(uniq[-1]) + 1 - first <= 2 * uniq.size:
            return [str(i) for i in range(first, int(uniq[-1]) + 1)], ids - first
        return [str(int(i)) for i in uniq], inverse
    # Ids beyond int64 (a 31-digit id): numeric order of canonical decimal strings is the
    # order of (length, text); such ids are always sparse.
    uniq = sorted(set(canon), key=lambda v: (len(v), v))
    index = {v: i for i, v in enumerate(uniq)}
    return uniq, np.fromiter((index[v] for v in canon), dtype=np.int64, count=len(canon))


def drop_header_line(links, names):
    """The first link as a header when its two names differ, are not integers, occur nowhere
    else, and every other name is an integer (``source target`` above numbered links)."""
    first = {int(links[0]), int(links[1])}
    if len(first) == 1 or any(INTEGER.match(names[c]) for c in first):
        return links, names, None
    rest = links[2:]
    if np.isin(rest, list(first)).any():
        return links, names, None
    others = [v for k, v in enumerate(names) if k not in first]
    if not others or not all(INTEGER.match(v) for v in others):
        return links, names, None
    header = (names[int(links[0])], names[int(links[1])])
    # the header's two names have the first two codes
    return rest - 2, names[2:], header


# ----------------------------------------------------------------------------- Pajek network files

#: Pajek's largest ``*Vertices n`` read: a graph of more pages than an edge list has ids
MAX_PAJEK_VERTICES = 2_000_000
_PAJEK_LINE = re.compile(r"^\*(\w+)\s*(.*)$")


class PajekSections:
    """The sections of a Pajek network file (``.net``), read line by line.

    ``*Vertices n`` declares the pages 1 … n, each optionally on its own line ``id "label"``
    (the label names the page); the lines under ``*Arcs`` are links ``source target
    [weight]``, those under ``*Edges`` links read both ways. ``*Network name`` is a title.
    Other sections (``*Matrix``, ``*Arcslist``, ``*Edgeslist``, partitions) are refused with
    the line that starts them. Each method returns a problem to report, or ``""``.
    """

    def __init__(self):
        self.section = ""
        self.vertices = -1  # n of *Vertices n (-1 before it)
        self.labels: dict[str, str] = {}

    def heading(self, line: str, lineno: int) -> str:
        m = _PAJEK_LINE.match(line)
        word = m.group(1).lower() if m else ""
        if word == "network":
            return ""
        if word == "vertices":
            count = m.group(2).split()[:1]
            if self.vertices >= 0:
                return f"line {lineno}: a second *Vertices line, {quote_text(line)}"
            if not count or not INTEGER.match(count[0]) or int(count[0]) > MAX_PAJEK_VERTICES:
                return (f"line {lineno}: expected '*Vertices n' with a page count n of at most "
                        f"{MAX_PAJEK_VERTICES:,}, got {quote_text(line)}")
            self.section, self.vertices = "vertices", int(count[0])
            return ""
        if word in ("arcs", "edges"):
            if self.vertices < 0:
                return f"line {lineno}: *{m.group(1)} before *Vertices n"
            self.section = word
            return ""
        self.section = "refused"  # its lines are not read: the heading is the problem
        return (f"line {lineno}: the Pajek section {quote_text(line)} is not read (only *Vertices, *Arcs and "
                f"*Edges are)")

    def vertex(self, fields, lineno: int, raw: str) -> str:
        """A line of the *Vertices section: ``id ["label" [x y ...]]``."""
        if self.section == "refused":
            return ""
        if not fields or not self._known(fields[0]):
            return (f"line {lineno}: expected a page 'id \"label\"' with id 1 … {self.vertices:,} under *Vertices, "
                    f"got {quote_text(raw)}")
        if len(fields) > 1 and fields[1]:
            self.labels[str(int(fields[0]))] = fields[1]
        return ""

    def link(self, fields, lineno: int) -> str:
        """The two ids of a link under *Arcs or *Edges are pages of *Vertices."""
        for v in fields[:2]:
            if not self._known(v):
                return f"line {lineno}: page {quote_text(v)} is not one of *Vertices' 1 … {self.vertices:,}"
        return ""

    def _known(self, v: str) -> bool:
        return bool(INTEGER.match(v)) and 1 <= int(v) <= self.vertices

    def names(self, names: list[str]) -> list[str]:
        """The pages' names: their labels when every label is distinct, else their numbers."""
        named = [self.labels.get(v, v) for v in names]
        return named if len(set(named)) == len(named) else names
