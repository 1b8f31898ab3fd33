#!/usr/bin/env python3
"""Draw the SML Lab icon and write it in every format the builds need.

    .venv/bin/python resources/icons/make_icons.py

Writes, next to this script:
    smllab.png    1024x1024, the window icon (app/__main__.py) and the Linux icon
    smllab.ico    Windows (16 ... 256 px)
    smllab.icns   macOS (16 ... 1024 px)

The picture: two classes of points in the app's Okabe–Ito colours (blue discs for +1,
vermillion squares for -1, as in the labs) on either side of a separating line, on a
light rounded tile. Only Pillow is needed; the output is deterministic.
"""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw

HERE = Path(__file__).resolve().parent
SIZE = 1024
SS = 4  # supersampling factor for smooth edges

BLUE = (0x00, 0x72, 0xB2, 255)  # class +1 (style.POS_COLOR)
VERMILLION = (0xD5, 0x5E, 0x00, 255)  # class -1 (style.NEG_COLOR)
INK = (0x22, 0x2B, 0x33, 255)
TILE = (0xF7, 0xF8, 0xFA, 255)
EDGE = (0xC9, 0xD1, 0xD9, 255)
BAND = (0x56, 0xB4, 0xE9, 60)  # sky blue margin band

# Points in unit coordinates (0..1, y down); the line runs from (0.14, 0.86) to (0.86, 0.14).
POSITIVE = [(0.24, 0.30), (0.40, 0.22), (0.30, 0.46), (0.52, 0.34), (0.20, 0.60)]
NEGATIVE = [(0.78, 0.66), (0.60, 0.78), (0.72, 0.48), (0.50, 0.66), (0.82, 0.82)]


def draw(size: int = SIZE) -> Image.Image:
    n = size * SS
    img = Image.new("RGBA", (n, n), (0, 0, 0, 0))
    d = ImageDraw.Draw(img, "RGBA")

    def px(v: float) -> float:
        return v * n

    # rounded tile with a thin border (macOS-like proportions: ~10% margin)
    m, r = px(0.06), px(0.18)
    d.rounded_rectangle((m, m, n - m, n - m), radius=r, fill=EDGE)
    b = px(0.012)
    d.rounded_rectangle((m + b, m + b, n - m - b, n - m - b), radius=r - b, fill=TILE)

    # margin band and separating line (a diagonal from bottom-left to top-right)
    w = px(0.07)
    a, c = (px(0.16), px(0.84)), (px(0.84), px(0.16))
    d.polygon([(a[0] - w, a[1] - w), (c[0] - w, c[1] - w), (c[0] + w, c[1] + w), (a[0] + w, a[1] + w)], fill=BAND)
    d.line([a, c], fill=INK, width=int(px(0.028)))
    cap = px(0.014)
    for x, y in (a, c):
        d.ellipse((x - cap, y - cap, x + cap, y + cap), fill=INK)

    rad = px(0.055)
    ring = int(px(0.012))
    for x, y in POSITIVE:
        x, y = px(x), px(y)
        d.ellipse((x - rad, y - rad, x + rad, y + rad), fill=BLUE, outline=TILE, width=ring)
    s = rad * 0.9
    for x, y in NEGATIVE:
        x, y = px(x), px(y)
        d.rectangle((x - s, y - s, x + s, y + s), fill=VERMILLION, outline=TILE, width=ring)

    return img.resize((size, size), Image.Resampling.LANCZOS)


def main() -> None:
    big = draw(SIZE)
    big.save(HERE / "smllab.png", optimize=True)
    big.save(HERE / "smllab.ico", sizes=[(16, 16), (24, 24), (32, 32), (48, 48), (64, 64), (128, 128), (256, 256)])
    big.save(HERE / "smllab.icns")
    for name in ("smllab.png", "smllab.ico", "smllab.icns"):
        print(HERE / name, (HERE / name).stat().st_size, "bytes")


if __name__ == "__main__":
    main()
