#!/usr/bin/env python3
"""Set up and run SML Lab with nothing but Python 3.11+.

    python3 dev.py run           create .venv, install, start the app on its built-in data
    python3 dev.py test          create .venv, install with test extras, run the whole suite (one worker per
                                 core), the import contracts and ruff
    python3 dev.py test --quick  the same for the engine and one smoke test per lab: the inner loop
    python3 dev.py bench         speed comparisons against the reference libraries, one table at the end
                                 (each engine's worst row first, a row over its target marked FAIL)
    python3 dev.py screenshots   one picture per lab and the course map into docs/screenshots/
    python3 dev.py self-test     every lab headless for a few steps
    python3 dev.py frozen        build the double-click application with PyInstaller

Everything happens in ./.venv; the project is reinstalled when pyproject.toml changes.
On Debian/Ubuntu the Qt runtime libraries are installed with apt when missing.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PY = BIN / ("python.exe" if os.name == "nt" else "python")


def sh(*cmd, env=None) -> None:
    print("+", " ".join(str(c) for c in cmd), flush=True)
    subprocess.run([str(c) for c in cmd], cwd=ROOT, check=True, env=env)


def system_deps(*args: str) -> None:
    script = ROOT / "build" / "system-deps.sh"
    if sys.platform.startswith("linux") and script.exists():
        subprocess.run(["sh", str(script), *args], cwd=ROOT, check=False)


def _stamp(extras: str) -> Path:
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes() + extras.encode()).hexdigest()[:16]
    return VENV / f".installed-{digest}"


def ensure_venv(extras: str, also_fine: tuple[str, ...] = ()) -> None:
    if sys.version_info < (3, 11):
        sys.exit(f"SML Lab needs Python 3.11 or newer; this is {sys.version.split()[0]}")
    if not PY.exists():
        print("Creating .venv ...", flush=True)
        venv.EnvBuilder(with_pip=True).create(VENV)
    stamp = _stamp(extras)
    if stamp.exists() or any(_stamp(e).exists() for e in also_fine):
        return
    sh(PY, "-m", "pip", "install", "--quiet", "--upgrade", "pip")
    sh(PY, "-m", "pip", "install", "--quiet", "-e", f".[{extras}]" if extras else ".")
    for old in VENV.glob(".installed-*"):
        old.unlink()
    stamp.touch()


#: `dev.py test --quick`: the engine, one smoke test per lab (tests marked slow left out), then
#: the import contracts and ruff
QUICK = ("-m", "not slow", "tests/engine", "tests/gui/test_every_lab.py::test_lab_lifecycle")


def parallel(args: list[str]) -> list[str]:
    """One pytest-xdist worker per core (at most four: each holds its own Qt application and
    windows), tests handed out as workers free up; none where the caller chose otherwise."""
    if any(a.startswith(("-n", "--numprocesses", "--pdb")) or a.endswith("no:xdist") for a in args):
        return []
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return ["-n", str(min(cores, 4)), "--dist", "worksteal"] if cores > 1 else []


def offscreen_env() -> dict:
    env = dict(os.environ)
    env.setdefault("QT_QPA_PLATFORM", "offscreen")
    return env


def main(argv: list[str]) -> int:
    command = argv[0] if argv else "run"
    rest = argv[1:]
    system_deps()
    if command == "run":
        ensure_venv("", also_fine=("test", "test,build"))
        sh(PY, "-m", "app", *rest)
    elif command == "test":
        system_deps("test")
        ensure_venv("test", also_fine=("test,build",))
        quick = "--quick" in rest
        rest = [a for a in rest if a != "--quick"]
        if quick:
            rest = [*rest, *QUICK]
        sh(PY, "-m", "pytest", "-q", *parallel(rest), *rest, env=offscreen_env())
        sh(BIN / "lint-imports", env=offscreen_env())
        sh(PY, "-m", "ruff", "check", ".")
    elif command == "bench":
        ensure_venv("test,bench")
        # every benchmark records its rows; the session ends with one table of all of them (engine,
        # workload, ours, reference, ratio, target), each engine's worst row first and the rows over
        # their target marked FAIL, printed and written to build/bench-table.md (the benchmarks stay
        # out of the pass/fail suite: the table is where a miss shows)
        table = ROOT / "build" / "bench-table.md"
        table.unlink(missing_ok=True)
        try:
            sh(PY, "-m", "pytest", "-q", "-s", "-o", "addopts=", "-p", "no:cacheprovider", "-m", "benchmark",
               "tests/benchmarks", *rest, env=offscreen_env())
        finally:
            if table.exists():
                print(f"\n{table.read_text(encoding='utf-8')}\n(table in {table.relative_to(ROOT)})", flush=True)
    elif command == "screenshots":
        ensure_venv("test")
        sh(PY, "-m", "app", "--screenshots", "docs/screenshots", "--size", "1280x800", *rest, env=offscreen_env())
        sh(PY, "-m", "app", "--lab", "trees", "--screenshot", "docs/screenshots/trees-projector.png", "--size",
           "1280x800", "--projector", "--steps", "20", env=offscreen_env())
        sh(PY, "-m", "app", "--home", "--screenshot", "docs/screenshots/course-map.png", "--size", "1280x800",
           env=offscreen_env())
    elif command == "self-test":
        ensure_venv("test")
        sh(PY, "-m", "app", "--self-test", *rest, env=offscreen_env())
    elif command == "frozen":
        ensure_venv("test,build")
        if os.name == "nt":  # no sh on Windows: the PyInstaller call of build/build.sh
            sh(PY, "-m", "PyInstaller", "--noconfirm", "--workpath", "build/work", "--distpath", "build/dist", *rest,
               "build/smllab.spec")
            sh(PY, "build/windows/make_installer.py", "--if-available")  # SML-Lab-Setup-<version>.exe (Inno Setup)
        else:
            sh("sh", "build/build.sh", *rest, env=offscreen_env())
    else:
        print(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except subprocess.CalledProcessError as exc:
        sys.exit(exc.returncode or 1)
