"""What the screen shows is the truth: checks on what is drawn, for every lab.

The maths panel is the product's promise of "live numbers": whenever the run is not playing
(paused, finished, stepped, stepped back, scrubbed, reset) it shows ``maths_html`` of the
snapshot on screen.
"""

import os

import pytest

from lab_templates import CHECKED as LAB_IDS  # the registered labs and the templates


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


def test_every_readout_names_the_step_drawn_while_playing_under_load(qtbot, make_window):
    """Run bar, slider, status bar and maths panel name the step whose picture is on screen at
    every frame and every change of state, also when batches of steps arrive between frames: a
    busy machine is made of a worker that computes several steps per frame and a slow draw."""
    import time

    window = make_window(lab_ids=["example"])
    window.resize(1280, 760)
    lab = window.show_lab("example")
    r = lab.runner
    qtbot.waitUntil(lambda: r.current is not None, timeout=30_000)
    drawn: list = []
    render, make_run = lab.render, lab.make_run

    def slow_render(snapshot, prepared, history):
        drawn.append(snapshot)
        time.sleep(0.02)  # the load: drawing a frame takes as long as several steps
        render(snapshot, prepared, history)

    def slow_run(params, seed):
        steps = make_run(params, seed)

        def paced():
            for snapshot in steps():
                time.sleep(0.004)  # the load: the worker shares the machine
                yield snapshot
        return paced

    lab.render, lab.make_run = slow_render, slow_run
    lab.start()
    drawn.clear()
    wrong: list[str] = []
    looked = []

    def look(*_args) -> None:
        if not drawn or r.current is None:
            return
        snap = drawn[-1]
        looked.append(snap.step)
        slider = lab.runbar.slider.value()
        shown = {"run bar": lab.runbar.step_label.text().split(" · ")[0],
                 "status bar": window.status_step.text(),
                 "slider": f"step {r.timeline[slider].step}" if slider < len(r.timeline) else "outside the timeline"}
        for name, text in shown.items():
            if text != f"step {snap.step}":
                wrong.append(f"{name} says {text!r}, the picture is of step {snap.step}")
        if lab.maths._html != lab.maths_html(snap) or lab.maths._shown != lab.maths._html:
            wrong.append(f"the maths panel is not that of step {snap.step}")

    r.stateChanged.connect(look)
    r.frameChanged.connect(look)
    r.set_rate(None)
    lab.play()
    qtbot.waitUntil(lambda: r.finished or len(drawn) >= 40 or r.error is not None, timeout=60_000)
    lab.pause()
    qtbot.waitUntil(lambda: r.settled, timeout=30_000)
    r.stateChanged.disconnect(look)
    r.frameChanged.disconnect(look)
    assert r.error is None, r.error
    assert len(set(looked)) >= 10, "too few frames were drawn to judge"
    assert max(b.step - a.step for a, b in zip(drawn, drawn[1:])) > 1, "no frame skipped steps: no load"
    assert not wrong, f"{len(wrong)} of {len(looked)} looks: " + "; ".join(dict.fromkeys(wrong[:8]))
    window.close()


