"""Drive a lab's engine generator on a worker thread, with a timeline for stepping back.

Threads and data flow
---------------------
* The engine generator runs inside :func:`_paced_run` on a superqt ``GeneratorWorker``
  (a ``QRunnable`` on the global thread pool).
* :class:`Pacer` (plain ``threading``) decides when the worker may pull the next
  snapshot: freely while playing (optionally throttled to N steps/s), once per Step
  request, never while paused. It is the reason pause and single steps are exact.
* The worker does not emit one signal per snapshot, which would flood the GUI event
  loop for a fast algorithm; it yields *batches* at most ~30 times a second (and right
  away when it is about to block), so the number of queued events is bounded whatever
  the algorithm's speed.
* The GUI appends batches to the :class:`Timeline` and draws the snapshot under the
  cursor on a timer (<= 30 Hz). Only drawing happens on the GUI thread; the lab may ask
  for per-frame preparation (e.g. a decision function on a grid) which is computed on
  the worker for the newest snapshot of each batch, or on a helper thread when the user
  scrubs back to an older snapshot.
"""

from __future__ import annotations

import logging
import threading
import time
import traceback
from dataclasses import dataclass
from typing import Any, Callable, Iterator

from PySide6 import QtCore
from superqt.utils import FunctionWorker, GeneratorWorker

log = logging.getLogger(__name__)

BATCH_INTERVAL = 1.0 / 30.0  # seconds between batches sent to the GUI
REDRAW_INTERVAL_MS = 33  # <= 30 redraws per second


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

    # --- GUI side -------------------------------------------------------------------
    def play(self, rate: float | None = None) -> None:
        with self._cond:
            self._playing = True
            self._rate = rate
            self._next_time = time.perf_counter()
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
            self._cond.notify_all()

    def cancel(self) -> None:
        with self._cond:
            self._cancelled = True
            self._cond.notify_all()

    @property
    def cancelled(self) -> bool:
        return self._cancelled

    @property
    def playing(self) -> bool:
        return self._playing

    @property
    def pending_permits(self) -> int:
        return self._permits

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
            return self._rate is not None and time.perf_counter() < self._next_time

    def wait_turn(self) -> bool:
        """Block until the worker may compute one more snapshot; False once cancelled."""
        with self._cond:
            while True:
                if self._cancelled:
                    return False
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
                self._cond.wait(timeout=0.5)


@dataclass
class Batch:
    """What the worker sends to the GUI: new snapshots and the frame data of the newest."""

    snapshots: list
    prepared: Any = None
    finished: bool = False


def _paced_run(
    make_generator: Callable[[], Iterator],
    pacer: Pacer,
    prepare: Callable[[Any], Any] | None,
    done: threading.Event,
    entered: threading.Event,
):
    """Pull snapshots from the engine as the pacer allows, yield them in batches."""
    entered.set()
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
                yield Batch(pending, _safe_prepare(prepare, pending[-1]))
                pending = []
                last_sent = time.perf_counter()
            if not pacer.wait_turn():
                return "cancelled"
            try:
                snap = next(gen)
            except StopIteration:
                finished = True
            except Exception as exc:  # noqa: BLE001 - surfaced to the user as a message
                if pending:
                    yield Batch(pending, _safe_prepare(prepare, pending[-1]))
                raise LabRunError(str(exc) or type(exc).__name__, exc, traceback.format_exc()) from None
            else:
                pending.append(snap)
            now = time.perf_counter()
            if finished or now - last_sent >= BATCH_INTERVAL or pacer.will_block():
                prepared = _safe_prepare(prepare, pending[-1]) if pending else None
                yield Batch(pending, prepared, finished)
                pending = []
                last_sent = time.perf_counter()
            if finished:
                return "finished"
    finally:
        done.set()


def _safe_prepare(prepare, snap):
    if prepare is None:
        return None
    try:
        return prepare(snap)
    except Exception as exc:  # noqa: BLE001 - a drawing aid must not kill the run
        log.warning("frame preparation failed: %s", exc)
        return None


