"""The lab contract: one ``Lab`` subclass per folder under ``app/labs/``.

A lab turns parameters + data into an engine generator (run on a worker thread by its
:class:`~app.runner.Runner`) and a snapshot into pixels. Subclasses provide:

* class metadata: ``id``, ``title``, ``order``, ``description``; optionally
  ``screenshot_steps`` (README pictures, default 30) and ``self_test_steps`` (default 5);
* :meth:`parameter_specs` (the form), :meth:`build_plots` (the central widget),
  optionally :meth:`build_controls` for extra controls under the form;
* :meth:`make_run` returning a *zero-argument callable* that creates the engine
  generator. It is called on the worker thread, so anything expensive (data generation,
  loading, fitting) belongs inside it. It must not touch widgets: capture plain values
  first. Module-level caches of loaded data need a ``threading.Lock``.
* :meth:`prepare` (optional, worker thread): per-frame data such as a decision function
  on a grid, computed for the snapshot about to be drawn;
* :meth:`render` (GUI thread, drawing only: update existing items in place),
  :meth:`show_idle` (before any snapshot), :meth:`maths_html`;
* session hooks :meth:`user_data` / :meth:`set_user_data`, :meth:`export_rows`,
  :meth:`main_plot` and :meth:`apply_style` (projector mode, theme).

Rules the runner relies on
--------------------------
* Every yield is one step and snapshots are numbered ``step = 0, 1, 2, ...`` in yield
  order; a lab chaining several phases wraps them in its own generator that renumbers.
* Each step takes well under 50 ms; long phases yield progress snapshots
  (``phase``, ``progress``). The same seed yields identical snapshots.
* Bad input raises ``ValueError`` with a readable message; it is shown in the lab's
  banner, never as a crash.
* Never emit a bare Python ``None`` through a Qt signal: PySide6 mis-counts references
  to it and the interpreter later aborts. Use sentinels (0.0, "", a tuple).
"""

from __future__ import annotations

import csv
import logging
import time
from typing import Any, Callable, ClassVar, Iterator

import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from . import style as st
from .runner import Runner
from .widgets.maths import MathsPanel
from .widgets.params import Param, ParamForm
from .widgets.runbar import RunBar

log = logging.getLogger(__name__)

SESSION_VERSION = 1
MATHS_INTERVAL = 0.25  # seconds between maths-panel updates while playing


