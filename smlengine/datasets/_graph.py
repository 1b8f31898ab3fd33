"""Graphs and Markov chains for the PageRank lab.

* :func:`load_graph` -- the shipped hyperlink graph of Python's HTML documentation.
* :func:`read_edge_list` -- your own graph, one ``source target`` link per line (spaces, TAB
  or comma between the ids; SNAP and KONECT files, CSV with a header).
* :func:`crawl_html_folder` -- the link graph of a folder of HTML pages (the shipped graph
  is produced by this very function, see ``resources/data/scripts/derive_python_docs_graph.py``).
* :func:`textbook_chain`, :func:`karate_club`, :func:`scale_free_digraph` -- small chains
  from the course, Zachary's karate club and a seeded directed scale-free generator.

Every graph comes as a ``scipy.sparse`` CSR adjacency matrix ``A`` with ``A[i, j] != 0``
for a link i -> j, plus the node names in the same order.
"""

from __future__ import annotations

import codecs
import csv
import gzip
import html
import io
import numbers
import os
import posixpath
import re
from array import array
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

import numpy as np
import scipy.sparse as sp

from .._base import QUOTE_LIMIT, LineErrors, check_random_state, check_scalar, display_path, quote_text
from .._resources import resource_path

__all__ = [
    "load_graph",
    "read_edge_list",
    "EdgeListInfo",
    "MAX_EDGE_LIST_BYTES",
    "MAX_EDGE_LIST_LINKS",
    "crawl_html_folder",
    "write_graph_file",
    "textbook_chain",
    "karate_club",
    "scale_free_digraph",
    "GRAPHS",
    "TEXTBOOK_CHAINS",
]

GRAPHS = ("python-docs", "karate-club")
_GRAPH_FILES = {"python-docs": ("data", "python-docs-graph.tsv.gz")}


# ----------------------------------------------------------------------------- helpers


def _csr(sources, targets, n: int) -> sp.csr_matrix:
    """0/1 CSR adjacency; duplicate links collapse to one (a page linking twice is one link)."""
    sources = np.asarray(sources, dtype=np.int64)
    targets = np.asarray(targets, dtype=np.int64)
    a = sp.csr_matrix((np.ones(sources.size), (sources, targets)), shape=(n, n))
    a.sum_duplicates()
    a.data[:] = 1.0
    a.sort_indices()
    return a


# ----------------------------------------------------------------------------- shipped graph


def write_graph_file(path, names, titles, adjacency, header: str = "") -> None:
    """Write a graph in the shipped gzip TSV format read by :func:`load_graph`.

    Format (UTF-8, gzip): ``#`` comment lines, then one ``page<TAB>index<TAB>name<TAB>title``
    line per node in crawl order, then one ``link<TAB>i<TAB>j`` line per edge (row-major).
    """
    adjacency = sp.csr_matrix(adjacency)
    out = io.StringIO()
    for line in header.splitlines():
        out.write(f"# {line}\n".replace("# \n", "#\n"))
    for i, (name, title) in enumerate(zip(names, titles)):
        clean = " ".join(str(title).split())  # no tabs/newlines in a field
        out.write(f"page\t{i}\t{name}\t{clean}\n")
    coo = adjacency.tocoo()
    order = np.lexsort((coo.col, coo.row))
    for i, j in zip(coo.row[order], coo.col[order]):
        out.write(f"link\t{i}\t{j}\n")
    # mtime=0 keeps the file byte-identical when regenerated from the same pages.
    with open(path, "wb") as fh, gzip.GzipFile(fileobj=fh, mode="wb", mtime=0) as gz:
        gz.write(out.getvalue().encode("utf-8"))


def _read_graph_file(path):
    names, titles, src, dst = [], [], [], []
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            parts = line.split("\t")
            if parts[0] == "page" and len(parts) == 4 and int(parts[1]) == len(names):
                names.append(parts[2])
                titles.append(parts[3])
            elif parts[0] == "link" and len(parts) == 3:
                src.append(int(parts[1]))
                dst.append(int(parts[2]))
            else:
                raise ValueError(f"{display_path(path)}: line {lineno}: not a 'page' or 'link' record: "
                                 f"{quote_text(line)}")
    return _csr(src, dst, len(names)), names, titles


def load_graph(name: str = "python-docs", *, return_titles: bool = False):
    """Load a named graph.

    Parameters
    ----------
    name : {'python-docs', 'karate-club'}
        ``'python-docs'``: the hyperlink graph of Python 3.11's HTML documentation
        (530 pages, pages in crawl order, names are paths such as ``library/os.html``).
        ``'karate-club'``: Zachary's karate club (undirected, both directions stored).
    return_titles : bool, default=False
        Also return the page titles (for hover text and the ranked list).

    Returns
    -------
    adjacency : scipy.sparse.csr_matrix of shape (n, n)
        ``adjacency[i, j] == 1`` for a link i -> j.
    names : list of str
    titles : list of str
        Only with ``return_titles=True``.
    """
    if name == "karate-club":
        adjacency, names = karate_club()
        titles = [f"member {n}" for n in names]
    elif name in _GRAPH_FILES:
        adjacency, names, titles = _read_graph_file(resource_path(*_GRAPH_FILES[name]))
    else:
        raise ValueError(f"unknown graph {quote_text(name)}; available: {', '.join(GRAPHS)}")
    return (adjacency, names, titles) if return_titles else (adjacency, names)


