"""The k-nearest-neighbours lab: labelled points, the vote's decision map under them, the errors as k grows."""

from ...points_data import LabelledRun
from ...points_lab import PointsLab
from ...widgets.metrics import MetricPanel
from ...widgets.pages import splitter
from ...widgets.params import Param
from . import maths, run


class ExamplePointsLab(PointsLab):
    id = "example_points"
    title = "Template: k nearest neighbours"
    order = 998
    description = "The vote of the k nearest training points, k = 1, 3, 5, ... one per step."
    chapter = "Classification"
    keywords = ("k nearest neighbours", "kNN", "distance", "vote", "template")
    points_kind = "labelled"
    method_param = "metric"  # the choice labelled_run hands to the run as ctx.method

    def parameter_specs(self):
        return [Param("metric", "Distance", "choice", "euclidean", choices=[(m, m.capitalize()) for m in run.P]),
                Param("k_max", "Largest k", "int", 41, minimum=1, maximum=99, step=2, tooltip="The run stops there"),
                *self.data_params("moons", 300, 0.3, 0.3)]  # data set, points, noise, balance, test fraction

    def build_controls(self, layout):
        self.add_data_buttons(layout)  # "New data" and "Load points…"

    def build_plots(self):
        self.make_canvas()
        self.make_decision_map()  # self.decision: the shading of f and the line f = 0 under the points
        self.errors = MetricPanel("Error against k", "k", "error")
        return splitter(True, self.canvas_with_toolbar(), self.errors, sizes=[560, 220], stretch=[3, 1])

    def after_build(self):
        self.regenerate(undoable=False, restart=False)  # the first sample, before the first run

    def on_param_changed(self, name):
        if not self.data_param_changed(name):  # a new sample restarts the run itself
            self.reset()

    def make_run(self, params, seed):
        ctx = self.labelled_run(LabelledRun, params, seed)  # copies of the points and their split
        if len(ctx.y_train) == 0:
            raise ValueError("Every point is a test point: lower the test fraction or draw more points.")
        return lambda: run.run_steps(ctx)

    def prepare(self, snapshot):  # on a worker thread: the map over the box the plot shows
        return run.decision_map(snapshot, self.map_extent.extent)

    def show_idle(self):
        self.decision.set_frame(None)
        self.errors.clear_series()

    def render(self, snapshot, prepared, history):
        if prepared is not None:  # None while this step's map is being computed: keep the last one
            self.decision.set_frame(prepared)
        if history.rewound:
            self.errors.clear_series()
        ks = [s.k for s in history.added]
        self.errors.curve("training").extend(ks, [s.train_error for s in history.added])
        if snapshot.test_error is not None:
            self.errors.curve("test").extend(ks, [s.test_error for s in history.added])

    def apply_style(self, s):
        self.style_canvas(s)  # the points, their axes and the decision map follow the theme

    def maths_html(self, snapshot):
        return maths.maths_html(snapshot)
