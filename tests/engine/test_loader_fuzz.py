"""Fuzz tests of every loader a user can point at a file: points CSV, text, edge list, HTML folder.

Each loader may only raise its documented exceptions (ValueError and subclasses) with a
message of at most 1,000 characters, and must answer in bounded time (the timeout marks
are guards, not measurements). Also the shared quoting helpers those messages use.
"""

import io
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from smlengine import _base
from smlengine.datasets import crawl_html_folder, load_points, read_edge_list, read_text_file

FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
MAX_MESSAGE = 1000


def _check_message(exc: BaseException) -> None:
    assert isinstance(exc, ValueError), f"undocumented exception {type(exc).__name__}: {exc}"
    assert 0 < len(str(exc)) <= MAX_MESSAGE, f"message of {len(str(exc))} characters"


def _lines(pieces, max_size=40):
    """Text assembled from loader-relevant pieces, plus arbitrary characters."""
    return st.lists(st.one_of(st.sampled_from(pieces), st.text(max_size=6)), max_size=max_size).map("".join)


# Either structured-looking text (the interesting paths) or raw bytes (binary, bad UTF-8).
def _contents(pieces):
    return st.one_of(
        _lines(pieces).map(lambda s: s.encode("utf-8")),
        st.binary(max_size=200),
        st.tuples(st.sampled_from([b"", b"\xef\xbb\xbf", b"\xff\xfe"]), _lines(pieces)).map(
            lambda t: t[0] + t[1].encode("utf-8")
        ),
    )


def _write(folder: str, name: str, data: bytes) -> Path:
    path = Path(folder) / name
    path.write_bytes(data)
    return path


# ----------------------------------------------------------------------------- quoting


@given(st.text(max_size=3000), st.integers(min_value=2, max_value=200))
@FUZZ
def test_quote_text_is_bounded(text, limit):
    quoted = _base.quote_text(text, limit)
    assert len(quoted) <= limit + 2 + len("... (100,000 characters)")
    if len(text) <= limit and len(repr(text)) <= limit + 2:
        assert quoted == repr(text)


def test_quote_text_of_escapes_and_long_paths():
    quote_text, display_path = _base.quote_text, _base.display_path
    assert len(quote_text("\x00" * 10_000)) < 120
    assert quote_text("abc") == "'abc'"
    assert display_path("/" + "d/" * 1000 + "file.csv").endswith("d/d/file.csv")
    assert len(display_path("/" + "d/" * 1000 + "file.csv")) == 80


def test_line_errors_keep_three_and_count_the_rest():
    errors = _base.LineErrors()
    assert not errors
    for k in range(10):
        errors.add(f"line {k}: bad")
    msg = errors.message("f.csv")
    assert msg.startswith("f.csv: 10 malformed line(s):") and msg.endswith("... and 7 more")
    assert "line 2:" in msg and "line 3:" not in msg and len(errors) == 10


# ----------------------------------------------------------------------------- points CSV

_POINT_PIECES = [
    "x1,x2,label\n", "x1,x2,label,f(x),predicted\n", "label\n", "\n", "\r\n", ",", " ", "#",
    "1", "-2.5", "1e308", "1e999", "nan", "inf", "-1", "cat", "0x1", "1_0", "\ufeff", "\x00",
]


@pytest.mark.timeout(60)
@given(_contents(_POINT_PIECES))
@FUZZ
def test_load_points_fuzz(data):
    with tempfile.TemporaryDirectory() as folder:
        path = _write(folder, "points.csv", data)
        try:
            X, y = load_points(path)
        except Exception as exc:  # noqa: BLE001 - the point of the test
            _check_message(exc)
            return
    assert X.ndim == 2 and X.shape[0] == y.shape[0] >= 1 and X.shape[1] >= 1
    assert np.all(np.isfinite(X))
    if y.dtype.kind == "f":
        assert np.all(np.isfinite(y))


@pytest.mark.timeout(60)
@given(st.lists(st.tuples(st.floats(allow_nan=False, allow_infinity=False),
                          st.floats(allow_nan=False, allow_infinity=False), st.sampled_from([-1, 1])), min_size=1,
                max_size=20))
