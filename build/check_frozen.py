#!/usr/bin/env python3
"""Prove the frozen SML Lab works: run it the way a user's machine would, offscreen.

    python3 build/check_frozen.py [--lab ID] [--runs 5] [--skip-self-test]

Needs only the Python standard library. After `python3 dev.py frozen` it
  1. checks the bundle holds every shipped data file of resources/data and the icon,
  2. runs the frozen `--list-labs` and `--self-test` (every lab, a few steps; must exit 0),
  3. runs one `--lab ID --steps 30 --screenshot` (must write a non-trivial PNG),
  4. times cold start to the first window over --runs runs (hidden `--startup-time` flag),
  5. measures the folder (and archive) size.
Each run uses a fresh empty config dir, a temporary working directory and no PYTHONPATH, so
nothing from the checkout can leak in. Exit status 1 if 1-3 fail or the folder exceeds
--max-mb; a start-up time over --max-start is reported (and fails only with --strict-time).
"""

from __future__ import annotations

import argparse
import os
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DIST = ROOT / "build" / "dist"
NAME = "SML Lab"


def frozen_paths() -> tuple[Path, Path, Path]:
    """(executable, folder whose size counts, folder holding the bundled files)."""
    if sys.platform == "darwin":
        app = DIST / f"{NAME}.app"
        return app / "Contents" / "MacOS" / NAME, app, app / "Contents" / "Resources"
    folder = DIST / NAME
    if os.name == "nt":
        return folder / "smllab-console.exe", folder, folder / "_internal"  # the windowed .exe prints nothing
    return folder / NAME, folder, folder / "_internal"


def folder_size(path: Path) -> int:
    total = 0
    for dirpath, _dirs, files in os.walk(path):
        for f in files:
            p = Path(dirpath) / f
            if not p.is_symlink():
                total += p.stat().st_size
    return total


def clean_env(config_dir: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "SMLLAB_"))}
    env["QT_QPA_PLATFORM"] = "offscreen"
    env["SMLLAB_CONFIG_DIR"] = config_dir
    return env


def run(exe: Path, *args: str, timeout: float = 1800) -> subprocess.CompletedProcess:
    with tempfile.TemporaryDirectory(prefix="smllab-frozen-") as tmp:
        return subprocess.run([str(exe), *args], cwd=tmp, env=clean_env(tmp), capture_output=True, text=True,
                              timeout=timeout)


def png_size(path: Path) -> tuple[int, int] | None:
    data = path.read_bytes()[:24]
    if len(data) < 24 or data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        return None
    return struct.unpack(">II", data[16:24])


