"""The n-gram lab: streamed text, next-token bars, verbatim tint, files, perplexity, styles."""

import math

import numpy as np
import pytest

from app import style as theme
from smlengine.datasets import load_play
from smlengine.ngram import NGramModel, tokenize
from app.testing import finish
from app.widgets import plot_style

PLAY = "Macbeth"


@pytest.fixture(scope="module")
def play_words():
    return tokenize(load_play(PLAY), level="word")


def _lab(qtbot, make_window, **params):
    window = make_window(lab_ids=["ngrams"])
    lab = window.show_lab("ngrams")
    qtbot.waitUntil(lambda: lab.runner.current is not None or lab.runner.error is not None, timeout=30_000)
    values = {"corpus": f"play:{PLAY}"}
    values.update(params)
    lab.form.set_values(values)
    lab.runbar.speed.setCurrentIndex(lab.runbar.speed.count() - 1)  # as fast as possible
    return window, lab


def _run_to_end(qtbot, lab, mode="generate"):
    lab._mode = mode
    lab.run_mode(mode)
    return finish(lab)


def test_streamed_text_equals_engine_generate(qtbot, make_window, play_words):
    window, lab = _lab(qtbot, make_window, n=3, smoothing="mle", length=60)
    lab.set_seed(7)
    last = _run_to_end(qtbot, lab)
    model = NGramModel(n=3, smoothing="mle").fit(play_words)
    expected = model.generate(60, random_state=7, level="word")
    assert last.kind == "token" and last.index == 59
    assert lab.generated_text() == expected
    shown = lab.text_view.toPlainText().replace("\u2028", "\n").replace("\u00a0", " ")
    if last.token == "</s>":  # the current line end is shown as a highlighted ¶
        expected = expected[:-1] + "¶\n"
    assert shown.strip() == expected.strip()
    # steps are consecutive, the fit progress comes first
    steps = [s.step for s in lab.runner.timeline]
    assert steps == list(range(len(steps)))
    assert lab.runner.timeline[0].kind == "progress"

    # the bars are the top-15 probabilities of the snapshot shown, the sampled one highlighted
    opts = lab.bars.opts
    shown_probs = last.top_probs[last.top_probs > 0]  # zero-probability entries get no bar
    np.testing.assert_allclose(opts["width"], shown_probs)
    assert len(opts["y"]) == len(shown_probs) <= 15
    if last.sampled_rank >= 0:
        colours = [b.color().name() for b in opts["brushes"]]
        assert colours[last.sampled_rank] == theme.NEG_COLOR.lower()
        assert colours.count(theme.NEG_COLOR.lower()) == 1
    assert "sampled" in lab.context_label.text()

    # step back: bars and text follow the older snapshot
    lab.step_back()
    prev = lab.runner.current
    np.testing.assert_allclose(lab.bars.opts["width"], prev.top_probs[prev.top_probs > 0])
    assert lab.generated_text() == expected[: len(lab.generated_text())]
    # maths: the MLE probability with its counts
    text = lab.maths.toPlainText()
    assert f"c(h w) = {prev.count_hw:,}" in text
    if prev.count_h:
        assert f"{prev.count_hw:,} / {prev.count_h:,}" in text
        assert math.isclose(prev.count_hw / prev.count_h, prev.probability, rel_tol=1e-9)


    header, rows = lab.export_rows()
    assert header[:3] == ["index", "token", "probability"] and len(rows) == 59


def test_verbatim_tint_for_4gram_mle(qtbot, make_window):
    window, lab = _lab(qtbot, make_window, n=4, smoothing="mle", length=80)
    last = _run_to_end(qtbot, lab)
    toks = [h for h in lab.runner.history() if h.kind == "token"]
    mask = lab.verbatim_mask(toks)
    assert last.longest_span >= 5 and mask.any()
    assert "#cfe8f7" in lab.text_view.toHtml().lower()
    assert "verbatim" in lab.legend_label.text()


