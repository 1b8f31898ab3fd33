"""Every lab's "Open …" button asks through one dialog helper (``Lab.ask_open_path``): it opens
in the home folder at first and then where that lab last opened a file, and Cancel changes nothing."""

import json
import os

import pytest
from PySide6 import QtWidgets

from app.lab import Lab

#: lab id -> the methods its open buttons call
DIALOGS = {
    "classifiers": ["_load_points_dialog"],
    "trees": ["_load_points_dialog"],
    "mixtures": ["_load_points_dialog"],
    "regression": ["_load_points_dialog"],
    "faces": ["open_image_dialog"],
    "segmentation": ["open_image_dialog"],
    "pca": ["_open_dialog"],
    "ngrams": ["_open_dialog"],
    "pagerank": ["_open_edges_dialog", "_open_html_dialog"],
}


class Recorder:
    """Stands in for QFileDialog: records where each dialog starts and answers as told."""

    def __init__(self, answer: str = ""):
        self.starts: list[str] = []
        self.answer = answer

    def file(self, parent, title, start, file_filter=""):
        self.starts.append(start)
        return self.answer, ""

    def folder(self, parent, title, start):
        self.starts.append(start)
        return self.answer


def state(lab) -> str:
    """What a session keeps of the lab: its parameters and what the user made."""
    return json.dumps({"parameters": lab.params(), "user_data": lab.user_data()}, sort_keys=True, default=str)


@pytest.fixture
def dialogs(monkeypatch):
    rec = Recorder()
    monkeypatch.setattr(QtWidgets.QFileDialog, "getOpenFileName", rec.file)
    monkeypatch.setattr(QtWidgets.QFileDialog, "getExistingDirectory", rec.folder)
    monkeypatch.setattr(Lab, "_last_folders", {})
    return rec


@pytest.mark.parametrize("lab_id", sorted(DIALOGS))
def test_each_open_button_asks_through_the_shared_dialog(make_window, dialogs, lab_id, monkeypatch):
    window = make_window(lab_ids=[lab_id])
    lab = window.lab()
    asked = []
    real = Lab.ask_open_path
    monkeypatch.setattr(Lab, "ask_open_path", lambda self, *a, **k: asked.append(a[0]) or real(self, *a, **k))
    before = state(lab)
    for name in DIALOGS[lab_id]:
        getattr(lab, name)()
    assert asked and dialogs.starts  # Cancel everywhere
    assert set(dialogs.starts) == {os.path.expanduser("~")}
    assert state(lab) == before


def test_the_dialog_opens_where_the_lab_last_opened_a_file(make_window, dialogs, tmp_path):
    window = make_window(lab_ids=["classifiers", "ngrams"])
    classifiers, ngrams = window.lab("classifiers"), window.lab("ngrams")
    dialogs.answer = str(tmp_path / "sub" / "points.csv")
    assert classifiers.ask_open_path("Load points", "CSV files (*.csv)") == dialogs.answer
    dialogs.answer = ""
    assert classifiers.ask_open_path("Load points") == ""
    assert ngrams.ask_open_path("Open a text file") == ""
    home = os.path.expanduser("~")
    # the second dialog of that lab starts in the file's folder; the other lab keeps its own
    assert dialogs.starts == [home, str(tmp_path / "sub"), home]
    dialogs.answer = str(tmp_path / "pages")
    assert ngrams.ask_open_path("Open a folder", folder=True) == dialogs.answer
    dialogs.answer = ""
    assert ngrams.ask_open_path("Open a text file") == ""
    assert dialogs.starts[-1] == str(tmp_path / "pages")
