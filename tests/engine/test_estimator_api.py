"""Every engine estimator plays with scikit-learn: clone, get/set_params, cross_val_score, GridSearchCV, Pipeline.

scikit-learn's ``check_estimator`` runs about fifty checks; most of them test how an estimator
handles input formats a teaching estimator refuses with its own message (sparse matrices,
complex numbers, object arrays, 1-D X, the exact wording "Reshape your data") or multi-output
targets. The subset run here, ``API_CHECKS``, is scikit-learn's own API group
(``sklearn.utils.estimator_checks._yield_api_checks``) plus its parameter and cloning checks,
less two that need scikit-learn types at run time:

* ``check_estimators_unfitted`` wants ``sklearn.exceptions.NotFittedError``; the engine raises
  its own :class:`smlengine.NotFittedError` (a ValueError and AttributeError, like scikit-learn's)
  because scikit-learn is a test-only dependency;
* ``check_n_features_in_after_fitting`` wants scikit-learn's wording of the feature-count error.

Estimators whose data is not a table of samples (a graph for PageRank, a target density for
Metropolis-Hastings, one image for the Potts sampler) have nothing for cross-validation to split:
they are checked for ``clone``, ``get_params``/``set_params`` and ``repr`` only (``CLONE_ONLY``).
Estimators without a ``score`` yet are listed in ``PENDING`` with what they lack.
"""

import warnings

import numpy as np
import pytest

sklearn = pytest.importorskip("sklearn")
from sklearn.base import clone  # noqa: E402
from sklearn.model_selection import GridSearchCV, KFold, StratifiedKFold, cross_val_score  # noqa: E402
from sklearn.pipeline import Pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402
from sklearn.utils import estimator_checks  # noqa: E402

from smlengine.bayes import (  # noqa: E402
    BetaBernoulli,
    DirichletMultinomial,
    GaussianBayesClassifier,
    MultinomialNaiveBayes,
    NormalKnownVariance,
)
from smlengine.ensemble import AdaBoost, Bagging, RandomForest  # noqa: E402
from smlengine.gp import RBF, GaussianProcessRegressor, Linear, Periodic  # noqa: E402
from smlengine.hmm import CategoricalHMM  # noqa: E402
from smlengine.kmeans import KMeans  # noqa: E402
from smlengine.linear import Perceptron  # noqa: E402
from smlengine.logistic import LogisticRegression  # noqa: E402
from smlengine.markov import PageRank  # noqa: E402
from smlengine.mixture import GaussianMixture  # noqa: E402
from smlengine.mrf import PottsGibbs  # noqa: E402
from smlengine.multinomial import MultinomialMixture  # noqa: E402
from smlengine.neural import MLPClassifier  # noqa: E402
from smlengine.ngram import NGramModel, tokenize  # noqa: E402
from smlengine.regression import (  # noqa: E402
    BasisRegression,
    GaussianBasis,
    Lasso,
    LinearRegression,
    PolynomialBasis,
    Ridge,
)
from smlengine.sampling import MetropolisHastings  # noqa: E402
from smlengine.spectral import CCA, FisherLDA, KernelPCA, SpectralClustering  # noqa: E402
from smlengine.svm import SVM  # noqa: E402
from smlengine.topics import LatentDirichletAllocation  # noqa: E402
from smlengine.trees import DecisionStump, DecisionTree  # noqa: E402


# ----------------------------------------------------------------------------- data
def _blobs(n_classes, n=60, seed=0):
    rng = np.random.default_rng(seed)
    centres = np.array([[0.0, 0.0], [4.0, 4.0], [0.0, 5.0]])[:n_classes]
    y = np.arange(n) % n_classes
    return centres[y] + rng.normal(size=(n, 2)), y


def _linear(n=40, seed=1):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    return X, X @ np.array([1.5, -2.0, 0.5]) + 0.3 + 0.05 * rng.normal(size=n)


