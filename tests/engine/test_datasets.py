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
        ("a,b\n1,2\n", "header such as .x1,x2,label."),
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


def test_long_malformed_lines_are_quoted_briefly(tmp_path):
    # A 5 MB line is refused by its length, without being read whole or quoted.
    path = tmp_path / "long.csv"
    path.write_text("x1,x2,label\n1,2,1\n" + "9" * 5_000_000 + "\n", encoding="utf-8")
    with pytest.raises(ValueError) as err:
        load_points(path)
    msg = str(err.value)
    assert "line 3" in msg and "longer than 65,536 characters" in msg
    assert len(msg) < 300


def test_many_malformed_lines_show_three_then_a_count(tmp_path):
    path = tmp_path / "many.csv"
    path.write_text("x1,x2,label\n" + "a,b\n" * 1000 + "1,2,1\n", encoding="utf-8")
    with pytest.raises(ValueError) as err:
        load_points(path)
    msg = str(err.value)
    assert "1,000 malformed" in msg and "and 997 more" in msg
    assert "line 2:" in msg and "line 4:" in msg and "line 5:" not in msg
    assert len(msg) < 500


@pytest.mark.parametrize("label", ["nan", "NaN", "-inf", "Infinity"])
def test_nan_or_infinite_labels_are_refused_with_the_line(tmp_path, label):
    # 'nan' parsed as a float would be a label that never equals itself: no class could hold it.
    path = tmp_path / "nan.csv"
    path.write_text(f"x1,x2,label\n0,0,1\n1,1,{label}\n2,2,-1\n", encoding="utf-8")
    with pytest.raises(ValueError, match=rf"line 3: '{label}' is not a finite number"):
        load_points(path)


def test_the_apps_exported_table_loads(tmp_path):
    # header written by the classifiers lab's export: x1,x2,label,f(x),predicted[,test]
    path = tmp_path / "export.csv"
    path.write_text(
        "x1,x2,label,f(x),predicted,test\n0.5,-1.25,1,0.73,1,0\n-2.0,3.0,-1,-0.2,-1,1\n", encoding="utf-8"
    )
    X, y = load_points(path)
    np.testing.assert_array_equal(X, [[0.5, -1.25], [-2.0, 3.0]])
    np.testing.assert_array_equal(y, [1.0, -1.0])


def test_string_labels_and_bom(tmp_path):
    path = tmp_path / "names.csv"
    path.write_text("\ufeffx1,x2,Label\n1,2,cat\n3,4,dog\n", encoding="utf-8")
    X, y = load_points(path)
    assert X.shape == (2, 2) and list(y) == ["cat", "dog"]


def test_points_file_folder_missing_or_too_large(tmp_path):
    with pytest.raises(ValueError, match="is a folder"):
        load_points(tmp_path)
    with pytest.raises(FileNotFoundError):
        load_points(tmp_path / "missing.csv")
    big = tmp_path / "big.csv"
    with open(big, "wb") as fh:  # sparse file: no disk space used
        fh.truncate(60 * 2**20)
    with pytest.raises(ValueError, match="limited to 50 MB"):
        load_points(big)


@pytest.mark.parametrize("n_samples", [2**31, 2**64, 10**400])
def test_huge_sample_counts_are_a_clear_value_error(n_samples):
    # 10**400 is no float: numpy's isfinite would raise a TypeError on it, not a message.
    with pytest.raises(ValueError, match="n_samples must be <= 10000000"):
        make_dataset("moons", n_samples)
    with pytest.raises(ValueError, match="noise must be <= 100.0"):
        make_dataset("blobs", 10, noise=n_samples)


@pytest.mark.parametrize("seed", [2**31, 2**63, 2**64 + 5])
def test_large_seeds_are_valid_and_deterministic(seed):
    X1, _ = make_dataset("xor", 20, random_state=seed)
    X2, _ = make_dataset("xor", 20, random_state=seed)
    np.testing.assert_array_equal(X1, X2)
