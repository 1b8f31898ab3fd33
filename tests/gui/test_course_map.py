"""The course map (issue 40): every registered lab a card under its chapter, a search that
narrows to what teaches a word, the keyboard, labs opened and closed as tabs that keep their
state and come back at the next start, pictures drawn from the labs, and ``--home``."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6 import QtCore, QtGui, QtTest, QtWidgets

from app import registry
from app import style as theme
from app.course_map import LabCard, words
from app.lessons.player import shipped_lessons
from app.testing import open_lab, wait_until

ROOT = Path(__file__).resolve().parents[2]
LAB_IDS = [lab.id for lab in registry.discover()]
#: the labs the search expectations below were written for
FIRST_LABS = {"classifiers", "trees", "faces", "regression", "pca", "segmentation", "mixtures", "ngrams", "hmm",
              "pagerank", "sampling"}
Key = QtCore.Qt.Key


@pytest.fixture(scope="module")
def home(qapp):
    """One window showing the map, shared by the tests that build no lab."""
    from app.main_window import MainWindow

    window = MainWindow(restore=False, autosave=False)
    window.resize(1280, 800)
    window.show()
    window.activateWindow()
    yield window
    window.shutdown()
    window.close()
    window.deleteLater()


@pytest.fixture
def the_map(home, qtbot):
    home.activateWindow()  # the keyboard goes to the active window
    qtbot.waitUntil(lambda: QtWidgets.QApplication.activeWindow() is home)
    home.show_home()
    home.home.set_query("")
    theme.manager().set(projector=False)
    home.resize(1280, 800)
    home.home.scroll.verticalScrollBar().setValue(0)
    yield home.home
    home.home.set_query("")
    theme.manager().set(projector=False)


def card(window, lab_id) -> LabCard:
    return window.findChild(QtWidgets.QWidget, f"lab-card-{lab_id}")


# ---------------------------------------------------------------------- metadata and cards
def test_every_lab_states_its_chapter_summary_and_keywords():
    for lab in registry.discover():
        assert lab.chapter in registry.CHAPTERS, lab.id
        assert lab.summary and "\n" not in lab.summary and len(lab.summary) <= 110, lab.id
        assert len(lab.keywords) >= 10, lab.id
    chapters = [name for name, _ in registry.chapters()]
    assert chapters == [c for c in registry.CHAPTERS if c in chapters]  # in the course's order


def test_the_registry_orders_chapters_and_refuses_keywords_that_are_not_a_tuple():
    def info(lab_id, chapter, order=1, keywords=()):
        return registry.LabInfo("app.labs.x", {"id": lab_id, "title": lab_id.title(), "order": order,
                                               "chapter": chapter, "keywords": keywords})

    labs = [info("b", "Sampling"), info("z", ""), info("q", "Quantum learning"), info("a", "classification", 5),
            info("c", "Classification", 2)]
    assert [(name, [lab.id for lab in group]) for name, group in registry.chapters(labs)] == [
        ("Classification", ["c", "a"]), ("Sampling", ["b"]), ("Quantum learning", ["q"]), ("Other labs", ["z"])]
    assert labs[0].summary == ""  # neither a summary nor a description
    with pytest.raises(TypeError, match="keywords"):
        info("k", "Sampling", keywords="svm")


def test_a_card_per_lab_with_its_name_summary_and_lessons(the_map, home):
    assert home.tabs.currentWidget() is the_map and the_map.objectName() == "course-map"
    assert home.findChild(QtWidgets.QLineEdit, "course-map-search") is the_map.search
    lessons = {p.stem: p for p in shipped_lessons()}
    for lab in registry.discover():
        c = card(home, lab.id)
        assert c is not None and c.isVisible(), lab.id
        assert c.accessibleName() == lab.title
        assert lab.summary in c.accessibleDescription()
        assert c.focusPolicy() == QtCore.Qt.FocusPolicy.StrongFocus
        assert c.summary_label.text() == lab.summary
        if lab.id in lessons:  # each lab ships a lesson named after it
            assert [link.lesson.path for link in c.lesson_links] == [lessons[lab.id]]
            assert c.lesson_links[0].accessibleName().startswith("Lesson: ")
    # cards stand under their chapter's heading, chapters in the course's order
    tops = [card(home, lab.id).geometry().top() for _, labs in registry.chapters() for lab in labs]
    assert tops == sorted(tops)


def test_a_new_lab_gets_its_card_with_no_other_edit(make_window, monkeypatch):
    monkeypatch.setattr(registry, "_cache", [*registry.discover(), registry.LabInfo.of("app.labs._example")])
    window = make_window()
    c = card(window, "example")
    assert c is not None and c.accessibleName() == "Template: mean and covariance"
    assert window.home.headers[registry.OTHER_CHAPTER].isVisible()
    assert window.home.visible_labs()[-1] == "example"  # a lab without a chapter comes last


# ---------------------------------------------------------------------- search
@pytest.mark.parametrize("query, expected", [
    ("casino", ["hmm"]),
    ("svm", ["classifiers"]),
    ("SVM", ["classifiers"]),
    ("EM", ["segmentation", "mixtures", "hmm"]),
    ("C", ["classifiers"]),  # a one- or two-letter word matches whole words only
    ("lasso", ["regression"]),
    ("Viterbi", ["hmm"]),
    ("PageRank", ["pagerank"]),
    ("k-means", ["segmentation", "mixtures"]),
    ("random forest", ["trees"]),
    ("Baum–Welch", ["hmm"]),  # the en dash of the description, typed as a hyphen too
    ("baum-welch", ["hmm"]),
    ("teleport", ["pagerank"]),  # a parameter
    ("Gini", ["trees"]),  # a choice of a parameter
    ("shakesp", ["ngrams"]),  # the first letters of a word being typed
])
def test_search_narrows_to_the_labs_that_teach_a_word(the_map, query, expected):
    """Among the first eleven labs exactly those that teach the word; a lab added later may
    teach it too (a new lab's card never needs an edit here)."""
    the_map.set_query(query)
    shown = the_map.visible_labs()
    assert [lab_id for lab_id in shown if lab_id in FIRST_LABS] == expected
    assert len(shown) < len(LAB_IDS)  # the map narrows
    for lab_id in LAB_IDS:
        assert card(the_map, lab_id).isVisible() == (lab_id in shown)
    assert the_map.result.text().startswith(f"{len(shown)} lab")


def test_search_finds_lessons_by_their_title_and_typing_goes_to_the_field(the_map, qtbot):
    the_map.set_query("oscillates")  # only in the PageRank lesson's title
    assert the_map.visible_labs() == ["pagerank"]
    assert [p.stem for p in the_map.visible_lessons()] == ["pagerank"]
    the_map.set_query("")
    assert len(the_map.visible_labs()) == len(LAB_IDS)
    the_map.set_query("quantum chromodynamics")
    assert the_map.visible_labs() == [] and "Nothing" in the_map.result.text()
    assert not any(h.isVisible() for h in the_map.headers.values())
    the_map.set_query("")
    # letters typed on a card go to the search field
    first = card(the_map, "classifiers")
    first.setFocus()
    qtbot.waitUntil(first.hasFocus)
    QtTest.QTest.keyClicks(first, "viterbi")
    assert the_map.search.text() == "viterbi" and the_map.search.hasFocus()
    assert the_map.visible_labs() == ["hmm"]
    QtTest.QTest.keyClick(the_map.search, Key.Key_Escape)  # Esc empties the field
    assert the_map.search.text() == "" and len(the_map.visible_labs()) == len(LAB_IDS)


def test_words_split_compounds():
    assert {"k-means++", "k", "means", "kmeans"} <= words("k-means++")
    assert "baum-welch" in words("Baum–Welch")


# ---------------------------------------------------------------------- keyboard and layout
def test_arrows_move_between_cards_and_the_field(the_map, home, qtbot):
    order = the_map.visible_labs()
    first = card(home, order[0])
    first.setFocus()
    qtbot.waitUntil(first.hasFocus)
    QtTest.QTest.keyClick(first, Key.Key_Right)  # the window's "step" shortcut does not take it
    assert card(home, order[1]).hasFocus()
    QtTest.QTest.keyClick(card(home, order[1]), Key.Key_Left)
    assert first.hasFocus()
    QtTest.QTest.keyClick(first, Key.Key_Down)  # the first card of the next row
    below = QtWidgets.QApplication.focusWidget()
    assert isinstance(below, LabCard) and below.geometry().top() > first.geometry().bottom()
    assert below.geometry().left() == first.geometry().left()
    QtTest.QTest.keyClick(below, Key.Key_Up)
    assert first.hasFocus()
    QtTest.QTest.keyClick(first, Key.Key_Up)  # above the first row: the search field
    assert the_map.search.hasFocus()
    QtTest.QTest.keyClick(the_map.search, Key.Key_Down)
    assert first.hasFocus()
    QtTest.QTest.keyClick(first, Key.Key_End)
    assert card(home, order[-1]).hasFocus()


def test_cards_fit_a_1024x768_projector(the_map, home, qtbot):
    theme.manager().set(projector=True)
    home.resize(1024, 768)
    qtbot.waitUntil(lambda: home.width() == 1024 and the_map._cols > 0)
    QtWidgets.QApplication.processEvents()
    window_rect = home.rect()
    viewport = the_map.scroll.viewport()
    first = card(home, the_map.visible_labs()[0])
    top_left = first.mapTo(home, QtCore.QPoint(0, 0))
    assert window_rect.contains(QtCore.QRect(top_left, first.size())), (top_left, first.size())
    assert first.height() < viewport.height()  # a whole card shows at once
    for lab_id in LAB_IDS:
        c = card(home, lab_id)
        left = c.mapTo(viewport, QtCore.QPoint(0, 0)).x()
        assert 0 <= left and left + c.width() <= viewport.width(), lab_id  # never a horizontal scroll
        assert c.title_label.height() >= c.title_label.heightForWidth(c.title_label.width())  # no clipped title
    assert the_map._cols >= 2


# ---------------------------------------------------------------------- tabs
def test_five_open_labs_fit_the_tab_bar_at_1024_in_projector_mode(make_window, config_dir, qtbot):
    chosen = ["regression", "mixtures", "hmm", "sampling", "segmentation"]
    settings = QtCore.QSettings(str(config_dir / "window.ini"), QtCore.QSettings.Format.IniFormat)
    settings.setValue("open_tabs", ",".join(chosen))
    settings.setValue("tab", "home")
    settings.sync()
    window = make_window(restore=True)  # the tabs come back, their labs are built when shown
    window.set_projector(True)
    window.resize(1024, 768)
    qtbot.waitUntil(lambda: window.width() == 1024)
    assert window.open_labs() == chosen and window.tabs.currentWidget() is window.home
    assert window.built_labs() == []
    bar = window.tabs.tabBar()
    QtWidgets.QApplication.processEvents()
    assert bar.tabRect(bar.count() - 1).right() <= bar.width()
    assert bar.tabRect(0).width() >= QtWidgets.QTabBar.tabSizeHint(bar, 0).width()  # "Home" never elided
    assert not [b for b in bar.findChildren(QtWidgets.QToolButton) if b.isVisible()]  # no scroll arrows
    assert [bar.tabText(i) for i in range(1, 6)] == ["Regression", "Gaussian mixtures", "Hidden Markov models",
                                                    "Monte Carlo sampling", "Image segmentation"]
    for i in range(1, bar.count()):  # every lab's tab closes; the map's never
        assert bar.tabButton(i, QtWidgets.QTabBar.ButtonPosition.RightSide) is not None
    assert bar.tabButton(0, QtWidgets.QTabBar.ButtonPosition.RightSide) is None


def test_a_closed_lab_keeps_its_state_and_the_tabs_return_at_the_next_start(make_window, config_dir, qtbot):
    window = make_window(restore=True, autosave=True)
    assert window.tabs.currentWidget() is window.home  # first start: the map
    assert window.open_labs() == [] and window.built_labs() == []
    ngrams = card(window, "ngrams")
    ngrams.setFocus()
    qtbot.waitUntil(ngrams.hasFocus)
    QtTest.QTest.keyClick(ngrams, Key.Key_Return)  # Enter opens the lab
    lab = window.lab()
    assert lab.id == "ngrams" and window.open_labs() == ["ngrams"]
    wait_until(lambda: lab.runner.current is not None, what="the first snapshot of ngrams")
    lab.form.set_value("length", 60)
    QtTest.QTest.keyClick(window.focusWidget() or window, Key.Key_Escape)  # Esc: back to the map
    assert window.tabs.currentWidget() is window.home
    assert ngrams.hasFocus()  # on the card of the lab just left
    window.open_lab("ngrams")
    window.close_lab("ngrams")
    assert window.open_labs() == [] and window.tabs.currentWidget() is window.home
    assert (config_dir / "sessions" / "ngrams.json").exists()  # autosaved when its tab closed
    again = window.open_lab("ngrams")
    assert again is lab and lab.form.value("length") == 60  # the same lab, as it was left

    QtTest.QTest.keyClick(window, Key.Key_Home, QtCore.Qt.KeyboardModifier.ControlModifier)
    assert window.tabs.currentWidget() is window.home
    window.open_lab("classifiers")
    window.open_lab("ngrams")
    assert window.open_labs() == ["ngrams", "classifiers"]
    window.close()  # autosaves the labs and which tabs were open

    later = make_window(restore=True, autosave=False)
    assert later.open_labs() == ["ngrams", "classifiers"] and later.current_lab_id() == "ngrams"
    restored = open_lab(later, "ngrams")
    wait_until(lambda: not later.restoring("ngrams"), what="the autosave of ngrams")
    assert restored.form.value("length") == 60
    assert later.hosts["classifiers"].lab is None  # a tab behind is built when it is shown


def test_a_lesson_on_a_card_opens_its_lab_at_the_first_step(make_window, qtbot):
    window = make_window()
    link = window.findChild(QtWidgets.QLabel, "lesson-hmm")
    assert link is not None and link.isVisible()
    QtTest.QTest.mouseClick(link, QtCore.Qt.MouseButton.LeftButton)
    player = window.lessons
    assert player.active and player.index == 0 and window.current_lab_id() == "hmm"
    wait_until(player.arrived, what="the lesson's first step")
    QtTest.QTest.keyClick(window, Key.Key_Escape)  # during a lesson Esc keeps the lesson's lab
    assert window.current_lab_id() == "hmm"
    player.leave()


# ---------------------------------------------------------------------- pictures and the command line
def test_a_lab_picture_is_drawn_in_a_background_process_and_shown(qapp, tmp_path, monkeypatch):
    """The only test that draws a picture (the hidden-Markov lab draws fastest)."""
    from app.course_map import CourseMap
    from app.thumbnails import THUMB_SIZE, ThumbnailRenderer

    monkeypatch.setenv("SMLLAB_CACHE_DIR", str(tmp_path))
    hmm = registry.get("hmm")
    pictures = ThumbnailRenderer([hmm], enabled=True)
    shown = CourseMap([hmm], {}, pictures)
    ready = []
    pictures.ready.connect(lambda lab_id, path: ready.append((lab_id, path)))
    try:
        assert not shown.cards["hmm"].picture.has_picture  # the tile until the picture is drawn
        shown.set_active(True)
        assert pictures.busy
        wait_until(lambda: not pictures.busy, 60, "the picture of the hmm lab")
        assert [lab_id for lab_id, _ in ready] == ["hmm"]
        path = Path(ready[0][1])
        assert path.parent == tmp_path / "thumbnails" and path == pictures.path("hmm")
        image = QtGui.QImage(str(path))
        assert (image.width(), image.height()) == THUMB_SIZE
        colours = {image.pixel(x, y) for x in range(0, image.width(), 16) for y in range(0, image.height(), 16)}
        assert len(colours) > 20  # a drawing, not a blank
        assert shown.cards["hmm"].picture.path == str(path)
        shown.set_active(True)  # drawn once: the next showing finds it
        assert not pictures.busy
    finally:
        pictures.shutdown()
        shown.deleteLater()


def test_home_screenshot_from_the_command_line(tmp_path):
    out = tmp_path / "home.png"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "SMLLAB_CONFIG_DIR": str(tmp_path / "cfg"),
           "SMLLAB_THUMBNAILS": "0"}
    done = subprocess.run([sys.executable, "-m", "app", "--home", "--screenshot", str(out), "--size", "1024x768",
                           "--projector"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    image = QtGui.QImage(str(out))
    assert (image.width(), image.height()) == (1024, 768)
    colours = {image.pixel(x, y) for x in range(0, 1024, 8) for y in range(0, 768, 8)}
    assert len(colours) > 10