# ----------------------------------------------------------------------------- edge lists

#: largest edge-list file read, in bytes (for a text file object: characters); a larger
#: file is refused from its size before anything is read
MAX_EDGE_LIST_BYTES = 64 * 2**20
#: most links an edge list may hold; reading stops at the first link beyond it
MAX_EDGE_LIST_LINKS = 1_000_000
#: a line longer than this (in characters) is malformed: it is counted, never kept whole
MAX_LINE_CHARS = 10_000
_CHUNK = 2**18  # read this many bytes (characters) at a time

_INT = re.compile(r"^[0-9]+$")
_NUMBER = re.compile(r"^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$")
# one field of a whitespace-separated line: a "quoted id" ("" is a quote inside it) or a run
# of non-blank characters; the two alternatives start differently, so the scan is linear
_WS_FIELD = re.compile(r'\s*(?:"((?:[^"]|"")*)"|([^\s"]+))')
_QUOTED = re.compile(r'"(?:[^"]|"")*"')  # a quoted id, for finding the separator outside quotes
_BREAK = re.compile(r"\r\n|[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
_LINE_ENDS = "\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
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
    style : {'plain', 'SNAP', 'KONECT'}
        ``'SNAP'`` when ``#`` comments carry SNAP's header ("Directed graph", "Nodes:",
        "FromNodeId"), ``'KONECT'`` when the first line is KONECT's ``% sym|asym|bip ...``.
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


def _size_limit_message(label: str, size: int, unit: str = "bytes", whole: bool = False) -> str:
    limit = MAX_EDGE_LIST_BYTES
    return (f"{label} is larger than the edge-list limit of {limit / 2**20:g} MB ({limit:,} {unit}; "
            f"{'file' if whole else 'read so far'}: {size:,}); split the graph or keep its largest part")


def _file_chunks(path: Path, label: str):
    """Text of an edge-list file in chunks: size, binary data and UTF-8 checked as it is read.

    The size is checked from the file system before the first byte is read, and again while
    reading (a file that grows); NUL bytes and invalid UTF-8 stop the reading with a message.
    """
    if path.is_dir():
        raise ValueError(f"{label} is a folder, not an edge list file")
    if not path.is_file():
        raise FileNotFoundError(f"an edge list file not found: {label}")
    size = path.stat().st_size
    if size > MAX_EDGE_LIST_BYTES:
        raise ValueError(_size_limit_message(label, size, whole=True))
    decoder = codecs.getincrementaldecoder("utf-8")()
    done = 0
    first = True
    with open(path, "rb") as fh:
        while True:
            data = fh.read(_CHUNK)
            final = not data
            if done + len(data) > MAX_EDGE_LIST_BYTES:
                raise ValueError(_size_limit_message(label, done + len(data)))
            if b"\x00" in data:
                raise ValueError(f"{label} is not a text file (binary data)")
            pending = len(decoder.getstate()[0])
            try:
                text = decoder.decode(data, final=final)
            except UnicodeDecodeError as exc:
                offset = done - pending + exc.start
                raise ValueError(f"{label} is not UTF-8 text (bad byte at offset {offset:,}); "
                                 "save it as UTF-8 first") from None
            done += len(data)
            if first and text:
                text = text.removeprefix("\ufeff")
                first = False
            if text:
                yield text
            if final:
                return


def _object_chunks(source, label: str):
    """Text of an open text file in chunks of at most ``_CHUNK`` characters, size-checked."""
    done = 0
    while True:
        text = source.read(_CHUNK)
        if isinstance(text, bytes):
            raise TypeError("read_edge_list needs a text file object (open the file with 'r', not 'rb')")
        if not text:
            return
        done += len(text)
        if done > MAX_EDGE_LIST_BYTES:
            raise ValueError(_size_limit_message(label, done, "characters"))
        if "\x00" in text:
            raise ValueError(f"{label} is not a text file (binary data)")
        yield text


class _LongLine(str):
    """A line cut at MAX_LINE_CHARS: its beginning, and ``length`` the whole line's length."""

    length = 0


