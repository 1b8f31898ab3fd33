"""The PageRank lab: ranks shown equal the engine's, α restarts, convergence curves, link
editing, edge-list errors, textbook chains, projector mode, sessions and export."""

import numpy as np
import pytest

from smlengine.datasets import load_graph
from smlengine.markov import pagerank
from app.testing import finish
from app.widgets import plot_style


def _lab(qtbot, make_window, **params):
    window = make_window(lab_ids=["pagerank"])
    lab = window.show_lab("pagerank")
    qtbot.waitUntil(lambda: lab.runner.current is not None or lab.runner.error is not None, timeout=30_000)
    # few surfer moves: the surfer phase is tested on its own
    lab.form.set_values({"surfer_moves": 20, "moves_per_step": 5, **params})
    lab.after_params_restored()
    return window, lab


def _last_power(lab):
    return [h for h in lab.runner.history() if h.phase == "power method"][-1]


def test_final_ranks_equal_the_engine(qtbot, make_window):
    window, lab = _lab(qtbot, make_window)
    snap = finish(lab, restart=True)
    a, names, titles = load_graph("python-docs", return_titles=True)
    expected = pagerank(a, teleport=0.15, tol=1e-10)
    assert snap.distribution.sum() == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_allclose(snap.distribution, expected, atol=1e-12)
    # the bars and the ranked list show the top of that vector
    order = np.argsort(-expected, kind="stable")[:15]
    x, h = lab.bar_item.opts["x"], lab.bar_item.opts["height"]
    np.testing.assert_allclose(h, expected[order])
    np.testing.assert_array_equal(x, np.arange(1, 16))
    rows = lab.top_pages()
    assert [r[0] for r in rows] == [names[i] for i in order]
    assert [r[1] for r in rows] == [snap.graph.labels[i] for i in order]
    np.testing.assert_allclose([r[2] for r in rows], expected[order], atol=1e-5)
    # nodes: one per page, sized by rank (the top page is among the biggest)
    sizes = lab.node_item.data["size"]
    assert len(sizes) == a.shape[0] and sizes[order[0]] == sizes.max()
    assert np.all(np.diff(sizes[np.argsort(expected)]) >= 0)
    # the surfers ran after the power method and their error is plotted
    assert snap.phase == "random surfer" and snap.moves == 20
    assert len(lab.mc_curve.xData) == 4 and np.all(lab.mc_curve.yData > 0)
    text = lab.maths.toPlainText()
    assert "irreducible: yes" in text and "aperiodic: yes" in text and "residual" in text
    # hovering a node: title, rank, links
    i = order[0]
    tip = lab._tip(data=i)
    assert titles[i] in tip and f"{expected[i]:.5f}" in tip and "links in" in tip
    # export: page, title, rank for every page
    header, rows = lab.export_rows()
    assert header[1:] == ["page", "title", "rank"] and len(rows) == a.shape[0]
    assert rows[0][1] == names[i] and rows[0][3] == pytest.approx(expected[i])


def test_alpha_change_restarts_with_new_ranks(qtbot, make_window):
    window, lab = _lab(qtbot, make_window, graph="karate-club")
    lab.on_param_changed("graph")
    first = finish(lab, restart=True).distribution.copy()
    lab.alpha_slider.setValue(50)  # the live slider drives the parameter
    assert lab.form.value("teleport") == pytest.approx(0.5)
    qtbot.waitUntil(lambda: lab.runner.current is not None and lab.runner.current.teleport == 0.5, timeout=20_000)
    second = finish(lab, restart=True).distribution
    a, _ = load_graph("karate-club")
    np.testing.assert_allclose(second, pagerank(a, teleport=0.5, tol=1e-10), atol=1e-12)
    assert np.abs(second - first).sum() > 1e-3


def test_convergence_curve_decreases_under_the_bound(qtbot, make_window):
    window, lab = _lab(qtbot, make_window, graph="scale-free", n_nodes=200, teleport=0.3)
    finish(lab, restart=True)
    n, change = lab.change_curve.xData, lab.change_curve.yData
    assert len(n) >= 10
    np.testing.assert_array_equal(n, np.arange(1, len(n) + 1))
    assert np.all(np.diff(change) <= 1e-12)
    assert np.all(change <= 2 * 0.7 ** (n - 1) + 1e-12)
    assert change[-1] < 1e-10
    bn, bound = lab.bound_curve.xData, lab.bound_curve.yData
    np.testing.assert_allclose(bound, 2 * 0.7**bn)


