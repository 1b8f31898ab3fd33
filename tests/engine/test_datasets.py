import numpy as np
import pytest

from smlengine import datasets
from smlengine.datasets import GENERATORS, load_points, make_dataset, save_points


@pytest.mark.parametrize("name", sorted(GENERATORS))
def test_shape_labels_and_determinism(name):
    gen = GENERATORS[name]
    X, y = gen(n_samples=151, random_state=3)
    assert X.shape == (151, 2) and X.dtype == np.float64
    assert set(np.unique(y)) == {-1.0, 1.0}
    X2, y2 = gen(n_samples=151, random_state=3)
    np.testing.assert_array_equal(X, X2)
    np.testing.assert_array_equal(y, y2)
    X3, _ = gen(n_samples=151, random_state=4)
    assert not np.array_equal(X, X3)


@pytest.mark.parametrize("name", sorted(GENERATORS))
def test_balance(name):
    _, y = make_dataset(name, 200, random_state=0, balance=0.2)
    assert np.sum(y > 0) == 40


def test_noise_zero_moons_lie_on_half_circles():
    X, y = datasets.make_moons(50, noise=0.0, random_state=0)
    top = X[y < 0]
    np.testing.assert_allclose(np.hypot(*top.T), 1.0)


@pytest.mark.parametrize(
    "kwargs, exc, message",
    [
        ({"n_samples": 1}, ValueError, "n_samples"),
        ({"noise": -1.0}, ValueError, "noise"),
        ({"balance": 1.0}, ValueError, "balance"),
        ({"random_state": -3}, ValueError, "random_state"),
        ({"n_samples": "ten"}, TypeError, "n_samples"),
    ],
)
def test_bad_arguments(kwargs, exc, message):
    with pytest.raises(exc, match=message):
        datasets.make_blobs(**kwargs)


def test_unknown_dataset():
    with pytest.raises(ValueError, match="unknown dataset"):
        make_dataset("swiss")


def test_points_round_trip(tmp_path):
    X, y = datasets.make_xor(30, random_state=1)
    path = tmp_path / "pts.csv"
    save_points(path, X, y)
    X2, y2 = load_points(path)
    np.testing.assert_array_equal(X, X2)
    np.testing.assert_array_equal(y, y2)
    assert path.read_text().splitlines()[0] == "x1,x2,label"


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "empty"),
        ("a,b\n1,2\n", "line 1"),
        ("x1,x2,label\n1,2,1\n3,oops,1\n", "line 3"),
        ("x1,x2,label\n1,2\n", "line 2"),
        ("x1,x2,label\n1,nan,1\n", "line 2"),
        ("x1,x2,label\n", "no points"),
    ],
)
def test_malformed_point_files(tmp_path, text, message):
    path = tmp_path / "bad.csv"
    path.write_text(text)
    with pytest.raises(ValueError, match=message):
        load_points(path)


def test_binary_point_file(tmp_path):
    path = tmp_path / "bin.csv"
    path.write_bytes(b"\xff\xfe\x00\x01garbage")
    with pytest.raises(ValueError, match="UTF-8"):
        load_points(path)
