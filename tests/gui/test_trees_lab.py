"""The trees lab: plots follow AdaBoost, the tree and the forests; Qt-free helpers; sessions;
errors; side tasks (depth sweep, reference check)."""

import itertools
import json
import math

import numpy as np
import pytest

from app.labs.trees import maths as tmaths
from app.labs.trees import run as trun
from smlengine.ensemble import AdaBoost
from smlengine.grid import grid_points
from smlengine.trees import DecisionTree
from app.testing import run_to


def _lab(qtbot, make_window):
    window = make_window(lab_ids=["trees"])
    lab = window.show_lab("trees")
    qtbot.waitUntil(lambda: lab.runner.current is not None, timeout=20_000)
    return window, lab


def _method(qtbot, lab, method, **extra):
    lab.form.set_values({"method": method, **extra})
    lab.after_params_restored()
    lab.start()
    qtbot.waitUntil(lambda: lab.runner.current is not None and lab.runner.current.ctx.method == method, timeout=20_000)


# ---------------------------------------------------------------------- Qt-free helpers
def test_boosted_grid_equals_the_engine_decision_function():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 2))
    y = np.where(X[:, 0] * X[:, 1] > 0, 1.0, -1.0)
    ctx = trun.RunContext("adaboost", {"n_rounds": 15, "criterion": "misclassification"}, X, y,
                          np.zeros(80, bool), (-3, 3, -3, 3), 0)
    last = list(trun.run_steps(ctx))[-1]
    model = AdaBoost(n_rounds=15).fit(X, y)
    xs, ys, pts = grid_points((-3, 3, -3, 3), 41)
    F = trun.boosted_grid(last.stumps, xs, ys).ravel()
    np.testing.assert_allclose(F, model.decision_function(pts), atol=1e-9)
    np.testing.assert_allclose(trun.boosted_values(last.stumps, X), model.decision_function(X), atol=1e-9)


def test_tree_layout_and_path():
    rng = np.random.default_rng(1)
    X = rng.uniform(-1, 1, size=(200, 2))
    y = np.where(X[:, 0] + X[:, 1] ** 2 > 0.2, 1.0, -1.0)
    tree = DecisionTree(max_depth=5, criterion="gini").fit(X, y).tree_
    x, yy = trun.tree_layout(tree)
    leaves = tree.children_left < 0
    assert sorted(x[leaves]) == list(range(int(leaves.sum())))  # leaves at 0, 1, 2, ...
    inner = np.flatnonzero(~leaves)
    np.testing.assert_allclose(x[inner], 0.5 * (x[tree.children_left[inner]] + x[tree.children_right[inner]]))
    np.testing.assert_array_equal(yy, -tree.depth)
    path = trun.node_path(tree, X[3])
    assert path[0] == 0 and path[-1] == tree.apply(X[3:4])[0]


def test_split_segments_lie_on_the_thresholds():
    rng = np.random.default_rng(2)
    X = rng.uniform(-1, 1, size=(100, 2))
    y = np.where(X[:, 0] > 0.1, 1.0, -1.0)
    tree = DecisionTree(max_depth=3).fit(X, y).tree_
    sx, sy = trun.split_segments(tree, (-2, 2, -2, 2))
    inner = np.flatnonzero(tree.feature >= 0)
    assert len(sx) == 3 * inner.size
    seg = np.column_stack([sx, sy]).reshape(-1, 3, 2)[:, :2]
    for (a, b), node in zip(seg, inner):
        j = tree.feature[node]
        assert a[j] == b[j] == tree.threshold[node]


def test_forest_steps_vote_map_and_condorcet():
    from smlengine.datasets import make_dataset

    X, y = make_dataset("moons", 120, 0.2, random_state=0)
    mask = trun.split_mask(120, 0.3, 0)
    params = {"n_estimators": 5, "forest_depth": 0, "max_features": 1, "criterion": "gini", "p_voter": 0.7}
    ctx = trun.RunContext("forest", params, X, y, mask, (-2, 3, -2, 2), 0)
    steps = list(trun.run_steps(ctx))
    assert [s.step for s in steps] == list(range(6))
    last = steps[-1]
    assert int(last.grid_votes.max()) <= 5 and len(last.trees) == 5
    votes = sum((trun.tree_predict_pm(t.tree_, ctx.X_test) > 0).astype(int) for t in last.trees)
    np.testing.assert_array_equal(votes, last.test_votes)
    frame = trun.prepare_frame(last)
    assert frame.frame.values.shape == (trun.FOREST_RES, trun.FOREST_RES)
    m, p = trun.condorcet_curve(5, 0.7)
    assert p[0] == pytest.approx(0.7) and p[2] == pytest.approx(0.7**3 + 3 * 0.7**2 * 0.3)


