"""Every lab, the templates included, keeps its memory budget at its largest legal input.

A lab declares the most memory a run may take (``Lab.budget_mb``) and what its largest legal
input is (``Lab.largest_input``: by default every whole-number parameter at the top of its range,
the most points for a points lab). Here each lab is set to it, and a new run is started and
drawn to its step 1, ``prepare`` included (:func:`app.testing.largest_run`); the peak of the
process's resident memory over that run, above what it held before, must stay within the bound.
A vote that builds a distance matrix between a 140 x 140 grid and 20,000 points (3.1 GB) fails
here. The time of the same run is held by ``tests/benchmarks/test_bench_budget.py`` (no timing
decides a test of the suite).
"""

import sys
from pathlib import Path

import lab_templates
import pytest

from app.testing import largest_run, open_lab

STATUS = Path("/proc/self/status")
CLEAR_REFS = Path("/proc/self/clear_refs")

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="the peak resident memory is read from Linux's /proc")


def _status(field: str) -> int:
    """A memory field of /proc/self/status, in bytes."""
    for line in STATUS.read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    raise KeyError(field)


def peak_growth(action) -> int:
    """Bytes by which the process's resident memory peaked above its level before ``action()``."""
    CLEAR_REFS.write_text("5")  # Linux: the peak (VmHWM) starts again from the current size
    before = _status("VmRSS")
    action()
    return _status("VmHWM") - before


def test_the_peak_sees_a_large_allocation():
    """The measure itself: 400 MB written are seen, a few kilobytes are not."""
    import numpy as np

    def allocate():
        a = np.ones(50_000_000)  # 400 MB, every page touched
        del a

    assert peak_growth(allocate) >= 350 * 2**20
    assert peak_growth(lambda: bytearray(4096)) < 50 * 2**20


@pytest.mark.parametrize("lab_id", lab_templates.CHECKED)
def test_a_run_at_the_largest_legal_input_keeps_the_labs_memory_budget(make_window, lab_id):
    window = make_window(lab_ids=[lab_id])
    lab = open_lab(window, lab_id)
    shown = []
    grown = peak_growth(lambda: shown.append(largest_run(lab)))
    assert shown[0] is not None and shown[0].step == 1, f"{lab_id}: the run did not reach step 1"
    assert lab.error_text == "", lab.error_text
    assert grown <= lab.budget_mb * 2**20, \
        f"{lab_id}: {grown / 2**20:.0f} MB at its largest legal input, over its budget of {lab.budget_mb:.0f} MB"
