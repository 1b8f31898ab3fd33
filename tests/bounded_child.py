"""Run one loader call on one file in a child process; the child reports its own CPU time and
peak memory, so a fuzz test can hold each input to a bound (a bound exceeded is a failure),
however busy the machine and whatever the test process itself holds.

``run_bounded("smlengine.datasets.load_points", path)`` returns a dict: ``outcome`` (``"ok"``
or the exception's type name), ``message``, ``cpu_seconds`` (user + system time of the call)
and ``peak_mb`` (the child's peak resident memory, imports included: its ``VmHWM``, since on
Linux ``ru_maxrss`` of a child also counts the pages of the parent it was forked from).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

#: bounds per input (issue: at most 10 s and 1 GB)
MAX_SECONDS = 10.0
MAX_PEAK_MB = 1024.0
#: the child is stopped at this size (far above the bound: it only protects the machine)
HARD_LIMIT_BYTES = 4 << 30

ROOT = Path(__file__).resolve().parents[1]

_CHILD = r"""
import importlib, json, resource, sys
resource.setrlimit(resource.RLIMIT_AS, (int(sys.argv[3]), int(sys.argv[3])))
module, name = sys.argv[1].rsplit(".", 1)
func = getattr(importlib.import_module(module), name)
def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime
start = cpu()
outcome, message = "ok", ""
try:
    func(sys.argv[2])
except BaseException as exc:  # reported to the parent, which judges it
    outcome, message = type(exc).__name__, str(exc)
seconds = cpu() - start
try:  # this process's own high-water mark (ru_maxrss also counts the parent's pages copied at fork)
    with open("/proc/self/status") as fh:
        peak = next(int(line.split()[1]) for line in fh if line.startswith("VmHWM:")) / 1024
except (OSError, StopIteration):
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"outcome": outcome, "message": message[:3000], "cpu_seconds": seconds, "peak_mb": peak}))
"""


def run_bounded(call: str, path, timeout: float = 120.0) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    proc = subprocess.run([sys.executable, "-c", _CHILD, call, str(path), str(HARD_LIMIT_BYTES)],
                          capture_output=True, text=True, timeout=timeout, cwd=str(ROOT), env=env)
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        raise AssertionError(f"{call} on {Path(path).name}: the child failed (exit {proc.returncode}): "
                             f"{proc.stderr[-800:]}")
    return json.loads(lines[-1])


def assert_bounded(report: dict, what: str) -> None:
    """The input stayed within :data:`MAX_SECONDS` of CPU and :data:`MAX_PEAK_MB` of memory."""
    assert report["cpu_seconds"] <= MAX_SECONDS, f"{what}: {report['cpu_seconds']:.1f} s of CPU"
    assert report["peak_mb"] <= MAX_PEAK_MB, f"{what}: peak {report['peak_mb']:.0f} MB"
