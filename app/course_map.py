"""The course map: the window's home page, every lab as a card under its chapter.

A card shows a picture of the lab in its default state (:mod:`app.thumbnails`; a tile tinted
with the chapter's colour until the picture is drawn), its title, one line of what it shows
and its shipped lessons. Everything on a card comes from the lab's metadata (``chapter``,
``summary``, ``keywords``: :mod:`app.registry`) and from the lessons in ``resources/lessons``,
so a new lab gets its card with no other edit.

The search field narrows the map to the labs and lessons that teach a word: titles,
summaries, descriptions, keywords (method and parameter names, famous examples) and the
lessons' titles and introductions. Keyboard: arrows move between cards, Enter opens one,
typing goes to the search field, Down leaves the field for the first card.

Object names (kept for scripts and tests): the map ``course-map``, its search field
``course-map-search``, each card ``lab-card-<id>``, each lesson link ``lesson-<file stem>``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from PySide6 import QtCore, QtGui, QtWidgets

from . import registry
from .style import CATEGORICAL

#: a card is at least this many text lines wide (and 220 px)
CARD_MIN_LINES = 12
#: width : height of a card's picture
PICTURE_RATIO = 16 / 9
_WORD = re.compile(r"\w+(?:[-'+]\w+)*\+*")
_PARTS = re.compile(r"[-'+_]+")


# ---------------------------------------------------------------------- search
def normalise(text: str) -> str:
    return text.casefold().replace("–", "-").replace("—", "-").replace("’", "'")


def words(text: str) -> frozenset[str]:
    """The searchable words of a text: each word, and each part and the joined form of a
    compound ("k-means++" also gives "k", "means", "kmeans")."""
    out: set[str] = set()
    for word in _WORD.findall(normalise(text)):
        out.add(word)
        parts = [p for p in _PARTS.split(word) if p]
        if len(parts) > 1:
            out.update(parts)
            out.add("".join(parts))
    return frozenset(out)


def query_terms(query: str) -> list[str]:
    return _WORD.findall(normalise(query))


def term_matches(term: str, index: frozenset[str], exact: bool) -> bool:
    """A word of ``index`` is the term, or (``exact`` off) starts with it."""
    return term in index or (not exact and any(w.startswith(term) for w in index))


def exact_terms(terms: list[str], indexes) -> set[str]:
    """The short terms (one or two letters) that are a word somewhere: they match whole words
    only, so "EM" finds EM and not "emission"; a short term that is nobody's word matches as
    the start of words (the first letters of a word being typed)."""
    every = frozenset().union(*indexes) if indexes else frozenset()
    return {t for t in terms if len(t) <= 2 and t in every}


def lab_words(lab) -> frozenset[str]:
    text = " ".join([lab.id, lab.title, lab.summary, lab.description, lab.chapter, *lab.keywords])
    return words(text)


@dataclass(frozen=True)
class ShippedLesson:
    path: Path
    title: str
    labs: tuple[str, ...]
    words: frozenset[str]


#: lessons already read, by path: (modification time and size, the lesson or None)
_read_lessons: dict[Path, tuple[tuple[int, int], ShippedLesson | None]] = {}


def _read_lesson(path: Path) -> ShippedLesson | None:
    """The title, introduction and the steps' labs of a lesson file (None if unreadable); the
    lesson is checked when it is opened. Read once per process while the file is unchanged."""
    try:
        stat = path.stat()
    except OSError:
        return None
    key = (stat.st_mtime_ns, stat.st_size)
    if path in _read_lessons and _read_lessons[path][0] == key:
        return _read_lessons[path][1]
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        steps = doc.get("steps") or []
        labs = tuple(dict.fromkeys(str(s["state"]["lab"]) for s in steps))
        title = str(doc.get("title") or path.stem)[:120]
        intro = str(doc.get("introduction") or "")[:2000]
        lesson = ShippedLesson(path, title, labs, words(f"{title} {intro}"))
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        lesson = None
    _read_lessons[path] = (key, lesson)
    return lesson


def shipped_lessons_by_lab(paths) -> dict[str, list[ShippedLesson]]:
    """The shipped lessons of each lab (a lesson over several labs is listed under each)."""
    found: dict[str, list[ShippedLesson]] = {}
    for path in paths:
        lesson = _read_lesson(Path(path))
        for lab_id in lesson.labs if lesson is not None else ():
            found.setdefault(lab_id, []).append(lesson)
    return found


# ---------------------------------------------------------------------- widgets
def home_icon(size: int = 32, colour: str = CATEGORICAL[0]) -> QtGui.QIcon:
    """A house: the icon of the map's tab."""
    pixmap = QtGui.QPixmap(size, size)
    pixmap.fill(QtCore.Qt.GlobalColor.transparent)
    p = QtGui.QPainter(pixmap)
    p.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
    s = size / 32
    p.setPen(QtCore.Qt.PenStyle.NoPen)
    p.setBrush(QtGui.QColor(colour))
    p.drawPolygon(QtGui.QPolygonF([QtCore.QPointF(16 * s, 3 * s), QtCore.QPointF(30 * s, 16 * s),
                                   QtCore.QPointF(2 * s, 16 * s)]))  # the roof
    p.drawRect(QtCore.QRectF(6 * s, 15 * s, 20 * s, 14 * s))  # the walls
    p.setBrush(QtGui.QColor("#FFFFFF"))
    p.drawRect(QtCore.QRectF(13.5 * s, 20 * s, 5 * s, 9 * s))  # the door
    p.end()
    return QtGui.QIcon(pixmap)


