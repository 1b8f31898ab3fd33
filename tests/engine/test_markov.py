"""PageRank engine: power method, chain structure, random surfer, layout."""

import numpy as np
import pytest
import scipy.sparse as sp

from smlengine import markov
from smlengine.datasets import karate_club, load_graph, scale_free_digraph, textbook_chain

nx = pytest.importorskip("networkx")


def random_digraph(n, p, seed, dangling=0.2):
    rng = np.random.default_rng(seed)
    a = (rng.random((n, n)) < p).astype(float)
    np.fill_diagonal(a, 0.0)
    a[rng.random(n) < dangling] = 0.0  # pages without out-links
    return sp.csr_matrix(a)


def nx_pagerank(a, teleport):
    g = nx.from_scipy_sparse_array(a, create_using=nx.DiGraph)
    ref = nx.pagerank(g, alpha=1 - teleport, tol=1e-15, max_iter=100_000)
    return np.array([ref[i] for i in range(a.shape[0])])


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("teleport", [0.15, 0.5])
def test_matches_networkx_on_random_digraphs_with_dangling(seed, teleport):
    a = random_digraph(40, 0.08, seed)
    assert (np.asarray(a.sum(axis=1)).ravel() == 0).any()
    pr = markov.pagerank(a, teleport=teleport, tol=1e-13)
    assert np.abs(pr - nx_pagerank(a, teleport)).sum() <= 1e-8
    assert pr.sum() == pytest.approx(1.0, abs=1e-12)


def test_matches_networkx_on_python_docs():
    a, names = load_graph("python-docs")
    pr = markov.pagerank(a, teleport=0.15, tol=1e-13)
    assert np.abs(pr - nx_pagerank(a, 0.15)).sum() <= 1e-8
    assert pr.sum() == pytest.approx(1.0, abs=1e-12)
    top = names[int(np.argmax(pr))]
    assert top.endswith(".html")


def test_matches_eigen_solver_and_operator():
    a = random_digraph(30, 0.1, 7)
    p = markov.transition_matrix(a, teleport=0.2)
    dense = p.toarray()
    np.testing.assert_allclose(dense.sum(axis=1), 1.0)
    x = np.random.default_rng(0).random(30)
    np.testing.assert_allclose(p @ x, dense @ x)
    np.testing.assert_allclose(p.T @ x, dense.T @ x)
    np.testing.assert_allclose(p.step(x), x @ dense)
    pi = markov.stationary_distribution(dense)
    np.testing.assert_allclose(markov.pagerank(a, teleport=0.2, tol=1e-14), pi, atol=1e-12)
    np.testing.assert_allclose(markov.stationary_distribution(p), pi, atol=1e-12)


def test_transition_matrix_without_teleport_is_sparse_with_uniform_dangling_rows():
    a = sp.csr_matrix(np.array([[0, 1, 1], [0, 0, 0], [1, 0, 0]], float))
    p = markov.transition_matrix(a).tocsr()
    np.testing.assert_allclose(p.toarray(), [[0, 0.5, 0.5], [1 / 3, 1 / 3, 1 / 3], [1, 0, 0]])
    with pytest.raises(ValueError, match="dense"):
        markov.transition_matrix(a, teleport=0.1).tocsr()


def test_snapshots_sum_to_one_and_error_bound():
    a = random_digraph(60, 0.05, 3)
    alpha = 0.15
    pi = markov.pagerank(a, teleport=alpha, tol=1e-15, max_iter=10_000)
    start = np.zeros(60)
    start[0] = 1.0
    snaps = list(markov.pagerank_steps(a, teleport=alpha, tol=1e-12, start=start))
    assert snaps[0].step == 0 and snaps[0].change is None  # no previous iterate
    assert snaps[-1].converged and not snaps[-2].converged
    first_change = snaps[1].change
    for s in snaps:
        assert s.distribution.sum() == pytest.approx(1.0, abs=1e-12)
        assert s.bound == pytest.approx((1 - alpha) ** s.step)
        assert np.abs(s.distribution - pi).sum() <= 2 * s.bound + 1e-12
        if s.step >= 1:
            assert s.change <= first_change * (1 - alpha) ** (s.step - 1) + 1e-14
        assert not s.distribution.flags.writeable
    np.testing.assert_array_equal(snaps[-1].distribution, markov.pagerank(a, alpha, tol=1e-12, start=start))


