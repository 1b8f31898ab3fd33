"""Sessions never lose work: a bad file is refused whole, a bad autosave is set aside and
the app still starts, --fresh keeps the saved state, saves are atomic."""

import json

import lab_templates
import numpy as np
import pytest

from app.session import clean_temporaries, load_session, save_session
from app.testing import drawn, open_lab, run_to

POINTS = [(0.0, 0.0, 1.0), (1.0, 2.0, -1.0), (3.0, 1.0, 1.0), (2.0, 2.0, -1.0)]


def _lab_with_points(qtbot, make_window, **kw):
    window = make_window(lab_ids=["classifiers"], **kw)
    lab = window.show_lab("classifiers")
    qtbot.waitUntil(lambda: lab.runner.current is not None, timeout=20_000)
    lab.canvas.clear_points()
    for x, y, c in POINTS:
        lab.canvas.add_point(x, y, c)
    return window, lab


def _good_state(lab) -> dict:
    return json.loads(json.dumps(lab.session_state()))


BAD_EDITS = {
    "user data is a string": lambda s: s.update(user_data="points"),
    "user data is a list": lambda s: s.update(user_data=[1, 2]),
    "labels too short": lambda s: s["user_data"].update(labels=[1.0]),
    "points not numbers": lambda s: s["user_data"].update(points=[["a", "b"]]),
    "huge points": lambda s: s["user_data"].update(points=[[1e308, -1e308]] * 4),
    "test index out of range": lambda s: s["user_data"].update(test=[99]),
    "seed too large": lambda s: s.update(seed=2**40),
    "seed not a number": lambda s: s.update(seed="x"),
    "infinite step": lambda s: s.update(step=1e400),
    "negative step": lambda s: s.update(step=-3),
    "parameters a list": lambda s: s.update(parameters=[1]),
    "newer version": lambda s: s.update(version=99),
    "other lab": lambda s: s.update(lab="pagerank"),
}


@pytest.mark.parametrize("name", sorted(BAD_EDITS))
def test_a_refused_session_leaves_the_drawn_points_alone(qtbot, make_window, tmp_path, name):
    window, lab = _lab_with_points(qtbot, make_window)
    state = _good_state(lab)
    BAD_EDITS[name](state)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(state))
    before = (lab.canvas.X.copy(), lab.canvas.y.copy(), lab.params(), lab.seed)
    result = window.open_session(str(path))
    if name == "other lab":
        assert result is None or result.id == "pagerank"
        return
    assert result is None
    np.testing.assert_array_equal(lab.canvas.X, before[0])
    np.testing.assert_array_equal(lab.canvas.y, before[1])
    assert lab.params() == before[2] and lab.seed == before[3]


@pytest.mark.parametrize("text", ['{"a": ' * 100_000 + "1" + "}" * 100_000,
                                  '{"format": "smllab-session", "lab": "classifiers", "seed": NaN}',
                                  "\x00\x01\x02binary", "[]"])
def test_malformed_files_raise_value_errors(tmp_path, text):
    path = tmp_path / "s.json"
    path.write_text(text)
    with pytest.raises(ValueError) as info:
        load_session(path)
    assert len(str(info.value)) < 300


def test_nan_is_never_written(tmp_path):
    with pytest.raises(ValueError, match="finite"):
        save_session(tmp_path / "s.json", {"format": "smllab-session", "lab": "x", "C": float("nan")})
    assert not list(tmp_path.iterdir())  # no half-written or temporary file


def test_leftover_temporaries_are_cleaned(tmp_path):
    (tmp_path / ".session-abc.json").write_text("{")
    save_session(tmp_path / "ok.json", {"format": "smllab-session", "lab": "x"})
    assert clean_temporaries(tmp_path) == 1
    assert [p.name for p in tmp_path.iterdir()] == ["ok.json"]


def test_a_bad_autosave_is_set_aside_and_the_app_starts(qtbot, make_window, config_dir):
    folder = config_dir / "sessions"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "classifiers.json").write_text('{"format": "smllab-session", "lab": "classifiers", "user_data": "x"}')
    window = make_window(lab_ids=["classifiers"], restore=True, autosave=True)
    lab = window.show_lab("classifiers")
    qtbot.waitUntil(lambda: lab.runner.current is not None, timeout=20_000)
    assert "could not be restored" in lab.error_text  # told once, and it stays visible
    kept = list((folder / "set-aside").iterdir())
    assert len(kept) == 1 and "user data" in lab.error_text
    window.autosave_all()
    assert kept[0].exists()  # the next autosave did not overwrite what could not be read


def test_fresh_start_keeps_the_saved_session(qtbot, make_window, config_dir):
    window, lab = _lab_with_points(qtbot, make_window, restore=True, autosave=True)
    window.close()
    saved = (config_dir / "sessions" / "classifiers.json").read_text()
    fresh = make_window(lab_ids=["classifiers"], restore=False, autosave=True)  # --fresh
    lab2 = fresh.show_lab("classifiers")
    qtbot.waitUntil(lambda: lab2.runner.current is not None, timeout=20_000)
    assert len(lab2.canvas.y) != len(POINTS) or not np.array_equal(lab2.canvas.X, np.array(POINTS)[:, :2])
    fresh.close()
    kept = [p.read_text() for p in (config_dir / "sessions" / "set-aside").iterdir()]
    assert saved in kept


# ----------------------------------------------------------------------------- every lab
def _kept(lab) -> str:
    """What a session keeps of a lab and what it shows: parameters, seed, the user's data,
    the step on screen and the numbers of that step."""
    snap = lab.runner.current
    return json.dumps({"parameters": lab.params(), "seed": lab.seed, "user_data": lab.user_data(),
                       "step": None if snap is None else snap.step,
                       "values": {} if snap is None else lab.lesson_values(snap)}, sort_keys=True, default=str)


@pytest.mark.parametrize("lab_id", lab_templates.CHECKED)
def test_every_lab_saves_and_reopens_the_same_state(make_window, tmp_path, lab_id):
    """Save a lab at step 3 of a run with another seed, change it back, open the file: the lab
    shows the same parameters, seed, data, step and numbers as when it was saved."""
    window = make_window(lab_ids=[lab_id])
    lab = open_lab(window, lab_id)
    drawn(lab)
    lab.runbar.seed.setValue(7)  # as the user types a seed: the lab reacts (restart, new sample)
    run_to(lab, 3)
    saved = _kept(lab)
    path = tmp_path / f"{lab_id}.smllab"
    assert window.save_session(str(path))
    lab.runbar.seed.setValue(0)
    run_to(lab, 1)
    assert _kept(lab) != saved  # the file has something to put back
    assert window.open_session(str(path)) is lab
    drawn(lab)
    assert lab.error_text == ""
    assert _kept(lab) == saved
