"""What the n-gram, PCA, PageRank and segmentation labs show is readable and true.

One window per lab at 1024×768 (the classroom projector's size), each property checked on
what is drawn: the generated text keeps six readable lines and the maths panel states the
model's own vocabulary (n-grams); the eigen-digits are at least 150 px and the race's bars
are labelled with whole solver names (PCA); page labels are distinct and apart, the ranked
list's titles whole, and a Pajek file is read as its pages and links (PageRank); restarts
equal within a relative 1e-6 are one solution, drawn on an axis that does not magnify
rounding noise, on the same features as the k-means of the "k-means vs EM" tab (segmentation).
"""

from __future__ import annotations

import math

import numpy as np
from PySide6 import QtGui, QtWidgets

import picture_checks as checks
from app.testing import open_lab, run_to, wait_until

WINDOW = (1024, 768 - 40)  # the window inside a 1024×768 screen (title bar and panel)
#: the smallest side of an eigen-digit on a 1024×768 projector, in pixels
MIN_TILE_PX = 150


def _window(make_window, lab_id, projector):
    window = make_window(lab_ids=[lab_id])
    window.resize(*WINDOW)
    window.set_projector(projector)
    return window


# --------------------------------------------------------------------------- n-grams
def _text_lines(lab) -> float:
    """How many lines of the generated text's font the text view shows."""
    line = QtGui.QFontMetricsF(lab.text._base.font()).lineSpacing()
    return lab.text_view.viewport().height() / line


def test_ngrams_text_keeps_six_lines_and_the_maths_names_the_vocabulary(qtbot, make_window):
    window = _window(make_window, "ngrams", True)
    lab = open_lab(window, "ngrams")
    snap = run_to(lab, 98)
    assert snap.kind == "token"
    for maths in (False, True):  # with the maths panel folded and opened (F1)
        window.set_maths_visible(maths)
        qtbot.wait(30)
        assert _text_lines(lab) >= 6, f"the generated text shows {_text_lines(lab):.1f} lines (maths {maths})"
        problems = checks.all_problems(lab, window)
        if not maths:
            problems += checks.main_plot_room(lab, window)
        assert not problems, problems
    window.set_maths_visible(False)
    # the perplexity run's maths panel: the vocabulary of the model on screen, not 27 letters
    lab.run_mode("perplexity")
    wait_until(lambda: lab.runner.current is not None and lab.runner.current.mode == "perplexity"
               and lab.runner.current.kind == "cell", what="the first perplexity cell")
    lab.pause()
    snap = run_to(lab, lab.runner.current.step)
    text = lab.maths.toPlainText()
    assert "27 symbols" not in text
    V = snap.vocab_size or snap.zipf_rank.size  # the model's |V|, else the corpus's distinct tokens
    assert V > 1000 and f"{V:,}" in text and f"{math.log2(V):.2f}" in text, text


# --------------------------------------------------------------------------- PCA
def _tile_px(view, tile_w: int, tile_h: int) -> float:
    """The on-screen size (pixels) of a tile of ``tile_w`` × ``tile_h`` data units in an image view."""
    vb = view.plot_item.getViewBox()
    px, py = vb.viewPixelSize()
    return min(tile_w / px, tile_h / py)