def test_pagerank_handles_all_dangling_and_teleport_one():
    a = sp.csr_matrix((4, 4))
    np.testing.assert_allclose(markov.pagerank(a), 0.25)
    b = random_digraph(10, 0.3, 1)
    np.testing.assert_allclose(markov.pagerank(b, teleport=1.0), 0.1)


def test_karate_club_equilibrium_is_proportional_to_degree():
    a, _ = karate_club()
    assert markov.is_irreducible(a) and markov.is_aperiodic(a)  # connected, has triangles
    deg = np.asarray(a.sum(axis=1)).ravel()
    pi = markov.pagerank(a, teleport=0.0, tol=1e-14, max_iter=100_000)
    np.testing.assert_allclose(pi, deg / deg.sum(), atol=1e-12)
    np.testing.assert_allclose(markov.stationary_distribution(markov.transition_matrix(a).toarray()), deg / deg.sum(),
                               atol=1e-12)


def test_textbook_chains_behave_as_the_course_says():
    p, _ = textbook_chain("two-state")
    assert markov.is_irreducible(p) and markov.is_aperiodic(p)
    last = list(markov.chain_steps(p, [1.0, 0.0], n_steps=200))[-1]
    np.testing.assert_allclose(last.distribution, [0.25, 0.75], atol=1e-12)

    p, _ = textbook_chain("reducible")
    assert not markov.is_irreducible(p) and markov.is_aperiodic(p)
    a_lim = list(markov.chain_steps(p, [1, 0, 0, 0], n_steps=300))[-1].distribution
    c_lim = list(markov.chain_steps(p, [0, 0, 1, 0], n_steps=300))[-1].distribution
    np.testing.assert_allclose(a_lim, [2 / 7, 5 / 7, 0, 0], atol=1e-12)
    np.testing.assert_allclose(c_lim, [0, 0, 0.8, 0.2], atol=1e-12)
    for eq in (a_lim, c_lim):  # both are equilibria
        np.testing.assert_allclose(eq @ p, eq, atol=1e-12)

    p, _ = textbook_chain("periodic")
    assert markov.is_irreducible(p) and not markov.is_aperiodic(p)
    snaps = list(markov.chain_steps(p, [1.0, 0.0], n_steps=51))
    assert all(s.change == pytest.approx(2.0) for s in snaps[1:])  # oscillates forever
    np.testing.assert_allclose(snaps[-1].distribution, [0.0, 1.0])
    np.testing.assert_allclose(markov.stationary_distribution(p), [0.5, 0.5])
    assert not list(markov.pagerank_steps(p, teleport=0.0, max_iter=50, start=[1, 0]))[-1].converged
    assert list(markov.pagerank_steps(p, teleport=0.15, start=[1, 0]))[-1].converged

    p, _ = textbook_chain("periodic-self-loops")
    assert markov.is_irreducible(p) and markov.is_aperiodic(p)
    np.testing.assert_allclose(list(markov.chain_steps(p, [1, 0], n_steps=400))[-1].distribution, [0.5, 0.5])


