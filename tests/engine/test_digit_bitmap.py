"""digit_from_bitmap: a drawing at any resolution made into an 8 × 8 UCI digit (0..16) by
binarising, redrawing the skeleton with the pen that gives the shipped digits' ink, stretching
the ink's box to 20 × 32, centring in 32 × 32 and counting 4 × 4 blocks."""

import glob
import os

import numpy as np
import pytest

from smlengine.datasets import digit_from_bitmap, load_digits
from smlengine.datasets._digit_bitmap import INK_PIXELS

DEJAVU = "/usr/share/fonts/truetype/dejavu"


def _bar(h, w, side=(64, 64), top=5, left=9):
    ink = np.zeros(side)
    ink[top: top + h, left: left + w] = 1.0
    return ink


def _three(side=64, scale=0.8, cx=0.5, cy=0.5, radius=None):
    """A 3 drawn with a round pen: two arcs, points in a unit box."""
    a1 = np.radians(np.linspace(160, -90, 14))
    a2 = np.radians(np.linspace(90, -160, 14))
    pts = np.vstack([np.c_[0.5 + 0.3 * np.cos(a1), 0.27 - 0.23 * np.sin(a1)],
                     np.c_[0.5 + 0.33 * np.cos(a2), 0.73 - 0.25 * np.sin(a2)]])
    pts = np.c_[(cx + (pts[:, 0] - 0.5) * 0.75 * scale) * side, (cy + (pts[:, 1] - 0.5) * scale) * side]
    radius = side / 16 * scale / 0.8 if radius is None else radius
    yy, xx = np.mgrid[0:side, 0:side] + 0.5
    ink = np.zeros((side, side))
    for (x0, y0), (x1, y1) in zip(pts[:-1], pts[1:]):
        dx, dy = x1 - x0, y1 - y0
        t = np.clip(((xx - x0) * dx + (yy - y0) * dy) / (dx * dx + dy * dy), 0, 1)
        ink[(xx - x0 - t * dx) ** 2 + (yy - y0 - t * dy) ** 2 <= radius**2] = 1.0
    return ink


def test_shape_scale_and_dtype():
    x = digit_from_bitmap(_three())
    assert x.shape == (8, 8) and x.dtype == np.float64
    assert np.all(x == np.round(x)) and x.min() >= 0 and x.max() <= 16
    assert x.max() == 16  # a stroke fills whole blocks


def test_a_filled_box_is_stretched_to_20_by_32_and_centred():
    # hand-computed: the box becomes columns 6..25 and rows 0..31 of the 32 × 32 bitmap, so the
    # blocks of columns 1 and 6 hold 2 × 4 pixels, those of columns 2..5 all 16, the rest 0
    expected = np.zeros((8, 8))
    expected[:, 1] = expected[:, 6] = 8
    expected[:, 2:6] = 16
    for h, w in [(40, 25), (10, 50), (64, 64), (3, 2)]:
        np.testing.assert_array_equal(digit_from_bitmap(_bar(h, w), ink_pixels=None), expected, err_msg=f"{h} x {w}")


def test_a_narrow_stroke_is_widened_at_most_twice_as_much_as_heightened():
    # a bar 40 tall and 4 wide: heightened 32/40 = 0.8, widened 1.6 -> 6.4 -> 6 pixels, columns 13..18
    x = digit_from_bitmap(_bar(40, 4), ink_pixels=None)
    bitmap_cols = np.zeros(32)
    bitmap_cols[13:19] = 1
    expected_cols = bitmap_cols.reshape(8, 4).sum(axis=1) * 4
    np.testing.assert_array_equal(x[0], expected_cols)
    assert np.all(x == x[0])


