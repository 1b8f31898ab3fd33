"""The face-detection lab's tabs, one class each, mixed into :class:`~.lab.FacesLab`: the
detection (the photo with its boxes, the "stages passed" map, the funnel and a clicked window's
report), the training (rates, stumps, mining) and the gallery of the training material.

Each class builds its tab's widgets and holds its handlers; the lab renders the snapshots and
keeps the state.
"""

from __future__ import annotations

import html

import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from ... import style as theme
from ...widgets.image_view import ImageView
from ...widgets.plots import PlotPanel, outside_legend
from . import maths, run, side_tasks

TAB_DETECT, TAB_TRAIN, TAB_GALLERY = range(3)  # positions of the tabs, in the order the lab adds them


class DetectionTab:
    """The photo with the detections, the "stages passed" map, the funnel and a clicked window."""

    def _build_detect_tab(self) -> QtWidgets.QWidget:
        self.photo_view = ImageView("Detections")
        pv = self.photo_view
        pv.layer("band", theme.OKABE_ITO["reddish_purple"], 2.0, QtCore.Qt.PenStyle.DotLine, z=7)
        pv.layer("raw", theme.OKABE_ITO["yellow"], 1.0, z=8)
        pv.layer("lbp", theme.OKABE_ITO["sky_blue"], 3.0, QtCore.Qt.PenStyle.DashLine, z=10.5)
        pv.layer("faces", theme.OKABE_ITO["vermillion"], 4.0, z=10)
        pv.layer("clicked", theme.OKABE_ITO["bluish_green"], 3.0, QtCore.Qt.PenStyle.DotLine, z=11)
        # the key: what each kind of box is, in a row between the title and the photo
        self.key = outside_legend(pv.plot_item, "top", columns=4)
        self._keyed: tuple = ()
        self._sync_key()
        self._counts: list[pg.TextItem] = []  # neighbour count written by each detection
        self.photo_view.clicked.connect(self.inspect_window)
        self.heat_view = ImageView("Stages passed", colormap="viridis")
        self.heat_view.layer("faces", theme.OKABE_ITO["vermillion"], 2.5, z=10)
        self.heat_view.clicked.connect(self.inspect_window)
        self.funnel_panel = PlotPanel("Funnel", "stages ≥ j", "windows", log_y=True, legend=False)
        self.funnel = self.funnel_panel.curve("windows")
        self.window_label = QtWidgets.QLabel(maths.window_html(None))
        self.window_label.setWordWrap(True)
        self.window_label.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        self.window_label.setAlignment(QtCore.Qt.AlignmentFlag.AlignTop | QtCore.Qt.AlignmentFlag.AlignLeft)
        wscroll = QtWidgets.QScrollArea()
        wscroll.setWidgetResizable(True)
        wscroll.setWidget(self.window_label)
        wscroll.setMinimumSize(120, 60)
        top = QtWidgets.QSplitter(QtCore.Qt.Orientation.Horizontal)
        top.addWidget(self.photo_view)
        top.addWidget(self.heat_view)
        top.setSizes([500, 500])
        bottom = QtWidgets.QSplitter(QtCore.Qt.Orientation.Horizontal)
        bottom.addWidget(self.funnel_panel)
        bottom.addWidget(wscroll)
        bottom.setSizes([350, 650])
        detect_tab = QtWidgets.QSplitter(QtCore.Qt.Orientation.Vertical)
        detect_tab.addWidget(top)
        detect_tab.addWidget(bottom)
        detect_tab.setStretchFactor(0, 3)
        detect_tab.setStretchFactor(1, 1)
        detect_tab.setSizes([520, 170])
        return detect_tab

    def _sync_key(self) -> None:
        """The key names the kinds of box drawn on the photo: the accepted windows and the LBP
        boxes only while their boxes are ticked, the faces with the vote in force."""
        ticked = {"raw": self.raw_box.isChecked(), "lbp": self.lbp_box.isChecked()}
        names = tuple(name for name in ("raw", "faces", "lbp", "band") if ticked.get(name, True))
        texts = tuple(run.key_text(name, self.form.value("min_neighbors")) for name in names)
        if (names, texts) == self._keyed:
            return
        self._keyed = (names, texts)
        self.key.clear()
        for name, text in zip(names, texts):
            self.key.addItem(self.photo_view.layers[name], text)
        self.photo_view.apply_style(theme.current())  # the new entries in the key's font and colour

    def _draw_counts(self, boxes) -> None:
        """Write each detection's neighbour count above its top-left corner (pooled text items)."""
        s = theme.current()
        shown = boxes[: run.MAX_COUNTS]
        while len(self._counts) < shown.shape[0]:
            item = pg.TextItem(anchor=(0, 1))
            item.setZValue(12)
            self.photo_view.plot_item.addItem(item)
            self._counts.append(item)
        for k, item in enumerate(self._counts):
            if k < shown.shape[0]:
                r, c, _h, _w, count = shown[k]
                text = (f"<span style='color:{theme.OKABE_ITO['vermillion']}; background-color:{s.background};"
                        f" font-size:{s.font_pt:.0f}pt'>&nbsp;{int(count)}&nbsp;</span>")
                if getattr(item, "_sml_html", None) != text:
                    item.setHtml(text)
                    item._sml_html = text
                item.setPos(float(c), float(r))
                item.setVisible(True)
            else:
                item.setVisible(False)


    def inspect_window(self, x: float, y: float) -> None:
        """Report the window centred nearest (x, y) (image pixels) at the heat map's scale."""
        snap = self.runner.current
        if snap is None or snap.mode != "detect":
            return
        geom = snap.heat_geometry
        ctx = snap.ctx
        if geom:
            _, _, ch, cw, wh, ww = geom
            i = max(0, round((y - wh / 2) / ch))
            j = max(0, round((x - ww / 2) / cw))
            top, left = i * ch, j * cw
        else:
            wh = ww = float(run.WINDOW)
            top, left = max(0.0, y - wh / 2), max(0.0, x - ww / 2)
        try:
            rep = side_tasks.window_report(ctx.cascade, ctx.photo.grey, top, left, wh, ww)
        except ValueError as exc:
            self.window_label.setText(html.escape(str(exc)))
            return
        self._clicked = (x, y)
        self.window_info = rep
        r0, c0, h, w = rep["box"]
        self.photo_view.set_boxes("clicked", *run.box_polyline([[r0, c0, h, w]]))
        self.window_label.setText(maths.window_html(rep))


    def _clear_window(self) -> None:
        self.window_info = None
        self._clicked = None
        self.photo_view.set_boxes("clicked", [], [])
        self.window_label.setText(maths.window_html(None))