def test_laplace_and_kneser_ney_maths(qtbot, make_window):
    window, lab = _lab(qtbot, make_window, n=2, smoothing="laplace", k=0.5, length=5)
    last = _run_to_end(qtbot, lab)
    denominator = last.count_h + 0.5 * last.vocab_size
    # the lab draws without <UNK>: the Laplace estimate renormalised over the other tokens
    assert math.isclose((last.count_hw + 0.5) / (denominator - 0.5), last.probability, rel_tol=1e-9)
    assert f"= {(last.count_hw + 0.5) / denominator:.4f}" in lab.maths.toPlainText()
    lab.form.set_value("smoothing", "kneser-ney")
    last = _run_to_end(qtbot, lab)
    assert "D·N" in lab.maths.toPlainText().replace(" ", "") or "weight of P(w | h′)" in lab.maths.toPlainText()


@pytest.mark.parametrize("content, words", [(b"", "empty"), (b"\x00\x01\x02binary\x00" * 50, "binary"),
                                            (b"caf\xe9 au lait\n" * 3, "UTF-8")])
def test_bad_files_show_a_message(qtbot, make_window, tmp_path, content, words):
    window, lab = _lab(qtbot, make_window)
    path = tmp_path / "bad.txt"
    path.write_bytes(content)
    before = (lab.params(), lab.user_data(), lab.file_label.text())
    assert lab.open_file(str(path), wait=True) is False
    assert words in lab.error_text
    assert (lab.params(), lab.user_data(), lab.file_label.text()) == before  # read first: nothing changed
    # the lab keeps working on its corpus: the next run clears the message
    assert lab.runner.error is None
    lab.start()
    qtbot.waitUntil(lambda: lab.runner.current is not None and lab.runner.error is None, timeout=10_000)
    assert lab.error_text == ""


def test_open_good_file_and_session(qtbot, make_window, tmp_path):
    window, lab = _lab(qtbot, make_window, n=2, length=20)
    path = tmp_path / "poem.txt"
    path.write_text("the cat sat on the mat\nthe dog sat on the log\n" * 20, encoding="utf-8")
    assert lab.open_file(str(path), wait=True) is True
    assert lab.params()["corpus"] == "file"
    last = _run_to_end(qtbot, lab)
    assert last.kind == "token" and set(lab.generated_text().split()) <= {"the", "cat", "sat", "on", "mat", "dog",
                                                                          "log"}
    session = tmp_path / "s.json"
    assert window.save_session(str(session), lab)
    other = make_window(lab_ids=["ngrams"])
    lab2 = other.open_session(str(session))
    assert lab2 is not None
    assert lab2.user_data()["file"] == str(path) and lab2.params()["n"] == 2 and lab2.params()["corpus"] == "file"
    qtbot.waitUntil(lambda: lab2.runner.current is not None, timeout=10_000)
    csv_path = tmp_path / "tokens.csv"
    lab.export_csv(str(csv_path))
    rows = csv_path.read_text(encoding="utf-8").splitlines()
    assert rows[0].startswith("index,token,probability") and len(rows) == 21
    # close the second window first: each window's shutdown waits for every pool thread
    other.shutdown()
    other.close()


def test_no_file_opened_is_explained(qtbot, make_window):
    window, lab = _lab(qtbot, make_window)
    lab.form.set_value("corpus", "file")
    assert "Open text file" in lab.error_text


def test_learning_shakespeare_samples(qtbot, make_window, play_words):
    window, lab = _lab(qtbot, make_window, length=30)
    lab.set_seed(3)
    last = _run_to_end(qtbot, lab, "learning")
    assert lab.tabs.currentIndex() == 1
    assert [s[0] for s in last.samples] == [1, 2, 3, 4]
    for n, text, _span in last.samples:
        assert text == NGramModel(n=n).fit(play_words).generate(30, random_state=3)
        assert lab.sample_views[n].toPlainText().strip()


def test_perplexity_view(qtbot, make_window):
    window, lab = _lab(qtbot, make_window)
    last = _run_to_end(qtbot, lab, "perplexity")
    assert lab.tabs.currentIndex() == 2
    assert len(last.cells) == 15
    x, y = lab.ppl_curves["kneser-ney"].getData()
    assert list(x) == [1, 2, 3, 4, 5] and np.all(np.isfinite(y)) and np.all(y > 1)
    kn = {c[0]: c[2] for c in last.cells if c[1] == "kneser-ney"}
    lap = {c[0]: c[2] for c in last.cells if c[1] == "laplace"}
    assert kn[3] < lap[3]
    mle_inf = [c for c in last.cells if c[1] == "mle" and not math.isfinite(c[2])]
    assert mle_inf and "infinite" in lab.ppl_note.text()
    zx, zy = lab.zipf_curve.getData()
    assert len(zx) == len(last.zipf_rank) > 1000 and np.all(np.diff(zy) <= 0)  # log10 data, decreasing
    assert "bits per word" in lab.entropy_label.text()
    header, rows = lab.export_rows()
    assert header[0] == "N" and len(rows) == 15
    assert lab.main_plot() is lab.ppl_plot


