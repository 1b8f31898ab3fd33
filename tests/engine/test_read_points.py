"""The one reader of points files (smlengine.datasets.read_points): its dialect rule, its column
choice and its guards, on the files a student brings (a French spreadsheet's export, a table
with more columns than a lab needs, a file of one class, values near the float limits)."""

import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from smlengine.datasets import PointsTable, read_points

LABELLED = (("x1", "x"), ("x2", "y"), "label")
PLANE = (("x1", "x"), ("x2", "y"))
XY = (("x", "x1"), ("y", "x2"))

#: the issue's files, as a student's spreadsheet or editor writes them
DECIMAL_COMMA = "x;y;label\n0,010;0,100;1\n0,5;-1,25;-1\n2;3,5e-1;1\n"
FIVE_COLUMNS = "a,b,c,d,e\n1,2,1,4,5\n3,4,-1,6,7\n"
ONE_CLASS = "x1,x2,label\n0,0,1\n1,1,1\n2,0.5,1\n"
HUGE_VALUES = "x,y\n1e301,2\n6e301,-1e301\n"


def _file(tmp_path, text: str, name: str = "points.csv") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    return path


def test_the_decimal_comma_file_reads_the_numbers_it_holds(tmp_path):
    path = _file(tmp_path, DECIMAL_COMMA)
    for columns in (None, LABELLED):
        table = read_points(path, columns=columns)
        assert table.names == ("x", "y", "label") and table.classes is None
        np.testing.assert_array_equal(table.data, [[0.01, 0.1, 1], [0.5, -1.25, -1], [2, 0.35, 1]])
    np.testing.assert_array_equal(read_points(path, columns=PLANE).data, [[0.01, 0.1], [0.5, -1.25], [2, 0.35]])
    assert read_points(path, columns=XY).names == ("x", "y")


@pytest.mark.parametrize("text", ["x\ty\n0,5\t1,5\n-2\t3,25\n", "x\ty\n0.5\t1.5\n-2\t3.25\n",
                                  "x;y\n0.5;1.5\n-2;3.25\n", "x,y\n0.5,1.5\n-2,3.25\n",
                                  "# my points\nx y\n  0.5   1.5\n-2 3.25\n\n", "0.5 1.5\n-2 3.25\n"])
def test_every_delimiter_and_decimal_mark_reads_the_same_points(tmp_path, text):
    table = read_points(_file(tmp_path, text))
    np.testing.assert_array_equal(table.data, [[0.5, 1.5], [-2, 3.25]])
    assert table.names == (None if text.startswith("0.5") else ("x", "y"))


@pytest.mark.parametrize("text, line, said", [
    ("x;y\n1,5;2\n3.5;4\n", 3, "'3.5' is written with a decimal point, '1,5' on line 2 with a decimal comma"),
    ("x;y\n1.5;2\n0;4,25\n", 3, "'4,25' is written with a decimal comma, '1.5' on line 2 with a decimal point"),
    ("x\ty\n1\t2\n1,5\t2.5\n", 3, "'2.5' is written with a decimal point, '1,5' on line 3 with a decimal comma"),
])
def test_a_file_with_two_decimal_marks_is_ambiguous_and_refused_at_its_line(tmp_path, text, line, said):
    with pytest.raises(ValueError, match=rf"line {line}: .*{said}") as err:
        read_points(_file(tmp_path, text))
    assert "ambiguous" in str(err.value)


@pytest.mark.parametrize("text, said", [
    ("x;y\n1.000,5;2\n", "'1.000,5' is not a number"),     # a thousands separator
    ("x y\n1,5 2,5\n", "decimal commas need ';' or tabs"),  # decimal commas between spaces
    ("x,y\n1_000,2\n", "'1_000' is not written as a plain number"),
    ("1_000,2\n3,4\n", "line 1: '1_000' is not written as a plain number"),  # data, not a header
    ("x,y\n１２,3\n", "is not written as a plain number"),  # full-width digits
    ("x,y\nnan,1\n", "'nan' is not a finite number"),
    ("x,y\n1,-inf\n", "'-inf' is not a finite number"),
    ("x,y\n1e999,1\n", "'1e999' is too large for a number"),
    ("x,y\n0x1,1\n", "'0x1' is not a number"),
    ("x,y\n1,\n", "an empty field"),
    ("x,y\n1,2,3\n", "expected 2 fields separated by ',', got 3"),
])
def test_what_is_not_a_number_by_the_rule_is_refused_with_its_line(tmp_path, text, said):
    with pytest.raises(ValueError, match="line") as err:
        read_points(_file(tmp_path, text))
    assert said in str(err.value)


def test_values_up_to_the_float_limit_are_read_as_they_are(tmp_path):
    # whether a lab can draw them is the lab's check (app.points_data), not the reader's
    table = read_points(_file(tmp_path, HUGE_VALUES))
    np.testing.assert_array_equal(table.data, [[1e301, 2], [6e301, -1e301]])
    tiny = read_points(_file(tmp_path, "x,y\n" + "".join(f"{i * 1e-300!r},{i % 3}\n" for i in range(5))))
    np.testing.assert_array_equal(tiny.data[:, 0], np.arange(5) * 1e-300)


