"""Ensembles of trees: AdaBoost (discrete, two classes), bagging and random forests.

AdaBoost (the course's discrete version, which is SAMME for two classes): start from
w_i = 1/n; in round m fit a weak learner g_m on the weighted data,

    err_m = sum_i w_i I{y_i != g_m(x_i)} / sum_i w_i,   alpha_m = log((1 - err_m) / err_m),
    w_i <- w_i exp(alpha_m I{y_i != g_m(x_i)}), then normalise,

and classify by sign(F(x)), F(x) = sum_m alpha_m g_m(x) with g_m in {-1, +1}. The training error
is bounded by prod_m 2 sqrt(err_m (1 - err_m)).

Bagging: B bootstrap samples (n draws with replacement), one tree each, majority vote. Every
tree leaves out about (1 - 1/n)^n ~ 1/e of the points, which give an out-of-bag (OOB) error
estimate for free. A random forest also draws a random subset of axes at every split.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ._base import (
    BaseEstimator,
    ClassifierMixin,
    IterativeMixin,
    Snapshot,
    check_array,
    check_binary_labels,
    check_random_state,
    check_X_y,
    frozen_array,
)
from ._params import Integral, Interval, Options, RandomState
from .trees import MAX_DEPTH, TREE_PARAM_CONSTRAINTS, DecisionStump, DecisionTree, Presorted

__all__ = [
    "AdaBoost",
    "AdaBoostSnapshot",
    "Bagging",
    "ForestSnapshot",
    "RandomForest",
    "condorcet_probability",
]

#: err_m is clipped to [EPS_ERR, ...] when computing alpha, so a perfect learner gets a large
#: finite weight log((1 - 1e-10) / 1e-10) ~ 23.0 instead of infinity.
EPS_ERR = 1e-10

#: Most members (boosting rounds, bagged trees) an ensemble may have.
MAX_MEMBERS = 10_000


def condorcet_probability(m, p):
    """Probability that the majority of m independent voters, each right with probability p, is right.

    P(majority right) = sum_{j >= (m+1)/2} C(m, j) p^j (1 - p)^(m - j), i.e. a strict majority
    (for even m a tie counts as wrong). Vectorised over m (and p).

    Parameters
    ----------
    m : int or array-like of int (>= 1)
        Number of voters.
    p : float or array-like in [0, 1]
        Probability that one voter is right.

    Returns
    -------
    float or ndarray
        P(majority right), broadcast over m and p.
    """
    from scipy.stats import binom  # deferred: scipy.stats is slow to import

    m_arr = np.asarray(m)
    p_arr = np.asarray(p, dtype=np.float64)
    if m_arr.dtype.kind not in "iu":
        if m_arr.dtype.kind == "f" and np.all(np.isfinite(m_arr)) and np.all(m_arr == np.round(m_arr)):
            m_arr = m_arr.astype(np.int64)
        else:
            raise TypeError("m must be an integer number of voters")
    if np.any(m_arr < 1):
        raise ValueError("m must be >= 1")
    if not np.all(np.isfinite(p_arr)) or np.any((p_arr < 0) | (p_arr > 1)):
        raise ValueError("p must be a probability in [0, 1]")
    need = m_arr // 2 + 1  # smallest strict majority = ceil((m + 1) / 2)
    out = binom.sf(need - 1, m_arr, p_arr)
    return float(out) if np.ndim(out) == 0 else out


# ----------------------------------------------------------------------------------------
# AdaBoost
# ----------------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True, eq=False)
class AdaBoostSnapshot(Snapshot):
    """State after one boosting round (step 0: uniform weights, no learner).

    Attributes
    ----------
    round : int
        m (equals ``step``).
    learner : DecisionStump or DecisionTree or None
        The weak learner fitted this round (shared, never modified later).
    accepted : bool
        False when the learner was rejected (err_m >= 1/2) and boosting stopped.
    axis, threshold : int / float or None
        Split of a stump learner (None for trees and at step 0; axis -1: constant stump).
    polarity : int or None
        +1: x_axis > threshold votes +1 (classes_[1]); -1 the reverse; 0 constant stump.
    alpha : float
        alpha_m (0 at step 0 and for a rejected learner).
    error : float or None
        Weighted error err_m of the learner on the weights it was fitted with.
    weights : ndarray of shape (n_samples,)
        Normalised weights after this round's update (used to fit round m + 1); uniform at
        step 0. The weights round m was fitted on are those of snapshot m - 1.
    misclassified : ndarray of bool or None
        I{y_i != g_m(x_i)} of this round's learner.
    train_error : float
        Training error of sign(F_m) (F = 0 counts as classes_[0]).
    exp_loss : float
        (1/n) sum_i exp(-y_i F_m(x_i)), F_m = sum_{k <= m} alpha_k g_k.
    exp_loss_half : float
        (1/n) sum_i exp(-y_i F_m(x_i) / 2), the exponential loss of the usual parametrisation
        (alpha/2). The course's weights are proportional to exp(-y_i F(x_i) / 2), so this equals
        ``bound`` exactly, and it bounds the training error since I{y F <= 0} <= exp(-y F / 2).
    bound : float
        prod_{k <= m} 2 sqrt(err_k (1 - err_k)) (1 at step 0).
    test_error : float or None
        Error of sign(F_m) on the test data passed to ``fit_steps``.
    n_learners : int
    stopped_because : str or None
        Set on the last snapshot: why boosting ended ("n_rounds reached", perfect learner,
        learner no better than chance).
    done : bool
        True on the last snapshot.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.ensemble import AdaBoost
    >>> X = np.array([[1.0], [2.0], [3.0], [4.0], [5.0], [6.0], [7.0]])
    >>> y = np.array([0, 0, 1, 1, 1, 0, 0])
    >>> for s in AdaBoost(n_rounds=4).fit_steps(X, y):
    ...     print(s.round, s.threshold, s.polarity, round(s.alpha, 3), round(s.train_error, 3), round(s.bound, 3))
    0 None None 0.0 0.429 1.0
    1 2.5 1 0.916 0.286 0.904
    2 5.5 -1 1.386 0.286 0.723
    3 1.5 0 1.466 0.0 0.564
    4 2.5 1 1.435 0.0 0.445
    >>> print(np.round(s.weights, 3))
    [0.095 0.095 0.103 0.103 0.103 0.25  0.25 ]
    >>> s.stopped_because
    'n_rounds = 4 reached'
    """

    round: int
    learner: object | None
    accepted: bool
    axis: int | None
    threshold: float | None
    polarity: int | None
    alpha: float
    error: float | None
    weights: np.ndarray
    misclassified: np.ndarray | None
    train_error: float
    exp_loss: float
    exp_loss_half: float
    bound: float
    test_error: float | None
    n_learners: int
    stopped_because: str | None = None
    done: bool = False


class AdaBoost(ClassifierMixin, IterativeMixin, BaseEstimator):
    """Discrete AdaBoost for two classes (SAMME with two classes), as in the course.

    Round m (``boost_round``): fit g_m on the weighted data, compute
    err_m = sum_i w_i I{y_i != g_m(x_i)} / sum_i w_i and alpha_m = log((1 - err_m) / err_m),
    reweight w_i <- w_i exp(alpha_m I{y_i != g_m(x_i)}) and normalise. Classify by
    sign(F(x)), F = sum_m alpha_m g_m(x), g_m(x) in {-1, +1}.

    Stopping: after ``n_rounds`` rounds; or when err_m >= 1/2 (the learner is no better than
    chance: it is discarded, as scikit-learn does); or when err_m = 0 (the learner is kept with
    alpha_m = log((1 - eps)/eps), eps = 1e-10, about 23 -- a large finite weight, so it decides
    every training point; scikit-learn instead keeps it with weight 1). The last snapshot's
    ``stopped_because`` says which.

    Parameters
    ----------
    n_rounds : int, default=100
        M, the number of rounds (>= 1).
    base : {'stump', 'tree'}, default='stump'
        'stump': :class:`DecisionStump` with presorted orders reused every round;
        'tree': :class:`DecisionTree` of depth ``max_depth``.
    max_depth : int, default=1
        Depth of the 'tree' learners (ignored for stumps).
    criterion : {'misclassification', 'gini', 'entropy'}, default='misclassification'
        How the weak learner chooses its split. The course's stump minimises the weighted
        error ('misclassification'); scikit-learn's AdaBoostClassifier uses 'gini' trees.
    random_state : None, int or Generator
        Accepted for API symmetry (the learners here are deterministic).

    Attributes
    ----------
    estimators_ : list
        The accepted weak learners g_1, ..., g_M.
    alphas_ : ndarray of shape (M,)
        Their weights alpha_m.
    errors_ : ndarray of shape (M,)
        Their weighted errors err_m.
    sample_weights_ : ndarray of shape (M, n_samples)
        Row m: the normalised weights round m was fitted on.
    classes_ : ndarray of shape (2,)
        The two labels; classes_[1] is the +1 class.
    stopped_because_ : str
        Why boosting ended.
    last_snapshot_ : AdaBoostSnapshot
        The final state.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.ensemble import AdaBoost
    >>> X = np.array([[1.0], [2.0], [3.0], [4.0], [5.0], [6.0], [7.0]])
    >>> y = np.array([0, 0, 1, 1, 1, 0, 0])
    >>> boost = AdaBoost(n_rounds=4).fit(X, y)
    >>> print(np.round(boost.alphas_, 3), np.round(boost.errors_, 3))
    [0.916 1.386 1.466 1.435] [0.286 0.2   0.188 0.192]
    >>> boost.predict(X)
    array([0, 0, 1, 1, 1, 0, 0])
    >>> print(np.round(boost.training_error_bound(), 3))
    [0.904 0.723 0.564 0.445]
    """

    _multi_class = False  # two classes exactly

    # every round keeps a row of n sample weights and a learner: rounds are bounded so a typo
    # cannot ask for gigabytes
    _parameter_constraints = {
        "n_rounds": [Interval(Integral, 1, MAX_MEMBERS)],
        "base": [Options(("stump", "tree"))],
        "max_depth": [Interval(Integral, 1, MAX_DEPTH)],
        "criterion": TREE_PARAM_CONSTRAINTS["criterion"],
        "random_state": [RandomState(), None],
    }

    def __init__(self, n_rounds=100, base="stump", max_depth=1, criterion="misclassification", random_state=None):
        self.n_rounds = n_rounds
        self.base = base
        self.max_depth = max_depth
        self.criterion = criterion
        self.random_state = random_state

    def _validate(self):
        self.validate_params()

    def _learner_pm(self, learner, X):
        """g(x) in {-1, +1} for the training encoding (class index 1 -> +1)."""
        if isinstance(learner, DecisionStump):
            idx = learner._predict_index(X)
        else:
            idx = np.argmax(learner.tree_.value[learner.tree_.apply(X)], axis=1)
        return np.where(idx == 1, 1.0, -1.0)

    def boost_round(self, X, yk, w, pre):
        """One boosting step on normalised weights ``w``.

        Returns ``(learner, g, err, alpha, new_w, status)`` where g = g_m(X) in {-1, +1},
        status is None (continue), 'perfect' (err_m = 0, learner kept) or 'chance'
        (err_m >= 1/2, learner to be discarded; alpha = 0 and the weights are unchanged).
        """
        if self.base == "stump":
            learner = DecisionStump(criterion=self.criterion)._fit_encoded(X, self._classes_idx, yk, w, pre)
        else:
            learner = DecisionTree(max_depth=self.max_depth, criterion=self.criterion)
            learner.fit(X, yk, sample_weight=w, order=pre)
        g = self._learner_pm(learner, X)
        wrong = g != np.where(yk == 1, 1.0, -1.0)
        err = float(w[wrong].sum() / w.sum())
        if err >= 0.5:
            return learner, g, err, 0.0, w, "chance"
        if err <= 0.0:
            return learner, g, 0.0, math.log((1.0 - EPS_ERR) / EPS_ERR), w, "perfect"
        alpha = math.log((1.0 - err) / err)
        new_w = w * np.exp(alpha * wrong)
        new_w /= new_w.sum()
        return learner, g, err, alpha, new_w, None

    def fit_steps(self, X, y, X_test=None, y_test=None):
        """Boost and yield one snapshot per round.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,), exactly two classes
        X_test, y_test : optional held-out data for the ``test_error`` curve

        Yields
        ------
        AdaBoostSnapshot
            Step 0: uniform weights, F = 0; step m: after round m. The last snapshot has
            ``done=True`` and ``stopped_because`` set, and equals the fitted model.
        """
        self._validate()
        X, y = check_X_y(X, y)
        classes, y_pm = check_binary_labels(y)
        yk = (y_pm > 0).astype(np.intp)
        test = None
        if X_test is not None or y_test is not None:
            if X_test is None or y_test is None:
                raise ValueError("give both X_test and y_test, or neither")
            Xt, yt = check_X_y(X_test, y_test)
            if Xt.shape[1] != X.shape[1]:
                raise ValueError(f"X_test has {Xt.shape[1]} features, but X has {X.shape[1]}")
            unknown = ~np.isin(yt, classes)
            if unknown.any():
                raise ValueError("y_test contains labels that are not in y")
            test = (Xt, np.where(yt == classes[1], 1.0, -1.0))
        for name in ("estimators_", "alphas_", "errors_", "sample_weights_", "last_snapshot_", "stopped_because_"):
            self.__dict__.pop(name, None)
        self.classes_ = classes
        self._classes_idx = np.array([0, 1])
        self.n_features_in_ = X.shape[1]
        n = X.shape[0]
        pre = Presorted(X)
        w = np.full(n, 1.0 / n)
        F = np.zeros(n)
        F_test = np.zeros(test[0].shape[0]) if test else None
        estimators, alphas, errors, fit_weights = [], [], [], []
        bound = 1.0

        def test_err():
            return None if test is None else float(np.mean(np.where(F_test > 0, 1.0, -1.0) != test[1]))

        yield AdaBoostSnapshot(
            step=0, phase="start", progress=0.0, round=0, learner=None, accepted=False, axis=None, threshold=None,
            polarity=None, alpha=0.0, error=None, weights=frozen_array(w), misclassified=None,
            train_error=float(np.mean(np.where(F > 0, 1.0, -1.0) != y_pm)), exp_loss=1.0, exp_loss_half=1.0,
            bound=1.0,
            test_error=test_err(), n_learners=0,
        )
        M = int(self.n_rounds)
        for m in range(1, M + 1):
            learner, g, err, alpha, new_w, status = self.boost_round(X, yk, w, pre)
            accepted = status != "chance"
            if accepted:
                estimators.append(learner)
                alphas.append(alpha)
                errors.append(err)
                fit_weights.append(w)
                F += alpha * g
                if test:
                    F_test += alpha * self._learner_pm(learner, test[0])
                bound *= 2.0 * math.sqrt(err * (1.0 - err))
            if status == "chance":
                reason = f"round {m}: err = {err:.4g} >= 1/2, the weak learner is no better than chance (discarded)"
            elif status == "perfect":
                reason = f"round {m}: err = 0, a perfect weak learner (kept with alpha = {alpha:.3g})"
            elif m == M:
                reason = f"n_rounds = {M} reached"
            else:
                reason = None
            done = reason is not None
            if done:
                self._set_state(estimators, alphas, errors, fit_weights, n, reason)
            stump = isinstance(learner, DecisionStump)
            yield AdaBoostSnapshot(
                step=m, phase="boost", progress=m / M if not done else 1.0, round=m, learner=learner,
                accepted=accepted, axis=learner.feature_ if stump else None,
                threshold=learner.threshold_ if stump else None, polarity=learner.polarity_ if stump else None,
                alpha=alpha, error=err, weights=frozen_array(new_w), misclassified=frozen_array(g != y_pm),
                train_error=float(np.mean(np.where(F > 0, 1.0, -1.0) != y_pm)),
                exp_loss=float(np.mean(np.exp(-y_pm * F))), exp_loss_half=float(np.mean(np.exp(-0.5 * y_pm * F))),
                bound=bound, test_error=test_err(),
                n_learners=len(estimators), stopped_because=reason, done=done,
            )
            if done:
                return
            w = new_w

    def _set_state(self, estimators, alphas, errors, fit_weights, n, reason):
        self.estimators_ = estimators
        self.alphas_ = np.array(alphas, dtype=np.float64)
        self.errors_ = np.array(errors, dtype=np.float64)
        self.sample_weights_ = np.array(fit_weights, dtype=np.float64).reshape(len(fit_weights), n)
        self.stopped_because_ = reason

    # -- prediction -------------------------------------------------------------------------

    def _X(self, X):
        self._check_fitted("estimators_")
        return check_array(X, n_features=self.n_features_in_)

    def learner_outputs(self, X) -> np.ndarray:
        """g_m(x) in {-1, +1} of every learner, shape (n_learners, n_samples)."""
        X = self._X(X)
        if not self.estimators_:
            return np.zeros((0, X.shape[0]))
        return np.stack([self._learner_pm(e, X) for e in self.estimators_])

    def staged_decision_function(self, X):
        """Yield F_m(X) = sum_{k <= m} alpha_k g_k(X) after every round m = 1, 2, ...

        Unlike scikit-learn, F is not divided by sum_k alpha_k (the sign is the same).
        """
        G = self.learner_outputs(X)
        F = np.zeros(G.shape[1])
        for a, g in zip(self.alphas_, G):
            F = F + a * g
            yield F

    def staged_predict(self, X):
        """Yield the predicted labels sign(F_m(X)) after every round."""
        for F in self.staged_decision_function(X):
            yield self.classes_[(F > 0).astype(np.intp)]

    def decision_function(self, X) -> np.ndarray:
        """F(x) = sum_m alpha_m g_m(x); positive means classes_[1]."""
        G = self.learner_outputs(X)
        return self.alphas_ @ G if G.shape[0] else np.zeros(G.shape[1])

    def predict(self, X) -> np.ndarray:
        """sign(F(x)): classes_[1] where F > 0, else classes_[0]."""
        return self.classes_[(self.decision_function(X) > 0).astype(np.intp)]

    def training_error_bound(self) -> np.ndarray:
        """prod_{k <= m} 2 sqrt(err_k (1 - err_k)) for m = 1..M."""
        self._check_fitted("errors_")
        return np.cumprod(2.0 * np.sqrt(self.errors_ * (1.0 - self.errors_)))


# ----------------------------------------------------------------------------------------
# Bagging and random forests
# ----------------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True, eq=False)
class ForestSnapshot(Snapshot):
    """State after k trees (step 0: no trees).

    Attributes
    ----------
    n_trees : int
        k (equals ``step``).
    tree : DecisionTree or None
        The tree added in this step (shared, never modified later).
    counts : ndarray of int, shape (n_samples,) or None
        Its bootstrap counts: how often each training point was drawn (0 = out of bag).
    left_out_fraction : float or None
        Fraction of points this tree left out.
    oob_fraction : float or None
        Mean left-out fraction over the trees so far (-> (1 - 1/n)^n ~ 1/e).
    oob_error : float or None
        Out-of-bag error of the first k trees: every point is classified by the majority vote
        of the trees that did not see it; points no tree left out yet are skipped
        (None while no point has an OOB vote).
    oob_covered : float
        Fraction of points with at least one OOB vote.
    oob_error_curve : ndarray of shape (k,)
        oob_error after 1..k trees (NaN while undefined).
    done : bool
        True on the last snapshot.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.ensemble import Bagging
    >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0], [3.0, 3.0], [3.0, 4.0], [4.0, 3.0], [4.0, 4.0]])
    >>> y = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    >>> for s in Bagging(n_estimators=3, random_state=0).fit_steps(X, y):
    ...     print(s.n_trees, s.counts, s.oob_error and round(s.oob_error, 3), s.oob_covered)
    0 None None 0.0
    1 [3 1 2 0 0 1 1 0] 0.0 0.375
    2 [0 0 0 0 4 2 0 2] 0.429 0.875
    3 [1 0 1 1 1 1 2 1] 0.286 0.875
    """

    n_trees: int
    tree: DecisionTree | None
    counts: np.ndarray | None
    left_out_fraction: float | None
    oob_fraction: float | None
    oob_error: float | None
    oob_covered: float
    oob_error_curve: np.ndarray
    done: bool = False


class Bagging(ClassifierMixin, IterativeMixin, BaseEstimator):
    """Bootstrap aggregation of classification trees with a majority vote.

    For b = 1..B draw n indices with replacement (the counts c_bi are used as sample weights,
    which is the same as fitting on the resampled data), grow a tree on them, and classify by
    the majority of the B votes (ties go to the first class in ``classes_``). The points a tree
    did not draw (c_bi = 0) give the out-of-bag error.

    Parameters
    ----------
    n_estimators : int, default=50
        B, the number of trees.
    max_depth : int or None, default=None
        Depth of every tree (None: grow until pure).
    criterion : {'gini', 'entropy', 'misclassification'}, default='gini'
        Impurity the trees split on.
    min_samples_leaf : int, default=1
        Smallest number of points in a leaf of every tree.
    random_state : None, int or Generator
        Seeds the bootstrap draws.

    Attributes
    ----------
    estimators_ : list of DecisionTree
        The B trees.
    bootstrap_counts_ : ndarray of int, shape (n_estimators, n_samples)
        c_bi: how often tree b drew point i.
    oob_error_ : float or None
        None when no training point was left out by any tree (tiny data, few trees).
    oob_error_curve_ : ndarray of shape (n_estimators,)
        OOB error after 1..B trees (NaN while no point is out of bag of any tree).
    oob_fraction_ : float
        Measured mean fraction of points left out per tree.
    oob_votes_ : ndarray of int, shape (n_samples, n_classes)
        Votes for every training point from the trees that left it out.
    classes_ : ndarray
        The sorted class labels.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.ensemble import Bagging
    >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0], [3.0, 3.0], [3.0, 4.0], [4.0, 3.0], [4.0, 4.0]])
    >>> y = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    >>> bag = Bagging(n_estimators=5, random_state=0).fit(X, y)
    >>> bag.bootstrap_counts_.shape, bag.bootstrap_counts_[0]
    ((5, 8), array([3, 1, 0, 0, 1, 1, 1, 1]))
    >>> bag.oob_error_, round(bag.oob_fraction_, 3)
    (0.375, 0.425)
    >>> bag.predict([[0.5, 0.5], [3.5, 3.5]])
    array([0, 1])
    >>> bag.votes([[0.5, 0.5], [3.5, 3.5]])
    array([[5, 0],
           [1, 4]])
    """

    _max_features_default = None
    # one row of bootstrap counts (n integers) and one tree per member: bounded so a typo
    # cannot ask for gigabytes before the first tree is grown
    _parameter_constraints = {
        "n_estimators": [Interval(Integral, 1, MAX_MEMBERS)],
        **{k: v for k, v in TREE_PARAM_CONSTRAINTS.items() if k != "max_features"},
    }

    def __init__(self, n_estimators=50, max_depth=None, criterion="gini", min_samples_leaf=1, random_state=None):
        self.n_estimators = n_estimators
        self.max_depth = max_depth
        self.criterion = criterion
        self.min_samples_leaf = min_samples_leaf
        self.random_state = random_state

    def _tree_max_features(self):
        return None

    def _validate(self, d):
        self.validate_params()
        DecisionTree(max_features=self._tree_max_features())._validate(d)

    def fit_steps(self, X, y):
        """Grow the trees one by one.

        Yields
        ------
        ForestSnapshot
            Step 0: no trees; step k: after tree k with its bootstrap counts and the OOB
            error so far. The last one (``done=True``) equals the fitted model.
        """
        X, y = check_X_y(X, y)
        self._validate(X.shape[1])
        classes, yk = np.unique(y, return_inverse=True)
        if classes.size < 2:
            raise ValueError(f"a classifier needs at least two classes in y, got {classes.size}")
        for name in ("estimators_", "bootstrap_counts_", "oob_error_", "last_snapshot_"):
            self.__dict__.pop(name, None)
        rng = check_random_state(self.random_state)
        n, K = X.shape[0], classes.size
        B = int(self.n_estimators)
        self.classes_ = classes
        self.n_features_in_ = X.shape[1]
        pre = Presorted(X)
        counts_all = np.zeros((B, n), dtype=np.int64)
        oob_votes = np.zeros((n, K), dtype=np.int64)
        curve = np.full(B, np.nan)
        trees = []
        yield ForestSnapshot(
            step=0, phase="start", progress=0.0, n_trees=0, tree=None, counts=None, left_out_fraction=None,
            oob_fraction=None, oob_error=None, oob_covered=0.0, oob_error_curve=frozen_array(curve[:0]),
        )
        seeds = rng.integers(0, 2**31 - 1, size=B)
        for b in range(B):
            counts = np.bincount(rng.integers(0, n, size=n), minlength=n)
            counts_all[b] = counts
            tree = DecisionTree(
                max_depth=self.max_depth, criterion=self.criterion, min_samples_leaf=self.min_samples_leaf,
                max_features=self._tree_max_features(), random_state=int(seeds[b]),
            )
            tree.fit(X, yk, sample_weight=counts, order=pre)
            trees.append(tree)
            out = np.flatnonzero(counts == 0)
            if out.size:
                pred = np.argmax(tree.tree_.value[tree.tree_.apply(X[out])], axis=1)
                oob_votes[out, pred] += 1
            covered = oob_votes.sum(axis=1) > 0
            oob_err = None
            if covered.any():
                oob_err = float(np.mean(np.argmax(oob_votes[covered], axis=1) != yk[covered]))
                curve[b] = oob_err
            done = b == B - 1
            if done:
                self.estimators_ = trees
                self.bootstrap_counts_ = counts_all
                self.oob_votes_ = oob_votes
                self.oob_error_curve_ = curve
                self.oob_error_ = oob_err  # None when no point was ever left out
                self.oob_fraction_ = float(np.mean(counts_all == 0))
            yield ForestSnapshot(
                step=b + 1, phase="tree", progress=(b + 1) / B, n_trees=b + 1, tree=tree,
                counts=frozen_array(counts), left_out_fraction=float(out.size / n),
                oob_fraction=float(np.mean(counts_all[: b + 1] == 0)), oob_error=oob_err,
                oob_covered=float(np.mean(covered)), oob_error_curve=frozen_array(curve[: b + 1]), done=done,
            )

    # -- prediction -------------------------------------------------------------------------

    def _X(self, X):
        self._check_fitted("estimators_")
        return check_array(X, n_features=self.n_features_in_)

    def tree_predictions(self, X) -> np.ndarray:
        """Class index voted by every tree, shape (n_estimators, n_samples)."""
        X = self._X(X)
        return np.stack([np.argmax(t.tree_.value[t.tree_.apply(X)], axis=1) for t in self.estimators_])

    def votes(self, X) -> np.ndarray:
        """Vote histogram: entry (i, k) = number of trees voting classes_[k] for point i."""
        P = self.tree_predictions(X)
        K = self.classes_.size
        n = P.shape[1]
        return np.bincount((np.arange(n)[None, :] * K + P).ravel(), minlength=n * K).reshape(n, K)

    def predict_proba(self, X) -> np.ndarray:
        """Fraction of trees voting each class (scikit-learn averages leaf probabilities instead)."""
        v = self.votes(X)
        return v / v.sum(axis=1, keepdims=True)

    def predict(self, X) -> np.ndarray:
        """Majority vote of the trees (ties: the first class)."""
        return self.classes_[np.argmax(self.votes(X), axis=1)]

class RandomForest(Bagging):
    """Bagging whose trees draw a random subset of ``max_features`` axes at every split.

    Parameters
    ----------
    n_estimators : int, default=100
        B, the number of trees.
    max_depth : int or None, default=None
        Depth of every tree (None: grow until pure).
    max_features : 'sqrt', 'log2', int, float or None, default='sqrt'
        Axes considered at each split (None: all, i.e. bagging). If none of the drawn axes
        can split a region, it becomes a leaf (scikit-learn would draw further axes).
    criterion : {'gini', 'entropy', 'misclassification'}, default='gini'
        Impurity the trees split on.
    min_samples_leaf : int, default=1
        Smallest number of points in a leaf of every tree.
    random_state : None, int or Generator
        Seeds the bootstrap draws and the axes drawn at every split.

    Attributes
    ----------
    estimators_, bootstrap_counts_, oob_error_, oob_error_curve_, oob_fraction_, oob_votes_, classes_
        As in :class:`Bagging`.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.ensemble import RandomForest
    >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0], [3.0, 3.0], [3.0, 4.0], [4.0, 3.0], [4.0, 4.0]])
    >>> y = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    >>> forest = RandomForest(n_estimators=10, max_features=1, random_state=0).fit(X, y)
    >>> forest.predict([[0.5, 0.5], [3.5, 3.5]])
    array([0, 1])
    >>> print(forest.predict_proba([[0.5, 0.5], [2.0, 2.0]]))
    [[0.9 0.1]
     [0.7 0.3]]
    >>> forest.oob_error_
    0.0
    """

    _parameter_constraints = {"n_estimators": Bagging._parameter_constraints["n_estimators"], **TREE_PARAM_CONSTRAINTS}

    def __init__(self, n_estimators=100, max_depth=None, max_features="sqrt", criterion="gini", min_samples_leaf=1,
                 random_state=None):
        self.n_estimators = n_estimators
        self.max_depth = max_depth
        self.max_features = max_features
        self.criterion = criterion
        self.min_samples_leaf = min_samples_leaf
        self.random_state = random_state

    def _tree_max_features(self):
        return self.max_features