@FUZZ
def test_save_then_load_points_round_trip(rows):
    X = np.array([[a, b] for a, b, _ in rows])
    y = np.array([float(c) for _, _, c in rows])
    from smlengine.datasets import save_points

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "p.csv"
        save_points(path, X, y)
        X2, y2 = load_points(path)
    np.testing.assert_array_equal(X, X2)
    np.testing.assert_array_equal(y, y2)


# ----------------------------------------------------------------------------- text files

_TEXT_PIECES = ["To be, or not to be", "\n", "\r\n", " ", "é", "’", "\x01", "\x07", "\t", "\ufeff", "\x00", "日本"]


@pytest.mark.timeout(60)
@given(_contents(_TEXT_PIECES))
@FUZZ
def test_read_text_file_fuzz(data):
    with tempfile.TemporaryDirectory() as folder:
        path = _write(folder, "some text.txt", data)
        try:
            text = read_text_file(path)
        except Exception as exc:  # noqa: BLE001
            _check_message(exc)
            return
    assert text == data.decode("utf-8-sig") and text.strip()


# ----------------------------------------------------------------------------- edge lists

_EDGE_PIECES = ["0", "1", "17", "007", "9" * 25, "a", "home", "\t", ",", " ", "\n", "\r\n", "#", "\x00", "é",
                "%", '"', '"a b"', '""', " 1.5", " -2e3", "source,target\n", "FromNodeId\tToNodeId\n",
                "% sym unweighted\n", "% asym\n", "# Undirected graph\n", "\r", "\u2028", "\x0c"]


def _read_edges_or_message(path, chunk=None):
    """The graph read from ``path`` (with reads of ``chunk`` characters), or the error's type and message."""
    from smlengine.datasets import _graph

    saved = _graph._CHUNK
    if chunk is not None:
        _graph._CHUNK = chunk
    try:
        a, names, info = read_edge_list(path, return_info=True)
    except Exception as exc:  # noqa: BLE001
        _check_message(exc)
        return type(exc).__name__, str(exc)
    finally:
        _graph._CHUNK = saved
    return a, names, info


@pytest.mark.timeout(60)
@given(_contents(_EDGE_PIECES))
@example(b"0000source,target\n\n")  # a batch of blank lines names no separator of its own
@FUZZ
def test_read_edge_list_fuzz(data):
    with tempfile.TemporaryDirectory() as folder:
        path = _write(folder, "edges.tsv", data)
        got = _read_edges_or_message(path)
        # reading in tiny pieces (line breaks, quotes and UTF-8 split anywhere) changes nothing
        again = _read_edges_or_message(path, chunk=3)
    if isinstance(got[0], str):
        assert again[0] == got[0]
        # a file both binary and not UTF-8 is refused for whichever fault is read first
        if not any(w in m for w in ("binary data", "UTF-8") for m in (got[1], again[1])):
            assert again[1] == got[1]
        return
    a, names, info = got
    assert again[1] == names and (again[0] != a).nnz == 0 and again[2] == info
    n = len(names)
    assert a.shape == (n, n) and len(set(names)) == n >= 1
    lines = data.count(b"\n") + data.count(b"\r") + data.count(b"\x0c") + data.count("\u2028".encode()) + 1
    assert 1 <= a.nnz <= (2 if info.undirected else 1) * lines
    assert set(np.unique(a.data)) <= {1.0}
    assert info.separators and set(info.separators) <= {"whitespace", "TAB", "comma"}


# Mostly plain integer links (what read_edge_list reads with numpy), with now and then a
# piece that must send the rest of the file to the line-by-line parser.
_ID = st.one_of(st.integers(0, 60), st.integers(0, 10**18 - 1), st.integers(10**18, 10**20)).map(str)
_PLAIN_LINE = st.tuples(st.sampled_from(["", " ", "\t"]), _ID, st.sampled_from([" ", "\t", "  ", " \t"]), _ID,
                        st.sampled_from(["", " ", "\t"]), st.sampled_from(["\n", "\r\n", "\r"])).map("".join)
