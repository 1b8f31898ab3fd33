"""Widgets of the topics lab: the topics as lists of their top words, the document's words
coloured by topic, and the topics drawn as 5 × 5 pictures."""

from __future__ import annotations

import html
import math

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from ... import style as theme
from ...widgets.plots import PlotPanel


def topic_color(k: int) -> str:
    return theme.CATEGORICAL[k % len(theme.CATEGORICAL)]


def _luminance(c: QtGui.QColor) -> float:
    """The relative luminance of a colour (WCAG)."""
    def channel(v: float) -> float:
        return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + 0.0722 * channel(c.blueF())


def topic_text_color(k: int, s: theme.Style | None = None) -> str:
    """Topic k's colour for text: the same hue, darkened (light theme) or lightened (dark theme)
    until it stands out from the background by a contrast of 3.5 (the yellow, the orange and the
    sky blue on white; the blue and the black on the dark theme)."""
    s = s or theme.current()
    c, bg = QtGui.QColor(topic_color(k)), _luminance(QtGui.QColor(s.background))
    dark = s.theme == "dark"
    for _ in range(40):
        lo, hi = sorted((_luminance(c), bg))
        if (hi + 0.05) / (lo + 0.05) >= 3.5:
            break
        c = QtGui.QColor.fromHsvF(c.hsvHueF() % 1.0, c.hsvSaturationF(), min(1.0, c.valueF() * 1.1 + 0.02)) \
            if dark else c.darker(110)
        if dark and c.valueF() >= 1.0:
            c = c.lighter(110)
    return c.name()


_BRUSHES: dict = {}


def brush(colour: str, lighter: int = 100):
    """One brush per colour (made once: a brush per bar and frame costs more than the drawing)."""
    key = (colour, lighter)
    if key not in _BRUSHES:
        _BRUSHES[key] = pg.mkBrush(QtGui.QColor(colour).lighter(lighter))
    return _BRUSHES[key]


def grid_shape(n_topics: int) -> tuple[int, int]:
    """Columns and rows of the topic blocks: at most four columns."""
    cols = min(n_topics, 4) if n_topics != 6 else 3
    return cols, math.ceil(n_topics / cols)


