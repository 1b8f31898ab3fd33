"""Collapsed Gibbs sampling for LDA versus the `lda` package, timed in one process, one table.

Run: .venv/bin/python -m pytest -q -s -o addopts="" -m benchmark tests/benchmarks/test_bench_topics.py

Rows (issue 49): time per sweep on the same counts and K, as tokens resampled per second:
- the compiled path (numba) against ``lda.LDA`` (Cython), target <= 1.0 x; our sweep also
  computes the log joint and a snapshot every sweep, lda's only every ``refresh`` iterations;
- the path without numba (what a frozen application runs), for the lab's default corpus
  (passages of six plays, K = 6): it must sweep at least 5 times a second.

Each side runs ``fit`` with N and 2 N sweeps; the difference over N is the cost of one sweep
(setup and the vocabulary cancel out). Best of 3.
"""

import functools

import numpy as np
import pytest

from _bench_table import best_time, record
from smlengine._topics_sweep import COMPILED, compiled_sweep
from smlengine.datasets import build_vocabulary, make_lda_corpus, shakespeare_passages
from smlengine.topics import LatentDirichletAllocation

lda = pytest.importorskip("lda")

pytestmark = pytest.mark.benchmark
_REF = "lda.LDA (collapsed Gibbs, Cython)"


def _counts(docs, n_words):
    X = np.zeros((len(docs), n_words), dtype=np.int64)
    for d, doc in enumerate(docs):
        np.add.at(X[d], doc, 1)
    return X


@functools.lru_cache(maxsize=1)
def _corpora():
    passages = shakespeare_passages()
    vocab, docs = build_vocabulary([text for _, text in passages], min_count=3)
    plays = _counts(docs, len(vocab))
    bars, _, _ = make_lda_corpus(1000, 100, n_topics=10, random_state=0)
    rng = np.random.default_rng(1)
    phi = rng.dirichlet(np.full(3000, 0.05), size=20)
    theta = rng.dirichlet(np.full(20, 0.2), size=500)
    wide = rng.poisson(200 * theta @ phi)
    wide = wide[wide.sum(axis=1) > 0]
    return {
        "plays (lab default), K = 6": (plays, 6),
        "bars 1000 x 100, K = 10": (_counts(bars, 25), 10),
        "500 documents, V = 3000, K = 20": (wide, 20),
    }


def _per_sweep(fit, n):
    t1, _ = best_time(lambda: fit(n))
    t2, _ = best_time(lambda: fit(2 * n))
    return max(t2 - t1, 1e-9) / n


def _ours(X, K, path):
    def fit(n):
        model = LatentDirichletAllocation(K, alpha=0.1, eta=0.01, n_sweeps=n, random_state=0)
        model.sweep_path = path
        return model.fit(X)
    return fit


def _reference(X, K):
    def fit(n):
        return lda.LDA(n_topics=K, n_iter=n, alpha=0.1, eta=0.01, random_state=0, refresh=10 * n).fit(X)
    return fit


@pytest.mark.parametrize("case", ["plays (lab default), K = 6", "bars 1000 x 100, K = 10",
                                  "500 documents, V = 3000, K = 20"])
def test_bench_sweep(case):
    if compiled_sweep() is None:
        pytest.skip(f"numba not available: {COMPILED.error}")
    X, K = _corpora()[case]
    tokens = int(X.sum())
    ours = _per_sweep(_ours(X, K, "compiled"), 20)
    ref = _per_sweep(_reference(X, K), 20)
    record("LDA, compiled path (numba)", f"one sweep, {case}, {tokens:,} tokens", ours, ref, _REF,
           note=f"{tokens / ours / 1e6:.2f} M tokens/s against {tokens / ref / 1e6:.2f} M")
    print(f"\n{case}: ours {ours * 1e3:.2f} ms, lda {ref * 1e3:.2f} ms per sweep, ratio {ours / ref:.2f}")


@pytest.mark.parametrize("case", ["plays (lab default), K = 6", "bars 1000 x 100, K = 10"])
def test_bench_sweep_without_numba(case):
    X, K = _corpora()[case]
    tokens = int(X.sum())
    ours = _per_sweep(_ours(X, K, "numpy"), 3)
    ref = _per_sweep(_reference(X, K), 20)
    record("LDA, path without numba", f"one sweep, {case}, {tokens:,} tokens", ours, ref, _REF,
           note=f"{tokens / ours / 1e6:.3f} M tokens/s; {1 / ours:.0f} sweeps/s")
    print(f"\n{case}: ours {ours * 1e3:.1f} ms ({1 / ours:.1f} sweeps/s), lda {ref * 1e3:.2f} ms per sweep")
    if case.startswith("plays"):
        assert 1 / ours >= 5, f"the lab's default corpus sweeps {1 / ours:.1f} times a second"
