"""The classifiers lab with logistic regression and the SVM: live plots against the engine,
step exactness, switching classifiers, cross-validation, the reference check, projector
mode, sessions and bad input."""

import threading

import numpy as np
import pytest

from smlengine.svm import SVM
from app.testing import drawn, finish


def _lab(qtbot, make_window, **params):
    window = make_window(lab_ids=["classifiers"])
    lab = window.show_lab("classifiers")
    qtbot.waitUntil(lambda: lab.runner.current is not None, timeout=20_000)
    if params:
        set_params(lab, **params)
        qtbot.waitUntil(lambda: lab.runner.current is not None or lab.runner.error is not None, timeout=20_000)
    return window, lab


def set_params(lab, **params):
    """Set parameters as the form would (data parameters first, then regenerate once)."""
    lab.form.set_values(params, quiet=True)
    lab.after_params_restored()
    lab.regenerate()


def _rows(a):
    a = np.asarray(a, float).reshape(-1, 2)
    return a[np.lexsort(a.T[::-1])]


MOONS = dict(classifier="svm_rbf", dataset="moons", n_samples=160, noise=0.2, C=1.0, gamma=2.0, test_fraction=0.25)


def test_rbf_svm_on_moons_matches_the_engine(qtbot, make_window):
    window, lab = _lab(qtbot, make_window, **MOONS)
    finish(lab)
    snap = lab.runner.current
    ctx = snap.ctx
    assert snap.engine.converged and ctx.n_test > 0
    engine = SVM(C=1.0, kernel="rbf", gamma=2.0).fit(ctx.X_train, ctx.y_train)
    np.testing.assert_array_equal(snap.engine.alpha, engine.alpha_)
    # support vectors drawn = the engine's support set, split into free and at-bound
    np.testing.assert_array_equal(lab.support_indices(), engine.support_)
    free = lab.sv_free_marker.visible_positions()
    bound = lab.sv_bound_marker.visible_positions()
    np.testing.assert_array_equal(_rows(np.vstack([free, bound])), _rows(engine.support_vectors_))
    at_c = engine.alpha_[engine.support_] >= 1.0
    assert len(bound) == at_c.sum() and len(free) == (~at_c).sum() > 0
    # boundary and margins are the level sets 0 and ±1 of the engine's f
    for level, curve in [(0.0, lab.decision.boundary), (1.0, lab.decision.margin_curves[1.0]),
                         (-1.0, lab.decision.margin_curves[-1.0])]:
        x, y = curve.getData()
        ok = np.isfinite(x)
        assert ok.sum() > 20, level
        f = engine.decision_function(np.column_stack([x[ok], y[ok]]))
        assert np.median(np.abs(f - level)) < 0.02 and np.max(np.abs(f - level)) < 0.15, level
    # misclassified markers: exactly the points (train and test) on the wrong side
    f_all = engine.decision_function(ctx.X)
    wrong = np.where(f_all > 0, 1.0, -1.0) != ctx.y
    np.testing.assert_array_equal(_rows(lab.mistake_marker.visible_positions()), _rows(ctx.X[wrong]))
    assert snap.test_error == pytest.approx(wrong[ctx.test_idx].mean())
    # the curves: one point per step, the KKT gap ends below tol
    x, y = lab.kkt_panel.curves["m − M"].getData()
    assert len(x) == len(lab.runner.timeline) and y[-1] <= 1e-3
    assert "test" in lab.error_panel.curves
    assert lab.decision.image.isVisible()
    assert "KKT gap" in lab.maths.toPlainText() and f"step {snap.step}" in lab.maths.toPlainText()


