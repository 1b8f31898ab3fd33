"""Novelty by the residual, for every class of digits: in the model of their own class (the
lab's default d, its threshold: the 99th percentile of held-out training residuals), digits
typeset from fonts and digits written by simulated strokes fall below the threshold at least
4 times in 5; in the models of other classes, above it at least 4 times in 5.

The fonts and stroke seeds here are the test set of pca_digits (not those the preprocessing,
d and the threshold were chosen on). A drawing reaches the model as in the lab: strokes
painted on the 64 × 64 canvas with the lab's pen, then ``digit_from_bitmap``.
"""

import numpy as np
import pytest

from app.labs.pca import run
from pca_digits import fonts, hand_strokes, typeset  # noqa: E402 - shared helpers beside the tests

DEFAULT_D = 5  # the lab's default (asserted on the lab itself in test_pca_lab)
N_WRITTEN = 20
#: classes for which the own-class outcome does not hold today: typeset 1s carry a foot serif and a flag the
#: handwritten 1s rarely have; typeset and written 6s have a round bowl where the data set's 6s
#: have a small loop under a long stem; typeset 9s (4 of 7 fonts) and written 4s (13 of 20) fall
#: just short
OWN_GAPS = {("typeset", 1), ("typeset", 6), ("typeset", 9), ("written", 1), ("written", 4), ("written", 6)}
#: classes whose digits fall below other classes' thresholds more than 1 time in 5
OTHER_GAPS = {("typeset", 3), ("typeset", 8)}  # pooled rates 0.73 and 0.78: near 8s, 9s, 5s


def _written(c):
    rng = np.random.default_rng(2500 + c)
    (side, _), radius, _grid = run.drawing_geometry(run.load_data(str(c)))
    out = []
    for _ in range(N_WRITTEN):
        ink = np.zeros((side, side))
        for stroke in hand_strokes(c, rng, side):
            run.paint_polyline(ink, stroke, radius)
        out.append(ink)
    return out


def _digits(kind, c):
    inks = [typeset(str(c), f) for f in fonts(56)] if kind == "typeset" else _written(c)
    return [run.model_input(run.load_data(str(c)), ink) for ink in inks]


def _below(x, model_class):
    data = run.load_data(str(model_class))
    _c, _rec, res = run.project(data, x, DEFAULT_D)
    return res <= run.novelty_threshold(data, DEFAULT_D)


def _cases(gaps):
    for kind in ("typeset", "written"):
        for c in range(10):
            gap = pytest.mark.xfail(strict=True, reason="a known gap (see the lists above)")
            marks = [gap] if (kind, c) in gaps else []
            yield pytest.param(kind, c, marks=marks, id=f"{kind}-{c}")


@pytest.mark.parametrize("kind, c", list(_cases(OWN_GAPS)))
def test_own_class_below_threshold(kind, c):
    xs = _digits(kind, c)
    below = [_below(x, c) for x in xs]
    assert len(below) >= 7 and np.mean(below) >= 0.8, (kind, c, below)


@pytest.mark.parametrize("kind, c", list(_cases(OTHER_GAPS)))
def test_other_classes_above_threshold(kind, c):
    """The class's digits in the models of the nine other classes, pooled."""
    xs = _digits(kind, c)
    above = [not _below(x, other) for other in range(10) if other != c for x in xs]
    assert np.mean(above) >= 0.8, (kind, c, np.mean(above))


def test_threshold_is_the_held_out_percentile_and_large_stacks_keep_the_training_one():
    from smlengine.pca import heldout_residuals

    data = run.load_data("3")
    held = heldout_residuals(data.X, data.K, n_folds=run.NOVELTY_FOLDS, random_state=0)
    for d in (0, 5, 64):
        assert run.novelty_threshold(data, d) == pytest.approx(np.percentile(held[:, d], 99))
    assert run.novelty_threshold(data, 5) > np.percentile(run.residual_norms(data, 5), 99)
    # a stack whose 10 fits would be slow is judged by its training residuals
    images = np.random.default_rng(0).random((300, 64, 64))
    big = run.build_data(images, np.full(300, -1), "big stack", ("test", "big"))
    assert not run.heldout_affordable(big)
    assert run.novelty_threshold(big, 5) == pytest.approx(np.percentile(run.residual_norms(big, 5), 99))


@pytest.mark.parametrize("kind", ["typeset", "written"])
def test_over_all_ten_classes_four_in_five(kind):
    """The outcome over every digit of every class: at least 4 in 5 below their own class's
    threshold, and at least 4 in 5 above the thresholds of the other classes."""
    own, other = [], []
    for c in range(10):
        xs = _digits(kind, c)
        own += [_below(x, c) for x in xs]
        other += [not _below(x, m) for m in range(10) if m != c for x in xs]
    assert np.mean(own) >= 0.8 and np.mean(other) >= 0.8, (kind, np.mean(own), np.mean(other))
