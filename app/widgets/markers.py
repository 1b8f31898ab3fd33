"""Scatter markers over a fixed set of points, of which a changing subset is shown."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg


class MaskedMarkers(pg.ScatterPlotItem):
    """Markers on a fixed set of points of which a mask is shown.

    Moving support vectors or mistakes with ``setData`` every frame costs pyqtgraph a
    Python loop over all spots; here the points and their style are set once per run (and
    per style change) and each frame only changes which points are visible.

    pyqtgraph's ``setPointsVisible`` also forgets where every spot's symbol sits in its
    atlas and looks all of them up again in Python (9 ms a call for 3,000 points, about
    30 ms while a worker holds the interpreter; three layers made a quarter of a frame).
    The symbols do not change here, so a new mask writes only the ``visible`` column of the
    item's point table, which ``paint`` reads, and asks for a repaint (``invalidate``)."""

    def __init__(self):
        super().__init__()
        self._key = None
        self._mask = np.zeros(0, dtype=bool)

    def set_points(self, key, pos, **style) -> None:
        if key == self._key:
            return
        self._key = key
        pos = np.asarray(pos, float).reshape(-1, 2)
        self.setData(pos=pos, **style)
        self._mask = np.zeros(len(pos), dtype=bool)
        self.setPointsVisible(False)

    def show_mask(self, mask) -> None:
        mask = np.asarray(mask, dtype=bool)
        if len(mask) != len(self.data) or np.array_equal(mask, self._mask):
            return
        self._mask = mask.copy()
        self.data["visible"] = mask
        self.invalidate()

    def show_indices(self, indices, n: int) -> None:
        mask = np.zeros(n, dtype=bool)
        mask[np.asarray(indices, dtype=int)] = True
        self.show_mask(mask)

    def hide_all(self) -> None:
        if self._mask.any():
            self.show_mask(np.zeros(len(self._mask), dtype=bool))

    def forget(self) -> None:
        """Drop the points (the next ``set_points`` rebuilds them)."""
        self._key = None
        self._mask = np.zeros(0, dtype=bool)
        self.setData([], [])

    def visible_positions(self) -> np.ndarray:
        if not len(self.data):
            return np.zeros((0, 2))
        vis = self.data["visible"]
        return np.column_stack([self.data["x"][vis], self.data["y"][vis]])
