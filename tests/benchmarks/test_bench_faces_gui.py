"""Redraw rate of the face-detection lab while the detection run and the live training run go
as fast as possible (offscreen).

Run with ``pytest -q -s -o addopts="" -m benchmark tests/benchmarks/test_bench_faces_gui.py``.
"""

import time

import pytest

pytestmark = pytest.mark.benchmark

SECONDS = 6.0


@pytest.mark.parametrize("mode", ["detect", "train"])
def test_redraws_per_second(qtbot, tmp_path, monkeypatch, mode):
    monkeypatch.setenv("SMLLAB_CONFIG_DIR", str(tmp_path))
    from app.main_window import MainWindow

    window = MainWindow(restore=False, autosave=False, lab_ids=["faces"])
    qtbot.addWidget(window)
    window.resize(1400, 860)
    window.show()
    lab = window.show_lab("faces")
    if mode == "train":
        lab.form.set_values({"mode": "train", "max_stages": 3})
        lab.after_params_restored()
    lab.start()
    r = lab.runner
    qtbot.waitUntil(lambda: r.current is not None, timeout=60_000)
    lab.runner.set_rate(None)
    redraws0 = r.redraws
    t0 = time.perf_counter()
    lab.runner.play()
    qtbot.waitUntil(lambda: time.perf_counter() - t0 >= SECONDS or r.finished, timeout=int(SECONDS * 1000) + 60_000)
    elapsed = time.perf_counter() - t0
    redraws = r.redraws - redraws0
    steps = r.timeline.last.step
    lab.runner.pause()
    window.shutdown()
    window.close()
    print(f"\nfaces lab, {mode}: {redraws / elapsed:5.1f} redraws/s, {steps} steps in {elapsed:.1f} s"
          f"{' (finished)' if r.finished else ''}")
    assert redraws > 0