def test_pca_eigen_digits_are_large_and_the_race_names_its_solvers(qtbot, make_window):
    from app.labs.pca import lab as pca_lab
    from app.labs.pca.side_tasks import RACE_SOLVERS

    window = _window(make_window, "pca", True)
    lab = open_lab(window, "pca")
    snap = run_to(lab, 190)
    h, w = lab._data.shape
    assert snap.component >= 3  # three eigen-digits found
    for tab in (pca_lab.TAB_POWER, pca_lab.TAB_COMPRESSION):
        lab.tabs.setCurrentIndex(tab)
        qtbot.wait(50)
        views = [lab.found_view, lab.iterate_view] if tab == pca_lab.TAB_POWER else [lab.gallery]
        for view in views:
            size = _tile_px(view, w, h)
            assert size >= MIN_TILE_PX, f"tab {tab}: {view._title!r} draws {h}×{w} digits {size:.0f} px tall"
        assert not checks.all_problems(lab, window), checks.all_problems(lab, window)
    # the race: each bar named by its solver's whole name, every name shown whole
    lab.tabs.setCurrentIndex(pca_lab.TAB_RACE)
    lab.start_race()
    wait_until(lambda: lab.race_button.isEnabled() and lab.race_rows, what="the race")
    qtbot.wait(50)
    axis = lab.race_panel.plot_item.getAxis("left")
    labels = sorted(text for _value, text in axis._tickLevels[0]) if axis._tickLevels else []
    assert labels == sorted(label for _m, label in RACE_SOLVERS)
    image = QtGui.QImage(8, 8, QtGui.QImage.Format.Format_ARGB32)  # painted on while the painter lives
    painter = QtGui.QPainter(image)
    try:
        texts = axis.generateDrawSpecs(painter)[2]
    finally:
        painter.end()
    box = axis.boundingRect()
    for rect, _flags, text in texts:
        assert box.contains(rect), f"the race's label {text!r} is cut by its axis"
    assert not checks.all_problems(lab, window), checks.all_problems(lab, window)


# --------------------------------------------------------------------------- PageRank
def _labels_distinct_and_apart(lab):
    shown = lab.labels_shown()
    texts = [t for _, t, _ in shown]
    assert len(shown) >= 3 and len(set(texts)) == len(texts), texts
    for k, (_i, a, ra) in enumerate(shown):
        for _j, b, rb in shown[k + 1:]:  # apart by a couple of pixels, not touching
            inter = ra.adjusted(-2, -1, 2, 1).intersected(rb)
            assert inter.width() <= 0 or inter.height() <= 0, (a, b)
    return shown


def _table_cells_cut(lab) -> list[str]:
    table = lab.table
    metrics = QtGui.QFontMetrics(table.font())
    cut = []
    for row in range(table.rowCount()):
        for col in range(table.columnCount()):
            item = table.item(row, col)
            if item is None or table.isColumnHidden(col) or not item.text():
                continue
            # the item delegate's text margin: the focus frame's plus one pixel on each side
            margin = table.style().pixelMetric(QtWidgets.QStyle.PixelMetric.PM_FocusFrameHMargin, None, table) + 1
            room = table.columnWidth(col) - 2 * margin
            if metrics.horizontalAdvance(item.text()) > room:
                cut.append(item.text())
    return cut


def test_pagerank_labels_are_distinct_apart_and_whole(qtbot, make_window, tmp_path):
    window = _window(make_window, "pagerank", False)
    lab = open_lab(window, "pagerank")
    lab.form.set_values({"surfer_moves": 20, "moves_per_step": 5})
    lab.after_params_restored()
    run_to(lab, 20)  # the power method's first iterates: ranks still close
    qtbot.wait(30)
    _labels_distinct_and_apart(lab)
    assert not _table_cells_cut(lab), _table_cells_cut(lab)
    window.set_projector(True)
    qtbot.wait(30)
    lab.runner.flush()
    shown = _labels_distinct_and_apart(lab)
    g = lab.runner.current.graph
    assert "Index" not in [t for _, t, _ in shown]  # 30 pages have that title: it names none of them
    assert all(g.names[i] in lab._tip(data=i) for i, _, _ in shown)  # hovering names the page
    window.set_projector(False)
    qtbot.wait(30)
    assert not _table_cells_cut(lab), _table_cells_cut(lab)

    # a Pajek network file: its headings are sections, not pages
    path = tmp_path / "four.net"
    path.write_text('*Vertices 4\n1 "home"\n2 "about"\n3 "blog"\n4 "news"\n*Arcs\n1 2\n2 3\n3 1\n1 3\n4 1\n',
                    encoding="utf-8")
    lab.open_graph(str(path))
    wait_until(lambda: lab.runner.current is not None and lab.runner.current.graph.n == 4
               or lab.runner.error is not None, what="the Pajek graph")
    g = lab.runner.current.graph
    assert g.names == ["home", "about", "blog", "news"] and int(g.adjacency.nnz) == 5
    assert "Pajek" in lab.file_label.text() or "Pajek" in lab.file_label.toolTip()


