"""Drawing cost does not grow with the run: the cost of a frame (one new snapshot since the
last one) at step 50 against late in a long run, for every lab.

Run: .venv/bin/python -m pytest -q -s -o addopts="" -m benchmark tests/benchmarks/test_bench_frame_cost.py
Target (lab contract 2): the frame at step 50,000 costs at most 1.5 x the frame at step 50.
Labs whose default run ends earlier are measured at their last step (the step is printed).
"""

import statistics
import time

import pytest
from _bench_table import record

from app import registry

pytestmark = pytest.mark.benchmark

LONG_RUNS = {  # parameters that make a long run where the lab allows one
    "classifiers": {"classifier": "perceptron", "dataset": "xor", "n_samples": 400, "max_epochs": 100000},
    # max_iter: the power method ends early, so step 50 is a surfer frame like step 50,000
    "pagerank": {"graph": "karate-club", "surfer_moves": 100000, "moves_per_step": 1, "walkers": 100,
                 "max_iter": 20},
    "trees": {"n_rounds": 2000},
    "ngrams": {"length": 2000},  # the longest text the lab writes (one token per step)
}
LATE = 50_000
_ROWS = []


@pytest.fixture
def make_window(qtbot, tmp_path, monkeypatch):
    from app.main_window import MainWindow

    monkeypatch.setenv("SMLLAB_CONFIG_DIR", str(tmp_path / "config"))
    windows = []

    def make(**kwargs):
        w = MainWindow(restore=False, autosave=False, **kwargs)
        qtbot.addWidget(w)
        w.resize(1400, 860)
        w.show()
        windows.append(w)
        return w

    yield make
    for w in windows:
        w.shutdown()
        w.close()


def _frame_cost(qtbot, lab, rounds: int = 5, repeats: int = 12) -> tuple[float, float]:
    """Least and median seconds to draw the current snapshot as a fresh frame (one snapshot
    added), over a few rounds a moment apart. The ratio is taken of the least time: on a
    shared machine other processes only ever add time, so the least is the cost of the
    drawing itself; the median is printed too."""
    r = lab.runner
    idx = r.current_index
    times = []
    for k in range(rounds):
        if k:
            qtbot.wait(150)
        for _ in range(repeats):
            r._force_rewind = False
            r._last_frame_serial = r.timeline.serial(idx - 1) if idx > 0 else -1
            lab._maths_time = 0.0
            t = time.perf_counter()
            lab._on_frame(idx)
            times.append(time.perf_counter() - t)
    return min(times), statistics.median(times)


def _run_to(qtbot, lab, step: int) -> None:
    r = lab.runner
    r.set_rate(None)
    lab.run_to(step)
    qtbot.waitUntil(lambda: r.finished or r.error is not None or (r.timeline.last is not None
                                                                  and r.timeline.last.step >= step), timeout=900_000)
    qtbot.waitUntil(lambda: r.settled, timeout=60_000)
    r.flush()


@pytest.mark.parametrize("lab_id", [c.id for c in registry.discover()])
def test_frame_cost_does_not_grow(qtbot, make_window, lab_id):
    window = make_window(lab_ids=[lab_id])
    lab = window.show_lab(lab_id)
    if lab_id in LONG_RUNS:
        lab.form.set_values({k: v for k, v in LONG_RUNS[lab_id].items() if k in lab.form.params})
        lab.after_params_restored()
        if hasattr(lab, "regenerate"):  # labs with generated points draw the new data set
            lab.regenerate(restart=False)
    lab.start()
    _run_to(qtbot, lab, 50)
    early_step = lab.runner.current.step
    early_phase = lab.runner.current.phase
    early, early_median = _frame_cost(qtbot, lab)
    _run_to(qtbot, lab, LATE)
    late_step = lab.runner.current.step
    print(f"\n{lab_id}: phase {early_phase!r} at step {early_step}, {lab.runner.current.phase!r} at step {late_step}")
    late, late_median = _frame_cost(qtbot, lab)
    _ROWS.append((lab_id, early_step, early * 1e3, late_step, late * 1e3, late / early, late_median / early_median))
    record(f"{lab_id} lab", f"a frame at step {late_step}", late, early, f"its own frame at step {early_step}")
    print()
    print(f"{'lab':14s} {'step':>6s} {'ms':>7s} {'step':>7s} {'ms':>7s} {'ratio':>6s} {'median ratio':>13s}")
    for row in _ROWS:
        print(f"{row[0]:14s} {row[1]:6d} {row[2]:7.2f} {row[3]:7d} {row[4]:7.2f} {row[5]:6.2f} {row[6]:13.2f}")
    assert lab.runner.error is None
