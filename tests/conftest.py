"""Suite-wide configuration: Qt runs offscreen and every test starts from fixed seeds."""

import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as the application does (app/__main__.py)
# The course map's pictures are drawn by a background process of the app: off in tests, except in
# the one test that checks them (tests/gui/test_course_map.py).
os.environ.setdefault("SMLLAB_THUMBNAILS", "0")
# Keep user settings and autosaves of the test run away from the real ones, and those of
# parallel workers (pytest-xdist names them gw0, gw1, ...) away from each other.
os.environ.setdefault("SMLLAB_CONFIG_DIR", str(Path(__file__).resolve().parent / ".smllab-test-config"
                                               / os.environ.get("PYTEST_XDIST_WORKER", "main")))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

# Property tests draw the same examples on every run (the suite is deterministic); set
# SMLLAB_HYPOTHESIS=explore to let them search new ones.
from hypothesis import settings as _hypothesis_settings  # noqa: E402

_hypothesis_settings.register_profile("deterministic", derandomize=True, database=None)
_hypothesis_settings.register_profile("explore", derandomize=False)
_hypothesis_settings.load_profile(os.environ.get("SMLLAB_HYPOTHESIS", "deterministic"))
