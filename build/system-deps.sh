#!/bin/sh
# Debian libraries Qt needs to run (offscreen for tests, xcb for a real window).
# Installs only what is missing, so a prepared machine pays nothing.
#   sh build/system-deps.sh          the Qt runtime (dev.py runs this before every command)
#   sh build/system-deps.sh build    also what PyInstaller needs (build/build.sh runs this)
#   sh build/system-deps.sh test     also Xvfb, for the real-window smoke test (dev.py test)
PKGS="libegl1 libgl1 libfontconfig1 libxkbcommon0 libxkbcommon-x11-0 libdbus-1-3 libglib2.0-0 libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-shape0 libxcb-xinerama0 libxcb-randr0 libxcb-render-util0 libxcb-image0 fonts-dejavu-core"
# PyInstaller: objdump/objcopy/strip (binutils); ldd and ldconfig come with libc-bin.
# (build/make_deb.py takes the .deb's Depends from the PKGS line above: keep it on one line.)
# desktop-file-validate checks the .deb's desktop entry (build/check_frozen.py).
[ "${1:-}" = build ] && PKGS="$PKGS binutils desktop-file-utils"
# A virtual X display for the test that opens every lab in a real (xcb) window.
[ "${1:-}" = test ] && PKGS="$PKGS xvfb xauth"
command -v dpkg >/dev/null 2>&1 || exit 0
missing=""
for p in $PKGS; do
    dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
SUDO=""
[ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1 && SUDO="sudo"
echo "Installing Debian packages:$missing"
$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null \
  || echo "warning: could not install$missing (Qt may fail to start)" >&2
exit 0
