"""A bound on pyqtgraph's symbol atlas, the memory a scatter plot keeps for symbols it drew.

A :class:`pyqtgraph.ScatterPlotItem` renders each distinct (symbol, size, pen, brush) once
into its *atlas*, an image it keeps with a copy as a pixmap. Pens and brushes are told apart
by object identity, so a plot that is given a new ``pg.mkPen(...)`` on every update (a
redrawn canvas, a restarted run, a theme change) adds a symbol each time. pyqtgraph
rebuilds the atlas from the symbols in use only once it holds more than 1,000 of them *and*
four times as many as the plot has points: a plot of 5,000 points keeps up to 20,000
symbols (tens of MB), so memory grows for minutes before it levels off.

:func:`bound_symbol_atlases` replaces that rule for every scatter plot of the process: the
atlas is rebuilt from the symbols in use as soon as it holds more than
:data:`MAX_ATLAS_SYMBOLS` and twice as many as are in use (counted at the last rebuild, so
the check costs nothing until the atlas has grown).
"""

from __future__ import annotations

import pyqtgraph as pg
from pyqtgraph.graphicsItems import ScatterPlotItem as _scatter_module

#: symbols an atlas may hold before it is rebuilt from those in use
MAX_ATLAS_SYMBOLS = 64

_installed = False


def _maybe_rebuild_atlas(self, threshold=4, minlen=1000) -> None:  # noqa: ARG001 - pyqtgraph's signature
    atlas = self.fragmentAtlas
    in_use = getattr(self, "_smllab_atlas_in_use", 0)
    if len(atlas) <= max(MAX_ATLAS_SYMBOLS, 2 * in_use):
        return
    styles = list(zip(*self._style(["symbol", "size", "pen", "brush"])))
    self._smllab_atlas_in_use = len(set(atlas._keys(styles)))
    atlas.rebuild(styles)
    self.data["sourceRect"] = 0
    self.updateSpots()


def bound_symbol_atlases() -> None:
    """Install the bound for every :class:`pyqtgraph.ScatterPlotItem` (idempotent)."""
    global _installed
    if _installed:
        return
    if not hasattr(pg.ScatterPlotItem, "_maybeRebuildAtlas") or not hasattr(_scatter_module, "SymbolAtlas"):
        return  # a pyqtgraph without this mechanism: nothing to bound
    pg.ScatterPlotItem._maybeRebuildAtlas = _maybe_rebuild_atlas
    _installed = True


def atlas_sizes(root) -> list[int]:
    """Symbols held by the atlas of every scatter plot under ``root`` (a widget; tests)."""
    sizes = []
    for view in root.findChildren(pg.GraphicsView):
        scene = view.scene()
        if scene is None:
            continue
        for item in scene.items():
            if isinstance(item, pg.ScatterPlotItem):
                sizes.append(len(item.fragmentAtlas))
    return sizes
