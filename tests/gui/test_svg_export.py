"""SVG export of plots: a real vector drawing (one element per marker, paths for curves,
text for labels) that Qt renders and that has the layout of the plot on screen."""

import re
import xml.etree.ElementTree as ET

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6 import QtCore, QtGui, QtSvg

from app.widgets.svg_export import export_svg, plot_svg

SVG = "{http://www.w3.org/2000/svg}"


# ------------------------------------------------------------------------------ helpers
def _parse(text):
    root = ET.fromstring(text)
    assert root.tag == f"{SVG}svg"
    return root


def _items(item):
    yield item
    for c in item.childItems():
        yield from _items(c)


def _data_area(plot_item):
    return plot_item.getViewBox().sceneBoundingRect()


def _visible_markers(plot_item):
    """Scene positions of every visible marker of the plot's scatter items."""
    out = []
    for it in _items(plot_item):
        if isinstance(it, pg.ScatterPlotItem) and it.isVisible() and len(it.data):
            vis = it.data["visible"].astype(bool)
            t = it.sceneTransform()
            for x, y in zip(it.data["x"][vis], it.data["y"][vis]):
                p = t.map(QtCore.QPointF(float(x), float(y)))
                out.append((p.x(), p.y()))
    return np.array(out).reshape(-1, 2)


def _marker_elements(root):
    els = []
    for g in root.iter(f"{SVG}g"):
        if g.get("class") == "markers":
            els.extend(list(g))
    return els


def _marker_centres(els):
    pts = []
    for e in els:
        tag = e.tag.removeprefix(SVG)
        if tag == "circle":
            pts.append((float(e.get("cx")), float(e.get("cy"))))
        elif tag == "rect":
            pts.append((float(e.get("x")) + float(e.get("width")) / 2, float(e.get("y")) + float(e.get("height")) / 2))
        else:
            xy = np.array([float(v) for v in re.findall(r"-?\d+(?:\.\d+)?", e.get("d"))]).reshape(-1, 2)
            pts.append(tuple((xy.min(axis=0) + xy.max(axis=0)) / 2))
    return np.array(pts).reshape(-1, 2)


def _path_points(d):
    return np.array([float(v) for v in re.findall(r"-?\d+(?:\.\d+)?", d)]).reshape(-1, 2)


def _axis_texts(root, orientation):
    for g in root.iter(f"{SVG}g"):
        if g.get("class") == f"axis {orientation}":
            return [t.text for t in g.iter(f"{SVG}text")]
    return []


def _major_tick_strings(axis):
    lo, hi = axis.range
    length = axis.width() if axis.orientation in ("top", "bottom") else axis.height()
    spacing, values = axis.tickValues(lo, hi, length)[0]
    return axis.tickStrings(values, axis.autoSIPrefixScale * axis.scale, spacing)


def _render(path, size):
    renderer = QtSvg.QSvgRenderer(str(path))
    assert renderer.isValid()
    img = QtGui.QImage(size, QtGui.QImage.Format.Format_ARGB32)
    img.fill(QtCore.Qt.GlobalColor.white)
    painter = QtGui.QPainter(img)
    renderer.render(painter)
    painter.end()
    return img