def _line_batches(chunks):
    """``(number of the first line, lines, has_long)`` for the complete lines of each chunk
    of text, split at any of Python's line breaks (which are removed).

    Memory stays bounded whatever the input: at most one chunk and one partial line of at
    most MAX_LINE_CHARS are held; a longer line is skipped to its end and given as a
    :class:`_LongLine` holding its first characters and its length (``has_long`` is then true).
    """
    lineno = 0
    carry = ""
    long_head, long_length = None, 0
    head = min(QUOTE_LIMIT, MAX_LINE_CHARS)  # characters of a long line kept for the message

    def cut(lines):
        """Long lines replaced by their beginnings; whether there was one."""
        if not lines or max(map(len, lines)) <= MAX_LINE_CHARS:
            return lines, False
        return [_long_line(v[:head], len(v)) if len(v) > MAX_LINE_CHARS else v for v in lines], True

    for chunk in chunks:
        buf = carry + chunk
        carry = ""
        pos = 0
        first: list[str] = []
        if long_head is not None:
            m = _BREAK.search(buf)
            if m is None:
                long_length += len(buf)
                continue
            first = [_long_line(long_head, long_length + m.start())]
            long_head = None
            pos = m.end()
        parts = (buf[pos:] if pos else buf).splitlines(keepends=True)
        last = ""
        # an unfinished last line (no break yet, or a '\r' whose '\n' is in the next chunk)
        if parts and (parts[-1][-1] not in _LINE_ENDS or parts[-1][-1] == "\r"):
            last = parts.pop()
        lines, has_long = cut([part.rstrip(_LINE_ENDS) for part in parts])
        if first:
            lines, has_long = first + lines, True
        if lines:
            yield lineno + 1, lines, has_long
            lineno += len(lines)
        if len(last) > MAX_LINE_CHARS:
            long_head, long_length = last[:head], len(last.rstrip(_LINE_ENDS))
        else:
            carry = last
    if long_head is not None:
        yield lineno + 1, [_long_line(long_head, long_length)], True
    elif carry:
        lines, has_long = cut([carry.rstrip(_LINE_ENDS)])
        yield lineno + 1, lines, has_long


def _long_line(head: str, length: int) -> _LongLine:
    line = _LongLine(head)
    line.length = length
    return line


def _quote_line(raw: str) -> str:
    if isinstance(raw, _LongLine):
        shown = quote_text(str(raw))
        return f"{shown.split('... (')[0]}... ({raw.length:,} characters)"
    return quote_text(raw)


def _split_fields(line: str):
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


def _plain_batch(lines) -> str:
    """``'whitespace'`` or ``'TAB'`` when every line (none cut for length) is blank or two
    plain ids separated by spaces (TABs), else ``''``. Such lines read the same as one by one: the caller then
    takes all their ids with one ``str.split``."""
    text = "\n".join(lines)
    if "\t" not in text and _PLAIN_SPACES.fullmatch(text):
        return "whitespace"
    if " " not in text and _PLAIN_TABS.fullmatch(text):
        return "TAB"
    return ""


def _is_header(fields) -> bool:
    return all(re.sub(r"[^0-9a-z]", "", f.lower()) in _HEADER_WORDS for f in fields[:2])


def _integer_nodes(flat, first: int = 0):
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


