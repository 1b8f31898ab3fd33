"""Hidden Markov models: forward, forward-backward, Viterbi and Baum-Welch against hmmlearn,
brute-force enumeration, invariants and bad input."""

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from smlengine import _hmm_compiled
from smlengine import hmm as hmm_module
from smlengine._base import NotFittedError
from smlengine.datasets import dishonest_casino
from smlengine.hmm import BaumWelchSnapshot, CategoricalHMM


@pytest.fixture(params=["numpy", "compiled"])
def loops(request, monkeypatch):
    """Run a test on the numpy time loops and on the compiled ones (every length)."""
    if request.param == "compiled":
        if _hmm_compiled.kernels() is None:
            pytest.skip(f"numba not available: {_hmm_compiled.COMPILED.error}")
        monkeypatch.setattr(hmm_module, "_COMPILED_MIN_T", 1)
    else:
        monkeypatch.setattr(hmm_module, "_USE_COMPILED", False)
    return request.param


def random_model(seed, K=3, M=4, sticky=0.0):
    rng = np.random.default_rng(seed)
    pi = rng.dirichlet(np.ones(K))
    A = (1 - sticky) * rng.dirichlet(np.ones(K), size=K) + sticky * np.eye(K)
    B = rng.dirichlet(np.ones(M), size=K)
    return pi, A, B


def reference(pi, A, B, **kwargs):
    hmm = pytest.importorskip("hmmlearn.hmm")
    ref = hmm.CategoricalHMM(n_components=len(pi), n_features=B.shape[1], init_params="", params="ste", **kwargs)
    ref.startprob_, ref.transmat_, ref.emissionprob_ = pi.copy(), A.copy(), B.copy()
    return ref


def joint_log_prob(pi, A, B, x, z):
    """log P(x, z) summed directly from the definition."""
    return float(
        np.log(pi[z[0]]) + np.log(B[z, x]).sum() + np.log(A[z[:-1], z[1:]]).sum()
    )


# ----------------------------------------------------------------------------- reference


@pytest.mark.parametrize("seed,K,M,T", [(0, 2, 6, 300), (1, 3, 4, 500), (2, 4, 6, 400), (3, 5, 3, 250), (4, 1, 3, 50)])
def test_inference_equals_hmmlearn(loops, seed, K, M, T):
    pi, A, B = random_model(seed, K, M)
    model = CategoricalHMM(K, M, pi, A, B)
    x, _ = model.sample(T, random_state=seed + 100)
    ref = reference(pi, A, B)
    X = x[:, None]
    assert model.score(x) == pytest.approx(ref.score(X), abs=1e-10)
    np.testing.assert_allclose(model.smooth(x), ref.predict_proba(X), rtol=0, atol=1e-10)
    np.testing.assert_allclose(model.predict_proba(X), ref.predict_proba(X), rtol=0, atol=1e-10)
    log_prob, path = model.viterbi(x)
    ref_log_prob, ref_path = ref.decode(X, algorithm="viterbi")
    assert log_prob == pytest.approx(ref_log_prob, abs=1e-10)
    assert joint_log_prob(pi, A, B, x, path) == pytest.approx(log_prob, abs=1e-9)
    if not np.array_equal(path, ref_path):
        # only where the optimum is not unique: both paths reach the same maximum
        assert joint_log_prob(pi, A, B, x, ref_path) == pytest.approx(log_prob, abs=1e-9)
    assert np.array_equal(model.predict(x), path)


@pytest.mark.parametrize("seed", [5, 6, 7])
def test_viterbi_path_identical_to_hmmlearn_on_two_states(loops, seed):
    # two states with distinct rows: no two different paths reach the same maximum
    pi, A, B = random_model(seed, 2, 6)
    model = CategoricalHMM(2, 6, pi, A, B)
    x, _ = model.sample(400, random_state=seed)
    _, path = model.viterbi(x)
    _, ref_path = reference(pi, A, B).decode(x[:, None])
    assert np.array_equal(path, ref_path)