def test_maths_html_has_the_numbers():
    from smlengine.datasets import make_dataset

    X, y = make_dataset("circles", 100, 0.1, random_state=0)
    ctx = trun.RunContext("adaboost", {"n_rounds": 3, "criterion": "misclassification", "dataset": "circles"},
                          X, y, np.zeros(100, bool), (-2, 2, -2, 2), 0)
    s1 = list(trun.run_steps(ctx))[1]
    html = tmaths.maths_html(s1)
    err = s1.engine.error
    assert f"{math.log((1 - err) / err):.4f}" in html and f"{err:.4f}" in html
    ctx = trun.RunContext("tree", {"max_depth": 2, "criterion": "gini"}, X, y, np.zeros(100, bool), (-2, 2, -2, 2), 0)
    s1 = list(trun.run_steps(ctx))[1]
    assert f"{s1.engine.cost:.4f}" in tmaths.maths_html(s1)


# ---------------------------------------------------------------------- the lab
def test_boosting_plots_follow_the_run(qtbot, make_window):
    window, lab = _lab(qtbot, make_window)
    assert lab.method == "adaboost"
    run_to(lab, 12)
    snap = lab.runner.current
    assert snap.step == 12
    x, y = lab.boost_panel.series["train error"].item.getData()
    np.testing.assert_array_equal(x, np.arange(13))
    assert y[-1] == pytest.approx(snap.train_error)
    _, b = lab.boost_panel.series["bound"].item.getData()
    _, el = lab.boost_panel.series["exp. loss"].item.getData()
    np.testing.assert_allclose(b, el, rtol=1e-9)  # the bound equals the half-exponent loss
    # point sizes follow the weights; the stump line is at the threshold; α bars
    pos = snap.ctx.y_train > 0
    from app import style as theme

    expected = lab.weight_sizes(snap.engine.weights, theme.current().marker_size)[pos]
    np.testing.assert_allclose(lab.weighted_pos.data["size"], expected)
    assert lab.stump_line.isVisible() and lab.stump_line.value() == pytest.approx(snap.engine.threshold)
    ax, ay = lab.alpha_bars.getData()
    assert len(snap.stumps) == 12
    np.testing.assert_allclose(ay[1::2], snap.stumps[:, 4])
    np.testing.assert_array_equal(ax[1::2], np.arange(1, 13))
    # the boundary drawn is the zero set of F
    bx, by = lab.decision.boundary.getData()
    ok = np.isfinite(bx)
    assert ok.sum() > 10 and lab.decision.image.isVisible()
    assert f"round m = {snap.engine.round}" in lab.maths.toPlainText()
    # the curves restart with the run
    lab.reset()
    qtbot.waitUntil(lambda: lab.runner.current is not None and lab.runner.current.step == 0, timeout=10_000)
    lab.runner.flush()
    assert len(lab.boost_panel.series["train error"].x) <= 1


def test_tree_mode_scanner_diagram_and_depth_sweep(qtbot, make_window):
    window, lab = _lab(qtbot, make_window)
    _method(qtbot, lab, "tree", criterion="gini", max_depth=4)
    run_to(lab, 2)
    snap = lab.runner.current
    e = snap.engine
    assert e.axis is not None
    tx, cy = lab.scan_x.item.getData() if e.axis == 0 else lab.scan_y.item.getData()
    assert np.min(cy) == pytest.approx(e.cost)
    assert lab.tree_diagram.nodes.data.size == e.tree.node_count
    sx, sy = lab.split_lines.getData()
    assert np.isfinite(sx).sum() == 2 * int((e.tree.feature >= 0).sum())
    # the depth sweep starts by itself in tree mode (test points exist)
    qtbot.waitUntil(lambda: lab.sweep_result is not None, timeout=20_000)
    d, tr = lab.depth_train.item.getData()
    np.testing.assert_array_equal(d, np.arange(1, 13))
    assert np.all(np.diff(tr) <= 1e-12)  # deeper trees never fit the training data worse
    lab.inspect_button.setChecked(True)
    lab.inspect_at(0.1, 0.1)
    assert lab.tree_diagram.path[0] == 0
    window.close()