def read_edge_list(source, *, nodes=None, return_info: bool = False):
    """Read a directed graph from an edge list.

    One link per line: ``source target``. Accepted files:

    * **separators**: any run of whitespace, a TAB, or a comma between the two ids. A line
      with a TAB is split at TABs (ids may contain spaces); else a line with a comma is a
      CSV line (``"New York","Los Angeles"``: quoted ids, ``""`` for a quote inside one);
      else any run of spaces separates (an id with spaces is quoted). Fields are stripped.
    * **comments**: blank lines and lines starting with ``#`` (SNAP) or ``%`` (KONECT)
      are skipped (a ``#`` inside a line is part of a name).
    * **header**: the first non-comment line is a header, not a link, when both its fields
      are column names (``source``/``target``, ``from``/``to``, ``FromNodeId``/``ToNodeId``,
      ``u``/``v``, ...), or when every other id of the file is an integer and its two
      fields are two different non-integers that occur nowhere else.
    * **extra columns**: numbers after the two ids (KONECT's and SNAP's weights and
      timestamps) are ignored: PageRank reads a listed pair as one link whatever its weight.
      Anything else after the two ids makes the line malformed.
    * **undirected files**: a KONECT file whose first line is ``% sym ...`` and a SNAP file
      whose comments say "Undirected graph" list each friendship once: each link is read
      both ways.

    Nodes:

    * If every name is a non-negative integer, names are node numbers (``"007"`` is node
      7), sorted numerically. While the numbers are dense (largest + 1 at most twice the
      number of distinct ids) the graph has nodes ``0 .. largest`` (KONECT: ``1 ..
      largest``) and gaps become isolated pages; sparser ids (``0`` and ``1000000000``)
      give only the nodes that occur. Otherwise nodes are the distinct names in order of
      first appearance.
    * Duplicate links collapse to one link; self-loops are kept (a page linking to itself
      is allowed; it makes the chain aperiodic).
    * ``nodes``: an optional list of allowed names (fixes the node order too); a name not in
      it is an error naming the line.

    Malformed lines (fewer than two ids, broken quotes, a non-number after the two ids,
    a line over ``MAX_LINE_CHARS`` characters) are never dropped silently: they are all
    counted in one ``ValueError`` that shows the first three with their line numbers (each
    quoted to at most 80 characters).

    Limits
    ------
    The file is read in chunks, so memory stays bounded by the limits whatever the input:
    a file over ``MAX_EDGE_LIST_BYTES`` (64 MB) is refused from its size before it is read,
    and reading stops at the first link beyond ``MAX_EDGE_LIST_LINKS`` (1,000,000); both
    messages name the limit.

    Parameters
    ----------
    source : str, os.PathLike or text file object
    nodes : sequence of str, optional
    return_info : bool, default=False
        Also return an :class:`EdgeListInfo` (separator found, SNAP/KONECT style, header).

    Returns
    -------
    adjacency : scipy.sparse.csr_matrix of shape (n, n)
    names : list of str
    info : EdgeListInfo
        Only with ``return_info=True``.

    Raises
    ------
    FileNotFoundError
        If the path does not exist.
    TypeError
        If ``source`` is a binary file object.
    ValueError
        If the path is a folder, the file is binary or not UTF-8, is over a limit, has
        malformed lines, unknown names (with ``nodes``) or no link at all.
    """
    if hasattr(source, "read"):
        label = display_path(getattr(source, "name", "edge list"))
        chunks = _object_chunks(source, label)
    else:
        path = Path(os.fspath(source))
        label = display_path(path)
        chunks = _file_chunks(path, label)

    index: dict[str, int] = {}
    allowed = None
    if nodes is not None:
        allowed = [str(n) for n in nodes]
        index = {n: i for i, n in enumerate(allowed)}
        if len(index) != len(allowed):
            raise ValueError("nodes contains duplicate names")
    codes = array("q")
    errors = LineErrors()
    separators: list[str] = []
    style, undirected, header = "plain", False, None
    extra = comments = 0
    seen_content = False
    limit = MAX_EDGE_LIST_LINKS
    for start, batch, has_long in _line_batches(chunks):
        if codes and allowed is None and not has_long and len(codes) + 2 * len(batch) <= 2 * limit:
            # the common case of plain numbered or named links: a whole chunk at once
            sep = _plain_batch(batch)
            if sep:
                ids = "\n".join(batch).split()
                if ids and sep not in separators:  # a batch of blank lines names no separator
                    separators.append(sep)
                for v in dict.fromkeys(ids):  # the chunk's distinct ids, in order of appearance
                    if v not in index:
                        index[v] = len(index)
                codes.extend(map(index.__getitem__, ids))
                continue
        for lineno, raw in enumerate(batch, start):
            line = raw.strip()
            if not line:
                continue
            if line[0] in "#%":
                comments += 1
                if not seen_content and _KONECT.match(line):
                    style, undirected = "KONECT", line[1:].split()[0].lower() == "sym"
                elif line[0] == "#" and style == "plain":
                    low = line.lower()
                    if "directed graph" in low or "nodeid" in low or ("nodes:" in low and "edges:" in low):
                        style = "SNAP"
                if line[0] == "#" and "undirected graph" in line.lower():
                    undirected = True
                seen_content = True
                continue
            seen_content = True
            fields, sep = (None, "") if isinstance(raw, _LongLine) else _split_fields(line)
            if fields is None or len(fields) < 2 or not fields[0] or not fields[1] or not all(
                _NUMBER.match(f) for f in fields[2:]
            ):
                errors.add(f"line {lineno}: expected 'source target' (separated by spaces, a TAB or a comma), "
                           f"got {_quote_line(raw)}")
                continue
            if not codes and header is None and not errors and _is_header(fields) and not (
                allowed is not None and fields[0] in index and fields[1] in index
            ):
                header = (fields[0], fields[1])
                if sep not in separators:
                    separators.append(sep)
                continue
            if sep not in separators:
                separators.append(sep)
            if len(fields) > 2:
                extra += 1
            if len(codes) >= 2 * limit:
                raise ValueError(f"{label}: more than {limit:,} links (line {lineno}); edge lists are limited to "
                                 f"{limit:,} links: keep the graph's largest part")
            for v in fields[:2]:
                code = index.get(v)
                if code is None:
                    if allowed is not None:
                        errors.add(f"line {lineno}: unknown node {quote_text(v)}")
                        code = -1
                    else:
                        code = index[v] = len(index)
                codes.append(code)
    if errors:
        raise ValueError(errors.message(label))
    if not codes:
        raise ValueError(f"{label}: no links found")
    links = np.frombuffer(codes, dtype=np.int64).copy()
    names = list(index)
    if allowed is None and header is None and links.size > 2:
        links, names, header = _drop_header_line(links, names)
    if allowed is None and all(_INT.match(v) for v in names):
        names, remap = _integer_nodes(names, first=1 if style == "KONECT" else 0)
        links = remap[links]
    src, dst = links[0::2], links[1::2]
    if undirected:
        src, dst = np.concatenate([src, dst]), np.concatenate([dst, src])
    adjacency = _csr(src, dst, len(names))
    if not return_info:
        return adjacency, names
    info = EdgeListInfo(tuple(separators), style, header, undirected, extra, comments, links.size // 2)
    return adjacency, names, info


def _drop_header_line(links, names):
    """The first link as a header when its two names differ, are not integers, occur nowhere
    else, and every other name is an integer (``source target`` above numbered links)."""
    first = {int(links[0]), int(links[1])}
    if len(first) == 1 or any(_INT.match(names[c]) for c in first):
        return links, names, None
    rest = links[2:]
    if np.isin(rest, list(first)).any():
        return links, names, None
    others = [v for k, v in enumerate(names) if k not in first]
    if not others or not all(_INT.match(v) for v in others):
        return links, names, None
    header = (names[int(links[0])], names[int(links[1])])
    # the header's two names have the first two codes
    return rest - 2, names[2:], header


# ----------------------------------------------------------------------------- HTML crawl

# Bounds of a crawl, so any folder gives an answer in bounded time and memory: pages
# beyond MAX_PAGES (in path order) are left out, and of each page only the first
# MAX_PAGE_BYTES are read. Both are reported in the crawl notes.
MAX_PAGES = 20_000
MAX_PAGE_BYTES = 2 * 2**20

# Link extraction with regular expressions that run in linear time on any input, even
# broken markup (html.parser is quadratic on '<a <a <a ...'). Each pattern either
# matches at the position where it starts or fails after a bounded look, and every
# unbounded part (an attribute list, a quoted value) also ends at the end of the text
# without backtracking, so consecutive matches never rescan the same characters.
_HIDDEN_OPEN = re.compile(r"<!--|<(script|style)(?=[\s/>])", re.IGNORECASE)
_HIDDEN_CLOSE = {
    "": re.compile(r"-->"),
    "script": re.compile(r"</script\s*>", re.IGNORECASE),
    "style": re.compile(r"</style\s*>", re.IGNORECASE),
}
# <a ...> start tag: attributes are runs of plain characters or quoted strings (a quote
# that never closes runs to the end of the text); '>' inside quotes does not end the tag.
_A_TAG = re.compile(r"""<a(?=[\s/>])((?:[^>"']+|"[^"]*"?|'[^']*'?)*)""", re.IGNORECASE)
_HREF = re.compile(
    r"""(?<![\w:.-])href\s*=\s*(?:"([^"]*)"?|'([^']*)'?|([^\s"'>]+))""", re.IGNORECASE
)
_TITLE_OPEN = re.compile(r"<title(?=[\s/>])[^>]*>?", re.IGNORECASE)
_TITLE_CLOSE = re.compile(r"</title\s*>", re.IGNORECASE)


def _visible_markup(text: str) -> str:
    """``text`` without comments, scripts and styles (a link there is no link of the page).

    One pass: each hidden block is found from where the previous one ended, and a block
    that is never closed hides the rest of the page (as in a browser).
    """
    parts, pos = [], 0
    while True:
        m = _HIDDEN_OPEN.search(text, pos)
        if m is None:
            parts.append(text[pos:])
            break
        parts.append(text[pos : m.start()])
        end = _HIDDEN_CLOSE[(m.group(1) or "").lower()].search(text, m.end())
        if end is None:
            break
        pos = end.end()
    return "".join(parts)


def _page_links(text: str) -> tuple[list[str], str]:
    """``<a href>`` targets in document order and the ``<title>`` text of one page.

    Time linear in the page's length on any input (see the patterns above).
    """
    text = _visible_markup(text)
    hrefs = []
    for tag in _A_TAG.finditer(text):
        m = _HREF.search(tag.group(1))
        if m is not None:
            href = next(g for g in m.groups() if g is not None)
            if href:
                hrefs.append(href)
    title = ""
    m = _TITLE_OPEN.search(text)
    if m is not None:
        end = _TITLE_CLOSE.search(text, m.end())
        raw = text[m.end() : end.start() if end is not None else len(text)]
        title = " ".join(html.unescape(raw[:10_000]).split())
    return hrefs, title


def _resolve(page: str, href: str, pages: set[str]):
    """Folder-relative path of the HTML page ``href`` points to, or a reason to drop it."""
    try:
        parts = urlsplit(html.unescape(href))
    except ValueError:  # e.g. 'http://[::1' (an unclosed IPv6 host): skip this link only
        return None, "malformed"
    if parts.scheme or parts.netloc:
        return None, "external"
    if not parts.path:
        return None, "fragment"  # '#section' stays on the same page
    path = unquote(parts.path)
    # A site-absolute "/license.html" means the folder's root: the folder is the site.
    base = "" if path.startswith("/") else posixpath.dirname(page)
    target = posixpath.normpath(posixpath.join(base, path.lstrip("/")))
    if parts.path.endswith("/") and posixpath.join(target, "index.html") in pages:
        target = posixpath.join(target, "index.html")  # a folder link means its index page
    if not target.lower().endswith((".html", ".htm")):
        return None, "not html"
    if target not in pages:
        return None, "missing page"
    if target == page:
        return None, "self-loop"
    return target, None


def _html_files(root: Path, limit: int) -> tuple[list[str], bool]:
    """Folder-relative paths of the .html/.htm files under ``root``, at most ``limit``.

    An explicit stack instead of recursion (``Path.rglob`` and ``os.walk`` recurse once per
    folder level, so a folder 1,000 levels deep raised RecursionError); symbolic links to
    folders are not followed (they can form cycles). Folders are visited in name order, so
    the pages kept under the limit do not depend on the file system. Returns the sorted
    paths and whether the limit cut the list.
    """
    found: list[str] = []
    stack = [(root, "")]
    while stack:
        folder, prefix = stack.pop()
        try:
            with os.scandir(folder) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError:
            continue  # unreadable folder: its pages are not part of the crawl
        subfolders = []
        for entry in entries:
            rel = prefix + entry.name
            try:
                if entry.is_dir(follow_symlinks=False):
                    subfolders.append((Path(entry.path), rel + "/"))
                elif entry.name.lower().endswith((".html", ".htm")) and entry.is_file():
                    found.append(rel)
                    if len(found) > limit:  # one more than allowed: the list is cut
                        return sorted(found[:limit]), True
            except OSError:
                continue
        stack.extend(reversed(subfolders))  # pop() then visits them in name order
    return sorted(found), False


def _read_page(path: Path, notes: list[str], name: str) -> str:
    """The first MAX_PAGE_BYTES of a page as text (bad bytes replaced, never an error)."""
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_PAGE_BYTES + 1)
    except OSError as exc:
        notes.append(f"{quote_text(name)} could not be read ({type(exc).__name__}); it has no links")
        return ""
    if len(data) > MAX_PAGE_BYTES:
        notes.append(f"{quote_text(name)} is larger than {MAX_PAGE_BYTES // 2**20} MB; only its beginning was read")
        data = data[:MAX_PAGE_BYTES]
    return data.decode("utf-8", errors="replace")


