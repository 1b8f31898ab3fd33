"""Every open either adopts the file or costs the user nothing: for every lab with its own opener
(the points labs: test_points_files.py), edit the lab, then open files it may or may not use
(tests/gui/file_fuzz.py): bytes that are no such file, the issue's files (a constant float TIFF,
an animated GIF, links of 1e-310) and files put together at random from the pieces such files
are made of, or cut short or changed in a few bytes. A refused file leaves the lab's whole saved
state (parameters, seed, user data, the file it names on screen) as it was, with a short banner
that names the file and says why; an adopted one was checked before it replaced anything, so the
lab runs on it and names it. No exception reaches the event loop (the GUI suite fails a test on one)."""

import json
from pathlib import Path

import pytest
from file_fuzz import files

import app

LABS = Path(app.__file__).parent / "labs"
#: the labs on points (PointsLab) all open a points file the same way: test_points_files.py opens
#: these files in each of them, in one window
POINTS_LABS = sorted(p.parent.name for p in LABS.glob("[!_]*/lab.py") if "PointsLab" in p.read_text(encoding="utf-8"))
# lab id -> (method that opens a file, extra keyword arguments, the kind of file it reads)
OPENERS = {
    "pagerank": ("open_graph", {"kind": "edges"}, "edges"),
    "ngrams": ("open_file", {}, "text"),
    "faces": ("open_image_file", {}, "image"),
    "segmentation": ("open_image_file", {}, "image"),
    "pca": ("open_images", {}, "stack"),
}


# ------------------------------------------------------------------ the labs
def _state(lab) -> str:
    state = lab.session_state()
    state.pop("step", None)
    return json.dumps(state, sort_keys=True, default=str)


def _labels(lab) -> dict:
    return {name: getattr(lab, name).text() for name in ("file_label", "data_label", "image_label")
            if getattr(lab, name, None) is not None}


def _edit(lab) -> str:
    """Change one numeric parameter to another value in its range (what a user does first)."""
    for name, p in lab.form.params.items():
        if p.kind not in ("int", "float") or p.minimum is None or p.maximum is None or p.minimum >= p.maximum:
            continue
        if not lab.form.widgets[name].isVisibleTo(lab):
            continue
        value = lab.form.value(name)
        new = p.minimum + 0.75 * (p.maximum - p.minimum) if value < (p.minimum + p.maximum) / 2 else p.minimum
        if p.kind == "int":
            new = int(round(new))
        lab.form.set_value(name, new)
        return name
    raise AssertionError(f"{lab.id} has no numeric parameter to edit")


#: the side tasks that read a file for a lab
OPEN_TASKS = ("open", "load points", "open-file")


@pytest.mark.parametrize("lab_id", sorted(OPENERS))
def test_every_open_adopts_the_file_or_changes_nothing(qtbot, make_window, tmp_path, lab_id):
    window = make_window(lab_ids=[lab_id])
    if lab_id not in window.hosts:
        pytest.skip(f"lab {lab_id} is not registered")
    lab = window.show_lab(lab_id)
    qtbot.waitUntil(lambda: lab.runner.current is not None, timeout=60_000)
    edited = _edit(lab)
    qtbot.waitUntil(lambda: lab.runner.current is not None, timeout=60_000)
    assert edited in json.loads(_state(lab))["parameters"]
    lab.pause()  # the opens, not the run, have the machine
    method, kw, kind = OPENERS[lab_id]
    outcomes = []
    for i, (suffix, data) in enumerate(files(lab_id, kind)):
        before, labels = _state(lab), _labels(lab)
        path = tmp_path / f"file {i}.{suffix}"
        path.write_bytes(data)
        getattr(lab, method)(str(path), **kw)
        qtbot.waitUntil(lambda: not any(lab._tasks[t].busy for t in OPEN_TASKS if t in lab._tasks), timeout=60_000)
        what = f"{lab_id}, file {i} {data[:80]!r}"
        if path.name in lab.error_text:  # refused: nothing changed, and the banner says why in a few words
            assert _state(lab) == before, what
            assert _labels(lab) == labels, what
            assert "Traceback" not in lab.error_text and len(lab.error_text) < 700, (what, lab.error_text)
            outcomes.append("refused")
        else:  # adopted: checked before it replaced anything, so the lab runs on it and names it
            qtbot.waitUntil(lambda: lab.runner.current is not None or lab.runner.error is not None, timeout=60_000)
            assert lab.runner.error is None, (what, lab.runner.error)
            assert not any(text.startswith("Opening") for text in _labels(lab).values()), (what, _labels(lab))
            outcomes.append("adopted")
    assert outcomes[0] == "refused", outcomes  # bytes that are no such file
    lab.pause()


def test_every_lab_that_opens_files_is_tested_here():
    """A points lab is taken in by test_points_files.py by itself; a lab with its own file dialog is named above."""
    opening = {p.parent.name for p in LABS.glob("[!_]*/lab.py") if "QFileDialog" in p.read_text(encoding="utf-8")}
    assert opening <= set(OPENERS), sorted(opening - set(OPENERS))
    assert not set(OPENERS) & set(POINTS_LABS)