def test_adding_a_link_changes_adjacency_and_ranks(qtbot, make_window, tmp_path):
    window, lab = _lab(qtbot, make_window, graph="karate-club")
    lab.on_param_changed("graph")
    before = finish(lab, restart=True).distribution.copy()
    assert not lab.has_link(16, 25)
    lab.toggle_link(16, 25)
    after = finish(lab, restart=True)
    assert lab.has_link(16, 25) and not lab.has_link(25, 16)
    assert after.graph.n_links == 157
    assert after.distribution[25] > before[25]
    a, _ = load_graph("karate-club")
    a = a.tolil()
    a[16, 25] = 1
    np.testing.assert_allclose(after.distribution, pagerank(a.tocsr(), teleport=0.15, tol=1e-10), atol=1e-12)
    # removing an existing link, then undo
    lab.toggle_link(0, 1)
    finish(lab, restart=True)
    assert not lab.has_link(0, 1)
    assert lab.user_data()["edits"] == [[16, 25], [0, 1]]
    assert lab.undo_edit()
    finish(lab, restart=True)
    assert lab.has_link(0, 1) and lab.has_link(16, 25)
    # the edited graph is saved with the session
    from app.session import load_session, save_session

    path = tmp_path / "pr.json"
    save_session(path, lab.session_state())
    lab.undo_edit()
    finish(lab, restart=True)
    assert not lab.has_link(16, 25)
    lab.restore_session(load_session(path), replay=False)
    finish(lab, restart=True)
    assert lab.has_link(16, 25)


def test_clicking_two_nodes_adds_a_link(qtbot, make_window):
    window, lab = _lab(qtbot, make_window, graph="karate-club")
    lab.on_param_changed("graph")
    finish(lab, restart=True)

    class P:
        def __init__(self, i):
            self.i = i

        def data(self):
            return self.i

    lab._node_clicked(lab.node_item, [P(16)])
    assert lab._selected == 16 and len(lab.selected_item.data) == 1
    lab._node_clicked(lab.node_item, [P(25)])
    finish(lab, restart=True)
    assert lab.has_link(16, 25) and lab._selected == -1


def test_malformed_edge_list_reports_line_numbers(qtbot, make_window, tmp_path):
    window, lab = _lab(qtbot, make_window)
    bad = tmp_path / "bad.txt"
    bad.write_text("# my web\na\tb\nb,c\nthis line, is, wrong\nc\ta\n", encoding="utf-8")
    lab.open_graph(str(bad), "edges")
    qtbot.waitUntil(lambda: lab.error_text != "", timeout=20_000)
    assert "line 4" in lab.error_text and "Could not open bad.txt" in lab.error_text
    assert lab.form.value("graph") == "python-docs"  # a failed open changes nothing
    good = tmp_path / "good.txt"
    good.write_text("a\tb\nb,c\nc\ta\nc\td\n", encoding="utf-8")
    lab.open_graph(str(good), "edges")
    qtbot.waitUntil(lambda: lab.form.value("graph") == "custom", timeout=20_000)
    snap = finish(lab, restart=True)
    assert lab.error_text == ""
    assert snap.graph.names == ["a", "b", "c", "d"] and snap.graph.n_links == 4
    assert "good.txt" in lab.file_label.text() and "separator: TAB and comma" in lab.file_label.text()
    np.testing.assert_allclose(snap.distribution.sum(), 1.0)
    # choosing "Opened file" before opening anything is a message, not a crash
    lab._custom = ()
    lab.start()
    assert "Open" in lab.error_text


def test_html_folder(qtbot, make_window, tmp_path):
    window, lab = _lab(qtbot, make_window)
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("<title>Home</title><a href='a.html'>a</a><a href='b.html'>b</a>")
    (site / "a.html").write_text("<title>A</title><a href='index.html'>home</a>")
    (site / "b.html").write_text("<title>B</title><a href='a.html'>a</a>")
    lab.open_graph(str(site), "html")
    qtbot.waitUntil(lambda: lab.form.value("graph") == "custom", timeout=20_000)
    snap = finish(lab, restart=True)
    assert snap.graph.n == 3 and "Home" in snap.graph.titles


