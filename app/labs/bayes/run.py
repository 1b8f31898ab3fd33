"""The runs (Qt-free): the coin's Beta posterior and the die's Dirichlet posterior flip by flip;
Gaussian classes with the MAP rule, priors and losses, and QDA, LDA and naive Bayes fitted from
a growing sample; learning curves of generative against discriminative classifiers."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np
from scipy.special import ndtr

from smlengine import Snapshot, frozen_array
from smlengine._resources import resource_path
from smlengine.bayes import (
    BetaBernoulli,
    DirichletMultinomial,
    GaussianBayesClassifier,
    MultinomialNaiveBayes,
    bayes_risk_2gauss,
)
from smlengine.cache import LRUCache
from smlengine.logistic import LogisticRegression

METHODS = [("coin", "Coin and dice"), ("decision", "Decision"), ("curves", "Generative vs discriminative"),
           ("spam", "Spam filter")]

# ----------------------------------------------------------------------------- coin and die
#: the priors the lab compares: name -> (label, a, b)
PRIORS = {"uniform": ("Uniform Beta(1, 1)", 1.0, 1.0), "jeffreys": ("Jeffreys Beta(½, ½)", 0.5, 0.5),
          "wrong": ("Strong and wrong Beta(18, 2)", 18.0, 2.0)}
DICE = {"fair": ("Fair", (1 / 3, 1 / 3, 1 / 3)), "loaded": ("Loaded 60/30/10", (0.6, 0.3, 0.1))}
LEVEL = 0.95


@dataclass(frozen=True, kw_only=True, eq=False)
class BayesCoinSnapshot(Snapshot):
    """The posteriors after ``n`` flips of the coin and ``n`` rolls of the die."""

    n: int
    heads: int
    x: float | None  # the flip just seen
    prior: str
    a0: float
    b0: float
    a: float
    b: float
    mean: float
    mode: float | None
    ml: float | None  # k / n (None before the first flip)
    lo: float
    hi: float
    true_p: float | None  # None when the flips are the user's clicks
    log_ml: tuple  # log marginal likelihood of the flips so far under each of PRIORS (in order)
    die_alpha: np.ndarray  # (3,) the Dirichlet posterior
    die_prior: float
    die_true: np.ndarray | None
    symbol: int | None


def coin_flips(p: float, n: int, seed: int) -> np.ndarray:
    """``n`` flips of a coin with P(heads) = p (seeded)."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"the coin's P(heads) must be in [0, 1], got {p}")
    return (np.random.default_rng(seed).random(n) < p).astype(np.int64)


def die_rolls(probs, n: int, seed: int) -> np.ndarray:
    """``n`` rolls of a three-faced die with the given face probabilities (seeded)."""
    return np.random.default_rng([seed, 1]).choice(3, size=n, p=np.asarray(probs, float))


def coin_steps(flips: np.ndarray, prior: str, true_p: float | None, rolls: np.ndarray, die_prior: float,
               die_true) -> object:
    """Yield the posteriors one flip (and one roll) at a time: yesterday's posterior is today's prior.

    The marginal likelihood of each prior grows by the chain rule, log p(x₁..xₙ) = Σ log p(xᵢ | x<ᵢ),
    each factor the predictive probability of the flip under the posterior before it.
    """
    _, a0, b0 = PRIORS[prior]
    chosen = BetaBernoulli(a0, b0)
    walks = [BetaBernoulli(a, b).update_steps(flips) for _, a, b in PRIORS.values()]
    die = DirichletMultinomial([die_prior] * 3).update_steps(rolls)
    truth = None if die_true is None else frozen_array(die_true, float)
    log_ml = np.zeros(len(PRIORS))
    previous = None
    for s, others, d in zip(chosen.update_steps(flips), zip(*walks), die):
        if previous is not None:
            log_ml += [math.log((o.a if s.x else o.b) / (o.a + o.b)) for o in previous]
        previous = others
        lo, hi = chosen.credible_interval(LEVEL)
        yield BayesCoinSnapshot(step=s.step, n=s.n_seen, heads=s.heads, x=s.x, prior=prior, a0=a0, b0=b0,
                                a=s.a, b=s.b, mean=chosen.mean(), mode=chosen.mode(),
                                ml=s.heads / s.n_seen if s.n_seen else None, lo=lo, hi=hi, true_p=true_p,
                                log_ml=tuple(float(v) for v in log_ml), die_alpha=d.alpha, die_prior=die_prior,
                                die_true=truth, symbol=d.symbol, progress=s.progress)


