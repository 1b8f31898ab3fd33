"""A Potts Markov random field on an image grid, sampled by Gibbs sweeps in checkerboard order.

Model
-----
Labels z_i ∈ {0, …, K−1} on the pixels of an H × W grid with 4-neighbours i ~ j. The Potts
prior rewards equal neighbours, p(z) ∝ exp(β Σ_{i~j} [z_i = z_j]), and each grey level is a
noisy reading of its label's level, x_i | z_i = k ~ N(μ_k, σ²). The posterior is

    p(z | x) ∝ exp(β Σ_{i~j} [z_i = z_j]) Π_i N(x_i; μ_{z_i}, σ²),

whose energy (negative log, up to a constant) is

    E(z) = −β Σ_{i~j} [z_i = z_j] + Σ_i (x_i − μ_{z_i})² / (2σ²).

Gibbs sampler
-------------
The full conditional of one label depends only on its neighbours and its pixel:

    p(z_i = k | z_{−i}, x) ∝ exp(β n_i(k) − (x_i − μ_k)² / (2σ²)),

n_i(k) the number of 4-neighbours of i labelled k. Pixels of one colour of a checkerboard
((row + column) even, or odd) have no neighbour of their own colour, so given the other colour
they are independent: a sweep draws all "white" pixels at once from their conditionals, then
all "black" pixels given the new white ones. Each half-sweep is a block Gibbs update, so the
posterior is invariant, exactly as for a one-site-at-a-time sweep.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Iterator

import numpy as np

from ._base import BaseEstimator, Snapshot, check_random_state, check_scalar, frozen_array
from ._params import ArrayLike, Integral, Interval, RandomState, Real

__all__ = ["PottsSnapshot", "PottsGibbs", "potts_energy", "MAX_PIXELS", "MAX_LABELS"]

#: largest image accepted (4096 × 4096 pixels)
MAX_PIXELS = 4096 * 4096
#: largest number of labels
MAX_LABELS = 64
#: largest number of sweeps one call may ask for
MAX_SWEEPS = 10_000_000


@dataclass(frozen=True, kw_only=True)
class PottsSnapshot(Snapshot):
    """The label field after one Gibbs sweep.

    Attributes
    ----------
    labels : ndarray of uint8/int (H, W)
        z after the sweep (the start at step 0).
    energy : float
        E(z) (see the module docstring).
    changed_fraction : float
        Fraction of pixels whose label changed in this sweep (0 at step 0).
    n_kept : int
        Sweeps counted in the marginals so far (those after burn-in).

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.mrf import PottsGibbs
    >>> clean = np.zeros((8, 8))
    >>> clean[:, 4:] = 1.0
    >>> image = clean + np.random.default_rng(0).normal(0.0, 0.4, clean.shape)
    >>> for s in PottsGibbs(n_labels=2, beta=1.5, sigma=0.4, burn_in=1, random_state=0).sweep_steps(image, 3):
    ...     print(s.step, round(s.energy, 2), round(s.changed_fraction, 3), s.n_kept)
    0 -111.97 0.0 0
    1 -119.66 0.062 0
    2 -128.93 0.047 1
    3 -123.86 0.047 2
    """

    labels: np.ndarray
    energy: float
    changed_fraction: float = 0.0
    n_kept: int = 0


def potts_energy(labels, image, beta: float, means, sigma: float) -> float:
    """E(z) = −β Σ_{i~j} [z_i = z_j] + Σ_i (x_i − μ_{z_i})² / (2σ²) on the 4-neighbour grid.

    The arguments are checked as :class:`PottsGibbs` checks its own (β in [0, 1e6], σ in
    [1e-6, 1e6], 2 to 64 finite means, a finite 2-D image) and ``labels`` must be an integer
    field of the image's shape with values 0..K−1; ``ValueError`` says which is wrong.

    Examples
    --------
    A clean two-region picture: 104 equal neighbour pairs, no data term.

    >>> import numpy as np
    >>> from smlengine.mrf import potts_energy
    >>> z = np.zeros((8, 8), dtype=int)
    >>> z[:, 4:] = 1
    >>> potts_energy(z, z.astype(float), beta=1.0, means=[0.0, 1.0], sigma=0.4)
    -104.0
    """
    try:
        k = int(np.asarray(means, dtype=np.float64).reshape(-1).size) if np.ndim(means) == 1 else 0
    except (TypeError, ValueError):
        k = 0
    if not 2 <= k <= MAX_LABELS:
        raise ValueError(f"means must be a sequence of 2 to {MAX_LABELS} grey levels μ_k, one per label, "
                         f"got {f'shape {np.shape(means)}' if np.ndim(means) else type(means).__name__}")
    # the same checks as the sampler's: beta, sigma and the means by its constraints, then the image
    _, beta, mu, sigma = PottsGibbs(n_labels=k, beta=beta, means=means, sigma=sigma)._check_params()
    x = PottsGibbs._check_image(image)
    z = np.asarray(labels)
    if z.shape != x.shape or z.dtype.kind not in "iu":
        raise ValueError(f"labels must be an integer label field of the image's shape {x.shape}, "
                         f"got {z.dtype} of shape {z.shape}")
    if z.min() < 0 or z.max() >= k:
        raise ValueError(f"labels must be in 0..{k - 1} (one per mean), got {z.min()}..{z.max()}")
    agree = np.count_nonzero(z[:, 1:] == z[:, :-1]) + np.count_nonzero(z[1:, :] == z[:-1, :])
    return float(-beta * agree + np.sum((x - mu[z]) ** 2) / (2.0 * sigma * sigma))


class PottsGibbs(BaseEstimator):
    """Gibbs sampling of the Potts posterior p(z | x) with checkerboard sweeps.

    Parameters
    ----------
    n_labels : int
        K ≥ 2.
    beta : float
        β ≥ 0, the reward for each pair of equal neighbours.
    means : sequence of K floats or None
        μ_k, the grey level of label k (None: K levels evenly spaced in [0, 1], the levels of a
        clean picture scaled to [0, 1]).
    sigma : float
        σ > 0, the noise's standard deviation.
    burn_in : int or None
        Sweeps left out of the marginals (None: a tenth of the sweeps, rounded down).
    random_state : None, int or numpy Generator
        Seeds the sweeps.

    Attributes
    ----------
    labels_ : ndarray (H, W)
        The label field after the last sweep.
    marginals_ : ndarray (H, W, K)
        Frequency of each label per pixel over the sweeps after burn-in (the estimate of
        p(z_i = k | x)); over all sweeps when burn-in leaves none.
    energies_ : ndarray (n_sweeps + 1,)
        E(z) at the start and after each sweep.

    Examples
    --------
    A noisy two-region picture is cleaned up:

    >>> import numpy as np
    >>> from smlengine.mrf import PottsGibbs
    >>> clean = np.zeros((8, 8))
    >>> clean[:, 4:] = 1.0
    >>> image = clean + np.random.default_rng(0).normal(0.0, 0.4, clean.shape)
    >>> model = PottsGibbs(n_labels=2, beta=1.5, sigma=0.4, random_state=0).fit(image, n_sweeps=20)
    >>> model.labels_.shape, model.marginals_.shape, model.energies_.shape
    ((8, 8), (8, 8, 2), (21,))
    >>> print(model.labels_[0], model.labels_[7])
    [0 0 0 0 1 1 1 1] [0 0 0 0 1 1 1 1]
    >>> bool(model.energies_[-1] < model.energies_[0])
    True
    """

    def __init__(self, n_labels: int = 2, beta: float = 1.0, means=None, sigma: float = 1.0, burn_in=None,
                 random_state=None):
        self.n_labels = n_labels
        self.beta = beta
        self.means = means
        self.sigma = sigma
        self.burn_in = burn_in
        self.random_state = random_state

    _parameter_constraints = {
        "n_labels": [Interval(Integral, 2, MAX_LABELS)],
        "beta": [Interval(Real, 0, 1e6)],
        "means": [ArrayLike(), None],
        # the data term divides by sigma²: below 1e-6 it dwarfs any beta
        "sigma": [Interval(Real, 1e-6, 1e6)],
        "burn_in": [Interval(Integral, 0, MAX_SWEEPS), None],
        "random_state": [RandomState(), None],
    }

    # ------------------------------------------------------------------ validation
    def _check_params(self) -> tuple[int, float, np.ndarray, float]:
        self.validate_params()
        k, beta, sigma = int(self.n_labels), float(self.beta), float(self.sigma)
        if self.means is None:
            means = np.linspace(0.0, 1.0, k)
        else:
            try:
                means = np.asarray(self.means, dtype=np.float64)
            except (TypeError, ValueError):
                raise ValueError("means must be a sequence of n_labels numbers") from None
            if means.shape != (k,):
                raise ValueError(f"means must have n_labels = {k} entries, got shape {means.shape}")
            if not np.all(np.isfinite(means)) or np.abs(means).max() > 1e6:
                raise ValueError("means must be finite numbers with |μ| <= 1e6")
        return k, beta, means, sigma

    @staticmethod
    def _check_image(image) -> np.ndarray:
        try:
            x = np.asarray(image, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError("image must be a 2-D array of grey levels") from None
        if x.ndim != 2:
            raise ValueError(f"image must be 2-D (height, width) grey levels, got shape {x.shape}")
        if x.shape[0] < 1 or x.shape[1] < 1:
            raise ValueError(f"image is empty (shape {x.shape})")
        if x.size > MAX_PIXELS:
            raise ValueError(f"image has {x.size:,} pixels; at most {MAX_PIXELS:,} (4096 × 4096) are accepted")
        if not np.all(np.isfinite(x)):
            bad = int(np.count_nonzero(~np.isfinite(x)))
            raise ValueError(f"image contains {bad} NaN or infinite value(s)")
        if np.abs(x).max() > 1e6:
            raise ValueError("image has grey levels beyond ±1e6; rescale it (e.g. to [0, 1])")
        return x

    # ------------------------------------------------------------------ sampling
    def sweep_steps(self, image, n_sweeps: int, init="nearest") -> Iterator[PottsSnapshot]:
        """Run ``n_sweeps`` checkerboard Gibbs sweeps, yielding the label field after each.

        Parameters
        ----------
        image : array (H, W)
            The noisy grey levels x.
        n_sweeps : int
            Number of sweeps (≥ 1).
        init : "nearest", int or array (H, W)
            The start: each pixel's nearest level μ_k ("nearest"), every pixel labelled k (an
            int), or a given label field.

        Yields
        ------
        PottsSnapshot
            Step 0 the start, step t the field after t sweeps. When the generator is exhausted,
            ``labels_``, ``marginals_`` and ``energies_`` hold the run's results.
        """
        k, beta, means, sigma = self._check_params()
        x = self._check_image(image)
        n_sweeps = int(check_scalar("n_sweeps", n_sweeps, numbers.Integral, min_value=1, max_value=MAX_SWEEPS))
        if x.size * k > 2 ** 28:
            raise ValueError(f"image × n_labels = {x.size * k:,} is too large (at most {2 ** 28:,})")
        burn = n_sweeps // 10 if self.burn_in is None else int(self.burn_in)
        rng = check_random_state(self.random_state)
        z = self._initial(init, x, means, k)
        h, w = x.shape
        # data term D_k(x_i) = (x_i − μ_k)² / (2σ²) per label and pixel, flattened
        dterm = (x.reshape(1, -1) - means[:, None]) ** 2 / (2.0 * sigma * sigma)
        data = dterm[0] - dterm[1] if k == 2 else dterm  # for K = 2 the conditional needs D_0 − D_1 only
        colours = (np.add.outer(np.arange(h), np.arange(w)) % 2).reshape(-1)
        sites = [np.flatnonzero(colours == 0), np.flatnonzero(colours == 1)]
        n_valid = _neighbour_count(np.ones((h, w), dtype=bool)).reshape(-1)
        counts = np.zeros((k, h * w), dtype=np.int32)
        energies = [_energy(z, dterm, beta)]
        kept = 0
        yield PottsSnapshot(step=0, labels=frozen_array(z), energy=energies[0])
        for t in range(1, n_sweeps + 1):
            before = z.copy()
            for part in sites:
                self._update(z, part, data, n_valid, beta, k, rng)
            if t > burn or burn >= n_sweeps:
                flat = z.reshape(-1)
                for lab in range(k):
                    counts[lab] += flat == lab
                kept += 1
            energies.append(_energy(z, dterm, beta))
            changed = float(np.count_nonzero(z != before)) / z.size
            if t == n_sweeps:
                self.labels_ = z.copy()
                self.marginals_ = np.moveaxis(counts / max(kept, 1), 0, 1).reshape(h, w, k)
                self.energies_ = np.array(energies)
                self.n_kept_ = kept
            yield PottsSnapshot(step=t, labels=frozen_array(z), energy=energies[-1], changed_fraction=changed,
                                n_kept=kept)

    def fit(self, image, n_sweeps: int = 100, init="nearest") -> "PottsGibbs":
        """Exhaust :meth:`sweep_steps`; the results are in ``labels_``, ``marginals_``, ``energies_``."""
        for _ in self.sweep_steps(image, n_sweeps, init):
            pass
        return self

    @staticmethod
    def _initial(init, x: np.ndarray, means: np.ndarray, k: int) -> np.ndarray:
        dtype = np.uint8 if k <= 255 else np.int16
        if isinstance(init, str):
            if init != "nearest":
                raise ValueError(f"init must be 'nearest', a label 0..{k - 1} or a label field, got {init!r}")
            return np.argmin(np.abs(x[None] - means[:, None, None]), axis=0).astype(dtype)
        if isinstance(init, (numbers.Integral, np.integer)) and not isinstance(init, bool):
            if not 0 <= int(init) < k:
                raise ValueError(f"init label must be in 0..{k - 1}, got {init}")
            return np.full(x.shape, int(init), dtype=dtype)
        z = np.asarray(init)
        if z.shape != x.shape or z.dtype.kind not in "iu":
            raise ValueError(f"init must be an integer label field of the image's shape {x.shape}")
        if z.size and (z.min() < 0 or z.max() >= k):
            raise ValueError(f"init labels must be in 0..{k - 1}")
        return z.astype(dtype)

    @staticmethod
    def _update(z, sites, data, n_valid, beta, k, rng) -> None:
        """Draw z_i for all ``sites`` (flat indices of one colour) from p(z_i = k | neighbours, x_i).

        Neighbour counts n_i(k) are computed for the whole grid with four shifted additions (cheaper
        than gathering the neighbours of scattered sites) and read at the sites.
        """
        n = sites.size
        if n == 0:
            return
        flat = z.reshape(-1)
        if k == 2:
            # p(z_i = 1) = σ(β (n_i(1) − n_i(0)) − D_1 + D_0), n_i(0) = (number of neighbours) − n_i(1)
            n1 = _neighbour_count(z).reshape(-1)[sites]  # z is 0/1
            a = beta * (2 * n1 - n_valid[sites]) + data[sites]
            with np.errstate(over="ignore", invalid="ignore"):  # e^(−a) = inf: p = 0, as it should
                flat[sites] = rng.random(n) * (1.0 + np.exp(-a)) < 1.0
            return
        logits = np.empty((k, n))
        for lab in range(k):
            logits[lab] = beta * _neighbour_count(z == lab).reshape(-1)[sites] - data[lab, sites]
        logits -= logits.max(axis=0)
        cdf = np.cumsum(np.exp(logits), axis=0)
        u = rng.random(n) * cdf[-1]
        flat[sites] = np.minimum((cdf < u).sum(axis=0), k - 1)


def _energy(z: np.ndarray, dterm: np.ndarray, beta: float) -> float:
    """E(z) from the per-label data terms ``dterm`` (K, H·W) (as :func:`potts_energy`, faster)."""
    agree = np.count_nonzero(z[:, 1:] == z[:, :-1]) + np.count_nonzero(z[1:, :] == z[:-1, :])
    flat = z.reshape(-1)
    data = sum(float(dterm[lab][flat == lab].sum()) for lab in range(dterm.shape[0]))
    return float(-beta * agree + data)


def _neighbour_count(mask: np.ndarray) -> np.ndarray:
    """For every pixel, how many of its 4-neighbours are True in ``mask`` (H, W)."""
    m = mask.view(np.uint8) if mask.dtype == bool else mask.astype(np.uint8)
    out = np.zeros(mask.shape, dtype=np.int16)
    out[1:] += m[:-1]
    out[:-1] += m[1:]
    out[:, 1:] += m[:, :-1]
    out[:, :-1] += m[:, 1:]
    return out
