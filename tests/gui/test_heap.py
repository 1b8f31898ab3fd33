"""A closed lab gives its large arrays' memory back: the app fixes glibc's mmap threshold, so an
array of 1 MB or more keeps pages of its own even after larger arrays were freed (glibc would
otherwise raise the threshold and serve it from the heap, which keeps its pages)."""

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

CHILD = textwrap.dedent("""
    import ctypes, sys
    import numpy as np

    class MallInfo2(ctypes.Structure):
        _fields_ = [(n, ctypes.c_size_t) for n in ("arena", "ordblks", "smblks", "hblks", "hblkhd",
                                                   "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost")]

    libc = ctypes.CDLL("libc.so.6")
    libc.mallinfo2.restype = MallInfo2
    if sys.argv[1] == "app":
        from app.main_window import MainWindow  # noqa: F401  (the window sets it when built)
        from app.heap import keep_large_arrays_returnable
        assert keep_large_arrays_returnable()
    for _ in range(2):  # a freed 16 MB array: glibc's own threshold would rise to 16 MB
        x = np.ones(16 << 20, dtype=np.uint8)
        del x
    before = libc.mallinfo2().hblkhd
    y = np.ones(8 << 20, dtype=np.uint8)
    print((libc.mallinfo2().hblkhd - before) / 2**20)
""")


def mapped_mb(mode: str) -> float:
    """MB of an 8 MB array served by pages of its own, in a fresh process (``mode`` 'app' or 'plain')."""
    out = subprocess.run([sys.executable, "-c", CHILD, mode], cwd=ROOT, capture_output=True, text=True,
                         timeout=120, env={"PATH": "/usr/bin:/bin", "QT_QPA_PLATFORM": "offscreen"})
    assert out.returncode == 0, out.stderr
    return float(out.stdout.strip())


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's allocator")
def test_large_arrays_keep_pages_of_their_own_after_larger_ones_were_freed():
    if mapped_mb("plain") >= 8:
        pytest.skip("this C library already serves the array with pages of its own")
    assert mapped_mb("app") >= 8


def test_the_window_fixes_the_threshold_when_built(make_window, monkeypatch):
    from app import heap

    monkeypatch.setattr(heap, "_done", [])
    calls = []
    libc = type("LibC", (), {"mallopt": lambda _self, *a: calls.append(a) or 1})()
    monkeypatch.setattr(heap.ctypes, "CDLL", lambda name: libc)
    make_window(lab_ids=["classifiers"])
    if sys.platform.startswith("linux"):
        assert calls == [(heap.M_MMAP_THRESHOLD, heap.MMAP_THRESHOLD)]
    make_window(lab_ids=["classifiers"])
    assert len(calls) <= 1  # once per process
