"""Absurd hyper-parameters: a clear ValueError/TypeError naming the parameter, or a finite result.

Every engine estimator and every public function with declared ranges is listed in ``REGISTRY``
with a small fit (a few dozen points, a few steps), so no legal value can make a case run long.
Each numeric parameter gets 0, -1, NaN, +inf, -inf, 1e308 and 2**63, one at a time, the others
at their defaults. A case passes when

* it raises ValueError or TypeError whose message starts with the parameter's name (the
  declared range follows), before any snapshot is produced; or
* it runs, and every learned attribute (names ending in ``_``) and every field of every
  snapshot it produced is finite or None, apart from the NaNs documented as markers
  (``EXPLAINED_NAN``).

MemoryError, OverflowError, a hang (the per-test timeout) or a silent NaN fail the case.
"""

from __future__ import annotations

import functools
import inspect
import itertools
import math
import numbers
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import pytest
import scipy.sparse as sp
from nonfinite import EXPLAINED, non_finite

from smlengine import grid, kernels, learning_theory, markov, model_selection, sampling
from smlengine._params import Interval
from smlengine import bayes
from smlengine.bayes import (
    BetaBernoulli,
    DirichletMultinomial,
    GaussianBayesClassifier,
    MultinomialNaiveBayes,
    NormalKnownVariance,
)
from smlengine.ensemble import AdaBoost, Bagging, RandomForest
from smlengine.gp import RBF as GPRBF
from smlengine.gp import GaussianProcessRegressor, Linear, Matern, Periodic
from smlengine.hmm import CategoricalHMM
from smlengine.linear import Perceptron
from smlengine.logistic import LogisticRegression
from smlengine.markov import PageRank
from smlengine.mrf import PottsGibbs
from smlengine.neural import MLPClassifier
from smlengine.ngram import NGramModel, tokenize
from smlengine.regression import BasisRegression, GaussianBasis, Lasso, LinearRegression, PolynomialBasis, Ridge
from smlengine.sampling import GaussianProposal, MetropolisHastings
from smlengine.spectral import CCA, FisherLDA, KernelPCA, SpectralClustering
from smlengine.topics import LatentDirichletAllocation
from smlengine.trees import DecisionStump, DecisionTree

VALUES = [0, -1, math.nan, math.inf, -math.inf, 1e308, 2**63]
VALUE_IDS = ["0", "-1", "nan", "inf", "-inf", "1e308", "2**63"]

# ----------------------------------------------------------------------------- small data
_rng = np.random.default_rng(0)
Y2 = np.arange(30) % 2
X2 = np.array([[0.0, 0.0], [3.0, 3.0]])[Y2] + _rng.normal(size=(30, 2))
Y3 = np.arange(30) % 3
X3 = np.array([[0.0, 0.0], [3.0, 3.0], [0.0, 4.0]])[Y3] + _rng.normal(size=(30, 2))
XR = _rng.normal(size=(25, 3))
YR = XR @ np.array([1.0, -2.0, 0.5]) + 0.1 * _rng.normal(size=25)
X1 = np.linspace(-1, 1, 20)[:, None]
Y1 = np.sin(3 * X1[:, 0])
TOKENS = tokenize("the cat sat on the mat\nthe dog sat on the log\na cat met a dog\n" * 3)
HMM_GOOD = dict(startprob=[0.5, 0.5], transmat=[[0.9, 0.1], [0.2, 0.8]],
                emissionprob=[[0.6, 0.3, 0.1], [0.1, 0.3, 0.6]])
SYMBOLS = np.array([0, 1, 2, 2, 1, 0, 0, 1, 2, 2, 2, 1, 0, 1, 2, 0, 0, 2, 1, 1])
GRAPH = sp.csr_matrix(np.array([[0, 1, 1, 0], [1, 0, 0, 0], [0, 1, 0, 1], [0, 0, 0, 0]], float))
CHAIN = np.array([[0.5, 0.5, 0.0], [0.25, 0.5, 0.25], [0.0, 0.5, 0.5]])
IMAGE = np.clip(np.kron(np.eye(2), np.ones((4, 4))) + 0.2 * _rng.normal(size=(8, 8)), 0, 1)


def _gauss(x):
    return -0.5 * np.sum(np.asarray(x) ** 2, axis=-1)


def _gauss_1d(x):
    return -0.5 * np.asarray(x) ** 2


def _first(gen, n=6):
    """At most n snapshots of a generator: a legal huge step count still ends the case quickly."""
    return list(itertools.islice(gen, n))