_ODD_PIECES = ["\n", "\r", " ", "\t", "007", "-1", "+2", "1.5", "a", ",", '"', "# c\n", "% sym\n", "% asym 1\n",
               "\x0c", "\x0b", "\x1f", "\x85", "\u2028", "\u00a0", "\u00e9", "\u0661", "\ufeff", "source target\n"]


@pytest.mark.timeout(60)
@given(st.lists(st.one_of(_PLAIN_LINE, _PLAIN_LINE, _PLAIN_LINE, st.sampled_from(_ODD_PIECES)), min_size=1,
                max_size=40).map("".join),
       st.sampled_from([None, 1, 3, 16]))
@example("1 2\r\n3 4\r", 3)
@example("# c\n1 2\n3 4 5\n", None)
@example("1 2 3 4\n", None)  # a line of two links' ids
@example("007 1\n7 x\n", 1)  # '007' and '7' are two names once a name is not a number
@FUZZ
def test_integer_links_read_with_numpy_as_line_by_line(text, chunk):
    from smlengine.datasets import _graph

    with tempfile.TemporaryDirectory() as folder:
        path = _write(folder, "edges.txt", text.encode("utf-8"))
        saved = _graph._CHUNK
        _graph._CHUNK = chunk or saved
        try:
            results = []
            for integers_first in (True, False):
                try:
                    results.append(_graph._read_edges(path, return_info=True, integers_first=integers_first))
                except ValueError as exc:
                    _check_message(exc)
                    results.append(("ValueError", str(exc)))
        finally:
            _graph._CHUNK = saved
    got, expected = results
    if isinstance(got[0], str) or isinstance(expected[0], str):
        assert got == expected
        return
    assert got[1] == expected[1] and got[2] == expected[2]
    for part in ("indptr", "indices", "data"):
        np.testing.assert_array_equal(getattr(got[0], part), getattr(expected[0], part))


def _edge_file(edges, kind):
    """``edges`` (pairs of names) as the text of one kind of edge-list file."""
    def quoted(v):
        return '"' + v.replace('"', '""') + '"' if (" " in v or '"' in v or "," in v) else v

    if kind == "whitespace":
        return "".join(f"{quoted(s)}  {quoted(t)}\n" for s, t in edges)
    if kind == "TAB":
        return "".join(f"{s}\t{t}\n" for s, t in edges)
    if kind == "CSV":
        return "source,target\r\n" + "".join(f"{quoted(s)},{quoted(t)}\r\n" for s, t in edges)
    if kind == "SNAP":
        return "# Directed graph: x.txt\n# FromNodeId\tToNodeId\n" + "".join(f"{s}\t{t}\n" for s, t in edges)
    return "% asym unweighted\n% 3 3 3\n" + "".join(f"{quoted(s)} {quoted(t)} 1 1234\n" for s, t in edges)


_NAME = st.one_of(st.integers(0, 40).map(str), st.sampled_from(["home", "about us", 'say "hi"', "a,b", "é"]))


@pytest.mark.timeout(60)
@given(st.lists(st.tuples(_NAME, _NAME), min_size=1, max_size=25))
@FUZZ
def test_every_edge_list_format_reads_the_same_graph(edges):
    # KONECT files number their nodes from 1: shift integer ids by one there
    shift = all(s.isdigit() and t.isdigit() for s, t in edges)
    # a first line of two different words over numbered links is a header (documented rule)
    (s0, t0), rest = edges[0], edges[1:]
    assume(not (rest and s0 != t0 and not s0.isdigit() and not t0.isdigit()
                and all(s.isdigit() and t.isdigit() for s, t in rest)))
    graphs = {}
    for kind in ("whitespace", "TAB", "CSV", "SNAP", "KONECT"):
        rows = edges
        if kind == "KONECT" and shift:
            rows = [(str(int(s) + 1), str(int(t) + 1)) for s, t in edges]
        a, names = read_edge_list(io.StringIO(_edge_file(rows, kind)))
        if kind == "KONECT" and shift:
            names = [str(int(v) - 1) for v in names]
        graphs[kind] = {(names[i], names[j]) for i, j in zip(*a.nonzero())}
    canonical = {(s.lstrip("0") or "0", t.lstrip("0") or "0") if shift else (s, t) for s, t in edges}
    for kind, links in graphs.items():
        assert links == canonical, kind


