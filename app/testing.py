"""Driving a lab from a test or a script: open it, run it to a step, play it to its end.

Every function waits on a condition, never on a fixed time, and returns once what the lab
computed has been collected and drawn, its ``prepare`` result included where it has one::

    from app.testing import finish, open_lab, press, run_to

    lab = open_lab(window, "trees")    # shown, its first snapshot drawn
    snap = run_to(lab, 12)             # the snapshot numbered 12 (the last one if the run ends first)
    last = finish(lab)                 # played as fast as possible to its end
    press(lab, "Right")                # a key as the window system delivers it (here: one step)
    largest_run(lab)                   # a new run at the largest legal input, to its step 1

A condition that does not come true within ``timeout`` seconds (a guard for a busy machine,
not a measurement) raises :class:`TimeoutError`; a run that fails raises :class:`RuntimeError`
with the lab's message.
"""

from __future__ import annotations

import time
from typing import Callable

from PySide6 import QtCore, QtGui, QtTest, QtWidgets

#: seconds: how long a condition may take on a busy machine before the wait gives up
TIMEOUT = 120.0


def wait_until(predicate: Callable[[], object], timeout: float = TIMEOUT, what: str = "the condition") -> None:
    """Process Qt events until ``predicate()`` is true; :class:`TimeoutError` after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError(f"waited {timeout:.0f} s for {what}")
        # an event loop, not a sleep: it wakes as soon as a worker posts its snapshots
        loop = QtCore.QEventLoop()
        QtCore.QTimer.singleShot(10, loop.quit)
        loop.exec()


def _no_error(lab) -> None:
    if lab.runner.error is not None:
        raise RuntimeError(f"the {lab.id} run failed: {lab.runner.error}")


def drawn(lab, timeout: float = TIMEOUT):
    """Collect and draw all the runner holds, with its ``prepare`` result; returns the
    snapshot on screen."""
    r = lab.runner
    wait_until(lambda: r.settled, timeout, "the worker to hand over its snapshots")
    r.flush()
    if lab.prepare_needed() and r.current is not None:
        wait_until(lambda: r.prepared_for(r.current) is not None or not r.preparing, timeout,
                   "the snapshot's prepare() result")
        r.flush()
    return r.current


def open_lab(window, lab_id: str, timeout: float = TIMEOUT):
    """Open ``lab_id`` in ``window`` (as its tab, in front) and wait for its first snapshot;
    returns the lab."""
    lab = window.open_lab(lab_id)
    r = lab.runner
    wait_until(lambda: r.current is not None or r.error is not None, timeout, f"the first snapshot of {lab_id}")
    _no_error(lab)
    return lab


def run_to(lab, step: int, timeout: float = TIMEOUT):
    """Compute, without playing, up to the snapshot numbered ``step`` and draw it (a run that
    ends earlier stops at its last snapshot); returns the snapshot on screen."""
    r = lab.runner
    lab.run_to(step)

    def reached():
        last = r.timeline.last
        return r.error is not None or r.finished or (last is not None and last.step >= step)

    wait_until(reached, timeout, f"step {step} of {lab.id}")
    _no_error(lab)
    return drawn(lab, timeout)


def finish(lab, restart: bool = False, timeout: float = TIMEOUT):
    """Play the run as fast as possible to its end and draw its last snapshot; with
    ``restart`` (or when nothing runs yet) a new run is started first."""
    r = lab.runner
    lab.runbar.speed.setCurrentIndex(lab.runbar.speed.count() - 1)  # as fast as possible
    if restart or not r.has_run:
        lab.start()
    lab.play()
    wait_until(lambda: r.finished or r.error is not None, timeout, f"the end of the {lab.id} run")
    _no_error(lab)
    return drawn(lab, timeout)



def largest_run(lab, timeout: float = TIMEOUT):
    """Set the lab to its largest legal input (:meth:`app.lab.Lab.largest_input`), start a new
    run and draw its first two steps, ``prepare`` included; returns the snapshot on screen.
    What this costs is the lab's budget (``budget_mb``, ``budget_seconds``)."""
    drawn(lab, timeout)  # nothing of the previous run is still being computed
    lab.largest_input()
    lab.reset()
    r = lab.runner
    wait_until(lambda: r.current is not None or r.error is not None, timeout, f"the first snapshot of {lab.id}")
    _no_error(lab)
    return run_to(lab, 1, timeout)


def press(lab, key: str | QtCore.Qt.Key, timeout: float = TIMEOUT) -> None:
    """One key press and release as a window system delivers it: the lab's window is made the
    active one and the key goes to its focus widget. ``key`` is a Qt key or a key sequence's
    text ("Space", "Right", "R", "F1", "Ctrl+S"). What the key does is not awaited: wait for
    its effect with :func:`wait_until`, :func:`drawn` or :func:`run_to`."""
    window = lab.window()
    if QtWidgets.QApplication.activeWindow() is not window:
        window.activateWindow()
        wait_until(lambda: QtWidgets.QApplication.activeWindow() is window, timeout, "the lab's window to be active")
    modifiers = QtCore.Qt.KeyboardModifier.NoModifier
    if isinstance(key, str):
        sequence = QtGui.QKeySequence(key)
        if sequence.count() != 1:
            raise ValueError(f"{key!r} is not one key")
        combination = sequence[0]
        key, modifiers = combination.key(), combination.keyboardModifiers()
    target = QtWidgets.QApplication.focusWidget() or window
    QtTest.QTest.keyClick(target, key, modifiers)
