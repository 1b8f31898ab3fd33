"""Graph data: shipped Python-docs graph, edge lists, HTML crawl, small chains, karate."""

import inspect
import io
import sys

import numpy as np
import pytest

from smlengine import datasets
from smlengine.datasets import (
    crawl_html_folder,
    karate_club,
    load_graph,
    read_edge_list,
    scale_free_digraph,
    textbook_chain,
)


def test_python_docs_graph_shape_and_titles():
    a, names, titles = load_graph("python-docs", return_titles=True)
    assert a.shape == (530, 530) and a.format == "csr"
    assert 14_000 < a.nnz < 17_000
    assert names[0] == "index.html" and len(set(names)) == 530
    assert len(titles) == 530 and all(titles)
    assert titles[names.index("library/os.html")].startswith("os")
    assert a.diagonal().sum() == 0 and set(np.unique(a.data)) == {1.0}
    a2, names2 = load_graph()
    assert (a2 != a).nnz == 0 and names2 == names
    with pytest.raises(ValueError, match="unknown graph"):
        load_graph("nope")


def test_karate_club_equals_networkx():
    nx = pytest.importorskip("networkx")
    a, names = karate_club()
    assert a.shape == (34, 34) and a.nnz == 2 * 78 and (a != a.T).nnz == 0
    ours = {tuple(sorted(map(int, e))) for e in zip(*a.nonzero())}
    theirs = {tuple(sorted(e)) for e in nx.karate_club_graph().edges()}
    assert ours == theirs and len(ours) == 78
    assert names == [str(i) for i in range(34)]


def test_lazy_names_resolve():
    for name in ("load_graph", "read_edge_list", "crawl_html_folder", "textbook_chain", "karate_club",
                 "scale_free_digraph"):
        assert callable(getattr(datasets, name))


def test_textbook_chains_are_stochastic():
    for name in ("two-state", "reducible", "periodic", "periodic-self-loops"):
        p, names = textbook_chain(name)
        assert p.shape == (len(names), len(names))
        np.testing.assert_allclose(p.sum(axis=1), 1.0)
    with pytest.raises(ValueError, match="unknown chain"):
        textbook_chain("x")


def test_edge_list_names_comments_blanks_duplicates_self_loops(tmp_path):
    path = tmp_path / "g.tsv"
    path.write_text("# my graph\n\nhome\tabout\nabout, home\nhome\tabout\n  # indented comment\nblog,blog\nc#\thome\n",
                    encoding="utf-8")
    a, names = read_edge_list(path)
    assert names == ["home", "about", "blog", "c#"]
    dense = a.toarray()
    assert dense[0, 1] == 1 and dense[1, 0] == 1  # duplicate collapsed to one link
    assert dense[2, 2] == 1  # self-loop kept
    assert dense[3, 0] == 1 and a.nnz == 4


def test_edge_list_integers_and_file_objects():
    a, names = read_edge_list(io.StringIO("0,3\n3\t1\n"))
    assert names == ["0", "1", "2", "3"]  # node 2 is an isolated page
    assert a.toarray()[0, 3] == 1 and a.toarray()[3, 1] == 1 and a.nnz == 2


