"""The neural networks lab: the default lesson (the circles learned, a curved boundary), what is drawn
against the engine (map, curves, units' pictures, numbers on the nodes, the updates), the gradient
check, the three learning rates, the capacity sweep, a diverging run, bad input and sessions. One lab
serves the whole module."""

import re

import numpy as np
import pytest
from PySide6 import QtGui

from app.points_data import LabelledRun
from app.labs.neural import maths, run, side_tasks
from app.labs.neural.lab import NeuralLab
from app.labs.neural.tabs import TAB_BACKPROP, TAB_CAPACITY, TAB_INSIDE, TAB_RATE, TAB_TRAIN
from app.labs.neural.views import THUMB
from app.testing import drawn, finish, run_to, wait_until
from standalone import standalone_lab
from smlengine.grid import grid_points
from smlengine.neural import MLPClassifier, backprop_trace


@pytest.fixture(scope="module")
def shared(qapp):
    yield from standalone_lab(NeuralLab)


@pytest.fixture
def lab(shared):
    """The shared lab back at its defaults: the seed-0 sample, the Train tab, the first step of a new run."""
    shared.pause()
    shared.tabs.setCurrentIndex(TAB_TRAIN)
    shared.form.set_values({name: p.default for name, p in shared.form.params.items()}, quiet=True)
    shared.seed = 0
    shared.runbar.seed.blockSignals(True)
    shared.runbar.seed.setValue(0)
    shared.runbar.seed.blockSignals(False)
    shared.clear_error()
    shared.regenerate(undoable=False, restart=True)
    wait_until(lambda: shared.runner.current is not None or shared.runner.error is not None, 30)
    yield shared
    shared.pause()
    for name in ("rates", "capacity", "gradient check"):
        assert shared.task(name).wait(60)
    shared.runner.cancel()  # a paused run keeps its thread: the module's lab holds none between tests


def _restart(lab, **params):
    lab.form.set_values(params, quiet=True)
    if any(name in lab.DATA_PARAMS for name in params):
        lab.regenerate(undoable=False, restart=False)
    lab.reset()
    wait_until(lambda: lab.runner.current is not None or lab.runner.error is not None, 30)


# ---------------------------------------------------------------------- the lesson of the defaults
def test_the_defaults_learn_the_circles_and_xor(lab):
    """Gradient descent on 8 tanh units, 200 epochs, as the lab runs it on its own sample: the
    circles and the XOR are learned (at least 95 % of the training points right)."""
    for dataset in ("circles", "xor"):
        lab.form.set_values({"dataset": dataset, "noise": lab.DEFAULT_NOISE[dataset]}, quiet=True)
        lab.regenerate(undoable=False, restart=False)
        ctx = lab.labelled_run(LabelledRun, lab.params(), lab.seed)
        last = list(run.run_steps(ctx))[-1]
        assert last.epoch == 200 and last.train_error <= 0.05, dataset
        assert last.test_error <= 0.10, dataset


def test_the_train_tab_after_200_epochs_on_the_circles(lab):
    """The lesson on screen: the boundary p = ½ is a closed curve between the rings, the curves
    hold every epoch, the early-stopping line stands at the lowest test loss."""
    lab.setUpdatesEnabled(False)  # what is drawn is checked on the items' data: nothing needs painting
    try:
        last = finish(lab)
    finally:
        lab.setUpdatesEnabled(True)
    assert last.epoch == 200 and last.ctx.params["dataset"] == "circles" and last.train_error <= 0.05
    bx, by = lab.decision.boundary.getData()
    ok = np.isfinite(bx)
    radius = np.hypot(bx[ok], by[ok])
    assert ok.sum() > 30 and 0.5 < np.median(radius) < 1.0  # between the inner ring (0.5) and the outer (1)
    assert np.ptp(np.arctan2(by[ok], bx[ok])) > 6.0  # all the way round
    t, loss = lab.loss_panel.curve("training").x, lab.loss_panel.curve("training").y
    np.testing.assert_array_equal(t, np.arange(201))
    assert loss[-1] == pytest.approx(last.net.data_loss) and loss[-1] < 0.3 * loss[0]
    assert lab.loss_panel.curve("test").y[-1] == pytest.approx(last.net.val_loss)
    assert lab.grad_panel.curve("‖∇L‖").y[-1] == pytest.approx(last.net.grad_norm)
    tests = lab.loss_panel.curve("test").y
    assert lab.stop_line.isVisible() and lab.stop_line.value() == pytest.approx(t[np.argmin(tests)])
    text = QtGui.QTextDocument()
    text.setHtml(lab.maths_html(last))
    plain = text.toPlainText()
    assert "epoch 200, 200 updates" in plain and f"training error {100 * last.train_error:.1f} %" in plain