@pytest.mark.timeout(60)
@given(st.lists(st.tuples(st.integers(0, 10**40), st.integers(0, 10**40)), min_size=1, max_size=30))
@FUZZ
def test_integer_edge_lists_keep_every_link(edges):
    text = "".join(f"{s}\t{t}\n" for s, t in edges)
    a, names = read_edge_list(io.StringIO(text))
    ids = [int(v) for v in names]
    assert ids == sorted(ids) and len(names) <= max(2 * len(edges), max(max(e) for e in edges) + 1)
    index = {v: i for i, v in enumerate(ids)}
    got = {(ids[i], ids[j]) for i, j in zip(*a.nonzero())}
    assert got == set(edges) and all(s in index and t in index for s, t in edges)


# ----------------------------------------------------------------------------- HTML folders

_HTML_PIECES = [
    "<a ", "<a href=", "<A HREF='", "href=", '"', "'", ">", "<", "/>", "a.html", "sub/b.html", "../", "/",
    "#x", "?q=1", "http://[::1", "https://example.org/", "<!--", "-->", "<script>", "</script>", "<style>",
    "<title>", "</title>", "&amp;", "&#", "\x00", "é", " ", "\n", "index.html", "%2e%2e/",
]

_PAGE_NAMES = ["index.html", "a.html", "sub/b.html", "sub/deeper/c.htm", "notes.txt"]


@pytest.mark.timeout(120)
@given(st.dictionaries(st.sampled_from(_PAGE_NAMES), _contents(_HTML_PIECES), min_size=1, max_size=4))
@FUZZ
def test_crawl_html_folder_fuzz(pages):
    with tempfile.TemporaryDirectory() as folder:
        for name, data in pages.items():
            path = Path(folder) / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        html_pages = {n for n in pages if n.endswith((".html", ".htm"))}
        try:
            a, names, titles, notes = crawl_html_folder(folder, return_notes=True)
        except Exception as exc:  # noqa: BLE001
            _check_message(exc)
            assert not html_pages  # the only documented failure for an existing folder
            return
    n = len(names)
    assert set(names) == html_pages and a.shape == (n, n) and len(titles) == n
    assert a.diagonal().sum() == 0 and notes == []
    assert all(isinstance(t, str) and t for t in titles)


# ----------------------------------------------------------------------------- large files and header bombs
# Files up to the documented size limit, built to be as costly as a legal size allows. Each
# input is read in a child process that reports its own CPU time and peak memory: a bound
# exceeded (10 s of CPU, 1 GB) fails the test, whatever else the machine is doing.

import bounded_child  # noqa: E402 - the shared child-process runner beside the tests

POINTS_READERS = {
    "load_points": ("smlengine.datasets.load_points", "x1,x2,label\n"),
    "load_two_class_points": ("smlengine.datasets.load_two_class_points", "x1,x2,label\n"),
    "load_xy_points": ("smlengine.datasets._regression.load_xy_points", "x,y\n"),
}