class _Picture(QtWidgets.QWidget):
    """The lab's picture, cropped to the card's shape; a tinted tile with the title until then."""

    def __init__(self, title: str, colour: str, parent=None):
        super().__init__(parent)
        self.title = title
        self.colour = QtGui.QColor(colour)
        self.path = ""
        self._pixmap: QtGui.QPixmap | None = None
        self._scaled: QtGui.QPixmap | None = None
        self.setAttribute(QtCore.Qt.WidgetAttribute.WA_TransparentForMouseEvents)

    def set_picture(self, path: str) -> bool:
        pixmap = QtGui.QPixmap(path)
        if pixmap.isNull():
            return False
        self.path, self._pixmap, self._scaled = path, pixmap, None
        self.update()
        return True

    @property
    def has_picture(self) -> bool:
        return self._pixmap is not None

    def paintEvent(self, event) -> None:  # Qt's name
        p = QtGui.QPainter(self)
        p.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
        r = QtCore.QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5)
        if self._pixmap is not None:
            ratio = self.devicePixelRatioF()
            size = QtCore.QSize(round(self.width() * ratio), round(self.height() * ratio))
            if self._scaled is None or self._scaled.size() != size:
                scaled = self._pixmap.scaled(size, QtCore.Qt.AspectRatioMode.KeepAspectRatioByExpanding,
                                             QtCore.Qt.TransformationMode.SmoothTransformation)
                x, y = (scaled.width() - size.width()) // 2, (scaled.height() - size.height()) // 2
                self._scaled = scaled.copy(x, y, size.width(), size.height())
                self._scaled.setDevicePixelRatio(ratio)
            p.drawPixmap(0, 0, self._scaled)
        else:
            base = self.palette().color(QtGui.QPalette.ColorRole.Base)
            tint = QtGui.QColor(self.colour)
            tint.setAlphaF(0.22)
            p.fillRect(r, base)
            p.fillRect(r, tint)
            font = QtGui.QFont(self.font())
            font.setPointSizeF(font.pointSizeF() * 1.15)
            font.setBold(True)
            p.setFont(font)
            p.setPen(self.palette().color(QtGui.QPalette.ColorRole.Text))
            flags = QtCore.Qt.AlignmentFlag.AlignCenter | QtCore.Qt.TextFlag.TextWordWrap
            p.drawText(r.adjusted(12, 8, -12, -8), flags, self.title)
        pen = QtGui.QPen(self.palette().color(QtGui.QPalette.ColorRole.Mid))
        p.setPen(pen)
        p.setBrush(QtCore.Qt.BrushStyle.NoBrush)
        p.drawRect(r)


