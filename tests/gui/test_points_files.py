"""A student's own points file gets one rule in every lab that opens points: the same file reads
as the same numbers (a French spreadsheet's decimal commas included), and a file a lab cannot
use (one class, one row, values it cannot draw, columns it was not asked for) is refused before
it replaces anything, with the same words in every lab that needs the same thing."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import file_fuzz
import lab_templates
import numpy as np
import pytest

import app
from app import style as theme
from app import registry
from app.points_data import FILE_COLUMNS, MAX_ABS, MIN_POINTS, MIN_SPREAD
from app.tasks import live_threads
from smlengine.datasets import read_points
from app.testing import drawn, open_lab, wait_until

#: the issue's files, as a student's spreadsheet or editor writes them
DECIMAL_COMMA = "x;y;label\n0,010;0,100;1\n0,5;-1,25;-1\n2;0,35;1\n-0,75;1;-1\n"
DECIMAL_COMMA_POINTS = [[0.01, 0.1], [0.5, -1.25], [2.0, 0.35], [-0.75, 1.0]]
ONE_CLASS = "x1,x2,label\n0,0,1\n1,1,1\n2,0.5,1\n"
ONE_CLASS_POINTS = [[0, 0], [1, 1], [2, 0.5]]

#: file -> (its text, the message every lab of a kind gives, by kind)
REFUSED = {
    "one row": ("x1,x2,label\n0.5,1.5,1\n", {k: "this lab needs at least 2 points, there is 1"
                                           for k in ("labelled", "unlabelled", "xy")}),
    "huge values": ("x1,x2,label\n1e301,2,1\n6e301,-1e301,-1\n",
                    {"labelled": f"x1 reaches 6e+301; this lab draws coordinates within ±{MAX_ABS:g}",
                     "unlabelled": f"x1 reaches 6e+301; this lab draws coordinates within ±{MAX_ABS:g}",
                     "xy": f"x reaches 6e+301; this lab draws coordinates within ±{MAX_ABS:g}"}),
    "tiny spread": ("x,y,label\n" + "".join(f"{i * 1e-300!r},{i % 3},{1 if i % 2 else -1}\n" for i in range(6)),
                    {"labelled": f"x1 spreads over only 5e-300; this lab draws spreads of at least {MIN_SPREAD:g}",
                     "unlabelled": f"x1 spreads over only 5e-300; this lab draws spreads of at least {MIN_SPREAD:g}",
                     "xy": f"x spreads over only 5e-300; this lab draws spreads of at least {MIN_SPREAD:g}"}),
    "five columns": ("a,b,c,d,e\n1,2,1,4,5\n3,4,-1,6,7\n",
                     {"labelled": "line 1: 5 column(s) (a, b, c, d, e); this lab reads 3 (x1, x2, label)",
                      "unlabelled": "line 1: 5 column(s) (a, b, c, d, e); this lab reads 2 (x1, x2)",
                      "xy": "line 1: 5 column(s) (a, b, c, d, e); this lab reads 2 (x, y)"}),
    "thousands separators": ("x;y;label\n1.000,5;2;1\n3;4;-1\n", {k: "'1.000,5' is not a number"
                                                                  for k in ("labelled", "unlabelled", "xy")}),
    "1_000": ("x,y,label\n1_000,2,1\n3,4,-1\n", {k: "'1_000' is not written as a plain number"
                                                 for k in ("labelled", "unlabelled", "xy")}),
    "full-width digits": ("x,y,label\n１２,2,1\n3,4,-1\n", {k: "'１２' is not written as a plain number"
                                                         for k in ("labelled", "unlabelled", "xy")}),
}
ONE_CLASS_REFUSAL = "this lab needs 2 classes (labels), there is 1: 1"


def _points_labs() -> list[str]:
    """Every lab (templates included) on the points base that opens points files, read from its
    ``lab.py`` (no import before the application exists)."""
    root = Path(app.__file__).parent.parent
    out = []
    for lab_id, package in zip(lab_templates.CHECKED, lab_templates.PACKAGES):
        source = (root / package.replace(".", "/") / "lab.py").read_text(encoding="utf-8")
        if "PointsLab" in source and "add_data_buttons(layout, load=False)" not in source:
            out.append(lab_id)
    return out


POINTS_LABS = _points_labs()


@pytest.fixture(scope="module")
def window(qapp, tmp_path_factory):
    """One window holding every points lab, each opened once and reused by the cases."""
    from app.main_window import MainWindow

    patch = pytest.MonkeyPatch()
    patch.setenv("SMLLAB_CONFIG_DIR", str(tmp_path_factory.mktemp("config")))
    lab_templates.register(POINTS_LABS, patch)
    w = MainWindow(restore=False, autosave=False, lab_ids=POINTS_LABS)
    w.resize(1200, 800)
    w.show()
    yield w
    w.shutdown()
    w.close()
    w.deleteLater()
    theme.manager().set(theme="light", projector=False)
    patch.undo()


@pytest.fixture
def lab(window, request):
    """The lab of the case, shown with its first snapshot drawn; its run joined afterwards
    (the window stays for the next case)."""
    lab = window.show_lab(request.param)
    if not lab.runner.has_run:  # its run was joined at the end of the previous case
        lab.reset()
    lab = open_lab(window, request.param)
    drawn(lab)
    yield lab
    for host in window.hosts.values():  # the window's first lab too, built when the window opened
        if host.lab is not None:
            host.lab.shutdown()
    # a run a load restarted may still be finishing the step it was in (a restart waits
    # 0.5 s for it, then leaves it to end on its own): let it end before the next case
    wait_until(lambda: not live_threads(), what="the abandoned runs to end")


def _state(lab) -> str:
    state = lab.session_state()
    state.pop("step", None)
    return json.dumps(state, sort_keys=True, default=str)


def _write(folder, name: str, text: str) -> str:
    path = os.path.join(folder, name)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)
    return path


def _edit(lab) -> None:
    """The user's own points first: a point added with the mouse (the run restarts)."""
    lab.canvas.add_point(0.25, 0.5, 1.0)
    drawn(lab)


