#!/usr/bin/env python3
"""Windows: wrap build\\dist\\SML Lab\\ into build\\dist\\SML-Lab-Setup-<version>.exe with Inno Setup.

    py build\\windows\\make_installer.py [--iscc PATH]

Run after `py dev.py frozen` (which calls this script itself, with --if-available).
Reads the version from pyproject.toml and runs ISCC /DAppVersion=<version> build\\windows\\smllab.iss.
ISCC.exe is looked up on PATH and in the usual Inno Setup 6 folders (or give --iscc).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ISS = ROOT / "build" / "windows" / "smllab.iss"


def find_iscc() -> str | None:
    found = shutil.which("ISCC") or shutil.which("iscc")
    if found:
        return found
    for base in (os.environ.get("ProgramFiles(x86)"), os.environ.get("ProgramFiles"), os.environ.get("LOCALAPPDATA")):
        if not base:
            continue
        for sub in ("Inno Setup 6", os.path.join("Programs", "Inno Setup 6")):
            candidate = Path(base) / sub / "ISCC.exe"
            if candidate.is_file():
                return str(candidate)
    return None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--iscc", help="path of ISCC.exe (Inno Setup 6.3 or newer)")
    ap.add_argument("--if-available", action="store_true", help="without Inno Setup, say so and exit 0 (dev.py frozen)")
    args = ap.parse_args()
    version = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    if not (ROOT / "build" / "dist" / "SML Lab" / "SML Lab.exe").is_file():
        print("no build\\dist\\SML Lab\\SML Lab.exe: run `py dev.py frozen` first", file=sys.stderr)
        return 1
    iscc = args.iscc or find_iscc()
    if iscc is None and args.if_available:
        print("Inno Setup 6 not found: no installer made (https://jrsoftware.org/isdl.php)")
        return 0
    if iscc is None:
        print("Inno Setup not found: install it from https://jrsoftware.org/isdl.php (or pass --iscc)", file=sys.stderr)
        return 1
    subprocess.run([iscc, f"/DAppVersion={version}", str(ISS)], check=True)
    print(f"installer: build\\dist\\SML-Lab-Setup-{version}.exe")
    return 0


if __name__ == "__main__":
    sys.exit(main())
