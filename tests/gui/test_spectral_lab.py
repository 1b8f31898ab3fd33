"""The spectral methods lab: what each tab draws equals the engine's numbers, and the defaults teach
the lessons (Fisher separates where PCA does not; spectral clustering splits the moons that k-means
cuts wrongly; a large γ breaks the graph; a kernel component separates the rings; CCA finds the
shared signal)."""

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6 import QtCore, QtGui, QtWidgets
from sklearn.metrics import adjusted_rand_score

from app.labs.spectral import run
from app.labs.spectral.lab import SpectralLab
from app.testing import drawn, finish, run_to, wait_until
from standalone import standalone_lab
from smlengine.datasets import make_dataset
from smlengine.spectral import FisherLDA


@pytest.fixture(scope="module")
def shared(qapp):
    yield from standalone_lab(SpectralLab, 1280, 760)


@pytest.fixture
def lab(shared):
    """The module's lab back at its defaults (the Fisher tab, the classes in a row, seed 0)."""
    shared.pause()
    shared.form.set_values({name: p.default for name, p in shared.form.params.items()}, quiet=True)
    shared.after_params_restored()
    shared.set_seed(0)
    shared.reset_classes()
    wait_until(lambda: shared.runner.current is not None and shared.runner.current.step == 0
               and type(shared.runner.current).__name__ == "SpectralFisherSnapshot", 30)
    yield shared
    shared.pause()
    shared.runner.cancel()


def _switch(lab, method):
    lab.form.set_value("method", method)
    wait_until(lambda: lab.runner.current is not None and type(lab.runner.current).__name__.lower().find(
        {"fisher": "fisher", "spectral": "clustering", "kpca": "kernel", "cca": "cca"}[method]) >= 0)


def _overlap(item_a, item_b) -> float:
    """Shared area of two density histograms drawn as step lines on the same edges."""
    xa, ya = item_a.getData()
    _, yb = item_b.getData()
    widths = np.diff(xa[::2])
    ha, hb = ya[1:-1:2], yb[1:-1:2]
    return float(np.sum(np.minimum(ha, hb) * widths))


def test_fisher_separates_where_pca_does_not(lab):
    assert lab.form.value("method") == "fisher" and lab.tabs.currentIndex() == 0
    snap = finish(lab)
    assert snap.angle == 180 and len(snap.J) == 61
    page = lab.fisher
    X, y = snap.X, snap.y
    w = FisherLDA().fit(X, y).scalings_[:, 0]
    # the green line is Fisher's direction through the mean
    xs, ys = page.lines["fisher"].getData()
    drawn = np.array([xs[1] - xs[0], ys[1] - ys[0]])
    assert abs(abs(drawn @ w) / np.linalg.norm(drawn) - 1) < 1e-9
    # the projections: the classes overlap along PCA's direction, not along Fisher's
    over_pca = _overlap(page.hist_items[(id(page.hist_pca), 0)], page.hist_items[(id(page.hist_pca), 1)])
    over_fisher = _overlap(page.hist_items[(id(page.hist_fisher), 0)], page.hist_items[(id(page.hist_fisher), 1)])
    assert over_pca > 0.6 and over_fisher < 0.05
    # J(θ) as drawn peaks at the Fisher mark, and the PCA mark sits low on it
    np.testing.assert_allclose(page.J_curve.y, snap.J)
    peak = page.J_curve.x[np.argmax(page.J_curve.y)]
    assert abs(peak - page.best.value()) <= run.ANGLE_STEP
    assert snap.J_fisher > 20 * snap.J_pca
    assert "J = " in lab.maths._html


def test_spectral_clustering_splits_the_moons_and_kmeans_does_not(lab):
    _switch(lab, "spectral")
    assert lab.tabs.currentIndex() == 1
    snap = finish(lab)
    _, truth = make_dataset("moons", 300, 0.06, random_state=lab.seed)
    assert snap.phase == "done"
    assert adjusted_rand_score(snap.labels, truth) > 0.99
    assert adjusted_rand_score(snap.kmeans_labels, truth) < 0.5
    # what is drawn: the points at their places, coloured by the labels; edges of the graph
    page = lab.cluster
    x, yy = page.points.item.getData()
    np.testing.assert_allclose(np.c_[x, yy], snap.X)
    colours = [b.color().name() for b in page.points.item.data["brush"]]
    assert adjusted_rand_score(colours, snap.labels) == 1.0
    assert len(page.strong.getData()[0]) > 0
    ex, ey = page.eigen_dots.getData()
    np.testing.assert_allclose(ey, snap.eigenvalues)
    assert page.gap_line.value() == 2.5
    # a huge γ breaks the graph apart: many eigenvalues (almost) zero, no gap at k
    lab.form.set_value("gamma", 1000.0)
    snap = run_to(lab, 1)
    assert np.all(snap.eigenvalues[:5] < 1e-3) and snap.gap < 1e-3
    # one neighbour each: the k-NN graph falls into many components
    lab.form.set_value("affinity", "knn")
    lab.form.set_value("n_neighbors", 1)
    snap = run_to(lab, 1)
    assert snap.n_connected > 10 and f"graph components: {snap.n_connected}" in lab.maths._html


