"""How a lab shares its window: the side panels' widths, projector mode's arrangement of the
plots around the main one, and one plot enlarged to the whole plot area.

:class:`LabLayout` is a part of :class:`app.lab.Lab` (it uses the lab's splitter, parameter
and maths panels and plots); it lives apart so that the lab's run and session logic reads
on its own.
"""

from __future__ import annotations

import math

import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from . import style as theme
from .widgets.plots import place_legend


def honest_minimum_widths(root: QtWidgets.QWidget) -> None:
    """Every plot under ``root`` is at least as wide as its scene's least width (title, axes,
    a colour bar, a legend re-flowed to one column): a splitter then never squeezes a plot
    below it, which would draw the plot past its widget's edge, cut without an ellipsis. A
    least width the lab set itself is kept when it is larger."""
    for view in root.findChildren(pg.GraphicsView):
        item = getattr(view, "centralWidget", None)
        if not isinstance(item, QtWidgets.QGraphicsLayoutItem):
            continue
        least = item.effectiveSizeHint(QtCore.Qt.SizeHint.MinimumSize).width()
        legend = getattr(item, "legend", None)
        if legend is not None and legend.isVisible() and legend.items and legend.columnCount > 1:
            # a legend above the data re-flows to fewer columns as the plot narrows
            widest = max(a.boundingRect().width() + b.item.boundingRect().width() + 16 for a, b in legend.items)
            least -= max(legend.effectiveSizeHint(QtCore.Qt.SizeHint.MinimumSize).width() - widest, 0)
        set_by_us = view.property("sml_least_set")
        own = view.property("sml_least_own")
        if own is None or view.minimumWidth() != set_by_us:
            own = view.minimumWidth()  # the lab's own least width (or one it changed since)
            view.setProperty("sml_least_own", own)
        want = max(int(own), int(math.ceil(least)) + 2 * view.frameWidth() + 2)
        if view.minimumWidth() != want:
            view.setMinimumWidth(want)
        view.setProperty("sml_least_set", want)


