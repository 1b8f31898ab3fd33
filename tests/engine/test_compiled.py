"""The one helper behind the engine's compiled loops: numba imported at first use, one build per
process (threads wait for it), None and a reason without numba, no on-disk cache when frozen."""

import re
import sys
import threading
import types

import pytest

from smlengine import _hmm_compiled, _sampling_compiled, _smo_compiled
from smlengine._compiled import CompiledCode
from smlengine.cascade import _compiled as cascade_compiled

NO_NUMBA = re.compile(r"(Import|ModuleNotFound)Error: .*numba")


@pytest.fixture
def fake_numba(monkeypatch):
    module = types.ModuleType("numba")
    monkeypatch.setitem(sys.modules, "numba", module)
    return module


def test_built_once_with_numba_and_the_cache_flag(fake_numba):
    calls = []

    def build(numba, cache):
        calls.append((numba, cache))
        return "functions"

    code = CompiledCode(build)
    assert not code.loaded() and calls == []  # nothing is built before it is asked for
    assert code.get() == "functions" and code.get() == "functions"
    assert calls == [(fake_numba, True)] and code.loaded() and code.error is None


def test_threads_asking_together_wait_for_one_build(fake_numba):
    started, release = threading.Event(), threading.Event()
    calls = []

    def build(numba, cache):
        calls.append(1)
        started.set()
        release.wait(5)
        return object()

    code = CompiledCode(build)
    results = []
    threads = [threading.Thread(target=lambda: results.append(code.get())) for _ in range(4)]
    threads[0].start()
    assert started.wait(5)
    for t in threads[1:]:
        t.start()
    release.set()
    for t in threads:
        t.join(5)
    assert len(calls) == 1 and len(results) == 4 and len({id(r) for r in results}) == 1


def test_without_numba_none_and_the_reason(monkeypatch):
    monkeypatch.setitem(sys.modules, "numba", None)  # `import numba` raises ImportError
    calls = []
    code = CompiledCode(lambda numba, cache: calls.append(1))
    assert code.get() is None and code.get() is None
    assert calls == [] and not code.loaded()
    assert NO_NUMBA.match(code.error), code.error


def test_a_failed_build_falls_back_once_and_says_why(fake_numba):
    calls = []

    def build(numba, cache):
        calls.append(1)
        raise ValueError("cannot compile")

    code = CompiledCode(build)
    assert code.get() is None and code.get() is None
    assert calls == [1] and code.error == "ValueError: cannot compile" and not code.loaded()


def test_a_frozen_application_compiles_without_the_disk_cache(fake_numba, monkeypatch):
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    seen = []
    CompiledCode(lambda numba, cache: seen.append(cache) or "f").get()
    assert seen == [False]


@pytest.mark.parametrize("module, get", [
    (_smo_compiled, "linear_pairs"),
    (_hmm_compiled, "kernels"),
    (_sampling_compiled, "rw_chain"),
    (cascade_compiled, "grid_kernel"),
    (cascade_compiled, "level_kernel"),
])
def test_every_compiled_module_goes_through_the_helper(module, get, monkeypatch):
    """Without numba each module's loop is None and the module says why; nothing is loaded."""
    monkeypatch.setitem(sys.modules, "numba", None)
    monkeypatch.setattr(module, "COMPILED", CompiledCode(module.COMPILED.build))
    assert getattr(module, get)() is None
    assert NO_NUMBA.match(module.COMPILED.error), module.COMPILED.error
    assert not module.COMPILED.loaded()
