"""The maths panel of the mixtures lab (Qt-free): the E- and M-step with this step's numbers,
the numbers of a clicked point, and BIC with its parameter count."""

from __future__ import annotations

import html
import math

import numpy as np

from smlengine.mixture import n_parameters

SIGMA_TEXT = {
    "full": "Σ<sub>k</sub> = S<sub>k</sub>",
    "diag": "Σ<sub>k</sub> = diag(S<sub>k</sub>)",
    "spherical": "Σ<sub>k</sub> = (tr S<sub>k</sub> / 2) I",
    "tied": "Σ = Σ<sub>k</sub> n<sub>k</sub> S<sub>k</sub> / n (one for all)",
}
HALF_TEXT = {
    "init": "initial parameters and their responsibilities (an E-step)",
    "EM": "one iteration: M-step, then E-step",
    "M": "M-step: parameters moved, responsibilities unchanged",
    "E": "E-step: responsibilities renewed, parameters unchanged",
    "collapse": "a component collapsed onto one point",
}


def _half_text(frame) -> str:
    if frame.phase == "k-means":
        return f"EM converged at step {frame.em_step}; k-means goes on"
    if frame.em.half == "init" and frame.ctx.params.get("half_steps"):
        return "initial parameters, nothing assigned yet (a_ik = 1/K)"
    return HALF_TEXT.get(frame.em.half, frame.em.half)


def _num(v: float, digits: int = 3) -> str:
    if not math.isfinite(v):
        return "+∞" if v > 0 else ("−∞" if v < 0 else "–")
    return f"{v:,.{digits}f}" if abs(v) < 1e5 else f"{v:.{digits}e}"


def _vec(v) -> str:
    return "(" + ", ".join(_num(float(x), 2) for x in v) + ")"


def _mat(S) -> str:
    S = np.asarray(S)
    return "[" + "; ".join(" ".join(_num(float(x), 2) for x in row) for row in S) + "]"


def step_unit_text(frame) -> str:
    """What one step of the run bar is, said once: the unit every readout of this lab uses."""
    if frame.ctx.params.get("half_steps"):
        unit = "one step is a half-step (an E- or an M-step); an iteration is both"
    else:
        unit = "one step is one iteration (an M-step, then an E-step)"
    if frame.phase == "k-means":
        unit += f"; after step {frame.em_step} only k-means moves (one iteration a step)"
    return unit


def point_numbers(X: np.ndarray, i: int, weights, means, covariances) -> tuple[np.ndarray, np.ndarray]:
    """c_k g(x_i; μ_k, Σ_k) for every k and the responsibilities a_ik of one point."""
    x = X[i]
    joint = np.zeros(len(weights))
    for k, (c, m, S) in enumerate(zip(weights, means, covariances)):
        det = float(np.linalg.det(S))
        if det > 0:
            d = x - m
            joint[k] = c * math.exp(-0.5 * float(d @ np.linalg.solve(S, d))) / (2 * math.pi * math.sqrt(det))
    total = joint.sum()
    return joint, (joint / total if total > 0 else np.full(len(weights), np.nan))