def test_kernel_pca_separates_the_rings(lab):
    _switch(lab, "kpca")
    snap = finish(lab)
    assert snap.separable == 1.0 and snap.shown == snap.best
    x, _ = lab.kernel.comp_points.item.getData()
    np.testing.assert_allclose(x, snap.Z[:, 0])
    assert f"z{'₀₁₂₃₄₅₆'[snap.shown]}" in lab.kernel.comp.labels[0]
    assert lab.kernel.matrix.shape == (300, 300)


def test_cca_finds_the_shared_signal(lab):
    _switch(lab, "cca")
    snap = finish(lab)
    assert snap.correlations[0] > 0.95 and abs(snap.naive) < 0.5
    x, y = lab.cca.pv.item.getData()
    assert np.corrcoef(x, y)[0, 1] == pytest.approx(snap.correlations[0], abs=1e-9)


def _drag(plot, start, end):
    """A left-button drag on ``plot`` between two points of its view, in small moves as a hand makes it."""
    vb = plot.plot_item.getViewBox()
    vp = plot.viewport()

    def pixel(xy):  # not rounded to whole pixels: the drag ends where the test says
        return plot.viewportTransform().map(vb.mapViewToScene(QtCore.QPointF(*xy)))

    left, none = QtCore.Qt.MouseButton.LeftButton, QtCore.Qt.MouseButton.NoButton
    ev = QtCore.QEvent.Type

    def send(kind, pos, button, buttons):
        QtWidgets.QApplication.sendEvent(vp, QtGui.QMouseEvent(kind, pos, QtCore.QPointF(vp.mapToGlobal(pos)), button,
                                                               buttons, QtCore.Qt.KeyboardModifier.NoModifier))

    wait_until(lambda: plot.isVisible() and plot.viewport().width() > 100, 30, "the plot on screen")
    QtWidgets.QApplication.processEvents()  # its page laid out ...
    plot.viewport().repaint()  # ... and a pending fit of the view done before points are mapped to pixels
    a, b = pixel(start), pixel(end)
    limit = pg.getConfigOption("mouseRateLimit")
    pg.setConfigOption("mouseRateLimit", 0)  # every move delivered, however fast they come
    try:
        send(ev.MouseButtonPress, a, left, left)
        for t in np.linspace(0, 1, 9)[1:]:
            send(ev.MouseMove, a + (b - a) * t, none, left)
        send(ev.MouseButtonRelease, b, left, none)
    finally:
        pg.setConfigOption("mouseRateLimit", limit)


def _classes_are(lab, classes) -> bool:
    s = lab.runner.current
    return s is not None and s.classes.shape == np.shape(classes) and np.allclose(s.classes, classes)


