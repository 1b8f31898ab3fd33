"""The scikit-learn reference check runs in a child process that a cancel terminates.

The child's work is replaced by a function that never returns (a libsvm fit at large C on
thousands of points behaves the same: it cannot be interrupted from Python). Cancelling the
check in any of the ways a user can must leave no child process running.
"""

import textwrap

import numpy as np
import pytest

pytest.importorskip("sklearn")

from app.labs.classifiers import reference  # noqa: E402

CHILD = '''
import os
import time


def forever(*args):
    while True:
        time.sleep(0.05)


def fails(*args):
    raise ValueError("the solver gave up: " + "x" * 5000)


def crashes(*args):
    os._exit(3)
'''


@pytest.fixture
def child_module(tmp_path, monkeypatch):
    """A module the spawned child can import (the parent's sys.path is handed to it)."""
    (tmp_path / "reference_child_stub.py").write_text(textwrap.dedent(CHILD))
    monkeypatch.syspath_prepend(str(tmp_path))
    import reference_child_stub

    return reference_child_stub


@pytest.fixture
def lab(make_window, qtbot):
    window = make_window(lab_ids=["classifiers"])
    lab = window.show_lab("classifiers")
    lab.form.set_value("classifier", "svm_rbf")
    qtbot.waitUntil(lambda: lab.runner.current is not None)
    lab.pause()
    assert lab.reference_button.isEnabled()
    lab._test_window = window
    return lab


def _start_forever_check(lab, qtbot, monkeypatch, child_module):
    monkeypatch.setattr(reference, "reference_check", child_module.forever)
    lab.reference_button.click()
    qtbot.waitUntil(lambda: len(reference.live_children()) == 1, timeout=30_000)
    return reference.live_children()[0]


@pytest.mark.parametrize("how", ["parameter", "reset", "close"])
def test_cancelled_check_leaves_no_process(lab, qtbot, monkeypatch, child_module, how):
    child = _start_forever_check(lab, qtbot, monkeypatch, child_module)
    if how == "parameter":
        lab.form.set_value("C", 10.0)
    elif how == "reset":
        lab.reset()
    else:
        lab._test_window.shutdown()
        lab._test_window.close()
    qtbot.waitUntil(lambda: not child.is_alive(), timeout=10_000)
    assert reference.live_children() == []
    if how != "close":
        assert lab.reference_button.isEnabled()
        assert "stopped" in lab.reference_label.text()
        assert lab.reference_result is None


def test_another_check_replaces_the_running_one(lab, qtbot, monkeypatch, child_module):
    first = _start_forever_check(lab, qtbot, monkeypatch, child_module)
    lab.run_reference_check()  # a second check (e.g. from a script or a double click)
    qtbot.waitUntil(lambda: not first.is_alive(), timeout=10_000)
    qtbot.waitUntil(lambda: len(reference.live_children()) == 1, timeout=30_000)
    second = reference.live_children()[0]
    assert second is not first
    lab.task("reference").cancel()
    qtbot.waitUntil(lambda: not second.is_alive(), timeout=10_000)


@pytest.mark.parametrize("target, words", [("fails", "the solver gave up"), ("crashes", "exit code 3")])
def test_error_in_the_child_is_a_short_message(lab, qtbot, monkeypatch, child_module, target, words):
    monkeypatch.setattr(reference, "reference_check", getattr(child_module, target))
    lab.reference_button.click()
    qtbot.waitUntil(lambda: "failed" in lab.reference_label.text(), timeout=30_000)
    text = lab.reference_label.text()
    assert words in text and len(text) < 500
    assert lab.reference_result is None and lab.reference_button.isEnabled()
    assert reference.live_children() == []


def test_child_process_result_equals_in_thread_result():
    """The process path returns what reference_check computes in this process."""
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(-1, 0.6, (30, 2)), rng.normal(1, 0.6, (30, 2))])
    y = np.r_[-np.ones(30), np.ones(30)]
    params = {"C": 1.0, "max_iter": 200, "solver": "newton"}
    here = reference.reference_check("logistic", params, X, y, (-3, 3, -3, 3), 40)
    there = reference.reference_check_in_process("logistic", params, X, y, (-3, 3, -3, 3), 40)
    assert there == here
    assert reference.live_children() == []