def beta_curve(a: float, b: float, xs: np.ndarray) -> np.ndarray:
    """The Beta(a, b) density on ``xs`` (0 < x < 1)."""
    from scipy.stats import beta  # deferred: scipy.stats takes a second to import, paid by the worker

    return beta.pdf(xs, a, b)


def simplex_density(alpha, size: int = 120) -> tuple[np.ndarray, tuple]:
    """The Dirichlet(α) density of three faces on a grid over the triangle with corners (0, 0),
    (1, 0), (½, √3/2) (face k at corner k): (size, size) image (NaN outside) and its (x0, y0, w, h)."""
    from scipy.special import gammaln  # deferred as above

    alpha = np.asarray(alpha, float)
    h = math.sqrt(3) / 2
    xs = (np.arange(size) + 0.5) / size
    ys = (np.arange(size) + 0.5) / size * h
    X, Y = np.meshgrid(xs, ys)
    t3 = Y / h  # barycentric coordinates: corners 0, 1, 2
    t2 = X - 0.5 * t3
    t1 = 1.0 - t2 - t3
    T = np.stack([t1, t2, t3])
    inside = np.all(T > 1e-9, axis=0)
    log_norm = gammaln(alpha.sum()) - gammaln(alpha).sum()
    with np.errstate(divide="ignore", invalid="ignore"):
        logp = log_norm + np.sum((alpha[:, None, None] - 1.0) * np.log(np.where(inside, T, 1.0)), axis=0)
    dens = np.where(inside, np.exp(np.minimum(logp, 700.0)), np.nan) / h  # per unit area of the triangle
    return dens.astype(np.float32), (0.0, 0.0, 1.0, h)


def simplex_point(p) -> tuple[float, float]:
    """(x, y) of the probabilities p (3,) on the triangle."""
    p = np.asarray(p, float)
    return float(p[1] + 0.5 * p[2]), float(p[2] * math.sqrt(3) / 2)


# ----------------------------------------------------------------------------- decision
#: the default classes: means and covariances (three; the two-class problem uses the first two)
DEFAULT_CLASSES = {"means": [[-1.2, -0.6], [1.3, 0.4], [-0.2, 2.0]],
                   "covs": [[[1.0, 0.3], [0.3, 0.6]], [[0.5, -0.25], [-0.25, 1.4]], [[0.4, 0.0], [0.0, 0.4]]]}
MODELS = [("full", "QDA"), ("shared", "LDA"), ("diagonal", "NB")]
GRID = 140
#: sample sizes of the decision run, one per step
SIZES = (12, 18, 25, 35, 50, 70, 100, 140, 200, 280, 400, 560, 800, 1100, 1500, 2000)


