"""A declarative parameter form: labs list :class:`Param` specs, the form builds widgets.

Values round-trip through plain Python types (int, float, str, bool), which is what
sessions store as JSON.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from PySide6 import QtCore, QtGui, QtWidgets


@dataclass(frozen=True)
class Param:
    """One hyper-parameter or data setting.

    kind: "int", "float", "log" (positive float on a logarithmic slider), "choice",
    "bool". For "choice", ``choices`` holds ``(value, label)`` pairs or plain values.
    ``visible_when``, if given, maps the form's current values to whether the row is shown
    (e.g. ``lambda v: v["kernel"] == "rbf"``); the form re-evaluates it on every change.
    """

    name: str
    label: str
    kind: str
    default: Any
    minimum: float | None = None
    maximum: float | None = None
    step: float | None = None
    decimals: int = 3
    choices: Sequence[Any] = field(default_factory=tuple)
    tooltip: str = ""
    suffix: str = ""
    visible_when: Callable[[Mapping[str, Any]], bool] | None = None

    def choice_pairs(self) -> list[tuple[Any, str]]:
        return [c if isinstance(c, tuple) else (c, str(c)) for c in self.choices]


class _SciSpinBox(QtWidgets.QDoubleSpinBox):
    """A spin box that shows small and large values readably (1e-10, not 0.0000)."""

    def textFromValue(self, value: float) -> str:
        return f"{value:.3g}"

    def valueFromText(self, text: str) -> float:
        try:
            return float(text.replace(",", "."))
        except ValueError:
            return self.value()

    def validate(self, text: str, pos: int):
        try:
            float(text.replace(",", "."))
            return QtGui.QValidator.State.Acceptable, text, pos
        except ValueError:
            return QtGui.QValidator.State.Intermediate, text, pos


class LogSlider(QtWidgets.QWidget):
    """A slider over a logarithmic range with an editable value box."""

    valueChanged = QtCore.Signal(float)
    STEPS = 400

    def __init__(self, minimum: float, maximum: float, value: float, decimals: int = 3, parent=None):
        super().__init__(parent)
        if not (0 < minimum < maximum):
            raise ValueError("a log slider needs 0 < minimum < maximum")
        self._lo, self._hi = math.log10(minimum), math.log10(maximum)
        self.slider = QtWidgets.QSlider(QtCore.Qt.Orientation.Horizontal)
        self.slider.setRange(0, self.STEPS)
        self.slider.setMinimumWidth(60)
        self.box = _SciSpinBox()
        self.box.setDecimals(max(decimals, 4, int(-math.floor(math.log10(minimum))) + 3))
        self.box.setRange(minimum, maximum)
        self.box.setStepType(QtWidgets.QAbstractSpinBox.StepType.AdaptiveDecimalStepType)
        self.box.setKeyboardTracking(False)
        lay = QtWidgets.QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.slider, 1)
        lay.addWidget(self.box)
        self._value = value
        self._sync(value)
        self.slider.valueChanged.connect(self._from_slider)
        self.box.valueChanged.connect(self._from_box)

    def _sync(self, value: float) -> None:
        for w in (self.slider, self.box):
            w.blockSignals(True)
        pos = (math.log10(value) - self._lo) / (self._hi - self._lo) * self.STEPS
        self.slider.setValue(int(round(pos)))
        self.box.setValue(value)
        for w in (self.slider, self.box):
            w.blockSignals(False)

    def _from_slider(self, pos: int) -> None:
        value = 10 ** (self._lo + (self._hi - self._lo) * pos / self.STEPS)
        value = float(f"{value:.3g}")
        self.setValue(value)

    def _from_box(self, value: float) -> None:
        self.setValue(value)

    def value(self) -> float:
        return self._value

    def setValue(self, value: float) -> None:
        value = float(min(max(value, 10**self._lo), 10**self._hi))
        changed = value != self._value
        self._value = value
        self._sync(value)
        if changed:
            self.valueChanged.emit(value)


class _ElidingCombo(QtWidgets.QComboBox):
    """A choice box narrower than its choice shows it cut with "…" (the whole text in the
    tooltip), never clipped mid-letter."""

    def paintEvent(self, event):  # Qt's name
        painter = QtWidgets.QStylePainter(self)
        opt = QtWidgets.QStyleOptionComboBox()
        self.initStyleOption(opt)
        painter.drawComplexControl(QtWidgets.QStyle.ComplexControl.CC_ComboBox, opt)
        field = self.style().subControlRect(QtWidgets.QStyle.ComplexControl.CC_ComboBox, opt,
                                            QtWidgets.QStyle.SubControl.SC_ComboBoxEditField, self)
        text = opt.currentText
        opt.currentText = self.fontMetrics().elidedText(text, QtCore.Qt.TextElideMode.ElideRight, field.width())
        self.setToolTip(text if opt.currentText != text else "")
        painter.drawControl(QtWidgets.QStyle.ControlElement.CE_ComboBoxLabel, opt)


class ParamForm(QtWidgets.QWidget):
    """Builds a form from :class:`Param` specs. Emits ``changed(name)`` on any edit."""

    changed = QtCore.Signal(str)

    def __init__(self, params: Sequence[Param], parent=None):
        super().__init__(parent)
        self.params = {p.name: p for p in params}
        self.widgets: dict[str, QtWidgets.QWidget] = {}
        self.labels: dict[str, QtWidgets.QLabel] = {}
        self.layout_ = QtWidgets.QFormLayout(self)
        self.layout_.setFieldGrowthPolicy(QtWidgets.QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        # a narrow panel puts the field under its label instead of cutting either
        self.layout_.setRowWrapPolicy(QtWidgets.QFormLayout.RowWrapPolicy.WrapLongRows)
        for p in params:
            w = self._make_widget(p)
            if p.tooltip:
                w.setToolTip(p.tooltip)
            label = QtWidgets.QLabel(p.label)
            label.setToolTip(p.tooltip)
            self.widgets[p.name] = w
            self.labels[p.name] = label
            self.layout_.addRow(label, w)
        self.update_visibility()

    def _edited(self, name: str) -> None:
        self.update_visibility()
        self.changed.emit(name)

    def update_visibility(self) -> None:
        """Show exactly the rows whose ``visible_when`` holds for the current values."""
        values = None
        for p in self.params.values():
            if p.visible_when is None:
                continue
            if values is None:
                values = self.values()
            self.layout_.setRowVisible(self.widgets[p.name], bool(p.visible_when(values)))

    def _make_widget(self, p: Param) -> QtWidgets.QWidget:
        name = p.name
        if p.kind == "int":
            w = QtWidgets.QSpinBox()
            w.setRange(int(p.minimum if p.minimum is not None else -(2**31)),
                       int(p.maximum if p.maximum is not None else 2**31 - 1))
            w.setSingleStep(int(p.step or 1))
            w.setValue(int(p.default))
            w.setSuffix(p.suffix)
            w.setKeyboardTracking(False)
            w.valueChanged.connect(lambda _v: self._edited(name))
        elif p.kind == "float":
            w = QtWidgets.QDoubleSpinBox()
            w.setDecimals(p.decimals)
            w.setRange(p.minimum if p.minimum is not None else -1e9, p.maximum if p.maximum is not None else 1e9)
            w.setSingleStep(p.step or 0.1)
            w.setValue(float(p.default))
            w.setSuffix(p.suffix)
            w.setKeyboardTracking(False)
            w.valueChanged.connect(lambda _v: self._edited(name))
        elif p.kind == "log":
            w = LogSlider(float(p.minimum), float(p.maximum), float(p.default), p.decimals)
            w.valueChanged.connect(lambda _v: self._edited(name))
        elif p.kind == "choice":
            w = _ElidingCombo()
            for value, label in p.choice_pairs():
                w.addItem(label, value)
            w.setCurrentIndex(max(0, w.findData(p.default)))
            w.setSizeAdjustPolicy(QtWidgets.QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            # long choices elide (each item has its tooltip): the panel keeps a projector-sized
            # font within a 1024 px screen
            w.setMinimumContentsLength(min(max(len(lbl) for _v, lbl in p.choice_pairs()), 12) if p.choices else 8)
            for i in range(w.count()):
                w.setItemData(i, w.itemText(i), QtCore.Qt.ItemDataRole.ToolTipRole)
            w.currentIndexChanged.connect(lambda _i: self._edited(name))
        elif p.kind == "bool":
            w = QtWidgets.QCheckBox()
            w.setChecked(bool(p.default))
            w.toggled.connect(lambda _b: self._edited(name))
        else:
            raise ValueError(f"unknown parameter kind {p.kind!r}")
        return w

    def value(self, name: str) -> Any:
        p, w = self.params[name], self.widgets[name]
        if p.kind == "int":
            return int(w.value())
        if p.kind in ("float", "log"):
            return float(w.value())
        if p.kind == "choice":
            return w.currentData()
        return bool(w.isChecked())

    def values(self) -> dict[str, Any]:
        return {name: self.value(name) for name in self.params}

    def set_value(self, name: str, value: Any) -> None:
        p, w = self.params[name], self.widgets[name]
        if p.kind in ("int", "float", "log"):
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise TypeError(f"{p.label}: expected a number, got {type(value).__name__}")
            if not math.isfinite(value):
                raise ValueError(f"{p.label}: {value} is not a finite number")
            # clamp to the allowed range, as the widget itself would (and before any int
            # conversion, so 2**70 cannot overflow Qt's 32-bit spin box)
            lo = p.minimum if p.minimum is not None else -(2**31)
            hi = p.maximum if p.maximum is not None else 2**31 - 1
            value = min(max(value, lo), hi)
        if p.kind == "int":
            if value != int(value):
                raise ValueError(f"{p.label}: expected a whole number, got {value}")
            w.setValue(int(value))
        elif p.kind in ("float", "log"):
            w.setValue(float(value))
        elif p.kind == "choice":
            if isinstance(value, int) and not isinstance(value, bool) and not -(2**63) <= value < 2**63:
                # Qt's lookup would overflow (reported past any try, through sys.excepthook)
                raise ValueError(f"{p.label}: {value} is not one of the choices")
            idx = w.findData(value)
            if idx < 0:
                raise ValueError(f"{p.label}: {value!r} is not one of the choices")
            w.setCurrentIndex(idx)
        else:
            w.setChecked(bool(value))

    def set_values(self, values: dict[str, Any], *, quiet: bool = True) -> list[str]:
        """Set known values (unknown names are ignored); returns names that were rejected."""
        rejected = []
        if quiet:
            self.blockSignals(True)
        try:
            for name, value in values.items():
                if name not in self.params:
                    continue
                try:
                    self.set_value(name, value)
                except (TypeError, ValueError, OverflowError):
                    rejected.append(name)
        finally:
            if quiet:
                self.blockSignals(False)
        self.update_visibility()
        return rejected

    def set_visible(self, name: str, visible: bool) -> None:
        self.layout_.setRowVisible(self.widgets[name], visible)

    def reset_defaults(self) -> None:
        self.set_values({n: p.default for n, p in self.params.items()}, quiet=False)