def _refused(lab, path: str, why: str) -> None:
    before = _state(lab)
    X = lab.canvas.X.copy()
    lab.clear_error()
    assert lab.load_points_file(path, wait=True) is False
    wait_until(lambda: lab.error_text != "", what="the banner")
    name = os.path.basename(path)
    assert lab.error_text.startswith(f"⚠ Could not load {name}: ") and why in lab.error_text, lab.error_text
    assert len(lab.error_text) < 400
    np.testing.assert_array_equal(lab.canvas.X, X)  # nothing replaced
    assert _state(lab) == before


@pytest.mark.parametrize("lab", POINTS_LABS, indirect=True)
def test_the_decimal_comma_file_reads_the_same_numbers_in_every_lab(lab, tmp_path):
    path = _write(tmp_path, "french.csv", DECIMAL_COMMA)
    assert lab.load_points_file(path, wait=True), lab.error_text
    np.testing.assert_array_equal(lab.canvas.X, DECIMAL_COMMA_POINTS)
    if lab.points_kind == "labelled":
        np.testing.assert_array_equal(lab.canvas.y, [1, -1, 1, -1])
    drawn(lab)
    assert lab.runner.error is None


@pytest.mark.parametrize("lab", POINTS_LABS, indirect=True)
def test_the_one_class_file_is_refused_by_every_lab_that_needs_classes(lab, tmp_path):
    _edit(lab)
    path = _write(tmp_path, "one class.csv", ONE_CLASS)
    if lab.points_kind == "labelled":
        _refused(lab, path, ONE_CLASS_REFUSAL)
    else:  # a lab without classes reads its coordinates, as every lab reads them
        assert lab.load_points_file(path, wait=True), lab.error_text
        np.testing.assert_array_equal(lab.canvas.X, ONE_CLASS_POINTS)


