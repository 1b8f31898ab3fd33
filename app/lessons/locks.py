"""The controls a lesson step may lock or hide: a lab's parameters, by name, and the run bar's
seed box (:data:`SEED`); the padlock drawn beside a locked control's label and its tooltip.

The player locks and hides them while a step is shown; the step dialog lists them.
"""

from __future__ import annotations

import base64

from PySide6 import QtCore, QtGui, QtWidgets

#: the run bar's seed box, lockable like a parameter
SEED = "seed"
LOCK_TIP = "Locked by the lesson (Lesson ▸ Unlock controls frees it)"


def lockable(lab) -> list[tuple[str, str]]:
    """``(name, label)`` of every control of ``lab`` a step may lock or hide, in form order."""
    return [(name, p.label) for name, p in lab.form.params.items()] + [(SEED, "Seed")]


def control(lab, name: str) -> tuple[QtWidgets.QWidget | None, QtWidgets.QLabel | None]:
    """The widget called ``name`` in ``lab`` and its label (None for what the lab lacks)."""
    if name == SEED:
        return lab.runbar.seed, None
    return lab.form.widgets.get(name), lab.form.labels.get(name)


def lock_mark(height: int = 14) -> str:
    """A padlock drawn for the label of a locked control (as rich text: fonts without the
    padlock character still show it)."""
    h = max(10, int(height))
    pixmap = QtGui.QPixmap(h, h)
    pixmap.fill(QtCore.Qt.GlobalColor.transparent)
    painter = QtGui.QPainter(pixmap)
    painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
    colour = QtGui.QColor("#7A2E00")
    pen = QtGui.QPen(colour, max(1.5, h / 8))
    painter.setPen(pen)
    painter.drawArc(QtCore.QRectF(0.28 * h, 0.08 * h, 0.44 * h, 0.6 * h), 0, 180 * 16)  # the shackle
    painter.drawLine(QtCore.QPointF(0.28 * h, 0.38 * h), QtCore.QPointF(0.28 * h, 0.48 * h))
    painter.drawLine(QtCore.QPointF(0.72 * h, 0.38 * h), QtCore.QPointF(0.72 * h, 0.48 * h))
    painter.setPen(QtCore.Qt.PenStyle.NoPen)
    painter.setBrush(colour)
    painter.drawRoundedRect(QtCore.QRectF(0.15 * h, 0.45 * h, 0.7 * h, 0.52 * h), 0.08 * h, 0.08 * h)
    painter.end()
    data = QtCore.QByteArray()
    buffer = QtCore.QBuffer(data)
    buffer.open(QtCore.QIODevice.OpenModeFlag.WriteOnly)
    pixmap.save(buffer, "PNG")
    encoded = base64.b64encode(bytes(data)).decode("ascii")
    return f'<img src="data:image/png;base64,{encoded}" width="{h}" height="{h}">'
