"""Bundled photos and the image-file reader (PNG/JPEG a user opens)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from smlengine.datasets import list_photos, load_photo, read_image_file


def test_every_listed_photo_loads_offline_as_float_in_unit_range():
    names = list_photos()
    for required in ("astronaut", "coffee", "chelsea", "rocket", "coins", "camera"):
        assert required in names
    for name in names:
        img = load_photo(name)
        assert img.dtype == np.float64 and img.ndim in (2, 3), name
        assert img.ndim == 2 or img.shape[2] == 3, name
        assert 0.0 <= img.min() and img.max() <= 1.0, name
    assert load_photo("astronaut").shape == (512, 512, 3)
    assert load_photo(" Coins ").shape == (303, 384)


def test_load_photo_unknown():
    with pytest.raises(ValueError, match="unknown photo"):
        load_photo("brain")  # needs a download, so it is not listed
    with pytest.raises(TypeError):
        load_photo(3)


def test_read_png_colour_grey_alpha_and_16_bit(tmp_path):
    rng = np.random.default_rng(0)
    rgb = rng.integers(0, 256, (20, 30, 3), dtype=np.uint8)
    Image.fromarray(rgb).save(tmp_path / "rgb.png")
    img, note = read_image_file(tmp_path / "rgb.png")
    np.testing.assert_allclose(img, rgb / 255.0)
    assert note is None

    rgba = np.dstack([rgb, np.full((20, 30), 7, np.uint8)])
    Image.fromarray(rgba, "RGBA").save(tmp_path / "rgba.png")
    img, note = read_image_file(str(tmp_path / "rgba.png"))
    np.testing.assert_allclose(img, rgb / 255.0)
    assert "alpha" in note

    grey16 = rng.integers(0, 65536, (10, 12)).astype(np.uint16)
    Image.fromarray(grey16).save(tmp_path / "g16.png")
    img, note = read_image_file(tmp_path / "g16.png")
    assert img.shape == (10, 12)
    np.testing.assert_allclose(img, grey16 / 65535.0)
    assert "16-bit" in note

    grey = rng.integers(0, 256, (10, 12), dtype=np.uint8)
    Image.fromarray(grey).save(tmp_path / "g.jpg", quality=100)
    img, _ = read_image_file(tmp_path / "g.jpg")
    assert img.shape == (10, 12) and np.abs(img - grey / 255.0).max() < 0.1


def test_read_large_image_is_downscaled_with_a_note(tmp_path):
    big = np.zeros((600, 900, 3), dtype=np.uint8)
    big[:, 450:] = 255
    Image.fromarray(big).save(tmp_path / "big.png")
    result = read_image_file(tmp_path / "big.png", max_pixels=10_000)
    assert result.image.shape[0] * result.image.shape[1] <= 10_000
    assert abs(result.image.shape[1] / result.image.shape[0] - 1.5) < 0.05
    assert "Downscaled from 900 x 600" in result.note
    Image.fromarray(big).save(tmp_path / "big.jpg")
    img, note = read_image_file(tmp_path / "big.jpg", max_pixels=10_000)
    assert img.shape[0] * img.shape[1] <= 10_000 and "Downscaled" in note
    full, note = read_image_file(tmp_path / "big.png", max_pixels=None)
    assert full.shape == (600, 900, 3) and note is None


def test_what_the_reader_changes_in_float_and_animated_images_is_said(tmp_path):
    """A float image outside [0, 1] is scaled and says so; a constant one (a TIFF of 1e30) cannot
    be scaled and is read as black, saying so; an animated GIF keeps its first frame, saying how many."""
    Image.fromarray(np.full((8, 9), 1e30, np.float32)).save(tmp_path / "constant.tif")
    img, note = read_image_file(tmp_path / "constant.tif")
    assert img.shape == (8, 9) and not img.any()
    assert note == "Every pixel is 1e+30, outside [0, 1]: read as a black image.", note
    ramp = np.linspace(-5, 5, 72, dtype=np.float32).reshape(8, 9)
    Image.fromarray(ramp).save(tmp_path / "ramp.tif")
    img, note = read_image_file(tmp_path / "ramp.tif")
    np.testing.assert_allclose(img, (ramp - ramp.min()) / (ramp.max() - ramp.min()), atol=1e-7)
    assert note == "Float values from -5 to 5 scaled to [0, 1].", note
    Image.fromarray(np.full((8, 9), 0.5, np.float32)).save(tmp_path / "half.tif")
    assert read_image_file(tmp_path / "half.tif").note is None  # within [0, 1]: read as it is
    frames = [Image.fromarray(np.full((8, 9), v, np.uint8)) for v in (10, 200, 90)]
    frames[0].save(tmp_path / "anim.gif", save_all=True, append_images=frames[1:], duration=100, loop=0)
    img, note = read_image_file(tmp_path / "anim.gif")
    np.testing.assert_allclose(img, 10 / 255)
    assert note == "Only the first of its 3 frames was read.", note


@pytest.mark.parametrize(
    "content, match",
    [(b"", "empty"), (b"hello, this is text\n", "not an image"), (bytes(range(256)) * 4, "not an image")],
)
def test_read_image_file_bad_files(tmp_path, content, match):
    path = tmp_path / "file.png"
    path.write_bytes(content)
    with pytest.raises(ValueError, match=match):
        read_image_file(path)


def test_read_image_file_missing_and_truncated(tmp_path):
    with pytest.raises(ValueError, match="no such file"):
        read_image_file(tmp_path / "nope.png")
    Image.fromarray(np.zeros((40, 40, 3), np.uint8) + 90).save(tmp_path / "ok.png")
    data = (tmp_path / "ok.png").read_bytes()
    (tmp_path / "cut.png").write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match="cut.png"):
        read_image_file(tmp_path / "cut.png")


def _png_bytes():
    import io

    buf = io.BytesIO()
    Image.fromarray(np.arange(64 * 3, dtype=np.uint8).reshape(8, 8, 3)).save(buf, format="PNG")
    return buf.getvalue()


_PNG = _png_bytes()


@settings(max_examples=50, deadline=None)
@given(
    data=st.one_of(
        st.binary(max_size=300),
        st.integers(1, len(_PNG) - 1).map(lambda k: _PNG[:k]),
        st.tuples(st.integers(8, len(_PNG) - 1), st.integers(0, 255)).map(
            lambda t: _PNG[: t[0]] + bytes([t[1]]) + _PNG[t[0] + 1:]),
    )
)
def test_fuzz_read_image_file_only_value_error(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("fuzz") / "x.png"
    path.write_bytes(data)
    try:
        img, note = read_image_file(path)
    except ValueError as exc:
        assert len(str(exc)) <= 1000
    else:
        assert img.dtype == np.float64 and np.all(np.isfinite(img))
        assert 0.0 <= img.min() and img.max() <= 1.0


def _streamed_png(path, width, height, colour=True):
    """A valid 8-bit PNG written row by row (a few hundred kB for 13,300 x 13,300: mostly zeros)."""
    import struct
    import zlib

    def chunk(tag, data):
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)

    ch = 3 if colour else 1
    co = zlib.compressobj(9)
    zero = b"\x00" + bytes(width * ch)
    idat = b"".join(co.compress(zero if i % 97 else b"\x00" + bytes([i % 251]) * (width * ch)) for i in range(height))
    idat += co.flush()
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2 if colour else 0, 0, 0, 0)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", idat) + chunk(b"IEND", b""))


def test_a_file_above_the_pixel_limit_is_refused_from_its_header(tmp_path):
    """13,300 x 13,300 (177 million pixels, under Pillow's own error limit): refused before decoding,
    in a child process whose peak memory stays far below the 530 MB of the decoded pixels."""
    import subprocess
    import sys

    from smlengine.datasets._images import MAX_FILE_PIXELS

    assert MAX_FILE_PIXELS < Image.MAX_IMAGE_PIXELS
    path = tmp_path / "huge.png"
    _streamed_png(path, 13_300, 13_300)
    with pytest.raises(ValueError, match=r"huge.png is too large: 13,300 x 13,300 pixels; files of at most "
                                         r"40,000,000 pixels"):
        read_image_file(path)
    # the child's own peak since its exec (VmHWM): ru_maxrss would also count the pages of the
    # test process it was forked from
    code = ("import sys\nfrom smlengine.datasets import read_image_file\n"
            "try:\n    read_image_file(sys.argv[1])\nexcept ValueError:\n    pass\n"
            "print([int(line.split()[1]) for line in open('/proc/self/status') if line.startswith('VmHWM')][0])")
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True)
    assert int(out.stdout.split()[-1]) < 250_000  # kB
    # just above the limit, and a bomb beyond Pillow's own error limit, are refused alike
    _streamed_png(path, 8000, 5001, colour=False)
    with pytest.raises(ValueError, match="too large"):
        read_image_file(path, max_pixels=None)
    _streamed_png(path, 8000, 5000, colour=False)
    img, note = read_image_file(path, max_pixels=100_000)
    assert img.shape[0] * img.shape[1] <= 100_000 and "Downscaled from 8000 x 5000" in note


@pytest.mark.parametrize("mode", ["L", "RGB", "RGBA", "P", "I;16", "1"])
def test_large_files_are_reduced_before_conversion_and_keep_their_content(tmp_path, mode):
    """Every mode comes out as the area average of its pixels (within a few grey levels of one box resize)."""
    rng = np.random.default_rng(1)
    base = np.kron(rng.integers(0, 256, (30, 40, 3), dtype=np.uint8), np.ones((40, 40, 1), np.uint8))  # 1200 x 1600
    if mode == "I;16":
        im = Image.fromarray(base[..., 0].astype(np.uint16) * 257)
    else:
        im = Image.fromarray(base).convert(mode)
    im.save(tmp_path / "x.png")
    img, note = read_image_file(tmp_path / "x.png", max_pixels=120 * 160)
    h, w = img.shape[:2]
    assert h * w <= 120 * 160 and w == 160 and h >= 118 and "Downscaled from 1600 x 1200" in note
    ref_img = im.convert("RGB" if mode in ("RGB", "RGBA", "P") else ("I" if mode == "I;16" else "L"))
    ref = np.asarray(ref_img.resize((w, h), Image.Resampling.BOX), dtype=np.float64)
    ref /= 65535.0 if mode == "I;16" else 255.0
    assert np.abs(img - ref).mean() < 0.02  # an edge every 4 output pixels: the worst case for two steps
    # each 40 x 40 block is uniform: its 4 x 4 output block away from the block edges is its value
    np.testing.assert_allclose(img[1:3, 1:3], ref[1:3, 1:3], atol=1e-6)
