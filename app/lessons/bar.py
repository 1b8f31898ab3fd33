"""The lesson bar above the labs: "step 3 of 7", the prompt (large in projector mode), the
prediction question with the class's vote, Reveal, the answer beside the vote, and the
teacher's notes (never shown in projector mode)."""

from __future__ import annotations

import html

from PySide6 import QtCore, QtWidgets

from .. import style as theme

LETTERS = "ABCDEFGH"


class LessonBar(QtWidgets.QFrame):
    def __init__(self, player, parent=None):
        super().__init__(parent)
        self.player = player
        self.setObjectName("lessonBar")
        self.setFrameShape(QtWidgets.QFrame.Shape.StyledPanel)
        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(8, 4, 8, 4)
        lay.setSpacing(4)

        top = QtWidgets.QHBoxLayout()
        self.heading = QtWidgets.QLabel()
        self.heading.setTextFormat(QtCore.Qt.TextFormat.RichText)
        self.heading.setWordWrap(True)  # a long title wraps: the bar never widens the window
        top.addWidget(self.heading, 1)
        # the teacher types the class's votes here, beside the buttons (one row for the whole bar)
        self.votes_widget = QtWidgets.QWidget()
        self.choices_row = QtWidgets.QHBoxLayout(self.votes_widget)
        self.choices_row.setContentsMargins(0, 0, 8, 0)
        self.choices_row.setSpacing(4)
        top.addWidget(self.votes_widget)
        self.previous_button = QtWidgets.QPushButton("◀ Previous")
        self.reveal_button = QtWidgets.QPushButton("Reveal")
        self.next_button = QtWidgets.QPushButton("Next ▶")
        self.leave_button = QtWidgets.QPushButton("Leave")
        self.previous_button.setToolTip("The previous step (PageUp)")
        self.reveal_button.setToolTip("Run the lab to answer the question (PageDown or Space)")
        self.next_button.setToolTip("The next step (PageDown or Space once revealed)")
        self.leave_button.setToolTip("Leave the lesson: the labs return to their state before it")
        for b in (self.previous_button, self.reveal_button, self.next_button, self.leave_button):
            b.setFocusPolicy(QtCore.Qt.FocusPolicy.NoFocus)  # Space and PageDown stay the clicker's
            top.addWidget(b)
        lay.addLayout(top)

        self.prompt = QtWidgets.QLabel()
        self.prompt.setWordWrap(True)
        self.prompt.setObjectName("lessonPrompt")
        lay.addWidget(self.prompt)

        self.question_box = QtWidgets.QWidget()
        q = QtWidgets.QVBoxLayout(self.question_box)
        q.setContentsMargins(0, 0, 0, 0)
        q.setSpacing(2)
        self.question = QtWidgets.QLabel()
        self.question.setWordWrap(True)
        self.question.setTextFormat(QtCore.Qt.TextFormat.RichText)
        q.addWidget(self.question)
        self.choice_labels: list[QtWidgets.QLabel] = []
        self.vote_boxes: list[QtWidgets.QSpinBox] = []
        lay.addWidget(self.question_box)

        self.result_box = QtWidgets.QWidget()
        r = QtWidgets.QHBoxLayout(self.result_box)
        r.setContentsMargins(0, 0, 0, 0)
        self.answer = QtWidgets.QLabel()
        self.answer.setWordWrap(True)
        self.answer.setTextFormat(QtCore.Qt.TextFormat.RichText)
        self.vote_summary = QtWidgets.QLabel()
        self.vote_summary.setTextFormat(QtCore.Qt.TextFormat.RichText)
        self.vote_summary.setWordWrap(True)
        self.vote_summary.setAlignment(QtCore.Qt.AlignmentFlag.AlignTop)
        r.addWidget(self.answer, 1)
        r.addWidget(self.vote_summary, 1)
        lay.addWidget(self.result_box)

        self.notes = QtWidgets.QLabel()
        self.notes.setWordWrap(True)
        self.notes.setObjectName("lessonNotes")
        lay.addWidget(self.notes)
        self.message = QtWidgets.QLabel()
        self.message.setWordWrap(True)
        self.message.setStyleSheet("QLabel { color: #7A2E00; }")
        lay.addWidget(self.message)

        self.previous_button.clicked.connect(player.previous)
        self.next_button.clicked.connect(player.next)
        self.reveal_button.clicked.connect(player.reveal)
        self.leave_button.clicked.connect(player.leave)
        player.changed.connect(self.refresh)
        theme.manager().changed.connect(self._restyled)  # a bound slot: disconnected when the bar goes
        self._choices_for: tuple = ()
        self.refresh()

    # ------------------------------------------------------------------ height
    def _fit_height(self) -> None:
        """Exactly as tall as the wrapped texts need at the bar's width: the rest of the window's
        height stays with the lab (a wrapped label's size hint assumes a narrower width)."""
        lay = self.layout()
        width = self.width() if self.width() > 100 else self.window().width()
        height = lay.totalHeightForWidth(width) if lay.hasHeightForWidth() else lay.totalSizeHint().height()
        # rich text in a large font measures a little short of what it paints: keep a margin
        height += self.prompt.fontMetrics().lineSpacing() // 2
        if height > 0 and height != self.height():
            self.setFixedHeight(height)

    def resizeEvent(self, event) -> None:  # Qt's name
        super().resizeEvent(event)
        if event.oldSize().width() != event.size().width():
            QtCore.QTimer.singleShot(0, self, self._fit_height)  # dropped if the bar goes first

    # ------------------------------------------------------------------ drawing
    def _restyled(self, _style) -> None:
        self.refresh()

    def _fonts(self) -> None:
        s = theme.current()
        base = self.font()
        prompt = base
        prompt.setPointSizeF(s.font_pt * (1.35 if s.projector else 1.25))
        self.prompt.setFont(prompt)
        mid = self.font()
        mid.setPointSizeF(s.font_pt * 1.05)
        for w in (self.question, self.answer, self.vote_summary):
            w.setFont(mid)

    def _rebuild_choices(self, choices: tuple) -> None:
        if choices == self._choices_for:
            return
        self._choices_for = choices
        while self.choices_row.count():
            item = self.choices_row.takeAt(0)
            if item.widget() is not None:
                item.widget().deleteLater()
        self.choice_labels, self.vote_boxes = [], []
        if choices:
            self.choices_row.addWidget(QtWidgets.QLabel("Votes"))
        for i, text in enumerate(choices):
            label = QtWidgets.QLabel(f"<b>{LETTERS[i]}</b>")
            label.setToolTip(text)
            box = QtWidgets.QSpinBox()
            box.setRange(0, 999)
            box.setToolTip(f"Votes for {LETTERS[i]} (the teacher records the class's show of hands)")
            box.setKeyboardTracking(False)
            box.valueChanged.connect(lambda v, i=i: self.player.set_votes(i, v))
            self.choices_row.addWidget(label)
            self.choices_row.addWidget(box)
            self.choice_labels.append(label)
            self.vote_boxes.append(box)

    def refresh(self) -> None:
        QtCore.QTimer.singleShot(0, self, self._fit_height)
        p = self.player
        step = p.step
        self._fonts()
        self.heading.setText(f"<b>{p.heading()}</b>")
        n = len(p.lesson.steps) if p.lesson is not None else 0
        self.previous_button.setEnabled(p.index > 0)
        self.next_button.setEnabled(0 <= p.index < n - 1)
        has_reveal = step is not None and (step.reveal is not None or step.question is not None or bool(step.answer))
        self.reveal_button.setVisible(has_reveal)
        done = p.index in p.revealed
        self.reveal_button.setEnabled(has_reveal and not p.revealing and not done)
        self.reveal_button.setText("Revealing …" if p.revealing else "Revealed" if done else "Reveal")
        if step is None:
            intro = p.lesson.introduction if p.lesson is not None else ""
            self.prompt.setText(html.escape(intro) or "Lesson ▸ Add the current state as a step")
            self.question_box.setVisible(False)
            self.votes_widget.setVisible(False)
            self.result_box.setVisible(False)
            self.notes.setVisible(False)
            self.message.setVisible(False)
            return
        prompt = step.prompt or (p.lesson.introduction if p.index == 0 else "")
        question = step.question
        revealed = p.index in p.revealed
        self.prompt.setText(html.escape(prompt).replace("\n", "<br>"))
        # after the reveal the answer and the vote take the prompt's place (the class has read it)
        self.prompt.setVisible(bool(prompt) and not revealed)
        # before the reveal: the question and the vote boxes; after it: the answer beside the vote
        self.question_box.setVisible(question is not None and not revealed)
        self.votes_widget.setVisible(question is not None and not revealed)
        counts = p.vote_counts() if question is not None else []
        if question is not None:
            self._rebuild_choices(question.choices)
            self._fonts()
            options = " &nbsp;&nbsp; ".join(f"<b>{LETTERS[i]}</b>&nbsp;{html.escape(c)}"
                                            for i, c in enumerate(question.choices))
            self.question.setText(f"<b>Predict:</b> {html.escape(question.text)}<br>{options}")
            for box, count in zip(self.vote_boxes, counts):
                if box.value() != count:
                    box.blockSignals(True)
                    box.setValue(count)
                    box.blockSignals(False)
        self.result_box.setVisible(revealed)
        if revealed:
            parts = []
            if step.answer:
                parts.append(f"<b>Answer:</b> {html.escape(step.answer)}")
            if p.result:
                parts.append(f"<i>{html.escape(p.result)}</i>")
            self.answer.setText("<br>".join(parts))
            self.vote_summary.setText(self._vote_html(question, counts))
            self.vote_summary.setVisible(question is not None)
        s = theme.current()
        self.notes.setVisible(bool(step.notes) and not s.projector)  # never on the projector
        self.notes.setText(f"<i>Teacher's notes: {html.escape(step.notes)}</i>")
        self.message.setVisible(bool(p.message))
        self.message.setText(html.escape(p.message))

    @staticmethod
    def _vote_html(question, counts: list[int]) -> str:
        if question is None:
            return ""
        total = sum(counts)
        top = max(counts) if counts else 0
        rows = []
        for i, (choice, count) in enumerate(zip(question.choices, counts)):
            bar = "█" * (round(10 * count / top) if top else 0)
            mark = " ✓" if question.correct == i else ""
            text = html.escape(choice if len(choice) <= 48 else choice[:47] + "…")
            rows.append(f"<tr><td><b>{LETTERS[i]}</b>{mark}&nbsp;</td><td>{text}&nbsp;</td>"
                        f"<td style='color:#0072B2'>{bar}</td><td>&nbsp;{count}</td></tr>")
        title = f"<b>The class predicted</b> ({total} vote{'s' if total != 1 else ''})"
        return f"{title}<table cellspacing='0'>{''.join(rows)}</table>"
