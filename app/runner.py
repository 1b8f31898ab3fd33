"""Drive a lab's engine generator on a worker thread, with a timeline for stepping back.

Threads and data flow
---------------------
* The engine generator runs inside :func:`_paced_run` on the run's own daemon thread
  (:func:`app.tasks.start_thread`), not on Qt's global thread pool: a paused run blocks
  only its own thread, so any number of open labs and side tasks all make progress.
* :class:`Pacer` (plain ``threading``) decides when the worker may pull the next
  snapshot: freely while playing (optionally throttled to N steps/s), once per Step
  request, never while paused. It is the reason pause and single steps are exact.
* The worker never emits a Qt signal. It puts *batches* of snapshots into its
  :class:`~app.tasks.TaskState` outbox at most ~30 times a second (and right away when it
  is about to block), and the GUI collects them on its redraw timer. A fast algorithm
  therefore cannot flood the event loop, and a cancelled run's late results can never
  reach a new run or a deleted runner.
* The GUI appends batches to the :class:`Timeline` (bounded in bytes for all labs
  together) and draws the snapshot under the cursor on that timer (<= 30 Hz). Only
  drawing happens on the GUI thread; per-frame preparation (e.g. a decision function on
  a grid) is computed on the worker for the newest snapshot of each batch, or by a side
  task when the user scrubs back to an older snapshot.
"""

from __future__ import annotations

import bisect
import dataclasses
import logging
import threading
import weakref
import time
import traceback
from dataclasses import dataclass
from typing import Any, Callable, Iterator

import numpy as np
import shiboken6
from PySide6 import QtCore

from .tasks import BackgroundTask, TaskState, start_thread

log = logging.getLogger(__name__)

BATCH_INTERVAL = 1.0 / 30.0  # seconds between batches sent to the GUI
REDRAW_INTERVAL_MS = 33  # <= 30 redraws per second
RETRY_MS = 4  # a tick that found nothing new asks the worker for its steps and looks again this soon
PARK_WAIT = 0.012  # s a frame waits for the workers to finish their step before drawing anyway
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

    def wait_turn(self) -> bool:
        """Block until the worker may compute one more snapshot; False once cancelled."""
        with self._cond:
            self._parked = True
            try:
                return self._wait_turn()
            finally:
                self._parked = False

    def _wait_turn(self) -> bool:
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
            if not pacer.wait_turn():
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
#: bytes of snapshots all timelines of the application may hold together
TIMELINE_BUDGET_BYTES = 256 * 2**20


_FIELDS: dict[type, tuple[str, ...]] = {}
_PLAIN_FIELDS = frozenset({"step", "phase", "progress"})


def _field_names(cls) -> tuple[str, ...]:
    """Names of a dataclass's fields that may hold arrays (cached per class)."""
    names = _FIELDS.get(cls)
    if names is None:
        names = tuple(f.name for f in dataclasses.fields(cls) if f.name not in _PLAIN_FIELDS) \
            if dataclasses.is_dataclass(cls) else ()
        _FIELDS[cls] = names
    return names


def snapshot_arrays(snapshot, depth: int = 2):
    """numpy arrays held by a snapshot (its dataclass fields, one level of nesting)."""
    for name in _field_names(type(snapshot)):
        v = getattr(snapshot, name, None)
        if isinstance(v, np.ndarray):
            yield v
        elif isinstance(v, (tuple, list)) and len(v) <= 64:
            for x in v:
                if isinstance(x, np.ndarray):
                    yield x
        elif depth > 1 and dataclasses.is_dataclass(v) and not isinstance(v, type):
            yield from snapshot_arrays(v, depth - 1)


def snapshot_buffers(snapshot) -> tuple:
    """The distinct objects owning the memory of a snapshot's arrays (computed on the worker)."""
    if not _field_names(type(snapshot)):
        return ()
    seen = {}
    for arr in snapshot_arrays(snapshot):
        buf = _buffer(arr)
        seen[id(buf)] = buf
    return tuple(seen.values())


def _buffer(arr):
    """The object owning an array's memory, so views of one buffer are counted once."""
    while getattr(arr, "base", None) is not None and hasattr(arr.base, "nbytes"):
        arr = arr.base
    return arr


