"""Sessions obey the limits of the files a lab opens, are read on a worker thread (the window
keeps running while a file is read, at start too), and every refusal is a clear sentence:
numbers out of range are named with their range, never clamped silently."""

import json
import threading

import numpy as np
import pytest
from PySide6 import QtCore

import app.main_window as main_window
from app import session
from app.session import MAX_SESSION_ITEMS, check_session_limits, save_session

N_HUGE = 2_000_000


def _huge_session(path, n=N_HUGE):
    """A classifiers session of ``n`` points, written as compactly as the app could read it."""
    rng = np.random.default_rng(0)
    pts = ",".join(f"[{a:.6f},{b:.6f}]" for a, b in rng.normal(size=(n, 2)))
    labels = ",".join("1" if i % 2 else "-1" for i in range(n))
    path.write_text('{"format": "smllab-session", "version": 1, "lab": "classifiers", "parameters": {}, '
                    f'"seed": 0, "user_data": {{"points": [{pts}], "labels": [{labels}], "test": []}}, "step": 0}}')
    return path


class _GatedRead:
    """Stands in for ``read_session`` on the worker: it reads only after the GUI thread's
    timer has ticked three times, which can happen only if the GUI thread is free while the
    file is being read. A read on the GUI thread would wait in vain and fail the test."""

    def __init__(self, qtbot):
        self.ticks = self.ticks_before = 0
        self.until = float("inf")
        self.gate = threading.Event()
        self.timer = QtCore.QTimer()
        self.timer.setInterval(5)
        self.timer.timeout.connect(self._tick)
        self.timer.start()
        self.on_gui_thread = None

    def _tick(self):
        self.ticks += 1
        if self.ticks >= self.until:
            self.gate.set()

    def __call__(self, path):
        self.on_gui_thread = QtCore.QThread.currentThread() is QtCore.QCoreApplication.instance().thread()
        self.ticks_before = self.ticks
        self.until = self.ticks + 3  # three ticks of the GUI thread from now on
        assert self.gate.wait(20), "the GUI thread did not run while the session was read"
        return session.read_session(path)


@pytest.fixture
def gated(qtbot, monkeypatch):
    gate = _GatedRead(qtbot)
    monkeypatch.setattr(main_window, "read_session", gate)
    yield gate
    gate.timer.stop()


def _lab(qtbot, make_window, **kw):
    window = make_window(lab_ids=["classifiers"], **kw)
    lab = window.show_lab("classifiers")
    qtbot.waitUntil(lambda: lab.runner.current is not None, timeout=20_000)
    return window, lab


def test_a_session_of_two_million_points_is_refused_while_the_window_runs(qtbot, make_window, tmp_path, gated,
                                                                            monkeypatch):
    window, lab = _lab(qtbot, make_window)
    messages = []
    monkeypatch.setattr(window, "_error", lambda title, text: messages.append(text))
    before = (lab.canvas.X.copy(), lab.params())
    path = _huge_session(tmp_path / "huge.smllab")
    assert window.open_session(str(path), wait=False) is None  # returns at once
    qtbot.waitUntil(lambda: bool(messages), timeout=30_000)
    assert gated.on_gui_thread is False and gated.ticks >= gated.ticks_before + 3
    assert "session files are limited to 8 MB" in messages[0]
    np.testing.assert_array_equal(lab.canvas.X, before[0])
    assert lab.params() == before[1]


def test_a_session_over_the_points_limit_is_refused_with_the_limit(qtbot, make_window, tmp_path):
    window, lab = _lab(qtbot, make_window)
    path = _huge_session(tmp_path / "many.smllab", MAX_SESSION_ITEMS + 1)
    before = lab.canvas.X.copy()
    assert window.open_session(str(path)) is None
    np.testing.assert_array_equal(lab.canvas.X, before)
    with pytest.raises(ValueError,
                       match=r"user_data ▸ (points|labels) holds 20,001 items; sessions hold at most 20,000"):
        session.read_session(path)
    compact = tmp_path / "compact.smllab"  # small enough in bytes, too many values
    compact.write_text('{"format": "smllab-session", "lab": "classifiers", "user_data": {"points": ['
                       + ",".join(["[0,0]"] * 150_000) + "]}}")
    with pytest.raises(ValueError, match=r"more than 200,000 values; sessions hold at most 20,000 points"):
        session.read_session(compact)


