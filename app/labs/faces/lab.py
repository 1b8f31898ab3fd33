"""The face-detection lab: a Viola-Jones cascade of boosted Haar stumps finds faces in a photo
(window by window over an image pyramid, with a "which stage rejected this window" heat map and
scikit-image's LBP detector for comparison), is trained live (features over the mean face,
per-stage and cumulative rates, hard-negative mining), and shows its training material."""

from __future__ import annotations

import html
import math
import os
import time
from typing import Callable, Iterator

import numpy as np
from PySide6 import QtCore, QtWidgets

from ... import style as theme
from ...lab import Lab
from ...widgets.params import Param
from ...widgets.plots import place_legend
from . import maths, run, side_tasks
from .tabs import TAB_DETECT, TAB_TRAIN, DetectionTab, GalleryTab, TrainingTab

MAX_STAGES = 19
FILE_ROLE = QtCore.Qt.ItemDataRole.UserRole + 7  # marks the Photo box entry of an opened file


def _or_gap(value) -> float:
    """A curve point: an undefined rate (None) is a gap in the line."""
    return math.nan if value is None else float(value)


def _mode(m: str):
    return lambda v: v["mode"] == m


class FacesLab(DetectionTab, TrainingTab, GalleryTab, Lab):
    id = "faces"
    title = "Face detection"
    order = 30
    description = ("Viola-Jones: Haar features from integral images, boosted stumps in an attentional cascade; "
                   "detect faces in a photo, or train a small cascade live.")
    budget_mb = 256  # at the largest legal input: the shipped cascade and the photo's pyramid
    budget_seconds = 8.0
    chapter = "Trees and ensembles"
    summary = "Viola–Jones finds faces with Haar features, integral images and a boosted cascade."
    keywords = ("Viola-Jones", "face detection", "Haar features", "integral image", "AdaBoost", "boosting", "stump",
                "cascade", "attentional cascade", "detection rate", "false positive rate", "FPR", "sliding window",
                "image pyramid", "scale factor", "min neighbours", "non-maximum suppression", "training a cascade",
                "astronaut", "camera", "photo")
    screenshot_steps = 40  # the default detection sweep ends at step 29
    self_test_steps = 3

    # ------------------------------------------------------------------ state
    def init_state(self) -> None:
        self.image_path = ""  # a file the user opened ("" = the chosen sample photo)
        self.trained = None  # the cascade trained in this session (not saved)
        self.window_info = None
        self._clicked = None  # (x, y) of the last clicked point on the photo
        self._lbp_key = None
        self._lbp_boxes = np.zeros((0, 4))
        self._train_t0 = None
        self._gallery_key = None

    def parameter_specs(self):
        return [
            Param("mode", "Mode", "choice", "detect", choices=run.MODES,
                  tooltip="Detect faces with a cascade, or train a small cascade live (about 15-60 s)"),
            Param("image", "Photo", "choice", run.DEFAULT_PHOTO, choices=[("astronaut", "astronaut"),
                                                                          ("camera", "camera")],
                  tooltip="A scikit-image sample photo (Open image… reads your own PNG or JPEG)",
                  visible_when=_mode("detect")),
            Param("cascade", "Cascade", "choice", "shipped", choices=run.CASCADES,
                  tooltip="The shipped 19-stage cascade, or the one trained in this session",
                  visible_when=_mode("detect")),
            Param("n_stages", "Stages used", "int", MAX_STAGES, minimum=1, maximum=MAX_STAGES,
                  tooltip="Use only the first stages: fewer stages = higher detection rate AND more false positives "
                          "(DR = Π DR_j, FPR = Π FPR_j)", visible_when=_mode("detect")),
            Param("scale_factor", "Scale factor", "float", 1.25, minimum=1.05, maximum=2.0, step=0.05, decimals=2,
                  tooltip="Ratio between successive window sizes of the pyramid", visible_when=_mode("detect")),
            Param("step", "Step", "choice", 0, choices=run.STEPS,
                  tooltip="Window stride in pixels of each pyramid level (auto: 2 for small windows, 1 beyond)",
                  visible_when=_mode("detect")),
            Param("min_neighbors", "Min. neighbours", "int", run.MIN_NEIGHBORS, minimum=0, maximum=30,
                  tooltip="Overlapping accepted windows are grouped; a group is a face when it has more than "
                          "this many windows (its neighbour count, written by each box)",
                  visible_when=_mode("detect")),
            Param("stage_dr", "Stage DR", "float", 0.999, minimum=0.9, maximum=0.9999, step=0.001, decimals=4,
                  tooltip="Each stage's threshold is lowered until it keeps this fraction of the faces",
                  visible_when=_mode("train")),
            Param("stage_fpr", "Stage FPR", "float", 0.5, minimum=0.05, maximum=0.9, step=0.05, decimals=2,
                  tooltip="Stumps are added to a stage until it accepts at most this fraction of its non-faces",
                  visible_when=_mode("train")),
            Param("max_stages", "Max stages", "int", 5, minimum=1, maximum=12,
                  tooltip="Stages to train (the shipped cascade has 19)", visible_when=_mode("train")),
            Param("max_features", "Stumps/stage", "int", 100, minimum=1, maximum=200,
                  tooltip="Most stumps per stage", visible_when=_mode("train")),
        ]

    def build_controls(self, layout: QtWidgets.QVBoxLayout) -> None:
        self.open_button = QtWidgets.QPushButton("Open image…")
        self.open_button.setToolTip("Detect faces in your own PNG or JPEG (large images are downscaled)")
        self.open_button.clicked.connect(self.open_image_dialog)
        layout.addWidget(self.open_button)
        self.image_label = QtWidgets.QLabel()
        self.image_label.setWordWrap(True)
        layout.addWidget(self.image_label)
        self.lbp_box = QtWidgets.QCheckBox("LBP boxes (scikit-image)")
        self.lbp_box.setChecked(True)
        self.lbp_box.setToolTip("Also run scikit-image's LBP frontal-face cascade (OpenCV's model) on the photo, "
                                "drawn dashed, for comparison")
        self.lbp_box.toggled.connect(self._lbp_toggled)
        layout.addWidget(self.lbp_box)
        self.raw_box = QtWidgets.QCheckBox("Accepted windows")
        self.raw_box.setChecked(False)  # dozens of them would crowd the one face box they merge into
        self.raw_box.setToolTip("Draw every window all stages accept, before they are merged into detections "
                                "(their count is in the maths panel)")
        self.raw_box.toggled.connect(self._raw_toggled)
        layout.addWidget(self.raw_box)
        self.status = QtWidgets.QLabel()
        self.status.setWordWrap(True)
        layout.addWidget(self.status)

    def build_plots(self) -> QtWidgets.QWidget:
        self.tabs = QtWidgets.QTabWidget()
        self.tabs.addTab(self._build_detect_tab(), "Detection")
        self.tabs.addTab(self._build_train_tab(), "Training")
        self.tabs.addTab(self._build_gallery_tab(), "Gallery")
        self.tabs.currentChanged.connect(self._tab_changed)
        return self.tabs

    # ------------------------------------------------------------------ helpers
    def source(self) -> tuple:
        return ("file", self.image_path) if self.image_path else ("photo", self.form.value("image"))

    # ------------------------------------------------------------------ parameters
    def on_param_changed(self, name: str) -> None:
        if name == "image":
            self.image_path = ""
            self._sync_photo_box()
        if name == "mode":
            self.tabs.setCurrentIndex(TAB_TRAIN if self.form.value("mode") == "train" else TAB_DETECT)
        if name in ("image", "mode"):
            self._clear_window()
        self.reset()

    # ------------------------------------------------------------------ running
    def make_run(self, params: dict, seed: int) -> Callable[[], Iterator]:
        p = dict(params)
        if p["mode"] == "train":
            self._train_t0 = time.perf_counter()
            return lambda: run.run_steps(p, int(seed))
        if p["cascade"] == "trained" and self.trained is None:
            raise ValueError("No cascade has been trained yet: choose Mode → “Train a cascade”, let it finish, "
                             "then detect with it (or choose the shipped cascade).")
        source = self.source()
        trained = self.trained
        self._start_lbp(source, p)
        return lambda: run.run_steps(p, int(seed), source, trained)

    def show_idle(self) -> None:
        self.photo_view.forget()
        self.heat_view.forget()
        self.photo_view.set_boxes("band", [], [])

    def render(self, snapshot, prepared, history) -> None:
        if snapshot.mode == "detect":
            self._render_detect(snapshot)
        else:
            self._render_train(snapshot, history)

    def _render_detect(self, snap) -> None:
        ctx = snap.ctx
        grey = ctx.photo.grey
        self.photo_view.set_image(grey, key=id(grey))
        self._update_image_label(ctx.photo)
        xs, ys = run.box_polyline(snap.boxes[:, :4])
        self.photo_view.set_boxes("faces", xs, ys)
        self.heat_view.set_boxes("faces", xs, ys)
        self._draw_counts(snap.boxes)
        raw = snap.raw[: run.MAX_RAW_DRAWN] if self.raw_box.isChecked() else np.zeros((0, 4))
        self.photo_view.set_boxes("raw", *run.box_polyline(raw))
        self.photo_view.set_boxes("band", *run.box_polyline([snap.band] if snap.band else []))
        self._sync_key()
        self._draw_lbp()
        K = ctx.n_stages
        if snap.heat is not None:
            top, left, ch, cw, wh, ww = snap.heat_geometry
            nr, nc = snap.heat.shape
            rect = (left + ww / 2 - cw / 2, top + wh / 2 - ch / 2, nc * cw, nr * ch)
            self.heat_view.set_image(snap.heat.astype(np.float32), key=(id(snap.heat), K), levels=(0.0, float(K)),
                                     rect=rect, extent=grey.shape)
            self.heat_view.set_under(grey, key=id(grey))
            self.heat_view.set_title(f"Stages passed ({ww:.0f} px)")
        else:
            self.heat_view.image.clear()
            self.heat_view.forget()
            self.heat_view.set_under(grey, key=id(grey))
            self.heat_view.set_title("Stages passed")
        self.heat_view.shape = grey.shape
        self.photo_view.set_title(f"Faces found: {snap.boxes.shape[0]}")
        f = np.asarray(snap.funnel, dtype=float)
        j = np.arange(f.size)
        ok = f > 0
        self.funnel.set(j[ok], f[ok])
        self.status.setText(html.escape(snap.message))


    def _update_image_label(self, photo) -> None:
        h, w = photo.grey.shape
        fh, fw = photo.full_shape
        text = f"<b>{html.escape(photo.label)}</b>: {w} × {h} px"
        if photo.note:
            text += f"<br><i>{html.escape(photo.note)}</i>"
        elif (fh, fw) != (h, w):
            text += f" (from {fw} × {fh})"
        self.image_label.setText(text)

    def _render_train(self, snap, history) -> None:
        e = snap.engine
        ctx = snap.ctx
        if history.rewound:
            for series in (self.dr_stage, self.dr_total, self.fpr_stage, self.fpr_total):
                series.clear()
        added = [h for h in history.added if h.engine.event == "feature"]
        if added:
            x = [h.stumps for h in added]
            self.dr_stage.extend(x, [_or_gap(h.engine.stage_detection_rate) for h in added])
            self.dr_total.extend(x, [h.engine.detection_rate for h in added])
            self.fpr_stage.extend(x, [_or_gap(h.engine.stage_false_positive_rate) for h in added])
            self.fpr_total.extend(x, [h.engine.false_positive_rate for h in added])
        rates = snap.stage_rates
        acc = [_or_gap(r[2]) for r in rates]
        if e.phase == "mining" and e.mined_acceptance is not None:
            acc = acc + [e.mined_acceptance]
        xs = np.arange(1, len(acc) + 1)
        self.mining.set(xs, acc)
        if snap.features:
            stage, rects, weights = snap.features[-1]
            self.feature_view.set_image(run.feature_image(rects, weights, ctx.mean_face), key=("f", snap.stumps))
            self.feature_view.set_title(f"S{stage + 1} stump {e.stage_n_features or snap.stumps}")
        else:
            self.feature_view.set_image(run.feature_image(np.zeros((0, 4), int), np.zeros(0), ctx.mean_face),
                                        key=("mean", id(ctx.mean_face)))
            self.feature_view.set_title("Mean face")
        self.features_view.set_image(run.feature_gallery(snap.features, ctx.mean_face), key=("g", snap.stumps))
        self.features_view.set_title(f"Stumps: {snap.stumps}")
        frac = self._train_fraction(snap)
        self.progress_bar.setValue(int(1000 * frac))
        left = ""
        if (self._train_t0 is not None and self.runner.current_index == len(self.runner.timeline) - 1
                and 0.02 < frac < 1 and not e.done):
            elapsed = time.perf_counter() - self._train_t0
            left = f" · about {max(1, round(elapsed * (1 - frac) / frac))} s left"
        prog = f" {100 * e.progress:.0f}%" if e.progress is not None else ""
        self.progress_label.setText(f"<b>{html.escape(e.phase)}{prog}</b>{left} — {html.escape(e.message)}")
        self.status.setText(html.escape(e.message))
        if e.done and ctx.cascade.n_stages_ > 0 and self.trained is not ctx.cascade:
            self.trained = ctx.cascade
            self.status.setText(html.escape(e.message) + "<br><b>Detect with it: Mode → Detect faces, "
                                "Cascade → trained here.</b>")

    def _train_fraction(self, snap) -> float:
        e = snap.engine
        K = max(1, int(snap.ctx.params.get("max_stages", 5)))
        if e.done:
            return 1.0
        within = {"start": 0.0, "preparing": 0.0, "mining": 0.1, "features": 0.25, "sorting": 0.45}.get(e.phase)
        p = e.progress if e.progress is not None else 0.0
        if within is not None:
            width = {"mining": 0.15, "features": 0.2, "sorting": 0.1}.get(e.phase, 0.0)
            inside = within + width * p
        elif e.phase == "stage":
            inside = 1.0
        else:  # boosting / feature: how far the stage FPR has come down towards its target
            target = float(snap.ctx.params.get("stage_fpr", 0.5))
            fpr = e.stage_false_positive_rate
            done = 0.0 if fpr is None or fpr >= 1 else min(1.0, math.log(max(fpr, 1e-9)) / math.log(target))
            inside = 0.55 + 0.45 * done
        stage = e.n_stages if e.phase != "stage" else e.n_stages - 1
        return min(1.0, (stage + inside) / K)

    # ------------------------------------------------------------------ LBP comparison (side task)
    def _start_lbp(self, source, params) -> None:
        if not self.lbp_box.isChecked():
            return
        key = (run.source_key(source), float(params["scale_factor"]), int(params["min_neighbors"]))
        if key == self._lbp_key:
            return
        self._lbp_key = key
        self._lbp_boxes = np.zeros((0, 4))
        self._draw_lbp()
        task = self.task("lbp", on_done=self._lbp_done, on_error=self._lbp_failed)
        task.start(side_tasks.lbp_boxes, source, float(params["scale_factor"]), int(params["min_neighbors"]))

    def _lbp_done(self, boxes) -> None:
        self._lbp_boxes = np.asarray(boxes, dtype=float).reshape(-1, 4)
        self._draw_lbp()

    def _lbp_failed(self, message: str) -> None:
        self._lbp_boxes = np.zeros((0, 4))
        self.lbp_box.setToolTip(f"scikit-image's LBP cascade failed: {message}")
        self._draw_lbp()

    def _draw_lbp(self) -> None:
        b = self._lbp_boxes if self.lbp_box.isChecked() else np.zeros((0, 4))
        self.photo_view.set_boxes("lbp", *run.box_polyline(b))
        self._sync_key()

    def _lbp_toggled(self, on: bool) -> None:
        if on and self.form.value("mode") == "detect":
            self._start_lbp(self.source(), self.params())
        self._draw_lbp()

    def _raw_toggled(self, _on: bool) -> None:
        self._sync_key()
        snap = self.runner.current
        if snap is not None and snap.mode == "detect":
            self._render_detect(snap)

    # ------------------------------------------------------------------ files
    def image_reader(self):
        return run.check_file, ()

    def image_opened(self, path: str) -> None:
        self.image_path = path
        self._sync_photo_box()
        self._clear_window()
        if self.form.value("mode") != "detect":
            self.form.set_value("mode", "detect")
            self.tabs.setCurrentIndex(TAB_DETECT)
        self.reset()

    def restore_image_label(self) -> None:
        snap = self.runner.current
        if snap is not None and snap.mode == "detect":
            self._update_image_label(snap.ctx.photo)

    # ------------------------------------------------------------------ maths, style, sessions, export
    def maths_html(self, snapshot) -> str:
        if snapshot.mode == "detect":
            return maths.detect_html(snapshot)
        return maths.train_html(snapshot)

    def apply_style(self, s: theme.Style) -> None:
        for v in (self.photo_view, self.heat_view, self.feature_view, self.features_view, self.faces_view,
                  self.nonfaces_view, self.hard_view):
            v.apply_style(s)
        self.progress_bar.setMaximumHeight(int(10 * s.scale))

    def favour_main_plot(self, s: theme.Style | None = None) -> None:
        """As every lab, except that the photo's key stays in a row above it: the photo keeps
        its aspect ratio, so a key column beside it would take its width and shrink it whole."""
        super().favour_main_plot(s)
        place_legend(self.photo_view.plot_item, "top")

    def main_plot(self):
        return self.photo_view if self.tabs.currentIndex() != TAB_TRAIN else self.fpr_panel

    def user_data(self) -> dict:
        return {"path": self.image_path}

    def set_user_data(self, data: dict) -> None:
        path = data.get("path", "")
        if not isinstance(path, str) or len(path) > 4096:
            raise ValueError("the saved image path is malformed")
        self.image_path = path
        self.window_info = None
        self._clicked = None
        self._sync_photo_box()

    def after_params_restored(self) -> None:
        self._sync_photo_box()

    def _sync_photo_box(self) -> None:
        """The Photo box names what is on screen: an opened file gets its own (last) entry,
        selected, carrying the sample photo's value so the parameters stay valid."""
        combo = self.form.widgets["image"]
        combo.blockSignals(True)
        try:
            for i in reversed(range(combo.count())):
                if combo.itemData(i, FILE_ROLE):
                    combo.removeItem(i)
            if self.image_path:
                name = os.path.basename(self.image_path)[:60] or self.image_path[:60]
                combo.addItem(f"file: {name}", combo.currentData())
                last = combo.count() - 1
                combo.setItemData(last, True, FILE_ROLE)
                combo.setItemData(last, self.image_path, QtCore.Qt.ItemDataRole.ToolTipRole)
                combo.setCurrentIndex(last)
        finally:
            combo.blockSignals(False)

    def shutdown(self) -> None:
        super().shutdown()
        run.clear_caches()  # what the runs and side tasks kept for the next one does not outlive the lab
        side_tasks.clear_caches()

    def export_rows(self):
        snap = self.runner.current
        if snap is None or snap.mode != "detect":
            return [], []
        header = ["row", "column", "height", "width", "merged windows"]
        return header, [[float(v) for v in b] for b in snap.boxes]