class _Budget:
    """The byte budget shared by every timeline of the process."""

    def __init__(self, limit: int):
        self.limit = limit
        self._timelines: "weakref.WeakSet[Timeline]" = weakref.WeakSet()

    def register(self, timeline: "Timeline") -> None:
        self._timelines.add(timeline)

    @property
    def used(self) -> int:
        return sum(t.nbytes for t in list(self._timelines))

    def enforce(self) -> None:
        """Thin the timeline holding the most bytes until the total fits."""
        while self.used > self.limit:
            candidates = [t for t in list(self._timelines) if len(t) > t.MIN_ITEMS]
            if not candidates:
                return
            max(candidates, key=lambda t: t.nbytes)._thin()


BUDGET = _Budget(TIMELINE_BUDGET_BYTES)


class Timeline:
    """Past snapshots with bounded memory; the oldest half is thinned first.

    Snapshots are kept until ``capacity`` snapshots or the shared byte budget
    (:data:`TIMELINE_BUDGET_BYTES` for all labs together, arrays shared between snapshots
    counted once) is reached; then every other snapshot of the older half is dropped, so
    recent history stays dense and old history sparse. The first (initial) snapshot and
    the newest are always kept. Every snapshot gets a serial number in arrival order,
    which lets drawing code ask for "what arrived since I last drew" (:meth:`added_since`).
    """

    MIN_ITEMS = 8

    def __init__(self, capacity: int = 4000, budget: _Budget | None = None):
        if capacity < self.MIN_ITEMS:
            raise ValueError(f"timeline capacity must be >= {self.MIN_ITEMS}")
        self.capacity = capacity
        self._items: list = []
        self._serials: list[int] = []
        self._held: list[tuple] = []  # per snapshot, the buffers it holds
        self._next_serial = 0
        self._buffers: dict[int, list] = {}  # id(buffer) -> [count, nbytes, buffer]
        self.nbytes = 0
        self._budget = BUDGET if budget is None else budget
        self._budget.register(self)

    def clear(self) -> None:
        self._items.clear()
        self._serials.clear()
        self._held.clear()
        self._buffers.clear()
        self.nbytes = 0

    def _count(self, buffers: tuple, sign: int) -> None:
        for buf in buffers:
            key = id(buf)
            entry = self._buffers.get(key)
            if sign > 0:
                if entry is None:
                    self._buffers[key] = [1, int(buf.nbytes), buf]
                    self.nbytes += int(buf.nbytes)
                else:
                    entry[0] += 1
            elif entry is not None:
                entry[0] -= 1
                if entry[0] <= 0:
                    del self._buffers[key]
                    self.nbytes -= entry[1]

    def extend(self, snapshots, buffers: list | None = None) -> None:
        """Append snapshots; ``buffers`` (per snapshot, from :func:`snapshot_buffers`) may be
        computed beforehand on the worker thread."""
        if buffers is None:
            buffers = [snapshot_buffers(s) for s in snapshots]
        for snap, bufs in zip(snapshots, buffers):
            self._items.append(snap)
            self._serials.append(self._next_serial)
            self._held.append(bufs)
            self._next_serial += 1
            self._count(bufs, +1)
        while len(self._items) > self.capacity:
            self._thin()
        self._budget.enforce()

    def _thin(self) -> None:
        n = len(self._items)
        if n <= self.MIN_ITEMS:
            return
        half = n // 2
        keep = [0, *range(2, half, 2), *range(half, n)]
        for i in range(1, half, 2):  # the dropped ones: odd indices of the older half
            self._count(self._held[i], -1)
        self._items = [self._items[i] for i in keep]
        self._serials = [self._serials[i] for i in keep]
        self._held = [self._held[i] for i in keep]

    def __len__(self) -> int:
        return len(self._items)

    def __getitem__(self, i):
        return self._items[i]

    def __iter__(self):
        return iter(self._items)

    def upto(self, index: int) -> list:
        return self._items[: index + 1]

    def serial(self, index: int) -> int:
        return self._serials[index]

    def index_of_serial(self, serial: int) -> int:
        """Index of the last snapshot whose serial is <= ``serial`` (-1 if none)."""
        return bisect.bisect_right(self._serials, serial) - 1

    @property
    def last(self):
        return self._items[-1] if self._items else None


