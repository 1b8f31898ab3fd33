"""The base class of every lab: :class:`Lab`.

Start with ``docs/writing-a-lab.md``, the one page on writing a lab: the two template labs
(``app/labs/_example/``, ``app/labs/_example_points/``) shown whole, and the table of every
hook declared here and on :class:`app.points_lab.PointsLab`, with its default. The tests keep
that page true (``tests/gui/test_example_lab.py``, ``tests/gui/test_lab_contract.py``).

What this class does for a lab: it builds the run bar, the parameter form, the banner and the
maths panel around the lab's plots (:meth:`build_plots`), starts a run from :meth:`make_run`
on the lab's :class:`~app.runner.Runner` (a worker thread per run), draws what the runner
hands over with :meth:`render`, saves and restores sessions (checked first by
:func:`app.session.check_session_state`, the previous state put back if applying fails), runs
side tasks (:meth:`task`) and opens files off the GUI thread (:meth:`open_on_worker`).

Rules the runner relies on: every yield is one step, numbered ``step = 0, 1, 2, ...``; each
step takes well under 50 ms; snapshots own their arrays; bad input raises ``ValueError``
(shown in the banner). Never emit a bare Python ``None`` through a Qt signal: PySide6
mis-counts references to it and the interpreter later aborts; use sentinels (0.0, "", a tuple).
"""

from __future__ import annotations

import copy
import csv
import html
import logging
import os
import time
from typing import Any, Callable, ClassVar, Iterator

import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from . import style as theme
from .runner import History, Runner
from .session import SESSION_VERSION, check_session_state
from .snapshot_values import numeric_values
from .tasks import BackgroundTask
from .lab_layout import LabLayout
from .widgets.maths import MathsPanel
from .widgets.plots import PlotPanel
from .widgets.params import Param, ParamForm
from .widgets.runbar import RunBar

log = logging.getLogger(__name__)

#: the file filter of the labs that open photos
IMAGE_FILES = "Images (*.png *.jpg *.jpeg *.bmp *.gif *.tif *.tiff);;All files (*)"


