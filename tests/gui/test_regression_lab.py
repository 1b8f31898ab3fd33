"""The regression lab: the default lesson (lasso zeros, a better test error than least squares,
the bias–variance U with CV's choice), what is drawn, every method, bad input, files, sessions."""

import json

import numpy as np
import pytest

from app.labs.regression import run
from app.labs.regression.lab import TAB_BIAS, TAB_FIT, RegressionLab
from smlengine.regression import Lasso, LinearRegression, Ridge
from app.testing import finish


@pytest.fixture
def lab(qtbot):
    from app import style as theme

    lab = RegressionLab()
    qtbot.addWidget(lab)
    lab.resize(1280, 800)
    lab.show()
    lab.start()
    qtbot.waitUntil(lambda: lab.runner.current is not None or lab.runner.error is not None, timeout=20_000)
    yield lab
    lab.shutdown()
    lab.close()
    theme.manager().set(theme="light", projector=False)


def _sweep(qtbot, lab):
    task = lab.task("sweep")
    assert task.wait(60)
    qtbot.waitUntil(lambda: lab.sweep is not None, timeout=10_000)
    return lab.sweep


def _set(lab, **values):
    for name, value in values.items():
        lab.form.set_values({name: value}, quiet=True)
        lab.on_param_changed(name)


def test_default_teaches_the_lesson(qtbot, lab):
    """Degree 9 on 13 noisy training points: the lasso sets coefficients to exactly zero and
    beats least squares on the test points; over 50 training sets the expected test error is
    U-shaped in λ, with the chosen λ and cross-validation's choice near its bottom."""
    snap = finish(lab)
    ctx = snap.ctx
    assert ctx.method == "lasso" and ctx.n_features == 9 and len(ctx.y_train) == 13
    assert snap.converged
    assert np.sum(snap.coef == 0) >= 1
    phi_tr = ctx.basis_fit.transform(ctx.x_train[:, None])
    phi_te = ctx.basis_fit.transform(ctx.x_test[:, None])
    ls = LinearRegression().fit(phi_tr, ctx.y_train)
    ls_test = np.mean((ls.predict(phi_te) - ctx.y_test) ** 2)
    assert snap.test_mse < 0.5 * ls_test  # the penalty tames the wiggles
    ref = Lasso(alpha=ctx.alpha, tol=1e-6, max_iter=2000).fit(phi_tr, ctx.y_train)
    np.testing.assert_allclose(snap.coef, ref.coef_)

    r = _sweep(qtbot, lab)
    assert r.axis == "alpha" and r.curves.shape == (50, run.GRID_POINTS)
    best = r.best
    assert 0 < best < len(r.values) - 1  # a U: the bottom is inside the range
    assert r.test_error[0] > 2 * r.test_error[best] and r.test_error[-1] > 2 * r.test_error[best]
    assert abs(r.values[r.chosen] - ctx.log_alpha) < 1e-9
    assert abs(r.cv_choice - best) <= 2 and abs(r.chosen - best) <= 2
    np.testing.assert_allclose(r.test_error, r.bias2 + r.variance + 0.25**2)
    # drawn: 50 faint curves, their mean, the marks at the chosen and the CV complexity
    ys = lab.sets_item.yData  # as given (getData is what the view clips and thins)
    assert np.sum(np.isnan(ys)) == 50 and len(ys) == 50 * (run.GRID_POINTS + 1)
    np.testing.assert_allclose(lab.mean_item.yData, r.curves.mean(axis=0))
    assert lab.chosen_line.value() == pytest.approx(r.values[r.chosen])
    assert lab.cv_line.isVisible() and lab.cv_line.value() == pytest.approx(r.values[r.cv_choice])
    assert "cross-validation chooses" in lab.sweep_label.text()


def test_what_is_drawn_is_the_snapshot(qtbot, lab):
    lab.run_to(20)
    r = lab.runner
    qtbot.waitUntil(lambda: r.timeline.last is not None and r.timeline.last.step >= 20, timeout=20_000)
    r.flush()
    snap = r.current
    ctx = snap.ctx
    np.testing.assert_array_equal(lab.fit_item.xData, ctx.x_grid)
    np.testing.assert_array_equal(lab.fit_item.yData, snap.curve)
    rx, ry = lab.residual_item.xData, lab.residual_item.yData
    assert len(rx) == 2 * len(ctx.y_train)
    np.testing.assert_allclose(ry[0::2], ctx.y_train)
    np.testing.assert_allclose(ry[1::2], snap.train_pred)
    np.testing.assert_array_equal(lab.bars.opts["height"], snap.coef)
    zx = lab.zero_marks.data["x"]
    np.testing.assert_array_equal(zx, np.flatnonzero(snap.coef == 0) + 1)
    assert f"{snap.train_mse:.3g}" in lab.canvas.plot_item.titleLabel.text
    assert lab.maths._html == lab.maths_html(snap)
    assert f"coordinate j = {snap.coordinate + 1}" in lab.maths.toPlainText()
    objective = lab.loss_curve.y
    assert len(objective) == len(r.timeline) and np.all(np.diff(objective) <= 1e-12)  # never increases
    # paths: one curve per coefficient, the current λ marked on all four panels
    for name in ("ridge", "lasso"):
        shown = [s for s in lab.path_panels[name].series.values() if s.n]
        assert len(shown) == ctx.n_features
    assert all(line.value() == pytest.approx(ctx.log_alpha) for line in lab.lambda_lines)


