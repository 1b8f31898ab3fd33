"""Teaching a lesson over the labs: the lesson panel, locked and hidden controls, reveals and the
clicker keys (PageDown / Space: reveal, then the next step; PageUp: the previous step).

A step is shown by restoring its state in its lab exactly as a session is restored (a step
that cannot be applied leaves the lab as it was and says why in the panel), with the plot tab
its question is about in front (the step's ``view``). Its reveal runs the lab to a step, or
computes a few steps at a time until its condition holds on the newest snapshot
(:meth:`app.lab.Lab.lesson_values`) and shows the first snapshot that meets it.
Leaving the lesson frees every control and gives each lab the state it had before.

Where the panel stands: above the lab in normal mode; beside it in projector mode, where the
class reads it from afar and the window's height belongs to the plots. On a projector narrower
than :data:`FOLD_PARAMETERS_BELOW` pixels the lab's parameters fold away while the lesson is
shown (F2 opens them; the locked ones show their padlock there), and so do the run bar's seed
and speed boxes.
"""

from __future__ import annotations

import copy
import html
import logging
from pathlib import Path

from PySide6 import QtCore, QtGui, QtWidgets

from smlengine._resources import resource_root

from .. import style as theme
from .author import StepDialog
from .bar import LessonBar
from .format import Lesson, LessonStep, load_lesson, save_lesson
from .locks import LOCK_TIP, SEED, control, lock_mark
from .room import main_plot_first, make_room
from .views import check_views, current_view, show_view

log = logging.getLogger(__name__)

POLL_MS = 30
#: in projector mode, a window narrower than this folds the lab's parameters for the lesson
FOLD_PARAMETERS_BELOW = 1400
#: the panel's share of the window's width when it stands beside the lab, and its bounds in px
SIDE_SHARE, SIDE_LEAST, SIDE_MOST = 0.28, 200, 440


def shipped_lessons() -> list[Path]:
    """The lessons in ``resources/lessons/``, by file name."""
    folder = resource_root() / "lessons"
    return sorted(folder.glob("*.smllesson")) if folder.is_dir() else []


class _Reveal:
    """One reveal in progress: the lab, where the step started, and what ends it."""

    def __init__(self, lab, step: LessonStep, start: int):
        self.lab = lab
        self.spec = step.reveal
        self.start = start
        self.scanned = 0  # timeline entries already tested against the condition
        self.met_at: int | None = None  # the step number at which the condition held
        self.met_text = ""  # what the reveal found, said once the run has settled