def test_structure_checks_against_networkx():
    for seed in range(6):
        a = random_digraph(25, 0.08, seed, dangling=0.0)
        g = nx.from_scipy_sparse_array(a, create_using=nx.DiGraph)
        assert markov.is_irreducible(a) == nx.is_strongly_connected(g)
        if nx.is_strongly_connected(g):
            assert markov.is_aperiodic(a) == nx.is_aperiodic(g)
    cycle = sp.csr_matrix(np.roll(np.eye(6), 1, axis=1))  # 6-cycle: period 6
    assert markov.is_irreducible(cycle) and not markov.is_aperiodic(cycle)
    bip = cycle + sp.csr_matrix(np.roll(np.eye(6), 3, axis=1))  # cycles 6 and 2 → period 2
    assert not markov.is_aperiodic(bip)
    tri = cycle + sp.csr_matrix(np.roll(np.eye(6), 2, axis=1))  # cycles 6 and 3 → period 1
    assert markov.is_aperiodic(tri)
    assert markov.is_irreducible(markov.transition_matrix(cycle, teleport=0.1))
    assert markov.is_aperiodic(markov.transition_matrix(cycle, teleport=0.1))
    # A dangling page jumps everywhere: with a link into it, the chain is irreducible.
    chain = sp.csr_matrix(np.array([[0, 1, 0], [0, 0, 1], [0, 0, 0]], float))
    assert not markov.is_irreducible(chain)
    assert markov.is_irreducible(markov.transition_matrix(chain))
    assert markov.is_aperiodic(markov.transition_matrix(chain))


def test_random_surfer_converges_seeded():
    a = random_digraph(20, 0.15, 11)
    runs = [list(markov.random_surfer_steps(a, n_walkers=1000, n_steps=1000, random_state=0,
                                            yield_every=100)) for _ in range(2)]
    last = runs[0][-1]
    np.testing.assert_array_equal(last.frequencies, runs[1][-1].frequencies)
    assert last.step == 1000 and last.n_visits == 1_000_000
    assert last.frequencies.sum() == pytest.approx(1.0)
    assert last.l1_error < 0.02
    assert runs[0][1].l1_error > last.l1_error
    # Walkers that followed a link moved along an existing link.
    followed = ~last.teleported
    assert np.all(a[last.previous[followed], last.positions[followed]] > 0)


def test_random_surfer_follows_weights():
    a = sp.csr_matrix(np.array([[0, 3, 1], [1, 0, 0], [1, 0, 0]], float))
    last = list(markov.random_surfer_steps(a, teleport=0.1, n_walkers=2000, n_steps=500, random_state=1,
                                           yield_every=500))[-1]
    assert last.l1_error < 0.02


def test_layout_is_seeded_and_finite():
    a, _ = load_graph("python-docs")
    pos = markov.layout(a, random_state=0)
    assert pos.shape == (530, 2) and np.all(np.isfinite(pos)) and np.abs(pos).max() == pytest.approx(1.0)
    np.testing.assert_array_equal(pos, markov.layout(a, random_state=0))
    snaps = list(markov.layout_steps(a, random_state=0))
    np.testing.assert_array_equal(snaps[-1].positions, pos)
    # Linked karate members end up closer than random pairs.
    k, _ = karate_club()
    kp = markov.layout(k, random_state=1, n_iter=100)
    r, c = k.nonzero()
    linked = np.linalg.norm(kp[r] - kp[c], axis=1).mean()
    every = np.linalg.norm(kp[:, None] - kp[None], axis=2).mean()
    assert linked < every


def test_scale_free_graph_is_seeded_with_dangling_and_heavy_tail():
    a, names = scale_free_digraph(20_000, random_state=3)
    b, _ = scale_free_digraph(20_000, random_state=3)
    assert (a != b).nnz == 0 and len(names) == 20_000
    out = np.asarray(a.sum(axis=1)).ravel()
    indeg = np.asarray(a.sum(axis=0)).ravel()
    assert 0.03 < (out == 0).mean() < 0.08
    assert 8 < a.nnz / 20_000 < 11
    assert indeg.max() > 50 * indeg.mean()  # hubs
    assert a.diagonal().sum() == 0
    pr = markov.pagerank(a)
    assert pr.sum() == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda a: markov.pagerank(a, teleport=2), r"teleport must be a float in \[0, 1\]; got 2"),
        (lambda a: markov.pagerank(a, tol=0), "tol must be a float > 0; got 0"),
        (lambda a: markov.pagerank(a, max_iter=-1), r"max_iter must be an int in \[0, 1e6\]; got -1"),
        (lambda a: markov.pagerank(a, start=[1, 0]), "distribution over the 3 states"),
        (lambda a: markov.pagerank(a, start=[1, 1, 1]), "sum to 1"),
        (lambda a: markov.pagerank(np.ones((2, 3))), "square"),
        (lambda a: markov.pagerank(-a), "non-negative"),
        (lambda a: markov.chain_steps(np.ones((2, 2))).__next__(), "rows of p must sum to 1"),
        (lambda a: markov.random_surfer_steps(a, n_walkers=0).__next__(),
         r"n_walkers must be an int in \[1, 1e6\]; got 0"),
    ],
)
def test_invalid_arguments(call, match):
    a = sp.csr_matrix(np.array([[0, 1, 0], [0, 0, 1], [1, 0, 0]], float))
    with pytest.raises(ValueError, match=match):
        call(a)
    with pytest.raises(TypeError):
        markov.pagerank(a, teleport="0.1")


