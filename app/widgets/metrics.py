"""Metric-curve panel: a :class:`~app.widgets.plots.PlotPanel` of metrics against the step."""

from __future__ import annotations

import pyqtgraph as pg

from .plots import PlotPanel


class MetricPanel(PlotPanel):
    """Metrics (cost, error, objective ...) against the step; curves created on first use.

    Feed it incrementally: ``panel.curve("loss").extend(steps, values)`` with the snapshots
    of ``history.added``, ``panel.clear_series()`` when ``history.rewound``.
    """

    def __init__(self, title: str = "", x_label: str = "step", y_label: str = "", parent=None, log_y: bool = False):
        super().__init__(title, x_label, y_label, parent, log_y=log_y)

    @property
    def curves(self) -> dict[str, pg.PlotDataItem]:
        return {name: s.item for name, s in self.series.items()}

    def set_series(self, name: str, x, y) -> None:
        """Replace a whole curve (prefer ``curve(name).extend`` for histories)."""
        self.curve(name).set(x, y)
