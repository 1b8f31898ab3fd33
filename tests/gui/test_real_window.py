"""The command line's self-test, in a real window: every lab opens in an X11 (xcb) window on
a virtual display, runs a few steps, is captured and stepped, as on a classroom machine (Xvfb
at 1280×800). Without Xvfb the same self-test runs offscreen.

The labs are checked in a few groups, one process each: every lab is checked, and no
process holds a test for long on a busy machine."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from app import registry

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]

ROOT = Path(__file__).resolve().parents[2]
LAB_IDS = [cls.id for cls in registry.discover()]
GROUPS = [LAB_IDS[i::3] for i in range(3)]
XVFB = ["xvfb-run", "-a", "-s", "-screen 0 1280x800x24"] if shutil.which("xvfb-run") else []


def _app(tmp_path, *args, timeout):
    env = dict(os.environ, QT_QPA_PLATFORM="xcb" if XVFB else "offscreen",
               SMLLAB_CONFIG_DIR=str(tmp_path / "config"))
    return subprocess.run([*XVFB, sys.executable, "-m", "app", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout)


@pytest.mark.parametrize("group", GROUPS, ids=lambda group: "+".join(group))
def test_self_test(tmp_path, group):
    done = _app(tmp_path, "--self-test", "--lab", ",".join(group), timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    for lab_id in group:
        assert f"ok   {lab_id} (" in done.stdout, done.stdout
    assert f"self-test: {len(group)} of {len(group)} labs passed" in done.stdout, done.stdout


def test_self_test_refuses_an_unknown_lab(tmp_path):
    done = subprocess.run([sys.executable, "-m", "app", "--self-test", "--lab", "classifiers,nope"], cwd=ROOT,
                          env=dict(os.environ, QT_QPA_PLATFORM="offscreen"), capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 2 and "unknown lab" in done.stderr and "ok   " not in done.stdout


@pytest.mark.skipif(not XVFB, reason="Xvfb is not installed (build/system-deps.sh test)")
def test_a_real_window_is_captured(tmp_path):
    shot = tmp_path / "window.png"
    done = _app(tmp_path, "--lab", "classifiers", "--steps", "10", "--screenshot", str(shot), "--size", "1280x800",
                "--projector", timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert shot.stat().st_size > 20_000  # a real picture, not an empty window
