"""Exports show what is on screen: a plot's PNG keeps the on-screen proportions of every text
(its legend included), and the whole lab view exports as PNG and SVG with all its plots and
the maths panel."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np
import pytest
from PySide6 import QtCore, QtGui

SVG = "{http://www.w3.org/2000/svg}"


def _grey(image: QtGui.QImage) -> np.ndarray:
    image = image.convertToFormat(QtGui.QImage.Format.Format_Grayscale8)
    w, h, stride = image.width(), image.height(), image.bytesPerLine()
    return np.frombuffer(image.constBits(), np.uint8, count=stride * h).reshape(h, stride)[:, :w].astype(float)


def _run(qtbot, make_window, lab_id="pagerank", steps=10):
    window = make_window(lab_ids=[lab_id])
    window.resize(1280, 760)
    window.show()
    lab = window.show_lab(lab_id)
    r = lab.runner
    qtbot.waitUntil(lambda: r.current is not None, timeout=30_000)
    lab.run_to(steps)
    qtbot.waitUntil(lambda: r.settled, timeout=60_000)
    r.flush()
    qtbot.wait(50)
    return window, lab


@pytest.mark.parametrize("projector", [False, True], ids=["normal", "projector"])
def test_plot_png_is_the_screen_at_twice_the_pixels(qtbot, make_window, tmp_path, projector):
    window, lab = _run(qtbot, make_window)
    if projector:
        window.set_projector(True)
        qtbot.wait(100)
        lab.runner.flush()
    plot = lab.main_plot()
    path = tmp_path / "plot.png"
    window.export_plot(str(path), lab)
    exported = QtGui.QImage(str(path))
    screen = plot.grab().toImage()
    assert (exported.width(), exported.height()) == (2 * screen.width(), 2 * screen.height())
    # brought back to screen size, the export is the screen: legend, ticks and titles in the
    # same places at the same sizes (only antialiasing differs)
    small = exported.scaled(screen.width(), screen.height(), QtCore.Qt.AspectRatioMode.IgnoreAspectRatio,
                            QtCore.Qt.TransformationMode.SmoothTransformation)
    legend = plot.getPlotItem().legend
    box = plot.mapFromScene(legend.sceneBoundingRect()).boundingRect()
    box = box.intersected(QtCore.QRect(0, 0, screen.width(), screen.height()))
    a, b = _grey(small), _grey(screen)
    assert a.std() > 5  # not blank
    ink_a = (a[box.top():box.bottom(), box.left():box.right()] < 128).sum()
    ink_b = (b[box.top():box.bottom(), box.left():box.right()] < 128).sum()
    assert ink_b > 50
    assert abs(ink_a - ink_b) <= 0.25 * ink_b, (ink_a, ink_b)
    assert np.abs(a - b).mean() < 12


@pytest.mark.parametrize("suffix", [".png", ".svg"])
def test_the_whole_lab_view_exports(qtbot, make_window, tmp_path, suffix):
    window, lab = _run(qtbot, make_window, "pagerank", steps=6)
    path = tmp_path / f"view{suffix}"
    window.export_view(str(path), lab)
    if suffix == ".png":
        image = QtGui.QImage(str(path))
        assert (image.width(), image.height()) == (2 * lab.width(), 2 * lab.height())
        assert _grey(image).std() > 5
        return
    root = ET.fromstring(path.read_bytes())
    assert root.tag == f"{SVG}svg"
    texts = " ".join(" ".join(t.itertext()) for t in root.iter(f"{SVG}text"))
    words = set(texts.split())
    for title in ("Convergence", "Top", "ranks", "Adjacency"):  # every plot, not only the main one
        assert title in words, title
    shown = [w for w in lab.maths.toPlainText().split() if w.isalpha() and len(w) > 4][:5]
    assert shown and all(w in texts for w in shown), shown  # the maths panel as on screen
