"""Soak: each lab runs flat out with a restart every few seconds; the resident memory must
stop growing once the caches are warm.

Run: .venv/bin/python -m pytest -q -s -o addopts="" -m benchmark tests/benchmarks/test_bench_soak.py
Target (issue "never freeze, never lose work"): RSS growth after the first 30 s <= 10 MB over
3 minutes per lab. SOAK_SECONDS (environment) shortens the soak for a quick look.
"""

import gc
import os
import time

import pytest

from app import registry

pytestmark = pytest.mark.benchmark

SOAK = float(os.environ.get("SOAK_SECONDS", 180))
WARM = min(30.0, SOAK / 3)
_ROWS = []


def _rss_mb() -> float:
    with open("/proc/self/statm") as fh:
        pages = int(fh.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


@pytest.fixture
def window_for(qtbot, tmp_path, monkeypatch):
    from app.main_window import MainWindow

    monkeypatch.setenv("SMLLAB_CONFIG_DIR", str(tmp_path / "config"))
    made = []

    def make(lab_id):
        w = MainWindow(restore=False, autosave=False, lab_ids=[lab_id])
        qtbot.addWidget(w)
        w.resize(1280, 800)
        w.show()
        made.append(w)
        return w

    yield make
    for w in made:
        w.shutdown()
        w.close()


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="needs /proc (Linux)")
@pytest.mark.parametrize("lab_id", [c.id for c in registry.discover()])
def test_soak(qtbot, window_for, lab_id):
    window = window_for(lab_id)
    lab = window.show_lab(lab_id)
    lab.runner.set_rate(None)
    start = time.perf_counter()
    warm_rss = None
    restarts = 0
    peak = 0.0
    while time.perf_counter() - start < SOAK:
        lab.start(play=True)
        restarts += 1
        qtbot.wait(3000)
        if warm_rss is None and time.perf_counter() - start >= WARM:
            gc.collect()
            warm_rss = _rss_mb()
        peak = max(peak, _rss_mb())
    lab.pause()
    gc.collect()
    qtbot.wait(200)
    end_rss = _rss_mb()
    growth = end_rss - (warm_rss if warm_rss is not None else end_rss)
    _ROWS.append((lab_id, restarts, warm_rss or 0.0, end_rss, peak, growth))
    print()
    print(f"{'lab':14s} {'restarts':>8s} {'RSS warm':>9s} {'RSS end':>8s} {'peak':>7s} {'growth':>7s}  (MB, {SOAK:.0f} s)")
    for row in _ROWS:
        print(f"{row[0]:14s} {row[1]:8d} {row[2]:9.1f} {row[3]:8.1f} {row[4]:7.1f} {row[5]:7.1f}")
    assert lab.runner.error is None, lab.runner.error
