"""Sampling speed: Gibbs sweeps of a Potts field, Metropolis–Hastings proposals, MCMC diagnostics vs ArviZ.

Run:  .venv/bin/python -m pytest -q -s -o addopts="" -m benchmark tests/benchmarks/test_bench_sampling.py
"""

import numpy as np
import pytest

from _bench_table import best_time, record
from smlengine import sampling
from smlengine.mrf import PottsGibbs
from smlengine.sampling import MetropolisHastings, effective_sample_size, get_target, rhat

pytestmark = pytest.mark.benchmark


def test_bench_potts_gibbs_512():
    rng = np.random.default_rng(0)
    clean = (rng.random((512, 512)) < 0.5).astype(float)
    noisy = clean + 0.6 * rng.standard_normal(clean.shape)
    n = 20
    print("\n== Gibbs sweeps of a 512 x 512 Potts field (checkerboard, snapshots included)")
    for k in (2, 3):
        means = np.linspace(0, 1, k)

        def run():
            for _ in PottsGibbs(k, beta=1.0, means=means, sigma=0.6, random_state=0).sweep_steps(noisy, n):
                pass

        seconds, _ = best_time(run, repeat=2)
        rate = n / seconds
        print(f"  K = {k}: {rate:7.1f} sweeps/s   ({rate / 20:.2f} x the 20 sweeps/s asked for)")
        record("PottsGibbs", f"sweeps of a 512 x 512 field, K = {k}", rate, unit="sweeps/s", note="asked for: 20/s")
        if k == 2:
            assert rate >= 20


@pytest.mark.parametrize("n_chains", [1, 4])
def test_bench_metropolis_hastings(n_chains, monkeypatch):
    target = get_target("gaussian")
    n = 400_000 // n_chains
    print(f"\n== Metropolis-Hastings, correlated Gaussian, {n_chains} chain(s) x {n:,} steps (sample)")
    rates = {}
    for path in ("compiled", "numpy"):
        monkeypatch.setattr(sampling, "USE_COMPILED", path == "compiled")
        steps = n if path == "compiled" else n // 10
        mh = MetropolisHastings(target, step_size=target.good_step, n_chains=n_chains, random_state=0)
        mh.sample(np.zeros(2), 100)  # compiles, or loads numba's cache
        seconds, _ = best_time(lambda: mh.sample(np.zeros(2), steps), repeat=2)
        rates[path] = n_chains * steps / seconds
        print(f"  {path:<9s} {rates[path]:12,.0f} proposals/s   ({rates[path] / 1e5:.2f} x the 100,000 asked for)")
        record(f"MetropolisHastings, {path} path", f"correlated Gaussian, {n_chains} chain(s)", rates[path],
               unit="proposals/s", note="asked for: 100,000/s")
    live = MetropolisHastings(target, step_size=target.good_step, n_chains=n_chains, random_state=0)
    seconds, _ = best_time(lambda: sum(1 for _ in live.sample_steps(np.zeros(2), 20_000)), repeat=1)
    print(f"  sample_steps (one snapshot per step) {n_chains * 20_000 / seconds:12,.0f} proposals/s")
    if sampling.compiled.rw_chain() is not None:
        assert rates["compiled"] >= 100_000


def test_bench_diagnostics_vs_arviz():
    az = pytest.importorskip("arviz")
    target = get_target("banana")
    chains = MetropolisHastings(target, step_size=1.0, n_chains=4, random_state=0).sample(np.zeros(2), 20_000)
    data = az.convert_to_dataset({"x": chains})
    ours_ess, ess = best_time(lambda: effective_sample_size(chains))
    ref_ess, ref = best_time(lambda: az.ess(data, method="bulk"))
    ours_rhat, r = best_time(lambda: rhat(chains))
    ref_rhat, rr = best_time(lambda: az.rhat(data, method="rank"))
    print("\n== diagnostics on 4 chains x 20,000 draws x 2 dims (banana)")
    print(f"  bulk ESS  ours {ours_ess * 1e3:7.1f} ms  ArviZ {ref_ess * 1e3:7.1f} ms  x{ours_ess / ref_ess:5.2f}   "
          f"values {np.round(ess, 1)} vs {np.round(np.asarray(ref['x']), 1)}")
    print(f"  rank R-hat ours {ours_rhat * 1e3:7.1f} ms  ArviZ {ref_rhat * 1e3:7.1f} ms  "
          f"x{ours_rhat / ref_rhat:5.2f}   "
          f"values {np.round(r, 4)} vs {np.round(np.asarray(rr['x']), 4)}")
    record("effective_sample_size (bulk)", "4 chains x 20,000 draws x 2", ours_ess, ref_ess,
           "ArviZ az.ess(method='bulk')")
    record("rhat (rank)", "4 chains x 20,000 draws x 2", ours_rhat, ref_rhat, "ArviZ az.rhat(method='rank')")
    np.testing.assert_allclose(ess, np.asarray(ref["x"]), rtol=0.01)
