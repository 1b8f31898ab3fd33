"""The template labs app/labs/_example and app/labs/_example_points: what docs/writing-a-lab.md
shows is what runs.

The generic checks of every lab (lifecycle, projector and dark theme, same seed same run, the
shared shape, layout, picture truth) run them too: ``lab_templates.CHECKED`` lists them beside
the registered labs and the ``make_window`` fixture registers a template a window asks for."""

from __future__ import annotations

import pathlib
import tracemalloc

import numpy as np
import pytest
from sklearn.neighbors import KNeighborsClassifier

from app import registry
from app.labs._example import run
from app.labs._example_points import run as knn
from app.points_data import LabelledRun, split_mask
from app.testing import finish, run_to
from smlengine.datasets import make_dataset
from smlengine.grid import grid_points

ROOT = pathlib.Path(__file__).resolve().parents[2]
FILES = ("__init__.py", "run.py", "maths.py", "lab.py")
#: each template's folder and the most lines its four files may hold together
TEMPLATES = {"_example": 102, "_example_points": 130}


@pytest.mark.parametrize("folder", TEMPLATES)
def test_the_guide_shows_every_file_of_the_template_as_it_is(folder):
    guide = (ROOT / "docs" / "writing-a-lab.md").read_text(encoding="utf-8")
    for name in FILES:
        text = (ROOT / "app" / "labs" / folder / name).read_text(encoding="utf-8")
        assert f"### `app/labs/{folder}/{name}`" in guide, name
        assert f"```python\n{text}```" in guide, f"{folder}/{name} differs from the guide"
    assert sorted(p.name for p in (ROOT / "app" / "labs" / folder).glob("*.py")) == sorted(FILES)


@pytest.mark.parametrize("folder", TEMPLATES)
def test_each_template_is_a_lab_in_few_lines(folder):
    lines = sum(len((ROOT / "app" / "labs" / folder / name).read_text(encoding="utf-8").splitlines())
                for name in FILES)
    assert lines <= TEMPLATES[folder], lines


@pytest.mark.parametrize("package, lab_id, order, class_name", [("app.labs._example", "example", 999, "ExampleLab"),
                                                                ("app.labs._example_points", "example_points", 998,
                                                                 "ExamplePointsLab")])
def test_the_registry_skips_the_templates_but_reads_their_metadata(package, lab_id, order, class_name):
    assert lab_id not in [info.id for info in registry.discover()]
    info = registry.LabInfo.of(package)
    assert (info.id, info.title, info.order) == (lab_id, info.cls.title, order)
    assert info.cls.__name__ == class_name


