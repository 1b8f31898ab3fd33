#!/usr/bin/env python3
"""Prove the frozen SML Lab works: run it the way a user's machine would, offscreen.

    python3 build/check_frozen.py [--lab ID] [--runs 5] [--skip-self-test]

Needs only the Python standard library. After `python3 dev.py frozen` it
  1. checks the bundle holds every shipped data file of resources/data and the icon,
  2. runs the frozen `--list-labs` and `--self-test` (every lab, a few steps; must exit 0),
  3. runs one `--lab ID --steps 30 --screenshot` (must write a non-trivial PNG),
  4. times cold start to the first window over --runs runs (hidden `--startup-time` flag),
  5. measures the folder (and archive) size,
  6. on Linux, checks the Debian package build/dist/sml-lab_<version>_<arch>.deb: its control
     fields and Depends (the list of build/system-deps.sh), that it holds the launcher, desktop
     entry, hicolor icons, AppStream metainfo and MIME type; validates the desktop entry
     (desktop-file-validate, when installed), parses the XML files, then unpacks it into a
     temporary root with `dpkg -x` (never installs it) and runs `<root>/opt/sml-lab/SML Lab
     --self-test` there (skip with --skip-deb).
Each run uses a fresh empty config dir, a temporary working directory and no PYTHONPATH, so
nothing from the checkout can leak in. Exit status 1 if 1-3 fail or the folder exceeds
--max-mb; a start-up time over --max-start is reported (and fails only with --strict-time).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time
import tomllib
import xml.etree.ElementTree as ET
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


DEB_FILES = [
    "./opt/sml-lab/SML Lab",
    "./usr/bin/sml-lab",
    "./usr/share/applications/sml-lab.desktop",
    "./usr/share/metainfo/org.smllab.SMLLab.metainfo.xml",
    "./usr/share/mime/packages/sml-lab.xml",
    *(f"./usr/share/icons/hicolor/{n}x{n}/apps/sml-lab.png" for n in (16, 32, 48, 64, 128, 256)),
]
MIME = "application/x-smllab-session"


def check_deb(deb: Path, skip_self_test: bool) -> list[str]:
    """Check the Debian package without installing it; returns the problems found."""
    problems: list[str] = []
    info = subprocess.run(["dpkg-deb", "--info", str(deb)], capture_output=True, text=True, check=False)
    contents = subprocess.run(["dpkg-deb", "--contents", str(deb)], capture_output=True, text=True, check=False)
    if info.returncode or contents.returncode:
        return [f"dpkg-deb cannot read {deb.name}: {(info.stderr or contents.stderr).strip()[:300]}"]
    fields = dict(re.findall(r"^ ([A-Za-z-]+): (.*)$", info.stdout, flags=re.MULTILINE))
    version = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    if fields.get("Package") != "sml-lab" or fields.get("Version") != version:
        problems.append(f"control: Package/Version are {fields.get('Package')}/{fields.get('Version')}, want "
                        f"sml-lab/{version}")
    deps_sh = (ROOT / "build" / "system-deps.sh").read_text(encoding="utf-8")
    wanted_deps = re.search(r'^PKGS="([^"$]+)"', deps_sh, flags=re.MULTILINE).group(1).split()
    declared = {d.strip().split()[0] for d in fields.get("Depends", "").split(",") if d.strip()}
    if set(wanted_deps) - declared:
        problems.append("Depends lacks " + ", ".join(sorted(set(wanted_deps) - declared)))
    # dpkg-deb --contents: mode owner size date time path (the path may hold spaces)
    paths = {line.split(None, 5)[5].split(" -> ")[0]
             for line in contents.stdout.splitlines() if len(line.split(None, 5)) == 6}
    owners = {line.split()[1] for line in contents.stdout.splitlines() if line.strip()}
    missing = [f for f in DEB_FILES if f not in paths]
    n_files = sum(1 for line in contents.stdout.splitlines() if not line.startswith("d"))
    print(f"deb: {deb.name} = {deb.stat().st_size / 1e6:.0f} MB, {n_files} files, owners {', '.join(sorted(owners))}; "
          f"Depends: {len(declared)} packages")
    for f in DEB_FILES[1:]:
        print(f"  {'ok  ' if f in paths else 'MISSING '}{f[1:]}")
    if missing:
        problems.append("missing from the .deb: " + ", ".join(missing))
    if owners != {"root/root"}:
        problems.append(f"files not owned by root/root: {owners}")

    with tempfile.TemporaryDirectory(prefix="smllab-deb-") as tmp:
        root = Path(tmp) / "root"
        x = subprocess.run(["dpkg", "-x", str(deb), str(root)], capture_output=True, text=True, check=False)
        if x.returncode:
            return problems + [f"dpkg -x failed: {x.stderr.strip()[:300]}"]
        share = root / "usr" / "share"
        desktop = share / "applications" / "sml-lab.desktop"
        if desktop.is_file():
            entry = dict(line.split("=", 1) for line in desktop.read_text(encoding="utf-8").splitlines() if "=" in line)
            if entry.get("Exec", "").split()[:1] != ["sml-lab"] or "%f" not in entry.get("Exec", ""):
                problems.append(f"desktop entry: Exec={entry.get('Exec')!r}, want 'sml-lab %f'")
            if entry.get("Icon") != "sml-lab" or MIME not in entry.get("MimeType", ""):
                problems.append("desktop entry: Icon or MimeType wrong")
            if not {"Education", "Science"} <= set(entry.get("Categories", "").split(";")):
                problems.append("desktop entry: Categories lack Education;Science;")
            validator = shutil.which("desktop-file-validate")
            if validator:
                v = subprocess.run([validator, str(desktop)], capture_output=True, text=True, check=False)
                print(f"  desktop-file-validate: exit {v.returncode}"
                      + (f": {v.stdout.strip()}" if v.stdout.strip() else ""))
                if v.returncode:
                    problems.append("desktop-file-validate: " + v.stdout.strip()[:300])
            else:
                print("  desktop-file-validate: not installed, skipped (apt-get install desktop-file-utils)")
        for xml_file in (share / "metainfo" / "org.smllab.SMLLab.metainfo.xml",
                         share / "mime" / "packages" / "sml-lab.xml"):
            try:
                tree = ET.parse(xml_file).getroot()
            except (OSError, ET.ParseError) as exc:
                problems.append(f"{xml_file.name} does not parse: {exc}")
                continue
            if xml_file.name.endswith("metainfo.xml"):
                need = ["id", "name", "summary", "description", "launchable", "screenshots/screenshot/image",
                        "releases/release"]
                lacking = [n for n in need if tree.find(n) is None]
                release = tree.find("releases/release")
                if release is not None and release.get("version") != version:
                    lacking.append(f"release version {version}")
                print(f"  {xml_file.name}: parses" + (f", lacks {', '.join(lacking)}" if lacking else ", complete"))
                if lacking:
                    problems.append(f"{xml_file.name} lacks " + ", ".join(lacking))
            else:
                ns = "{http://www.freedesktop.org/standards/shared-mime-info}"
                mt = tree.find(f"{ns}mime-type")
                globs = [g.get("pattern") for g in tree.iter(f"{ns}glob")]
                ok = mt is not None and mt.get("type") == MIME and "*.smllab" in globs
                print(f"  {xml_file.name}: parses, {MIME} for *.smllab: {'yes' if ok else 'NO'}")
                if not ok:
                    problems.append(f"{xml_file.name} does not map *.smllab to {MIME}")
        launcher = root / "usr" / "bin" / "sml-lab"
        if launcher.is_file():
            m = re.search(r'exec "(/[^"]+)"', launcher.read_text(encoding="utf-8"))
            if not (m and launcher.stat().st_mode & 0o111 and (root / m.group(1).lstrip("/")).is_file()):
                problems.append("usr/bin/sml-lab is not an executable script that starts /opt/sml-lab/SML Lab")
        exe = root / "opt" / "sml-lab" / NAME
        if exe.is_file():
            helped = run(exe, "--help", timeout=300)
            if helped.returncode or "SESSION" not in helped.stdout:
                problems.append("the packaged app's --help does not mention the SESSION argument")
            if not skip_self_test:
                t = time.perf_counter()
                st = run(exe, "--self-test")
                print(f"  {exe.relative_to(root)} --self-test from the unpacked .deb (exit {st.returncode}, "
                      f"{time.perf_counter() - t:.1f} s): {(st.stdout.strip().splitlines() or ['no output'])[-1]}")
                if st.returncode != 0:
                    print(st.stderr.rstrip(), file=sys.stderr)
                    problems.append(f"the unpacked .deb's --self-test exited {st.returncode}")
    return problems


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lab", help="lab for the screenshot (default: classifiers, or the first lab)")
    ap.add_argument("--runs", type=int, default=5, help="start-up timing runs (0 to skip)")
    ap.add_argument("--max-mb", type=float, default=450.0)
    ap.add_argument("--max-start", type=float, default=3.0, help="target seconds to the first window (median)")
    ap.add_argument("--strict-time", action="store_true", help="fail when the median start-up exceeds --max-start")
    ap.add_argument("--skip-self-test", action="store_true")
    ap.add_argument("--skip-deb", action="store_true", help="do not check the Debian package")
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

    # 6. the Debian package
    if sys.platform.startswith("linux") and not args.skip_deb:
        debs = sorted(DIST.glob("sml-lab_*.deb"))
        if shutil.which("dpkg-deb") is None:
            print("deb: no dpkg-deb on this machine, not checked")
        elif len(debs) != 1:
            failures.append(f"expected one build/dist/sml-lab_<version>_<arch>.deb, found {len(debs)}")
        else:
            failures += check_deb(debs[0], args.skip_self_test)

    for f in failures:
        print("FAIL " + f, file=sys.stderr)
    print("frozen app: " + ("OK" if not failures else f"{len(failures)} problem(s)"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
