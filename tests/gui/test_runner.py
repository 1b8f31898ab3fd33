"""Runner internals: exact steps, bounded timeline, batching that cannot flood the GUI."""

import time

import pytest

from app.runner import Pacer, Runner, Timeline
from smlengine import Snapshot


def counting(n=None, delay=0.0):
    def gen():
        i = 0
        while n is None or i < n:
            if delay:
                time.sleep(delay)
            yield Snapshot(step=i)
            i += 1

    return gen


def test_timeline_is_bounded_and_keeps_the_start():
    t = Timeline(capacity=100)
    for i in range(10_000):
        t.extend([i])
    assert len(t) <= 100
    assert t[0] == 0 and t.last == 9999
    assert list(t) == sorted(t)
    # recent history stays dense
    assert t[-1] - t[-20] == 19


def test_pacer_permits_are_exact():
    p = Pacer()
    p.step(2)
    assert p.wait_turn() and p.wait_turn()
    assert p.will_block()
    p.cancel()
    assert not p.wait_turn()


def test_a_paused_worker_hands_over_before_it_waits():
    """A pause that arrives after the worker last looked at the pacer: a worker holding
    computed snapshots is told to hand them over (None) instead of blocking with them, so a
    settled runner has delivered all it computed and the next step adds exactly one."""
    p = Pacer()
    p.play()
    assert p.wait_turn(holding=True)  # playing: compute on
    p.pause()
    assert p.wait_turn(holding=True) is None
    p.step(1)
    assert p.wait_turn(holding=True) is True  # a permit is taken as before
    p.cancel()
    assert p.wait_turn(holding=True) is False


def test_steps_are_exact(qtbot):
    r = Runner()
    r.start(counting())
    qtbot.waitUntil(lambda: len(r.timeline) == 1)
    for _ in range(3):
        r.step()
    qtbot.waitUntil(lambda: len(r.timeline) == 4)
    # the worker is waiting for the next request: nothing more can arrive
    qtbot.waitUntil(lambda: r._pacer.waiting and not r._state.pending)
    r.flush()
    assert [s.step for s in r.timeline] == [0, 1, 2, 3]
    r.run_to(10)
    qtbot.waitUntil(lambda: r.timeline.last.step == 10)
    qtbot.waitUntil(lambda: r._pacer.waiting and not r._state.pending)
    r.flush()
    assert r.timeline.last.step == 10
    r.shutdown()


def test_fast_generator_cannot_flood_the_event_loop(qtbot):
    """However fast the engine, the GUI redraws at most once per tick of its timer and the
    worker hands over batches of many snapshots (no event per snapshot ever exists)."""
    r = Runner()
    r.start(counting())
    r.set_rate(None)
    r.play()
    ticks = []
    r._timer.timeout.connect(lambda: ticks.append(1))
    qtbot.waitUntil(lambda: r.timeline.last is not None and r.timeline.last.step > 20_000, timeout=60_000)
    r.pause()
    r.shutdown()
    assert r.redraws <= len(ticks) + 2
    assert r.timeline.last.step > 20 * r.batches  # many snapshots per handover


def test_rate_limit_spaces_the_steps():
    """At 20 steps/s the pacer grants permits 50 ms apart (checked on its schedule, not a clock)."""
    p = Pacer()
    p.play(rate=20.0)
    assert p.wait_turn()
    first = p._next_time
    assert p.wait_turn()
    assert p._next_time - first == pytest.approx(0.05)
    assert p.would_wait()
    p.cancel()


def test_errors_arrive_as_messages(qtbot):
    def broken():
        yield Snapshot(step=0)
        raise RuntimeError("the engine broke")

    r = Runner()
    messages = []
    r.errorOccurred.connect(messages.append)
    r.start(broken, play=True)
    qtbot.waitUntil(lambda: r.error is not None)
    assert messages == ["the engine broke"] and r.timeline.last.step == 0
    r.shutdown()


def test_restart_cancels_previous(qtbot):
    r = Runner()
    r.start(counting(delay=0.01), play=True)
    qtbot.waitUntil(lambda: len(r.timeline) > 3)
    old_state, old_thread = r._state, r._thread
    r.start(counting())
    assert old_state.cancelled
    old_thread.join(2.0)
    assert not old_thread.is_alive()
    qtbot.waitUntil(lambda: len(r.timeline) == 1)
    assert r.timeline[0].step == 0
    r.shutdown()