class TopWordsPanel(PlotPanel):
    """Each topic a block of bars: its most probable words, bar length φ̂_kw (scaled per topic)."""

    def __init__(self):
        super().__init__("Topics: their most probable words", "", "", legend=False)
        self.plot_item.hideAxis("left")
        self.plot_item.hideAxis("bottom")
        self.plot_item.setMouseEnabled(False, False)
        self.plot_item.hideButtons()
        self.bars = pg.BarGraphItem(x0=[], y=[], width=[], height=0.8)
        self.plot_item.addItem(self.bars)
        self.words: list[pg.TextItem] = []
        self.headers: list[pg.TextItem] = []
        self.shape = (0, 0, 0)

    def set_shape(self, n_topics: int, n_words: int) -> None:
        """Make the text items of K topics × n words (only when K or n change)."""
        if self.shape == (n_topics, n_words, 0):
            return
        for item in self.words + self.headers:
            self.plot_item.removeItem(item)
        cols, rows = grid_shape(n_topics)
        self.words = [pg.TextItem("", anchor=(0, 0.5)) for _ in range(n_topics * n_words)]
        self.headers = [pg.TextItem(f"Topic {k + 1}", color=topic_text_color(k), anchor=(0, 0.5))
                        for k in range(n_topics)]
        for item in self.words + self.headers:
            item.setZValue(5)
            self.plot_item.addItem(item)
        self.shape = (n_topics, n_words, 0)
        self.plot_item.setRange(xRange=(0, cols), yRange=(-rows * (n_words + 1.5), 0.5), padding=0.02)
        self.apply_style(theme.current())

    def set_topics(self, words: list[list[str]], weights: np.ndarray) -> None:
        K, n = weights.shape
        self.set_shape(K, n)
        cols, _ = grid_shape(K)
        x0, ys, widths, brushes = [], [], [], []
        for k in range(K):
            left, top = k % cols, -(k // cols) * (n + 1.5)
            self.headers[k].setPos(left + 0.02, top)
            scale = 0.9 / max(float(weights[k].max()), 1e-12)
            for j in range(n):
                y = top - 1 - j
                x0.append(left + 0.02)
                ys.append(y)
                widths.append(float(weights[k, j]) * scale)
                brushes.append(brush(topic_color(k), 140))
                item = self.words[k * n + j]
                if item.toPlainText() != words[k][j]:  # a new layout only for a changed word
                    item.setText(words[k][j])
                    item.setPos(left + 0.03, y)
        self.bars.setOpts(x0=x0, y=ys, width=widths, height=0.8, brushes=brushes, pen=pg.mkPen(None))

    def clear_topics(self) -> None:
        self.bars.setOpts(x0=[], y=[], width=[], height=0.8)
        for item in self.words:
            item.setText("")

    def apply_style(self, s: theme.Style | None = None) -> None:
        super().apply_style(s)
        self.plot_item.hideAxis("left")  # the blocks are placed in plot units: no axis to read
        self.plot_item.hideAxis("bottom")
        s = s or theme.current()
        font = QtGui.QFont()
        font.setPointSizeF(0.9 * s.font_pt)
        for item in getattr(self, "words", []):
            item.setFont(font)
            item.setColor(s.foreground)
        bold = QtGui.QFont(font)
        bold.setBold(True)
        for k, item in enumerate(getattr(self, "headers", [])):
            item.setFont(bold)
            item.setColor(topic_text_color(k, s))


class DocumentText(QtWidgets.QTextBrowser):
    """The shown document, each word of the vocabulary coloured by its current topic."""

    def __init__(self):
        super().__init__()
        self.setOpenLinks(False)
        self.setMinimumSize(160, 80)
        self.pieces: list[tuple[str, int | None]] = []

    def set_pieces(self, pieces, title: str) -> None:
        self.pieces = list(pieces)
        self.title = title

    def show_topics(self, topics: np.ndarray, highlight: int) -> None:
        parts = [f"<p><b>{html.escape(self.title)}</b></p><p>"]
        for text, token in self.pieces:
            escaped = html.escape(text).replace("\n", "<br>")
            if token is None or token >= len(topics):
                parts.append(f"<span style='color:#888888'>{escaped}</span>")
                continue
            colour = topic_text_color(int(topics[token]))
            style = f"color:{colour}; font-weight:bold"
            if token == highlight:
                style += f"; background-color:{theme.HIGHLIGHT}"
            parts.append(f"<span style='{style}'>{escaped}<sub>{int(topics[token]) + 1}</sub></span>")
        parts.append("</p>")
        self.setHtml("".join(parts))

    def apply_style(self, s: theme.Style) -> None:
        font = self.font()
        font.setPointSizeF(s.font_pt)
        self.setFont(font)


class TopicPictures(PlotPanel):
    """Topics as side × side pictures of φ̂: the learned ones (matched with the truth) above the truth."""

    def __init__(self, side: int):
        super().__init__("Learned topics (top) and true topics (bottom)", "", "", legend=False)
        self.side = side
        self.plot_item.hideAxis("left")
        self.plot_item.hideAxis("bottom")
        self.plot_item.setMouseEnabled(False, False)
        self.plot_item.hideButtons()
        self.plot_item.setAspectLocked(True)
        self.image = pg.ImageItem(axisOrder="row-major")
        self.colours = pg.colormap.get("viridis")  # 0 to 1/side: a word's probability in a bar
        self.plot_item.addItem(self.image)

    def apply_style(self, s: theme.Style | None = None) -> None:
        super().apply_style(s)
        self.plot_item.hideAxis("left")
        self.plot_item.hideAxis("bottom")

    def set_pictures(self, learned: np.ndarray | None, truth: np.ndarray) -> None:
        """Five pairs a row: each learned topic drawn above the true topic it is matched with."""
        K, side, gap = len(truth), self.side, 1
        cols = min(K, 5)
        rows = math.ceil(K / cols)
        block_w, block_h = side + gap, 2 * side + 2 * gap
        canvas = np.full((rows * block_h, cols * block_w), np.nan)  # screen order: the first row on top
        top = learned if learned is not None else np.full_like(truth, np.nan)
        for k in range(K):
            x, y = (k % cols) * block_w, (k // cols) * block_h
            canvas[y:y + side, x:x + side] = top[k].reshape(side, side)
            canvas[y + side + gap:y + 2 * side + gap, x:x + side] = truth[k].reshape(side, side)
        self.data = canvas
        flipped = canvas[::-1]
        rgba = self.colours.map(np.clip(np.nan_to_num(flipped, nan=0.0) * side, 0.0, 1.0).ravel(), mode="byte")
        rgba = rgba.reshape(*flipped.shape, 4)
        rgba[np.isnan(flipped), 3] = 0  # the gaps between pictures show the background
        self.image.setImage(rgba, levels=None)
        width, height = canvas.shape[1], canvas.shape[0]
        self.image.setRect(QtCore.QRectF(0, 0, width, height))
        self.plot_item.setRange(xRange=(0, width), yRange=(0, height), padding=0.02)
