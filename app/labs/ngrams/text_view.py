"""The generated-text view of the n-gram lab, drawn incrementally.

Each frame appends only the tokens that arrived since the previous one, through
``QTextCursor`` edits on the view's document: the previous "current token" (highlighted)
is rewritten as an ordinary token, the new tokens are inserted, the newest highlighted,
and the tint of a verbatim run is extended backwards over the few earlier tokens it now
covers. A frame therefore costs the same after 20 tokens and after 2,000. The document
is rebuilt from scratch only when the caller clears it (a new run, a step back) or the
style changes (theme, projector scale).

Line ends are paragraph breaks, so an edit at the end re-lays out only the last line's
paragraph, never the text above it.
"""

from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

from ... import style as theme

CURRENT_LINE_END = "¶"  # a line end that is the current token is shown as ¶


def tint_color(s: theme.Style) -> str:
    """Light sky blue (Okabe–Ito) behind verbatim spans, readable in both themes."""
    return "#CFE8F7" if s.theme == "light" else "#1D4A66"


def current_color(s: theme.Style) -> str:
    return theme.HIGHLIGHT  # Okabe–Ito yellow under black text: high contrast in both themes


def verbatim_mask(toks) -> list[bool]:
    """True for tokens inside a run of ≥ N + 1 tokens copied verbatim from the corpus
    (``span_length`` of a token is the length of the verbatim run ending at it)."""
    mask = [False] * len(toks)
    if not toks:
        return mask
    threshold = toks[-1].n + 1
    for j, t in enumerate(toks):
        if t.span_length >= threshold:
            for k in range(max(0, j - t.span_length + 1), j + 1):
                mask[k] = True
    return mask


def _units(text: str) -> int:
    """Length of ``text`` in document positions (UTF-16 code units)."""
    return len(text) if text.isascii() else len(text.encode("utf-16-le")) // 2


class FollowingText(QtWidgets.QTextBrowser):
    """A read-only text view that stays scrolled to the end while text streams in."""

    def follow(self) -> None:
        bar = self.verticalScrollBar()
        bar.setValue(bar.maximum())

    def resizeEvent(self, event):
        super().resizeEvent(event)
        self.follow()


