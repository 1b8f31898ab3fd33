"""The template lab app/labs/_example: what docs/writing-a-lab.md shows is what runs.

The generic checks of every lab (lifecycle, projector and dark theme, same seed same run) run
it too: ``tests/gui/test_every_lab.py`` adds it to the labs it walks."""

from __future__ import annotations

import pathlib

import numpy as np

from app import registry
from app.labs._example import run

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "app" / "labs" / "_example"
FILES = ("__init__.py", "run.py", "maths.py", "lab.py")


def test_the_guide_shows_every_file_of_the_template_as_it_is():
    guide = (ROOT / "docs" / "writing-a-lab.md").read_text(encoding="utf-8")
    for name in FILES:
        text = (EXAMPLE / name).read_text(encoding="utf-8")
        assert f"### `app/labs/_example/{name}`" in guide, name
        assert f"```python\n{text}```" in guide, f"{name} differs from the guide"
    assert sorted(p.name for p in EXAMPLE.glob("*.py")) == sorted(FILES)


def test_the_template_is_a_lab_in_under_100_lines():
    lines = sum(len((EXAMPLE / name).read_text(encoding="utf-8").splitlines()) for name in FILES)
    assert lines < 100, lines


def test_the_registry_skips_the_template_but_reads_its_metadata():
    assert "example" not in [info.id for info in registry.discover()]
    info = registry.LabInfo.of("app.labs._example")
    assert (info.id, info.title, info.order) == ("example", info.cls.title, 999)
    assert info.cls.__name__ == "ExampleLab"


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
