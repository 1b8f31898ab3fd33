"""Room for what a lesson step shows: the plots of the step's tab share the lab's height so that
the main one keeps most of it and none is too flat to read.

The class looks at the step's main plot (the lab's main plot on the tab a lab opens on, the
largest plot of any other tab) and at the evidence the question is about, which may be any plot
of the tab. The vertical splitters of the tab give each of their panes what its plots need —
:data:`MAIN_SHARE` of the window's height for the main plot's data, :data:`EVIDENCE_SHARE` for
every other plot's — taking it from panes whose plots have more than they need.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6 import QtCore, QtWidgets

if TYPE_CHECKING:  # the window paints before pyqtgraph is loaded; plots are found as Qt views
    import pyqtgraph as pg

#: shares of the window's height the data of the step's main plot and of every other plot of its
#: tab are given (a little above what the lesson tests require, for rounding and frames)
MAIN_SHARE = 0.37
EVIDENCE_SHARE = 0.13
SPARE = 4  # pixels a pane that gives room keeps above what its plots need


def shown_plots(lab) -> list[pg.PlotWidget]:
    """The plots (with a data area) on the lab's tab in front."""
    return [v for v in lab.plots.findChildren(QtWidgets.QGraphicsView)
            if hasattr(v, "getPlotItem") and v.isVisible() and v.width() > 1]


def data_height(view) -> float:
    return view.getPlotItem().getViewBox().sceneBoundingRect().height()


def step_main_plot(lab):
    """The plot the class looks at first: the lab's main plot on the tab the lab opens on (or
    a lab without tabs), the largest plot of the tab in front otherwise."""
    plots = shown_plots(lab)
    main = lab.main_plot()
    tabs = lab.plots if isinstance(lab.plots, QtWidgets.QTabWidget) else None
    if main is not None and main in plots and (tabs is None or tabs.currentIndex() == 0):
        return main
    return max(plots, key=data_height, default=None)


def make_room(lab, window_height: int) -> bool:
    """One pass over the vertical splitters of the tab in front, each pane's share moved from
    panes with more than their plots need to panes with less; True if a size changed (the
    plots' new sizes are known after the next layout, when another pass may follow)."""
    plots = shown_plots(lab)
    if not plots:
        return False
    main = step_main_plot(lab)

    def margin(view) -> float:
        share = MAIN_SHARE if view is main else EVIDENCE_SHARE
        return data_height(view) - share * window_height

    changed = False
    for splitter in lab.plots.findChildren(QtWidgets.QSplitter):
        if not splitter.isVisible() or splitter.orientation() != QtCore.Qt.Orientation.Vertical:
            continue
        sizes = splitter.sizes()
        margins: dict[int, float] = {}
        for i in range(splitter.count()):
            pane = splitter.widget(i)
            if sizes[i] <= 0 or not pane.isVisible():
                continue
            inside = [v for v in plots if v is pane or pane.isAncestorOf(v)]
            if inside:
                margins[i] = min(margin(v) for v in inside)
        needy = [i for i, m in margins.items() if m < 0]
        if not needy:
            continue
        for i in needy:
            need = int(-margins[i]) + 1
            for k in sorted(margins, key=margins.get, reverse=True):
                give = min(need, int(margins[k]) - SPARE)
                if k == i or give <= 0:
                    continue
                sizes[k] -= give
                sizes[i] += give
                margins[k] -= give
                need -= give
                if need <= 0:
                    break
        if sizes != splitter.sizes():
            # a hidden pane keeps a share for when the lab shows it again (a size of 0 would
            # keep it folded then)
            shown = [v for i, v in enumerate(sizes) if splitter.widget(i).isVisible() and v > 0]
            spare = max(sum(shown) // max(len(shown), 1), 1)
            splitter.setSizes([v if splitter.widget(i).isVisible() else spare for i, v in enumerate(sizes)])
            changed = True
    return changed


def main_plot_first(lab, share: float) -> None:
    """The vertical splitters that hold the lab's main plot give it at least ``share`` of their
    height (a panel above the lab took some of it)."""
    plot = lab.main_plot()
    if plot is None or not lab.plots.isAncestorOf(plot):
        return
    child, parent = plot, plot.parentWidget()
    while parent is not None and child is not lab.plots:
        if isinstance(parent, QtWidgets.QSplitter) and parent.orientation() == QtCore.Qt.Orientation.Vertical:
            sizes = parent.sizes()
            index = parent.indexOf(child)
            total = sum(sizes)
            if index >= 0 and total > 0 and sizes[index] < share * total:
                rest = total - sizes[index]
                main = int(share * total)
                parent.setSizes([main if i == index else int(v * (total - main) / max(rest, 1))
                                 for i, v in enumerate(sizes)])
        child, parent = parent, parent.parentWidget()