def test_paused_runs_hold_no_pool_thread(qtbot):
    """Many paused runs never occupy Qt's global thread pool, so a new one still runs."""
    from PySide6 import QtCore

    runners = [Runner() for _ in range(12)]
    for r in runners:
        r.start(counting())
    for r in runners:
        qtbot.waitUntil(lambda r=r: len(r.timeline) == 1)
    assert QtCore.QThreadPool.globalInstance().activeThreadCount() == 0
    last = runners[-1]
    last.step()
    qtbot.waitUntil(lambda: len(last.timeline) == 2)
    for r in runners:
        r.shutdown()


def test_timeline_byte_budget_counts_shared_arrays_once():
    from dataclasses import dataclass

    import numpy as np

    from app.runner import _Budget

    @dataclass(frozen=True, kw_only=True)
    class Snap(Snapshot):
        own: np.ndarray
        shared: np.ndarray

    shared = np.zeros(100_000)  # 800 kB, in every snapshot
    budget = _Budget(10 * 80_000 + 800_000)
    t = Timeline(capacity=100_000, budget=budget)
    for i in range(1000):
        t.extend([Snap(step=i, own=np.zeros(10_000), shared=shared)])  # 80 kB each
        assert t.nbytes <= budget.limit
    assert t.nbytes == len(t) * 80_000 + 800_000
    assert t[0].step == 0 and t.last.step == 999
    t.clear()
    assert t.nbytes == 0


@pytest.mark.parametrize("capacity", [3])
def test_timeline_capacity_validation(capacity):
    with pytest.raises(ValueError):
        Timeline(capacity)


def _play_flat_out(runner, generator):
    runner.start(generator)
    runner.set_rate(None)
    runner.play()


def _sample_flat_out(qtbot, r, samples, count=20):
    """Play ``r`` flat out until ``count`` samples are taken (by the test's own hooks), then stop it."""
    _play_flat_out(r, counting())
    qtbot.waitUntil(lambda: len(samples) >= count, timeout=60_000)
    r.pause()
    r.shutdown()


def test_flat_out_worker_waits_while_the_frame_is_painted(qtbot):
    """A redraw holds the worker from the tick until Qt has painted what it drew, so
    painting never competes with a flat-out worker for the interpreter."""
    from PySide6 import QtWidgets

    r = Runner()
    held_at_paint = []

    class View(QtWidgets.QWidget):
        def paintEvent(self, event):  # Qt's name
            if r._pacer is not None and r.timeline.last is not None:
                held_at_paint.append(r._pacer._held)

    view = View()
    qtbot.addWidget(view)
    view.resize(200, 100)
    view.show()
    r.frameChanged.connect(lambda _i: view.update())
    _sample_flat_out(qtbot, r, held_at_paint)
    assert sum(held_at_paint) >= 0.9 * len(held_at_paint), held_at_paint


def test_flat_out_frame_is_drawn_while_the_worker_is_parked(qtbot):
    """The lab's drawing code runs with the worker waiting between steps (not competing
    for the interpreter), and a finished run elsewhere never makes a frame wait."""
    from app.runner import _paint_gate

    done = Runner()
    _play_flat_out(done, counting(3))
    qtbot.waitUntil(lambda: done.finished, timeout=30_000)
    qtbot.waitUntil(lambda: done._pacer.parked, timeout=30_000)  # its worker has returned

    r = Runner()
    parked_at_draw = []
    r.frameChanged.connect(lambda _i: parked_at_draw.append(r._pacer.parked and _paint_gate().all_parked()))
    _sample_flat_out(qtbot, r, parked_at_draw)
    done.shutdown()
    assert sum(parked_at_draw) >= 0.9 * len(parked_at_draw), parked_at_draw


def test_a_tick_that_finds_nothing_asks_the_worker_to_hand_over(qtbot):
    """Flat out, the worker hands over after its current step when the GUI is ready for a
    frame, not only at the end of its batch interval."""
    import app.runner as runner_module

    r = Runner()
    _play_flat_out(r, counting(delay=0.002))
    qtbot.waitUntil(lambda: r.redraws >= 5, timeout=30_000)
    asked = []
    original = runner_module.Pacer.want_delivery

    def want(pacer):
        asked.append(True)
        original(pacer)

    runner_module.Pacer.want_delivery = want
    try:
        qtbot.waitUntil(lambda: len(asked) >= 3 and r.redraws >= 15, timeout=30_000)
    finally:
        runner_module.Pacer.want_delivery = original
    r.shutdown()