@dataclass(frozen=True, kw_only=True, eq=False)
class BayesDecisionSnapshot(Snapshot):
    """The true classes, their MAP (minimum-risk) map, and the three models fitted from ``n`` points."""

    n: int
    K: int
    means: np.ndarray  # (K, 2) the truth
    covs: np.ndarray  # (K, 2, 2)
    priors: np.ndarray  # (K,)
    loss: np.ndarray  # (K, K) loss[j, k]: truth j, decision k
    extent: tuple  # (x0, x1, y0, y1) of the grid
    posterior: np.ndarray  # (K, GRID, GRID) float32, P(y = k | x) of the truth
    decision: np.ndarray  # (GRID, GRID) uint8, the minimum-risk decision of the truth
    error_density: np.ndarray  # (GRID, GRID) float32, p(x) times the conditional risk of that decision
    bayes_risk: float  # ∫ on the grid
    bayes_risk_exact: float | None  # two classes: from bayes_risk_2gauss (any loss matrix)
    X: np.ndarray  # (n, 2) the sample
    y: np.ndarray  # (n,)
    fitted: tuple  # per model: (K, GRID, GRID) uint8 decision (None where the fit failed)
    fitted_means: tuple  # per model: (K, 2) or None
    fitted_covs: tuple  # per model: (K, 2, 2) or None
    risks: tuple  # per model: its true risk (∫ on the grid), or None
    fit_errors: tuple  # per model: the message of a refused fit, or ""


def check_classes(data: dict, K: int) -> tuple[np.ndarray, np.ndarray]:
    """The first K means and covariances of ``data``; ValueError for anything a Gaussian cannot be."""
    try:
        means = np.asarray(data["means"], float)[:K]
        covs = np.asarray(data["covs"], float)[:K]
    except (KeyError, TypeError, ValueError):
        raise ValueError("classes need 'means' (K × 2) and 'covs' (K × 2 × 2) as numbers") from None
    if means.shape != (K, 2) or covs.shape != (K, 2, 2):
        raise ValueError(f"classes need {K} means of 2 coordinates and {K} 2 × 2 covariances")
    if not (np.all(np.isfinite(means)) and np.all(np.isfinite(covs))) or np.abs(means).max() > 1e3:
        raise ValueError("class means and covariances must be finite, the means within ±1000")
    for k, c in enumerate(covs):
        if abs(c[0, 1] - c[1, 0]) > 1e-9 or c[0, 0] <= 0 or np.linalg.det(c) <= 1e-9 * c[0, 0] * c[1, 1]:
            raise ValueError(f"the covariance of class {k + 1} must be symmetric positive definite")
    return means, covs


def decision_box(means, covs) -> tuple:
    """A square box holding every class ellipse out to 3.5 standard deviations."""
    sd = np.sqrt(np.stack([c.diagonal() for c in covs]))
    lo = (means - 3.5 * sd).min(axis=0)
    hi = (means + 3.5 * sd).max(axis=0)
    centre, half = (lo + hi) / 2, float((hi - lo).max()) / 2
    return (centre[0] - half, centre[0] + half, centre[1] - half, centre[1] + half)


def _grid(extent) -> tuple[np.ndarray, float]:
    x0, x1, y0, y1 = extent
    xs = x0 + (np.arange(GRID) + 0.5) * (x1 - x0) / GRID
    ys = y0 + (np.arange(GRID) + 0.5) * (y1 - y0) / GRID
    X, Y = np.meshgrid(xs, ys)
    return np.column_stack([X.ravel(), Y.ravel()]), (x1 - x0) * (y1 - y0) / GRID ** 2


def _log_densities(points, means, covs) -> np.ndarray:
    out = np.empty((len(means), len(points)))
    for k, (m, c) in enumerate(zip(means, covs)):
        L = np.linalg.cholesky(c)
        z = np.linalg.solve(L, (points - m).T)
        out[k] = -0.5 * np.sum(z * z, axis=0) - np.log(np.diag(L)).sum() - math.log(2 * math.pi)
    return out


#: the loss matrix's entries the lab sets, (truth j, decision k) 0-based; parameter ``loss_{j+1}{k+1}``
LOSS_ENTRIES = ((0, 1), (1, 0), (0, 2), (1, 2), (2, 0), (2, 1))
#: the smallest prior a class may keep (the last class takes what the others leave)
MIN_PRIOR = 0.05


def loss_name(j: int, k: int) -> str:
    """The parameter of L(j, k), the loss of deciding class k + 1 when the truth is class j + 1."""
    return f"loss_{j + 1}{k + 1}"


