"""How the process's C heap hands memory back when a lab closes (Linux, glibc).

glibc serves a large allocation (a numpy array of a photo pyramid, a feature matrix) with its
own pages, returned to the system when the array is freed, but only up to a threshold that it
raises, up to 32 MB, each time such an array is freed. After a few runs every array of the face
detector's pyramid then comes from the heap, and the heap keeps its pages after the lab has
closed (no live object holds them: it is the allocator's). Fixing the threshold at 1 MB keeps
every large array on pages of its own, so closing a lab gives its memory back.
"""

from __future__ import annotations

import ctypes
import sys

#: mallopt's parameter number for the mmap threshold (malloc.h: M_MMAP_THRESHOLD)
M_MMAP_THRESHOLD = -3
#: allocations of this many bytes or more get pages of their own
MMAP_THRESHOLD = 1 << 20

_done: list[bool] = []


def keep_large_arrays_returnable() -> bool:
    """Fix glibc's mmap threshold at :data:`MMAP_THRESHOLD` (once per process); False where
    the C library is not glibc or refuses (nothing changes then)."""
    if _done:
        return _done[0]
    ok = False
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL("libc.so.6")  # glibc; elsewhere OSError and nothing changes
            ok = bool(libc.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD))
        except (OSError, AttributeError):
            ok = False
    _done.append(ok)
    return ok