def test_malformed_lines_are_reported_with_line_numbers(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("a,b\n# fine\na,b,c\n\nlonely\nx,\nb,a\n", encoding="utf-8")
    with pytest.raises(ValueError) as err:
        read_edge_list(path)
    msg = str(err.value)
    assert "3 malformed" in msg
    for n in (3, 5, 6):
        assert f"line {n}:" in msg
    assert "line 1:" not in msg and "line 7:" not in msg


def test_unknown_names_are_reported(tmp_path):
    path = tmp_path / "g.txt"
    path.write_text("a\tb\nb\tzzz\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"line 2: unknown node 'zzz'"):
        read_edge_list(path, nodes=["a", "b", "c"])
    with path.open(encoding="utf-8") as fh:
        a, names = read_edge_list(fh, nodes=["a", "b", "c", "zzz"])
    assert names == ["a", "b", "c", "zzz"] and a.shape == (4, 4)


def test_edge_list_empty_or_missing(tmp_path):
    path = tmp_path / "empty.txt"
    path.write_text("# nothing\n\n", encoding="utf-8")
    with pytest.raises(ValueError, match="no links"):
        read_edge_list(path)
    with pytest.raises(FileNotFoundError):
        read_edge_list(tmp_path / "missing.txt")


def test_crawl_html_folder(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "index.html").write_text(
        "<html><head><title>Home — Site docs</title></head><body>"
        '<a href="sub/a.html#x">A</a><a href="sub/a.html">A again</a><a href="#top">top</a>'
        '<a href="index.html">me</a><a href="https://example.org/b.html">ext</a>'
        '<a href="pic.png">img</a><a href="gone.html">missing</a><a href="sub/">folder</a></body></html>',
        encoding="utf-8",
    )
    (tmp_path / "sub" / "a.html").write_text(
        '<title>A &amp; B — Site docs</title><a href="../index.html">up</a><a href="/sub/b.html?q=1">b</a>',
        encoding="utf-8"
    )
    (tmp_path / "sub" / "b.html").write_text("<title>B — Site docs</title>", encoding="utf-8")
    (tmp_path / "sub" / "index.html").write_text("<title>Sub — Site docs</title>", encoding="utf-8")
    (tmp_path / "orphan.html").write_text("<title>Orphan — Site docs</title><a href='index.html'>home</a>",
                                          encoding="utf-8")
    (tmp_path / "pic.png").write_bytes(b"\x89PNG")
    a, names, titles = crawl_html_folder(tmp_path)
    assert names == ["index.html", "sub/a.html", "sub/index.html", "sub/b.html", "orphan.html"]
    assert titles == ["Home", "A & B", "Sub", "B", "Orphan"]
    edges = {(names[i], names[j]) for i, j in zip(*a.nonzero())}
    assert edges == {
        ("index.html", "sub/a.html"),
        ("index.html", "sub/index.html"),
        ("sub/a.html", "index.html"),
        ("sub/a.html", "sub/b.html"),
        ("orphan.html", "index.html"),
    }
    with pytest.raises(FileNotFoundError):
        crawl_html_folder(tmp_path / "nope")


def test_scale_free_validation():
    with pytest.raises(ValueError, match="dangling"):
        scale_free_digraph(100, dangling=1.5)
    with pytest.raises(TypeError):
        scale_free_digraph(10.5)


# ----------------------------------------------------------------------------- hardening


@pytest.mark.timeout(20)
@pytest.mark.parametrize(
    "text, names",
    [
        ("0\t1000000000\n", ["0", "1000000000"]),  # was a MemoryError (a name per integer)
        ("0\t10000000\n", ["0", "10000000"]),  # was 8 s and 1 GB
        ("5\t" + "9" * 31 + "\n" + "0042\t5\n", ["5", "42", "9" * 31]),  # beyond int64; never returned
        ("10\t2\n2\t10\n", ["2", "10"]),  # sparse ids: numeric, not text, order
    ],
)
def test_sparse_integer_ids_map_only_the_ids_that_occur(text, names):
    a, got = read_edge_list(io.StringIO(text))
    assert got == names and a.shape == (len(names), len(names))


def test_dense_integer_ids_keep_their_numbers():
    a, names = read_edge_list(io.StringIO("1,2\n2,3\n3,1\n"))  # 1-based ids: 0 is an isolated page
    assert names == ["0", "1", "2", "3"]
    assert a.toarray()[1, 2] == 1 and a.toarray()[3, 1] == 1 and a.getnnz(axis=1)[0] == 0


def test_edge_list_messages_are_short(tmp_path):
    path = tmp_path / "bad.tsv"
    path.write_text("a\tb\n" + "x" * 2_000_000 + "\n" + "a,b,c\n" * 500, encoding="utf-8")
    with pytest.raises(ValueError) as err:
        read_edge_list(path)
    msg = str(err.value)
    assert "501 malformed" in msg and "line 2:" in msg and "2,000,000 characters" in msg
    assert "and 498 more" in msg and len(msg) < 600


def test_edge_list_folder_binary_and_latin1(tmp_path):
    with pytest.raises(ValueError, match="is a folder, not an edge list file"):
        read_edge_list(tmp_path)
    binary = tmp_path / "graph.bin"
    binary.write_bytes(b"\x00\x01\x02\xff\xfe0\t1\n")
    with pytest.raises(ValueError, match=r"is not a text file \(binary data\)"):
        read_edge_list(binary)
    latin = tmp_path / "latin.tsv"
    latin.write_bytes("caf\xe9\tcr\xe8me\n".encode("latin-1"))
    with pytest.raises(ValueError, match="is not UTF-8 text"):
        read_edge_list(latin)


def _page(path, body):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(body, encoding="utf-8")


@pytest.mark.timeout(20)
def test_crawl_survives_broken_tags(tmp_path):
    # '<a ' * 20000 (59 KiB) took 45 s with html.parser (quadratic); the scan is linear.
    _page(tmp_path / "index.html", "<a " * 20000)
    _page(tmp_path / "b.html", '<a title="x>y" href=index.html>' + "<a href='" * 20000 + '<!-- <a href="b.html">')
    a, names, _ = crawl_html_folder(tmp_path)
    assert names == ["index.html", "b.html"]
    assert {(names[i], names[j]) for i, j in zip(*a.nonzero())} == {("b.html", "index.html")}


def test_crawl_skips_a_malformed_link_only(tmp_path):
    # urllib raises ValueError on 'http://[::1'; the crawl skips that link and goes on.
    _page(tmp_path / "index.html", '<a href="http://[::1">bad</a><a href="b.html">b</a>')
    _page(tmp_path / "b.html", "<title>B</title>")
    a, names, titles = crawl_html_folder(tmp_path)
    assert names == ["index.html", "b.html"] and a.toarray()[0, 1] == 1 and titles[1] == "B"


def test_crawl_ignores_links_in_comments_scripts_and_styles(tmp_path):
    _page(
        tmp_path / "index.html",
        '<!-- <a href="c.html"> --><script>s = \'<a href="c.html">\'</script><style>a{}</style>'
        '<A HREF="b.html">b</A><a data-href="c.html" href=\'d.html\'>d</a><abbr href="c.html">',
    )
    for p in ("b.html", "c.html", "d.html"):
        _page(tmp_path / p, "")
    a, names, _ = crawl_html_folder(tmp_path)
    assert {names[j] for j in a[0].indices} == {"b.html", "d.html"}


def test_crawl_reads_only_the_beginning_of_huge_pages(tmp_path, monkeypatch):
    from smlengine.datasets import _graph

    monkeypatch.setattr(_graph, "MAX_PAGE_BYTES", 1000)
    _page(tmp_path / "index.html", '<a href="b.html">b</a>' + "x" * 5000 + '<a href="c.html">c</a>')
    _page(tmp_path / "b.html", "")
    _page(tmp_path / "c.html", "")
    a, names, _, notes = crawl_html_folder(tmp_path, return_notes=True)
    assert {names[j] for j in a[0].indices} == {"b.html"}
    assert len(notes) == 1 and "'index.html' is larger than" in notes[0]
    assert crawl_html_folder(tmp_path)[1] == names  # without notes: the three-tuple


def test_crawl_caps_the_number_of_pages(tmp_path, monkeypatch):
    from smlengine.datasets import _graph

    monkeypatch.setattr(_graph, "MAX_PAGES", 5)
    for k in range(8):
        _page(tmp_path / f"p{k}.html", f'<a href="p{(k + 1) % 8}.html">next</a>')
    a, names, _, notes = crawl_html_folder(tmp_path, return_notes=True)
    assert names == [f"p{k}.html" for k in range(5)]  # the first five in path order
    assert a.nnz == 4  # p4 -> p5 points outside the crawl
    assert notes == ["the folder has more than 5 HTML pages; only the first 5 were crawled"]


def test_crawl_of_a_very_deep_folder(tmp_path):
    # Path.rglob recursed once per folder level: 1,100 levels raised RecursionError. The
    # same happens with 300 levels under a lowered recursion limit, which keeps the tree
    # shallow enough for pytest's own (recursive) clean-up of tmp_path.
    deep = tmp_path
    for _ in range(300):
        deep = deep / "d"
        deep.mkdir()
    _page(deep / "leaf.html", '<a href="/index.html">home</a>')
    _page(tmp_path / "index.html", "<title>Home</title>")
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(len(inspect.stack(0)) + 150)
    try:
        a, names, _ = crawl_html_folder(tmp_path)
    finally:
        sys.setrecursionlimit(limit)
    assert names[0] == "index.html" and names[1] == "d/" * 300 + "leaf.html"
    assert a.toarray()[1, 0] == 1


def test_crawl_of_a_file_or_an_empty_folder(tmp_path):
    _page(tmp_path / "index.html", "")
    with pytest.raises(ValueError, match="is a file, not a folder"):
        crawl_html_folder(tmp_path / "index.html")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match="no .html files"):
        crawl_html_folder(tmp_path / "empty")
    with pytest.raises(ValueError, match="start page 'x' is not an HTML file"):
        crawl_html_folder(tmp_path, start="x")


def test_scale_free_size_limit():
    with pytest.raises(ValueError, match="n must be <= 50000000"):
        scale_free_digraph(2**40)


# ----------------------------------------------------------------------------- edge-list formats

# one directed graph on pages 0..7 (page 7 is dangling), written the ways people have it
_LINKS = [(0, 1), (0, 2), (1, 2), (2, 0), (3, 2), (4, 3), (4, 5), (5, 4), (5, 6), (6, 0), (6, 7), (1, 1)]


def _formats():
    ws = "".join(f"{s}   {t}\n" if k % 2 else f" {s} {t} \n" for k, (s, t) in enumerate(_LINKS))
    tab = "".join(f"{s}\t{t}\n" for s, t in _LINKS)
    csv_text = "source,target\n" + "".join(f"{s}, {t}\r\n" for s, t in _LINKS)
    snap = ("# Directed graph (each unordered pair of nodes is saved once): web-Tiny.txt\n"
            "# A tiny web graph\n# Nodes: 8 Edges: 12\n# FromNodeId\tToNodeId\n"
            + "".join(f"{s}\t{t}\n" for s, t in _LINKS))
    # KONECT numbers nodes from 1 and may add weight and timestamp columns
    konect = ("% asym unweighted\n% 12 8 8\n"
              + "".join(f"{s + 1} {t + 1} 1 {1_200_000_000 + 17 * k}\n" for k, (s, t) in enumerate(_LINKS)))
    return {"whitespace": ws, "TAB": tab, "CSV with header": csv_text, "SNAP": snap, "KONECT": konect}


def test_the_same_graph_from_every_format_gives_identical_ranks(tmp_path):
    from smlengine.markov import pagerank

    nx = pytest.importorskip("networkx")
    expected_info = {
        "whitespace": ("whitespace", "plain", None, 0),
        "TAB": ("TAB", "plain", None, 0),
        "CSV with header": ("comma", "plain", ("source", "target"), 0),
        "SNAP": ("TAB", "SNAP", None, 0),
        "KONECT": ("whitespace", "KONECT", None, len(_LINKS)),
    }
    ranks = {}
    for kind, text in _formats().items():
        path = tmp_path / f"{kind}.txt"
        path.write_text(text, encoding="utf-8")
        a, names, info = read_edge_list(path, return_info=True)
        assert (info.separator, info.style, info.header, info.extra_columns) == expected_info[kind], kind
        assert not info.undirected and info.lines == len(_LINKS)
        first = 1 if kind == "KONECT" else 0
        assert names == [str(i + first) for i in range(8)], kind
        assert {(int(names[i]) - first, int(names[j]) - first) for i, j in zip(*a.nonzero())} == set(_LINKS)
        ranks[kind] = pagerank(a, teleport=0.15, tol=1e-12)
    for kind, r in ranks.items():
        np.testing.assert_array_equal(r, ranks["TAB"], err_msg=kind)
    g = nx.DiGraph(_LINKS)
    ref = nx.pagerank(g, alpha=0.85, tol=1e-14, max_iter=1000)
    np.testing.assert_allclose(ranks["TAB"], [ref[i] for i in range(8)], atol=1e-9)


def test_space_separated_names_and_the_separator_found():
    text = "about news\nnews  about\nabout\t home\nhome,about\n"
    a, names, info = read_edge_list(io.StringIO(text), return_info=True)
    assert names == ["about", "news", "home"] and a.nnz == 4
    assert info.separators == ("whitespace", "TAB", "comma") and info.separator == "whitespace and TAB and comma"
    assert "separator: whitespace and TAB and comma" in info.summary()


def test_quoted_ids_with_spaces():
    csv_text = 'from,to\n"New York","Los Angeles"\n"Los Angeles", "San ""Frisco"""\nBoston,"New York"\n'
    a, names, info = read_edge_list(io.StringIO(csv_text), return_info=True)
    assert names == ["New York", "Los Angeles", 'San "Frisco"', "Boston"] and info.header == ("from", "to")
    assert a.toarray()[3, 0] == 1 and a.nnz == 3
    a, names = read_edge_list(io.StringIO('"Main Page"  "Talk page"\n"Talk page" Help\n'))
    assert names == ["Main Page", "Talk page", "Help"] and a.nnz == 2
    a, names = read_edge_list(io.StringIO("Main Page\tTalk page\n"))  # TAB: spaces belong to the ids
    assert names == ["Main Page", "Talk page"]
    with pytest.raises(ValueError, match=r"(?s)2 malformed.*line 1:.*line 2:"):
        read_edge_list(io.StringIO('"New York,Boston\na"b c\nx y\n'))


def test_header_lines():
    # column names over named pages, and any two words over numbered pages
    a, names, info = read_edge_list(io.StringIO("FromNodeId ToNodeId\n0 1\n1 2\n"), return_info=True)
    assert names == ["0", "1", "2"] and info.header == ("FromNodeId", "ToNodeId")
    a, names, info = read_edge_list(io.StringIO("citing paper\tcited paper\n10\t11\n11\t12\n"), return_info=True)
    assert names == ["10", "11", "12"] and info.header == ("citing paper", "cited paper")
    a, names, info = read_edge_list(io.StringIO("Source,Target\nhome,about\n"), return_info=True)
    assert names == ["home", "about"] and info.header == ("Source", "Target") and a.nnz == 1
    # a first line of names that occur again is a link, not a header
    a, names, info = read_edge_list(io.StringIO("home about\nabout 1\n"), return_info=True)
    assert names == ["home", "about", "1"] and info.header is None and a.nnz == 2
    # with fixed nodes, a first line whose names are nodes is a link
    a, names = read_edge_list(io.StringIO("source,target\n"), nodes=["source", "target"])
    assert a.nnz == 1


def test_extra_columns_numbers_are_ignored_others_are_malformed():
    a, names, info = read_edge_list(io.StringIO("a b 0.5\nb c 2 1e9\nc a -1\n"), return_info=True)
    assert a.nnz == 3 and info.extra_columns == 3 and "extra columns" in info.summary()
    with pytest.raises(ValueError, match=r"(?s)1 malformed.*line 2: expected 'source target'"):
        read_edge_list(io.StringIO("a b 0.5\nb c heavy\n"))


def test_undirected_konect_and_snap_files_read_each_link_both_ways():
    zachary = "% sym unweighted\n% 3 4 4\n1 2\n1 3\n3 4\n"
    a, names, info = read_edge_list(io.StringIO(zachary), return_info=True)
    assert names == ["1", "2", "3", "4"] and info.undirected and "both ways" in info.summary()
    assert (a != a.T).nnz == 0 and a.nnz == 6
    snap = "# Undirected graph (each unordered pair of nodes is saved once): ca-Tiny.txt\n0\t1\n1\t2\n2\t1\n"
    a, names, info = read_edge_list(io.StringIO(snap), return_info=True)
    assert info.style == "SNAP" and info.undirected and (a != a.T).nnz == 0 and a.nnz == 4
    # a '% ...' line that is not KONECT's first line is only a comment
    a, names, info = read_edge_list(io.StringIO("# mine\n% sym\n1 2\n"), return_info=True)
    assert not info.undirected and info.style == "plain" and info.comments == 2 and a.nnz == 1


@pytest.mark.parametrize("chunk", [1, 2, 3, 5, 7, 64])
def test_reading_in_chunks_gives_the_same_result(tmp_path, monkeypatch, chunk):
    from smlengine.datasets import _graph

    text = ("\ufeff# caf\u00e9 \u65e5\u672c\r\n\u00e9t\u00e9 \u65e5\u672c\r\nb\u00e9\tc\rc,\u00e9t\u00e9\n"
            "\u65e5\u672c d\u2028d \u00e9t\u00e9\n" + "x" * 40 + "\n")
    path = tmp_path / "g.txt"
    path.write_bytes(text.encode("utf-8"))
    monkeypatch.setattr(_graph, "MAX_LINE_CHARS", 30)
    with pytest.raises(ValueError) as whole:
        read_edge_list(path)
    monkeypatch.setattr(_graph, "_CHUNK", chunk)
    with pytest.raises(ValueError) as chunked:
        read_edge_list(path)
    assert str(chunked.value) == str(whole.value)
    assert "line 7:" in str(whole.value) and "(40 characters)" in str(whole.value)
    path.write_bytes(text.rsplit("x", 40)[0].encode("utf-8"))  # without the long line
    a, names = read_edge_list(path)
    assert names == ["\u00e9t\u00e9", "\u65e5\u672c", "b\u00e9", "c", "d"]
    assert {(names[i], names[j]) for i, j in zip(*a.nonzero())} == {
        ("\u00e9t\u00e9", "\u65e5\u672c"), ("b\u00e9", "c"), ("c", "\u00e9t\u00e9"), ("\u65e5\u672c", "d"),
        ("d", "\u00e9t\u00e9")}
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"a b\n" * 3 + b"caf\xe9 b\n")
    with pytest.raises(ValueError, match="bad byte at offset 15"):
        read_edge_list(bad)