@pytest.mark.parametrize("n_walkers", [10**9, 2**63])
def test_absurd_surfer_counts_are_refused_at_the_call(n_walkers):
    a = sp.csr_matrix(np.array([[0, 1], [1, 0]], float))
    with pytest.raises(ValueError, match=r"^n_walkers must be an int in \[1, 1e6\]; got \d+$"):
        markov.random_surfer_steps(a, n_walkers=n_walkers)  # before any next(): nothing allocated


def test_undefined_values_at_step_zero_are_none():
    a = sp.csr_matrix(np.array([[0, 1, 1], [1, 0, 0], [0, 1, 0]], float))
    assert next(markov.chain_steps(markov.transition_matrix(a, 0.1).toarray())).change is None
    assert next(markov.pagerank_steps(a)).change is None
    first, second = markov.random_surfer_steps(a, n_walkers=50, n_steps=1, random_state=0)
    assert first.l1_error is None and np.isfinite(second.l1_error)


def test_pagerank_estimator_equals_the_power_method():
    a = sp.csr_matrix(np.array([[0, 1, 1, 0], [1, 0, 0, 0], [0, 1, 0, 1], [0, 0, 0, 0]], float))
    est = markov.PageRank(teleport=0.2, tol=1e-12)
    assert est.fit(a) is est
    np.testing.assert_allclose(est.pagerank_, markov.pagerank(a, teleport=0.2, tol=1e-12), rtol=0, atol=0)
    np.testing.assert_allclose(est.pagerank_, est.last_snapshot_.distribution, rtol=0, atol=0)
    assert est.converged_ and est.n_iter_ == len(est.residuals_) and est.residuals_[-1] < 1e-12
    assert est.n_nodes_ == 4 and est.ranking()[0] == int(np.argmax(est.pagerank_))
    nx = pytest.importorskip("networkx")
    g = nx.from_scipy_sparse_array(a, create_using=nx.DiGraph)
    ref = nx.pagerank(g, alpha=0.8, tol=1e-14, max_iter=10_000)
    np.testing.assert_allclose(est.transform(), [ref[i] for i in range(4)], atol=1e-9)
    with pytest.raises(ValueError, match=r"^teleport must be a float in \[0, 1\]; got nan$"):
        markov.PageRank(teleport=float("nan")).fit(a)


def test_property_pagerank_is_the_dense_equilibrium():
    import hypothesis
    from hypothesis import strategies as st

    @hypothesis.settings(max_examples=40, deadline=None, derandomize=True)
    @hypothesis.given(
        links=st.lists(st.tuples(st.integers(0, 7), st.integers(0, 7)), max_size=30),
        teleport=st.floats(0.05, 1.0),
    )
    def check(links, teleport):
        a = np.zeros((8, 8))
        for i, j in links:
            a[i, j] = 1.0
        pr = markov.pagerank(a, teleport=teleport, tol=1e-14)
        dense = markov.transition_matrix(a, teleport).toarray()
        assert pr.sum() == pytest.approx(1.0, abs=1e-12)
        np.testing.assert_allclose(pr @ dense, pr, atol=1e-12)
        np.testing.assert_allclose(pr, markov.stationary_distribution(dense), atol=1e-10)

    check()
