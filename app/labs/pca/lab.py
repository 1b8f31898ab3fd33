"""The PCA lab: eigen-digits found live by the power method with deflation, the mean digit and
the top eigen-digits, compression with d components (reconstructions, storage, error, scree
plot), the scores of the first two components, a canvas to draw a digit (novelty by the
residual) and a race of PCA solvers."""

from __future__ import annotations

import html
import math
import os
from typing import Callable, Iterator

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from ... import style as theme
from ...lab import Lab
from ...widgets.params import Param
from . import maths, run
from .draw_tab import DrawTab, hbox as _hbox
from .race_tab import RaceTab
from .tabs import CompressionTab, PowerTab, ScoresTab
from .views import DIVERGING

TAB_POWER, TAB_COMPRESSION, TAB_SCORES, TAB_DRAW, TAB_RACE = range(5)
#: the Digits box's value while the user's own images are the data (its label names the file)
FILE_CHOICE = "file"


def _or_nan(value) -> float:
    """A snapshot's value for a curve: None (undefined at that step) becomes a break (NaN)."""
    return math.nan if value is None else float(value)


class PCALab(PowerTab, CompressionTab, ScoresTab, DrawTab, RaceTab, Lab):
    id = "pca"
    title = "PCA digit compression"
    order = 40
    description = ("Eigen-digits by the power method with deflation; compression with d components, scree plot, "
                   "scores, novelty of a drawn digit and a race of PCA solvers.")
    chapter = "Dimensionality reduction"
    summary = "Eigen-digits by the power method; handwritten digits compressed to d components."
    keywords = ("PCA", "principal component analysis", "principal components", "eigenvector", "eigenvalue",
                "eigen-digits", "power method", "deflation", "covariance matrix", "SVD", "compression",
                "reconstruction", "scree plot", "explained variance", "scores", "novelty", "handwritten digits",
                "digits", "draw a digit", "tolerance", "dimensionality reduction")
    screenshot_steps = 20
    self_test_steps = 5
    screenshot_tab = TAB_COMPRESSION

    # ------------------------------------------------------------------ building
    def init_state(self) -> None:
        self.open_path = ""          # the user's image folder / .npy / .npz ("" = shipped digits)
        self._digit_before_file = "3"  # the Digits choice to go back to from the user's images
        self.d = 5                   # components of the reconstruction
        self.selected = -1           # index of the digit clicked in the scores plot (-1: none)
        self.drawn: np.ndarray | None = None  # the drawing (fine ink 0..1), or None (blank)
        self.race_rows: list[dict] = []
        self._data: run.PCAData | None = None
        self._found_key = None
        self._lines_key = None
        self._lambda_lines: list[pg.InfiniteLine] = []
        self._scatter_items: list[pg.ScatterPlotItem] = []
        self._curve_component = -1
        self._maths_timer = QtCore.QTimer(self)
        self._maths_timer.setSingleShot(True)
        self._maths_timer.setInterval(60)
        self._maths_timer.timeout.connect(self._update_maths_now)

    def parameter_specs(self):
        return [
            Param("digit", "Digits", "choice", "3", choices=run.DIGIT_CHOICES,
                  tooltip="Which of the 1,797 shipped 8×8 digits to analyse (the course uses the 3s)"),
            Param("n_power", "Power comps.", "int", 6, minimum=1, maximum=256,
                  tooltip="How many eigen-digits the power method finds, one after the other by deflation"),
            Param("tol_exp", "log₁₀ tol.", "int", -8, minimum=-14, maximum=-1,
                  tooltip="Tolerance 10^this: stop a component when ‖v_new − v_old‖ ≤ tolerance"),
            Param("max_iter", "Max iterations", "int", 500, minimum=1, maximum=100000,
                  tooltip="At most this many power iterations per component"),
        ]

    def build_controls(self, layout: QtWidgets.QVBoxLayout) -> None:
        self.open_button = QtWidgets.QPushButton("Open…")
        self.open_button.setToolTip("Analyse your own images: a folder of equally sized grey images, "
                                    "or a .npy/.npz array of shape (n, height, width)")
        self.open_button.clicked.connect(self._open_dialog)
        self.digits_button = QtWidgets.QPushButton("Digits")
        self.digits_button.setToolTip("Back to the shipped 8×8 digits")
        self.digits_button.clicked.connect(self.use_digits)
        row = QtWidgets.QWidget()
        row.setLayout(_hbox(self.open_button, self.digits_button, stretch_last=True))
        layout.addWidget(row)
        self.data_label = QtWidgets.QLabel()
        self.data_label.setWordWrap(True)
        layout.addWidget(self.data_label)
        self._update_data_label()

    def build_plots(self) -> QtWidgets.QWidget:
        self.tabs = QtWidgets.QTabWidget()
        self.tabs.addTab(self._build_power_tab(), "Power method")
        self.tabs.addTab(self._build_compression_tab(), "Compression")
        self.tabs.addTab(self._build_scores_tab(), "Scores")
        self.tabs.addTab(self._build_draw_tab(), "Draw")
        self.tabs.addTab(self._build_race_tab(), "Race")
        self.tabs.setCurrentIndex(self.screenshot_tab)
        return self.tabs

    # ------------------------------------------------------------------ data source
    def _update_data_label(self) -> None:
        self._sync_digit_box()
        if self.open_path:
            self.data_label.setText(f"Data: <b>{html.escape(run.short_name(self.open_path))}</b>")
            self.data_label.setToolTip(self.open_path)
        else:
            self.data_label.setText("Data: shipped 8×8 digits")
            self.data_label.setToolTip("")
        self.digits_button.setEnabled(bool(self.open_path))

    def _sync_digit_box(self) -> None:
        """The Digits box names what is analysed: the opened file (an entry of its own, selected)
        or a class of the shipped digits (the file's entry removed)."""
        form = getattr(self, "form", None)
        if form is None:
            return
        box = form.widgets["digit"]
        idx = box.findData(FILE_CHOICE)
        box.blockSignals(True)
        try:
            if self.open_path:
                label = run.short_name(self.open_path)
                if idx < 0:
                    current = box.currentData()
                    if current != FILE_CHOICE and current is not None:
                        self._digit_before_file = str(current)
                    box.addItem(label, FILE_CHOICE)
                    idx = box.count() - 1
                box.setItemText(idx, label)
                box.setItemData(idx, f"your images: {self.open_path}", QtCore.Qt.ItemDataRole.ToolTipRole)
                box.setCurrentIndex(idx)
            elif idx >= 0:
                if box.currentIndex() == idx:
                    box.setCurrentIndex(max(0, box.findData(self._digit_before_file)))
                box.removeItem(idx)
        finally:
            box.blockSignals(False)
        box.update()

    def after_params_restored(self) -> None:
        self._sync_digit_box()

    def _open_dialog(self) -> None:
        path = self.ask_open_path("Open an image stack (Cancel to choose a folder)",
                                  "Image stacks (*.npy *.npz);;Images (*.png *.jpg *.bmp *.pgm);;All files (*)")
        if not path:
            path = self.ask_open_path("Open a folder of equally sized grey images", folder=True)
        if path:
            self.open_images(path)

    def open_images(self, path: str) -> None:
        """Load a folder / .npy / .npz on a worker; on success it becomes the data, on error
        the banner says why and the current data and run stay as they are."""
        path = str(path)
        self.open_on_worker(run.short_name(path), self.data_label, run.load_data, "3", path,
                            on_opened=lambda _data: self._opened(path), restore=self._update_data_label)

    def _opened(self, path: str) -> None:
        self.open_path = path
        self.selected = -1
        self._update_data_label()
        self.reset()

    def use_digits(self) -> None:
        if self.open_path:
            self.open_path = ""
            self.selected = -1
            self._update_data_label()
            self.reset()

    def on_param_changed(self, name: str) -> None:
        if name == "digit" and self.form.value("digit") != FILE_CHOICE:
            self.open_path = ""
            self.selected = -1
            self._update_data_label()
        self.reset()

    # ------------------------------------------------------------------ running
    def make_run(self, params: dict, seed: int) -> Callable[[], Iterator]:
        digit, path = str(params["digit"]), str(self.open_path)
        if digit == FILE_CHOICE:
            digit = self._digit_before_file
        n_power, tol, max_iter = int(params["n_power"]), 10.0 ** int(params["tol_exp"]), int(params["max_iter"])
        return lambda: run.run_steps(digit, path, n_power, tol, max_iter, seed)

    def show_idle(self) -> None:
        for s in (self.rayleigh_curve, self.angle_curve, self.change_curve, self.predicted_curve):
            s.clear()
        self._curve_component = -1

    def render(self, snapshot, prepared, history) -> None:
        data = snapshot.data
        if data is not self._data:
            self._data = data
            self._draw_static(data)
        self._render_power(snapshot, history)

    def _render_power(self, snap, history) -> None:
        data, p = snap.data, snap
        h, w = data.shape
        v = run.sign_fixed(np.asarray(p.vector))
        m = float(np.max(np.abs(v))) or 1.0
        self.iterate_view.draw("v", v.reshape(h, w), (-m, m), lut=DIVERGING)
        self.iterate_view.fit(w, h)
        self.iterate_view.set_title(f"v → ξ{p.component + 1}, t = {p.n_iter}")
        self._draw_found(p)
        lines_key = (id(data), snap.k)
        if lines_key != self._lines_key:
            self._lines_key = lines_key
            lam = data.eigenvalues[: snap.k]
            self._exact_lambdas = lam
        if history.rewound:
            self.show_idle()
        added = history.added
        if added:
            steps = np.fromiter((a.step for a in added), float, len(added))
            self.rayleigh_curve.extend(steps, [a.rayleigh for a in added])
            # an undefined value (None) is a break in its curve
            self.angle_curve.extend(steps, [_or_nan(a.angle) for a in added])
            self.change_curve.extend(steps, [_or_nan(a.change) for a in added])
            self.predicted_curve.extend(steps, [_or_nan(a.predicted) if a.phase != "deflate" else math.nan
                                                for a in added])
            lam = self._exact_lambdas
            x1 = max(float(steps[-1]), 1.0)
            xs = np.repeat([[0.0, x1]], len(lam), axis=0).ravel()
            ys = np.repeat(lam, 2)
            self.rayleigh_exact_item.setData(xs, ys, connect="pairs")

    # ------------------------------------------------------------------ static views
    def _draw_static(self, data: run.PCAData) -> None:
        K = data.K
        for wdg in (self.d_slider, self.d_box):
            wdg.blockSignals(True)
            wdg.setRange(1, K)
            wdg.setValue(int(min(max(self.d, 1), K)))
            wdg.blockSignals(False)
        self.d = int(min(max(self.d, 1), K))
        self._draw_gallery(data)
        self._draw_scree(data)
        self._draw_scores(data)
        if not (0 <= self.selected < data.n):
            self.selected = -1
        shape, radius, grid = run.drawing_geometry(data)
        drawn = self.drawn if self.drawn is not None and self.drawn.shape == shape else None
        self.canvas.set_canvas(shape, radius, grid, drawn)
        self.drawn = None if drawn is None else self.canvas.ink.copy()
        self.race_rows = []
        self._show_race([])
        self.race_status.setText("")
        self._update_d_views()

    # ------------------------------------------------------------------ the image the maths and the Draw tab use
    def _selected_index(self) -> int:
        data = self._data
        if data is None:
            return -1
        return self.selected if 0 <= self.selected < data.n else int(data.sample[0])

    # ------------------------------------------------------------------ maths
    def _maths_numbers(self):
        data = self._data
        i = self._selected_index()
        if data is None or i < 0:
            return None, ""
        what = f"#{i}" + (f" (a {data.labels[i]})" if data.labels[i] >= 0 else "")
        return data.scores[i, : self.d], what

    def maths_html(self, snapshot) -> str:
        if self._data is None or snapshot.data is not self._data:
            return maths.route_html(snapshot.data) + maths.power_html(snapshot)
        coeffs, what = self._maths_numbers()
        return maths.maths_html(snapshot, self.d, coeffs, what)

    def _update_maths(self) -> None:
        """The maths panel follows the slider a moment later (rich-text layout takes ~10 ms)."""
        self._maths_timer.start()

    def _update_maths_now(self) -> None:
        snap = self.runner.current
        if snap is not None and snap.data is self._data:
            self.maths.set_html(self.maths_html(snap))

    # ------------------------------------------------------------------ style, sessions, export
    def apply_style(self, s: theme.Style) -> None:
        for view in (self.iterate_view, self.found_view, self.gallery, self.recon_view, self.selected_view,
                     self.canvas, self.draw_view):
            view.apply_style(s)
        snap = self.runner.current
        if snap is not None and snap.data is self._data:
            self._found_key = None
            self._draw_found(snap)
        line = QtGui.QFontMetrics(self.novelty_label.font()).lineSpacing()
        self.novelty_label.setMinimumHeight(2 * line + 4)  # it wraps to two lines on a narrow page
        if self._data is not None:
            self._draw_scores(self._data)
            self._update_d_views()

    def main_plot(self):
        return self.scree_panel

    def favour_main_plot(self, s: theme.Style | None = None) -> None:
        """Projector mode arranges the power and compression tabs around strips of large
        eigen-digits (the tabs' ``_arrange_*``) rather than giving the scree plot most of the height."""
        projector = (s or theme.current()).projector
        self._arrange_power(projector)
        self._arrange_compression(projector)
        if self._data is not None:
            self._draw_gallery(self._data)

    def user_data(self) -> dict:
        return {"path": self.open_path, "d": int(self.d), "selected": int(self.selected),
                "drawing": None if self.drawn is None else self.drawn.tolist()}

    def set_user_data(self, data: dict) -> None:
        path = data.get("path", "") or ""
        if not isinstance(path, str):
            raise ValueError("the saved image path must be text")
        if path and not os.path.exists(path):
            raise ValueError(f"the saved images {run.short_name(path)!r} no longer exist")
        d = data.get("d", 5)
        if isinstance(d, bool) or not isinstance(d, (int, float)) or not math.isfinite(d) or d != int(d) or d < 1:
            raise ValueError("the saved number of components d must be a whole number >= 1")
        selected = data.get("selected", -1)
        if isinstance(selected, bool) or not isinstance(selected, int):
            raise ValueError("the saved selected digit must be a whole number")
        drawing = data.get("drawing")
        if drawing is not None:
            try:
                arr = np.asarray(drawing, dtype=float)
            except (TypeError, ValueError):
                raise ValueError("the saved drawing is malformed") from None
            if arr.ndim != 2 or arr.size == 0 or arr.size > 4096 * 4096 or not np.all(np.isfinite(arr)):
                raise ValueError("the saved drawing is malformed")
            drawing = arr
        self.open_path = path
        self.d = int(d)
        self.selected = int(selected)
        self.drawn = drawing
        self._data = None  # redraw the static views (and apply d, the drawing) with the next run
        self._update_data_label()

    def export_rows(self):
        data = self._data
        if data is None:
            return [], []
        header = ["d", "stored numbers", "compression ratio", "training error", "explained variance"]
        rows = []
        for d in range(0, data.K + 1):
            num = run.compression_numbers(data, d)
            rows.append([d, num["stored"], num["ratio"], num["error"], num["explained"]])
        return header, rows

    def shutdown(self) -> None:
        super().shutdown()
