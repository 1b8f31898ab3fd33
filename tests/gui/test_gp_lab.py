"""The Gaussian-process lab: the default lesson (a too-short length-scale overfits, the evidence climbs
to a smoother model at the map's top), what is drawn, the band pinching where one clicks, the kernels
compared by their evidence, the maths panel, files and export. One lab serves the whole module."""

import numpy as np
import pytest
from PySide6 import QtCore
from PySide6.QtTest import QTest

from app.labs.gp import maths, run, side_tasks
from app.labs.gp.lab import GPLab
from app.labs.gp.tabs import MAP_DEPTH, TAB_EVIDENCE, TAB_KERNELS, TAB_POSTERIOR, TAB_PRIOR
from app.testing import drawn, finish, run_to, wait_until
from standalone import standalone_lab
from smlengine.gp import RBF, GaussianProcessRegressor


@pytest.fixture(scope="module")
def shared(qapp):
    yield from standalone_lab(GPLab)


@pytest.fixture
def lab(shared):
    """The shared lab back at its defaults: the seed-0 sample and the first step of a new run."""
    shared.pause()
    shared.tabs.setCurrentIndex(TAB_POSTERIOR)
    shared.form.set_values({name: p.default for name, p in shared.form.params.items()}, quiet=True)
    shared.seed = 0
    shared.runbar.seed.blockSignals(True)
    shared.runbar.seed.setValue(0)
    shared.runbar.seed.blockSignals(False)
    shared.regenerate(undoable=False, restart=True)
    wait_until(lambda: shared.runner.current is not None or shared.runner.error is not None, 30)
    yield shared
    shared.pause()
    assert shared.task("kernels").wait(60)
    shared.runner.cancel()  # a paused run keeps its thread: the module's lab holds none between tests


def test_default_teaches_the_lesson(lab):
    """ℓ = 0.03 on 12 points of sin(2πx): between the points the mean falls back to 0 and the band to
    the prior's width (overfitting); the evidence's ascent reaches ℓ ≈ 0.25, where the mean follows
    the sine across the gap, and stops at the top of the evidence map."""
    first = drawn(lab)
    ctx = first.ctx
    assert first.step == 0 and len(ctx.x) == 12 and ctx.truth == "sine"
    assert first.fit.kernel.length_scale == 0.03 and first.fit.noise == 0.01
    xs = np.sort(ctx.x)
    gap = int(np.argmax(np.diff(xs)))
    middle = 0.5 * (xs[gap] + xs[gap + 1])  # the widest gap between two points
    at = np.argmin(np.abs(ctx.grid - middle))
    truth = np.sin(2 * np.pi * ctx.grid[at])
    assert abs(first.mean[at]) < 0.1 < 0.5 < abs(truth)  # back to the prior mean: no idea of the sine
    assert first.std[at] > 0.95  # back to the prior's std √v = 1
    near = [np.argmin(np.abs(ctx.grid - x)) for x in ctx.x]
    assert np.all(first.std[near] < 0.25)  # pinched at the points

    last = finish(lab)
    assert last.fit.best and last.step > 5
    ref = GaussianProcessRegressor(RBF(0.03, 1.0), noise=0.01, optimize=True, random_state=0).fit(ctx.x[:, None],
                                                                                                   ctx.y)
    assert last.log_evidence == pytest.approx(ref.log_marginal_likelihood(), rel=1e-9)
    assert last.fit.kernel.length_scale == pytest.approx(ref.kernel_.length_scale, rel=1e-9)
    assert 0.15 < last.fit.kernel.length_scale < 0.4
    assert last.log_evidence > first.log_evidence + 5
    assert abs(last.mean[at] - truth) < 0.25 and last.std[at] < 0.3  # the sine, across the gap
    assert lab.runner.prepared_for(last) == ()  # the map is computed only while its tab shows
    lab.tabs.setCurrentIndex(TAB_EVIDENCE)
    drawn(lab)
    frame = lab.runner.prepared_for(last)
    assert frame.values.shape == (run.MAP_POINTS, run.MAP_POINTS)
    row, col = np.unravel_index(np.argmax(frame.values), frame.values.shape)
    cell = (frame.box[1] - frame.box[0]) / (run.MAP_POINTS - 1), (frame.box[3] - frame.box[2]) / (run.MAP_POINTS - 1)
    assert abs(frame.axis[col] - last.point[0]) <= 1.01 * cell[0]  # the path ends at the map's top
    assert abs(frame.box[2] + row * cell[1] - last.point[1]) <= 1.01 * cell[1]
    np.testing.assert_allclose(lab.mean_item.yData, last.mean)
    np.testing.assert_allclose(lab.path_item.xData, last.path[:, 0])
    assert (lab.now_item.data["x"][0], lab.now_item.data["y"][0]) == pytest.approx(tuple(last.point))


