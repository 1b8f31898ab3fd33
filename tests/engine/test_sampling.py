"""Monte Carlo sampling engine: rejection sampling, random-walk Metropolis–Hastings, diagnostics, targets."""

import math

import numpy as np
import pytest
from scipy import stats

from smlengine import sampling
from smlengine.sampling import (
    TARGETS,
    GaussianProposal,
    MetropolisHastings,
    autocorrelation,
    effective_sample_size,
    get_target,
    rejection_steps,
    rhat,
)

GAUSS = get_target("gaussian")


@pytest.fixture(params=["compiled", "numpy"])
def path(request, monkeypatch):
    """Run a test on the compiled loop (numba) and on the numpy path."""
    if request.param == "compiled":
        pytest.importorskip("numba")
    monkeypatch.setattr(sampling, "USE_COMPILED", request.param == "compiled")
    return request.param


def within_mc_error(draws, mean, cov, z=4.0):
    """Sample mean and covariance of chains (m, n, 2) within z Monte-Carlo standard errors of the truth.

    The standard error of the mean of a function f of the draws is sd(f) / sqrt(ESS(f)), with the
    bulk ESS of the chains of f (for the covariance, f = (x_i − μ_i)(x_j − μ_j))."""
    flat = draws.reshape(-1, 2)
    for i in range(2):
        se = flat[:, i].std() / math.sqrt(effective_sample_size(draws[:, :, i]))
        assert abs(flat[:, i].mean() - mean[i]) <= z * se, (i, flat[:, i].mean(), mean[i], se)
    for i, j in ((0, 0), (0, 1), (1, 1)):
        f = (draws[:, :, i] - mean[i]) * (draws[:, :, j] - mean[j])
        se = f.std() / math.sqrt(effective_sample_size(f))
        assert abs(f.mean() - cov[i, j]) <= z * se, (i, j, f.mean(), cov[i, j], se)


