"""Churn memory: start, cancel, step and parameter actions over every lab in one process (the
sequence of tests/gui/test_churn.py, CHURN_ACTIONS per lab), then every window shut down;
the table reports the process's resident memory before, after each lab's churn and after
the shutdown (after gc and glibc's malloc_trim: memory actually held), and how many Python
objects outlive the labs.

The churn runs CHURN_ROUNDS times (default 2): the first round pays what a process pays once
(modules imported on first use, compiled kernels, the symbol atlases' first symbols); growth
in the later rounds is what accumulates.

Run: .venv/bin/python -m pytest -q -s -o addopts="" -m benchmark tests/benchmarks/test_bench_churn_memory.py
The memory after the shutdown goes to the benchmark table (_bench_table.record). The window's
shutdown empties the engine's result caches (smlengine.cache.clear_caches); the last line
empties them once more: what is left above the start is then what the closed labs really kept.
Qt widgets of closed labs must be gone (checked).
"""

import ctypes
import gc
import os
import random
import sys
import zlib

import pytest
from _bench_table import record

from app import registry

pytestmark = [pytest.mark.benchmark, pytest.mark.timeout(3600),
              pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")]

ACTIONS_PER_LAB = int(os.environ.get("CHURN_ACTIONS", 270))
ROUNDS = int(os.environ.get("CHURN_ROUNDS", 2))
ACTIONS = ("start", "play", "pause", "step", "step_back", "reset", "param", "param", "seed")


def _rss_mb() -> float:
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL("libc.so.6").malloc_trim(0)
        except (OSError, AttributeError):
            pass
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def _random_value(param, rng: random.Random):
    if param.kind == "choice":
        return rng.choice(param.choice_pairs())[0]
    if param.kind == "bool":
        return rng.random() < 0.5
    lo = param.minimum if param.minimum is not None else 0
    hi = param.maximum if param.maximum is not None else lo + 10
    hi = min(hi, lo + 3 * (param.step or 1) + (hi - lo) * 0.05)
    if param.kind == "int":
        return rng.randint(int(lo), int(max(lo, hi)))
    return rng.uniform(lo, hi)


def _settle(qtbot):
    from PySide6 import QtCore, QtWidgets

    for _ in range(3):
        QtWidgets.QApplication.sendPostedEvents(None, QtCore.QEvent.Type.DeferredDelete)
        qtbot.wait(50)
        gc.collect()


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="needs /proc (Linux)")
def test_churn_memory(qtbot, tmp_path, monkeypatch):
    from PySide6 import QtWidgets

    from app.main_window import MainWindow
    from app.tasks import live_threads

    monkeypatch.setenv("SMLLAB_CONFIG_DIR", str(tmp_path / "config"))
    ids = [c.id for c in registry.discover()]
    for cls in registry.discover():
        cls.cls  # import every lab's modules before the first reading
    _settle(qtbot)
    base = _rss_mb()
    base_objects = len(gc.get_objects())
    base_widgets = len(QtWidgets.QApplication.allWidgets())
    rows = []
    round_ends = []
    stuck = []  # (lab, round, threads still running a minute after the shutdown)
    for churn_round in range(ROUNDS):
        for lab_id in ids:
            rng = random.Random(zlib.crc32(lab_id.encode()) + churn_round)
            window = MainWindow(restore=False, autosave=False, lab_ids=[lab_id])
            window.resize(1280, 800)
            window.show()
            lab = window.show_lab(lab_id)
            params = list(lab.form.params.values())
            for _ in range(ACTIONS_PER_LAB):
                action = rng.choice(ACTIONS)
                if action == "param":
                    p = rng.choice(params)
                    lab.form.set_values({p.name: _random_value(p, rng)}, quiet=True)
                    lab.on_param_changed(p.name)
                elif action == "seed":
                    lab.runbar.seed.setValue(rng.randint(0, 50))
                else:
                    getattr(lab, action)()
                qtbot.wait(rng.choice((0, 1, 5)))
            during = _rss_mb()
            window.shutdown()
            window.close()
            window.deleteLater()
            del lab, window
            try:
                qtbot.waitUntil(lambda: not live_threads(), timeout=60_000)
            except qtbot.TimeoutError:
                stuck.append((lab_id, churn_round + 1, sorted(t.name for t in live_threads())))
            _settle(qtbot)
            rows.append((f"{lab_id} ({churn_round + 1})", during, _rss_mb()))
        _settle(qtbot)
        round_ends.append(_rss_mb())
    _settle(qtbot)
    end = _rss_mb()
    objects = len(gc.get_objects()) - base_objects
    widgets = len(QtWidgets.QApplication.allWidgets()) - base_widgets
    from smlengine.cache import clear_caches

    dropped = clear_caches()
    _settle(qtbot)
    cleared = _rss_mb()
    cleared_objects = len(gc.get_objects()) - base_objects
    print()
    print(f"{'lab (round)':18s} {'RSS in churn':>12s} {'after close':>12s}   (MB; {ACTIONS_PER_LAB} actions a lab, "
          f"{ACTIONS_PER_LAB * len(ids) * ROUNDS:,} in all)")
    print(f"{'(start)':18s} {'':>12s} {base:12.1f}")
    for lab_id, during, after in rows:
        print(f"{lab_id:18s} {during:12.1f} {after:12.1f}")
    for k, after in enumerate(round_ends):
        print(f"after round {k + 1}: {after:.1f} MB ({after - base:+.1f} MB since the start"
              + (f", {after - round_ends[k - 1]:+.1f} MB in this round)" if k else ")"))
    print(f"after shutdown: {end:.1f} MB ({end - base:+.1f} MB), Python objects {objects:+,}, "
          f"widgets {widgets:+,}")
    print(f"after emptying the caches ({dropped} entries): {cleared:.1f} MB ({cleared - base:+.1f} MB), "
          f"Python objects {cleared_objects:+,}")
    n_actions = ACTIONS_PER_LAB * len(ids) * ROUNDS
    record("all labs", f"churn, {n_actions:,} actions: RSS after every window shut down", end, unit="MB",
           note=f"{end - base:+.1f} MB since the start ({base:.0f} MB), Python objects {objects:+,}")
    record("all labs", f"churn, {n_actions:,} actions: RSS after emptying the engine caches too", cleared,
           unit="MB", note=f"{cleared - base:+.1f} MB since the start, {dropped} entries were left to drop")
    for lab_id, churn_round, names in stuck:
        print(f"{lab_id} (round {churn_round}): threads still running a minute after shutdown: {names}")
    assert widgets <= 0, f"{widgets} widgets of closed labs are still alive"