def test_periodic_chain_oscillates(qtbot, make_window):
    window, lab = _lab(qtbot, make_window)
    lab.form.set_value("graph", "periodic")  # α -> 0, start on the first state
    assert lab.form.value("teleport") == 0.0 and lab.form.value("start") == "first"
    lab.form.set_values({"surfer_moves": 20, "moves_per_step": 5})
    finish(lab, restart=True)
    P = lab.chain_series()
    assert P.shape == (31, 2)
    np.testing.assert_array_equal(P[::2, 0], 1.0)
    np.testing.assert_array_equal(P[1::2, 0], 0.0)
    assert lab.lower_right.currentWidget() is lab.chain_plot
    assert "aperiodic: no" in lab.maths.toPlainText()
    # self-loops make it converge to (1/2, 1/2)
    lab.form.set_value("graph", "periodic-self-loops")
    lab.form.set_values({"surfer_moves": 20, "moves_per_step": 5})
    finish(lab, restart=True)
    P = lab.chain_series()
    np.testing.assert_allclose(P[-1], [0.5, 0.5], atol=0.8**30)
    assert np.all(np.diff(np.abs(P[:, 0] - 0.5)) < 0)  # |P_n - 1/2| = 0.8^n / 2 shrinks


def test_reducible_chain_limit_depends_on_start(qtbot, make_window):
    window, lab = _lab(qtbot, make_window)
    lab.form.set_value("graph", "reducible")
    lab.form.set_values({"surfer_moves": 0})
    finish(lab, restart=True)
    np.testing.assert_allclose(lab.chain_series()[-1], [2 / 7, 5 / 7, 0, 0], atol=1e-8)
    assert "irreducible: no" in lab.maths.toPlainText()
    lab.form.set_value("start", "last")
    finish(lab, restart=True)
    np.testing.assert_allclose(lab.chain_series()[-1], [0, 0, 0.8, 0.2], atol=1e-8)


def test_projector_mode(qtbot, make_window):
    window, lab = _lab(qtbot, make_window, graph="karate-club")
    lab.on_param_changed("graph")
    finish(lab, restart=True)
    window.set_projector(True)
    from app import style as theme

    s = theme.current()
    assert s.projector
    qtbot.waitUntil(lambda: lab.change_curve.opts["pen"].widthF() == pytest.approx(s.line_width))
    assert lab.error_text == ""
    assert lab.table.font().pointSizeF() == pytest.approx(9.0 * s.scale)
    sizes = lab.node_item.data["size"]
    assert sizes.min() >= 5.0 * s.scale - 1e-9
    window.set_projector(False)


def test_plots_style_themselves_both_ways(qtbot, make_window, monkeypatch):
    """Every plot is a self-styling PlotPanel: projector mode scales titles, ticks and legends
    and back again, the graph keeps no axes, and the lab never restyles a plot by hand."""
    from app import style as theme
    from app.widgets.plots import PlotPanel

    window, lab = _lab(qtbot, make_window, graph="reducible")
    lab.on_param_changed("graph")
    finish(lab, restart=True)
    plots = [lab.graph_plot, lab.bar_plot, lab.conv_plot, lab.adj_plot, lab.chain_plot]
    assert all(isinstance(p, PlotPanel) for p in plots)

    def sizes():
        out = []
        for p in plots:
            pi = p.plot_item
            out.append(pi.getAxis("left").style["tickFont"].pointSizeF())
            out.append(float(pi.titleLabel.opts["size"].rstrip("pt")))
        for legend in (lab.legend, lab.bar_legend, lab.conv_legend, lab.chain_legend):
            out.append(float(legend.opts["labelTextSize"].rstrip("pt")))
        return out

    normal = sizes()
    window.set_projector(True)
    lab.runner.flush()
    big = sizes()
    s = theme.current()
    assert all(b > n for b, n in zip(big, normal))
    assert lab.conv_plot.plot_item.getAxis("left").style["tickFont"].pointSizeF() == pytest.approx(s.font_pt)
    assert lab.change_curve.opts["pen"].widthF() == pytest.approx(s.line_width)
    assert len(lab.chain_legend.items) == 4
    window.set_projector(False)
    lab.runner.flush()
    assert sizes() == normal
    gp = lab.graph_plot.plot_item
    assert not gp.getAxis("left").isVisible() and not gp.getAxis("bottom").isVisible()
    assert lab.conv_plot.plot_item.getAxis("left").logMode  # log axis: decade ticks
    # the lab's own apply_style leaves the plots to the panels
    calls = []
    monkeypatch.setattr(plot_style, "set_axis_labels", lambda *a, **k: calls.append(a))
    monkeypatch.setattr(plot_style, "style_plot", lambda *a, **k: calls.append(a))
    lab.apply_style(theme.current())
    assert calls == []


