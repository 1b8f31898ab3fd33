"""The hidden Markov model lab: filtering roll by roll, smoothing and Viterbi with their error
rates, the trellis window, Baum-Welch views, the letter model, the editable model (bad
matrices give a message and keep the edits), sessions and the maths text."""

import re
from pathlib import Path

import numpy as np
import pytest
from PySide6 import QtGui

from app import registry
from app.labs.hmm.lab import roll_height
from app.labs.hmm.maths import status_text
from smlengine.datasets import dishonest_casino
from smlengine.hmm import CategoricalHMM
from app.lessons.format import load_lesson
from app.testing import drawn, run_to

LESSON = Path(__file__).resolve().parents[2] / "resources" / "lessons" / "hmm.smllesson"


@pytest.fixture
def hmm_window(make_window, monkeypatch):
    infos = registry.discover()
    if not any(i.id == "hmm" for i in infos):  # while the lab is developed under a private name
        from importlib import import_module

        meta = import_module("app.labs._hmm").META
        monkeypatch.setattr(registry, "_cache", infos + [registry.LabInfo("app.labs._hmm", meta)])
    return make_window(lab_ids=["hmm"])


def _lab(qtbot, window, steps=0):
    lab = window.show_lab("hmm")
    qtbot.waitUntil(lambda: lab.runner.current is not None or lab.error_text, timeout=30_000)
    if steps:
        run_to(lab, steps)
    return lab


def test_filtering_roll_by_roll_draws_the_forward_probabilities(qtbot, hmm_window):
    lab = _lab(qtbot, hmm_window, 120)
    snap = lab.runner.current
    data = snap.data
    assert snap.stage == "filter" and snap.t == 120 and data.T == 300
    # the data are the casino's draw of this seed
    x, z = dishonest_casino().sample(2000, random_state=0)
    np.testing.assert_array_equal(data.x, x[:300])
    np.testing.assert_array_equal(data.z, z[:300])
    # the filtered curve is P(loaded | x_1..x_t) of the engine, t = 1..120
    np.testing.assert_array_equal(lab.filter_curve.x, np.arange(1, 121))
    np.testing.assert_allclose(lab.filter_curve.y, dishonest_casino().filter(x[:120])[:, 1], atol=1e-12)
    np.testing.assert_allclose(snap.alpha, dishonest_casino().filter(x[:120])[-1], atol=1e-12)
    # rolls shown up to t, the true die under them, faces on the strip
    rx, ry = lab.rolls_scatter.getData()
    np.testing.assert_array_equal(rx, np.arange(1, 121))
    np.testing.assert_allclose(ry, roll_height(x[:120], 6))
    assert ry.min() > 1.0  # above the probabilities
    np.testing.assert_array_equal(lab.rolls_band.states, z[:120])
    assert sum(lab.strip.text().count(g) for g in "⚀⚁⚂⚃⚄⚅") >= 5
    assert lab.smooth_curve.n == 0 and "Read 120 of 300" in lab.error_label.text()
    # step back rewinds the curve to t = 119
    lab.step_back()
    qtbot.waitUntil(lambda: lab.runner.current.t == 119)
    lab.runner.flush()
    assert lab.filter_curve.n == 119
    np.testing.assert_allclose(lab.filter_curve.y, dishonest_casino().filter(x[:119])[:, 1], atol=1e-12)


def test_smoothing_and_viterbi_after_the_last_roll(qtbot, hmm_window):
    lab = _lab(qtbot, hmm_window, 301)
    snap = lab.runner.current
    data = snap.data
    assert snap.stage == "decode"
    model = dishonest_casino()
    np.testing.assert_allclose(lab.smooth_curve.y, model.smooth(data.x)[:, 1], atol=1e-12)
    _, path = model.viterbi(data.x)
    np.testing.assert_array_equal(lab.viterbi_band.states, path)
    errors = {
        "filtering": np.mean(model.filter(data.x).argmax(1) != data.z),
        "smoothing": np.mean(model.smooth(data.x).argmax(1) != data.z),
        "Viterbi": np.mean(path != data.z),
    }
    text = lab.error_label.text()
    for name, value in errors.items():
        assert f"{name} {100 * value:.1f} %" in text
    # the lesson of the default: reading the rolls after t finds the dice better than filtering
    assert errors["smoothing"] < errors["filtering"]
    assert "smoothing" in lab.maths.toPlainText() and "%" in lab.maths.toPlainText()