class Lab(LabLayout, QtWidgets.QWidget):
    # ------------------------------------------------------------------ metadata
    #: short identifier: the folder name, ``--lab <id>``, session files
    id: ClassVar[str] = ""
    #: tab title
    title: ClassVar[str] = ""
    #: position of the tab (smaller first)
    order: ClassVar[int] = 100
    #: one line shown under the title and as the tab's tooltip
    description: ClassVar[str] = ""
    #: the course map: the chapter the lab's card stands in (one of ``app.registry.CHAPTERS``),
    #: one line of what it shows, and the words a teacher would search for (method and
    #: parameter names, famous examples: "casino", "lasso", "Viterbi")
    chapter: ClassVar[str] = ""
    summary: ClassVar[str] = ""
    keywords: ClassVar[tuple[str, ...]] = ()
    #: steps computed before the README picture is taken (``--screenshots``)
    screenshot_steps: ClassVar[int] = 30
    #: steps each lab runs in ``--self-test``
    self_test_steps: ClassVar[int] = 5
    #: the tab shown in headless screenshots and the self-test, if the central widget is a QTabWidget
    screenshot_tab: ClassVar[int] = 0
    #: the choice parameter that changes what the lab draws (a method, a mode); the picture
    #: tests walk every one of its values
    method_param: ClassVar[str] = ""
    #: the most memory (MB) a run may allocate at the largest legal input (:meth:`largest_input`)
    #: while it starts and draws its first two steps, ``prepare`` included; every lab is held
    #: to its own bound by ``tests/gui/test_budget.py``
    budget_mb: ClassVar[float] = 64.0
    #: the most time (seconds, on a 2-core machine) for the same; a timing is never a pass/fail
    #: test of the suite, so ``tests/benchmarks/test_bench_budget.py`` holds it
    budget_seconds: ClassVar[float] = 5.0

    #: labs that open photos: the label naming the image ("Opening …" while a file is read)
    image_label: QtWidgets.QLabel | None = None

    #: emitted when run state, step or progress changes (the main window's status bar)
    statusChanged = QtCore.Signal()
    #: emitted when the side panels are laid out again (shown, hidden, folded, unfolded)
    panelsChanged = QtCore.Signal()

    #: methods every concrete lab defines (checked when the subclass is created)
    REQUIRED = ("build_plots", "make_run", "render")

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.id:
            missing = [name for name in Lab.REQUIRED if getattr(cls, name) is getattr(Lab, name)]
            if missing:
                raise TypeError(f"lab {cls.id!r} must define {', '.join(missing)}")

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName(f"lab_{self.id}")
        self.seed = 0
        self.run_params: dict = {}
        self.run_seed = 0
        self._maths_time = 0.0
        self._drawn: tuple[int, Any] | None = None  # (timeline serial, snapshot) of the picture on screen
        #: the maths panel was opened (F1) although projector mode on a small screen folds it
        self.maths_unfolded = False
        self.controls_unfolded = False
        self._projector_seen = theme.current().projector
        self._tasks: dict[str, BackgroundTask] = {}
        self.init_state()
        self.runner = Runner(self)
        self.runbar = RunBar()
        self.form = ParamForm(self.parameter_specs())
        self.banner = QtWidgets.QLabel()
        self.banner.setWordWrap(True)
        self.banner.setVisible(False)
        self.banner.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        self.banner.setStyleSheet("QLabel { background: #FBE3D6; color: #7A2E00; border: 1px solid #D55E00; "
                                  "padding: 6px; }")
        self.maths = MathsPanel()

        controls = QtWidgets.QWidget()
        cl = QtWidgets.QVBoxLayout(controls)
        cl.setContentsMargins(4, 4, 4, 4)
        heading = QtWidgets.QLabel(f"<b>{self.title}</b><br><span>{self.description}</span>")
        heading.setWordWrap(True)
        cl.addWidget(heading)
        cl.addWidget(self.form)
        self.build_controls(cl)
        cl.addStretch(1)
        scroll = QtWidgets.QScrollArea()
        scroll.setWidget(controls)
        scroll.setWidgetResizable(True)
        scroll.setMinimumWidth(180)
        scroll.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.controls_scroll = scroll

        self.plots = self.build_plots()
        if isinstance(self.plots, QtWidgets.QTabWidget):
            _scroll_pages(self.plots)
            self.plots.currentChanged.connect(lambda _index: self.refit_panels_later())
        self.splitter = QtWidgets.QSplitter(QtCore.Qt.Orientation.Horizontal)
        self.splitter.addWidget(scroll)
        self.splitter.addWidget(self.plots)
        self.splitter.addWidget(self.maths)
        self.splitter.setStretchFactor(0, 0)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setStretchFactor(2, 0)
        self.splitter.setSizes([290, 900, 280])
        self.splitter.setCollapsible(1, False)

        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(2, 2, 2, 2)
        lay.addWidget(self.runbar)
        lay.addWidget(self.splitter, 1)
        # under the panes: a message that comes or goes moves nothing above it (the run bar,
        # the parameters, the plots' tops stay under the mouse)
        lay.addWidget(self.banner)

        self.runbar.playToggled.connect(self.toggle_play)
        self.runbar.stepRequested.connect(self.step)
        self.runbar.stepBackRequested.connect(self.step_back)
        self.runbar.resetRequested.connect(self.reset)
        self.runbar.speedChanged.connect(self.runner.set_rate)
        self.runbar.seedChanged.connect(self._seed_edited)
        self.runbar.seekRequested.connect(self.runner.seek)
        self.runner.set_rate(self.runbar.rate)
        self.runner.frameChanged.connect(self._on_frame)
        self.runner.stateChanged.connect(self._update_controls)
        self.runner.stateChanged.connect(self._follow_play)
        self.runner.stateChanged.connect(self._settle_maths)
        self._calm_plots = False
        self.runner.errorOccurred.connect(self.show_error)
        self.form.changed.connect(self.on_param_changed)
        theme.manager().changed.connect(self._restyle)
        self._restyled_once = False
        self._enlarged: tuple | None = None  # (plot, widgets hidden, splitter sizes, pages shown before)
        for view in self.plots.findChildren(pg.PlotWidget):
            view.scene().sigMouseClicked.connect(lambda ev, v=view: self._plot_clicked(v, ev))
        self.after_build()

    # ------------------------------------------------------------------ to override
    def init_state(self) -> None:
        """Create the lab's own state (called first, before any widget exists)."""

    def after_build(self) -> None:
        """Called once every widget exists (e.g. to generate the initial data into them)."""

    def parameter_specs(self) -> list[Param]:
        return []

    def build_controls(self, layout: QtWidgets.QVBoxLayout) -> None:
        """Add lab-specific controls below the parameter form."""

    def build_plots(self) -> QtWidgets.QWidget:
        """The central widget with the lab's plots (required)."""

    def make_run(self, params: dict, seed: int) -> Callable[[], Iterator]:
        """A zero-argument callable creating the engine generator (required)."""

    def prepare(self, snapshot) -> Any:
        """Per-frame data computed off the GUI thread (default: nothing)."""
        return None

    def render(self, snapshot, prepared, history: History) -> None:
        """Draw one snapshot by updating existing plot items (required)."""

    def show_idle(self) -> None:
        """Clear what belongs to the previous run; draw the data before a snapshot exists."""

    def maths_html(self, snapshot) -> str:
        return ""

    def user_data(self) -> dict:
        return {}

    def set_user_data(self, data: dict) -> None:
        """Restore user data saved by :meth:`user_data`; raise ValueError if malformed."""

    def export_rows(self) -> tuple[list[str], list[list]]:
        """Header and rows for File ▸ Export data (CSV)."""
        return [], []

    def main_plot(self) -> pg.PlotWidget | None:
        """The plot exported by File ▸ Export plot."""
        return None

    def apply_style(self, s: theme.Style) -> None:
        """Restyle plot items (projector mode, theme)."""

    def on_param_changed(self, name: str) -> None:
        """Parameters changed: restart from step 0 (continuing to play if it was)."""
        self.reset()

    def on_seed_changed(self, seed: int) -> None:
        """The user changed the seed (already stored in :attr:`seed`): restart."""
        self.reset()

    def after_params_restored(self) -> None:
        """Hook: update dependent widgets after parameters were set programmatically."""

    def lesson_values(self, snapshot) -> dict[str, float]:
        """Numbers of ``snapshot`` a lesson's reveal condition may name (see the module docstring)."""
        return numeric_values(snapshot)

    def largest_input(self) -> None:
        """Hook: set the lab to its largest legal input, where a run costs most (the budget
        checks then start a run). The default puts every whole-number parameter at the top of
        its range; a lab whose cost grows with something else (a file, a choice) overrides it."""
        self.form.set_values({name: p.maximum for name, p in self.form.params.items()
                              if p.kind == "int" and p.maximum is not None})
        self.after_params_restored()

    def prepare_needed(self) -> bool:
        return type(self).prepare is not Lab.prepare

    # ------------------------------------------------------------------ files
    #: the folder each lab last opened a file from (lab id -> folder), for the next dialog
    _last_folders: ClassVar[dict[str, str]] = {}

    def ask_open_path(self, title: str, file_filter: str = "", folder: bool = False) -> str:
        """A file chosen in the open dialog (a folder with ``folder=True``), or '' on Cancel.

        The dialog opens in the folder this lab last opened from (the home folder at first)."""
        start = Lab._last_folders.get(self.id) or os.path.expanduser("~")
        if folder:
            path = QtWidgets.QFileDialog.getExistingDirectory(self, title, start)
        else:
            path, _ = QtWidgets.QFileDialog.getOpenFileName(self, title, start, file_filter)
        if path:
            Lab._last_folders[self.id] = path if folder else os.path.dirname(path)
        return path or ""

    def open_on_worker(self, name: str, label: QtWidgets.QLabel, read: Callable, *args,
                       on_opened: Callable[[Any], None], restore: Callable[[], None]) -> None:
        """Read a file with ``read(*args)`` on a worker ("Opening <name> …" in ``label`` meanwhile).

        On success ``on_opened(result)`` adopts it; on failure ``restore()`` puts the label back and
        the banner says "Could not open <name>: <why>", the lab's state untouched (nothing lost)."""
        label.setText(f"Opening <b>{html.escape(name[:80])}</b> …")

        def failed(message: str) -> None:
            restore()
            self.show_error(f"Could not open {name}: {message}")

        self.task("open", on_done=on_opened, on_error=failed).start(read, *args)

    # ------------------------------------------------------------------ photos
    def image_reader(self) -> tuple[Callable, tuple]:
        """Hook of the labs that open photos: the function that reads and checks a photo file on
        a worker (``read(path, *args)``, ``ValueError`` when it is unusable) and the arguments
        after the path, captured now on the GUI thread."""
        raise TypeError(f"lab {self.id!r} opens no photos: it defines no image_reader")

    def image_opened(self, path: str) -> None:
        """Hook: the photo file ``path`` was read and becomes the lab's image (restart the run)."""

    def restore_image_label(self) -> None:
        """Hook: after a photo that could not be opened, ``self.image_label`` names the image again."""

    def open_image_dialog(self) -> None:
        """"Open image…": the photo chosen in the dialog (:attr:`IMAGE_FILES`), then :meth:`open_image_file`."""
        path = self.ask_open_path("Open image", IMAGE_FILES)
        if path:
            self.open_image_file(path)

    def open_image_file(self, path: str) -> None:
        """Read the photo ``path`` on a worker (:meth:`image_reader`); on success it becomes the
        lab's image (:meth:`image_opened`), otherwise the banner says why and nothing changes."""
        path = str(path)
        read, args = self.image_reader()
        self.open_on_worker(os.path.basename(path), self.image_label, read, path, *args,
                            on_opened=lambda _image: self.image_opened(path), restore=self.restore_image_label)

    # ------------------------------------------------------------------ side tasks
    def task(self, name: str, **callbacks) -> BackgroundTask:
        """The lab's side task called ``name`` (created on first use; see app.tasks). What it
        draws item by item follows the run bar's speed (:meth:`side_task_pace`)."""
        t = self._tasks.get(name)
        if t is None:
            t = BackgroundTask(self, name=f"{self.id}-{name}", **callbacks)
            t.pace = self.side_task_pace
            self._tasks[name] = t
        else:
            for key, value in callbacks.items():
                setattr(t, key, value)
        return t

    def side_task_pace(self) -> float | None:
        """Items per second at which side tasks show what they computed (grid cells, criteria
        per K, restarts): the run bar's speed, so a class can follow them; None at "Fastest"."""
        rate = self.runbar.rate
        return rate if rate > 0 else None

    # ------------------------------------------------------------------ behaviour
    def showEvent(self, event):
        super().showEvent(event)
        if not self._restyled_once:
            self._restyled_once = True
            self.apply_style(theme.current())
            self.favour_main_plot()
            QtCore.QTimer.singleShot(0, self, self._first_fit)

    def _first_fit(self) -> None:
        self.fit_panels()
        self.favour_main_plot()  # the splitters have their real sizes now

    def _restyle(self, s: theme.Style) -> None:
        if s.projector != self._projector_seen:
            self.maths_unfolded = False  # switching projector mode folds again
            self.controls_unfolded = False
        self._projector_seen = s.projector
        self.fit_panels(s)
        self.maths.apply_style(s)
        # normal mode puts the splitters back before the lab restyles; projector mode favours
        # the main plot after the lab has laid its panes out for projector sizes
        if not s.projector:
            self.favour_main_plot(s)
        self.apply_style(s)
        if s.projector:
            self.favour_main_plot(s)
        if self.runner.current is not None:
            self.runner.request_rewind()
            self.runner.flush()

    def resizeEvent(self, event):
        super().resizeEvent(event)
        if event.oldSize().width() != event.size().width():
            self.fit_panels()

    def params(self) -> dict:
        return self.form.values()

    def start(self, play: bool = False) -> None:
        """(Re)start the run from step 0 with the current parameters and data."""
        self.clear_error()
        self._drawn = None
        self.show_idle()
        params = self.params()
        try:
            factory = self.make_run(params, self.seed)
        except (ValueError, TypeError, OSError) as exc:
            # the previous run no longer matches the data: show nothing rather than stale steps
            self.runner.clear()
            self.runner.error = str(exc)  # the run bar and status say "error"
            self.maths.set_html("")
            self.show_error(str(exc))
            self._update_controls()
            return
        self.run_params, self.run_seed = dict(params), int(self.seed)
        self.runner.start(factory, self.prepare if self.prepare_needed() else None, play=play)
        self._update_controls()

    def ensure_started(self) -> None:
        if not self.runner.has_run and not len(self.runner.timeline) and self.runner.error is None:
            self.start()

    def toggle_play(self) -> None:
        if self.runner.playing:
            self.runner.pause()
            return
        if self.runner.finished or self.runner.error or not self.runner.has_run:
            self.start(play=True)
        else:
            self.runner.play()

    def play(self) -> None:
        if not self.runner.playing:
            self.toggle_play()

    def pause(self) -> None:
        self.runner.pause()

    def step(self) -> None:
        if not self.runner.has_run and not len(self.runner.timeline):
            self.start()
        self.runner.step()

    def step_back(self) -> None:
        self.runner.step_back()

    def reset(self) -> None:
        was_playing = self.runner.playing
        self.start(play=was_playing)

    def run_to(self, step: int) -> None:
        if not self.runner.has_run:
            self.start()
        self.runner.run_to(step)

    def _seed_edited(self, seed: int) -> None:
        self.seed = int(seed)
        self.on_seed_changed(self.seed)

    def set_seed(self, seed: int) -> None:
        self.runbar.seed.blockSignals(True)
        self.runbar.seed.setValue(int(seed))
        self.runbar.seed.blockSignals(False)
        self.seed = int(seed)

    def _on_frame(self, index: int) -> None:
        snapshot = self.runner.current
        if snapshot is None:
            return
        prepared = self.runner.prepared_for(snapshot)
        # every readout of the step (run bar, slider, status bar, maths panel) names the
        # snapshot drawn here, not the newest one the worker has handed over since
        self._drawn = (self.runner.timeline.serial(index), snapshot)
        try:
            self.render(snapshot, prepared, self.runner.frame_history())
            self._maths_time = time.perf_counter()
            self.maths.set_html(self.maths_html(snapshot))  # laid out only while the panel is on screen
        except Exception as exc:  # noqa: BLE001 - a drawing bug must not take the app down
            log.exception("drawing failed")
            self.show_error(f"Could not draw this step: {exc}")
        self._update_controls()

    @property
    def shown_snapshot(self):
        """The snapshot whose picture is on screen (None before the run's first frame)."""
        drawn = self._drawn
        if drawn is None or not len(self.runner.timeline):
            return None
        return drawn[1]

    @property
    def shown_index(self) -> int:
        """The timeline index of :attr:`shown_snapshot` (-1 when nothing is drawn)."""
        drawn = self._drawn
        timeline = self.runner.timeline
        if drawn is None or not len(timeline):
            return -1
        index = timeline.index_of_serial(drawn[0])
        if index >= 0 and timeline[index] is drawn[1]:
            return index
        return self.runner.current_index  # thinned away since: the nearest the timeline keeps

    def refresh_maths(self) -> None:
        """Show the maths of the snapshot on screen now (labs call this when something the
        maths depends on changes outside the run, such as a clicked point)."""
        snapshot = self.shown_snapshot
        if snapshot is None:
            return
        self._maths_time = time.perf_counter()
        try:
            self.maths.set_html(self.maths_html(snapshot))
        except Exception as exc:  # noqa: BLE001 - a maths bug must not take the app down
            log.exception("maths panel failed")
            self.show_error(f"Could not write the maths of this step: {exc}")

    def _settle_maths(self) -> None:
        """Once the run stops (paused, finished, stepped, scrubbed, reset), the panel shows
        the maths of the snapshot on screen with the run's state as it is now."""
        if not self.runner.playing:
            self.refresh_maths()

    def _follow_play(self) -> None:
        """While a run plays, history plots grow their view in steps (calm ranges, see
        :mod:`app.widgets.plots`); paused or finished, they fit their data tightly."""
        calm = self.runner.playing and not self.runner.finished
        if calm != self._calm_plots:
            self._calm_plots = calm
            for panel in self.findChildren(PlotPanel):
                panel.set_calm(calm)

    def _update_controls(self) -> None:
        r = self.runner
        snap, index = self.shown_snapshot, self.shown_index
        self.runbar.set_state(
            playing=r.playing,
            can_step=r.active or (0 <= r.cursor < len(r.timeline) - 1),
            can_back=index > 0,
            length=len(r.timeline),
            index=index,
            step=None if snap is None else snap.step,
            note=self.run_note(),
        )
        self.statusChanged.emit()

    def run_note(self) -> str:
        """What the step on screen is: "error", "finished" (the run's last step is drawn) or ""."""
        r = self.runner
        if r.error:
            return "error"
        if r.finished and len(r.timeline) and self.shown_index == len(r.timeline) - 1:
            return "finished"
        return ""

    def show_error(self, message: str) -> None:
        message = str(message)
        if len(message) > 600:
            message = message[:600] + " …"
        self.banner.setText(f"⚠ {message}")
        self.banner.setVisible(True)
        self.statusChanged.emit()

    def clear_error(self) -> None:
        self.banner.setVisible(False)
        self.banner.setText("")

    @property
    def error_text(self) -> str:
        return self.banner.text() if self.banner.isVisible() else ""

    def shutdown(self) -> None:
        for t in self._tasks.values():
            t.shutdown()
        self.runner.shutdown()

    # ------------------------------------------------------------------ sessions
    def session_state(self) -> dict:
        snap = self.runner.current
        return {
            "format": "smllab-session",
            "version": SESSION_VERSION,
            "lab": self.id,
            "parameters": self.params(),
            "seed": self.seed,
            "user_data": self.user_data(),
            "step": 0 if snap is None else int(snap.step),
        }

    def check_session(self, state: dict) -> tuple[dict, dict, int, int]:
        """Validate a session dict without touching the lab: (parameters, user data, seed, step)."""
        return check_session_state(self.id, state)

    def restore_session(self, state: dict, *, replay: bool = True) -> None:
        """Apply a session dict (parameters, seed, user data, step); raises ValueError.

        Everything is checked first; if applying fails half-way, the previous parameters,
        seed and user data are put back, so a bad file never costs the user's work.
        """
        params, user, seed, step = self.check_session(state)
        previous = (self.params(), copy.deepcopy(self.user_data()), self.seed)
        try:
            self.set_user_data(user)
            rejected = self.form.set_values(params)
        except Exception as exc:  # noqa: BLE001 - any failure restores the previous state
            self._put_back(previous)
            if isinstance(exc, (ValueError, TypeError)):
                raise ValueError(str(exc)[:300]) from None
            raise ValueError(f"the session could not be applied ({type(exc).__name__})") from None
        self.after_params_restored()
        self.set_seed(seed)
        self.start()
        if replay and step > 0:
            self.runner.run_to(step)
        if rejected:
            self.show_error("Some saved settings were not valid and kept their defaults: " + ", ".join(rejected))

    def _put_back(self, previous) -> None:
        params, user, seed = previous
        try:
            self.set_user_data(user)
        except Exception:  # noqa: BLE001
            log.exception("could not put the previous user data back")
        self.form.set_values(params)
        self.after_params_restored()
        self.set_seed(seed)

    def export_csv(self, path: str) -> None:
        header, rows = self.export_rows()
        with open(path, "w", newline="", encoding="utf-8") as fh:
            writer = csv.writer(fh)
            if header:
                writer.writerow(header)
            writer.writerows(rows)


def _scroll_pages(tabs: QtWidgets.QTabWidget) -> None:
    """Put each tab page in a frameless scroll area: a page that needs more room than a small
    screen offers scrolls, instead of making the whole window wider than the screen (a tab
    widget is as wide as its widest page, shown or not)."""
    for i in range(tabs.count()):
        page = tabs.widget(i)
        if isinstance(page, QtWidgets.QScrollArea):
            continue
        label, tip = tabs.tabText(i), tabs.tabToolTip(i)
        area = QtWidgets.QScrollArea()
        area.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
        area.setWidgetResizable(True)
        tabs.removeTab(i)
        area.setWidget(page)
        tabs.insertTab(i, area, label)
        tabs.setTabToolTip(i, tip)
    tabs.setCurrentIndex(0)