class TrainingTab:
    """The cascade trained live: its progress, the stage and cascade rates, the stumps chosen and mining."""

    def _build_train_tab(self) -> QtWidgets.QWidget:
        s = theme.current()
        self.progress_label = QtWidgets.QLabel("Choose Mode → “Train a cascade” to train a 5-stage cascade live.")
        self.progress_label.setWordWrap(True)
        self.progress_bar = QtWidgets.QProgressBar()
        self.progress_bar.setRange(0, 1000)
        self.progress_bar.setTextVisible(False)
        self.progress_bar.setMaximumHeight(int(10 * s.scale))
        self.feature_view = ImageView("Stump on mean face")
        self.features_view = ImageView("Stumps chosen")
        self.dr_panel = PlotPanel("DR", "stumps", "DR")
        self.dr_stage = self.dr_panel.curve("stage")
        self.dr_total = self.dr_panel.curve("cascade")
        self.fpr_panel = PlotPanel("FPR", "stumps", "FPR", log_y=True)
        self.fpr_stage = self.fpr_panel.curve("stage")
        self.fpr_total = self.fpr_panel.curve("cascade")
        self.mining_panel = PlotPanel("Mining", "stage", "accepted", log_y=True, legend=False)
        self.mining = self.mining_panel.curve("accepted")
        # the rate curves get a row of their own: their keys sit above the curves and need the width
        row1 = QtWidgets.QSplitter(QtCore.Qt.Orientation.Horizontal)
        row1.addWidget(self.dr_panel)
        row1.addWidget(self.fpr_panel)
        row1.setSizes([500, 500])
        row2 = QtWidgets.QSplitter(QtCore.Qt.Orientation.Horizontal)
        row2.addWidget(self.feature_view)
        row2.addWidget(self.features_view)
        row2.addWidget(self.mining_panel)
        row2.setSizes([200, 400, 400])
        body = QtWidgets.QSplitter(QtCore.Qt.Orientation.Vertical)
        body.addWidget(row1)
        body.addWidget(row2)
        train_tab = QtWidgets.QWidget()
        tl = QtWidgets.QVBoxLayout(train_tab)
        tl.setContentsMargins(0, 0, 0, 0)
        tl.addWidget(self.progress_label)
        tl.addWidget(self.progress_bar)
        tl.addWidget(body, 1)
        return train_tab