def test_a_huge_autosave_is_read_off_the_gui_thread_and_set_aside(qtbot, make_window, config_dir, gated):
    folder = config_dir / "sessions"
    folder.mkdir(parents=True, exist_ok=True)
    _huge_session(folder / "classifiers.json")
    window = make_window(lab_ids=["classifiers"], restore=True, autosave=True)
    lab = window.show_lab("classifiers")
    assert window.restoring("classifiers") and not lab.isEnabled()
    qtbot.waitUntil(lambda: lab.runner.current is not None, timeout=30_000)
    assert gated.on_gui_thread is False and gated.ticks >= gated.ticks_before + 3
    assert lab.isEnabled() and not window.restoring("classifiers")
    assert "could not be restored" in lab.error_text and "limited to 8 MB" in lab.error_text
    assert len(list((folder / "set-aside").iterdir())) == 1  # kept, not loaded again at the next start


def test_a_good_autosave_is_restored_after_its_read(qtbot, make_window, config_dir, gated):
    window, lab = _lab(qtbot, make_window, restore=True, autosave=True)
    lab.canvas.clear_points()
    for x, y, c in [(0, 0, 1), (1, 2, -1), (3, 1, 1)]:
        lab.canvas.add_point(x, y, c)
    window.close()
    again = make_window(lab_ids=["classifiers"], restore=True, autosave=True)
    lab2 = again.show_lab("classifiers")
    qtbot.waitUntil(lambda: not again.restoring("classifiers") and lab2.runner.current is not None, timeout=30_000)
    np.testing.assert_array_equal(lab2.canvas.X, [[0, 0], [1, 2], [3, 1]])
    assert lab2.error_text == ""


# ----------------------------------------------------------------------------- item by item


def _open(window, tmp_path, state_or_text, name="s.smllab"):
    path = tmp_path / name
    path.write_text(state_or_text if isinstance(state_or_text, str) else json.dumps(state_or_text))
    messages = []
    window._error = lambda title, text: messages.append(text)
    return window.open_session(str(path)), messages


def test_out_of_range_numbers_are_named_with_their_range_not_clamped(qtbot, make_window, tmp_path):
    window, lab = _lab(qtbot, make_window)
    state = json.loads(json.dumps(lab.session_state()))
    state["parameters"].update(C=1e9, degree=2.5, mode="sideways", max_epochs=0)
    state["seed"] = 7
    opened, messages = _open(window, tmp_path, state)
    assert opened is lab and not messages
    text = lab.error_text
    assert "C = 1e+09 is outside 0.001 … 1000" in text
    assert "Degree = 2.5 is not a whole number" in text and "'sideways' is not one of its choices" in text
    assert "Max epochs = 0 is outside 1 … 100000" in text
    assert lab.params()["C"] == 1.0 and lab.params()["max_epochs"] == 100 and lab.seed == 7  # the rest applied


@pytest.mark.parametrize("edit, expected", [
    (lambda s: s.update(step=10**9), "resumes at most at step 100,000"),
    (lambda s: s["parameters"].update(classifier=2**70), "at most 2**53"),
    (lambda s: s.update(seed=2**70), "at most 2**53"),
    (lambda s: s["user_data"].update(test=[2**64]), "at most 2**53"),
    (lambda s: s["user_data"].update(labels="x" * 20_000), "text of 20,000 characters"),
], ids=["step 1e9", "choice 2**70", "seed 2**70", "index 2**64", "long text"])
def test_absurd_values_are_refused_with_a_sentence(qtbot, make_window, tmp_path, edit, expected):
    window, lab = _lab(qtbot, make_window)
    state = json.loads(json.dumps(lab.session_state()))
    edit(state)
    before = (lab.canvas.X.copy(), lab.params(), lab.seed)
    opened, messages = _open(window, tmp_path, state)
    assert opened is None and len(messages) == 1 and expected in messages[0]
    np.testing.assert_array_equal(lab.canvas.X, before[0])
    assert (lab.params(), lab.seed) == before[1:]


def test_1e999_reads_as_infinity_and_is_refused(qtbot, make_window, tmp_path):
    window, lab = _lab(qtbot, make_window)
    text = json.dumps(lab.session_state()).replace('"C": 1.0', '"C": 1e999')
    assert "1e999" in text
    opened, messages = _open(window, tmp_path, text)
    assert opened is None and "parameters ▸ C is too large a number (it reads as infinity)" in messages[0]


def test_user_data_of_the_wrong_shape_gives_a_sentence_not_an_exception_name(qtbot, make_window, tmp_path):
    window = make_window(lab_ids=["pagerank"])
    lab = window.show_lab("pagerank")
    qtbot.waitUntil(lambda: lab.runner.current is not None, timeout=30_000)
    state = json.loads(json.dumps(lab.session_state()))
    state["user_data"]["custom"] = {"a": 1, "b": 2}  # a mapping where a pair is expected
    before = lab.user_data()
    opened, messages = _open(window, tmp_path, state)
    assert opened is None and "saved data do not fit this lab" in messages[0]
    assert "Error" not in messages[0] and "Exception" not in messages[0]
    assert lab.user_data() == before


