"""Edge-list loading speed and memory against networkx and numpy (one process).

Run:  .venv/bin/python -m pytest -q -s -o addopts="" -m benchmark tests/benchmarks/test_bench_edge_list.py
"""

import time
import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp

from _bench_table import best_time, record
from smlengine.datasets import _graph, read_edge_list

pytestmark = pytest.mark.benchmark

N_LINKS = 200_000
N_NODES = 50_000


def peak_bytes(fn):
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.fixture(scope="module")
def edge_file(tmp_path_factory):
    rng = np.random.default_rng(0)
    links = rng.integers(0, N_NODES, size=(N_LINKS, 2))
    path = tmp_path_factory.mktemp("edges") / "links.txt"
    path.write_text("".join(f"{s} {t}\n" for s, t in links.tolist()), encoding="utf-8")
    return path


def ours(path):
    return read_edge_list(path)[0]


def networkx_read(path):
    nx = pytest.importorskip("networkx")

    def run():
        g = nx.read_edgelist(path, create_using=nx.DiGraph, nodetype=int)
        return nx.to_scipy_sparse_array(g, nodelist=sorted(g))

    return run


def numpy_read(path):
    ids = np.loadtxt(path, dtype=np.int64)
    n = int(ids.max()) + 1
    a = sp.csr_matrix((np.ones(len(ids)), (ids[:, 0], ids[:, 1])), shape=(n, n))
    a.sum_duplicates()
    return a


def test_bench_read_edge_list(edge_file):
    size = edge_file.stat().st_size
    rows = [("smlengine read_edge_list", lambda: ours(edge_file), 3),
            ("networkx.read_edgelist", networkx_read(edge_file), 1),
            ("numpy.loadtxt + CSR", lambda: numpy_read(edge_file), 3)]
    print(f"\n== {N_LINKS:,} whitespace-separated links, {N_NODES:,} ids, {size / 1e6:.1f} MB")
    results = []
    for name, fn, repeat in rows:
        seconds, a = best_time(fn, repeat)
        peak = peak_bytes(fn)
        results.append((name, seconds, peak, a))
    base_t, base_m = results[0][1], results[0][2]
    for name, seconds, peak, a in results:
        print(f"  {name:<28s} {seconds:7.2f} s  x{seconds / base_t:5.2f}   peak {peak / 1e6:7.1f} MB  "
              f"x{peak / base_m:5.2f}   links {a.nnz:,}")
    for name, seconds, _, _ in results[1:]:
        record("edge-list loader (read_edge_list)", f"{N_LINKS:,} links, {size / 1e6:.1f} MB", base_t, seconds, name)
    assert results[0][3].nnz == results[2][3].nnz


def test_bench_refusals(tmp_path, monkeypatch):
    """A 50 MB file of '10<TAB>11' lines is refused at the link limit; a file over the byte
    limit from its size alone."""
    path = tmp_path / "fifty.tsv"
    path.write_bytes(b"10\t11\n" * (50 * 2**20 // 6))
    t = time.perf_counter()
    with pytest.raises(ValueError, match="links"):
        read_edge_list(path)
    seconds = time.perf_counter() - t

    def refuse():
        with pytest.raises(ValueError):
            read_edge_list(path)

    peak = peak_bytes(refuse)
    print(f"\n== 50 MB of '10\\t11' lines: refused at {_graph.MAX_EDGE_LIST_LINKS:,} links in {seconds:.2f} s, "
          f"peak {peak / 1e6:.1f} MB")
    huge = tmp_path / "huge.tsv"
    with open(huge, "wb") as fh:
        fh.truncate(10 * 2**30)
    t = time.perf_counter()
    with pytest.raises(ValueError, match="limit"):
        read_edge_list(huge)
    print(f"   10 GB file: refused from its size in {(time.perf_counter() - t) * 1e3:.2f} ms")
