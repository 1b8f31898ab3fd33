"""A complete minimal lab, written only against the lab contract, proves it end to end:
state, parameters with visible_when, a chained run, incremental curves, a side task,
sessions that never lose work, and a clean shutdown."""

from dataclasses import dataclass

import numpy as np
import pytest

from app.lab import Lab
from app.widgets.params import Param
from app.widgets.plots import PlotPanel
from smlengine import Snapshot
from smlengine.phases import chain_phases


@dataclass(frozen=True, kw_only=True)
class CoinSnapshot(Snapshot):
    mean: float


def flips(p: float, seed: int, n: int):
    rng = np.random.default_rng(seed)
    heads = 0
    for i in range(n):
        heads += rng.random() < p
        yield CoinSnapshot(step=i, mean=heads / (i + 1))


class CoinLab(Lab):  # not registered: the registry only scans app/labs/
    id, title, order, description = "coin", "Coin flips", 999, "The law of large numbers."

    def init_state(self):
        self.marks: list[int] = []  # what a user "made", saved in sessions

    def parameter_specs(self):
        return [Param("p", "P(heads)", "float", 0.5, minimum=0.0, maximum=1.0),
                Param("bias_note", "Note", "bool", False, visible_when=lambda v: v["p"] != 0.5)]

    def build_plots(self):
        self.plot = PlotPanel("Running mean", "flips", "mean")
        self.curve = self.plot.curve("mean")
        return self.plot

    def make_run(self, params, seed):
        p = float(params["p"])
        return lambda: chain_phases(("warm-up", flips(p, seed, 3)), ("main", lambda: flips(p, seed + 1, 50)))

    def render(self, snapshot, prepared, history):
        if history.rewound:
            self.curve.clear()
        self.curve.extend([h.step for h in history.added], [h.mean for h in history.added])

    def user_data(self):
        return {"marks": list(self.marks)}

    def set_user_data(self, data):
        marks = data.get("marks", [])
        if not all(isinstance(m, int) for m in marks):
            raise ValueError("marks must be integers")
        self.marks = list(marks)


def test_the_contract_end_to_end(qtbot):
    lab = CoinLab()
    qtbot.addWidget(lab)
    lab.show()
    assert not lab.form.widgets["bias_note"].isVisibleTo(lab.form)
    lab.form.set_value("p", 0.8)
    lab.form._edited("p")  # as a user edit: the row appears and the run restarts
    assert lab.form.widgets["bias_note"].isVisibleTo(lab.form)
    r = lab.runner
    lab.run_to(20)
    qtbot.waitUntil(lambda: r.timeline.last is not None and r.timeline.last.step == 20)
    r.flush()
    steps = [s.step for s in r.timeline]
    assert steps == list(range(21)) and r.timeline[3].phase == "main"  # chained, renumbered
    assert lab.run_params["p"] == 0.8
    np.testing.assert_array_equal(lab.curve.x, np.arange(21))  # appended frame by frame
    lab.step_back()
    assert lab.curve.n == 20  # a rewind rebuilds the curve up to the snapshot shown

    results = []
    task = lab.task("square", on_done=results.append)
    task.start(lambda x: x * x, 7)
    qtbot.waitUntil(lambda: results == [49])

    lab.marks = [1, 2, 3]
    good = lab.session_state()
    bad = dict(good, user_data={"marks": ["x"]}, parameters={"p": 0.3})
    with pytest.raises(ValueError):
        lab.restore_session(bad)
    assert lab.marks == [1, 2, 3] and lab.params()["p"] == 0.8  # nothing lost
    with pytest.raises(ValueError, match="newer"):
        lab.restore_session(dict(good, version=99))
    lab.restore_session(dict(good, seed=5, step=4))
    qtbot.waitUntil(lambda: r.timeline.last is not None and r.timeline.last.step == 4)
    assert lab.seed == 5
    lab.shutdown()
    lab.close()
