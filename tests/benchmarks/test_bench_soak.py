"""Soak: each lab runs flat out with a restart every few seconds; the resident memory must
stop growing once the caches are warm.

Run: .venv/bin/python -m pytest -q -s -o addopts="" -m benchmark tests/benchmarks/test_bench_soak.py
Every registered lab is soaked in turn, SOAK_SECONDS each (environment; 40 s by default so
``dev.py bench`` stays short, SOAK_SECONDS=180 for the 3 minutes the target is stated for).
Target: RSS growth after the first 30 s <= 5 MB over 3 minutes per lab. Select labs with -k
(e.g. -k "faces or pca"). Each lab's growth goes to the benchmark table (_bench_table.record).

Before the clock starts, one default run plays (until it ends, WARM_UP seconds at most): what a
process pays once (modules a run imports on first use, numba kernels compiled or loaded, data
read into the caches) is not growth.

One RSS reading says little in a lab whose run allocates tens of MB for a moment (the face
detector's pyramid): depending on when it is taken it is 10-15 MB above or below the last.
So RSS is read after every restart (after gc) and the table reports, besides the two single
readings, the *floor* growth: the lowest reading of the last third minus the lowest reading
of the first window after warm-up (a leak raises the floor; transient peaks do not), the
RSS after glibc's malloc_trim (memory actually held, not cached by the allocator), and the
growth of Python's object count (a leak of Python objects shows there first).
"""

import ctypes
import gc
import os
import sys
import time

import pytest
from _bench_table import record

from app import registry

pytestmark = pytest.mark.benchmark

SOAK = float(os.environ.get("SOAK_SECONDS", 40))
WARM_UP = 30.0  # the default run before the soak plays this long at most
WARM = min(30.0, SOAK / 3)
_ROWS = []


def _rss_mb() -> float:
    with open("/proc/self/statm") as fh:
        pages = int(fh.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def _trimmed_rss_mb() -> float:
    """RSS after returning the allocator's free memory to the system (glibc only)."""
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL("libc.so.6").malloc_trim(0)
        except (OSError, AttributeError):
            pass
    return _rss_mb()


def _floor(samples, lo: float, hi: float) -> float:
    inside = [r for t, r in samples if lo <= t < hi]
    return min(inside) if inside else float("nan")


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
    # what a process pays once (modules a run imports on first use, compiled kernels, data read
    # and cached) is paid by one default run before the soak, as a class's first run pays it
    lab.start(play=True)
    r = lab.runner
    warm_up_end = time.perf_counter() + WARM_UP
    qtbot.waitUntil(lambda: r.finished or r.error is not None or time.perf_counter() > warm_up_end,
                    timeout=int(1000 * WARM_UP) + 30_000)
    start = time.perf_counter()
    warm_rss = warm_trim = warm_objects = None
    restarts = 0
    peak = 0.0
    samples = []  # (seconds since start, RSS after gc) once per restart
    while time.perf_counter() - start < SOAK:
        lab.start(play=True)
        restarts += 1
        qtbot.wait(3000)
        gc.collect()
        now = time.perf_counter() - start
        samples.append((now, _rss_mb()))
        if warm_rss is None and now >= WARM:
            warm_rss = _rss_mb()
            warm_objects = len(gc.get_objects())
            warm_trim = _trimmed_rss_mb()
        peak = max(peak, _rss_mb())
    lab.pause()
    gc.collect()
    qtbot.wait(200)
    end_rss = _rss_mb()
    end_objects = len(gc.get_objects())
    end_trim = _trimmed_rss_mb()
    growth = end_rss - (warm_rss if warm_rss is not None else end_rss)
    last = samples[-1][0] if samples else 0.0
    floor_growth = _floor(samples, last - (SOAK - WARM) / 3, last + 1) - _floor(samples, WARM, WARM + (SOAK - WARM) / 3)
    trim_growth = end_trim - (warm_trim if warm_trim is not None else end_trim)
    objects = end_objects - (warm_objects if warm_objects is not None else end_objects)
    _ROWS.append((lab_id, restarts, warm_rss or 0.0, end_rss, peak, growth, floor_growth, trim_growth, objects))
    record(f"{lab_id} lab", f"soak {SOAK:.0f} s flat out: RSS growth after the first {WARM:.0f} s", growth,
           unit="MB", note=f"{restarts} restarts, peak {peak:.0f} MB, floor growth {floor_growth:+.1f} MB, "
           f"after malloc_trim {trim_growth:+.1f} MB, Python objects {objects:+d}")
    print()
    print(f"{'lab':14s} {'restarts':>8s} {'RSS warm':>9s} {'RSS end':>8s} {'peak':>7s} {'growth':>7s} {'floor':>6s} "
          f"{'trimmed':>7s} {'objects':>8s}  (MB, {SOAK:.0f} s, growth after {WARM:.0f} s)")
    for row in _ROWS:
        print(f"{row[0]:14s} {row[1]:8d} {row[2]:9.1f} {row[3]:8.1f} {row[4]:7.1f} {row[5]:7.1f} {row[6]:6.1f} "
              f"{row[7]:7.1f} {row[8]:+8d}")
    assert lab.runner.error is None, lab.runner.error