@dataclass
class Entry:
    """One estimator or function: how to build it with overrides and run a small fit."""

    name: str
    target: Any  # the class or function whose parameters are fuzzed
    run: Callable[[dict], Any]  # overrides -> fitted estimator, snapshots or result
    params: tuple[str, ...] = ()  # extra numeric parameters of a method (besides the declared ones)
    only: tuple[str, ...] | None = None  # a method's numeric parameters, instead of the target's
    declared: bool = True  # the target states its ranges in _parameter_constraints (modules of this contract)

    def numeric_params(self) -> list[str]:
        if self.only is not None:
            return list(self.only)
        constraints = getattr(self.target, "_parameter_constraints", {})
        names = [k for k, cs in constraints.items() if any(isinstance(c, Interval) for c in cs)]
        sig = inspect.signature(self.target)
        for p in sig.parameters.values():  # numeric defaults not declared would be missed: add them
            if (isinstance(p.default, numbers.Number) and not isinstance(p.default, bool)
                    and p.name not in names):
                names.append(p.name)
        return names + [p for p in self.params if p not in names]


def _est(cls, data, *, fit=None, base=None, method_params=(), declared=True):
    base = base or {}

    def run(over):
        init = {k: v for k, v in over.items() if k in inspect.signature(cls).parameters}
        extra = {k: v for k, v in over.items() if k not in init}
        est = cls(**{**base, **init})
        if fit is not None:
            return fit(est, extra)
        est.fit(*data, **extra)
        # what the fitted model gives back must be finite too (a NaN may appear only here)
        used = [est]
        for method in ("predict", "transform", "score"):
            if hasattr(est, method):
                args = data if method == "score" else data[:1]
                used.append(getattr(est, method)(*args))
        return used

    # named by what it fixes, functions by their name (not their address): the same ids in
    # every process, as parallel workers need
    fixed = [(k, getattr(v, "__name__", v) if callable(v) else v) for k, v in sorted(base.items())]
    name = cls.__name__ if not base else f"{cls.__name__}{fixed}"
    return Entry(name, cls, run, tuple(method_params), declared=declared)


def _fn(func, call, name=None):
    return Entry(name or func.__name__, func, call)


