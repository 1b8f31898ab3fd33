"""Labels for notes under or beside plots."""

from __future__ import annotations

from PySide6 import QtCore, QtWidgets


class NoteLabel(QtWidgets.QLabel):
    """A wrapping note on a plot page that keeps room for ``lines`` lines of its font (also
    when projector mode enlarges the font) and is not height-for-width: a height-for-width
    child would make the page's scroll area size the page from the plots' preferred heights,
    taller than the screen.

    ``tight=True`` also asks for no more than those lines (a note under a plot that must not
    take the plot's room); otherwise the label may grow to its text's natural height.
    """

    def __init__(self, text: str = "", lines: int = 2, *, tight: bool = False):
        super().__init__(text)
        self.setWordWrap(True)
        self.lines = lines
        self.tight = tight

    def hasHeightForWidth(self) -> bool:  # Qt's name
        return False

    def minimumSizeHint(self):  # Qt's name
        hint = super().minimumSizeHint()
        return QtCore.QSize(hint.width(), self.fontMetrics().lineSpacing() * self.lines + 4)

    def sizeHint(self):  # Qt's name
        return self.minimumSizeHint() if self.tight else super().sizeHint()
