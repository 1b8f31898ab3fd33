"""The mixtures lab: the default run converges on the truth, what is drawn is the snapshot's
(colours from responsibilities, ellipses, density), half steps, k-means from the same start,
the collapse, clicked means, loading points (good and bad), side tasks, sessions, projector."""

import json

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6 import QtCore

from app.labs.mixtures import run
from app.labs.mixtures.lab import MixturesLab
from app.widgets.shapes import PALETTE, blend_colours, ellipse_xy
from app.testing import run_to


@pytest.fixture
def lab(qtbot):
    from app import style as theme

    lab = MixturesLab()
    qtbot.addWidget(lab)
    lab.resize(1280, 760)
    lab.show()
    lab.start()
    qtbot.waitUntil(lambda: lab.runner.current is not None, timeout=20_000)
    yield lab
    lab.shutdown()
    theme.manager().set(theme="light", projector=False)


def test_the_first_run_converges_on_the_sampled_mixture(qtbot, lab):
    run_to(lab, 2000)
    r = lab.runner
    frames = list(r.timeline)
    ll = np.array([f.em.log_likelihood for f in frames])
    assert np.all(np.diff(ll) >= -1e-9 * abs(ll[0]))
    last = frames[-1]
    assert last.em.converged and 3 <= last.em.n_iter <= 40
    truth = lab.truth
    assert truth is not None and lab.form.value("data") == "anisotropic"
    # every true mean has a fitted mean close to it, and the fitted ellipses match the true ones
    for m, S in zip(truth.means, truth.covariances):
        j = int(np.argmin(((last.em.means - m) ** 2).sum(axis=1)))
        assert np.linalg.norm(last.em.means[j] - m) < 0.3
        np.testing.assert_allclose(last.em.covariances[j], S, rtol=0.25, atol=0.1)  # sampling error
    # what is drawn is this snapshot: ellipses, means, colours, curve, density
    for j, (one, two) in enumerate(lab.ellipse_items):
        x, y = one.getData()
        if j < 3:
            ex, ey = ellipse_xy(last.em.means[j], last.em.covariances[j], radii=(1.0,))
            np.testing.assert_allclose(x, ex)
            np.testing.assert_allclose(y, ey)
            assert len(two.getData()[0]) == len(ex)
        else:
            assert x is None or len(x) == 0
    np.testing.assert_allclose(np.column_stack(lab.means_item.getData()), last.em.means)
    colours = blend_colours(last.em.responsibilities, PALETTE)
    drawn = np.array([b.color().getRgb()[:3] for b in lab.points_item.data["brush"]])
    np.testing.assert_array_equal(drawn, colours)
    # one unit on every readout: the ℓ curve runs to the step on screen (flat while k-means goes on
    # after EM has converged) and the maths panel says once what a step is and where EM stopped
    assert last.phase == "k-means"  # the default run: k-means needs more iterations than EM
    em_end = max(f.step for f in frames if f.phase != "k-means")
    np.testing.assert_array_equal(lab.ll_curve.x, [f.step for f in frames])
    np.testing.assert_allclose(lab.ll_curve.y, [f.em.log_likelihood for f in frames])
    assert lab.ll_panel.plot_item.getAxis("bottom").labelText == "step"
    text = lab.maths.toPlainText()
    assert "one step is one iteration" in text and f"EM converged at step {em_end}" in text
    assert f"step {last.step}" in lab.runbar.step_label.text()
    dx, dy = lab.density_item.getData()
    assert dx is not None and np.isfinite(dx).sum() > 50
    tx, _ = lab.truth_item.getData()
    assert np.isfinite(tx).sum() == 3 * 2 * 72
    assert "E-step" in lab.maths.toPlainText() and f"Step {last.step}" in lab.maths.toPlainText()


def test_half_steps_move_colours_then_ellipses(qtbot, lab):
    lab.form.set_value("half_steps", True)
    run_to(lab, 6)
    r = lab.runner
    frames = list(r.timeline)[:7]
    assert [f.em.half for f in frames[:5]] == ["init", "E", "M", "E", "M"]
    for prev, cur in zip(frames, frames[1:]):
        if cur.em.half == "E":
            np.testing.assert_array_equal(cur.em.means, prev.em.means)
        else:
            np.testing.assert_array_equal(cur.em.responsibilities, prev.em.responsibilities)
    lab.runner.seek(2)  # an M frame: the ellipses are the new parameters'
    assert "Step 2" in lab.maths.toPlainText() and "one step is a half-step" in lab.maths.toPlainText()
    ex, _ = ellipse_xy(frames[2].em.means[0], frames[2].em.covariances[0], radii=(1.0,))
    np.testing.assert_allclose(lab.ellipse_items[0][0].getData()[0], ex)
    assert lab.bound_curve is not None and lab.bound_curve.item.isVisible()
    bound = lab.bound_curve.y
    assert np.all(np.diff(bound) >= -1e-9 * abs(bound[0]))  # F rises at every half step
    assert np.all(bound <= lab.ll_curve.y[: len(bound)] + 1e-9 * abs(bound[0]))