def test_what_is_drawn_is_the_snapshot(lab):
    s = run_to(lab, 4)
    assert s.step == 4
    g = s.ctx.grid
    np.testing.assert_allclose(lab.band_hi.yData, s.mean + 2 * s.std)
    np.testing.assert_allclose(lab.band_lo.yData, s.mean - 2 * s.std)
    np.testing.assert_allclose(lab.noise_hi.yData, s.mean + 2 * np.sqrt(s.std**2 + s.fit.noise))
    for item, f in zip(lab.sample_items, s.samples):
        np.testing.assert_allclose(item.yData, f)
    np.testing.assert_allclose(lab.truth_item.yData, np.sin(2 * np.pi * g))
    lab.tabs.setCurrentIndex(TAB_PRIOR)  # a tab is drawn when it is shown
    for series, f in zip(lab.prior_series, s.prior):
        np.testing.assert_allclose(series.y, f)
    np.testing.assert_allclose(lab.kernel_series.y, s.kernel_curve)
    np.testing.assert_allclose(lab.cov_view.image.image, s.cov)
    assert lab.x0_line.value() == pytest.approx(s.ctx.x0)
    # the posterior is the engine's at the step's kernel and noise
    gp = GaussianProcessRegressor(s.fit.kernel, noise=s.fit.noise).fit(s.ctx.x[:, None], s.ctx.y)
    mean, std = gp.predict(g[:, None], return_std=True)
    np.testing.assert_allclose(s.mean, mean, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(s.std, std, rtol=1e-10, atol=1e-12)
    at_mean, at_std = run.posterior_at(s, s.ctx.sample_grid)  # the functions drawn are the posterior's
    assert np.all(np.abs(s.samples - at_mean) <= 5 * at_std + 1e-9)
    # the evidence map and its terms are the prepared frame's; the curve per step holds steps 0..4
    lab.tabs.setCurrentIndex(TAB_EVIDENCE)
    drawn(lab)
    frame = lab.runner.prepared_for(s)
    np.testing.assert_allclose(lab.map_image.image, np.clip(frame.values, frame.top - MAP_DEPTH, frame.top))
    assert frame.box[0] <= s.point[0] <= frame.box[1] and frame.box[2] <= s.point[1] <= frame.box[3]
    np.testing.assert_allclose(lab.terms_panel.series["log p"].y,
                               frame.data_fit + frame.complexity + frame.constant)
    np.testing.assert_allclose(lab.evidence_curve.y, [h.log_evidence for h in lab.runner.timeline][:5])
    lab.step_back()
    back = drawn(lab)
    assert back.step == 3 and len(lab.evidence_curve.y) == 4
    assert "step 3" in lab.map_panel.plot_item.titleLabel.text
    np.testing.assert_allclose(lab.path_item.xData, back.path[:, 0])


def test_the_band_pinches_where_you_click(qtbot, lab):
    lab.canvas.clear_points()
    vb = lab.canvas.plot_item.getViewBox()
    lab.canvas.plot_item.setRange(xRange=(0, 1), yRange=(-1.5, 1.5), padding=0)
    clicks = [(0.1, 0.4), (0.25, 1.0), (0.4, 0.5), (0.55, -0.4), (0.8, -0.9), (0.9, -0.3)]
    for x, y in clicks:  # mouse clicks where the plot shows (x, y)
        scene = vb.mapViewToScene(QtCore.QPointF(x, y))
        QTest.mouseClick(lab.canvas.viewport(), QtCore.Qt.MouseButton.LeftButton, QtCore.Qt.KeyboardModifier.NoModifier,
                         lab.canvas.mapFromScene(scene))
    wait_until(lambda: len(lab.canvas.X) == 6 and lab.runner.current is not None
               and len(lab.runner.current.ctx.x) == 6, 30)
    s = drawn(lab)
    np.testing.assert_allclose(s.ctx.x, [c[0] for c in clicks], atol=0.01)
    assert lab.source["kind"] == "drawn" and s.ctx.truth is None
    assert lab.truth_item.yData is None or len(lab.truth_item.yData) == 0  # no truth drawn, none in the legend
    assert all(sample.item is not lab.truth_item for sample, _ in lab.canvas.plot_item.legend.items)
    assert "6 points, drawn" in lab.data_label.text()
    ctx = s.ctx
    _, at_points = run.posterior_at(s, ctx.x)
    mids = 0.5 * (ctx.x[:-1] + ctx.x[1:])
    _, between = run.posterior_at(s, mids)
    _, far = run.posterior_at(s, [ctx.x.max() + 5.0])
    assert np.all(at_points < 0.11)  # σ = 0.1: the band pinches at each click
    assert np.all(between > 3 * at_points.max())  # and widens between them (ℓ = 0.03 is short)
    assert far[0] == pytest.approx(1.0, rel=1e-6)  # far away: the prior's √v
    last = finish(lab)
    _, between_after = run.posterior_at(last, mids)
    assert last.fit.kernel.length_scale > 0.1 and np.all(between_after < between)  # the evidence smooths


def test_kernels_are_compared_by_their_evidence(qtbot, lab):
    lab.tabs.setCurrentIndex(TAB_KERNELS)
    task = lab.task("kernels")
    assert task.wait(60)
    wait_until(lambda: len(lab.kernel_fits) == len(side_tasks.COMPARED) and "prefers" in lab.kernels_note.text(), 30)
    fits = {f.name: f for f in lab.kernel_fits}
    ctx = drawn(lab).ctx
    for name, f in fits.items():
        ell = 1.0 if name == "periodic" else 0.03
        ref = GaussianProcessRegressor(run.make_kernel(name, ell, 1.0, 1.0), noise=0.01, optimize=True,
                                       random_state=0).fit(ctx.x[:, None], ctx.y)
        assert f.log_evidence == pytest.approx(ref.log_marginal_likelihood(), rel=1e-9), name
        np.testing.assert_allclose(lab.kernels_panel.series[side_tasks.SHORT[name]].y, f.mean)
    best = max(fits.values(), key=lambda f: f.log_evidence)
    assert best.name == "periodic"  # the truth is sin(2πx): period 1
    assert fits["periodic"].kernel.period == pytest.approx(1.0, abs=0.05)
    assert fits["linear"].log_evidence < fits["rbf"].log_evidence - 5  # a line cannot follow a sine
    x0, width = np.asarray(lab.bars.opts["x0"]), np.asarray(lab.bars.opts["width"])
    ends = np.where(x0 < 0, x0, x0 + width)  # each bar runs from 0 to its kernel's log evidence, on its row
    np.testing.assert_allclose(ends, [fits[n].log_evidence for n in side_tasks.COMPARED])
    assert list(lab.bars.opts["y"]) == [4, 3, 2, 1, 0]
    ticks = dict(lab.bars_panel.plot_item.getAxis("left")._tickLevels[0])
    assert [ticks[r] for r in lab.bars.opts["y"]] == [side_tasks.SHORT[n] for n in side_tasks.COMPARED]
    colours = [b.color().name() for b in lab.bars.opts["brushes"]]  # each bar in its curve's colour
    assert colours == [lab.kernels_panel.series[side_tasks.SHORT[n]].item.opts["pen"].color().name()
                       for n in side_tasks.COMPARED]
    outlined = [p.style() != QtCore.Qt.PenStyle.NoPen for p in lab.bars.opts["pens"]]
    assert outlined == [n == "periodic" for n in side_tasks.COMPARED]  # the best, and it alone
    assert "prefers periodic" in lab.kernels_note.text()


def test_maths_panel_writes_the_cholesky_solve_and_the_three_terms(lab):
    s = run_to(lab, 2)
    html = maths.maths_html(s)
    f = s.fit
    for value in (f.data_fit, f.complexity, f.constant, f.log_marginal_likelihood):
        assert f"{value:.5g}" in html
    assert f"{s.K_head[0, 1]:.3g}" in html and f"{s.L_head[1, 1]:.3g}" in html and f"{s.alpha_head[0]:.3g}" in html
    assert f"step {s.step}: ascent from the parameters" in html
    assert f.data_fit + f.complexity + f.constant == pytest.approx(f.log_marginal_likelihood)
    np.testing.assert_allclose(s.L_head @ s.L_head.T, s.K_head, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("kernel, symbol", [("linear", "v"), ("periodic", "ℓ"), ("rbf+linear", "ℓ")])
def test_other_kernels_map_their_own_hyper_parameter(lab, kernel, symbol):
    lab.form.set_value("kernel", kernel)
    wait_until(lambda: lab.runner.current is not None and lab.runner.current.ctx.kernel_name == kernel, 30)
    s = run_to(lab, 3)
    lab.tabs.setCurrentIndex(TAB_EVIDENCE)
    s = drawn(lab)
    assert s.ctx.map_symbol == symbol
    assert lab.map_panel.labels[1] == f"log₁₀ {symbol}"
    assert np.all(np.isfinite(s.mean)) and lab.runner.prepared_for(s) is not None


def test_points_from_a_file_and_none_at_all(tmp_path, lab):
    path = tmp_path / "points.csv"
    path.write_text("x,y\n0,1\n1,2\n2,1.5\n3,0\n", encoding="utf-8")
    assert lab.load_points_file(str(path), wait=True)
    wait_until(lambda: lab.runner.current is not None and len(lab.runner.current.ctx.x) == 4, 30)
    s = drawn(lab)
    assert lab.source == {"kind": "file", "name": "points.csv"} and "file points.csv" in lab.data_label.text()
    np.testing.assert_allclose(s.ctx.y, [1, 2, 1.5, 0])
    header, rows = lab.export_rows()
    assert header == ["x", "y", "posterior mean", "posterior std"]
    mean, std = run.posterior_at(s, s.ctx.x)
    np.testing.assert_allclose([r[2] for r in rows], mean)
    lab.canvas.clear_points()
    wait_until(lambda: lab.runner.error is not None, 30)
    assert "There are no points" in lab.banner.text()


def test_restarts_draw_one_path_each_and_the_best_wins(lab):
    lab.form.set_value("restarts", 2)
    wait_until(lambda: lab.runner.current is not None and lab.runner.current.step == 0, 30)
    last = finish(lab)
    breaks = np.flatnonzero(np.isnan(last.path[:, 0]))
    assert len(breaks) == 2  # three ascents, a gap between each
    ends = [piece[-1] for piece in np.split(last.path, breaks) if len(piece[np.isfinite(piece[:, 0])])]
    starts = [lab.runner.timeline[i] for i in range(len(lab.runner.timeline))
              if lab.runner.timeline[i].fit.iteration == 0 and not lab.runner.timeline[i].fit.best]
    assert [s.fit.restart for s in starts] == [0, 1, 2]
    evidences = {s.fit.restart: s.log_evidence for s in lab.runner.timeline if not s.fit.best}
    assert last.log_evidence == max(s.log_evidence for s in lab.runner.timeline)
    assert len(ends) == 3 and any(np.allclose(last.point, e) for e in ends)
    assert min(evidences.values()) < last.log_evidence  # seed 0: one ascent stops at a lower maximum
