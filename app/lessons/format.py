"""The ``.smllesson`` format: a title, an introduction and an ordered list of steps.

A lesson file is one JSON document::

    {"format": "smllab-lesson", "version": 1, "title": "...", "introduction": "...",
     "steps": [
       {"state": {<a session: "format": "smllab-session", "lab", "parameters", "seed",
                  "user_data", "step">},
        "prompt": "What the class is asked to look at",
        "question": {"text": "...", "choices": ["...", "..."], "correct": 0},   # optional
        "reveal": {"run_to": 40}                                              # optional
               or {"until": {"metric": "engine.n_mistakes", "op": "<=", "value": 0}, "budget": 500}
               or {"until": "finished", "budget": 500},
        "answer": "shown beside the class's vote after the reveal",
        "locked": ["dataset"], "hidden": ["learning_rate"],
        "view": "Compression",          # optional: the lab's plot tab shown (its title)
        "notes": "for the teacher only (never on the projector)"}]}

Each step's ``state`` is exactly what a session file holds and is checked the same way
(:func:`app.session.check_session_state`), and more strictly: a lesson runs exactly as written,
so a parameter the lab does not have or a value out of its range, and a locked or hidden name
that is no control of the lab, refuse the lesson with the step and the field named; so does a
view naming a tab the lab does not have, when the lesson is opened in a window (the player
builds the lab to read its tabs: :func:`app.lessons.views.check_views`).
Conditions are data, never code: a metric named by the lab's :meth:`~app.lab.Lab.lesson_values`,
a comparison and a number, or ``"finished"``.

Reading never changes anything: :func:`load_lesson` returns a :class:`Lesson` or raises
``ValueError`` with a short reason naming the step and the field.
"""

from __future__ import annotations

import functools
import json
import math
import operator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from .. import registry
from ..json_files import read_json_file
from ..session import check_session_state, parameter_problem, save_session
from ..snapshot_values import numeric_values  # noqa: F401 - the lesson format's interface

FORMAT = "smllab-lesson"
VERSION = 1
SUFFIX = ".smllesson"
MAX_LESSON_BYTES = 20 * 2**20
MAX_STEPS = 50
MAX_RUN_STEPS = 100_000  # a reveal's target step or budget
MAX_TEXT = 4000
MAX_SHORT = 300
MAX_CHOICES = 8
MAX_NAMES = 100

OPERATORS: dict[str, Callable[[float, float], bool]] = {
    "<": operator.lt, "<=": operator.le, "==": operator.eq, "!=": operator.ne, ">=": operator.ge, ">": operator.gt,
}


@dataclass(frozen=True)
class Condition:
    """``finished`` (the run ended), or ``metric op value`` on the snapshot shown."""

    metric: str = ""
    op: str = "<="
    value: float = 0.0
    finished: bool = False

    def to_json(self):
        return "finished" if self.finished else {"metric": self.metric, "op": self.op, "value": self.value}

    def describe(self) -> str:
        return "the run finishes" if self.finished else f"{self.metric} {self.op} {self.value:g}"

    def met(self, values: dict[str, float], finished: bool) -> bool:
        """True when the condition holds (a metric that is missing or NaN never does)."""
        if self.finished:
            return bool(finished)
        v = values.get(self.metric)
        if v is None or math.isnan(v):
            return False
        return bool(OPERATORS[self.op](float(v), float(self.value)))


@dataclass(frozen=True)
class Reveal:
    """Run to the step ``run_to``, or play until ``until`` holds within ``budget`` steps."""

    run_to: int | None = None
    until: Condition | None = None
    budget: int = 1000

    def to_json(self) -> dict:
        if self.until is None:
            return {"run_to": self.run_to}
        return {"until": self.until.to_json(), "budget": self.budget}

    def describe(self) -> str:
        if self.until is None:
            return f"run to step {self.run_to}"
        return f"run until {self.until.describe()} (at most {self.budget} steps)"


@dataclass(frozen=True)
class Question:
    text: str
    choices: tuple[str, ...]
    correct: int | None = None

    def to_json(self) -> dict:
        out: dict[str, Any] = {"text": self.text, "choices": list(self.choices)}
        if self.correct is not None:
            out["correct"] = self.correct
        return out


@dataclass
class LessonStep:
    state: dict
    prompt: str = ""
    question: Question | None = None
    reveal: Reveal | None = None
    answer: str = ""
    locked: tuple[str, ...] = ()
    hidden: tuple[str, ...] = ()
    notes: str = ""
    view: str = ""

    @property
    def lab(self) -> str:
        return str(self.state.get("lab", ""))

    def to_json(self) -> dict:
        out: dict[str, Any] = {"state": self.state, "prompt": self.prompt}
        if self.question is not None:
            out["question"] = self.question.to_json()
        if self.reveal is not None:
            out["reveal"] = self.reveal.to_json()
        if self.answer:
            out["answer"] = self.answer
        out["locked"] = list(self.locked)
        out["hidden"] = list(self.hidden)
        if self.notes:
            out["notes"] = self.notes
        if self.view:
            out["view"] = self.view
        return out