def test_step_is_one_smo_pair_update(qtbot, make_window):
    window, lab = _lab(qtbot, make_window, **MOONS)
    r = lab.runner
    ctx = r.current.ctx
    expected = list(SVM(C=1.0, kernel="rbf", gamma=2.0).fit_steps(ctx.X_train, ctx.y_train, snapshot_every=1))
    for k in range(1, 4):
        lab.step()
        qtbot.waitUntil(lambda: r.timeline.last.step == k, timeout=10_000)
        qtbot.waitUntil(lambda: r.settled, timeout=10_000)
        assert r.timeline.last.step == k and len(r.timeline) == k + 1
        np.testing.assert_array_equal(r.current.engine.alpha, expected[k].alpha)
        assert r.current.engine.pair == expected[k].pair
    drawn(lab)
    px, py = lab.current_marker.getData()
    np.testing.assert_array_equal(_rows(np.column_stack([px, py])), _rows(ctx.X_train[list(r.current.engine.pair)]))
    text = lab.maths.toPlainText()
    i, j = r.current.engine.pair
    assert f"pair i = {i}" in text and "→" in text and "η" in text
    lab.step_back()
    assert r.current.step == 2


def test_switching_classifier_restarts(qtbot, make_window):
    window, lab = _lab(qtbot, make_window)
    r = lab.runner
    lab.run_to(5)
    qtbot.waitUntil(lambda: r.timeline.last.step >= 5, timeout=10_000)
    assert lab.form.widgets["mode"].isVisibleTo(lab.form)
    lab.form.set_value("classifier", "svm_poly")  # through the form signal, as a user would
    qtbot.waitUntil(lambda: r.current is not None and hasattr(r.current.engine, "alpha"), timeout=10_000)
    assert r.current.step == 0 and r.current.ctx.kind == "svm_poly"
    assert lab.form.widgets["degree"].isVisibleTo(lab.form)
    assert not lab.form.widgets["gamma"].isVisibleTo(lab.form)
    assert not lab.form.widgets["mode"].isVisibleTo(lab.form)
    assert lab.curve_pages.currentWidget().indexOf(lab.kkt_panel) >= 0
    lab.form.set_value("classifier", "logistic")
    qtbot.waitUntil(lambda: r.current is not None and hasattr(r.current.engine, "w"), timeout=10_000)
    assert lab.form.widgets["solver"].isVisibleTo(lab.form) and lab.form.widgets["C"].isVisibleTo(lab.form)
    finish(lab)
    loss = lab.loss_panel.curves["L(w)"].getData()[1]
    assert np.all(np.diff(loss) <= 1e-9) and r.current.engine.converged
    assert lab.decision.margin_curves[1.0].isVisible()  # P = 3/4
    assert "Newton" in lab.maths.toPlainText()


def test_grid_search_fills_cell_by_cell(qtbot, make_window):
    window, lab = _lab(qtbot, make_window, **{**MOONS, "n_samples": 60})
    cv = lab.cv_view
    lab.tabs.setCurrentIndex(1)
    cv.run_button.click()
    qtbot.waitUntil(lambda: cv.result is not None or "failed" in cv.summary.text(), timeout=120_000)
    qtbot.waitUntil(lambda: not cv.running, timeout=10_000)
    snaps = cv.snapshots
    assert len(snaps) == cv.errors.size == 6 * 7
    for n, s in enumerate(snaps, start=1):
        assert np.count_nonzero(np.isfinite(s.errors)) == n  # one new cell per snapshot
    errors = np.asarray(snaps[-1].errors)
    best = np.unravel_index(np.nanargmin(errors), errors.shape)
    assert tuple(snaps[-1].best_index) == tuple(int(b) for b in best)
    assert cv.result["best_index"] == snaps[-1].best_index
    assert cv.result["cv_error"] == pytest.approx(np.nanmin(errors))
    pos = cv.best_marker.getData()
    assert (pos[0][0], pos[1][0]) == (best[0] + 0.5, best[1] + 0.5)
    assert 0.0 <= cv.result["test_error"] <= 1.0
    assert "test error" in cv.summary.text()
    cv.apply_button.click()
    assert lab.params()["C"] == cv.result["best_params"]["C"]
    assert lab.params()["gamma"] == cv.result["best_params"]["gamma"]


