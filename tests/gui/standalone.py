"""One lab in a window of its own, shared by a test module (cheaper than a main window per test)."""

from __future__ import annotations

from app import style as theme
from app.testing import wait_until


def standalone_lab(lab_class, width: int = 1280, height: int = 800):
    """Build ``lab_class`` alone at ``width``×``height``, start it and wait for its first
    snapshot; yields the lab (for a module-scoped fixture: ``yield from``), then shuts it down
    and puts the light theme back."""
    lab = lab_class()
    lab.resize(width, height)
    lab.show()
    lab.start()
    wait_until(lambda: lab.runner.current is not None or lab.runner.error is not None, 30)
    yield lab
    lab.shutdown()
    lab.close()
    lab.deleteLater()
    theme.manager().set(theme="light", projector=False)
