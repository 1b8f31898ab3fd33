"""The Gaussian-process lab's maths panel: pure functions from a snapshot to HTML (no Qt)."""

from __future__ import annotations

import html
import math

import numpy as np

from smlengine.datasets import TRUTHS
from smlengine.gp import RBF, Linear, Matern, Periodic, Product, Sum

from .run import GPLabSnapshot


def _f(x: float, digits: int = 4) -> str:
    if x is None or not math.isfinite(x):
        return "–"
    return f"{x:.{digits}g}"


def kernel_html(k) -> str:
    """The kernel's formula with its current hyper-parameters."""
    if isinstance(k, RBF):
        return (f"{_f(k.variance, 3)} · exp(−(x − x′)² / 2ℓ²), ℓ = {_f(k.length_scale, 3)}")
    if isinstance(k, Matern):
        shape = {0.5: "e<sup>−r</sup>", 1.5: "(1 + √3 r) e<sup>−√3 r</sup>",
                 2.5: "(1 + √5 r + 5r²/3) e<sup>−√5 r</sup>"}[k.nu]
        return f"{_f(k.variance, 3)} · {shape}, r = |x − x′|/ℓ, ℓ = {_f(k.length_scale, 3)} (Matérn ν = {k.nu:g})"
    if isinstance(k, Periodic):
        return (f"{_f(k.variance, 3)} · exp(−2 sin²(π|x − x′|/p) / ℓ²), ℓ = {_f(k.length_scale, 3)}, "
                f"p = {_f(k.period, 3)}")
    if isinstance(k, Linear):
        return f"{_f(k.variance, 3)} · x x′ + {_f(k.offset, 3)}"
    if isinstance(k, (Sum, Product)):
        join = " + " if isinstance(k, Sum) else " × "
        return f"[{kernel_html(k.k1)}]{join}[{kernel_html(k.k2)}]"
    return html.escape(repr(k))


def _matrix(a: np.ndarray, n: int) -> str:
    """A small matrix (or vector) as aligned monospace rows, with … when it is the head of a larger one
    (plain lines: a rich-text table costs the panel tens of milliseconds a frame). Entries below 10⁻¹²
    of the largest are round-off and written 0."""
    a = np.atleast_2d(a)
    tiny = 1e-12 * float(np.max(np.abs(a), initial=0.0))
    more = " …" if a.shape[1] < n else ""
    rows = [" ".join(f"{'0' if abs(v) <= tiny else _f(float(v), 3):>8}" for v in r).replace(" ", "&nbsp;") + more
            for r in a]
    if 1 < a.shape[0] < n:
        rows.append("&nbsp;" * 7 + "⋮")
    return f"<p class='num'>{'<br>'.join(rows)}</p>"


def _where(s: GPLabSnapshot) -> str:
    f = s.fit
    if s.step == 0:
        return "step 0: the model of the parameters (the optimiser starts here)"
    if f.best:
        return f"step {s.step}: the best of the ascents (ascent {f.restart}), the fitted model"
    start = "the parameters" if f.restart == 0 else f"random start {f.restart}"
    done = " — converged" if f.converged else ""
    return f"step {s.step}: ascent from {start}, iteration {f.iteration}{done}"


def maths_html(s: GPLabSnapshot) -> str:
    ctx, f = s.ctx, s.fit
    n = len(ctx.y)
    rows = [
        "<h3>Model</h3>",
        "<p class='eq'>f ~ GP(0, k), &nbsp; y<sub>i</sub> = f(x<sub>i</sub>) + ε<sub>i</sub>, "
        "ε<sub>i</sub> ~ N(0, σ²)</p>",
        f"<p>k(x, x′) = {kernel_html(f.kernel)}; &nbsp; σ² = {_f(f.noise, 3)}</p>",
    ]
    if ctx.truth is not None:
        rows.append(f"<p>Data: {n} points from {html.escape(TRUTHS[ctx.truth][1])}, noise σ = "
                    f"{_f(ctx.truth_noise, 3)}.</p>")
    else:
        rows.append(f"<p>Data: {n} points drawn or loaded.</p>")
    rows += [
        f"<h3>Now</h3><p>{_where(s)}</p>",
        f"<p>K + σ²I ({n} × {n}, first rows):</p>{_matrix(s.K_head, n)}",
        f"<p>Cholesky K + σ²I = LLᵀ, L:</p>{_matrix(s.L_head, n)}",
        f"<p>α = Lᵀ \\ (L \\ y) = (K + σ²I)⁻¹y:</p>{_matrix(s.alpha_head[None, :], n)}",
    ]
    if s.jitter > 0:
        rows.append(f"<p>K + σ²I was not positive definite to working precision: jitter {_f(s.jitter, 2)} "
                    "added to its diagonal.</p>")
    rows += [
        "<h3>Posterior</h3>",
        "<p class='eq'>m(x*) = k*ᵀα, &nbsp; var f(x*) = k(x*, x*) − vᵀv, &nbsp; v = L \\ k*</p>",
        "<p>The band is m ± 2√var: narrow at the points, wide between them and far away.</p>",
        "<h3>Evidence</h3>",
        "<p class='eq'>log p(y | X, θ) = −½ yᵀ(K + σ²I)⁻¹y − ½ log|K + σ²I| − (n/2) log 2π</p>",
        f"<p class='num'>data fit −½ yᵀα = {_f(f.data_fit, 5)}<br>"
        f"complexity −Σ log L<sub>ii</sub> = {_f(f.complexity, 5)}<br>"
        f"constant −(n/2) log 2π = {_f(f.constant, 5)}<br>"
        f"<b>log p(y | X, θ) = {_f(f.log_marginal_likelihood, 5)}</b></p>",
    ]
    if f.gradient.size:
        grads = ", ".join(f"∂/∂log {html.escape(name.split('__')[-1])} = {_f(float(g), 3)}"
                          for name, g in zip(f.names, f.gradient))
        rows.append(f"<p class='num'>{grads}</p>")
    rows.append("<p>A short length-scale fits every point (data fit high) but pays in complexity; a long one is "
                "simple and fits badly. The optimiser climbs θ = log(hyper-parameters, σ²) by L-BFGS.</p>")
    return "".join(rows)
