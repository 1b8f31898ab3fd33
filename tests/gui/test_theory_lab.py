"""The learning-theory lab: the default rectangle game (R′ inside R, its strips and their areas, the trials'
histogram and failure rate), the two shattering challenges lit cell by cell with the witness, the growth
curves equal to their formulas, the bounds over the measured error, the maths panel. One lab serves the module."""

import math

import numpy as np
import pytest

from app import style as theme
from app.labs.theory import maths, run
from app.labs.theory.lab import TheoryLab
from app.labs.theory.tabs import CELL_COLORS
from app.testing import drawn, finish, run_to, wait_until
from standalone import standalone_lab
from smlengine import learning_theory as lt


@pytest.fixture(scope="module")
def shared(qapp):
    yield from standalone_lab(TheoryLab)


@pytest.fixture
def lab(shared):
    """The shared lab at its defaults (the rectangle game, seed 0)."""
    shared.pause()
    shared.form.set_values({name: p.default for name, p in shared.form.params.items()}, quiet=True)
    shared.after_params_restored()
    shared.regenerate(undoable=False, restart=True)
    wait_until(lambda: shared.runner.current is not None or shared.runner.error is not None, 30)
    yield shared
    shared.pause()
    shared.runner.cancel()


def _cells(lab):
    """The colour of every cell of the labellings grid, row by row, as 1 (realised), −1 (not) or 0 (untried)."""
    rgba = lab.cells_image.image.reshape(-1, 4)
    by_colour = {tuple(v): k for k, v in CELL_COLORS.items()}
    return np.array([by_colour[tuple(int(c) for c in px)] for px in rgba])


def test_the_rectangle_game_after_30_samples_then_its_trials(lab):
    s = run_to(lab, 30)
    assert s.phase == "samples" and s.n_seen == 30 and s.target == run.target_of(0)
    # every sample drawn, inside R as ●, outside as ✕
    n_in = len(lab.inside_item.getData()[0])
    assert n_in == int(s.y.sum()) and n_in + len(lab.outside_item.getData()[0]) == 30
    # R′ is the bounding box of the ● and lies inside R (the dashed outline)
    xs, ys = lab.learned_item.getData()
    inside = s.X[s.y == 1]
    assert (min(xs), max(xs), min(ys), max(ys)) == pytest.approx(
        (inside[:, 0].min(), inside[:, 0].max(), inside[:, 1].min(), inside[:, 1].max()))
    tx, ty = lab.target_item.getData()
    assert min(tx) <= min(xs) and max(xs) <= max(tx) and min(ty) <= min(ys) and max(ys) <= max(ty)
    # the four strips shade R \ R′, each named with its area; together they are the error
    areas = [r.rect().width() * r.rect().height() for r in lab.strip_items]
    assert sum(areas) == pytest.approx(s.error, abs=1e-12) == pytest.approx(0.0518, abs=1e-4)
    assert [t.toPlainText() for t in lab.strip_texts] == [f"{a:.3f}" for a in s.strip_areas]
    assert lab.square.labels[0] == f"game: m = 30, err(R′) = {s.error:.3f}"
    html = maths.maths_html(s)
    assert "Sample 30 of 30" in html and "m ≥ (4/ε) ln(4/δ) = <b>176</b>" in html
    assert f"err(R′) = area(R) − area(R′) = {s.error:.4f}" in html

    last = run_to(lab, 230)
    assert last.phase == "trials" and last.trial == 200 and last.step == 230
    edges, counts = lab.hist_curve.getData()
    assert counts.max() > 0 and np.sum(counts[1:-1:2]) == 200  # every trial in one bin of the histogram
    assert lab.eps_line.value() == 0.1 and lab.delta_line.value() == 0.05
    trial, fraction = lab.frac_panel.series["fraction over ε"].x, lab.frac_panel.series["fraction over ε"].y
    assert trial[-1] == 200 and fraction[-1] == last.fraction_over == pytest.approx(0.595)
    # 30 samples are far fewer than m₀ = 176: most trials fail, far above δ
    assert last.fraction_over > 10 * last.delta


