"""Pictures of what is on screen: a plot or a whole lab view, as PNG or SVG.

A PNG is the widget rendered at twice its on-screen resolution: every text (title, ticks,
axis labels, legend) keeps its on-screen size relative to the rest, so a legend is as
readable in a handout as on the projector. An SVG of a whole lab view is the widget tree
painted into Qt's SVG generator: plots, tables, the maths panel and the form as vector
shapes and text, laid out as on screen.
"""

from __future__ import annotations

from pathlib import Path

from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtSvg import QSvgGenerator

#: PNG exports are rendered at this many image pixels per screen pixel
PNG_SCALE = 2


def widget_image(widget: QtWidgets.QWidget, scale: int = PNG_SCALE) -> QtGui.QImage:
    """``widget`` (and its children) as on screen, ``scale`` times as many pixels each way."""
    size = widget.size()
    if size.width() < 1 or size.height() < 1:
        raise ValueError("there is nothing on screen to export (the view has no size)")
    image = QtGui.QImage(size.width() * scale, size.height() * scale, QtGui.QImage.Format.Format_ARGB32)
    image.setDevicePixelRatio(scale)
    image.fill(widget.palette().color(QtGui.QPalette.ColorRole.Window))
    painter = QtGui.QPainter(image)
    try:
        painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QtGui.QPainter.RenderHint.TextAntialiasing)
        _render(widget, painter)
    finally:
        painter.end()
    return image


def _render(widget: QtWidgets.QWidget, painter: QtGui.QPainter) -> None:
    # QWidget's render (a graphics view overrides the name with its scene's)
    QtWidgets.QWidget.render(widget, painter, QtCore.QPoint(0, 0), QtGui.QRegion(),
                             QtWidgets.QWidget.RenderFlag.DrawChildren
                             | QtWidgets.QWidget.RenderFlag.DrawWindowBackground)


def export_png(widget: QtWidgets.QWidget, path: str | Path, scale: int = PNG_SCALE) -> None:
    """Write ``widget`` as a PNG at ``scale`` times its screen resolution (OSError if it cannot be
    written)."""
    if not widget_image(widget, scale).save(str(path), "PNG"):
        raise OSError(f"could not write {Path(path).name}")


def widget_svg(widget: QtWidgets.QWidget, title: str = "SML Lab view") -> bytes:
    """``widget`` (and its children) as an SVG document, one SVG unit per screen pixel."""
    size = widget.size()
    if size.width() < 1 or size.height() < 1:
        raise ValueError("there is nothing on screen to export (the view has no size)")
    data = QtCore.QByteArray()
    buffer = QtCore.QBuffer(data)
    buffer.open(QtCore.QIODevice.OpenModeFlag.WriteOnly)
    generator = QSvgGenerator()
    generator.setOutputDevice(buffer)
    generator.setSize(size)
    generator.setViewBox(QtCore.QRect(0, 0, size.width(), size.height()))
    generator.setTitle(title)
    generator.setDescription("Drawn by SML Lab")
    painter = QtGui.QPainter(generator)
    try:
        _render(widget, painter)
    finally:
        painter.end()
    buffer.close()
    return bytes(data.data())


def export_view(widget: QtWidgets.QWidget, path: str | Path, title: str = "SML Lab view") -> None:
    """Write a whole view as PNG (twice the screen resolution) or SVG, by the file's suffix."""
    path = Path(path)
    if path.suffix.lower() == ".svg":
        path.write_bytes(widget_svg(widget, title))
    elif path.suffix.lower() == ".png":
        export_png(widget, path)
    else:
        raise ValueError(f"a view is exported as .png or .svg, not {path.suffix or 'a file without a suffix'}")
