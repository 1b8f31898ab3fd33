"""Helpers shared by the PCA lab's tests: open the lab and wait for its data, open an image
stack, and digits to draw on its canvas, typeset from fonts or written by simulated strokes.

Fonts and strokes come in two sets. The *tuning* set (DejaVu's oblique, condensed, light
and italic faces; strokes from seeds TUNE_SEEDS) is the one the digit preprocessing, d and
the novelty threshold were chosen on; the *test* set (fonts-dejavu-core's six faces and
Pillow's own font; strokes from other seeds) is the one the tests assert on.
"""

from __future__ import annotations

import os

import numpy as np

# ----------------------------------------------------------------------------- the lab
def open_lab(qtbot, make_window, timeout=30_000):
    window = make_window(lab_ids=["pca"])
    lab = window.show_lab("pca")
    wait_drawn(qtbot, lab, timeout)
    return window, lab


def wait_drawn(qtbot, lab, timeout=30_000):
    """Wait until the run's first snapshot is drawn (static views included)."""
    r = lab.runner
    qtbot.waitUntil(lambda: r.current is not None and lab._data is r.current.data, timeout=timeout)


def open_stack(lab, path, timeout=30):
    lab.open_images(str(path))
    assert lab.task("open").wait(timeout)


# ----------------------------------------------------------------------------- typeset digits
DEJAVU = "/usr/share/fonts/truetype/dejavu"
#: the fonts of fonts-dejavu-core (build/system-deps.sh); Pillow's own font is added to them
CORE_FONTS = ["DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSansMono.ttf", "DejaVuSansMono-Bold.ttf",
              "DejaVuSerif.ttf", "DejaVuSerif-Bold.ttf"]
#: fonts-dejavu-extra's faces, used only to choose settings (absent where only the core is installed)
TUNING_FONTS = ["DejaVuSans-Oblique.ttf", "DejaVuSans-BoldOblique.ttf", "DejaVuSans-ExtraLight.ttf",
                "DejaVuSansCondensed.ttf", "DejaVuSansCondensed-Bold.ttf", "DejaVuSansCondensed-Oblique.ttf",
                "DejaVuSansCondensed-BoldOblique.ttf", "DejaVuSansMono-Oblique.ttf",
                "DejaVuSansMono-BoldOblique.ttf", "DejaVuSerif-Italic.ttf", "DejaVuSerif-BoldItalic.ttf",
                "DejaVuSerifCondensed.ttf", "DejaVuSerifCondensed-Bold.ttf", "DejaVuSerifCondensed-Italic.ttf",
                "DejaVuSerifCondensed-BoldItalic.ttf"]


def fonts(size, names=CORE_FONTS, pillow=True):
    """The named DejaVu fonts that are installed (plus Pillow's own font)."""
    from PIL import ImageFont

    out = [ImageFont.truetype(os.path.join(DEJAVU, f), size) for f in names
           if os.path.exists(os.path.join(DEJAVU, f))]
    return out + ([ImageFont.load_default(size)] if pillow else [])


def typeset(ch, font, side=64):
    """The glyph as ink 0..1 on a drawing of side × side, centred."""
    from PIL import Image, ImageDraw

    im = Image.new("L", (side, side), 0)
    ImageDraw.Draw(im).text((side / 2, side / 2), ch, fill=255, font=font, anchor="mm")
    return np.asarray(im, dtype=float) / 255


# ----------------------------------------------------------------------------- written digits
def _arc(cx, cy, rx, ry, a0, a1, n=None):
    """Points of an elliptic arc from angle a0 to a1 (degrees, counter-clockwise as seen, y down)."""
    n = n or max(6, int(abs(a1 - a0) / 15))
    a = np.radians(np.linspace(a0, a1, n))
    return np.c_[cx + rx * np.cos(a), cy - ry * np.sin(a)]


def _line(*points):
    return np.array(points, dtype=float)


#: how people write each digit: one or more ways (lists of polyline strokes through points of
#: a unit box, x right, y down), written in the order of the strokes
HAND = {
    0: [[_arc(0.5, 0.5, 0.34, 0.46, 100, 460)]],
    1: [[_line((0.5, 0.03), (0.5, 0.97))],
        [_line((0.38, 0.16), (0.55, 0.03), (0.55, 0.97))]],
    2: [[np.vstack([_arc(0.5, 0.3, 0.33, 0.26, 160, -30), _line((0.15, 0.95), (0.88, 0.95))])]],
    3: [[np.vstack([_arc(0.5, 0.27, 0.3, 0.23, 160, -90), _arc(0.5, 0.73, 0.33, 0.25, 90, -160)])]],
    4: [[_line((0.6, 0.03), (0.1, 0.65), (0.9, 0.65)), _line((0.65, 0.3), (0.65, 0.97))],
        [_line((0.25, 0.03), (0.15, 0.6), (0.85, 0.6)), _line((0.68, 0.2), (0.68, 0.97))]],
    5: [[np.vstack([_line((0.82, 0.04), (0.27, 0.04), (0.22, 0.45)), _arc(0.47, 0.68, 0.33, 0.28, 135, -160)])]],
    6: [[_line((0.55, 0.03), (0.38, 0.2), (0.25, 0.42), (0.18, 0.65), (0.22, 0.85), (0.4, 0.97), (0.62, 0.95),
               (0.8, 0.82), (0.76, 0.66), (0.6, 0.58), (0.4, 0.6), (0.22, 0.72))]],
    7: [[_line((0.15, 0.05), (0.85, 0.05), (0.62, 0.45), (0.4, 0.95))],
        [_line((0.15, 0.05), (0.85, 0.05), (0.62, 0.45), (0.4, 0.95)), _line((0.4, 0.5), (0.85, 0.45))]],
    8: [[np.vstack([_arc(0.5, 0.26, 0.27, 0.22, 0, 360), _arc(0.5, 0.72, 0.32, 0.25, 0, 360)])],
        [np.vstack([_arc(0.5, 0.26, 0.27, 0.22, 270, -90)[::-1], _arc(0.5, 0.72, 0.32, 0.25, 90, 450)])]],
    9: [[np.vstack([_arc(0.5, 0.27, 0.3, 0.24, 10, 370), _line((0.8, 0.3), (0.74, 0.8)),
                    _arc(0.5, 0.8, 0.24, 0.17, 0, -150)])],
        [np.vstack([_arc(0.5, 0.27, 0.3, 0.24, 10, 370), _line((0.8, 0.3), (0.7, 0.97))])]],
}
#: seeds of the strokes the settings were chosen on; the tests use others
TUNE_SEEDS = range(1000, 1010)


def hand_strokes(digit, rng, side=64):
    """One person's digit: one way of writing it (HAND), at a random size, place, width and
    slant, a little shaky. Returns the strokes as (x, y) points on a side × side drawing."""
    ways = HAND[digit]
    strokes = ways[int(rng.integers(len(ways)))]
    scale, width = rng.uniform(0.55, 0.9), rng.uniform(0.6, 0.9)
    slant = rng.uniform(-0.05, 0.3)
    cx, cy = rng.uniform(0.4, 0.6, size=2)
    out = []
    for pts in strokes:
        p = pts + rng.normal(0.0, 0.012, pts.shape)
        x = cx + ((p[:, 0] - 0.5) * width + slant * (0.5 - p[:, 1])) * scale
        y = cy + (p[:, 1] - 0.5) * scale
        out.append(np.c_[x, y] * side)
    return out
