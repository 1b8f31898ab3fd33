"""The Bayesian inference lab: the coin's posterior and its marks flip by flip, the evidence bars,
the user's own flips, the die on the simplex, the decision map with its boundaries and risks,
dragged classes, losses that move the boundary, bad classes refused with nothing lost, and the
learning curves' lesson."""

import math
import re

import numpy as np
import pytest
from scipy import stats

from app.labs.bayes import run
from app.testing import drawn, finish, open_lab, run_to, wait_until
from smlengine.bayes import BetaBernoulli, MultinomialNaiveBayes, bayes_risk_2gauss


def _lab(make_window, **params):
    window = make_window(lab_ids=["bayes"])
    lab = open_lab(window, "bayes")
    if params:
        lab.form.set_values(params, quiet=False)
    return window, lab


def test_the_coin_after_twenty_flips_shows_the_posterior_and_its_estimates(make_window):
    _, lab = _lab(make_window)
    snap = run_to(lab, 20)
    flips = run.coin_flips(0.3, 100, lab.seed)[:20]
    k = int(flips.sum())
    assert (snap.n, snap.heads, snap.a, snap.b) == (20, k, 1.0 + k, 21.0 - k)
    panel = lab.posterior_panel
    xs, post = panel.posterior.x, panel.posterior.y
    np.testing.assert_allclose(post, stats.beta(1 + k, 21 - k).pdf(xs), rtol=1e-9)
    np.testing.assert_allclose(panel.prior.y, 1.0)  # the uniform prior, drawn flat
    lo, hi = stats.beta(1 + k, 21 - k).ppf([0.025, 0.975])
    shaded = panel.interval.x
    assert shaded.min() == pytest.approx(lo, abs=2e-3) and shaded.max() == pytest.approx(hi, abs=2e-3)
    marks = {name: series.x for (name, _), series in zip(run_marker_names(), panel.markers)}
    assert marks["ML"][0] == pytest.approx(k / 20)
    assert marks["mean"][0] == pytest.approx((1 + k) / 22)
    assert marks["MAP"][0] == pytest.approx(k / 20)  # a uniform prior: MAP = ML
    assert marks["true θ"][0] == pytest.approx(0.3)
    # the evidence bars: log p(flips) under each prior, from the engine
    bars = lab.evidence_panel.bars.opts["x0"]
    expected = [BetaBernoulli(a, b).log_marginal_likelihood(flips) for _, a, b in run.PRIORS.values()]
    np.testing.assert_allclose(bars, expected, rtol=1e-9)
    assert f"Beta({1 + k:g}, {21 - k:g})" in lab.maths.toPlainText()
    # the die: 20 rolls on the simplex, its posterior mean where the Dirichlet says
    mean = snap.die_alpha / snap.die_alpha.sum()
    assert lab.simplex_panel.mean.data["x"][0] == pytest.approx(run.simplex_point(mean)[0])


def run_marker_names():
    from app.labs.bayes.views import MARKERS

    return MARKERS


def test_data_overwhelm_a_strong_and_wrong_prior(make_window):
    _, lab = _lab(make_window, prior="wrong", flips=500)
    first = run_to(lab, 5)
    assert first.mean > 0.6  # Beta(18, 2) still rules after five flips
    last = finish(lab, restart=True)
    assert last.n == 500 and last.lo < 0.3 < last.hi and abs(last.mean - 0.3) < 0.05
    log_ml = dict(zip(run.PRIORS, last.log_ml))
    assert log_ml["wrong"] < log_ml["uniform"] - 5  # its evidence is far below the uniform prior's


def test_three_heads_clicked_in_a_row(make_window):
    _, lab = _lab(make_window)
    for _ in range(3):
        lab._flip(1)
    snap = run_to(lab, 3)
    assert lab.form.value("source") == "clicks" and lab.clicks == [1, 1, 1]
    assert (snap.n, snap.heads, snap.ml, snap.mode, snap.true_p) == (3, 3, 1.0, 1.0, None)
    assert snap.mean == pytest.approx(0.8)
    assert lab.posterior_panel.markers[3].x.size == 0  # no true θ for the user's coin
    assert lab.user_data()["clicks"] == [1, 1, 1]


