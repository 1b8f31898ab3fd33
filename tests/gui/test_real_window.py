"""The real-window path: every lab opens in an X11 (xcb) window on a virtual display, runs
a few steps and is captured, as on a classroom machine (Xvfb at 1280×800)."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(shutil.which("xvfb-run") is None, reason="Xvfb is not installed (build/system-deps.sh test)")
def test_every_lab_in_a_real_window(tmp_path):
    env = dict(os.environ, QT_QPA_PLATFORM="xcb", SMLLAB_CONFIG_DIR=str(tmp_path / "config"))
    xvfb = ["xvfb-run", "-a", "-s", "-screen 0 1280x800x24"]
    done = subprocess.run([*xvfb, sys.executable, "-m", "app", "--self-test"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=800)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert done.stdout.count("ok   ") >= 7, done.stdout
    shot = tmp_path / "window.png"
    done = subprocess.run([*xvfb, sys.executable, "-m", "app", "--lab", "classifiers", "--steps", "10",
                           "--screenshot", str(shot), "--size", "1280x800", "--projector"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert shot.stat().st_size > 20_000  # a real picture, not an empty window