@dataclass
class Lesson:
    title: str = "Untitled lesson"
    introduction: str = ""
    steps: list[LessonStep] = field(default_factory=list)

    def to_json(self) -> dict:
        return {"format": FORMAT, "version": VERSION, "title": self.title, "introduction": self.introduction,
                "steps": [s.to_json() for s in self.steps]}

    def labs(self) -> list[str]:
        seen: list[str] = []
        for s in self.steps:
            if s.lab not in seen:
                seen.append(s.lab)
        return seen


# ---------------------------------------------------------------------------- checking
def _text(value, where: str, limit: int = MAX_TEXT, required: bool = False) -> str:
    if value is None and not required:
        return ""
    if not isinstance(value, str):
        raise ValueError(f"{where} must be text, got {type(value).__name__}")
    if required and not value.strip():
        raise ValueError(f"{where} must not be empty")
    if len(value) > limit:
        raise ValueError(f"{where} is too long ({len(value)} characters; at most {limit})")
    return value


def _whole(value, where: str, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{where} must be a whole number between {lo} and {hi}")
    if isinstance(value, float) and (not math.isfinite(value) or value != int(value)):
        raise ValueError(f"{where} must be a whole number between {lo} and {hi}")
    if not lo <= int(value) <= hi:
        raise ValueError(f"{where} must be between {lo} and {hi}, got {int(value)}")
    return int(value)


def _names(value, where: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or len(value) > MAX_NAMES:
        raise ValueError(f"{where} must be a list of at most {MAX_NAMES} control names")
    for v in value:
        if not isinstance(v, str) or not 0 < len(v) <= 64:
            raise ValueError(f"{where} must hold control names (text)")
    return tuple(value)


def parse_condition(value, where: str) -> Condition:
    if value == "finished":
        return Condition(finished=True)
    if not isinstance(value, dict):
        raise ValueError(f'{where} must be "finished" or {{"metric", "op", "value"}}')
    metric = _text(value.get("metric"), f"{where}'s metric", 80, required=True)
    op = value.get("op", "<=")
    if op not in OPERATORS:
        raise ValueError(f"{where}'s op must be one of {' '.join(OPERATORS)}, got {str(op)[:20]!r}")
    number = value.get("value")
    if isinstance(number, bool) or not isinstance(number, (int, float)) or not math.isfinite(number):
        raise ValueError(f"{where}'s value must be a finite number")
    return Condition(metric=metric, op=op, value=float(number))


def parse_reveal(value, where: str) -> Reveal | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise ValueError(f"{where} must be a mapping")
    if "until" in value:
        until = parse_condition(value["until"], f"{where}'s condition")
        budget = _whole(value.get("budget", 1000), f"{where}'s budget", 1, MAX_RUN_STEPS)
        return Reveal(until=until, budget=budget)
    if "run_to" in value:
        return Reveal(run_to=_whole(value["run_to"], f"{where}'s run_to", 0, MAX_RUN_STEPS))
    raise ValueError(f'{where} needs "run_to" (a step) or "until" (a condition)')


def parse_question(value, where: str) -> Question | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise ValueError(f"{where} must be a mapping")
    text = _text(value.get("text"), f"{where}'s text", MAX_TEXT, required=True)
    choices = value.get("choices", [])
    if not isinstance(choices, list) or not 2 <= len(choices) <= MAX_CHOICES:
        raise ValueError(f"{where} must have between 2 and {MAX_CHOICES} choices")
    clean = tuple(_text(c, f"{where}'s choice {i + 1}", MAX_SHORT, required=True) for i, c in enumerate(choices))
    correct = value.get("correct")
    if correct is not None:
        correct = _whole(correct, f"{where}'s correct choice", 0, len(clean) - 1)
    return Question(text=text, choices=clean, correct=correct)


#: the run bar's seed box, which a step may lock or hide as a parameter (app.lessons.locks.SEED)
SEED_CONTROL = "seed"


@functools.lru_cache(maxsize=None)
def lab_parameters(lab_id: str) -> dict:
    """``{name: Param}`` of the lab's parameter form, read from its class without building it
    (a lab's ``parameter_specs`` states its rows and reads no state of the lab); ``ValueError``
    for a lab the registry does not know."""
    try:
        info = registry.get(lab_id)
    except KeyError:
        known = ", ".join(i.id for i in registry.discover())
        raise ValueError(f"unknown lab {lab_id[:40]!r} (known labs: {known})") from None
    cls = info.cls
    return {p.name: p for p in cls.parameter_specs(cls)}


def default_session_check(lab_id: str, state: dict) -> None:
    """Check a step's state as a session file of ``lab_id`` is checked, and more strictly: a
    lesson runs exactly as written, so a parameter the lab does not have, or a value its form
    would clamp or refuse, is an error here (a session applies the rest and names them)."""
    specs = lab_parameters(lab_id)
    params, _user, _seed, _step = check_session_state(lab_id, state)
    for name, value in params.items():
        spec = specs.get(name)
        if spec is None:
            raise ValueError(f"parameters ▸ {str(name)[:40]!r} is not a parameter of the lab {lab_id!r}")
        problem = parameter_problem(spec, value)
        if problem:
            raise ValueError(f"parameters ▸ {problem}")


def check_controls(lab_id: str, names: tuple[str, ...], where: str) -> None:
    """Refuse a locked or hidden name that is no control of the lab (a mistyped lock would leave
    the control free in front of the class)."""
    specs = lab_parameters(lab_id)
    for name in names:
        if name != SEED_CONTROL and name not in specs:
            known = ", ".join([*specs, SEED_CONTROL])
            raise ValueError(f"{where}: {name[:40]!r} is not a control of the lab {lab_id!r} "
                             f"(its controls: {known[:160]})")


def parse_lesson(doc, check_state: Callable[[str, dict], None] | None = default_session_check) -> Lesson:
    """A :class:`Lesson` from a decoded JSON document; ``ValueError`` naming what is wrong."""
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ValueError("not an SML Lab lesson file")
    version = doc.get("version")
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise ValueError("the lesson has no valid version number")
    if version > VERSION:
        raise ValueError(f"this lesson was written by a newer SML Lab (format {version}); "
                         f"this version reads format {VERSION}")
    title = _text(doc.get("title"), "the title", MAX_SHORT, required=True)
    intro = _text(doc.get("introduction"), "the introduction")
    steps = doc.get("steps")
    if not isinstance(steps, list) or not steps:
        raise ValueError("the lesson must have a list of steps (at least one)")
    if len(steps) > MAX_STEPS:
        raise ValueError(f"the lesson has {len(steps)} steps; at most {MAX_STEPS} are allowed")
    out = []
    for i, raw in enumerate(steps, start=1):
        where = f"step {i}"
        if not isinstance(raw, dict):
            raise ValueError(f"{where} must be a mapping")
        state = raw.get("state")
        if not isinstance(state, dict):
            raise ValueError(f"{where} has no lab state")
        lab_id = state.get("lab")
        if not isinstance(lab_id, str) or not lab_id:
            raise ValueError(f"{where}'s state names no lab")
        if check_state is not None:
            try:
                check_state(lab_id, state)
            except ValueError as exc:
                raise ValueError(f"{where}: {str(exc)[:240]}") from None
        start = _whole(state.get("step", 0) or 0, f"{where}'s state step", 0, MAX_RUN_STEPS)
        reveal = parse_reveal(raw.get("reveal"), f"{where}'s reveal")
        if reveal is not None and reveal.run_to is not None and reveal.run_to < start:
            raise ValueError(f"{where}'s reveal runs to step {reveal.run_to}, before its state's step {start}")
        locked = _names(raw.get("locked"), f"{where}'s locked controls")
        hidden = _names(raw.get("hidden"), f"{where}'s hidden controls")
        if check_state is default_session_check:  # the registry's labs: their controls are known
            check_controls(lab_id, locked, f"{where}'s locked controls")
            check_controls(lab_id, hidden, f"{where}'s hidden controls")
        out.append(LessonStep(
            state=state,
            prompt=_text(raw.get("prompt"), f"{where}'s prompt"),
            question=parse_question(raw.get("question"), f"{where}'s question"),
            reveal=reveal,
            answer=_text(raw.get("answer"), f"{where}'s answer"),
            locked=locked,
            hidden=hidden,
            notes=_text(raw.get("notes"), f"{where}'s notes"),
            view=_text(raw.get("view"), f"{where}'s view", 80),
        ))
    return Lesson(title=title, introduction=intro, steps=out)


def load_lesson(path, check_state: Callable[[str, dict], None] | None = default_session_check) -> Lesson:
    """Read and check a lesson file; ``ValueError`` with a readable reason if it is not one."""
    path = Path(path)
    doc = read_json_file(path, "lesson", MAX_LESSON_BYTES)
    try:
        return parse_lesson(doc, check_state)
    except RecursionError:
        raise ValueError(f"{path.name} is nested too deeply to be a lesson file") from None
    except ValueError as exc:
        raise ValueError(f"{path.name}: {exc}") from None


def save_lesson(path, lesson: Lesson) -> None:
    """Write atomically (as sessions are written); the lesson is checked first."""
    parse_lesson(json.loads(json.dumps(lesson.to_json())), check_state=None)
    save_session(path, lesson.to_json())