def test_extra_columns_are_refused_unless_the_header_chooses_them(tmp_path):
    five = _file(tmp_path, FIVE_COLUMNS)
    assert read_points(five).data.shape == (2, 5)  # no choice: every column
    for columns, n in ((LABELLED, 3), (PLANE, 2), (XY, 2)):
        with pytest.raises(ValueError, match=rf"line 1: 5 column\(s\) \(a, b, c, d, e\); this lab reads {n}"):
            read_points(five, columns=columns)
    named = _file(tmp_path, "x1,x2,label,f(x),predicted,test\n0.5,-1.25,1,0.73,1,0\n-2,3,-1,-0.2,-1,1\n")
    table = read_points(named, columns=LABELLED)
    assert table.names == ("x1", "x2", "label")
    np.testing.assert_array_equal(table.data, [[0.5, -1.25, 1], [-2, 3, -1]])
    reordered = read_points(_file(tmp_path, "Label;Y;X\n1;2;3\n"), columns=LABELLED)
    np.testing.assert_array_equal(reordered.data, [[3, 2, 1]])
    with pytest.raises(ValueError, match="line 1: 2 column"):
        read_points(_file(tmp_path, "x,y\n1,2\n"), columns=LABELLED)  # too few
    with pytest.raises(ValueError, match="names column 'x1' 2 times"):
        read_points(_file(tmp_path, "x1,x,label,z\n1,2,3,4\n"), columns=LABELLED)


def test_the_one_class_file_is_read_whole(tmp_path):
    # a file is not refused for its classes: the lab that needs two says so before it adopts it
    table = read_points(_file(tmp_path, ONE_CLASS), columns=LABELLED)
    np.testing.assert_array_equal(table.data[:, 2], [1, 1, 1])


def test_class_names_in_the_label_column_are_numbered_in_sorted_order(tmp_path):
    table = read_points(_file(tmp_path, "\ufeffx1;x2;Label\n1;2,5;dog\n3;4;cat\n5;6;dog\n"), columns=LABELLED)
    assert table.classes == ("cat", "dog")
    np.testing.assert_array_equal(table.data, [[1, 2.5, 1], [3, 4, 0], [5, 6, 1]])
    headerless = read_points(_file(tmp_path, "1 2 0\n3 4 1\n"), columns=LABELLED)
    assert headerless.classes is None and headerless.names is None
    with pytest.raises(ValueError, match="line 2: 'cat' is not a number"):
        read_points(_file(tmp_path, "x,y\ncat,1\n"), columns=XY)  # names only in a label column
    with pytest.raises(ValueError, match="line 3: 'Infinity' is not a finite number"):
        read_points(_file(tmp_path, "x1,x2,label\n0,0,a\n1,1,Infinity\n"), columns=LABELLED)


def test_the_guards_of_a_points_file(tmp_path):
    with pytest.raises(ValueError, match="is a folder"):
        read_points(tmp_path)
    with pytest.raises(FileNotFoundError):
        read_points(tmp_path / "missing.csv")
    big = tmp_path / "big.csv"
    with open(big, "wb") as fh:  # sparse: no disk used
        fh.truncate(60 * 2**20)
    with pytest.raises(ValueError, match="limited to 50 MB"):
        read_points(big)
    binary = tmp_path / "bin.csv"
    binary.write_bytes(b"x,y\n1,2\n\x00\x01\x02")
    with pytest.raises(ValueError, match="binary"):
        read_points(binary)
    with pytest.raises(ValueError, match="empty"):
        read_points(_file(tmp_path, "\n# nothing\n\n"))
    with pytest.raises(ValueError, match="no points after the header"):
        read_points(_file(tmp_path, "x,y\n# none\n"))


def test_rows_are_counted_while_read_and_the_reading_stops_at_the_limit(tmp_path):
    rows = "".join(f"{i},5;{-i},25\n" for i in range(11))
    path = _file(tmp_path, "x;y\n" + rows + "#" * 3_000_000 + "\x00")  # the tail is never reached
    with pytest.raises(ValueError, match="more than 10 points; this lab draws at most 10"):
        read_points(path, 10)
    assert read_points(_file(tmp_path, "x;y\n" + rows, "ok.csv"), 11).data.shape == (11, 2)


def test_many_malformed_lines_are_counted_and_three_shown(tmp_path):
    path = _file(tmp_path, "x,y\n" + "a,b\n" * 1000 + "1,2\n")
    with pytest.raises(ValueError) as err:
        read_points(path)
    msg = str(err.value)
    assert "1,000 malformed" in msg and "and 997 more" in msg and len(msg) < 500


def test_the_table_is_plain_data():
    table = PointsTable(np.zeros((1, 2)), ("x", "y"))
    assert table.classes is None and table.names == ("x", "y")


_PIECES = ["x1,x2,label\n", "x;y;label\n", "x\ty\n", "\n", "\r\n", ",", ";", "\t", " ", "#", "1", "-2,5", "0.5",
           "1e301", "1e999", "nan", "inf", "cat", "1_0", "１", "\ufeff", "1.000,5"]


@pytest.mark.timeout(60)
@given(st.lists(st.sampled_from(_PIECES), max_size=40).map("".join),
       st.sampled_from([None, LABELLED, PLANE, XY]))
@example(DECIMAL_COMMA, PLANE)
@example(FIVE_COLUMNS, LABELLED)
@example(ONE_CLASS, LABELLED)
@example(HUGE_VALUES, XY)
@example("x;y\n1,5;2\n3.5;4\n", None)
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_read_points_fuzz(text, columns):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "p.csv"
        path.write_bytes(text.encode("utf-8"))
        try:
            table = read_points(path, 50, columns=columns)
        except ValueError as exc:
            assert 0 < len(str(exc)) <= 1000
            return
    assert table.data.ndim == 2 and len(table.data) >= 1 and np.all(np.isfinite(table.data))
    if columns is not None:
        assert table.data.shape[1] == len(columns)
    if table.names is not None:
        assert len(table.names) == table.data.shape[1]
