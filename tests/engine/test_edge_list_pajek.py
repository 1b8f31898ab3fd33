"""Pajek network files (``.net``): ``*Vertices``, ``*Arcs`` and ``*Edges`` are sections, not pages."""

import io

import numpy as np
import pytest

from smlengine.datasets import read_edge_list


def _links(a):
    return sorted(zip(*(x.tolist() for x in a.nonzero())))


def test_vertices_and_arcs_give_the_pages_and_links_of_the_file():
    text = '*Vertices 4\n1 "home"\n2 "about"\n3 "blog"\n4 "news"\n*Arcs\n1 2\n2 3\n3 1\n1 3\n4 1\n'
    a, names, info = read_edge_list(io.StringIO(text), return_info=True)
    assert names == ["home", "about", "blog", "news"] and a.shape == (4, 4) and a.nnz == 5
    assert _links(a) == [(0, 1), (0, 2), (1, 2), (2, 0), (3, 0)]
    assert info.style == "Pajek" and "Pajek file" in info.summary()


def test_edges_are_read_both_ways_and_unlinked_vertices_are_pages():
    text = "*Network tiny\n*Vertices 5\n*Arcs\n1 2 1.5\n*Edges\n3 4\n*arcs\n2 1\n"
    a, names = read_edge_list(io.StringIO(text))
    assert names == ["1", "2", "3", "4", "5"]  # page 5 has no link: an isolated page
    assert _links(a) == [(0, 1), (1, 0), (2, 3), (3, 2)]
    np.testing.assert_array_equal(a.toarray().sum(axis=1), [1, 1, 1, 1, 0])


@pytest.mark.parametrize("text, line", [
    ("*Vertices 3\n*Matrix\n0 1 0\n1 0 0\n0 0 1\n", "line 2: the Pajek section '*Matrix' is not read"),
    ("*Vertices 3\n*Arcs\n1 7\n", "line 3: page '7' is not one of *Vertices' 1 … 3"),
    ("*Vertices x\n*Arcs\n1 2\n", "line 1: expected '*Vertices n'"),
    ("*Arcs\n1 2\n", "line 1: *Arcs before *Vertices n"),
    ('*Vertices 2\n1 "a"\nthree "b"\n*Arcs\n1 2\n', "line 3: expected a page"),
])
def test_other_sections_and_bad_lines_are_refused_naming_the_line(text, line):
    with pytest.raises(ValueError) as err:
        read_edge_list(io.StringIO(text))
    assert line in str(err.value)
    assert "Matrix" not in text or err.value.args[0].count("line ") == 1  # the matrix rows are not read


def test_a_star_inside_a_plain_edge_list_is_a_name():
    a, names = read_edge_list(io.StringIO("a b\n*c a\n"))
    assert names == ["a", "b", "*c"] and a.nnz == 2
