"""Loops compiled with numba when it is installed: imported, compiled once, cached, or absent.

Why one helper: the engine's compiled loops (SVM pair updates, the HMM's time loops, the
sampler's chain, the cascade's window loop) all follow the same rule. numba is optional (the
"fast" extra; the frozen application leaves it out), so it is imported at the first use of a
loop, never with the engine. The loops are compiled (or loaded from numba's on-disk cache) once
per process; threads that ask at the same time (a live run and a side task) wait for that one
compilation. When numba is missing or cannot compile, the caller gets None and keeps its numpy
path; ``error`` says why.

A frozen application has no source files for numba's cache to key on, so it compiles without
the cache. Functions compiled here that call another compiled function should reach it through
a module global set by ``build`` (numba resolves globals when it compiles), not a closure:
numba keys the cache of a closure by its cells, so every process would compile it again.
"""

from __future__ import annotations

import sys
import threading
from typing import Any, Callable

__all__ = ["CompiledCode"]


class CompiledCode:
    """The compiled functions of one module, built at their first use in a process.

    Parameters
    ----------
    build : callable ``build(numba, cache) -> functions``
        Compiles the functions with the ``numba`` module given; ``cache`` says whether numba's
        on-disk cache may be used (False in a frozen application). What it returns (one
        function or a namespace of them) is what :meth:`get` hands out.

    Attributes
    ----------
    error : str or None
        Why the compiled code is not in use ("ImportError: No module named 'numba'"); None
        while it is in use or has not been asked for yet.
    """

    def __init__(self, build: Callable[[Any, bool], Any]):
        self.build = build
        self.error: str | None = None
        self._lock = threading.Lock()
        self._functions = None
        self._tried = False

    def get(self):
        """The compiled functions, or None without numba; compiled at the first call."""
        with self._lock:  # callers on two threads wait for one compilation
            if not self._tried:
                try:
                    import numba  # deferred: optional, and about half a second to import

                    self._functions = self.build(numba, not getattr(sys, "frozen", False))
                except Exception as exc:  # noqa: BLE001 - numba missing or unable to compile: the numpy path
                    self._functions = None
                    self.error = f"{type(exc).__name__}: {exc}"
                self._tried = True
        return self._functions

    def loaded(self) -> bool:
        """Whether the compiled functions are ready in this process (never loads them)."""
        return self._functions is not None
