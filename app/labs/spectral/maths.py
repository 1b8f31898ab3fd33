"""The maths panel's text (Qt-free)."""

from __future__ import annotations

import numpy as np

from .run import SpectralCCASnapshot, SpectralClusteringSnapshot, SpectralFisherSnapshot, SpectralKernelSnapshot


def _num(x: float) -> str:
    return "∞" if not np.isfinite(x) else f"{x:.3g}"


def fisher_html(s: SpectralFisherSnapshot) -> str:
    return (f"<p>J(w) = wᵀS<sub>B</sub>w / wᵀS<sub>W</sub>w; Fisher: w ∝ S<sub>W</sub><sup>−1</sup>"
            f"(μ<sub>1</sub> − μ<sub>0</sub>) (q classes: top eigenvectors of "
            f"S<sub>W</sub><sup>−1</sup>S<sub>B</sub>).</p>"
            f"<p>Direction θ = {s.angle:.0f}°: J = {_num(s.J[-1])}. "
            f"PCA direction {np.degrees(np.arctan2(s.pca_dir[1], s.pca_dir[0])) % 180:.0f}°: J = {_num(s.J_pca)}; "
            f"Fisher {s.best_angle:.0f}°: J = {_num(s.J_fisher)} (the maximum).</p>")


def spectral_html(s: SpectralClusteringSnapshot) -> str:
    head = ("<p>L = I − D<sup>−1/2</sup>WD<sup>−1/2</sup>, W<sub>ij</sub> = exp(−γ‖x<sub>i</sub> − x<sub>j</sub>‖²) "
            "or k-NN; the k smallest eigenvectors embed the points, k-means clusters them there.</p>")
    parts = [f"Stage: {s.phase}; k = {s.n_clusters}; graph components: {s.n_connected}."]
    if s.eigenvalues is not None:
        vals = ", ".join(f"{v:.3f}" for v in s.eigenvalues[: s.n_clusters + 2])
        parts.append(f"Smallest eigenvalues λ: {vals}")
        if s.gap is not None:
            parts.append(f"gap λ<sub>{s.n_clusters + 1}</sub> − λ<sub>{s.n_clusters}</sub> = {s.gap:.3f}.")
    return head + "<p>" + " ".join(parts) + "</p>"


def kernel_html(s: SpectralKernelSnapshot) -> str:
    lam = ", ".join(f"{v:.3g}" for v in s.eigenvalues[:4])
    return ("<p>K̃ = HKH, H = I − 11ᵀ/n; K̃α = λα; component z<sub>j</sub>(x) = Σ<sub>i</sub> α<sub>ij</sub>"
            " k̃(x<sub>i</sub>, x) / √λ<sub>j</sub>.</p>"
            f"<p>λ<sub>1..4</sub> = {lam}; one threshold on z<sub>{s.best}</sub> classifies "
            f"{100 * s.separable:.1f} % of the points (a line in the plane: about 50 % on the rings).</p>")


def cca_html(s: SpectralCCASnapshot) -> str:
    rho = ", ".join(f"{r:.3f}" for r in s.correlations)
    return ("<p>max corr(Xu, Yv): the canonical correlations are the cosines of the principal angles "
            "between the column spaces of X̃ and Ỹ.</p>"
            f"<p>ρ = {rho}; u = ({s.u[0]:.2f}, {s.u[1]:.2f}), v = ({s.v[0]:.2f}, {s.v[1]:.2f}). "
            f"The raw first coordinates correlate only {s.naive:.3f}.</p>")


def maths_html(s) -> str:
    if isinstance(s, SpectralFisherSnapshot):
        return fisher_html(s)
    if isinstance(s, SpectralClusteringSnapshot):
        return spectral_html(s)
    if isinstance(s, SpectralKernelSnapshot):
        return kernel_html(s)
    return cca_html(s)