def test_hundred_thousand_steps_do_not_underflow(loops):
    pi, A, B = random_model(11, 4, 6, sticky=0.7)
    model = CategoricalHMM(4, 6, pi, A, B)
    x, _ = model.sample(100_000, random_state=3)
    ref = reference(pi, A, B)
    ll = model.score(x)
    assert np.isfinite(ll) and ll < -1e5  # far below the smallest float64 as a probability
    assert ll == pytest.approx(ref.score(x[:, None]), rel=1e-12)
    gamma = model.smooth(x)
    assert np.all(np.isfinite(gamma))
    np.testing.assert_allclose(gamma.sum(axis=1), 1.0, atol=1e-12)
    np.testing.assert_allclose(gamma, ref.predict_proba(x[:, None]), atol=1e-10)
    log_prob, path = model.viterbi(x)
    assert np.isfinite(log_prob)
    # a running sum over 10^5 steps carries rounding of about 1e-12 of its size (hmmlearn's and
    # the step loops' alike); the sum along the path in exact arithmetic is the arbiter
    assert log_prob == pytest.approx(ref.decode(x[:, None])[0], rel=1e-11)
    exact = math.fsum([np.log(pi[path[0]]), *np.log(A[path[:-1], path[1:]]), *np.log(B[path, x])])
    assert log_prob == pytest.approx(exact, abs=1e-6)
    assert np.all(np.isfinite(model.filter(x)))


def test_compiled_and_numpy_loops_agree(monkeypatch):
    if _hmm_compiled.kernels() is None:
        pytest.skip("numba not available")
    pi, A, B = random_model(12, 3, 5, sticky=0.5)
    model = CategoricalHMM(3, 5, pi, A, B)
    x, _ = model.sample(30_000, random_state=4)
    monkeypatch.setattr(hmm_module, "_COMPILED_MIN_T", 1)
    fast = model.score(x), model.smooth(x), model.viterbi(x), model.filter(x)
    monkeypatch.setattr(hmm_module, "_USE_COMPILED", False)
    slow = model.score(x), model.smooth(x), model.viterbi(x), model.filter(x)
    assert fast[0] == pytest.approx(slow[0], rel=1e-13)
    np.testing.assert_allclose(fast[1], slow[1], atol=1e-12)
    assert fast[2][0] == pytest.approx(slow[2][0], rel=1e-11)  # running sums of 30,000 terms
    assert np.array_equal(fast[2][1], slow[2][1])
    np.testing.assert_allclose(fast[3], slow[3], atol=1e-12)