def _colour_box(img, colour, rect, tol=12):
    """Bounding box (x0, y0, x1, y1) of the pixels of one colour inside ``rect``."""
    img = img.convertToFormat(QtGui.QImage.Format.Format_RGB32)
    a = np.frombuffer(img.constBits(), np.uint8).reshape(img.height(), img.bytesPerLine() // 4, 4)[:, : img.width(), :3]
    c = QtGui.QColor(colour)
    target = np.array([c.blue(), c.green(), c.red()])  # RGB32 is BGRA in memory
    hit = np.abs(a.astype(int) - target).max(axis=2) <= tol
    x0, y0, x1, y1 = (int(v) for v in rect)
    ys, xs = np.nonzero(hit[y0:y1, x0:x1])
    assert xs.size > 20, "no pixels of that colour"
    return np.array([xs.min() + x0, ys.min() + y0, xs.max() + x0, ys.max() + y0], float)


def _run_classifiers(qtbot, make_window, n=6):
    window = make_window(lab_ids=["classifiers"])
    lab = window.show_lab("classifiers")
    r = lab.runner
    qtbot.waitUntil(lambda: r.current is not None, timeout=20_000)
    lab.run_to(n)
    qtbot.waitUntil(lambda: r.finished or (r.timeline.last is not None and r.timeline.last.step >= n), timeout=20_000)
    r.flush()
    qtbot.waitUntil(lambda: r.prepared_for(r.current) is not None, timeout=10_000)
    r.flush()
    qtbot.wait(50)
    return window, lab


# ------------------------------------------------------------------------------ tests
def test_classifier_plot_is_a_vector_drawing_with_the_screen_layout(qtbot, make_window, tmp_path):
    from app import style as theme

    window, lab = _run_classifiers(qtbot, make_window)
    plot = lab.main_plot()
    item = plot.getPlotItem()
    svg_path, png_path = tmp_path / "plot.svg", tmp_path / "plot.png"
    window.export_plot(str(svg_path), lab)
    window.export_plot(str(png_path), lab)
    root = _parse(svg_path.read_text(encoding="utf-8"))

    # one vector element per visible marker, none of them raster
    expected = _visible_markers(item)
    area = _data_area(item)
    assert len(expected) > 50
    assert all(area.contains(QtCore.QPointF(*p)) for p in expected)  # so none is culled
    markers = _marker_elements(root)
    assert len(markers) == len(expected)
    assert {e.tag.removeprefix(SVG) for e in markers} <= {"circle", "rect", "path"}
    assert len(root.findall(f".//{SVG}image")) <= 1  # the decision heat map only
    centres = _marker_centres(markers)
    np.testing.assert_allclose(np.sort(centres, axis=0), np.sort(expected, axis=0), atol=0.6)
    x0, y0 = centres.min(axis=0)
    x1, y1 = centres.max(axis=0)
    assert area.left() <= x0 and x1 <= area.right() and area.top() <= y0 and y1 <= area.bottom()

    # the boundary is a path inside the data area
    paths = [p for p in root.iter(f"{SVG}path") if p.get("class") == "curve"]
    assert paths
    for p in paths:
        xy = _path_points(p.get("d"))
        assert (xy[:, 0] >= area.left() - 0.01).all() and (xy[:, 0] <= area.right() + 0.01).all()
        assert (xy[:, 1] >= area.top() - 0.01).all() and (xy[:, 1] <= area.bottom() + 0.01).all()

    # tick labels, axis labels and legend are text
    for side in ("bottom", "left"):
        strings = _major_tick_strings(item.getAxis(side))
        assert strings and set(strings) <= set(_axis_texts(root, side))
    texts = [t.text.strip() for t in root.iter(f"{SVG}text")]
    assert "x₁" in texts and "x₂" in texts and "class +1" in texts

    # Qt renders it, at the size of the plot, and the markers sit where the PNG has them
    renderer = QtSvg.QSvgRenderer(str(svg_path))
    assert renderer.isValid()
    assert renderer.defaultSize() == item.sceneBoundingRect().size().toSize()
    png = QtGui.QImage(str(png_path))
    k = png.width() / item.sceneBoundingRect().width()
    scene0 = item.sceneBoundingRect().topLeft()
    rect = [(area.left() - scene0.x()) * k, (area.top() - scene0.y()) * k,
            (area.right() - scene0.x()) * k, (area.bottom() - scene0.y()) * k]
    ours = _colour_box(_render(svg_path, png.size()), theme.POS_COLOR, rect)
    theirs = _colour_box(png, theme.POS_COLOR, rect)
    np.testing.assert_allclose(ours, theirs, atol=0.02 * png.width())


def test_hidden_markers_are_left_out(qtbot, make_window):
    _window, lab = _run_classifiers(qtbot, make_window, n=2)
    item = lab.main_plot().getPlotItem()
    extra = pg.ScatterPlotItem()
    item.addItem(extra)
    vb = item.getViewBox()
    (x0, x1), (y0, y1) = vb.viewRange()
    pos = np.column_stack([np.linspace(x0, x1, 12)[1:-1], np.linspace(y0, y1, 12)[1:-1]])
    symbols = ["o", "s", "t", "d", "+", "x", "star", "o", "s", "t"]
    extra.setData(pos=pos, symbol=symbols, size=11, brush=pg.mkBrush("#123456"), pen=pg.mkPen("#654321", width=2))
    shown = np.arange(10) % 3 != 0
    extra.setPointsVisible(shown)
    before = len(_marker_elements(_parse(plot_svg(item))))
    assert before == len(_visible_markers(item))
    extra.setPointsVisible(np.ones(10, bool))
    assert len(_marker_elements(_parse(plot_svg(item)))) == before + int((~shown).sum())
    # each symbol keeps its shape and colours
    root = _parse(plot_svg(item))
    ours = [e for e in _marker_elements(root) if e.get("fill") == "#123456"]
    assert len(ours) == 10 and all(e.get("stroke") == "#654321" and e.get("stroke-width") == "2" for e in ours)
    assert [e.tag.removeprefix(SVG) for e in ours][:2] == ["circle", "rect"]
    assert len({e.get("d") is not None and len(_path_points(e.get("d"))) for e in ours[2:7]}) > 1
    item.removeItem(extra)


def test_lines_text_and_broken_curves(qtbot, make_window):
    _window, lab = _run_classifiers(qtbot, make_window, n=1)
    item = lab.main_plot().getPlotItem()
    vb = item.getViewBox()
    (x0, x1), (y0, y1) = vb.viewRange()
    xm, ym = (x0 + x1) / 2, (y0 + y1) / 2
    vline = pg.InfiniteLine(pos=xm, angle=90, pen=pg.mkPen("#abcdef", width=3))
    label = pg.TextItem("hello <there>", color="#fedcba")
    label.setPos(xm, ym)
    # a curve with a NaN gap that also runs far outside the view on the right
    xs = np.array([x0 + 0.1 * (x1 - x0), xm, np.nan, xm + 0.1 * (x1 - x0), x1 + 10 * (x1 - x0)])
    ys = np.full(5, ym)
    curve = pg.PlotCurveItem(xs, ys, connect="finite",
                             pen=pg.mkPen("#135790", width=2, style=QtCore.Qt.PenStyle.DashLine))
    for it in (vline, label, curve):
        item.addItem(it)
    root = _parse(plot_svg(item))
    area = _data_area(item)
    lines = [e for e in root.iter(f"{SVG}line") if e.get("stroke") == "#abcdef"]
    assert len(lines) == 1 and lines[0].get("stroke-width") == "3"
    ly = sorted([float(lines[0].get("y1")), float(lines[0].get("y2"))])
    assert ly == pytest.approx([area.top(), area.bottom()], abs=0.02)
    assert float(lines[0].get("x1")) == pytest.approx(vb.mapViewToScene(QtCore.QPointF(xm, ym)).x(), abs=0.02)
    texts = [e for e in root.iter(f"{SVG}text") if e.text == "hello <there>"]
    assert len(texts) == 1 and texts[0].get("fill") == "#fedcba"
    (d,) = [e.get("d") for e in root.iter(f"{SVG}path") if e.get("stroke") == "#135790"]
    assert d.count("M") == 2  # the NaN breaks the line
    pts = _path_points(d)
    assert pts[:, 0].max() == pytest.approx(area.right(), abs=0.02)  # cut at the edge of the data area
    dashed = next(e for e in root.iter(f"{SVG}path") if e.get("stroke") == "#135790")
    assert dashed.get("stroke-dasharray")
    for it in (vline, label, curve):
        item.removeItem(it)


@pytest.fixture
def pagerank_lab(qtbot, make_window):
    window = make_window(lab_ids=["pagerank"])
    lab = window.show_lab("pagerank")
    r = lab.runner
    qtbot.waitUntil(lambda: r.current is not None or r.error is not None, timeout=30_000)
    lab.form.set_values({"surfer_moves": 20, "moves_per_step": 5})
    lab.after_params_restored()
    lab.runbar.speed.setCurrentIndex(lab.runbar.speed.count() - 1)
    lab.start(play=True)
    qtbot.waitUntil(lambda: r.finished or r.error is not None, timeout=30_000)
    assert r.error is None, r.error
    r.flush()
    qtbot.wait(50)
    return window, lab


def test_pagerank_graph_bars_log_curves_and_image(pagerank_lab, tmp_path):
    window, lab = pagerank_lab

    # the graph: links as one path of pairs, one marker per page and surfer, the colour bar
    path = tmp_path / "graph.svg"
    window.export_plot(str(path), lab)
    item = lab.graph_plot.getPlotItem()
    root = _parse(path.read_text(encoding="utf-8"))
    g = lab._graph
    markers = _marker_elements(root)
    assert len(markers) == len(_visible_markers(item)) >= g.n
    links = [p for p in root.iter(f"{SVG}path") if p.get("class") == "curve"]
    assert max(p.get("d").count("M") for p in links) >= 0.9 * g.n_links  # one sub-path per link
    images = root.findall(f".//{SVG}image")
    assert len(images) == 1  # the colour bar; no marker is raster
    assert QtSvg.QSvgRenderer(str(path)).isValid()
    assert "Pages by rank" in [t.text for t in root.iter(f"{SVG}text")]

    # bars: one rect per bar, standing on the x axis
    bar_item = lab.bar_plot.getPlotItem()
    root = _parse(plot_svg(lab.bar_plot))
    bars = [r for g in root.iter(f"{SVG}g") if g.get("class") == "bars" for r in g]
    heights = np.asarray(lab.bar_item.opts["height"])
    assert len(bars) == len(heights) > 0
    bottom = bar_item.getViewBox().mapViewToScene(QtCore.QPointF(0, 0)).y()
    for r in bars:
        assert float(r.get("y")) + float(r.get("height")) == pytest.approx(bottom, abs=0.02)

    # log axis: the curve's points are the displayed (log10) data mapped into the data area
    conv = lab.conv_plot.getPlotItem()
    curve = lab.change_curve
    x, y = curve.getData()
    assert len(x) >= 2
    i = int(np.flatnonzero(curve.xData == x[0])[0])
    assert y[0] == pytest.approx(np.log10(curve.yData[i]))  # displayed data is in log units
    root = _parse(plot_svg(conv))
    vb = conv.getViewBox()
    want = vb.mapViewToScene(QtCore.QPointF(float(x[0]), float(y[0])))
    starts = [_path_points(p.get("d"))[0] for p in root.iter(f"{SVG}path") if p.get("class") == "curve"]
    assert any(abs(sx - want.x()) < 0.02 and abs(sy - want.y()) < 0.02 for sx, sy in starts)
    assert set(_major_tick_strings(conv.getAxis("left"))) <= set(_axis_texts(root, "left"))

    # an image item becomes one embedded PNG at its place
    adj = lab.adj_plot.getPlotItem()
    root = _parse(plot_svg(adj))
    images = root.findall(f".//{SVG}image")
    assert len(images) == 1
    href = images[0].get("{http://www.w3.org/1999/xlink}href")
    assert href.startswith("data:image/png;base64,")
    assert not _marker_elements(root)


def test_export_writes_a_file_or_raises_oserror(pagerank_lab, tmp_path):
    _window, lab = pagerank_lab
    export_svg(lab.bar_plot, tmp_path / "bars.svg")
    assert (tmp_path / "bars.svg").read_text(encoding="utf-8").startswith("<?xml")
    with pytest.raises(OSError):
        export_svg(lab.bar_plot, tmp_path / "missing" / "bars.svg")
