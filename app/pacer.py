"""The worker side of a run: the :class:`Pacer` that lets the worker take its next step, and
the thread body (:func:`_paced_run`) that pulls snapshots from the engine and hands them to
the GUI, a :class:`Batch` at a time.

* :class:`Pacer` (plain ``threading``) decides when the worker may pull the next
  snapshot: freely while playing (optionally throttled to N steps/s), once per Step
  request, never while paused. It is the reason pause and single steps are exact.
* The worker never emits a Qt signal. It puts batches of snapshots into its
  :class:`~app.tasks.TaskState` outbox at most ~30 times a second (and right away when it
  is about to block), and the GUI collects them on its redraw timer
  (:class:`app.runner.Runner`).
"""

from __future__ import annotations

import logging
import threading
import time
import traceback
from dataclasses import dataclass
from typing import Any, Callable, Iterator

from .tasks import TaskState
from .timeline import snapshot_buffers

log = logging.getLogger(__name__)

BATCH_INTERVAL = 1.0 / 30.0  # seconds between batches sent to the GUI
FRAME_LEAD = 0.002  # s before an expected frame a flat-out worker stops at its next step boundary ...
FRAME_LEAD_MAX = 0.015  # ... or as long before as its steps take, if they take no longer than this
FRAME_GRACE = 0.020  # s past an expected frame that did not come, the worker computes on


class LabRunError(Exception):
    """An exception raised by a lab's engine run, carried to the GUI thread."""

    def __init__(self, message: str, original: BaseException | None = None, tb: str = ""):
        super().__init__(message)
        self.original = original
        self.traceback_text = tb


class Pacer:
    """Thread-safe gate between the GUI (play/pause/step/cancel) and the worker."""

    def __init__(self):
        self._cond = threading.Condition()
        self._playing = False
        self._rate: float | None = None  # steps per second; None = as fast as possible
        self._permits = 0
        self._cancelled = False
        self._next_time = 0.0
        self._waiting = False
        self._held = False
        self.delivery_wanted = False  # the GUI is ready for a frame: hand over what is computed
        self._parked = False  # the worker is inside wait_turn (not computing)
        self._retired = False  # the worker has returned
        self._frame_at: float | None = None  # when the GUI expects to draw its next frame
        self._step_seconds = 0.0  # how long the worker's recent steps took (a moving average)

    @property
    def waiting(self) -> bool:
        """True while the worker is blocked waiting for play or a step (GUI side reads it)."""
        return self._waiting

    # --- GUI side -------------------------------------------------------------------
    def play(self, rate: float | None = None) -> None:
        with self._cond:
            self._playing = True
            self._rate = rate
            self._frame_at = None
            self._next_time = time.perf_counter()
            self._waiting = False  # it wakes now; the GUI keeps collecting until it waits again
            self._cond.notify_all()

    def set_rate(self, rate: float | None) -> None:
        with self._cond:
            self._rate = rate
            self._next_time = time.perf_counter()
            self._cond.notify_all()

    def pause(self) -> None:
        with self._cond:
            self._playing = False
            self._cond.notify_all()

    def step(self, n: int = 1) -> None:
        with self._cond:
            self._permits += int(n)
            self._waiting = False
            self._cond.notify_all()

    def cancel(self) -> None:
        with self._cond:
            self._cancelled = True
            self._cond.notify_all()

    def expect_frame(self, at: float | None) -> None:
        """The GUI will draw its next frame at ``at`` (``time.perf_counter()``), or None.

        A flat-out worker hands over what it computed and waits (without the interpreter
        lock) from just before that moment until the frame is drawn. Otherwise the frame's
        timer, a Python slot, would first wait for the worker to give the lock up (up to the
        interpreter's switch interval, or a whole step of C code), and then for it to finish
        its step: frames came late and unevenly."""
        with self._cond:
            self._frame_at = at
            self._cond.notify_all()

    def _frame_near(self, now: float) -> bool:
        """The expected frame is closer than the next step would take (at least
        FRAME_LEAD): the step would make the frame wait. Steps longer than FRAME_LEAD_MAX
        are not waited for this way (the worker would idle for most of each frame)."""
        at = self._frame_at
        step = self._step_seconds
        lead = max(FRAME_LEAD, step) if step <= FRAME_LEAD_MAX else FRAME_LEAD
        return at is not None and at - lead <= now < at + FRAME_GRACE

    def step_took(self, seconds: float) -> None:
        """Worker side: one step took ``seconds``."""
        self._step_seconds += 0.3 * (seconds - self._step_seconds)

    def want_delivery(self) -> None:
        """The GUI found nothing new to draw: the worker hands over after its current step
        instead of at the end of its batch interval."""
        self.delivery_wanted = True

    def hold(self, held: bool) -> None:
        """While held (the GUI draws a frame) the worker waits between steps without the
        interpreter lock, so the GUI thread's many short calls into Qt are not each delayed
        by a busy worker (each call would otherwise wait for the worker's switch interval: a
        thread convoy)."""
        with self._cond:
            self._held = bool(held)
            if not held:
                self._cond.notify_all()

    def retire(self) -> None:
        """The worker has returned: it computes nothing any more (a frame never waits for it)."""
        self._retired = True

    @property
    def parked(self) -> bool:
        """True while the worker waits between steps or has returned (it holds no
        interpreter lock)."""
        return self._parked or self._retired

    @property
    def cancelled(self) -> bool:
        return self._cancelled

    @property
    def playing(self) -> bool:
        return self._playing

    @property
    def pending_permits(self) -> int:
        return self._permits

    @property
    def flat_out(self) -> bool:
        """Playing as fast as possible, or computing requested steps."""
        return self._permits > 0 or (self._playing and self._rate is None)

    # --- worker side ----------------------------------------------------------------
    def will_block(self) -> bool:
        """True if the next :meth:`wait_turn` would have to wait for the GUI."""
        with self._cond:
            return not self._cancelled and not self._playing and self._permits == 0

    def would_wait(self) -> bool:
        """True if the next :meth:`wait_turn` would wait at all (for the GUI or the rate)."""
        with self._cond:
            if self._cancelled or self._permits > 0:
                return False
            if not self._playing:
                return True
            now = time.perf_counter()
            return (self._rate is not None and now < self._next_time) or (self._rate is None and self._frame_near(now))

    def wait_turn(self, holding: bool = False) -> bool | None:
        """Block until the worker may compute one more snapshot; False once cancelled.

        With ``holding`` (the worker has computed snapshots it has not handed over yet) it
        returns None instead of blocking for play or a step: the worker hands them over, then
        asks again. A pause arriving between the worker's last look at the pacer and this call
        would otherwise leave them stranded while the GUI sees a waiting worker (settled)."""
        with self._cond:
            self._parked = True
            try:
                return self._wait_turn(holding)
            finally:
                self._parked = False

    def _wait_turn(self, holding: bool = False) -> bool | None:
        """The waiting itself (called with the condition held)."""
        while True:
            if self._cancelled:
                return False
            if self._held:
                self._cond.wait(timeout=0.1)  # a frame is being drawn
                continue
            if self._frame_at is not None and self._playing and self._rate is None:
                now = time.perf_counter()
                if self._frame_near(now):
                    self._cond.wait(timeout=self._frame_at + FRAME_GRACE - now)  # the frame is due
                    continue
                if now >= self._frame_at:
                    self._frame_at = None  # it did not come: compute on
            if self._permits > 0:
                self._permits -= 1
                return True
            if self._playing:
                if self._rate is None:
                    return True
                now = time.perf_counter()
                if now >= self._next_time:
                    self._next_time = max(self._next_time + 1.0 / self._rate, now - 0.1)
                    return True
                self._cond.wait(timeout=self._next_time - now)
                continue
            if holding:
                return None  # hand over what is computed before waiting for play or a step
            self._waiting = True
            try:
                self._cond.wait(timeout=0.5)
            finally:
                self._waiting = False