def test_the_decision_map_its_boundaries_and_risks(make_window):
    _, lab = _lab(make_window, method="decision")
    snap = finish(lab, restart=True)
    assert lab.tabs.currentIndex() == 1 and snap.K == 2 and snap.n == 800
    means, covs = run.check_classes(run.DEFAULT_CLASSES, 2)
    exact = bayes_risk_2gauss(means[0], covs[0], means[1], covs[1], 0.5)
    assert snap.bayes_risk_exact == pytest.approx(exact)
    assert snap.bayes_risk == pytest.approx(exact, abs=2e-3)  # the grid's integral agrees with Imhof's
    qda, lda, nb = snap.risks
    assert exact <= qda < exact + 0.01 and lda > qda  # unequal covariances: the quadratic rule is right
    panel = lab.decision_panel
    x0, x1, y0, y1 = snap.extent
    rect = panel.image.mapRectToView(panel.image.boundingRect())
    assert rect.left() == pytest.approx(x0) and rect.right() == pytest.approx(x1)
    (vx0, vx1), (vy0, vy1) = panel.plot_item.getViewBox().viewRange()  # the map covers all that is shown
    assert rect.left() <= vx0 + 1e-9 and vx1 <= rect.right() + 1e-9
    assert rect.top() <= vy0 + 1e-9 and vy1 <= rect.bottom() + 1e-9
    xs, ys = panel.boundary_items[0].getData()
    assert np.isfinite(xs).sum() > 50
    # the drawn boundary is where the two classes' posteriors are equal
    pts = np.column_stack([xs, ys])[np.isfinite(xs)][::10]
    joint = [stats.multivariate_normal(m, c).pdf(pts) for m, c in zip(means, covs)]
    ratio = np.log(joint[1] / joint[0])
    assert np.median(np.abs(ratio)) < 0.15
    curve = lab.risk_panel.series["QDA"]
    assert 10 ** curve.x[-1] == pytest.approx(800) and curve.y[-1] == pytest.approx(qda)  # x = log₁₀ n
    drawn_x = curve.item.curve.xData  # a played run's view spans the curve, drawn where its points are
    (vx0, vx1), _ = lab.risk_panel.plot_item.getViewBox().viewRange()
    assert np.ptp(drawn_x) == pytest.approx(np.log10(800 / 12))  # n from 12 to 800
    assert vx0 <= drawn_x.min() and drawn_x.max() <= vx1 and vx1 - vx0 < 2 * np.ptp(drawn_x)
    assert f"{snap.bayes_risk:.4f}" in lab.maths.toPlainText()