def test_forest_mode_oob_votes_condorcet(qtbot, make_window):
    window, lab = _lab(qtbot, make_window)
    _method(qtbot, lab, "forest", n_estimators=10)
    run_to(lab, 6)
    snap = lab.runner.current
    x, oob = lab.oob_panel.series["OOB error"].item.getData()
    assert x[-1] == 6
    _, left = lab.oob_panel.series["left-out fraction"].item.getData()
    assert abs(left[-1] - math.exp(-1)) < 0.1
    m, p = lab.cond_p.item.getData()
    assert len(m) == 10 and p[0] == pytest.approx(0.7)
    lab.inspect_at(0.0, 0.0)
    h = list(lab.votes_bars.opts["height"])
    assert sum(h) == 6 == snap.engine.n_trees
    window.close()


def test_bad_input_gives_a_banner_and_keeps_points(qtbot, make_window):
    window, lab = _lab(qtbot, make_window)
    X = np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 0.5]])
    lab.canvas.set_points(X, np.array([1.0, 1.0, 1.0]))
    qtbot.waitUntil(lambda: lab.error_text != "", timeout=10_000)
    assert "both classes" in lab.error_text
    assert len(lab.canvas.y) == 3


def test_bad_file_gives_a_banner(qtbot, make_window, tmp_path):
    window, lab = _lab(qtbot, make_window)
    n = len(lab.canvas.y)
    bad = tmp_path / "bad.csv"
    bad.write_text("x1,x2,x3,label\n1,2,3,0\n")
    assert not lab.load_points_file(str(bad), wait=True)
    assert "2-D" in lab.error_text and len(lab.canvas.y) == n


def test_session_round_trip(qtbot, make_window, tmp_path):
    window, lab = _lab(qtbot, make_window)
    lab.form.set_values({"n_rounds": 33})
    lab.canvas.add_point(0.25, -0.5, -1)
    state = json.loads(json.dumps(lab.session_state()))
    X = lab.canvas.X.copy()
    lab.regenerate()
    lab.restore_session(state)
    np.testing.assert_allclose(lab.canvas.X, X)
    assert lab.form.value("n_rounds") == 33
    with pytest.raises(ValueError):
        lab.restore_session({**state, "user_data": {"points": [[0, 0]], "labels": [1, 2]}})
    np.testing.assert_allclose(lab.canvas.X, X)


def test_reference_check_agrees(qtbot, make_window):
    pytest.importorskip("sklearn")
    window, lab = _lab(qtbot, make_window)
    lab.form.set_values({"n_rounds": 20, "criterion": "gini"})
    lab.run_reference_check()
    qtbot.waitUntil(lambda: lab.reference_result is not None or "failed" in lab.reference_label.text(), timeout=30_000)
    r = lab.reference_result
    assert r is not None and r["train_agreement"] >= 0.97 and r["agreement"] >= 0.95
    window.close()


def test_export_rows_have_F(qtbot, make_window):
    window, lab = _lab(qtbot, make_window)
    run_to(lab, 3)
    header, rows = lab.export_rows()
    assert header[-1] == "F(x)" and len(rows) == len(lab.canvas.y)


# ---------------------------------------------------------------------- "You split"
def test_tree_steps_look_one_split_ahead():
    from smlengine.datasets import make_dataset
    from smlengine.trees import split_cost

    X, y = make_dataset("moons", 150, 0.25, random_state=3)
    ctx = trun.RunContext("tree", {"max_depth": 3, "criterion": "gini"}, X, y, trun.split_mask(150, 0.3, 3),
                          (-2, 3, -2, 2), 3)
    steps = list(trun.run_steps(ctx))
    assert [s.step for s in steps] == list(range(len(steps)))
    for a, b in itertools.pairwise(steps):
        assert a.upcoming is (b.engine if b.engine.axis is not None else None)
    assert steps[-1].upcoming is None and steps[-1].engine.done
    up = steps[0].upcoming
    # a guess prices the split on the region's training points; the optimum is never worse
    for axis, t in ((0, 0.3), (1, -0.2), (0, 99.0), (1, up.threshold)):
        g = trun.split_guess(ctx, up, axis, t)
        idx = up.indices
        assert g["cost"] == pytest.approx(split_cost(ctx.X_train[idx], ctx.y_train[idx], axis, t, criterion="gini"))
        assert g["best_cost"] <= g["cost"] + 1e-12
        assert g["n"] == len(idx) and g["n_left"] == int(np.sum(ctx.X_train[idx, axis] <= t))
    far = trun.split_guess(ctx, up, 0, 99.0)  # everything on one side: no split at all
    assert far["cost"] == pytest.approx(up.region_cost)
    best = trun.split_guess(ctx, up, up.axis, up.threshold)
    assert best["cost"] == pytest.approx(up.cost)
    assert "you found the optimum" in tmaths.guess_html(best)
    with pytest.raises(ValueError):
        trun.split_guess(ctx, up, 2, 0.0)


