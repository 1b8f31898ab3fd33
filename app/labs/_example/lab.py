"""The example lab: draw points or sample new ones; the run adds one per step to the mean and covariance."""

from __future__ import annotations

import pyqtgraph as pg

from ...points_lab import PointsLab
from ...style import CATEGORICAL
from ...widgets.params import Param
from ...widgets.shapes import ellipse_xy
from . import maths, run


class ExampleLab(PointsLab):
    id = "example"
    title = "Template: mean and covariance"
    order = 999
    description = "The sample mean and covariance of the points, one point at a time."
    chapter = ""  # one of app.registry.CHAPTERS (the template has none: its card comes last)
    summary = "The sample mean and covariance of points, one point at a time."
    keywords = ("mean", "covariance", "template")
    points_kind = "unlabelled"

    def parameter_specs(self):
        return [Param("n_points", "Points", "int", 200, minimum=2, maximum=2000, tooltip="Points sampled")]

    def build_controls(self, layout):
        self.add_data_buttons(layout, load=False)

    def build_plots(self):
        self.make_canvas()
        pen = pg.mkPen(CATEGORICAL[1], width=3)  # Okabe–Ito colours, as every lab
        self.mean_item = pg.ScatterPlotItem(symbol="+", size=20, pen=pen)
        self.ellipse_item = pg.PlotCurveItem(pen=pen, connect="finite")
        self.canvas.plot_item.addItem(self.ellipse_item)
        self.canvas.plot_item.addItem(self.mean_item)
        return self.canvas_with_toolbar()

    def after_build(self):
        self.regenerate(undoable=False, restart=False)

    def sample_points(self):
        return run.sample(self.form.value("n_points"), self.seed), None

    def on_param_changed(self, name):
        self.regenerate()  # the only parameter is the sample's size

    def make_run(self, params, seed):
        X = self.canvas.X.copy()  # plain values only: the run goes on a worker thread
        if len(X) < 2:
            raise ValueError("Draw at least two points (click the plot) or press New data.")
        return lambda: run.run_steps(X)

    def render(self, snapshot, prepared, history):
        self.mean_item.setData([snapshot.mean[0]], [snapshot.mean[1]])
        self.ellipse_item.setData(*ellipse_xy(snapshot.mean, snapshot.cov))

    def maths_html(self, snapshot):
        return maths.maths_html(snapshot)