def loss_matrix(K: int, params: dict) -> np.ndarray:
    """The K × K loss matrix L[j, k] (truth j, decision k): 0 on the diagonal, the off-diagonal
    entries from the lab's parameters ``loss_12``, ``loss_21``, … (positive numbers)."""
    L = np.zeros((K, K))
    for j, k in LOSS_ENTRIES:
        if j < K and k < K:
            v = float(params[loss_name(j, k)])
            if not (math.isfinite(v) and v > 0.0):
                raise ValueError(f"the loss of deciding class {k + 1} when the truth is class {j + 1} must be a "
                                 f"positive number, got {v:g}")
            L[j, k] = v
    return L


def class_priors(K: int, prior1: float, prior2: float) -> np.ndarray:
    """π = (π₁, 1 − π₁) for two classes; (π₁, π₂, 1 − π₁ − π₂) for three, refused when class 3
    would keep less than :data:`MIN_PRIOR`."""
    if K == 2:
        return np.array([prior1, 1.0 - prior1])
    rest = 1.0 - prior1 - prior2
    if rest < MIN_PRIOR - 1e-9:
        raise ValueError(f"π of class 1 and π of class 2 sum to {prior1 + prior2:.2f}: class 3 takes the rest, "
                         f"at least {MIN_PRIOR:g}. Lower one of them.")
    return np.array([prior1, prior2, rest])


def exact_bayes_risk(means, covs, priors, loss) -> float | None:
    """Two classes: the Bayes risk ∫ min(L₀₁ π₀ p₀, L₁₀ π₁ p₁) dx, which is (w₀ + w₁) times the
    Bayes error of priors proportional to w₀ = L₀₁ π₀ and w₁ = L₁₀ π₁ (None for three classes)."""
    if len(means) != 2:
        return None
    w0, w1 = loss[0, 1] * priors[0], loss[1, 0] * priors[1]
    return (w0 + w1) * bayes_risk_2gauss(means[0], covs[0], means[1], covs[1], float(w1 / (w0 + w1)))


def decision_steps(means, covs, priors, loss, n_max: int, seed: int):
    """Yield the truth's minimum-risk map, then QDA, LDA and naive Bayes fitted from a growing sample.

    The decision minimises the expected loss Σ_j L[j, k] P(y = j | x) (the MAP rule for 0–1 loss);
    each risk is ∫ Σ_j π_j p_j(x) L[j, d(x)] dx on the grid, the fitted models judged by the truth.
    """
    K = len(means)
    priors = np.asarray(priors, float) / np.sum(priors)
    loss = np.asarray(loss, float)
    extent = decision_box(means, covs)
    points, cell = _grid(extent)
    joint = np.exp(_log_densities(points, means, covs)) * priors[:, None]  # π_j p_j(x), (K, m)
    density = joint.sum(axis=0)
    posterior = joint / np.maximum(density, 1e-300)
    expected = loss.T @ joint  # (K decisions, m): Σ_j L[j, k] π_j p_j(x)
    decision = np.argmin(expected, axis=0)
    cond_risk = expected[decision, np.arange(points.shape[0])]
    bayes_risk = float(cond_risk.sum() * cell)
    exact = exact_bayes_risk(means, covs, priors, loss)
    shape = (GRID, GRID)
    truth = dict(K=K, means=frozen_array(means), covs=frozen_array(covs), priors=frozen_array(priors),
                 loss=frozen_array(loss), extent=tuple(float(v) for v in extent),
                 posterior=frozen_array(posterior.reshape(K, *shape), np.float32),
                 decision=frozen_array(decision.reshape(shape), np.uint8),
                 error_density=frozen_array(cond_risk.reshape(shape), np.float32),
                 bayes_risk=bayes_risk, bayes_risk_exact=exact)
    rng = np.random.default_rng(seed)
    y_all = rng.choice(K, size=n_max, p=priors)
    X_all = np.empty((n_max, 2))
    for k in range(K):
        idx = np.flatnonzero(y_all == k)
        X_all[idx] = rng.multivariate_normal(means[k], covs[k], idx.size)
    sizes = [n for n in SIZES if n < n_max] + [n_max]
    for step, n in enumerate(sizes):
        X, y = X_all[:n], y_all[:n]
        fitted, f_means, f_covs, risks, errors = [], [], [], [], []
        for cov_kind, _ in MODELS:
            try:
                if np.unique(y).size < K:
                    raise ValueError(f"the sample has no point of class {int(np.setdiff1d(np.arange(K), y)[0]) + 1}")
                model = GaussianBayesClassifier(covariance=cov_kind, priors=priors).fit(X, y)
            except ValueError as exc:
                for out in (fitted, f_means, f_covs, risks):
                    out.append(None)
                errors.append(str(exc))
                continue
            post = model.predict_proba(points).T  # (K, m) the model's own posteriors
            d = np.argmin(loss.T @ post, axis=0)
            risks.append(float(expected[d, np.arange(points.shape[0])].sum() * cell))
            fitted.append(frozen_array(d.reshape(shape), np.uint8))
            c = model.covariances_
            full = np.stack([np.diag(v) for v in c]) if cov_kind == "diagonal" else (
                np.broadcast_to(c, (K, 2, 2)) if cov_kind == "shared" else c)
            f_means.append(frozen_array(model.means_))
            f_covs.append(frozen_array(full))
            errors.append("")
        yield BayesDecisionSnapshot(step=step, n=n, X=frozen_array(X), y=frozen_array(y), fitted=tuple(fitted),
                                    fitted_means=tuple(f_means), fitted_covs=tuple(f_covs), risks=tuple(risks),
                                    fit_errors=tuple(errors), progress=(step + 1) / len(sizes), **truth)