def test_layout_draws_a_fixed_sample_of_links_then_all(qtbot, make_window):
    """While the force layout moves, the graph shows LAYOUT_EDGES links (the same ones every
    frame, at the moving positions); when it settles, every link."""
    from app.labs.pagerank.lab import LAYOUT_EDGES

    window, lab = _lab(qtbot, make_window)
    lab.set_seed(9137)  # a seed whose layout is not cached yet: the frames animate
    lab.start()
    r = lab.runner
    qtbot.waitUntil(lambda: r.current is not None and r.settled, timeout=30_000)
    lab.run_to(3)
    qtbot.waitUntil(lambda: r.current is not None and r.current.step == 3 and r.settled, timeout=30_000)
    r.flush()
    snap = r.current
    g = snap.graph
    assert snap.phase == "layout" and snap.progress < 1.0 and g.n_links > LAYOUT_EDGES
    x, y = lab.edge_item.getData()
    assert len(x) == 2 * LAYOUT_EDGES
    pick = lab.layout_edges(g)
    assert pick.size == LAYOUT_EDGES and np.all(np.diff(pick) > 0)
    np.testing.assert_array_equal(x[0::2], snap.positions[g.edge_rows[pick], 0])
    np.testing.assert_array_equal(y[1::2], snap.positions[g.edge_cols[pick], 1])
    lab.run_to(5)
    qtbot.waitUntil(lambda: r.current.step == 5 and r.settled, timeout=30_000)
    r.flush()
    np.testing.assert_array_equal(lab.layout_edges(g), pick)  # the same sample every frame
    snap = finish(lab, restart=True)
    x, y = lab.edge_item.getData()
    assert len(x) == 2 * g.n_links
    np.testing.assert_array_equal(x[0::2], snap.positions[g.edge_rows, 0])
    window.close()


# ----------------------------------------------------------------------------- opening files


def _open(qtbot, lab, path):
    """Open an edge list and wait until it is the graph (the file is read on a worker first)."""
    lab.open_graph(str(path), "edges")
    qtbot.waitUntil(lambda: lab.form.value("graph") == "custom" and lab._custom == ("edges", str(path))
                    or lab.error_text != "", timeout=20_000)
    assert lab.error_text == "", lab.error_text
    return finish(lab, restart=True)


_WEB = [(0, 1), (0, 2), (1, 2), (2, 0), (3, 2), (4, 3), (4, 5), (5, 4), (5, 6), (6, 0), (6, 7), (1, 1)]


def test_every_edge_list_format_gives_identical_ranks(qtbot, make_window, tmp_path):
    files = {
        "ws.txt": ("".join(f"{s}  {t}\n" for s, t in _WEB), "separator: whitespace"),
        "tab.tsv": ("".join(f"{s}\t{t}\n" for s, t in _WEB), "separator: TAB"),
        "header.csv": ("source,target\n" + "".join(f'"{s}", {t}\n' for s, t in _WEB), "header 'source' / 'target'"),
        "snap.txt": ("# Directed graph (each unordered pair of nodes is saved once): web.txt\n# Nodes: 8 Edges: 12\n"
                     "# FromNodeId\tToNodeId\n" + "".join(f"{s}\t{t}\n" for s, t in _WEB), "SNAP file"),
        "out.konect": ("% asym unweighted\n% 12 8 8\n" + "".join(f"{s + 1} {t + 1} 1 {900 + s}\n" for s, t in _WEB),
                       "KONECT file"),
    }
    window, lab = _lab(qtbot, make_window)
    ranks = {}
    for name, (text, found) in files.items():
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        snap = _open(qtbot, lab, path)
        assert snap.graph.n == 8 and snap.graph.n_links == len(_WEB)
        ranks[name] = np.asarray(snap.distribution)
        # the lab names the file and says what it found in it
        assert name in lab.file_label.text() and found in lab.file_label.text()
        assert name in lab.maths.toPlainText() and "separator: " in lab.maths.toPlainText()
    a = np.zeros((8, 8))
    for s, t in _WEB:
        a[s, t] = 1
    import scipy.sparse as sp

    expected = pagerank(sp.csr_matrix(a), teleport=0.15, tol=1e-10)
    for name, r in ranks.items():
        np.testing.assert_array_equal(r, ranks["tab.tsv"], err_msg=name)
    np.testing.assert_allclose(ranks["tab.tsv"], expected, atol=1e-12)


