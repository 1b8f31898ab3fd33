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

The parts live in their own modules and are importable from here too: :mod:`app.pacer`
(the worker side), :mod:`app.timeline` (the past snapshots) and :mod:`app.paint_gate`
(workers held while Qt paints).
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any, Callable, Iterator

from PySide6 import QtCore

from .paint_gate import PARK_WAIT, _paint_gate, _PaintGate  # noqa: F401 - importable from app.runner
from .pacer import (  # noqa: F401 - importable from app.runner
    BATCH_INTERVAL, FRAME_GRACE, FRAME_LEAD, FRAME_LEAD_MAX, Batch, LabRunError, Pacer, _paced_run, _safe_prepare,
)
from .tasks import BackgroundTask, TaskState, start_thread
from .timeline import (  # noqa: F401 - importable from app.runner
    BUDGET, TIMELINE_BUDGET_BYTES, History, Timeline, _Budget, snapshot_arrays, snapshot_buffers,
)

log = logging.getLogger(__name__)

REDRAW_INTERVAL_MS = 33  # <= 30 redraws per second
RETRY_MS = 4  # a tick that found nothing new asks the worker for its steps and looks again this soon


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
    def preparing(self) -> bool:
        """True while a snapshot's ``prepare`` result is being computed off the GUI thread."""
        return self._prepare_task.busy

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
