"""The hidden Markov model lab's maths panel: pure functions from a snapshot to HTML (no Qt)."""

from __future__ import annotations

import html
import math

import numpy as np

from .run import TOL, TRUTH_WITHIN, HMMLabSnapshot, LearnState


def _f(x: float, digits: int = 4) -> str:
    if x is None or not math.isfinite(x):
        return "−∞" if x is not None and x < 0 else "–"
    return f"{x:.{digits}g}"


def _vec(v) -> str:
    return "(" + ", ".join(_f(float(a), 3) for a in v) + ")"


def _symbol(data, s: int) -> str:
    return html.escape(data.symbol_names[s])


def filter_html(snap: HMMLabSnapshot) -> str:
    """The forward recursion with the numbers of the step on screen."""
    d = snap.data
    rows = [
        "<h3>Filtering: the forward algorithm</h3>",
        "<p class='eq'>a<sub>t</sub>(k) = B<sub>k</sub>(x<sub>t</sub>) "
        "Σ<sub>j</sub> α<sub>t−1</sub>(j) A<sub>jk</sub>"
        "<br>c<sub>t</sub> = Σ<sub>k</sub> a<sub>t</sub>(k), &nbsp; α<sub>t</sub> = a<sub>t</sub> / c<sub>t</sub>"
        " = P(z<sub>t</sub> | x<sub>1..t</sub>)<br>log P(x<sub>1..t</sub>) = Σ<sub>s≤t</sub> log c<sub>s</sub></p>",
        "<p>Normalising every step keeps the numbers near 1: 100,000 rolls never underflow.</p>",
    ]
    names = d.state_names
    if snap.t == 0:
        states = html.escape(", ".join(names))
        rows.append(f"<p class='num'>t = 0: α<sub>0</sub> = π = {_vec(d.pi)}<br>states: {states}</p>")
        return "".join(rows)
    t = snap.t
    x = int(d.x[t - 1])
    prev = d.pi if t == 1 else d.filtered[t - 2]
    pred = prev if t == 1 else prev @ d.A
    a = pred * d.B[:, x]
    rows.append("<p class='num'>")
    rows.append(f"t = {t}, x<sub>t</sub> = {_symbol(d, x)}<br>")
    rows.append(("π" if t == 1 else "α<sub>t−1</sub> A") + f" = {_vec(pred)}<br>")
    rows.append(f"B(x<sub>t</sub>) = {_vec(d.B[:, x])}<br>")
    rows.append(f"a<sub>t</sub> = {_vec(a)}, &nbsp; c<sub>t</sub> = {_f(snap.scale)}<br>")
    rows.append(f"α<sub>t</sub> = {_vec(snap.alpha)}<br>")
    rows.append(f"P({html.escape(names[d.focus])} | x<sub>1..t</sub>) = {_f(float(snap.alpha[d.focus]), 3)}<br>")
    rows.append(f"log P(x<sub>1..t</sub>) = {_f(snap.log_likelihood, 6)}</p>")
    return "".join(rows)


def decode_html(snap: HMMLabSnapshot) -> str:
    d = snap.data
    e = d.errors
    return "".join([
        "<h3>Smoothing and Viterbi</h3>",
        "<p class='eq'>β<sub>T</sub> = 1, &nbsp; "
        "β<sub>t</sub>(j) = Σ<sub>k</sub> A<sub>jk</sub> B<sub>k</sub>(x<sub>t+1</sub>)"
        " β<sub>t+1</sub>(k) / c<sub>t+1</sub><br>γ<sub>t</sub>(k) = α<sub>t</sub>(k) β<sub>t</sub>(k)"
        " = P(z<sub>t</sub> = k | x<sub>1..T</sub>)</p>",
        "<p class='eq'>δ<sub>t</sub>(k) = max<sub>j</sub> [δ<sub>t−1</sub>(j) + log A<sub>jk</sub>]"
        " + log B<sub>k</sub>(x<sub>t</sub>)</p>",
        "<p class='num'>",
        f"T = {d.T}, log P(x) = {_f(d.log_likelihood, 6)}<br>",
        f"Viterbi: max<sub>z</sub> log P(x, z) = {_f(d.log_prob, 6)}<br>",
        f"errors vs {html.escape(d.truth_name)}:<br>",
        f"filtering {100 * e['filtering']:.1f} %, smoothing {100 * e['smoothing']:.1f} %, "
        f"Viterbi {100 * e['Viterbi']:.1f} %",
        "</p><p>Smoothing also reads the rolls after t, so it finds the switches sooner than filtering.</p>",
    ])


