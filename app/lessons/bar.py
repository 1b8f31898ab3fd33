"""The lesson panel: "step 3 of 7", the buttons, the prompt, the prediction question with one row
per choice (the class's vote beside it), and after the reveal the answer and the votes with the
correct choice marked; the teacher's notes never show in projector mode.

What changes at the reveal shares a place with what it replaces: the answer takes the prompt's
place, each choice's count takes its vote box's place, and each place is as large as the larger
of the two. So the panel has one size for the step, and the reveal moves nothing under the
mouse. The panel stands above the lab (:meth:`LessonBar.set_side` False), as tall as its texts
need, or beside it (True, projector mode), as tall as the window, with its texts set as large as
lets every line fit (never below :attr:`LessonBar.LEAST_SCALE` of their full size). Nothing in
it ever scrolls or is clipped.
"""

from __future__ import annotations

import html

from PySide6 import QtCore, QtGui, QtWidgets

from .. import style as theme

LETTERS = "ABCDEFGH"
MAX_SIZE = 16_777_215  # QWIDGETSIZE_MAX
BAR_BLOCKS = 5  # the longest bar of the class's votes, in blocks


def _label(rich: bool = True, name: str = "", wrap: bool = True) -> QtWidgets.QLabel:
    label = QtWidgets.QLabel()
    label.setWordWrap(wrap)
    label.setTextFormat(QtCore.Qt.TextFormat.RichText if rich else QtCore.Qt.TextFormat.PlainText)
    label.setAlignment(QtCore.Qt.AlignmentFlag.AlignLeft | QtCore.Qt.AlignmentFlag.AlignTop)
    if name:
        label.setObjectName(name)
    return label


class _Place(QtWidgets.QWidget):
    """Two widgets in one place, one shown at a time; the place is as large as the larger needs
    (a wrapped label's height at the place's width counts), or as a third that is never shown
    (``reserve``: what the second will hold at most)."""

    def __init__(self, first: QtWidgets.QWidget, second: QtWidgets.QWidget, reserve: QtWidgets.QWidget | None = None):
        super().__init__()
        self.items = (first, second)
        self.measured = self.items + ((reserve,) if reserve is not None else ())
        for w in self.measured:
            w.setParent(self)
        if reserve is not None:
            reserve.hide()
        policy = QtWidgets.QSizePolicy(QtWidgets.QSizePolicy.Policy.Preferred, QtWidgets.QSizePolicy.Policy.Preferred)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)
        self.show_second(False)

    def show_second(self, on: bool) -> None:
        self.items[0].setVisible(not on)
        self.items[1].setVisible(on)

    @staticmethod
    def _height(w: QtWidgets.QWidget, width: int) -> int:
        return w.heightForWidth(width) if w.hasHeightForWidth() else w.sizeHint().height()

    def hasHeightForWidth(self) -> bool:  # Qt's name
        return True

    def heightForWidth(self, width: int) -> int:  # Qt's name
        return max(self._height(w, width) for w in self.measured)

    def sizeHint(self) -> QtCore.QSize:  # Qt's name
        hints = [w.sizeHint() for w in self.measured]
        width = max(h.width() for h in hints)
        return QtCore.QSize(width, self.heightForWidth(width))

    def minimumSizeHint(self) -> QtCore.QSize:  # Qt's name
        hints = [w.minimumSizeHint() for w in self.measured]
        return QtCore.QSize(max(h.width() for h in hints), max(h.height() for h in hints))

    def resizeEvent(self, event) -> None:  # Qt's name
        super().resizeEvent(event)
        for w in self.items:
            tall = self.height() if w.hasHeightForWidth() else min(self.height(), w.sizeHint().height())
            w.setGeometry(0, 0, self.width(), tall)

    def event(self, event) -> bool:  # Qt's name
        if event.type() == QtCore.QEvent.Type.LayoutRequest:
            self.updateGeometry()  # a child's text or font changed: the parent's layout asks again
            for w in self.items:
                tall = self.height() if w.hasHeightForWidth() else min(self.height(), w.sizeHint().height())
                w.setGeometry(0, 0, self.width(), tall)
        return super().event(event)


