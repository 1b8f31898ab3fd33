"""Points files are read in blocks and counted while read: a file with more points than the
limit is refused at the limit, without reading (or even looking at) the rest."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from smlengine.datasets import _lines, load_points, load_two_class_points
from smlengine.datasets._regression import load_xy_points

TAIL = b"\x00" * 1000  # binary data: reading this far would give a different message


def _points_file(path, n, header=b"x1,x2,label\n", tail=b"", pad=0):
    rows = b"".join(b"%d.5,%d.25,%d\n" % (i, -i, 1 if i % 2 else -1) for i in range(n))
    path.write_bytes(header + rows + b"\n" * pad + tail)
    return path


def test_two_class_points_stop_at_the_limit(tmp_path):
    path = _points_file(tmp_path / "p.csv", 101, tail=b"#" * 3_000_000 + TAIL)
    with pytest.raises(ValueError, match=r"more than 100 points; this lab draws at most 100"):
        load_two_class_points(path, 100)
    X, y = load_two_class_points(_points_file(tmp_path / "q.csv", 100), 100)
    assert X.shape == (100, 2) and set(np.unique(y)) == {-1.0, 1.0}


def test_xy_points_stop_at_the_limit(tmp_path):
    path = _points_file(tmp_path / "p.csv", 11, header=b"x,y,label\n", tail=b"#" * 3_000_000 + TAIL)
    with pytest.raises(ValueError, match=r"more than 10 points"):
        load_xy_points(path, 10)
    x, y = load_xy_points(_points_file(tmp_path / "q.csv", 10, header=b"x,y,label\n"), 10)
    assert x.shape == (10, 1) and y.shape == (10,)


def test_a_file_of_blank_lines_is_refused_by_its_line_count(tmp_path):
    path = _points_file(tmp_path / "p.csv", 3, pad=5000)
    with pytest.raises(ValueError, match=r"more than 1,040 lines; this lab reads at most 20 points"):
        load_points(path, 20)
    assert len(load_points(path, 3000)[0]) == 3


def test_a_line_longer_than_the_limit_is_refused_before_splitting(tmp_path):
    path = tmp_path / "wide.csv"
    path.write_bytes(b",".join([b"x%d" % i for i in range(200_000)]) + b",label\n1,2,3\n")
    with pytest.raises(ValueError, match=r"line 1: longer than 65,536 characters"):
        load_points(path)


@given(st.lists(st.tuples(st.integers(-50, 50), st.sampled_from(["\n", "\r\n", "\r"])), min_size=1, max_size=60),
       st.integers(1, 9), st.booleans())
@settings(max_examples=60, deadline=None)
def test_blocks_split_anywhere_read_the_same_lines(tmp_path_factory, rows, block, bom):
    text = "x1,x2,label\n" + "".join(f"{v},{-v},{'é' if v % 2 else 'b'}{end}" for v, end in rows)
    data = ("\ufeff" if bom else "").encode() + text.encode("utf-8")
    path = tmp_path_factory.mktemp("b") / "p.csv"
    path.write_bytes(data)
    whole = list(_lines.iter_text_lines(path, max_bytes=10**6))
    saved = _lines.BLOCK_BYTES
    _lines.BLOCK_BYTES = block
    try:
        pieces = list(_lines.iter_text_lines(path, max_bytes=10**6))
    finally:
        _lines.BLOCK_BYTES = saved
    assert pieces == whole == list(enumerate(text.splitlines(), start=1))