def test_limits_hold_for_what_the_app_writes(tmp_path):
    """The largest session a lab writes (20,000 points with labels and test marks) passes."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(MAX_SESSION_ITEMS, 2))
    state = {"format": "smllab-session", "version": 1, "lab": "classifiers", "parameters": {"C": 1.0}, "seed": 1,
             "user_data": {"points": X.tolist(), "labels": np.sign(X[:, 0]).tolist(),
                           "test": list(range(MAX_SESSION_ITEMS))}, "step": 3}
    save_session(tmp_path / "big.smllab", state)
    check_session_limits(session.read_session(tmp_path / "big.smllab"))


# ----------------------------------------------------------------------------- bombs, in a child process
# Session files up to the size limit built to cost the most; read_session (what the worker
# runs) is measured in a child process that reports its CPU time and peak memory.

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import bounded_child  # noqa: E402 - the shared child-process runner beside the tests

_HEAD = '{"format": "smllab-session", "version": 1, "lab": "classifiers", "seed": 0, "step": 0, '


def _session_bomb(kind: str, megabytes: float) -> bytes:
    n = int(megabytes * 2**20)
    if kind == "compact points":
        unit = "[0,0],"
        body = unit * (n // len(unit))
        return (_HEAD + '"user_data": {"points": [' + body[:-1] + "]}}").encode()
    if kind == "nesting":
        depth = n // 2
        return ('{"a":' * min(depth, 400_000) + "1" + "}" * min(depth, 400_000)).encode()
    if kind == "long key":
        return (_HEAD + '"user_data": {"' + "k" * n + '": 1}}').encode()
    if kind == "long text":
        return (_HEAD + '"user_data": {"path": "' + "x" * n + '"}}').encode()
    if kind == "many keys":
        body = ",".join(f'"k{i}": 0' for i in range(n // 10))
        return (_HEAD + '"parameters": {' + body + "}}").encode()
    if kind == "big numbers":
        unit = "1" + "0" * 4000 + ","
        body = unit * (n // len(unit))
        return (_HEAD + '"user_data": {"test": [' + body[:-1] + "]}}").encode()
    if kind == "whitespace":
        return (_HEAD + " " * n + '"user_data": {}}').encode()
    raise AssertionError(kind)


@pytest.mark.timeout(600)
@given(st.sampled_from(["compact points", "nesting", "long key", "long text", "many keys", "big numbers",
                        "whitespace"]), st.sampled_from([1.0, 7.9]))
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
def test_session_bombs_are_refused_in_bounded_time_and_memory(tmp_path_factory, kind, megabytes):
    path = tmp_path_factory.mktemp("bomb") / "s.smllab"
    path.write_bytes(_session_bomb(kind, megabytes))
    report = bounded_child.run_bounded("app.session.read_session", path)
    bounded_child.assert_bounded(report, f"{megabytes} MB of {kind}")
    assert report["outcome"] in ("ok", "ValueError"), report
    assert len(report["message"]) <= 400
    if kind != "whitespace":
        assert report["outcome"] == "ValueError", report


def test_the_two_million_point_session_of_the_issue_is_refused_in_bounds(tmp_path):
    report = bounded_child.run_bounded("app.session.read_session", _huge_session(tmp_path / "huge.smllab"))
    bounded_child.assert_bounded(report, "2 million points")
    assert report["outcome"] == "ValueError" and "limited to 8 MB" in report["message"]


def test_a_huge_choice_value_is_refused_without_reaching_the_excepthook(qtbot, make_window, monkeypatch):
    """Also where a session is applied directly (a lesson, a script): the form says the value
    is not one of the choices; nothing reaches sys.excepthook."""
    import sys

    hooked = []
    monkeypatch.setattr(sys, "excepthook", lambda *exc: hooked.append(exc))
    window, lab = _lab(qtbot, make_window)
    state = json.loads(json.dumps(lab.session_state()))
    choices = [name for name, p in lab.form.params.items() if p.kind == "choice"]
    for name in choices:
        state["parameters"][name] = 2**70
    before = lab.params()
    lab.restore_session(state)
    qtbot.wait(50)
    assert not hooked
    assert all(lab.params()[name] == before[name] for name in choices)
    assert "kept their defaults" in lab.error_text
