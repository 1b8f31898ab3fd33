"""The probability that a quadratic form of a Gaussian vector is positive (Imhof's method), the
building block of the Bayes error of two Gaussian classes.

Private to :mod:`smlengine.bayes`. Under class k, x = μ_k + L_k z with z ~ N(0, I), so the log
posterior odds h(x) is a quadratic form in z; rotated onto the eigenvectors of its matrix it is

    Q = Σ_j λ_j (w_j + δ_j)² + s Z + m,     w, Z independent standard normals,

a weighted sum of non-central χ²₁ variables plus a normal term (the directions where h is
linear). Imhof (1961, Biometrika 48, "Computing the distribution of quadratic forms in normal
variables") inverts its characteristic function:

    P(Q > 0) = 1/2 + (1/π) ∫₀^∞ sin θ(u) / (u ρ(u)) du,
    θ(u) = ½ Σ_j [arctan(λ_j u) + δ_j² λ_j u / (1 + λ_j² u²)] + ½ m u,
    ρ(u) = Π_j (1 + λ_j² u²)^{1/4} · exp(½ Σ_j δ_j² λ_j² u² / (1 + λ_j² u²) + s² u² / 8).

When every λ_j is zero (equal covariances) Q is normal and P(Q > 0) = Φ(m / s) exactly.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.integrate import quad
from scipy.special import ndtr

__all__ = ["quadratic_form", "prob_positive"]

#: an eigenvalue below this fraction of the largest (or of 1) is treated as zero: its direction is linear
_FLAT = 1e-10


def quadratic_form(A: np.ndarray, b: np.ndarray, e: float, mean: np.ndarray, cov: np.ndarray):
    """(λ, δ, s, m) of Q = xᵀAx + bᵀx + e for x ~ N(mean, cov), in the form above."""
    L = np.linalg.cholesky(cov)
    B = L.T @ A @ L
    lam, U = np.linalg.eigh(0.5 * (B + B.T))
    beta = U.T @ (L.T @ (2.0 * A @ mean + b))
    m0 = float(mean @ A @ mean + b @ mean + e)
    flat = np.abs(lam) <= _FLAT * max(1.0, float(np.abs(lam).max(initial=0.0)))
    curved = ~flat
    delta = beta[curved] / (2.0 * lam[curved])
    m = m0 - float(np.sum(beta[curved] ** 2 / (4.0 * lam[curved])))
    s = float(math.sqrt(np.sum(beta[flat] ** 2)))
    return lam[curved], delta, s, m


def prob_positive(lam: np.ndarray, delta: np.ndarray, s: float, m: float) -> float:
    """P(Q > 0) for Q = Σ λ_j (w_j + δ_j)² + s Z + m (Imhof's integral; Φ(m/s) when Q is normal)."""
    if lam.size == 0:
        if s == 0.0:
            return 1.0 if m > 0 else 0.0
        return float(ndtr(m / s))
    d2 = delta * delta
    omega = 0.5 * m

    def phase_and_amplitude(u):
        """φ(u) = θ(u) − ½ m u (it settles to a constant) and 1 / (u ρ(u)), for an array of u > 0."""
        lu = np.multiply.outer(u, lam)
        q = 1.0 + lu * lu
        phi = 0.5 * np.sum(np.arctan(lu) + d2 * lu / q, axis=-1)
        log_rho = 0.25 * np.sum(np.log(q), axis=-1) + 0.5 * np.sum(d2 * lu * lu / q, axis=-1) + s * s * u * u / 8.0
        return phi, np.exp(-log_rho) / u

    def integrand(u):
        phi, amp = phase_and_amplitude(u)
        return np.sin(phi + omega * u) * amp

    # The characteristic function of Q varies on the scale 1 / (|E Q| + sd Q): up to 40 times that,
    # composite Gauss–Legendre on the whole vector of nodes at once (m alone may be huge where a
    # curved direction with a large δ nearly cancels it, so E Q and not m sets the scale).
    mean_q = m + float(np.sum(lam * (1.0 + d2)))
    sd_q = math.sqrt(float(np.sum(2.0 * lam * lam * (1.0 + 2.0 * d2))) + s * s)
    edge = 40.0 / max(float(np.abs(lam).max()), abs(mean_q), sd_q)
    total = _gauss_legendre(integrand, edge, _PANELS)
    amp_edge = float(phase_and_amplitude(np.array([edge]))[1][0])
    if amp_edge * edge > 1e-13:  # the rest is not negligible: a slowly decaying χ²-like tail
        # beyond the edge the oscillation sin(ω u) times a smooth decaying amplitude is a Fourier
        # integral (QUADPACK's QAWF)
        terms = list(zip(lam.tolist(), d2.tolist()))

        def phase_amp(u: float) -> tuple[float, float]:  # scalar twin of phase_and_amplitude: QUADPACK calls it
            phi, log_rho = 0.0, s * s * u * u / 8.0
            for lj, dj in terms:
                lu = lj * u
                q = 1.0 + lu * lu
                phi += 0.5 * (math.atan(lu) + dj * lu / q)
                log_rho += 0.25 * math.log(q) + 0.5 * dj * lu * lu / q
            return phi, math.exp(-log_rho) / u

        if abs(omega) * edge > 1e-3:
            total += _quad(lambda u: math.cos(phase_amp(u)[0]) * phase_amp(u)[1], edge, np.inf, weight="sin",
                           wvar=omega)
            total += _quad(lambda u: math.sin(phase_amp(u)[0]) * phase_amp(u)[1], edge, np.inf, weight="cos",
                           wvar=omega)
        else:
            total += _quad(lambda u: math.sin(phase_amp(u)[0]) * phase_amp(u)[1], edge, np.inf)
    return float(min(1.0, max(0.0, 0.5 + total / math.pi)))


_PANELS = 400
_NODES, _WEIGHTS = np.polynomial.legendre.leggauss(20)


def _gauss_legendre(f, b: float, panels: int) -> float:
    """∫₀^b f(u) du by 20-point Gauss–Legendre on ``panels`` equal panels (f takes an array)."""
    h = b / panels
    centres = (np.arange(panels) + 0.5) * h
    u = (centres[:, None] + 0.5 * h * _NODES[None, :]).ravel()
    return float(0.5 * h * np.sum(f(u).reshape(panels, -1) * _WEIGHTS))


def _quad(f, a: float, b: float, **weight) -> float:
    """QUADPACK to about 1e-10; its own accuracy warnings are left out (the tests compare the result
    with closed forms and Monte Carlo)."""
    if weight:
        return float(quad(f, a, b, limlst=200, epsabs=1e-10, full_output=1, **weight)[0])
    return float(quad(f, a, b, limit=500, epsabs=1e-10, epsrel=1e-9, full_output=1)[0])