def test_every_method_reaches_its_reference(qtbot, lab):
    for method in ("lstsq", "ridge", "gd"):
        _set(lab, method=method, size=5)
        snap = finish(lab)
        ctx = snap.ctx
        phi = ctx.basis_fit.transform(ctx.x_train[:, None])
        if method == "ridge":
            ref = Ridge(alpha=ctx.alpha).fit(phi, ctx.y_train)
            np.testing.assert_allclose(snap.coef, ref.coef_, atol=1e-12)
        else:
            ref = LinearRegression().fit(phi, ctx.y_train)
            np.testing.assert_allclose(snap.coef, ref.coef_, atol=1e-4 if method == "gd" else 1e-10)
        assert snap.converged and lab.error_text == ""
    _set(lab, basis="gauss", size=6, method="ridge")
    snap = finish(lab)
    assert snap.ctx.n_features == 6 and snap.ctx.names[0] == "φ1"


def test_constraint_picture(qtbot, lab):
    snap = finish(lab)
    c = snap.ctx.constraint
    assert c is not None
    t = c["t"]
    assert np.abs(c["w_l1"]).sum() <= t * (1 + 1e-9)
    assert np.linalg.norm(c["w_l2"]) <= t * (1 + 1e-6)
    assert c["e_l2"] <= c["e_l1"] + 1e-9 or np.abs(c["w_l1"]).sum() < t  # the disc holds the diamond
    dx, dy = lab.diamond_item.xData, lab.diamond_item.yData
    np.testing.assert_allclose(np.abs(dx) + np.abs(dy), t)
    px, py = lab.l1_point.data["x"], lab.l1_point.data["y"]
    np.testing.assert_allclose([px[0], py[0]], c["w_l1"])
    # the parameter is a fraction of ‖ŵ‖₁, the caption's t its value: both say which is which
    fraction = lab.form.value("budget")
    row_label = lab.form.layout_.labelForField(lab.form.widgets["budget"]).text()
    assert "‖ŵ‖₁" in row_label
    assert f"t = {fraction:.2f} · ‖ŵ‖₁ = {t:.3g}" in lab.constraint_note.text()
    _set(lab, pair_j=1)
    finish(lab)
    assert "two different" in lab.constraint_note.text()
    assert lab.diamond_item.xData is None or len(lab.diamond_item.xData) == 0


def test_fewer_points_than_parameters_and_bad_input(qtbot, lab):
    _set(lab, method="lstsq", size=15)  # 13 training points, 16 parameters
    qtbot.waitUntil(lambda: lab.error_text != "", timeout=10_000)
    assert "fewer points (13) than parameters (16)" in lab.error_text and "ridge" in lab.error_text
    n_before = len(lab.canvas.y)
    _set(lab, method="ridge")  # λI makes the system solvable
    snap = finish(lab)
    assert lab.error_text == "" and snap.ctx.n_features == 15 and len(lab.canvas.y) == n_before
    lab.canvas.clear_points()
    qtbot.waitUntil(lambda: "no points" in lab.error_text, timeout=10_000)
    lab.canvas.undo()
    qtbot.waitUntil(lambda: lab.error_text == "" and lab.runner.current is not None, timeout=10_000)
    assert len(lab.canvas.y) == n_before
    lab.canvas.set_points(np.full((6, 2), 0.5), np.ones(6))  # constant x
    _set(lab, method="lstsq", size=2)
    qtbot.waitUntil(lambda: "linearly dependent" in lab.error_text, timeout=10_000)


