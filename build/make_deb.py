#!/usr/bin/env python3
"""Wrap the one-folder app into a Debian package: build/dist/sml-lab_<version>_<arch>.deb.

    python build/make_deb.py [--dist build/dist] [--out DIR]

build/build.sh runs it on Linux after PyInstaller (so `python3 dev.py frozen` makes the .deb);
it needs dpkg-deb and Pillow (for the icon sizes), no network and no root. The package installs

    /opt/sml-lab/                               the one-folder application ("SML Lab" and _internal/)
    /usr/bin/sml-lab                            launcher on the PATH (takes a session path, like `python -m app`)
    /usr/share/applications/sml-lab.desktop     desktop entry (Education;Science;, opens .smllab sessions)
    /usr/share/icons/hicolor/<n>x<n>/apps/sml-lab.png
    /usr/share/metainfo/org.smllab.SMLLab.metainfo.xml   AppStream (software centres)
    /usr/share/mime/packages/sml-lab.xml        MIME types application/x-smllab-session for *.smllab,
                                                application/x-smllab-lesson for *.smllesson
    /usr/share/doc/sml-lab/copyright

The desktop, icon and MIME caches are refreshed by the dpkg triggers of desktop-file-utils,
hicolor-icon-theme and shared-mime-info, so the package has no maintainer scripts except a
postrm that removes /opt/sml-lab entirely (nothing else is left; users' sessions live in their
home directories). Depends: the Qt runtime libraries listed in build/system-deps.sh, read from
there so the list is kept in one place.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGING = ROOT / "resources" / "packaging"
APP_NAME = "SML Lab"
PACKAGE = "sml-lab"
PREFIX = Path("opt") / PACKAGE
ICON_SIZES = (16, 22, 24, 32, 48, 64, 128, 256, 512)
METAINFO = "org.smllab.SMLLab.metainfo.xml"
MAINTAINER = os.environ.get("SMLLAB_DEB_MAINTAINER", "SML Lab maintainers <smllab@example.org>")


def project_version() -> str:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return str(project["version"])


def project_description() -> str:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return str(project.get("description", "SML Lab"))


def runtime_depends() -> list[str]:
    """The Qt runtime packages of build/system-deps.sh (its first PKGS="..." line)."""
    text = (ROOT / "build" / "system-deps.sh").read_text(encoding="utf-8")
    m = re.search(r'^PKGS="([^"$]+)"', text, flags=re.MULTILINE)
    if not m:
        raise SystemExit("build/system-deps.sh: no PKGS=\"...\" line to take the Depends from")
    return m.group(1).split()


def deb_arch() -> str:
    return subprocess.run(["dpkg", "--print-architecture"], check=True, capture_output=True, text=True).stdout.strip()


def release_date() -> str:
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    when = dt.datetime.fromtimestamp(int(epoch), dt.UTC) if epoch else dt.datetime.now(dt.UTC)
    return when.date().isoformat()


def normalise_modes(top: Path) -> None:
    """Directories and executables 0755, other files 0644 (dpkg keeps the modes it is given)."""
    for dirpath, dirs, files in os.walk(top):
        os.chmod(dirpath, 0o755)
        for f in files:
            p = Path(dirpath) / f
            if p.is_symlink():
                continue
            os.chmod(p, 0o755 if os.stat(p).st_mode & 0o111 else 0o644)


def write(path: Path, text: str, mode: int = 0o644) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    os.chmod(path, mode)


def write_icons(share: Path) -> None:
    from PIL import Image

    with Image.open(ROOT / "resources" / "icons" / "smllab.png") as big:
        big = big.convert("RGBA")
        for n in ICON_SIZES:
            target = share / "icons" / "hicolor" / f"{n}x{n}" / "apps" / f"{PACKAGE}.png"
            target.parent.mkdir(parents=True, exist_ok=True)
            big.resize((n, n), Image.Resampling.LANCZOS).save(target, optimize=True)


def stage(folder: Path, staging: Path, version: str, arch: str) -> None:
    if staging.exists():
        shutil.rmtree(staging)
    # the application, as PyInstaller wrote it
    shutil.copytree(folder, staging / PREFIX, symlinks=True)
    # launcher on the PATH: the desktop entry and the user's shell call `sml-lab [SESSION]`
    write(staging / "usr" / "bin" / PACKAGE,
          f'#!/bin/sh\n# SML Lab (package {PACKAGE}); the application lives in /{PREFIX}\n'
          f'exec "/{PREFIX}/{APP_NAME}" "$@"\n', 0o755)
    share = staging / "usr" / "share"
    (share / "applications").mkdir(parents=True)
    shutil.copyfile(PACKAGING / f"{PACKAGE}.desktop", share / "applications" / f"{PACKAGE}.desktop")
    (share / "mime" / "packages").mkdir(parents=True)
    shutil.copyfile(PACKAGING / f"{PACKAGE}.xml", share / "mime" / "packages" / f"{PACKAGE}.xml")
    metainfo = (PACKAGING / METAINFO).read_text(encoding="utf-8")
    write(share / "metainfo" / METAINFO, metainfo.replace("@VERSION@", version).replace("@DATE@", release_date()))
    write_icons(share)
    write(share / "doc" / PACKAGE / "copyright",
          "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n"
          f"Upstream-Name: {APP_NAME}\n\nFiles: *\nCopyright: the SML Lab authors\nLicense: MIT\n"
          f" The bundled third-party libraries under /{PREFIX}/_internal keep their own licences\n"
          " (Qt and PySide6: LGPL-3.0; numpy, scipy, scikit-image, pyqtgraph, Pillow: BSD/MIT-style).\n")
    normalise_modes(staging)

    # control area
    debian = staging / "DEBIAN"
    debian.mkdir()
    size_kb = sum(p.lstat().st_size for p in staging.rglob("*") if p.is_file() or p.is_symlink()) // 1024 + 1
    summary = "laboratory for statistical machine learning, step by step"
    long = project_description()
    control = (
        f"Package: {PACKAGE}\nVersion: {version}\nArchitecture: {arch}\nMaintainer: {MAINTAINER}\n"
        f"Installed-Size: {size_kb}\nDepends: {', '.join(runtime_depends())}\n"
        "Section: education\nPriority: optional\n"
        f"Description: {summary}\n {long}\n .\n"
        " Each tab is a lab: an algorithm from the course runs step by step while its plots\n"
        " follow it live. Saved sessions (.smllab files) open in the app by double-click.\n"
    )
    write(debian / "control", control)
    write(debian / "postrm",
          "#!/bin/sh\nset -e\n"
          "# Remove anything left in the application folder (the package's own files are gone already).\n"
          f'if [ "$1" = remove ] || [ "$1" = purge ]; then rm -rf "/{PREFIX}"; fi\nexit 0\n', 0o755)
    os.chmod(debian, 0o755)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dist", default=str(ROOT / "build" / "dist"), help="where PyInstaller put 'SML Lab/'")
    ap.add_argument("--out", default=None, help="folder for the .deb (default: --dist)")
    ap.add_argument("--staging", default=str(ROOT / "build" / "work" / "deb"), help="scratch tree (deleted afterwards)")
    args = ap.parse_args()
    if shutil.which("dpkg-deb") is None:
        print("make_deb: dpkg-deb not found (not a Debian system); no .deb made", file=sys.stderr)
        return 1
    dist = Path(args.dist)
    folder = dist / APP_NAME
    if not (folder / APP_NAME).is_file():
        print(f"make_deb: no one-folder app at {folder}; run `python3 dev.py frozen` first", file=sys.stderr)
        return 1
    version, arch = project_version(), deb_arch()
    out = Path(args.out) if args.out else dist
    out.mkdir(parents=True, exist_ok=True)
    deb = out / f"{PACKAGE}_{version}_{arch}.deb"
    staging = Path(args.staging)
    stage(folder, staging, version, arch)
    deb.unlink(missing_ok=True)
    try:
        subprocess.run(["dpkg-deb", "--root-owner-group", "-Zxz", "-z6", "--build", str(staging), str(deb)],
                       check=True, stdout=subprocess.DEVNULL)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    print(f"deb: {deb.relative_to(ROOT) if deb.is_relative_to(ROOT) else deb} ({deb.stat().st_size / 1e6:.0f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
