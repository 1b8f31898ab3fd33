"""The headless command line: --list-labs, --screenshot (--self-test: test_real_window.py)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from app import registry

ROOT = Path(__file__).resolve().parents[2]


def run_app(*args, timeout=240):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    return subprocess.run([sys.executable, "-m", "app", *args], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=timeout)


def test_list_labs():
    out = run_app("--list-labs")
    assert out.returncode == 0, out.stderr
    ids = [line.split("\t")[0] for line in out.stdout.splitlines()]
    assert ids == [cls.id for cls in registry.discover()]


def _not_blank(path: Path) -> bool:
    from PIL import Image

    with Image.open(path) as im:
        colours = im.convert("RGB").resize((80, 50)).getcolors(maxcolors=100_000)
    return colours is not None and len(colours) > 20


@pytest.mark.parametrize("extra", [[], ["--projector", "--size", "1000x700", "--theme", "dark"]])
def test_screenshot(tmp_path, extra):
    path = tmp_path / "shot.png"
    out = run_app("--lab", "classifiers", "--steps", "8", "--seed", "2", "--screenshot", str(path), *extra)
    assert out.returncode == 0, out.stderr
    assert path.exists() and _not_blank(path)
    if extra:
        from PIL import Image

        with Image.open(path) as im:
            assert im.size == (1000, 700)


def test_screenshot_unknown_lab(tmp_path):
    out = run_app("--lab", "nope", "--screenshot", str(tmp_path / "x.png"))
    assert out.returncode == 2 and "unknown lab" in out.stderr


def test_no_display_message(tmp_path):
    """Without a display (and no forced Qt platform) the app says so and how to run headless,
    instead of Qt's misleading "xcb-cursor0 is needed" abort."""
    if not sys.platform.startswith("linux"):
        pytest.skip("the display check is for X11/Wayland systems")
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    env["SMLLAB_CONFIG_DIR"] = str(tmp_path / "config")
    out = subprocess.run([sys.executable, "-m", "app", "--fresh"], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=60)
    text = out.stdout + out.stderr
    assert out.returncode != 0
    assert "no display" in text
    assert "--screenshot" in text and "QT_QPA_PLATFORM=offscreen" in text
    assert "xcb" not in text.lower()
    assert len(text) < 1000  # a short message, not a traceback


@pytest.mark.parametrize("deferred", [False, True], ids=["built", "built-after-first-paint"])
def test_the_start_up_heap_is_frozen_once_the_first_lab_is_built(qtbot, make_window, deferred):
    """The interactive start moves what exists once the first lab is built out of the
    garbage collector's reach (shorter full collections while a run plays)."""
    import gc

    from app.__main__ import freeze_start_up_heap

    gc.unfreeze()
    try:
        window = make_window(lab_ids=["pagerank"], build_after_first_paint=deferred)
        assert bool(window.built_labs()) is not deferred
        freeze_start_up_heap(window)
        qtbot.waitUntil(lambda: bool(window.built_labs()), timeout=30_000)
        qtbot.waitUntil(lambda: gc.get_freeze_count() > 0, timeout=10_000)
        frozen = gc.get_freeze_count()
        window.show_lab("pagerank").start()
        qtbot.wait(50)
        assert gc.get_freeze_count() <= frozen  # frozen once, not on every build or run
    finally:
        gc.unfreeze()