def test_running_moments_are_the_sample_mean_and_covariance():
    X = run.sample(50, 3)
    snaps = list(run.run_steps(X))
    assert [s.step for s in snaps] == list(range(50))
    for s in (snaps[1], snaps[10], snaps[-1]):
        seen = X[: s.n]
        np.testing.assert_allclose(s.mean, seen.mean(axis=0), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(s.cov, np.cov(seen.T, bias=True), rtol=1e-10, atol=1e-12)
        assert not s.mean.flags.writeable and not s.cov.flags.writeable


def test_no_points_is_a_message_not_a_crash(qtbot):
    from app.labs._example.lab import ExampleLab

    lab = ExampleLab()
    qtbot.addWidget(lab)
    lab.canvas.clear_points()  # an edit restarts the run: make_run refuses, the banner says why
    assert "at least two points" in lab.runner.error
    assert "at least two points" in lab.banner.text() and not lab.banner.isHidden()
    lab.shutdown()


# ------------------------------------------------------------------ the k-nearest-neighbours template
def _context(metric: str, n: int = 400, k_max: int = 25, seed: int = 4) -> LabelledRun:
    X, y = make_dataset("moons", n, 0.35, random_state=seed)
    return LabelledRun(metric, {"k_max": k_max}, X, y, split_mask(n, 0.3, seed), (-2.0, 3.0, -1.5, 2.0), seed)


@pytest.mark.parametrize("metric, p", [("euclidean", 2), ("manhattan", 1)])
def test_the_vote_is_scikit_learns_k_nearest_neighbours(metric, p):
    ctx = _context(metric)
    snaps = list(knn.run_steps(ctx))
    assert [s.k for s in snaps] == list(range(1, 26, 2)) and [s.step for s in snaps] == list(range(13))
    grid = grid_points(ctx.extent, 140)[2]
    for s in (snaps[0], snaps[4], snaps[-1]):
        reference = KNeighborsClassifier(n_neighbors=s.k, p=p).fit(ctx.X_train, ctx.y_train)
        assert s.train_error == np.mean(reference.predict(ctx.X_train) != ctx.y_train)
        assert s.test_error == np.mean(reference.predict(ctx.X_test) != ctx.y_test)
        frame = knn.decision_map(s, ctx.extent)
        np.testing.assert_array_equal(np.sign(frame.values.ravel()), reference.predict(grid))
        assert 0.0 in frame.contours  # the boundary f = 0 is traced
    assert snaps[0].train_error == 0.0  # each training point is its own nearest neighbour
    assert not snaps[0].X_train.flags.writeable and all(s.X_train is snaps[0].X_train for s in snaps)


def test_the_vote_stays_small_at_the_largest_input():
    """20,000 training points, k = 99 and the map's 140 × 140 grid: a distance matrix between
    the grid and the points would be 3.1 GB; the chunked tree queries keep the vote under 32 MB."""
    X, y = make_dataset("moons", 20_000, 0.3, random_state=0)
    ctx = LabelledRun("euclidean", {"k_max": 99}, X, y, np.zeros(len(y), bool), (-2.0, 3.0, -1.5, 2.0), 0)
    tracemalloc.start()
    try:
        last = None
        for last in knn.run_steps(ctx):
            pass
        knn.decision_map(last, ctx.extent)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert last.k == 99 and last.test_error is None
    assert peak < 32e6, f"{peak / 1e6:.0f} MB"


@pytest.fixture
def knn_lab(qtbot):
    from app.labs._example_points.lab import ExamplePointsLab

    lab = ExamplePointsLab()
    qtbot.addWidget(lab)
    lab.resize(900, 700)
    lab.show()
    yield lab
    lab.shutdown()


def test_the_knn_lab_draws_its_lesson_and_its_map(knn_lab):
    """The default run: k = 1 learns the training points by heart (no training error) and
    misses more test points than a larger k; the map on screen is the vote on its grid."""
    lab = knn_lab
    last = finish(lab, restart=True)
    r = lab.runner
    assert last.k == 41 and lab.error_text == ""
    snaps = list(r.timeline)
    train, test = [s.train_error for s in snaps], [s.test_error for s in snaps]
    assert train[0] == 0.0 and test[0] > min(test) and test[-1] > min(test)
    np.testing.assert_array_equal(lab.errors.curve("test").item.getData()[1], test)
    ctx = LabelledRun("euclidean", lab.params(), *lab.canvas_arrays(), lab.decision.frame.extent, lab.seed)
    reference = KNeighborsClassifier(n_neighbors=41).fit(ctx.X_train, ctx.y_train)
    shown = lab.decision.frame
    np.testing.assert_array_equal(np.sign(shown.values.ravel()), reference.predict(grid_points(shown.extent, 140)[2]))

    lab.form.set_value("metric", "manhattan")  # not a data parameter: the same points, a new run
    snap = run_to(lab, 3)
    assert (snap.k, snap.metric) == (7, "manhattan") and len(lab.canvas.y) == len(ctx.y)
    lab.form.set_value("n_samples", 120)  # a data parameter: a new sample, and the run restarts
    assert len(lab.canvas.y) == 120
    assert len(run_to(lab, 0).X_train) == np.count_nonzero(~lab.canvas.test_mask)

    lab.set_canvas_points(ctx.X[:5], ctx.y[:5], test_mask=np.ones(5, bool))
    lab.reset()  # no training point: make_run refuses, the banner says why and the map is gone
    assert "Every point is a test point" in lab.banner.text() and not lab.banner.isHidden()
    assert lab.decision.frame is None and not lab.decision.image.isVisible()
