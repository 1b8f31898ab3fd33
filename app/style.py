"""Look and feel shared by every lab: Okabe–Ito colours, light/dark theme, projector mode.

Labs never hard-code colours or sizes: they read :func:`current` and restyle their
items in ``Lab.apply_style`` when :data:`manager` announces a change.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from typing import TYPE_CHECKING

from PySide6 import QtCore, QtGui, QtWidgets

if TYPE_CHECKING:  # pyqtgraph is imported where plots are styled, not at start-up
    import pyqtgraph as pg

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
        import pyqtgraph as pg

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


def style_plot(plot: pg.PlotItem | pg.PlotWidget, style: Style | None = None, *, title: str | None = None) -> None:
    """Background, axes, labels and tick fonts of one plot, for the current style."""
    import pyqtgraph as pg

    style = style or current()
    item = plot.getPlotItem() if isinstance(plot, pg.PlotWidget) else plot
    if isinstance(plot, pg.PlotWidget):
        plot.setBackground(style.background)
    font = QtGui.QFont()
    font.setPointSizeF(style.font_pt)
    for name in ("left", "bottom", "right", "top"):
        axis = item.getAxis(name)
        if axis is None:
            continue
        axis.setPen(pg.mkPen(style.foreground, width=max(1.0, style.scale)))
        axis.setTextPen(pg.mkPen(style.foreground))
        axis.setTickFont(font)
        axis.setStyle(tickTextOffset=int(4 * style.scale))
        # larger fonts get fewer ticks, so labels never run together
        axis.setTickDensity(1.0 / style.scale)
        # no silent "× 1000" on small ranges: pyqtgraph scales by an SI prefix whenever the
        # range falls in one of these intervals, whatever enableAutoSIPrefix says
        axis.setSIPrefixEnableRanges(())
        axis.enableAutoSIPrefix(False)
        label = axis.labelText
        if label:
            axis.setLabel(label, units=axis.labelUnits or None,
                          **{"font-size": f"{style.font_pt:.0f}pt", "color": style.foreground})
    if title is not None or item.titleLabel.text:
        from .widgets.plots import eliding_title

        eliding_title(item)  # a long title is cut with "…" rather than widening the plot
        text = title if title is not None else getattr(item, "_sml_title", "")
        item._sml_title = text
        item.setTitle(text, color=style.foreground, size=f"{style.font_pt * 1.1:.0f}pt")
    legend = item.legend
    if legend is not None:
        legend.setLabelTextColor(style.foreground)
        legend.setLabelTextSize(f"{style.legend_pt:.0f}pt")
        legend.setBrush(pg.mkBrush(style.background + "C8"))
        legend.setPen(pg.mkPen(style.foreground + "60"))
        for _sample, label in legend.items:
            label.setText(label.text, color=style.foreground, size=f"{style.legend_pt:.0f}pt")
        fit = getattr(legend, "_sml_fit", None)
        if fit is not None:
            fit()


def set_axis_labels(plot: pg.PlotItem | pg.PlotWidget, bottom: str, left: str, style: Style | None = None) -> None:
    import pyqtgraph as pg

    style = style or current()
    item = plot.getPlotItem() if isinstance(plot, pg.PlotWidget) else plot
    kw = {"font-size": f"{style.font_pt:.0f}pt", "color": style.foreground}
    item.setLabel("bottom", bottom, **kw)
    item.setLabel("left", left, **kw)