@dataclass
class Batch:
    """What the worker hands to the GUI: new snapshots and the frame data of the newest."""

    snapshots: list
    prepared: Any = None
    finished: bool = False
    buffers: list | None = None  # per snapshot, the array buffers it holds (counted by the worker)

    def __post_init__(self):
        if self.buffers is None:
            self.buffers = [snapshot_buffers(s) for s in self.snapshots]


def _paced_run(make_generator: Callable[[], Iterator], pacer: Pacer, prepare: Callable[[Any], Any] | None,
               state: TaskState) -> None:
    """Thread body: pull snapshots from the engine as the pacer allows, hand them over in batches."""
    gen = None
    try:
        try:
            gen = make_generator()
        except Exception as exc:  # noqa: BLE001 - surfaced to the user as a message
            raise LabRunError(str(exc) or type(exc).__name__, exc, traceback.format_exc()) from None
        pending: list = []
        last_sent = time.perf_counter()
        finished = False
        while True:
            if pending and pacer.would_wait():
                # Deliver before waiting: a pause arriving during a rate-limit wait must
                # not strand an already computed snapshot until the next request.
                state.put(Batch(pending, _safe_prepare(prepare, pending[-1])))
                pending = []
                last_sent = time.perf_counter()
            turn = pacer.wait_turn(holding=bool(pending))
            if turn is None:  # paused since the look above: deliver, then wait
                state.put(Batch(pending, _safe_prepare(prepare, pending[-1])))
                pending = []
                last_sent = time.perf_counter()
                turn = pacer.wait_turn()
            if not turn:
                return
            started = time.perf_counter()
            try:
                snap = next(gen)
            except StopIteration:
                finished = True
            except Exception as exc:  # noqa: BLE001 - surfaced to the user as a message
                if pending:
                    state.put(Batch(pending, _safe_prepare(prepare, pending[-1])))
                raise LabRunError(str(exc) or type(exc).__name__, exc, traceback.format_exc()) from None
            else:
                pending.append(snap)
            now = time.perf_counter()
            pacer.step_took(now - started)
            if finished or pacer.delivery_wanted or now - last_sent >= BATCH_INTERVAL or pacer.will_block():
                pacer.delivery_wanted = False
                prepared = _safe_prepare(prepare, pending[-1]) if pending else None
                state.put(Batch(pending, prepared, finished))
                pending = []
                time.sleep(0.001)  # hand the interpreter to the GUI thread: it draws what it got
                last_sent = time.perf_counter()
            if finished:
                return
    except LabRunError as exc:
        state.error = str(exc)[:1000]
        if isinstance(exc.original, (ValueError, TypeError, OSError)):
            log.info("run stopped: %s", state.error)  # bad input: the banner says it, one log line
        else:
            log.error("run failed: %s\n%s", exc, exc.traceback_text)
    except BaseException as exc:  # noqa: BLE001 - MemoryError, RecursionError ... still a message
        state.error = f"{type(exc).__name__}: {exc}"[:1000]
        log.error("run failed: %s", state.error)
    finally:
        if gen is not None:
            try:
                gen.close()  # run the generator's own clean-up on its thread
            except Exception:  # noqa: BLE001
                log.exception("closing the run failed")
        pacer.retire()
        state.done.set()


def _safe_prepare(prepare, snap):
    if prepare is None:
        return None
    try:
        return prepare(snap)
    except Exception as exc:  # noqa: BLE001 - a drawing aid must not kill the run
        log.warning("frame preparation failed: %s", exc)
        return None


# ----------------------------------------------------------------------------- memory