def test_an_error_banner_moves_nothing_under_the_mouse(qtbot, make_window):
    """A message that comes and goes (a refused file, a run that cannot start) leaves the run
    bar's buttons, the parameters and the plots' top edges where they were."""
    from PySide6 import QtCore, QtWidgets

    window = make_window(lab_ids=["example"])
    window.resize(1024, 728)
    lab = window.show_lab("example")
    qtbot.waitUntil(lambda: lab.runner.current is not None, timeout=30_000)
    watched = [lab.runbar.play_button, lab.runbar.reset_button, lab.form,
               *lab.controls_scroll.widget().findChildren(QtWidgets.QPushButton), lab.plots]

    def places():
        return [(w.mapTo(window, QtCore.QPoint(0, 0)).x(), w.mapTo(window, QtCore.QPoint(0, 0)).y()) for w in watched]

    qtbot.wait(30)
    before = places()
    lab.show_error("Could not open points.csv: line 3 has 2 values, the file's header names 3 columns. " * 3)
    qtbot.waitUntil(lambda: lab.banner.isVisible() and lab.banner.height() > 20, timeout=5_000)
    qtbot.wait(30)
    assert places() == before
    lab.clear_error()
    qtbot.wait(30)
    assert places() == before
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
    ticked = window.maths_action.isChecked  # View ▸ Show the maths says whether the panel is on screen
    window.set_projector(True)
    qtbot.waitUntil(lambda: lab.splitter.sizes()[2] == 0, timeout=5_000)  # folded for the plots
    assert not ticked()
    plots_before = lab.splitter.sizes()[1]

    qtbot.keyClick(window, QtCore.Qt.Key.Key_F1)
    qtbot.waitUntil(lambda: lab.splitter.sizes()[2] >= 150, timeout=5_000)
    assert lab.maths.isVisible() and ticked()
    assert lab.splitter.sizes()[1] < plots_before  # the plots yield
    assert lab.maths.toPlainText().strip()
    other = window.show_lab("trees")  # the other labs follow
    qtbot.waitUntil(lambda: other.splitter.sizes()[2] >= 150, timeout=5_000)
    assert ticked()

    qtbot.keyClick(window, QtCore.Qt.Key.Key_F1)  # F1 again folds it away
    qtbot.waitUntil(lambda: other.splitter.sizes()[2] == 0, timeout=5_000)
    assert not ticked()
    window.set_projector(False)
    qtbot.waitUntil(lambda: other.splitter.sizes()[2] >= 150, timeout=5_000)
    assert ticked()
    window.set_projector(True)  # F5 again folds it: unticked
    qtbot.waitUntil(lambda: other.splitter.sizes()[2] == 0, timeout=5_000)
    assert not ticked() and window.maths_wanted  # normal mode will show it again
    window.set_projector(False)


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


# ---------------------------------------------------------------------------------------
# Generic checks on what is drawn: every lab, every tab, every method choice, at the two
# classroom sizes, in normal mode and with projector mode switched on at run time.
import picture_checks as checks  # noqa: E402 - the shared checks live beside the tests

#: the choice that changes what a lab draws (each of its values is walked); labs declare it
#: as ``method_param``, the rest are listed here
METHOD_PARAMS = {"classifiers": "classifier", "trees": "method", "segmentation": "method", "faces": "mode"}
PICTURE_SIZES = [(1024, 768), (1280, 800)]
#: kinds of problem still open per lab (issue "Every picture tells the truth"): the checks
#: run for every lab, and only these kinds are let through where named
OPEN: dict[str, tuple[str, ...]] = {
    # both side panels opened beside these labs' rows of plots on a 1024 px projector: the maths
    # panel and the parameters yield to their least widths, and the plots still need 80–90 px more
    "regression": ("1024x768 projector F1+F2 open", "plot 'Error vs λ' clipped by its container"),
    # the Condorcet plot beside the ensemble's curves is a few pixels short of its width
    "trees": ("1024x768 projector F1+F2 open", "plot 'Condorcet (p = 0.70)' clipped by its container"),
    "classifiers": ("projector F1+F2 open tab 1: title 'k-fold cross-validation error",
                    "projector F1+F2 open tab 0: axis label 'm(α) − M(α)"),
    "sampling": ("projector F1+F2 open tab 0: axis label 'proposals",
                 "projector F1+F2 open tab 2: title 'ACF, chain 1'"),
    # found by the F1+F2 walk, left to the labs' owners (issue 42, item 1)
    "hmm": ("projector F1+F2 open tab 2: left axis: ticks 'fair' and 'loaded' overlap",),
    "mixtures": ("projector F1+F2 open tab 3: axis label 'criterion", "projector tab 1: title 'EM, Σₖ"),
    "theory": ("projector F1+F2 open tab 0: axis label 'fraction", "projector F1+F2 open tab 2: title",
               "projector F1+F2 open tab 3: title"),
    "faces": ("projector F1+F2 open tab 1: plot 'FPR' clipped",),
    # the histogram's and shares' plots below the photos get too little height there
    "segmentation": ("1024x768 projector F1+F2 open tab 0: axis label 'probability",
                     "1024x768 projector F1+F2 open tab 0: axis label 'share of pixels"),
}


def _method_values(lab) -> list:
    name = getattr(lab, "method_param", "") or METHOD_PARAMS.get(lab.id, "")
    if not name:
        return [None]
    return [value for value, _label in lab.form.params[name].choices]


