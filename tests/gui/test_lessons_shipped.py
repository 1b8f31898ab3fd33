"""Every shipped lesson (``resources/lessons/*.smllesson``), step by step, as a class sees it on a
projector of 1024×768 and of 1280×800, before and after each reveal.

Each step opens, its locks and hidden controls hold, its reveal reaches its condition within its
budget, and on both screens, measured on what is drawn (widget and plot-item geometry mapped to
the window, the labels' texts):

* the window is no larger than the screen;
* every line of the prompt, the question, the choices and the answer is shown: each label is
  as tall as its text needs at its width and lies whole inside the window (nothing scrolls or
  is cut), and it says what the step says;
* the tab the question is about is in front (a lab with tabs: the step names it), with the plot
  the step enlarges if it names one;
* the main plot (the lab's main plot on the tab the lab opens on, the largest plot of any other
  tab) keeps ≥ 35 % of the window's height for data, and every plot of the tab — the one that
  carries the step's evidence among them — lies whole inside the window with ≥ 9 % of its
  height for data (on a strip of 50–70 px a curve lies flat on its axis);
* the reveal moves nothing: the panel, its buttons and the lab's run bar keep their place.

One window per lesson, resized between the two screens; one test per step (a reveal may take a
few seconds), the lesson's window kept for its next step and its runs stopped between tests.
"""

import functools
import html
import json
import os
import re
import subprocess
import sys

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6 import QtCore, QtGui, QtWidgets

from app import style as theme
from app.lessons.format import load_lesson
from app.lessons.player import shipped_lessons
from app.lessons.views import current_view
from app.testing import wait_until

LESSONS = shipped_lessons()


def _step_count(path) -> int:
    """Read without checks, to name the tests (a lesson that does not load fails its first one)."""
    try:
        return max(1, len(json.loads(path.read_text(encoding="utf-8"))["steps"]))
    except (OSError, ValueError, KeyError, TypeError):
        return 1


@functools.cache
def _lesson(path):
    return load_lesson(path)


CASES = [(path, i) for path in LESSONS for i in range(_step_count(path))]
SIZES = [(1024, 768), (1280, 800)]
MAIN_SHARE = 0.35  # of the window's height, for the main plot's data
EVIDENCE_SHARE = 0.09  # of the window's height, for the data of every plot of the step's tab


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
        lesson = _lesson(path)
        assert {s.lab for s in lesson.steps} == {path.stem}
        assert 4 <= len(lesson.steps) <= 7


# ---------------------------------------------------------------------------- geometry
def _window_rect(widget, window) -> QtCore.QRect:
    return QtCore.QRect(widget.mapTo(window, QtCore.QPoint(0, 0)), widget.size())


def _shown(rect: QtCore.QRect, widget, window) -> QtCore.QRect:
    """The part of ``rect`` (window coordinates, inside ``widget``) the window shows: clipped by
    every parent of ``widget`` (a scroll area's viewport, a splitter's pane) and by the window's
    area above its status bar."""
    shown = QtCore.QRect(rect)
    parent = widget.parentWidget()
    while parent is not None and parent is not window:
        shown = shown.intersected(_window_rect(parent, window))
        parent = parent.parentWidget()
    status = window.statusBar()
    bottom = status.mapTo(window, QtCore.QPoint(0, 0)).y() if status.isVisible() else window.height()
    return shown.intersected(QtCore.QRect(0, 0, window.width(), bottom))


def _data_rect(view, window) -> QtCore.QRect:
    """A plot's data area (its view box, in scene coordinates) in window coordinates."""
    box = view.mapFromScene(view.getPlotItem().getViewBox().sceneBoundingRect()).boundingRect()
    return QtCore.QRect(view.viewport().mapTo(window, box.topLeft()), box.size())


def _plain(rich: str) -> str:
    text = re.sub(r"<br\s*/?>", " ", rich)
    text = html.unescape(re.sub(r"<[^>]+>", "", text))
    return " ".join(text.replace("\xa0", " ").split())


def _views(lab):
    return [v for v in lab.plots.findChildren(pg.GraphicsView) if v.isVisible() and v.width() > 1]


def _name(view) -> str:
    item = getattr(view, "getPlotItem", lambda: None)()
    title = item.titleLabel.text if item is not None else ""
    return f"{type(view).__name__} {_plain(title or '')[:40]!r}"


