"""Vector SVG of a pyqtgraph plot, written item by item.

Rendering a plot's scene through ``QSvgGenerator`` does not give a usable drawing: scatter
markers come out as embedded raster fragments (pyqtgraph draws them from a pixmap atlas),
items that reset the painter transform land in the wrong place, and pyqtgraph's own
``SVGExporter`` fails on this Qt version. :func:`plot_svg` instead walks the plot's graphics
items in painting order and writes each one as SVG elements, in the plot's scene
coordinates (so the drawing has the layout of the PNG export):

* curves (``PlotCurveItem``, the curve inside a ``PlotDataItem``) -> ``<path>`` built from the
  *displayed* data (log units, clip-to-view and downsampling already applied), broken at
  non-finite values and for ``connect="pairs"``/``"finite"``/arrays, clipped to the data area;
* scatter markers -> one ``<circle>``/``<rect>``/``<path>`` per visible point, with the
  point's own symbol, size, pen and brush;
* bars -> ``<rect>``, infinite lines -> ``<line>``, every text (tick labels, axis labels,
  title, legend labels, ``TextItem``) -> ``<text>`` with its colour and size;
* images (heat maps) -> one embedded PNG ``<image>`` cropped to what is visible;
* axes from the axis's own draw specification (the same ticks and labels as on screen).

Items of other types draw nothing here, but their children are still visited.
"""

from __future__ import annotations

import base64
import math
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

import numpy as np
import pyqtgraph as pg
from pyqtgraph.graphicsItems.LegendItem import ItemSample
from pyqtgraph.graphicsItems.ScatterPlotItem import Symbols
from PySide6 import QtCore, QtGui, QtWidgets

__all__ = ["export_svg", "plot_svg"]

_Qt = QtCore.Qt
_CAPS = {_Qt.PenCapStyle.FlatCap: "butt", _Qt.PenCapStyle.SquareCap: "square", _Qt.PenCapStyle.RoundCap: "round"}
_JOINS = {_Qt.PenJoinStyle.MiterJoin: "miter", _Qt.PenJoinStyle.BevelJoin: "bevel",
          _Qt.PenJoinStyle.RoundJoin: "round", _Qt.PenJoinStyle.SvgMiterJoin: "miter"}


def export_svg(plot: pg.PlotWidget | pg.PlotItem, path: str | Path) -> None:
    """Write the plot as an SVG file (raises OSError when the file cannot be written)."""
    text = plot_svg(plot)
    Path(path).write_text(text, encoding="utf-8")


def plot_svg(plot: pg.PlotWidget | pg.PlotItem) -> str:
    """The SVG document of a plot as it is laid out on screen."""
    item = plot.getPlotItem() if isinstance(plot, pg.PlotWidget) else plot
    return _Writer(item, _background(plot, item)).document()


# ---------------------------------------------------------------------------- helpers
def _background(plot, item) -> QtGui.QBrush | None:
    if isinstance(plot, QtWidgets.QGraphicsView):
        return plot.backgroundBrush()
    scene = item.scene()
    views = scene.views() if scene is not None else []
    return views[0].backgroundBrush() if views else None


def _num(v: float) -> str:
    """Short fixed-point number (two decimals are finer than any screen)."""
    s = f"{v:.2f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


def _color(c: QtGui.QColor) -> tuple[str, float]:
    return f"#{c.red():02x}{c.green():02x}{c.blue():02x}", c.alphaF()


def _fill_attrs(brush: QtGui.QBrush | None) -> str:
    """``fill`` (and ``fill-opacity``) of a brush; gradients and patterns fall back to their colour."""
    if brush is None or brush.style() == _Qt.BrushStyle.NoBrush:
        return 'fill="none"'
    color = brush.color()
    grad = brush.gradient()
    if grad is not None and grad.stops():
        color = grad.stops()[0][1]
    hex_, alpha = _color(color)
    if alpha <= 0:
        return 'fill="none"'
    return f'fill="{hex_}"' + (f' fill-opacity="{alpha:.3g}"' if alpha < 1 else "")