def test_you_split_prices_the_students_threshold(qtbot, make_window):
    from smlengine.trees import split_cost

    window, lab = _lab(qtbot, make_window)
    _method(qtbot, lab, "tree", criterion="entropy", max_depth=3)
    run_to(lab, 1)
    lab.you_button.setChecked(True)
    assert lab.you_split and not lab.canvas.editable and lab.tree_tabs.currentWidget() is lab.scan_panel
    snap = lab.runner.current
    up = snap.upcoming
    assert up is not None
    # before the student's split: the region about to be split, no curves, the optimum hidden
    bx, by = lab.region_box.getData()
    lo = np.clip(up.lower, [snap.ctx.extent[0], snap.ctx.extent[2]], [snap.ctx.extent[1], snap.ctx.extent[3]])
    assert bx.size == 5 and bx.min() == pytest.approx(lo[0]) and by.min() == pytest.approx(lo[1])
    assert lab.scan_x.n == 0 and _n_points(lab.chosen_split) == 0 and _n_points(lab.scan_min) == 0
    assert lab.tree_diagram.current.data.size == 1
    # a click on the scanner (here: the call it makes) prices the threshold on that region's points
    idx = up.indices
    t = float(np.median(snap.ctx.X_train[idx, 1]))
    g = lab.guess_split(t, axis=1)
    expected = split_cost(snap.ctx.X_train[idx], snap.ctx.y_train[idx], 1, t, criterion="entropy")
    assert g["cost"] == pytest.approx(expected) and g["best_cost"] <= g["cost"] + 1e-12
    assert lab.you_axis.currentIndex() == 1
    # both marked on the scanner, both lines on the canvas, both in the maths panel
    gx, gy = lab.scan_guess.getData()
    assert gx[0] == pytest.approx(t) and gy[0] == pytest.approx(expected)
    mx, my = lab.scan_min.getData()
    assert mx[0] == pytest.approx(up.threshold) and my[0] == pytest.approx(up.cost)
    _, ly = lab.guess_line.getData()
    np.testing.assert_allclose(ly, [t, t])
    assert _n_points(lab.chosen_split) == 2
    assert lab.scan_x.n > 0 and f"{expected:.4f}" in lab.maths.toPlainText()
    # a canvas click along the chosen axis does the same
    lab.you_axis.setCurrentIndex(0)
    g0 = lab.guess_split(0.2)
    assert g0["axis"] == 0 and g0["cost"] == pytest.approx(
        split_cost(snap.ctx.X_train[idx], snap.ctx.y_train[idx], 0, 0.2, criterion="entropy"))
    # Step: the algorithm makes its own split of that region; the guess belongs to the old step
    run_to(lab, snap.step + 1)
    e = lab.runner.current.engine
    assert e.node == up.node and e.threshold == up.threshold
    assert lab._guess_for(lab.runner.current) is None and _n_points(lab.scan_guess) == 0
    # playing stops at the next region: the student splits first
    lab.play()
    qtbot.waitUntil(lambda: not lab.runner.playing, timeout=10_000)
    assert lab.runner.current.upcoming is not None or lab.runner.finished
    # the switch is part of the session; off again: the scanner shows the algorithm's split
    assert lab.user_data()["you_split"] is True
    lab.you_button.setChecked(False)
    run_to(lab, lab.runner.current.step + 1)
    e = lab.runner.current.engine
    if e.axis is not None:
        _, cy = lab.scan_x.item.getData() if e.axis == 0 else lab.scan_y.item.getData()
        assert np.min(cy) == pytest.approx(e.cost)
    assert _n_points(lab.guess_line) == 0
    window.close()


def _n_points(item) -> int:
    x = item.getData()[0]
    return 0 if x is None else len(x)