def test_kmeans_starts_from_the_same_means(qtbot, lab):
    run_to(lab, 2000)
    r = lab.runner
    first = r.timeline[0]
    np.testing.assert_array_equal(first.km.centers, first.em.means)
    last = r.timeline.last
    assert last.km.converged
    lab.tabs.setCurrentIndex(1)  # k-means is drawn when its tab is shown
    np.testing.assert_allclose(np.column_stack(lab.km_centres.getData()), last.km.centers)
    drawn = np.array([b.color().getRgb()[:3] for b in lab.km_points.data["brush"]])
    np.testing.assert_array_equal(drawn, PALETTE[np.asarray(last.km.labels, dtype=int)])
    assert lab.task("sigma").wait(30)
    res = lab.sigma_result
    assert res is not None and res.sigma == pytest.approx(lab.sigma_slider.value())
    lab.sigma_slider.setValue(0.01)
    assert lab.task("sigma").wait(30)
    assert lab.sigma_result.sigma == pytest.approx(0.01)
    assert lab.sigma_result.agreement == 1.0 and lab.sigma_result.max_shift < 1e-6
    assert "100.0% as k-means" in lab.sigma_label.text()


def test_collapse_diverges_without_floor_and_is_held_with_it(qtbot, lab):
    lab.start_collapse()
    assert lab.form.value("floor") is False
    run_to(lab, 2000)
    r = lab.runner
    frames = list(r.timeline)
    assert frames[-1].diverged and "Covariance floor" in frames[-1].note
    lone = frames[0].ctx.lone
    X = frames[0].ctx.X
    assert np.any(np.all(frames[0].em.means == X[lone], axis=1))  # a mean starts on the lone point
    collapsing = [f for f in frames if f.em.half == "collapse"]
    ll = np.array([f.em.log_likelihood for f in collapsing])
    assert len(ll) >= 8 and np.all(np.diff(ll[:-1]) > 0) and ll[-1] - ll[0] > 200
    assert lab.ll_marker.toPlainText() == "ℓ → +∞"
    lab.form.set_value("floor", True)  # the same start with the floor: ℓ stays finite
    run_to(lab, 2000)
    r = lab.runner
    frames = list(r.timeline)
    assert not any(f.diverged for f in frames) and frames[0].ctx.collapse
    ll = np.array([f.em.log_likelihood for f in frames])
    assert np.all(np.isfinite(ll)) and np.all(np.diff(ll) >= -1e-9 * abs(ll[0]))


def test_clicked_means_start_the_run(qtbot, lab):
    lab.set_mode("means")
    assert lab.form.value("init") == "clicked"
    qtbot.waitUntil(lambda: lab.error_text != "", timeout=10_000)
    assert "0 of 3" in lab.error_text
    pts = [(-2.5, 0.0), (0.0, 0.5), (2.5, 0.0)]
    vb = lab.canvas.plot_item.getViewBox()
    for x, y in pts:
        scene = vb.mapViewToScene(QtCore.QPointF(x, y))
        view = lab.canvas.mapFromScene(scene)
        qtbot.mouseClick(lab.canvas.viewport(), QtCore.Qt.MouseButton.LeftButton, pos=view)
    assert len(lab.clicked) == 3
    qtbot.waitUntil(lambda: lab.runner.current is not None and lab.error_text == "", timeout=20_000)
    np.testing.assert_allclose(lab.runner.current.em.means, np.array(pts), atol=0.1)
    assert len(lab.canvas.X) == 400  # clicks placed means, not points
    lab.set_mode("inspect")
    x0 = lab.canvas.X[5]
    lab.select_nearest(*x0)
    assert lab.selected == 5
    assert "Point 6 at" in lab.maths.toPlainText()


