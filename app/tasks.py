"""Background work for the GUI without the global thread pool.

Two kinds of background work exist in a lab: the *run* (driven by :class:`app.runner.Runner`)
and *side tasks* (a cross-validation grid, a reference check, a sweep over K, a solver race,
the preparation of a frame the user scrubbed back to). Both are built on the same rule:

* every task owns a plain ``threading.Thread`` (a daemon), never a slot of Qt's global
  ``QThreadPool``; a paused or waiting task therefore never starves another lab, however
  many labs and side tasks are open on a 2-core laptop;
* the worker thread never emits a Qt signal. It writes its results into its own
  :class:`TaskState` (a lock-protected outbox) and the GUI thread collects them on a
  timer. So a fast task cannot flood the event loop, a deleted widget never receives a
  late signal, and a cancelled task's results can never be mistaken for the new one's
  (each start makes a new state object; only the current one is read).

:class:`BackgroundTask` is the "one cancellable task per purpose, stale results dropped"
helper every lab uses for its side tasks::

    self.grid_task = BackgroundTask(self, on_item=self._cell, on_done=self._grid_done,
                                    on_error=self.show_error)
    self.grid_task.start(cv_steps, kind, params, X, y)        # a generator: items arrive in order
    self.reference_task.start(reference_check, kind, X, y)   # a function: one result

Functions that accept a keyword ``state`` receive their :class:`TaskState` and may call
``state.set_progress(fraction, text)`` and test ``state.cancelled`` to stop early.
"""

from __future__ import annotations

import inspect
import logging
import threading
import time
import traceback
from collections import deque
from typing import Any, Callable

from PySide6 import QtCore

log = logging.getLogger(__name__)

POLL_INTERVAL_MS = 30  # how often the GUI collects results (<= ~33 times a second)

_live_threads: set[threading.Thread] = set()
_live_lock = threading.Lock()


def live_threads() -> list[threading.Thread]:
    """Background threads of runs and side tasks that have not finished (tests use it)."""
    with _live_lock:
        return [t for t in _live_threads if t.is_alive()]


def start_thread(target: Callable[[], None], name: str) -> threading.Thread:
    """Start a daemon thread that is tracked by :func:`live_threads` until it ends."""

    def body():
        try:
            target()
        finally:
            with _live_lock:
                _live_threads.discard(threading.current_thread())

    thread = threading.Thread(target=body, name=name, daemon=True)
    with _live_lock:
        _live_threads.add(thread)
    thread.start()
    return thread


class Cancelled(Exception):
    """Raised by :meth:`TaskState.check` inside a task that was cancelled."""


class TaskState:
    """What a task and the GUI share: a cancel flag, progress, and an outbox of results.

    Progress is plain data (a fraction and a short text), not a Qt call.
    """

    def __init__(self):
        self._lock = threading.Lock()
        self._cancelled = threading.Event()
        self._items: deque = deque()
        self.progress: float = 0.0
        self.text: str = ""
        self.done = threading.Event()
        self.result: Any = None
        self.error: str | None = None
        self.started_at = time.perf_counter()

    # --- task side ----------------------------------------------------------------
    @property
    def cancelled(self) -> bool:
        return self._cancelled.is_set()

    def check(self) -> None:
        if self._cancelled.is_set():
            raise Cancelled()

    def set_progress(self, fraction: float, text: str = "") -> None:
        self.progress = float(min(max(fraction, 0.0), 1.0))
        if text:
            self.text = str(text)

    def put(self, item: Any) -> None:
        with self._lock:
            self._items.append(item)

    # --- GUI side -----------------------------------------------------------------
    def cancel(self) -> None:
        self._cancelled.set()

    @property
    def pending(self) -> bool:
        """True if results wait in the outbox."""
        return bool(self._items)

    def take(self) -> list:
        with self._lock:
            items = list(self._items)
            self._items.clear()
        return items


def _accepts_state(func: Callable) -> bool:
    try:
        return "state" in inspect.signature(func).parameters
    except (TypeError, ValueError):
        return False


def _where_raised(exc: BaseException, limit: int = 4) -> str:
    """File, line and function of the innermost frames of ``exc``, for the log.

    Source lines are left out on purpose: formatting them reads each file into
    :mod:`linecache`, which keeps them for the life of the process (megabytes after a few
    hundred refused files).
    """
    frames = [(f.f_code.co_filename, line, f.f_code.co_name) for f, line in traceback.walk_tb(exc.__traceback__)]
    text = "\n".join(f"  {name}:{line} in {func}" for name, line, func in frames[-limit:])
    return f"{text}\n{type(exc).__name__}: {exc}"


