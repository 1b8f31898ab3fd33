"""The shipped 8 × 8 digits and the image-stack loader of the PCA lab."""

import importlib.util
import zipfile
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from smlengine._resources import resource_path
from smlengine.datasets import load_digits, load_image_stack
from smlengine.datasets._digits import MAX_IMAGES, MAX_SIDE

ROOT = Path(__file__).resolve().parents[2]


def test_digits_shape_values_and_classes():
    images, labels = load_digits()
    assert images.shape == (1797, 8, 8) and images.dtype == np.float64
    assert labels.shape == (1797,) and labels.dtype.kind == "i"
    assert images.min() == 0 and images.max() == 16 and np.all(images == np.round(images))
    assert np.bincount(labels).tolist() == [178, 182, 177, 183, 181, 182, 181, 179, 174, 180]


def test_digits_equal_scikit_learn_copy():
    sk = pytest.importorskip("sklearn.datasets")
    ref = sk.load_digits()
    images, labels = load_digits()
    np.testing.assert_array_equal(images, ref.images)
    np.testing.assert_array_equal(labels, ref.target)


def test_one_digit_class():
    images, labels = load_digits(digit=3)
    all_images, all_labels = load_digits()
    assert images.shape == (183, 8, 8) and (labels == 3).all()
    np.testing.assert_array_equal(images, all_images[all_labels == 3])


@pytest.mark.parametrize("digit, exc", [(10, ValueError), (-1, ValueError), ("3", TypeError), (3.0, TypeError)])
def test_bad_digit(digit, exc):
    with pytest.raises(exc, match="digit must be"):
        load_digits(digit)