def test_trellis_fills_then_lights_the_back_tracked_path(qtbot, hmm_window):
    lab = _lab(qtbot, hmm_window, 301 + 40)
    data = lab.runner.current.data
    snap = lab.runner.current
    assert snap.stage == "trellis" and snap.t == 39
    nx, ny = lab.trellis_nodes.getData()
    np.testing.assert_array_equal(np.unique(nx), np.arange(21, 41))  # the last 20 columns filled
    assert len(lab.trellis_path.getData()[0]) == 0  # no path before the back-track
    run_to(lab, 301 + 301)
    snap = lab.runner.current
    assert snap.stage == "trellis" and snap.t == data.T and snap.phase == "Viterbi back-track"
    lo = lab.window_box.value() - 1
    px, py = lab.trellis_path.getData()
    np.testing.assert_array_equal(px, np.arange(lo + 1, lo + 21))
    np.testing.assert_array_equal(py, dishonest_casino().viterbi(data.x)[1][lo:lo + 20])
    # every drawn edge is the best incoming edge psi_t(k) -> k
    ex, ey = lab.trellis_edges.getData()
    for t0, k0, t1, k1 in zip(ex[::2], ey[::2], ex[1::2], ey[1::2]):
        assert t1 == t0 + 1 and data.psi[int(t1) - 1, int(k1)] == k0
    # node size grows with delta within a column
    sizes = lab.trellis_nodes.data["size"]
    col = data.log_delta[lo]
    assert (sizes[0] > sizes[1]) == (col[0] > col[1])
    lab.window_box.setValue(5)
    px, _ = lab.trellis_path.getData()
    assert px[0] == 5


def test_baum_welch_heat_maps_and_monotone_curve(qtbot, hmm_window):
    lab = _lab(qtbot, hmm_window)
    lab.form.set_value("n_steps", 50)
    lab.form.set_value("n_train", 500)
    lab.form.set_value("restarts", 2)
    lab.form.set_value("max_iter", 20)
    qtbot.waitUntil(lambda: lab.runner.current is not None and lab.runner.current.data.T == 50, timeout=30_000)
    run_to(lab, 10_000)
    snap = lab.runner.current
    assert snap.stage == "learn" and snap.restart == 1 and snap.bw.converged
    # the learned matrices in the true states' order (the best of both orders), beside the truth
    perm, off_A, off_B = _matched(snap.bw)
    np.testing.assert_allclose(lab.A_learned.values, snap.bw.transmat[np.ix_(perm, perm)])
    np.testing.assert_allclose(lab.B_learned.values, snap.bw.emissionprob[perm])
    np.testing.assert_allclose(lab.A_true.values, dishonest_casino().transmat)
    assert set(lab.ll_panel.series) == {"restart 1", "restart 2", "true model"}
    for name in ("restart 1", "restart 2"):
        assert np.all(np.diff(lab.ll_panel.series[name].y) >= -1e-9)
    np.testing.assert_allclose(lab.ll_panel.series["true model"].y, dishonest_casino().score(snap.data.x_train))
    # the same learner outside the lab
    ref = CategoricalHMM(2, 6, tol=1e-6, max_iter=20, random_state=1).fit(snap.data.x_train)
    np.testing.assert_allclose(snap.bw.transmat, ref.transmat_, atol=1e-12)
    caption = _plain(lab.learn_label.text())
    assert f"Restart 2/2, iteration 20: {status_text(snap.learn)}." in caption  # "<" and all, as text
    assert f"A {off_A:.2f}, B {off_B:.2f}" in caption and f"A {off_A:.2f}, B {off_B:.2f}" in lab.maths.toPlainText()
    first = lab.ll_panel.series["restart 1"].y[-1]
    assert f"Earlier: 1: {first:.2f}".replace("-", "−") in caption
    assert "Baum" in lab.maths.toPlainText()
    # the log-likelihood axis shows the restarts from iteration 1 on and the truth, not the random starts
    lo, hi = lab.ll_panel.plot_item.getViewBox().viewRange()[1]
    shown = [lab.ll_panel.series[n].y[1:] for n in ("restart 1", "restart 2")] + [[snap.data.log_likelihood_train]]
    assert lo <= min(map(np.min, shown)) and hi >= max(map(np.max, shown))
    assert lab.ll_panel.series["restart 1"].y[0] < lo  # the random start lies below


