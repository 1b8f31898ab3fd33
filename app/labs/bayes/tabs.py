"""The lab's tabs: the coin and the die (with the flip buttons), the decision plane (with its
draggable classes), the learning curves."""

from __future__ import annotations

import numpy as np
from PySide6 import QtCore, QtWidgets

from ...widgets.metrics import MetricPanel
from ...widgets.pages import splitter
from . import run
from .views import DecisionPanel, EvidencePanel, PosteriorPanel, SimplexPanel, WordBars, log_ticks


class CoinTab:
    """The coin's posterior, the evidence of each prior and the die; flips clicked by the user."""

    def _build_coin_tab(self) -> QtWidgets.QWidget:
        self.posterior_panel = PosteriorPanel()
        self.posterior_panel.setToolTip("The prior (dashed) becomes the posterior (solid) flip by flip; the shaded "
                                        "part is the 95 % credible interval; the lines mark the estimates")
        self.evidence_panel = EvidencePanel()
        self.evidence_panel.setToolTip("log p(flips | prior): the marginal likelihood of the flips seen so far under "
                                       "each prior (higher is better)")
        self.simplex_panel = SimplexPanel()
        self.simplex_panel.setToolTip("The Dirichlet posterior of a three-faced die's probabilities: each point of "
                                      "the triangle is one die (a corner: always that face). ✕ the true die, ● the "
                                      "posterior mean")
        right = splitter(True, self.evidence_panel, self.simplex_panel, sizes=[260, 400], stretch=[2, 3])
        return splitter(False, self.posterior_panel, right, sizes=[640, 360], stretch=[2, 1])

    def _build_flip_buttons(self, layout: QtWidgets.QVBoxLayout) -> None:
        self.flip_box = QtWidgets.QWidget()
        row = QtWidgets.QGridLayout(self.flip_box)
        row.setContentsMargins(0, 0, 0, 0)
        for i, (text, handler, tip) in enumerate((
                ("Heads", lambda: self._flip(1), "Add a flip that came up heads (the flips become yours)"),
                ("Tails", lambda: self._flip(0), "Add a flip that came up tails"),
                ("Clear flips", self._clear_flips, "Forget your flips"))):
            button = QtWidgets.QPushButton(text)
            button.setToolTip(tip)
            button.clicked.connect(handler)
            row.addWidget(button, i // 2, i % 2)
        layout.addWidget(self.flip_box)

    def _flip(self, x: int) -> None:
        self.clicks.append(int(x))
        if self.form.value("source") != "clicks":
            self.form.set_value("source", "clicks")
            self.form.update_visibility()
        self.reset()
        self.run_to(len(self.clicks))

    def _clear_flips(self) -> None:
        self.clicks.clear()
        if self.form.value("source") == "clicks":
            self.reset()


class DecisionTab:
    """Gaussian classes with draggable means and axes; the risk of the fitted rules against n."""

    def _build_decision_tab(self) -> QtWidgets.QWidget:
        self.decision_panel = DecisionPanel(self._classes_moved)
        self.decision_panel.setToolTip("Drag a class's ● to move its mean and its ■ to turn and stretch its "
                                       "ellipse (2 standard deviations). Colour: P(y | x); darker: where the "
                                       "rule errs (the Bayes risk)")
        self.risk_panel = MetricPanel("Risk", "points n", "risk")
        self.risk_panel.setToolTip("The true risk of the rules fitted from n points, against the Bayes risk")
        log_ticks(self.risk_panel)
        return splitter(False, self.decision_panel, self.risk_panel, sizes=[620, 380], stretch=[3, 2])

    def _build_class_buttons(self, layout: QtWidgets.QVBoxLayout) -> None:
        self.class_box = QtWidgets.QPushButton("Reset the classes")
        self.class_box.setToolTip("Put the means and covariances back to the lab's defaults")
        self.class_box.clicked.connect(self._reset_classes)
        layout.addWidget(self.class_box)

    def _classes_moved(self, means, covs) -> None:
        K = len(means)
        full_means = np.array(self.classes["means"], float)
        full_covs = np.array(self.classes["covs"], float)
        full_means[:K], full_covs[:K] = means, covs
        try:
            run.check_classes({"means": full_means, "covs": full_covs}, len(full_means))
        except ValueError as exc:  # a degenerate ellipse: keep the classes as they were
            self.show_error(str(exc))
            self.decision_panel.set_classes(*run.check_classes(self.classes, K))
            return
        self.classes = {"means": full_means.tolist(), "covs": full_covs.tolist()}
        QtCore.QTimer.singleShot(0, self.reset)  # after the drag's own event has finished

    def _reset_classes(self) -> None:
        self.classes = {"means": [list(m) for m in run.DEFAULT_CLASSES["means"]],
                        "covs": [[list(r) for r in c] for c in run.DEFAULT_CLASSES["covs"]]}
        self.decision_panel.classes = None
        self.reset()


class CurvesTab:
    """Test error against the number of training points, generative against discriminative."""

    def _build_curves_tab(self) -> QtWidgets.QWidget:
        self.curve_panels = {}
        for name, label, what in run.SETTINGS:
            panel = MetricPanel(label[0].upper() + label[1:], "training points n", "test error")
            panel.setToolTip(f"{what}. Test error against the training points, averaged over the repeats")
            log_ticks(panel)
            self.curve_panels[name] = panel
        return splitter(True, *self.curve_panels.values(), sizes=[400, 400], stretch=[1, 1])


class SpamTab:
    """Multinomial naive Bayes on short messages: the telling words, a typed message word by word."""

    def _build_spam_tab(self) -> QtWidgets.QWidget:
        self.words_panel = WordBars("Telling words", "spam log-odds")
        self.words_panel.setToolTip("The words with the largest log-odds log P(w | spam) − log P(w | ham) toward "
                                    "spam (red) and toward ham (blue) in the messages trained on so far")
        self.message_panel = WordBars("Your message", "spam log-odds")
        self.message_panel.setToolTip("Each word of the typed message adds its log-odds (0: a word the filter "
                                      "never saw); the prior log-odds come first")
        self.accuracy_panel = MetricPanel("Test accuracy", "training messages", "share")
        log_ticks(self.accuracy_panel)
        right = splitter(True, self.message_panel, self.accuracy_panel, sizes=[420, 260], stretch=[3, 2])
        return splitter(False, self.words_panel, right, sizes=[480, 520], stretch=[1, 1])

    def _build_message_box(self, layout: QtWidgets.QVBoxLayout) -> None:
        self.message_box = QtWidgets.QWidget()
        col = QtWidgets.QVBoxLayout(self.message_box)
        col.setContentsMargins(0, 0, 0, 0)
        col.addWidget(QtWidgets.QLabel("A message to score:"))
        self.message_edit = QtWidgets.QLineEdit(self.message)
        self.message_edit.setMaxLength(run.MAX_MESSAGE)
        self.message_edit.setToolTip("Type a message and press Enter: the filter scores it word by word")
        self.message_edit.editingFinished.connect(self._message_edited)
        col.addWidget(self.message_edit)
        layout.addWidget(self.message_box)

    def _message_edited(self) -> None:
        text = self.message_edit.text()
        if text != self.message:
            self.message = text
            self.reset()