def _pen_width(pen: QtGui.QPen, scale: float = 1.0) -> float:
    """Stroke width in scene pixels (cosmetic pens are in pixels, others scale with the item)."""
    w = pen.widthF()
    if w <= 0:
        return 1.0
    return w if pen.isCosmetic() else w * scale


def _stroke_attrs(pen: QtGui.QPen | None, scale: float = 1.0) -> str:
    if pen is None or pen.style() == _Qt.PenStyle.NoPen:
        return 'stroke="none"'
    hex_, alpha = _color(pen.color())
    if alpha <= 0:
        return 'stroke="none"'
    width = _pen_width(pen, scale)
    out = [f'stroke="{hex_}"', f'stroke-width="{_num(width)}"']
    if alpha < 1:
        out.append(f'stroke-opacity="{alpha:.3g}"')
    if pen.style() != _Qt.PenStyle.SolidLine:
        dashes = [max(d, 0.01) * width for d in pen.dashPattern()]
        if dashes:
            out.append('stroke-dasharray="' + ",".join(_num(d) for d in dashes) + '"')
    out.append(f'stroke-linecap="{_CAPS.get(pen.capStyle(), "square")}"')
    out.append(f'stroke-linejoin="{_JOINS.get(pen.joinStyle(), "bevel")}"')
    return " ".join(out)


def _matrix(t: QtGui.QTransform) -> str:
    return "matrix(" + " ".join(f"{v:.7g}" for v in (t.m11(), t.m12(), t.m21(), t.m22(), t.dx(), t.dy())) + ")"