def test_projector_mode_and_dark_theme(qtbot, make_window):
    window, lab = _lab(qtbot, make_window, length=10)
    _run_to_end(qtbot, lab)
    window.set_projector(True)
    window.set_dark(True)
    lab.runner.flush()
    assert lab.error_text == ""
    axis = lab.bar_plot.getPlotItem().getAxis("left")
    assert axis.style["tickFont"].pointSizeF() >= 15
    assert lab.generated_text()
    assert "#1d4a66" in lab.legend_label.text().lower()
    window.set_projector(False)
    window.set_dark(False)


def _expected_marks(toks):
    """Text and per-character marks a full re-render must show (see StreamedText.runs)."""
    from app.labs.ngrams.text_view import CURRENT_LINE_END, verbatim_mask

    mask = verbatim_mask(toks)
    text, marks = [], []
    for t, tinted in zip(toks[:-1], mask):
        text.append(t.piece)
        marks.append("".join("|" if c == "\n" else "t" if tinted else "." for c in t.piece))
    last = toks[-1]
    if last.token == "</s>":
        text.append(CURRENT_LINE_END + "\n")
        marks.append("h|")
    else:
        word = last.piece.lstrip(" ")
        text.append(last.piece)
        marks.append("." * (len(last.piece) - len(word)) + "h" * len(word))
    return "".join(text), "".join(marks)


def test_incremental_text_equals_full_render(qtbot, make_window):
    """The text is appended frame by frame (one token, many tokens, after pauses, after a
    step back); it must equal a document built from scratch from the same tokens."""
    from app.labs.ngrams.text_view import FollowingText, StreamedText

    window, lab = _lab(qtbot, make_window, n=3, smoothing="mle", length=140)
    lab.set_seed(5)
    lab._mode = "generate"
    lab.start()
    r = lab.runner
    retinted = []  # frames in which the tint of already-shown tokens was extended backwards

    def shown():
        return [h for h in r.history() if h.kind == "token"]

    show = lab.text.show

    def spy(toks, s=None):
        before = bytes(lab.text._mask)
        show(toks, s)
        after = lab.text._mask
        if len(after) > len(before) and any(a != b for a, b in zip(before[:-1], after)):
            retinted.append(len(toks))

    lab.text.show = spy

    def frame():
        r.flush()

    def compare():
        toks = shown()
        assert lab._tokens == toks
        incremental = lab.text.runs()
        assert incremental == _expected_marks(toks)
        scratch = StreamedText(FollowingText())
        scratch.show(toks, theme.current())
        assert scratch.runs() == incremental
        assert lab.text_view.toPlainText() == scratch.view.toPlainText()

    lab.run_to(30)  # many tokens in one frame
    qtbot.waitUntil(lambda: r.timeline.last is not None and r.timeline.last.step >= 30 and r.settled, timeout=20_000)
    frame()
    compare()
    for _ in range(40):  # one token per frame
        target = r.timeline.last.step + 1
        lab.step()
        qtbot.waitUntil(lambda: r.timeline.last.step >= target and r.settled, timeout=10_000)
        frame()
    compare()
    lab.play()  # a few tokens per frame, then a pause
    qtbot.waitUntil(lambda: r.timeline.last.step >= 100, timeout=20_000)
    lab.pause()
    qtbot.waitUntil(lambda: r.settled, timeout=10_000)
    frame()
    compare()
    for _ in range(5):  # Back: a rewind rebuilds the text
        lab.step_back()
        frame()
    compare()
    for _ in range(3):  # forward again inside the timeline
        lab.step()
        frame()
    compare()
    lab.play()
    qtbot.waitUntil(lambda: r.finished or r.error is not None, timeout=30_000)
    assert r.error is None
    frame()
    compare()
    assert len(shown()) == 140
    assert retinted, "no frame extended a verbatim tint backwards: the test did not exercise that path"
    assert "t" in lab.text.runs()[1]
    # a theme change rebuilds the text in the new colours, still the same text and marks
    window.set_dark(True)
    r.flush()
    compare()
    assert "#1d4a66" in lab.text_view.toHtml().lower()
    window.set_dark(False)