def test_a_failed_open_changes_nothing(qtbot, make_window, tmp_path, monkeypatch):
    """Edit a link, change α, then open bad files: the edits, the graph and α are all kept."""
    from smlengine.datasets import _graph

    window, lab = _lab(qtbot, make_window, graph="karate-club")
    lab.on_param_changed("graph")
    lab.form.set_value("teleport", 0.3)
    lab.toggle_link(16, 25)
    before = finish(lab, restart=True)
    assert lab.has_link(16, 25)
    bad = tmp_path / "bad.txt"
    bad.write_text("a b\nonly-one-id\n", encoding="utf-8")
    big = tmp_path / "big.txt"
    big.write_text("0 1\n" * 300, encoding="utf-8")
    monkeypatch.setattr(_graph, "MAX_EDGE_LIST_BYTES", 1000)
    cases = [(bad, "line 2"), (big, "limit of 0.000953674 MB (1,000 bytes"), (tmp_path / "missing.txt", "no such file"),
             (tmp_path, "is a folder")]
    for path, message in cases:
        lab.clear_error()
        lab.open_graph(str(path), "edges")
        qtbot.waitUntil(lambda: lab.error_text != "", timeout=20_000)
        assert message in lab.error_text, lab.error_text
        assert lab.form.value("graph") == "karate-club"
        assert lab.form.value("teleport") == pytest.approx(0.3)
        assert lab.user_data() == {"edits": [[16, 25]], "custom": []}
        assert lab.undo_button.isEnabled() and "big.txt" not in lab.file_label.text()
    # the run shown is still the edited karate club with α = 0.3
    lab.clear_error()
    after = finish(lab, restart=True)
    assert after.graph == before.graph and after.teleport == pytest.approx(0.3)
    np.testing.assert_array_equal(after.distribution, before.distribution)


# ----------------------------------------------------------------------------- labels and arrowheads


def _overlap(a, b) -> float:
    r = a.intersected(b)
    return max(r.width(), 0.0) * max(r.height(), 0.0)


def _placed(lab, distribution, n, top=True) -> None:
    """:func:`_check_labels` as a ``waitUntil`` condition: None when it holds, AssertionError until then."""
    _check_labels(lab, distribution, n, top=top)


def _check_labels(lab, dist, at_least, top=True):
    shown = lab.labels_shown()
    assert len(shown) >= at_least, [t for _, t, _ in shown]
    view = lab.graph_plot.plot_item.vb.sceneBoundingRect()
    for k, (i, text, rect) in enumerate(shown):
        assert rect.width() > 0 and view.contains(rect), text
        for _, other, rect2 in shown[k + 1:]:
            assert _overlap(rect, rect2) == 0.0, (text, other)
    # the labels go to the highest-ranked pages first: a page without a label ranks below
    # every labelled page unless its label had no room
    labelled = [i for i, _, _ in shown]
    if top:
        assert int(np.argmax(dist)) in labelled
    return shown


@pytest.mark.parametrize("graph", ["python-docs", "karate-club"])
def test_labels_never_overlap(qtbot, make_window, graph):
    from app.labs.pagerank.run import LABEL_CHARS, page_labels

    window, lab = _lab(qtbot, make_window, graph=graph)
    lab.on_param_changed(graph)
    snap = finish(lab, restart=True)
    g = snap.graph
    shown = _check_labels(lab, snap.distribution, 5)
    for i, text, _ in shown:
        assert text == page_labels(g.titles, g.names)[i]
    texts = [t for _, t, _ in shown]
    assert len(set(texts)) == len(texts) and all(len(t) <= LABEL_CHARS for t in texts)
    if graph == "python-docs":  # a long or shared title gives the page's file: "Index" names thirty pages
        assert "py-modindex" in texts and "genindex" in texts and "Index" not in texts
    # a smaller window and projector fonts: the labels are placed again, still apart
    window.resize(1024, 768)
    qtbot.waitUntil(lambda: window.width() == 1024)
    qtbot.waitUntil(lambda: _placed(lab, snap.distribution, 3))  # retried until the labels are placed again
    window.set_projector(True)
    lab.runner.flush()
    # the top page's label may find no room
    qtbot.waitUntil(lambda: _placed(lab, snap.distribution, 3, top=False))
    window.set_projector(False)


