"""The shared image view: clicks in image coordinates (first row at the top), grey and RGB
images, keys, image and box layers, the region shown, restyling in projector and dark mode."""

import numpy as np
import pytest
from PySide6 import QtCore, QtTest

from app import style as theme
from app.widgets.image_view import ImageView

LEFT, RIGHT = QtCore.Qt.MouseButton.LeftButton, QtCore.Qt.MouseButton.RightButton


@pytest.fixture
def view(qtbot):
    v = ImageView("Photo")
    qtbot.addWidget(v)
    v.resize(400, 300)
    v.show()
    qtbot.waitExposed(v)
    yield v
    theme.manager().set(theme="light", projector=False)


def _click(view, x, y, button=LEFT):
    """Click the view at image coordinates (x, y) = (column, row)."""
    at = view.mapFromScene(view.vb.mapViewToScene(QtCore.QPointF(x, y)))
    QtTest.QTest.mouseClick(view.viewport(), button, QtCore.Qt.KeyboardModifier.NoModifier, at)


def test_first_row_is_at_the_top_and_pixels_are_square(view, qtbot):
    view.set_image(np.zeros((10, 20)))
    qtbot.wait(20)
    top = view.vb.mapViewToScene(QtCore.QPointF(0, 0))
    bottom = view.vb.mapViewToScene(QtCore.QPointF(0, 10))
    right = view.vb.mapViewToScene(QtCore.QPointF(20, 0))
    assert bottom.y() > top.y()  # row 10 lies below row 0
    assert right.x() - top.x() == pytest.approx(2 * (bottom.y() - top.y()), rel=1e-6)  # 20 columns, 10 rows
    (x0, x1), (y0, y1) = view.vb.viewRange()
    assert x0 <= 0 and x1 >= 20 and y0 <= 0 and y1 >= 10  # the whole image is shown


def test_click_gives_image_coordinates(view, qtbot):
    view.set_image(np.zeros((10, 20)))
    qtbot.wait(20)
    clicks, pixels = [], []
    view.clicked.connect(lambda x, y: clicks.append((x, y)))
    view.pixelClicked.connect(lambda r, c, b: pixels.append((r, c, b)))
    _click(view, 15.5, 1.5)
    assert len(clicks) == 1
    x, y = clicks[0]
    assert x == pytest.approx(15.5, abs=0.2) and y == pytest.approx(1.5, abs=0.2)
    assert pixels == [(1, 15, 1)]
    _click(view, 3.5, 8.5, RIGHT)  # right button: a pixel click, not a left click
    assert pixels[-1] == (8, 3, 2) and len(clicks) == 1
    _click(view, -0.6, 5.0)  # outside the image: nothing
    _click(view, 10.0, 10.4)
    assert len(pixels) == 2 and len(clicks) == 1


def test_click_before_any_image_emits_nothing(view, qtbot):
    pixels = []
    view.pixelClicked.connect(lambda r, c, b: pixels.append((r, c, b)))
    _click(view, 0.5, 0.5)
    assert pixels == []


def test_grey_image_levels_lut_and_key(view):
    grey = np.linspace(0, 1, 12).reshape(3, 4)
    lut = np.zeros((256, 3), np.uint8)
    view.set_image(grey, key="a", levels=(0.2, 0.8), lut=lut)
    np.testing.assert_array_equal(view.image.image, grey)
    assert list(view.image.levels) == [0.2, 0.8]
    assert view.image.lut is lut
    assert view.shape == (3, 4)
    view.set_image(np.ones((3, 4)), key="a")  # same key: not redrawn
    np.testing.assert_array_equal(view.image.image, grey)
    view.forget()
    view.set_image(np.ones((3, 4)), key="a")
    np.testing.assert_array_equal(view.image.image, np.ones((3, 4)))
    assert list(view.image.levels) == [0.0, 1.0]  # default levels


def test_rgb_image_uses_the_full_range_and_no_lut(view):
    view.set_image(np.zeros((5, 5)), lut=np.zeros((256, 3), np.uint8))
    rgb = np.zeros((6, 8, 3), np.uint8)
    rgb[0, 0] = (255, 0, 0)
    view.set_image(rgb)
    np.testing.assert_array_equal(view.image.image, rgb)
    assert list(view.image.levels) == [0, 255]
    assert view.image.lut is None
    assert view.shape == (6, 8)
    rect = view.image.mapRectToParent(view.image.boundingRect())
    assert (rect.x(), rect.y(), rect.width(), rect.height()) == (0, 0, 8, 6)