def _walk_tabs(qtbot, lab, window, where, problems, *, main=False):
    from PySide6 import QtWidgets

    tabs = lab.plots if isinstance(lab.plots, QtWidgets.QTabWidget) else None
    for index in range(tabs.count() if tabs else 1):
        if tabs:
            tabs.setCurrentIndex(index)
        qtbot.wait(30)
        here = f"{where} tab {index}"
        found = checks.all_problems(lab, window) + checks.plots_clipped(lab, window)
        if main and index == 0:
            found += checks.main_plot_room(lab, window)
        problems += [f"{here}: {p}" for p in found]
    if tabs:
        tabs.setCurrentIndex(0)


def _toggle_panels(qtbot, window, lab, shown: bool) -> None:
    """The maths panel and the parameters on screen (``shown``) or not, as F1 and F2 leave them."""
    window.set_maths_shown(shown)
    window.set_controls_shown(shown)
    qtbot.waitUntil(lambda: lab.maths_shown() == shown and lab.controls_shown() == shown, timeout=5_000)
    qtbot.wait(30)


@pytest.mark.parametrize("projector", [False, True], ids=["normal", "projector"])
@pytest.mark.parametrize("size", PICTURE_SIZES, ids=[f"{w}x{h}" for w, h in PICTURE_SIZES])
@pytest.mark.parametrize("lab_id", LAB_IDS)
def test_what_is_drawn_tells_the_truth(qtbot, make_window, lab_id, size, projector):
    window = make_window(lab_ids=[lab_id])
    window.resize(size[0], size[1] - 40)
    lab = window.show_lab(lab_id)
    r = lab.runner
    qtbot.waitUntil(lambda: r.current is not None or r.error is not None, timeout=30_000)
    problems: list[str] = []
    first = True
    for value in _method_values(lab):
        if value is not None:
            lab.form.set_value(lab.method_param or METHOD_PARAMS[lab_id], value)
        qtbot.waitUntil(lambda: r.current is not None or r.error is not None, timeout=30_000)
        lab.run_to(20)
        qtbot.waitUntil(lambda: r.settled, timeout=60_000)
        r.flush()
        if projector:
            window.set_projector(True)  # switched on at run time, as F5 does
            qtbot.wait(50)
        where = f"{lab_id}[{value}] {size[0]}x{size[1]}{' projector' if projector else ''}"
        _walk_tabs(qtbot, lab, window, where, problems, main=projector)
        if projector or first:
            # F1 and F2 the other way: opened where projector mode folds them (the plots
            # yield), folded where normal mode shows them (the plots widen)
            _toggle_panels(qtbot, window, lab, projector)
            _walk_tabs(qtbot, lab, window, where + (" F1+F2 open" if projector else " F1+F2 folded"), problems)
            _toggle_panels(qtbot, window, lab, not projector)
        first = False
        if lab.runner.playing:
            lab.pause()
        if projector:
            window.set_projector(False)
            qtbot.wait(20)
    still_open = () if os.environ.get("SMLLAB_ALL_PROBLEMS") else OPEN.get(lab_id, ())
    problems = [p for p in problems if not any(kind in p for kind in still_open)]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("orientation", ["bottom", "left"])
def test_tick_labels_never_run_together(qtbot, orientation):
    """A short axis at projector font sizes: pyqtgraph's own axis runs its labels together
    ("50 100150"); the app's axis spaces them out. The check sees both."""
    import numpy as np
    import pyqtgraph as pg
    from PySide6 import QtGui, QtWidgets

    from app.widgets.plots import TidyAxis

    font = QtGui.QFont()
    font.setPointSizeF(16)
    holders = {}
    for name, axis in (("pyqtgraph", pg.AxisItem(orientation)), ("app", TidyAxis(orientation))):
        holder = QtWidgets.QWidget()
        lay = QtWidgets.QVBoxLayout(holder)
        plot = pg.PlotWidget(axisItems={orientation: axis})
        lay.addWidget(plot)
        axis.setTickFont(font)
        plot.plot(np.linspace(0, 150, 50), np.linspace(0.02, 0.08, 50) if orientation == "left" else np.zeros(50))
        plot.setXRange(0, 150, padding=0.02)
        if orientation == "left":
            plot.setYRange(0.02, 0.08, padding=0)
        holder.resize(*((130, 120) if orientation == "bottom" else (170, 80)))
        qtbot.addWidget(holder)
        holder.show()
        qtbot.waitExposed(holder)
        qtbot.wait(20)
        holders[name] = holder
    assert checks.tick_label_overlaps(holders["pyqtgraph"]), "the check must see pyqtgraph's overlap"
    assert checks.tick_label_overlaps(holders["app"]) == []


