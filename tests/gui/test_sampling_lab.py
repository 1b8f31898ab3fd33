"""The Monte Carlo sampling lab: what each tab draws equals the run's numbers; the defaults teach the lessons
(step size, R̂ falling, denoising after burn-in); bad input is a banner, not a crash."""

import numpy as np
import pytest

from app.labs.sampling import run
from app.labs.sampling.lab import DEFAULT_PACE, TAB_GIBBS, TAB_MH, TAB_REJECTION, SamplingLab
from smlengine.sampling import get_target
from app.testing import run_to


@pytest.fixture
def lab(qtbot):
    lab = SamplingLab()
    qtbot.addWidget(lab)
    lab.resize(1280, 760)
    lab.show()
    yield lab
    lab.shutdown()
    lab.close()


def test_mh_tab_draws_the_chains_trace_and_marginals(qtbot, lab):
    assert lab.form.value("method") == "mh" and lab.tabs.currentIndex() == TAB_MH
    # just after burn-in: a handful of kept draws are no density; R̂ and ESS wait, and say why
    snap = run_to(lab, 201)
    assert snap.n_kept == 4 and snap.rhat is None
    assert lab.marg_x.n == 0 and lab.marg_y.n == 0
    assert lab.marg_note.textItem.toPlainText() == "histograms from 2,000 draws: 4 so far"
    text = lab.maths.toPlainText()
    assert "from step 300 (100 draws per chain after burn-in; 1 so far)" in text
    assert "drawn from 2,000 draws after burn-in on, at step 700; 4 so far" in text
    for note in (lab.rhat_note, lab.ess_note):
        assert note.isVisible() and "from step 300" in note.textItem.toPlainText()
    assert "ESS from step 300" in lab.trio_labels[1].text()
    snap = run_to(lab, 700)
    assert snap.step == 700
    states = np.stack([s.state for s in lab.runner.timeline])  # (701, chains, 2)
    assert states.shape[1] == 4
    for k in range(4):
        x, y = lab.paths[k].item.getData()
        np.testing.assert_allclose(x, states[-lab.paths[k].keep:, k, 0])
        np.testing.assert_allclose(y, states[-lab.paths[k].keep:, k, 1])
        np.testing.assert_array_equal(lab.traces[k].x, np.arange(701))
        np.testing.assert_allclose(lab.traces[k].y, states[:, k, 0])
    np.testing.assert_allclose(lab.heads.getData()[0], snap.state[:, 0])
    assert lab.burn_region.getRegion() == (0, 200)
    # from 2,000 kept draws on, the drawn histogram is the density of the draws after burn-in
    kept = states[201:].reshape(-1, 2)
    assert snap.n_kept == len(kept) == 2000
    assert lab.marg_note.textItem.toPlainText() == "2,000 draws" and lab.marg_note.isVisible()
    x0, x1, _, _ = get_target("gaussian").bounds
    edges = np.linspace(x0, x1, run.N_BINS + 1)
    counts = np.histogram(kept[:, 0], bins=edges)[0]
    np.testing.assert_allclose(lab.marg_x.y[::2], counts / (len(kept) * (edges[1] - edges[0])))
    mx, px, _, _ = get_target("gaussian").marginals(400)
    np.testing.assert_allclose(lab.marg_x_true.getData()[1], px)
    assert snap.rhat is not None and not lab.rhat_note.isVisible()
    np.testing.assert_allclose(lab.rhat_x.y[-1], snap.rhat[0])
    np.testing.assert_allclose(lab.ess_y.y[-1], snap.ess[1])
    np.testing.assert_allclose(lab.acf_curve.y, snap.acf)
    assert lab.acf_curve.y[0] == pytest.approx(1.0)
    ess_right = snap.trio_ess[1]
    assert "right: " in lab.trio_labels[1].text() and f"ESS {ess_right:,.0f}" in lab.trio_labels[1].text()
    # chain 1's recent proposals: the accepted ones are where the chain moved
    acc_x, _ = lab.prop_acc.getData()
    moved = [s.proposal[0, 0] for s in list(lab.runner.timeline)[-run.N_RECENT_MH:] if s.step and s.accepted[0]]
    np.testing.assert_allclose(np.sort(acc_x), np.sort(moved))
    html = lab.maths.toPlainText()
    assert "min(1" in html and "R̂" in html and "histograms: the 2,000 draws after burn-in" in html


def test_default_pace_fills_the_marginals_within_a_minute(qtbot, lab):
    """The run bar starts at the lab's pace; the default run at the step a minute of playing at it
    reaches (computed by the lab's own run, without drawing) teaches the step size and R̂ falling,
    and fills the marginals: R̂ < 1.01 and each histogram within 0.05 of its true marginal (total
    variation over the bins). What is drawn of these is checked at step 700 above."""
    assert lab.form.value("method") == "mh"
    assert lab.runbar.rate == DEFAULT_PACE and lab.runner.rate == DEFAULT_PACE
    minute = int(60 * lab.runbar.rate)
    params = {name: lab.form.value(name) for name in lab.form.params}
    rhats, snap = [], None
    for snap in lab.make_run(params, lab.seed)():
        if snap.fresh and snap.rhat is not None:
            rhats.append(snap.rhat)
        if snap.step == minute:
            break
    assert snap.step == minute
    small, right, big = snap.trio_rates
    assert small > 0.9 and 0.25 < right < 0.75 and big < 0.1
    ess_small, ess_right, ess_big = snap.trio_ess
    assert ess_right > ess_small and ess_right > ess_big
    assert rhats[0][0] > 1.1 and max(snap.rhat) < 1.01  # dispersed starts: R̂ falls to 1
    assert snap.n_kept >= run.MIN_MARGINAL_DRAWS
    target = get_target("gaussian")
    x0, x1, y0, y1 = target.bounds
    mx, px, my, py = target.marginals(400)
    for counts, (lo, hi), (grid, dens) in ((snap.hist_x, (x0, x1), (mx, px)), (snap.hist_y, (y0, y1), (my, py))):
        edges = np.linspace(lo, hi, run.N_BINS + 1)
        truth = np.interp((edges[:-1] + edges[1:]) / 2, grid, dens) * (edges[1] - edges[0])
        assert 0.5 * np.abs(counts / snap.n_kept - truth).sum() < 0.05