def test_grid_search_can_be_cancelled(qtbot, make_window, monkeypatch):
    from app import tasks

    window, lab = _lab(qtbot, make_window, **{**MOONS, "n_samples": 300})
    cv = lab.cv_view
    handed, after_cancel, gate = [], [], threading.Event()

    class GatedState(tasks.TaskState):
        def put(self, item):  # the search's second cell waits until the user has cancelled
            handed.append(item)
            if len(handed) == 2:
                gate.wait(60)
            if self.cancelled:
                after_cancel.append(item)
            super().put(item)

    monkeypatch.setattr(tasks, "TaskState", GatedState)
    lab.run_grid_search()
    state = cv.task.state
    assert isinstance(state, GatedState)
    qtbot.waitUntil(lambda: len(cv.snapshots) >= 1, timeout=60_000)
    cv.cancel_button.click()
    gate.set()
    assert not cv.running and cv.run_button.isEnabled() and state.cancelled
    n = len(cv.snapshots)
    assert state.done.wait(60)  # the search stops at the next cell ...
    cv.task.poll()
    assert len(cv.snapshots) == n == 1  # ... and nothing it still computed is shown
    assert len(handed) == 2 and len(after_cancel) == 1  # only the cell under way when cancel came
    assert len(state.take()) == 1


@pytest.mark.parametrize("kind", ["svm_rbf", "svm_linear", "logistic"])
def test_reference_check_agrees_with_sklearn(qtbot, make_window, kind):
    pytest.importorskip("sklearn")
    window, lab = _lab(qtbot, make_window, **{**MOONS, "classifier": kind})
    assert lab.reference_button.isEnabled()
    lab.reference_button.click()
    qtbot.waitUntil(lambda: lab.reference_result is not None or "failed" in lab.reference_label.text(), timeout=60_000)
    r = lab.reference_result
    assert r is not None, lab.reference_label.text()
    assert r["agreement"] >= 0.99
    if kind != "logistic":
        ours, theirs = r["n_support"]
        assert abs(ours - theirs) <= max(2, 0.05 * theirs)
    else:
        assert r["max_diff"] < 1e-3 * max(1.0, r["scale"])
    assert "%" in lab.reference_label.text() and lab.reference_button.isEnabled()


def test_reference_button_without_sklearn(qtbot, make_window, monkeypatch):
    from app.labs.classifiers import reference

    monkeypatch.setattr(reference, "sklearn_available", lambda: False)
    window, lab = _lab(qtbot, make_window, classifier="svm_rbf")
    assert not lab.reference_button.isEnabled()
    assert "not installed" in lab.reference_button.toolTip()


def test_projector_mode(qtbot, make_window):
    window, lab = _lab(qtbot, make_window, **MOONS)
    lab.run_to(20)
    qtbot.waitUntil(lambda: lab.runner.timeline.last.step >= 20, timeout=10_000)
    drawn(lab)
    small = lab.sv_free_marker.opts["size"]
    window.set_projector(True)
    drawn(lab)
    assert lab.sv_free_marker.opts["size"] > small
    assert lab.error_text == ""
    window.set_projector(False)


def test_session_keeps_classifier_and_parameters(qtbot, make_window, tmp_path):
    window, lab = _lab(qtbot, make_window, classifier="svm_poly", dataset="circles", n_samples=80, C=10.0,
                       degree=4, test_fraction=0.3, smo_every=2)
    lab.run_to(3)
    qtbot.waitUntil(lambda: lab.runner.timeline.last.step >= 3, timeout=10_000)
    path = tmp_path / "svm.json"
    assert window.save_session(str(path), lab)
    mask = lab.canvas.test_mask.copy()
    other = make_window(lab_ids=["classifiers"])
    lab2 = other.open_session(str(path))
    assert lab2 is not None
    qtbot.waitUntil(lambda: lab2.runner.timeline.last is not None and lab2.runner.timeline.last.step >= 3,
                    timeout=20_000)
    p = lab2.params()
    assert (p["classifier"], p["C"], p["degree"], p["test_fraction"], p["smo_every"]) == ("svm_poly", 10.0, 4, 0.3, 2)
    np.testing.assert_array_equal(lab2.canvas.test_mask, mask)
    assert lab2.form.widgets["degree"].isVisibleTo(lab2.form) and not lab2.form.widgets["mode"].isVisibleTo(lab2.form)
    np.testing.assert_array_equal(lab2.runner.timeline.last.engine.alpha, lab.runner.timeline[3].engine.alpha)


