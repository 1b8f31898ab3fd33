"""Side tasks a class can watch: what a task computes reaches the screen at the run bar's speed
(grid cells, criteria per K, restarts), and all at once at "Fastest"."""

from __future__ import annotations

import numpy as np
import pytest

from app import tasks


class _Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def _items(n):
    def body():
        yield from range(n)
    return body


@pytest.fixture
def clock(monkeypatch):
    c = _Clock()
    monkeypatch.setattr(tasks.time, "perf_counter", c)
    return c


def _finished_task(qtbot, pace, n=20):
    seen, done = [], []
    task = tasks.BackgroundTask(on_item=seen.append, on_done=lambda _r: done.append(len(seen)))
    task.pace = pace
    task._timer.stop()
    state = task.start(_items(n))
    task._timer.stop()  # the test polls by hand, on its own clock
    assert state.done.wait(10)
    return task, seen, done


def test_items_follow_the_pace_and_done_comes_after_the_last(qtbot, clock):
    task, seen, done = _finished_task(qtbot, lambda: 10.0)
    task.poll()
    assert seen == [0]  # the first item at once
    for expected in range(2, 21):
        clock.now += 0.1  # a tenth of a second: one more item at 10 a second
        task.poll()
        assert len(seen) == expected
        assert done == ([] if expected < 20 else [20])
    assert seen == list(range(20)) and not task.busy


def test_fastest_delivers_everything_at_once(qtbot, clock):
    task, seen, done = _finished_task(qtbot, lambda: None)
    task.poll()
    assert seen == list(range(20)) and done == [20]


def test_wait_delivers_everything_whatever_the_pace(qtbot, clock):
    task, seen, done = _finished_task(qtbot, lambda: 1.0)
    assert task.wait(10)
    assert seen == list(range(20)) and done == [20]


def test_cancel_drops_what_was_held(qtbot, clock):
    task, seen, done = _finished_task(qtbot, lambda: 1.0)
    task.poll()
    task.cancel()
    clock.now += 100
    task.poll()
    assert seen == [0] and done == [] and not task.busy


def test_the_grid_search_fills_in_at_the_run_bar_speed(qtbot, make_window):
    window = make_window(lab_ids=["classifiers"])
    lab = window.show_lab("classifiers")
    qtbot.waitUntil(lambda: lab.runner.current is not None, timeout=30_000)
    lab.form.set_values(dict(classifier="svm_rbf", dataset="moons", n_samples=60, noise=0.2, test_fraction=0.25),
                        quiet=True)
    lab.after_params_restored()
    lab.regenerate()
    qtbot.waitUntil(lambda: lab.runner.current is not None, timeout=30_000)
    speeds = [lab.runbar.speed.itemData(i) for i in range(lab.runbar.speed.count())]
    lab.runbar.speed.setCurrentIndex(speeds.index(1.0))  # one step a second
    cv = lab.cv_view
    lab.tabs.setCurrentIndex(1)
    cv.run_button.click()
    state = cv.task.state
    assert state is not None, cv.summary.text()
    assert state.done.wait(120)  # every cell computed ...
    cells = cv.errors.size
    qtbot.wait(100)
    assert 1 <= len(cv.snapshots) < cells  # ... and shown one a second: the class sees the grid fill
    assert cv.running or cv.task.busy
    lab.runbar.speed.setCurrentIndex(speeds.index(0.0))  # Fastest: the rest at once
    qtbot.waitUntil(lambda: cv.result is not None, timeout=10_000)
    assert len(cv.snapshots) == cells
    assert np.isfinite(np.asarray(cv.snapshots[-1].errors)).all()
