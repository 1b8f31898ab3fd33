"""Graph data: shipped Python-docs graph, edge lists, HTML crawl, small chains, karate."""

import io

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
    for name in ("load_graph", "read_edge_list", "crawl_html_folder", "textbook_chain", "karate_club", "scale_free_digraph"):
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
    path.write_text("# my graph\n\nhome\tabout\nabout, home\nhome\tabout\n  # indented comment\nblog,blog\nc#\thome\n", encoding="utf-8")
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
        '<title>A &amp; B — Site docs</title><a href="../index.html">up</a><a href="/sub/b.html?q=1">b</a>', encoding="utf-8"
    )
    (tmp_path / "sub" / "b.html").write_text("<title>B — Site docs</title>", encoding="utf-8")
    (tmp_path / "sub" / "index.html").write_text("<title>Sub — Site docs</title>", encoding="utf-8")
    (tmp_path / "orphan.html").write_text("<title>Orphan — Site docs</title><a href='index.html'>home</a>", encoding="utf-8")
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