def _crawl(folder, start: str | None = None, notes: list[str] | None = None):
    """Breadth-first crawl of every HTML page under ``folder``.

    Returns ``(names, titles, sources, targets, dropped)`` where ``dropped`` counts the
    discarded ``<a href>`` by reason. Anything left out on purpose (pages beyond
    :data:`MAX_PAGES`, the part of a page beyond :data:`MAX_PAGE_BYTES`, unreadable files)
    is described in ``notes`` when a list is given.
    """
    notes = [] if notes is None else notes
    root = Path(os.fspath(folder))
    if not root.exists():
        raise FileNotFoundError(f"folder not found: {display_path(root)}")
    if not root.is_dir():
        raise ValueError(f"{display_path(root)} is a file, not a folder of HTML pages")
    files, cut = _html_files(root, MAX_PAGES)
    if not files:
        raise ValueError(f"no .html files in {display_path(root)}")
    if cut:
        notes.append(f"the folder has more than {MAX_PAGES:,} HTML pages; only the first {MAX_PAGES:,} were crawled")
    pages = set(files)
    if start is None:
        start = "index.html" if "index.html" in pages else files[0]
    elif start not in pages:
        raise ValueError(f"start page {quote_text(start)} is not an HTML file in {display_path(root)}")
    order: dict[str, int] = {}
    titles: list[str] = []
    src: list[int] = []
    dst_names: list[str] = []
    dropped: dict[str, int] = {}
    queue: deque[str] = deque()
    # Pages not reachable from the start page still belong to the folder: crawl them after,
    # in path order, so every file is a node.
    pending = iter(files)
    seen: set[str] = set()

    def enqueue(p):
        if p not in seen:
            seen.add(p)
            queue.append(p)

    enqueue(start)
    while True:
        if not queue:
            nxt = next((p for p in pending if p not in seen), None)
            if nxt is None:
                break
            enqueue(nxt)
        page = queue.popleft()
        order[page] = len(order)
        hrefs, title = _page_links(_read_page(root / page, notes, page))
        titles.append(title or page)
        targets_here: set[str] = set()
        for href in hrefs:
            target, reason = _resolve(page, href, pages)
            if reason is not None:
                dropped[reason] = dropped.get(reason, 0) + 1
                continue
            if target in targets_here:
                dropped["duplicate"] = dropped.get("duplicate", 0) + 1
                continue
            targets_here.add(target)
            src.append(order[page])
            dst_names.append(target)
            enqueue(target)
    names = list(order)
    dst = [order[t] for t in dst_names]
    # Sphinx-style titles end in the same " — Project documentation": keep the part that
    # tells the pages apart (only where a majority of pages share that suffix).
    suffix = _common_suffix(titles)
    if suffix:
        titles = [t[: -len(suffix)] if t.endswith(suffix) and len(t) > len(suffix) else t for t in titles]
    return names, titles, src, dst, dropped


