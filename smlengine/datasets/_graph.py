"""Graphs and Markov chains for the PageRank lab.

* :func:`load_graph` -- the shipped hyperlink graph of Python's HTML documentation.
* :func:`read_edge_list` -- your own graph, one ``source<TAB or comma>target`` per line.
* :func:`crawl_html_folder` -- the link graph of a folder of HTML pages (the shipped graph
  is produced by this very function, see ``resources/data/scripts/derive_python_docs_graph.py``).
* :func:`textbook_chain`, :func:`karate_club`, :func:`scale_free_digraph` -- small chains
  from the course, Zachary's karate club and a seeded directed scale-free generator.

Every graph comes as a ``scipy.sparse`` CSR adjacency matrix ``A`` with ``A[i, j] != 0``
for a link i -> j, plus the node names in the same order.
"""

from __future__ import annotations

import gzip
import html
import io
import numbers
import os
import posixpath
import re
from collections import deque
from pathlib import Path
from urllib.parse import unquote, urlsplit

import numpy as np
import scipy.sparse as sp

from .._base import LineErrors, check_random_state, check_scalar, display_path, quote_text
from .._resources import resource_path

__all__ = [
    "load_graph",
    "read_edge_list",
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
                raise ValueError(f"{display_path(path)}: line {lineno}: not a 'page' or 'link' record: {quote_text(line)}")
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

_SEP = re.compile(r"[\t,]")
_INT = re.compile(r"^[0-9]+$")


def _read_user_text(path: Path, what: str) -> str:
    """Text of a file the user picked, or a ValueError a student understands.

    A folder, binary data (NUL bytes) and non-UTF-8 text get their own messages instead
    of an ``IsADirectoryError`` or a ``UnicodeDecodeError`` quoting raw bytes.
    """
    shown = display_path(path)
    if path.is_dir():
        raise ValueError(f"{shown} is a folder, not {what}")
    if not path.is_file():
        raise FileNotFoundError(f"{what} not found: {shown}")
    data = path.read_bytes()
    if b"\x00" in data:
        raise ValueError(f"{shown} is not a text file (binary data)")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{shown} is not UTF-8 text (bad byte at offset {exc.start}); save it as UTF-8 first") from None


def _integer_nodes(flat: list[str]):
    """Node numbers for integer names: ``(names, index of every name in flat)``.

    Only the ids that occur are looked at (``np.unique`` with ``return_inverse``), so the
    cost is O(E log E) whatever the ids' size. Ids are node numbers: when the gaps between
    them are at most as many as the ids themselves (``max + 1 <= 2 * distinct``), the graph
    has nodes ``0 .. max`` and a missing number is an isolated page, so a graph numbered
    0..n-1 keeps its isolated pages; sparser ids (``17``, ``1000000000``) give only the
    nodes that occur, in numeric order.
    """
    canon = [v.lstrip("0") or "0" for v in flat]  # "007" means node 7
    if max(len(v) for v in canon) <= 18:  # fits int64
        ids = np.array(canon, dtype=np.int64)
        uniq, inverse = np.unique(ids, return_inverse=True)
        if int(uniq[-1]) + 1 <= 2 * uniq.size:
            return [str(i) for i in range(int(uniq[-1]) + 1)], ids
        return [str(int(i)) for i in uniq], inverse
    # Ids beyond int64 (a 31-digit id): numeric order of canonical decimal strings is the
    # order of (length, text); such ids are always sparse.
    uniq = sorted(set(canon), key=lambda v: (len(v), v))
    index = {v: i for i, v in enumerate(uniq)}
    return uniq, np.fromiter((index[v] for v in canon), dtype=np.int64, count=len(canon))


def read_edge_list(source, *, nodes=None):
    """Read a directed graph from an edge list.

    One link per line, ``source<TAB>target`` or ``source,target``; blank lines and lines
    starting with ``#`` are skipped (a ``#`` inside a line is part of a name). Fields are
    stripped of surrounding spaces.

    * If every name is a non-negative integer, names are node numbers (``"007"`` is node
      7), sorted numerically. While the numbers are dense (largest + 1 at most twice the
      number of distinct ids) the graph has nodes ``0 .. largest`` and gaps become isolated
      pages; sparser ids (``0`` and ``1000000000``) give only the nodes that occur.
      Otherwise nodes are the distinct names in order of first appearance.
    * Duplicate links collapse to one link; self-loops are kept (a page linking to itself
      is allowed; it makes the chain aperiodic).
    * ``nodes``: an optional list of allowed names (fixes the node order too); a name not in
      it is an error naming the line.

    Malformed lines (not exactly two non-empty fields) are never dropped silently: they
    are all counted in one ``ValueError`` that shows the first three with their line
    numbers (each quoted to at most 80 characters).

    Parameters
    ----------
    source : str, os.PathLike or text file object
    nodes : sequence of str, optional

    Returns
    -------
    adjacency : scipy.sparse.csr_matrix of shape (n, n)
    names : list of str

    Raises
    ------
    FileNotFoundError
        If the path does not exist.
    ValueError
        If the path is a folder, the file is binary or not UTF-8, has malformed lines,
        unknown names (with ``nodes``) or no link at all.
    """
    if hasattr(source, "read"):
        text = source.read()
        label = display_path(getattr(source, "name", "edge list"))
        if isinstance(text, bytes):
            raise TypeError("read_edge_list needs a text file object (open the file with 'r', not 'rb')")
    else:
        path = Path(os.fspath(source))
        text = _read_user_text(path, "an edge list file")
        label = display_path(path)
    pairs, where = [], []
    errors = LineErrors()
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        fields = [f.strip() for f in _SEP.split(line, maxsplit=2)]
        if len(fields) != 2 or not fields[0] or not fields[1]:
            errors.add(f"line {lineno}: expected 'source<TAB>target' or 'source,target', got {quote_text(raw)}")
            continue
        pairs.append((fields[0], fields[1]))
        where.append(lineno)
    del text
    if nodes is not None:
        names = [str(n) for n in nodes]
        index = {n: i for i, n in enumerate(names)}
        if len(index) != len(names):
            raise ValueError("nodes contains duplicate names")
        for (s, t), lineno in zip(pairs, where):
            for v in (s, t):
                if v not in index:
                    errors.add(f"line {lineno}: unknown node {quote_text(v)}")
    if errors:
        raise ValueError(errors.message(label))
    if not pairs:
        raise ValueError(f"{label}: no links found")
    flat = [v for pair in pairs for v in pair]
    if nodes is None and all(_INT.match(v) for v in flat):
        names, codes = _integer_nodes(flat)
    else:
        if nodes is None:
            index = {}
            for v in flat:
                index.setdefault(v, len(index))
            names = list(index)
        codes = np.fromiter((index[v] for v in flat), dtype=np.int64, count=len(flat))
    return _csr(codes[0::2], codes[1::2], len(names)), names


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