class _RunWorker(GeneratorWorker):
    """GeneratorWorker that always closes its generator on the worker thread.

    superqt's loop stops at an abort request while the generator is suspended at a
    ``yield``; closing it here runs the generator's ``finally`` (which signals the
    runner that the thread let go) without waiting for garbage collection.
    """

    def __init__(self, *args, done: threading.Event, **kwargs):
        super().__init__(*args, **kwargs)
        self._done_event = done

    def work(self):
        try:
            return super().work()
        finally:
            try:
                self._gen.close()
            finally:
                self._done_event.set()


def _boxed_prepare(prepare, snap):
    # a tuple, never a bare None, crosses the thread boundary (see frameChanged)
    return (_safe_prepare(prepare, snap),)


class Timeline:
    """Past snapshots with bounded memory; the oldest half is thinned first.

    Every snapshot is kept until ``capacity`` is reached; then every other snapshot of
    the older half is dropped, so recent history stays dense and old history sparse.
    The first (initial) snapshot is always kept.
    """

    def __init__(self, capacity: int = 4000):
        if capacity < 8:
            raise ValueError("timeline capacity must be >= 8")
        self.capacity = capacity
        self._items: list = []

    def clear(self) -> None:
        self._items.clear()

    def extend(self, snapshots) -> None:
        self._items.extend(snapshots)
        while len(self._items) > self.capacity:
            self._thin()

    def _thin(self) -> None:
        half = len(self._items) // 2
        old = self._items[:half]
        kept = [old[0]] + old[2::2] if len(old) > 1 else old
        self._items = kept + self._items[half:]

    def __len__(self) -> int:
        return len(self._items)

    def __getitem__(self, i):
        return self._items[i]

    def upto(self, index: int) -> list:
        return self._items[: index + 1]

    @property
    def last(self):
        return self._items[-1] if self._items else None