def test_the_loss_matrix_and_priors_move_the_boundary_and_bad_classes_are_refused(make_window):
    _, lab = _lab(make_window, method="decision", points=20)
    plain = finish(lab, restart=True)
    shown = [name for name in lab.form.params if name.startswith("loss_") and lab.form.widgets[name].isVisibleTo(lab)]
    assert shown == ["loss_12", "loss_21"] and not lab.form.widgets["prior2"].isVisibleTo(lab)
    assert [lab.decision_panel.class_names[k].textItem.toPlainText() for k in range(2)] == ["1", "2"]
    lab.form.set_values({"loss_12": 5.0}, quiet=False)  # deciding 2 when the truth is 1 costs 5
    costly = finish(lab, restart=True)
    np.testing.assert_array_equal(costly.loss, [[0.0, 5.0], [1.0, 0.0]])
    assert np.count_nonzero(costly.decision == 0) > np.count_nonzero(plain.decision == 0) * 1.05
    # the minimum-risk rule is MAP under priors ∝ L(j, k) π_j: its risk in closed form agrees with the grid's
    assert costly.bayes_risk > plain.bayes_risk
    assert costly.bayes_risk_exact == pytest.approx(costly.bayes_risk, abs=2e-3)
    assert re.search(r"truth j = 1\s+0\s+5\s+truth j = 2\s+1\s+0", lab.maths.toPlainText())  # the matrix in the maths
    lab.form.set_values({"loss_12": 1.0, "loss_21": 5.0, "prior1": 0.6}, quiet=False)  # the other entry, the priors
    other = finish(lab, restart=True)
    assert np.count_nonzero(other.decision == 0) < np.count_nonzero(plain.decision == 0) * 0.95
    np.testing.assert_allclose(other.priors, [0.6, 0.4])
    means2, covs2 = run.check_classes(run.DEFAULT_CLASSES, 2)
    w0, w1 = 0.6 * 1.0, 0.4 * 5.0
    assert other.bayes_risk_exact == pytest.approx((w0 + w1) * bayes_risk_2gauss(
        means2[0], covs2[0], means2[1], covs2[1], w1 / (w0 + w1)))
    # three classes: the whole 3 × 3 matrix and two priors; a third prior below 0.05 is refused with a message
    lab.form.set_values({"n_classes": 3, "loss_21": 1.0, "prior1": 0.5, "loss_31": 4.0}, quiet=False)
    three = finish(lab, restart=True)
    assert all(lab.form.widgets[name].isVisibleTo(lab) for name in lab.form.params if name.startswith("loss_"))
    assert three.K == 3 and three.loss[2, 0] == 4.0 and three.loss[0, 2] == 1.0 and three.bayes_risk_exact is None
    np.testing.assert_allclose(three.priors, [0.5, 0.25, 0.25])
    classes = lab.user_data()["classes"]
    lab.form.set_values({"prior2": 0.5}, quiet=False)
    assert "class 3 takes the rest" in lab.error_text and lab.runner.current is None  # no run of impossible priors
    assert lab.user_data()["classes"] == classes and lab.form.value("prior2") == 0.5  # nothing lost
    lab.form.set_values({"prior2": 0.25, "n_classes": 2, "loss_31": 1.0, "prior1": 0.5}, quiet=False)
    assert not lab.error_text and drawn(lab).K == 2
    means, covs = lab.decision_panel.classes
    kept = lab.user_data()["classes"]
    # a flat ellipse is refused with a message, the classes kept
    flat = covs.copy()
    flat[0] = [[1.0, 1.0], [1.0, 1.0]]
    lab._classes_moved(means, flat)
    assert "positive definite" in lab.error_text
    assert lab.user_data()["classes"] == kept
    before = lab.user_data()
    with pytest.raises(ValueError):
        lab.set_user_data({"clicks": [1, 2]})
    with pytest.raises(ValueError):
        lab.set_user_data({"classes": {"means": [[0, 0]] * 3, "covs": [[[1, 0], [0, -1]]] * 3}})
    assert lab.user_data() == before


def test_dragging_a_class_moves_its_mean_and_stretches_its_ellipse(make_window):
    _, lab = _lab(make_window, method="decision", points=40)
    finish(lab, restart=True)
    # dragging class 2's mean handle: the classes change and the run follows
    means, covs = lab.decision_panel.classes
    moved = means.copy()
    moved[1] += [1.0, 0.5]
    handle = lab.decision_panel.handles[1][0]
    handle.setPos(*moved[1])
    handle.sigPositionChangeFinished.emit(handle)
    wait_until(lambda: lab.runner.current is not None and np.allclose(lab.runner.current.means[1], moved[1]))
    snap = finish(lab, restart=False)
    np.testing.assert_allclose(snap.means[1], moved[1])
    assert lab.classes["means"][1] == pytest.approx(moved[1].tolist())
    # stretching its ellipse: the major axis handle twice as far from the mean doubles that standard deviation
    major, minor = lab.decision_panel.axes(snap.covs[1])
    axis = lab.decision_panel.handles[1][1]
    axis.setPos(*(snap.means[1] + 2 * major))
    axis.sigPositionChangeFinished.emit(axis)
    wait_until(lambda: lab.runner.current is not None and not np.allclose(lab.runner.current.covs[1], snap.covs[1]))
    stretched = finish(lab, restart=False)
    w_new, w_old = np.linalg.eigvalsh(stretched.covs[1]), np.linalg.eigvalsh(snap.covs[1])
    np.testing.assert_allclose(w_new, [w_old[0], 4 * w_old[1]], rtol=1e-9)
    assert stretched.n == 40


