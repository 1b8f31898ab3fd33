"""The PageRank lab's run, free of widgets: loading graphs (cached), applying the user's
link edits, and one generator chaining layout → power method → random surfer with
consecutive step numbers. Everything here runs on the worker thread."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterator

import numpy as np

from smlengine import Snapshot, frozen_array
from smlengine.cache import LRUCache
from smlengine.datasets import crawl_html_folder, load_graph, read_edge_list, scale_free_digraph, textbook_chain
from smlengine.phases import StepCounter

if TYPE_CHECKING:  # scipy.sparse is imported where used: it costs 0.2 s at start-up
    import scipy.sparse as sp

#: graphs above this size get a cheap spiral instead of the O(d²) force layout
LAYOUT_MAX_NODES = 700
#: edges drawn at most (a random-free subsample: every k-th link) so redraws stay fluid
MAX_DRAWN_EDGES = 40_000
#: walkers drawn as moving markers
N_SHOWN_WALKERS = 6
#: textbook chains: iterations shown at most (the periodic one never converges)
CHAIN_MAX_ITER = 30

_graph_cache = LRUCache(8)  # source (+ file time) -> (adjacency, names, titles, chain, note)
_layout_cache = LRUCache(16)  # (source, seed, d) -> the layout frames [(positions, progress)]

CHAINS = ("two-state", "reducible", "periodic", "periodic-self-loops")


#: a page's label on the graph and in the ranked list: at most this many characters
LABEL_CHARS = 16


def _title_label(title: str, name: str) -> str:
    """A title up to " — " (Sphinx: "os — Miscellaneous ..."); a title that only puts a word
    before the name ("member 33") gives the name."""
    words = (title or "").split()
    if len(words) == 2 and words[1] == name:
        return name
    return (title or name).split(" \u2014 ")[0].strip() or name


def _path_labels(name: str) -> list[str]:
    """Short forms of a page's path: its file without the extension (a folder's index page is
    the folder, "library/"), then the whole path so."""
    stem = name
    for ext in (".html", ".htm"):
        if stem.lower().endswith(ext):
            stem = stem[: -len(ext)]
    if stem.endswith("/index"):
        stem = stem[: -len("index")]
    last = stem.rstrip("/").rsplit("/", 1)[-1] + ("/" if stem.endswith("/") else "")
    return [last, stem] if last != stem else [stem]


def page_labels(titles, names) -> list[str]:
    """Distinct short labels of the pages: the title when it is short (``LABEL_CHARS``) and no
    other page has it, else the page's path shortened ("genindex" for one of thirty pages
    titled "Index", "py-modindex" for "Python Module Index", "library/" for a folder's index);
    a label still shared, or too long, gets the shortest unique form, cut in the middle."""
    base = [_title_label(t, n) for t, n in zip(titles, names)]
    count: dict[str, int] = {}
    for b in base:
        count[b] = count.get(b, 0) + 1
    labels = list(base)
    moved = [i for i, b in enumerate(base) if len(b) > LABEL_CHARS or count[b] > 1]
    for i in moved:
        labels[i] = _path_labels(names[i])[0]
    shared: dict[str, int] = {}
    for label in labels:
        shared[label] = shared.get(label, 0) + 1
    for i in moved:  # two files of one name in different folders: their whole paths
        if shared[labels[i]] > 1:
            labels[i] = _path_labels(names[i])[-1]
    seen: dict[str, int] = {}
    for i, label in enumerate(labels):  # whatever is still long or shared: cut, then numbered
        if len(label) > LABEL_CHARS:
            folder, _, last = label.rstrip("/").rpartition("/")
            room = LABEL_CHARS - len(last) - 2
            if folder and room >= 2:  # the folder shortened, the file whole: "libr…/exceptions"
                label = folder[:room] + "…/" + last
            else:
                half = (LABEL_CHARS - 1) // 2
                label = label[:half] + "…" + label[-(LABEL_CHARS - 1 - half):]
        if label in seen:
            seen[label] += 1
            label = f"{label[: LABEL_CHARS - 4]} #{seen[label]}"
        else:
            seen[label] = 1
        labels[i] = label
    return labels


class GraphInfo:
    """One graph as the lab draws it (read-only after construction).

    Equality is by ``key`` (source and edits), so two runs of the same graph compare equal.
    """

    def __init__(self, key, base_key, adjacency: sp.csr_matrix, names, titles, chain: bool, note: str = ""):
        self.key = key
        self.note = note  # what reading the source found (an edge list's separator, a crawl's pages)
        self.base_key = base_key
        self.adjacency = adjacency
        self.names = list(names)
        self.titles = list(titles)
        self.labels = page_labels(self.titles, self.names)
        self.chain = chain
        self.n = adjacency.shape[0]
        pattern = adjacency.copy()
        pattern.data = np.ones_like(pattern.data)
        pattern.eliminate_zeros()
        self.n_links = int(pattern.nnz)
        self.out_degree = np.asarray(pattern.sum(axis=1)).ravel().astype(int)
        self.in_degree = np.asarray(pattern.sum(axis=0)).ravel().astype(int)
        coo = pattern.tocoo()
        keep = coo.row != coo.col
        rows, cols = coo.row[keep], coo.col[keep]
        if rows.size > MAX_DRAWN_EDGES:
            every = int(np.ceil(rows.size / MAX_DRAWN_EDGES))
            rows, cols = rows[::every], cols[::every]
        self.edge_rows = frozen_array(rows)
        self.edge_cols = frozen_array(cols)
        self.image = frozen_array(_adjacency_image(pattern))

    def __eq__(self, other):
        return isinstance(other, GraphInfo) and self.key == other.key

    def __hash__(self):
        return hash(self.key)

    def __repr__(self):
        return f"GraphInfo({self.key!r}, n={self.n}, links={self.n_links})"


def _adjacency_image(pattern: sp.csr_matrix, max_side: int = 1000) -> np.ndarray:
    """0/1 picture of the links (row = source page, column = target page), binned if large."""
    d = pattern.shape[0]
    coo = pattern.tocoo()
    if d <= max_side:
        img = np.zeros((d, d), np.float32)
        img[coo.row, coo.col] = 1.0
        return img
    scale = max_side / d
    img = np.zeros((max_side, max_side), np.float32)
    img[(coo.row * scale).astype(int), (coo.col * scale).astype(int)] = 1.0
    return img


def describe_source(source: tuple) -> str:
    kind = source[0]
    if kind == "builtin":
        names = {"python-docs": "Python documentation (530 pages)", "karate-club": "Zachary's karate club"}
        return names.get(source[1], source[1])
    if kind == "scale-free":
        return f"scale-free graph, {source[1]} nodes"
    if kind == "chain":
        return f"textbook chain '{source[1]}'"
    return os.path.basename(str(source[1]).rstrip("/\\")) or str(source[1])


def load_source(source: tuple) -> str:
    """Read and check a source (an opened edge list or HTML folder) without changing anything:
    raises ``ValueError`` with a message for the user, else returns what reading found (the
    edge list's separator, ...). The graph stays cached for the run that follows."""
    return _load_base(source)[4]


def _load_base(source: tuple):
    """(adjacency, names, titles, chain, note) for a source, cached at module level."""
    kind = source[0]
    cache_key = source
    if kind in ("edges", "html"):
        path = source[1]
        if not os.path.exists(path):
            raise ValueError(f"{path}: no such file or folder")
        cache_key = (*source, os.path.getmtime(path))
    hit = _graph_cache.get(cache_key)
    if hit is not None:
        return hit
    import scipy.sparse as sp  # deferred: 0.2 s, paid when the first graph is built

    chain = False
    note = ""
    if kind == "builtin":
        a, names, titles = load_graph(source[1], return_titles=True)
    elif kind == "scale-free":
        a, names = scale_free_digraph(int(source[1]), random_state=int(source[2]))
        titles = [f"node {n}" for n in names]
    elif kind == "chain":
        p, names = textbook_chain(source[1])
        a = sp.csr_matrix(p)
        a.eliminate_zeros()
        titles = [f"state {n}" for n in names]
        chain = True
    elif kind == "edges":
        try:
            a, names, info = read_edge_list(source[1], return_info=True)
        except (OSError, UnicodeDecodeError) as exc:
            raise ValueError(f"could not read {source[1]}: {exc}") from None
        titles = list(names)
        note = info.summary()
    elif kind == "html":
        if not os.path.isdir(source[1]):
            raise ValueError(f"{source[1]} is not a folder")
        a, names, titles, notes = crawl_html_folder(source[1], return_notes=True)
        if a.shape[0] == 0:
            raise ValueError(f"{source[1]}: no HTML pages found")
        note = "; ".join([f"{len(names):,} pages crawled", *notes])
    else:
        raise ValueError(f"unknown graph source {kind!r}")
    a = sp.csr_matrix(a, dtype=np.float64)
    a.sort_indices()
    entry = (a, list(names), list(titles), chain, note)
    _graph_cache.put(cache_key, entry)
    return entry


def clear_caches() -> None:
    """Drop the graphs and layouts kept for the next run: called when the lab shuts down."""
    _graph_cache.clear()
    _layout_cache.clear()


def apply_edits(a: sp.csr_matrix, edits) -> sp.csr_matrix:
    """Toggle each link i -> j of ``edits`` in turn (add it if absent, remove it if present)."""
    if not edits:
        return a
    d = a.shape[0]
    lil = a.tolil(copy=True)
    for i, j in edits:
        if not (0 <= i < d and 0 <= j < d):
            raise ValueError(f"the edited link {i} → {j} does not fit a graph of {d} pages")
        lil[i, j] = 0.0 if lil[i, j] != 0 else 1.0
    out = lil.tocsr()
    out.eliminate_zeros()
    out.sort_indices()
    return out


def build_graph(source: tuple, edits) -> GraphInfo:
    a, names, titles, chain, note = _load_base(source)
    edits = tuple((int(i), int(j)) for i, j in edits)
    return GraphInfo((source, edits), source, apply_edits(a, edits), names, titles, chain, note)


def _spiral(d: int) -> np.ndarray:
    """Golden-angle spiral in page order: a cheap layout for big or tiny graphs."""
    if d <= 6:
        t = np.pi / 2 - 2 * np.pi * np.arange(d) / max(d, 1)
        return np.column_stack([np.cos(t), np.sin(t)]) * (0.8 if d > 1 else 0.0)
    k = np.arange(d)
    r = np.sqrt((k + 0.5) / d)
    t = k * np.pi * (3 - np.sqrt(5))
    return np.column_stack([r * np.cos(t), r * np.sin(t)])


def layout_frames(source: tuple, a: sp.csr_matrix, seed: int) -> Iterator[tuple[np.ndarray, float]]:
    """The force-layout frames (positions, progress) of a base graph, cached per seed.

    Frames are yielded as they are computed (fluid progress) and replayed from the cache on
    a later run. The layout uses the *unedited* graph so that nodes stay put when the user
    edits links; graphs too small or too large for the force layout get a spiral.
    """
    d = a.shape[0]
    key = (source, int(seed), d)
    hit = _layout_cache.get(key)
    if hit is not None:
        yield from hit
        return
    if d <= 6 or d > LAYOUT_MAX_NODES:
        frames = [(frozen_array(_spiral(d)), 1.0)]
        yield from frames
    else:
        from smlengine.markov import layout_steps  # deferred with scipy.sparse (1 s with its compiled parts)

        # Each iteration costs about 5e-8 d² seconds: batch iterations to ~15 ms per frame.
        every = int(max(1, min(10, 0.015 / (5e-8 * d * d))))
        frames = []
        for ls in layout_steps(a, random_state=seed, n_iter=50, yield_every=every):
            frame = (ls.positions, float(ls.progress or 0.0))
            frames.append(frame)
            yield frame
    _layout_cache.put(key, frames)


@dataclass(frozen=True, kw_only=True, eq=False)
class PageRankLabSnapshot(Snapshot):
    """One step of the lab: a layout frame, a power-method iteration or a surfer move batch.

    Attributes
    ----------
    graph : GraphInfo -- the (edited) graph of this run
    positions : (d, 2) node coordinates
    distribution : (d,) P_n of the power method (its final value during the surfer phase)
    iteration : int -- power-method n (0 during the layout)
    change : float or None -- ‖P_n − P_{n−1}‖₁ (None before the first iteration)
    bound : float -- (1 − α)^n
    converged : bool -- the power method reached the tolerance
    teleport : float -- α
    irreducible, aperiodic : bool -- of the chain p with this α
    walkers, walkers_prev : (k,) int -- a few surfers' pages now and one move before
    walkers_jumped : (k,) bool -- that move was a teleport (or from a dangling page)
    frequencies : (d,) visit frequencies of all surfers (zeros before the surfer phase)
    moves : int -- moves per surfer so far
    n_walkers : int
    l1_error : float or None -- ‖frequencies − P‖₁ (None before the surfer phase)
    """

    graph: GraphInfo
    positions: np.ndarray
    distribution: np.ndarray
    iteration: int
    change: float | None
    bound: float
    converged: bool
    teleport: float
    irreducible: bool
    aperiodic: bool
    walkers: np.ndarray
    walkers_prev: np.ndarray
    walkers_jumped: np.ndarray
    frequencies: np.ndarray
    moves: int
    n_walkers: int
    l1_error: float | None


def start_vector(d: int, start: str) -> np.ndarray:
    x = np.zeros(d)
    if start == "first":
        x[0] = 1.0
    elif start == "last":
        x[-1] = 1.0
    else:
        x[:] = 1.0 / d
    return x


def run_steps(source: tuple, edits, seed: int, teleport: float, tol: float, max_iter: int, start: str,
              n_walkers: int, surfer_moves: int, moves_per_step: int):
    """The lab's generator: layout frames, then power iterations, then surfer moves."""
    # deferred with scipy.sparse (1 s with its compiled parts), paid when the run starts
    from smlengine.markov import is_aperiodic, is_irreducible, pagerank_steps, random_surfer_steps, transition_matrix

    graph = build_graph(source, edits)
    a = graph.adjacency
    d = graph.n
    base_a = _load_base(source)[0]
    p = transition_matrix(a, teleport)
    irreducible, aperiodic = is_irreducible(p), is_aperiodic(p)
    x0 = frozen_array(start_vector(d, start))
    empty_i = frozen_array(np.zeros(0, dtype=np.int64))
    empty_b = frozen_array(np.zeros(0, dtype=bool))
    zeros = frozen_array(np.zeros(d))
    common = dict(graph=graph, teleport=float(teleport), irreducible=bool(irreducible), aperiodic=bool(aperiodic),
                  n_walkers=int(n_walkers))
    counter = StepCounter()
    positions = None
    for positions, progress in layout_frames(source, base_a, seed):
        yield PageRankLabSnapshot(
            step=counter.next(), phase="layout", progress=progress, positions=positions, distribution=x0, iteration=0,
            change=None, bound=1.0, converged=False, walkers=empty_i, walkers_prev=empty_i,
            walkers_jumped=empty_b, frequencies=zeros, moves=0, l1_error=None, **common)
    final = x0
    iters = min(max_iter, CHAIN_MAX_ITER) if graph.chain else max_iter
    converged = False
    last_iter, last_change, last_bound = 0, None, 1.0
    for ps in pagerank_steps(a, teleport=teleport, tol=tol, max_iter=iters, start=x0):
        if ps.step == 0:
            continue  # P_0 is what the layout frames showed
        final = ps.distribution
        converged = bool(ps.converged)
        last_iter, last_change, last_bound = int(ps.step), ps.change, float(ps.bound)
        yield PageRankLabSnapshot(
            step=counter.next(), phase="power method", progress=ps.progress, positions=positions,
            distribution=ps.distribution,
            iteration=ps.step, change=ps.change, bound=ps.bound, converged=converged, walkers=empty_i,
            walkers_prev=empty_i, walkers_jumped=empty_b, frequencies=zeros, moves=0, l1_error=None,
            **common)
    if surfer_moves <= 0:
        return
    k = min(N_SHOWN_WALKERS, n_walkers)
    reference = np.asarray(final, dtype=float)
    if graph.chain and not converged:
        # A periodic chain's iterate oscillates: measure the surfers against the equilibrium.
        from smlengine.markov import stationary_distribution  # deferred with scipy.sparse

        reference = np.clip(stationary_distribution(transition_matrix(a, teleport).toarray()), 0.0, None)
    reference = reference / reference.sum()
    for ss in random_surfer_steps(a, teleport=teleport, n_walkers=n_walkers, n_steps=surfer_moves,
                                  random_state=seed, yield_every=moves_per_step, reference=reference):
        if ss.step == 0:
            continue
        yield PageRankLabSnapshot(
            step=counter.next(), phase="random surfer", progress=ss.progress, positions=positions, distribution=final,
            iteration=last_iter, change=last_change, bound=last_bound, converged=converged,
            walkers=frozen_array(ss.positions[:k]), walkers_prev=frozen_array(ss.previous[:k]),
            walkers_jumped=frozen_array(ss.teleported[:k]), frequencies=ss.frequencies, moves=int(ss.step),
            l1_error=None if ss.l1_error is None else float(ss.l1_error), **common)

