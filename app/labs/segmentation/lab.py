"""The image segmentation lab: pixels described by their colour or by the histogram of their
neighbourhood, clustered by k-means or by EM (multinomial or Gaussian mixture); the
segmentation, the objective and where EM is unsure drawn live; the clicked pixel's
log-likelihood terms; linked views (brush pixels on the photo, see them in feature space, and
back); k-means versus EM from the same initial centres; choosing K by BIC and stability;
k-means restarts and k-means++."""

from __future__ import annotations

import html
import os
from typing import Callable, Iterator

import numpy as np
from PySide6 import QtCore, QtWidgets

from smlengine.datasets import list_photos

from ... import style as theme
from ...lab import Lab
from ...widgets.params import Param
from . import maths, run, side_tasks
from .run import COLOUR_METHODS, EM_METHODS, FEATURE_CHOICES, HIST_METHODS, HISTOGRAM_CHOICES, INITS, MAX_K, METHODS
from .side_tabs import ChooseKTab, CompareTab, RestartsTab
from .tabs import COMPARE_TAB, LINK_TAB, PALETTE, PIXEL_TAB, LinkedViewsTab, PixelTab, SegmentationTab

MAX_SEEDS = MAX_K
DEFAULT_PHOTO = "textures"
FILE_ROLE = QtCore.Qt.ItemDataRole.UserRole + 7  # marks the Photo box entry of an opened file


def _for(*methods: str):
    return lambda v: v["method"] in methods


