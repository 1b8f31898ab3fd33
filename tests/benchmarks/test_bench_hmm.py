"""Hidden Markov model inference versus hmmlearn's CategoricalHMM, timed in one process, one table.

Run: .venv/bin/python -m pytest -q -s -o addopts="" -m benchmark tests/benchmarks/test_bench_hmm.py

Rows (issue 29): 10^6 symbols, K = 4 states, M = 6 symbols, a sticky random model.
- forward-backward (``smooth`` against ``predict_proba``) and Viterbi (``viterbi`` against
  ``decode``), best of 3; target <= 1.5 x hmmlearn. hmmlearn runs its default
  implementation ("log") and, as a second reference, "scaling" (the faster of the two);
  the ratio is taken against the faster one.
- the numpy path alone (no numba: the frozen application) at four shapes (K = 2, 4, 8 states;
  T = 10^5 and 10^6), three runs each with both contenders in turn; the row is the worst run,
  target <= 2 x hmmlearn's faster implementation;
- one Baum-Welch iteration (E-step and M-step) against hmmlearn's ``fit`` with ``n_iter=1``;
- the compiled path's cost at the start of a process (compile into an empty cache, then load).

The machine may be shared: ratios of best-of-3 times are the figure to read; the numpy rows
also give CPU time (time.process_time: both contenders run on one thread), which a busy
machine disturbs less than wall time.
"""

import os
import subprocess
import sys
import time

import numpy as np
import pytest

import smlengine.hmm as hmm_module
from _bench_table import best_time, record
from smlengine import _hmm_compiled
from smlengine.hmm import CategoricalHMM

hmmlearn_hmm = pytest.importorskip("hmmlearn.hmm")

pytestmark = pytest.mark.benchmark

T, K, M = 1_000_000, 4, 6
_ROWS = []  # (case, ours, reference, ratio, detail)
_REF = "hmmlearn CategoricalHMM (faster of 'log' and 'scaling')"


def _print_table():
    print()
    print(f"{'case':40s} {'ours':>10s} {'hmmlearn':>10s} {'ratio':>6s}  detail")
    for case, ours, ref, ratio, detail in _ROWS:
        r = f"{ratio:6.2f}" if ratio is not None else "     -"
        print(f"{case:40s} {ours:>10s} {ref:>10s} {r}  {detail}")


def _best_time(fn, repeats=3):
    return best_time(fn, repeats)


@pytest.fixture(scope="module")
def problem():
    rng = np.random.default_rng(0)
    pi = rng.dirichlet(np.ones(K))
    A = 0.3 * rng.dirichlet(np.ones(K), size=K) + 0.7 * np.eye(K)
    B = rng.dirichlet(np.ones(M), size=K)
    model = CategoricalHMM(K, M, pi, A, B)
    x, _ = model.sample(T, random_state=1)
    refs = {}
    for impl in ("log", "scaling"):
        ref = hmmlearn_hmm.CategoricalHMM(
            n_components=K, n_features=M, init_params="", params="ste", implementation=impl
        )
        ref.startprob_, ref.transmat_, ref.emissionprob_ = pi, A, B
        refs[impl] = ref
    return model, x, refs


def _reference_times(refs, method, x):
    times = {impl: _best_time(lambda r=r: getattr(r, method)(x[:, None]))[0] for impl, r in refs.items()}
    return min(times.values()), times


@pytest.mark.parametrize("what", ["forward-backward", "viterbi"])
def test_bench_inference(problem, what, monkeypatch):
    model, x, refs = problem
    if _hmm_compiled.kernels() is None:
        pytest.skip(f"numba not available: {_hmm_compiled.COMPILED.error}")
    if what == "forward-backward":
        t_ref, times = _reference_times(refs, "predict_proba", x)
        model.smooth(x[:1000])
        t_us, ours = _best_time(lambda: model.smooth(x))
        err = float(np.abs(ours - refs["scaling"].predict_proba(x[:, None])).max())
    else:
        t_ref, times = _reference_times(refs, "decode", x)
        t_us, ours = _best_time(lambda: model.viterbi(x))
        ref_lp, ref_path = refs["log"].decode(x[:, None])
        err = abs(ours[0] - ref_lp)
    detail = f"hmmlearn log {times['log']:.3f} s, scaling {times['scaling']:.3f} s; max |diff| {err:.1e}"
    _ROWS.append((f"{what} T=1e6 K=4 M=6 compiled", f"{t_us:.3f} s", f"{t_ref:.3f} s", t_us / t_ref, detail))
    record("HMM, compiled path (numba)", f"{what}, T = 1e6, K = 4, M = 6", t_us, t_ref, _REF)
    _print_table()
    assert err < 1e-6


# The numpy path at every shape that matters (issue 50): few and more states, symbols, short and
# long sequences; each row is the worst of three runs in which both contenders run in turn.
NUMPY_SHAPES = [
    # (T, K, M, sticky)
    (1_000_000, 2, 6, 0.9),
    (1_000_000, 4, 6, 0.7),
    (1_000_000, 8, 16, 0.5),
    (100_000, 4, 6, 0.7),
]
NUMPY_TARGET = 2.0  # x hmmlearn's faster implementation, worst run


