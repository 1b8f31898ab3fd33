"""Responsiveness of the shell: event-loop gaps and redraw rate under a flat-out run, and
cold start to the first window.

Run with ``python3 dev.py bench`` (or ``pytest -s -o addopts= -m benchmark tests/benchmarks``).
Targets: largest event-loop gap <= 50 ms, >= 25 redraws/s, cold start <= 1.5 s.
"""

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.benchmark

ROOT = Path(__file__).resolve().parents[2]


def test_event_loop_stays_responsive_while_the_perceptron_runs_flat_out(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("SMLLAB_CONFIG_DIR", str(tmp_path))
    from PySide6 import QtCore

    from app.main_window import MainWindow
    from smlengine.datasets import make_moons

    window = MainWindow(restore=False, autosave=False, lab_ids=["classifiers"])
    qtbot.addWidget(window)
    window.resize(1400, 860)
    window.show()
    lab = window.show_lab("classifiers")
    X, y = make_moons(3000, 0.3, random_state=0)  # not separable: runs until max_epochs
    lab.form.set_values({"max_epochs": 100000})
    lab.canvas.set_points(X, y)
    qtbot.waitUntil(lambda: lab.runner.current is not None, timeout=10_000)
    lab.runbar.speed.setCurrentIndex(lab.runbar.speed.count() - 1)  # as fast as possible

    frame_times = []
    original = lab._on_frame

    def timed(index):
        t = time.perf_counter()
        original(index)
        frame_times.append(time.perf_counter() - t)

    lab.runner.frameChanged.disconnect(lab._on_frame)
    lab.runner.frameChanged.connect(timed)

    ticks = []
    timer = QtCore.QTimer()
    timer.setTimerType(QtCore.Qt.TimerType.PreciseTimer)
    timer.setInterval(10)
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
    redraws0 = lab.runner.redraws
    timer.start()
    lab.play()
    t0 = time.perf_counter()
    qtbot.wait(5000)
    elapsed = time.perf_counter() - t0
    lab.pause()
    timer.stop()
    steps = lab.runner.timeline.last.step
    redraws = lab.runner.redraws - redraws0
    gaps = np.diff(ticks) * 1000
    window.shutdown()
    print(
        f"\nperceptron flat out, 3000 points, {elapsed:.1f} s: {steps} steps ({steps / elapsed:,.0f}/s), "
        f"{redraws / elapsed:.1f} redraws/s, 10 ms timer: largest gap {gaps.max():.1f} ms, "
        f"median {np.median(gaps):.1f} ms, 99th percentile {np.percentile(gaps, 99):.1f} ms; "
        f"drawing a frame: median {1000 * np.median(frame_times):.1f} ms, max {1000 * np.max(frame_times):.1f} ms"
    )


COLD_APP = """
import time, sys
from PySide6 import QtCore, QtWidgets
from app.main_window import MainWindow
app = QtWidgets.QApplication(sys.argv[:1])
w = MainWindow(restore=False, autosave=False)
w.show()
QtCore.QTimer.singleShot(0, app.quit)
app.exec()
w.shutdown()
"""

COLD_BASELINE = """
import sys
import numpy, scipy, skimage, pyqtgraph
from PySide6 import QtCore, QtWidgets
app = QtWidgets.QApplication(sys.argv[:1])
w = QtWidgets.QMainWindow(); w.show()
QtCore.QTimer.singleShot(0, app.quit)
app.exec()
"""


def _cold(code: str, runs: int = 5) -> list[float]:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", SMLLAB_CONFIG_DIR=str(ROOT / "tests" / ".smllab-bench-config"))
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, check=True, capture_output=True)
        times.append(time.perf_counter() - t0)
    return times


def test_cold_start_to_first_window():
    ours = _cold(COLD_APP)
    base = _cold(COLD_BASELINE)
    print(
        f"\ncold start to first window (5 runs): SML Lab median {statistics.median(ours):.2f} s "
        f"(min {min(ours):.2f}, max {max(ours):.2f}); empty window with the same libraries "
        f"{statistics.median(base):.2f} s; ratio {statistics.median(ours) / statistics.median(base):.2f}"
    )