def test_arrowheads_point_at_the_target(qtbot, make_window, tmp_path):
    path = tmp_path / "chain.txt"
    path.write_text("home about\nabout blog\nblog home\nhome blog\nnews home\n", encoding="utf-8")
    window, lab = _lab(qtbot, make_window)
    snap = _open(qtbot, lab, path)
    g, pos = snap.graph, lab._drawn_positions
    rows, cols, tips, bases = lab.arrow_heads()
    assert sorted(zip(rows.tolist(), cols.tolist())) == sorted(zip(*g.adjacency.nonzero()))
    vb = lab.graph_plot.plot_item.vb
    sx, sy = lab._scene_xy(vb, tips)
    cx, cy = lab._scene_xy(vb, pos[cols])
    ox, oy = lab._scene_xy(vb, pos[rows])
    # each tip touches its target's disc (radius + 1 pixel) on the side of the source
    np.testing.assert_allclose(np.hypot(sx - cx, sy - cy), lab._node_sizes[cols] / 2 + 1.0, atol=1e-6)
    assert np.all(np.hypot(sx - ox, sy - oy) < np.hypot(cx - ox, cy - oy))
    bx, by = lab._scene_xy(vb, bases)
    assert np.all(np.hypot(bx - cx, by - cy) > np.hypot(sx - cx, sy - cy))  # the head points at the target
    # a big graph: arrowheads only on the links between labelled pages
    window2, lab2 = _lab(qtbot, make_window)
    snap2 = finish(lab2, restart=True)
    rows, cols, tips, _ = lab2.arrow_heads()
    labelled = {i for i, _, _ in lab2.labels_shown()}
    assert len(rows) > 0 and set(rows.tolist()) <= labelled and set(cols.tolist()) <= labelled
    assert all(snap2.graph.adjacency[i, j] for i, j in zip(rows, cols))


def test_top_indices_equal_a_stable_sort():
    from app.labs.pagerank.lab import top_indices

    rng = np.random.default_rng(0)
    for n, k in [(1, 1), (10, 3), (50, 50), (50, 80), (1000, 15), (1000, 0)]:
        v = rng.integers(0, 5, n) / 7.0  # many ties
        np.testing.assert_array_equal(top_indices(v, k), np.argsort(-v, kind="stable")[:k])


def test_a_big_graph_draws_its_highest_ranked_pages(qtbot, make_window, monkeypatch):
    from app.labs.pagerank import lab as lab_module

    monkeypatch.setattr(lab_module, "MAX_DRAWN_NODES", 100)
    window, lab = _lab(qtbot, make_window)
    snap = finish(lab, restart=True)
    drawn = lab.node_item.data["data"].astype(int)
    top = np.argsort(-snap.distribution, kind="stable")[:100]
    assert sorted(drawn.tolist()) == sorted(top.tolist())
    np.testing.assert_array_equal(lab.node_item.getData()[0], snap.positions[drawn, 0])
    assert len(lab.labels_shown()) >= 5 and lab._tip(data=int(top[0]))


def test_page_labels_are_short_and_distinct():
    from app.labs.pagerank.run import LABEL_CHARS, page_labels

    titles = ["Index", "Index", "Python Module Index", "os — Miscellaneous operating system interfaces",
              "The Python Standard Library", "Introduction", "Introduction", "member 7", "Copyright"]
    names = ["genindex.html", "c-api/genindex.html", "py-modindex.html", "library/os.html", "library/index.html",
             "library/intro.html", "c-api/intro.html", "7", "copyright.html"]
    labels = page_labels(titles, names)
    assert labels == ["genindex", "c-api/genindex", "py-modindex", "os", "library/", "library/intro",
                      "c-api/intro", "7", "Copyright"]
    many = page_labels(["x"] * 5, ["a/b/very-long-file-name-here.html"] * 5)  # one file five times
    assert len(set(many)) == 5 and all(len(t) <= LABEL_CHARS for t in many)
