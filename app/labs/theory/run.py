"""The runs of the learning-theory lab (Qt-free), one per tab: the rectangle game then its trials, every
labelling of the points tried in turn, the growth functions as m grows, and the bounds against the error
measured as m grows."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from smlengine import Snapshot, frozen_array
from smlengine import learning_theory as lt
from smlengine.phases import StepCounter

TASKS = [("game", "Rectangle game"), ("shatter", "Shatter it"), ("growth", "Growth"), ("bounds", "Bounds")]
CLASS_NAMES = {"thresholds": "Thresholds", "intervals": "Intervals", "half-planes": "Half-planes",
               "rectangles": "Rectangles", "discs": "Discs"}
CLASS_CHOICES = list(CLASS_NAMES.items())
SOURCES = [("random", "Random points"), ("drawn", "The drawn points")]
MAX_SHATTER = 10  # 2¹⁰ labellings tried, one per step
MAX_GROWTH = 30  # the growth tab's largest m
GRID = 20  # the finite class of the bounds tab: rectangles with corners on the 1/20 grid
FINITE_SIZE = (GRID * (GRID + 1) // 2) ** 2 + 1  # C(21, 2)² rectangles and the empty one
N_BINS = 25
N_BOUND_MS = 14


def target_of(seed: int) -> tuple[float, float, float, float]:
    """The hidden rectangle of a seed: sides of 0.35 to 0.65 on the 1/20 grid, inside the unit square."""
    rng = np.random.default_rng(seed)
    w, h = (rng.integers(7, 14, size=2)) / GRID
    x0 = rng.integers(0, int(round((1 - w) * GRID)) + 1) / GRID
    y0 = rng.integers(0, int(round((1 - h) * GRID)) + 1) / GRID
    return (float(x0), float(x0 + w), float(y0), float(y0 + h))


def random_points(n: int, seed: int) -> np.ndarray:
    """n points in general position in the unit square (seeded)."""
    return np.random.default_rng(seed).uniform(0.1, 0.9, size=(n, 2))


# ----------------------------------------------------------------------------- the rectangle game
@dataclass(frozen=True, kw_only=True, eq=False)
class TheoryGameSnapshot(Snapshot):
    """The square (one game's samples, R′ and the strips of R \\ R′) and the trials' errors so far."""

    target: tuple
    X: np.ndarray
    y: np.ndarray
    rectangle: tuple | None
    strips: list
    strip_areas: np.ndarray
    error: float
    n_seen: int  # samples in the square
    m: int  # samples per trial
    trial: int  # trials done (0 during the game)
    n_trials: int
    errors: np.ndarray
    fraction_over: float | None
    epsilon: float
    delta: float
    bound: int  # m₀ = ⌈(4/ε) ln(4/δ)⌉
    chance_bound: float  # 4 e^{−εm/4}: the course's bound on P(err > ε) at this m


def game_steps(target, epsilon: float, delta: float, m: int, n_trials: int, seed: int):
    """Samples one by one up to m (the game), then one trial of m fresh samples per step."""
    counter = StepCounter()
    common = dict(target=target, m=m, n_trials=n_trials, epsilon=epsilon, delta=delta,
                  bound=lt.pac_rectangle_bound(epsilon, delta), chance_bound=min(1.0, 4 * math.exp(-epsilon * m / 4)))
    no_errors = frozen_array(np.zeros(0))
    for g in lt.rectangle_game_steps(target, m, random_state=seed):
        yield TheoryGameSnapshot(step=counter.next(), phase="samples", X=g.X, y=g.y, rectangle=g.rectangle,
                                 strips=g.strips, strip_areas=g.strip_areas, error=g.error, n_seen=g.m, trial=0,
                                 errors=no_errors, fraction_over=None, **common)
    trials = lt.pac_experiment_steps(target, epsilon, delta, m, n_trials, random_state=seed + 1)
    next(trials)  # its step 0 holds no trial
    for t in trials:
        strips = lt.error_strips(target, t.rectangle)
        yield TheoryGameSnapshot(step=counter.next(), phase="trials", X=t.X, y=t.y, rectangle=t.rectangle,
                                 strips=strips, strip_areas=frozen_array([_area(s) for s in strips]), error=t.error,
                                 n_seen=m, trial=t.trial, errors=t.errors, fraction_over=t.fraction_over, **common)


def _area(r) -> float:
    return max(r[1] - r[0], 0.0) * max(r[3] - r[2], 0.0)


# ----------------------------------------------------------------------------- shatter it
@dataclass(frozen=True, kw_only=True, eq=False)
class TheoryShatterSnapshot(Snapshot):
    """Labelling number ``index`` of the 2^m (bit i: point i), whether the class realises it, and a hypothesis."""

    cls: str
    points: np.ndarray
    index: int
    labels: np.ndarray
    realisable: bool
    hypothesis: object
    tried: np.ndarray  # (2^m,) 1 realised, −1 not realisable, 0 not tried yet
    n_realisable: int  # of all 2^m: Π on these points
    witness: int | None  # the first labelling found that the class cannot realise


def labels_of(index: int, m: int) -> np.ndarray:
    return ((index >> np.arange(m)) & 1).astype(np.int8)


def shatter_steps(cls: str, points: np.ndarray):
    """Every labelling of the points in turn: lit when the class realises it, with the hypothesis that does."""
    m = len(points)
    P = points[:, 0] if lt.DIMENSION[cls] == 1 else points
    realisable = lt.labellings(cls, P)
    tried = np.zeros(2 ** m, dtype=np.int8)
    witness = None
    for k in range(2 ** m):
        labels = labels_of(k, m)
        ok = tuple(int(v) for v in labels) in realisable
        tried[k] = 1 if ok else -1
        if not ok and witness is None:
            witness = k
        yield TheoryShatterSnapshot(step=k, cls=cls, points=frozen_array(points), index=k, labels=frozen_array(labels),
                                    realisable=ok, hypothesis=lt.realise(cls, P, labels) if ok else None,
                                    tried=frozen_array(tried), n_realisable=len(realisable), witness=witness)


# ----------------------------------------------------------------------------- growth
@dataclass(frozen=True, kw_only=True, eq=False)
class TheoryGrowthSnapshot(Snapshot):
    """Π on the first m points for every class, m = 1 .. ``m``."""

    m: int
    source: str
    points: np.ndarray
    ms: np.ndarray
    counts: dict  # class → (len(ms),) labellings realised on the first m points


def growth_steps(points: np.ndarray, source: str):
    """One m more per step: the labellings each class realises on the first m points."""
    counts = {c: [] for c in lt.CLASSES}
    for m in range(1, len(points) + 1):
        for c in lt.CLASSES:
            P = points[:m, 0] if lt.DIMENSION[c] == 1 else points[:m]
            counts[c].append(lt.growth(c, P))
        yield TheoryGrowthSnapshot(step=m - 1, m=m, source=source, points=frozen_array(points[:m]),
                                   ms=frozen_array(np.arange(1, m + 1)),
                                   counts={c: frozen_array(v) for c, v in counts.items()})


# ----------------------------------------------------------------------------- bounds
@dataclass(frozen=True, kw_only=True, eq=False)
class TheoryBoundsSnapshot(Snapshot):
    """At m = ms[-1]: the measured errors of the consistent learner and the three bounds on ε(m)."""

    m: int
    delta: float
    n_trials: int
    ms: np.ndarray
    mean_error: np.ndarray
    quantile_error: np.ndarray  # the (1 − δ) quantile over the trials: what a bound at δ must exceed
    finite_bound: np.ndarray  # (ln|H| + ln(1/δ)) / m
    vc_bound: np.ndarray  # (2/m)(log₂ Π(2m) + log₂(2/δ)), d = 4
    rectangle_bound: np.ndarray  # (4/m) ln(4/δ)


def bound_ms(m_max: int) -> np.ndarray:
    return np.unique(np.round(np.geomspace(5, m_max, N_BOUND_MS)).astype(int))


def snapped_errors(target, m: int, n_trials: int, rng: np.random.Generator) -> np.ndarray:
    """err of the smallest grid rectangle around the positives (a consistent learner of the finite class)."""
    x0, x1, y0, y1 = target
    out = np.empty(n_trials)
    block = max(1, 400_000 // m)
    for start in range(0, n_trials, block):
        X = rng.random((min(block, n_trials - start), m, 2))
        inside = (X[..., 0] >= x0) & (X[..., 0] <= x1) & (X[..., 1] >= y0) & (X[..., 1] <= y1)
        lo = np.floor(np.where(inside[..., None], X, np.inf).min(axis=1) * GRID) / GRID
        hi = np.ceil(np.where(inside[..., None], X, -np.inf).max(axis=1) * GRID) / GRID
        found = inside.any(axis=1)
        area = np.where(found, np.prod(np.where(found[:, None], hi - lo, 0.0), axis=1), 0.0)
        out[start:start + len(X)] = (x1 - x0) * (y1 - y0) - area
    return out


def bounds_steps(target, delta: float, m_max: int, n_trials: int, seed: int):
    rng = np.random.default_rng(seed)
    rows: list[tuple] = []
    for step, m in enumerate(bound_ms(m_max)):
        errors = snapped_errors(target, int(m), n_trials, rng)
        rows.append((m, errors.mean(), np.quantile(errors, 1 - delta),
                     (math.log(FINITE_SIZE) + math.log(1 / delta)) / m, lt.vc_error_bound(4, int(m), delta),
                     4 / m * math.log(4 / delta)))
        cols = [frozen_array(c) for c in zip(*rows)]
        yield TheoryBoundsSnapshot(step=step, m=int(m), delta=delta, n_trials=n_trials, ms=cols[0],
                                   mean_error=cols[1], quantile_error=cols[2], finite_bound=cols[3],
                                   vc_bound=cols[4], rectangle_bound=cols[5])


def run_steps(task: str, *args):
    """The run of one tab: ``game_steps``, ``shatter_steps``, ``growth_steps`` or ``bounds_steps``."""
    return {"game": game_steps, "shatter": shatter_steps, "growth": growth_steps, "bounds": bounds_steps}[task](*args)
