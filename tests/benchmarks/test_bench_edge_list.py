"""Edge-list loading speed and memory against numpy and networkx (one process).

Plain integer edge lists (``source target`` lines) of 20,000, 200,000, 1,000,000 (the most
an edge list may hold) and 2,000,000 links are read by ``read_edge_list`` and by
``numpy.loadtxt`` + a scipy CSR matrix, timed in turn (best of several rounds each) on the
same file; the ratio at every size and the worst are printed. 2,000,000 links are beyond
``MAX_EDGE_LIST_LINKS``: that size is read with the limit raised for the measurement.
networkx is timed at 200,000 links, where the peak memory of each reader is measured too,
with the line-by-line parser's (what reads files with names, quotes or weights).

Run:  .venv/bin/python -m pytest -q -s -o addopts="" -m benchmark tests/benchmarks/test_bench_edge_list.py
"""

import time
import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp

from _bench_table import record
from smlengine.datasets import _graph, read_edge_list

pytestmark = pytest.mark.benchmark

# links, ids, rounds: 1,000,000 links is the largest legal edge list
SIZES = [(20_000, 5_000, 15), (200_000, 50_000, 7), (1_000_000, 250_000, 3), (2_000_000, 500_000, 3)]
ENGINE = "edge-list loader (read_edge_list)"
NETWORKX_SIZE = 200_000  # networkx is timed at this size only (seconds a read)


def peak_bytes(fn):
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def interleaved_best(contenders, rounds):
    """{name: (shortest wall time, shortest CPU time, last result)}, the contenders run in turn
    in every round (so a busy moment of the machine costs each of them alike). On a machine
    with more runnable processes than cores a call of a few milliseconds may wait for the CPU
    in every round: its CPU time (this process's) is given beside."""
    best = {name: (np.inf, np.inf, None) for name in contenders}
    for _ in range(rounds):
        for name, fn in contenders.items():
            wall, cpu = time.perf_counter(), time.process_time()
            out = fn()
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            best[name] = (min(best[name][0], wall), min(best[name][1], cpu), out)
    return best


def write_links(path, n_links, n_ids, seed=0):
    links = np.random.default_rng(seed).integers(0, n_ids, size=(n_links, 2))
    path.write_text("\n".join(f"{s} {t}" for s, t in links.tolist()) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def edge_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("edges")
    return {n: write_links(folder / f"links-{n}.txt", n, ids) for n, ids, _ in SIZES}


def ours(path):
    return read_edge_list(path)[0]


def line_by_line(path):
    return _graph._read_edges(path, integers_first=False)[0]


def numpy_read(path):
    ids = np.loadtxt(path, dtype=np.int64)
    n = int(ids.max()) + 1
    a = sp.csr_matrix((np.ones(len(ids)), (ids[:, 0], ids[:, 1])), shape=(n, n))
    a.sum_duplicates()
    return a


def networkx_read(path):
    nx = pytest.importorskip("networkx")

    def run():
        g = nx.read_edgelist(path, create_using=nx.DiGraph, nodetype=int)
        return nx.to_scipy_sparse_array(g, nodelist=sorted(g))

    return run


def test_bench_read_edge_list_against_numpy(edge_files, monkeypatch):
    legal = _graph.MAX_EDGE_LIST_LINKS
    monkeypatch.setattr(_graph, "MAX_EDGE_LIST_LINKS", max(legal, max(n for n, _, _ in SIZES)))
    print("\n== plain integer edge lists: read_edge_list against numpy.loadtxt + CSR (best wall time; CPU time)")
    ratios, cpu_ratios = {}, {}
    for n, n_ids, rounds in SIZES:
        path = edge_files[n]
        size = path.stat().st_size
        best = interleaved_best({"ours": lambda: ours(path), "numpy": lambda: numpy_read(path)}, rounds)
        (t_ours, c_ours, a), (t_numpy, c_numpy, ref) = best["ours"], best["numpy"]
        # the same graph (numpy's CSR counts a repeated link; ours holds 1)
        assert a.shape == ref.shape and np.array_equal(a.indptr, ref.indptr) and np.array_equal(a.indices, ref.indices)
        ratios[n], cpu_ratios[n] = t_ours / t_numpy, c_ours / c_numpy
        limit = " (link limit raised)" if n > legal else ""
        print(f"  {n:>9,} links, {size / 1e6:5.1f} MB{limit:20s} ours {t_ours * 1e3:8.1f} ms   "
              f"numpy {t_numpy * 1e3:8.1f} ms   x{ratios[n]:.2f}   (CPU: {c_ours * 1e3:.1f} ms against "
              f"{c_numpy * 1e3:.1f} ms, x{cpu_ratios[n]:.2f})")
        record(ENGINE, f"{n:,} links, {size / 1e6:.1f} MB{limit}", t_ours, t_numpy, "numpy.loadtxt + CSR")
        if n == NETWORKX_SIZE:
            t_networkx = interleaved_best({"networkx": networkx_read(path)}, 1)["networkx"][0]
            networkx_row = (f"{n:,} links, {size / 1e6:.1f} MB", t_ours, t_networkx, "networkx.read_edgelist")
            print(f"  {'':>43s} networkx.read_edgelist {t_networkx:7.2f} s   x{t_ours / t_networkx:.3f}")
    record(ENGINE, *networkx_row)
    worst, worst_cpu = max(ratios, key=ratios.get), max(cpu_ratios, key=cpu_ratios.get)
    print(f"  worst ratio: x{ratios[worst]:.2f} at {worst:,} links (CPU time: x{cpu_ratios[worst_cpu]:.2f} "
          f"at {worst_cpu:,} links)")


def test_bench_read_edge_list_memory(edge_files):
    n = NETWORKX_SIZE
    path = edge_files[n]
    size = path.stat().st_size
    rows = {"smlengine read_edge_list": lambda: ours(path), "line-by-line parser": lambda: line_by_line(path),
            "networkx.read_edgelist": networkx_read(path), "numpy.loadtxt + CSR": lambda: numpy_read(path)}
    print(f"\n== {n:,} whitespace-separated links, {n // 4:,} ids, {size / 1e6:.1f} MB: peak memory of a read")
    peaks = {name: peak_bytes(fn) for name, fn in rows.items()}
    base = peaks["smlengine read_edge_list"]
    for name, peak in peaks.items():
        print(f"  {name:<28s} peak {peak / 1e6:7.1f} MB  x{peak / base:5.2f}")
    assert len({fn().nnz for fn in (rows["smlengine read_edge_list"], rows["numpy.loadtxt + CSR"])}) == 1


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