def _curve(n=40, seed=2):
    rng = np.random.default_rng(seed)
    x = np.sort(rng.uniform(-1, 1, n))[:, None]
    return x, np.sin(3 * x[:, 0]) + 0.05 * rng.normal(size=n)


TEXT = "\n".join(["the cat sat on the mat", "the dog sat on the log", "a cat and a dog met on the mat",
                  "the log and the mat sat still"] * 6)
TOKENS = tokenize(TEXT)
HMM_GOOD = dict(startprob=[0.5, 0.5], transmat=[[0.9, 0.1], [0.2, 0.8]],
                emissionprob=[[0.6, 0.3, 0.1], [0.1, 0.3, 0.6]])
SYMBOLS = CategoricalHMM(2, 3, **HMM_GOOD, random_state=3).sample(300)[0][:, None]

BINARY, MULTI, LINEAR, CURVE = _blobs(2), _blobs(3), _linear(), _curve()
COUNTS = np.random.default_rng(4).integers(0, 5, size=(60, 4))
WORDS = (np.random.default_rng(5).poisson([[4, 1, 0.5, 2]] * 30 + [[0.5, 3, 4, 1]] * 30), np.arange(60) // 30)
FLIPS = (np.random.default_rng(6).random(60) < 0.7).astype(int)
ROLLS = np.random.default_rng(7).integers(0, 3, 60)
READINGS = np.random.default_rng(8).normal(1.0, 1.0, 60)

# name -> (estimator, data (X, y or None), grid for GridSearchCV, cv splitter)
SUPERVISED = {
    "Perceptron": (Perceptron(max_epochs=20, random_state=0), BINARY, {"max_epochs": [1, 20]}),
    "SVM": (SVM(C=1.0, kernel="rbf", gamma=0.5), BINARY, {"C": [0.1, 10.0]}),
    "LogisticRegression": (LogisticRegression(), BINARY, {"C": [0.01, 1.0]}),
    "DecisionTree": (DecisionTree(max_depth=3), MULTI, {"max_depth": [1, 3]}),
    "DecisionStump": (DecisionStump(), BINARY, {"criterion": ["gini", "misclassification"]}),
    "AdaBoost": (AdaBoost(n_rounds=10), BINARY, {"n_rounds": [2, 10]}),
    "Bagging": (Bagging(n_estimators=5, random_state=0), MULTI, {"max_depth": [1, None]}),
    "RandomForest": (RandomForest(n_estimators=5, random_state=0), MULTI, {"max_features": ["sqrt", 1]}),
    "LinearRegression": (LinearRegression(), LINEAR, {"fit_intercept": [True, False]}),
    "Ridge": (Ridge(alpha=1.0), LINEAR, {"alpha": [1e-3, 1e3]}),
    "Lasso": (Lasso(alpha=0.01), LINEAR, {"alpha": [1e-3, 10.0]}),
    "BasisRegression": (BasisRegression(PolynomialBasis(3), Ridge(1e-3)), CURVE,
                        {"basis__degree": [1, 5], "regressor__alpha": [1e-3, 1.0]}),
    "GaussianBayesClassifier": (GaussianBayesClassifier(), MULTI, {"covariance": ["full", "shared", "diagonal"]}),
    "MultinomialNaiveBayes": (MultinomialNaiveBayes(), WORDS, {"alpha": [0.1, 1.0]}),
    "GaussianProcessRegressor": (GaussianProcessRegressor(RBF(0.5), noise=0.01), CURVE,
                                 {"kernel__length_scale": [0.05, 0.5], "noise": [1e-3, 1.0]}),
    "MLPClassifier": (MLPClassifier((6,), solver="adam", learning_rate=0.05, max_iter=60, random_state=0), MULTI,
                      {"alpha": [1e-4, 10.0]}),
}
#: estimators of counts: a scaler in front would make them negative
COUNT_DATA = {"MultinomialNaiveBayes"}
UNSUPERVISED = {
    "NGramModel": (NGramModel(n=2, smoothing="laplace"), TOKENS, {"k": [0.01, 5.0]}),
    "CategoricalHMM": (CategoricalHMM(2, 3, max_iter=5, random_state=0), SYMBOLS, {"n_states": [1, 2]}),
    "GaussianMixture": (GaussianMixture(2, random_state=0), MULTI[0], {"n_components": [1, 3]}),
    "MultinomialMixture": (MultinomialMixture(2, random_state=0), COUNTS, {"n_components": [1, 2]}),
    "KMeans": (KMeans(3, random_state=0), MULTI[0], {"n_clusters": [2, 3]}),
    "BetaBernoulli": (BetaBernoulli(), FLIPS, {"a": [0.5, 50.0]}),
    "DirichletMultinomial": (DirichletMultinomial([1.0, 1.0, 1.0]), ROLLS,
                             {"alpha": [[1.0, 1.0, 1.0], [9.0, 1.0, 1.0]]}),
    "NormalKnownVariance": (NormalKnownVariance(), READINGS, {"tau0": [0.01, 10.0]}),
}
CLONE_ONLY = {
    "PageRank": PageRank(teleport=0.2, start=[0.5, 0.5]),
    "MetropolisHastings": MetropolisHastings(lambda x: -0.5 * (x * x).sum(axis=1), step_size=0.5, random_state=1),
    "PottsGibbs": PottsGibbs(n_labels=3, means=[0.0, 0.5, 1.0], burn_in=2, random_state=0),
    "LatentDirichletAllocation": LatentDirichletAllocation(4, alpha=0.5, n_sweeps=20, burn_in=5, random_state=0),
    "PolynomialBasis": PolynomialBasis(4, kind="legendre"),
    "GaussianBasis": GaussianBasis([0.1, 0.5], width=0.2),
    "RBF": RBF(0.5, 2.0),
    "Periodic * RBF + Linear": Periodic(1.0, 3.0) * RBF(4.0) + Linear(0.5, 0.1),
    "FisherLDA": FisherLDA(1),
    "SpectralClustering": SpectralClustering(3, affinity="knn", random_state=0),
    "KernelPCA": KernelPCA(2, kernel="poly", gamma=0.5),
    "CCA": CCA(2),
}

#: estimators that have no ``score`` yet: cross_val_score and GridSearchCV need one (e.g. the mean
#: log-likelihood of probabilistic PCA)
PENDING = {
    "PCA": "smlengine/pca.py: no score",
    "Cascade": "smlengine/cascade: no score; fit takes face and non-face image sets",
}

API_CHECKS = [
    "check_estimator_cloneable",
    "check_estimator_tags_renamed",
    "check_valid_tag_types",
    "check_estimator_repr",
    "check_no_attributes_set_in_init",
    "check_parameters_default_constructible",
    "check_get_params_invariance",
    "check_set_params",
    "check_do_not_raise_errors_in_init_or_set_params",
    "check_mixin_order",
    "check_fit_score_takes_y",
    "check_estimators_overwrite_params",
    "check_dont_overwrite_parameters",
    "check_estimators_fit_returns_self",
    "check_readonly_memmap_input",
    "check_fit_idempotent",
    "check_fit_check_is_fitted",
    "check_positive_only_tag_during_fit",
]


def _is_classifier(est):
    return getattr(est, "_estimator_type", None) == "classifier"


def _cv(est):
    return StratifiedKFold(3, shuffle=True, random_state=0) if _is_classifier(est) else KFold(3, shuffle=True,
                                                                                             random_state=0)


def _manual_scores(est, X, y, cv):
    out = []
    for tr, te in cv.split(X, y):
        model = clone(est).fit(X[tr], y[tr])
        out.append(model.score(X[te], y[te]))
    return np.array(out)


# ----------------------------------------------------------------------------- tests
@pytest.mark.parametrize("name", list(SUPERVISED) + list(UNSUPERVISED) + list(CLONE_ONLY))
def test_clone_and_params(name):
    est = SUPERVISED.get(name, UNSUPERVISED.get(name, (CLONE_ONLY.get(name),)))[0]
    twin = clone(est)
    assert type(twin) is type(est) and twin is not est
    params, twin_params = est.get_params(deep=True), twin.get_params(deep=True)
    assert params.keys() == twin_params.keys()
    for key, value in params.items():
        if hasattr(value, "get_params"):
            assert type(twin_params[key]) is type(value) and twin_params[key] is not value
        else:
            assert twin_params[key] is value or np.array_equal(twin_params[key], value)
    assert repr(twin) == repr(est)
    shallow = est.get_params(deep=False)
    assert set(shallow) <= set(params) and not any("__" in k for k in shallow)
    key = next(iter(shallow))
    assert clone(est).set_params(**{key: shallow[key]}).get_params(deep=False)[key] is shallow[key]
    with pytest.raises(ValueError, match="unknown parameter 'no_such_param'"):
        clone(est).set_params(no_such_param=1)


@pytest.mark.parametrize("name", list(SUPERVISED))
def test_cross_val_score_matches_a_manual_loop(name):
    est, (X, y), _ = SUPERVISED[name]
    cv = _cv(est)
    scores = cross_val_score(est, X, y, cv=cv, error_score="raise")
    np.testing.assert_allclose(scores, _manual_scores(est, X, y, cv), rtol=1e-12, atol=1e-12)
    assert scores.mean() > 0.8, scores  # accuracy or R² on easy data: the scores are the estimator's own
    if name in COUNT_DATA:
        return
    piped = cross_val_score(Pipeline([("scale", StandardScaler()), ("model", est)]), X, y, cv=cv,
                            error_score="raise")
    assert np.all(np.isfinite(piped)) and piped.mean() > 0.8


@pytest.mark.parametrize("name", list(SUPERVISED))
def test_grid_search_picks_the_best_cell_and_refits(name):
    est, (X, y), grid = SUPERVISED[name]
    search = GridSearchCV(est, grid, cv=_cv(est), error_score="raise").fit(X, y)
    means = search.cv_results_["mean_test_score"]
    assert search.best_score_ == means.max()
    best = search.best_estimator_
    assert type(best) is type(est)
    for key, value in search.best_params_.items():
        assert best.get_params(deep=True)[key] == value
    assert best.score(X, y) == pytest.approx(clone(est).set_params(**search.best_params_).fit(X, y).score(X, y))


def test_grid_search_prefers_the_right_penalty():
    X, y = LINEAR  # almost noiseless linear data: a huge ridge penalty is clearly worse
    search = GridSearchCV(Ridge(), {"alpha": [1e-3, 1e3]}, cv=KFold(3)).fit(X, y)
    assert search.best_params_ == {"alpha": 1e-3}
    x, t = CURVE  # a sine needs more than a straight line
    search = GridSearchCV(BasisRegression(PolynomialBasis(3), Ridge(1e-6)), {"basis__degree": [1, 5]},
                          cv=KFold(3, shuffle=True, random_state=0)).fit(x, t)
    assert search.best_params_ == {"basis__degree": 5}


def test_bases_work_as_pipeline_steps():
    x, t = CURVE
    for basis in (PolynomialBasis(5), GaussianBasis(8)):
        pipe = Pipeline([("basis", basis), ("ridge", Ridge(1e-3))])
        scores = cross_val_score(pipe, x, t, cv=KFold(3, shuffle=True, random_state=0), error_score="raise")
        assert scores.mean() > 0.9
        direct = BasisRegression(basis, Ridge(1e-3)).fit(x, t)
        np.testing.assert_allclose(pipe.fit(x, t).predict(x), direct.predict(x), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", list(UNSUPERVISED))
def test_unsupervised_cross_validation_and_grid_search(name):
    est, X, grid = UNSUPERVISED[name]
    cv = KFold(3)
    scores = cross_val_score(est, X, cv=cv, error_score="raise")
    X_arr = np.asarray(X, dtype=object) if isinstance(X, list) else X
    manual = [clone(est).fit(list(X_arr[tr]) if isinstance(X, list) else X[tr]).score(
        list(X_arr[te]) if isinstance(X, list) else X[te]) for tr, te in cv.split(X_arr)]
    np.testing.assert_allclose(scores, manual, rtol=1e-12)
    assert np.all(np.isfinite(scores))
    search = GridSearchCV(est, grid, cv=cv, error_score="raise").fit(X)
    assert search.best_score_ == search.cv_results_["mean_test_score"].max()
    assert type(search.best_estimator_) is type(est)


def test_the_higher_score_is_the_better_model():
    # n-grams: add-k with a small k fits seen text better than a huge k (close to uniform)
    train, test = TOKENS[: len(TOKENS) // 2], TOKENS[len(TOKENS) // 2:]
    sharp, flat = NGramModel(2, "laplace", k=0.01).fit(train), NGramModel(2, "laplace", k=1e3).fit(train)
    assert sharp.score(test) > flat.score(test)
    # HMM: the true model scores its own sample higher than a model with the emissions swapped
    swapped = dict(HMM_GOOD, emissionprob=HMM_GOOD["emissionprob"][::-1])
    assert CategoricalHMM(2, 3, **HMM_GOOD).score(SYMBOLS) > CategoricalHMM(2, 3, **swapped).score(SYMBOLS)


@pytest.mark.parametrize("name", sorted(PENDING))
def test_pending_estimators(name):
    pytest.skip(f"{name}: {PENDING[name]}")


#: checks that fit on scikit-learn's own data, which has several input columns
FITTING_CHECKS = {"check_fit_score_takes_y", "check_estimators_overwrite_params", "check_dont_overwrite_parameters",
                  "check_estimators_fit_returns_self", "check_readonly_memmap_input", "check_fit_idempotent",
                  "check_fit_check_is_fitted", "check_positive_only_tag_during_fit"}
#: estimators of one input variable (x of shape (n, 1)): the fitting checks' 3-column data does not apply
ONE_INPUT = {"BasisRegression"}


@pytest.mark.parametrize("name", list(SUPERVISED))
@pytest.mark.parametrize("check", API_CHECKS)
def test_scikit_learn_api_checks(name, check):
    if name in ONE_INPUT and check in FITTING_CHECKS:
        pytest.skip(f"{name} models one input variable; {check} fits on 3 columns")
    est = SUPERVISED[name][0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the checks warn about things they then test
        getattr(estimator_checks, check)(type(est).__name__, clone(est))


@pytest.mark.parametrize("name", list(UNSUPERVISED) + list(CLONE_ONLY))
@pytest.mark.parametrize("check", ["check_estimator_cloneable", "check_estimator_repr",
                                   "check_no_attributes_set_in_init", "check_get_params_invariance",
                                   "check_set_params", "check_do_not_raise_errors_in_init_or_set_params"])
def test_scikit_learn_parameter_checks_for_non_tabular_estimators(name, check):
    est = UNSUPERVISED[name][0] if name in UNSUPERVISED else CLONE_ONLY[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        getattr(estimator_checks, check)(type(est).__name__, clone(est))


def test_every_engine_estimator_is_listed():
    missing = engine_estimators() - set(SUPERVISED) - set(UNSUPERVISED) - set(CLONE_ONLY) - set(PENDING)
    assert not missing, f"estimators missing from the registry: {sorted(missing)}"


def engine_estimators() -> set[str]:
    """Names of the public estimator classes defined anywhere in smlengine."""
    import importlib
    import inspect
    import pkgutil

    import smlengine
    from smlengine._base import BaseEstimator

    found = set()
    for info in pkgutil.walk_packages(smlengine.__path__, "smlengine."):
        if any(part.startswith("_") for part in info.name.split(".")):
            continue
        mod = importlib.import_module(info.name)
        for cname, obj in vars(mod).items():
            if (inspect.isclass(obj) and issubclass(obj, BaseEstimator) and not cname.startswith("_")
                    and obj.__module__ == mod.__name__):
                found.add(cname)
    return found
