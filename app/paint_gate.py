"""Hold the run workers while Qt paints (:class:`_PaintGate`, one per application)."""

from __future__ import annotations

import weakref

import shiboken6
from PySide6 import QtCore

from .pacer import Pacer

PARK_WAIT = 0.012  # s a frame waits for the workers to finish their step before drawing anyway


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