def boundary_lines(s: BayesDecisionSnapshot) -> list:
    """The boundaries of the truth's decision and of each fitted model's, as NaN-separated (x, y)
    polylines (None for a model whose fit failed)."""
    from skimage.measure import find_contours  # deferred: scikit-image takes a second to import

    x0, x1, y0, y1 = s.extent
    dx, dy = (x1 - x0) / GRID, (y1 - y0) / GRID

    def lines(labels):
        if labels is None:
            return None
        xs, ys = [], []
        for k in range(1 if s.K == 2 else s.K):
            for c in find_contours((labels == k).astype(np.float32), 0.5):
                xs += [x0 + (c[:, 1] + 0.5) * dx, [np.nan]]
                ys += [y0 + (c[:, 0] + 0.5) * dy, [np.nan]]
        return (np.concatenate(xs), np.concatenate(ys)) if xs else (np.zeros(0), np.zeros(0))

    return [lines(s.decision), *(lines(f) for f in s.fitted)]


# ----------------------------------------------------------------------------- learning curves
CURVE_SIZES = (5, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2000)
CURVE_MODELS = [("nb", "naive Bayes"), ("lda", "LDA"), ("logistic", "logistic")]
#: the two data sets of the learning curves: name, the panel's title (one line on a projector), what it holds
SETTINGS = [("right", "independent: NB right", "20 independent features given the class: naive Bayes's model is right"),
            ("wrong", "correlated: NB wrong", "10 pairs of features correlated 0.9 given the class: naive Bayes's "
             "model is wrong (it counts each pair's evidence twice)")]
D_CURVES = 20
N_TEST = 2000


@dataclass(frozen=True, kw_only=True, eq=False)
class BayesCurvesSnapshot(Snapshot):
    """Test errors at ``n`` training points averaged over the ``done`` samples drawn so far at that n
    (``complete`` once all ``repeats`` are in), for each setting."""

    n: int
    done: int
    repeats: int
    complete: bool
    errors: dict  # (setting, model) -> mean test error
    bayes: dict  # setting -> Bayes error