def test_drawn_points_and_files(qtbot, lab, tmp_path):
    lab.canvas.clear_points()
    for x, y in [(0.1, 0.2), (0.3, 0.8), (0.5, 0.1), (0.7, -0.5), (0.9, 0.4), (0.2, 0.3)]:
        lab.canvas.add_point(x, y, -1.0)  # any click adds a point
    assert np.all(lab.canvas.y == 1.0) and lab.source["kind"] == "drawn"
    assert "drawn" in lab.data_label.text()
    good = tmp_path / "pts.csv"
    good.write_text("x,y\n" + "".join(f"{v},{np.cos(3 * v)}\n" for v in np.linspace(0, 2, 25)))
    assert lab.load_points_file(str(good), wait=True)
    assert len(lab.canvas.y) == 25 and "pts.csv" in lab.data_label.text()
    qtbot.waitUntil(lambda: lab.runner.current is not None, timeout=10_000)
    assert lab.runner.current.ctx.truth is None  # a file has no known truth to draw
    # an opened file's points are the user's: the controls say so and nothing names a truth
    assert lab.form.widgets["truth"].currentText() == "none: your points"
    assert not lab.form.layout_.isRowVisible(lab.form.widgets["noise"])
    keys = [label.text for _sample, label in lab.legend.items]
    assert "truth f" not in keys and "fit ŷ" in keys
    assert lab.sweep is None and "no" in lab.sweep_label.text() and "truth" in lab.sweep_label.text()
    assert lab.form.value("test_fraction") == 0.3 and lab.form.value("size") <= (25 - lab.canvas.test_mask.sum()) // 3
    # seven opened points: all train, and a basis they can determine
    few = tmp_path / "few.csv"
    few.write_text("x,y\n" + "".join(f"{v},{v * v}\n" for v in (1, 2, 3, 5, 8, 13, 21)))
    assert lab.load_points_file(str(few), wait=True)
    assert lab.form.value("test_fraction") == 0.0 and not lab.canvas.test_mask.any()
    assert lab.form.value("size") == 2
    snap = finish(lab)
    assert lab.error_text == "" and len(snap.ctx.y_train) == 7 and snap.train_mse < 1e-3  # y = x², nearly exactly
    assert "no test points" in lab.data_label.text() and "few.csv" in lab.data_label.text()
    # choosing a truth again samples from it, and the legend names it
    _set(lab, truth="sine")
    qtbot.waitUntil(lambda: lab.runner.current is not None and lab.runner.current.ctx.truth == "sine",
                    timeout=10_000)
    lab.runner.flush()
    assert "truth f" in [label.text for _sample, label in lab.legend.items]
    assert lab.source["kind"] == "sample" and lab.sample_button.isEnabled()
    assert lab.load_points_file(str(good), wait=True)
    qtbot.waitUntil(lambda: lab.runner.current is not None and lab.runner.current.ctx.truth is None, timeout=10_000)
    before = lab.canvas.X.copy()
    bad = tmp_path / "bad.csv"
    bad.write_text("x,y\n1,2\nfoo,3\n")
    assert not lab.load_points_file(str(bad), wait=True)
    assert "line 3" in lab.error_text
    np.testing.assert_array_equal(lab.canvas.X, before)  # nothing lost
    header, rows = lab.export_rows()
    assert header == ["x", "y", "fitted", "test"] and len(rows) == 25
    out = tmp_path / "export.csv"
    lab.export_csv(str(out))
    from smlengine.datasets._regression import load_xy_points

    x, y = load_xy_points(out)
    np.testing.assert_allclose(y, before[:, 1])


def test_session_round_trip_and_refusal(qtbot, lab):
    finish(lab)
    lab.canvas.add_point(0.5, 3.0)
    state = json.loads(json.dumps(lab.session_state()))
    points = lab.canvas.X.copy()
    bad = json.loads(json.dumps(state))
    bad["user_data"]["points"] = [[1e308, "a"]]
    with pytest.raises(ValueError):
        lab.restore_session(bad)
    np.testing.assert_array_equal(lab.canvas.X, points)
    lab.regenerate()
    lab.restore_session(state)
    np.testing.assert_array_equal(lab.canvas.X, points)
    assert lab.source["kind"] == "drawn"


def test_size_axis_sweep_least_squares(qtbot, lab):
    _set(lab, method="lstsq", size=3, bv_axis="size")
    r = _sweep(qtbot, lab)
    assert r.axis == "size" and r.values[r.chosen] == 3
    assert np.nanargmin(r.test_error) not in (0, len(r.values) - 1)
    assert r.variance[-1] > 10 * r.variance[0] and r.bias2[0] > 10 * r.bias2[r.best]
    assert lab.bv_panel.plot_item.getAxis("bottom").labelText.startswith("degree")
    lab.tabs.setCurrentIndex(TAB_BIAS)
    lab.tabs.setCurrentIndex(TAB_FIT)


def test_maths_states_the_normal_equations_with_current_numbers(qtbot, lab):
    from app.labs.regression import maths

    snap = finish(lab)
    g = maths.normal_residual(snap)
    assert np.max(np.abs(g)) <= snap.ctx.alpha * (1 + 1e-3)  # the lasso's optimality conditions
    assert "≤ λ" in maths.fit_html(snap)
    _set(lab, method="lstsq", size=3)
    snap = finish(lab)
    assert np.max(np.abs(maths.normal_residual(snap))) < 1e-10
    assert "0 when ΦᵀΦw = Φᵀy holds" in lab.maths.toPlainText()