REGISTRY = [
    _est(MLPClassifier, (X3, Y3), base={"max_iter": 5, "random_state": 0}),
    _est(MLPClassifier, (X2, Y2), base={"max_iter": 3, "batch_size": 8, "solver": "adam", "random_state": 0}),
    _est(Perceptron, (X2, Y2), base={"max_epochs": 20}),
    _est(Perceptron, (X2, Y2), base={"max_epochs": 20, "mode": "batch"}),
    _est(LogisticRegression, (X2, Y2), base={"max_iter": 30}),
    _est(LogisticRegression, (X2, Y2), base={"max_iter": 30, "solver": "gd"}),
    _est(DecisionTree, (X3, Y3)),
    _est(DecisionStump, (X2, Y2)),
    _est(AdaBoost, (X2, Y2), base={"n_rounds": 5, "base": "tree"}),
    _est(Bagging, (X3, Y3), base={"n_estimators": 4}),
    _est(RandomForest, (X3, Y3), base={"n_estimators": 4}),
    _est(LinearRegression, (XR, YR)),
    _est(LinearRegression, (XR, YR), base={"solver": "gd", "max_iter": 200}),
    _est(Ridge, (XR, YR)),
    _est(Lasso, (XR, YR), base={"max_iter": 50}),
    _est(PolynomialBasis, (X1,)),
    _est(GaussianBasis, (X1,)),
    _est(BasisRegression, (X1, Y1), base={"basis": PolynomialBasis(3), "regressor": Ridge(0.1)}),
    _est(NGramModel, (TOKENS,), base={"n": 2, "smoothing": "laplace"}),
    _est(NGramModel, (TOKENS,), base={"n": 2, "smoothing": "kneser-ney"}),
    Entry("NGramModel.generate_steps", NGramModel,
          lambda over: _first(NGramModel(2, "laplace").fit(TOKENS).generate_steps(
              **{"length": 5, "random_state": 0, **over})),
          only=("length", "temperature", "top_k", "n_top")),
    _est(CategoricalHMM, (SYMBOLS,), base={"n_states": 2, "n_symbols": 3, "max_iter": 5, "random_state": 0}),
    Entry("CategoricalHMM.sample", CategoricalHMM,
          lambda over: CategoricalHMM(2, 3, **HMM_GOOD).sample(**{"n": 10, "random_state": 0, **over}),
          only=("n",)),
    _est(MetropolisHastings, None, base={"log_target": _gauss, "random_state": 0},
         fit=lambda est, extra: (est.sample(**{"x0": [0.0, 0.0], "n": 30, **extra}), est)[1], method_params=("n",)),
    _est(LatentDirichletAllocation, ([[0, 1, 2, 1], [2, 3, 3], [0, 0, 4]],),
         base={"n_topics": 2, "n_sweeps": 4, "random_state": 0}),
    _est(PottsGibbs, None, base={"random_state": 0},
         fit=lambda est, extra: est.fit(IMAGE, **{"n_sweeps": 3, **extra}), method_params=("n_sweeps",)),
    _est(PageRank, (GRAPH,)),
    _est(GaussianProcessRegressor, (X1, Y1), base={"kernel": GPRBF(0.2)}),
    _est(GaussianProcessRegressor, (X1, Y1), base={"kernel": GPRBF(0.2), "optimize": True, "n_restarts": 1,
                                                   "random_state": 0}),
    Entry("GaussianProcessRegressor.sample_prior", GaussianProcessRegressor,
          lambda over: GaussianProcessRegressor(GPRBF()).sample_prior(X1, **{"n_samples": 3, "random_state": 0,
                                                                             **over}), only=("n_samples",)),
    *(Entry(k.__name__, k, lambda over, k=k: k(**over)(X1)) for k in (GPRBF, Matern, Periodic, Linear)),
    _fn(kernels.rbf, lambda over: kernels.rbf(X2[:5], **over)),
    _fn(kernels.polynomial, lambda over: kernels.polynomial(X2[:5], **over)),
    Entry("make_kernel(rbf)", kernels.rbf, lambda over: kernels.make_kernel("rbf", **over)(X2[:5])),
    Entry("make_kernel(poly)", kernels.polynomial, lambda over: kernels.make_kernel("poly", **over)(X2[:5])),
    _fn(markov.chain_steps, lambda over: _first(markov.chain_steps(CHAIN, **over))),
    _fn(markov.pagerank_steps, lambda over: _first(markov.pagerank_steps(GRAPH, **over))),
    _fn(markov.pagerank, lambda over: markov.pagerank(GRAPH, **over)),
    _fn(markov.random_surfer_steps,
        lambda over: _first(markov.random_surfer_steps(GRAPH, **{"n_walkers": 20, "n_steps": 5, "random_state": 0,
                                                                 **over}))),
    _fn(markov.layout_steps, lambda over: _first(markov.layout_steps(GRAPH, **{"random_state": 0, **over}))),
    _fn(markov.layout, lambda over: markov.layout(GRAPH, **{"random_state": 0, "n_iter": 5, **over})),
    _fn(sampling.rejection_steps,
        lambda over: _first(sampling.rejection_steps(_gauss_1d, GaussianProposal(0.0, 1.0),
                                                     **{"M": 3.0, "random_state": 0, "n_steps": 3, **over}))),
    _fn(grid.grid_points, lambda over: grid.grid_points((0, 1, 0, 1), **over)),
    _fn(grid.decision_frame, lambda over: grid.decision_frame(lambda p: p[:, 0] - p[:, 1], (0, 1, 0, 1), **over)),
    _est(BetaBernoulli, (Y2,)),
    Entry("BetaBernoulli.credible_interval", BetaBernoulli, lambda over: BetaBernoulli().fit(Y2).credible_interval(
        **over), only=("level",)),
    _est(DirichletMultinomial, (Y3,), base={"alpha": [1.0, 2.0, 0.5]}),
    _est(NormalKnownVariance, (X1[:, 0],)),
    _est(GaussianBayesClassifier, (X3, Y3)),
    _est(GaussianBayesClassifier, (X3, Y3), base={"covariance": "diagonal"}),
    _est(GaussianBayesClassifier, (X3, Y3), base={"covariance": "shared"}),
    _est(MultinomialNaiveBayes, (np.abs(X3), Y3)),
    _fn(bayes.bayes_risk_2gauss, lambda over: bayes.bayes_risk_2gauss(
        **{"mu0": [0.0, 0.0], "cov0": np.eye(2), "mu1": [1.0, 0.0], "cov1": 2 * np.eye(2), "prior1": 0.5, **over})),
    _fn(model_selection.kfold_indices, lambda over: model_selection.kfold_indices(**{"n": 10, "k": 3, **over})),
    _fn(model_selection.cross_val_error,
        lambda over: model_selection.cross_val_error(DecisionStump, X2, Y2, **{"random_state": 0, **over})),
    *(_fn(f, lambda over, f=f: f(**{"epsilon": 0.1, "delta": 0.05, **({"size": 100} if f is
                                                                      learning_theory.finite_class_bound else {}),
                                     **over}))
      for f in (learning_theory.pac_rectangle_bound, learning_theory.finite_class_bound)),
    _fn(learning_theory.vc_error_bound, lambda over: learning_theory.vc_error_bound(**{"d": 4, "m": 50, "delta": 0.05,
                                                                                       **over})),
    _fn(learning_theory.sauer_bound, lambda over: learning_theory.sauer_bound(**{"m": 20, "d": 3, **over})),
    _fn(learning_theory.pac_experiment, lambda over: learning_theory.pac_experiment(
        (0.2, 0.7, 0.3, 0.8), **{"epsilon": 0.1, "delta": 0.1, "m": 20, "n_trials": 5, "random_state": 0, **over})),
    _fn(learning_theory.pac_experiment_steps, lambda over: _first(learning_theory.pac_experiment_steps(
        (0.2, 0.7, 0.3, 0.8), **{"epsilon": 0.1, "delta": 0.1, "m": 20, "n_trials": 5, "random_state": 0, **over}))),
    _fn(learning_theory.rectangle_errors, lambda over: learning_theory.rectangle_errors(
        (0.2, 0.7, 0.3, 0.8), **{"m": 20, "n_trials": 5, "random_state": 0, **over})),
    _fn(learning_theory.rectangle_game_steps, lambda over: _first(learning_theory.rectangle_game_steps(
        (0.2, 0.7, 0.3, 0.8), **{"m": 20, "random_state": 0, **over}))),
]