def test_shipped_file_is_reproduced_by_its_script(tmp_path):
    pytest.importorskip("sklearn")
    spec = importlib.util.spec_from_file_location("derive_digits", ROOT / "resources/data/scripts/derive_digits.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    out = module.derive(tmp_path / "digits.npz")
    shipped = resource_path("data", "digits.npz")
    assert out.read_bytes() == shipped.read_bytes()
    assert shipped.stat().st_size < 100_000


# ----------------------------------------------------------------------------- load_image_stack


def _save(path, arr):
    Image.fromarray(np.asarray(arr)).save(path)


def test_folder_of_png_and_jpeg_round_trip(tmp_path):
    rng = np.random.default_rng(0)
    imgs = rng.integers(0, 256, (3, 5, 7), dtype=np.uint8)
    for i, im in enumerate(imgs):
        _save(tmp_path / f"img{i}.png", im)
    (tmp_path / "README.txt").write_text("not an image, ignored")
    (tmp_path / ".hidden.png").write_bytes(b"junk")
    stack = load_image_stack(tmp_path)
    assert stack.dtype == np.float64
    np.testing.assert_array_equal(stack, imgs)
    flat = np.full((5, 7), 100, np.uint8)
    _save(tmp_path / "z.jpg", flat)
    assert load_image_stack(tmp_path).shape == (4, 5, 7)


def test_grey_saved_as_rgb_is_accepted_colour_is_not(tmp_path):
    grey = np.arange(12, dtype=np.uint8).reshape(3, 4)
    _save(tmp_path / "a.png", np.stack([grey] * 3, axis=-1))
    np.testing.assert_array_equal(load_image_stack(tmp_path / "a.png"), grey[None])
    colour = np.stack([grey, grey, grey + 1], axis=-1)
    _save(tmp_path / "b.png", colour)
    with pytest.raises(ValueError, match="grey images only"):
        load_image_stack(tmp_path)


def test_transparent_image_rejected(tmp_path):
    rgba = np.zeros((3, 3, 4), np.uint8)
    rgba[..., 3] = 255
    _save(tmp_path / "ok.png", rgba)
    assert load_image_stack(tmp_path / "ok.png").shape == (1, 3, 3)
    rgba[0, 0, 3] = 0
    _save(tmp_path / "t.png", rgba)
    with pytest.raises(ValueError, match="transparent"):
        load_image_stack(tmp_path / "t.png")


def test_mixed_sizes(tmp_path):
    _save(tmp_path / "a.png", np.zeros((8, 8), np.uint8))
    _save(tmp_path / "b.png", np.zeros((28, 28), np.uint8))
    with pytest.raises(ValueError, match="different sizes: a.png is 8 × 8 but b.png is 28 × 28"):
        load_image_stack(tmp_path)


def test_empty_folder_and_non_images(tmp_path):
    with pytest.raises(ValueError, match="no image files"):
        load_image_stack(tmp_path)
    (tmp_path / "notes.txt").write_text("hello")
    with pytest.raises(ValueError, match="no image files"):
        load_image_stack(tmp_path)
    with pytest.raises(ValueError, match="not an image stack"):
        load_image_stack(tmp_path / "notes.txt")
    (tmp_path / "fake.png").write_text("hello")
    with pytest.raises(ValueError, match="fake.png: not an image"):
        load_image_stack(tmp_path)
    with pytest.raises(FileNotFoundError):
        load_image_stack(tmp_path / "missing")


def test_npy_and_npz(tmp_path):
    rng = np.random.default_rng(1)
    mnist_like = rng.integers(0, 256, (10, 28, 28)).astype(np.uint8)
    np.save(tmp_path / "a.npy", mnist_like)
    np.testing.assert_array_equal(load_image_stack(tmp_path / "a.npy"), mnist_like)
    np.savez_compressed(tmp_path / "b.npz", images=mnist_like, labels=np.arange(10))
    np.testing.assert_array_equal(load_image_stack(tmp_path / "b.npz"), mnist_like)
    np.savez(tmp_path / "c.npz", mnist_like)
    np.testing.assert_array_equal(load_image_stack(tmp_path / "c.npz"), mnist_like)
    np.savez(tmp_path / "d.npz", u=mnist_like, v=mnist_like)
    with pytest.raises(ValueError, match="several arrays"):
        load_image_stack(tmp_path / "d.npz")


@pytest.mark.parametrize(
    "arr, match",
    [
        (np.zeros((4, 64)), "expected an array of shape \\(n_images, height, width\\)"),
        (np.zeros((2, 8, 8, 3)), "grey images only"),
        (np.zeros((0, 8, 8)), "empty"),
        (np.array([[[1.0, np.nan]]]), "NaN"),
        (np.zeros((2, 2, 2), complex), "must be real numbers .* got complex numbers"),
        (np.array([[["a"]]]), "must be real numbers"),
        (np.zeros((MAX_IMAGES + 1, 1, 1), np.uint8), "too many images"),
        (np.zeros((1, MAX_SIDE + 1, 1), np.uint8), "at most 4096 pixels per side"),
    ],
)
def test_bad_arrays(tmp_path, arr, match):
    np.save(tmp_path / "x.npy", arr)
    with pytest.raises(ValueError, match=match):
        load_image_stack(tmp_path / "x.npy")


def test_pickled_and_garbage_array_files(tmp_path):
    np.save(tmp_path / "o.npy", np.array([[[None]]], dtype=object), allow_pickle=True)
    with pytest.raises(ValueError, match="o.npy"):
        load_image_stack(tmp_path / "o.npy")
    (tmp_path / "g.npz").write_bytes(b"PK\x03\x04 garbage")
    with pytest.raises(ValueError, match="g.npz: not a readable NumPy array file"):
        load_image_stack(tmp_path / "g.npz")


def test_fuzz_loader_raises_only_documented_errors(tmp_path_factory):
    import hypothesis
    from hypothesis import strategies as st
    folder = tmp_path_factory.mktemp("fuzz")
    png = folder / "seed.png"
    _save(png, np.arange(16, dtype=np.uint8).reshape(4, 4))
    png_bytes = png.read_bytes()
    buf = folder / "seed.npy"
    np.save(buf, np.zeros((2, 3, 3)))
    npy_bytes = buf.read_bytes()
    zpath = folder / "seed.npz"
    np.savez_compressed(zpath, images=np.ones((2, 3, 3)))
    npz_bytes = zpath.read_bytes()

    @hypothesis.settings(max_examples=50, deadline=None, derandomize=True)
    @hypothesis.given(
        suffix=st.sampled_from([".png", ".jpg", ".npy", ".npz", ".gif", ".tif"]),
        base=st.sampled_from([b"", png_bytes, npy_bytes, npz_bytes]),
        cut=st.integers(0, 400),
        junk=st.binary(max_size=64),
        pos=st.integers(0, 400),
    )
    def check(suffix, base, cut, junk, pos):
        data = base[: max(len(base) - cut, 0)] if cut % 2 else base[:pos] + junk + base[pos + len(junk):]
        target = folder / f"case{suffix}"
        target.write_bytes(data)
        try:
            stack = load_image_stack(target)
        except (ValueError, OSError) as exc:
            assert len(str(exc)) <= 1000
        else:
            assert stack.ndim == 3 and stack.dtype == np.float64 and np.isfinite(stack).all()

    check()


def test_zip_members_of_shipped_file():
    with zipfile.ZipFile(resource_path("data", "digits.npz")) as zf:
        assert sorted(zf.namelist()) == ["images.npy", "labels.npy"]


# ----------------------------------------------------------------------------- header bombs
def _npy_header(descr, shape):
    import io

    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(buf, {"descr": descr, "fortran_order": False, "shape": shape})
    return buf.getvalue()


def _bomb_files(folder):
    """Small files whose headers declare far more than they hold, or items that are not pixels."""
    files = {}
    # a 2 MB .npz whose one item is declared 1 GB wide: (2, 1, 1) items, 2 GB in all
    path = folder / "item.npz"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as zf:
        zf.writestr("images.npy", _npy_header("|V1000000000", (2, 1, 1)) + b"\0" * 2_000_000)
    files[path] = "real numbers"
    # a legal shape (9e7 float64 pixels, 720 MB) in a 2 MB file
    path = folder / "short.npz"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as zf:
        zf.writestr("images.npy", _npy_header("<f8", (1000, 300, 300)) + b"\0" * 2_000_000)
    files[path] = "declares 720,000,000 bytes"
    path = folder / "short.npy"
    path.write_bytes(_npy_header("<f8", (1000, 300, 300)) + b"\0" * 2_000_000)
    files[path] = "truncated"
    # complex, string and structured items are refused from the header
    pairs = [("a", "<f8"), ("b", "<f8")]
    for name, descr in (("complex.npy", "<c16"), ("text.npy", "<U100000000"), ("pairs.npy", pairs)):
        path = folder / name
        path.write_bytes(_npy_header(descr, (20, 256, 256)) + b"\0" * 1000)
        files[path] = "real numbers"
    return files


def test_header_bombs_are_refused_from_the_header(tmp_path):
    for path, words in _bomb_files(tmp_path).items():
        with pytest.raises(ValueError, match=words) as info:
            load_image_stack(path)
        assert str(info.value).startswith(path.name + ":") and len(str(info.value)) < 200


def test_header_bombs_cost_no_memory(tmp_path):
    """In a child process: refusing every bomb raises the peak memory by less than 50 MB (a
    real 2 MB read costs a few MB), and a complex stack of 315 MB is refused without reading it."""
    import subprocess
    import sys

    files = _bomb_files(tmp_path)
    big = tmp_path / "big_complex.npy"
    np.save(big, np.zeros((300, 256, 256), complex))
    paths = [str(p) for p in [*files, big]]
    code = (
        "import resource, sys\n"
        "from smlengine.datasets import load_image_stack\n"
        "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "for p in sys.argv[1:]:\n"
        "    try:\n"
        "        load_image_stack(p)\n"
        "    except ValueError:\n"
        "        pass\n"
        "    else:\n"
        "        raise SystemExit('accepted ' + p)\n"
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before)\n"
    )
    out = subprocess.run([sys.executable, "-c", code, *paths], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:] + out.stdout
    grown_kb = int(out.stdout.split()[-1])
    assert grown_kb < 50_000, grown_kb


def test_real_arrays_of_every_number_type_are_read(tmp_path):
    for dtype in (bool, np.uint8, np.int16, np.uint16, np.int32, np.int64, np.float16, np.float32, np.float64):
        arr = (np.arange(2 * 3 * 4).reshape(2, 3, 4) % 2).astype(dtype)
        np.save(tmp_path / "a.npy", arr)
        np.savez_compressed(tmp_path / "a.npz", images=arr)
        for name in ("a.npy", "a.npz"):
            np.testing.assert_array_equal(load_image_stack(tmp_path / name), arr.astype(float))