def time_to_first_window(exe: Path) -> tuple[float, float | None]:
    """Seconds from launching the process until it reports its first window (and its own figure)."""
    with tempfile.TemporaryDirectory(prefix="smllab-start-") as tmp:
        t0 = time.perf_counter()
        proc = subprocess.Popen([str(exe), "--startup-time"], cwd=tmp, env=clean_env(tmp), stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, text=True)
        shown, inner = None, None
        for line in proc.stdout:
            if line.startswith("startup-time"):
                shown = time.perf_counter() - t0
                inner = float(line.split()[1])
        proc.wait(timeout=60)
    if shown is None or proc.returncode != 0:
        raise RuntimeError(f"--startup-time failed (exit {proc.returncode})")
    return shown, inner


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lab", help="lab for the screenshot (default: classifiers, or the first lab)")
    ap.add_argument("--runs", type=int, default=5, help="start-up timing runs (0 to skip)")
    ap.add_argument("--max-mb", type=float, default=450.0)
    ap.add_argument("--max-start", type=float, default=3.0, help="target seconds to the first window (median)")
    ap.add_argument("--strict-time", action="store_true", help="fail when the median start-up exceeds --max-start")
    ap.add_argument("--skip-self-test", action="store_true")
    ap.add_argument("--out", default=str(DIST / "frozen-screenshot.png"), help="where the screenshot goes")
    args = ap.parse_args()

    exe, folder, bundled = frozen_paths()
    if not exe.exists():
        print(f"no frozen app at {exe}; build it with `python3 dev.py frozen`", file=sys.stderr)
        return 1
    failures: list[str] = []

    # 1. shipped files
    wanted = [p for pattern in ("*.zip", "*.gz") for p in (ROOT / "resources" / "data").glob(pattern)]
    wanted.append(ROOT / "resources" / "icons" / "smllab.png")
    missing = [str(p.relative_to(ROOT)) for p in wanted if not (bundled / p.relative_to(ROOT)).is_file()]
    print(f"bundled resources: {len(wanted) - len(missing)} of {len(wanted)} present")
    if missing:
        failures.append("missing from the bundle: " + ", ".join(missing))

    # 2. labs and self-test
    listed = run(exe, "--list-labs", timeout=300)
    labs = [line.split("\t", 1)[0] for line in listed.stdout.splitlines() if line.strip()]
    print(f"--list-labs (exit {listed.returncode}): {', '.join(labs) or 'none'}")
    if listed.stderr.strip():
        print(listed.stderr.rstrip(), file=sys.stderr)
    if not args.skip_self_test:
        t = time.perf_counter()
        st = run(exe, "--self-test")
        print(f"--self-test (exit {st.returncode}, {time.perf_counter() - t:.1f} s):")
        print("  " + st.stdout.rstrip().replace("\n", "\n  "))
        if st.returncode != 0:
            print(st.stderr.rstrip(), file=sys.stderr)
            failures.append(f"--self-test exited {st.returncode}")

    # 3. one screenshot
    lab = args.lab or ("classifiers" if "classifiers" in labs else labs[0] if labs else None)
    if lab is None:
        failures.append("no lab to take a screenshot of")
    else:
        out = Path(args.out).resolve()
        out.unlink(missing_ok=True)
        shot = run(exe, "--lab", lab, "--steps", "30", "--screenshot", str(out), timeout=600)
        size = png_size(out) if out.exists() else None
        ok = shot.returncode == 0 and size is not None and out.stat().st_size > 10_000
        got = f"{out} {size[0]}x{size[1]}, {out.stat().st_size // 1024} KB" if size else "no PNG"
        print(f"--lab {lab} --screenshot (exit {shot.returncode}): {got}")
        if not ok:
            print(shot.stderr.rstrip(), file=sys.stderr)
            failures.append(f"--screenshot of {lab} failed")

    # 4. start-up
    if args.runs > 0:
        try:
            times = [time_to_first_window(exe) for _ in range(args.runs)]
        except (RuntimeError, subprocess.TimeoutExpired) as exc:
            failures.append(str(exc))
        else:
            outer = [t for t, _ in times]
            med = statistics.median(outer)
            print("start to first window (s): " + ", ".join(f"{t:.2f}" for t in outer)
                  + f"; median {med:.2f}, max {max(outer):.2f} (target {args.max_start:.1f})")
            inner = ", ".join(f"{i:.2f}" for _, i in times if i is not None)
            print(f"  of which since app.__main__ loaded (the rest: loader, interpreter, stdlib): {inner}")
            if med > args.max_start:
                msg = f"median start-up {med:.2f} s exceeds {args.max_start:.1f} s"
                print(("FAIL " if args.strict_time else "warning: ") + msg, file=sys.stderr)
                if args.strict_time:
                    failures.append(msg)

    # 5. size
    mb = folder_size(folder) / 1e6
    print(f"folder size: {folder} = {mb:.0f} MB (limit {args.max_mb:.0f} MB)")
    for archive in sorted(DIST.glob("SML-Lab-*.tar.gz")):
        print(f"archive: {archive.name} = {archive.stat().st_size / 1e6:.0f} MB")
    if mb > args.max_mb:
        failures.append(f"folder is {mb:.0f} MB, over {args.max_mb:.0f} MB")

    for f in failures:
        print("FAIL " + f, file=sys.stderr)
    print("frozen app: " + ("OK" if not failures else f"{len(failures)} problem(s)"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