class _LessonLink(QtWidgets.QLabel):
    """A shipped lesson on a card: click, Enter or Space opens the lab at its first step."""

    activated = QtCore.Signal()

    def __init__(self, lesson: ShippedLesson, parent=None):
        super().__init__(parent)
        self.lesson = lesson
        self.setObjectName(f"lesson-{lesson.path.stem}")
        self.setText(f"▸ Lesson: {lesson.title}")
        self.setWordWrap(True)
        self.setCursor(QtCore.Qt.CursorShape.PointingHandCursor)
        self.setFocusPolicy(QtCore.Qt.FocusPolicy.StrongFocus)
        self.setAccessibleName(f"Lesson: {lesson.title}")
        self.setToolTip(f"Open the lesson “{lesson.title}” at its first step")
        self._follow_theme()

    def _follow_theme(self) -> None:
        """Drawn in the link colour; on a dark theme (whose palette keeps Qt's dark blue for
        links) in the highlight colour."""
        dark = self.palette().color(QtGui.QPalette.ColorRole.Base).lightnessF() < 0.5
        role = QtGui.QPalette.ColorRole.Highlight if dark else QtGui.QPalette.ColorRole.Link
        if self.foregroundRole() != role:
            self.setForegroundRole(role)

    def event(self, event) -> bool:
        kind = event.type()
        if kind in (QtCore.QEvent.Type.Enter, QtCore.QEvent.Type.Leave, QtCore.QEvent.Type.FocusIn,
                    QtCore.QEvent.Type.FocusOut):
            self.update()
        elif kind == QtCore.QEvent.Type.PaletteChange:
            self._follow_theme()
        elif kind == QtCore.QEvent.Type.ShortcutOverride and event.key() in _ACTIVATE_KEYS:
            event.accept()  # Space and Enter open the lesson here, not the window's shortcuts
            return True
        return super().event(event)

    def paintEvent(self, event) -> None:  # Qt's name
        super().paintEvent(event)
        if self.hasFocus() or self.underMouse():  # underlined while pointed at or chosen by the keyboard
            p = QtGui.QPainter(self)
            pen = QtGui.QPen(self.palette().color(self.foregroundRole()), 2 if self.hasFocus() else 1)
            p.setPen(pen)
            y = self.height() - 1
            p.drawLine(0, y, self.width(), y)

    def mouseReleaseEvent(self, event) -> None:  # Qt's name
        if event.button() == QtCore.Qt.MouseButton.LeftButton and self.rect().contains(event.position().toPoint()):
            self.activated.emit()
            event.accept()
            return
        super().mouseReleaseEvent(event)

    def mousePressEvent(self, event) -> None:  # Qt's name
        event.accept()  # the card under it does not open the lab as well

    def keyPressEvent(self, event) -> None:  # Qt's name
        if event.key() in _ACTIVATE_KEYS:
            self.activated.emit()
            return
        super().keyPressEvent(event)


_ACTIVATE_KEYS = (QtCore.Qt.Key.Key_Return, QtCore.Qt.Key.Key_Enter, QtCore.Qt.Key.Key_Space)
_MOVE_KEYS = (QtCore.Qt.Key.Key_Left, QtCore.Qt.Key.Key_Right, QtCore.Qt.Key.Key_Up, QtCore.Qt.Key.Key_Down,
              QtCore.Qt.Key.Key_Home, QtCore.Qt.Key.Key_End)