class Lab(QtWidgets.QWidget):
    id: ClassVar[str] = ""
    title: ClassVar[str] = ""
    order: ClassVar[int] = 100
    description: ClassVar[str] = ""

    #: emitted when run state, step or progress changes (the main window's status bar)
    statusChanged = QtCore.Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName(f"lab_{self.id}")
        self.seed = 0
        self._maths_time = 0.0
        self.runner = Runner(self)
        self.runbar = RunBar()
        self.form = ParamForm(self.parameter_specs())
        self.banner = QtWidgets.QLabel()
        self.banner.setWordWrap(True)
        self.banner.setVisible(False)
        self.banner.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        self.banner.setStyleSheet("QLabel { background: #FBE3D6; color: #7A2E00; border: 1px solid #D55E00; padding: 6px; }")
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
        scroll.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.controls_scroll = scroll

        self.plots = self.build_plots()
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
        lay.addWidget(self.banner)
        lay.addWidget(self.splitter, 1)

        self.runbar.playToggled.connect(self.toggle_play)
        self.runbar.stepRequested.connect(self.step)
        self.runbar.stepBackRequested.connect(self.step_back)
        self.runbar.resetRequested.connect(self.reset)
        self.runbar.speedChanged.connect(self.runner.set_rate)
        self.runbar.seedChanged.connect(self._seed_changed)
        self.runbar.seekRequested.connect(self.runner.seek)
        self.runner.set_rate(self.runbar.rate)
        self.runner.frameChanged.connect(self._on_frame)
        self.runner.stateChanged.connect(self._update_controls)
        self.runner.errorOccurred.connect(self.show_error)
        self.form.changed.connect(self.on_param_changed)
        st.manager().changed.connect(self._restyle)
        self._restyled_once = False

    # ------------------------------------------------------------------ to override
    def parameter_specs(self) -> list[Param]:
        return []

    def build_controls(self, layout: QtWidgets.QVBoxLayout) -> None:
        """Add lab-specific controls below the parameter form."""

    #: methods every concrete lab defines (checked when the subclass is created)
    REQUIRED = ("build_plots", "make_run", "render")

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.id:
            missing = [name for name in Lab.REQUIRED if getattr(cls, name) is getattr(Lab, name)]
            if missing:
                raise TypeError(f"lab {cls.id!r} must define {', '.join(missing)}")

    def build_plots(self) -> QtWidgets.QWidget:
        """The central widget with the lab's plots (required)."""

    def make_run(self, params: dict, seed: int) -> Callable[[], Iterator]:
        """A zero-argument callable creating the engine generator (required)."""

    def prepare(self, snapshot) -> Any:
        """Per-frame data computed off the GUI thread (default: nothing)."""
        return None

    def render(self, snapshot, prepared, history: list) -> None:
        """Draw one snapshot by updating existing plot items (required)."""

    def show_idle(self) -> None:
        """Draw the data before a run has produced anything."""

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

    def apply_style(self, s: st.Style) -> None:
        """Restyle plot items (projector mode, theme)."""

    def prepare_needed(self) -> bool:
        return type(self).prepare is not Lab.prepare

    # ------------------------------------------------------------------ behaviour
    def showEvent(self, event):
        super().showEvent(event)
        if not self._restyled_once:
            self._restyled_once = True
            self.apply_style(st.current())
            if st.current().projector:
                QtCore.QTimer.singleShot(0, lambda: self._size_panels(st.current()))

    def _restyle(self, s: st.Style) -> None:
        self._size_panels(s)
        self.maths.apply_style(s)
        self.apply_style(s)
        if self.runner.current is not None:
            self.runner.flush()

    def _size_panels(self, s: st.Style) -> None:
        """Side panels grow with the fonts but never take more than ~45 % of the width."""
        total = max(self.splitter.width(), 800)
        controls = int(min(290 * s.scale, 0.24 * total))
        maths = int(min(280 * s.scale, 0.21 * total)) if self.maths.isVisible() else 0
        self.splitter.setSizes([controls, max(total - controls - maths, 300), maths])

    def params(self) -> dict:
        return self.form.values()

    def start(self, play: bool = False) -> None:
        """(Re)start the run from step 0 with the current parameters and data."""
        self.clear_error()
        try:
            factory = self.make_run(self.params(), self.seed)
        except (ValueError, TypeError) as exc:
            self.runner.cancel()
            self.show_error(str(exc))
            return
        self.runner.start(factory, self.prepare if self.prepare_needed() else None, play=play)
        self._update_controls()

    def ensure_started(self) -> None:
        if self.runner._worker is None and not self.runner.timeline.__len__() and self.runner.error is None:
            self.start()

    def toggle_play(self) -> None:
        if self.runner.playing:
            self.runner.pause()
            return
        if self.runner.finished or self.runner.error or self.runner._worker is None:
            self.start(play=True)
        else:
            self.runner.play()

    def play(self) -> None:
        if not self.runner.playing:
            self.toggle_play()

    def pause(self) -> None:
        self.runner.pause()

    def step(self) -> None:
        if self.runner._worker is None and not len(self.runner.timeline):
            self.start()
        self.runner.step()

    def step_back(self) -> None:
        self.runner.step_back()

    def reset(self) -> None:
        was_playing = self.runner.playing
        self.start(play=was_playing)

    def run_to(self, step: int) -> None:
        if self.runner._worker is None:
            self.start()
        self.runner.run_to(step)

    def on_param_changed(self, name: str) -> None:
        """Parameters changed: restart from step 0 (continuing to play if it was)."""
        self.reset()

    def _seed_changed(self, seed: int) -> None:
        self.seed = int(seed)
        self.reset()

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
        try:
            self.render(snapshot, prepared, self.runner.history())
            now = time.perf_counter()
            # Rich-text layout is slow and nobody reads 30 formulas a second: while
            # playing, the maths panel follows at a few updates per second.
            if not self.runner.playing or now - self._maths_time > MATHS_INTERVAL:
                self._maths_time = now
                self.maths.set_html(self.maths_html(snapshot))
        except Exception as exc:  # noqa: BLE001 - a drawing bug must not take the app down
            log.exception("drawing failed")
            self.show_error(f"Could not draw this step: {exc}")
        self._update_controls()

    def _update_controls(self) -> None:
        r = self.runner
        snap = r.current
        note = ""
        if r.error:
            note = "error"
        elif r.finished and r.current_index == len(r.timeline) - 1:
            note = "finished"
        self.runbar.set_state(
            playing=r.playing,
            can_step=r.active or (0 <= r.cursor < len(r.timeline) - 1),
            can_back=r.current_index > 0,
            length=len(r.timeline),
            index=r.current_index,
            step=None if snap is None else snap.step,
            note=note,
        )
        self.statusChanged.emit()

    def show_error(self, message: str) -> None:
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

    def restore_session(self, state: dict, *, replay: bool = True) -> None:
        """Apply a session dict (parameters, seed, user data, step); raises ValueError."""
        if not isinstance(state, dict) or state.get("format") != "smllab-session":
            raise ValueError("not an SML Lab session file")
        if state.get("lab") != self.id:
            raise ValueError(f"this session belongs to the lab {state.get('lab')!r}, not {self.id!r}")
        params = state.get("parameters", {})
        if not isinstance(params, dict):
            raise ValueError("session parameters must be a mapping")
        self.set_user_data(state.get("user_data") or {})
        rejected = self.form.set_values(params)
        self.after_params_restored()
        self.set_seed(int(state.get("seed", 0)))
        self.start()
        step = int(state.get("step", 0) or 0)
        if replay and step > 0:
            self.runner.run_to(step)
        if rejected:
            self.show_error("Some saved settings were not valid and kept their defaults: " + ", ".join(rejected))

    def after_params_restored(self) -> None:
        """Hook: update dependent widgets after parameters were set programmatically."""

    def export_csv(self, path: str) -> None:
        header, rows = self.export_rows()
        with open(path, "w", newline="", encoding="utf-8") as fh:
            writer = csv.writer(fh)
            if header:
                writer.writerow(header)
            writer.writerows(rows)