class History:
    """What a lab's ``render`` receives besides the snapshot.

    ``added`` are the snapshots that arrived since the previous frame of this lab, up to
    and including the one shown, in order; ``rewound`` is True when the lab must first
    forget what it accumulated (a new run, or the user stepped back or scrubbed), in which
    case ``added`` holds everything up to the snapshot shown. Curves that append
    ``added`` cost the same per frame at step 10 and at step 100,000.
    The object is also a sequence of all kept snapshots up to the one shown (costly for
    long runs: prefer ``added``).
    """

    __slots__ = ("added", "rewound", "_timeline", "_index")

    def __init__(self, timeline: Timeline, index: int, added: list, rewound: bool):
        self._timeline, self._index = timeline, index
        self.added, self.rewound = added, rewound

    def __len__(self) -> int:
        return self._index + 1

    def __getitem__(self, i):
        return self._timeline.upto(self._index)[i]

    def __iter__(self):
        return iter(self._timeline.upto(self._index))

    def previous(self):
        """The snapshot kept just before the one shown (None at the start)."""
        return self._timeline[self._index - 1] if self._index > 0 else None


#: posted to let the workers go on once the event loop has painted
_RELEASE_EVENT = QtCore.QEvent.Type(QtCore.QEvent.registerEventType())
_AFTER_PAINT_PRIORITY = int(QtCore.Qt.EventPriority.LowEventPriority.value) - 1


class _PaintGate(QtCore.QObject):
    """Holds every running worker while Qt paints: a redraw tick's frame, and any other
    paint (a hover, the status bar, a resize).

    A flat-out Python worker holds the interpreter lock almost all the time; painting
    pyqtgraph items makes many short calls that each need it back, and each then waits up to
    the interpreter's switch interval, so a frame would take many intervals. Qt posts its paint
    requests (UpdateRequest) at low priority; the release is posted at a lower priority
    still, so it is handled only once the paint is done. A redraw tick holds the workers
    first (:meth:`hold_all` without release) and draws once they are parked, so the lab's
    own drawing code has the interpreter to itself too.
    """

    def __init__(self, app):
        super().__init__(app)
        self.pacers: weakref.WeakSet[Pacer] = weakref.WeakSet()
        self._held: list[Pacer] = []
        self._release_posted = False
        # a hold without release (a frame waiting for the workers) never outlives this
        self._fallback = QtCore.QTimer(self)
        self._fallback.setSingleShot(True)
        self._fallback.setInterval(int(1e3 * PARK_WAIT) + 40)
        self._fallback.timeout.connect(self.hold_all)
        app.installEventFilter(self)

    def hold_all(self, release_after_paint: bool = True) -> None:
        if not self._held:
            for pacer in list(self.pacers):
                pacer.hold(True)
                self._held.append(pacer)
        if not self._held or self._release_posted:
            return
        if release_after_paint:
            self._release_posted = True
            self._fallback.stop()
            QtCore.QCoreApplication.postEvent(self, QtCore.QEvent(_RELEASE_EVENT), _AFTER_PAINT_PRIORITY)
        elif not self._fallback.isActive():
            self._fallback.start()

    def all_parked(self) -> bool:
        """Every held worker waits (none is in the middle of a step)."""
        return all(p.parked or p.cancelled for p in self._held)

    def eventFilter(self, obj, event) -> bool:  # Qt's name
        if event.type() == QtCore.QEvent.Type.UpdateRequest:
            self.hold_all()
        return False

    def event(self, event) -> bool:  # Qt's name
        if event.type() == _RELEASE_EVENT:
            self._release_posted = False
            while self._held:
                self._held.pop().hold(False)
            return True
        return super().event(event)


_GATE: _PaintGate | None = None


def _paint_gate() -> _PaintGate:
    global _GATE
    if _GATE is None or not shiboken6.isValid(_GATE):
        _GATE = _PaintGate(QtCore.QCoreApplication.instance())
    return _GATE


