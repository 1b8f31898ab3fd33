"""Long runs keep the window responsive to the end: a metric panel's axis width and view range
settle (if they chased each other, the event loop would never be idle again)."""

import pytest
from PySide6 import QtCore

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]


class Watchdog:
    """Counts the ticks of a 10 ms timer on the GUI thread: an event loop that froze for good
    stops counting (how long the longest gap is belongs to tests/benchmarks)."""

    def __init__(self):
        self.ticks = 0
        self.timer = QtCore.QTimer()
        self.timer.setInterval(10)
        self.timer.timeout.connect(self._tick)
        self.timer.start()

    def _tick(self):
        self.ticks += 1


def test_long_run_never_stalls_the_event_loop(qtbot, make_window):
    """The perceptron on 3,000 spiral points: about 15,000 steps, curves of that length
    redrawn while it runs, then painted again and again once it has finished."""
    window = make_window(lab_ids=["classifiers"])
    lab = window.show_lab("classifiers")
    lab.form.set_values({"classifier": "perceptron", "dataset": "spirals", "n_samples": 3000, "max_epochs": 10})
    lab.after_params_restored()
    lab.regenerate()
    lab.runner.set_rate(None)
    dog = Watchdog()
    lab.play()
    qtbot.waitUntil(lambda: lab.runner.finished or lab.runner.error is not None, timeout=600_000)
    qtbot.waitUntil(lambda: lab.runner.settled, timeout=10_000)
    lab.runner.flush()
    # the final frame painted again and again (where a ping-pong of axis width and view range
    # would start): the event loop keeps turning
    seen = dog.ticks
    qtbot.waitUntil(lambda: dog.ticks >= seen + 30, timeout=60_000)
    dog.timer.stop()
    assert lab.runner.error is None
    assert lab.runner.timeline.last.step > 5000  # a long run indeed
