"""The regression lab's maths panel: pure functions from a snapshot to HTML (no Qt)."""

from __future__ import annotations

import html
import math

import numpy as np

from smlengine.datasets._regression import TRUTHS

from .run import RegressionLabSnapshot

MAX_COEFS = 12  # coefficients written out


def _f(x: float, digits: int = 4) -> str:
    if x is None or not math.isfinite(x):
        return "–"
    return f"{x:.{digits}g}"


_OBJECTIVES = {
    "lstsq": "min<sub>w,b</sub> ‖y − Φw − b‖²",
    "gd": "min<sub>w</sub> L(w) = (1/2n)‖y<sub>c</sub> − Φ<sub>c</sub>w‖²",
    "ridge": "min<sub>w,b</sub> ‖y − Φw − b‖² + λ‖w‖²₂",
    "lasso": "min<sub>w,b</sub> (1/2n)‖y − Φw − b‖² + λ‖w‖₁",
}

_RULES = {
    "lstsq": "Normal equations Φ<sub>c</sub>ᵀΦ<sub>c</sub> w = Φ<sub>c</sub>ᵀy<sub>c</sub> on centred data, "
             "solved by an SVD (lstsq), never by inverting ΦᵀΦ; b = ȳ − φ̄ᵀw.",
    "gd": "w ← w − η ∇L(w), &nbsp; ∇L(w) = (1/n) Φ<sub>c</sub>ᵀ(Φ<sub>c</sub>w − y<sub>c</sub>), "
          "η = 1/λ<sub>max</sub>(Φ<sub>c</sub>ᵀΦ<sub>c</sub>/n). Slow when ΦᵀΦ is ill-conditioned.",
    "ridge": "ŵ = (Φ<sub>c</sub>ᵀΦ<sub>c</sub> + λI)⁻¹ Φ<sub>c</sub>ᵀy<sub>c</sub>: λI makes the matrix invertible "
             "even with fewer points than coefficients. The intercept is not penalised.",
    "lasso": "one coordinate per step: ρ<sub>j</sub> = φ<sub>j</sub>ᵀ(r + φ<sub>j</sub>w<sub>j</sub>)/n, "
             "w<sub>j</sub> ← S(ρ<sub>j</sub>, λ) / (‖φ<sub>j</sub>‖²/n), S(z, λ) = sign(z)·max(|z| − λ, 0). "
             "|ρ<sub>j</sub>| ≤ λ gives w<sub>j</sub> = 0 exactly.",
}