class Runner(QtCore.QObject):
    """One live task per lab: start (cancelling the previous one), play, pause, step,
    step back, scrub, reset; renders through callbacks at most 30 times per second.

    Signals
    -------
    frameChanged(int index)
        Draw the snapshot at this timeline index (``current`` and ``prepared_for``
        give the data), emitted from the redraw timer. No signal here ever carries
        ``None`` as a Python object: PySide6 mis-counts references to it.
    stateChanged()
        Running / paused / finished / error state or timeline length changed.
    errorOccurred(str)
        The engine raised; the message is meant for the user.
    """

    frameChanged = QtCore.Signal(int)
    stateChanged = QtCore.Signal()
    errorOccurred = QtCore.Signal(str)

    def __init__(self, parent=None, capacity: int = 4000):
        super().__init__(parent)
        self.timeline = Timeline(capacity)
        self.cursor = -1  # index in the timeline of the snapshot shown
        self.rate: float | None = 20.0
        self._pacer: Pacer | None = None
        self._worker: GeneratorWorker | None = None
        self._done: threading.Event | None = None
        self._entered = threading.Event()
        self._prepare: Callable | None = None
        self._prepared: dict[int, Any] = {}  # id(snapshot) -> frame data, small LRU
        self._prepare_jobs: dict[int, FunctionWorker] = {}
        self._dirty = False
        self.finished = False
        self.error: str | None = None
        self.elapsed = 0.0
        self._play_started: float | None = None
        self._generation = 0
        self._timer = QtCore.QTimer(self)
        self._timer.setInterval(REDRAW_INTERVAL_MS)
        self._timer.timeout.connect(self._redraw)
        self.redraws = 0
        self._requested_at: float | None = None

    # --- lifecycle ------------------------------------------------------------------
    def start(self, make_generator: Callable[[], Iterator], prepare: Callable | None = None, play: bool = False):
        """Start a new run, cancelling and joining the previous one first."""
        self.cancel()
        self._generation += 1
        self.timeline.clear()
        self._prepared.clear()
        self.cursor = -1
        self.finished = False
        self.error = None
        self.elapsed = 0.0
        self._play_started = None
        self._prepare = prepare
        self._pacer = Pacer()
        self._done = threading.Event()
        self._entered = threading.Event()
        gen_id = self._generation
        worker = _RunWorker(_paced_run, make_generator, self._pacer, prepare, self._done, self._entered, done=self._done)
        worker.yielded.connect(lambda batch, g=gen_id: self._on_batch(batch, g))
        worker.errored.connect(lambda exc, g=gen_id: self._on_error(exc, g))
        worker.finished.connect(lambda g=gen_id: self._on_finished(g))
        self._worker = worker
        # The initial snapshot (step 0) is always computed so the lab has something to draw.
        self._pacer.step(1)
        if play:
            self.play()
        worker.start()
        self._timer.start()
        self.stateChanged.emit()

    def cancel(self, timeout: float = 5.0) -> bool:
        """Stop the live task and wait for its thread to let go (True if it did)."""
        joined = True
        if self._pacer is not None:
            self._pacer.cancel()
        if self._worker is not None:
            self._worker.quit()
        if self._done is not None and self._entered.is_set():
            # Only a run whose body has started holds the engine; a worker still queued
            # in the thread pool sees the abort flag first and never enters the body.
            joined = self._done.wait(timeout)
            if not joined:
                log.warning("the previous run did not stop within %.1f s", timeout)
        self._stop_clock()
        self._pacer = None
        self._worker = None
        self._done = None
        self._timer.stop()
        return joined

    def shutdown(self, timeout: float = 5.0) -> None:
        """Cancel and join this runner's threads (used when a tab or the window closes).

        Only this runner's own work is awaited, not the whole thread pool, so closing
        one window never waits for another window's paused run.
        """
        self.cancel(timeout)
        deadline = time.perf_counter() + timeout
        while self._prepare_jobs and time.perf_counter() < deadline:
            QtCore.QCoreApplication.processEvents()
            time.sleep(0.005)

    @property
    def active(self) -> bool:
        return self._worker is not None and not self.finished and self.error is None

    @property
    def playing(self) -> bool:
        return self._pacer is not None and self._pacer.playing and self.active

    # --- controls -------------------------------------------------------------------
    def play(self) -> None:
        if self._pacer is None or not self.active:
            return
        self.cursor = -1  # follow the live head
        self._pacer.play(self.rate)
        self._play_started = time.perf_counter()
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
        """Snapshots up to and including the one shown."""
        return self.timeline.upto(self.current_index)

    @property
    def busy(self) -> bool:
        """True while the worker is computing (playing, or steps still pending)."""
        return self._pacer is not None and self.active and (self._pacer.playing or self._pacer.pending_permits > 0)

    # --- worker callbacks (GUI thread) ----------------------------------------------
    def _on_batch(self, batch: Batch, generation: int) -> None:
        if generation != self._generation:
            return
        if self._play_started is None and batch.snapshots:
            # computing on request (Step or run_to): count the time since the request
            self._play_started = self._requested_at or time.perf_counter()
        self._requested_at = None
        if batch.snapshots:
            self.timeline.extend(batch.snapshots)
            if batch.prepared is not None:
                self._remember(batch.snapshots[-1], batch.prepared)
            self._dirty = True
        if batch.finished:
            self.finished = True
            self._stop_clock()
            self.stateChanged.emit()
        elif not self.busy:
            self._stop_clock()

    def _on_error(self, exc: Exception, generation: int) -> None:
        if generation != self._generation:
            return
        message = str(exc) or type(exc).__name__
        tb = getattr(exc, "traceback_text", "")
        log.error("run failed: %s\n%s", message, tb)
        self.error = message
        self._stop_clock()
        self._dirty = True
        self.errorOccurred.emit(message)
        self.stateChanged.emit()

    def _on_finished(self, generation: int) -> None:
        if generation != self._generation:
            return
        if self.error is None and not (self._pacer and self._pacer.cancelled):
            self.finished = True
        self._stop_clock()
        self._dirty = True
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
            if not self.active and not self._prepare_jobs:
                self._timer.stop()
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

    def _prepare_async(self, snap) -> None:
        key = id(snap)
        if key in self._prepare_jobs or self._prepare is None:
            return
        prepare = self._prepare
        worker = FunctionWorker(_boxed_prepare, prepare, snap)

        def done(boxed, snap=snap, key=key):
            self._prepare_jobs.pop(key, None)
            result = boxed[0]
            if result is not None:
                self._remember(snap, result)
                if self.current is snap:
                    self._dirty = True
                    self._redraw()

        worker.returned.connect(done)
        worker.finished.connect(lambda key=key: self._prepare_jobs.pop(key, None))
        self._prepare_jobs[key] = worker
        worker.start()

    def flush(self) -> None:
        """Draw now if something changed (used by headless rendering and tests)."""
        self._dirty = True
        self._redraw()