def test_a_flat_out_worker_hands_over_and_waits_for_the_expected_frame(monkeypatch):
    """Just before the frame the GUI expects, a flat-out worker delivers what it computed
    (``would_wait``) and waits without the interpreter lock until the frame is drawn, so
    the frame's timer finds the lock free and the worker already parked."""
    import threading

    import app.pacer as pacer_module

    monkeypatch.setattr(pacer_module, "FRAME_GRACE", 30.0)  # a frame that never comes: wait long
    p = Pacer()
    p.play(None)
    assert p.wait_turn() and not p.would_wait()  # no frame expected: compute on
    p.expect_frame(time.perf_counter() + 30.0)
    assert p.wait_turn() and not p.would_wait()  # the frame is far off
    p.expect_frame(time.perf_counter())
    assert p.would_wait()  # deliver now: the frame is due
    returned = []
    worker = threading.Thread(target=lambda: returned.append(p.wait_turn()), daemon=True)
    worker.start()
    deadline = time.perf_counter() + 10.0
    while not p.parked and time.perf_counter() < deadline:
        time.sleep(0.001)
    assert p.parked and worker.is_alive() and not returned  # waiting for the frame
    p.hold(True)  # the frame: held while it is drawn ...
    p.expect_frame(time.perf_counter() + 30.0)  # ... which schedules the next one
    time.sleep(0.02)
    assert worker.is_alive() and not returned  # still held until the paint is done
    p.hold(False)
    worker.join(timeout=10.0)
    assert returned == [True]
    p.set_rate(100.0)
    p.expect_frame(time.perf_counter())
    assert p.wait_turn()  # a rate-limited play never waits for frames


def test_the_status_bar_progress_is_painted_with_the_next_frame(qtbot, make_window):
    """QProgressBar.setValue repaints at once, which paints every dirty part of the window
    while the workers compute; the status bar's progress waits for the next paint."""
    from PySide6 import QtCore, QtWidgets

    window = make_window(lab_ids=["pagerank"])
    lab = window.show_lab("pagerank")
    qtbot.waitUntil(lambda: lab.runner.current is not None, timeout=30_000)
    lab.run_to(5)
    qtbot.waitUntil(lambda: lab.runner.settled, timeout=30_000)
    lab.runner.flush()
    qtbot.wait(50)
    window.status_progress.setValue(0)
    painted = []

    class Paints(QtCore.QObject):
        def eventFilter(self, obj, event):  # Qt's name
            if event.type() == QtCore.QEvent.Type.Paint:
                painted.append(type(obj).__name__)
            return False

    spy = Paints()
    QtWidgets.QApplication.instance().installEventFilter(spy)
    try:
        window._update_status()
        during = list(painted)
    finally:
        QtWidgets.QApplication.instance().removeEventFilter(spy)
    assert window.status_progress.value() > 0
    assert during == []


def test_a_worker_stops_as_long_before_the_frame_as_its_steps_take():
    """A step that would overrun the expected frame is not started (the frame would wait
    for it); the lead follows the worker's recent step times, for steps up to FRAME_LEAD_MAX."""
    import app.pacer as pacer_module

    p = Pacer()
    p.play(None)
    at = 1000.0
    p.expect_frame(at)
    assert not p._frame_near(at - 0.006)  # quick steps: compute on until just before the frame
    assert p._frame_near(at - 0.5 * pacer_module.FRAME_LEAD)
    for _ in range(20):
        p.step_took(0.008)
    assert p._frame_near(at - 0.006)  # an 8 ms step would overrun a frame 6 ms away
    assert not p._frame_near(at - 0.009)
    for _ in range(20):
        p.step_took(1.0)
    assert not p._frame_near(at - 0.5 * pacer_module.FRAME_LEAD_MAX)  # long steps: only FRAME_LEAD early
    assert p._frame_near(at - 0.5 * pacer_module.FRAME_LEAD)
    assert p._frame_near(at + 0.5 * pacer_module.FRAME_GRACE)  # a late frame is still waited for ...
    assert not p._frame_near(at + 2 * pacer_module.FRAME_GRACE)  # ... but not for ever
    p.expect_frame(time.perf_counter() + 30.0)
    assert not p.would_wait()  # a frame far off: compute on