def test_learning_curves_teach_generative_against_discriminative():
    """Naive Bayes beats logistic regression early where its model is right, and loses for good
    where the features come in correlated pairs (Qt-free: the run itself)."""
    snaps = [s for s in run.curves_steps(6, 0, sizes=(64, 2000)) if s.complete]
    early, late = snaps
    assert early.errors[("right", "nb")] < early.errors[("right", "logistic")]
    assert late.errors[("wrong", "logistic")] < late.errors[("wrong", "nb")] - 0.05
    assert abs(late.errors[("right", "nb")] - late.errors[("right", "logistic")]) < 0.02
    assert late.bayes["right"] == pytest.approx(stats.norm.cdf(-1.0))
    assert math.isfinite(late.errors[("wrong", "lda")])


def test_the_spam_filter_scores_a_typed_message_word_by_word(make_window):
    _, lab = _lab(make_window, method="spam")
    snap = finish(lab, restart=True)
    texts, labels = run.load_spam_corpus()
    assert lab.tabs.currentIndex() == 3 and snap.m == len(texts) - snap.n_test and snap.accuracy > 0.9
    # the filter is the engine's, trained on the same messages: the same log-odds per word
    order = np.random.default_rng(lab.seed).permutation(len(texts))
    train = order[snap.n_test:]
    vocab = sorted({w for i in train for w in run.words(texts[i])})
    column = {w: j for j, w in enumerate(vocab)}
    X = np.zeros((train.size, len(vocab)))
    for r, i in enumerate(train):
        for w in run.words(texts[i]):
            X[r, column[w]] += 1
    model = MultinomialNaiveBayes(alpha=1.0).fit(X, labels[train])
    odds = dict(zip(vocab, model.feature_log_prob_[1] - model.feature_log_prob_[0]))
    for word, value in snap.spam_words + snap.ham_words:
        assert value == pytest.approx(odds[word])
    assert min(v for _, v in snap.spam_words) >= max(v for _, v in snap.ham_words)
    x = np.zeros((1, len(vocab)))
    for w in run.words(run.DEFAULT_MESSAGE):
        x[0, column[w]] += 1
    assert snap.p_spam == pytest.approx(model.predict_proba(x)[0, 1], rel=1e-9, abs=1e-12)
    bars = lab.message_panel.bars.opts
    drawn = np.asarray(bars["x0"]) + np.asarray(bars["width"]) * (np.asarray(bars["x0"]) == 0)
    expected = [snap.prior_log_odds] + [0.0 if v is None else v for _, v in snap.tokens]
    np.testing.assert_allclose(drawn, expected)
    assert [t.toPlainText() for t in lab.message_panel.word_items[:3]] == ["(prior)", "are", "you"]
    # a message of its own, typed and confirmed: scored as spam
    lab.message_edit.setText("WIN a free holiday now, call 0800 123 456")
    lab.message_edit.editingFinished.emit()
    spam = finish(lab, restart=False)
    assert spam.message.startswith("WIN") and spam.p_spam > 0.99 > 0.5 > snap.p_spam
    assert lab.user_data()["message"] == spam.message
    assert "P(spam) = " in lab.maths.toPlainText()