# --------------------------------------------------------------------------- segmentation
def test_segmentation_restarts_equal_within_1e6_are_one_solution(qtbot, make_window):
    from app.labs.segmentation import side_tasks

    window = _window(make_window, "segmentation", True)
    lab = open_lab(window, "segmentation")
    tabs = lab.plots
    tabs.setCurrentIndex(next(i for i in range(tabs.count()) if tabs.widget(i).isAncestorOf(lab.restarts_panel)))
    # the final objectives of the default's 20 restarts as the engine finds them: four centre
    # sets, their J equal to within 7e-7 (rounding in the stopping rule, not other minima)
    J = np.array([73.58715469, 73.58715469, 73.58715469, 73.58715469, 73.58715469, 73.58720238, 73.58720238,
                  73.58715469, 73.58715469, 73.58720238, 73.58715469, 73.58720238, 73.58720238, 73.58715469,
                  73.58720238, 73.58714912, 73.58714834, 73.58715469, 73.58720238, 73.58715469])
    engine_ids = np.array([0, 0, 0, 0, 0, 1, 1, 0, 0, 1, 0, 1, 1, 0, 1, 2, 3, 0, 1, 0])
    res = side_tasks.RestartsResult(inertias=J, solution_ids=engine_ids, n_distinct=4, best_index=16,
                                    init="k-means++", maps=[], chosen=np.zeros(4, int), shape=(4, 4), done=True)
    lab._restarts_item(res)
    qtbot.wait(30)
    text = QtGui.QTextDocumentFragment.fromHtml(lab.restarts_label.text()).toPlainText()
    assert "1 distinct solution" in text, text
    brushes = {b.color().name() for b in lab.restarts_points.data["brush"]}
    assert len(brushes) == 1  # one colour: one solution
    lo, hi = lab.restarts_panel.plot_item.getViewBox().viewRange()[1]
    assert hi - lo >= 1e-6 * J.max(), f"the J axis spans {hi - lo:.2e}: rounding noise magnified"
    ticks = {t for _r, _f, t in _tick_texts(lab.restarts_panel.plot_item.getAxis("left"))}
    assert len({round(float(t.replace('−', '-')), 4) for t in ticks if t}) == len(ticks), ticks
    # two solutions apart by more than that stay two
    res2 = side_tasks.RestartsResult(inertias=np.array([73.5, 73.5, 74.1]), solution_ids=np.array([0, 0, 1]),
                                     n_distinct=2, best_index=0, init="k-means++", maps=[],
                                     chosen=np.zeros(4, int), shape=(4, 4), done=True)
    lab._restarts_item(res2)
    assert "2 distinct solutions" in lab.restarts_label.text()
    # the restarts' k-means and the "k-means vs EM" tab's run on one feature space: the same
    # features (and their scaling) for every method of a family
    params = lab.params()
    a = side_tasks.restart_features(params["method"], params, lab.seed, lab.source())
    family, _ctx, Xk, *_rest = side_tasks.compare_models(params, lab.seed, lab.source())
    np.testing.assert_array_equal(a, Xk)
    assert lab.restarts_panel.labels[2] == "J on histogram fractions"  # the axis names that scale


def _tick_texts(axis):
    image = QtGui.QImage(8, 8, QtGui.QImage.Format.Format_ARGB32)  # painted on while the painter lives
    painter = QtGui.QPainter(image)
    try:
        specs = axis.generateDrawSpecs(painter)
    finally:
        painter.end()
    return specs[2] if specs else []
