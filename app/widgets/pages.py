"""Tab pages built from their parts: a row of controls on top, then plots stacked or side by side.

Every lab's side-task tabs (restarts, model order, comparisons, the solver race) share this shape:
the button that starts the task and its status line, and below them the plots it fills.
"""

from __future__ import annotations

from typing import Sequence, Union

from PySide6 import QtCore, QtWidgets

#: a widget, or a widget and its stretch factor in its row or column
Part = Union[QtWidgets.QWidget, tuple]


def _parts(parts) -> list[tuple[QtWidgets.QWidget, int]]:
    return [p if isinstance(p, tuple) else (p, 0) for p in parts]


def control_row(*parts: Part) -> QtWidgets.QHBoxLayout:
    """A row of widgets, each with its stretch: ``control_row(button, (status, 1))``."""
    row = QtWidgets.QHBoxLayout()
    for widget, stretch in _parts(parts):
        row.addWidget(widget, stretch)
    return row


def page(top: Sequence[Part], *body: Part, margin: int = 0) -> QtWidgets.QWidget:
    """A tab page: the ``top`` row of controls, then each ``body`` part below it (a widget alone
    takes stretch 1, the rest of the height)."""
    widget = QtWidgets.QWidget()
    lay = QtWidgets.QVBoxLayout(widget)
    lay.setContentsMargins(margin, margin, margin, margin)
    lay.addLayout(control_row(*top))
    for part, stretch in (p if isinstance(p, tuple) else (p, 1) for p in body):
        lay.addWidget(part, stretch)
    return widget


def splitter(vertical: bool, *widgets: QtWidgets.QWidget, sizes: Sequence[int] = (),
             stretch: Sequence[int] = (), collapsible: bool = True) -> QtWidgets.QSplitter:
    """``widgets`` side by side (or one above the other when ``vertical``). ``sizes`` are the
    panes' first sizes in pixels (a splitter of another size shares it in the same proportions),
    ``stretch`` the factors by which they share growth; ``collapsible=False`` keeps every pane
    visible."""
    split = QtWidgets.QSplitter(QtCore.Qt.Orientation.Vertical if vertical else QtCore.Qt.Orientation.Horizontal)
    for i, w in enumerate(widgets):
        split.addWidget(w)
        split.setCollapsible(i, collapsible)
    for i, factor in enumerate(stretch):
        split.setStretchFactor(i, factor)
    if sizes:
        split.setSizes(list(sizes))
    return split
