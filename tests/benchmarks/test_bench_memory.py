"""Memory of a class hour: every registered lab opened in one window, run to its end (or
MEMORY_STEPS steps, 200 by default), its tab closed; the whole tour twice in the same window
(the second round starts a new run in each lab, reopened with the state it was closed with).

Printed per lab: the process's resident memory (RSS) once the lab is opened and its first
step drawn, once its run has been computed and drawn, and once its tab is closed; besides, the
bytes its timeline keeps and the bytes all timelines keep together (their shared budget is
app.timeline.TIMELINE_BUDGET_BYTES). Then each round's end, the difference between rounds, and
the RSS once the window is shut down. RSS is read after gc and glibc's malloc_trim: memory
actually held, not free memory the allocator keeps for later.

A closed tab keeps its lab (parameters, data, the run where it was: it comes back as it was),
so what a closed lab gives back shows when a new run replaces the old one (round two) and when
the window goes.

MEMORY_NUMBA=0 blocks numba (the optional "fast" extra, left out of the frozen application): the
labs then take their numpy paths, as a student's installed copy does; loading numba and LLVM for
the first compiled loop costs the process about 145 MB once.

Targets (issue 50): <= 500 MB at the end of round two, within +50 MB of round one.
Run it alone: .venv/bin/python -m pytest -s -o addopts= -m benchmark tests/benchmarks/test_bench_memory.py
"""

import ctypes
import gc
import os
import sys

import pytest
from _bench_table import record

from app import registry
from app.testing import drawn, open_lab, run_to

pytestmark = [pytest.mark.benchmark, pytest.mark.timeout(3600),
              pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")]

STEPS = int(os.environ.get("MEMORY_STEPS", 200))
ROUNDS = 2
END_TARGET_MB = 500.0
ROUND_GROWTH_TARGET_MB = 50.0
MB = 2**20


def _rss_mb(trim: bool = True) -> float:
    if trim and sys.platform.startswith("linux"):
        try:
            ctypes.CDLL("libc.so.6").malloc_trim(0)
        except (OSError, AttributeError):
            pass
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / MB


def _settle(qtbot):
    from PySide6 import QtCore, QtWidgets

    for _ in range(3):
        QtWidgets.QApplication.sendPostedEvents(None, QtCore.QEvent.Type.DeferredDelete)
        qtbot.wait(20)
        gc.collect()


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="needs /proc (Linux)")
def test_every_lab_opened_run_and_closed_twice(qtbot, tmp_path, monkeypatch):
    from app.main_window import MainWindow
    from app.tasks import live_threads
    from app.timeline import BUDGET

    monkeypatch.setenv("SMLLAB_CONFIG_DIR", str(tmp_path / "config"))
    numba = os.environ.get("MEMORY_NUMBA", "1") != "0"
    if not numba:
        assert "numba" not in sys.modules, "run alone: numba is already loaded"
        monkeypatch.setitem(sys.modules, "numba", None)  # `import numba` fails: the numpy paths
    ids = [c.id for c in registry.discover()]
    _settle(qtbot)
    start = _rss_mb()
    window = MainWindow(restore=False, autosave=False, thumbnails=False)
    window.resize(1280, 800)
    window.show()
    qtbot.waitExposed(window)
    _settle(qtbot)
    empty = _rss_mb()
    rows = []  # (lab, round, opened, run, closed, untrimmed after close, lab's timeline MB, all timelines MB, step)
    round_ends = []
    for k in range(ROUNDS):
        for lab_id in ids:
            lab = open_lab(window, lab_id)
            if k:  # reopened as it was closed: a new run replaces the one it kept
                lab.start()
                drawn(lab)
            _settle(qtbot)
            opened = _rss_mb()
            snap = run_to(lab, STEPS)
            _settle(qtbot)
            ran = _rss_mb()
            kept = lab.runner.timeline.nbytes / MB
            window.close_lab(lab_id)
            _settle(qtbot)
            rows.append((lab_id, k + 1, opened, ran, _rss_mb(), _rss_mb(trim=False), kept, BUDGET.used / MB,
                         -1 if snap is None else snap.step))
            print(f"\n{lab_id} ({k + 1}): " + ", ".join(f"{x:.1f}" for x in rows[-1][2:8]), end="", flush=True)
            del lab, snap
        round_ends.append(_rss_mb())
    window.shutdown()
    window.close()
    window.deleteLater()
    del window
    qtbot.waitUntil(lambda: not live_threads(), timeout=60_000)
    _settle(qtbot)
    gone = _rss_mb()

    print()
    print(f"RSS in MB (after gc and malloc_trim); every lab run to its end or step {STEPS}, then its tab closed; "
          f"numba {'in use where installed' if numba else 'blocked (numpy paths)'}")
    print(f"{'lab':14s} {'round':>5s} {'step':>5s} {'opened':>8s} {'run':>8s} {'closed':>8s} {'Δ lab':>7s} "
          f"{'untrimmed':>9s} {'timeline':>8s} {'all TLs':>8s}")
    print(f"{'(process)':14s} {'':>5s} {'':>5s} {'':>8s} {'':>8s} {start:8.1f}")
    print(f"{'(window)':14s} {'':>5s} {'':>5s} {'':>8s} {'':>8s} {empty:8.1f}")
    before = empty
    for lab_id, k, opened, ran, closed, untrimmed, kept, all_tl, step in rows:
        print(f"{lab_id:14s} {k:5d} {step:5d} {opened:8.1f} {ran:8.1f} {closed:8.1f} {closed - before:+7.1f} "
              f"{untrimmed:9.1f} {kept:8.1f} {all_tl:8.1f}")
        before = closed
        if lab_id == ids[-1]:
            before = round_ends[k - 1]
    for k, end in enumerate(round_ends):
        print(f"end of round {k + 1}: {end:.1f} MB ({end - empty:+.1f} MB over the empty window"
              + (f", {end - round_ends[k - 1]:+.1f} MB over round {k})" if k else ")"))
    print(f"window shut down: {gone:.1f} MB ({gone - start:+.1f} MB over the process before the window)")
    growth = round_ends[-1] - round_ends[0]
    ok_end = round_ends[-1] <= END_TARGET_MB
    ok_growth = growth <= ROUND_GROWTH_TARGET_MB
    print(f"targets: end <= {END_TARGET_MB:.0f} MB: {'ok' if ok_end else 'MISSED'}; round two within "
          f"+{ROUND_GROWTH_TARGET_MB:.0f} MB of round one: {'ok' if ok_growth else 'MISSED'} ({growth:+.1f} MB)")
    n = len(ids)
    how = "" if numba else ", numba blocked"
    record("all labs", f"{n} labs opened, run to step {STEPS} or the end, closed, twice{how}: RSS at the end",
           round_ends[-1], END_TARGET_MB, f"target {END_TARGET_MB:.0f} MB", unit="MB", target=1.0,
           note=f"round one {round_ends[0]:.0f} MB, {growth:+.1f} MB in round two; window shut down {gone:.0f} MB")
    record("all labs", f"{n} labs{how}, round two over round one: RSS growth", max(growth, 0.0),
           ROUND_GROWTH_TARGET_MB, f"target +{ROUND_GROWTH_TARGET_MB:.0f} MB", unit="MB", target=1.0)