def _plain(rich: str) -> str:
    """A label's rich text as Qt shows it (a stray "<" starts a tag and swallows what follows)."""
    doc = QtGui.QTextDocument()
    doc.setHtml(rich)
    return " ".join(doc.toPlainText().replace("\xa0", " ").split())


def _matched(bw, truth=None):
    """The learned states' order closest to the truth, and the largest difference of one probability
    in A and in B (brute force over both orders of two states)."""
    truth = truth or dishonest_casino()
    best = None
    for perm in ([0, 1], [1, 0]):
        off_A = np.abs(bw.transmat[np.ix_(perm, perm)] - truth.transmat).max()
        off_B = np.abs(bw.emissionprob[perm] - truth.emissionprob).max()
        if best is None or max(off_A, off_B) < max(best[1], best[2]):
            best = (perm, off_A, off_B)
    return best


def _numbers(text: str) -> list[str]:
    return re.findall(r"[−-]?\d[\d,]*(?:\.\d+)?", text)


def _value(number: str) -> float:
    return float(number.replace("−", "-").replace(",", ""))


def _decimals(number: str) -> int:
    return len(number.split(".")[1]) if "." in number else 0


@pytest.mark.slow  # the default run to its end: 859 Baum–Welch iterations on 2,000 rolls
def test_default_learning_tells_the_lessons_story(qtbot, hmm_window):
    """At the lesson's defaults, run to the end: every number an answer of the shipped lesson quotes
    is on the screen at that step's reveal (caption, notes, maths panel, parameters), the caption
    and the maths panel say the same about where each restart stopped, and the distance to the
    truth on screen is the best matching's."""
    lesson = load_lesson(LESSON)
    lab = _lab(qtbot, hmm_window)
    lab.plots.setCurrentIndex(2)  # Learning
    last = run_to(lab, 10**6, timeout=600)  # a guard for a busy machine
    assert lab.runner.finished and last.stage == "learn"
    snaps = list(lab.runner.timeline)
    index = {s.step: i for i, s in enumerate(snaps)}

    def show(step):
        lab.runner.seek(index[step])
        return drawn(lab)

    def screen() -> str:
        form = " ".join(str(lab.form.value(n)) for n in lab.form.params)
        texts = (lab.learn_label.text(), lab.error_label.text(), lab.trellis_label.text())
        return " ".join(_plain(t) for t in texts) + " " + lab.maths.toPlainText() + " " + form

    for i, step in enumerate(lesson.steps):
        start = step.state["step"]
        until = step.reveal.until
        if until is None:
            end = step.reveal.run_to
        elif until.finished:
            end = last.step
        else:
            end = next(s.step for s in snaps if s.step > start and until.met(lab.lesson_values(s), False))
        shown = show(end)
        numbers = [(float(_value(n)), _decimals(n)) for n in _numbers(screen())]
        for quoted in _numbers(step.answer):
            want, d = _value(quoted), _decimals(quoted)
            assert any(round(v, d) == round(want, d) for v, _ in numbers), \
                f"step {i + 1}'s answer quotes {quoted}; the screen at step {shown.step} does not show it"
    # each restart's end: the caption and the maths panel agree on how it stopped
    ends = {s.restart: s for s in snaps if s.stage == "learn" and s.bw.converged}
    assert len(ends) == 3
    truth = dishonest_casino()
    verdicts = set()
    for r, end in ends.items():
        show(end.step)
        caption, maths = _plain(lab.learn_label.text()), lab.maths.toPlainText()
        gain = end.bw.log_likelihood - snaps[index[end.step] - 1].bw.log_likelihood
        climbing = gain >= 1e-6
        for text in (caption, maths):
            assert ("still climbing" in text) == climbing and ("converged" in text) == (not climbing), (r, text)
            assert status_text(end.learn) in text
        perm, off_A, off_B = _matched(end.bw, truth)
        for text in (caption, maths):
            assert f"A {off_A:.2f}, B {off_B:.2f}" in text
            assert f"true model {truth.score(end.data.x_train):.2f}".replace("-", "−") in text
            assert f"log P(x) {end.bw.log_likelihood:.2f}".replace("-", "−") in text
        found = max(off_A, off_B) <= 0.1
        verdicts.add(("climbing" if climbing else "converged", found))
        assert ("the truth found" in caption) == found
    # the default shows both: starts still climbing far from the truth, and one that found it
    assert verdicts == {("climbing", False), ("converged", True)}


