"""The benchmarks' one table: engine, workload, ours, reference, ratio.

A benchmark times each side with :func:`best_time` and records its main rows with
:func:`record`; at the end of the session ``tests/benchmarks/conftest.py`` prints the table
and writes it, with the machine it ran on, to ``build/bench-table.md``.

A row may carry a ``target``: the largest ratio ours / reference it may have. The table puts
each engine's worst row first (the largest ratio / target), engines with the worst such row
first, and marks a row over its target as failing; the benchmarks are not part of the
pass/fail suite, the table is where a miss shows.
"""

from __future__ import annotations

import os
import platform
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

TABLE_FILE = Path(__file__).resolve().parents[2] / "build" / "bench-table.md"


@dataclass(frozen=True)
class Row:
    """One line of the table; ``reference`` is None where nothing is compared (a frame rate)."""

    engine: str
    workload: str
    ours: float
    reference: float | None
    reference_name: str
    unit: str = "s"
    note: str = ""
    target: float | None = None

    @property
    def ratio(self) -> float | None:
        return self.ours / self.reference if self.reference else None

    @property
    def failing(self) -> bool:
        """Whether the ratio is over the row's target."""
        return self.target is not None and self.ratio is not None and self.ratio > self.target

    @property
    def badness(self) -> float:
        """ratio / target (ratio alone without a target): what orders the table, worst first."""
        if self.ratio is None:
            return -1.0
        return self.ratio / self.target if self.target else 0.0


ROWS: list[Row] = []


def best_time(fn, repeat=3):
    """(shortest wall time in seconds of ``repeat`` calls of ``fn``, the last call's result)."""
    best, out = np.inf, None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def record(engine, workload, ours, reference=None, reference_name="", *, unit="s", note="", target=None):
    """Add a row: ``ours`` and ``reference`` in ``unit`` (seconds unless stated), the
    reference library's call in ``reference_name`` (e.g. "sklearn SVC(kernel='linear')"),
    ``target`` the largest acceptable ratio (None: none set)."""
    row = Row(str(engine), str(workload), float(ours), None if reference is None else float(reference),
              str(reference_name), unit, note, None if target is None else float(target))
    ROWS.append(row)
    return row


def ordered(rows):
    """Rows grouped by engine, each engine's worst row first (largest ratio / target), the
    engines in the order of their worst rows; rows without a ratio last within their engine,
    in the order recorded."""
    groups: dict[str, list[Row]] = {}
    for r in rows:
        groups.setdefault(r.engine, []).append(r)
    for g in groups.values():
        g.sort(key=lambda r: -r.badness)  # stable: ties keep the recorded order
    worst = sorted(groups.values(), key=lambda g: -g[0].badness)
    return [r for g in worst for r in g]


def machine() -> str:
    """CPU model, cores, OS and the library versions the figures depend on."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            cpu = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), cpu)
    except OSError:
        pass
    import scipy

    return (f"{cpu}, {os.cpu_count()} logical cores, {platform.system()} {platform.release()}; "
            f"Python {platform.python_version()}, numpy {np.__version__}, scipy {scipy.__version__}")


def _number(x: float, unit: str) -> str:
    if unit != "s":
        return f"{x:,.4g} {unit}"
    return f"{x * 1e3:.1f} ms" if x < 1 else f"{x:.2f} s"


def render(rows=None) -> str:
    """The rows as a Markdown table in :func:`ordered`'s order, a row over its target marked
    FAIL, and a line counting those."""
    rows = ordered(ROWS if rows is None else rows)
    lines = [
        "| engine | workload | ours | reference | reference time | ratio | target |",
        "|---|---|---:|---|---:|---:|---|",
    ]
    for r in rows:
        ref = "" if r.reference is None else _number(r.reference, r.unit)
        ratio = "" if r.ratio is None else f"{r.ratio:.2f}×"
        target = "" if r.target is None else f"≤ {r.target:g}×" + (" **FAIL**" if r.failing else " ok")
        workload = r.workload + (f" ({r.note})" if r.note else "")
        lines.append(f"| {r.engine} | {workload} | {_number(r.ours, r.unit)} | {r.reference_name} | {ref} | {ratio} "
                     f"| {target} |")
    failing = [r for r in rows if r.failing]
    lines.append("")
    lines.append(f"{len(failing)} of {sum(r.target is not None for r in rows)} rows with a target are over it"
                 + (": " + "; ".join(f"{r.engine}, {r.workload} ({r.ratio:.2f}× > {r.target:g}×)" for r in failing)
                    if failing else "."))
    return "\n".join(lines)


def write(path=TABLE_FILE) -> Path:
    """The table with the date and machine above it, as Markdown."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    path.write_text(f"Measured {stamp} on {machine()}; ratio = ours / reference (below 1: ours is faster).\n\n"
                    f"{render()}\n", encoding="utf-8")
    return path