class Runner(QtCore.QObject):
    """One live task per lab: start (cancelling the previous one), play, pause, step,
    step back, scrub, reset; renders through callbacks at most 30 times per second.

    Signals
    -------
    frameChanged(int index)
        Draw the snapshot at this timeline index (``current``, ``prepared_for`` and
        :meth:`frame_history` give the data), emitted from the redraw timer. No signal here
        ever carries ``None`` as a Python object: PySide6 mis-counts references to it.
    stateChanged()
        Running / paused / finished / error state or timeline length changed.
    errorOccurred(str)
        The engine raised; the message is meant for the user.
    """

    frameChanged = QtCore.Signal(int)
    stateChanged = QtCore.Signal()
    errorOccurred = QtCore.Signal(str)

    #: how long restarting waits for the previous run's current step to end (seconds);
    #: a step that takes longer is abandoned (its thread ends on its own, results dropped)
    RESTART_JOIN = 0.5

    def __init__(self, parent=None, capacity: int = 4000):
        super().__init__(parent)
        self.timeline = Timeline(capacity)
        self.cursor = -1  # index in the timeline of the snapshot shown
        self.rate: float | None = 20.0
        self._pacer: Pacer | None = None
        self._state: TaskState | None = None
        self._thread: threading.Thread | None = None
        self._prepare: Callable | None = None
        self._prepared: dict[int, Any] = {}  # id(snapshot) -> frame data, small LRU
        self._prepare_task = BackgroundTask(self, on_done=self._prepared_async, name="prepare")
        self._prepare_target = None
        self._dirty = False
        self._last_frame_serial = -1
        self._force_rewind = True
        self.finished = False
        self.error: str | None = None
        self.elapsed = 0.0
        self._play_started: float | None = None
        self._timer = QtCore.QTimer(self)
        self._timer.setInterval(REDRAW_INTERVAL_MS)
        self._timer.timeout.connect(self._tick)
        self.redraws = 0
        self.batches = 0
        self._frame_due: float | None = None  # when the frame waiting for the workers to park was due
        self._requested_at: float | None = None

    # --- lifecycle ------------------------------------------------------------------
    def start(self, make_generator: Callable[[], Iterator], prepare: Callable | None = None, play: bool = False):
        """Start a new run, cancelling the previous one first."""
        self.cancel(self.RESTART_JOIN)
        self.timeline.clear()
        self._prepared.clear()
        self._prepare_task.cancel()
        self.cursor = -1
        self.finished = False
        self.error = None
        self.elapsed = 0.0
        self._play_started = None
        self._prepare = prepare
        self._last_frame_serial = -1
        self._force_rewind = True
        self._pacer = Pacer()
        if QtCore.QCoreApplication.instance() is not None:
            _paint_gate().pacers.add(self._pacer)
        self._state = state = TaskState()
        # The initial snapshot (step 0) is always computed so the lab has something to draw.
        self._pacer.step(1)
        pacer = self._pacer
        self._thread = start_thread(lambda: _paced_run(make_generator, pacer, prepare, state), "sml-run")
        if play:
            self.play()
        self._timer.start()
        self.stateChanged.emit()

    def cancel(self, timeout: float = 5.0) -> bool:
        """Stop the live task; wait up to ``timeout`` s for its thread to let go (True if it did).

        Whatever the old run still produces is dropped: it writes into its own state,
        which nobody reads any more.
        """
        joined = True
        if self._pacer is not None:
            self._pacer.cancel()
        if self._state is not None:
            self._state.cancel()
        if self._thread is not None and timeout > 0:
            self._thread.join(timeout)
            joined = not self._thread.is_alive()
            if not joined:
                log.info("the previous run is still finishing a step; its results will be dropped")
        self._stop_clock()
        self._pacer = None
        self._state = None
        self._thread = None
        self._timer.stop()
        return joined

    def clear(self) -> None:
        """Cancel the run and forget its snapshots (nothing is shown any more)."""
        self.cancel(self.RESTART_JOIN)
        self.timeline.clear()
        self._prepared.clear()
        self.cursor = -1
        self.finished = False
        self.error = None
        self.elapsed = 0.0
        self.stateChanged.emit()

    def shutdown(self, timeout: float = 5.0) -> None:
        """Cancel and join this runner's threads (used when a tab or the window closes)."""
        self.cancel(timeout)
        self._prepare_task.shutdown(timeout)

    @property
    def has_run(self) -> bool:
        """True from :meth:`start` until the run is cancelled (finished runs included)."""
        return self._state is not None

    @property
    def active(self) -> bool:
        """A run exists that can still produce snapshots."""
        return self._state is not None and not self.finished and self.error is None

    @property
    def playing(self) -> bool:
        return self._pacer is not None and self._pacer.playing and self.active

    # --- controls -------------------------------------------------------------------
    def play(self) -> None:
        if self._pacer is None or not self.active:
            return
        if self.cursor >= 0:
            self._force_rewind = True  # resume from the live head after scrubbing back
        self.cursor = -1  # follow the live head
        self._pacer.play(self.rate)
        self._play_started = time.perf_counter()
        self._dirty = True
        self._timer.start()
        self.stateChanged.emit()

    def pause(self) -> None:
        if self._pacer is not None:
            self._pacer.pause()
        self._stop_clock()
        self.stateChanged.emit()

    def toggle(self) -> None:
        self.pause() if self.playing else self.play()

    def set_rate(self, rate: float | None) -> None:
        """Steps per second while playing; None or 0 runs as fast as possible."""
        rate = None if not rate else float(rate)
        self.rate = rate
        if self._pacer is not None:
            self._pacer.set_rate(rate)

    def step(self) -> None:
        """Advance exactly one snapshot (within the timeline if scrolled back)."""
        if self.playing:
            self.pause()
        if 0 <= self.cursor < len(self.timeline) - 1:
            self.cursor += 1
            self._dirty = True
            self._redraw()
            return
        self.cursor = -1
        if self._pacer is not None and self.active:
            self._requested_at = time.perf_counter()
            self._pacer.step(1)
            self._timer.start()

    def run_to(self, step: int) -> None:
        """Compute without playing until the snapshot numbered ``step`` (exactly, since
        snapshots are numbered by the yields of the engine generator)."""
        if self._pacer is None or not self.active:
            return
        self.cursor = -1
        last = self.timeline.last
        have = last.step if last is not None else 0  # step 0 is already requested
        have += self._pacer.pending_permits if last is not None else max(self._pacer.pending_permits - 1, 0)
        if step > have:
            self._requested_at = time.perf_counter()
            self._pacer.step(step - have)
        self._timer.start()

    def step_back(self) -> None:
        if self.playing:
            self.pause()
        idx = self.current_index
        if idx > 0:
            self.cursor = idx - 1
            self._dirty = True
            self._redraw()

    def seek(self, index: int) -> None:
        """Show the snapshot at ``index`` of the timeline (scrub slider)."""
        if not len(self.timeline):
            return
        if self.playing:
            self.pause()
        index = max(0, min(index, len(self.timeline) - 1))
        self.cursor = -1 if index == len(self.timeline) - 1 else index
        self._dirty = True
        self._redraw()

    @property
    def current_index(self) -> int:
        return len(self.timeline) - 1 if self.cursor < 0 else self.cursor

    @property
    def current(self):
        if not len(self.timeline):
            return None
        return self.timeline[self.current_index]

    def history(self) -> list:
        """Snapshots up to and including the one shown (O(length): prefer frame_history)."""
        return self.timeline.upto(self.current_index)

    def request_rewind(self) -> None:
        """The next frame's :class:`History` is ``rewound`` (the lab rebuilds its curves)."""
        self._force_rewind = True
        self._dirty = True

    def frame_history(self) -> History:
        """The :class:`History` of the frame being drawn; marks it as drawn."""
        idx = self.current_index
        if idx < 0:
            return History(self.timeline, idx, [], True)
        serial = self.timeline.serial(idx)
        if self._force_rewind or serial < self._last_frame_serial:
            added, rewound = self.timeline.upto(idx), True
        else:
            first = self.timeline.index_of_serial(self._last_frame_serial) + 1
            added, rewound = self.timeline._items[first: idx + 1], False
        self._force_rewind = False
        self._last_frame_serial = serial
        return History(self.timeline, idx, added, rewound)

    @property
    def settled(self) -> bool:
        """Nothing can arrive without a new request: the worker waits (or ended) and all it
        computed has been collected. Tests wait on this instead of sleeping."""
        state = self._state
        if state is None:
            return True
        # read "the worker waits (or ended)" before "nothing is queued": a worker that waits
        # queued all it computed before it began to wait, so the second read is complete
        idle = state.done.is_set() or (self._pacer is not None and self._pacer.waiting)
        return idle and not state.pending

    @property
    def busy(self) -> bool:
        """True while the worker is computing (playing, or steps still pending)."""
        return self._pacer is not None and self.active and (self._pacer.playing or self._pacer.pending_permits > 0)

    # --- collecting the worker's output (GUI thread, on the timer) --------------------
    def _tick(self) -> None:
        started = time.perf_counter()
        state = self._state
        if self._dirty or (state is not None and state.pending):
            gate = _paint_gate()
            if self._frame_due is None:
                self._frame_due = started
            # The workers finish their current step and wait (without the interpreter lock)
            # from here until the event loop has painted this frame; it is collected and
            # drawn once they do.
            gate.hold_all(release_after_paint=False)
            if not gate.all_parked() and started - self._frame_due < PARK_WAIT:
                self._timer.start(1)
                return
        self._collect()
        if self._dirty:
            _paint_gate().hold_all()
            self._redraw()
            if self._timer.isActive():
                due = (self._frame_due or started) + REDRAW_INTERVAL_MS / 1e3
                self._timer.start(max(1, round(1e3 * (due - time.perf_counter()))))
                pacer = self._pacer
                if pacer is not None:
                    # a flat-out worker hands over and waits just before the next frame
                    pacer.expect_frame(due if pacer.playing and pacer.flat_out else None)
            self._frame_due = None
            return
        self._frame_due = None
        self._redraw()  # stops the timer when nothing can arrive
        if self._timer.isActive():
            pacer = self._pacer
            if pacer is not None and pacer.flat_out:
                # Flat out: the worker computes between frames; take its steps as soon as it
                # has one rather than a whole redraw interval later.
                pacer.want_delivery()
                self._timer.start(RETRY_MS)
            else:
                self._timer.start(REDRAW_INTERVAL_MS)

    def _collect(self) -> None:
        state = self._state
        if state is None:
            return
        done = state.done.is_set()  # read first: nothing is added after done
        for batch in state.take():
            self._on_batch(batch)
        if done and self._state is state and not self.finished and self.error is None:
            if state.error is not None:
                self._on_error(state.error)
            else:
                self.finished = True
                self._stop_clock()
                self._dirty = True
                self.stateChanged.emit()

    def _on_batch(self, batch: Batch) -> None:
        self.batches += 1
        if self._play_started is None and batch.snapshots:
            # computing on request (Step or run_to): count the time since the request
            self._play_started = self._requested_at or time.perf_counter()
        self._requested_at = None
        if batch.snapshots:
            self.timeline.extend(batch.snapshots, batch.buffers)
            if batch.prepared is not None:
                self._remember(batch.snapshots[-1], batch.prepared)
            self._dirty = True
            self.stateChanged.emit()
        if batch.finished:
            self.finished = True
            self._stop_clock()
            self.stateChanged.emit()
        elif not self.busy:
            self._stop_clock()

    def _on_error(self, message: str) -> None:
        self.error = message
        self._stop_clock()
        self._dirty = True
        self.errorOccurred.emit(message)
        self.stateChanged.emit()

    def _stop_clock(self) -> None:
        if self._play_started is not None:
            self.elapsed += time.perf_counter() - self._play_started
            self._play_started = None

    @property
    def elapsed_now(self) -> float:
        extra = time.perf_counter() - self._play_started if self._play_started is not None else 0.0
        return self.elapsed + extra

    # --- drawing --------------------------------------------------------------------
    def _remember(self, snap, prepared) -> None:
        self._prepared[id(snap)] = (snap, prepared)
        while len(self._prepared) > 64:
            self._prepared.pop(next(iter(self._prepared)))

    def prepared_for(self, snap):
        entry = self._prepared.get(id(snap))
        return entry[1] if entry is not None and entry[0] is snap else None

    def _redraw(self) -> None:
        if not self._dirty:
            if not self._expecting_output() and not self._prepare_task.busy:
                self._timer.stop()  # nothing can arrive until the user asks: no idle ticking
            return
        self._dirty = False
        snap = self.current
        if snap is None:
            return
        prepared = self.prepared_for(snap)
        if prepared is None and self._prepare is not None:
            self._prepare_async(snap)
        self.redraws += 1
        self.frameChanged.emit(self.current_index)

    def _expecting_output(self) -> bool:
        """True while the worker may still hand over something without a new request."""
        state, pacer = self._state, self._pacer
        if state is None:
            return False
        if state.done.is_set():
            return not (self.finished or self.error is not None) or state.pending
        # A worker waiting for the GUI has delivered everything it computed.
        return pacer is None or not pacer.waiting or state.pending

    def _prepare_async(self, snap) -> None:
        if self._prepare_target is snap and self._prepare_task.busy:
            return
        self._prepare_target = snap
        self._prepare_task.start(_prepare_pair, self._prepare, snap)
        self._timer.start()

    def _prepared_async(self, pair) -> None:
        snap, result = pair
        self._prepare_target = None
        if result is not None:
            self._remember(snap, result)
            if self.current is snap:
                self._dirty = True
                self._redraw()

    def reprepare(self) -> None:
        """Prepare the snapshot on screen again (what ``prepare`` computes depends on something
        that changed outside the run, such as the visible range of a map) and draw it."""
        snap = self.current
        if snap is None or self._prepare is None:
            return
        self._prepared.pop(id(snap), None)
        if self._prepare_target is snap:
            self._prepare_target = None  # a result computed before the change is stale
        self._prepare_async(snap)

    def flush(self) -> None:
        """Collect and draw now (used by headless rendering and tests)."""
        self._collect()
        self._dirty = True
        self._redraw()


def _prepare_pair(prepare, snap):
    return snap, _safe_prepare(prepare, snap)
