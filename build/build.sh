#!/bin/sh
# Build the double-click application with PyInstaller (one command; `python3 dev.py frozen` runs it).
#
#   sh build/build.sh [extra PyInstaller options, e.g. --clean]
#
# Output: build/dist/SML Lab/ (the one-folder app; on macOS also build/dist/SML Lab.app) and, on
# Linux, the archive build/dist/SML-Lab-linux-<arch>.tar.gz and, where dpkg-deb exists, the Debian
# package build/dist/sml-lab_<version>_<arch>.deb (build/make_deb.py); on macOS the disk image
# build/dist/SML-Lab-<version>.dmg (build/macos/make_dmg.sh). Intermediate files go to build/work.
# Both are git-ignored. Needs the venv with the build extra: pip install -e ".[build]".
set -eu
cd "$(dirname "$0")/.."

if [ -n "${PYTHON:-}" ]; then PY=$PYTHON
elif [ -x .venv/bin/python ]; then PY=.venv/bin/python
elif [ -x .venv/Scripts/python.exe ]; then PY=.venv/Scripts/python.exe
else PY=python3
fi

case "$(uname -s)" in
    Linux) sh build/system-deps.sh build ;;  # binutils (objdump) and the Qt libraries, when missing
esac

start=$(date +%s)
rm -rf "build/dist/SML Lab" "build/dist/SML Lab.app"
"$PY" -m PyInstaller --noconfirm --log-level WARN --workpath build/work --distpath build/dist "$@" build/smllab.spec

if [ "$(uname -s)" = Linux ]; then
    archive="build/dist/SML-Lab-linux-$(uname -m).tar.gz"
    rm -f "$archive"
    tar -C build/dist -cf - "SML Lab" | gzip -6 > "$archive"
    echo "archive: $archive ($(du -h "$archive" | cut -f1))"
    if command -v dpkg-deb >/dev/null 2>&1; then
        rm -f build/dist/sml-lab_*.deb
        "$PY" build/make_deb.py
    else
        echo "no dpkg-deb here: no .deb made"
    fi
fi
if [ "$(uname -s)" = Darwin ]; then
    sh build/macos/make_dmg.sh  # build/dist/SML-Lab-<version>.dmg
fi
echo "built build/dist/SML Lab ($(du -sh "build/dist/SML Lab" | cut -f1)) in $(( $(date +%s) - start )) s"
