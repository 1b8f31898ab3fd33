"""An exception that reaches Qt's event loop uncaught fails the GUI test it happens in: pytest-qt's
exception capture is on for every test of the suite (tests/gui/conftest.py refuses to turn it off)."""

import functools
import sys

from PySide6 import QtCore


def test_the_capture_hook_is_installed_during_every_gui_test(qtbot):
    hook = sys.excepthook
    assert isinstance(hook, functools.partial) and hook.func.__module__ == "pytestqt.exceptions", hook


def test_an_exception_in_a_slot_reaches_the_hook(qtbot):
    fired = []

    def slot():
        fired.append(True)
        raise ValueError("an error in a slot")

    with qtbot.capture_exceptions() as caught:  # the same hook, held here so that this test passes
        QtCore.QTimer.singleShot(0, slot)
        qtbot.waitUntil(lambda: bool(fired))
    assert [(type(value), str(value)) for _, value, _ in caught] == [(ValueError, "an error in a slot")]