@pytest.mark.parametrize(
    "K,M,T,sticky",
    [(1, 3, 5000, 0.0), (3, 5, 4099, 0.5), (4, 6, 20_000, 0.8), (2, 2, 8192, 0.95), (3, 4, 3000, 1.0)],
)
def test_block_loops_equal_the_step_loop(monkeypatch, K, M, T, sticky):
    """The numpy path's loops over blocks of the sequence (long sequences) against its loop over
    single steps, on lengths that are not a multiple of the block length too; with A = I (sticky
    1) no recursion forgets its start, so the boundaries come from the blocks' transfers."""
    monkeypatch.setattr(hmm_module, "_USE_COMPILED", False)
    pi, A, B = random_model(K + M + T, K, M, sticky=sticky)
    model = CategoricalHMM(K, M, pi, A, B)
    x, _ = model.sample(T, random_state=8)
    lengths = [T // 3, T - T // 3]

    def everything():
        fitted = CategoricalHMM(K, M, pi, A, B, max_iter=3, tol=0.0).fit(x, lengths)
        return model.score(x), model.smooth(x), model.filter(x), model.viterbi(x), fitted.transmat_

    blocks = everything()
    monkeypatch.setattr(hmm_module, "_BLOCK_MIN_T", 10**9)
    steps = everything()
    assert blocks[0] == pytest.approx(steps[0], rel=1e-13)
    np.testing.assert_allclose(blocks[1], steps[1], atol=1e-12)
    np.testing.assert_allclose(blocks[2], steps[2], atol=1e-12)
    assert blocks[3][0] == pytest.approx(steps[3][0], rel=1e-11)
    assert np.array_equal(blocks[3][1], steps[3][1])
    np.testing.assert_allclose(blocks[4], steps[4], atol=1e-12)


def test_block_loops_find_where_a_long_sequence_is_impossible(monkeypatch):
    monkeypatch.setattr(hmm_module, "_USE_COMPILED", False)
    B = np.array([[0.5, 0.5, 0.0], [0.4, 0.4, 0.2]])
    A = np.array([[1.0, 0.0], [0.0, 1.0]])  # state 0 forever: symbol 2 is impossible
    model = CategoricalHMM(2, 3, [1.0, 0.0], A, B)
    x = np.random.default_rng(0).integers(0, 2, 9000)
    x[4321] = 2
    assert model.score(x) == -np.inf
    for method in (model.smooth, model.filter, model.viterbi):
        with pytest.raises(ValueError, match="position 4321"):
            method(x)


def test_read_only_inputs(loops):
    """Snapshots hold read-only arrays; every path (the compiled one too) accepts them."""
    pi, A, B = random_model(13, 3, 4)
    for a in (pi, A, B):
        a.setflags(write=False)
    model = CategoricalHMM(3, 4, pi, A, B)
    x, _ = model.sample(3000, random_state=1)
    x.setflags(write=False)
    writable = x.copy()
    assert model.score(x) == model.score(writable)
    np.testing.assert_array_equal(model.smooth(x), model.smooth(writable))
    np.testing.assert_array_equal(model.viterbi(x)[1], model.viterbi(writable)[1])
    np.testing.assert_array_equal(model.filter(x), model.filter(writable))
    fitted = CategoricalHMM(3, 4, pi, A, B, max_iter=2).fit(x)
    assert np.isfinite(fitted.log_likelihood_)


# ----------------------------------------------------------------------------- brute force


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_forward_backward_and_viterbi_equal_enumeration(loops, seed):
    K, M, T = 2, 3, 8
    pi, A, B = random_model(seed + 20, K, M)
    model = CategoricalHMM(K, M, pi, A, B)
    x = np.random.default_rng(seed).integers(0, M, T)
    paths = np.array(list(itertools.product(range(K), repeat=T)))
    joint = np.array([np.exp(joint_log_prob(pi, A, B, x, z)) for z in paths])
    assert model.score(x) == pytest.approx(np.log(joint.sum()), abs=1e-12)
    marginals = np.array([[joint[paths[:, t] == k].sum() for k in range(K)] for t in range(T)]) / joint.sum()
    np.testing.assert_allclose(model.smooth(x), marginals, atol=1e-12)
    log_prob, path = model.viterbi(x)
    assert np.array_equal(path, paths[joint.argmax()])
    assert log_prob == pytest.approx(np.log(joint.max()), abs=1e-12)
    # filtering: P(z_t | x_1..x_t) from the enumeration of the first t steps
    filt = model.filter(x)
    for t in range(1, T + 1):
        sub = np.array(list(itertools.product(range(K), repeat=t)))
        p = np.array([np.exp(joint_log_prob(pi, A, B, x[:t], z)) for z in sub])
        want = np.array([p[sub[:, -1] == k].sum() for k in range(K)]) / p.sum()
        np.testing.assert_allclose(filt[t - 1], want, atol=1e-12)


def test_filter_steps_equal_filter_and_score():
    pi, A, B = random_model(3, 3, 4)
    model = CategoricalHMM(3, 4, pi, A, B)
    x, _ = model.sample(120, random_state=2)
    snaps = list(model.filter_steps(x))
    assert [s.step for s in snaps] == list(range(121))
    np.testing.assert_allclose(snaps[0].alpha, pi)
    np.testing.assert_allclose(np.array([s.alpha for s in snaps[1:]]), model.filter(x), atol=1e-13)
    assert snaps[-1].log_likelihood == pytest.approx(model.score(x), abs=1e-10)
    assert [s.symbol for s in snaps[1:]] == x.tolist()
    np.testing.assert_allclose(snaps[-1].alpha, model.smooth(x)[-1], atol=1e-12)  # gamma_T = alpha_T
    # scaling constants: c_t = P(x_t | x_1..x_{t-1})
    assert np.log([s.scale for s in snaps[1:]]).sum() == pytest.approx(model.score(x), abs=1e-10)


def test_viterbi_steps_fill_the_trellis_column_by_column():
    pi, A, B = random_model(4, 3, 4)
    model = CategoricalHMM(3, 4, pi, A, B)
    x, _ = model.sample(60, random_state=5)
    snaps = list(model.viterbi_steps(x))
    assert len(snaps) == 61 and [s.t for s in snaps] == list(range(61))
    log_prob, path = model.viterbi(x)
    assert snaps[-1].log_prob == pytest.approx(log_prob, abs=1e-10)
    assert np.array_equal(snaps[-1].path, path)
    np.testing.assert_allclose(snaps[0].log_delta, np.log(pi) + np.log(B[:, x[0]]))
    assert np.all(snaps[0].backpointer == -1)
    # the recursion, column by column
    for prev, cur in zip(snaps[:-2], snaps[1:-1]):
        s = prev.log_delta[:, None] + np.log(A)
        np.testing.assert_allclose(cur.log_delta, s.max(axis=0) + np.log(B[:, x[cur.t]]), atol=1e-12)
        assert np.array_equal(cur.backpointer, s.argmax(axis=0))
    # the path follows the back-pointers
    for t in range(1, 60):
        assert path[t - 1] == snaps[t].backpointer[path[t]]
    assert all(not s.log_delta.flags.writeable for s in snaps)


# ----------------------------------------------------------------------------- Baum-Welch


def bw_start(seed, K, M):
    rng = np.random.default_rng(seed)
    return np.full(K, 1.0 / K), rng.dirichlet(np.ones(K) * 3, size=K), rng.dirichlet(np.ones(M) * 3, size=K)


@pytest.mark.parametrize("seed,K,M,lengths", [(0, 2, 6, None), (1, 3, 4, [100, 250, 50]), (2, 4, 5, [1, 199, 200])])
def test_baum_welch_equals_hmmlearn_after_ten_iterations(loops, seed, K, M, lengths):
    truth = CategoricalHMM(K, M, *random_model(seed + 30, K, M, sticky=0.5))
    x, _ = truth.sample(400, random_state=seed)
    pi0, A0, B0 = bw_start(seed, K, M)
    model = CategoricalHMM(K, M, pi0, A0, B0, max_iter=10, tol=0.0).fit(x, lengths)
    ref = reference(pi0, A0, B0, n_iter=10, tol=-np.inf).fit(x[:, None], lengths)
    assert model.n_iter_ == 10
    np.testing.assert_allclose(model.startprob_, ref.startprob_, atol=1e-6)
    np.testing.assert_allclose(model.transmat_, ref.transmat_, atol=1e-6)
    np.testing.assert_allclose(model.emissionprob_, ref.emissionprob_, atol=1e-6)
    # hmmlearn's history: the log-likelihood of the parameters before each of its M-steps
    np.testing.assert_allclose(model.history_[:10], ref.monitor_.history, rtol=1e-10)
    assert model.log_likelihood_ == pytest.approx(ref.score(x[:, None], lengths), abs=1e-8)


@pytest.mark.parametrize("seed", range(4))
def test_baum_welch_log_likelihood_never_decreases(seed):
    truth = CategoricalHMM(3, 4, *random_model(seed + 40, 3, 4, sticky=0.6))
    x, _ = truth.sample(600, random_state=seed)
    model = CategoricalHMM(3, 4, max_iter=60, tol=0.0, random_state=seed)
    snaps = list(model.fit_steps(x, lengths=[200, 400]))
    ll = np.array([s.log_likelihood for s in snaps])
    assert np.all(np.diff(ll) >= -1e-9)
    assert ll[-1] > ll[0] + 1.0
    assert [s.step for s in snaps] == list(range(len(snaps)))
    assert snaps[-1].converged and not any(s.converged for s in snaps[:-1])
    # the last snapshot is the fitted state
    last = snaps[-1]
    assert isinstance(last, BaumWelchSnapshot)
    np.testing.assert_array_equal(last.transmat, model.transmat_)
    np.testing.assert_array_equal(last.emissionprob, model.emissionprob_)
    np.testing.assert_array_equal(last.startprob, model.startprob_)
    assert last.log_likelihood == model.log_likelihood_ == pytest.approx(model.score(x, [200, 400]), abs=1e-9)
    for s in snaps:
        np.testing.assert_allclose(s.transmat.sum(axis=1), 1.0, atol=1e-12)
        np.testing.assert_allclose(s.emissionprob.sum(axis=1), 1.0, atol=1e-12)


def test_fit_equals_its_generator_and_stops_at_tol():
    x, _ = dishonest_casino().sample(500, random_state=1)
    a = CategoricalHMM(2, 6, tol=1e-3, max_iter=500, random_state=3)
    snaps = list(a.fit_steps(x))
    b = CategoricalHMM(2, 6, tol=1e-3, max_iter=500, random_state=3).fit(x)
    np.testing.assert_array_equal(a.transmat_, b.transmat_)
    assert len(snaps) < 501
    assert snaps[-1].log_likelihood - snaps[-2].log_likelihood < 1e-3
    assert snaps[-2].log_likelihood - snaps[-3].log_likelihood >= 1e-3


def test_baum_welch_recovers_a_known_model_up_to_permutation():
    pi = np.array([0.6, 0.3, 0.1])
    A = np.array([[0.9, 0.05, 0.05], [0.1, 0.85, 0.05], [0.05, 0.1, 0.85]])
    B = np.array([[0.7, 0.1, 0.1, 0.1], [0.1, 0.7, 0.1, 0.1], [0.05, 0.05, 0.2, 0.7]])
    truth = CategoricalHMM(3, 4, pi, A, B)
    x, _ = truth.sample(30_000, random_state=7)
    model = CategoricalHMM(3, 4, tol=1e-6, max_iter=400, random_state=2).fit(x)
    best = min(
        itertools.permutations(range(3)),
        key=lambda p: np.abs(model.emissionprob_[list(p)] - B).sum(),
    )
    p = list(best)
    np.testing.assert_allclose(model.emissionprob_[p], B, atol=0.03)
    np.testing.assert_allclose(model.transmat_[np.ix_(p, p)], A, atol=0.03)


def test_casino_fit_recovers_the_loaded_die():
    x, _ = dishonest_casino().sample(20_000, random_state=0)
    model = CategoricalHMM(2, 6, random_state=1, max_iter=500).fit(x)
    loaded = int(model.emissionprob_[:, 5].argmax())
    assert model.emissionprob_[loaded, 5] == pytest.approx(0.5, abs=0.05)
    np.testing.assert_allclose(model.emissionprob_[1 - loaded], np.full(6, 1 / 6), atol=0.03)


# ----------------------------------------------------------------------------- sampling, data set, API


def test_sample_follows_the_model():
    model = dishonest_casino()
    x, z = model.sample(60_000, random_state=0)
    x2, z2 = model.sample(60_000, random_state=0)
    assert np.array_equal(x, x2) and np.array_equal(z, z2)
    assert x.min() >= 0 and x.max() <= 5 and set(np.unique(z)) == {0, 1}
    counts = np.zeros((2, 2))
    np.add.at(counts, (z[:-1], z[1:]), 1)
    np.testing.assert_allclose(counts / counts.sum(axis=1, keepdims=True), model.transmat, atol=0.01)
    six_loaded = np.mean(x[z == 1] == 5)
    assert six_loaded == pytest.approx(0.5, abs=0.02)
    assert np.mean(x[z == 0] == 5) == pytest.approx(1 / 6, abs=0.01)


def test_dishonest_casino_has_the_course_numbers():
    model = dishonest_casino()
    assert (model.n_states, model.n_symbols) == (2, 6)
    np.testing.assert_allclose(model.transmat, [[0.95, 0.05], [0.1, 0.9]])
    np.testing.assert_allclose(model.emissionprob[0], np.full(6, 1 / 6))
    np.testing.assert_allclose(model.emissionprob[1], [0.1] * 5 + [0.5])
    np.testing.assert_allclose(model.startprob, [0.5, 0.5])


def test_filtering_on_the_casino_finds_the_loaded_die():
    model = dishonest_casino()
    x, z = model.sample(3000, random_state=4)
    smooth_err = np.mean(model.smooth(x).argmax(axis=1) != z)
    filt_err = np.mean(model.filter(x).argmax(axis=1) != z)
    vit_err = np.mean(model.viterbi(x)[1] != z)
    assert smooth_err < 0.25 and vit_err < 0.25
    assert smooth_err <= filt_err + 0.01  # looking ahead helps


def test_clone_and_params():
    sklearn_base = pytest.importorskip("sklearn.base")
    A = np.array([[0.9, 0.1], [0.2, 0.8]])
    model = CategoricalHMM(2, 3, transmat=A, tol=1e-4, max_iter=7, random_state=5)
    params = model.get_params(deep=True)
    assert params["transmat"] is A and params["max_iter"] == 7
    copy = sklearn_base.clone(model)
    assert copy is not model
    np.testing.assert_array_equal(copy.transmat, A)
    assert copy.get_params()["random_state"] == 5
    copy.set_params(max_iter=3)
    assert copy.max_iter == 3 and model.max_iter == 7
    x, _ = dishonest_casino().sample(200, random_state=0)
    fitted = model.fit(np.minimum(x, 2))
    assert not hasattr(sklearn_base.clone(fitted), "transmat_")
    with pytest.raises(ValueError, match="unknown parameter"):
        model.set_params(n_components=3)


def test_impossible_sequence():
    B = np.array([[0.5, 0.5, 0.0], [0.5, 0.5, 0.0]])
    model = CategoricalHMM(2, 3, [0.5, 0.5], [[0.5, 0.5], [0.5, 0.5]], B)
    x = np.array([0, 1, 2, 0])
    assert model.score(x) == -np.inf
    for method in (model.smooth, model.filter, model.viterbi):
        with pytest.raises(ValueError, match="position 2"):
            method(x)


# ----------------------------------------------------------------------------- bad input


GOOD = dict(startprob=[0.5, 0.5], transmat=[[0.9, 0.1], [0.2, 0.8]], emissionprob=[[0.5, 0.5, 0.0], [0.2, 0.3, 0.5]])


@pytest.mark.parametrize(
    "change,exc,message",
    [
        (dict(transmat=[[0.9, 0.2], [0.2, 0.8]]), ValueError, "transmat rows must each sum to 1; row 0 sums to 1.1"),
        (dict(emissionprob=[[0.5, 0.5, 0.0], [0.2, 0.3, 0.4]]), ValueError, "emissionprob rows .* row 1 sums to 0.9"),
        (dict(startprob=[0.7, 0.7]), ValueError, "startprob must sum to 1"),
        (dict(transmat=[[np.nan, 0.1], [0.2, 0.8]]), ValueError, "transmat contains NaN"),
        (dict(transmat=[[1.2, -0.2], [0.2, 0.8]]), ValueError, "transmat entries must be probabilities"),
        (dict(transmat=[[1.0]]), ValueError, r"transmat must have shape \(2, 2\)"),
        (dict(emissionprob="abc"), TypeError, "emissionprob must be an array"),
    ],
)
def test_bad_matrices(change, exc, message):
    model = CategoricalHMM(2, 3, **{**GOOD, **change})
    with pytest.raises(exc, match=message):
        model.score([0, 1])
    with pytest.raises(exc, match=message):
        model.fit([0, 1, 2])


@pytest.mark.parametrize(
    "x,exc,message",
    [
        ([0, 3, 1], ValueError, r"outside 0\.\.2 .*got 3"),
        ([0, -1], ValueError, r"outside 0\.\.2 .*got -1"),
        ([], ValueError, "empty"),
        ([0.0, np.nan], ValueError, "NaN"),
        ([0, 1.5], ValueError, "integer symbols 0..2, got 1.5"),
        ([[0, 1], [1, 0]], ValueError, "1-D"),
        ("012", TypeError, "string"),
        ([True, False], TypeError, "integer symbols"),
    ],
)
def test_bad_symbols(x, exc, message):
    model = CategoricalHMM(2, 3, **GOOD)
    for method in (model.score, model.smooth, model.filter, model.viterbi, model.fit):
        with pytest.raises(exc, match=message):
            method(x)
    with pytest.raises(exc, match=message):
        list(model.filter_steps(x))
    with pytest.raises(exc, match=message):
        list(model.viterbi_steps(x))


def test_bad_hyper_parameters_and_lengths():
    x = [0, 1, 2, 1]
    with pytest.raises(ValueError, match=r"n_states must be an int in \[1, 1000\]; got 0"):
        CategoricalHMM(0, 3).fit(x)
    with pytest.raises(TypeError, match=r"n_symbols must be an int in \[1, 10000\]; got 2.5"):
        CategoricalHMM(2, 2.5).fit(x)
    with pytest.raises(ValueError, match="tol must be a float >= 0; got -1"):
        CategoricalHMM(2, 3, tol=-1).fit(x)
    with pytest.raises(ValueError, match=r"max_iter must be an int in \[1, 1e6\]; got 0"):
        CategoricalHMM(2, 3, max_iter=0).fit(x)
    with pytest.raises(ValueError, match="lengths must add up to the number of symbols"):
        CategoricalHMM(2, 3).fit(x, lengths=[2, 3])
    with pytest.raises(ValueError, match="lengths must all be >= 1"):
        CategoricalHMM(2, 3).fit(x, lengths=[4, 0])
    with pytest.raises(ValueError, match=r"n must be an int in \[1, 1e7\]; got 0"):
        CategoricalHMM(2, 3, **GOOD).sample(0)
    with pytest.raises(NotFittedError, match="no startprob, transmat"):
        CategoricalHMM(2, 3, emissionprob=GOOD["emissionprob"]).score(x)
    # a failed fit leaves a fitted model as it was
    model = CategoricalHMM(2, 3, random_state=0).fit(x)
    before = model.transmat_.copy()
    with pytest.raises(ValueError):
        model.fit([0, 5])
    np.testing.assert_array_equal(model.transmat_, before)


def test_rows_close_to_one_are_accepted_and_renormalised():
    model = CategoricalHMM(2, 2, [0.5, 0.5 + 1e-9], [[0.9, 0.1 + 1e-9], [0.5, 0.5]], [[0.5, 0.5], [0.1, 0.9]])
    assert np.isfinite(model.score([0, 1, 1]))


@settings(max_examples=80, deadline=None)
@given(
    x=st.one_of(
        hnp.arrays(dtype=st.sampled_from([np.int64, np.int8, np.uint16, np.float64, np.bool_]),
                   shape=hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=12)),
        st.lists(st.one_of(st.integers(-3, 5), st.floats(allow_nan=True, allow_infinity=True),
                           st.text(max_size=2), st.none()), max_size=12),
    )
)
def test_any_symbol_input_gives_a_log_likelihood_or_a_short_clear_error(x):
    model = CategoricalHMM(2, 3, **GOOD)
    try:
        ll = model.score(x)
    except (ValueError, TypeError) as exc:
        assert 0 < len(str(exc)) < 300
    else:
        assert ll == -np.inf or (np.isfinite(ll) and ll <= 0)