def fit_html(snap: RegressionLabSnapshot) -> str:
    ctx = snap.ctx
    n, p = len(ctx.y_train), ctx.n_features
    basis = {"poly": f"powers u, u², …, u<sup>{ctx.size}</sup>",
             "legendre": f"Legendre polynomials P<sub>1</sub>(u) … P<sub>{ctx.size}</sub>(u) "
                         "(the same curves as powers, "
                         "better conditioned)",
             "gauss": f"{p} Gaussian bumps exp(−(x − c<sub>k</sub>)²/2s²)"}[ctx.basis]
    if ctx.basis != "gauss":
        basis += "; u = (x − m)/h lies in [−1, 1] on the training x"
    rows = [
        "<h3>Model</h3>",
        "<p class='eq'>ŷ(x) = b + Σ<sub>k</sub> w<sub>k</sub> φ<sub>k</sub>(x)</p>",
        f"<p>Basis: {basis}. Φ is {n} × {p}.</p>",
        "<h3>Objective</h3>",
        f"<p class='eq'>{_OBJECTIVES[ctx.method]}</p>",
        f"<p>{_RULES[ctx.method]}</p>",
    ]
    if ctx.method in ("ridge", "lasso"):
        rows.append(f"<p class='num'>λ = 10^{ctx.log_alpha:.2f} = {_f(ctx.alpha, 3)}</p>")
    if ctx.truth:
        rows.append(f"<p>Truth: {html.escape(TRUTHS[ctx.truth][1])}, noise σ = {_f(ctx.noise, 3)}</p>")
    rows.append("<h3>Now</h3><p class='num'>")
    rows.append(f"step {snap.step}")
    if ctx.method == "lasso" and snap.coordinate >= 0:
        rows.append(f", sweep {snap.sweep}, coordinate j = {snap.coordinate + 1}")
    if ctx.method == "gd":
        rows.append(f", ‖∇L‖ = {_f(snap.gap, 3)}")
    if ctx.method == "lasso":
        rows.append(f", duality gap = {_f(snap.gap, 3)}")
    rows.append("<br>")
    rows.append(f"objective = {_f(snap.objective, 6)}<br>")
    rows.append(f"train MSE = {_f(snap.train_mse)} &nbsp; test MSE = {_f(snap.test_mse)}<br>")
    rows.append(f"cond(Φ<sub>c</sub>ᵀΦ<sub>c</sub>) = {_f(ctx.cond, 3)}<br>")
    rows.append(_normal_equations(snap) + "<br>")
    zeros = int(np.sum(snap.coef == 0))
    rows.append(f"b = {_f(snap.intercept)}; zeros in w: {zeros} of {p}<br>")
    shown = ", ".join(f"w<sub>{k + 1}</sub> = {_f(float(w) + 0.0, 3)}" for k, w in enumerate(snap.coef[:MAX_COEFS]))
    if p > MAX_COEFS:
        shown += ", …"
    rows.append(shown + "</p>")
    if snap.converged:
        rows.append("<p><b>Converged.</b></p>")
    rows.append(
        "<h3>Bias and variance</h3><p class='eq'>E[(ŷ(x) − f(x))²] = (E ŷ(x) − f(x))² + Var ŷ(x)</p>"
        "<p>over training sets drawn from the truth; the expected test error adds σ².</p>")
    return "".join(rows)


def normal_residual(snap: RegressionLabSnapshot) -> np.ndarray:
    """Φ_cᵀr / n at the snapshot's weights, r = y − Φw − b (zero at least squares)."""
    ctx = snap.ctx
    phi = ctx.basis_fit.transform(ctx.x_train[:, None])
    r = ctx.y_train - phi @ snap.coef - snap.intercept
    return (phi - phi.mean(axis=0)).T @ r / len(r)


def _normal_equations(snap: RegressionLabSnapshot) -> str:
    """The normal equations' residual with the current numbers, and what it should be at the optimum."""
    g = normal_residual(snap)
    worst = float(np.max(np.abs(g))) if g.size else 0.0
    method = snap.ctx.method
    text = f"max<sub>k</sub> |φ<sub>k</sub>ᵀr|/n = {_f(worst, 3)}"
    if method in ("lstsq", "gd"):
        return text + " (0 when ΦᵀΦw = Φᵀy holds)"
    if method == "ridge":
        n = len(snap.ctx.y_train)
        gap = float(np.max(np.abs(n * g - snap.ctx.alpha * snap.coef))) if g.size else 0.0
        return text + f"; ‖Φᵀr − λw‖<sub>∞</sub> = {_f(gap, 3)} (0 at the ridge solution)"
    return text + f" (≤ λ = {_f(snap.ctx.alpha, 3)} at the optimum, = λ where w<sub>k</sub> ≠ 0)"


def sweep_html(result) -> str:
    """A line about the bias–variance sweep (shown under the panel)."""
    if result is None:
        return ""
    values = result.values
    name = "log₁₀ λ" if result.axis == "alpha" else "size"

    def fmt(i):
        return "–" if i < 0 else (f"{values[i]:.2f}" if result.axis == "alpha" else f"{int(values[i])}")

    return (f"{name}: chosen {fmt(result.chosen)} · lowest expected test error {fmt(result.best)} · "
            f"cross-validation chooses {fmt(result.cv_choice)}")