@functools.lru_cache(maxsize=1)
def _tiny_cascade():
    from smlengine.cascade import Cascade

    rng = np.random.default_rng(0)
    faces = rng.random((40, 6, 6))
    faces[:, :3] += 0.3 * rng.random((40, 1, 1))
    return Cascade(window=6, n_candidate_features=None, max_stages=1, negatives_per_stage=30,
                   random_state=0).fit(faces, rng.random((30, 6, 6)))


def _others():
    """Estimators and functions of the other engine modules (fuzzed; declared ranges not required)."""
    from smlengine import detection, features
    from smlengine.cascade import Cascade
    from smlengine.kmeans import KMeans
    from smlengine.mixture import GaussianMixture
    from smlengine.multinomial import MultinomialMixture
    from smlengine.pca import PCA
    from smlengine.svm import SVM

    counts = np.random.default_rng(1).integers(0, 4, size=(30, 5))
    grey, rgb = _rng.random((20, 20)), np.random.default_rng(2).random((12, 12, 3))
    boxes = [[0, 0, 5, 5], [1, 1, 5, 5]]
    faces = np.random.default_rng(0).random((40, 6, 6))
    faces[:, :3] += 0.3 * np.random.default_rng(3).random((40, 1, 1))
    return [
        _est(SVM, (X2, Y2), base={"max_iter": 2000}, declared=False),
        _est(PCA, (XR,), declared=False),
        _est(PCA, (XR,), base={"method": "randomized", "n_components": 2, "random_state": 0}, declared=False),
        _est(KMeans, (X3,), base={"n_clusters": 3, "random_state": 0, "max_iter": 20}, declared=False),
        _est(GaussianMixture, (X3,), base={"n_components": 2, "random_state": 0, "max_iter": 10}, declared=False),
        _est(MultinomialMixture, (counts,), base={"n_components": 2, "random_state": 0, "max_iter": 10},
             declared=False),
        Entry("local_histograms", features.local_histograms, lambda o: features.local_histograms(grey, **o),
              declared=False),
        Entry("texture_histograms", features.texture_histograms, lambda o: features.texture_histograms(grey, **o),
              declared=False),
        Entry("pixel_features", features.pixel_features, lambda o: features.pixel_features(rgb, **o), declared=False),
        Entry("partition_rectangles", detection.partition_rectangles,
              lambda o: detection.partition_rectangles(boxes, **o), declared=False),
        Entry("group_rectangles", detection.group_rectangles, lambda o: detection.group_rectangles(boxes, **o),
              declared=False),
        _est(Cascade, (faces, np.random.default_rng(0).random((30, 6, 6))),
             base={"window": 6, "n_candidate_features": None, "max_stages": 1, "negatives_per_stage": 30,
                   "random_state": 0}, declared=False),
        Entry("Cascade.detect", Cascade.detect, lambda o: _tiny_cascade().detect(grey, **o), declared=False,
              only=("scale_factor", "step", "min_size", "max_size", "min_neighbors", "n_stages")),
    ]