class GalleryTab:
    """Faces, non-faces and the hard negatives (a side task, run when the tab is first shown)."""

    def _build_gallery_tab(self) -> QtWidgets.QWidget:
        self.gallery_label = QtWidgets.QLabel("Faces and non-faces of the training data, and the hard negatives: "
                                              "windows of face-free photos that pass the most stages.")
        self.gallery_label.setWordWrap(True)
        self.faces_view = ImageView("Faces (LFW)")
        self.nonfaces_view = ImageView("Non-faces")
        self.hard_view = ImageView("Hard negatives")
        grid = QtWidgets.QSplitter(QtCore.Qt.Orientation.Horizontal)
        for v in (self.faces_view, self.nonfaces_view, self.hard_view):
            grid.addWidget(v)
        gallery_tab = QtWidgets.QWidget()
        gl = QtWidgets.QVBoxLayout(gallery_tab)
        gl.setContentsMargins(0, 0, 0, 0)
        gl.addWidget(self.gallery_label)
        gl.addWidget(grid, 1)
        return gallery_tab

    def _tab_changed(self, index: int) -> None:
        if index == TAB_GALLERY:
            self.load_gallery()


    def load_gallery(self) -> None:
        key = id(self.trained) if (self.trained is not None and self.form.value("cascade") == "trained") else "shipped"
        if key == self._gallery_key:
            return
        self._gallery_key = key
        cascade = self.trained if key != "shipped" else None
        self.gallery_label.setText("Mining the hard negatives …")
        task = self.task("gallery", on_done=self._gallery_done, on_error=self._gallery_failed,
                         on_progress=lambda f, t: self.gallery_label.setText(f"{html.escape(t)} ({100 * f:.0f}%)"))
        task.start(side_tasks.gallery_data, cascade)


    def _gallery_done(self, data) -> None:
        self.gallery = data
        self.faces_view.set_image(run.mosaic(data["faces"], 10), key=("faces", id(data)))
        self.nonfaces_view.set_image(run.mosaic(data["non_faces"], 10), key=("non", id(data)))
        self.hard_view.set_image(run.mosaic(data["hard"], 8), key=("hard", id(data)))
        self.faces_view.set_title("Faces")
        self.nonfaces_view.set_title("Non-faces")
        stages = data["hard_stages"]
        rng = f"{stages.min()}–{stages.max()}" if stages.size else "–"
        self.hard_view.set_title(f"Hard neg. ({len(data['hard'])})")
        self.gallery_label.setText(f"Hard negatives: windows of face-free photos (coffee, chelsea, rocket) that pass "
                                   f"{rng} of the cascade's {data['n_stages']} stages — what mining collects.")


    def _gallery_failed(self, message: str) -> None:
        self._gallery_key = None
        self.gallery_label.setText(f"⚠ {html.escape(message)}")

