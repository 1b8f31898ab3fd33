"""The run's past: a :class:`Timeline` of snapshots bounded in bytes for all labs together
(arrays shared between snapshots counted once), and the :class:`History` a lab's ``render``
receives with each frame."""

from __future__ import annotations

import bisect
import dataclasses
import weakref

import numpy as np

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