def test_invariant_to_resolution_position_and_size():
    ink = _three(side=64)
    x = digit_from_bitmap(ink)
    # the same drawing at 3 × the resolution (exact area averaging gives the same bitmap)
    np.testing.assert_array_equal(digit_from_bitmap(np.kron(ink, np.ones((3, 3)))), x)
    # moved and on a larger sheet
    big = np.zeros((150, 90))
    big[70:134, 11:75] = ink
    np.testing.assert_array_equal(digit_from_bitmap(big), x)
    # drawn again smaller and elsewhere, with the pen scaled alike: nearly the same digit
    for scale, cx, cy in [(0.5, 0.35, 0.6), (0.65, 0.6, 0.45)]:
        other = digit_from_bitmap(_three(side=128, scale=scale, cx=cx, cy=cy, radius=128 / 16 * scale / 0.8))
        assert np.abs(other - x).mean() < 1.0, (scale, np.abs(other - x).mean())


def test_strokes_are_redrawn_with_the_ink_of_the_shipped_digits():
    """A 3 drawn with a thin, a medium and a bold pen: as drawn, its ink grows with the pen;
    redrawn from its skeleton, each has about INK_PIXELS on pixels and the digits agree."""
    pens = [1.5, 4.0, 7.0]
    kept = [digit_from_bitmap(_three(radius=r), ink_pixels=None) for r in pens]
    redrawn = [digit_from_bitmap(_three(radius=r)) for r in pens]
    assert kept[0].sum() < 0.6 * kept[2].sum()
    assert np.abs(kept[0] - kept[2]).mean() > 3.0
    for x in redrawn:
        assert abs(x.sum() - INK_PIXELS) <= 24, x.sum()
        assert np.abs(x - redrawn[1]).mean() < 1.0
    # another amount of ink asked for, another pen
    assert digit_from_bitmap(_three(), ink_pixels=500).sum() > 450


def test_grey_ink_is_binarised_at_one_half():
    ink = _three()
    np.testing.assert_array_equal(digit_from_bitmap(0.6 * ink + 0.3 * (ink == 0) * 0.5), digit_from_bitmap(ink))
    np.testing.assert_array_equal(digit_from_bitmap(np.where(ink > 0, 0.5, 0.49)), digit_from_bitmap(ink))


def test_center_of_mass_placement():
    x_box = digit_from_bitmap(_three(), center="box")
    x_mass = digit_from_bitmap(_three(), center="mass")
    assert x_mass.sum() == x_box.sum()
    cols = np.arange(8) + 0.5
    com = (x_mass.sum(axis=0) * cols).sum() / x_mass.sum()
    assert abs(com - 4.0) <= 0.25


@pytest.mark.parametrize("bad, kind, words", [
    (np.zeros((32, 32)), ValueError, "blank"),
    (np.full((20, 20), 0.49), ValueError, "blank"),
    (np.full((8, 8), np.nan), ValueError, "NaN"),
    (np.array([[0.0, np.inf]]), ValueError, "NaN"),
    (np.ones(64), ValueError, "2-D"),
    (np.ones((2, 8, 8)), ValueError, "2-D"),
    (np.ones((0, 5)), ValueError, "empty"),
    (np.full((8, 8), 2.0), ValueError, "[0, 1]"),
    (-np.ones((8, 8)), ValueError, "[0, 1]"),
    ("a 3", TypeError, "2-D array"),
    (None, TypeError, "2-D array"),
    ([["a", "b"]], TypeError, "numbers"),
])
def test_bad_input_gets_a_clear_error(bad, kind, words):
    with pytest.raises(kind, match="ink") as info:
        digit_from_bitmap(bad)
    assert words in str(info.value) and len(str(info.value)) < 200


def test_bad_center_and_hairlines():
    with pytest.raises(ValueError, match="center"):
        digit_from_bitmap(_three(), center="middle")
    hair = np.zeros((1000, 1000))
    np.fill_diagonal(hair, 1.0)  # a 1-pixel diagonal in 1000 × 1000 covers < half of any bitmap pixel
    with pytest.raises(ValueError, match="too thin"):
        digit_from_bitmap(hair, ink_pixels=None)
    # redrawn with the data set's pen, the hairline is a thick diagonal stroke
    x = digit_from_bitmap(hair)
    assert abs(x.sum() - INK_PIXELS) <= 24 and np.all(np.diag(x)[1:-1] >= 8)
    for bad in (0, 1025, 2.5, True, "312"):
        with pytest.raises(ValueError, match="ink_pixels"):
            digit_from_bitmap(_three(), ink_pixels=bad)