def trellis_html(snap: HMMLabSnapshot) -> str:
    d = snap.data
    rows = [
        "<h3>Viterbi trellis</h3>",
        "<p class='eq'>δ<sub>1</sub>(k) = log π<sub>k</sub> + log B<sub>k</sub>(x<sub>1</sub>)<br>"
        "δ<sub>t</sub>(k) = max<sub>j</sub> [δ<sub>t−1</sub>(j) + log A<sub>jk</sub>]"
        " + log B<sub>k</sub>(x<sub>t</sub>)<br>"
        "ψ<sub>t</sub>(k) = argmax<sub>j</sub> [ … ], &nbsp; "
        "z*<sub>t−1</sub> = ψ<sub>t</sub>(z*<sub>t</sub>)</p>",
    ]
    if snap.log_delta is not None:
        names = d.state_names
        if snap.t >= d.T:
            rows.append(f"<p class='num'>back-track from z*<sub>T</sub> = {html.escape(names[int(d.path[-1])])}"
                        f"<br>max<sub>z</sub> log P(x, z) = {_f(d.log_prob, 6)}</p>")
        else:
            t = snap.t
            cells = ", ".join(
                f"δ({html.escape(names[k])}) = {_f(float(snap.log_delta[k]), 5)}"
                + ("" if snap.backpointer[k] < 0 else f" ← {html.escape(names[int(snap.backpointer[k])])}")
                for k in range(d.K)
            )
            rows.append(f"<p class='num'>column t = {t + 1}, x<sub>t</sub> = {_symbol(d, int(d.x[t]))}<br>{cells}</p>")
    return "".join(rows)


def _power_of_ten(x: float) -> str:
    """10⁻⁶ for 1e-6."""
    exponent = str(round(math.log10(x)))
    return "10" + exponent.translate(str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"))


def log_likelihood_text(x: float) -> str:
    """A log-likelihood as every learning text writes it (2 decimals, a true minus sign)."""
    return f"{x:.2f}".replace("-", "−")


def status_text(learn: LearnState) -> str:
    """Where the restart stands: the words the caption and the maths panel share."""
    if learn.status == "start":
        return "the random start"
    if learn.status == "climbing":
        return f"climbing (+{learn.gain:.2g} in the last iteration)"
    if learn.status == "converged":
        return f"converged (the last gain < {_power_of_ten(TOL)})"
    return f"stopped at the {learn.max_iter}-iteration limit, still climbing (+{learn.gain:.2g})"


def verdict_text(snap: HMMLabSnapshot) -> str:
    """What the learned model is: the truth, another optimum, or not the truth yet."""
    learn = snap.learn
    if learn.found_truth:
        return f"the truth found (all within {TRUTH_WITHIN:g})"
    if learn.status == "converged":
        side = "above" if snap.bw.log_likelihood > snap.data.log_likelihood_train else "below"
        return f"another optimum, {side} the truth's log P(x)"
    return "not the truth (yet)"


def truth_text(snap: HMMLabSnapshot) -> str:
    """The learned model against the truth: log-likelihoods side by side, the distance after
    matching the states, and the verdict."""
    learn = snap.learn
    ll, true_ll = snap.bw.log_likelihood, snap.data.log_likelihood_train
    order = " (states swapped)" if learn.switched else ""
    return (f"log P(x) {log_likelihood_text(ll)}, true model {log_likelihood_text(true_ll)}; "
            f"off the truth{order}: A {learn.off_A:.2f}, B {learn.off_B:.2f} — {verdict_text(snap)}.")


def learn_html(snap: HMMLabSnapshot) -> str:
    d = snap.data
    bw = snap.bw
    rows = [
        "<h3>Baum–Welch (EM)</h3>",
        "<p class='eq'>E: γ<sub>t</sub>, &nbsp; "
        "ξ<sub>t</sub>(i, j) = α<sub>t</sub>(i) A<sub>ij</sub> B<sub>j</sub>(x<sub>t+1</sub>)"
        " β<sub>t+1</sub>(j) / c<sub>t+1</sub><br>"
        "M: A<sub>ij</sub> = Σ<sub>t</sub> ξ<sub>t</sub>(i, j) / Σ<sub>t</sub> γ<sub>t</sub>(i), &nbsp; "
        "B<sub>km</sub> = Σ<sub>t: x<sub>t</sub>=m</sub> γ<sub>t</sub>(k) / Σ<sub>t</sub> γ<sub>t</sub>(k), &nbsp; "
        "π = γ<sub>1</sub></p>",
        "<p>log P(x) never decreases; different starts may stop at different local optima, "
        "and the learned states may come out in another order (label switching): they are matched "
        "to the true ones before the distance is measured (largest difference of one probability).</p>",
    ]
    if bw is not None and snap.learn is not None:
        learn = snap.learn
        rows.append("<p class='num'>")
        rows.append(f"restart {snap.restart + 1} of {d.n_restarts}, iteration {bw.step}: "
                    f"{html.escape(status_text(learn))}<br>")
        rows.append(f"log P(x) = {_f(bw.log_likelihood, 7)} on {d.x_train.shape[0]} symbols<br>")
        rows.append(f"true model: {_f(d.log_likelihood_train, 7)}<br>")
        perm = list(learn.perm)
        rows.append("A (states matched) = " + " ".join(_vec(r) for r in np.asarray(bw.transmat)[np.ix_(perm, perm)])
                    + "<br>")
        rows.append(f"learned state matched to each true state: {tuple(perm)}"
                    + (" (switched)" if learn.switched else "") + "<br>")
        rows.append(html.escape(truth_text(snap)))
        rows.append("</p>")
    return "".join(rows)


def maths_html(snap: HMMLabSnapshot) -> str:
    writers = {"filter": filter_html, "decode": decode_html, "trellis": trellis_html, "learn": learn_html}
    return writers[snap.stage](snap)