def text_problems(player, window) -> list[str]:
    """Every label of the panel shows all its lines, whole inside the window."""
    bad = []
    for label in player.bar.text_labels():
        if not label.isVisible():
            continue
        need = label.heightForWidth(label.width()) if label.wordWrap() else label.sizeHint().height()
        what = repr(_plain(label.text())[:40])
        if need > label.height() + 1:
            bad.append(f"label {what} needs {need} px, has {label.height()} (its last lines cut)")
        if not label.wordWrap() and label.sizeHint().width() > label.width() + 1:
            bad.append(f"label {what} needs {label.sizeHint().width()} px of width, has {label.width()}")
        rect = _window_rect(label, window)
        if _shown(rect, label, window) != rect:
            bad.append(f"label {what} cut by the window: {_shown(rect, label, window).getRect()} of {rect.getRect()}")
    for button in player.bar.buttons:
        rect = _window_rect(button, window)
        if button.isVisible() and _shown(rect, button, window) != rect:
            bad.append(f"button {button.text()!r} cut by the window")
    return bad


def words_problems(player, step, revealed: bool) -> list[str]:
    """The panel says what the step says: the prompt (before the reveal), the question and every
    choice, the answer after the reveal (with the correct choice marked)."""
    bar, bad = player.bar, []
    shown = {label: _plain(label.text()) for label in bar.text_labels() if label.isVisible()}
    everything = " ".join(shown.values())
    wanted = []
    if not revealed and step.prompt:
        wanted.append(("prompt", step.prompt))
    if step.question is not None:
        wanted.append(("question", step.question.text))
        wanted += [(f"choice {i + 1}", c) for i, c in enumerate(step.question.choices)]
    if revealed and step.answer:
        wanted.append(("answer", step.answer))
    for what, text in wanted:
        if " ".join(text.split()) not in everything:
            bad.append(f"the {what} is not shown: {text[:50]!r}")
    if revealed and step.question is not None and step.question.correct is not None:
        letter = bar.choice_letters[step.question.correct]
        if "✓" not in _plain(letter.text()):
            bad.append("the correct choice is not marked")
    return bad


def plot_problems(lab, window) -> list[str]:
    bad = []
    views = _views(lab)
    plots = [v for v in views if hasattr(v, "getPlotItem")]
    main = lab.main_plot()
    first_tab = not isinstance(lab.plots, QtWidgets.QTabWidget) or lab.plots.currentIndex() == 0
    if main not in plots or not first_tab:  # another tab than the one the lab opens on: its largest plot
        main = max(plots, key=lambda v: _data_rect(v, window).height(), default=None)
    height = window.height()
    if main is not None:
        data = _data_rect(main, window)
        shown = _shown(data, main, window).height()
        if shown < MAIN_SHARE * height:
            bad.append(f"main plot {_name(main)}: {shown} px of data shown, < {100 * MAIN_SHARE:.0f} % of {height}")
    for view in views:
        rect = _window_rect(view, window)
        shown = _shown(rect, view, window)
        if shown != rect:
            bad.append(f"plot {_name(view)} cut by the window: {shown.width()}×{shown.height()} px of "
                       f"{rect.width()}×{rect.height()} shown")
        if view in plots:
            data = _data_rect(view, window).height()
            if data < EVIDENCE_SHARE * height:
                bad.append(f"plot {_name(view)}: {data} px of data, < {100 * EVIDENCE_SHARE:.0f} % of {height}")
    return bad


def _layout_signature(window, player, lab):
    rects = [_window_rect(w, window).getRect() for w in (player.bar, lab.runbar, *player.bar.buttons)]
    rects += [_data_rect(v, window).getRect() for v in _views(lab) if hasattr(v, "getPlotItem")]
    return window.size().toTuple(), tuple(rects), player.bar.scale


def _settle(window, player, lab, size) -> None:
    """Resized to ``size``, with every layout, panel fit and plot geometry done (the same twice)."""
    if window.size().toTuple() != size:
        window.resize(*size)
    seen = []

    def still():
        if not player.bar.fitted:
            return False
        seen.append(_layout_signature(window, player, lab))
        return len(seen) > 2 and seen[-1] == seen[-2] == seen[-3]

    wait_until(still, 20, "the lesson's layout to settle")


def _kept(window, player, lab) -> dict:
    """What the reveal must leave in place: the panel, its buttons, the lab's run bar."""
    bar = player.bar
    widgets = {"the lesson panel": bar, "the run bar": lab.runbar, "Previous": bar.previous_button,
               "Reveal": bar.reveal_button, "Next": bar.next_button, "Leave": bar.leave_button}
    kept = {name: _window_rect(w, window).getRect() for name, w in widgets.items()}
    kept["the panel's text size"] = bar.scale
    return kept


