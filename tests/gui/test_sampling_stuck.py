"""Chains that never moved have no effective sample size to show: the effective sample size of a
constant chain is its number of draws (as ArviZ computes it) and R̂ of distinct constant chains is
infinite, so the sampling lab says "the chains are stuck" instead of showing those numbers.
Qt-free: the lab's run and its texts."""

import numpy as np

from app.labs.sampling import maths, run


def _last(seed: int) -> run.SamplingMHSnapshot:
    # a step size of 50 on the Gaussian target: almost every proposal lands where p̃ is ~0;
    # 120 steps without burn-in: the diagnostics are computed at the last one
    snap = list(run.run_steps("mh", "gaussian", 50.0, 4, 0, 120, seed))[-1]
    assert snap.fresh and snap.trio_ess is not None
    return snap


def test_every_chain_constant_says_the_chains_are_stuck():
    snap = _last(34)
    assert not np.any(snap.rates)  # no chain accepted a move
    assert snap.stuck and snap.ess is None and snap.rhat is None
    text = maths.mh_html(snap)
    assert f"bulk ESS and split R̂: — ({maths.STUCK})" in text
    assert maths.diagnostics_note(snap) == "the chains are stuck"
    # the trio's largest step stayed where it started too: its ESS is not shown as its 120 draws
    assert snap.trio_rates[2] == 0 and list(snap.trio_stuck) == [False, False, True]
    assert maths.ess_text(snap.trio_ess[2], snap.trio_stuck[2]) == "— (stuck)"
    assert maths.ess_text(snap.trio_ess[1], snap.trio_stuck[1]) == f"{snap.trio_ess[1]:,.0f}"
    assert text.count("— (stuck)") == 1


def test_one_chain_that_moved_gives_the_diagnostics():
    snap = _last(28)
    assert np.count_nonzero(snap.rates) == 1
    assert not snap.stuck and snap.ess is not None and np.all(np.isfinite(snap.rhat))
    assert maths.STUCK not in maths.mh_html(snap) and maths.diagnostics_note(snap) == ""
