"""Every shipped lesson (``resources/lessons/*.smllesson``): every step opens, its locks and
hidden controls hold, its reveal reaches its condition within its budget, and the picture the
class sees is not blank; the command line renders a step headless."""

import os
import subprocess
import sys

import numpy as np
import pytest
from PySide6 import QtGui

from app.lessons.format import load_lesson
from app.lessons.player import current_view, shipped_lessons

LESSONS = shipped_lessons()


def _grey(image: QtGui.QImage) -> np.ndarray:
    image = image.convertToFormat(QtGui.QImage.Format.Format_Grayscale8)
    rows = np.frombuffer(image.constBits(), dtype=np.uint8).reshape(image.height(), image.bytesPerLine())
    return rows[:, : image.width()].astype(float)


def test_every_lab_may_have_a_lesson():
    from app import registry

    ids = {info.id for info in registry.discover()}
    assert LESSONS, "no lesson is shipped"
    for path in LESSONS:
        assert path.stem in ids, f"{path.name} is named after no lab"
        assert {s.lab for s in load_lesson(path).steps} == {path.stem}


@pytest.mark.parametrize("path", LESSONS, ids=[p.stem for p in LESSONS])
def test_shipped_lesson(qtbot, make_window, path):
    lesson = load_lesson(path)
    assert 4 <= len(lesson.steps) <= 7
    window = make_window(lab_ids=lesson.labs())
    window.resize(1280, 800)
    player = window.lessons
    player.start(lesson, str(path))
    for i, step in enumerate(lesson.steps):
        player.go_to(i)
        qtbot.waitUntil(player.arrived, timeout=120_000)
        assert player.message == "", f"step {i + 1}: {player.message}"
        lab = player.current_lab()
        assert lab.runner.error is None, f"step {i + 1}: {lab.runner.error}"
        assert lab.runner.current.step == step.state["step"]
        assert not step.view or current_view(lab) == step.view
        for name in step.locked:
            widget = lab.runbar.seed if name == "seed" else lab.form.widgets[name]
            assert not widget.isEnabled(), f"step {i + 1}: {name} is not locked"
        for name in step.hidden:
            widget = lab.runbar.seed if name == "seed" else lab.form.widgets[name]
            assert not widget.isVisible(), f"step {i + 1}: {name} is not hidden"
        assert step.prompt and player.bar.prompt.text()
        if step.reveal is not None:
            player.reveal()
            qtbot.waitUntil(player.settled, timeout=300_000)
            assert player.reveal_met, f"step {i + 1}: {player.result}"
            shown = lab.runner.current
            if step.reveal.until is None:
                assert shown.step == step.reveal.run_to
            else:
                assert shown.step <= step.state["step"] + step.reveal.budget
                if not step.reveal.until.finished:
                    assert step.reveal.until.met(lab.lesson_values(shown), False)
            lab.runner.flush()
        qtbot.wait(50)
        plots = _grey(lab.plots.grab().toImage())
        assert plots.std() > 8, f"step {i + 1}: the plots look blank (pixel std {plots.std():.1f})"
    player.leave()


@pytest.mark.skipif(not LESSONS, reason="no lesson is shipped")
def test_command_line_renders_a_step(tmp_path):
    path = LESSONS[0]
    out = tmp_path / "step.png"
    env_cmd = [sys.executable, "-m", "app", "--lesson", str(path), "--lesson-step", "2", "--reveal",
               "--screenshot", str(out), "--size", "1024x768", "--projector"]
    done = subprocess.run(env_cmd, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert done.returncode == 0, done.stderr[-2000:]
    image = QtGui.QImage(str(out))
    assert (image.width(), image.height()) == (1024, 768)
    assert _grey(image).std() > 8
    bad = subprocess.run([sys.executable, "-m", "app", "--lesson", str(path), "--lesson-step", "99",
                          "--screenshot", str(tmp_path / "no.png")], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert bad.returncode == 2 and "--lesson-step must be between 1 and" in bad.stderr