def _setting(name: str):
    """(mean difference μ₁ − μ₀, covariance) of two Gaussian classes in D_CURVES dimensions."""
    d = D_CURVES
    if name == "right":
        return np.full(d, 2.0 / math.sqrt(d)), np.eye(d)
    # pairs of features that repeat one another (correlation 0.9): naive Bayes counts the evidence twice
    cov = np.eye(d)
    for i in range(0, d, 2):
        cov[i, i + 1] = cov[i + 1, i] = 0.9
    mu = np.zeros(d)
    mu[0::2], mu[1::2] = 0.9, 0.1
    return mu, cov


def _draw(name: str, n: int, rng) -> tuple[np.ndarray, np.ndarray]:
    mu, cov = _setting(name)
    y = np.arange(n) % 2  # balanced, so every class has points from the smallest n on
    L = np.linalg.cholesky(cov)
    X = rng.standard_normal((n, D_CURVES)) @ L.T + np.where(y[:, None] == 1, 0.5, -0.5) * mu
    return X, y


def _curve_model(m: str):
    if m == "logistic":  # weakly penalised: the discriminative model as it is, not shrunk towards 0
        return LogisticRegression(C=100.0, max_iter=50)
    return GaussianBayesClassifier("diagonal" if m == "nb" else "shared", reg=1e-3)


def curves_steps(repeats: int, seed: int, sizes=CURVE_SIZES):
    """Yield, for each training size n and each of ``repeats`` samples, the test error of naive Bayes,
    LDA and logistic regression averaged so far, on data where naive Bayes is right and where it is
    wrong (features that come in correlated pairs)."""
    tests = {name: _draw(name, N_TEST, np.random.default_rng([seed, 7, i])) for i, (name, *_) in enumerate(SETTINGS)}
    bayes = {}
    for name, *_ in SETTINGS:
        mu, cov = _setting(name)
        bayes[name] = float(ndtr(-0.5 * math.sqrt(mu @ np.linalg.solve(cov, mu))))  # Φ(−Δ/2)
    rng = np.random.default_rng([seed, 11])
    total, step = len(sizes) * repeats, 0
    for n in sizes:
        sums = {(s, m): 0.0 for s, *_ in SETTINGS for m, _ in CURVE_MODELS}
        for r in range(1, repeats + 1):
            for name, *_ in SETTINGS:
                X, y = _draw(name, n, rng)
                Xt, yt = tests[name]
                for m, _ in CURVE_MODELS:
                    sums[(name, m)] += float(np.mean(_curve_model(m).fit(X, y).predict(Xt) != yt))
            yield BayesCurvesSnapshot(step=step, n=n, done=r, repeats=repeats, complete=r == repeats,
                                      errors={k: v / r for k, v in sums.items()}, bayes=bayes,
                                      progress=(step + 1) / total)
            step += 1


# ----------------------------------------------------------------------------- spam filter
SPAM_FILE = "spam-messages.tsv"
TRAIN_SIZES = (10, 20, 40, 80, 160, 320)
TEST_SHARE = 0.3
TOP_WORDS = 8
MAX_MESSAGE = 160  # characters of a typed message (a text message's length)
DEFAULT_MESSAGE = "are you free tonight? call me about the prize"
_WORD = re.compile(r"[a-z0-9£$%.']*[a-z0-9£$%]")
_CORPUS = LRUCache(maxsize=2)


def words(text: str) -> list[str]:
    """The message's words: lower case, letters, digits and £ $ %, joined by dots or apostrophes."""
    return _WORD.findall(text.lower())


def load_spam_corpus() -> tuple[list[str], np.ndarray]:
    """The shipped messages and their labels (1 spam, 0 ham), read once."""
    def read():
        texts, labels = [], []
        for line in resource_path("data", SPAM_FILE).read_text(encoding="utf-8").splitlines():
            label, text = line.split("\t", 1)
            texts.append(text)
            labels.append(1 if label == "spam" else 0)
        return texts, np.array(labels)

    return _CORPUS.get_or_compute(SPAM_FILE, read)


