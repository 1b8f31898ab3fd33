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


def test_steps_are_exact(qtbot):
    r = Runner()
    r.start(counting())
    qtbot.waitUntil(lambda: len(r.timeline) == 1)
    for _ in range(3):
        r.step()
    qtbot.waitUntil(lambda: len(r.timeline) == 4)
    qtbot.wait(100)
    assert [s.step for s in r.timeline] == [0, 1, 2, 3]
    r.run_to(10)
    qtbot.waitUntil(lambda: r.timeline.last.step == 10)
    qtbot.wait(100)
    assert r.timeline.last.step == 10
    r.shutdown()


def test_fast_generator_cannot_flood_the_event_loop(qtbot):
    r = Runner()
    batches = []
    r.start(counting())
    r._worker.yielded.connect(lambda b: batches.append(len(b.snapshots)))
    r.set_rate(None)
    r.play()
    qtbot.wait(1000)
    r.pause()
    r.shutdown()
    total = sum(batches)
    assert total > 1000  # it really ran fast
    assert len(batches) <= 45  # <= ~30 batches a second (+ slack), whatever the speed
    assert r.redraws <= 40


def test_rate_limit(qtbot):
    r = Runner()
    r.start(counting())
    r.set_rate(20.0)
    r.play()
    qtbot.wait(1000)
    r.pause()
    n = r.timeline.last.step
    r.shutdown()
    assert 12 <= n <= 28


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
    qtbot.wait(100)
    old_done = r._done
    r.start(counting())
    assert old_done.is_set()
    qtbot.waitUntil(lambda: len(r.timeline) == 1)
    assert r.timeline[0].step == 0
    r.shutdown()


@pytest.mark.parametrize("capacity", [3])
def test_timeline_capacity_validation(capacity):
    with pytest.raises(ValueError):
        Timeline(capacity)