def run_task(state: TaskState, func: Callable, args: tuple, kwargs: dict) -> None:
    """Body of a task thread: call ``func``; a generator's items go to the outbox in order."""
    try:
        if _accepts_state(func):
            kwargs = {**kwargs, "state": state}
        out = func(*args, **kwargs)
        if inspect.isgenerator(out):
            try:
                for item in out:
                    if state.cancelled:
                        break
                    state.put(item)
            finally:
                out.close()
            out = None
        state.result = out
    except Cancelled:
        pass
    except Exception as exc:  # noqa: BLE001 - reported to the user as a message
        state.error = str(exc) or type(exc).__name__
        log.warning("background task failed: %s\n%s", state.error, _where_raised(exc))
    finally:
        state.done.set()


class BackgroundTask(QtCore.QObject):
    """One cancellable background task for one purpose; starting again cancels the last.

    Callbacks run on the GUI thread: ``on_item(item)`` for every item a generator yields,
    ``on_done(result)`` once it ends normally, ``on_error(message)`` if it raised,
    ``on_progress(fraction, text)`` while it runs. Results of a cancelled or replaced task
    are dropped. Closing the owner (``shutdown``) cancels and briefly joins the thread; a
    task that ignores cancellation is a daemon and never keeps the process alive.

    ``pace`` (a callable returning items per second, or None for "all at once") lets a class
    watch a side task draw: the task computes as fast as it can, and its items reach
    ``on_item`` at that rate (``on_done`` after the last one). ``wait`` delivers everything.
    """

    def __init__(self, parent: QtCore.QObject | None = None, *, on_item=None, on_done=None, on_error=None,
                 on_progress=None, name: str = "task"):
        super().__init__(parent)
        self.on_item, self.on_done, self.on_error, self.on_progress = on_item, on_done, on_error, on_progress
        self.name = name
        self.pace: Callable[[], float | None] | None = None
        self._held: deque = deque()  # items taken from the task, not yet delivered (paced)
        self._budget = 0.0
        self._last = 0.0
        self._draining = False
        self.state: TaskState | None = None
        self._thread: threading.Thread | None = None
        self._timer = QtCore.QTimer(self)
        self._timer.setInterval(POLL_INTERVAL_MS)
        self._timer.timeout.connect(self.poll)

    @property
    def running(self) -> bool:
        return self.state is not None and not self.state.done.is_set()

    @property
    def busy(self) -> bool:
        """True until the current task's results have all been delivered."""
        return self.state is not None

    def start(self, func: Callable, *args, **kwargs) -> TaskState:
        self.cancel()
        state = TaskState()
        self.state = state
        self._held.clear()
        self._budget, self._last = 1.0, time.perf_counter()  # the first item shows at once
        self._thread = start_thread(lambda: run_task(state, func, args, kwargs), f"sml-{self.name}")
        self._timer.start()
        return state

    def cancel(self) -> None:
        """Stop listening to the current task and ask it to stop."""
        if self.state is not None:
            self.state.cancel()
        self.state = None
        self._held.clear()
        self._timer.stop()

    def poll(self) -> None:
        """Deliver what the current task produced (GUI thread; also called by tests)."""
        state = self.state
        if state is None:
            self._timer.stop()
            return
        finished = state.done.is_set()  # read before taking items: none can follow
        self._held.extend(state.take())
        for item in self._due():
            if self.state is not state:
                return  # a callback restarted or cancelled the task
            if self.on_item is not None:
                self.on_item(item)
        if self.state is not state:
            return
        if self._held:
            finished = False  # the class has not seen every item yet
        if self.on_progress is not None and not finished:
            self.on_progress(state.progress, state.text)
        if finished:
            self.state = None
            self._timer.stop()
            if state.error is not None:
                if self.on_error is not None:
                    self.on_error(state.error)
            elif not state.cancelled and self.on_done is not None:
                self.on_done(state.result)

    def _due(self) -> list:
        """The held items to deliver now: all of them, or as many as the pace allows since the
        last delivery."""
        rate = None if self._draining or self.pace is None else self.pace()
        if not rate or rate <= 0:
            items = list(self._held)
            self._held.clear()
            return items
        now = time.perf_counter()
        self._budget = min(self._budget + (now - self._last) * rate, max(1.0, rate * POLL_INTERVAL_MS / 1000.0))
        self._last = now
        n = min(int(self._budget + 1e-9), len(self._held))
        self._budget -= n
        return [self._held.popleft() for _ in range(n)]

    def wait(self, timeout: float = 10.0) -> bool:
        """Block until the current task ends and deliver its results (scripts and tests)."""
        state = self.state
        if state is None:
            return True
        ok = state.done.wait(timeout)
        self._draining = True
        try:
            self.poll()
        finally:
            self._draining = False
        return ok

    def shutdown(self, timeout: float = 2.0) -> None:
        thread = self._thread
        self.cancel()
        if thread is not None:
            thread.join(timeout)
        self._thread = None
