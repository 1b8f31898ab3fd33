"""The HMM lab's edited model: π, A and B of the two dice as spin boxes (each distribution a
column), three sliders for the casino's lesson that keep their rows summing to one, and the
Normalise and Casino buttons. ``ModelEditor`` is mixed into :class:`~.lab.HMMLab`: the matrices
stay on the lab (``self.matrices``, saved in sessions); an edit restarts the run when the run
reads the edited model."""

from __future__ import annotations

import numpy as np
from PySide6 import QtCore, QtWidgets

from . import run


class ModelEditor:
    """The edited model's box in the control panel, and what its spin boxes, sliders and buttons do."""

    def _build_editor(self, layout: QtWidgets.QVBoxLayout) -> None:
        box = QtWidgets.QGroupBox("Edited model (columns: fair, loaded)")
        self.editor_box = box
        grid = QtWidgets.QGridLayout(box)
        grid.setContentsMargins(4, 4, 4, 4)
        self.editors: dict[tuple, QtWidgets.QDoubleSpinBox] = {}
        rows = [("π (start)", "startprob", None)]
        rows += [(f"A: → {name}", "transmat", k) for k, name in enumerate(("fair", "loaded"))]
        rows += [(f"B: face {f}", "emissionprob", int(f) - 1) for f in run.FACES]
        for r, (label, key, index) in enumerate(rows):
            grid.addWidget(QtWidgets.QLabel(label), r, 0)
            for j in range(2):
                spin = QtWidgets.QDoubleSpinBox()
                spin.setRange(0.0, 1.0)
                spin.setDecimals(3)
                spin.setSingleStep(0.01)
                spin.setKeyboardTracking(False)
                spin.setToolTip("Each column's π row, A rows and B rows must sum to 1 (Normalise fixes it)")
                spin.valueChanged.connect(lambda value, key=key, j=j, index=index: self._edited(key, j, index, value))
                grid.addWidget(spin, r, 1 + j)
                self.editors[(key, j, index)] = spin
        # the knobs of the casino's lesson as sliders that keep every row summing to one
        self.sliders: dict[str, tuple[QtWidgets.QSlider, QtWidgets.QLabel]] = {}
        knobs = [("fair_to_loaded", "fair → loaded", 500), ("loaded_to_fair", "loaded → fair", 500),
                 ("loaded_six", "loaded P(6)", 1000)]
        r = len(rows)
        for name, label, top in knobs:
            slider = QtWidgets.QSlider(QtCore.Qt.Orientation.Horizontal)
            slider.setRange(0, top)
            slider.setToolTip(f"{label}: drag, or use the arrow keys (the other entries of the row follow)")
            value = QtWidgets.QLabel()
            grid.addWidget(QtWidgets.QLabel(label), r, 0)
            grid.addWidget(slider, r, 1)
            grid.addWidget(value, r, 2)
            slider.valueChanged.connect(lambda pos, name=name: self._slid(name, pos))
            slider.sliderReleased.connect(lambda name=name: self._slid(name, self.sliders[name][0].value()))
            self.sliders[name] = (slider, value)
            r += 1
        buttons = QtWidgets.QHBoxLayout()
        self.normalise_button = QtWidgets.QPushButton("Normalise")
        self.normalise_button.setToolTip("Scale every distribution so that it sums to 1")
        self.normalise_button.clicked.connect(self.normalise)
        self.casino_button = QtWidgets.QPushButton("Casino")
        self.casino_button.setToolTip("Put the dishonest casino's numbers back")
        self.casino_button.clicked.connect(lambda: self.set_matrices(run.casino_matrices()))
        buttons.addWidget(self.normalise_button)
        buttons.addWidget(self.casino_button)
        grid.addLayout(buttons, r, 0, 1, 3)
        layout.addWidget(box)
        self._load_editors()
        self.form.changed.connect(lambda *_: self._editor_visibility())
        self._editor_visibility()

    def _editor_visibility(self) -> None:
        v = self.form.values()
        self.editor_box.setVisible(v["preset"] == "custom" or (v["bw_start"] == "editor" and v["preset"] != "letters"))

    def _load_editors(self) -> None:
        for (key, j, index), spin in self.editors.items():
            m = self.matrices[key]
            value = m[j] if key == "startprob" else (m[j][index])
            spin.blockSignals(True)
            spin.setValue(float(value))
            spin.blockSignals(False)
        A, B = self.matrices["transmat"], self.matrices["emissionprob"]
        for name, value in (("fair_to_loaded", A[0][1]), ("loaded_to_fair", A[1][0]), ("loaded_six", B[1][5])):
            slider, label = self.sliders[name]
            slider.blockSignals(True)
            slider.setValue(int(round(1000 * min(max(float(value), 0.0), 1.0))))
            slider.blockSignals(False)
            label.setText(f"{float(value):.3f}")

    def _slid(self, name: str, pos: int) -> None:
        """A slider moved: set its entry and the rest of its row (a drag applies on release)."""
        slider, label = self.sliders[name]
        v = pos / 1000.0
        label.setText(f"{v:.3f}")
        if slider.isSliderDown():
            return
        m = {k: np.asarray(a, dtype=float) for k, a in self.matrices.items()}
        if name == "fair_to_loaded":
            m["transmat"][0] = [1.0 - v, v]
        elif name == "loaded_to_fair":
            m["transmat"][1] = [v, 1.0 - v]
        else:
            m["emissionprob"][1] = [(1.0 - v) / 5] * 5 + [v]
        self.set_matrices(m)

    def _edited(self, key: str, j: int, index, value: float) -> None:
        if key == "startprob":
            self.matrices[key][j] = float(value)
        else:
            self.matrices[key][j][index] = float(value)
        if self._uses_editor():
            self.reset()

    def _uses_editor(self) -> bool:
        v = self.form.values()
        return v["preset"] == "custom" or (v["bw_start"] == "editor" and v["preset"] != "letters")

    def normalise(self) -> None:
        m = self.matrices
        out = {}
        for key in ("startprob", "transmat", "emissionprob"):
            a = np.asarray(m[key], dtype=float)
            sums = a.sum(axis=-1, keepdims=True)
            a = np.where(sums > 0, a / np.where(sums > 0, sums, 1.0), 1.0 / a.shape[-1])
            out[key] = a.tolist()
        self.set_matrices(out)

    def set_matrices(self, matrices: dict) -> None:
        self.matrices = {k: np.asarray(v, dtype=float).tolist() for k, v in matrices.items()}
        self._load_editors()
        if self._uses_editor():
            self.reset()