def _common_suffix(titles):
    tails = [t[t.rfind(" \u2014 "):] for t in titles if " \u2014 " in t]
    if not tails:
        return ""
    values, counts = np.unique(tails, return_counts=True)
    best = int(np.argmax(counts))
    return str(values[best]) if counts[best] * 2 > len(titles) else ""


def crawl_html_folder(folder, *, start: str | None = None, return_notes: bool = False):
    """Link graph of a folder of HTML pages.

    Pages are visited breadth first from ``start`` (default ``index.html``) following the
    ``<a href>`` links in document order; pages the start cannot reach follow, in path order.
    A link is kept when it resolves (relative to its page, or to the folder for a
    site-absolute ``/path``; fragment and query removed) to
    another ``.html`` file of the folder. Dropped: external links (with a scheme or host),
    pure fragments (``#section``), non-HTML targets (sources, images, downloads), missing
    files, duplicates (one link per page pair) and self-loops (a page's links to its own
    sections are navigation, not a vote; the teleport keeps the chain aperiodic anyway).

    Returns
    -------
    adjacency : scipy.sparse.csr_matrix of shape (n, n)
    names : list of str
        Folder-relative paths, in crawl order.
    titles : list of str
        ``<title>`` texts (a suffix common to all pages, e.g. " — Python 3.11 documentation",
        removed).
    notes : list of str
        Only with ``return_notes=True``: what the crawl left out on purpose (see Limits).

    Limits
    ------
    Any folder gives an answer in bounded time and memory: at most ``MAX_PAGES`` (20,000)
    pages are crawled (the first in path order), and only the first ``MAX_PAGE_BYTES``
    (2 MB) of each page are read. Links are found by a scan that takes time linear in the
    page length even on broken markup; ``<a>`` tags inside comments, scripts and styles
    do not count. A link that is not a valid URL (``http://[::1``) is skipped; an
    unreadable page becomes a page without links. Each of these is described in ``notes``.

    Raises
    ------
    FileNotFoundError
        If ``folder`` does not exist.
    ValueError
        If it is a file, contains no ``.html``/``.htm`` file, or ``start`` is not one of them.
    """
    notes: list[str] = []
    names, titles, src, dst, _ = _crawl(folder, start, notes)
    result = (_csr(src, dst, len(names)), names, titles)
    return (*result, notes) if return_notes else result


