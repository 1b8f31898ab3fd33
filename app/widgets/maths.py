"""The "show the maths" panel: rich text with the equations and the current numbers."""

from __future__ import annotations

from PySide6 import QtWidgets

from .. import style as theme


class MathsPanel(QtWidgets.QTextBrowser):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.setOpenExternalLinks(False)
        self.setMinimumWidth(140)
        self._html = ""
        self._shown: str | None = ""
        self.apply_style(theme.current())

    def set_html(self, html: str) -> None:
        """Show ``html``; while the panel is hidden (View ▸ maths off, or folded away in
        projector mode) the rich-text layout, the costly part, waits until it is shown."""
        if html != self._html:
            self._html = html
            self._shown = None
        if self._shown != self._html and self.isVisible():
            self._lay_out()

    def _lay_out(self) -> None:
        bar = self.verticalScrollBar()
        pos = bar.value()
        self.setHtml(self._html)
        bar.setValue(pos)
        self._shown = self._html

    def toPlainText(self) -> str:  # Qt's name: reading the text lays out what is pending
        if self._shown != self._html:
            self._lay_out()
        return super().toPlainText()

    def showEvent(self, event) -> None:  # Qt's name
        super().showEvent(event)
        if self._shown != self._html:
            self._lay_out()

    def apply_style(self, s: theme.Style) -> None:
        font = self.font()
        font.setPointSizeF(s.font_pt)
        self.setFont(font)
        self.document().setDefaultStyleSheet(
            f"body {{ color: {s.foreground}; }} .eq {{ font-family: serif; font-size: {s.font_pt * 1.15:.0f}pt; }}"
            f" .num {{ font-family: monospace; }} h3 {{ margin-bottom: 2px; }}"
        )
        if self._html:
            self._shown = None
            if self.isVisible():
                self._lay_out()
