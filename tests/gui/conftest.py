import gc
import time

import lab_templates
import pytest
from PySide6 import QtCore


def pytest_collection_modifyitems(config, items):
    """Every GUI test fails on an exception that reaches Qt's event loop uncaught (a slot, a
    virtual method, a timer): pytest-qt's exception capture, on for every test unless turned off
    by its ``qt_no_exception_capture`` option or marker, which this suite refuses."""
    if config.getini("qt_no_exception_capture"):
        raise pytest.UsageError("the GUI tests fail on exceptions in Qt slots: leave qt_no_exception_capture unset")
    off = [item.nodeid for item in items if item.get_closest_marker("qt_no_exception_capture")]
    if off:
        raise pytest.UsageError(f"the GUI tests fail on exceptions in Qt slots; remove qt_no_exception_capture "
                                f"from {', '.join(off[:3])}")


def _destroy_garbage(qapp):
    """Destroy closed windows now, while no worker thread runs.

    A window whose Python wrapper is collected later, in the middle of another test,
    is deleted by shiboken on the GUI thread while holding the GIL; if a worker is
    emitting a signal at that moment (holding Qt's connection lock and waiting for the
    GIL) the two deadlock. Collecting here, between tests, keeps deletions quiet.

    What survives the collection (imported modules, the engine tests' leftovers, a module's
    shared window) is then frozen out of the collector's walk: a full collection over the
    whole heap of a long test run costs about half a second, one over what a single test
    made costs a few milliseconds. Each module's end unfreezes and collects everything
    (``_collect_the_module``), so a module's shared windows are destroyed quietly too.
    """
    QtCore.QCoreApplication.sendPostedEvents(None, QtCore.QEvent.Type.DeferredDelete)
    gc.collect()
    QtCore.QCoreApplication.sendPostedEvents(None, QtCore.QEvent.Type.DeferredDelete)
    qapp.processEvents()
    gc.freeze()


@pytest.fixture(scope="module", autouse=True)
def _collect_the_module(qapp):
    yield
    gc.unfreeze()
    _destroy_garbage(qapp)


@pytest.fixture(autouse=True)
def _no_dangling_threads(qapp):
    """Fail a test that leaves a run or side-task thread (or a Qt pool thread) running."""
    from app.tasks import live_threads

    yield
    pool = QtCore.QThreadPool.globalInstance()
    deadline = time.perf_counter() + 5.0
    while (pool.activeThreadCount() or live_threads()) and time.perf_counter() < deadline:
        qapp.processEvents()
        time.sleep(0.01)
    busy = pool.activeThreadCount() + len(live_threads())
    if busy == 0:
        _destroy_garbage(qapp)
    assert busy == 0, f"{busy} worker thread(s) left running: {[t.name for t in live_threads()]}"


@pytest.fixture
def config_dir(tmp_path, monkeypatch):
    path = tmp_path / "config"
    monkeypatch.setenv("SMLLAB_CONFIG_DIR", str(path))
    return path


@pytest.fixture
def make_window(qtbot, config_dir, monkeypatch):
    """Windows for a test, closed after it; ``lab_ids`` may name a template lab (lab_templates.py)."""
    from app import style as theme
    from app.main_window import MainWindow

    windows = []

    def make(**kwargs):
        kwargs.setdefault("restore", False)
        kwargs.setdefault("autosave", False)
        lab_templates.register(kwargs.get("lab_ids"), monkeypatch)
        w = MainWindow(**kwargs)
        qtbot.addWidget(w)
        w.resize(1200, 800)
        w.show()
        windows.append(w)
        return w

    yield make
    for w in windows:
        w.shutdown()
        w.close()
        w.deleteLater()
    windows.clear()
    theme.manager().set(theme="light", projector=False)


def wait_until(qtbot, predicate, timeout=20_000):
    qtbot.waitUntil(predicate, timeout=timeout)