class LabLayout:
    """The panes of a lab: parameters, plots and maths side by side in ``self.splitter``."""

    def fit_panels(self, s: theme.Style | None = None, *, again: bool = True) -> None:
        """Give the side panels the room their contents need (never clipped: the form wraps
        its rows when narrow) and the plots the rest. The plots keep at least the width their
        titles, axes and legends need (:meth:`plots_least_width`): the maths panel yields
        first, down to its least width, then the parameters, down to theirs."""
        s = s or theme.current()
        total = max(self.splitter.width(), 600)
        contents = self.controls_scroll.widget()
        bar = self.controls_scroll.verticalScrollBar().sizeHint().width() + 6
        least = contents.minimumSizeHint().width() + bar
        self.controls_scroll.setMinimumWidth(min(least, int(0.45 * total)))
        controls = 0
        if (self.controls_scroll.isVisible() or not self.isVisible()) and \
                not self.controls_folded_by_projector(s, total):
            controls = int(max(least, min(contents.sizeHint().width() + bar, 0.30 * total)))
        maths = 0
        if self.maths.isVisible() or (not self.isVisible() and not self.maths.isHidden()):
            if not self.maths_folded_by_projector(s, total):
                maths = int(min(280 * s.scale, max(0.20 * total, 160)))
                if s.projector and total < 1400:
                    maths = int(min(maths, 0.30 * total))  # opened by F1: the plots yield
        handles = 2 * self.splitter.handleWidth()
        short = self.plots_least_width() - (total - handles - controls - maths)
        if short > 0 and maths:
            give = min(short, maths - self.maths.minimumWidth())
            maths -= max(give, 0)
            short -= max(give, 0)
        if short > 0 and controls:
            give = min(short, controls - self.controls_scroll.minimumWidth())
            controls -= max(give, 0)
        self.splitter.setSizes([controls, max(total - handles - controls - maths, 200), maths])
        self.panelsChanged.emit()
        if again:
            self.refit_panels_later()

    def plots_least_width(self) -> int:
        """The least width of the plots' pane: every plot at least as wide as its title, axes
        and legend need (see :func:`honest_minimum_widths`), a page that would scroll sideways
        counted at the width of what it holds."""
        honest_minimum_widths(self.plots)
        least = self.plots.minimumSizeHint().width()
        pane = self.plots.width()
        areas = self.plots.findChildren(QtWidgets.QScrollArea)
        if isinstance(self.plots, QtWidgets.QScrollArea):
            areas.insert(0, self.plots)
        for area in areas:
            inner = area.widget()
            if inner is None or not area.isVisible() or area.viewport().width() <= 0:
                continue
            # what it holds, with what the pane puts around the page's viewport (frames, tabs)
            least = max(least, inner.minimumSizeHint().width() + pane - area.viewport().width())
        return least

    def refit_panels_later(self) -> None:
        """Fit the panels again once the layouts have taken a change of fonts or panels in
        (their least sizes are known only then)."""
        if not getattr(self, "_refit_pending", False):
            self._refit_pending = True
            QtCore.QTimer.singleShot(0, self, self._refit_now)

    def _refit_now(self) -> None:
        self._refit_pending = False
        self.fit_panels(again=False)

    def maths_shown(self) -> bool:
        """The maths panel is on screen: wanted (View ▸ Show the maths) and not folded away."""
        return not self.maths.isHidden() and not self.maths_folded_by_projector()

    def controls_shown(self) -> bool:
        """The parameters are on screen: wanted (View ▸ Show the parameters) and not folded away."""
        return not self.controls_scroll.isHidden() and not self.controls_folded_by_projector()

    def projector_folds_maths(self, s: theme.Style | None = None, total: int | None = None) -> bool:
        """Projector mode on a small screen, where the maths panel is folded away until F1
        unfolds it (:attr:`maths_unfolded`)."""
        s = s or theme.current()
        total = max(self.splitter.width(), 600) if total is None else total
        return s.projector and total < 1400

    def projector_folds_controls(self, s: theme.Style | None = None, total: int | None = None) -> bool:
        """Projector mode on a small screen in a lab whose plots stand side by side there: the
        parameters are folded away until F2 unfolds them (:attr:`controls_unfolded`)."""
        return self.PROJECTOR_SIDE_BY_SIDE and self.projector_folds_maths(s, total)

    #: share of a vertical splitter's height given to the pane holding the main plot in
    #: projector mode (secondary panels below or above it get the rest)
    PROJECTOR_MAIN_SHARE = 0.70

    def favour_main_plot(self, s: theme.Style | None = None) -> None:
        """Projector mode: the class looks at the main plot. Its legend moves beside it and
        the vertical splitters holding it give it most of their height; normal mode puts both
        back as they were."""
        s = s or theme.current()
        plot = self.main_plot()
        if plot is None:
            return
        child = plot
        parent = child.parentWidget()
        while parent is not None and parent is not self:
            if isinstance(parent, QtWidgets.QSplitter) and self._side_by_side(parent, child, s):
                child, parent = parent, parent.parentWidget()
                continue
            if isinstance(parent, QtWidgets.QSplitter) and parent.orientation() == QtCore.Qt.Orientation.Vertical:
                index = parent.indexOf(child)
                sizes = parent.sizes()
                saved = parent.property("sml_normal_sizes")
                if s.projector:
                    if saved is None:
                        parent.setProperty("sml_normal_sizes", list(sizes))
                    total = sum(sizes) or 780
                    rest = [i for i in range(len(sizes)) if i != index]
                    share = [0] * len(sizes)
                    least = [max(parent.widget(i).minimumHeight(), parent.widget(i).minimumSizeHint().height())
                             for i in rest]
                    room = total * (1 - self.PROJECTOR_MAIN_SHARE)
                    # secondary panes share what is left, never pressed below their least height
                    # (a plot drawn taller than its widget would lose its bottom edge)
                    for i, low in zip(rest, least):
                        share[i] = int(max(room / len(rest), low))
                    share[index] = total - sum(share)
                    if share[index] > sizes[index]:
                        parent.setSizes(share)
                elif saved is not None:
                    total = sum(sizes) or sum(saved)
                    parent.setSizes([int(total * v / max(sum(saved), 1)) for v in saved])
                    parent.setProperty("sml_normal_sizes", None)
            child, parent = parent, parent.parentWidget()
        if hasattr(plot, "getPlotItem"):
            # a wide, short main plot keeps its height for data with the legend beside it
            # (decided on the plot's size once the splitters above have their new sizes); the
            # side-by-side arrangement has given the plot its height, the legend stays a row
            wide = plot.width() > 1.5 * max(plot.height(), 1) and not self.PROJECTOR_SIDE_BY_SIDE
            place_legend(plot.getPlotItem(), "right" if s.projector and wide else "top")

    #: projector mode turns the vertical splitter holding the main plot into a row: the main
    #: plot keeps the whole height, its secondary panels stack in a column beside it (labs whose
    #: main plot carries a long legend and a row of curves below it)
    PROJECTOR_SIDE_BY_SIDE = False
    #: share of that row's width given to the main plot
    PROJECTOR_SIDE_SHARE = 0.64

    def _side_by_side(self, splitter: QtWidgets.QSplitter, child: QtWidgets.QWidget, s: theme.Style) -> bool:
        """Projector mode with :attr:`PROJECTOR_SIDE_BY_SIDE`: ``splitter`` (vertical in normal
        mode) becomes a row with the main plot's pane first and widest, and every row of
        secondary panels in it becomes a column; normal mode puts orientations and sizes back.
        True when ``splitter`` was handled here."""
        vertical, horizontal = QtCore.Qt.Orientation.Vertical, QtCore.Qt.Orientation.Horizontal
        saved = splitter.property("sml_side_saved")
        if not self.PROJECTOR_SIDE_BY_SIDE or (saved is None and splitter.orientation() != vertical):
            return False
        if s.projector:
            if saved is None:
                inner = [w for i in range(splitter.count()) if splitter.widget(i) is not child
                         for w in self._rows_in(splitter.widget(i))]
                splitter.setProperty("sml_side_saved", (list(splitter.sizes()), [(w, w.sizes()) for w in inner]))
                splitter.setOrientation(horizontal)
                for w in inner:
                    w.setOrientation(vertical)
            for w, _old in splitter.property("sml_side_saved")[1]:
                # each pane of a column at its least height, the room left shared evenly
                least = [max(w.widget(i).minimumHeight(), w.widget(i).minimumSizeHint().height())
                         for i in range(w.count())]
                spare = max(w.height() - sum(least) - w.handleWidth() * (w.count() - 1), 0)
                w.setSizes([low + spare // max(w.count(), 1) for low in least])
            index = splitter.indexOf(child)
            total = max(splitter.width(), 1)
            rest = [i for i in range(splitter.count()) if i != index]
            sizes = [int(total * (1 - self.PROJECTOR_SIDE_SHARE) / max(len(rest), 1))] * splitter.count()
            sizes[index] = total - sum(sizes[i] for i in rest)
            splitter.setSizes(sizes)
        elif saved is not None:
            sizes, inner = saved
            splitter.setProperty("sml_side_saved", None)
            splitter.setOrientation(vertical)
            for w, old in inner:
                w.setOrientation(horizontal)
                w.setSizes(old)
            splitter.setSizes(sizes)
        return True

    @staticmethod
    def _rows_in(widget: QtWidgets.QWidget) -> list[QtWidgets.QSplitter]:
        """The horizontal splitters that ``widget`` is or holds as pages (a stack of rows of
        curves): the rows that projector's side-by-side arrangement turns into columns."""
        if isinstance(widget, QtWidgets.QSplitter):
            return [widget] if widget.orientation() == QtCore.Qt.Orientation.Horizontal else []
        if isinstance(widget, QtWidgets.QStackedWidget):
            return [w for i in range(widget.count()) for w in LabLayout._rows_in(widget.widget(i))]
        return []

    # ------------------------------------------------------------------ one plot for the class
    def _plot_clicked(self, view: pg.PlotWidget, ev) -> None:
        """A double click on a plot's title enlarges it to the whole plot area (and back)."""
        if not ev.double():
            return
        title = view.getPlotItem().titleLabel
        if title.isVisible() and title.sceneBoundingRect().contains(ev.scenePos()):
            ev.accept()
            self.toggle_enlarged(view)

    @property
    def enlarged_plot(self) -> pg.PlotWidget | None:
        return None if self._enlarged is None else self._enlarged[0]

    def toggle_enlarged(self, plot: pg.PlotWidget | None = None) -> None:
        """Give ``plot`` (default: the main plot) the lab's whole plot area, the run still
        live; called again (or with another plot), put everything back first: the pages shown
        before, the widgets hidden and the splitters' sizes."""
        if self._enlarged is not None:
            shown, hidden, splitters, pages = self._enlarged
            self._enlarged = None
            for w in hidden:
                w.setVisible(True)
            for splitter, sizes in splitters:
                splitter.setSizes(sizes)
            for stack, page in reversed(pages):
                stack.setCurrentWidget(page)
            if plot is None or plot is shown:
                return
        plot = plot or self.main_plot()
        if plot is None or not self.plots.isAncestorOf(plot):
            return
        pages = []
        child, parent = plot, plot.parentWidget()
        while parent is not None and child is not self.plots:  # the plot's page to the front
            if isinstance(parent, QtWidgets.QStackedWidget):
                tabs = parent.parentWidget()
                stack = tabs if isinstance(tabs, QtWidgets.QTabWidget) else parent
                if stack.currentWidget() is not child:
                    pages.append((stack, stack.currentWidget()))
                    stack.setCurrentWidget(child)
            child, parent = parent, parent.parentWidget()
        hidden, splitters = [], []
        child, parent = plot, plot.parentWidget()
        while parent is not None and child is not self.plots:
            if isinstance(parent, QtWidgets.QSplitter):
                splitters.append((parent, parent.sizes()))
            if not isinstance(parent, (QtWidgets.QTabWidget, QtWidgets.QStackedWidget)):
                for other in parent.findChildren(QtWidgets.QWidget,
                                                 options=QtCore.Qt.FindChildOption.FindDirectChildrenOnly):
                    if other is not child and other.isVisible() and not other.isWindow() and \
                            not isinstance(other, QtWidgets.QSplitterHandle) and \
                            other.objectName() not in ("qt_scrollarea_viewport", "qt_scrollarea_hcontainer",
                                                       "qt_scrollarea_vcontainer"):
                        other.setVisible(False)
                        hidden.append(other)
            child, parent = parent, parent.parentWidget()
        self._enlarged = (plot, hidden, splitters, pages)

    def maths_folded_by_projector(self, s: theme.Style | None = None, total: int | None = None) -> bool:
        """A projector on a small screen: the plots come first and the maths panel is folded
        away until F1 opens it (:attr:`maths_unfolded`)."""
        return self.projector_folds_maths(s, total) and not self.maths_unfolded

    def controls_folded_by_projector(self, s: theme.Style | None = None, total: int | None = None) -> bool:
        """A projector on a small screen and a lab whose plots stand side by side there
        (:attr:`PROJECTOR_SIDE_BY_SIDE`): the parameters are folded away for the plots until F2
        opens them (:attr:`controls_unfolded`)."""
        return self.projector_folds_controls(s, total) and not self.controls_unfolded

    def unfold_controls(self, on: bool = True) -> None:
        """Open (or fold again) the parameters that projector mode folded away."""
        self.controls_unfolded = bool(on)
        self.fit_panels()
        self.favour_main_plot()

    def unfold_maths(self, on: bool = True) -> None:
        """Open (or fold again) the maths panel that projector mode folded away."""
        self.maths_unfolded = bool(on)
        self.fit_panels()