def _tick_texts(panel, name: str) -> list[str]:
    from PySide6 import QtGui

    axis = panel.plot_item.getAxis(name)
    image = QtGui.QImage(8, 8, QtGui.QImage.Format.Format_ARGB32)
    painter = QtGui.QPainter(image)
    try:
        specs = axis.generateDrawSpecs(painter)
    finally:
        painter.end()
    return [text for _rect, _flags, text in specs[2]] if specs else []


@pytest.mark.parametrize("value, noise, calm", [(0.0, 0.0, True), (0.0, 0.0, False), (73.5871, 1e-9, False),
                                                (73.5871, 1e-9, True)],
                         ids=["zero-playing", "zero", "rounding-noise", "rounding-noise-playing"])
def test_a_constant_curve_keeps_a_sane_axis(qtbot, value, noise, calm):
    """A curve that is one value (a perceptron's cost at zero, an objective equal to 1e-6) is
    drawn on an axis that spans a sane range about it: no "±2e-10" ticks, no rounding noise
    magnified into a slope."""
    import numpy as np

    from app.widgets.plots import PlotPanel

    panel = PlotPanel("cost", "step", "cost")
    qtbot.addWidget(panel)
    panel.resize(400, 300)
    panel.show()
    qtbot.waitExposed(panel)
    panel.set_calm(calm)
    xs = np.arange(12.0)
    ys = value + noise * np.sin(xs)
    if calm:
        panel.curve("cost").extend(xs, ys)
    else:
        panel.curve("cost").set(xs, ys)
    qtbot.wait(20)
    lo, hi = panel.plot_item.getViewBox().viewRange()[1]
    assert lo < value < hi
    assert hi - lo >= 0.2 * max(abs(value), 1.0), f"the axis spans {lo!r} … {hi!r}"
    texts = _tick_texts(panel, "left")
    assert texts and not any("e-" in t for t in texts), texts


def test_an_empty_log_axis_names_its_decades(qtbot):
    """A log axis with nothing drawn yet ticks its decades, not a bare "2 3 4 … 9"."""
    from app.widgets.plots import PlotPanel

    panel = PlotPanel("error", "step", "error", log_y=True)
    qtbot.addWidget(panel)
    panel.resize(400, 300)
    panel.show()
    qtbot.waitExposed(panel)
    qtbot.wait(20)
    texts = _tick_texts(panel, "left")
    assert any(t in ("1", "10", "10¹", "0.1", "10⁻¹") for t in texts), texts


@pytest.mark.parametrize("lab_id", LAB_IDS)
def test_any_plot_can_be_enlarged_and_put_back(qtbot, make_window, lab_id):
    from PySide6 import QtCore

    window = make_window(lab_ids=[lab_id])
    window.resize(1280, 760)
    lab = window.show_lab(lab_id)
    r = lab.runner
    qtbot.waitUntil(lambda: r.current is not None or r.error is not None, timeout=30_000)
    plot = lab.main_plot()
    if plot is None:
        pytest.skip(f"{lab_id} has no main plot")
    qtbot.wait(50)
    area = lab.plots.height()
    qtbot.keyClick(window, QtCore.Qt.Key.Key_F11)  # Run ▸ Enlarge the main plot
    qtbot.waitUntil(lambda: plot.isVisible() and plot.height() >= 0.8 * area, timeout=5_000)
    assert lab.enlarged_plot is plot
    hidden, saved, pages = list(lab._enlarged[1]), list(lab._enlarged[2]), list(lab._enlarged[3])
    lab.play()  # the run stays live
    qtbot.waitUntil(lambda: len(r.timeline) >= 3 or r.finished or r.error is not None, timeout=30_000)
    lab.pause()
    lab.toggle_enlarged()  # again: everything back, the pages shown before in front again
    qtbot.waitUntil(lambda: not any(w.isHidden() for w in hidden), timeout=5_000)
    assert all(stack.currentWidget() is page for stack, page in pages)
    for splitter, sizes in saved:  # every pane back at its size
        qtbot.waitUntil(lambda: all(abs(a - b) <= 2 for a, b in zip(splitter.sizes(), sizes)), timeout=5_000)
    assert lab.enlarged_plot is None
    window.close()
