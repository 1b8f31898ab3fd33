"""The run bar every lab shows: play/pause, step, step back, reset, speed, seed, timeline."""

from __future__ import annotations

from PySide6 import QtCore, QtWidgets

# 0 means "as fast as possible" (a float, never None: see app.runner.Runner)
SPEEDS: list[tuple[str, float]] = [
    ("1 step/s", 1.0),
    ("2 steps/s", 2.0),
    ("5 steps/s", 5.0),
    ("10 steps/s", 10.0),
    ("20 steps/s", 20.0),
    ("50 steps/s", 50.0),
    ("200 steps/s", 200.0),
    ("1000 steps/s", 1000.0),
    ("Fastest", 0.0),  # as fast as the computer can
]
DEFAULT_SPEED_INDEX = 4


class RunBar(QtWidgets.QWidget):
    playToggled = QtCore.Signal()
    stepRequested = QtCore.Signal()
    stepBackRequested = QtCore.Signal()
    resetRequested = QtCore.Signal()
    speedChanged = QtCore.Signal(float)  # steps/s; 0 = as fast as possible
    seedChanged = QtCore.Signal(int)
    seekRequested = QtCore.Signal(int)

    def __init__(self, parent=None):
        super().__init__(parent)
        style = self.style()
        sp = QtWidgets.QStyle.StandardPixmap
        self.play_button = QtWidgets.QPushButton(style.standardIcon(sp.SP_MediaPlay), "Play")
        self.play_button.setToolTip("Play / pause the algorithm (Space)")
        self.step_button = QtWidgets.QPushButton(style.standardIcon(sp.SP_MediaSeekForward), "Step")
        self.step_button.setToolTip("Advance exactly one step (→)")
        self.back_button = QtWidgets.QPushButton(style.standardIcon(sp.SP_MediaSeekBackward), "Back")
        self.back_button.setToolTip("Step back through the recorded timeline (←)")
        self.reset_button = QtWidgets.QPushButton(style.standardIcon(sp.SP_BrowserReload), "Reset")
        self.reset_button.setToolTip("Start again from step 0 with the current parameters (R)")
        self.speed = QtWidgets.QComboBox()
        for text, value in SPEEDS:
            self.speed.addItem(text, value)
        self.speed.setCurrentIndex(DEFAULT_SPEED_INDEX)
        self.speed.setToolTip("How many algorithm steps are shown per second while playing "
                              "(Fastest: as fast as the computer can)")
        # as wide as its longest choice, not wider: the run bar fits 1024 px in projector mode
        self.speed.setSizeAdjustPolicy(QtWidgets.QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.speed.setMinimumContentsLength(10)  # in widths of "X": "1000 steps/s" fits
        self.seed = QtWidgets.QSpinBox()
        self.seed.setRange(0, 2**31 - 1)
        self.seed.setValue(0)
        self.seed.setPrefix("seed ")
        self.seed.setToolTip("Random seed: the same seed replays the same run exactly")
        self._fit_seed()
        self.slider = QtWidgets.QSlider(QtCore.Qt.Orientation.Horizontal)
        self.slider.setRange(0, 0)
        self.slider.setToolTip("Scrub through the recorded timeline")
        self.slider.setMinimumWidth(40)
        self.step_label = _StepLabel("step 0")

        lay = QtWidgets.QHBoxLayout(self)
        lay.setContentsMargins(4, 2, 4, 2)
        for w in (self.play_button, self.step_button, self.back_button, self.reset_button, self.speed, self.seed):
            lay.addWidget(w)
        lay.addWidget(self.slider, 1)
        lay.addWidget(self.step_label)

        self.play_button.clicked.connect(self.playToggled)
        self.step_button.clicked.connect(self.stepRequested)
        self.back_button.clicked.connect(self.stepBackRequested)
        self.reset_button.clicked.connect(self.resetRequested)
        self.speed.currentIndexChanged.connect(lambda i: self.speedChanged.emit(self.speed.itemData(i)))
        self.seed.valueChanged.connect(self.seedChanged)
        self.slider.valueChanged.connect(self._slider_moved)
        self._updating = False
        for b in (self.play_button, self.step_button, self.back_button, self.reset_button):
            b.setFocusPolicy(QtCore.Qt.FocusPolicy.NoFocus)

    def _fit_seed(self) -> None:
        """Room for seven digits: the box would otherwise be as wide as its largest seed
        (ten digits) and, in projector fonts, push the run bar past a 1024 px screen."""
        box = self.seed
        fm = box.fontMetrics()
        frame = box.minimumSizeHint().width() - fm.horizontalAdvance(box.prefix() + str(box.maximum()))
        box.setMinimumWidth(max(0, frame) + fm.horizontalAdvance(box.prefix() + "0000000"))

    def changeEvent(self, event) -> None:  # Qt's name
        super().changeEvent(event)
        if event.type() in (QtCore.QEvent.Type.FontChange, QtCore.QEvent.Type.StyleChange):
            self._fit_seed()

    def _slider_moved(self, value: int) -> None:
        if not self._updating:
            self.seekRequested.emit(value)

    def set_state(self, *, playing: bool, can_step: bool, can_back: bool, length: int, index: int, step: int | None,
                  note: str = "") -> None:
        sp = QtWidgets.QStyle.StandardPixmap
        if playing != getattr(self, "_shown_playing", None):
            # Only touch widgets whose state changed: a text or icon change relayouts
            # the bar, and this runs at every redraw.
            self._shown_playing = playing
            self.play_button.setText("Pause" if playing else "Play")
            self.play_button.setIcon(self.style().standardIcon(sp.SP_MediaPause if playing else sp.SP_MediaPlay))
        self.step_button.setEnabled(can_step)
        self.back_button.setEnabled(can_back)
        self._updating = True
        self.slider.setRange(0, max(0, length - 1))
        self.slider.setValue(max(0, index))
        self._updating = False
        text = ("step –" if step is None else f"step {step}") + (f" · {note}" if note else "")
        if text != self.step_label.text():
            self.step_label.setText(text)

    @property
    def rate(self) -> float:
        return float(self.speed.currentData())


class _StepLabel(QtWidgets.QLabel):
    """The step counter: a fixed-size label that grows in generous jumps.

    Its text changes at every redraw. A label whose size may change asks its layout to
    redo itself, and that request climbs to the lab's tab widget, which then repaints the
    whole lab (every plot) at every frame; a fixed-size widget asks nothing.
    """

    def __init__(self, text: str = ""):
        super().__init__(text)
        self._fit()

    def setText(self, text: str) -> None:  # Qt's name
        super().setText(text)
        if self._needed_width() > self.width():
            self._fit()

    def _needed_width(self) -> int:
        return self.fontMetrics().horizontalAdvance(self.text()) + 8

    def _fit(self) -> None:
        fm = self.fontMetrics()
        width = max(self._needed_width() + fm.horizontalAdvance("00"), fm.horizontalAdvance("step 00000") + 8)
        self.setFixedSize(width, max(fm.height() + 4, super().sizeHint().height()))

    def changeEvent(self, event) -> None:  # Qt's name
        super().changeEvent(event)
        if event.type() in (QtCore.QEvent.Type.FontChange, QtCore.QEvent.Type.StyleChange):
            self._fit()

