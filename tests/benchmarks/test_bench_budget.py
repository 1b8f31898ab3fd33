"""Each lab's time budget: a run at its largest legal input, started and drawn to step 1 with
``prepare`` (:func:`app.testing.largest_run`), against the lab's own ``budget_seconds``.

Run with ``python3 dev.py bench`` (or ``pytest -s -o addopts= -m benchmark tests/benchmarks``).
The memory of the same run is a test of the suite (``tests/gui/test_budget.py``); a time is
measured here, where a busy machine only makes a row slower, never a test red.
"""

import time

import pytest
from _bench_table import record

from app import registry
from app.testing import largest_run, open_lab

pytestmark = pytest.mark.benchmark

TEMPLATES = ["app.labs._example", "app.labs._example_points"]


@pytest.mark.parametrize("package", [*(info.package for info in registry.discover()), *TEMPLATES])
def test_a_run_at_the_largest_legal_input_within_the_labs_time_budget(qtbot, tmp_path, monkeypatch, package):
    monkeypatch.setenv("SMLLAB_CONFIG_DIR", str(tmp_path))
    from app.main_window import MainWindow

    info = registry.LabInfo.of(package)
    if info.id not in {i.id for i in registry.discover()}:
        monkeypatch.setattr(registry, "_cache", [*registry.discover(), info])
    window = MainWindow(restore=False, autosave=False, lab_ids=[info.id])
    qtbot.addWidget(window)
    window.resize(1280, 800)
    window.show()
    try:
        lab = open_lab(window, info.id)
        start = time.perf_counter()
        largest_run(lab)
        seconds = time.perf_counter() - start
        record(f"lab {info.id}", "largest legal input: start and draw steps 0 and 1", seconds,
               lab.budget_seconds, "the lab's budget_seconds")
        print(f"\n{info.id}: {seconds:.2f} s at its largest legal input (budget {lab.budget_seconds:.1f} s)")
        assert seconds <= lab.budget_seconds, f"{info.id}: {seconds:.2f} s, over its budget of {lab.budget_seconds} s"
    finally:
        window.shutdown()
        window.close()