# ----------------------------------------------------------------------------- size limits


@pytest.mark.timeout(20)
def test_a_file_over_the_byte_limit_is_refused_from_its_size(tmp_path):
    from smlengine.datasets import _graph

    huge = tmp_path / "huge.tsv"
    with open(huge, "wb") as fh:  # 10 GB that take no disk (sparse): reading it all would take minutes
        fh.write(b"0\t1\n")
        fh.truncate(10 * 2**30)
    with pytest.raises(ValueError) as err:
        read_edge_list(huge)
    msg = str(err.value)
    assert f"limit of {_graph.MAX_EDGE_LIST_BYTES / 2**20:g} MB" in msg and "10,737,418,240" in msg
    assert "binary" not in msg  # refused from its size, before a byte was read


class _Endless(io.TextIOBase):
    """A text stream that never ends (the same line again and again); counts what was read."""

    def __init__(self, line):
        self.line, self.given = line, 0

    def read(self, size=-1):
        assert 0 < size <= 2**20, "the loader must read in bounded chunks"
        self.given += size
        return (self.line * (size // len(self.line) + 1))[:size]


@pytest.mark.timeout(30)
def test_reading_stops_at_the_link_limit_in_bounded_memory(monkeypatch):
    import tracemalloc

    from smlengine.datasets import _graph

    monkeypatch.setattr(_graph, "MAX_EDGE_LIST_LINKS", 20_000)
    stream = _Endless("10\t11\n")
    tracemalloc.start()
    try:
        with pytest.raises(ValueError) as err:
            read_edge_list(stream)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "more than 20,000 links (line 20001)" in str(err.value) and "limited to 20,000 links" in str(err.value)
    assert stream.given <= 20_001 * 6 + _graph._CHUNK
    assert peak < 12 * 2**20, f"peak {peak / 2**20:.1f} MB"


@pytest.mark.timeout(30)
def test_reading_stops_at_the_byte_limit(monkeypatch, tmp_path):
    from smlengine.datasets import _graph

    monkeypatch.setattr(_graph, "MAX_EDGE_LIST_BYTES", 3 * _graph._CHUNK)
    stream = _Endless("# only comments and no link at all\n")
    with pytest.raises(ValueError, match=r"larger than the edge-list limit of 0\.75 MB \(786,432 characters"):
        read_edge_list(stream)
    assert stream.given <= 4 * _graph._CHUNK
    path = tmp_path / "big.txt"
    path.write_text("x" * (3 * _graph._CHUNK + 1), encoding="utf-8")
    with pytest.raises(ValueError, match=r"edge-list limit of 0\.75 MB \(786,432 bytes; file: 786,433\)"):
        read_edge_list(path)


@pytest.mark.parametrize("ids", ["numbers", "names"])
def test_plain_chunks_read_at_once_equal_line_by_line(tmp_path, monkeypatch, ids):
    from smlengine.datasets import _graph

    rng = np.random.default_rng(1)
    pairs = rng.integers(0, 300, size=(3000, 2))
    word = (lambda k: str(k)) if ids == "numbers" else (lambda k: f"p{k}#")
    lines = ["# a comment first", "% and another"]
    for k, (s, t) in enumerate(pairs.tolist()):
        sep = ["\t", " ", "  ", "\t\t", ", ", " \t "][k // 500]  # blocks of spaces, TABs, commas, mixed
        pad = "\t" if set(sep) == {"\t"} else " "
        lines.append((2 * pad if k % 7 == 0 else "") + f"{word(s)}{sep}{word(t)}" + (pad if k % 5 == 0 else ""))
        if k % 11 == 0:
            lines.append("")
    path = tmp_path / "g.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    monkeypatch.setattr(_graph, "_CHUNK", 1024)  # many chunks
    used = []
    plain = _graph.plain_batch
    monkeypatch.setattr(_graph, "plain_batch", lambda batch: used.append(plain(batch)) or used[-1])
    fast = _graph._read_edges(path, return_info=True, integers_first=False)  # the chunks' path, not numpy's
    assert {"whitespace", "TAB"} <= set(used) and "" in used  # both kinds of plain chunks, and others
    monkeypatch.setattr(_graph, "plain_batch", lambda batch: "")
    slow = _graph._read_edges(path, return_info=True, integers_first=False)
    assert fast[1] == slow[1] and (fast[0] != slow[0]).nnz == 0 and fast[2] == slow[2]
    first = read_edge_list(path, return_info=True)  # integer links first, then the rest line by line
    assert first[1] == slow[1] and (first[0] != slow[0]).nnz == 0 and first[2] == slow[2]
    assert fast[2].separators == ("TAB", "whitespace", "comma")
    assert {(int(fast[1][i].strip("p#")), int(fast[1][j].strip("p#"))) for i, j in zip(*fast[0].nonzero())} == {
        tuple(p) for p in pairs.tolist()}


def test_line_numbers_after_plain_chunks(tmp_path, monkeypatch):
    from smlengine.datasets import _graph

    monkeypatch.setattr(_graph, "_CHUNK", 64)
    path = tmp_path / "g.txt"
    path.write_text("".join(f"{k} {k + 1}\n" for k in range(100)) + "oops\n\n" + "y" * 300 + " z\n1\t2\n",
                    encoding="utf-8")
    with pytest.raises(ValueError) as err:
        read_edge_list(path)
    msg = str(err.value)
    assert "1 malformed" in msg and "line 101: expected" in msg
    monkeypatch.setattr(_graph, "MAX_LINE_CHARS", 100)  # the long line is now malformed too
    with pytest.raises(ValueError, match=r"(?s)2 malformed.*line 101: .*line 103: .*\(302 characters\)"):
        read_edge_list(path)


# ----------------------------------------------------------------------------- integer links read with numpy
# read_edge_list reads plain integer links a chunk at a time with numpy and gives anything
# else to the line-by-line parser (_read_edges(..., integers_first=False) reads every line
# that way): both must give the same graph, names, info, error and message.


def _outcome(read, source):
    try:
        return read(source)
    except (ValueError, TypeError, FileNotFoundError) as exc:
        return type(exc).__name__, str(exc)


def _assert_same(got, expected):
    if isinstance(got[0], str) or isinstance(expected[0], str):
        assert got == expected
        return
    (a, names, info), (b, names_b, info_b) = got, expected
    assert names == names_b and info == info_b
    assert a.shape == b.shape and a.dtype == b.dtype and a.format == b.format == "csr"
    for part in ("indptr", "indices", "data"):
        np.testing.assert_array_equal(getattr(a, part), getattr(b, part), err_msg=part)


def _read_both(tmp_path, monkeypatch, data, chunk=None):
    """``(outcome, what the integer reader took)`` for a file of ``data``: read_edge_list's
    outcome, checked equal to the line-by-line parser's; None when the reading failed first."""
    from smlengine.datasets import _graph

    path = tmp_path / "g.txt"
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    if chunk is not None:
        monkeypatch.setattr(_graph, "_CHUNK", chunk)
    taken = []
    reader = _graph.read_integer_links
    monkeypatch.setattr(_graph, "read_integer_links", lambda *a, **k: taken.append(reader(*a, **k)) or taken[-1])
    got = _outcome(lambda p: read_edge_list(p, return_info=True), path)
    expected = _outcome(lambda p: _graph._read_edges(p, return_info=True, integers_first=False), path)
    _assert_same(got, expected)
    return got, (taken[0] if taken else None)


_HEADERS = ["", "# Directed graph (each unordered pair of nodes is saved once): web.txt\n# Nodes: 9 Edges: 9\n"
            "# FromNodeId\tToNodeId\n", "% sym unweighted\n% 3 4 4\n", "% asym\n\n", "# Undirected graph\n",
            "\n  # a note\n\n\t\n", "\ufeff# after a byte-order mark\n"]


def _plain_text(rng, n_links, kind=0, header=None):
    """A random plain integer edge list: the ways of writing one that the numpy reader takes
    (``kind`` picks the line ends, separators and ids; the rest is drawn)."""
    span = [n_links // 2 + 1, 3 * n_links, 10**18 - 1][kind % 3]  # dense, sparse, huge ids
    ends = [["\n"], ["\r\n"], ["\r"], ["\n", "\r\n", "\r"]][kind % 4]
    seps = [[" "], ["\t"], [" ", "  ", "\t", " \t ", "\t\t", "\t "]][kind % 3 if kind % 5 else 2]
    lines = []
    for s, t in rng.integers(0, span, size=(n_links, 2), dtype=np.int64).tolist():
        pad = [("", ""), (" ", ""), ("", " "), ("\t ", " \t")][rng.integers(4) if rng.random() < 0.2 else 0]
        lines.append(f"{pad[0]}{s}{seps[rng.integers(len(seps))]}{t}{pad[1]}")
        if rng.random() < 0.05:
            lines.append(["", " ", "\t", "   \t"][rng.integers(4)])
    text = "".join(line + ends[rng.integers(len(ends))] for line in lines)
    if rng.random() < 0.3:
        text = text.rstrip("\r\n")  # no break after the last line
    return (_HEADERS[rng.integers(len(_HEADERS))] if header is None else header) + text


@pytest.mark.parametrize("seed", range(24))
def test_plain_integer_files_are_read_with_numpy_as_line_by_line(tmp_path, monkeypatch, seed):
    rng = np.random.default_rng(seed)
    text = _plain_text(rng, int(rng.integers(1, 400)), kind=seed)
    (a, names, info), taken = _read_both(tmp_path, monkeypatch, text, chunk=[None, 5, 64, 999][seed // 4 % 4])
    assert taken.rest is None and taken.ids.size == 2 * info.lines  # every link read by numpy
    assert a.nnz >= 1 and info.extra_columns == 0


def test_a_large_plain_file_in_many_chunks(tmp_path, monkeypatch):
    from smlengine.datasets import _graph

    text = _plain_text(np.random.default_rng(99), 12_000, kind=15, header="% asym\n")
    monkeypatch.setattr(_graph, "MAX_LINE_CHARS", 50)  # ids and blanks: lines' lengths checked one by one
    (a, names, info), taken = _read_both(tmp_path, monkeypatch, text, chunk=4096)
    assert taken.rest is None and info.lines == 12_000


@pytest.mark.parametrize("length", [20, 21])
@pytest.mark.parametrize("kind", ["link", "blank"])
def test_lines_at_the_length_limit(tmp_path, monkeypatch, kind, length):
    from smlengine.datasets import _graph

    monkeypatch.setattr(_graph, "MAX_LINE_CHARS", 20)
    line = "1" + " " * (length - 2) + "2" if kind == "link" else " " * length
    text = "".join(f"{k} {k + 1}\n" for k in range(30)) + line + "\n5 6\n"
    got, taken = _read_both(tmp_path, monkeypatch, text)
    assert (taken.rest is None) == (length == 20)  # a longer line is the line-by-line parser's
    assert isinstance(got[0], str) == (kind == "link" and length == 21)


# one irregular line each; every one is read line by line
_IRREGULAR = {
    "name": "home 1", "quoted id": '"1" 2', "comment after a link": "# more", "KONECT comment": "% more",
    "one id": "5", "three ids": "1 2 3", "four ids": "1 2 3 4", "weight": "1 2 0.5",
    "timestamp": "1\t2\t1200000000", "comma": "1,2", "comma and spaces": "1 , 2", "negative id": "-1 2",
    "plus sign": "+1 2", "decimal point": "1.0 2", "exponent": "1e3 2", "leading zeros": "007 1",
    "19 digits": "1234567890123456789 1",
    "30 digits": "9" * 30 + " 0", "Arabic digits": "\u0661 \u0662", "accent": "caf\u00e9 1",
    "no-break space": "1\u00a02", "unit separator": "1\x1f2", "vertical tab": "1\x0b2", "form feed": "1 2\x0c3 4",
    "line separator": "1 2\u20283 4", "next line": "1 2\x853 4", "long line": "1" + " " * 10_001 + "2",
}


@pytest.mark.parametrize("where", ["first", "middle", "last"])
@pytest.mark.parametrize("kind", sorted(_IRREGULAR))
def test_each_irregular_line_is_read_line_by_line(tmp_path, monkeypatch, kind, where):
    links = [f"{k} {(7 * k) % 50}" for k in range(60)]
    line = _IRREGULAR[kind]
    at = {"first": 0, "middle": 30, "last": 60}[where]
    if line[0] in "#%":
        at = max(at, 1)  # before the first link a comment is the numpy reader's
    text = "# header\n" + "\n".join(links[:at] + [line] + links[at:]) + ("\n" if where != "last" else "")
    got, taken = _read_both(tmp_path, monkeypatch, text, chunk=None if where == "middle" else 200)
    assert taken.rest is not None and line.split()[0] in taken.rest  # the numpy reader stopped before it
    assert taken.lines <= 1 + at


@pytest.mark.parametrize("header", ["source target", "FromNodeId\tToNodeId", "from,to", "citing paper\tcited paper",
                                    "Source Target 1"])
def test_header_lines_above_integer_links(tmp_path, monkeypatch, header):
    text = "# SNAP style\n" + header + "\n" + "".join(f"{k}\t{k + 1}\n" for k in range(50))
    got, taken = _read_both(tmp_path, monkeypatch, text)
    assert taken.rest.startswith(header) and taken.lines == 1


@pytest.mark.parametrize("text, names", [
    ("0 3\n", ["0", "1", "2", "3"]),  # largest + 1 = twice the ids: dense
    ("0 4\n", ["0", "4"]),
    ("7 0\n1 5\n", ["0", "1", "2", "3", "4", "5", "6", "7"]),
    ("7 0\n1 8\n", ["0", "1", "7", "8"]),
    ("% asym\n1 4\n", ["1", "2", "3", "4"]),  # KONECT: from 1
    ("% asym\n1 5\n", ["1", "5"]),
    ("% asym\n0 3\n", ["0", "1", "2", "3"]),  # an id below 1: from 0
])
def test_dense_or_sparse_ids_at_the_boundary(tmp_path, monkeypatch, text, names):
    (a, got, info), taken = _read_both(tmp_path, monkeypatch, text)
    assert got == names and taken.rest is None


@pytest.mark.parametrize("data", [b"", b"\n\n  \n", b"# only a comment\n% and another", b"\r\n\r\n# c\r\n",
                                  b"1 2\n\x003 4\n", b"1 2\n3 \xff4\n", b"\xef\xbb\xbf1 2\n"])
def test_empty_binary_and_bad_utf8_files_the_same_on_both_paths(tmp_path, monkeypatch, data):
    got, _ = _read_both(tmp_path, monkeypatch, data, chunk=3)
    assert data != b"\xef\xbb\xbf1 2\n" or got[1] == ["0", "1", "2"]


@pytest.mark.parametrize("ends", ["\n", "\r\n", "\r"])
@pytest.mark.parametrize("chunk", [None, 5, 100])
def test_the_link_limit_names_the_same_line_on_both_paths(tmp_path, monkeypatch, ends, chunk):
    from smlengine.datasets import _graph

    monkeypatch.setattr(_graph, "MAX_EDGE_LIST_LINKS", 50)
    lines = ["# numbered links", ""]
    for k in range(80):
        lines += [f"{k} {k + 1}"] + ([""] if k % 7 == 0 else [])
    text = ends.join(lines) + "oops\n"  # a malformed line after the limit is never reached
    (kind, message), _ = _read_both(tmp_path, monkeypatch, text, chunk=chunk)
    line = 1 + next(i for i, v in enumerate(lines) if v == "50 51")
    assert kind == "ValueError" and f"more than 50 links (line {line})" in message
    text = ends.join(lines[: line - 1]) + ends  # exactly 50 links: read
    (a, names, info), taken = _read_both(tmp_path, monkeypatch, text, chunk=chunk)
    assert info.lines == 50 and taken.rest is None


def test_file_objects_take_the_same_paths():
    from smlengine.datasets import _graph

    for text in ["1 2\n2 3\n", "\ufeff1 2\n", "1 2\nx y\n", "% sym\n1 2\r\n2 3", "\t\n"]:
        got = _outcome(lambda t: read_edge_list(io.StringIO(t), return_info=True), text)
        expected = _outcome(lambda t: _graph._read_edges(io.StringIO(t), return_info=True, integers_first=False), text)
        _assert_same(got, expected)
    with pytest.raises(TypeError, match="text file object"):
        read_edge_list(io.BytesIO(b"1 2\n"))


def test_csr_adjacency_from_sorted_links_equals_scipy_conversion(monkeypatch):
    from smlengine.datasets import _edge_list_text

    rng = np.random.default_rng(3)
    cases = [([], [], 3), ([0], [0], 1), ([2, 2, 0], [1, 1, 2], 3)]
    cases += [(rng.integers(0, n, e), rng.integers(0, n, e), n) for n, e in rng.integers(1, 80, size=(40, 2))]
    sorted_links = [_edge_list_text.csr_adjacency(s, t, int(n)) for s, t, n in cases]
    monkeypatch.setattr(_edge_list_text, "_MAX_SORTED_NODES", 0)  # scipy's conversion, summing duplicates
    for (s, t, n), a in zip(cases, sorted_links):
        b = _edge_list_text.csr_adjacency(s, t, int(n))
        assert a.shape == b.shape == (n, n) and a.indptr.dtype == b.indptr.dtype and a.indices.dtype == b.indices.dtype
        for part in ("indptr", "indices", "data"):
            np.testing.assert_array_equal(getattr(a, part), getattr(b, part))
        assert a.has_canonical_format and set(a.data) <= {1.0}
