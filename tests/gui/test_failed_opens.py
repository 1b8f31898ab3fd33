"""A failed open costs the user nothing: for every lab that opens files, edit the lab, open a
file it cannot use, and the lab's whole saved state (parameters, seed, user data, the file it
names on screen) is what it was before; the banner says why."""

import json
from pathlib import Path

import pytest

import app

LABS = Path(app.__file__).parent / "labs"
#: the labs on points (PointsLab): they all open a points file the same way
POINTS_LABS = sorted(p.parent.name for p in LABS.glob("[!_]*/lab.py") if "PointsLab" in p.read_text(encoding="utf-8"))
# lab id -> (method that opens a file, file name, extra keyword arguments)
OPENERS = {
    **{lab_id: ("load_points_file", "bad.csv", {}) for lab_id in POINTS_LABS},
    "pagerank": ("open_graph", "bad.txt", {"kind": "edges"}),
    "ngrams": ("open_file", "bad.txt", {}),
    "faces": ("open_image_file", "bad.png", {}),
    "segmentation": ("open_image_file", "bad.png", {}),
    "pca": ("open_images", "bad.npz", {}),
}

BAD_BYTES = b"\x00\x01\x02 this is not what the lab reads \xff\xfe" * 40


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


@pytest.mark.parametrize("lab_id", sorted(OPENERS))
def test_a_failed_open_changes_nothing(qtbot, make_window, tmp_path, lab_id):
    window = make_window(lab_ids=[lab_id])
    if lab_id not in window.hosts:
        pytest.skip(f"lab {lab_id} is not registered")
    lab = window.show_lab(lab_id)
    qtbot.waitUntil(lambda: lab.runner.current is not None, timeout=60_000)
    edited = _edit(lab)
    qtbot.waitUntil(lambda: lab.runner.current is not None, timeout=60_000)
    before, labels = _state(lab), _labels(lab)
    assert edited in json.loads(before)["parameters"]
    method, name, kw = OPENERS[lab_id]
    bad = tmp_path / name
    bad.write_bytes(BAD_BYTES)
    getattr(lab, method)(str(bad), **kw)
    qtbot.waitUntil(lambda: lab.error_text != "", timeout=60_000)
    qtbot.waitUntil(lambda: not any(t.busy for t in lab._tasks.values()), timeout=60_000)
    assert _state(lab) == before
    assert _labels(lab) == labels
    assert "Traceback" not in lab.error_text and len(lab.error_text) < 700


def test_every_lab_that_opens_files_is_tested_here():
    """A points lab is taken in by itself; a lab with its own file dialog is named above."""
    opening = {p.parent.name for p in LABS.glob("[!_]*/lab.py") if "QFileDialog" in p.read_text(encoding="utf-8")}
    assert opening <= set(OPENERS), sorted(opening - set(OPENERS))
