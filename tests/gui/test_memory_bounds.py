"""What a lab keeps while it is used stays bounded: a scatter plot redrawn with new pens and
brushes hundreds of times keeps a few dozen symbols, not one per redraw."""

import numpy as np
import pyqtgraph as pg

from app.widgets.atlas import MAX_ATLAS_SYMBOLS, atlas_sizes, bound_symbol_atlases


def test_a_scatter_redrawn_with_new_pens_keeps_a_bounded_atlas(qtbot):
    bound_symbol_atlases()
    widget = pg.PlotWidget()
    qtbot.addWidget(widget)
    item = pg.ScatterPlotItem()
    widget.addItem(item)
    pos = np.random.default_rng(0).normal(size=(500, 2))
    for k in range(400):
        item.setData(pos=pos, symbol="o", size=8 + k % 3, pen=pg.mkPen("k"), brush=pg.mkBrush(200, 0, 0))
    assert len(item.fragmentAtlas) <= MAX_ATLAS_SYMBOLS
    # what is drawn still comes from the atlas: every point has its symbol's place in it
    assert np.all(item.data["sourceRect"]["w"] > 0)
    # a plot that really uses many symbols keeps them all (and is rebuilt only past twice that)
    many = [pg.mkBrush(i, 0, 0) for i in range(100)]
    for _ in range(3):
        item.setData(pos=pos[:100], symbol="o", size=8, pen=None, brush=many)
    assert 100 <= len(item.fragmentAtlas) <= 2 * 100 + 1


def test_the_classifiers_canvas_keeps_its_atlases_bounded(qtbot, make_window):
    window = make_window(lab_ids=["classifiers"])
    lab = window.show_lab("classifiers")
    qtbot.waitUntil(lambda: lab.runner.current is not None, timeout=20_000)
    n = len(lab.canvas.y)
    for k in range(300):  # every refresh draws with new brush and pen objects
        mask = np.zeros(n, dtype=bool)
        mask[k % max(n, 1)] = True
        lab.canvas.set_test_mask(mask)
    assert max(atlas_sizes(lab)) <= MAX_ATLAS_SYMBOLS


def test_a_failed_side_task_is_logged_without_keeping_source_files():
    import linecache

    from app.tasks import TaskState, run_task

    def refuse():
        raise ValueError("refused")

    linecache.clearcache()
    state = TaskState()
    run_task(state, refuse, (), {})
    assert state.error == "refused"
    assert not linecache.cache  # the log names file, line and function; no file was read


def test_closing_the_window_empties_the_result_caches(qtbot, make_window):
    """What the runs kept for the next one (layouts, pyramids, fitted stacks) does not outlive
    the window: its shutdown empties every result cache of the engine and the labs."""
    from smlengine.cache import _ALL, LRUCache

    window = make_window(lab_ids=["pca"])
    lab = window.show_lab("pca")
    qtbot.waitUntil(lambda: lab.runner.current is not None, timeout=30_000)
    kept = LRUCache(4)
    kept.put("a run's result", np.zeros(1000))
    assert sum(len(c) for c in list(_ALL)) >= 1
    window.shutdown()
    assert len(kept) == 0 and sum(len(c) for c in list(_ALL)) == 0


def test_closing_one_of_two_windows_keeps_the_caches_the_other_uses(qtbot, make_window):
    from smlengine.cache import LRUCache

    first, second = make_window(lab_ids=["pca"]), make_window(lab_ids=["pca"])
    kept = LRUCache(4)
    kept.put("the other window's photo", np.zeros(10))
    first.shutdown()
    assert len(kept) == 1  # the second window is still open
    second.shutdown()
    assert len(kept) == 0