# --------------------------------------------------------------------------- Metropolis–Hastings
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_mh_mean_and_covariance_within_mc_error(seed, path):
    n = 6000 if path == "compiled" else 4000
    starts = np.array([[2.0, 2.0], [-2.0, -2.0], [2.0, -2.0], [-2.0, 2.0]])
    mh = MetropolisHastings(GAUSS, step_size=GAUSS.good_step, n_chains=4, random_state=seed)
    draws = mh.sample(starts, n)[:, n // 10:]  # burn-in
    assert draws.shape == (4, n - n // 10, 2)
    assert np.all(rhat(draws) < 1.05)
    within_mc_error(draws, GAUSS.mean, GAUSS.cov)


@pytest.mark.parametrize("name", ["banana", "donut"])
def test_mh_other_targets_mean_and_covariance(name):
    target = get_target(name)
    mh = MetropolisHastings(target, step_size=target.good_step, n_chains=4, random_state=3)
    start = target.mean + np.array([0.1, 0.1]) if name != "donut" else np.array([2.5, 0.0])
    draws = mh.sample(start, 20000)[:, 2000:]
    within_mc_error(draws, target.mean, target.cov)


@pytest.mark.parametrize("n_chains", [1, 2, 3])  # runs chain by chain (1, 2) or all chains a step at a time (3)
def test_sample_equals_sample_steps(path, n_chains):
    starts = np.array([[0.0, 0.0], [3.0, -1.0], [-2.0, 1.0]])[:n_chains]
    n = sampling.BLOCK + 50  # more than one block of random numbers
    mh = MetropolisHastings(TARGETS["two-modes"], step_size=0.7, n_chains=n_chains, random_state=5)
    chains = mh.sample(starts, n)
    rate = mh.acceptance_rate_.copy()
    snaps = list(mh.sample_steps(starts, n))
    assert [s.step for s in snaps] == list(range(n + 1))
    np.testing.assert_array_equal(snaps[0].state, starts)
    stepped = np.stack([s.state for s in snaps[1:]], axis=1)
    np.testing.assert_allclose(stepped, chains, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(snaps[-1].n_accepted / n, rate)
    np.testing.assert_allclose(mh.chains_, chains, atol=1e-12)
    # a rejected proposal leaves the state; an accepted one moves it there
    for prev, s in zip(snaps[:200], snaps[1:201]):
        np.testing.assert_array_equal(s.state[s.accepted], s.proposal[s.accepted])
        np.testing.assert_array_equal(s.state[~s.accepted], prev.state[~s.accepted])


def test_compiled_and_numpy_paths_agree(monkeypatch):
    pytest.importorskip("numba")
    for target in TARGETS.values():
        mh = MetropolisHastings(target, step_size=target.good_step, n_chains=2, random_state=11)
        compiled = mh.sample(target.mean + 0.2, 3000)
        monkeypatch.setattr(sampling, "USE_COMPILED", False)
        plain = mh.sample(target.mean + 0.2, 3000)
        monkeypatch.setattr(sampling, "USE_COMPILED", True)
        np.testing.assert_allclose(compiled, plain, atol=1e-9)


def test_same_seed_same_chain_and_plain_callable_target():
    def log_p(x):  # a user's own target: standard normal in 3-D
        return -0.5 * np.sum(x ** 2, axis=1)

    a = MetropolisHastings(log_p, step_size=0.8, n_chains=2, random_state=4).sample(np.zeros(3), 500)
    b = MetropolisHastings(log_p, step_size=0.8, n_chains=2, random_state=4).sample(np.zeros(3), 500)
    c = MetropolisHastings(log_p, step_size=0.8, n_chains=2, random_state=5).sample(np.zeros(3), 500)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)
    assert a.shape == (2, 500, 3)


def test_acceptance_goes_to_one_and_to_zero(path):
    rates = {}
    for s in (1e-3, 0.6, 1e3):
        mh = MetropolisHastings(GAUSS, step_size=s, n_chains=2, random_state=0)
        mh.sample(np.zeros(2), 4000)
        rates[s] = mh.acceptance_rate_.mean()
    assert rates[1e-3] > 0.99
    assert 0.2 < rates[0.6] < 0.8
    assert rates[1e3] < 0.01
    assert rates[1e-3] > rates[0.6] > rates[1e3]


def test_detailed_balance_on_a_small_discrete_target():
    """A target constant on the cells [k − ½, k + ½), k = 0…3, with weights w: the cell of the chain
    visits cell k with frequency w_k, and since the kernel is reversible the pair (x_t, x_{t+1}) at
    stationarity is exchangeable, so the flows between cells are equal: N(a → b) ≈ N(b → a)."""
    w = np.array([0.1, 0.2, 0.3, 0.4])

    def log_p(x):
        cell = np.floor(x[:, 0] + 0.5)
        inside = (cell >= 0) & (cell <= 3)
        out = np.full(x.shape[0], -np.inf)
        out[inside] = np.log(w[cell[inside].astype(int)])
        return out

    mh = MetropolisHastings(log_p, step_size=1.2, n_chains=4, random_state=0)
    chains = mh.sample(np.full((4, 1), 1.0), 50000)
    cells = np.floor(chains[..., 0] + 0.5).astype(int)
    freq = np.bincount(cells.ravel(), minlength=4) / cells.size
    np.testing.assert_allclose(freq, w, atol=0.01)
    flows = np.zeros((4, 4))
    np.add.at(flows, (cells[:, :-1].ravel(), cells[:, 1:].ravel()), 1)
    for a in range(4):
        for b in range(a + 1, 4):
            total = flows[a, b] + flows[b, a]
            assert total > (1000 if b == a + 1 else 100)
            assert abs(flows[a, b] - flows[b, a]) <= 5 * math.sqrt(total), (a, b, flows[a, b], flows[b, a])


def test_minus_infinity_is_rejected_never_entered():
    def half_plane(x):
        return np.where(x[:, 0] > 0, -0.5 * np.sum(x ** 2, axis=1), -np.inf)

    chains = MetropolisHastings(half_plane, step_size=1.0, random_state=0).sample([1.0, 0.0], 3000)
    assert np.all(chains[..., 0] > 0)


# --------------------------------------------------------------------------- rejection sampling
def gaussian_envelope():
    proposal = GaussianProposal(mean=[0.0, 0.0], scale=1.5)
    # p/q = s² / sqrt(det Σ) exp(−½ xᵀ(Σ⁻¹ − I/s²) x) ≤ s² / sqrt(det Σ) since s² ≥ the largest eigenvalue 1.9
    m = 1.5 ** 2 / math.sqrt(np.linalg.det(GAUSS.cov))
    return proposal, m


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_rejection_mean_covariance_and_rate(seed):
    proposal, m = gaussian_envelope()
    snaps = list(rejection_steps(GAUSS, proposal, m, seed, n_steps=40, batch_size=1000))
    pts = np.concatenate([s.points[s.accepted] for s in snaps[1:]])
    last = snaps[-1]
    assert last.n_proposed == 40000 and last.n_accepted == len(pts)
    # the acceptance rate is 1/M for a normalised target (binomial standard error)
    se = math.sqrt((1 / m) * (1 - 1 / m) / last.n_proposed)
    assert abs(last.acceptance_rate - 1 / m) <= 4 * se
    within_mc_error(pts[None], GAUSS.mean, GAUSS.cov)  # independent draws: ESS ≈ n
    # u falls under M q(x); accepted exactly where it is under p̃(x)
    s = snaps[5]
    env = m * np.exp(proposal.logpdf(s.points))
    assert np.all((s.heights >= 0) & (s.heights <= env))
    np.testing.assert_array_equal(s.accepted, s.heights <= np.exp(GAUSS(s.points)))


def test_rejection_one_dimensional_with_scipy_proposal():
    target = stats.gamma(3.0)
    proposal = stats.expon(scale=3.0)  # p/q = 1.5 x² exp(−2x/3) ≤ 1.5 · 9 e⁻² (at x = 3)
    xs = np.linspace(0.01, 30, 20000)
    m = 1.05 * np.max(target.pdf(xs) / proposal.pdf(xs))
    snaps = list(rejection_steps(lambda x: target.logpdf(x), proposal, m, 1, n_steps=50, batch_size=400))
    pts = np.concatenate([s.points[s.accepted] for s in snaps[1:]])
    assert pts.ndim == 1
    assert snaps[-1].acceptance_rate == pytest.approx(1 / m, abs=0.03)
    assert stats.kstest(pts, target.cdf).pvalue > 0.001
    # scipy's multivariate rvs with size 1 drops the batch axis: still one point of 2 coordinates
    mvn = stats.multivariate_normal(np.zeros(2), 2.25 * np.eye(2))
    one = list(rejection_steps(GAUSS, mvn, 6.0, 0, n_steps=3, batch_size=1))
    assert one[1].points.shape == (1, 2)


def test_rejection_refuses_an_envelope_below_the_target():
    proposal, m = gaussian_envelope()
    with pytest.raises(ValueError, match="M = .* is too small"):
        list(rejection_steps(GAUSS, proposal, m / 3, 0, n_steps=20, batch_size=100))


# --------------------------------------------------------------------------- diagnostics
def ar1(phi, n, m, seed):
    rng = np.random.default_rng(seed)
    x = np.zeros((m, n))
    e = rng.standard_normal((m, n))
    for t in range(1, n):
        x[:, t] = phi * x[:, t - 1] + e[:, t]
    return x


def test_autocorrelation_by_definition():
    x = ar1(0.8, 3000, 1, 0)[0]
    rho = autocorrelation(x, 20)
    c = x - x.mean()
    direct = np.array([np.dot(c[: len(c) - k], c[k:]) for k in range(21)]) / np.dot(c, c)
    np.testing.assert_allclose(rho, direct, atol=1e-12)
    np.testing.assert_allclose(rho[:6], 0.8 ** np.arange(6), atol=0.06)
    two = autocorrelation(np.column_stack([x, -x]), 5)
    assert two.shape == (6, 2)
    np.testing.assert_allclose(two[:, 0], two[:, 1])
    np.testing.assert_array_equal(autocorrelation(np.ones(10), 3), [1, 0, 0, 0])


def arviz_values(chains):
    az = pytest.importorskip("arviz")
    chains = np.asarray(chains)
    if chains.ndim == 2:
        chains = chains[:, :, None]
    data = az.convert_to_dataset({"x": chains})
    return np.asarray(az.ess(data, method="bulk")["x"]), np.asarray(az.rhat(data, method="rank")["x"])


def diagnostic_cases():
    rng = np.random.default_rng(0)
    cases = {
        "iid": rng.standard_normal((4, 1000)),
        "ar1-odd-length": ar1(0.9, 1501, 3, 1),
        "one-chain": ar1(0.5, 800, 1, 2),
        "heavy-tails-ties": np.round(rng.standard_cauchy((4, 600)), 1),
        "disagreeing-chains": ar1(0.7, 500, 4, 3) + np.array([0, 0, 0, 3.0])[:, None],
    }
    for name, target in TARGETS.items():
        mh = MetropolisHastings(target, step_size=target.good_step, n_chains=4, random_state=7)
        cases[f"mh-{name}"] = mh.sample(np.array([[-2.0, -2], [2, 2], [-2, 2], [2, -2]]), 2000)
    return cases


@pytest.mark.parametrize("case", list(diagnostic_cases()))
def test_ess_and_rhat_equal_arviz(case):
    chains = diagnostic_cases()[case]
    ref_ess, ref_rhat = arviz_values(chains)
    ess, r = effective_sample_size(chains), rhat(chains)
    np.testing.assert_allclose(np.atleast_1d(ess), ref_ess, rtol=0.01)
    if chains.shape[0] > 1:
        np.testing.assert_allclose(np.atleast_1d(r), ref_rhat, rtol=0.01)
    else:  # ArviZ gives no R̂ for one chain; ours is the split R̂ of its two halves
        assert np.isnan(ref_rhat).all() and 0.95 < r < 1.05
    if chains.ndim == 2:
        assert isinstance(ess, float) and isinstance(r, float)
    else:
        assert ess.shape == r.shape == (chains.shape[2],)


def test_rhat_falls_as_dispersed_chains_mix():
    starts = np.array([[-3.5, -3.5], [3.5, 3.5], [-3.5, 3.5], [3.5, -3.5]])
    chains = MetropolisHastings(GAUSS, step_size=0.3, n_chains=4, random_state=0).sample(starts, 6000)
    early, late = rhat(chains[:, :60]).max(), rhat(chains[:, 3000:]).max()
    assert early > 1.2 and late < 1.05
    # correlated draws have fewer effective samples than draws; iid about as many
    assert effective_sample_size(chains[:, 3000:]).max() < 0.5 * 4 * 3000
    iid = np.random.default_rng(1).standard_normal((4, 2000))
    assert 0.8 * 8000 < effective_sample_size(iid) < 1.2 * 8000


# --------------------------------------------------------------------------- targets
@pytest.mark.parametrize("name", list(TARGETS))
def test_targets_are_normalised_with_their_stated_moments(name):
    t = get_target(name)
    x0, x1, y0, y1 = t.bounds
    _, _, inside = t.grid(400)
    assert inside.sum() * (x1 - x0) * (y1 - y0) / 399 ** 2 > 0.98  # the plotting box holds nearly all the mass
    xs, ys, dens = t.grid(1000, (x0 - 4, x1 + 4, y0 - 3, y1 + 25))
    dx, dy = xs[1] - xs[0], ys[1] - ys[0]
    assert dens.sum() * dx * dy == pytest.approx(1.0, abs=2e-3)
    gx, gy = np.meshgrid(xs, ys, indexing="ij")
    w = dens * dx * dy
    mean = np.array([(gx * w).sum(), (gy * w).sum()])
    np.testing.assert_allclose(mean, t.mean, atol=5e-3)
    cxx = ((gx - mean[0]) ** 2 * w).sum()
    cxy = ((gx - mean[0]) * (gy - mean[1]) * w).sum()
    cyy = ((gy - mean[1]) ** 2 * w).sum()
    np.testing.assert_allclose([[cxx, cxy], [cxy, cyy]], t.cov, atol=0.02, rtol=0.01)
    mx, px, my, py = t.marginals(300)
    assert px.sum() * (mx[1] - mx[0]) == pytest.approx(inside.sum() * (x1 - x0) * (y1 - y0) / 399 ** 2, abs=3e-3)
    assert py.sum() * (my[1] - my[0]) == pytest.approx(px.sum() * (mx[1] - mx[0]), abs=1e-9)


def test_gaussian_target_matches_scipy():
    pts = np.random.default_rng(0).standard_normal((50, 2)) * 2
    np.testing.assert_allclose(GAUSS(pts), stats.multivariate_normal(GAUSS.mean, GAUSS.cov).logpdf(pts))


def test_unknown_target_name():
    with pytest.raises(ValueError, match="target must be one of"):
        get_target("pretzel")


# --------------------------------------------------------------------------- bad input and parameters
def test_bad_input_raises_clear_errors():
    with pytest.raises(ValueError, match="log_target returned nan"):
        MetropolisHastings(lambda x: np.full(len(x), np.nan)).sample([0.0, 0.0], 10)
    def nan_away(x):
        return np.where(np.abs(x[:, 0]) < 0.5, 0.0, np.nan)

    with pytest.raises(ValueError, match="log_target returned nan at the proposal"):
        MetropolisHastings(nan_away, step_size=3.0, random_state=0).sample([0.0], 200)
    with pytest.raises(ValueError, match="log_target returned nan"):
        list(MetropolisHastings(nan_away, step_size=3.0, random_state=0).sample_steps([0.0], 200))
    for s in (0, -1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="step_size"):
            MetropolisHastings(GAUSS, step_size=s).sample([0.0, 0.0], 10)
    with pytest.raises(TypeError, match="step_size"):
        MetropolisHastings(GAUSS, step_size="big").sample([0.0, 0.0], 10)
    with pytest.raises(ValueError, match="n_chains"):
        MetropolisHastings(GAUSS, n_chains=0).sample([0.0, 0.0], 10)
    with pytest.raises(ValueError, match="x0 must have shape"):
        MetropolisHastings(GAUSS, n_chains=3).sample(np.zeros((2, 2)), 10)
    with pytest.raises(ValueError, match="x0 contains NaN"):
        MetropolisHastings(GAUSS).sample([np.nan, 0.0], 10)
    with pytest.raises(ValueError, match="density 0"):
        MetropolisHastings(lambda x: np.full(len(x), -np.inf)).sample([0.0], 10)
    with pytest.raises(ValueError, match="n must be <="):
        MetropolisHastings(GAUSS).sample([0.0, 0.0], 10 ** 12)
    with pytest.raises(ValueError, match="too many"):
        MetropolisHastings(GAUSS, n_chains=10_000).sample([0.0, 0.0], 50_000_000)
    with pytest.raises(ValueError, match="one value per point"):
        MetropolisHastings(lambda x: np.zeros(7)).sample([0.0, 0.0], 10)
    with pytest.raises(TypeError, match="callable"):
        MetropolisHastings("gaussian").sample([0.0, 0.0], 10)
    with pytest.raises(ValueError, match="M must be a float > 0; got 0"):
        next(rejection_steps(GAUSS, GaussianProposal([0, 0]), 0.0))
    with pytest.raises(ValueError, match="log_target returned nan"):
        list(rejection_steps(lambda x: x * np.nan, GaussianProposal(0.0), 2.0, 0, n_steps=2))
    for bad in (np.ones((3, 5)), np.ones((2, 2, 10)) * np.nan, np.ones(10), np.ones((2, 3))):
        with pytest.raises(ValueError, match="chains"):
            effective_sample_size(bad if bad.shape != (3, 5) else bad[:, :3])
        with pytest.raises(ValueError, match="chains"):
            rhat(bad if bad.shape != (3, 5) else bad[:, :3])
    with pytest.raises(ValueError, match="max_lag"):
        autocorrelation(np.arange(10.0), 10)


def test_params_round_trip_and_clone():
    mh = MetropolisHastings(GAUSS, step_size=0.5, n_chains=3, random_state=2)
    params = mh.get_params(deep=True)
    assert params == {"log_target": GAUSS, "step_size": 0.5, "n_chains": 3, "random_state": 2}
    assert mh.set_params(step_size=2.0) is mh and mh.step_size == 2.0
    with pytest.raises(ValueError, match="unknown parameter"):
        mh.set_params(width=1.0)
    base = pytest.importorskip("sklearn.base")
    twin = base.clone(mh)
    assert twin is not mh and twin.get_params() == mh.get_params()