def _bomb(kind: str, header: str, megabytes: float) -> bytes:
    """``megabytes`` of a file of the given kind (a header first where the kind has one)."""
    size = int(megabytes * 2**20)
    width = header.count(",") + 1
    unit = {
        "valid points": ",".join(["0.123456789012345"] * (width - 1) + ["1"]) + "\n",
        "blank lines": "\n",
        "comment lines": "#\n",
        "malformed lines": "a,b,c\n",
        "mixed line ends": "1,2,1\r\n3,4,-1\r5,6,1\n",
        "wide rows": ",".join(["0"] * 6000) + "\n",
    }.get(kind)
    if kind == "one long line":
        return b"x" * size
    if kind == "wide header":  # 6,000 columns a line: few lines, many coordinates
        header = ",".join(f"x{i}" for i in range(5999)) + ",label\n"
        unit = ",".join(["0"] * 6000) + "\n"
    body = unit.encode() * (size // len(unit))
    return header.encode() + body


BOMB_KINDS = ["valid points", "blank lines", "comment lines", "malformed lines", "mixed line ends", "wide rows",
              "one long line", "wide header"]


@pytest.mark.timeout(600)
@pytest.mark.slow  # left out of `dev.py test --quick`
@given(st.sampled_from(sorted(POINTS_READERS)), st.sampled_from(BOMB_KINDS), st.sampled_from([4.0, 49.5]))
@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
def test_large_legal_files_are_read_in_bounded_time_and_memory(reader, kind, megabytes):
    call, header = POINTS_READERS[reader]
    limit = 50  # MB: every points reader is read_points, and so has its size limit
    megabytes = min(megabytes, limit - 0.5)  # within the reader's documented size limit
    with tempfile.TemporaryDirectory() as folder:
        path = _write(folder, "big.csv", _bomb(kind, header, megabytes))
        report = bounded_child.run_bounded(call, path)
    bounded_child.assert_bounded(report, f"{reader} on {megabytes} MB of {kind}")
    if report["outcome"] != "ok":
        assert report["outcome"] == "ValueError", f"{reader}: {report['outcome']}: {report['message'][:300]}"
        assert 0 < len(report["message"]) <= MAX_MESSAGE


@pytest.mark.timeout(300)
@pytest.mark.parametrize("reader", sorted(POINTS_READERS))
def test_the_largest_file_a_reader_accepts_stays_in_bounds(reader):
    """The worst legal case: a file just under the size limit, points up to the count limit."""
    call, header = POINTS_READERS[reader]
    limit = 50
    with tempfile.TemporaryDirectory() as folder:
        path = _write(folder, "big.csv", _bomb("valid points", header, limit - 0.5))
        report = bounded_child.run_bounded(call, path)
    bounded_child.assert_bounded(report, reader)
    assert report["outcome"] == "ValueError" and "points" in report["message"], report


def _six_digit_links(n: int, seed: int, high: int = 1_000_000) -> bytes:
    """``n`` lines ``source<TAB>target`` of random six-digit ids below ``high``."""
    ids = np.random.default_rng(seed).integers(100_000, high, size=(n, 2))
    lines = np.empty((n, 14), dtype=np.uint8)
    lines[:, 6], lines[:, 13] = ord("\t"), ord("\n")
    for k in range(6):  # digits from the last
        lines[:, 5 - k] = ids[:, 0] // 10**k % 10 + ord("0")
        lines[:, 12 - k] = ids[:, 1] // 10**k % 10 + ord("0")
    return lines.tobytes()


def _largest_edge_list(kind: str) -> bytes:
    """An edge list at the limits: the most links allowed, or a file just under the byte limit."""
    from smlengine.datasets import _graph

    if kind == "refused at the link limit":  # about 64 MB of links, refused at the link limit
        return b"10\t11\n" * ((_graph.MAX_EDGE_LIST_BYTES - 2**20) // 6)
    if kind == "a name on the last line":  # (fewer ids: the line-by-line parser numbers them as names)
        return b"# SNAP\n" + _six_digit_links(_graph.MAX_EDGE_LIST_LINKS - 1, 5, 200_000) + b"home\tabout\n"
    return b"# a SNAP-style comment\n" + _six_digit_links(_graph.MAX_EDGE_LIST_LINKS, 5)  # a million ids


@pytest.mark.timeout(300)
@pytest.mark.parametrize("kind", ["the most links", "a name on the last line", "refused at the link limit"])
def test_the_largest_edge_lists_stay_in_bounds(kind):
    """Integer links up to the link limit (read with numpy, and handed to the line-by-line
    parser at the last line), and a file of links just under the byte limit."""
    with tempfile.TemporaryDirectory() as folder:
        path = _write(folder, "edges.tsv", _largest_edge_list(kind))
        report = bounded_child.run_bounded("smlengine.datasets.read_edge_list", path)
    bounded_child.assert_bounded(report, f"read_edge_list, {kind}")
    if kind == "refused at the link limit":
        assert report["outcome"] == "ValueError" and "more than 1,000,000 links" in report["message"], report
    else:
        assert report["outcome"] == "ok", report
