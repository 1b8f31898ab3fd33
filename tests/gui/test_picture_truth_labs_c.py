"""What the points labs draw tells the truth, across labs (projector mode, dark theme, 1024×768):

- the view of a point canvas stays where the user left it (no auto-range turned on, pyqtgraph's
  tiny "A" hidden) and a visible "Fit view" button, in the plot's corner off the data and with
  its label whole, brings every point back;
- a decision map under the points shades both classes' regions visibly on the dark ground: the
  +1 region's blue does not sink to near-black (the contrast of each side's shade against the
  plot's background, as a projector shows it, at least that on white, and clear when certain).
"""

import numpy as np
import pytest
from PySide6 import QtCore, QtGui, QtWidgets

from app import registry
from app.points_lab import PointsLab
from app.testing import drawn, run_to
from lab_templates import TEMPLATES

POINTS_LABS = [info.id for info in registry.discover() if issubclass(info.cls, PointsLab)] + list(TEMPLATES)
#: the least contrast (WCAG ratio) of a class's region against the plot's ground
MIN_MAP_CONTRAST = 2.5


def _luminance(rgb) -> float:
    c = np.asarray(rgb, float) / 255.0
    c = np.where(c <= 0.03928, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return float(0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2])


def _contrast(a, b) -> float:
    la, lb = _luminance(a), _luminance(b)
    return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)


def _show_page_of(widget) -> None:
    """Bring the tab holding ``widget`` to the front (the canvas is on a lab's first tab or alone)."""
    w = widget
    while w is not None:
        parent = w.parentWidget()
        tabs = parent.parentWidget() if isinstance(parent, QtWidgets.QStackedWidget) else None
        if isinstance(tabs, QtWidgets.QTabWidget):
            tabs.setCurrentWidget(w)
        w = parent


def _shade(lut: np.ndarray, v: float, ground: np.ndarray) -> np.ndarray:
    """The colour a map value ``v`` in [−1, 1] is drawn in over ``ground``."""
    rgba = np.asarray(lut[int(round((v + 1.0) / 2.0 * (len(lut) - 1)))], float)
    return ground * (1 - rgba[3] / 255.0) + rgba[:3] * (rgba[3] / 255.0)


def _ground() -> np.ndarray:
    from app import style as theme

    return np.array(QtGui.QColor(theme.current().background).getRgb()[:3], float)


def _map_problems(lab, window) -> list[str]:
    """Each class's region, at its strongest value drawn and fully confident, as visible on the
    dark ground as on white, and a confident region at least :data:`MIN_MAP_CONTRAST` from it."""
    decision = getattr(lab, "decision", None)
    if decision is None:
        return []
    if decision.image.image is None or not decision.image.isVisible():
        return [f"{lab.id}: no decision map under the points"]
    values = np.asarray(decision.image.image, float)
    dark_lut, dark_ground = np.array(decision.image.lut), _ground()
    window.set_dark(False)
    light_lut, light_ground = np.array(decision.image.lut), _ground()
    window.set_dark(True)
    problems = []
    for name, q, end in (("class −1", 2, -1.0), ("class +1", 98, 1.0)):
        shown = float(np.nanpercentile(values, q))
        for v, what in ((shown, "where it is drawn most strongly"), (end, "where it is certain")):
            if abs(v) < 0.5 or np.sign(v) != np.sign(end):
                continue  # this side is hardly on screen
            dark = _contrast(_shade(dark_lut, v, dark_ground), dark_ground)
            light = _contrast(_shade(light_lut, v, light_ground), light_ground)
            least = MIN_MAP_CONTRAST if v == end else light
            if dark < least - 1e-9:
                problems.append(f"{lab.id}: the {name} region {what} (f shaded {v:+.2f}) has contrast {dark:.2f} "
                                f"on the dark ground ({light:.2f} on white)")
    return problems


@pytest.mark.parametrize("lab_id", POINTS_LABS)
def test_canvas_view_and_map_in_projector_dark(qtbot, make_window, lab_id):
    window = make_window(lab_ids=[lab_id])
    window.resize(1024, 768)
    window.set_projector(True)
    window.set_dark(True)
    lab = window.show_lab(lab_id)
    qtbot.waitUntil(lambda: lab.runner.current is not None or lab.runner.error is not None, timeout=30_000)
    canvas = lab.canvas
    _show_page_of(canvas)
    if hasattr(lab, "decision"):
        run_to(lab, 3)  # a few steps on: the map of a trained model under the points
    else:
        drawn(lab)
    pi = canvas.plot_item
    vb = pi.getViewBox()
    assert vb.state["autoRange"] == [False, False], f"{lab_id}: the view follows the data by itself"
    assert pi.buttonsHidden, f"{lab_id}: pyqtgraph's auto-range button turns re-fitting on for good"

    button = canvas.fit_button
    assert button.isVisible() and "Home" in button.toolTip(), lab_id
    geometry = button.geometry()
    assert canvas.rect().contains(geometry), f"{lab_id}: the fit button is cut by its canvas"
    assert not canvas.mapToScene(geometry).boundingRect().intersects(vb.sceneBoundingRect()), \
        f"{lab_id}: the fit button covers the data area"
    metrics = QtGui.QFontMetrics(button.font())
    lines = button.text().split("\n")
    assert max(metrics.horizontalAdvance(t) for t in lines) <= geometry.width(), f"{lab_id}: {button.text()!r} cut"
    assert len(lines) * metrics.height() <= geometry.height(), f"{lab_id}: {button.text()!r} cut"

    assert _map_problems(lab, window) == []

    X = canvas.X
    if len(X):
        (x0, x1), (y0, y1) = vb.targetRange()
        vb.translateBy(x=3 * (x1 - x0), y=3 * (y1 - y0))  # every point off screen
        qtbot.mouseClick(button, QtCore.Qt.MouseButton.LeftButton)
        (x0, x1), (y0, y1) = vb.targetRange()
        inside = (X[:, 0] >= x0) & (X[:, 0] <= x1) & (X[:, 1] >= y0) & (X[:, 1] <= y1)
        assert inside.all(), f"{lab_id}: {np.sum(~inside)} points stay off screen after Fit view"
        assert vb.state["autoRange"] == [False, False]
    window.set_projector(False)
    window.set_dark(False)