@dataclass(frozen=True, kw_only=True, eq=False)
class BayesSpamSnapshot(Snapshot):
    """Multinomial naive Bayes trained on the first ``m`` training messages, and a message scored."""

    m: int
    n_test: int
    accuracy: float
    spam_caught: float  # share of the test spam flagged
    ham_flagged: float  # share of the test ham flagged as spam
    spam_words: tuple  # (word, log P(w | spam) − log P(w | ham)) of the words that push most toward spam
    ham_words: tuple  # the same toward ham
    message: str
    tokens: tuple  # (word, its log-odds contribution, or None for a word the filter never saw)
    prior_log_odds: float  # log P(spam) − log P(ham)
    log_odds: float  # of the message
    p_spam: float


def spam_steps(message: str, alpha: float, seed: int):
    """Yield the filter trained on more and more messages: log P(c | x) = log π_c + Σ_w x_w log P(w | c)."""
    texts, labels = load_spam_corpus()
    order = np.random.default_rng(seed).permutation(len(texts))
    n_test = int(round(TEST_SHARE * len(texts)))
    test, train = order[:n_test], order[n_test:]
    sizes = [m for m in TRAIN_SIZES if m < train.size] + [train.size]
    vocab = sorted({w for i in train for w in words(texts[i])})
    index = {w: j for j, w in enumerate(vocab)}

    def counts(messages) -> np.ndarray:  # one row of word counts per message; unknown words dropped
        X = np.zeros((len(messages), len(vocab)))
        for r, text in enumerate(messages):
            for w in words(text):
                if w in index:
                    X[r, index[w]] += 1.0
        return X

    X_train, X_test = counts([texts[i] for i in train]), counts([texts[i] for i in test])
    y_test = labels[test]
    for step, m in enumerate(sizes):
        y = labels[train[:m]]
        if np.unique(y).size < 2:  # too few messages for both classes: take the next size
            continue
        model = MultinomialNaiveBayes(alpha=alpha).fit(X_train[:m], y)
        pred = model.predict(X_test)
        spam_col = int(np.flatnonzero(model.classes_ == 1)[0])
        ratio = model.feature_log_prob_[spam_col] - model.feature_log_prob_[1 - spam_col]
        seen = X_train[:m].sum(axis=0) > 0  # words the filter has met so far
        ranked = np.flatnonzero(seen)[np.argsort(-ratio[seen], kind="stable")]
        spam_words = tuple((vocab[j], float(ratio[j])) for j in ranked[:TOP_WORDS])
        ham_words = tuple((vocab[j], float(ratio[j])) for j in ranked[::-1][:TOP_WORDS])
        prior = float(model.class_log_prior_[spam_col] - model.class_log_prior_[1 - spam_col])
        tokens = tuple((w, float(ratio[index[w]]) if w in index and seen[index[w]] else None) for w in words(message))
        log_odds = prior + sum(v for _, v in tokens if v is not None)
        yield BayesSpamSnapshot(step=step, m=m, n_test=n_test, accuracy=float(np.mean(pred == y_test)),
                                spam_caught=float(np.mean(pred[y_test == 1] == 1)),
                                ham_flagged=float(np.mean(pred[y_test == 0] == 1)), spam_words=spam_words,
                                ham_words=ham_words, message=message, tokens=tokens, prior_log_odds=prior,
                                log_odds=float(log_odds), p_spam=float(1.0 / (1.0 + math.exp(-log_odds))),
                                progress=(step + 1) / len(sizes))


# ----------------------------------------------------------------------------- the run
def run_steps(method: str, *args):
    """The run of the chosen tab: ``coin_steps``, ``decision_steps``, ``curves_steps`` or ``spam_steps``."""
    return {"coin": coin_steps, "decision": decision_steps, "curves": curves_steps, "spam": spam_steps}[method](*args)