def test_half_planes_cannot_shatter_four_points_rectangles_the_diamond(lab):
    lab.challenge("half-planes")
    assert lab.tabs.currentIndex() == 1 and lab.form.value("task") == "shatter"
    s = run_to(lab, 3)  # labelling 3: the first two points +, a line realises it
    assert s.realisable and _cells(lab).tolist()[:4] == [1, 1, 1, 1] and not _cells(lab)[4:].any()
    hx, hy = lab.hyp_item.getData()
    w = np.array([hy[1] - hy[0], -(hx[1] - hx[0])])
    side = np.sign((s.points - [hx[0], hy[0]]) @ w)
    assert side[0] == side[1] == -side[2] == -side[3]  # the drawn line separates + from −

    last = run_to(lab, 15)
    cells = _cells(lab)
    assert (cells == 1).sum() == 14 and np.flatnonzero(cells == -1).tolist() == [5, 10]  # the two diagonals
    assert last.witness == 5 and lab.cells_title.text.startswith("witness + − + −")
    brushes = [b.color().name().upper() for b in lab.labelled_item.data["brush"]]
    assert brushes == [theme.POS_COLOR, theme.NEG_COLOR, theme.POS_COLOR, theme.NEG_COLOR]
    assert len(lab.hyp_item.getData()[0]) == 0  # no hypothesis for the witness
    assert "Witness: labelling 5 (+−+−)" in maths.maths_html(last)

    lab.challenge("rectangles")
    last = run_to(lab, 15)
    assert (_cells(lab) == 1).sum() == 16 and last.witness is None
    assert "rectangles shatter these 4 points" in maths.maths_html(last)


def test_growth_curves_equal_the_formulas(lab):
    lab.form.set_value("task", "growth")
    assert lab.tabs.currentIndex() == 2
    last = finish(lab)
    m = np.arange(1, 21)
    curve = {name: s.y for name, s in lab.growth_panel.series.items()}
    np.testing.assert_array_equal(lab.growth_panel.series["Half-planes"].x, m)
    np.testing.assert_array_equal(curve["Thresholds"], m + 1)
    np.testing.assert_array_equal(curve["Intervals"], m * (m + 1) / 2 + 1)
    np.testing.assert_array_equal(curve["Half-planes"], m * m - m + 2)
    np.testing.assert_array_equal(curve["2^m"], 2.0 ** m)
    assert np.all(curve["Rectangles"] <= curve["Sauer, d = 4"]) and np.all(curve["Rectangles"][4:] < 2.0 ** m[4:])
    assert int(last.counts["discs"][-1]) == lt.growth("discs", run.random_points(20, 0))


def test_bounds_lie_over_the_measured_error(lab):
    lab.form.set_value("task", "bounds")
    last = finish(lab)
    ms = lab.bounds_panel.series["finite |H|"].x
    np.testing.assert_array_equal(ms, run.bound_ms(1000))
    expected = np.minimum((math.log(run.FINITE_SIZE) + math.log(1 / 0.05)) / ms, 1.0)
    np.testing.assert_allclose(lab.bounds_panel.series["finite |H|"].y, expected, rtol=1e-12)
    quantile = lab.bounds_panel.series["(1 − δ) quantile"].y
    for name in ("finite |H|", "VC, d = 4", "rectangle"):
        assert np.all(lab.bounds_panel.series[name].y >= quantile), name
    assert quantile[-1] < 0.01 < quantile[0]
    assert "|H| = 44,101" in maths.maths_html(last)


def test_too_many_points_to_try_every_labelling_is_refused(lab):
    lab.form.set_value("task", "shatter")
    X = run.random_points(run.MAX_SHATTER + 1, 3)
    lab.set_canvas_points(X, np.ones(len(X)))
    lab.reset()
    wait_until(lambda: "erase some points" in lab.banner.text(), 30)
    assert "11 points: trying all 2^m labellings needs m ≤ 10" in lab.banner.text()
    lab.regenerate(undoable=False, restart=True)
    assert drawn(lab).index == 0 and len(drawn(lab).points) == 4
