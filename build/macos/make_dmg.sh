#!/bin/sh
# macOS: wrap build/dist/SML Lab.app into the disk image build/dist/SML-Lab-<version>.dmg
# (the app and an Applications link: open the image, drag SML Lab onto Applications).
#
#   sh build/macos/make_dmg.sh        (build/build.sh runs it on macOS after PyInstaller)
#
# Needs only the tools every Mac has (ditto, hdiutil). The version comes from pyproject.toml.
# The app is not signed; to sign and notarize, run `codesign` on the .app before this script
# and `xcrun notarytool submit` on the .dmg after it, with your own Developer ID.
set -eu
cd "$(dirname "$0")/../.."

APP="build/dist/SML Lab.app"
if [ ! -d "$APP" ]; then
    echo "no $APP: build it first with python3 dev.py frozen" >&2
    exit 1
fi
# [project] version = "x.y.z"
VERSION=$(awk -F'"' '/^\[/ { p = ($0 == "[project]") } p && /^version *=/ { print $2; exit }' pyproject.toml)
[ -n "$VERSION" ] || { echo "no [project] version in pyproject.toml" >&2; exit 1; }

DMG="build/dist/SML-Lab-$VERSION.dmg"
STAGE="build/work/dmg"
rm -rf "$STAGE" "$DMG"
mkdir -p "$STAGE"
ditto "$APP" "$STAGE/SML Lab.app"          # keeps the bundle's symlinks, modes and extended attributes
ln -s /Applications "$STAGE/Applications"
hdiutil create -volname "SML Lab $VERSION" -srcfolder "$STAGE" -fs HFS+ -format UDZO -imagekey zlib-level=9 -ov "$DMG"
rm -rf "$STAGE"
hdiutil verify "$DMG"
echo "disk image: $DMG ($(du -h "$DMG" | cut -f1))"
