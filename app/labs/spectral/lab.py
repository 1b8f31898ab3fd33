"""The spectral methods lab: Fisher's direction against PCA's, spectral clustering where k-means fails,
kernel PCA of the rings and CCA of two sensors. Each tab is one method: choosing a tab (or the
Method parameter) starts that method's run."""

from __future__ import annotations

from typing import Callable, Iterator

from PySide6 import QtCore, QtWidgets

from ...lab import Lab
from ...widgets.params import Param
from . import maths, run
from .run import SpectralCCASnapshot, SpectralClusteringSnapshot, SpectralFisherSnapshot, SpectralKernelSnapshot
from .views import CCAPage, ClusterPage, FisherPage, KernelPage, tab_widget

TAB_OF_METHOD = {"fisher": 0, "spectral": 1, "kpca": 2, "cca": 3}
METHOD_OF_TAB = {v: k for k, v in TAB_OF_METHOD.items()}


def _for(*methods: str):
    return lambda v: v["method"] in methods


class SpectralLab(Lab):
    id = "spectral"
    title = "Spectral methods"
    order = 125
    description = ("Fisher's discriminant against PCA, spectral clustering of moons and rings that defeat "
                   "centroids, kernel PCA of the rings and CCA of two noisy sensors.")
    chapter = "Dimensionality reduction"
    summary = "Fisher's direction vs PCA's, spectral clustering of moons and rings, kernel PCA, CCA."
    keywords = ("spectral clustering", "Fisher", "LDA", "linear discriminant", "Rayleigh quotient", "scatter matrix",
                "normalised cut", "ratio cut", "min-cut", "graph Laplacian", "affinity", "eigengap", "k-NN graph",
                "kernel PCA", "CCA", "canonical correlation", "principal angles", "moons", "rings", "γ", "gamma")
    screenshot_steps = 30

    def init_state(self) -> None:
        self._syncing = False
        self.fisher_classes: list | None = None  # rows (x, y, stretch, tilt°) of dragged classes; None: the sliders'

    def parameter_specs(self):
        return [
            Param("method", "Method", "choice", "fisher", choices=run.METHODS,
                  tooltip="Which method runs (each has its own tab)"),
            Param("n_points", "Points", "int", 300, minimum=20, maximum=1000, step=20, tooltip="Points sampled"),
            Param("n_classes", "Classes", "int", 2, minimum=2, maximum=3, visible_when=_for("fisher")),
            Param("stretch", "Stretch", "float", 3.0, minimum=0.5, maximum=6.0, step=0.25, decimals=2,
                  tooltip="Spread of every class along its long axis (puts the dragged classes back in a row; "
                          "drag a class's ■ to stretch that one)", visible_when=_for("fisher")),
            Param("tilt", "Tilt", "float", 20.0, minimum=0.0, maximum=90.0, step=5.0, decimals=0, suffix="°",
                  tooltip="Rotation of the classes' long axis (puts the dragged classes back in a row; "
                          "drag a class's ■ to turn that one)", visible_when=_for("fisher")),
            Param("dataset", "Data", "choice", "moons", choices=run.DATASETS, visible_when=_for("spectral")),
            Param("kpca_data", "Data", "choice", "circles", choices=run.DATASETS[:2], visible_when=_for("kpca")),
            Param("noise", "Noise", "float", 0.06, minimum=0.0, maximum=1.0, step=0.02, decimals=2,
                  visible_when=_for("spectral", "kpca", "cca"), tooltip="Noise of the sample"),
            Param("k", "Clusters k", "int", 2, minimum=2, maximum=6, visible_when=_for("spectral")),
            Param("affinity", "Graph", "choice", "rbf", choices=run.AFFINITIES, visible_when=_for("spectral")),
            Param("gamma", "γ", "log", 30.0, minimum=0.1, maximum=1000.0, decimals=2,
                  tooltip="W_ij = exp(−γ‖x_i − x_j‖²): large γ breaks the graph apart",
                  visible_when=lambda v: v["method"] == "spectral" and v["affinity"] == "rbf"),
            Param("n_neighbors", "Neighbours", "int", 8, minimum=1, maximum=50,
                  tooltip="Each point's k nearest neighbours are joined",
                  visible_when=lambda v: v["method"] == "spectral" and v["affinity"] == "knn"),
            Param("normalized", "Normalised cut", "bool", True, visible_when=_for("spectral"),
                  tooltip="L = I − D^−½WD^−½ (normalised cut); off: L = D − W (ratio cut)"),
            Param("kernel", "Kernel", "choice", "rbf", choices=run.KERNELS, visible_when=_for("kpca")),
            Param("kpca_gamma", "Kernel γ", "log", 10.0, minimum=0.01, maximum=100.0, decimals=2,
                  visible_when=_for("kpca")),
            Param("degree", "Degree", "int", 2, minimum=1, maximum=6, visible_when=_for("kpca")),
        ]

    def build_controls(self, layout: QtWidgets.QVBoxLayout) -> None:
        self.reset_classes_button = QtWidgets.QPushButton("Reset the classes")
        self.reset_classes_button.setToolTip("Put the dragged classes back in a row, shaped by Stretch and Tilt")
        self.reset_classes_button.clicked.connect(self.reset_classes)
        layout.addWidget(self.reset_classes_button)

    def build_plots(self) -> QtWidgets.QWidget:
        self.fisher, self.cluster, self.kernel, self.cca = (FisherPage(self._classes_moved, self._turned_by_hand),
                                                            ClusterPage(), KernelPage(), CCAPage())
        self.tabs = tab_widget([(self.fisher, "Fisher vs PCA"), (self.cluster, "Spectral clustering"),
                                (self.kernel, "Kernel PCA"), (self.cca, "CCA")])
        return self.tabs

    def after_build(self) -> None:
        self._show_tab_of(self.form.value("method"))
        # connected only now: the base puts the pages in scroll areas after build_plots
        self.tabs.currentChanged.connect(self._tab_changed)

    # ------------------------------------------------------------------ tabs and parameters
    def _show_tab_of(self, method: str) -> None:
        self.reset_classes_button.setVisible(method == "fisher")
        if METHOD_OF_TAB.get(self.tabs.currentIndex()) == method:
            return
        self._syncing = True
        try:
            self.tabs.setCurrentIndex(TAB_OF_METHOD[method])
        finally:
            self._syncing = False

    def _tab_changed(self, index: int) -> None:
        if self._syncing:
            return
        method = METHOD_OF_TAB.get(index, "fisher")
        if method != self.form.value("method"):
            self.form.set_value("method", method)
            self.form.update_visibility()
            self.reset_classes_button.setVisible(method == "fisher")
            self.reset()

    def on_param_changed(self, name: str) -> None:
        if name == "method":
            self._show_tab_of(self.form.value("method"))
        if name in ("n_classes", "stretch", "tilt"):
            self.reset_classes()  # the classes in a row again, shaped by the sliders
            return
        self.reset()

    # ------------------------------------------------------------------ the dragged Fisher classes
    def reset_classes(self) -> None:
        """The Fisher classes back in a row, shaped by the Stretch and Tilt sliders; the view fits them."""
        self.fisher_classes = None
        self.fisher.plane.plot_item.getViewBox().enableAutoRange()
        self.reset()

    def _classes_moved(self, classes) -> None:
        try:
            self.fisher_classes = run.check_classes(classes).tolist()
        except ValueError as exc:
            self.show_error(str(exc))
            return
        QtCore.QTimer.singleShot(0, self.reset)  # after the drag's own event has finished

    def _turned_by_hand(self, angle: float) -> None:
        """The direction θ turned by hand: show the step of the sweep at that angle (computed if need be)."""
        step = int(round(angle / run.ANGLE_STEP)) % (180 // run.ANGLE_STEP + 1)
        last = self.runner.timeline.last
        if last is None or not isinstance(last, SpectralFisherSnapshot):
            return
        if step <= last.step:
            self.runner.seek(step)
        else:
            self.run_to(step)

    def user_data(self) -> dict:
        return {} if self.fisher_classes is None else {"fisher_classes": self.fisher_classes}

    def set_user_data(self, data: dict) -> None:
        classes = data.get("fisher_classes")  # a run uses them while their number is the Classes parameter's
        self.fisher_classes = None if classes is None else run.check_classes(classes).tolist()

    def after_params_restored(self) -> None:
        self._show_tab_of(self.form.value("method"))

    def make_run(self, params: dict, seed: int) -> Callable[[], Iterator]:
        method = params["method"]
        p = dict(params)
        if method == "kpca":
            p["gamma"] = p["kpca_gamma"]
        if method == "fisher" and self.fisher_classes is not None:
            if len(self.fisher_classes) == int(p["n_classes"]):
                p["classes"] = [list(row) for row in self.fisher_classes]
            else:
                self.fisher_classes = None
        if method == "spectral" and int(p["k"]) > int(p["n_points"]):
            raise ValueError(f"Clusters k = {p['k']} needs at least as many points")
        return lambda: run.run_steps(method, p, seed)

    # ------------------------------------------------------------------ drawing
    def show_idle(self) -> None:
        for page in (self.fisher, self.cluster, self.kernel, self.cca):
            page.clear()

    def render(self, snapshot, prepared, history) -> None:
        if isinstance(snapshot, SpectralFisherSnapshot):
            self.fisher.render(snapshot)
        elif isinstance(snapshot, SpectralClusteringSnapshot):
            self.cluster.render(snapshot)
        elif isinstance(snapshot, SpectralKernelSnapshot):
            self.kernel.render(snapshot)
        elif isinstance(snapshot, SpectralCCASnapshot):
            self.cca.render(snapshot)

    def apply_style(self, s) -> None:
        self.cluster.apply_style(s)

    def main_plot(self):
        return (self.fisher.plane, self.cluster.graph, self.kernel.data, self.cca.view_x)[self.tabs.currentIndex()]

    def maths_html(self, snapshot) -> str:
        return maths.maths_html(snapshot)
