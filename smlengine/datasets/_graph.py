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

This module does the reading, within its limits of size and time (the shipped file, edge
lists read in bounded chunks, the HTML crawl); plain integer edge lists are parsed with numpy
in :mod:`smlengine.datasets._edge_list_numbers`, any other edge-list text line by line with
the helpers of :mod:`smlengine.datasets._edge_list_text`, the links of HTML pages are found in
:mod:`smlengine.datasets._html_links`, and the graphs built in code live in
:mod:`smlengine.datasets._small_graphs`. Their public names are re-exported here.
"""

from __future__ import annotations

import codecs
import gzip
import io
import os
from array import array
from collections import deque
from itertools import chain
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from .._base import QUOTE_LIMIT, LineErrors, display_path, quote_text
from .._resources import resource_path
from ._edge_list_numbers import first_seen_codes, nodes_of_integer_ids, read_integer_links
from ._edge_list_text import (
    INTEGER,
    LINE_BREAK,
    LINE_ENDS,
    NUMBER,
    EdgeListInfo,
    Findings,
    LongLine,
    PajekSections,
    csr_adjacency,
    drop_header_line,
    is_header,
    long_line,
    nodes_of_integer_names,
    plain_batch,
    quote_line,
    split_fields,
)
from ._html_links import common_suffix, html_files, page_links, resolve_href
from ._small_graphs import TEXTBOOK_CHAINS, karate_club, scale_free_digraph, textbook_chain

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
    return csr_adjacency(src, dst, len(names)), names, titles


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


def _line_batches(chunks, lineno: int = 0):
    """``(number of the first line, lines, has_long)`` for the complete lines of each chunk
    of text, split at any of Python's line breaks (which are removed); ``lineno`` lines were
    read before the first chunk.

    Memory stays bounded whatever the input: at most one chunk and one partial line of at
    most MAX_LINE_CHARS are held; a longer line is skipped to its end and given as a
    :class:`LongLine` holding its first characters and its length (``has_long`` is then true).
    """
    carry = ""
    long_head, long_length = None, 0
    head = min(QUOTE_LIMIT, MAX_LINE_CHARS)  # characters of a long line kept for the message

    def cut(lines):
        """Long lines replaced by their beginnings; whether there was one."""
        if not lines or max(map(len, lines)) <= MAX_LINE_CHARS:
            return lines, False
        return [long_line(v[:head], len(v)) if len(v) > MAX_LINE_CHARS else v for v in lines], True

    for chunk in chunks:
        buf = carry + chunk
        carry = ""
        pos = 0
        first: list[str] = []
        if long_head is not None:
            m = LINE_BREAK.search(buf)
            if m is None:
                long_length += len(buf)
                continue
            first = [long_line(long_head, long_length + m.start())]
            long_head = None
            pos = m.end()
        parts = (buf[pos:] if pos else buf).splitlines(keepends=True)
        last = ""
        # an unfinished last line (no break yet, or a '\r' whose '\n' is in the next chunk)
        if parts and (parts[-1][-1] not in LINE_ENDS or parts[-1][-1] == "\r"):
            last = parts.pop()
        lines, has_long = cut([part.rstrip(LINE_ENDS) for part in parts])
        if first:
            lines, has_long = first + lines, True
        if lines:
            yield lineno + 1, lines, has_long
            lineno += len(lines)
        if len(last) > MAX_LINE_CHARS:
            long_head, long_length = last[:head], len(last.rstrip(LINE_ENDS))
        else:
            carry = last
    if long_head is not None:
        yield lineno + 1, [long_line(long_head, long_length)], True
    elif carry:
        lines, has_long = cut([carry.rstrip(LINE_ENDS)])
        yield lineno + 1, lines, has_long


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
    * **Pajek network files** (``.net``): ``*Vertices n`` declares the pages 1 … n (a line
      ``id "label"`` under it names page id: the labels become the names when they are all
      distinct), the lines under ``*Arcs`` are links, those under ``*Edges`` are read both
      ways, ``*Network`` is a title. Any other section (``*Matrix``, ``*Arcslist``) and a
      link to a page outside 1 … n are errors naming the line.

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
    messages name the limit. Lines of two plain integers (comment lines before them
    allowed) are parsed a chunk at a time with numpy, about as fast as ``numpy.loadtxt``;
    from the first other line on, the file is read line by line, with the same result.

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
    return _read_edges(source, nodes, return_info)


def _too_many_links(label: str, limit: int, lineno: int) -> str:
    return (f"{label}: more than {limit:,} links (line {lineno}); edge lists are limited to "
            f"{limit:,} links: keep the graph's largest part")


def _read_edges(source, nodes=None, return_info: bool = False, integers_first: bool = True):
    """:func:`read_edge_list`; with ``integers_first=False`` every line is read by the
    line-by-line parser (the fast reader of integer links is not tried)."""
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
    found = Findings()
    limit = MAX_EDGE_LIST_LINKS
    codes = array("q")
    first_line = 0
    if integers_first and allowed is None:
        # the common case, plain integer links, read a chunk at a time with numpy; the
        # line-by-line parser below goes on from the first line it does not take
        links = read_integer_links(chunks, found, limit=limit, max_line=MAX_LINE_CHARS)
        if links.beyond_limit:
            raise ValueError(_too_many_links(label, limit, links.beyond_limit))
        if links.rest is None:
            if not links.ids.size:
                raise ValueError(f"{label}: no links found")
            names, nodes_of = nodes_of_integer_ids(links.ids, first=1 if found.style == "KONECT" else 0)
            return _graph_of(nodes_of, names, found, return_info)
        index, first_codes = first_seen_codes(links.ids)
        codes.frombytes(first_codes.astype(np.int64).tobytes())
        first_line = links.lines
        chunks = chain([links.rest], chunks)
    errors = LineErrors()
    pajek = None  # a Pajek network file's sections, from its first line starting with '*'
    for start, batch, has_long in _line_batches(chunks, first_line):
        if codes and allowed is None and pajek is None and not has_long and len(codes) + 2 * len(batch) <= 2 * limit:
            # the common case of plain numbered or named links: a whole chunk at once
            sep = plain_batch(batch)
            if sep:
                ids = "\n".join(batch).split()
                if ids:  # a batch of blank lines names no separator
                    found.add_separator(sep)
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
                found.comment(line)
                continue
            found.seen_content = True
            if line[0] == "*" and (pajek is not None or not codes):
                pajek = pajek or PajekSections()
                found.style = "Pajek"
                problem = pajek.heading(line, lineno)
                if problem:
                    errors.add(problem)
                elif pajek.section == "vertices" and allowed is None:
                    for v in range(1, pajek.vertices + 1):  # every page, linked or not
                        index.setdefault(str(v), len(index))
                continue
            fields, sep = (None, "") if isinstance(raw, LongLine) else split_fields(line)
            if pajek is not None and pajek.section in ("vertices", "refused") and fields is not None:
                problem = pajek.vertex(fields, lineno, raw)
                if problem:
                    errors.add(problem)
                continue
            if fields is None or len(fields) < 2 or not fields[0] or not fields[1] or not all(
                NUMBER.match(f) for f in fields[2:]
            ):
                errors.add(f"line {lineno}: expected 'source target' (separated by spaces, a TAB or a comma), "
                           f"got {quote_line(raw)}")
                continue
            if pajek is not None and (problem := pajek.link(fields, lineno)):
                errors.add(problem)
                continue
            if not codes and pajek is None and found.header is None and not errors and is_header(fields) and not (
                allowed is not None and fields[0] in index and fields[1] in index
            ):
                found.header = (fields[0], fields[1])
                found.add_separator(sep)
                continue
            found.add_separator(sep)
            if len(fields) > 2:
                found.extra_columns += 1
            if len(codes) >= 2 * limit:
                raise ValueError(_too_many_links(label, limit, lineno))
            for v in fields[:2]:
                code = index.get(v)
                if code is None:
                    if allowed is not None:
                        errors.add(f"line {lineno}: unknown node {quote_text(v)}")
                        code = -1
                    else:
                        code = index[v] = len(index)
                codes.append(code)
            if pajek is not None and pajek.section == "edges":  # an edge is a link both ways
                codes.extend((codes[-1], codes[-2]))
    if errors:
        raise ValueError(errors.message(label))
    if not codes:
        raise ValueError(f"{label}: no links found")
    links = np.frombuffer(codes, dtype=np.int64).copy()
    names = list(index)
    if allowed is None and pajek is None and found.header is None and links.size > 2:
        links, names, found.header = drop_header_line(links, names)
    if allowed is None and all(INTEGER.match(v) for v in names):
        names, remap = nodes_of_integer_names(names, first=1 if found.style in ("KONECT", "Pajek") else 0)
        links = remap[links]
    if pajek is not None and allowed is None:
        names = pajek.names(names)
    return _graph_of(links, names, found, return_info)


def _graph_of(links, names, found: Findings, return_info: bool):
    """The adjacency of ``links`` (node numbers, source then target), its names and info."""
    src, dst = links[0::2], links[1::2]
    if found.undirected:
        src, dst = np.concatenate([src, dst]), np.concatenate([dst, src])
    adjacency = csr_adjacency(src, dst, len(names))
    if not return_info:
        return adjacency, names
    return adjacency, names, found.info(links.size // 2)


# ----------------------------------------------------------------------------- HTML crawl

# Bounds of a crawl, so any folder gives an answer in bounded time and memory: pages
# beyond MAX_PAGES (in path order) are left out, and of each page only the first
# MAX_PAGE_BYTES are read. Both are reported in the crawl notes.
MAX_PAGES = 20_000
MAX_PAGE_BYTES = 2 * 2**20


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
    files, cut = html_files(root, MAX_PAGES)
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
        hrefs, title = page_links(_read_page(root / page, notes, page))
        titles.append(title or page)
        targets_here: set[str] = set()
        for href in hrefs:
            target, reason = resolve_href(page, href, pages)
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
    suffix = common_suffix(titles)
    if suffix:
        titles = [t[: -len(suffix)] if t.endswith(suffix) and len(t) > len(suffix) else t for t in titles]
    return names, titles, src, dst, dropped


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
    result = (csr_adjacency(src, dst, len(names)), names, titles)
    return (*result, notes) if return_notes else result