class StreamedText:
    """Keeps a :class:`FollowingText` showing a growing list of generated-token snapshots.

    :meth:`show` is given the whole list each frame and appends what it has not shown yet;
    :meth:`clear` forgets everything (call it when the list is rebuilt: a new run, a rewind).
    """

    def __init__(self, view: FollowingText):
        self.view = view
        self.doc = view.document()
        self.doc.setUndoRedoEnabled(False)  # the document is edited every frame: keep no undo trail
        self._starts: list[int] = []  # document position where each shown token begins
        self._mask = bytearray()  # 1 where a shown token lies in a verbatim run
        self._style_key = None
        self._formats(theme.current())

    # ------------------------------------------------------------------ formats
    def _formats(self, s: theme.Style) -> None:
        base = QtGui.QTextCharFormat()
        base.setFontFamilies(["serif"])
        base.setFontPointSize(float(f"{s.font_pt * 1.25:.0f}"))
        base.setForeground(QtGui.QColor(s.foreground))
        tinted = QtGui.QTextCharFormat(base)
        tinted.setBackground(QtGui.QColor(tint_color(s)))
        current = QtGui.QTextCharFormat(base)
        current.setBackground(QtGui.QColor(current_color(s)))
        current.setForeground(QtGui.QColor("#000000"))
        current.setFontWeight(QtGui.QFont.Weight.Bold)
        tint_only = QtGui.QTextCharFormat()
        tint_only.setBackground(QtGui.QColor(tint_color(s)))
        self._base, self._tinted, self._current, self._tint_only = base, tinted, current, tint_only
        self._style_key = (s.theme, s.scale, s.font_pt, s.foreground)

    # ------------------------------------------------------------------ editing
    def clear(self) -> None:
        self.doc.clear()
        self._starts = []
        self._mask = bytearray()

    @property
    def shown(self) -> int:
        """How many tokens the document holds."""
        return len(self._starts)

    def show(self, toks: list, s: theme.Style | None = None) -> None:
        """Show ``toks`` (all generated-token snapshots so far, oldest first), the last one
        highlighted: appends ``toks[self.shown:]``; rebuilds only after a style change."""
        s = s or theme.current()
        if (s.theme, s.scale, s.font_pt, s.foreground) != self._style_key:
            self._formats(s)
            self.clear()
        m = len(self._starts)
        if m > len(toks):  # the caller rebuilt its list without clearing: start over
            self.clear()
            m = 0
        if len(toks) == m:
            return
        if not toks:
            return
        mask = self._mask
        threshold = toks[0].n + 1
        retint: list[int] = []  # shown ordinary tokens that a new verbatim run now covers
        for j in range(m, len(toks)):
            mask.append(0)
            length = toks[j].span_length
            if length >= threshold:
                for k in range(max(0, j - length + 1), j + 1):
                    if not mask[k]:
                        mask[k] = 1
                        if k < m - 1:
                            retint.append(k)
        cur = QtGui.QTextCursor(self.doc)
        cur.beginEditBlock()
        starts = self._starts
        for a, b in _ranges(sorted(retint)):
            cur.setPosition(starts[a])
            cur.setPosition(starts[b + 1], QtGui.QTextCursor.MoveMode.KeepAnchor)
            cur.mergeCharFormat(self._tint_only)
        first = max(m - 1, 0)
        if m:  # the previous current token becomes an ordinary one: rewrite it below
            cur.setPosition(starts[m - 1])
            cur.movePosition(QtGui.QTextCursor.MoveOperation.End, QtGui.QTextCursor.MoveMode.KeepAnchor)
            cur.removeSelectedText()
            del starts[m - 1:]
        cur.movePosition(QtGui.QTextCursor.MoveOperation.End)
        pos = cur.position()
        run: list[str] = []
        run_tinted = False
        for j in range(first, len(toks) - 1):  # ordinary tokens: one insert per run of equal tint
            tinted = bool(mask[j])
            if tinted != run_tinted and run:
                cur.insertText("".join(run), self._tinted if run_tinted else self._base)
                run = []
            run_tinted = tinted
            starts.append(pos)
            piece = toks[j].piece
            run.append(piece)
            pos += _units(piece)
        if run:
            cur.insertText("".join(run), self._tinted if run_tinted else self._base)
        last = toks[-1]
        starts.append(pos)
        if last.token == "</s>":
            cur.insertText(CURRENT_LINE_END, self._current)
            cur.insertText("\n", self._base)
        else:
            word = last.piece.lstrip(" ")
            if len(word) < len(last.piece):
                cur.insertText(last.piece[: len(last.piece) - len(word)], self._base)
            cur.insertText(word, self._current)
        cur.endEditBlock()
        self.view.follow()

    # ------------------------------------------------------------------ reading back (tests)
    def runs(self) -> tuple[str, str]:
        """The text as shown and, character by character, how it is marked: ``t`` tinted,
        ``h`` highlighted (the current token), ``.`` plain, ``|`` a line end."""
        tint = self._tinted.background().color().name()
        high = self._current.background().color().name()
        text: list[str] = []
        marks: list[str] = []
        block = self.doc.begin()
        while block.isValid():
            if text:
                text.append("\n")
                marks.append("|")
            it = block.begin()
            while not it.atEnd():
                frag = it.fragment()
                bg = frag.charFormat().background()
                mark = "."
                if bg.style() != QtCore.Qt.BrushStyle.NoBrush:
                    name = bg.color().name()
                    mark = "t" if name == tint else "h" if name == high else "?"
                piece = frag.text().replace("\u2028", "\n")
                text.append(piece)
                marks.append("".join("|" if c == "\n" else mark for c in piece))
                it += 1
            block = block.next()
        return "".join(text), "".join(marks)


def _ranges(indices: list[int]):
    """Consecutive runs of sorted indices as (first, last) pairs."""
    start = prev = None
    for i in indices:
        if start is None:
            start = prev = i
        elif i == prev + 1:
            prev = i
        else:
            yield start, prev
            start = prev = i
    if start is not None:
        yield start, prev