def test_bad_input_shows_a_message_and_keeps_the_points(qtbot, lab, tmp_path):
    before = lab.canvas.X.copy()
    bad = tmp_path / "bad.csv"
    bad.write_text("x1,x2\n1,2\n3,oops\n")
    assert lab.load_points_file(str(bad), wait=True) is False
    assert "line 3" in lab.error_text
    np.testing.assert_array_equal(lab.canvas.X, before)
    good = tmp_path / "good.csv"
    good.write_text("x1,x2,label\n0,0,1\n1,0,1\n0,1,1\n5,5,1\n6,5,1\n")
    assert lab.load_points_file(str(good), wait=True) is True
    assert lab.form.value("data") == run.OWN and "good.csv" in lab.data_label.text()
    assert lab.truth is None and len(lab.canvas.X) == 5
    lab.form.set_value("K", 6)  # more components than points
    qtbot.waitUntil(lambda: "distinct points" in lab.error_text, timeout=10_000)
    assert len(lab.canvas.X) == 5
    lab.canvas.set_points(np.ones((4, 2)), np.ones(4))  # duplicates only
    qtbot.waitUntil(lambda: "same place" in lab.error_text, timeout=10_000)
    lab.canvas.set_points(np.ones((1, 2)), np.ones(1))
    qtbot.waitUntil(lambda: "at least 2 points" in lab.error_text, timeout=10_000)
    lab.canvas.undo()
    lab.canvas.undo()
    lab.form.set_value("K", 2)
    qtbot.waitUntil(lambda: lab.runner.current is not None and lab.error_text == "", timeout=10_000)


def test_restarts_and_model_order(qtbot, lab):
    lab.tabs.setCurrentIndex(2)
    lab.run_restarts()
    assert lab.task("restarts").wait(120)
    res = lab.restarts_result
    assert res is not None and len(res.log_likelihoods) == run.N_RESTARTS
    x, y = lab.strip_item.getData()
    np.testing.assert_allclose(y, res.log_likelihoods)
    np.testing.assert_allclose(np.round(x), res.solution_ids)  # each restart in its optimum's column
    counts = ", ".join(map(str, np.bincount(res.solution_ids)))
    assert f"reaching each: {counts})" in lab.restarts_label.text()
    assert f"{res.n_distinct}</b> distinct" in lab.restarts_label.text()
    lab.tabs.setCurrentIndex(3)
    lab.run_model_order()
    assert lab.task("order").wait(300)
    order = lab.order_result
    assert order.progress == 1.0 and order.best_bic_k == 3  # the sample has 3 components
    assert lab.best_k_line.isVisible() and lab.best_k_line.value() == 3
    np.testing.assert_allclose(lab.bic_curve.y, order.bic)
    # BIC's and AIC's markers differ as their lines do: each in its line's colour, in a shape of its own
    marks = []
    for curve in (lab.bic_curve, lab.aic_curve):
        opts = curve.item.opts
        colour = pg.mkBrush(opts["symbolBrush"]).color().name()
        assert colour == pg.mkPen(opts["pen"]).color().name()
        marks.append((opts["symbol"], colour))
    assert marks[0][0] != marks[1][0] and marks[0][1] != marks[1][1]
    assert len(lab.thumb_labels) == len(run.MODEL_ORDER_KS)
    lab.form.set_value("K", 4)  # results of other parameters are marked stale
    assert lab.order_result is None and "changed" in lab.order_label.text()


def test_session_round_trip_and_malformed(qtbot, lab):
    lab.canvas.add_point(9.0, 9.0, 1.0)
    qtbot.waitUntil(lambda: lab.runner.current is not None and len(lab.runner.current.ctx.X) == 401, timeout=20_000)
    assert lab.form.value("data") == run.OWN and "edited by hand" in lab.data_label.text()
    state = json.loads(json.dumps(lab.session_state()))
    lab.form.set_value("data", "well separated")
    assert len(lab.canvas.X) == 400
    lab.restore_session(state, replay=False)
    assert len(lab.canvas.X) == 401 and lab.truth is not None
    bad = json.loads(json.dumps(state))
    bad["user_data"]["points"] = [[1.0, "x"]]
    with pytest.raises(ValueError):
        lab.restore_session(bad)
    assert len(lab.canvas.X) == 401
    lab.reset()
    qtbot.waitUntil(lambda: lab.runner.current is not None and len(lab.runner.current.ctx.X) == 401, timeout=20_000)
    header, rows = lab.export_rows()
    assert header[:3] == ["x1", "x2", "component"] and len(rows) == 401


def test_projector_keeps_the_main_plot_large(qtbot, lab):
    from app import style as theme

    theme.manager().set(projector=True)
    lab.resize(1280, 760)
    qtbot.wait(50)
    run_to(lab, 5)
    share = lab.canvas.height() / lab.height()
    assert share >= 0.40, share
    vb = lab.canvas.plot_item.getViewBox()
    assert vb.height() >= 0.6 * lab.canvas.height()
    legend = lab.legend.sceneBoundingRect()
    assert legend.left() >= vb.sceneBoundingRect().right() - 1  # beside the data, never over it