# ----------------------------------------------------------------------------- small chains

TEXTBOOK_CHAINS = ("two-state", "reducible", "periodic", "periodic-self-loops")


def textbook_chain(name: str = "two-state"):
    """Small chains from the course, as a row-stochastic transition matrix.

    ``p[s, t] = Pr{X_n = t | X_{n-1} = s}`` (rows sum to one).

    * ``'two-state'``: p = [[0.7, 0.3], [0.1, 0.9]]; irreducible and aperiodic, unique
      equilibrium (0.25, 0.75).
    * ``'reducible'``: four states in two closed classes {A, B} and {C, D} that never
      communicate; two equilibria (2/7, 5/7, 0, 0) and (0, 0, 0.8, 0.2). Which one P_n tends to
      depends on the start.
    * ``'periodic'``: p = [[0, 1], [1, 0]]; period 2, P_n oscillates forever unless it starts
      at (1/2, 1/2).
    * ``'periodic-self-loops'``: p = [[0.1, 0.9], [0.9, 0.1]]; the self-loops make it aperiodic,
      so P_n converges to (1/2, 1/2).

    Returns
    -------
    p : ndarray of shape (d, d)
    names : list of str
    """
    chains = {
        "two-state": ([[0.7, 0.3], [0.1, 0.9]], ["1", "2"]),
        "reducible": (
            [[0.5, 0.5, 0.0, 0.0], [0.2, 0.8, 0.0, 0.0], [0.0, 0.0, 0.9, 0.1], [0.0, 0.0, 0.4, 0.6]],
            ["A", "B", "C", "D"],
        ),
        "periodic": ([[0.0, 1.0], [1.0, 0.0]], ["1", "2"]),
        "periodic-self-loops": ([[0.1, 0.9], [0.9, 0.1]], ["1", "2"]),
    }
    if name not in chains:
        raise ValueError(f"unknown chain {quote_text(name)}; available: {', '.join(TEXTBOOK_CHAINS)}")
    p, names = chains[name]
    return np.array(p, dtype=np.float64), list(names)


