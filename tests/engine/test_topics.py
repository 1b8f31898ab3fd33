"""smlengine.topics: collapsed Gibbs sampling for latent Dirichlet allocation.

The reference is the `lda` package (collapsed Gibbs in compiled code): its log joint on its own
counts, and the topics it finds, are compared with the engine's. The sampler itself is checked
against exact enumeration of the collapsed joint on a corpus small enough to list every state.
"""

import importlib.util
import itertools
import math

import numpy as np
import pytest
from scipy import sparse

from smlengine import NotFittedError
from smlengine import topics
from smlengine.datasets import bar_topics, build_vocabulary, make_lda_corpus, shakespeare_passages
from smlengine.topics import LatentDirichletAllocation, as_token_lists, log_joint, match_topics

lda = pytest.importorskip("lda")


def _counts(docs, n_words):
    X = np.zeros((len(docs), n_words), dtype=np.int64)
    for d, doc in enumerate(docs):
        np.add.at(X[d], doc, 1)
    return X


# ----------------------------------------------------------------------------- the conditional
def test_conditional_is_the_collapsed_formula_without_the_token():
    docs, _, _ = make_lda_corpus(20, 15, n_topics=4, random_state=3)
    alpha, eta = 0.3, 0.05
    model = LatentDirichletAllocation(4, alpha=alpha, eta=eta, n_sweeps=7, random_state=1)
    last = list(model.fit_steps(docs, n_words=25))[-1]
    z = model.assignments_
    for d, i in [(0, 0), (3, 7), (19, 14), (11, 2)]:
        # counts rebuilt from the assignments, token (d, i) left out
        ndk = np.bincount(z[d], minlength=4).astype(float)
        nkw = np.zeros((4, 25))
        for dd, doc in enumerate(docs):
            np.add.at(nkw, (z[dd], doc), 1)
        k, w = z[d][i], docs[d][i]
        ndk[k] -= 1
        nkw[k, w] -= 1
        nk = nkw.sum(axis=1)
        expected = (ndk + alpha) * (nkw[:, w] + eta) / (nk + 25 * eta)
        np.testing.assert_allclose(model.conditional(d, i), expected / expected.sum(), rtol=1e-12)
        np.testing.assert_allclose(model.conditional(d, i, last), expected / expected.sum(), rtol=1e-12)
        assert model.word_of(d, i) == w


def test_log_joint_equals_the_reference_on_its_own_counts():
    docs, _, _ = make_lda_corpus(30, 20, n_topics=4, random_state=5)
    X = _counts(docs, 25)
    ref = lda.LDA(n_topics=4, n_iter=30, alpha=0.2, eta=0.05, random_state=2, refresh=1000)
    ref.fit(X)
    ours = log_joint(ref.ndz_, ref.nzw_, 0.2, 0.05)
    assert ours == pytest.approx(ref.loglikelihood(), rel=1e-10)


def test_the_trace_is_the_log_joint_of_each_snapshot():
    docs, _, _ = make_lda_corpus(10, 10, n_topics=3, random_state=0)
    model = LatentDirichletAllocation(3, alpha=0.5, eta=0.1, n_sweeps=5, random_state=0)
    snaps = list(model.fit_steps(docs))
    assert [s.step for s in snaps] == list(range(6))
    for s in snaps:
        assert s.log_joint == pytest.approx(log_joint(s.doc_topic_counts, s.topic_word_counts, 0.5, 0.1))
        assert s.doc_topic_counts.sum() == s.topic_word_counts.sum() == 100
        assert 0.0 <= s.changed_fraction <= 1.0
    np.testing.assert_allclose(model.log_joint_, [s.log_joint for s in snaps])
    assert [s.burning_in for s in snaps] == [True, True, True, False, False, False]


# ----------------------------------------------------------------------------- exact enumeration
def _exact_coassignment(docs, n_topics, n_words, alpha, eta):
    """P(z_i = z_j) for every token pair, by summing the collapsed joint over all K^n states."""
    words = [w for doc in docs for w in doc]
    owner = [d for d, doc in enumerate(docs) for _ in doc]
    n = len(words)
    probs = []
    same = []
    for z in itertools.product(range(n_topics), repeat=n):
        ndk = np.zeros((len(docs), n_topics))
        nkw = np.zeros((n_topics, n_words))
        for i in range(n):
            ndk[owner[i], z[i]] += 1
            nkw[z[i], words[i]] += 1
        lp = 0.0
        for d in range(len(docs)):
            lp += math.lgamma(n_topics * alpha) - math.lgamma(ndk[d].sum() + n_topics * alpha)
            lp += sum(math.lgamma(c + alpha) - math.lgamma(alpha) for c in ndk[d])
        for k in range(n_topics):
            lp += math.lgamma(n_words * eta) - math.lgamma(nkw[k].sum() + n_words * eta)
            lp += sum(math.lgamma(c + eta) - math.lgamma(eta) for c in nkw[k])
        probs.append(math.exp(lp))
        zz = np.array(z)
        same.append(zz[:, None] == zz[None, :])
    probs = np.array(probs) / sum(probs)
    return np.tensordot(probs, np.array(same, dtype=float), axes=1)