def maths_html(frame, selected: int = -1) -> str:
    """HTML for the maths panel: the E- and M-step, then this step's numbers."""
    if frame is None:
        return ""
    em, ctx = frame.em, frame.ctx
    X = ctx.X
    n, k = len(X), len(em.weights)
    ctype = ctx.params["covariance_type"]
    reg = ctx.reg
    parts = [
        "<h3>Gaussian mixture</h3>",
        "<p class='eq'>π(x) = Σ<sub>k</sub> c<sub>k</sub> g(x; μ<sub>k</sub>, Σ<sub>k</sub>)</p>",
        "<p><b>E-step</b> (responsibilities)<br><span class='eq'>a<sub>ik</sub> = c<sub>k</sub> g(x<sub>i</sub>; "
        "μ<sub>k</sub>, Σ<sub>k</sub>) / Σ<sub>l</sub> c<sub>l</sub> g(x<sub>i</sub>; μ<sub>l</sub>, Σ<sub>l</sub>)"
        "</span></p>",
        "<p><b>M-step</b><br><span class='eq'>n<sub>k</sub> = Σ<sub>i</sub> a<sub>ik</sub>, c<sub>k</sub> = "
        "n<sub>k</sub>/n, μ<sub>k</sub> = Σ<sub>i</sub> a<sub>ik</sub> x<sub>i</sub> / n<sub>k</sub><br>"
        "S<sub>k</sub> = Σ<sub>i</sub> a<sub>ik</sub> (x<sub>i</sub> − μ<sub>k</sub>)(x<sub>i</sub> − "
        f"μ<sub>k</sub>)ᵀ / n<sub>k</sub><br>{SIGMA_TEXT[ctype]} + {reg:g}·I</span></p>",
        "<p class='eq'>ℓ = Σ<sub>i</sub> log π(x<sub>i</sub>) never decreases</p>",
        f"<h3>Step {frame.step}: {html.escape(_half_text(frame))}</h3>",
        f"<p class='num'>{step_unit_text(frame)}<br>iteration {em.n_iter}, ℓ = {_num(em.log_likelihood)}",
    ]
    parts.append(", Δℓ/n = —" if em.change is None else f", Δℓ/n = {em.change:.2e}")  # None: no previous ℓ
    if em.half == "M":
        parts.append(f"<br>lower bound F(a, θ) = {_num(em.lower_bound)} ≤ ℓ")
    parts.append("</p>")
    if frame.note:
        parts.append(f"<p><b>{html.escape(frame.note)}</b></p>")
    nk = np.asarray(em.responsibilities).sum(axis=0)
    rows = "".join(
        f"<tr><td>{j + 1}</td><td>{_num(float(nk[j]), 1)}</td><td>{_num(float(em.weights[j]))}</td>"
        f"<td>{_vec(em.means[j])}</td><td>{_mat(em.covariances[j])}</td></tr>" for j in range(k))
    parts.append("<table class='num' cellspacing='4'><tr><th>k</th><th>n<sub>k</sub></th><th>c<sub>k</sub></th>"
                 f"<th>μ<sub>k</sub></th><th>Σ<sub>k</sub></th></tr>{rows}</table>")
    m = n_parameters(k, 2, ctype)
    if math.isfinite(em.log_likelihood):
        bic = -2 * em.log_likelihood + m * math.log(n)
        parts.append(f"<p>BIC = −2ℓ + m log n = {_num(bic, 1)} with m = {m} free parameters "
                     f"((K−1) weights + 2K mean coordinates + {m - (k - 1) - 2 * k} covariance entries), n = {n}</p>")
    if 0 <= selected < n:
        joint, a = point_numbers(X, selected, em.weights, em.means, em.covariances)
        cells = "".join(f"<tr><td>{j + 1}</td><td>{joint[j]:.3e}</td><td>{_num(float(a[j]))}</td></tr>"
                        for j in range(k))
        parts.append(f"<h3>Point {selected + 1} at {_vec(X[selected])}</h3>"
                     "<table class='num' cellspacing='4'><tr><th>k</th><th>c<sub>k</sub> g(x; μ<sub>k</sub>, "
                     f"Σ<sub>k</sub>)</th><th>a<sub>ik</sub></th></tr>{cells}</table>"
                     f"<p>π(x) = {joint.sum():.3e}; the a<sub>ik</sub> are these numbers over their sum.</p>")
    elif selected < 0:
        parts.append("<p><i>Mouse mode 'inspect a point': click a point to see its numbers.</i></p>")
    km = frame.km
    if km is not None:
        parts.append(f"<p>k-means from the same start: iteration {km.n_iter}, objective Σ‖x − μ‖² = "
                     f"{_num(km.inertia, 2)}{' (converged)' if km.converged else ''}</p>")
    return "".join(parts)