# Zachary (1977), "An information flow model for conflict and fission in small groups":
# members 0..33, the 78 friendships; for each member, its neighbours with a larger index.
_KARATE = {
    0: (1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 12, 13, 17, 19, 21, 31),
    1: (2, 3, 7, 13, 17, 19, 21, 30),
    2: (3, 7, 8, 9, 13, 27, 28, 32),
    3: (7, 12, 13),
    4: (6, 10),
    5: (6, 10, 16),
    6: (16,),
    8: (30, 32, 33),
    9: (33,),
    13: (33,),
    14: (32, 33),
    15: (32, 33),
    18: (32, 33),
    19: (33,),
    20: (32, 33),
    22: (32, 33),
    23: (25, 27, 29, 32, 33),
    24: (25, 27, 31),
    25: (31,),
    26: (29, 33),
    27: (33,),
    28: (31, 33),
    29: (32, 33),
    30: (32, 33),
    31: (32, 33),
    32: (33,),
}


def karate_club():
    """Zachary's karate club: 34 members, 78 friendships, undirected.

    Returns
    -------
    adjacency : scipy.sparse.csr_matrix of shape (34, 34)
        Symmetric (each friendship stored both ways), so the simple random walk has
        equilibrium pi_i = deg(i) / (2 * 78).
    names : list of str
        ``'0'`` ... ``'33'``.
    """
    src = [s for s, ts in _KARATE.items() for _ in ts]
    dst = [t for ts in _KARATE.values() for t in ts]
    return _csr(src + dst, dst + src, 34), [str(i) for i in range(34)]


# ----------------------------------------------------------------------------- generator


def scale_free_digraph(
    n: int,
    random_state=None,
    *,
    mean_degree: float = 10.0,
    dangling: float = 0.05,
    in_exponent: float = 2.1,
    out_exponent: float = 2.7,
):
    """Seeded directed scale-free graph (Chung--Lu style, vectorized, fast for millions).

    Each node draws an out-degree from a power law P(k) ~ k^-out_exponent, scaled so the
    mean is ``mean_degree``; a fraction ``dangling`` of the nodes gets no out-link at all.
    Each link's target is drawn with probability proportional to a power-law "fitness"
    w_j ~ j^(-1/(in_exponent - 1)), which gives in-degrees P(k) ~ k^-in_exponent like the
    web. Self-loops and duplicate links are removed afterwards, so the edge count is a bit
    below ``n * mean_degree * (1 - dangling)``. Cost O(E log n) time, O(E) memory;
    ``n`` is at most 50,000,000.

    Returns
    -------
    adjacency : scipy.sparse.csr_matrix of shape (n, n)
    names : list of str
        ``'0'`` ... ``str(n - 1)``.
    """
    check_scalar("n", n, numbers.Integral, min_value=2, max_value=50_000_000)
    check_scalar("mean_degree", mean_degree, numbers.Real, min_value=0.0, include_min=False)
    check_scalar("dangling", dangling, numbers.Real, min_value=0.0, max_value=1.0, include_max=False)
    check_scalar("in_exponent", in_exponent, numbers.Real, min_value=1.0, include_min=False)
    check_scalar("out_exponent", out_exponent, numbers.Real, min_value=2.0, include_min=False)
    rng = check_random_state(random_state)
    n = int(n)
    raw = (1.0 - rng.random(n)) ** (-1.0 / (out_exponent - 1.0))
    raw = np.minimum(raw, n ** 0.5 * 10)  # cap the heavy tail so one draw cannot eat the edge budget
    outdeg = np.maximum(1, np.rint(raw * (mean_degree / raw.mean()))).astype(np.int64)
    outdeg = np.minimum(outdeg, n - 1)
    outdeg[rng.random(n) < dangling] = 0
    fitness = np.arange(1, n + 1, dtype=np.float64) ** (-1.0 / (in_exponent - 1.0))
    fitness = fitness[rng.permutation(n)]  # popular pages anywhere, not only at low indices
    cum = np.cumsum(fitness)
    src = np.repeat(np.arange(n, dtype=np.int64), outdeg)
    # Inverse-CDF sampling of the targets; sorted queries make searchsorted cache-friendly
    # (about 10x faster at 10^7 links), and a permutation then pairs them with random sources.
    u = rng.random(src.size)
    u *= cum[-1]
    u.sort()
    dst = np.searchsorted(cum, u, side="right")
    del u
    np.minimum(dst, n - 1, out=dst)
    dst = dst[rng.permutation(dst.size)]
    # Drop self-loops and duplicates with one sort of the row-major codes, then build the CSR
    # arrays directly (several times faster than scipy's COO -> CSR with sum_duplicates).
    codes = src[src != dst] * n + dst[src != dst]
    codes.sort()
    codes = codes[np.r_[True, codes[1:] != codes[:-1]]]
    rows, cols = np.divmod(codes, n)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=n), out=indptr[1:])
    index_dtype = np.int32 if codes.size < 2**31 else np.int64
    a = sp.csr_matrix(
        (np.ones(codes.size), cols.astype(index_dtype), indptr.astype(index_dtype)), shape=(n, n)
    )
    a.has_sorted_indices = True
    return a, [str(i) for i in range(n)]
