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
        self.apply_style(theme.current())

    def set_html(self, html: str) -> None:
        if html != self._html:
            self._html = html
            bar = self.verticalScrollBar()
            pos = bar.value()
            self.setHtml(html)
            bar.setValue(pos)

    def apply_style(self, s: theme.Style) -> None:
        font = self.font()
        font.setPointSizeF(s.font_pt)
        self.setFont(font)
        self.document().setDefaultStyleSheet(
            f"body {{ color: {s.foreground}; }} .eq {{ font-family: serif; font-size: {s.font_pt * 1.15:.0f}pt; }}"
            f" .num {{ font-family: monospace; }} h3 {{ margin-bottom: 2px; }}"
        )
        if self._html:
            self.setHtml(self._html)