REGISTRY += _others()
REGISTRY += [
    _est(FisherLDA, (X3, Y3)),
    _est(SpectralClustering, (X2,), base={"random_state": 0}),
    _est(SpectralClustering, (X2,), base={"affinity": "knn", "random_state": 0}),
    _est(KernelPCA, (X2,)),
    _est(KernelPCA, (X2,), base={"kernel": "poly"}),
    _est(CCA, (XR, YR), fit=lambda est, extra: (est.fit(XR, YR), est.transform(XR, YR))),
]


#: NaN used on purpose as a marker, and documented where it is produced
EXPLAINED_NAN = EXPLAINED


# ----------------------------------------------------------------------------- checks
def _non_finite(value, path="") -> list[str]:
    """Paths of the NaN/inf numbers inside value (numbers, arrays, snapshots, lists, dicts)."""
    return non_finite(value, EXPLAINED_NAN, path)


def _check_case(entry: Entry, param: str, value):
    try:
        result = entry.run({param: value})
    except (ValueError, TypeError) as exc:
        message = str(exc)
        assert message.startswith(param) or f" {param} " in message or f"{param} must" in message, (
            f"{entry.name}({param}={value!r}) raised a message that does not name the parameter: {message!r}")
        assert len(message) < 400, f"message too long: {message[:100]}..."
        return "refused"
    bad = _non_finite(result, entry.name)
    assert not bad, f"{entry.name}({param}={value!r}) gave non-finite values: {bad[:5]}"
    return "ran"


def _cases(entries):
    for e in entries:
        for p in e.numeric_params():
            for v, vid in zip(VALUES, VALUE_IDS):
                yield pytest.param(e, p, v, id=f"{e.name}-{p}-{vid}")


@pytest.mark.timeout(120)
@pytest.mark.parametrize("entry, param, value", list(_cases(REGISTRY)))
def test_absurd_value_is_refused_or_harmless(entry, param, value):
    _check_case(entry, param, value)


def test_every_numeric_parameter_is_declared():
    """Each registered target states a range for every numeric parameter it has."""
    missing = []
    for e in REGISTRY:
        if not e.declared:
            continue
        constraints = getattr(e.target, "_parameter_constraints", None)
        assert constraints is not None, f"{e.name} declares no _parameter_constraints"
        for p in e.numeric_params():
            if p not in constraints and p not in e.params and e.only is None:
                missing.append(f"{e.name}.{p}")
    assert not missing, f"numeric parameters without a declared range: {missing}"


def test_the_registry_fuzzes_something_and_refusals_happen_early():
    assert sum(1 for _ in _cases(REGISTRY)) > 400
    # refused before any allocation: the cases the issue names
    with pytest.raises(ValueError, match=r"^n_estimators must be an int in \[1, 10000\]; got 1000000000$"):
        Bagging(n_estimators=10**9).fit(X3, Y3)
    with pytest.raises(ValueError, match=r"^k must be a float in \[0, 1e6\]; got 1e308$"):
        NGramModel(2, "laplace", k=1e308).fit(TOKENS)
    for n in (10**9, 2**63):
        with pytest.raises(ValueError, match=r"^n_walkers must be an int"):
            markov.random_surfer_steps(GRAPH, n_walkers=n)


def test_cascade_training_snapshots_are_finite_or_none():
    """Every snapshot of a cascade's training, not only the last: a rate or threshold undefined at a
    step (before the stage's first stump, before any mining scan) is None."""
    from smlengine.cascade import Cascade

    rng = np.random.default_rng(0)
    faces = rng.random((40, 6, 6))
    faces[:, :3] += 0.3 * rng.random((40, 1, 1))
    model = Cascade(window=6, n_candidate_features=None, max_stages=2, negatives_per_stage=30, random_state=0)
    snaps = list(model.fit_steps(faces, [rng.random((40, 40)) for _ in range(3)]))
    assert {"mining", "feature", "stage"} <= {s.phase for s in snaps} | {s.event for s in snaps}
    bad = _non_finite(snaps, "Cascade.fit_steps")
    assert not bad, bad[:5]
    assert snaps[0].stage_detection_rate is None and snaps[0].mined_acceptance is None