def test_letter_model_separates_vowels(qtbot, hmm_window):
    lab = _lab(qtbot, hmm_window)
    lab.form.set_value("preset", "letters")
    qtbot.waitUntil(lambda: lab.runner.current is not None and lab.runner.current.data.preset == "letters",
                    timeout=60_000)
    run_to(lab, 301)
    data = lab.runner.current.data
    assert data.M == 26 and data.state_names[0] == "vowel"
    vowels = [ord(v) - ord("a") for v in "aeiou"]
    assert data.B[0, vowels].sum() > 0.6 and data.B[1, vowels].sum() < 0.1
    assert data.errors["smoothing"] < 0.2
    assert any(c in lab.strip.text() for c in "aeiou")
    assert lab.error_text == ""
    assert data.T == lab.form.value("n_steps") == 80  # the letters' own default length
    lab.form.set_value("preset", "casino")
    assert lab.form.value("n_steps") == 300


def test_edited_model_with_bad_rows_shows_a_message_and_keeps_the_edits(qtbot, hmm_window):
    lab = _lab(qtbot, hmm_window)
    lab.form.set_value("preset", "custom")
    assert lab.editor_box.isVisibleTo(lab)
    spin = lab.editors[("transmat", 0, 1)]  # A[fair -> loaded]
    spin.setValue(0.3)  # the fair row now sums to 1.25
    qtbot.waitUntil(lambda: "sum to 1" in lab.error_text, timeout=10_000)
    assert "transmat" in lab.error_text and "row 0" in lab.error_text
    assert lab.matrices["transmat"][0] == [0.95, 0.3] and spin.value() == 0.3  # nothing lost
    lab.normalise()
    qtbot.waitUntil(lambda: lab.runner.current is not None and lab.error_text == "", timeout=30_000)
    A = np.asarray(lab.runner.current.data.A)
    np.testing.assert_allclose(A[0], [0.95 / 1.25, 0.3 / 1.25])
    # the sliders keep their rows summing to one
    slider = lab.sliders["loaded_six"][0]
    slider.setValue(700)
    qtbot.waitUntil(lambda: lab.runner.current is not None and lab.runner.current.data.B[1, 5] == 0.7, timeout=30_000)
    np.testing.assert_allclose(lab.runner.current.data.B[1], [0.06] * 5 + [0.7])
    assert lab.editors[("emissionprob", 1, 5)].value() == 0.7
    lab.sliders["fair_to_loaded"][0].setValue(200)
    qtbot.waitUntil(lambda: lab.runner.current is not None and lab.runner.current.data.A[0, 1] == 0.2, timeout=30_000)
    np.testing.assert_allclose(lab.runner.current.data.A[0], [0.8, 0.2])
    lab.sliders["fair_to_loaded"][0].setValue(240)
    qtbot.waitUntil(lambda: lab.runner.current is not None and lab.runner.current.data.A[0, 1] == 0.24, timeout=30_000)
    # sessions keep the edited matrices; a malformed one is refused
    saved = lab.user_data()
    lab.set_matrices({"startprob": [0.5, 0.5], "transmat": [[0.5, 0.5], [0.5, 0.5]],
                      "emissionprob": [[1 / 6] * 6, [1 / 6] * 6]})
    lab.set_user_data(saved)
    np.testing.assert_allclose(lab.matrices["transmat"][0], [0.76, 0.24])
    for bad in ({"matrices": [1, 2]}, {"matrices": {"startprob": [0.5], "transmat": [[1, 0], [0, 1]],
                                                      "emissionprob": [[1 / 6] * 6] * 2}}):
        with pytest.raises(ValueError):
            lab.set_user_data(bad)
    np.testing.assert_allclose(lab.matrices["transmat"][0], [0.76, 0.24])


def test_maths_panel_writes_the_forward_step(qtbot, hmm_window):
    lab = _lab(qtbot, hmm_window, 5)
    snap = lab.runner.current
    text = lab.maths.toPlainText()
    assert "forward" in text and f"{snap.scale:.4g}" in text
    assert f"{snap.log_likelihood:.6g}" in text


def test_export_rows(qtbot, hmm_window):
    lab = _lab(qtbot, hmm_window, 3)
    header, rows = lab.export_rows()
    assert header[0] == "t" and len(rows) == 300
    assert rows[0][2] in ("fair", "loaded")