def test_sampled_marginals_match_exact_enumeration():
    # with symmetric priors every single-token marginal is 1/K; the label-free marginals are the
    # probabilities that two tokens share a topic
    docs = [[0, 1, 0], [2, 1], [2, 2]]
    alpha, eta = 0.4, 0.3
    exact = _exact_coassignment(docs, 2, 3, alpha, eta)
    model = LatentDirichletAllocation(2, alpha=alpha, eta=eta, n_sweeps=8000, burn_in=100, random_state=7)
    total = np.zeros_like(exact)
    kept = 0
    for snap in model.fit_steps(docs):
        if snap.step > 100:
            z = snap.assignments
            total += z[:, None] == z[None, :]
            kept += 1
    sampled = total / kept
    off = ~np.eye(7, dtype=bool)
    assert np.abs(exact[off] - 0.5).max() > 0.05  # the corpus is informative: pairs differ from chance
    np.testing.assert_allclose(sampled[off], exact[off], atol=0.02)


# ----------------------------------------------------------------------------- recovery
def test_learns_four_separated_topics():
    docs, truth, _ = make_lda_corpus(150, 40, n_topics=4, alpha=0.3, random_state=11)
    model = LatentDirichletAllocation(4, alpha=0.3, eta=0.01, n_sweeps=80, random_state=0).fit(docs, n_words=25)
    order, tv = match_topics(model.topic_word_, truth)
    assert tv.mean() < 0.1
    np.testing.assert_allclose(model.topic_word_.sum(axis=1), 1.0)
    np.testing.assert_allclose(model.doc_topic_.sum(axis=1), 1.0)
    assert model.topic_word_.shape == (4, 25) and model.doc_topic_.shape == (150, 4)

    # the reference finds the same topics on the same counts
    ref = lda.LDA(n_topics=4, n_iter=80, alpha=0.3, eta=0.01, random_state=0, refresh=1000)
    ref.fit(_counts(docs, 25))
    _, ref_tv = match_topics(ref.components_, truth)
    _, between = match_topics(model.topic_word_, ref.components_)
    assert ref_tv.mean() < 0.1 and between.mean() < 0.1


def test_learned_topics_get_closer_to_the_truth_sweep_by_sweep():
    docs, truth, _ = make_lda_corpus(100, 40, n_topics=10, alpha=0.5, random_state=4)
    model = LatentDirichletAllocation(10, alpha=0.5, eta=0.01, n_sweeps=60, random_state=2)
    tvs = {s.step: match_topics(model.phi(s), truth)[1].mean() for s in model.fit_steps(docs, n_words=25)}
    assert tvs[60] < tvs[0] - 0.3


def test_transform_recovers_the_mixture_of_new_documents():
    docs, truth, _ = make_lda_corpus(120, 40, n_topics=4, alpha=0.3, random_state=1)
    model = LatentDirichletAllocation(4, alpha=0.3, eta=0.01, n_sweeps=60, random_state=0).fit(docs, n_words=25)
    order, _ = match_topics(model.topic_word_, truth)
    rows = [np.full(30, 0), np.concatenate([np.full(15, 5), np.full(15, 16)])]  # bar 0; bars 1 and 3
    theta = model.transform(rows)
    np.testing.assert_allclose(theta.sum(axis=1), 1.0)
    assert theta[0, order[0]] > 0.9
    assert theta[1, order[1]] + theta[1, order[3]] > 0.9


def test_count_matrix_and_word_lists_give_the_same_chain():
    docs, _, _ = make_lda_corpus(12, 10, n_topics=3, random_state=2)
    sorted_docs = [np.sort(d) for d in docs]  # a count matrix lists each row's words in column order
    a = LatentDirichletAllocation(3, n_sweeps=5, random_state=3).fit(sorted_docs, n_words=25)
    b = LatentDirichletAllocation(3, n_sweeps=5, random_state=3).fit(sparse.csr_matrix(_counts(docs, 25)))
    np.testing.assert_array_equal(a.topic_word_counts_, b.topic_word_counts_)
    np.testing.assert_allclose(a.doc_topic_, b.doc_topic_)