@pytest.mark.parametrize("lab", POINTS_LABS, indirect=True)
def test_a_file_the_lab_cannot_use_changes_nothing_and_says_why(lab, tmp_path):
    _edit(lab)
    lab.pause()  # the opens, not the run, have the machine
    for name, (text, why) in REFUSED.items():
        _refused(lab, _write(tmp_path, f"{name}.csv", text), why[lab.points_kind])
    # bytes that are no points file, then files put together from the pieces of one: each is
    # adopted, or refused with nothing changed (file_fuzz.py; the other openers: test_failed_opens.py)
    for i, (_suffix, data) in enumerate(file_fuzz.files(lab.id, "points")):
        path = tmp_path / f"random {i}.csv"
        path.write_bytes(data)
        before, X = _state(lab), lab.canvas.X.copy()
        adopted = lab.load_points_file(str(path), wait=True)
        assert not (i == 0 and adopted)  # bytes that are no points file
        if adopted:
            assert len(lab.canvas.X) >= 2 and np.all(np.isfinite(lab.canvas.X)), data
        else:
            wait_until(lambda: path.name in lab.error_text, what="the banner")
            assert len(lab.error_text) < 400 and "Traceback" not in lab.error_text, (data, lab.error_text)
            np.testing.assert_array_equal(lab.canvas.X, X)
            assert _state(lab) == before, data


@pytest.mark.parametrize("lab", ["regression"], indirect=True)
def test_points_the_plots_cannot_draw_are_named_and_the_rest_is_drawn(lab):
    """Points that reached the lab without the file's checks (x spread over 3e-299, put on the
    canvas as drawn points, so the bias–variance sweep runs against the truth): the bias–variance
    tab says what it cannot show, the fit is drawn, nothing reaches the event loop (pytest-qt
    fails a test on an exception in a slot)."""
    x = np.arange(30) * 1e-300
    lab.form.set_value("truth", "sine")
    lab.set_canvas_points(np.column_stack([x, np.arange(30) % 3 * 1.0]))
    lab.points_edited()
    assert lab.has_truth()
    lab.reset()
    drawn(lab)
    wait_until(lambda: not lab.task("sweep").busy, what="the bias–variance sweep")
    assert lab.sweep is not None
    assert lab.sweep_label.text() == ("The bias–variance picture cannot be drawn: x spreads over only 2.9e-299 "
                                      f"(the plots draw spreads of at least {MIN_SPREAD:g}).")
    mean_x = lab.mean_item.getData()[0]
    assert (mean_x is None or len(mean_x) == 0) and lab.runner.error is None
    assert len(lab.fit_item.getData()[0]) > 0  # the fitted curve is drawn


def _plain(text: str) -> str:
    return " ".join(text.replace("``", "`").split())


def test_the_points_files_page_states_the_reader_rule_and_every_lab_s_columns():
    """docs/points-files.md: the reader's rule as its docstring states it, a row per lab that opens
    points with the columns it reads and its most points, and the limits every points lab shares."""
    page = (Path(app.__file__).parent.parent / "docs" / "points-files.md").read_text(encoding="utf-8")
    doc = read_points.__doc__
    rule = doc[doc.index("**The rule.**"):doc.index("**Limits.**")]
    assert _plain(rule) in _plain(page)
    opening = {lab_id for lab_id in POINTS_LABS if lab_id not in lab_templates.TEMPLATES}
    rows = set(re.findall(r"^\| (?!Lab |---)(.+?) \| (.+?) \| ([0-9,]+) \|$", page, flags=re.M))
    expected = set()
    for info in registry.discover():
        if info.id in opening:
            columns = ", ".join(" or ".join(f"`{n}`" for n in ((c,) if isinstance(c, str) else c))
                                for c in FILE_COLUMNS[info.cls.points_kind])
            expected.add((info.cls.title, columns, f"{info.cls.MAX_POINTS:,}"))
    assert rows == expected
    assert f"at least {MIN_POINTS} points" in page and f"within ±{_short(MAX_ABS)}" in page
    assert f"spread over at least {_short(MIN_SPREAD)}" in page


def _short(value: float) -> str:
    """1e6 and 1e-6 as the page writes them."""
    return f"{value:.0e}".replace("e+0", "e").replace("e-0", "e-")
