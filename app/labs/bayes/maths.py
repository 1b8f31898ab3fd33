"""The maths panel's text (Qt-free): the current posterior's numbers, the decision's risks."""

from __future__ import annotations

import math

import numpy as np

from .run import MODELS, PRIORS, BayesCoinSnapshot, BayesCurvesSnapshot, BayesDecisionSnapshot, BayesSpamSnapshot


def _num(v) -> str:
    return "undefined" if v is None else f"{v:.3f}"


def coin_html(s: BayesCoinSnapshot) -> str:
    k, n = s.heads, s.n
    seen = ("no flip yet: the posterior is the prior" if n == 0 else
            f"{n} flip{'s' if n != 1 else ''}, k = {k} head{'s' if k != 1 else ''}"
            + ("" if s.x is None else f" (last: {'heads' if s.x else 'tails'})"))
    truth = "" if s.true_p is None else f"; the coin's true θ = {s.true_p:.2f}"
    evidence = "".join(f"<br>&nbsp;&nbsp;{PRIORS[name][0]}: log p(x) = {v:.2f}"
                       for name, v in zip(PRIORS, s.log_ml))
    alpha = s.die_alpha
    total = float(alpha.sum())
    die = ", ".join(f"{a / total:.3f}" for a in alpha)
    return (f"<p><b>Bayes' rule</b> p(θ | x) ∝ p(x | θ) p(θ), one flip at a time: yesterday's posterior is "
            f"today's prior. {seen}{truth}.</p>"
            f"<p>Prior Beta(a, b) = Beta({s.a0:g}, {s.b0:g}) → posterior Beta(a + k, b + n − k) = "
            f"Beta({s.a:g}, {s.b:g}).</p>"
            f"<p>ML k/n = {_num(s.ml)}<br>posterior mean (a + k)/(a + b + n) = {s.mean:.3f}"
            f"<br>MAP (a + k − 1)/(a + b + n − 2) = {_num(s.mode)}"
            f"<br>95 % interval [{s.lo:.3f}, {s.hi:.3f}]<br>P(next = heads) = {s.mean:.3f}</p>"
            f"<p>Marginal likelihood p(x) = B(a + k, b + n − k) / B(a, b) of each prior (higher: the "
            f"prior predicted these flips better):{evidence}</p>"
            f"<p><b>Die</b>: Dirichlet({s.die_prior:g}, {s.die_prior:g}, {s.die_prior:g}) + counts "
            f"{', '.join(f'{a - s.die_prior:g}' for a in alpha)} → posterior mean ({die}).</p>")


def loss_html(L) -> str:
    """The loss matrix as a small table: a row per true class, a column per decision."""
    K = len(L)
    head = "".join(f"<td align='right'>&nbsp;{k + 1}</td>" for k in range(K))
    rows = "".join(f"<tr><td>truth j = {j + 1}&nbsp;</td>" + "".join(
        f"<td align='right'>&nbsp;{L[j][k]:g}</td>" for k in range(K)) + "</tr>" for j in range(K))
    return f"<table cellspacing='0' cellpadding='2'><tr><td>L(j, k)&nbsp;&nbsp;decide k =</td>{head}</tr>{rows}</table>"


def decision_html(s: BayesDecisionSnapshot) -> str:
    K = s.K
    priors = ", ".join(f"{p:.2f}" for p in s.priors)
    off = s.loss[~np.eye(K, dtype=bool)]
    rule = ("0–1 loss: the rule is MAP, argmax<sub>k</sub> p(x | k) π<sub>k</sub>" if np.all(off == 1.0) else
            "the rule decides argmin<sub>k</sub> Σ<sub>j</sub> L(j, k) P(j | x)")
    exact = "" if s.bayes_risk_exact is None else (
        f" (exact, by Imhof's integral for two Gaussian classes: {s.bayes_risk_exact:.4f})")
    rows = []
    for (kind, label), risk, err in zip(MODELS, s.risks, s.fit_errors):
        rows.append(f"<br>&nbsp;&nbsp;{label} ({kind} Σ): " + (err if risk is None else f"risk {risk:.4f}"))
    return (f"<p><b>Decision</b>: {K} Gaussian classes, priors π = ({priors}); {rule}. The map shades "
            f"P(y | x), darker where the rule errs.</p>"
            f"{loss_html(s.loss)}"
            f"<p>Bayes risk ∫ min<sub>k</sub> Σ<sub>j</sub> L(j, k) π<sub>j</sub> p<sub>j</sub>(x) dx = "
            f"{s.bayes_risk:.4f}{exact}.</p>"
            f"<p>Fitted from n = {s.n} points (the truth judges each rule):{''.join(rows)}</p>"
            f"<p>QDA: one covariance per class, quadratic boundary; LDA: one shared covariance, linear "
            f"boundary; naive Bayes: diagonal covariances (features independent given the class).</p>")


def curves_html(s: BayesCurvesSnapshot) -> str:
    rows = []
    for setting, bayes in s.bayes.items():
        errs = ", ".join(f"{label} {s.errors[(setting, m)]:.3f}" for m, label in
                         (("nb", "naive Bayes"), ("lda", "LDA"), ("logistic", "logistic")))
        rows.append(f"<br>&nbsp;&nbsp;{setting}: {errs} (Bayes error {bayes:.3f})")
    return (f"<p><b>Generative against discriminative</b> at n = {s.n} training points, test error averaged "
            f"over {s.done} of {s.repeats} samples:{''.join(rows)}</p>"
            f"<p>A generative model (p(x | y) p(y), then Bayes' rule) reaches its asymptote with fewer "
            f"points; logistic regression (P(y | x) directly) reaches a lower one when the generative "
            f"model is wrong.</p>")


def spam_html(s: BayesSpamSnapshot) -> str:
    seen = [f"{w} {v:+.2f}" for w, v in s.tokens if v is not None]
    unseen = [w for w, v in s.tokens if v is None]
    words = ", ".join(seen) if seen else "no word the filter knows"
    return (f"<p><b>Multinomial naive Bayes</b> trained on {s.m} messages: P(w | c) = (N<sub>cw</sub> + α) / "
            f"(N<sub>c</sub> + V α), and log P(spam | x) − log P(ham | x) = log π<sub>spam</sub>/π<sub>ham</sub> "
            f"+ Σ<sub>w</sub> x<sub>w</sub> [log P(w | spam) − log P(w | ham)].</p>"
            f"<p>Test messages ({s.n_test}): accuracy {s.accuracy:.3f}, spam caught {s.spam_caught:.3f}, "
            f"ham flagged {s.ham_flagged:.3f}.</p>"
            f"<p>The message: prior {s.prior_log_odds:+.2f}; {words}"
            + (f"; never seen (no evidence): {', '.join(unseen)}" if unseen else "")
            + f". Total log-odds {s.log_odds:+.2f}, P(spam) = {s.p_spam:.3f}.</p>")


def maths_html(s) -> str:
    if isinstance(s, BayesCoinSnapshot):
        return coin_html(s)
    if isinstance(s, BayesDecisionSnapshot):
        return decision_html(s)
    if isinstance(s, BayesCurvesSnapshot):
        return curves_html(s)
    if isinstance(s, BayesSpamSnapshot):
        return spam_html(s)
    return ""


def log10_text(v: float) -> str:
    """A log marginal likelihood as a power of ten, for a bar's label."""
    return f"10^{v / math.log(10):.1f}"
