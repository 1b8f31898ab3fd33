"""The PCA lab's maths panel: pure functions from the run's numbers to HTML (no Qt)."""

from __future__ import annotations

import html
import math

import numpy as np

from .run import PCALabSnapshot, compression_numbers

MAX_TERMS = 6  # coefficients written out in the projection formula


#: shown where a value is undefined at this step (None in the snapshot)
UNDEFINED = "—"


def _f(x: float | None, digits: int = 4) -> str:
    if x is None or not math.isfinite(x):
        return UNDEFINED
    return f"{x:.{digits}g}"


ROUTES = {
    "covariance": ("the D × D covariance", "Σ̂ = X<sub>c</sub>ᵀ X<sub>c</sub> / n, of side D = {D} ≤ n = {n}"),
    "gram": ("the n × n Gram matrix",
             "G = X<sub>c</sub> X<sub>c</sub>ᵀ, of side n = {n} &lt; D = {D} (few images, many pixels); "
             "G q = σ q gives ξ = X<sub>c</sub>ᵀ q / √σ, λ = σ / n, i.e. U = A Q D<sup>−1/2</sup>"),
}


def route_html(data) -> str:
    """Which side the exact eigenpairs came from (covariance or Gram) and why."""
    route = getattr(data, "route", None)
    if route not in ROUTES:
        return ""
    name, detail = ROUTES[route]
    return (f"<p>Exact eigenpairs from {name} (the cheaper side): "
            f"{detail.format(n=data.n, D=data.D)}.</p>")


def power_html(snap: PCALabSnapshot) -> str:
    """The power-method update with the current λ estimate, the exact λ and the rate."""
    p = snap
    j = p.component + 1
    phase = {"init": "random start", "iterate": "iterating", "deflate": "found, deflating"}.get(p.phase, p.phase)
    rows = [
        "<h3>Power method</h3>",
        "<p class='eq'>v ← B v / ‖B v‖, &nbsp; ρ = vᵀ B v</p>",
        f"<p>B = Σ̂ − Σ<sub>i&lt;{j}</sub> λ<sub>i</sub> ξ<sub>i</sub> ξ<sub>i</sub>ᵀ (Hotelling deflation); "
        f"the angle to ξ<sub>{j}</sub> shrinks by λ<sub>{j + 1}</sub>/λ<sub>{j}</sub> per iteration.</p>",
        "<p class='num'>",
        f"component j = {j} of {snap.k} ({phase})<br>",
        f"iteration t = {p.n_iter}<br>",
        f"ρ = {_f(p.rayleigh, 6)} &nbsp; exact λ<sub>{j}</sub> = {_f(snap.exact_lambda, 6)}<br>",
        f"rate λ<sub>{j + 1}</sub>/λ<sub>{j}</sub> = {_f(snap.rate, 3)}<br>",
        f"‖Δv‖ = {_f(p.change, 3)} &nbsp; ∠(v, ξ<sub>{j}</sub>) = {_f(snap.angle, 3)} rad",
        "</p>",
    ]
    return "".join(rows)


def projection_html(snap: PCALabSnapshot, d: int, coeffs=None, what: str = "") -> str:
    """x ≈ μ̂ + Σ_{j≤d} c_j ξ_j with the numbers of one image (``coeffs``: its c_1..c_d)."""
    data = snap.data
    rows = ["<h3>Compression</h3>",
            "<p class='eq'>x ≈ μ̂ + Σ<sub>j≤d</sub> c<sub>j</sub> ξ<sub>j</sub>, &nbsp; "
            "c<sub>j</sub> = ⟨x − μ̂, ξ<sub>j</sub>⟩</p>"]
    if coeffs is not None and len(coeffs):
        c = np.asarray(coeffs, dtype=float)
        terms = [f"{'+' if v >= 0 else '−'} {abs(v):.3g} ξ<sub>{i + 1}</sub>" for i, v in enumerate(c[:MAX_TERMS])]
        more = f" + … ({len(c) - MAX_TERMS} more)" if len(c) > MAX_TERMS else ""
        label = f"{html.escape(what)}: " if what else ""
        rows.append(f"<p class='num'>{label}x ≈ μ̂ {' '.join(terms)}{more}</p>")
    num = compression_numbers(data, d)
    rows.append(
        "<p>Error of the training set:</p>"
        "<p class='eq'>Σ<sub>i</sub> ‖x<sub>i</sub> − x<sub>i</sub><sup>(d)</sup>‖² = n Σ<sub>j&gt;d</sub> "
        "λ<sub>j</sub></p>"
        f"<p class='num'>d = {num['d']}: {num['error']:.4g} ({100 * (1 - num['explained']):.1f}% of n·trace Σ̂)</p>"
    )
    rows.append(storage_html(num))
    return "".join(rows)


def storage_html(num: dict) -> str:
    """Storage formula with numbers: n·D raw against d·D + D + n·d compressed."""
    n, D, d = num["n"], num["D"], num["d"]
    return ("<h3>Storage</h3>"
            "<p class='eq'>n·D → d·D + D + n·d</p>"
            f"<p class='num'>{n}·{D} = {num['raw']:,} → {d}·{D} + {D} + {n}·{d} = {num['stored']:,}<br>"
            f"ratio {num['ratio']:.2f}×</p>")


def maths_html(snap: PCALabSnapshot, d: int, coeffs=None, what: str = "") -> str:
    data = snap.data
    head = (f"<p>{html.escape(data.source)}: n = {data.n} images of {data.shape[0]}×{data.shape[1]} "
            f"= {data.D} pixels; step {snap.step}</p>")
    return head + route_html(data) + power_html(snap) + projection_html(snap, d, coeffs, what)
