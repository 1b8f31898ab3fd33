"""What the screen shows is the truth: checks on what is drawn, for every lab.

The maths panel is the product's promise of "live numbers": whenever the run is not playing
(paused, finished, stepped, stepped back, scrubbed, reset) it shows ``maths_html`` of the
snapshot on screen.
"""

import pytest

from app import registry

LAB_IDS = [cls.id for cls in registry.discover()]


def _maths_in_step(qtbot, lab):
    r = lab.runner
    qtbot.waitUntil(lambda: r.settled and not r.playing, timeout=30_000)
    qtbot.waitUntil(lambda: not r._dirty, timeout=30_000)
    snap = r.current
    assert snap is not None
    expected = lab.maths_html(snap)
    assert lab.maths._html == expected, f"{lab.id}: maths panel is not that of step {snap.step}"


@pytest.mark.parametrize("lab_id", LAB_IDS)
def test_maths_panel_follows_the_step_on_screen(qtbot, make_window, lab_id):
    window = make_window(lab_ids=[lab_id])
    lab = window.show_lab(lab_id)
    r = lab.runner
    qtbot.waitUntil(lambda: r.current is not None or r.error is not None, timeout=30_000)
    assert r.error is None, r.error
    r.set_rate(None)  # as fast as possible: the throttle drops most frames' maths

    lab.play()
    qtbot.waitUntil(lambda: len(r.timeline) >= 25 or r.finished or r.error is not None, timeout=60_000)
    lab.pause()
    _maths_in_step(qtbot, lab)

    if not r.finished:
        lab.step()
        qtbot.waitUntil(lambda: r.settled, timeout=30_000)
        _maths_in_step(qtbot, lab)
    lab.step_back()
    _maths_in_step(qtbot, lab)
    lab.runbar.slider.setValue(0)
    _maths_in_step(qtbot, lab)
    lab.runbar.slider.setValue(lab.runbar.slider.maximum())
    _maths_in_step(qtbot, lab)

    lab.reset()
    qtbot.waitUntil(lambda: r.current is not None, timeout=30_000)
    _maths_in_step(qtbot, lab)
    window.close()


@pytest.mark.parametrize("lab_id", ["classifiers", "trees", "segmentation"])
def test_maths_panel_shows_the_last_step_when_the_run_ends(qtbot, make_window, lab_id):
    window = make_window(lab_ids=[lab_id])
    lab = window.show_lab(lab_id)
    r = lab.runner
    qtbot.waitUntil(lambda: r.current is not None, timeout=30_000)
    lab.play()  # at the run bar's default speed, as a class watches it
    qtbot.waitUntil(lambda: r.finished or r.error is not None, timeout=120_000)
    assert r.error is None, r.error
    _maths_in_step(qtbot, lab)
    assert r.current is r.timeline.last
    window.close()


@pytest.mark.parametrize("size", [(1024, 768), (1280, 800)], ids=["1024x768", "1280x800"])
def test_f1_opens_the_maths_panel_in_projector_mode(qtbot, make_window, size):
    from PySide6 import QtCore

    window = make_window(lab_ids=["classifiers", "trees"])
    window.resize(*size)
    lab = window.show_lab("classifiers")
    qtbot.waitUntil(lambda: lab.runner.current is not None, timeout=30_000)
    window.set_projector(True)
    qtbot.waitUntil(lambda: lab.splitter.sizes()[2] == 0, timeout=5_000)  # folded for the plots
    plots_before = lab.splitter.sizes()[1]

    qtbot.keyClick(window, QtCore.Qt.Key.Key_F1)
    qtbot.waitUntil(lambda: lab.splitter.sizes()[2] >= 150, timeout=5_000)
    assert lab.maths.isVisible() and window.maths_action.isChecked()
    assert lab.splitter.sizes()[1] < plots_before  # the plots yield
    assert lab.maths.toPlainText().strip()
    other = window.show_lab("trees")  # the other labs follow
    qtbot.waitUntil(lambda: other.splitter.sizes()[2] >= 150, timeout=5_000)

    qtbot.keyClick(window, QtCore.Qt.Key.Key_F1)  # F1 again folds it away
    qtbot.waitUntil(lambda: other.splitter.sizes()[2] == 0, timeout=5_000)
    window.set_projector(False)
    qtbot.waitUntil(lambda: other.splitter.sizes()[2] >= 150, timeout=5_000)


def _map_covers_view(qtbot, lab):
    """The decision map's image, in scene coordinates, covers the plot's whole data area."""
    from PySide6 import QtCore

    r = lab.runner

    def covered():
        image = lab.decision.image
        if not image.isVisible() or image.image is None:
            return False
        area = lab.canvas.plot_item.getViewBox().sceneBoundingRect()
        drawn = image.sceneBoundingRect()
        return drawn.adjusted(-1, -1, 1, 1).contains(QtCore.QRectF(area))

    qtbot.waitUntil(lambda: r.settled and not r._prepare_task.busy, timeout=30_000)
    qtbot.waitUntil(covered, timeout=10_000)


MAP_CASES = [("classifiers", {"classifier": "perceptron"}), ("classifiers", {"classifier": "svm_rbf"}),
             ("trees", {"method": "adaboost"}), ("trees", {"method": "tree"}), ("trees", {"method": "forest"})]


@pytest.mark.parametrize("size", [(1024, 768), (1280, 800)], ids=["1024x768", "1280x800"])
@pytest.mark.parametrize("lab_id, params", MAP_CASES, ids=[f"{a}-{next(iter(b.values()))}" for a, b in MAP_CASES])
def test_decision_map_covers_the_visible_range(qtbot, make_window, lab_id, params, size):
    window = make_window(lab_ids=[lab_id])
    window.resize(*size)
    lab = window.show_lab(lab_id)
    r = lab.runner
    lab.form.set_values(params, quiet=False)
    qtbot.waitUntil(lambda: r.current is not None, timeout=30_000)
    lab.run_to(12)
    qtbot.waitUntil(lambda: r.settled and (r.current.step >= 12 or r.finished), timeout=60_000)
    _map_covers_view(qtbot, lab)
    window.set_projector(True)  # at run time: the plot changes shape
    _map_covers_view(qtbot, lab)
    window.set_controls_visible(False)  # side panel folded: the plot gets wider
    _map_covers_view(qtbot, lab)
    window.set_controls_visible(True)
    window.set_projector(False)
    _map_covers_view(qtbot, lab)
