"""The Bayesian inference and decision lab: a coin's Beta posterior and a die's Dirichlet posterior
one observation at a time; the minimum-risk rule for Gaussian classes against QDA, LDA and naive
Bayes fitted from a sample; learning curves of generative against discriminative classifiers.

Each tab is one run: choosing a tab (or the Tab parameter) starts that tab's run.
"""

from __future__ import annotations

import numpy as np
from PySide6 import QtWidgets

from ... import style as theme
from ...lab import Lab
from ...widgets.params import Param
from . import maths, run
from .run import BayesCoinSnapshot, BayesCurvesSnapshot, BayesDecisionSnapshot, BayesSpamSnapshot
from .tabs import CoinTab, CurvesTab, DecisionTab, SpamTab
from .views import MODEL_COLOURS, log_n

TABS = [name for name, _ in run.METHODS]


def _for(*methods: str):
    return lambda v: v["method"] in methods


def _three_classes(v) -> bool:
    return v["method"] == "decision" and int(v["n_classes"]) == 3


def _coin_draws(v) -> bool:
    return v["method"] == "coin" and v["source"] == "draw"


class BayesLab(CoinTab, DecisionTab, CurvesTab, SpamTab, Lab):
    id = "bayes"
    title = "Bayesian inference and decision"
    order = 120
    description = ("A coin's Beta posterior and a die's Dirichlet posterior flip by flip; the Bayes classifier "
                   "for Gaussian classes with priors and losses; generative against discriminative.")
    chapter = "Bayesian inference"
    summary = "Prior to posterior one flip at a time, the Bayes classifier and its risk, naive Bayes against logistic."
    keywords = ("Bayes' rule", "prior", "posterior", "likelihood", "conjugate", "Beta", "Bernoulli", "coin",
                "Dirichlet", "die", "dice", "multinomial", "credible interval", "MAP", "maximum likelihood",
                "posterior mean", "predictive", "marginal likelihood", "evidence", "Jeffreys", "Bayes classifier",
                "Bayes error", "Bayes risk", "loss", "loss matrix", "QDA", "LDA", "naive Bayes", "Gaussian classes",
                "generative", "discriminative", "logistic regression", "learning curve", "spam", "spam filter",
                "multinomial naive Bayes", "Laplace smoothing", "word counts")
    method_param = "method"
    screenshot_steps = 20

    # ------------------------------------------------------------------ building
    def init_state(self) -> None:
        self.clicks: list[int] = []  # the user's own flips (1 heads, 0 tails)
        self.classes = {"means": [list(m) for m in run.DEFAULT_CLASSES["means"]],
                        "covs": [[list(r) for r in c] for c in run.DEFAULT_CLASSES["covs"]]}
        self.message = run.DEFAULT_MESSAGE  # the message the spam filter scores
        self._syncing = False

    def parameter_specs(self):
        return [
            Param("method", "Tab", "choice", "coin", choices=run.METHODS, tooltip="Which run (each has its own tab)"),
            Param("prior", "Coin prior", "choice", "uniform", choices=[(k, v[0]) for k, v in run.PRIORS.items()],
                  tooltip="The prior Beta(a, b) of the coin's θ = P(heads)", visible_when=_for("coin")),
            Param("source", "Flips", "choice", "draw", choices=[("draw", "Drawn from θ"), ("clicks", "My clicks")],
                  tooltip="Flips drawn from a coin of the chosen θ, or the ones you click", visible_when=_for("coin")),
            Param("p", "True θ", "float", 0.3, minimum=0.0, maximum=1.0, step=0.05, decimals=2,
                  tooltip="The drawing coin's P(heads)", visible_when=_coin_draws),
            Param("flips", "Flips", "int", 100, minimum=1, maximum=2000, step=10, visible_when=_coin_draws,
                  tooltip="How many flips (one per step)"),
            Param("die", "Die", "choice", "loaded", choices=[(k, v[0]) for k, v in run.DICE.items()],
                  tooltip="The three-faced die rolled once per flip", visible_when=_for("coin")),
            Param("die_alpha", "Die prior α", "log", 1.0, minimum=0.1, maximum=50.0, decimals=2,
                  tooltip="Dirichlet(α, α, α): α = 1 is uniform on the triangle", visible_when=_for("coin")),
            Param("n_classes", "Classes", "int", 2, minimum=2, maximum=3, visible_when=_for("decision")),
            Param("prior1", "π of class 1", "float", 0.5, minimum=0.05, maximum=0.95, step=0.05, decimals=2,
                  tooltip="The prior of class 1; with two classes class 2 takes the rest",
                  visible_when=_for("decision")),
            Param("prior2", "π of class 2", "float", 0.25, minimum=0.05, maximum=0.9, step=0.05, decimals=2,
                  tooltip="The prior of class 2; class 3 takes the rest, 1 − π₁ − π₂", visible_when=_three_classes),
            *(Param(run.loss_name(j, k), f"Loss {j + 1} → {k + 1}", "log", 1.0, minimum=0.1, maximum=20.0,
                    decimals=2, tooltip=f"L({j + 1}, {k + 1}): the loss of deciding class {k + 1} when the truth "
                                        f"is class {j + 1} (a right decision costs 0)",
                    visible_when=_for("decision") if k < 2 and j < 2 else _three_classes)
              for j, k in run.LOSS_ENTRIES),
            Param("points", "Sample size", "int", 800, minimum=20, maximum=2000, step=20,
                  tooltip="The sample grows to this size; QDA, LDA and naive Bayes are fitted to it",
                  visible_when=_for("decision")),
            Param("repeats", "Repeats", "int", 8, minimum=1, maximum=50, visible_when=_for("curves"),
                  tooltip="Training samples averaged at every n"),
            Param("alpha", "Smoothing α", "log", 1.0, minimum=0.01, maximum=20.0, decimals=2,
                  tooltip="Add-α smoothing: P(w | c) = (N_cw + α) / (N_c + V α); α = 1 is Laplace's",
                  visible_when=_for("spam")),
        ]

    def build_controls(self, layout: QtWidgets.QVBoxLayout) -> None:
        self._build_flip_buttons(layout)
        self._build_class_buttons(layout)
        self._build_message_box(layout)

    def build_plots(self) -> QtWidgets.QWidget:
        self.tabs = QtWidgets.QTabWidget()
        self.tabs.addTab(self._build_coin_tab(), "Coin and dice")
        self.tabs.addTab(self._build_decision_tab(), "Decision")
        self.tabs.addTab(self._build_curves_tab(), "Generative vs discriminative")
        self.tabs.addTab(self._build_spam_tab(), "Spam filter")
        return self.tabs

    def after_build(self) -> None:
        self._show_tab_of(self.form.value("method"))
        self.tabs.currentChanged.connect(self._tab_changed)

    # ------------------------------------------------------------------ tabs and parameters
    def _show_tab_of(self, method: str) -> None:
        self.flip_box.setVisible(method == "coin")
        self.class_box.setVisible(method == "decision")
        self.message_box.setVisible(method == "spam")
        if self.tabs.currentIndex() == TABS.index(method):
            return
        self._syncing = True
        try:
            self.tabs.setCurrentIndex(TABS.index(method))
        finally:
            self._syncing = False

    def _tab_changed(self, index: int) -> None:
        if self._syncing or not 0 <= index < len(TABS) or TABS[index] == self.form.value("method"):
            return
        self.form.set_value("method", TABS[index])
        self.form.update_visibility()
        self._show_tab_of(TABS[index])
        self.reset()

    def on_param_changed(self, name: str) -> None:
        if name == "method":
            self._show_tab_of(self.form.value("method"))
        self.reset()

    def after_params_restored(self) -> None:
        self._show_tab_of(self.form.value("method"))

    def make_run(self, params: dict, seed: int):
        method = params["method"]
        if method == "coin":
            die = run.DICE[params["die"]][1]
            if params["source"] == "clicks":
                flips, p = np.array(self.clicks, dtype=np.int64), None
            else:
                p = float(params["p"])
                flips = run.coin_flips(p, int(params["flips"]), seed)
            rolls = run.die_rolls(die, flips.size, seed)
            return lambda: run.run_steps("coin", flips, params["prior"], p, rolls, float(params["die_alpha"]), die)
        if method == "decision":
            K = int(params["n_classes"])
            means, covs = run.check_classes(self.classes, K)
            priors = run.class_priors(K, float(params["prior1"]), float(params["prior2"]))
            args = (means, covs, priors, run.loss_matrix(K, params), int(params["points"]), seed)
            return lambda: run.run_steps("decision", *args)
        if method == "curves":
            repeats = int(params["repeats"])
            return lambda: run.run_steps("curves", repeats, seed)
        message, alpha = self.message, float(params["alpha"])
        if len(message) > run.MAX_MESSAGE:
            raise ValueError(f"the message has {len(message)} characters; the filter scores at most {run.MAX_MESSAGE}")
        return lambda: run.run_steps("spam", message, alpha, seed)

    def prepare(self, snapshot):  # on a worker: the boundaries' lines, the die's density
        if isinstance(snapshot, BayesDecisionSnapshot):
            return run.boundary_lines(snapshot)
        if isinstance(snapshot, BayesCoinSnapshot):
            return run.simplex_density(snapshot.die_alpha)
        return None

    # ------------------------------------------------------------------ drawing
    def show_idle(self) -> None:
        for panel in (self.risk_panel, self.accuracy_panel, *self.curve_panels.values()):
            panel.clear_series()
        self.decision_panel.forget()

    def render(self, snapshot, prepared, history) -> None:
        if isinstance(snapshot, BayesCoinSnapshot):
            self.posterior_panel.draw(snapshot)
            self.evidence_panel.draw(snapshot)
            if prepared is not None:
                self.simplex_panel.draw(snapshot, *prepared)
        elif isinstance(snapshot, BayesDecisionSnapshot):
            self.decision_panel.draw(snapshot, prepared)
            if history.rewound:
                self.risk_panel.clear_series()
            added = history.added
            ns = log_n([h.n for h in added])
            self.risk_panel.curve("Bayes", color=theme.OKABE_ITO["black"], dash=0).extend(
                ns, [h.bayes_risk for h in added])
            for i, (_, label) in enumerate(run.MODELS):  # each rule in the colour of its boundary on the map
                fitted = [h for h in added if h.risks[i] is not None]
                self.risk_panel.curve(label, color=MODEL_COLOURS[i], dash=i + 1).extend(
                    log_n([h.n for h in fitted]), [h.risks[i] for h in fitted])
        elif isinstance(snapshot, BayesCurvesSnapshot):
            if history.rewound:
                for panel in self.curve_panels.values():
                    panel.clear_series()
            added = [h for h in history.added if h.complete]  # a point once all its samples are in
            ns = log_n([h.n for h in added])
            for setting, panel in self.curve_panels.items():
                for m, label in run.CURVE_MODELS:
                    panel.curve(label).extend(ns, [h.errors[(setting, m)] for h in added])
                panel.curve("Bayes error").extend(ns, [h.bayes[setting] for h in added])

        elif isinstance(snapshot, BayesSpamSnapshot):
            self._render_spam(snapshot, history)

    def _render_spam(self, snap: BayesSpamSnapshot, history) -> None:
        pairs = list(snap.spam_words) + list(reversed(snap.ham_words))
        self.words_panel.set_bars([w for w, _ in pairs], [v for _, v in pairs])
        names = ["(prior)"] + [w if v is not None else f"{w} (unseen)" for w, v in snap.tokens]
        self.message_panel.set_bars(names, [snap.prior_log_odds] + [v for _, v in snap.tokens])
        p = snap.p_spam
        shown = "< 0.001" if p < 0.001 else "> 0.999" if p > 0.999 else f"= {p:.3f}"
        self.message_panel.set_title(f"P(spam) {shown}")
        if history.rewound:
            self.accuracy_panel.clear_series()
        added = history.added
        ms = log_n([h.m for h in added])
        self.accuracy_panel.curve("accuracy").extend(ms, [h.accuracy for h in added])
        self.accuracy_panel.curve("spam caught").extend(ms, [h.spam_caught for h in added])

    def maths_html(self, snapshot) -> str:
        return maths.maths_html(snapshot)

    def main_plot(self):
        method = self.form.value("method")
        return {"coin": self.posterior_panel, "decision": self.decision_panel, "spam": self.words_panel}.get(
            method, self.curve_panels["wrong"])

    def user_data(self) -> dict:
        return {"clicks": list(self.clicks), "classes": self.classes, "message": self.message}

    def set_user_data(self, data: dict) -> None:
        clicks = data.get("clicks", [])
        if not isinstance(clicks, list) or len(clicks) > 100_000 or any(c not in (0, 1) or isinstance(c, bool)
                                                                         for c in clicks):
            raise ValueError("clicks must be a list of 0 (tails) and 1 (heads)")
        classes = data.get("classes", self.classes)
        means, covs = run.check_classes(classes, 3)
        message = data.get("message", self.message)
        if not isinstance(message, str) or len(message) > run.MAX_MESSAGE:
            raise ValueError(f"the message must be text of at most {run.MAX_MESSAGE} characters")
        self.message = message
        self.message_edit.setText(message)
        self.clicks = [int(c) for c in clicks]
        self.classes = {"means": means.tolist(), "covs": covs.tolist()}
        self.decision_panel.classes = None

    def export_rows(self) -> tuple[list[str], list[list]]:
        snap = self.runner.current
        if isinstance(snap, BayesCoinSnapshot):
            return (["flips", "heads", "a", "b", "posterior_mean", "lower_95", "upper_95"],
                    [[snap.n, snap.heads, snap.a, snap.b, snap.mean, snap.lo, snap.hi]])
        if isinstance(snap, BayesDecisionSnapshot):
            return ["x1", "x2", "class"], [[float(x[0]), float(x[1]), int(c) + 1] for x, c in zip(snap.X, snap.y)]
        if isinstance(snap, BayesSpamSnapshot):
            return ["word", "log_odds_toward_spam"], [[w, v] for w, v in snap.tokens]
        if isinstance(snap, BayesCurvesSnapshot):
            return (["n", "setting", "model", "test_error"],
                    [[snap.n, s, m, v] for (s, m), v in snap.errors.items()])
        return [], []
