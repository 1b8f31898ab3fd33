"""What a lesson step shows of its lab: a plot tab, and optionally one plot of it enlarged.

A step's ``view`` is the title of a tab of the lab's plots (``"Learning"``), or that title, the
separator :data:`SEP` and the title of one plot on the tab (``"Learning ▸ Log-likelihood per
iteration"``): the plot the question is about then fills the lab's plot area, as a double click
on its title (or F11) does, and the teacher puts it back the same way. A lab without tabs names
only a plot, or nothing.
"""

from __future__ import annotations

import html
import re
from typing import TYPE_CHECKING

from PySide6 import QtWidgets

if TYPE_CHECKING:  # the window paints before pyqtgraph is loaded; plots are found as Qt views
    import pyqtgraph as pg

SEP = " ▸ "


def split_view(view: str) -> tuple[str, str]:
    """``(tab title, plot title)`` of a step's view (either may be "")."""
    view = (view or "").strip()
    mark = SEP.strip()
    if view.startswith(mark):  # a plot of a lab without tabs
        return "", view[len(mark):].strip()
    tab, _sep, plot = view.partition(SEP)
    return tab.strip(), plot.strip()


def _tab_title(tabs, i: int) -> str:
    """A tab's title as shown (``&&`` is a literal ampersand, a lone ``&`` marks the shortcut)."""
    return tabs.tabText(i).replace("&&", "\0").replace("&", "").replace("\0", "&")


def plot_title(view: pg.PlotWidget) -> str:
    """A plot's title as read on screen (without its markup)."""
    text = re.sub(r"<[^>]+>", "", view.getPlotItem().titleLabel.text or "")
    return " ".join(html.unescape(text).split())


def tab_titles(lab) -> list[str]:
    """The titles of the lab's plot tabs as shown (none for a lab without tabs)."""
    tabs = lab.plots
    if not isinstance(tabs, QtWidgets.QTabWidget):
        return []
    return [_tab_title(tabs, i) for i in range(tabs.count())]


def check_views(steps, lab_of) -> None:
    """Refuse a step whose ``view`` names a tab its lab does not have (the step would open on
    whatever tab is in front): ``ValueError`` naming the step and the field. ``lab_of(lab_id)``
    gives the lab built (its tabs exist only then). A plot's title is checked when the step
    shows it, since titles may follow the run."""
    for i, step in enumerate(steps, start=1):
        tab, _plot = split_view(step.view)
        if not tab:
            continue
        titles = tab_titles(lab_of(step.lab))
        if tab not in titles:
            known = f"its tabs: {', '.join(titles)}" if titles else "it has no tabs"
            raise ValueError(f"step {i}'s view: {tab[:40]!r} is not a tab of the lab {step.lab!r} ({known[:200]})")


def _tabs(lab) -> QtWidgets.QTabWidget | None:
    tabs = lab.plots
    return tabs if isinstance(tabs, QtWidgets.QTabWidget) and tabs.count() > 1 else None


def current_view(lab) -> str:
    """What the lab shows: the title of its plot tab in front ("" for a lab without tabs) and,
    when one plot of it is enlarged, that plot's title after :data:`SEP`."""
    tabs = _tabs(lab)
    tab = _tab_title(tabs, tabs.currentIndex()) if tabs is not None else ""
    enlarged = lab.enlarged_plot
    if enlarged is not None and enlarged.isVisible() and hasattr(enlarged, "getPlotItem"):
        return f"{tab}{SEP}{plot_title(enlarged)}".strip()
    return tab


def find_plot(lab, title: str) -> pg.PlotWidget | None:
    """The plot of the lab titled ``title`` (as read on screen)."""
    for view in lab.plots.findChildren(QtWidgets.QGraphicsView):
        if hasattr(view, "getPlotItem") and plot_title(view) == title:
            return view
    return None


def show_view(lab, view: str) -> bool:
    """Bring the step's tab to the front and enlarge its plot if it names one (a plot enlarged
    before is put back first); False if the lab has no such tab or plot."""
    tab, plot_name = split_view(view)
    plot = find_plot(lab, plot_name) if plot_name else None
    if lab.enlarged_plot is not None and lab.enlarged_plot is not plot:
        lab.toggle_enlarged()  # put back
    found = True
    if tab:
        tabs = lab.plots
        found = False
        if isinstance(tabs, QtWidgets.QTabWidget):
            for i in range(tabs.count()):
                if _tab_title(tabs, i) == tab:
                    tabs.setCurrentIndex(i)
                    found = True
                    break
    if plot_name:
        if plot is None:
            return False
        if lab.enlarged_plot is not plot:
            lab.toggle_enlarged(plot)
    return found