def _map(t: QtGui.QTransform, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Vectorised QTransform.map (affine part; pyqtgraph items never use perspective)."""
    return t.m11() * x + t.m21() * y + t.dx(), t.m12() * x + t.m22() * y + t.dy()


def _scale_of(t: QtGui.QTransform) -> float:
    return math.sqrt(abs(t.m11() * t.m22() - t.m12() * t.m21())) or 1.0


def _clip_segments(x0, y0, x1, y1, rect: QtCore.QRectF):
    """Liang–Barsky clipping of segments to a rectangle (vectorised).

    Returns the clipped end points, a mask of segments that keep a visible part, and
    whether each start / end point was moved (then it no longer joins its neighbour)."""
    dx, dy = x1 - x0, y1 - y0
    t0 = np.zeros_like(x0)
    t1 = np.ones_like(x0)
    keep = np.ones(x0.shape, dtype=bool)
    with np.errstate(divide="ignore", invalid="ignore"):
        for p, q in ((-dx, x0 - rect.left()), (dx, rect.right() - x0),
                     (-dy, y0 - rect.top()), (dy, rect.bottom() - y0)):
            parallel = p == 0
            keep &= ~(parallel & (q < 0))
            r = q / p
            t0 = np.where(~parallel & (p < 0), np.maximum(t0, r), t0)
            t1 = np.where(~parallel & (p > 0), np.minimum(t1, r), t1)
    keep &= t0 <= t1
    return (x0 + t0 * dx, y0 + t0 * dy, x0 + t1 * dx, y0 + t1 * dy, keep, t0 > 0, t1 < 1)


def _segments_path(x: np.ndarray, y: np.ndarray, joined: np.ndarray, rect: QtCore.QRectF | None) -> str:
    """SVG path data of the polyline through (x, y) where ``joined[i]`` links point i to i+1."""
    idx = np.flatnonzero(joined & np.isfinite(x[:-1]) & np.isfinite(y[:-1]) & np.isfinite(x[1:]) & np.isfinite(y[1:]))
    if idx.size == 0:
        return ""
    x0, y0, x1, y1 = x[idx], y[idx], x[idx + 1], y[idx + 1]
    if rect is not None:
        x0, y0, x1, y1, keep, cut0, cut1 = _clip_segments(x0, y0, x1, y1, rect)
        idx, x0, y0, x1, y1, cut0, cut1 = (a[keep] for a in (idx, x0, y0, x1, y1, cut0, cut1))
        if idx.size == 0:
            return ""
    else:
        cut0 = cut1 = np.zeros(idx.size, dtype=bool)
    # a segment continues the previous one when it starts where that one ended, uncut
    cont = np.zeros(idx.size, dtype=bool)
    cont[1:] = (idx[1:] == idx[:-1] + 1) & ~cut1[:-1] & ~cut0[1:]
    parts = []
    for c, a, b, e, f in zip(cont.tolist(), x0.tolist(), y0.tolist(), x1.tolist(), y1.tolist()):
        if c:
            parts.append(f"{_num(e)} {_num(f)}")
        else:
            parts.append(f"M{_num(a)} {_num(b)} {_num(e)} {_num(f)}")
    return " ".join(parts)


def _qpath_d(path: QtGui.QPainterPath, t: QtGui.QTransform | None = None, dx: float = 0.0, dy: float = 0.0,
             scale: float = 1.0) -> str:
    """SVG path data of a QPainterPath: points scaled, then mapped by ``t`` or shifted."""
    out = []
    i, n = 0, path.elementCount()
    while i < n:
        e = path.elementAt(i)
        pts = [(e.x, e.y)]
        if e.type == QtGui.QPainterPath.ElementType.CurveToElement:
            pts += [(path.elementAt(i + 1).x, path.elementAt(i + 1).y),
                    (path.elementAt(i + 2).x, path.elementAt(i + 2).y)]
            cmd, i = "C", i + 3
        else:
            cmd = "M" if e.type == QtGui.QPainterPath.ElementType.MoveToElement else "L"
            i += 1
        coords = []
        for px, py in pts:
            px, py = px * scale, py * scale
            if t is not None:
                px, py = t.map(px, py)
            coords.append(f"{_num(px + dx)} {_num(py + dy)}")
        out.append(cmd + " ".join(coords))
    return "".join(out)


def _screen_dpi() -> float:
    screen = QtGui.QGuiApplication.primaryScreen()
    return screen.logicalDotsPerInchY() if screen is not None else 96.0


def _font_attrs(font: QtGui.QFont, px: float | None = None) -> str:
    if px is None:
        px = font.pixelSize() if font.pixelSize() > 0 else font.pointSizeF() * _screen_dpi() / 72.0
    family = font.family() or QtGui.QGuiApplication.font().family()
    out = [f"font-family={quoteattr(family + ', sans-serif')}", f'font-size="{_num(px)}"']
    if font.bold():
        out.append('font-weight="bold"')
    if font.italic():
        out.append('font-style="italic"')
    return " ".join(out)


# ---------------------------------------------------------------------------- the writer
class _Writer:
    """Walks a PlotItem's graphics items in painting order and collects SVG elements."""

    def __init__(self, item: pg.PlotItem, background: QtGui.QBrush | None):
        self.root = item
        self.rect = item.sceneBoundingRect()
        self.background = background
        self.defs: list[str] = []
        self.body: list[str] = []
        self._n_clips = 0

    def document(self) -> str:
        r = self.rect
        if self.background is not None and self.background.style() != _Qt.BrushStyle.NoBrush:
            self.body.append(f'<rect x="{_num(r.x())}" y="{_num(r.y())}" width="{_num(r.width())}" '
                             f'height="{_num(r.height())}" {_fill_attrs(self.background)} stroke="none"/>')
        self.walk(self.root, QtCore.QRectF(r))
        head = ('<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n'
                '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
                f'version="1.1" width="{_num(r.width())}" height="{_num(r.height())}" '
                f'viewBox="{_num(r.x())} {_num(r.y())} {_num(r.width())} {_num(r.height())}">\n'
                "<title>SML Lab plot</title>\n")
        defs = "<defs>\n" + "\n".join(self.defs) + "\n</defs>\n" if self.defs else ""
        return head + defs + "\n".join(self.body) + "\n</svg>\n"

    # --- traversal --------------------------------------------------------------------
    def walk(self, item: QtWidgets.QGraphicsItem, clip: QtCore.QRectF) -> None:
        if not item.isVisible() or item.opacity() <= 0:
            return
        opened = 0
        if item.opacity() < 1:
            self.body.append(f'<g opacity="{item.opacity():.3g}">')
            opened += 1
        children = item.childItems()
        behind = [c for c in children if c.flags() & QtWidgets.QGraphicsItem.GraphicsItemFlag.ItemStacksBehindParent]
        front = [c for c in children if c not in behind]
        for c in behind:
            self.walk(c, clip)
        self.draw(item, clip)
        if item.flags() & QtWidgets.QGraphicsItem.GraphicsItemFlag.ItemClipsChildrenToShape and front:
            clip = clip.intersected(item.sceneBoundingRect())
            self._n_clips += 1
            cid = f"clip{self._n_clips}"
            self.defs.append(f'<clipPath id="{cid}"><rect x="{_num(clip.x())}" y="{_num(clip.y())}" '
                             f'width="{_num(clip.width())}" height="{_num(clip.height())}"/></clipPath>')
            self.body.append(f'<g clip-path="url(#{cid})">')
            opened += 1
        for c in front:
            self.walk(c, clip)
        self.body.extend(["</g>"] * opened)

    def draw(self, item, clip: QtCore.QRectF) -> None:
        if isinstance(item, pg.AxisItem):
            self.axis(item)
        elif isinstance(item, pg.PlotCurveItem):
            self.curve(item, clip)
        elif isinstance(item, pg.ScatterPlotItem):
            self.scatter(item, clip)
        elif isinstance(item, pg.BarGraphItem):
            self.bars(item, clip)
        elif isinstance(item, pg.InfiniteLine):
            self.infinite_line(item, clip)
        elif isinstance(item, pg.ImageItem):
            self.image(item, clip)
        elif isinstance(item, QtWidgets.QGraphicsPixmapItem):
            self.pixmap(item, clip)
        elif isinstance(item, ItemSample):
            self.legend_sample(item)
        elif isinstance(item, pg.LegendItem):
            if getattr(item, "frame", True):
                self.polygon(item.mapToScene(item.boundingRect()), item.opts["pen"], item.opts["brush"])
        elif isinstance(item, pg.TextItem):
            item.updateTransform()  # normally done just before painting: the view may have moved since
            if item.border.style() != _Qt.PenStyle.NoPen or item.fill.style() != _Qt.BrushStyle.NoBrush:
                self.polygon(item.textItem.mapToScene(item.textItem.boundingRect()), item.border, item.fill)
        elif isinstance(item, QtWidgets.QGraphicsTextItem):
            self.text_item(item)
        elif isinstance(item, QtWidgets.QGraphicsRectItem):
            self.polygon(item.mapToScene(item.rect()), item.pen(), item.brush())

    # --- primitives -------------------------------------------------------------------
    def polygon(self, poly: QtGui.QPolygonF, pen, brush) -> None:
        stroke = _stroke_attrs(pen)
        fill = _fill_attrs(brush)
        if stroke == 'stroke="none"' and fill == 'fill="none"':
            return
        pts = " ".join(f"{_num(p.x())},{_num(p.y())}" for p in poly)
        self.body.append(f'<polygon points="{pts}" {fill} {stroke}/>')

    def line(self, x0, y0, x1, y1, pen, clip: QtCore.QRectF | None = None) -> None:
        if clip is not None:
            a, b, c, d, keep, _, _ = _clip_segments(*(np.array([v], float) for v in (x0, y0, x1, y1)), clip)
            if not keep[0]:
                return
            x0, y0, x1, y1 = float(a[0]), float(b[0]), float(c[0]), float(d[0])
        stroke = _stroke_attrs(pen)
        if stroke != 'stroke="none"':
            self.body.append(f'<line x1="{_num(x0)}" y1="{_num(y0)}" x2="{_num(x1)}" y2="{_num(y1)}" {stroke}/>')

    def text(self, x: float, y: float, s: str, font: QtGui.QFont, color: QtGui.QColor, *, anchor: str = "start",
             transform: QtGui.QTransform | None = None, px: float | None = None) -> None:
        if not s.strip():
            return
        hex_, alpha = _color(color)
        extra = f' fill-opacity="{alpha:.3g}"' if alpha < 1 else ""
        if anchor != "start":
            extra += f' text-anchor="{anchor}"'
        if transform is not None and not transform.isIdentity():
            extra += f' transform="{_matrix(transform)}"'
        self.body.append(f'<text x="{_num(x)}" y="{_num(y)}" {_font_attrs(font, px)} fill="{hex_}"{extra} '
                         f'xml:space="preserve">{escape(s)}</text>')

    # --- items ------------------------------------------------------------------------
    def axis(self, axis: pg.AxisItem) -> None:
        picture = QtGui.QPicture()
        painter = QtGui.QPainter(picture)
        try:
            font = axis.style["tickFont"] or QtGui.QFont(painter.font())
            painter.setFont(font)
            specs = axis.generateDrawSpecs(painter)
        finally:
            painter.end()
        if specs is None:
            return
        (pen, p1, p2), ticks, texts = specs
        t = axis.sceneTransform()
        scale = _scale_of(t)
        tick_lines = [(pen, t.map(a), t.map(b)) for pen, a, b in ticks]
        a, b = t.map(p1), t.map(p2)
        self.body.append(f'<g class="axis {axis.orientation}">')
        self.body.append(f'<line x1="{_num(a.x())}" y1="{_num(a.y())}" x2="{_num(b.x())}" y2="{_num(b.y())}" '
                         f'{_stroke_attrs(pen, scale)}/>')
        for pen, a, b in tick_lines:
            self.body.append(f'<line x1="{_num(a.x())}" y1="{_num(a.y())}" x2="{_num(b.x())}" y2="{_num(b.y())}" '
                             f'{_stroke_attrs(pen, scale)}/>')
        fm = QtGui.QFontMetricsF(font)
        color = axis.textPen().color()
        A = _Qt.AlignmentFlag
        for rect, flags, s in texts:
            flags = int(flags)
            if flags & A.AlignLeft.value:
                x, anchor = rect.left(), "start"
            elif flags & A.AlignRight.value:
                x, anchor = rect.right(), "end"
            else:
                x, anchor = rect.center().x(), "middle"
            if flags & A.AlignTop.value:
                y = rect.top() + fm.ascent()
            elif flags & A.AlignBottom.value:
                y = rect.bottom() - fm.descent()
            else:
                y = rect.center().y() + (fm.ascent() - fm.descent()) / 2
            self.text(x, y, s, font, color, anchor=anchor, transform=t)
        self.body.append("</g>")

    def text_item(self, item: QtWidgets.QGraphicsTextItem) -> None:
        """Every fragment of a (rich) text item at its laid-out position, in the item's transform."""
        doc = item.document()
        default_color = item.defaultTextColor()
        t = item.sceneTransform()
        block = doc.begin()
        while block.isValid():
            layout = block.layout()
            origin = layout.position()
            it = block.begin()
            while not it.atEnd():
                frag = it.fragment()
                it += 1
                if not frag.isValid():
                    continue
                fmt = frag.charFormat()
                font = fmt.font()
                fg = fmt.foreground()
                color = fg.color() if fg.style() != _Qt.BrushStyle.NoBrush else default_color
                start = frag.position() - block.position()
                line = layout.lineForTextPosition(start)
                if not line.isValid():
                    continue
                x = line.cursorToX(start)
                x = x[0] if isinstance(x, tuple) else x
                y = origin.y() + line.y() + line.ascent()
                px = font.pixelSize() if font.pixelSize() > 0 else font.pointSizeF() * _screen_dpi() / 72.0
                valign = fmt.verticalAlignment()
                if valign == QtGui.QTextCharFormat.VerticalAlignment.AlignSuperScript:
                    y -= px * 0.35
                    px *= 0.67
                elif valign == QtGui.QTextCharFormat.VerticalAlignment.AlignSubScript:
                    y += px * 0.2
                    px *= 0.67
                self.text(origin.x() + x, y, frag.text().replace("\u2028", " "), font, color, transform=t, px=px)
            block = block.next()

    def curve(self, item: pg.PlotCurveItem, clip: QtCore.QRectF) -> None:
        x, y = item.getData()
        if x is None or y is None or len(x) == 0 or len(y) == 0:
            return
        x, y = np.asarray(x, float), np.asarray(y, float)
        opts = item.opts
        if opts.get("stepMode"):
            x, y = pg.PlotCurveItem._generateStepModeData(opts["stepMode"], x, y, baseline=opts.get("fillLevel"))
        n = min(len(x), len(y))
        x, y = x[:n], y[:n]
        connect = opts.get("connect", "all")
        if isinstance(connect, np.ndarray):
            joined = np.asarray(connect[: n - 1], dtype=bool)
        elif connect == "pairs":
            joined = np.zeros(n - 1, dtype=bool)
            joined[0::2] = True
        else:  # "all" and "finite": non-finite points break the line either way
            joined = np.ones(max(n - 1, 0), dtype=bool)
        t = item.sceneTransform()
        sx, sy = _map(t, x, y)
        scale = _scale_of(t)
        fill_level = opts.get("fillLevel")
        brush = opts.get("brush")
        if fill_level is not None and brush is not None and not opts.get("stepMode"):
            brush = pg.mkBrush(brush)
            ok = np.isfinite(x) & np.isfinite(y)
            if ok.sum() >= 2 and brush.style() != _Qt.BrushStyle.NoBrush:
                bx, by = _map(t, np.r_[x[ok][0], x[ok], x[ok][-1]], np.r_[fill_level, y[ok], fill_level])
                pts = " ".join(f"{_num(a)},{_num(b)}" for a, b in zip(bx.tolist(), by.tolist()))
                self.body.append(f'<polygon points="{pts}" {_fill_attrs(brush)} stroke="none"/>')
        d = _segments_path(sx, sy, joined, clip)
        if not d:
            return
        shadow = opts.get("shadowPen")
        if shadow is not None:
            self.body.append(f'<path class="curve" d="{d}" fill="none" {_stroke_attrs(pg.mkPen(shadow), scale)}/>')
        self.body.append(f'<path class="curve" d="{d}" fill="none" {_stroke_attrs(pg.mkPen(opts["pen"]), scale)}/>')

    def scatter(self, item: pg.ScatterPlotItem, clip: QtCore.QRectF) -> None:
        data = item.data
        if data is None or len(data) == 0:
            return
        vis = np.asarray(data["visible"], dtype=bool) & np.isfinite(data["x"]) & np.isfinite(data["y"])
        idx = np.flatnonzero(vis)
        if idx.size == 0:
            return
        symbols, sizes, pens, brushes = item._style(["symbol", "size", "pen", "brush"], idx=idx)
        sizes = np.asarray(sizes, dtype=float)
        t = item.sceneTransform()
        px_mode = item.opts["pxMode"]
        sx, sy = _map(t, data["x"][idx].astype(float), data["y"][idx].astype(float))
        half = sizes / 2 * (1.0 if px_mode else _scale_of(t))
        inside = ((sx + half >= clip.left()) & (sx - half <= clip.right())
                  & (sy + half >= clip.top()) & (sy - half <= clip.bottom()))
        style_cache: dict[tuple[int, int, float], str] = {}
        out = self.body
        out.append('<g class="markers">')
        for k in np.flatnonzero(inside).tolist():
            sym, size, pen, brush = symbols[k], float(sizes[k]), pens[k], brushes[k]
            if sym is None or size <= 0:
                continue
            key = (id(pen), id(brush), size)
            style = style_cache.get(key)
            if style is None:
                qpen, qbrush = pg.mkPen(pen), pg.mkBrush(brush)
                # the symbol is drawn scaled by its size: a non-cosmetic pen scales with it
                style = style_cache[key] = f"{_fill_attrs(qbrush)} {_stroke_attrs(qpen, size)}"
            cx, cy = float(sx[k]), float(sy[k])
            if px_mode:
                if isinstance(sym, str) and sym == "o":
                    out.append(f'<circle cx="{_num(cx)}" cy="{_num(cy)}" r="{_num(size / 2)}" {style}/>')
                    continue
                if isinstance(sym, str) and sym == "s":
                    out.append(f'<rect x="{_num(cx - size / 2)}" y="{_num(cy - size / 2)}" width="{_num(size)}" '
                               f'height="{_num(size)}" {style}/>')
                    continue
            qpath = _symbol_path(sym)
            if px_mode:
                d = _qpath_d(qpath, None, cx, cy, size)
            else:
                local = QtGui.QTransform().translate(float(data["x"][idx[k]]), float(data["y"][idx[k]])) * t
                d = _qpath_d(qpath, local, 0, 0, size)
            out.append(f'<path d="{d}" {style}/>')
        out.append("</g>")

    def bars(self, item: pg.BarGraphItem, clip: QtCore.QRectF) -> None:
        try:
            x0, y0, x1, y1 = item._getNormalizedCoords()
        except Exception:  # noqa: BLE001 - an item without bars draws nothing
            return
        x0, y0, x1, y1 = np.broadcast_arrays(*(np.atleast_1d(np.asarray(v, float)) for v in (x0, y0, x1, y1)))
        if x0.size == 0:
            return
        t = item.sceneTransform()
        ax, ay = _map(t, x0, y0)
        bx, by = _map(t, x1, y1)
        left, right = np.minimum(ax, bx), np.maximum(ax, bx)
        top, bottom = np.minimum(ay, by), np.maximum(ay, by)
        left, right = np.maximum(left, clip.left()), np.minimum(right, clip.right())
        top, bottom = np.maximum(top, clip.top()), np.minimum(bottom, clip.bottom())
        pens = getattr(item, "_pens", None)
        brushes = getattr(item, "_brushes", None)
        shared_pen = getattr(item, "_sharedPen", None) or pg.mkPen(item.opts.get("pen"))
        shared_brush = getattr(item, "_sharedBrush", None) or pg.mkBrush(item.opts.get("brush"))
        no_pen = pens is None and shared_pen.style() == _Qt.PenStyle.NoPen
        self.body.append('<g class="bars">')
        for i in range(x0.size):
            if (not (right[i] >= left[i] and bottom[i] >= top[i])
                    or not np.isfinite([left[i], top[i], right[i], bottom[i]]).all()):
                continue
            pen = None if no_pen else (pens[i] if pens is not None else shared_pen)
            brush = brushes[i] if brushes is not None else shared_brush
            self.body.append(f'<rect x="{_num(left[i])}" y="{_num(top[i])}" width="{_num(right[i] - left[i])}" '
                             f'height="{_num(bottom[i] - top[i])}" {_fill_attrs(brush)} {_stroke_attrs(pen)}/>')
        self.body.append("</g>")

    def infinite_line(self, item: pg.InfiniteLine, clip: QtCore.QRectF) -> None:
        """The line through the item's origin along its x axis, cut to the data area."""
        t = item.sceneTransform()
        a, b = t.map(QtCore.QPointF(0, 0)), t.map(QtCore.QPointF(1, 0))
        dx, dy = b.x() - a.x(), b.y() - a.y()
        norm = math.hypot(dx, dy)
        if norm == 0 or not math.isfinite(norm):
            return
        reach = 2 * (math.hypot(clip.width(), clip.height())
                     + math.hypot(a.x() - clip.center().x(), a.y() - clip.center().y()))
        ux, uy = dx / norm * reach, dy / norm * reach
        self.line(a.x() - ux, a.y() - uy, a.x() + ux, a.y() + uy, item.currentPen, clip)

    def image(self, item: pg.ImageItem, clip: QtCore.QRectF) -> None:
        if item.image is None:
            return
        if item.qimage is None:
            item.render()
        if item.qimage is not None:
            self.raster(item.qimage, item.boundingRect(), item.sceneTransform(), clip)

    def pixmap(self, item: QtWidgets.QGraphicsPixmapItem, clip: QtCore.QRectF) -> None:
        pm = item.pixmap()
        if not pm.isNull():
            self.raster(pm.toImage(), QtCore.QRectF(item.offset(), pm.deviceIndependentSize()), item.sceneTransform(),
                        clip)

    def raster(self, qimage: QtGui.QImage, bounds: QtCore.QRectF, transform: QtGui.QTransform,
               clip: QtCore.QRectF) -> None:
        """An image stretched over ``bounds`` (item coordinates), as a PNG cropped to the clip."""
        if qimage.isNull():
            return
        if bounds.width() <= 0 or bounds.height() <= 0:
            return
        inverse, ok = transform.inverted()
        if not ok:
            return
        visible = inverse.mapRect(clip).intersected(bounds)
        if visible.isEmpty():
            return
        # crop to the visible part (whole source pixels), so no clipping is needed
        kx, ky = qimage.width() / bounds.width(), qimage.height() / bounds.height()
        c0 = max(0, math.floor((visible.left() - bounds.left()) * kx))
        r0 = max(0, math.floor((visible.top() - bounds.top()) * ky))
        c1 = min(qimage.width(), math.ceil((visible.right() - bounds.left()) * kx))
        r1 = min(qimage.height(), math.ceil((visible.bottom() - bounds.top()) * ky))
        if c1 <= c0 or r1 <= r0:
            return
        crop = qimage.copy(c0, r0, c1 - c0, r1 - r0)
        buf = QtCore.QBuffer()
        buf.open(QtCore.QIODevice.OpenModeFlag.WriteOnly)
        crop.save(buf, "PNG")
        data = base64.b64encode(bytes(buf.data())).decode("ascii")
        x, y = bounds.left() + c0 / kx, bounds.top() + r0 / ky
        w, h = (c1 - c0) / kx, (r1 - r0) / ky
        # the image is a small grid stretched over the data area: keep its cells sharp
        self.body.append(f'<image x="{x:.6g}" y="{y:.6g}" width="{w:.6g}" height="{h:.6g}" '
                         f'transform="{_matrix(transform)}" preserveAspectRatio="none" '
                         f'style="image-rendering:pixelated" xlink:href="data:image/png;base64,{data}"/>')

    def legend_sample(self, sample: ItemSample) -> None:
        """The sample a legend draws for an item (mirrors ``ItemSample.paint``)."""
        target = sample.item
        opts = target.opts
        if not target.isVisible():
            return
        t = sample.sceneTransform()
        if not isinstance(target, pg.ScatterPlotItem):
            a, b = t.map(QtCore.QPointF(0, 11)), t.map(QtCore.QPointF(20, 11))
            self.line(a.x(), a.y(), b.x(), b.y(), pg.mkPen(opts.get("pen")))
            if opts.get("fillLevel") is not None and opts.get("fillBrush") is not None:
                tri = QtGui.QPolygonF([QtCore.QPointF(2, 18), QtCore.QPointF(18, 2), QtCore.QPointF(18, 18)])
                self.polygon(t.map(tri), pg.mkPen(opts.get("pen")), pg.mkBrush(opts["fillBrush"]))
        symbol = opts.get("symbol")
        if symbol is not None:
            sopts = target.scatter.opts if isinstance(target, pg.PlotDataItem) else opts
            size = float(sopts["size"])
            c = t.map(QtCore.QPointF(10, 10))
            style = f'{_fill_attrs(pg.mkBrush(sopts["brush"]))} {_stroke_attrs(pg.mkPen(sopts["pen"]), size)}'
            self.body.append(f'<path d="{_qpath_d(_symbol_path(symbol), None, c.x(), c.y(), size)}" {style}/>')
        if isinstance(target, pg.BarGraphItem):
            self.polygon(t.map(QtGui.QPolygonF(QtCore.QRectF(2, 2, 18, 18))), pg.mkPen(opts.get("pen")),
                         pg.mkBrush(opts.get("brush")))


def _symbol_path(symbol) -> QtGui.QPainterPath:
    if isinstance(symbol, QtGui.QPainterPath):
        return symbol
    if isinstance(symbol, str):
        return Symbols.get(symbol, Symbols["o"])
    if np.isscalar(symbol):
        return list(Symbols.values())[int(symbol) % len(Symbols)]
    return Symbols["o"]