def test_fisher_classes_are_dragged_and_stretched_by_hand(lab):
    """A class's ● moves it (its points with it, the view put), its ■ turns and stretches it; the run
    restarts on the new classes, Fisher's direction is the new data's; sessions keep them; Reset puts
    them back in a row."""
    first = drawn(lab)
    page = lab.fisher
    vb = page.plane.plot_item.getViewBox()
    np.testing.assert_allclose(first.classes, run.default_classes(2, 3.0, 20.0))
    mean = first.classes[1, :2]
    assert page.handles.handles[1][0].pos().x() == pytest.approx(mean[0])
    view = np.array(vb.viewRange())
    # drag class 1 by (1.5, -1): a short way, in the view
    _drag(page.plane, mean, mean + [1.5, -1.0])
    wait_until(lambda: lab.runner.current is not None and not _classes_are(lab, first.classes), 30, "class 1 moved")
    moved = drawn(lab)
    shift = moved.classes[1, :2] - mean
    pixel = (view[0][1] - view[0][0]) / vb.width()  # a screen pixel in the view's units
    np.testing.assert_allclose(shift, [1.5, -1.0], atol=1.5 * pixel)  # where the hand let go (to a pixel)
    np.testing.assert_allclose(moved.classes[0], first.classes[0])
    np.testing.assert_allclose(moved.X[moved.y == 1] - first.X[first.y == 1], np.tile(shift, (150, 1)), atol=1e-9)
    np.testing.assert_allclose(moved.X[moved.y == 0], first.X[first.y == 0])
    w = FisherLDA().fit(moved.X, moved.y).scalings_[:, 0]
    assert abs(abs(moved.fisher_dir @ w) / np.linalg.norm(w) - 1) < 1e-9  # Fisher's direction of the moved data
    xs, ys = page.points.item.getData()
    np.testing.assert_allclose(np.c_[xs, ys], moved.X)
    np.testing.assert_allclose(np.array(vb.viewRange()), view)  # the view stayed put
    # the ■ of class 0 to 3 units along 90°: class 0 upright, stretch 1.5
    end = page.handles.axis_end(moved.classes[0])
    assert page.handles.handles[0][1].pos().x() == pytest.approx(end[0])
    target = moved.classes[0, :2] + [0.0, 3.0]
    _drag(page.plane, end, target)
    wait_until(lambda: lab.runner.current is not None and not _classes_are(lab, moved.classes), 30, "class 0 turned")
    turned = drawn(lab)
    assert turned.classes[0, 2] == pytest.approx(1.5, abs=pixel) and turned.classes[0, 3] == pytest.approx(90, abs=3)
    E = first.X[first.y == 0] - first.classes[0, :2]  # the same normals, stretched and turned
    t0, t1 = np.radians(first.classes[0, 3]), np.radians(turned.classes[0, 3])
    R0 = np.array([[np.cos(t0), -np.sin(t0)], [np.sin(t0), np.cos(t0)]])
    R1 = np.array([[np.cos(t1), -np.sin(t1)], [np.sin(t1), np.cos(t1)]])
    E = (E @ R0) / [first.classes[0, 2], run.SHORT_SPREAD]
    expected = turned.classes[0, :2] + (E * [turned.classes[0, 2], run.SHORT_SPREAD]) @ R1.T
    np.testing.assert_allclose(turned.X[turned.y == 0], expected, atol=1e-9)
    # sessions keep the dragged classes; Reset the classes puts them back in a row
    state = lab.session_state()
    np.testing.assert_allclose(state["user_data"]["fisher_classes"], turned.classes)
    lab.reset_classes_button.click()
    wait_until(lambda: _classes_are(lab, first.classes), 30, "the classes reset")
    assert lab.user_data() == {}
    lab.restore_session(state)
    wait_until(lambda: _classes_are(lab, turned.classes), 30, "the session's classes")
    lab.form.set_value("n_classes", 3)  # the sliders put the classes in a row again
    wait_until(lambda: _classes_are(lab, run.default_classes(3, 3.0, 20.0)), 30, "three classes in a row")
    drawn(lab)
    assert [h[0].isVisible() for h in page.handles.handles] == [True, True, True]


def test_the_direction_is_turned_by_hand(lab):
    """Dragging the grey ◆ turns θ: the step of the sweep at that angle is shown (computed on the way
    forward, found in the timeline on the way back), J(θ)'s marker with it."""
    first = drawn(lab)
    page = lab.fisher
    centre = first.X.mean(axis=0)
    radius = np.hypot(page.turn.pos().x() - centre[0], page.turn.pos().y() - centre[1])
    assert page.turn.isVisible() and first.angle == 0

    def tip(degrees):
        t = np.radians(degrees)
        return centre + radius * np.array([np.cos(t), np.sin(t)])

    target = 3 * round(first.best_angle / 3)  # to Fisher's direction, J's maximum
    _drag(page.plane, tip(0), tip(target))
    wait_until(lambda: lab.runner.current is not None and lab.runner.current.angle == target, 30, "θ turned")
    s = drawn(lab)
    assert s.J[-1] == pytest.approx(max(s.J)) and abs(s.J[-1] - s.J_fisher) < 0.05 * s.J_fisher
    assert page.now.data["x"][0] == target and page.now.data["y"][0] == pytest.approx(s.J[-1])
    assert page.turn_angle() == pytest.approx(target, abs=1.0)
    _drag(page.plane, tip(target), tip(30))  # back: a step already computed
    wait_until(lambda: lab.runner.current.angle == 30, 30, "θ turned back")
    assert lab.runner.current_index == 10 and len(lab.runner.timeline) > 10
