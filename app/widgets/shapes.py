"""Pure numpy helpers for drawing the points labs' pictures (no Qt): the categorical palette as
RGB rows, colours mixed by responsibilities, and covariance ellipses as one curve."""

from __future__ import annotations

import numpy as np

from ..style import CATEGORICAL


def palette_rgb(colours=CATEGORICAL) -> np.ndarray:
    """The Okabe–Ito categorical colours (``"#RRGGBB"``) as float rows (r, g, b) in 0..255."""
    return np.array([[int(c[i:i + 2], 16) for i in (1, 3, 5)] for c in colours], dtype=float)


#: class / cluster / component colours, one RGB row each (Okabe–Ito)
PALETTE = palette_rgb()


def ellipse_xy(mean, cov, radii=(1.0, 2.0), n: int = 72) -> tuple[np.ndarray, np.ndarray]:
    """Points of the ellipses (x − μ)ᵀ Σ⁻¹ (x − μ) = r² for each r, NaN-separated (one curve).

    The ellipse of radius r is μ + r A (cos t, sin t) with A Aᵀ = Σ (A from the eigen
    decomposition, so a singular Σ gives a segment rather than an error).
    """
    mean = np.asarray(mean, dtype=float)
    vals, vecs = np.linalg.eigh(np.asarray(cov, dtype=float))
    A = vecs * np.sqrt(np.maximum(vals, 0.0))
    t = np.linspace(0.0, 2.0 * np.pi, n)
    circle = np.vstack([np.cos(t), np.sin(t)])
    xs, ys = [], []
    for r in radii:
        pts = mean[:, None] + r * (A @ circle)
        xs += [pts[0], [np.nan]]
        ys += [pts[1], [np.nan]]
    return np.concatenate(xs[:-1]), np.concatenate(ys[:-1])


def blend_colours(responsibilities: np.ndarray, palette: np.ndarray = PALETTE, step: int = 16) -> np.ndarray:
    """RGB of every point: Σ_k a_ik colour_k (the responsibilities mix the component colours).

    Channels are rounded to multiples of ``step`` (clipped to 255): the eye sees no difference,
    and the few distinct colours let the plot draw each marker from a small cache of symbols.
    """
    R = np.asarray(responsibilities, dtype=float)
    rgb = R @ palette[: R.shape[1]]
    if step > 1:
        rgb = np.round(rgb / step) * step
    return np.clip(rgb, 0, 255).astype(np.ubyte)