def test_plots_style_themselves(qtbot, make_window, monkeypatch):
    """The bars, perplexity and Zipf plots are self-styling PlotPanels: the lab's apply_style
    never restyles them by hand, projector mode scales them and back; the token axis stays
    as wide as its labels."""
    from app.widgets.plots import PlotPanel

    window, lab = _lab(qtbot, make_window, length=10)
    _run_to_end(qtbot, lab)
    plots = [lab.bar_plot, lab.ppl_plot, lab.zipf_plot]
    assert all(isinstance(p, PlotPanel) for p in plots)
    def ticks():
        return [p.plot_item.getAxis("left").style["tickFont"].pointSizeF() for p in plots]

    normal = ticks()
    window.set_projector(True)
    lab.runner.flush()
    assert all(b > n for b, n in zip(ticks(), normal))
    assert lab.bar_plot.plot_item.getAxis("left").fixedWidth is None
    window.set_projector(False)
    lab.runner.flush()
    assert ticks() == normal
    calls = []
    monkeypatch.setattr(plot_style, "set_axis_labels", lambda *a, **k: calls.append(a))
    monkeypatch.setattr(plot_style, "style_plot", lambda *a, **k: calls.append(a))
    lab.apply_style(theme.current())
    assert calls == []


def test_generated_text_tab_names_the_run_the_bar_drives(qtbot, make_window):
    """After text was generated, the perplexity run takes the run bar: the "Generated text" tab
    no longer shows the earlier text and token as if they were the run's; it says which run
    plays, and "Generate text" brings text back."""
    window, lab = _lab(qtbot, make_window, length=12)
    _run_to_end(qtbot, lab, "generate")
    assert lab.text_view.toPlainText().strip() and "sampled" in lab.context_label.text()
    _run_to_end(qtbot, lab, "learning")
    assert not lab.text_view.toPlainText().strip()
    assert "sampled" not in lab.context_label.text()
    assert "Learning" in lab.status_label.text() and "Generate text" in lab.status_label.text()
    assert not any(label.toPlainText() for label in lab.bar_labels)
    _run_to_end(qtbot, lab, "generate")
    assert lab.text_view.toPlainText().strip() and "drives" not in lab.status_label.text()


def test_a_frame_is_described_by_its_run_parameters(qtbot, make_window):
    """The text beside a frame (status, maths) names the parameters of the run that made the
    snapshot, not what the lab holds afterwards."""
    window, lab = _lab(qtbot, make_window, n=2, smoothing="laplace", k=0.5, length=5)
    last = _run_to_end(qtbot, lab)
    assert last.params["smoothing"] == "laplace" and last.params["length"] == 5
    lab.run_params = {**lab.run_params, "smoothing": "kneser-ney", "length": 99}
    lab.runner.request_rewind()
    lab.runner.flush()
    assert "add-k (Laplace)" in lab.status_label.text() and "token 5 of 5 " in lab.status_label.text()
    assert "Add-k" in lab.maths_html(last) and "Kneser" not in lab.maths_html(last)


def test_a_file_read_by_the_run_is_read_on_a_tracked_thread(tmp_path):
    """The run reads a file that is not cached yet on a helper thread started by the caller's
    ``start_thread`` (the application's tracked one), and reads it in place without one."""
    from app.labs.ngrams import run
    from app.tasks import start_thread

    started = []

    def tracked(target, name):
        started.append(name)
        return start_thread(target, name)

    params = {"level": "word", "n": 2, "smoothing": "mle", "k": 1.0, "discount": 0.75, "length": 3,
              "temperature": 1.0, "top_k": 0}
    for i, starter in enumerate((tracked, None)):
        path = tmp_path / f"text{i}.txt"
        path.write_text("the cat sat on the mat\n" * 10, encoding="utf-8")
        snaps = list(run.generate_run(params, run.source_key("file", str(path)), 0, start_thread=starter))
        assert [s.token for s in snaps if s.kind == "token"] and all(s.params["n"] == 2 for s in snaps)
    assert started == ["ngrams-read"]