# ---------------------------------------------------------------------------- the lessons
def _close(window) -> None:
    window.shutdown()
    window.close()
    window.deleteLater()


@pytest.fixture(scope="module")
def lesson_windows(qapp, tmp_path_factory):
    """One window per lesson, in projector mode, kept for the lesson's next step (and closed
    when the tests of another lesson begin)."""
    from app.main_window import MainWindow

    old = os.environ.get("SMLLAB_CONFIG_DIR")
    os.environ["SMLLAB_CONFIG_DIR"] = str(tmp_path_factory.mktemp("config"))
    windows: dict = {}

    def get(path):
        if path not in windows:
            for other in windows.values():
                _close(other)
            windows.clear()
            window = MainWindow(restore=False, autosave=False, lab_ids=_lesson(path).labs())
            window.set_projector(True)
            window.resize(*SIZES[0])
            window.show()
            windows[path] = window
        window = windows[path]
        window.set_projector(True)
        return window

    yield get
    for window in windows.values():
        _close(window)
    theme.manager().set(theme="light", projector=False)
    if old is None:
        os.environ.pop("SMLLAB_CONFIG_DIR", None)
    else:
        os.environ["SMLLAB_CONFIG_DIR"] = old


@pytest.mark.parametrize("path,index", CASES, ids=[f"{p.stem}-{i + 1}" for p, i in CASES])
def test_lesson_step(lesson_windows, path, index):
    lesson = _lesson(path)
    step = lesson.steps[index]
    window = lesson_windows(path)
    player = window.lessons
    where = f"{path.stem} step {index + 1}"
    window.resize(*SIZES[0])
    if player.active:
        player.go_to(index)
    else:
        player.start(lesson, str(path), index)
    lab = player.current_lab()
    try:
        wait_until(player.arrived, 120, f"{where} to arrive")
        assert player.message == "", f"{where}: {player.message}"
        assert lab.runner.error is None, f"{where}: {lab.runner.error}"
        assert lab.runner.current.step == step.state["step"]
        tabs = lab.plots if isinstance(lab.plots, QtWidgets.QTabWidget) and lab.plots.count() > 1 else None
        assert tabs is None or step.view, f"{where}: the lab has tabs and the step names none"
        for name in step.locked:
            widget = lab.runbar.seed if name == "seed" else lab.form.widgets[name]
            assert not widget.isEnabled(), f"{where}: {name} is not locked"
        for name in step.hidden:
            widget = lab.runbar.seed if name == "seed" else lab.form.widgets[name]
            assert not widget.isVisible(), f"{where}: {name} is not hidden"
        assert step.prompt
        kept = {}
        for state in ("before", "after"):
            revealed = state == "after"
            for size in (SIZES if not revealed else SIZES[::-1]):
                _settle(window, player, lab, size)
                at = f"{where} {state} the reveal at {size[0]}×{size[1]}"
                assert window.width() <= size[0] and window.height() <= size[1], \
                    f"{at}: the window grew to {window.width()}×{window.height()}"
                assert current_view(lab) == step.view, f"{at}: the tab {current_view(lab)!r} is in front"
                problems = (text_problems(player, window) + words_problems(player, step, revealed)
                            + plot_problems(lab, window))
                assert not problems, f"{at}: " + "; ".join(problems)
                if revealed:
                    moved = {name: (kept[size][name], rect) for name, rect in _kept(window, player, lab).items()
                             if rect != kept[size][name]}
                    assert not moved, f"{at}: the reveal moved {moved}"
                else:
                    kept[size] = _kept(window, player, lab)
            if not revealed:
                player.reveal()
                wait_until(player.settled, 300, f"the reveal of {where}")
                if step.reveal is not None:
                    assert player.reveal_met, f"{where}: {player.result}"
                    shown = lab.runner.current
                    if step.reveal.until is None:
                        assert shown.step == step.reveal.run_to
                    else:
                        assert shown.step <= step.state["step"] + step.reveal.budget
                        assert f"at step {shown.step}." in player.result, (player.result, shown.step)
                        if not step.reveal.until.finished:
                            assert step.reveal.until.met(lab.lesson_values(shown), False)
                    lab.runner.flush()
        plots = _grey(lab.plots.grab().toImage())
        assert plots.std() > 8, f"{where}: the plots look blank (pixel std {plots.std():.1f})"
    finally:
        lab.shutdown()  # no run waits between tests; the next step starts its own


@pytest.mark.skipif(not LESSONS, reason="no lesson is shipped")
def test_command_line_renders_a_step(tmp_path):
    path = next((p for p in LESSONS if p.stem == "regression"), LESSONS[0])  # a reveal of one step
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