class LessonBar(QtWidgets.QFrame):
    #: the smallest share of their full size the texts may take to fit beside the lab
    LEAST_SCALE = 0.6

    def __init__(self, player, parent=None):
        super().__init__(parent)
        self.player = player
        self.setObjectName("lessonBar")
        self.setFrameShape(QtWidgets.QFrame.Shape.StyledPanel)
        self.side = False
        self.scale = 1.0  # the texts' share of their full size (shrunk only beside the lab)
        self._fit_pending = False
        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(8, 4, 8, 4)
        lay.setSpacing(6)

        # the heading beside the buttons (above the lab) or over them (beside it)
        self.top = QtWidgets.QBoxLayout(QtWidgets.QBoxLayout.Direction.LeftToRight)
        self.top.setSpacing(4)
        self.heading = _label(name="lessonHeading")  # a long title wraps: the bar never widens the window
        self.previous_button = QtWidgets.QPushButton("◀ Previous")
        self.reveal_button = QtWidgets.QPushButton("Reveal")
        self.next_button = QtWidgets.QPushButton("Next ▶")
        self.leave_button = QtWidgets.QPushButton("Leave")
        self.previous_button.setToolTip("The previous step (PageUp)")
        self.reveal_button.setToolTip("Run the lab to answer the question (PageDown or Space)")
        self.next_button.setToolTip("The next step (PageDown or Space once revealed)")
        self.leave_button.setToolTip("Leave the lesson: the labs return to their state before it")
        self.buttons = (self.previous_button, self.reveal_button, self.next_button, self.leave_button)
        for b in self.buttons:
            b.setFocusPolicy(QtCore.Qt.FocusPolicy.NoFocus)  # Space and PageDown stay the clicker's
        self.buttons_box = QtWidgets.QWidget()
        self.buttons_grid = QtWidgets.QGridLayout(self.buttons_box)
        self.buttons_grid.setContentsMargins(0, 0, 0, 0)
        self.buttons_grid.setSpacing(4)
        self.top.addWidget(self.heading, 1)
        self.top.addWidget(self.buttons_box, 0, QtCore.Qt.AlignmentFlag.AlignTop)
        lay.addLayout(self.top)

        # the prompt before the reveal, the answer (and what the reveal found) after it
        self.prompt = _label(name="lessonPrompt")
        self.answer = _label(name="lessonAnswer")
        self._answer_reserve = _label()  # the answer with the longest line its reveal may add
        self.text_place = _Place(self.prompt, self.answer, self._answer_reserve)
        lay.addWidget(self.text_place)
        self.question = _label(name="lessonQuestion")
        lay.addWidget(self.question)
        # one row per choice: its letter (✓ once revealed), its text, the votes (a box to type
        # the show of hands into before the reveal, a bar and the count after it)
        self.choices_box = QtWidgets.QWidget()
        self.choices_grid = QtWidgets.QGridLayout(self.choices_box)
        self.choices_grid.setContentsMargins(0, 0, 0, 0)
        self.choices_grid.setHorizontalSpacing(6)
        self.choices_grid.setVerticalSpacing(2)
        self.choices_grid.setColumnStretch(1, 1)
        lay.addWidget(self.choices_box)
        self.choice_letters: list[QtWidgets.QLabel] = []
        self.choice_texts: list[QtWidgets.QLabel] = []
        self.vote_boxes: list[QtWidgets.QSpinBox] = []
        self.count_labels: list[QtWidgets.QLabel] = []
        self._vote_places: list[_Place] = []
        self.notes = _label(rich=False, name="lessonNotes")
        lay.addWidget(self.notes)
        self.message = _label(rich=False, name="lessonMessage")
        self.message.setStyleSheet("QLabel { color: #7A2E00; }")
        lay.addWidget(self.message)
        lay.addStretch(1)

        self.previous_button.clicked.connect(player.previous)
        self.next_button.clicked.connect(player.next)
        self.reveal_button.clicked.connect(player.reveal)
        self.leave_button.clicked.connect(player.leave)
        player.changed.connect(self.refresh)
        theme.manager().changed.connect(self._restyled)  # a bound slot: disconnected when the bar goes
        self._choices_for: tuple = ()
        self._place_top()
        self.refresh()

    # ------------------------------------------------------------------ arrangement
    def set_side(self, side: bool) -> None:
        """Beside the lab (a column as tall as the window) or above it (a row as wide)."""
        side = bool(side)
        if side != self.side:
            self.side = side
            self._place_top()
        if side:
            self.setMinimumHeight(0)
            self.setMaximumHeight(MAX_SIZE)
        else:
            self.setMinimumWidth(0)
            self.setMaximumWidth(MAX_SIZE)
            if self.scale != 1.0:
                self._fonts(1.0)
        self.schedule_fit()

    def _place_top(self) -> None:
        """Above the lab: the heading and the four buttons in one row. Beside it: the heading,
        then the buttons two by two."""
        grid = self.buttons_grid
        for b in self.buttons:
            grid.removeWidget(b)
        for column in range(4):
            grid.setColumnStretch(column, 0)
        if self.side:
            self.top.setDirection(QtWidgets.QBoxLayout.Direction.TopToBottom)
            for i, b in enumerate((self.previous_button, self.next_button, self.reveal_button, self.leave_button)):
                grid.addWidget(b, i // 2, i % 2)
            grid.setColumnStretch(0, 1)
            grid.setColumnStretch(1, 1)
        else:
            self.top.setDirection(QtWidgets.QBoxLayout.Direction.LeftToRight)
            for column, b in enumerate(self.buttons):
                grid.addWidget(b, 0, column)

    # ------------------------------------------------------------------ fitting
    def schedule_fit(self) -> None:
        if not self._fit_pending:
            self._fit_pending = True
            QtCore.QTimer.singleShot(0, self, self.fit)  # dropped if the bar goes first

    @property
    def fitted(self) -> bool:
        """No fit waits: the panel's size and fonts suit its contents (tests wait on it)."""
        return not self._fit_pending

    def needed_height(self, width: int | None = None) -> int:
        """The height the step's texts need at ``width`` (the same before and after the reveal)."""
        width = width or (self.width() if self.width() > 100 else self.window().width())
        lay = self.layout()
        # nested layouts and boxes keep their measures until the next event: measure afresh
        for nested in (self.top, self.buttons_grid, self.choices_grid, lay):
            nested.invalidate()
        for box in (self.buttons_box, self.choices_box, self.text_place, *self._vote_places):
            box.updateGeometry()
        height = lay.totalHeightForWidth(width) if lay.hasHeightForWidth() else lay.totalSizeHint().height()
        # rich text in a large font measures a little short of what it paints: keep a margin
        return height + self.prompt.fontMetrics().lineSpacing() // 2

    def fit(self) -> None:
        """Above the lab: as tall as the step's texts need. Beside it: the largest text size at
        which they fit the panel's height."""
        self._fit_pending = False
        if not self.player.active:
            return
        if not self.side:
            height = self.needed_height()
            if height > 0 and height != self.height():
                self.setFixedHeight(height)
            return
        room = self.height()
        if room < 100:
            return
        scale = 1.0
        self._fonts(scale)
        while scale > self.LEAST_SCALE and self.needed_height(self.width()) > room:
            scale = max(self.LEAST_SCALE, round(scale - 0.05, 2))
            self._fonts(scale)

    def resizeEvent(self, event) -> None:  # Qt's name
        super().resizeEvent(event)
        old, new = event.oldSize(), event.size()
        if old.width() != new.width() or (self.side and old.height() != new.height()):
            self.schedule_fit()

    # ------------------------------------------------------------------ drawing
    def _restyled(self, _style) -> None:
        self.refresh()

    def _fonts(self, scale: float | None = None) -> None:
        if scale is not None:
            self.scale = scale
        s = theme.current()
        k = self.scale
        prompt = self.font()
        prompt.setPointSizeF(s.font_pt * (1.2 if s.projector else 1.25) * k)
        self.prompt.setFont(prompt)
        text = self.font()
        text.setPointSizeF(s.font_pt * (1.0 if s.projector else 1.05) * k)
        for w in (self.heading, self.question, self.answer, self._answer_reserve, *self.choice_letters,
                  *self.choice_texts, *self.count_labels):
            w.setFont(text)
        bold = QtGui.QFont(text)
        bold.setBold(True)
        metrics = QtGui.QFontMetrics(bold)
        marked = max((metrics.horizontalAdvance(f"{c} ✓") for c in LETTERS[:len(self.choice_letters)]), default=0) + 4
        for letter in self.choice_letters:
            letter.setMinimumWidth(marked)  # as wide with the ✓ as without: no choice wraps anew at the reveal

    def _rebuild_choices(self, choices: tuple) -> None:
        if choices == self._choices_for:
            return
        self._choices_for = choices
        while self.choices_grid.count():
            item = self.choices_grid.takeAt(0)
            if item.widget() is not None:
                item.widget().deleteLater()
        self.choice_letters, self.choice_texts, self.vote_boxes, self.count_labels = [], [], [], []
        self._vote_places = []
        for i, text in enumerate(choices):
            letter = _label()
            body = _label()
            body.setText(html.escape(text))
            box = QtWidgets.QSpinBox()
            box.setRange(0, 999)
            box.setToolTip(f"Votes for {LETTERS[i]} (the teacher records the class's show of hands)")
            box.setKeyboardTracking(False)
            box.valueChanged.connect(lambda v, i=i: self.player.set_votes(i, v))
            count = _label(wrap=False)
            place = _Place(box, count)
            self.choices_grid.addWidget(letter, i, 0)
            self.choices_grid.addWidget(body, i, 1)
            self.choices_grid.addWidget(place, i, 2, QtCore.Qt.AlignmentFlag.AlignTop)
            for w in (letter, body, place):
                w.setVisible(True)  # now, not at the next event: the panel is measured before that
            self.choice_letters.append(letter)
            self.choice_texts.append(body)
            self.vote_boxes.append(box)
            self.count_labels.append(count)
            self._vote_places.append(place)

    @staticmethod
    def _stand_in_result(step) -> str:
        """As long as the line a reveal of ``step`` writes under the answer (its place is kept
        before the reveal, so that the answer does not need more room when it comes)."""
        r = step.reveal
        if r is None:
            return ""
        if r.until is None:
            return f"Ran to step {r.run_to}."
        last = int(step.state.get("step", 0) or 0) + r.budget
        if r.until.finished:
            return f"The run finished at step {last}."
        return f"Reached {r.until.describe()} at step {last}."

    def refresh(self) -> None:
        p = self.player
        step = p.step
        self.heading.setText(f"<b>{p.heading()}</b>")
        n = len(p.lesson.steps) if p.lesson is not None else 0
        self.previous_button.setEnabled(p.index > 0)
        self.next_button.setEnabled(0 <= p.index < n - 1)
        has_reveal = step is not None and (step.reveal is not None or step.question is not None or bool(step.answer))
        revealed = p.index in p.revealed
        self.reveal_button.setEnabled(has_reveal and not p.revealing and not revealed)
        self.reveal_button.setText("Revealing …" if p.revealing else "Revealed" if revealed else "Reveal")
        s = theme.current()
        if step is None:
            intro = p.lesson.introduction if p.lesson is not None else ""
            self.prompt.setText(html.escape(intro) or "Lesson ▸ Add the current state as a step")
            self.text_place.show_second(False)
            for w in (self.question, self.choices_box, self.notes, self.message):
                w.setVisible(False)
            self._fonts()
            self.schedule_fit()
            return
        question = step.question
        self._rebuild_choices(question.choices if question is not None else ())
        self._fonts()
        prompt = step.prompt or (p.lesson.introduction if p.index == 0 else "")
        self.prompt.setText(html.escape(prompt).replace("\n", "<br>"))
        answer = f"<b>Answer:</b> {html.escape(step.answer)}" if step.answer else ""
        for label, result in ((self.answer, p.result if revealed else ""),
                              (self._answer_reserve, self._stand_in_result(step))):
            label.setText("<br>".join(part for part in (answer, f"<i>{html.escape(result)}</i>" if result else "")
                                      if part))
        self.text_place.show_second(revealed)
        self.question.setVisible(question is not None)
        self.choices_box.setVisible(question is not None)
        if question is not None:
            self.question.setText(f"<b>Predict:</b> {html.escape(question.text)}")
            counts = p.vote_counts()
            top = max(counts) if counts else 0
            for i, (letter, box, count, place) in enumerate(zip(self.choice_letters, self.vote_boxes,
                                                                 self.count_labels, self._vote_places)):
                mark = " ✓" if revealed and question.correct == i else ""
                letter.setText(f"<b>{LETTERS[i]}{mark}</b>")
                if box.value() != counts[i]:
                    box.blockSignals(True)
                    box.setValue(counts[i])
                    box.blockSignals(False)
                blocks = "█" * (round(BAR_BLOCKS * counts[i] / top) if top else 0)
                count.setText(f"<span style='color:#0072B2'>{blocks}</span>&nbsp;{counts[i]}")
                place.show_second(revealed)
        self.notes.setVisible(bool(step.notes) and not s.projector)  # never on the projector
        self.notes.setText(f"Teacher's notes: {step.notes}")
        self.message.setVisible(bool(p.message))
        self.message.setText(p.message)
        self.schedule_fit()

    # ------------------------------------------------------------------ reading (tests, scripts)
    def text_labels(self) -> list[QtWidgets.QLabel]:
        """The labels that carry the step's words (prompt, answer, question, choices, votes,
        notes, problem), shown or not."""
        return [self.heading, self.prompt, self.answer, self.question, *self.choice_letters, *self.choice_texts,
                *self.count_labels, self.notes, self.message]