def test_a_small_fit_does_not_wait_for_numba(monkeypatch):
    """Under "auto", a fit of fewer than COMPILED_MIN_WORK token draws sweeps without numba
    until the compiled loop is ready; it never compiles it."""
    def refuse():
        raise AssertionError("a small fit compiled the sweep")

    monkeypatch.setattr(topics, "warm_compiled", refuse)
    monkeypatch.setattr(topics, "compiled_ready", lambda: False)
    docs, _, _ = make_lda_corpus(10, 10, n_topics=3, random_state=0)  # 100 tokens
    model = LatentDirichletAllocation(3, n_sweeps=5, random_state=0).fit(docs, n_words=25)
    assert model.topic_word_.shape == (3, 25)
    big = LatentDirichletAllocation(3, n_sweeps=topics.COMPILED_MIN_WORK // 100, random_state=0)
    with pytest.raises(AssertionError, match="compiled the sweep"):  # a large one compiles first ...
        next(big.fit_steps(docs))
    big.sweep_path = "auto-nowait"  # ... unless told not to wait
    assert next(big.fit_steps(docs)).step == 0


@pytest.mark.skipif(importlib.util.find_spec("numba") is None, reason="numba is not installed")
def test_the_compiled_and_numpy_sweeps_draw_the_same_chain(monkeypatch):
    """The same chain without numba, compiled, and switching to the compiled loop mid-run (as a
    fit under "auto" does once a side task has compiled it)."""
    docs, _, _ = make_lda_corpus(20, 25, n_topics=5, random_state=8)
    runs = []
    for path in ("numpy", "compiled", "auto-nowait"):
        if path == "auto-nowait":  # not ready for the first three sweeps, ready from then on
            calls = iter(range(1000))
            monkeypatch.setattr(topics, "compiled_ready", lambda: next(calls) >= 3)
        model = LatentDirichletAllocation(5, n_sweeps=6, random_state=4)
        model.sweep_path = path
        runs.append([s.assignments for s in model.fit_steps(docs)])
    assert next(calls) >= 4  # asked before each sweep: the last three ran compiled
    for a, b, c in zip(*runs):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(a, c)
    assert len(topics.compiled_sweep().signatures) == 1  # the warm-up compiled the sampler's signature


def test_restarts_find_the_topics_in_another_order():
    docs, truth, _ = make_lda_corpus(120, 40, n_topics=4, alpha=0.3, random_state=11)
    orders = []
    for seed in range(4):
        model = LatentDirichletAllocation(4, alpha=0.3, n_sweeps=40, random_state=seed).fit(docs, n_words=25)
        order, tv = match_topics(model.topic_word_, truth)
        assert tv.mean() < 0.15
        orders.append(tuple(order))
    assert len(set(orders)) > 1  # label switching between runs


def test_shakespeare_passages_form_a_corpus():
    passages = shakespeare_passages(words=150, per_play=6)
    vocab, docs = build_vocabulary([text for _, text in passages], min_count=3)
    assert len(passages) == 36 and len(vocab) > 100
    assert "the" not in vocab and "thou" not in vocab
    model = LatentDirichletAllocation(6, n_sweeps=4, random_state=0).fit(docs, n_words=len(vocab))
    assert model.topic_word_.shape == (6, len(vocab))
    assert bar_topics(4).shape == (4, 25)


# ----------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("docs, message", [
    ([], "holds no document"),
    ([[0, 1], []], "document 1 of docs is empty"),
    ([[0, -1]], "negative word id"),
    ([[0, 1.5]], "not a whole number"),
    (["some words"], "is text"),
    ("text", "must be a list of documents"),
    (np.zeros((0, 4)), "holds no document"),
    (np.array([[1, 0], [0, 0]]), "document 1 of docs is empty"),
    (np.array([[1.0, -1.0]]), "non-negative whole counts"),
])
def test_bad_documents_are_refused(docs, message):
    with pytest.raises((ValueError, TypeError), match=message):
        LatentDirichletAllocation(2, n_sweeps=2).fit(docs)


@pytest.mark.parametrize("params, message", [
    ({"n_topics": 0}, "n_topics must be"),
    ({"alpha": 0.0}, "alpha must be"),
    ({"alpha": -1.0}, "alpha must be"),
    ({"eta": 0.0}, "eta must be"),
    ({"n_sweeps": 0}, "n_sweeps must be"),
    ({"n_sweeps": 5, "burn_in": 5}, "burn_in must be less than n_sweeps"),
])
def test_bad_parameters_are_refused(params, message):
    with pytest.raises(ValueError, match=message):
        LatentDirichletAllocation(**{"n_topics": 2, "n_sweeps": 3, **params}).fit([[0, 1]])


def test_word_ids_out_of_range_and_unfitted_use():
    with pytest.raises(ValueError, match="word id 7, out of range for a vocabulary of 5 words"):
        LatentDirichletAllocation(2, n_sweeps=2).fit([[0, 7]], n_words=5)
    with pytest.raises(NotFittedError):
        LatentDirichletAllocation(2).conditional(0, 0)
    model = LatentDirichletAllocation(2, n_sweeps=3, random_state=0).fit([[0, 1], [2, 3]])
    with pytest.raises(ValueError, match="out of range for a vocabulary of 4 words"):
        model.transform([[0, 4]])
    with pytest.raises(ValueError, match="document 0 of new_docs is empty"):
        model.transform([[]])
    with pytest.raises(ValueError, match="position must be in"):
        model.conditional(0, 2)
    with pytest.raises(ValueError, match="n_topics must be at most 10"):
        make_lda_corpus(5, 5, n_topics=11)
    docs, V = as_token_lists([[1, 1]], 3)
    assert V == 3 and docs[0].tolist() == [1, 1]