class LabCard(QtWidgets.QFrame):
    """One lab on the map: click it (or Enter) to open the lab."""

    activated = QtCore.Signal(str)  # lab id
    lessonActivated = QtCore.Signal(str)  # lesson path
    moved = QtCore.Signal(object, int)  # the card, the arrow key pressed on it
    typed = QtCore.Signal(str)  # text typed on the card (it goes to the search field)

    def __init__(self, lab, colour: str, lessons: list[ShippedLesson], parent=None):
        super().__init__(parent)
        self.lab = lab
        self.lab_id = lab.id
        self.lessons = lessons
        self.setObjectName(f"lab-card-{lab.id}")
        self.setFocusPolicy(QtCore.Qt.FocusPolicy.StrongFocus)
        self.setCursor(QtCore.Qt.CursorShape.PointingHandCursor)
        self.setAccessibleName(lab.title)
        lesson_names = "".join(f" Lesson: {lesson.title}." for lesson in lessons)
        self.setAccessibleDescription(f"{lab.summary} Chapter: {lab.chapter}.{lesson_names}")
        self.setToolTip(f"<b>{lab.title}</b><br>{lab.description}<br><i>Click or press Enter to open it</i>")
        self.setSizePolicy(QtWidgets.QSizePolicy.Policy.Fixed, QtWidgets.QSizePolicy.Policy.Preferred)
        self.setAutoFillBackground(False)
        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(8, 8, 8, 8)
        lay.setSpacing(4)
        self.picture = _Picture(lab.title, colour)
        lay.addWidget(self.picture)
        self.title_label = QtWidgets.QLabel(lab.title)
        self.title_label.setWordWrap(True)
        font = self.title_label.font()
        font.setBold(True)
        self.title_label.setFont(font)
        lay.addWidget(self.title_label)
        self.summary_label = QtWidgets.QLabel(lab.summary)
        self.summary_label.setWordWrap(True)
        lay.addWidget(self.summary_label)
        self.lesson_links: list[_LessonLink] = []
        for lesson in lessons:
            link = _LessonLink(lesson)
            link.activated.connect(lambda p=str(lesson.path): self.lessonActivated.emit(p))
            lay.addWidget(link)
            self.lesson_links.append(link)
        lay.addStretch(1)
        self._hover = False

    def set_width(self, width: int) -> None:
        self.setFixedWidth(width)
        inner = width - 16
        self.picture.setFixedSize(inner, round(inner / PICTURE_RATIO))

    def show_lessons(self, shown: set[Path] | None) -> None:
        """Show every lesson (None) or only these."""
        for link in self.lesson_links:
            link.setVisible(shown is None or link.lesson.path in shown)

    # -------------------------------------------------------------- drawing and input
    def paintEvent(self, event) -> None:  # Qt's name
        p = QtGui.QPainter(self)
        p.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
        pal = self.palette()
        focus = self.hasFocus()
        edge = pal.color(QtGui.QPalette.ColorRole.Highlight) if (focus or self._hover) else \
            pal.color(QtGui.QPalette.ColorRole.Mid)
        width = 3.0 if focus else 1.0
        r = QtCore.QRectF(self.rect()).adjusted(width / 2, width / 2, -width / 2, -width / 2)
        p.setPen(QtGui.QPen(edge, width))
        p.setBrush(pal.color(QtGui.QPalette.ColorRole.Base))
        p.drawRoundedRect(r, 6, 6)

    def event(self, event) -> bool:
        kind = event.type()
        if kind == QtCore.QEvent.Type.ShortcutOverride and (
                event.key() in _ACTIVATE_KEYS or event.key() in _MOVE_KEYS or self._typing(event)):
            event.accept()  # arrows, Enter and letters belong to the map, not the run's shortcuts
            return True
        if kind in (QtCore.QEvent.Type.Enter, QtCore.QEvent.Type.Leave):
            self._hover = kind == QtCore.QEvent.Type.Enter
            self.update()
        elif kind in (QtCore.QEvent.Type.FocusIn, QtCore.QEvent.Type.FocusOut):
            self.update()
        return super().event(event)

    @staticmethod
    def _typing(event) -> bool:
        mods = event.modifiers() & ~QtCore.Qt.KeyboardModifier.ShiftModifier
        return mods == QtCore.Qt.KeyboardModifier.NoModifier and bool(event.text()) and event.text().isprintable() \
            and not event.text().isspace()

    def keyPressEvent(self, event) -> None:  # Qt's name
        if event.key() in _ACTIVATE_KEYS:
            self.activated.emit(self.lab_id)
        elif event.key() in _MOVE_KEYS:
            self.moved.emit(self, event.key())
        elif self._typing(event):
            self.typed.emit(event.text())
        else:
            super().keyPressEvent(event)

    def mousePressEvent(self, event) -> None:  # Qt's name
        if event.button() == QtCore.Qt.MouseButton.LeftButton:
            self.setFocus(QtCore.Qt.FocusReason.MouseFocusReason)
            event.accept()
            return
        super().mousePressEvent(event)

    def mouseReleaseEvent(self, event) -> None:  # Qt's name
        if event.button() == QtCore.Qt.MouseButton.LeftButton and self.rect().contains(event.position().toPoint()):
            self.activated.emit(self.lab_id)
            event.accept()
            return
        super().mouseReleaseEvent(event)


