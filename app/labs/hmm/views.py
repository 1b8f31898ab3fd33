"""Widgets of the HMM lab: the states along t as a coloured band, a probability matrix as a heat
map with its numbers, a note of a fixed number of lines, and where a symbol's dot sits in the
strip above the probabilities."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from ... import style as theme
from ...widgets.plots import PlotPanel
from . import run

DIE_GLYPHS = "⚀⚁⚂⚃⚄⚅"
STATE_COLORS = (theme.OKABE_ITO["sky_blue"], theme.OKABE_ITO["orange"])  # fair / vowel, loaded / consonant
PATH_COLOR = theme.OKABE_ITO["vermillion"]
ROLL_Y0, ROLL_SPAN = 1.14, 0.6  # the rolls' strip above the probabilities: symbol 0 at ROLL_Y0


def roll_height(symbols, n_symbols: int) -> np.ndarray:
    """Where a symbol's dot sits in the strip above the probabilities."""
    return ROLL_Y0 + ROLL_SPAN * np.asarray(symbols, dtype=float) / max(n_symbols - 1, 1)


def rgba(color: str, alpha: int = 255) -> tuple:
    c = QtGui.QColor(color)
    return c.red(), c.green(), c.blue(), alpha


class FixedNote(QtWidgets.QLabel):
    """A wrapped note under a plot that takes ``lines`` lines: it reports no height-for-width, so
    the scroll area around a tab page sizes the page from its minimum, not from the plots' hints."""

    def __init__(self, lines: int = 2):
        super().__init__()
        self.lines = lines
        self.setWordWrap(True)
        self.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Fixed)

    def hasHeightForWidth(self) -> bool:  # Qt's name
        return False

    def sizeHint(self):  # Qt's name
        return QtCore.QSize(100, self.lines * self.fontMetrics().lineSpacing() + 4)

    def minimumSizeHint(self):  # Qt's name
        return self.sizeHint()


class StateBand(pg.ImageItem):
    """A one-row image of states along t (one cell per step) between y0 and y1."""

    def __init__(self, y0: float, y1: float):
        super().__init__()
        self.y0, self.y1 = y0, y1
        self.states = np.zeros(0, dtype=np.int64)
        self.setZValue(-1)

    def set_states(self, states: np.ndarray, shown: int) -> None:
        states = np.asarray(states, dtype=np.int64)
        self.states = states[:shown]
        T = states.shape[0]
        img = np.zeros((T, 1, 4), dtype=np.ubyte)
        for k, color in enumerate(STATE_COLORS):
            img[states == k, 0] = rgba(color, 230)
        img[shown:] = 0
        self.setImage(img, levels=(0, 255))
        self.setRect(QtCore.QRectF(0.5, self.y0, T, self.y1 - self.y0))


class MatrixView(PlotPanel):
    """A probability matrix as a heat map with its numbers written in small matrices."""

    LEFT_AXIS_EM = 5.0  # room for the state names
    def __init__(self, title: str, x_label: str, y_label: str):
        super().__init__(title, x_label, y_label, legend=False)
        self.image = pg.ImageItem()
        self.image.setLookupTable(pg.colormap.get("viridis").getLookupTable(nPts=256))
        self.plot_item.addItem(self.image)
        self.plot_item.invertY(True)
        self.plot_item.setMouseEnabled(False, False)
        self.plot_item.hideButtons()
        self.texts: list[pg.TextItem] = []
        self.values = np.zeros((0, 0))
        self.setMinimumHeight(90)

    def _fit_height(self, s: theme.Style) -> None:
        self.setMinimumHeight(int(s.font_pt * 1.33 * 6))

    def set_labels(self, rows, cols) -> None:
        left, bottom = self.plot_item.getAxis("left"), self.plot_item.getAxis("bottom")
        left.setTicks([[(i, str(r)) for i, r in enumerate(rows)]])
        cols = [c if len(str(c)) <= 6 else str(c)[:4] + "." for c in cols]  # column labels share a cell's width
        if len(cols) > 8:  # many symbols: name the vowels only
            cols_shown = [(i, str(c)) for i, c in enumerate(cols) if str(c) in run.VOWELS]
        else:
            cols_shown = [(i, str(c)) for i, c in enumerate(cols)]
        bottom.setTicks([cols_shown])

    def set_matrix(self, values: np.ndarray, top: float = 1.0) -> None:
        """Draw ``values`` with the colour scale 0..top (learned and true matrices share one)."""
        values = np.asarray(values, dtype=float)
        self.values = values
        K, M = values.shape
        self.image.setImage(values.T, levels=(0.0, top), autoLevels=False)
        self.image.setRect(QtCore.QRectF(-0.5, -0.5, M, K))
        self.plot_item.setRange(xRange=(-0.5, M - 0.5), yRange=(-0.5, K - 0.5), padding=0)
        want = K * M if M <= 3 else 0  # numbers where the cells are wide enough to hold them
        while len(self.texts) < want:
            item = pg.TextItem("", anchor=(0.5, 0.5))
            self.plot_item.addItem(item)
            self.texts.append(item)
        s = theme.current()
        font = QtGui.QFont()
        font.setPointSizeF(s.font_pt * 0.85)
        for i, item in enumerate(self.texts):
            if i >= want:
                item.setVisible(False)
                continue
            r, c = divmod(i, M)
            v = values[r, c]
            item.setText(f"{v:.2f}", color="#000000" if v > 0.55 * top else "#FFFFFF")
            item.setFont(font)
            item.setPos(c, r)
            item.setVisible(True)