def test_editing_the_true_mixture_resamples_the_points(qtbot, lab):
    lab.set_mode("truth")
    assert len(lab._handles) == 3
    centre, major, minor = lab._handles[0]
    before = lab.canvas.X.copy()
    offset = np.array([major.pos().x() - centre.pos().x(), major.pos().y() - centre.pos().y()])
    assert np.hypot(*offset) == pytest.approx(np.sqrt(np.linalg.eigvalsh(lab.truth.covariances[0])[1]))
    centre.setPos(-6.0, 4.0)  # drag the first true mean: the axis handles come along
    np.testing.assert_allclose(lab.truth.means[0], [-6.0, 4.0])
    np.testing.assert_allclose([major.pos().x() + 6.0, major.pos().y() - 4.0], offset, atol=1e-9)
    major.setPos(-6.0 + 3.0, 4.0)  # its long axis: horizontal, 3 long
    np.testing.assert_allclose(lab.truth.covariances[0][0, 0], 9.0, rtol=1e-9)
    np.testing.assert_allclose(lab.truth.covariances[0][0, 1], 0.0, atol=1e-9)
    lab._truth_edited()  # what releasing a handle does
    qtbot.waitUntil(lambda: lab.runner.current is not None and lab.runner.current.ctx.truth is not None
                    and np.allclose(lab.runner.current.ctx.truth.means[0], [-6.0, 4.0]), timeout=20_000)
    X = lab.canvas.X
    assert not np.array_equal(X, before) and len(X) == 400
    assert "as you edited it" in lab.data_label.text()
    near = X[np.hypot(X[:, 0] + 6.0, X[:, 1] - 4.0) < 4.0]
    assert len(near) > 60 and abs(near[:, 1].std() - 0.25) < 0.1  # the edited component: wide and flat
    state = json.loads(json.dumps(lab.session_state()))
    lab.form.set_value("data", "well separated")
    assert not lab._edited_truth
    lab.restore_session(state, replay=False)
    np.testing.assert_allclose(lab.truth.means[0], [-6.0, 4.0])
    assert lab._edited_truth
    bad = json.loads(json.dumps(state))
    bad["user_data"]["truth"]["covariances"][0] = [[1.0, 0.0], [0.0, -1.0]]
    with pytest.raises(ValueError, match="true mixture"):
        lab.restore_session(bad)
    np.testing.assert_allclose(lab.truth.means[0], [-6.0, 4.0])


def test_a_selected_point_shows_its_responsibilities_as_a_pie(qtbot, lab):
    run_to(lab, 3)
    r = lab.runner
    lab.set_mode("inspect")
    frame = r.current
    a = frame.em.responsibilities
    i = int(np.argmin(a.max(axis=1)))  # the most undecided point
    lab.select_nearest(*frame.ctx.X[i])
    assert lab.selected == i
    keep = np.flatnonzero(a[i] > 1e-3)
    assert len(lab.pie_item.data) == len(keep) >= 2
    brushes = [b.color().name().upper() for b in lab.pie_item.data["brush"]]
    from app import style as theme

    assert brushes == [theme.CATEGORICAL[j].upper() for j in keep]


_FUZZ_PIECES = ["x1,x2", ",", ";", "\n", "\r\n", "#", "1.5", "-2", "nan", "inf", "1e400", "abc", " ", "0", "3,4",
                "label"]


@pytest.mark.timeout(120)  # a guard, not a measurement
def test_points_loader_fuzz(tmp_path):
    """The lab's points reader only raises ValueError with a short message (or returns finite (n, 2) points)."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    text = st.lists(st.one_of(st.sampled_from(_FUZZ_PIECES), st.text(max_size=5)), max_size=40).map("".join)
    contents = st.one_of(text.map(lambda s: s.encode("utf-8")), st.binary(max_size=200))
    path = tmp_path / "points.csv"

    @settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(contents)
    def check(data):
        path.write_bytes(data)
        try:
            X = MixturesLab.points_reader(path, 50)
        except ValueError as exc:
            assert 0 < len(str(exc)) <= 1000
            return
        assert X.ndim == 2 and X.shape[1] == 2 and 1 <= len(X) <= 50 and np.all(np.isfinite(X))

    check()


def test_new_sample_after_editing_goes_back_to_the_preset(qtbot, lab):
    lab.canvas.add_point(7.0, 7.0, 1.0)
    assert lab.form.value("data") == run.OWN and len(lab.canvas.X) == 401
    lab.new_sample()
    assert lab.form.value("data") == "anisotropic" and len(lab.canvas.X) == 400
    assert "sampled from the mixture 'anisotropic'" in lab.data_label.text()
    lab.canvas.undo()  # the sample replaced the edited points undoably
    assert len(lab.canvas.X) == 401


def test_exported_csv_loads_again(qtbot, lab, tmp_path):
    run_to(lab, 2)
    path = tmp_path / "export.csv"
    lab.export_csv(str(path))
    X = lab.canvas.X.copy()
    assert lab.load_points_file(str(path), wait=True) is True
    np.testing.assert_allclose(lab.canvas.X, X)
    assert "export.csv" in lab.data_label.text()