def _model(T_, K_, M_, sticky, seed=0):
    rng = np.random.default_rng(seed)
    pi = rng.dirichlet(np.ones(K_))
    A = (1 - sticky) * rng.dirichlet(np.ones(K_), size=K_) + sticky * np.eye(K_)
    B = rng.dirichlet(np.ones(M_), size=K_)
    model = CategoricalHMM(K_, M_, pi, A, B)
    x, _ = model.sample(T_, random_state=seed + 1)
    ref = hmmlearn_hmm.CategoricalHMM(n_components=K_, n_features=M_, init_params="", params="ste",
                                      implementation="scaling")
    ref.startprob_, ref.transmat_, ref.emissionprob_ = pi, A, B
    return model, x, ref


def _runs(ours, theirs, n=3):
    """[(ours s, reference s, ours CPU s, reference CPU s)] of n rounds, the two in turn."""
    out = []
    for _ in range(n):
        row = []
        for fn in (ours, theirs):
            t, c = time.perf_counter(), time.process_time()
            fn()
            row += [time.perf_counter() - t, time.process_time() - c]
        out.append((row[0], row[2], row[1], row[3]))
    return out


@pytest.mark.parametrize("what", ["forward-backward", "viterbi"])
@pytest.mark.parametrize("shape", NUMPY_SHAPES, ids=lambda s: f"T{s[0]}-K{s[1]}-M{s[2]}")
def test_bench_numpy_path(shape, what, monkeypatch):
    """The numpy path the frozen application ships (no numba) against hmmlearn's faster
    implementation ("scaling"), three runs in turn; the row is the worst run's ratio."""
    T_, K_, M_, sticky = shape
    model, x, ref = _model(*shape)
    monkeypatch.setattr(hmm_module, "_USE_COMPILED", False)
    if what == "forward-backward":
        ours, theirs = (lambda: model.smooth(x)), (lambda: ref.predict_proba(x[:, None]))
        err = float(np.abs(model.smooth(x) - ref.predict_proba(x[:, None])).max())
    else:
        ours, theirs = (lambda: model.viterbi(x)), (lambda: ref.decode(x[:, None]))
        err = abs(model.viterbi(x)[0] - ref.decode(x[:, None])[0]) / abs(ref.decode(x[:, None])[0])
    runs = _runs(ours, theirs)
    ratios = [o / r for o, r, _, _ in runs]
    worst = int(np.argmax(ratios))
    cpu = max(oc / rc for _, _, oc, rc in runs)
    load = os.getloadavg()[0]
    detail = (f"runs {', '.join(f'{r:.2f}' for r in ratios)}; worst CPU ratio {cpu:.2f}; "
              f"load {load:.1f}; max diff {err:.1e}")
    case = f"{what} T={T_:.0e} K={K_} M={M_} numpy"
    _ROWS.append((case, f"{runs[worst][0]:.3f} s", f"{runs[worst][1]:.3f} s", ratios[worst], detail))
    record("HMM, numpy path", f"{what}, T = {T_:,}, K = {K_}, M = {M_} (worst of 3 runs)", runs[worst][0],
           runs[worst][1], "hmmlearn CategoricalHMM(implementation='scaling')", note=detail)
    _print_table()
    assert err < 1e-8
    assert cpu <= NUMPY_TARGET  # CPU time: a machine shared with other jobs disturbs it less than wall time


def test_bench_baum_welch_iteration(problem):
    model, x, refs = problem
    if _hmm_compiled.kernels() is None:
        pytest.skip("numba not available")
    start = dict(startprob=model.startprob, transmat=model.transmat, emissionprob=model.emissionprob)

    def ours():
        return CategoricalHMM(K, M, **start, max_iter=1, tol=0.0).fit(x)

    def theirs(impl):
        ref = hmmlearn_hmm.CategoricalHMM(
            n_components=K, n_features=M, init_params="", params="ste", n_iter=1, implementation=impl
        )
        ref.startprob_, ref.transmat_, ref.emissionprob_ = (np.copy(v) for v in start.values())
        return ref.fit(x[:, None])

    t_us, fitted = _best_time(ours)
    times = {impl: _best_time(lambda i=impl: theirs(i))[0] for impl in ("log", "scaling")}
    t_ref = min(times.values())
    ref = theirs("scaling")
    err = float(np.abs(fitted.transmat_ - ref.transmat_).max())
    detail = (
        f"E+M step (ours also scores the new parameters); hmmlearn log {times['log']:.3f} s, "
        f"scaling {times['scaling']:.3f} s; max |A diff| {err:.1e}"
    )
    _ROWS.append(("Baum-Welch 1 iteration T=1e6", f"{t_us:.3f} s", f"{t_ref:.3f} s", t_us / t_ref, detail))
    record("HMM, compiled path (numba)", "Baum-Welch, one iteration, T = 1e6", t_us, t_ref, _REF)
    _print_table()
    assert err < 1e-8


_LOAD = """
import time
t = time.perf_counter()
from smlengine import _hmm_compiled
f = _hmm_compiled.kernels()
print(time.perf_counter() - t, f is not None)
"""


def test_bench_compiled_start(tmp_path):
    """The compiled path's cost once per process: numba's import and compiling (an empty cache)
    or loading the compiled loops from numba's on-disk cache (every later start)."""
    pytest.importorskip("numba")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    times = []
    for _ in range(3):
        out = subprocess.run([sys.executable, "-c", _LOAD], capture_output=True, text=True, env=env, check=True)
        t, ok = out.stdout.split()
        assert ok == "True", out.stderr
        times.append(float(t))
    detail = f"compile (empty cache) {times[0]:.2f} s; load from cache {min(times[1:]):.2f} s (numba import included)"
    _ROWS.append(("compiled HMM loops start, once per process", f"{min(times[1:]):.2f} s", "", None, detail))
    _print_table()
