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
