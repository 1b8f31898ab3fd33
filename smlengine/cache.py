"""A small thread-safe least-recently-used cache for results computed on worker threads.

Runs of several labs (and side tasks) execute on different threads at the same time, so
every module-level cache goes through one of these; none is a bare dict or list written
from a worker.
"""

from __future__ import annotations

import os
import threading
import weakref
from collections import OrderedDict
from typing import Any, Callable, Hashable

__all__ = ["LRUCache", "file_key", "clear_caches"]

_MISSING = object()
_ALL: weakref.WeakSet = weakref.WeakSet()  # every LRUCache of the process


class LRUCache:
    """At most ``maxsize`` entries; the least recently used one is dropped first.

    Parameters
    ----------
    maxsize : int, default=8
        Largest number of entries (>= 1).

    Examples
    --------
    >>> from smlengine.cache import LRUCache
    >>> cache = LRUCache(maxsize=2)
    >>> cache.put("a", 1)
    >>> cache.put("b", 2)
    >>> cache.get("a")
    1
    >>> cache.put("c", 3)
    >>> sorted(k for k in ("a", "b", "c") if k in cache), len(cache)
    (['a', 'c'], 2)
    >>> cache.get_or_compute("d", lambda: 4), cache.get("b", "dropped")
    (4, 'dropped')
    """

    def __init__(self, maxsize: int = 8):
        if maxsize < 1:
            raise ValueError(f"maxsize must be >= 1, got {maxsize}")
        self.maxsize = int(maxsize)
        self._data: OrderedDict = OrderedDict()
        self._lock = threading.Lock()
        _ALL.add(self)

    def get(self, key: Hashable, default: Any = None) -> Any:
        """The value stored under ``key`` (now the most recently used), else ``default``."""
        with self._lock:
            value = self._data.get(key, _MISSING)
            if value is _MISSING:
                return default
            self._data.move_to_end(key)
            return value

    def put(self, key: Hashable, value: Any) -> None:
        """Store ``value`` under ``key``, dropping the least recently used entries beyond ``maxsize``."""
        with self._lock:
            self._data[key] = value
            self._data.move_to_end(key)
            while len(self._data) > self.maxsize:
                self._data.popitem(last=False)

    def get_or_compute(self, key: Hashable, compute: Callable[[], Any]) -> Any:
        """The cached value, or ``compute()`` stored under ``key`` (computed outside the lock)."""
        value = self.get(key, _MISSING)
        if value is _MISSING:
            value = compute()
            self.put(key, value)
        return value

    def clear(self) -> None:
        """Drop every entry."""
        with self._lock:
            self._data.clear()

    def __contains__(self, key: Hashable) -> bool:
        with self._lock:
            return key in self._data

    def __len__(self) -> int:
        with self._lock:
            return len(self._data)


def clear_caches() -> int:
    """Empty every :class:`LRUCache` of the process; returns how many entries were dropped.

    Caches only save time, so this is always safe; the app calls it when its window closes,
    so what the labs computed does not outlive them (a run still holding a value keeps it).

    Examples
    --------
    >>> from smlengine.cache import LRUCache, clear_caches
    >>> cache = LRUCache()
    >>> cache.put("x", 1)
    >>> clear_caches() >= 1, len(cache)
    (True, 0)
    """
    dropped = 0
    for cache in list(_ALL):
        dropped += len(cache)
        cache.clear()
    return dropped


def file_key(path, *, missing_ok: bool = True) -> tuple:
    """``("file", absolute path, modification time in ns, size)``: a cache key of a user's file
    or folder that changes when it is rewritten.

    A path that cannot be read gives time and size 0 (``missing_ok``) or raises the
    ``OSError`` (``FileNotFoundError`` for a missing file).

    Examples
    --------
    >>> from smlengine.cache import file_key
    >>> key = file_key("no-such-file.txt")
    >>> key[0], key[2:]
    ('file', (0, 0))
    """
    p = os.path.abspath(os.fspath(path))
    try:
        st = os.stat(p)
    except OSError:
        if not missing_ok:
            raise
        return ("file", p, 0, 0)
    return ("file", p, st.st_mtime_ns, st.st_size)