def test_rect_and_extent_place_a_map_on_a_photo(view):
    view.set_image(np.zeros((4, 5)), rect=(10, 20, 50, 40), extent=(100, 80))
    rect = view.image.mapRectToParent(view.image.boundingRect())
    assert (rect.x(), rect.y(), rect.width(), rect.height()) == (10, 20, 50, 40)
    assert view.shape == (100, 80)
    view.shape = (200, 300)  # set directly: the new region is shown whole
    (x0, x1), (y0, y1) = view.vb.viewRange()
    assert x0 <= 0 and x1 >= 300 and y0 <= 0 and y1 >= 200
    assert min(x1 - x0 - 300, y1 - y0 - 200) < 0.05 * 300  # tight in one direction


def test_colour_bar_follows_the_levels():
    v = ImageView("Map", colormap="viridis")
    v.set_image(np.zeros((3, 3)), levels=(0.0, 7.0))
    assert tuple(v.colorbar.levels()) == (0.0, 7.0)
    assert list(v.image.levels) == [0.0, 7.0]
    v.deleteLater()


def test_image_layers_underlay_and_box_layers(view):
    view.set_image(np.zeros((10, 10)))
    item = view.draw("tile", np.ones((2, 3)), (0, 2), x=4, y=5, z=3)
    rect = item.mapRectToParent(item.boundingRect())
    assert (rect.x(), rect.y(), rect.width(), rect.height()) == (4, 5, 3, 2)
    assert item.zValue() == 3 and item.isVisible() and list(item.levels) == [0, 2]
    assert view.draw("tile", np.zeros((2, 3)), (0, 2), key=1) is item
    view.draw("tile", np.full((2, 3), 9.0), (0, 2), key=1)  # same key: kept
    np.testing.assert_array_equal(item.image, np.zeros((2, 3)))
    view.hide_image("tile")
    assert not item.isVisible()
    grey = np.full((10, 10), 0.5)
    view.set_under(grey, opacity=0.3)
    under = view.images["under"]
    assert under.zValue() < view.image.zValue() and under.opacity() == pytest.approx(0.3)
    np.testing.assert_array_equal(under.image, grey)
    view.set_under(None)
    assert under.image is None
    boxes = view.layer("boxes", theme.OKABE_ITO["vermillion"], 2.0, QtCore.Qt.PenStyle.DashLine, z=12)
    xs = [0, 4, 4, 0, 0, np.nan, 5, 6, 6, 5, 5]
    ys = [0, 0, 3, 3, 0, np.nan, 5, 5, 6, 6, 5]
    view.set_boxes("boxes", xs, ys)
    gx, gy = view.layers["boxes"].getData()
    np.testing.assert_array_equal(gx, xs)
    np.testing.assert_array_equal(gy, ys)
    assert boxes.zValue() == 12
    assert boxes.opts["pen"].style() == QtCore.Qt.PenStyle.DashLine


def test_restyle_in_projector_and_dark_mode(view):
    view.set_title("Faces: 3")
    layer = view.layer("boxes", theme.OKABE_ITO["yellow"], 2.0)
    cbar = ImageView("Map", colormap="cividis")
    assert view.plot_item.titleLabel.text == "Faces: 3"
    assert layer.opts["pen"].widthF() == pytest.approx(2.0)
    normal_tick = cbar.colorbar.axis.style["tickFont"].pointSizeF()
    theme.manager().set(projector=True, theme="dark")
    s = theme.current()
    assert layer.opts["pen"].widthF() == pytest.approx(2.0 * 1.6)
    assert view.plot_item.titleLabel.text == "Faces: 3"
    assert view.plot_item.titleLabel.opts["size"] == f"{s.font_pt * 1.1:.0f}pt"
    assert view.plot_item.titleLabel.opts["color"] == s.foreground
    assert view.backgroundBrush().color().name().lower() == s.background.lower()
    assert cbar.colorbar.axis.style["tickFont"].pointSizeF() == pytest.approx(normal_tick * 1.6)
    theme.manager().set(projector=False, theme="light")
    assert layer.opts["pen"].widthF() == pytest.approx(2.0)
    assert view.plot_item.titleLabel.opts["size"] == f"{theme.current().font_pt * 1.1:.0f}pt"
    cbar.deleteLater()