class SegmentationLab(SegmentationTab, PixelTab, LinkedViewsTab, CompareTab, ChooseKTab, RestartsTab, Lab):
    id = "segmentation"
    title = "Image segmentation"
    order = 50
    description = ("Segmentation as clustering: k-means and EM for multinomial (local histograms) and Gaussian "
                   "(colour) mixtures, live; choosing K by BIC and stability; restarts and k-means++.")
    budget_mb = 384  # at the largest legal input: a 512-pixel image with 64-bin histograms in 63-pixel windows
    chapter = "Clustering and mixtures"
    summary = "Pixels grouped into segments by k-means and EM, by their colour or the texture around them."
    keywords = ("k-means", "Lloyd", "EM", "expectation maximisation", "expectation maximization", "Gaussian mixture",
                "multinomial mixture", "histograms", "texture", "colour", "color", "CIE-Lab", "RGB", "k-means++",
                "initialisation", "restarts", "local optimum", "BIC", "stability", "choosing K", "K", "clustering",
                "image segmentation", "photo", "astronaut", "coffee", "chelsea")
    screenshot_steps = 8
    self_test_steps = 5

    # ------------------------------------------------------------------ state
    def init_state(self) -> None:
        self.image_path = ""  # a file the user opened ("" = the chosen photo)
        self.seeds: list[list[float]] = []  # clicked seeds as (row, column) fractions of the image
        self.selected: tuple[int, int] | None = None  # inspected pixel (row, column) of the run's image
        self._ctx = None
        self._order_items: dict[int, side_tasks.ModelOrderItem] = {}
        self._order_stab = None
        self._restarts = None
        # linked views: ("image", x0, y0, x1, y1) as fractions of the image size, or
        # ("scatter", x0, y0, x1, y1, projection key) in the scatter's coordinates
        self.brushed: tuple | None = None
        self.brush_mask: np.ndarray | None = None  # (n,) bool over the run's pixels
        self._brush_version = 0
        self._link_key = None
        self._scatter_idx = np.zeros(0, dtype=np.intp)  # LUT index each scatter point shows
        self.compare_result = None

    def parameter_specs(self):
        photos = list_photos()
        return [
            Param("image", "Photo", "choice", DEFAULT_PHOTO, choices=[(p, p) for p in photos],
                  tooltip="A bundled photo (File: Open image… reads your own PNG or JPEG)"),
            Param("resolution", "Resolution", "int", 128, minimum=32, maximum=512, step=16, suffix=" px",
                  tooltip="Longest side of the image the live run works on (the photo is downscaled; "
                          "128 px keeps every iteration fast)"),
            Param("method", "Method", "choice", "multinomial", choices=METHODS,
                  tooltip="What describes a pixel (its colour, or the histogram of its neighbourhood) and how "
                          "the pixels are clustered"),
            Param("K", "Clusters K", "int", 4, minimum=1, maximum=MAX_K, tooltip="Number of segments"),
            Param("window", "Window", "int", 15, minimum=1, maximum=63, step=2, suffix=" px",
                  tooltip="Side l of the l × l window around each pixel whose grey levels form its histogram (odd)",
                  visible_when=_for(*HIST_METHODS)),
            Param("histograms", "Histograms", "choice", "grey+lbp", choices=HISTOGRAM_CHOICES,
                  tooltip="grey levels: the histogram of the window's grey levels; + patterns: followed by the "
                          "histogram of its local binary patterns (edges, corners, spots, flat: the fine structure "
                          "that tells grass from gravel)", visible_when=_for(*HIST_METHODS)),
            Param("bins", "Bins", "int", 8, minimum=2, maximum=64,
                  tooltip="Number of grey-level bins of the local histograms", visible_when=_for(*HIST_METHODS)),
            Param("features", "Features", "choice", "lab", choices=FEATURE_CHOICES,
                  tooltip="Colour space of the pixel features (+ position: segments also prefer to be compact)",
                  visible_when=_for(*COLOUR_METHODS)),
            Param("position_weight", "Position w.", "float", 0.5, minimum=0.0, maximum=5.0, step=0.1,
                  decimals=2, tooltip="Weight of the (x, y) position columns relative to colour",
                  visible_when=lambda v: v["method"] in COLOUR_METHODS and v["features"].endswith("+xy")),
            Param("init", "Init", "choice", "k-means++", choices=INITS,
                  tooltip="random: K distinct pixels; k-means++: D² sampling; clicked seeds: click K pixels on "
                          "the photo (right click removes the last)"),
            Param("pseudocount", "Prior α", "float", 0.01, minimum=0.0, maximum=10.0, step=0.01, decimals=3,
                  tooltip="Added to every bin count in the M-step, t_kj = (Σ a_ik H_ij + α)/(…+ dα), so no "
                          "t_kj becomes 0 (pseudo-count; default 0.01)", visible_when=_for("multinomial")),
            Param("max_iter", "Max iter.", "int", 200, minimum=1, maximum=2000,
                  tooltip="Stop after this many iterations if the run has not converged"),
        ]

    def build_controls(self, layout: QtWidgets.QVBoxLayout) -> None:
        row = QtWidgets.QVBoxLayout()
        self.open_button = QtWidgets.QPushButton("Open image…")
        self.open_button.setToolTip("Segment your own PNG or JPEG (read on a worker; large images are downscaled)")
        self.open_button.clicked.connect(self.open_image_dialog)
        row.addWidget(self.open_button)
        self.clear_seeds_button = QtWidgets.QPushButton("Clear seeds")
        self.clear_seeds_button.setToolTip("Forget the clicked seed pixels")
        self.clear_seeds_button.clicked.connect(self.clear_seeds)
        row.addWidget(self.clear_seeds_button)
        layout.addLayout(row)
        self.image_label = QtWidgets.QLabel()
        self.image_label.setWordWrap(True)
        layout.addWidget(self.image_label)
        orow = QtWidgets.QHBoxLayout()
        orow.addWidget(QtWidgets.QLabel("Overlay"))
        self.opacity = QtWidgets.QSlider(QtCore.Qt.Orientation.Horizontal)
        self.opacity.setRange(0, 100)
        self.opacity.setValue(45)
        self.opacity.setToolTip("Opacity of the segmentation drawn over the photo")
        self.opacity.valueChanged.connect(self._opacity_changed)
        orow.addWidget(self.opacity, 1)
        layout.addLayout(orow)
        self.seed_hint = QtWidgets.QLabel()
        self.seed_hint.setWordWrap(True)
        layout.addWidget(self.seed_hint)

    def build_plots(self) -> QtWidgets.QWidget:
        self.tabs = QtWidgets.QTabWidget()
        self.tabs.addTab(self._build_segmentation_tab(), "Segmentation")
        self.tabs.addTab(self._build_pixel_tab(), "Unsure && pixel")
        self.tabs.addTab(self._build_link_tab(), "Feature space")
        self.tabs.addTab(self._build_compare_tab(), "k-means vs EM")
        self.tabs.addTab(self._build_order_tab(), "Choose K")
        self.tabs.addTab(self._build_restarts_tab(), "Restarts")
        self.tabs.setTabToolTip(PIXEL_TAB, "Where EM is unsure, and what decides the cluster of a clicked pixel")
        self.tabs.setTabToolTip(LINK_TAB, "Linked views: brush pixels on the photo and see them in feature space, "
                                          "or brush the scatter and see the pixels")
        self.tabs.setTabToolTip(COMPARE_TAB, "k-means and the matching EM mixture from the same initial centres")
        self.tabs.currentChanged.connect(lambda _i: self._draw_link())
        for view in (self.photo_view, self.seg_view, self.unc_view, self.link_view):
            view.pixelClicked.connect(lambda r, c, b, v=view: self._pixel_clicked(v, r, c, b))
        self._update_method_widgets()
        return self.tabs

    def after_build(self) -> None:
        for name in ("image", "method", "features", "init"):
            self.form.widgets[name].setMinimumContentsLength(12)  # long choices elide, with a tooltip
        self._update_seed_hint()
        self._opacity_changed(self.opacity.value())

    # ------------------------------------------------------------------ helpers
    @property
    def method(self) -> str:
        return self.form.value("method")

    def source(self) -> tuple:
        return ("file", self.image_path) if self.image_path else ("photo", self.form.value("image"))

    def _update_method_widgets(self) -> None:
        m = self.method
        names = {"multinomial": ("Log-likelihood", "ℓ (penalised)"), "gmm": ("Log-likelihood", "ℓ")}
        title, ylab = names.get(m, ("Objective J", "J"))
        self.objective_panel.set_labels(title, y_label=ylab)
        if m in HIST_METHODS:
            t = "Histograms t<sub>k</sub>" if m == "multinomial" else "Centres μ<sub>k</sub>"
            xlab = "grey-level bin" if self.form.value("histograms") == "grey" else "grey | pattern bin"
            self.cluster_panel.set_labels(t, xlab, "probability")
            self.pixel_panel.set_labels(x_label=xlab)
        else:
            t = "Means μ<sub>k</sub>" if m == "gmm" else "Centres μ<sub>k</sub>"
            self.cluster_panel.set_labels(t, "cluster k", "share of pixels")
        self.unc_view.set_title("Doubt: 1 − max a<sub>ik</sub>" if m in EM_METHODS
                                else "Distance to own centre")
        if m == "multinomial":
            self.terms_panel.set_labels("Log-terms", y_label="log c<sub>k</sub>+Σ H<sub>j</sub> log t<sub>kj</sub>")
        elif m == "gmm":
            self.terms_panel.set_labels("Log-terms", y_label="log c<sub>k</sub> g(x | μ<sub>k</sub>, Σ<sub>k</sub>)")
        else:
            self.terms_panel.set_labels("Squared distances", y_label="‖x − μ<sub>k</sub>‖²")
        self.pixel_panel.setVisible(m in HIST_METHODS)

    def _sync_photo_box(self) -> None:
        """The Photo box names what is on screen: an opened file gets its own (last) entry,
        selected, carrying the current photo's value so the parameters stay valid."""
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

    def _update_seed_hint(self) -> None:
        k = self.form.value("K")
        clicked = self.form.value("init") == "clicked"
        self.clear_seeds_button.setEnabled(bool(self.seeds))
        if clicked:
            self.seed_hint.setText(f"Click {k} seed pixels on the photo ({min(len(self.seeds), k)} of {k} placed); "
                                   "right click removes the last.")
        else:
            self.seed_hint.setText("Click a pixel to see what decides its cluster (tab “Unsure & pixel”).")

    def _opacity_changed(self, value: int) -> None:
        self.photo_view.overlay.setOpacity(value / 100.0)
        self.link_view.overlay.setOpacity(value / 100.0)

    # ------------------------------------------------------------------ parameters
    def on_param_changed(self, name: str) -> None:
        if name == "image":
            self.image_path = ""
            self.seeds = []
            self.selected = None
            self._sync_photo_box()
        if name in ("method", "histograms"):
            self._update_method_widgets()
        if name in ("image", "resolution"):
            self.selected = None
        self._update_seed_hint()
        self.reset()

    def after_params_restored(self) -> None:
        self._update_method_widgets()
        self._update_seed_hint()
        self._sync_photo_box()

    # ------------------------------------------------------------------ files and clicks
    def image_reader(self):
        return run.open_image, (int(self.form.value("resolution")), int(self.form.value("K")))

    def restore_image_label(self) -> None:
        self._update_image_label(self._ctx)

    def image_opened(self, path: str) -> None:
        self.image_path = path
        self.seeds = []
        self.selected = None
        self._sync_photo_box()
        self._update_seed_hint()
        self.reset()

    def clear_seeds(self) -> None:
        self.seeds = []
        self._update_seed_hint()
        if self.form.value("init") == "clicked":
            self.reset()
        else:
            self._draw_seeds()

    def add_seed(self, row: int, col: int) -> None:
        """Add a seed at pixel (row, col) of the run's image (kept as fractions of the size)."""
        h, w = self._ctx.shape if self._ctx is not None else (1, 1)
        self.seeds.append([(row + 0.5) / h, (col + 0.5) / w])
        del self.seeds[:-MAX_SEEDS]
        self._update_seed_hint()
        self.reset()

    def _pixel_clicked(self, view, row: int, col: int, button: int) -> None:
        if view is self.photo_view and self.form.value("init") == "clicked":
            if button == 2:
                if self.seeds:
                    self.seeds.pop()
                    self._update_seed_hint()
                    self.reset()
            else:
                self.add_seed(row, col)
            return
        self.inspect_pixel(row, col)

    def inspect_pixel(self, row: int, col: int) -> None:
        self.selected = (int(row), int(col))
        snap = self.runner.current
        if snap is not None:
            self._draw_pixel(snap)

    # ------------------------------------------------------------------ running
    def make_run(self, params: dict, seed: int) -> Callable[[], Iterator]:
        method = params["method"]
        k = int(params["K"])
        if params["init"] == "clicked" and len(self.seeds) < k:
            raise ValueError(f"Click {k} seed pixels on the photo for K = {k} ({len(self.seeds)} placed), "
                             "or choose another initialisation.")
        if method in HIST_METHODS and int(params["window"]) % 2 == 0:
            raise ValueError(f"The window must be odd so it is centred on the pixel, got {params['window']}.")
        source = self.source()
        seeds = [tuple(s) for s in self.seeds]
        p = dict(params)
        return lambda: run.run_steps(method, p, seed, source, seeds)

    def show_idle(self) -> None:
        self.objective.clear()
        for v in (self.photo_view, self.seg_view, self.unc_view, self.link_view):
            v.forget()
        self._link_key = None

    def render(self, snapshot, prepared, history) -> None:
        ctx, eng = snapshot.ctx, snapshot.engine
        if ctx is not self._ctx:
            self._ctx = ctx
            self._update_image_label(ctx)
            self._draw_seeds()
            self._set_scatter_positions(ctx)
            self._update_brush()
        key = id(eng.labels)
        self.photo_view.set_image(ctx.image, key=id(ctx.image))
        rgb = run.label_colours(eng.labels, ctx.shape, PALETTE)
        self.seg_view.set_image(rgb, key=key)
        self.photo_view.set_overlay(rgb, key=key)
        self.seg_view.set_title(f"Segmentation, K = {ctx.n_clusters}")  # restyles only when the title changes
        if history.rewound:
            self.objective.clear()
        added = history.added
        if added:
            self.objective.extend([h.step for h in added], [h.objective for h in added])
        unc = run.uncertainty(ctx, eng)
        top = max(float(unc.max()), 1e-6)  # EM is mostly sure: stretch the scale to the largest doubt
        self.unc_view.set_image(unc, key=key, levels=(0.0, top))
        self._draw_clusters(ctx, eng)
        self._draw_pixel(snapshot)
        self._draw_link()

    def _update_image_label(self, ctx) -> None:
        if ctx is None:
            self.image_label.setText("")
            return
        h, w = ctx.shape
        fh, fw = ctx.full_shape
        text = f"<b>{html.escape(ctx.label)}</b>: {w} × {h} px"
        if (fh, fw) != (h, w):
            text += f" (downscaled from {fw} × {fh})"
        if ctx.note:
            text += f"<br><i>{html.escape(ctx.note)}</i>"
        self.image_label.setText(text)

    def _draw_seeds(self) -> None:
        if self._ctx is None or self.form.value("init") != "clicked" or not self.seeds:
            self.photo_view.set_markers([])
            return
        h, w = self._ctx.shape
        k = self.form.value("K")
        rc = [(min(int(fy * h), h - 1), min(int(fx * w), w - 1)) for fy, fx in self.seeds]
        used = len(rc) - min(len(rc), k)
        colors = ["#FFFFFF"] * used + [theme.CATEGORICAL[j % len(theme.CATEGORICAL)] for j in range(len(rc) - used)]
        self.photo_view.set_markers(rc, colors)

    # ------------------------------------------------------------------ maths
    def maths_html(self, snapshot) -> str:
        idx = self.runner.current_index
        previous = self.runner.timeline[idx - 1] if idx > 0 and self.runner.current is snapshot else None
        return maths.maths_html(snapshot, previous)

    # ------------------------------------------------------------------ style, sessions, export
    def apply_style(self, s: theme.Style) -> None:
        for v in (self.photo_view, self.seg_view, self.unc_view, self.thumbs, self.d2_view, self.link_view,
                  self.km_view, self.em_view, self.diff_view):
            v.apply_style(s)
        self.scatter_brush.restyle(s)
        if self._ctx is not None:
            self._set_scatter_positions(self._ctx)
            self._update_brush()
        self._draw_seeds()

    def main_plot(self):
        return self.seg_view

    def user_data(self) -> dict:
        return {"path": self.image_path, "seeds": [list(map(float, s)) for s in self.seeds]}

    def set_user_data(self, data: dict) -> None:
        path = data.get("path", "")
        if not isinstance(path, str) or len(path) > 4096:
            raise ValueError("the saved image path is malformed")
        seeds = data.get("seeds", [])
        if not isinstance(seeds, list) or len(seeds) > MAX_SEEDS:
            raise ValueError("the saved seeds are malformed")
        clean = []
        for s in seeds:
            if (not isinstance(s, (list, tuple)) or len(s) != 2
                    or not all(isinstance(v, (int, float)) and not isinstance(v, bool) and 0.0 <= v <= 1.0 for v in s)):
                raise ValueError("the saved seeds must be (row, column) fractions between 0 and 1")
            clean.append([float(s[0]), float(s[1])])
        self.image_path = path
        self.seeds = clean
        self.selected = None
        self._update_seed_hint()
        self._sync_photo_box()

    def export_rows(self):
        snap = self.runner.current
        if snap is None:
            return [], []
        ctx, eng = snap.ctx, snap.engine
        h, w = ctx.shape
        rows_, cols = np.divmod(np.arange(h * w), w)
        conf = getattr(eng, "confidence", None)
        header = ["row", "column", "cluster"] + (["confidence"] if conf is not None else [])
        out = []
        for i in range(h * w):
            r = [int(rows_[i]), int(cols[i]), int(eng.labels[i]) + 1]
            if conf is not None:
                r.append(float(conf[i]))
            out.append(r)
        return header, out
