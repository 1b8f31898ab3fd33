"""The spectral methods lab: what each tab draws equals the engine's numbers, and the defaults teach
the lessons (Fisher separates where PCA does not; spectral clustering splits the moons that k-means
cuts wrongly; a large γ breaks the graph; a kernel component separates the rings; CCA finds the
shared signal)."""

import numpy as np
import pytest
from sklearn.metrics import adjusted_rand_score

from app.labs.spectral import run
from app.labs.spectral.lab import SpectralLab
from app.testing import finish, run_to, wait_until
from smlengine.datasets import make_dataset
from smlengine.spectral import FisherLDA


@pytest.fixture
def lab(qtbot):
    lab = SpectralLab()
    qtbot.addWidget(lab)
    lab.resize(1280, 760)
    lab.show()
    yield lab
    lab.shutdown()
    lab.close()


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