def test_tabs_choose_the_sampler(qtbot, lab):
    run_to(lab, 3)
    lab.tabs.setCurrentIndex(TAB_GIBBS)
    assert lab.form.value("method") == "gibbs"
    qtbot.waitUntil(lambda: isinstance(lab.runner.current, run.SamplingGibbsSnapshot), timeout=30_000)
    lab.form.set_value("method", "rejection")
    lab.form._edited("method")
    assert lab.tabs.currentIndex() == TAB_REJECTION
    qtbot.waitUntil(lambda: isinstance(lab.runner.current, run.SamplingRejectionSnapshot), timeout=30_000)
    assert lab.main_plot() is lab.rej_panel


def test_gibbs_denoises_after_burn_in(qtbot, lab):
    lab.tabs.setCurrentIndex(TAB_GIBBS)
    snap = run_to(lab, 30)
    pic = snap.picture
    assert snap.burn_in == 10 and lab.form.value("init") == "one"
    first = lab.runner.timeline[0]
    assert np.all(first.labels == 0)  # all one label: burn-in matters
    np.testing.assert_allclose(lab.labels_view.image.image, snap.labels)
    np.testing.assert_allclose(lab.marg_view.image.image, snap.marginal)
    energies = [s.energy for s in lab.runner.timeline]
    np.testing.assert_allclose(lab.energy_curve.y, energies)
    assert energies[0] > energies[5] > np.mean(energies[20:])  # from all one label, the energy falls
    errors = [s.error for s in lab.runner.timeline]
    np.testing.assert_allclose(lab.err_sample.y, 100 * np.array(errors))
    assert snap.error < 0.5 * snap.noisy_error and snap.marginal_error < 0.5 * snap.noisy_error
    assert lab.err_noisy.value() == pytest.approx(100 * snap.noisy_error)
    assert snap.noisy_error == pytest.approx(np.mean(pic.nearest != pic.clean))
    # the marginal is the mean level over the sweeps after burn-in
    fields = np.array([s.labels for s in lab.runner.timeline][11:])
    np.testing.assert_allclose(snap.marginal, fields.mean(axis=0), atol=1e-6)
    assert "p(z" in lab.maths.toPlainText()


def test_rejection_histogram_and_rate(qtbot, lab):
    lab.tabs.setCurrentIndex(TAB_REJECTION)
    snap = run_to(lab, 400)
    assert snap.n_proposed == 400 * 5
    total = snap.counts.sum()
    assert total == snap.n_accepted
    assert abs(snap.rate - 1 / snap.M) < 4 * np.sqrt((1 / snap.M) * (1 - 1 / snap.M) / snap.n_proposed)
    edges = np.linspace(*run.X_RANGE, run.N_BINS + 1)
    np.testing.assert_allclose(lab.hist_curve.y[::2], snap.counts / (total * (edges[1] - edges[0])))
    xs, hs = lab.rej_acc.getData()
    assert np.all(hs <= np.exp(run.target_1d_log(xs)) + 1e-12)  # accepted: under p
    xr, hr = lab.rej_rej.getData()
    assert np.all(hr > np.exp(run.target_1d_log(xr)))  # rejected: above p
    assert lab.rate_ref.value() == pytest.approx(1 / snap.M)
    np.testing.assert_allclose(lab.rate_curve.y[-1], snap.rate)


def test_bad_input_shows_a_banner(qtbot, lab):
    lab.tabs.setCurrentIndex(TAB_REJECTION)
    lab.form.set_value("M", 1.0)
    lab.form._edited("M")
    assert "M = 1 is below max p/q" in lab.error_text
    assert lab.runner.current is None
    lab.form.set_value("M", 2.5)
    lab.form._edited("M")
    qtbot.waitUntil(lambda: lab.runner.current is not None, timeout=30_000)
    assert lab.error_text == ""
    lab.tabs.setCurrentIndex(TAB_MH)
    lab.form.set_value("burn_in", 6000)
    lab.form._edited("burn_in")
    assert "burn-in (6000) must be shorter" in lab.error_text


def test_target_choice_sets_a_good_step_and_draws_its_map(qtbot, lab):
    lab.form.set_value("target", "banana")
    lab.form._edited("target")
    assert lab.form.value("step_size") == pytest.approx(get_target("banana").good_step, rel=1e-3)
    snap = run_to(lab, 50)
    assert snap.target == "banana"
    dens = run.target_picture("banana")[2]
    np.testing.assert_allclose(lab.mh_map.image.image, dens)
    vb = lab.mh_panel.plot_item.getViewBox()
    (vx0, vx1), (vy0, vy1) = vb.viewRange()
    x0, x1, y0, y1 = get_target("banana").bounds
    assert (vx0, vx1, vy0, vy1) == pytest.approx((x0, x1, y0, y1), abs=1e-6)
    # the density map covers the whole view
    assert lab.mh_map.image.sceneBoundingRect().adjusted(-1, -1, 1, 1).contains(vb.sceneBoundingRect())
