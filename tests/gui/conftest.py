import time

import pytest
from PySide6 import QtCore


@pytest.fixture(autouse=True)
def _no_dangling_threads(qapp):
    """Fail a test that leaves a worker thread running after it finished."""
    yield
    pool = QtCore.QThreadPool.globalInstance()
    deadline = time.perf_counter() + 2.0
    while pool.activeThreadCount() and time.perf_counter() < deadline:
        qapp.processEvents()
        time.sleep(0.01)
    assert pool.activeThreadCount() == 0, f"{pool.activeThreadCount()} worker thread(s) left running"


@pytest.fixture
def config_dir(tmp_path, monkeypatch):
    path = tmp_path / "config"
    monkeypatch.setenv("SMLLAB_CONFIG_DIR", str(path))
    return path


@pytest.fixture
def make_window(qtbot, config_dir):
    from app import style as st
    from app.main_window import MainWindow

    windows = []

    def make(**kwargs):
        kwargs.setdefault("restore", False)
        kwargs.setdefault("autosave", False)
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
    st.manager().set(theme="light", projector=False)


def wait_until(qtbot, predicate, timeout=20_000):
    qtbot.waitUntil(predicate, timeout=timeout)