def test_area_averaging_agrees_with_scikit_image_on_whole_factors():
    from skimage import transform
    rng = np.random.default_rng(0)
    ink = (rng.random((64, 40)) < 0.4).astype(float)
    ink[0, 0] = ink[-1, -1] = ink[0, -1] = ink[-1, 0] = 1.0  # the box is the whole array
    # 64 × 40 is stretched to 32 × 20: 2 × 2 means, on when >= 1/2
    bitmap = np.zeros((32, 32))
    bitmap[:, 6:26] = transform.downscale_local_mean(ink, (2, 2)) >= 0.5
    np.testing.assert_array_equal(digit_from_bitmap(ink, ink_pixels=None), bitmap.reshape(8, 4, 8, 4).sum(axis=(1, 3)))


def _font_digits():
    from PIL import Image, ImageDraw, ImageFont

    paths = [p for p in sorted(glob.glob(os.path.join(DEJAVU, "DejaVu*.ttf"))) if "MathTeX" not in p]
    fonts = [ImageFont.truetype(p, 96) for p in paths] or [ImageFont.load_default(96)]
    out = {}
    for font in fonts:
        for d in range(10):
            im = Image.new("L", (160, 160), 0)
            ImageDraw.Draw(im).text((80, 80), str(d), fill=255, font=font, anchor="mm")
            out.setdefault(d, []).append(digit_from_bitmap(np.asarray(im, float) / 255))
    return out


def test_typeset_digits_have_the_statistics_of_the_shipped_digits():
    fonts = _font_digits()
    typeset = np.array([x for xs in fonts.values() for x in xs])
    shipped, _ = load_digits()
    # the share of empty, full and partly inked blocks, and the ink per digit
    for stat in (lambda a: np.mean(a == 0), lambda a: np.mean(a == 16), lambda a: np.mean((a > 0) & (a < 16))):
        assert abs(stat(typeset) - stat(shipped)) < 0.06
    assert abs(typeset.sum(axis=(1, 2)).mean() / shipped.sum(axis=(1, 2)).mean() - 1) < 0.25
    # as tall as the shipped digits (ink in the first and last rows of blocks), as wide (none in the
    # outer columns of blocks)
    for a in (typeset, shipped):
        assert np.all(a[:, 0].sum(axis=1) > 0) and np.all(a[:, 7].sum(axis=1) > 0)
        assert a[:, :, 0].mean() < 0.05 and a[:, :, 7].mean() < 0.2
    # rows and columns carry ink like the shipped digits' (a box kept at the glyph's aspect ratio
    # leaves the outer rows empty: 4.6 counts off); typeset 2, 3, 5, 7 open to the left, so the
    # centre column holds 3.2 counts less than handwriting's
    assert np.abs(typeset.mean(axis=(0, 2)) - shipped.mean(axis=(0, 2))).max() < 2.5
    assert np.abs(typeset.mean(axis=(0, 1)) - shipped.mean(axis=(0, 1))).max() < 3.5


def test_any_array_gives_a_digit_or_a_documented_error():
    import hypothesis
    from hypothesis import given, settings
    from hypothesis import strategies as st
    from hypothesis.extra import numpy as hnp

    values = st.one_of(st.floats(0, 1), st.floats(allow_nan=True, allow_infinity=True), st.sampled_from([0.0, 1.0]))
    arrays = hnp.arrays(np.float64, hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=40), elements=values)

    @settings(max_examples=80, deadline=None, suppress_health_check=[hypothesis.HealthCheck.too_slow])
    @given(arrays)
    def check(ink):
        try:
            x = digit_from_bitmap(ink)
        except (ValueError, TypeError) as exc:
            assert "ink" in str(exc) and len(str(exc)) < 200
            return
        assert x.shape == (8, 8) and x.min() >= 0 and x.max() <= 16 and x.sum() > 0
        assert np.all(x == np.round(x))

    check()