def test_bad_input_is_a_message(qtbot, make_window, tmp_path):
    window, lab = _lab(qtbot, make_window, classifier="svm_rbf")
    lab.canvas.clear_points()
    for x, y in [(0, 0), (1, 0), (0, 1)]:
        lab.canvas.add_point(x, y, +1)
    qtbot.waitUntil(lambda: lab.runner.error is not None, timeout=10_000)
    assert "two classes" in lab.error_text
    bad = tmp_path / "nan.csv"
    bad.write_text("x1,x2,label\n0,0,1\nnan,1,-1\n")
    assert not lab.load_points_file(str(bad), wait=True)
    assert "finite" in lab.error_text and len(lab.canvas.y) == 3
    good = tmp_path / "ok.csv"
    good.write_text("x1,x2,label\n0,0,a\n1,1,b\n0,1,a\n1,0,b\n")
    assert lab.load_points_file(str(good), wait=True)
    qtbot.waitUntil(lambda: lab.runner.current is not None and lab.runner.error is None, timeout=10_000)
    assert lab.error_text == "" and sorted(lab.canvas.y) == [-1, -1, 1, 1]
    lab.form.set_value("C", -1.0)  # the slider clamps: C <= 0 is not reachable
    assert lab.params()["C"] > 0


def test_fast_decision_maps_equal_the_engine():
    from app.labs.classifiers.run import RunContext, svm_grid_values
    from smlengine.datasets import make_dataset

    X, y = make_dataset("moons", 200, 0.2, random_state=1)
    base = dict(C=1.0, gamma=3.0, degree=3, classifier="svm_rbf")
    for kind in ("svm_rbf", "svm_linear", "svm_poly"):
        ctx = RunContext(kind, {**base, "classifier": kind}, X, y, np.zeros(len(y), bool), (-2, 3, -1.5, 2), 0)
        snaps = list(ctx.model.fit_steps(ctx.X_train, ctx.y_train, snapshot_every=7))
        xs, ys = np.linspace(-2, 3, 31), np.linspace(-1.5, 2, 29)
        gx, gy = np.meshgrid(xs, ys)
        for snap in (snaps[1], snaps[-1]):
            want = ctx.model.snapshot_decision_function(snap, np.column_stack([gx.ravel(), gy.ravel()]))
            np.testing.assert_allclose(svm_grid_values(ctx, snap, xs, ys).ravel(), want, atol=1e-9, rtol=1e-9)


def test_points_files_are_read_off_the_gui_thread_and_bounded(qtbot, make_window, tmp_path):
    window, lab = _lab(qtbot, make_window)
    before = lab.canvas.X.copy()
    big = tmp_path / "big.csv"
    rows = np.random.default_rng(0).normal(size=(20_001, 2))
    big.write_text("x1,x2,label\n" + "\n".join(f"{a},{b},{1 if a > 0 else -1}" for a, b in rows))
    assert lab.load_points_file(str(big)) is None  # returns at once: read on a worker
    qtbot.waitUntil(lambda: "at most 20,000" in lab.error_text, timeout=30_000)
    np.testing.assert_array_equal(lab.canvas.X, before)  # nothing lost
    exported = tmp_path / "exported.csv"
    lab.export_csv(str(exported))  # x1,x2,label,f(x),predicted: the app reads its own export
    assert lab.load_points_file(str(exported), wait=True)
    np.testing.assert_allclose(lab.canvas.X, before)