def test_the_run_is_the_engines_network(lab):
    """The snapshots are scikit-learn-shaped MLPClassifier's: same points, parameters and seed give the same weights."""
    _restart(lab, optimizer="momentum", momentum=0.5, units=5, layers=2, activation="relu", alpha=0.01,
             learning_rate=0.2, epochs=30)
    last = finish(lab)
    ctx = last.ctx
    model = MLPClassifier((5, 5), activation="relu", alpha=0.01, learning_rate=0.2, momentum=0.5, max_iter=30,
                          random_state=0).fit(ctx.X_train, ctx.y_train)
    for a, b in zip(last.net.coefs + last.net.intercepts, model.coefs_ + model.intercepts_):
        np.testing.assert_array_equal(a, b)
    # the map under the points is p(+1 | x) − ½ of that network on the map's grid
    frame = lab.decision.frame
    xs, ys, pts = grid_points(frame.extent, frame.values.shape[1])
    np.testing.assert_allclose(frame.values.ravel(), model.predict_proba(pts)[:, 1] - 0.5, atol=1e-6)  # float32


def test_mini_batches_step_per_batch(lab):
    _restart(lab, batch_size=50, per_batch=True, epochs=2)
    last = finish(lab)
    n = len(last.ctx.y_train)
    per_epoch = -(-n // 50)
    assert last.net.n_updates == 2 * per_epoch
    t = lab.loss_panel.curve("training").x
    assert len(t) == 1 + 2 * per_epoch and np.all(np.diff(t) > 0) and t[-1] == 2.0  # the epoch axis in fractions


# ---------------------------------------------------------------------- inside the network, one step
def test_inside_the_network_draws_every_unit_and_the_chosen_points_numbers(lab):
    _restart(lab, units=4, layers=2, epochs=40)
    lab.tabs.setCurrentIndex(TAB_INSIDE)
    snap = run_to(lab, 40)
    frame = lab.runner.prepared_for(snap)
    view = lab.inside_view
    assert view.units == [2, 4, 4, 1] and sum(v.isVisible() for v in view.images.values()) == 11
    # a hidden unit's picture is tanh(W x + b) over the run's box, first row at the top
    _, _, pts = grid_points(snap.ctx.extent, THUMB)
    h1 = np.tanh(pts @ snap.net.coefs[0] + snap.net.intercepts[0])
    picture = view.images["unit1_2"].image
    np.testing.assert_allclose(picture, h1[:, 2].reshape(THUMB, THUMB)[::-1], atol=1e-6)  # drawn in float32
    assert frame.pictures[1].shape == (4, THUMB, THUMB)
    # a click in a picture sends the nearest training point through the network
    centre = view.centres[1][0]
    target = snap.ctx.X_train[17]
    x0, x1, y0, y1 = snap.ctx.extent
    u, v = (target[0] - x0) / (x1 - x0), (target[1] - y0) / (y1 - y0)
    view._clicked(centre[0] - THUMB / 2 + u * THUMB, centre[1] + THUMB / 2 - v * THUMB)
    assert lab.chosen == 17
    trace = backprop_trace(target[None], [int(snap.ctx.y_train[17] > 0)], snap.net.coefs, snap.net.intercepts,
                           activation="tanh", alpha=float(snap.ctx.params["alpha"]))
    texts = [t.toPlainText() for t in view.texts]
    assert texts[2] == f"h {maths.number(trace.activations[1][0, 0])}\nδ {maths.number(trace.deltas[0][0, 0])}"
    assert texts[-1].startswith(f"h {maths.number(trace.activations[3][0, 0])}")
    marks = view.marks.getData()
    assert len(marks[0]) == 11  # the point marked in every picture
    assert "Backpropagation on point 17" in lab.maths_html(snap)
    lx, ly = lab.chosen_marker.getData()
    assert (lx[0], ly[0]) == tuple(target)  # and ringed on the Train tab


def test_one_sgd_step_and_the_gradient_check(lab):
    _restart(lab, epochs=20)
    lab.tabs.setCurrentIndex(TAB_BACKPROP)
    snap = run_to(lab, 20)
    lab.point_box.setValue(5)
    assert lab.chosen == 5
    step = run.point_step(snap, 5)
    # the edges are the updates −η ∂Lᵢ/∂w of that point: the widest class holds the largest |Δw|
    largest = max(np.abs(d).max() for d in step.coef_updates)
    widest = [lab.step_view.layers[f"edge{s}3"].getData()[0] for s in (0, 1)]
    assert sum(len(w) for w in widest if w is not None) > 0 and largest > 0
    assert step.loss_after < step.trace.loss  # one small step on the point lowers its own loss
    lab.check_gradient()
    wait_until(lambda: "relative error" in lab.check_label.text(), 30)
    error = float(re.search(r"relative error ([0-9.e+-]+)", lab.check_label.text()).group(1))
    assert error < 1e-6 and "they agree" in lab.check_label.text() and "point 5, epoch 20" in lab.check_label.text()


# ---------------------------------------------------------------------- learning rates and capacity
def test_three_learning_rates_from_the_same_start(lab):
    lab.tabs.setCurrentIndex(TAB_RATE)
    lab.run_rate_race()
    wait_until(lambda: lab.rate_result is not None or lab.error_text, 60)
    copies = lab.rate_result
    assert [c.learning_rate for c in copies] == [0.1, 1.0, 30.0]
    assert len({c.losses[0] for c in copies}) == 1  # the same start
    curves = [lab.rate_loss.curve(f"η = {c.learning_rate:g}").y for c in copies]
    for c, y in zip(copies, curves):
        np.testing.assert_allclose(y, c.losses)
    small, right, big = copies
    assert right.losses[-1] < small.losses[-1] < small.losses[0] < big.losses[-1]  # slow, right, diverged
    note = lab.rate_note.text()
    assert "η = 30</b>: diverged: the loss rose" in note and "η = 1</b>: descends" in note
    assert not re.search(r"\b(nan|inf)\b", note, re.I)
    assert lab.rate_maps[1].decision.frame is right.frame


def test_capacity_sweep_against_hidden_units(lab):
    _restart(lab, n_samples=60, noise=0.25, epochs=300, optimizer="adam", learning_rate=0.05)
    lab.tabs.setCurrentIndex(TAB_CAPACITY)
    lab.run_capacity_sweep()
    wait_until(lambda: lab.capacity_result is not None or lab.error_text, 60)
    points = lab.capacity_result
    assert [p.value for p in points] == list(side_tasks.SWEEPS["units"])
    np.testing.assert_allclose(lab.capacity_panel.curve("test").y, [100 * p.test_error for p in points])
    assert points[-1].train_error <= points[0].train_error  # more units fit the training points better
    best = min(points, key=lambda p: (p.test_error, p.value))
    assert lab.best_map.labels[0] == f"best on test: {int(best.value)} units"
    assert lab.flexible_map.labels[0] == "most flexible: 32 units"


# ---------------------------------------------------------------------- divergence and bad input
def test_a_too_big_learning_rate_is_told_not_drawn_as_nan(lab):
    _restart(lab, learning_rate=100.0, epochs=60)
    last = finish(lab)
    assert last.loss > last.start_loss
    assert "The loss rose above its start" in lab.maths_html(last)
    # ReLU units on widely spread points overflow: the run stops with a message, the last finite step stays
    X, y = lab.canvas.X * 100, lab.canvas.y
    lab.form.set_values({"activation": "relu"}, quiet=True)
    lab.set_canvas_points(X, y, undoable=False)
    lab.reset()
    lab.play()
    wait_until(lambda: lab.runner.error is not None or lab.runner.finished, 60)
    assert "The training diverged at epoch" in lab.runner.error and "Lower the learning rate η (now 100)" in \
        lab.runner.error
    shown = drawn(lab)
    assert np.isfinite(shown.loss) and all(np.isfinite(w).all() for w in shown.net.coefs)
    assert not re.search(r"\b(nan|inf)\b", lab.maths_html(shown), re.I)


def test_bad_input_is_refused_with_a_message(lab):
    lab.form.set_value("units", 10_000)  # a form keeps a number in its declared range
    assert lab.form.value("units") == 16 and lab.form.params["units"].maximum == 16
    assert lab.form.params["n_samples"].maximum == lab.MAX_POINTS == 20_000
    _restart(lab, batch_size=1, n_samples=2000)
    assert "updates an epoch, too many for one step" in lab.runner.error
    assert "use mini-batches of at least 3" in lab.error_text
    lab.clear_error()
    only_one_class = np.where(lab.canvas.y > 0, 1.0, 1.0)
    lab.set_canvas_points(lab.canvas.X, only_one_class, undoable=False)
    lab.reset()
    assert "Training needs points of both classes" in lab.error_text


def test_a_file_of_a_million_points_is_refused_before_it_is_read_whole(lab, tmp_path):
    """The points reader stops at the lab's most points (20,000): a file of 10⁶ points is refused and the
    lab keeps its points."""
    path = tmp_path / "million.csv"
    path.write_text("x1,x2,label\n" + "0.125,-0.5,1\n0.5,0.25,0\n" * 500_000, encoding="utf-8")
    before = lab.canvas.X.copy()
    assert lab.load_points_file(str(path), wait=True) is False
    assert "more than 20,000 points" in lab.error_text
    np.testing.assert_array_equal(lab.canvas.X, before)


def test_the_chosen_point_survives_a_session(lab):
    lab.choose_point(9)
    state = lab.session_state()
    lab.choose_point(2)
    lab.restore_session(state, replay=False)
    assert lab.chosen == 9
    with pytest.raises(ValueError):
        lab.set_user_data({**lab.user_data(), "point": -3})