class LessonPlayer(QtCore.QObject):
    """The lesson shown in a main window (at most one at a time)."""

    changed = QtCore.Signal()

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.lesson: Lesson | None = None
        self.path = ""
        self.index = -1
        self.votes: dict[int, list[int]] = {}
        self.revealed: set[int] = set()
        self.result = ""  # what the last reveal found (shown with the answer)
        self._met = False  # the last reveal reached what it promised
        self.message = ""  # a problem with the step (shown in the bar)
        self.unlocked = False
        self._saved: dict[str, dict] = {}  # each lab's state before the lesson
        self._locked: tuple = ()  # (lab, {name: (label text, tooltip, widget tooltip, enabled)}, hidden names)
        self._reveal: _Reveal | None = None
        self._timer = QtCore.QTimer(self)
        self._timer.setInterval(POLL_MS)
        self._timer.timeout.connect(self._poll)
        self._shortcuts: list[QtGui.QShortcut] = []
        self._freed_actions: list[tuple[QtGui.QAction, QtGui.QKeySequence]] = []
        #: the parameters were folded for the lesson: whether they showed before (None: not folded)
        self._parameters_before: bool | None = None
        self._room_passes = 0
        self._seed_folded: set[str] = set()  # labs whose run bar's seed and speed are folded for the panel
        self.bar = LessonBar(self)
        self.dock = QtWidgets.QDockWidget("Lesson", window)
        self.dock.setObjectName("lessonDock")
        self.dock.setFeatures(QtWidgets.QDockWidget.DockWidgetFeature.NoDockWidgetFeatures)
        self.dock.setTitleBarWidget(QtWidgets.QWidget())
        self.dock.setWidget(self.bar)
        window.addDockWidget(QtCore.Qt.DockWidgetArea.TopDockWidgetArea, self.dock)
        self.dock.hide()
        # a window state saved during a lesson must not show an empty bar at the next start
        self.dock.visibilityChanged.connect(self._dock_shown)
        theme.manager().changed.connect(self._restyled)  # a bound slot: disconnected when the player goes
        window.installEventFilter(self)

    def _dock_shown(self, visible: bool) -> None:
        if visible and self.lesson is None:
            QtCore.QTimer.singleShot(0, self, self._hide_idle_dock)

    def _hide_idle_dock(self) -> None:
        if self.lesson is None:
            self.dock.hide()

    # ------------------------------------------------------------------ where the panel stands
    @property
    def beside(self) -> bool:
        """The panel stands beside the lab (projector mode) rather than above it."""
        return theme.current().projector

    def arrange(self) -> None:
        """Put the panel above or beside the lab, size it, and fold the lab's parameters while
        the lesson is shown on a narrow projector (they come back as they were after it)."""
        if self.lesson is None:
            self._unfold_parameters()
            return
        window, side = self.window, self.beside
        # the panel's own arrangement first (beside the lab its least width is a column's), then
        # the lab's: what folds is gone before the window next lays itself out, or it would widen
        self.bar.set_side(side)
        if side and window.width() < FOLD_PARAMETERS_BELOW:
            self._fold_parameters()
        else:
            self._unfold_parameters()
        area = QtCore.Qt.DockWidgetArea.LeftDockWidgetArea if side else QtCore.Qt.DockWidgetArea.TopDockWidgetArea
        if window.dockWidgetArea(self.dock) != area:
            window.addDockWidget(area, self.dock)
        if side:
            # a share of the window's width; narrower (down to SIDE_LEAST) when the lab beside it
            # needs more room, never wider: the window is never widened by the panel
            target = max(SIDE_LEAST, min(SIDE_MOST, int(SIDE_SHARE * window.width())))
            self.bar.setMinimumWidth(SIDE_LEAST)
            self.bar.setMaximumWidth(target)
            self._lay_out_now(self.bar)
            lab = self.current_lab()
            if lab is not None:
                self._lay_out_now(lab.runbar)
            window.resizeDocks([self.dock], [target], QtCore.Qt.Orientation.Horizontal)

    @staticmethod
    def _lay_out_now(widget) -> None:
        """The layouts from ``widget`` up to the window learn its least size now (at their next
        event otherwise: the window would take the old one and widen)."""
        while widget is not None:
            if widget.layout() is not None:
                widget.layout().activate()
            widget = widget.parentWidget()

    def _fold_parameters(self) -> None:
        """The panel takes the parameters' place; the run bar leaves out its seed and speed
        boxes, so that the lab beside the panel is no wider than the window (the seed is the
        lesson's, and its reveals run at full speed)."""
        if self._parameters_before is None:
            self._parameters_before = self.window.controls_wanted
            if self._parameters_before:
                self.window.set_controls_visible(False)
        lab = self.current_lab()
        if lab is None:
            return
        self._seed_folded.add(lab.id)
        lab.runbar.seed.setVisible(False)
        lab.runbar.speed.setVisible(False)

    def _unfold_parameters(self) -> None:
        before, self._parameters_before = self._parameters_before, None
        if before and not self.window.controls_wanted:
            self.window.set_controls_visible(True)
        folded, self._seed_folded = self._seed_folded, set()
        for lab_id in folded:
            host = self.window.hosts.get(lab_id)
            if host is not None and host.lab is not None:
                host.lab.runbar.seed.setVisible(not self._seed_hidden_by_step(host.lab))
                host.lab.runbar.speed.setVisible(True)

    def _seed_hidden_by_step(self, lab) -> bool:
        return bool(self._locked) and self._locked[0] is lab and SEED in self._locked[2]

    def _restyled(self, _style) -> None:
        QtCore.QTimer.singleShot(0, self, self._rearrange)

    def _rearrange(self) -> None:
        if self.lesson is not None:
            self.arrange()
            lab = self.current_lab()
            if lab is not None:
                lab.favour_main_plot()
                self._give_room()

    def eventFilter(self, obj, event) -> bool:  # Qt's name
        if obj is self.window and self.lesson is not None:
            kind = event.type()
            if kind == QtCore.QEvent.Type.Resize and event.oldSize() != event.size():
                QtCore.QTimer.singleShot(0, self, self._rearrange)
            elif kind == QtCore.QEvent.Type.Close:
                self._unfold_parameters()  # the window's saved settings keep the user's choice
        return False

    # ------------------------------------------------------------------ state
    @property
    def active(self) -> bool:
        return self.lesson is not None

    @property
    def step(self) -> LessonStep | None:
        if self.lesson is None or not 0 <= self.index < len(self.lesson.steps):
            return None
        return self.lesson.steps[self.index]

    @property
    def revealing(self) -> bool:
        return self._reveal is not None

    def current_lab(self):
        step = self.step
        if step is None:
            return None
        host = self.window.hosts.get(step.lab)
        return None if host is None else host.lab

    def arrived(self) -> bool:
        """The step's lab shows the step's state (or its run ended or failed before it)."""
        lab, step = self.current_lab(), self.step
        if lab is None or step is None:
            return True
        r = lab.runner
        last = r.timeline.last
        target = int(step.state.get("step", 0) or 0)
        reached = r.error is not None or r.finished or (last is not None and last.step >= target)
        return reached and r.settled

    def settled(self) -> bool:
        """Nothing is pending: the step arrived and no reveal is running."""
        return not self.revealing and self.arrived()

    # ------------------------------------------------------------------ opening and leaving
    def open_file(self, path, step: int = 0) -> bool:
        """Open a lesson file at ``step`` (0-based); a file that cannot be read changes nothing."""
        try:
            lesson = load_lesson(path)
            self._check_labs(lesson)
        except (OSError, ValueError) as exc:
            self.window._error("Could not open the lesson", str(exc)[:500])
            return False
        self.start(lesson, str(path), step)
        return True

    def _check_labs(self, lesson: Lesson) -> None:
        missing = [lab for lab in lesson.labs() if lab not in self.window.hosts]
        if missing:
            raise ValueError(f"the lesson uses the lab {missing[0]!r}, which this window does not have")
        check_views(lesson.steps, self.window.lab)

    def start(self, lesson: Lesson, path: str = "", step: int = 0) -> None:
        if self.lesson is not None:
            self.leave()
        self._check_labs(lesson)
        self.lesson, self.path = lesson, path
        self.votes, self.revealed, self.unlocked = {}, set(), False
        self.message = self.result = ""
        self._install_keys()
        self.index = -1
        if lesson.steps:
            self.go_to(max(0, min(int(step), len(lesson.steps) - 1)))
        else:
            self.arrange()
            self.dock.show()
            self.changed.emit()

    def new_lesson(self, title: str = "Untitled lesson", introduction: str = "") -> None:
        self.start(Lesson(title=title or "Untitled lesson", introduction=introduction))

    def leave(self) -> None:
        """End the lesson: controls free, the bar gone, each lab back to its state before."""
        if self.lesson is None:
            return
        self._stop_reveal()
        self._release()
        self._remove_keys()
        self.dock.hide()
        saved, self._saved = self._saved, {}
        self.lesson, self.index, self.path = None, -1, ""
        self._unfold_parameters()
        for lab_id, state in saved.items():
            lab = self.window.hosts[lab_id].lab
            if lab is None:
                continue
            if lab.enlarged_plot is not None:
                lab.toggle_enlarged()  # a plot a step enlarged goes back among the others
            try:
                lab.restore_session(state)
            except ValueError as exc:  # the lab keeps the lesson's state and says so
                lab.show_error(f"Could not return to the state before the lesson: {exc}")
        self.changed.emit()

    # ------------------------------------------------------------------ moving
    def go_to(self, index: int) -> bool:
        """Show step ``index`` (0-based) as the class first sees it; False if it cannot be shown."""
        if self.lesson is None or not 0 <= index < len(self.lesson.steps):
            return False
        step = self.lesson.steps[index]
        self._stop_reveal()
        self._release()
        self.result = ""
        self._met = False
        lab = self.window.show_lab(step.lab)
        pending = getattr(self.window, "_restoring", {}).pop(step.lab, None)
        if pending is not None:  # the lab was still reading its autosave: the lesson's state replaces it
            pending.cancel()
            lab.setEnabled(True)
        if step.lab not in self._saved:
            self._saved[step.lab] = copy.deepcopy(lab.session_state())
        state = copy.deepcopy(step.state)
        defaults = {name: p.default for name, p in lab.form.params.items()}
        state["parameters"] = {**defaults, **dict(state.get("parameters") or {})}
        self.index = index
        self.revealed.discard(index)
        try:
            lab.restore_session(state)
            self.message = ""
        except ValueError as exc:
            self.message = f"Step {index + 1} could not be opened: {str(exc)[:300]}"
        if not show_view(lab, step.view):
            self.message = f"This step shows the view {step.view!r}, which the lab does not have"
        unknown = [n for n in (*step.locked, *step.hidden) if n != SEED and n not in lab.form.widgets]
        if unknown:
            self.message += (" " if self.message else "") + (
                f"This step names controls the lab does not have: {', '.join(unknown[:5])}")
        if not self.unlocked:
            self._apply(lab, step)
        self.arrange()  # (the lab's own controls are folded before the panel is shown)
        self.dock.show()
        self.changed.emit()
        QtCore.QTimer.singleShot(0, lab, lab.favour_main_plot)
        if not self.beside:  # the panel above took some of the lab's height: the main plot gets its share back
            QtCore.QTimer.singleShot(0, self, self._main_plot_first)
        self._give_room()
        return not self.message

    def next(self) -> None:
        if self.lesson is not None and self.index < len(self.lesson.steps) - 1:
            self.go_to(self.index + 1)

    def previous(self) -> None:
        if self.lesson is not None and self.index > 0:
            self.go_to(self.index - 1)

    def advance(self) -> None:
        """What a clicker's "next" does: reveal the step if it has something to reveal,
        otherwise go to the next step."""
        step = self.step
        if step is None:
            return
        if self.revealing:
            return
        if (step.reveal is not None or step.question is not None or step.answer) and self.index not in self.revealed:
            self.reveal()
        else:
            self.next()

    # ------------------------------------------------------------------ votes
    def vote_counts(self, index: int | None = None) -> list[int]:
        index = self.index if index is None else index
        step = self.lesson.steps[index] if self.lesson is not None and 0 <= index < len(self.lesson.steps) else None
        n = len(step.question.choices) if step is not None and step.question is not None else 0
        counts = self.votes.setdefault(index, [0] * n)
        if len(counts) != n:
            counts[:] = (counts + [0] * n)[:n]
        return counts

    def set_votes(self, choice: int, count: int) -> None:
        counts = self.vote_counts()
        if 0 <= choice < len(counts):
            counts[choice] = max(0, int(count))
            self.changed.emit()

    # ------------------------------------------------------------------ reveal
    def reveal(self) -> None:
        step, lab = self.step, self.current_lab()
        if step is None or lab is None or self.revealing:
            return
        if step.reveal is None:
            self.revealed.add(self.index)
            self.changed.emit()
            return
        lab.pause()
        start = int(step.state.get("step", 0) or 0)
        self._reveal = _Reveal(lab, step, start)
        if step.reveal.until is None:
            lab.run_to(step.reveal.run_to)
        self._timer.start()
        self.changed.emit()

    def _stop_reveal(self) -> None:
        self._timer.stop()
        self._reveal = None

    def _poll(self) -> None:
        rv = self._reveal
        if rv is None:
            self._timer.stop()
            return
        lab, spec = rv.lab, rv.spec
        r = lab.runner
        if r.error is not None:
            return self._finish_reveal(f"The run stopped with an error: {r.error}")
        timeline = r.timeline
        last = timeline.last
        if rv.met_at is not None:
            # the steps asked for before the condition held are still arriving: once they have,
            # the snapshot that met it is shown (not the newest, which the view would follow)
            if r.settled and not r.busy:
                index = next((i for i in range(len(timeline)) if timeline[i].step >= rv.met_at), len(timeline) - 1)
                r.seek(index)
                return self._finish_reveal(rv.met_text, met=True)
            return
        if spec.until is None:
            target = spec.run_to
            if last is not None and last.step >= target and r.settled:
                index = next((i for i in range(len(timeline)) if timeline[i].step >= target), len(timeline) - 1)
                r.seek(index)
                return self._finish_reveal(f"Ran to step {timeline[index].step}.", met=True)
            if r.finished and r.settled:
                r.seek(len(timeline) - 1)
                return self._finish_reveal(f"The run ended at step {last.step if last else 0}, "
                                           f"before step {target}.")
            return
        # until a condition: test each new snapshot from the step's start on
        for i in range(rv.scanned, len(timeline)):
            snap = timeline[i]
            if snap.step < rv.start:
                continue
            finished_here = r.finished and i == len(timeline) - 1
            try:
                values = lab.lesson_values(snap)
            except Exception as exc:  # noqa: BLE001 - a lab's hook must not stop the lesson
                log.exception("lesson values failed")
                return self._finish_reveal(f"The lab could not report its numbers: {exc}")
            if spec.until.met(values, finished_here):
                r.pause()
                r.seek(i)
                rv.met_at = snap.step
                rv.met_text = (f"The run finished at step {snap.step}." if spec.until.finished
                               else f"Reached {spec.until.describe()} at step {snap.step}.")
                return self._poll()
            if i == len(timeline) - 1 and not spec.until.finished and spec.until.metric not in values:
                names = ", ".join(sorted(values)[:12])
                return self._finish_reveal(f"The lab has no number called {spec.until.metric!r} (it has {names}).")
        rv.scanned = len(timeline)
        limit = rv.start + spec.budget
        if r.finished and r.settled:
            if spec.until.finished and len(timeline):
                # the run ended after the loop above tested its last snapshot
                r.seek(len(timeline) - 1)
                return self._finish_reveal(f"The run finished at step {timeline.last.step}.", met=True)
            return self._finish_reveal(f"The run ended at step {last.step if last else 0} before "
                                       f"{spec.until.describe()}.")
        if last is not None and last.step >= limit and r.settled:
            return self._finish_reveal(f"{spec.until.describe()} was not reached within {spec.budget} steps.")
        if r.settled and not r.busy:
            have = last.step if last is not None else 0
            chunk = max(1, min(25, spec.budget // 20))
            lab.run_to(min(have + chunk, limit))

    #: share of a vertical splitter's height the pane with the lab's main plot keeps in a lesson
    #: whose panel stands above the lab
    MAIN_SHARE = 0.6
    #: passes of :func:`.room.make_room` after a change (each waits for the plots' new sizes)
    ROOM_PASSES = 4

    def _main_plot_first(self) -> None:
        lab = self.current_lab()
        if lab is not None:
            main_plot_first(lab, self.MAIN_SHARE)

    def _give_room(self) -> None:
        """After the lab has arranged its plots (posted before this): room for the evidence."""
        self._room_passes = self.ROOM_PASSES
        QtCore.QTimer.singleShot(0, self, self._room_pass)

    def _room_pass(self) -> None:
        lab = self.current_lab()
        if lab is None or self.lesson is None or self._room_passes <= 0:
            return
        self._room_passes -= 1
        if make_room(lab, self.window.height()):
            QtCore.QTimer.singleShot(0, self, self._room_pass)

    def _finish_reveal(self, result: str, met: bool = False) -> None:
        self._stop_reveal()
        self.result = result
        self._met = met
        self.revealed.add(self.index)
        lab, step = self.current_lab(), self.step
        if lab is not None and step is not None and step.view:
            show_view(lab, step.view)  # the answer is read on the tab the question is about
        self.changed.emit()
        if lab is not None:
            QtCore.QTimer.singleShot(0, lab, lab.favour_main_plot)
            self._give_room()

    @property
    def reveal_met(self) -> bool:
        """Whether the last reveal of this step reached what it promised."""
        return self.index in self.revealed and self._met

    # ------------------------------------------------------------------ locks
    def set_unlocked(self, on: bool) -> None:
        """Teacher only (a menu item): free the controls of this lesson, or lock them again."""
        self.unlocked = bool(on)
        lab, step = self.current_lab(), self.step
        self._release()
        if not self.unlocked and lab is not None and step is not None:
            self._apply(lab, step)
        self.arrange()
        self.changed.emit()

    def _apply(self, lab, step: LessonStep) -> None:
        kept = {}
        for name in step.locked:
            widget, label = control(lab, name)
            if widget is None:
                continue
            kept[name] = (label.text() if label else "", label.toolTip() if label else "", widget.toolTip(),
                          widget.isEnabled())
            widget.setEnabled(False)
            widget.setToolTip(LOCK_TIP)
            if label is not None:
                mark = lock_mark(label.fontMetrics().ascent())
                label.setText(f"{mark}&nbsp;{html.escape(kept[name][0])}")
                label.setToolTip(LOCK_TIP)
        hidden = [n for n in step.hidden if control(lab, n)[0] is not None]
        self._locked = (lab, kept, hidden)
        self._rehide()
        lab.form.changed.connect(self._form_changed)

    def _form_changed(self, _name: str) -> None:
        QtCore.QTimer.singleShot(0, self, self._rehide)

    def _rehide(self) -> None:
        """Hidden rows stay hidden when the lab re-evaluates which rows it shows."""
        if not self._locked:
            return
        lab, kept, hidden = self._locked
        for name in hidden:
            if name == SEED:
                lab.runbar.seed.setVisible(False)
            else:
                lab.form.set_visible(name, False)
        for name in kept:
            widget, _label = control(lab, name)
            widget.setEnabled(False)

    def _release(self) -> None:
        if not self._locked:
            return
        lab, kept, hidden = self._locked
        self._locked = ()
        try:
            lab.form.changed.disconnect(self._form_changed)
        except (RuntimeError, TypeError):
            pass
        for name, (text, tip, wtip, enabled) in kept.items():
            widget, label = control(lab, name)
            widget.setEnabled(enabled)
            widget.setToolTip(wtip)
            if label is not None:
                label.setText(text)
                label.setToolTip(tip)
        for name in hidden:
            if name == SEED:
                lab.runbar.seed.setVisible(lab.id not in self._seed_folded)
            else:
                lab.form.set_visible(name, True)
        lab.form.update_visibility()
        lab.after_params_restored()

    def locked_names(self) -> list[str]:
        return list(self._locked[1]) if self._locked else []

    def hidden_names(self) -> list[str]:
        return list(self._locked[2]) if self._locked else []

    # ------------------------------------------------------------------ keys
    def _install_keys(self) -> None:
        if self._shortcuts:
            return
        keys = {QtCore.Qt.Key.Key_PageDown: self.advance, QtCore.Qt.Key.Key_Space: self.advance,
                QtCore.Qt.Key.Key_PageUp: self.previous}
        for key, slot in keys.items():
            sequence = QtGui.QKeySequence(key)
            for action in self.window.findChildren(QtGui.QAction):
                if action.shortcut() == sequence:  # Space plays in a lab: in a lesson it advances
                    self._freed_actions.append((action, action.shortcut()))
                    action.setShortcut(QtGui.QKeySequence())
            shortcut = QtGui.QShortcut(sequence, self.window)
            shortcut.setContext(QtCore.Qt.ShortcutContext.WindowShortcut)
            shortcut.activated.connect(slot)
            self._shortcuts.append(shortcut)

    def _remove_keys(self) -> None:
        for shortcut in self._shortcuts:
            shortcut.setEnabled(False)
            shortcut.setParent(None)
            shortcut.deleteLater()
        self._shortcuts = []
        for action, sequence in self._freed_actions:
            action.setShortcut(sequence)
        self._freed_actions = []

    # ------------------------------------------------------------------ authoring
    def add_current_state(self, edit: bool = True) -> LessonStep | None:
        """Append the current lab's state as a step after the one shown (opening the step
        dialog first when ``edit``); starts a new lesson if none is open."""
        lab = self.window.lab()
        if lab is None:
            return None
        if self.lesson is None:
            self.new_lesson()
        if lab.id not in self._saved:
            self._saved[lab.id] = copy.deepcopy(lab.session_state())
        step = LessonStep(state=copy.deepcopy(lab.session_state()), view=current_view(lab))
        if edit:
            dialog = StepDialog(step, lab, self.window)
            if dialog.exec() != QtWidgets.QDialog.DialogCode.Accepted:
                return None
            step = dialog.result_step()
        self.lesson.steps.insert(self.index + 1, step)
        self.index += 1
        if not self.unlocked:
            self._release()
            self._apply(lab, step)
        self.changed.emit()
        return step

    def replace_step(self, step: LessonStep) -> None:
        if self.step is None:
            return
        self.lesson.steps[self.index] = step
        self.votes.pop(self.index, None)
        self.go_to(self.index)

    def edit_step(self) -> None:
        step, lab = self.step, self.current_lab()
        if step is None or lab is None:
            return
        dialog = StepDialog(step, lab, self.window)
        if dialog.exec() == QtWidgets.QDialog.DialogCode.Accepted:
            self.replace_step(dialog.result_step())

    def move_step(self, delta: int) -> None:
        if self.lesson is None or self.step is None:
            return
        j = self.index + delta
        if not 0 <= j < len(self.lesson.steps):
            return
        steps = self.lesson.steps
        steps[self.index], steps[j] = steps[j], steps[self.index]
        a, b = self.votes.pop(self.index, None), self.votes.pop(j, None)
        if a is not None:
            self.votes[j] = a
        if b is not None:
            self.votes[self.index] = b
        self.index = j
        self.changed.emit()

    def delete_step(self) -> None:
        if self.lesson is None or self.step is None:
            return
        del self.lesson.steps[self.index]
        self.votes = {}
        self.revealed = set()
        if self.lesson.steps:
            self.go_to(min(self.index, len(self.lesson.steps) - 1))
        else:
            self._release()
            self.index = -1
            self.changed.emit()

    def save(self, path) -> bool:
        if self.lesson is None:
            return False
        try:
            save_lesson(path, self.lesson)
        except (OSError, ValueError, TypeError) as exc:
            self.window._error("Could not save the lesson", str(exc)[:500])
            return False
        self.path = str(path)
        self.window.statusBar().showMessage(f"Saved {path}", 4000)
        return True

    # ------------------------------------------------------------------ text for the bar
    def heading(self) -> str:
        if self.lesson is None:
            return ""
        n = len(self.lesson.steps)
        where = f"step {self.index + 1} of {n}" if n else "no steps yet"
        return f"{html.escape(self.lesson.title)} · {where}"

    def projector(self) -> bool:
        return theme.current().projector
