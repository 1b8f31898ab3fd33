"""The main window: the course map (the Home tab), the labs opened from it as tabs, menus,
shortcuts, status bar, autosave.

A lab is opened as a tab from the map (:meth:`MainWindow.open_lab`); closing its tab keeps the
lab and its state (a paused run, drawn points, parameters) for when it is opened again, and
autosaves it. The open tabs and the one in front are restored at the next start; the first
start shows the map.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6 import QtCore, QtGui, QtWidgets

from . import APP_NAME, __version__, registry
from . import style as theme
from .course_map import CourseMap, home_icon, shipped_lessons_by_lab
from .heap import keep_large_arrays_returnable
from .lessons.player import shipped_lessons
from .session import apply_session, autosave_path, clean_temporaries, config_dir, read_session, save_session, set_aside
from .tasks import BackgroundTask
from .thumbnails import ThumbnailRenderer
from .window_export import ExportActions

if TYPE_CHECKING:  # the labs (and pyqtgraph) are imported when the first lab is built
    from .lab import Lab

log = logging.getLogger(__name__)

AUTOSAVE_INTERVAL_MS = 20_000
#: the value of the "tab" setting when the course map was in front
HOME = "home"


def tab_title(lab) -> str:
    """A lab's tab: its title up to a colon ("Regression: least squares, ridge, lasso" is
    "Regression"), so that several open labs fit a projector's width."""
    return lab.title.split(":")[0].strip() or lab.title


class _LabHost(QtWidgets.QWidget):
    """Tab page that builds its lab the first time it is needed (keeps start-up fast)."""

    firstPainted = QtCore.Signal()

    def __init__(self, lab_cls: type[Lab], parent=None):
        super().__init__(parent)
        self.lab_cls = lab_cls
        self.lab: Lab | None = None
        self._layout = QtWidgets.QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._loading = QtWidgets.QLabel(f"Loading {lab_cls.title} …")
        self._loading.setAlignment(QtCore.Qt.AlignmentFlag.AlignCenter)
        self._layout.addWidget(self._loading)
        self._painted = False

    def build(self) -> Lab:
        if self.lab is None:
            self.lab = self.lab_cls()
            self._layout.removeWidget(self._loading)
            self._loading.hide()  # deleteLater waits for the event loop: headless captures showed it
            self._loading.deleteLater()
            self._layout.addWidget(self.lab)
        return self.lab

    def paintEvent(self, event) -> None:  # Qt's name
        super().paintEvent(event)
        if not self._painted:
            self._painted = True
            self.firstPainted.emit()


def _set_text(label: QtWidgets.QLabel, text: str) -> None:
    """Set a status label's text only when it changes (each change lays the bar out again)."""
    if label.text() != text:
        label.setText(text)


class _TabBar(QtWidgets.QTabBar):
    """The map's tab keeps its size; the labs' tabs share the rest of the width equally, their
    titles elided when they do not fit, so the bar never scrolls however many labs are open."""

    _measuring = False  # Qt's minimumTabSizeHint asks tabSizeHint for the tab's natural size

    def tabSizeHint(self, index: int) -> QtCore.QSize:  # Qt's name
        hint = super().tabSizeHint(index)
        if self._measuring or index == 0 or self.count() < 2:
            return hint
        owner = self.parentWidget()
        width = owner.width() if owner is not None else self.width()
        share = (width - super().tabSizeHint(0).width() - 2) // (self.count() - 1)
        hint.setWidth(max(min(hint.width(), share), self.minimumTabSizeHint(index).width()))
        return hint

    def minimumTabSizeHint(self, index: int) -> QtCore.QSize:  # Qt's name
        self._measuring = True
        try:
            return super().tabSizeHint(0) if index == 0 else super().minimumTabSizeHint(index)
        finally:
            self._measuring = False


