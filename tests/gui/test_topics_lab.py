"""The topics lab: the default lesson (topics of the six plays emerge, the log joint climbs and few tokens
still change topic after burn-in), the documents coloured by topic, the bars matched with the truth, and
the maths panel's conditional. One lab serves the whole module."""

import numpy as np
import pytest

from app import style as theme
from app.labs.topics import run
from app.labs.topics.lab import TopicsLab
from app.testing import drawn, finish, run_to, wait_until
from smlengine.topics import LatentDirichletAllocation


@pytest.fixture(scope="module")
def shared(qapp):
    lab = TopicsLab()
    lab.resize(1280, 800)
    lab.show()
    run_to(lab, 1)  # at once: the run sweeps without numba until the lab's side task has compiled the sweep
    yield lab
    lab.shutdown()
    lab.close()
    lab.deleteLater()
    theme.manager().set(theme="light", projector=False)


@pytest.fixture
def lab(shared):
    """The shared lab back at its defaults, a new run at its first step."""
    shared.pause()
    shared.tabs.setCurrentIndex(0)
    shared.form.set_values({name: p.default for name, p in shared.form.params.items()}, quiet=True)
    shared.set_seed(0)
    shared.on_param_changed("corpus")
    wait_until(lambda: shared.runner.current is not None or shared.runner.error is not None, 30)
    yield shared
    shared.pause()
    shared.runner.cancel()


def test_default_teaches_the_lesson(lab):
    """Six topics on passages of six plays: the log joint climbs from the random start, the changed
    fraction falls, and each play's passages gather in one topic or two (its names among the top words)."""
    first = drawn(lab)
    assert first.step == 0 and first.n_topics == 6 and first.changed_fraction == 1.0
    last = finish(lab)
    assert last.sweep == 100 and not last.burning_in
    trace = lab.trace.series["log joint"].y
    assert len(trace) == 101 and trace[-1] > trace[0] + 1000
    changed = lab.changed.series["changed"].y
    assert changed[-1] < 0.5 * changed[1]
    # the top words on screen are the snapshot's, topic by topic
    texts = [item.toPlainText() for item in lab.top_words.words]
    vocab = lab.corpus.vocabulary
    assert texts == [vocab[i] for row in last.top_ids for i in row]
    assert lab.top_words.headers[0].toPlainText() == "Topic 1"
    # the plays lean on different topics, and the topics gather the plays' own names
    titles = np.array(lab.corpus.titles)
    leaning = {title: last.theta[titles == title].mean(axis=0) for title in set(titles)}
    assert len({int(theta.argmax()) for theta in leaning.values()}) >= 3, leaning
    assert {"caesar", "brutus", "romeo", "lysander"} & set(texts)


def test_document_words_take_their_topic_colour(lab):
    lab.tabs.setCurrentIndex(1)
    s = run_to(lab, 3)
    html = lab.doc_text.toHtml()
    word = lab.corpus.vocabulary[s.token_word]
    assert word in html.lower()
    np.testing.assert_allclose(lab.theta_bars.opts["height"], s.theta[s.doc_index])
    xs, ys = lab.map_points.getData()
    assert len(xs) == len(lab.corpus.docs)
    np.testing.assert_allclose(xs, s.doc_map[:, 0], rtol=1e-6)


def test_maths_panel_shows_the_conditional_of_the_highlighted_token(lab):
    s = run_to(lab, 4)
    text = lab.maths_html(s)
    assert "p(z<sub>i</sub> = k" in text and f"Sweep {s.sweep}" in text
    for p in s.conditional:
        assert f"{p:.3f}" in text
    # the same numbers as the engine's conditional at that state
    model = LatentDirichletAllocation(6, alpha=0.1, eta=0.01, n_sweeps=100, burn_in=50, random_state=0)
    for snap in model.fit_steps(list(lab.corpus.docs), n_words=len(lab.corpus.vocabulary)):
        if snap.step == 4:
            np.testing.assert_allclose(model.conditional(0, 0, snap), s.conditional)
            break


def test_bars_are_matched_with_the_truth_and_the_distance_falls(lab):
    lab.form.set_values({"corpus": "bars", "n_topics": 10, "alpha": 0.5}, quiet=True)
    lab.on_param_changed("corpus")
    lab.tabs.setCurrentIndex(2)
    last = finish(lab)
    assert lab.corpus.name == "bars" and last.truth_distance < 0.25
    distance = lab.distance.series["distance"].y
    assert distance[0] > 0.4 > distance[-1]
    shown = lab.pictures.data  # five pairs a row: each learned topic above its true one, each 5 × 5
    np.testing.assert_allclose(shown[0:5, 0:5], np.asarray(last.phi)[last.truth_order[0]].reshape(5, 5), rtol=1e-6)
    np.testing.assert_allclose(shown[6:11, 0:5], lab.corpus.truth[0].reshape(5, 5))


def test_restart_changes_the_seed_and_the_topic_numbers(lab):
    a = run_to(lab, 20)
    lab.restart_button.click()
    assert lab.seed == 1
    b = run_to(lab, 20)
    assert b.sweep == 20
    assert not np.array_equal(a.top_ids, b.top_ids)


def test_words_of_a_passage_are_numbered_as_its_word_ids():
    corpus = run.load_corpus("plays")
    pieces = run.text_tokens(corpus.texts[5], corpus.vocabulary)
    words = [text.lower() for text, t in pieces if t is not None]
    assert words == [corpus.vocabulary[w] for w in corpus.docs[5]]
    assert "".join(text for text, _ in pieces) == corpus.texts[5]
