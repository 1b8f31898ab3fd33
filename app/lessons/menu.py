"""The Lesson menu of the main window."""

from __future__ import annotations

import json
from pathlib import Path

from PySide6 import QtGui, QtWidgets

from smlengine._resources import resource_root

from .author import LessonInfoDialog
from .format import SUFFIX
from .player import LessonPlayer, shipped_lessons

FILTER = f"SML Lab lessons (*{SUFFIX});;All files (*)"


def shipped_title(path: Path) -> str:
    """The title written in a shipped lesson (its file name if it cannot be read)."""
    try:
        title = json.loads(path.read_text(encoding="utf-8")).get("title")
    except (OSError, ValueError, AttributeError):
        title = None
    return str(title)[:80] if isinstance(title, str) and title else path.stem


def install_lesson_menu(window, bar: QtWidgets.QMenuBar) -> QtWidgets.QMenu:
    """Add the Lesson menu and the window's :class:`LessonPlayer` (``window.lessons``)."""
    player = LessonPlayer(window)
    window.lessons = player
    menu = bar.addMenu("&Lesson")

    def add(text, slot, shortcut=None, checkable=False, tip=""):
        action = QtGui.QAction(text, window)
        if shortcut:
            action.setShortcut(QtGui.QKeySequence(shortcut))
        action.setCheckable(checkable)
        if tip:
            action.setStatusTip(tip)
            action.setToolTip(tip)
        action.triggered.connect(slot)
        menu.addAction(action)
        window.addAction(action)
        return action

    def open_dialog():
        path, _ = QtWidgets.QFileDialog.getOpenFileName(window, "Open lesson", str(Path.home()), FILTER)
        if path:
            player.open_file(path)

    def new_dialog():
        dialog = LessonInfoDialog(parent=window)
        if dialog.exec() == QtWidgets.QDialog.DialogCode.Accepted:
            player.new_lesson(*dialog.values())

    def info_dialog():
        if player.lesson is None:
            return
        dialog = LessonInfoDialog(player.lesson.title, player.lesson.introduction, window)
        if dialog.exec() == QtWidgets.QDialog.DialogCode.Accepted:
            player.lesson.title, player.lesson.introduction = dialog.values()
            player.changed.emit()

    def save_dialog():
        if player.lesson is None:
            return
        start = player.path if player.path and not player.path.startswith(str(shipped_folder())) else \
            str(Path.home() / f"lesson{SUFFIX}")
        path, _ = QtWidgets.QFileDialog.getSaveFileName(window, "Save lesson", start, FILTER)
        if path:
            if not Path(path).suffix:
                path += SUFFIX
            player.save(path)

    add("&Open lesson…", open_dialog, tip="Open a .smllesson file")
    shipped = menu.addMenu("Open &shipped lesson")

    def fill_shipped():
        shipped.clear()
        for path in shipped_lessons():
            action = shipped.addAction(shipped_title(path))
            action.setToolTip(path.name)
            action.triggered.connect(lambda _checked=False, p=path: player.open_file(p))
        if shipped.isEmpty():
            shipped.addAction("(none)").setEnabled(False)

    shipped.aboutToShow.connect(fill_shipped)
    fill_shipped()
    menu.addSeparator()
    add("&New lesson…", new_dialog, tip="Start writing a lesson: add the labs' states as steps")
    add("Add the current state as a &step…", lambda: player.add_current_state(edit=True), "Ctrl+Shift+L",
        tip="The current lab's parameters, data and step become the lesson's next step")
    needs_lesson = [
        add("&Edit this step…", player.edit_step),
        add("Move this step &earlier", lambda: player.move_step(-1)),
        add("Move this step &later", lambda: player.move_step(1)),
        add("&Delete this step", player.delete_step),
        add("Lesson &title and introduction…", info_dialog),
        add("Save lesson &as…", save_dialog),
    ]
    menu.addSeparator()
    unlock = add("&Unlock controls (teacher)", player.set_unlocked, checkable=True,
                 tip="Free the controls this lesson locks or hides (until locked again or the lesson ends)")
    leave = add("&Leave the lesson", player.leave, tip="The labs return to their state before the lesson")
    needs_lesson += [unlock, leave]

    def update():
        for action in needs_lesson:
            action.setEnabled(player.active)
        unlock.setChecked(player.unlocked)

    player.changed.connect(update)
    update()
    return menu


def shipped_folder() -> Path:
    return resource_root() / "lessons"
