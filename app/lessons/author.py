"""Writing a lesson in the app: the dialog that edits one step (prompt, prediction question,
reveal, answer, which controls are locked or hidden, the teacher's notes) and the one that
names the lesson. The player opens them; they know the lab's controls through :mod:`.locks`."""

from __future__ import annotations

import copy

from PySide6 import QtCore, QtWidgets

from .format import (MAX_CHOICES, OPERATORS, MAX_RUN_STEPS, Condition, LessonStep, Question, Reveal,
                     parse_question, parse_reveal)
from .locks import lockable

FREE, LOCKED, HIDDEN = "free", "locked", "hidden"


def _text_box(text: str, rows: int = 3) -> QtWidgets.QPlainTextEdit:
    box = QtWidgets.QPlainTextEdit(text)
    box.setTabChangesFocus(True)
    box.setMaximumHeight(box.fontMetrics().lineSpacing() * (rows + 1) + 12)
    return box


class StepDialog(QtWidgets.QDialog):
    """Edit a :class:`LessonStep` of ``lab``; :meth:`result_step` gives the edited copy."""

    def __init__(self, step: LessonStep, lab, parent=None):
        super().__init__(parent)
        self.setWindowTitle(f"Lesson step · {lab.title}")
        self._step = step
        self._lab = lab
        outer = QtWidgets.QVBoxLayout(self)
        scroll = QtWidgets.QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        body = QtWidgets.QWidget()
        form = QtWidgets.QFormLayout(body)
        form.setRowWrapPolicy(QtWidgets.QFormLayout.RowWrapPolicy.WrapLongRows)
        scroll.setWidget(body)
        outer.addWidget(scroll, 1)

        self.prompt = _text_box(step.prompt)
        form.addRow("Prompt for the class", self.prompt)
        q = step.question
        self.question = QtWidgets.QLineEdit(q.text if q else "")
        self.question.setPlaceholderText("optional: a prediction question asked before the reveal")
        form.addRow("Question", self.question)
        self.choices = _text_box("\n".join(q.choices) if q else "", rows=4)
        self.choices.setPlaceholderText(f"one choice per line (2 to {MAX_CHOICES})")
        form.addRow("Choices", self.choices)
        self.correct = QtWidgets.QSpinBox()
        self.correct.setRange(0, MAX_CHOICES)
        self.correct.setSpecialValueText("none")
        self.correct.setValue(0 if q is None or q.correct is None else q.correct + 1)
        form.addRow("Correct choice (1 = first)", self.correct)

        self.reveal_kind = QtWidgets.QComboBox()
        self.reveal_kind.addItem("no run (show the answer)", "none")
        self.reveal_kind.addItem("run to a step", "run_to")
        self.reveal_kind.addItem("run until a condition holds", "until")
        form.addRow("Reveal", self.reveal_kind)
        self.run_to = QtWidgets.QSpinBox()
        self.run_to.setRange(0, MAX_RUN_STEPS)
        form.addRow("Run to step", self.run_to)
        self.metric_box = QtWidgets.QComboBox()  # (not "metric": QWidget.metric is a method Qt calls)
        self.metric_box.setEditable(True)
        self.metric_box.addItem("finished")
        snap = lab.runner.current
        if snap is not None:
            self.metric_box.addItems(sorted(lab.lesson_values(snap)))
        self.op = QtWidgets.QComboBox()
        self.op.addItems(list(OPERATORS))
        self.value = QtWidgets.QDoubleSpinBox()
        self.value.setRange(-1e12, 1e12)
        self.value.setDecimals(6)
        cond = QtWidgets.QHBoxLayout()
        cond.addWidget(self.metric_box, 2)
        cond.addWidget(self.op)
        cond.addWidget(self.value, 1)
        form.addRow("Condition", cond)
        self.budget = QtWidgets.QSpinBox()
        self.budget.setRange(1, MAX_RUN_STEPS)
        self.budget.setValue(1000)
        form.addRow("Step budget", self.budget)
        r = step.reveal
        start = int(step.state.get("step", 0) or 0)
        self.run_to.setValue(start + 20)
        if r is not None and r.until is None:
            self.reveal_kind.setCurrentIndex(1)
            self.run_to.setValue(r.run_to)
        elif r is not None:
            self.reveal_kind.setCurrentIndex(2)
            self.budget.setValue(r.budget)
            if r.until.finished:
                self.metric_box.setCurrentText("finished")
            else:
                self.metric_box.setCurrentText(r.until.metric)
                self.op.setCurrentText(r.until.op)
                self.value.setValue(r.until.value)
        self.answer = _text_box(step.answer)
        form.addRow("Answer (after the reveal)", self.answer)

        self.controls = QtWidgets.QTableWidget(0, 2)
        self.controls.setHorizontalHeaderLabels(["Control", "In the lesson"])
        self.controls.verticalHeader().setVisible(False)
        self.controls.horizontalHeader().setStretchLastSection(True)
        self._control_boxes: dict[str, QtWidgets.QComboBox] = {}
        for name, label in lockable(lab):
            row = self.controls.rowCount()
            self.controls.insertRow(row)
            item = QtWidgets.QTableWidgetItem(label)
            item.setFlags(item.flags() & ~QtCore.Qt.ItemFlag.ItemIsEditable)
            item.setData(QtCore.Qt.ItemDataRole.UserRole, name)
            self.controls.setItem(row, 0, item)
            box = QtWidgets.QComboBox()
            box.addItems([FREE, LOCKED, HIDDEN])
            box.setCurrentText(HIDDEN if name in step.hidden else LOCKED if name in step.locked else FREE)
            self.controls.setCellWidget(row, 1, box)
            self._control_boxes[name] = box
        self.controls.setMinimumHeight(160)
        form.addRow("Controls", self.controls)
        self.notes = _text_box(step.notes)
        self.notes.setPlaceholderText("for the teacher only; never shown in projector mode")
        form.addRow("Teacher's notes", self.notes)

        self.problem = QtWidgets.QLabel()
        self.problem.setWordWrap(True)
        self.problem.setStyleSheet("QLabel { color: #7A2E00; }")
        outer.addWidget(self.problem)
        buttons = QtWidgets.QDialogButtonBox(QtWidgets.QDialogButtonBox.StandardButton.Ok
                                             | QtWidgets.QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        outer.addWidget(buttons)
        self.reveal_kind.currentIndexChanged.connect(self._kind_changed)
        self._kind_changed()
        screen = self.screen().availableGeometry() if self.screen() else QtCore.QRect(0, 0, 1024, 768)
        self.resize(min(640, screen.width() - 40), min(720, screen.height() - 60))

    def _kind_changed(self) -> None:
        kind = self.reveal_kind.currentData()
        self.run_to.setEnabled(kind == "run_to")
        for w in (self.metric_box, self.op, self.value, self.budget):
            w.setEnabled(kind == "until")

    # ------------------------------------------------------------------ reading the fields
    def set_control(self, name: str, how: str) -> None:
        self._control_boxes[name].setCurrentText(how)

    def result_step(self) -> LessonStep:
        """The edited step; ``ValueError`` naming the field when something does not fit."""
        question = None
        text = self.question.text().strip()
        choices = [c.strip() for c in self.choices.toPlainText().splitlines() if c.strip()]
        if text or choices:
            raw = {"text": text, "choices": choices}
            if self.correct.value():
                raw["correct"] = self.correct.value() - 1
            question = parse_question(raw, "the question")
        kind = self.reveal_kind.currentData()
        reveal: Reveal | None = None
        if kind == "run_to":
            reveal = parse_reveal({"run_to": self.run_to.value()}, "the reveal")
        elif kind == "until":
            metric = self.metric_box.currentText().strip()
            until = "finished" if metric == "finished" else {"metric": metric, "op": self.op.currentText(),
                                                              "value": self.value.value()}
            reveal = parse_reveal({"until": until, "budget": self.budget.value()}, "the reveal")
        locked = tuple(n for n, b in self._control_boxes.items() if b.currentText() == LOCKED)
        hidden = tuple(n for n, b in self._control_boxes.items() if b.currentText() == HIDDEN)
        return LessonStep(state=copy.deepcopy(self._step.state), prompt=self.prompt.toPlainText().strip(),
                          question=question, reveal=reveal, answer=self.answer.toPlainText().strip(),
                          locked=locked, hidden=hidden, notes=self.notes.toPlainText().strip(),
                          view=self._step.view)

    def accept(self) -> None:
        try:
            self.result_step()
        except ValueError as exc:
            self.problem.setText(str(exc))
            return
        super().accept()


class LessonInfoDialog(QtWidgets.QDialog):
    """The lesson's title and introduction."""

    def __init__(self, title: str = "", introduction: str = "", parent=None):
        super().__init__(parent)
        self.setWindowTitle("Lesson")
        form = QtWidgets.QFormLayout(self)
        self.title = QtWidgets.QLineEdit(title)
        self.title.setPlaceholderText("e.g. The perceptron converges — or cycles")
        self.introduction = _text_box(introduction, rows=4)
        form.addRow("Title", self.title)
        form.addRow("Introduction", self.introduction)
        buttons = QtWidgets.QDialogButtonBox(QtWidgets.QDialogButtonBox.StandardButton.Ok
                                             | QtWidgets.QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def values(self) -> tuple[str, str]:
        return self.title.text().strip() or "Untitled lesson", self.introduction.toPlainText().strip()


__all__ = ["StepDialog", "LessonInfoDialog", "Condition", "Question"]