class _SearchField(QtWidgets.QLineEdit):
    """Down goes to the first card, Enter opens it, Esc empties the field."""

    down = QtCore.Signal()
    enter = QtCore.Signal()

    def event(self, event) -> bool:
        if event.type() == QtCore.QEvent.Type.ShortcutOverride and (
                (event.key() == QtCore.Qt.Key.Key_Escape and self.text())
                or event.key() in (QtCore.Qt.Key.Key_Down, QtCore.Qt.Key.Key_Up)):
            event.accept()
            return True
        return super().event(event)

    def keyPressEvent(self, event) -> None:  # Qt's name
        key = event.key()
        if key == QtCore.Qt.Key.Key_Down:
            self.down.emit()
        elif key in (QtCore.Qt.Key.Key_Return, QtCore.Qt.Key.Key_Enter):
            self.enter.emit()
        elif key == QtCore.Qt.Key.Key_Escape and self.text():
            self.clear()
        else:
            super().keyPressEvent(event)


class CourseMap(QtWidgets.QWidget):
    """The labs of a window as cards under their chapters, with a search field."""

    openLab = QtCore.Signal(str)  # lab id
    openLesson = QtCore.Signal(str)  # lesson path
    firstPainted = QtCore.Signal()

    def __init__(self, labs, lessons: dict[str, list[ShippedLesson]], pictures=None, parent=None):
        super().__init__(parent)
        self.setObjectName("course-map")
        self.setAccessibleName("Course map")
        self.pictures = pictures
        self._painted = False
        self._cols = 0
        self._card_width = 0
        self._query: list[str] = []
        self._placed: list[LabCard] = []  # the cards shown, in reading order
        self.chapters = registry.chapters(list(labs))

        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(10, 8, 10, 0)
        lay.setSpacing(6)
        top = QtWidgets.QHBoxLayout()
        self.search = _SearchField()
        self.search.setObjectName("course-map-search")
        self.search.setAccessibleName("Search the labs and lessons")
        self.search.setPlaceholderText("Find a lab or a lesson: casino, SVM, EM, lasso, Viterbi, PageRank…")
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(self.set_query)
        self.search.down.connect(lambda: self._focus_first())
        self.search.enter.connect(self._open_first)
        top.addWidget(self.search, 1)
        self.result = QtWidgets.QLabel()
        self.result.setObjectName("course-map-result")
        top.addWidget(self.result)
        lay.addLayout(top)

        self.scroll = QtWidgets.QScrollArea()
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
        self.scroll.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.scroll.setVerticalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
        self.content = QtWidgets.QWidget()
        self.grid = QtWidgets.QGridLayout(self.content)
        self.grid.setContentsMargins(0, 0, 0, 8)
        self.grid.setHorizontalSpacing(12)
        self.grid.setVerticalSpacing(4)
        self.scroll.setWidget(self.content)
        self.scroll.viewport().installEventFilter(self)
        lay.addWidget(self.scroll, 1)

        self._lessons = lessons
        self._cards: dict[str, LabCard] = {}
        self._headers: dict[str, QtWidgets.QLabel] = {}
        self._lab_words: dict[str, frozenset[str]] = {}
        self._built = False
        if pictures is not None:
            pictures.ready.connect(self._picture_ready)

    def _build(self) -> None:
        """Make the cards, when the map is first shown or asked about (a window that opens on
        a lab does not pay for them)."""
        if self._built:
            return
        self._built = True
        for i, (chapter, chapter_labs) in enumerate(self.chapters):
            header = QtWidgets.QLabel(chapter)
            header.setObjectName(f"chapter-{i + 1}")
            header.setWordWrap(True)
            self._headers[chapter] = header
            colour = CATEGORICAL[i % (len(CATEGORICAL) - 2)]  # not the yellow nor the black
            for lab in chapter_labs:
                card = LabCard(lab, colour, self._lessons.get(lab.id, []), self.content)
                card.activated.connect(self.openLab)
                card.lessonActivated.connect(self.openLesson)
                card.moved.connect(self._move)
                card.typed.connect(self._type)
                card.installEventFilter(self)
                self._cards[lab.id] = card
                self._lab_words[lab.id] = lab_words(lab)
        self._restyle_headers()
        self._relayout(force=True)

    @property
    def cards(self) -> dict[str, LabCard]:
        """The cards by lab id."""
        self._build()
        return self._cards

    @property
    def headers(self) -> dict[str, QtWidgets.QLabel]:
        """The chapters' headings by chapter."""
        self._build()
        return self._headers

    def showEvent(self, event) -> None:  # Qt's name
        self._build()
        super().showEvent(event)

    # -------------------------------------------------------------- pictures
    def _show_cached_pictures(self) -> None:
        for lab_id, card in self.cards.items():
            if not card.picture.has_picture:
                path = self.pictures.path(lab_id)
                if path is not None:
                    card.picture.set_picture(str(path))

    def _picture_ready(self, lab_id: str, path: str) -> None:
        card = self._cards.get(lab_id)
        if card is not None:
            card.picture.set_picture(path)

    def set_active(self, on: bool) -> None:
        """The map is shown (its missing pictures are drawn meanwhile) or hidden."""
        if self.pictures is None:
            return
        if on:  # the pictures are looked for when the map is first shown, not when it is built
            self._show_cached_pictures()
            self.pictures.request(list(self.cards))
        self.pictures.set_active(on)

    # -------------------------------------------------------------- search
    def set_query(self, text: str) -> None:
        """Show only the labs and lessons that teach the words of ``text`` (all when empty)."""
        if self.search.text() != text:
            self.search.setText(text)  # comes back here through textChanged
            return
        self._build()
        terms = query_terms(text)
        self._query = terms
        n_labs = n_lessons = 0
        if terms:
            indexes = list(self._lab_words.values()) + [lesson.words for card in self.cards.values()
                                                        for lesson in card.lessons]
            exact = exact_terms(terms, indexes)
        for lab_id, card in self.cards.items():
            if not terms:
                card.setVisible(True)
                card.show_lessons(None)
                continue
            lab_hit = all(term_matches(t, self._lab_words[lab_id], t in exact) for t in terms)
            lesson_hits = {lesson.path for lesson in card.lessons
                           if all(term_matches(t, lesson.words, t in exact) for t in terms)}
            card.setVisible(lab_hit or bool(lesson_hits))
            card.show_lessons(None if lab_hit else lesson_hits)
            n_labs += lab_hit or bool(lesson_hits)
            n_lessons += len(card.lessons) if lab_hit else len(lesson_hits)
        if not terms:
            self.result.setText("")
        elif n_labs:
            self.result.setText(f"{n_labs} lab{'s' * (n_labs != 1)}, {n_lessons} lesson{'s' * (n_lessons != 1)}")
        else:
            self.result.setText(f"Nothing teaches “{text.strip()[:40]}” yet")
        self._relayout(force=True)

    def visible_labs(self) -> list[str]:
        """The ids of the cards shown, in the map's reading order."""
        self._build()
        return [card.lab_id for card in self._placed]

    def visible_lessons(self) -> list[Path]:
        self._build()
        return [link.lesson.path for card in self._placed for link in card.lesson_links if not link.isHidden()]

    # -------------------------------------------------------------- layout
    def _restyle_headers(self) -> None:
        font = QtGui.QFont(self.font())
        font.setPointSizeF(font.pointSizeF() * 1.15)
        font.setBold(True)
        for header in self._headers.values():
            header.setFont(font)

    def _columns(self) -> tuple[int, int]:
        margins = self.grid.contentsMargins()
        width = self.scroll.viewport().width() - margins.left() - margins.right()
        gap = self.grid.horizontalSpacing()
        minimum = max(220, CARD_MIN_LINES * self.fontMetrics().height())
        cols = max(1, (width + gap) // (minimum + gap))
        return cols, max(160, (width - gap * (cols - 1)) // cols)

    def _relayout(self, force: bool = False) -> None:
        """Place the shown cards in rows of as many columns as fit: a chapter starts a new row
        unless its cards fit in what is left of the current one; its heading stands above
        its first card."""
        if not self._built:
            return
        cols, card_width = self._columns()
        if not force and (cols, card_width) == (self._cols, self._card_width):
            return
        self._cols, self._card_width = cols, card_width
        while self.grid.count():
            self.grid.takeAt(0)
        for c in range(self.grid.columnCount()):
            self.grid.setColumnStretch(c, 0)
        for r in range(self.grid.rowCount()):
            self.grid.setRowStretch(r, 0)
        self._placed = []
        row, col = 0, 0
        for chapter, labs in self.chapters:
            cards = [self._cards[lab.id] for lab in labs if not self._cards[lab.id].isHidden()]
            header = self._headers[chapter]
            header.setVisible(bool(cards))
            if not cards:
                continue
            if col and col + len(cards) > cols:
                row, col = row + 1, 0
            self.grid.addWidget(header, 2 * row, col, 1, min(len(cards), cols - col),
                                QtCore.Qt.AlignmentFlag.AlignBottom)
            for card in cards:
                if col >= cols:
                    row, col = row + 1, 0
                card.set_width(card_width)
                self.grid.addWidget(card, 2 * row + 1, col)
                self._placed.append(card)
                col += 1
        self.grid.setColumnStretch(cols, 1)
        self.grid.setRowStretch(2 * row + 2, 1)
        self.grid.activate()

    def eventFilter(self, obj, event) -> bool:
        kind = event.type()
        if obj is self.scroll.viewport() and kind == QtCore.QEvent.Type.Resize:
            self._relayout()
        elif isinstance(obj, LabCard) and kind == QtCore.QEvent.Type.FocusIn:
            self.scroll.ensureWidgetVisible(obj, 8, 8)
        return super().eventFilter(obj, event)

    def changeEvent(self, event) -> None:  # Qt's name
        if event.type() == QtCore.QEvent.Type.FontChange:  # projector mode: cards follow the text's size
            self._restyle_headers()
            self._relayout(force=True)
        super().changeEvent(event)

    def paintEvent(self, event) -> None:  # Qt's name
        super().paintEvent(event)
        if not self._painted:
            self._painted = True
            self.firstPainted.emit()

    # -------------------------------------------------------------- keyboard
    def focus_card(self, lab_id: str) -> bool:
        card = self.cards.get(lab_id)
        if card is None or card.isHidden():
            return False
        card.setFocus(QtCore.Qt.FocusReason.OtherFocusReason)
        return True

    def focus_search(self) -> None:
        self.search.setFocus(QtCore.Qt.FocusReason.OtherFocusReason)

    def _focus_first(self) -> None:
        if self._placed:
            self._placed[0].setFocus(QtCore.Qt.FocusReason.TabFocusReason)

    def _open_first(self) -> None:
        if self._query and self._placed:
            self.openLab.emit(self._placed[0].lab_id)

    def _type(self, text: str) -> None:
        self.search.setFocus(QtCore.Qt.FocusReason.OtherFocusReason)
        self.search.insert(text)

    def _move(self, card: LabCard, key) -> None:
        """Left/Right: the previous/next card in reading order; Up/Down: the nearest card of
        the row above/below (the search field above the first row); Home/End: first/last."""
        placed = self._placed
        if card not in placed:
            return
        i = placed.index(card)
        target = None
        if key == QtCore.Qt.Key.Key_Left:
            target = placed[i - 1] if i > 0 else None
        elif key == QtCore.Qt.Key.Key_Right:
            target = placed[i + 1] if i + 1 < len(placed) else None
        elif key == QtCore.Qt.Key.Key_Home:
            target = placed[0]
        elif key == QtCore.Qt.Key.Key_End:
            target = placed[-1]
        else:
            here = card.geometry().center()
            up = key == QtCore.Qt.Key.Key_Up
            rows = [c for c in placed if (c.geometry().top() < card.geometry().top()) == up
                    and c.geometry().top() != card.geometry().top()]
            if rows:
                nearest_top = max(c.geometry().top() for c in rows) if up else min(c.geometry().top() for c in rows)
                row = [c for c in rows if c.geometry().top() == nearest_top]
                target = min(row, key=lambda c: abs(c.geometry().center().x() - here.x()))
            elif up:
                self.focus_search()
                return
        if target is not None:
            target.setFocus(QtCore.Qt.FocusReason.TabFocusReason)
