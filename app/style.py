"""Look and feel shared by every lab: Okabe–Ito colours, light/dark theme, projector mode.

Labs never hard-code colours or sizes: they read :func:`current` and restyle their
items in ``Lab.apply_style`` when :data:`manager` announces a change.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from PySide6 import QtCore, QtGui, QtWidgets

# Okabe & Ito (2008), "Color Universal Design": distinguishable by colour-blind viewers.
OKABE_ITO = {
    "orange": "#E69F00",
    "sky_blue": "#56B4E9",
    "bluish_green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "reddish_purple": "#CC79A7",
    "black": "#000000",
}
#: Order used for clusters and multi-class problems.
CATEGORICAL = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000"]
#: Binary problems: class -1 vermillion, class +1 blue (a pair safe for all common deficiencies).
NEG_COLOR = OKABE_ITO["vermillion"]
POS_COLOR = OKABE_ITO["blue"]
HIGHLIGHT = OKABE_ITO["yellow"]


@dataclass(frozen=True)
class Style:
    theme: str = "light"  # "light" or "dark"
    projector: bool = False

    @property
    def scale(self) -> float:
        return 1.6 if self.projector else 1.0

    @property
    def background(self) -> str:
        return "#FFFFFF" if self.theme == "light" else "#1E1E1E"

    @property
    def foreground(self) -> str:
        return "#202020" if self.theme == "light" else "#E8E8E8"

    @property
    def grid_alpha(self) -> float:
        return 0.25

    @property
    def font_pt(self) -> float:
        return 10.0 * self.scale

    @property
    def legend_pt(self) -> float:
        """Legend text: a notch below the axis text in projector mode (still larger than the
        normal mode's), so legends take less of a small screen's plot room."""
        return 10.0 * (1.4 if self.projector else 1.0)

    @property
    def line_width(self) -> float:
        return 2.0 * self.scale

    @property
    def marker_size(self) -> float:
        return 9.0 * self.scale

    def class_color(self, label: float) -> str:
        return POS_COLOR if label > 0 else NEG_COLOR

    def pen(self, color: str | None = None, width: float | None = None, style=QtCore.Qt.PenStyle.SolidLine):
        import pyqtgraph as pg  # deferred: the window and the course map start without pyqtgraph

        pen = pg.mkPen(color or self.foreground, width=width if width is not None else self.line_width)
        pen.setStyle(style)
        return pen


class _StyleManager(QtCore.QObject):
    changed = QtCore.Signal(object)

    def __init__(self):
        super().__init__()
        self.style = Style()

    def set(self, **changes) -> None:
        new = replace(self.style, **changes)
        if new != self.style:
            self.style = new
            apply_to_application(new)
            self.changed.emit(new)


_manager: _StyleManager | None = None


def manager() -> _StyleManager:
    global _manager
    if _manager is None:
        _manager = _StyleManager()
    return _manager


def current() -> Style:
    return manager().style


_BASE_POINT_SIZE: float | None = None


def apply_to_application(style: Style) -> None:
    """Application font and palette for the widgets around the plots."""
    app = QtWidgets.QApplication.instance()
    if app is None:
        return
    global _BASE_POINT_SIZE
    font = app.font()
    if _BASE_POINT_SIZE is None:
        _BASE_POINT_SIZE = font.pointSizeF() if font.pointSizeF() > 0 else 10.0
    font.setPointSizeF(_BASE_POINT_SIZE * style.scale)
    app.setFont(font)
    if style.theme == "dark":
        pal = QtGui.QPalette()
        role = QtGui.QPalette.ColorRole
        pal.setColor(role.Window, QtGui.QColor("#2B2B2B"))
        pal.setColor(role.WindowText, QtGui.QColor("#E8E8E8"))
        pal.setColor(role.Base, QtGui.QColor("#1E1E1E"))
        pal.setColor(role.AlternateBase, QtGui.QColor("#333333"))
        pal.setColor(role.Text, QtGui.QColor("#E8E8E8"))
        pal.setColor(role.Button, QtGui.QColor("#3A3A3A"))
        pal.setColor(role.ButtonText, QtGui.QColor("#E8E8E8"))
        pal.setColor(role.Highlight, QtGui.QColor(OKABE_ITO["sky_blue"]))
        pal.setColor(role.HighlightedText, QtGui.QColor("#000000"))
        pal.setColor(role.ToolTipBase, QtGui.QColor("#333333"))
        pal.setColor(role.ToolTipText, QtGui.QColor("#E8E8E8"))
        pal.setColor(role.PlaceholderText, QtGui.QColor("#A0A0A0"))
        app.setPalette(pal)
    else:
        app.setPalette(app.style().standardPalette())
    # QApplication.setFont reaches every widget without a font of its own; walking
    # allWidgets() instead can touch widgets already scheduled for deletion.