class MainWindow(ExportActions, QtWidgets.QMainWindow):
    labBuilt = QtCore.Signal(object)

    def __init__(self, *, restore: bool = True, autosave: bool = True, lab_ids: list[str] | None = None,
                 build_after_first_paint: bool = False, thumbnails: bool | None = None):
        """``lab_ids``: a window holding only these labs, all open from the start with the
        first in front (scripts, headless pictures, tests); otherwise every registered lab,
        the map in front unless tabs are restored.

        ``build_after_first_paint``: show the window (menus, tabs, a "Loading" line) before
        building the lab in front, which then follows at once; the interactive start uses it
        so the window appears without waiting for the lab's plots.

        ``thumbnails``: draw the labs' pictures for the map in a background process (default:
        on unless ``SMLLAB_THUMBNAILS=0``)."""
        keep_large_arrays_returnable()  # closing a lab gives its large arrays' memory back
        super().__init__()
        self._first_build_pending = build_after_first_paint
        self.setWindowTitle(APP_NAME)
        self.restore = restore
        self.autosave = autosave
        self.tabs = QtWidgets.QTabWidget()
        self.tabs.setTabBar(_TabBar())
        self.tabs.setDocumentMode(True)
        self.tabs.setTabsClosable(True)
        bar = self.tabs.tabBar()
        bar.setElideMode(QtCore.Qt.TextElideMode.ElideRight)  # many open labs share the width, never scroll
        bar.setUsesScrollButtons(False)
        bar.setExpanding(False)
        self.tabs.tabCloseRequested.connect(self._close_tab_at)
        self.setCentralWidget(self.tabs)
        labs = [cls for cls in registry.discover() if lab_ids is None or cls.id in lab_ids]
        #: every lab of this window, open as a tab or not (a closed lab keeps its host and state)
        self.hosts: dict[str, _LabHost] = {}
        for cls in labs:
            host = _LabHost(cls, self)
            host.hide()
            self.hosts[cls.id] = host
        self._waiting_paint: set[int] = set()
        self.thumbnails = ThumbnailRenderer(labs, self, enabled=thumbnails)
        self.home = CourseMap(labs, shipped_lessons_by_lab(shipped_lessons()), self.thumbnails)
        self.home.openLab.connect(self.open_lab)
        self.home.openLesson.connect(self._open_lesson)
        self.tabs.addTab(self.home, home_icon(), "Home")
        self.tabs.setTabToolTip(0, "The course map: every lab by chapter, and a search (Ctrl+Home, Esc)")
        for side in (QtWidgets.QTabBar.ButtonPosition.LeftSide, QtWidgets.QTabBar.ButtonPosition.RightSide):
            bar.setTabButton(0, side, None)  # the map is never closed
        self._session_paths: dict[str, str] = {}
        self._restoring: dict[str, BackgroundTask] = {}  # lab id -> the task reading its autosave
        self._open_task = BackgroundTask(self, name="open-session")
        self._build_menus()
        self._build_status()
        self._focus_left_button: QtWidgets.QAbstractButton | None = None
        QtWidgets.QApplication.instance().installEventFilter(self)
        self.tabs.currentChanged.connect(self._tab_changed)
        self._status_timer = QtCore.QTimer(self)
        self._status_timer.setInterval(250)
        self._status_timer.timeout.connect(self._update_status)
        self._status_timer.start()
        self._autosave_timer = QtCore.QTimer(self)
        self._autosave_timer.setInterval(AUTOSAVE_INTERVAL_MS)
        self._autosave_timer.timeout.connect(self.autosave_all)
        if autosave:
            self._autosave_timer.start()
        self.restored_geometry = self._restore_window_settings() if restore else False
        if lab_ids is not None:
            for cls in labs:
                self._add_tab(cls.id)
            if labs and self.tabs.currentWidget() is self.home:
                self.tabs.setCurrentWidget(self.hosts[labs[0].id])
        try:
            clean_temporaries(autosave_path("any").parent)
        except OSError:
            pass
        if build_after_first_paint:
            self.home.firstPainted.connect(self._first_paint, QtCore.Qt.ConnectionType.QueuedConnection)
        else:
            self._tab_changed(self.tabs.currentIndex())

    def _first_paint(self) -> None:
        """The window was painted: build the lab in front now."""
        if self._first_build_pending:
            self._first_build_pending = False
            self._tab_changed(self.tabs.currentIndex())

    # ------------------------------------------------------------------ tabs
    def _add_tab(self, lab_id: str) -> int:
        """Put the lab's tab at the end of the bar (where it is, if open); its index."""
        host = self.hosts[lab_id]
        index = self.tabs.indexOf(host)
        if index >= 0:
            return index
        index = self.tabs.addTab(host, tab_title(host.lab_cls))
        self.tabs.setTabToolTip(index, f"<b>{host.lab_cls.title}</b><br>{host.lab_cls.description}")
        if self._first_build_pending and id(host) not in self._waiting_paint:
            self._waiting_paint.add(id(host))
            host.firstPainted.connect(self._first_paint, QtCore.Qt.ConnectionType.QueuedConnection)
        return index

    def open_lab(self, lab_id: str) -> Lab:
        """Open the lab as a tab (or bring its tab to the front), built and shown; returns it.
        A lab opened before keeps its state: parameters, data, the run where it was."""
        if lab_id not in self.hosts:
            raise KeyError(f"unknown lab {lab_id!r}; known labs: {', '.join(self.hosts)}")
        self._add_tab(lab_id)
        lab = self.lab(lab_id)
        self.tabs.setCurrentWidget(self.hosts[lab_id])
        return lab

    def show_lab(self, lab_id: str) -> Lab:
        """The same as :meth:`open_lab`."""
        return self.open_lab(lab_id)

    def close_lab(self, lab_id: str) -> None:
        """Close the lab's tab. The lab is paused and kept with its state (autosaved too), so
        it comes back as it was when it is opened again."""
        host = self.hosts[lab_id]
        index = self.tabs.indexOf(host)
        if index < 0:
            return
        lab = host.lab
        if lab is not None:
            if lab.runner.playing:
                lab.pause()
            self._autosave_lab(lab)
        self.tabs.removeTab(index)
        host.hide()

    def _close_tab_at(self, index: int) -> None:
        host = self.tabs.widget(index)
        if isinstance(host, _LabHost):
            self.close_lab(host.lab_cls.id)

    def close_current_lab(self) -> None:
        host = self.tabs.currentWidget()
        if isinstance(host, _LabHost):
            self.close_lab(host.lab_cls.id)

    def open_labs(self) -> list[str]:
        """The ids of the labs open as tabs, in the tabs' order."""
        pages = (self.tabs.widget(i) for i in range(self.tabs.count()))
        return [page.lab_cls.id for page in pages if isinstance(page, _LabHost)]

    def current_lab_id(self) -> str:
        """The id of the lab in front ("" when the map is)."""
        host = self.tabs.currentWidget()
        return host.lab_cls.id if isinstance(host, _LabHost) else ""

    def show_home(self) -> None:
        """Bring the course map to the front; the keyboard goes to the card of the lab left
        (or to the search field)."""
        left = self.current_lab_id()
        self.tabs.setCurrentWidget(self.home)
        if not (left and self.home.focus_card(left)):
            self.home.focus_search()

    def _open_lesson(self, path: str) -> None:
        self.lessons.open_file(path)

    def _escape(self) -> None:
        """Esc: a field being edited in a lab is left first; then the map comes to the front
        (not during a lesson: the class follows the lesson's lab)."""
        focus = QtWidgets.QApplication.focusWidget()
        if self.tabs.currentWidget() is self.home:
            return
        if isinstance(focus, (QtWidgets.QLineEdit, QtWidgets.QAbstractSpinBox, QtWidgets.QTextEdit,
                              QtWidgets.QPlainTextEdit)) and focus.window() is self:
            self._release_focus()
            return
        if self.lessons.active:
            return
        self.show_home()

    # ------------------------------------------------------------------ labs
    def lab(self, lab_id: str | None = None) -> Lab | None:
        """The lab with this id (built on demand), or the current one."""
        if lab_id is None:
            host = self.tabs.currentWidget()
            return host.build() if isinstance(host, _LabHost) else None
        host = self.hosts.get(lab_id)
        if host is None:
            raise KeyError(f"unknown lab {lab_id!r}; known labs: {', '.join(self.hosts)}")
        if host.lab is None:
            self._build_lab(host)
        return host.lab

    def built_labs(self) -> list[Lab]:
        return [h.lab for h in self.hosts.values() if h.lab is not None]

    def _build_lab(self, host: _LabHost) -> Lab:
        from .widgets.atlas import bound_symbol_atlases

        bound_symbol_atlases()  # scatter plots keep the symbols in use, not one per redraw
        # Building a lab's widgets and plots sends a few hundred thousand events (children
        # added, polished, laid out) through every application-wide filter; none of them is a
        # key, a click or a dialog, so the keyboard filter steps aside meanwhile.
        app = QtWidgets.QApplication.instance()
        app.removeEventFilter(self)
        try:
            lab = host.build()
        finally:
            app.installEventFilter(self)
        lab.maths.setVisible(self._maths_wanted)
        lab.maths_unfolded = any(other.maths_unfolded for other in self.built_labs() if other is not lab)
        lab.controls_scroll.setVisible(self._controls_wanted)
        lab.controls_unfolded = any(other.controls_unfolded for other in self.built_labs() if other is not lab)
        lab.panelsChanged.connect(self.sync_panel_actions)
        lab.statusChanged.connect(lambda lab=lab: self._lab_status_changed(lab))
        restoring = False
        path = autosave_path(lab.id)
        if self.restore and path.exists():
            restoring = True
            self._restore_autosave(lab, path)
        elif path.exists() and self.autosave:
            # --fresh: start without the saved state, but never overwrite it
            try:
                set_aside(path)
            except OSError as exc:
                log.warning("could not keep the autosaved %s session aside: %s", lab.id, exc)
        if not restoring:
            lab.start()
        self.labBuilt.emit(lab)
        return lab

    def _restore_autosave(self, lab: Lab, path: Path) -> None:
        """Read the lab's autosave on a worker thread (the window stays responsive whatever
        the file holds); the lab waits, disabled, and starts once it is applied or refused."""
        task = BackgroundTask(self, name=f"restore-{lab.id}")
        self._restoring[lab.id] = task
        lab.setEnabled(False)
        self.statusBar().showMessage(f"Restoring the last session of {lab.title}…")

        def finish(state=None, problem: str = "") -> None:
            self._restoring.pop(lab.id, None)
            lab.setEnabled(True)
            self.statusBar().clearMessage()
            if state is not None:
                try:
                    apply_session(lab, state)
                    return
                except Exception as exc:  # noqa: BLE001 - start-up must always succeed
                    problem = str(exc)[:300] if isinstance(exc, (ValueError, OSError)) else "the file is malformed"
            log.warning("could not restore the autosaved %s session: %s", lab.id, problem)
            try:
                kept = set_aside(path)
                problem += f". The file was kept as {kept}"
            except OSError:
                pass
            lab.start()
            lab.show_error(f"The last session of this lab could not be restored ({problem}); it starts fresh.")

        task.on_done = lambda state: finish(state)
        task.on_error = lambda message: finish(None, message[:300])
        task.start(read_session, str(path))

    def restoring(self, lab_id: str) -> bool:
        """True while the lab's autosave is being read (scripts and tests wait on it)."""
        return lab_id in self._restoring

    def _tab_changed(self, index: int) -> None:
        if self._first_build_pending:
            return  # built once the window has been painted (see __init__)
        host = self.tabs.widget(index)
        if isinstance(host, _LabHost) and host.lab is None:
            self._build_lab(host)
        front = host.lab if isinstance(host, _LabHost) else None
        for other in self.built_labs():
            if other is not front and other.runner.playing:
                other.pause()
        self.home.set_active(host is self.home)  # the map's missing pictures are drawn while it is shown
        self.sync_panel_actions()
        focus = QtWidgets.QApplication.focusWidget()
        if host is self.home and (focus is None or not self.home.isAncestorOf(focus)):
            self.home.focus_search()  # typing searches at once; Down reaches the cards
        self._update_status()

    # ------------------------------------------------------------------ menus
    def _action(self, menu, text, slot, shortcut=None, checkable=False, tip=""):
        action = QtGui.QAction(text, self)
        if shortcut:
            action.setShortcut(QtGui.QKeySequence(shortcut))
            action.setShortcutContext(QtCore.Qt.ShortcutContext.WindowShortcut)
        action.setCheckable(checkable)
        if tip:
            action.setStatusTip(tip)
        action.triggered.connect(slot)
        menu.addAction(action)
        self.addAction(action)
        return action

    def _build_menus(self) -> None:
        bar = self.menuBar()
        f = bar.addMenu("&File")
        self._action(f, "&Home: the course map", self.show_home, "Ctrl+Home",
                     tip="Every lab by chapter, with their lessons and a search")
        self._action(f, "&Close the lab's tab", self.close_current_lab, "Ctrl+W",
                     tip="The lab keeps its state and comes back as it was when opened again")
        f.addSeparator()
        self._action(f, "&Open session…", self.open_session_dialog, QtGui.QKeySequence.StandardKey.Open)
        self._action(f, "&Save session", self.save_session_current, QtGui.QKeySequence.StandardKey.Save)
        self._action(f, "Save session &as…", self.save_session_dialog, "Ctrl+Shift+S")
        f.addSeparator()
        self._action(f, "&Export plot (PNG/SVG)…", self.export_plot_dialog, "Ctrl+E")
        self._action(f, "Export lab &view (PNG/SVG)…", self.export_view_dialog, "Ctrl+Shift+E")
        self._action(f, "Export &data (CSV)…", self.export_data_dialog)
        self._action(f, "Export run as animated &GIF…", self.export_gif_dialog)
        f.addSeparator()
        self._action(f, "&Quit", self.close, QtGui.QKeySequence.StandardKey.Quit)

        r = bar.addMenu("&Run")
        self._action(r, "Play / pause", lambda: self._with_lab(lambda lab: lab.toggle_play()), "Space")
        self._action(r, "Step", lambda: self._with_lab(lambda lab: lab.step()), "Right")
        self._action(r, "Step back", lambda: self._with_lab(lambda lab: lab.step_back()), "Left")
        self._action(r, "Reset", lambda: self._with_lab(lambda lab: lab.reset()), "R")
        self._action(r, "Enlarge the main plot", lambda: self._with_lab(lambda lab: lab.toggle_enlarged()), "F11",
                     tip="The main plot takes the lab's whole plot area (also: double-click a plot's title); again to "
                         "go back")

        v = bar.addMenu("&View")
        self.projector_action = self._action(v, "&Projector mode", self.set_projector, "F5", checkable=True,
                                             tip="Larger fonts, thicker lines and markers for a classroom")
        self.dark_action = self._action(v, "&Dark theme", self.set_dark, checkable=True)
        self.maths_action = self._action(v, "Show the &maths", self.toggle_maths, "F1", checkable=True)
        self.maths_action.setChecked(True)
        self._maths_wanted = True
        self.controls_action = self._action(v, "Show the p&arameters", self.toggle_controls, "F2",
                                            checkable=True, tip="Hide the side panels and the plots take the room")
        self.controls_action.setChecked(True)
        self._controls_wanted = True

        from .lessons.menu import install_lesson_menu

        install_lesson_menu(self, bar)  # self.lessons: the lesson shown over the labs

        escape = QtGui.QAction("Back to the course map", self)
        escape.setShortcut(QtGui.QKeySequence(QtCore.Qt.Key.Key_Escape))
        escape.setShortcutContext(QtCore.Qt.ShortcutContext.WindowShortcut)
        escape.triggered.connect(self._escape)
        self.addAction(escape)

        h = bar.addMenu("&Help")
        h.addAction(self.maths_action)
        self._action(h, "&Keyboard shortcuts", self.show_shortcuts)
        self._action(h, "&About SML Lab", self.show_about)

    def _build_status(self) -> None:
        sb = self.statusBar()
        self.status_lab = QtWidgets.QLabel()
        self.status_step = QtWidgets.QLabel()
        self.status_time = QtWidgets.QLabel()
        self.status_progress = QtWidgets.QProgressBar()
        self.status_progress.setRange(0, 1000)
        self.status_progress.setMaximumWidth(180)
        self.status_progress.setTextVisible(False)
        self.status_state = QtWidgets.QLabel()
        sb.addWidget(self.status_lab, 1)
        for w in (self.status_state, self.status_step, self.status_time, self.status_progress):
            sb.addPermanentWidget(w)

    def _with_lab(self, fn) -> None:
        lab = self.lab()
        if lab is not None:
            fn(lab)

    def _lab_status_changed(self, lab: Lab) -> None:
        """A frame was drawn or the run's state changed: the status bar follows at once when
        the lab is in front, so it never names another step than the run bar."""
        host = self.tabs.currentWidget()
        if isinstance(host, _LabHost) and host.lab is lab:
            self._update_status()

    def _update_status(self) -> None:
        host = self.tabs.currentWidget()
        lab = host.lab if isinstance(host, _LabHost) else None  # never builds a lab
        self.status_progress.setVisible(lab is not None)
        if lab is None:
            if host is self.home and self.status_lab.text() != "Course map":
                self.status_lab.setText("Course map")
                for label in (self.status_state, self.status_step, self.status_time):
                    label.setText("")
            return
        r = lab.runner
        snap = lab.shown_snapshot  # the step whose picture is on screen, as the run bar says
        note = lab.run_note()
        _set_text(self.status_lab, lab.title)
        _set_text(self.status_step, f"step {snap.step}" if snap is not None else "step –")
        _set_text(self.status_time, f"{r.elapsed_now:6.1f} s")
        if note:
            state = note
        elif r.playing:
            state = "running"
        elif r.busy:
            state = "computing"
        else:
            state = "paused"
        _set_text(self.status_state, state)
        progress = getattr(snap, "progress", None) if snap is not None else None
        if note == "finished":
            progress = 1.0
        value = int(1000 * progress) if progress is not None else 0
        bar = self.status_progress
        if bar.value() != value:
            # QProgressBar.setValue repaints at once, and a repaint at once paints every
            # dirty part of the window (the plots too) while the workers compute: the bar
            # is repainted with the next frame instead
            bar.setUpdatesEnabled(False)
            bar.setValue(value)
            bar.setUpdatesEnabled(True)
            bar.update()

    # ------------------------------------------------------------------ view
    def set_projector(self, on: bool) -> None:
        self.projector_action.setChecked(bool(on))
        theme.manager().set(projector=bool(on))

    def set_dark(self, on: bool) -> None:
        self.dark_action.setChecked(bool(on))
        theme.manager().set(theme="dark" if on else "light")

    def set_maths_visible(self, on: bool) -> None:
        """The maths panel wanted (True) or hidden in every lab: the choice that normal mode
        shows and the window's settings keep (projector mode may fold a wanted panel away)."""
        self._maths_wanted = bool(on)
        for lab in self.built_labs():
            lab.maths.setVisible(bool(on))
            lab.fit_panels()
        self.sync_panel_actions()

    def set_controls_visible(self, on: bool) -> None:
        """The parameters wanted (True) or hidden in every lab (see :meth:`set_maths_visible`)."""
        self._controls_wanted = bool(on)
        for lab in self.built_labs():
            lab.controls_scroll.setVisible(bool(on))
            lab.fit_panels()
        self.sync_panel_actions()

    @property
    def maths_wanted(self) -> bool:
        return self._maths_wanted

    @property
    def controls_wanted(self) -> bool:
        return self._controls_wanted

    def set_maths_shown(self, on: bool) -> None:
        """The maths panel on screen (True) or not, whatever the mode. In projector mode on a
        small screen the panel is folded away for the plots: shown unfolds it (the plots
        yield), not shown folds it again and keeps the choice of normal mode."""
        lab = self.lab()
        if lab is not None and not lab.maths.isHidden() and lab.projector_folds_maths():
            for other in self.built_labs():
                other.unfold_maths(bool(on))
            self.sync_panel_actions()
            return
        self.set_maths_visible(on)

    def set_controls_shown(self, on: bool) -> None:
        """The parameters on screen (True) or not, whatever the mode (see :meth:`set_maths_shown`:
        projector mode folds them away in the labs whose plots stand side by side)."""
        lab = self.lab()
        if lab is not None and not lab.controls_scroll.isHidden() and lab.projector_folds_controls():
            for other in self.built_labs():
                other.unfold_controls(bool(on))
            self.sync_panel_actions()
            return
        self.set_controls_visible(on)

    def toggle_maths(self, _checked: bool = False) -> None:
        """F1: show the maths panel if it is not on screen, hide it if it is (in projector mode
        on a small screen: unfold it, the plots yield, and fold it again)."""
        lab = self.lab()
        self.set_maths_shown(not lab.maths_shown() if lab is not None else not self._maths_wanted)

    def toggle_controls(self, _checked: bool = False) -> None:
        """F2: show the parameters if they are not on screen, hide them if they are (in
        projector mode, labs whose plots stand side by side unfold and fold them again)."""
        lab = self.lab()
        self.set_controls_shown(not lab.controls_shown() if lab is not None else not self._controls_wanted)

    def sync_panel_actions(self) -> None:
        """View ▸ Show the maths / the parameters are ticked when the lab in front shows the
        panel (projector mode folding it away unticks it); with the map in front, the choice."""
        host = self.tabs.currentWidget() if hasattr(self, "tabs") else None
        lab = host.lab if isinstance(host, _LabHost) else None  # never builds a lab
        maths = lab.maths_shown() if lab is not None else self._maths_wanted
        controls = lab.controls_shown() if lab is not None else self._controls_wanted
        for action, on in ((self.maths_action, maths), (self.controls_action, controls)):
            if action.isChecked() != on:
                action.setChecked(on)

    def eventFilter(self, obj, event) -> bool:
        """Enter in a number or text field ends the edit: the keyboard goes back to the
        run bar, so Space plays instead of blanking the field."""
        kind = event.type()
        if kind == QtCore.QEvent.Type.KeyPress and event.key() in (QtCore.Qt.Key.Key_Return,
                                                                   QtCore.Qt.Key.Key_Enter):
            if isinstance(obj, (QtWidgets.QAbstractSpinBox, QtWidgets.QLineEdit)) and obj is not self.home.search:
                QtCore.QTimer.singleShot(0, self, self._release_focus)
        elif (kind == QtCore.QEvent.Type.MouseButtonRelease and isinstance(obj, QtWidgets.QAbstractButton)
              and obj.window() is self):
            # A button did its job: the keyboard goes back to the run bar, so Space plays
            # instead of pressing the button again.
            QtCore.QTimer.singleShot(0, self, self._release_focus)
        elif kind == QtCore.QEvent.Type.FocusOut and isinstance(obj, QtWidgets.QAbstractButton):
            self._focus_left_button = obj
        elif (kind == QtCore.QEvent.Type.FocusIn and event.reason() == QtCore.Qt.FocusReason.OtherFocusReason
              and isinstance(obj, (QtWidgets.QAbstractSpinBox, QtWidgets.QLineEdit)) and obj.window() is self):
            # Focus that lands in a field because the focused button was disabled (by the side
            # task it started) is passed on to the run bar: R and Space must not edit the field.
            left = self._focus_left_button
            self._focus_left_button = None
            try:
                disabled = left is not None and not left.isEnabled()
            except RuntimeError:  # the button was deleted since
                disabled = False
            if disabled:
                QtCore.QTimer.singleShot(0, self, self._release_focus)
        elif kind == QtCore.QEvent.Type.Hide and isinstance(obj, QtWidgets.QDialog) and obj.isWindow():
            # Any dialog (open/save, a lab's own file dialog, a message) gives the keyboard back
            # to the window when it closes, so Space, arrows and shortcuts work without a click.
            QtCore.QTimer.singleShot(0, self, self._take_keyboard_back)
        return super().eventFilter(obj, event)

    def _take_keyboard_back(self) -> None:
        active = QtWidgets.QApplication.activeWindow()
        if self.isVisible() and (active is None or active is self or not active.isVisible()):
            self.activateWindow()

    def _release_focus(self) -> None:
        focus = QtWidgets.QApplication.focusWidget()
        if focus is not None and focus.window() is not self:
            return  # a dialog or another window has the keyboard now
        if isinstance(focus, (QtWidgets.QAbstractSpinBox, QtWidgets.QLineEdit, QtWidgets.QAbstractButton)):
            focus.clearFocus()
        self.tabs.setFocus()

    def show_about(self) -> None:
        labs = "".join(f"<li><b>{c.title}</b> — {c.description}</li>" for c in registry.discover())
        QtWidgets.QMessageBox.about(
            self, f"About {APP_NAME}",
            f"<h3>{APP_NAME} {__version__}</h3><p>A laboratory for statistical machine learning: "
            f"algorithms run step by step on a background thread while the plots follow them.</p><ul>{labs}</ul>",
        )

    def show_shortcuts(self) -> None:
        QtWidgets.QMessageBox.information(
            self, "Keyboard shortcuts",
            "Space  play / pause\n→  step\n←  step back\nR  reset\nCtrl+S  save session\nCtrl+O  open session\n"
            "Ctrl+E  export plot\nF1  show the maths\nF5  projector mode\nCtrl+Z  undo a point edit\n"
            "Ctrl+Home or Esc  the course map (arrows move between its cards, Enter opens one)\n"
            "Ctrl+W  close the lab's tab (the lab keeps its state)",
        )

    # ------------------------------------------------------------------ sessions
    def _error(self, title: str, message: str) -> None:
        log.warning("%s: %s", title, message)
        if QtWidgets.QApplication.platformName() == "offscreen":
            return
        QtWidgets.QMessageBox.warning(self, title, message)

    def open_session(self, path: str, *, wait: bool = True) -> Lab | None:
        """Open a session file: read and checked on a worker thread, applied on this one.

        ``wait=False`` (File ▸ Open) returns at once and the lab follows when the file is
        read; ``wait=True`` (scripts, tests) returns the lab, or None if the file was refused.
        """
        if str(path).lower().endswith(".smllesson"):  # File ▸ Open, a double-click, the command line
            return self.lab() if self.lessons.open_file(path) else None
        task = self._open_task
        opened: list = []
        task.on_done = lambda state: opened.append(self._apply_opened(path, state))
        task.on_error = lambda message: self._error("Could not open the session", message[:500])
        task.start(read_session, str(path))
        if not wait:
            return None
        if not task.wait(60):
            task.cancel()
        return opened[0] if opened else None

    def _apply_opened(self, path: str, state: dict) -> Lab | None:
        pending = None
        try:
            lab = self.open_lab(str(state["lab"])[:40])
            pending = self._restoring.pop(lab.id, None)
            if pending is not None:  # the opened file replaces the autosave still being read
                pending.cancel()
                lab.setEnabled(True)
            apply_session(lab, state)
        except Exception as exc:  # noqa: BLE001 - a bad file is a message, never a crash
            text = str(exc) if isinstance(exc, (OSError, ValueError, KeyError)) else "the file is malformed"
            self._error("Could not open the session", text[:500])
            if pending is not None:
                lab.start()  # it was waiting for its autosave, which the opened file replaced
            return None
        self._session_paths[lab.id] = str(path)
        return lab

    def save_session(self, path: str, lab: Lab | None = None) -> bool:
        lab = lab or self.lab()
        if lab is None:
            return False
        try:
            save_session(path, lab.session_state())
        except (OSError, ValueError, TypeError) as exc:
            self._error("Could not save the session", str(exc))
            return False
        self._session_paths[lab.id] = str(path)
        self.statusBar().showMessage(f"Saved {path}", 4000)
        return True

    def open_session_dialog(self) -> None:
        path, _ = QtWidgets.QFileDialog.getOpenFileName(self, "Open session", str(Path.home()),
                                                        "SML Lab sessions and lessons (*.smllab *.json *.smllesson);;"
                                                        "All files (*)")
        if path:
            self.open_session(path, wait=False)

    def save_session_current(self) -> None:
        lab = self.lab()
        if lab is not None and lab.id in self._session_paths:
            self.save_session(self._session_paths[lab.id], lab)
        else:
            self.save_session_dialog()

    def save_session_dialog(self) -> None:
        lab = self.lab()
        if lab is None:
            return
        path, _ = QtWidgets.QFileDialog.getSaveFileName(self, "Save session", str(Path.home() / f"{lab.id}.smllab"),
                                                        "SML Lab sessions (*.smllab)")
        if path:
            if not Path(path).suffix:
                path += ".smllab"
            self.save_session(path, lab)

    def autosave_all(self) -> None:
        for lab in self.built_labs():
            self._autosave_lab(lab)

    def _autosave_lab(self, lab: Lab) -> None:
        if not self.autosave or lab.id in self._restoring:
            return  # a lab whose autosave is still being read never overwrites it
        try:
            save_session(autosave_path(lab.id), lab.session_state())
        except (OSError, ValueError, TypeError) as exc:
            log.warning("autosave of %s failed: %s", lab.id, exc)

    def _settings(self) -> QtCore.QSettings:
        return QtCore.QSettings(str(config_dir() / "window.ini"), QtCore.QSettings.Format.IniFormat)

    def fit_to_screen(self, screen=None) -> None:
        """First start: use the screen. Small screens (classroom projectors, up to 1366 px
        wide) get a maximised window; larger ones 90 % of the available area, centred."""
        screen = screen or self.screen() or QtGui.QGuiApplication.primaryScreen()
        if screen is None:
            return
        area = screen.availableGeometry()
        if area.width() <= 1366:
            self.resize(area.width(), area.height())
            self.setWindowState(self.windowState() | QtCore.Qt.WindowState.WindowMaximized)
            return
        w, h = int(area.width() * 0.9), int(area.height() * 0.9)
        self.resize(w, h)
        self.move(area.x() + (area.width() - w) // 2, area.y() + (area.height() - h) // 2)

    def _restore_window_settings(self) -> bool:
        """Restore the last window state; False if there was none (first start)."""
        s = self._settings()
        geometry = s.value("geometry")
        if geometry is not None:
            self.restoreGeometry(geometry)
            self._fit_inside_screen()
        state = s.value("state")
        if state is not None:
            self.restoreState(state)
        self.set_projector(str(s.value("projector", "false")).lower() == "true")
        self.set_dark(str(s.value("theme", "light")) == "dark")
        self.set_maths_visible(str(s.value("maths", "true")).lower() == "true")
        self.set_controls_visible(str(s.value("controls", "true")).lower() == "true")
        tab = str(s.value("tab", ""))
        saved = s.value("open_tabs")
        if saved is None:  # written by a version whose window held every lab: the one in front
            opened = [tab] if tab in self.hosts else []
        else:
            names = saved if isinstance(saved, list) else str(saved).split(",")
            opened = [name for name in dict.fromkeys(str(n).strip() for n in names) if name in self.hosts]
        for lab_id in opened:
            self._add_tab(lab_id)
        if tab in opened:
            self.tabs.setCurrentWidget(self.hosts[tab])
        return geometry is not None

    def _fit_inside_screen(self) -> None:
        """A geometry saved on a bigger screen never makes the window larger than this one."""
        screen = self.screen() or QtGui.QGuiApplication.primaryScreen()
        if screen is None:
            return
        area = screen.availableGeometry()
        if self.width() > area.width() or self.height() > area.height():
            self.resize(min(self.width(), area.width()), min(self.height(), area.height()))
            self.move(area.topLeft())

    def _save_window_settings(self) -> None:
        s = self._settings()
        s.setValue("geometry", self.saveGeometry())
        s.setValue("controls", "true" if self._controls_wanted else "false")
        s.setValue("state", self.saveState())
        s.setValue("projector", "true" if theme.current().projector else "false")
        s.setValue("theme", theme.current().theme)
        s.setValue("maths", "true" if self._maths_wanted else "false")
        s.setValue("open_tabs", ",".join(self.open_labs()))
        s.setValue("tab", self.current_lab_id() or HOME)
        s.sync()

    def closeEvent(self, event: QtGui.QCloseEvent) -> None:
        if self.autosave:
            self.autosave_all()
            self._save_window_settings()
        self.shutdown()
        super().closeEvent(event)

    def shutdown(self) -> None:
        self._status_timer.stop()
        self._autosave_timer.stop()
        self.thumbnails.shutdown()
        for task in [self._open_task, *self._restoring.values()]:
            task.shutdown()
        for lab in self.built_labs():
            lab.shutdown()
        self._shut_down = True
        others = [w for w in QtWidgets.QApplication.topLevelWidgets()
                  if isinstance(w, MainWindow) and w is not self and not getattr(w, "_shut_down", False)]
        if not others:  # the caches are the process's: a second window still open keeps using them
            from smlengine.cache import clear_caches

            clear_caches()  # what the runs kept for the next one does not outlive the last window
