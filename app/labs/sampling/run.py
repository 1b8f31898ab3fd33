"""The sampling lab's runs, free of widgets: rejection sampling of a 1-D density, Metropolis–
Hastings chains on a named 2-D target (with their diagnostics and a step-size comparison), and
Gibbs sweeps of a Potts field denoising a shipped picture. Everything here runs on the worker
thread; each snapshot carries what one frame draws (small arrays; the running histograms and
marginals, not the whole history).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterator

import numpy as np

from smlengine import Snapshot, frozen_array
from smlengine.mrf import PottsGibbs
from smlengine.sampling import (
    TARGETS,
    GaussianProposal,
    MetropolisHastings,
    autocorrelation,
    effective_sample_size,
    get_target,
    rejection_steps,
    rhat,
)

METHODS = [("rejection", "Rejection sampling"), ("mh", "Metropolis–Hastings"), ("gibbs", "Gibbs: Potts MRF")]
TARGET_CHOICES = [(name, t.title) for name, t in TARGETS.items()]
PICTURES = [("horse", "Horse (2 labels)"), ("blobs", "Blobs (2 labels)"), ("camera", "Camera (3 levels)")]
INITS = [("one", "all one label"), ("nearest", "nearest level")]

#: bins of the histograms (rejection: over the 1-D range; MH: per coordinate over the target's box)
N_BINS = 48
#: proposals of the recent past drawn as points (rejection) or markers (MH, chain 1)
N_RECENT = 300
N_RECENT_MH = 25
#: largest lag of the autocorrelation panel
MAX_LAG = 60
#: draws per chain after burn-in from which R̂, ESS and the autocorrelation are computed (split
#: R̂ compares halves of 50; on fewer the estimates are noise, not a diagnosis)
MIN_DIAG_DRAWS = 100
#: kept draws (all chains, after burn-in) from which the marginal histograms are drawn: 48 bins of a
#: few draws each are spikes, not a density
MIN_MARGINAL_DRAWS = 2000
#: step sizes of the comparison, as multiples of the target's good step: too small, right, too big
TRIO = (0.05, 1.0, 12.0)

# --------------------------------------------------------------------------- rejection sampling
#: the 1-D target of the rejection tab: ½ N(−1.6, 0.6²) + ½ N(1.4, 0.9²) (normalised, so the rate is 1/M)
MIX_W = np.array([0.45, 0.55])
MIX_MU = np.array([-1.6, 1.4])
MIX_SD = np.array([0.6, 0.9])
X_RANGE = (-6.0, 6.0)


def target_1d_log(x):
    x = np.asarray(x, dtype=np.float64)[..., None]
    comp = np.log(MIX_W) - 0.5 * ((x - MIX_MU) / MIX_SD) ** 2 - np.log(MIX_SD * math.sqrt(2 * math.pi))
    hi = comp.max(axis=-1)
    return hi + np.log(np.exp(comp - hi[..., None]).sum(axis=-1))


@lru_cache(maxsize=32)
def smallest_m(scale: float) -> float:
    """max p(x) / q(x) for q = N(0, scale²), on a fine grid (tails: the ratio falls or grows monotonically)."""
    xs = np.linspace(-30, 30, 60001)
    log_m = float(np.max(target_1d_log(xs) - GaussianProposal(0.0, scale).logpdf(xs)))
    return math.inf if log_m > 700.0 else math.exp(log_m)  # a proposal too narrow for any M


@dataclass(frozen=True, kw_only=True)
class SamplingRejectionSnapshot(Snapshot):
    """One step of the rejection tab: recent proposals (x, height, accepted) and the histogram so far."""

    xs: np.ndarray
    heights: np.ndarray
    accepted: np.ndarray
    counts: np.ndarray  # accepted points per bin
    n_proposed: int
    n_accepted: int
    rate: float
    M: float
    scale: float
    last_x: float | None = None  # the last proposal and its height (None before the first)
    last_u: float | None = None
    last_accepted: bool = False


def _rejection_steps(scale: float, M: float, per_step: int, n_steps: int, seed: int):
    need = smallest_m(scale)
    if M < need * (1 - 1e-9):
        raise ValueError(f"M = {M:g} is too small for the proposal N(0, {scale:g}²): p/q reaches {need:.3g}, "
                         f"so M must be at least {need:.3g}")
    edges = np.linspace(*X_RANGE, N_BINS + 1)
    counts = np.zeros(N_BINS, dtype=np.int64)
    ring_x = np.zeros(0)
    ring_h = np.zeros(0)
    ring_a = np.zeros(0, dtype=bool)
    for snap in rejection_steps(target_1d_log, GaussianProposal(0.0, scale), M, seed, n_steps=n_steps,
                                batch_size=per_step):
        x, h, a = snap.points, snap.heights, snap.accepted
        if x.size:
            counts += np.histogram(x[a], bins=edges)[0]
            ring_x = np.concatenate([ring_x, x])[-N_RECENT:]
            ring_h = np.concatenate([ring_h, h])[-N_RECENT:]
            ring_a = np.concatenate([ring_a, a])[-N_RECENT:]
        yield SamplingRejectionSnapshot(
            step=snap.step, xs=frozen_array(ring_x), heights=frozen_array(ring_h), accepted=frozen_array(ring_a),
            counts=frozen_array(counts), n_proposed=snap.n_proposed, n_accepted=snap.n_accepted,
            rate=snap.acceptance_rate, M=M, scale=scale, last_x=float(x[-1]) if x.size else None,
            last_u=float(h[-1]) if x.size else None, last_accepted=bool(a[-1]) if x.size else False)


# --------------------------------------------------------------------------- Metropolis–Hastings
@dataclass(frozen=True, kw_only=True)
class SamplingMHSnapshot(Snapshot):
    """One step of every chain (main run and the step-size trio) with the diagnostics of the draws so far.

    ``fresh`` says the diagnostics (R̂, ESS, autocorrelation, trio ESS) were computed at this step;
    otherwise they repeat the last values (they cost a pass over the whole chains). They are None
    until every chain has ``MIN_DIAG_DRAWS`` draws after burn-in (step ``burn_in + MIN_DIAG_DRAWS``),
    ``n_steps`` the run's length."""

    target: str
    step_size: float
    burn_in: int
    n_steps: int
    state: np.ndarray  # (n_chains, 2)
    proposal: np.ndarray  # (n_chains, 2)
    accepted: np.ndarray  # (n_chains,)
    log_p: np.ndarray  # log p(x_t) per chain
    log_p_proposal: np.ndarray  # log p(x') per chain
    rates: np.ndarray  # acceptance rate per chain
    hist_x: np.ndarray  # post-burn-in draws of all chains per bin, x₁
    hist_y: np.ndarray
    n_kept: int
    fresh: bool
    rhat: np.ndarray | None  # (2,), None before there are enough draws
    ess: np.ndarray | None  # (2,), None as rhat
    acf: np.ndarray  # autocorrelation of x₁ of chain 1 after burn-in, lags 0…
    trio_steps: np.ndarray  # (3,) step sizes
    trio_state: np.ndarray  # (3, 2)
    trio_proposal: np.ndarray
    trio_accepted: np.ndarray
    trio_rates: np.ndarray
    trio_ess: np.ndarray | None  # (3,) ESS of x₁ of each trio chain, None as rhat
    # every chain constant since the burn-in: its ESS would be its number of draws and R̂ infinite,
    # so rhat and ess are None and the lab says the chains are stuck; trio_stuck: the same per trio chain
    stuck: bool = False
    trio_stuck: np.ndarray | None = None


def dispersed_starts(name: str, n_chains: int) -> np.ndarray:
    """Starts spread over the corners and edges of the target's box (where the density is low)."""
    x0, x1, y0, y1 = get_target(name).bounds
    cx, cy, rx, ry = (x0 + x1) / 2, (y0 + y1) / 2, 0.8 * (x1 - x0) / 2, 0.8 * (y1 - y0) / 2
    angles = 2 * math.pi * (np.arange(n_chains) / n_chains) + math.pi / 4
    return np.column_stack([cx + rx * np.cos(angles), cy + ry * np.sin(angles)])


def diag_due(step: int, n_steps: int) -> bool:
    """Diagnostics at the first 10 steps, then about 100 times over the run, and at the end."""
    return step == n_steps or step <= 10 or step % max(1, n_steps // 100) == 0


def _mh_steps(name: str, step_size: float, n_chains: int, burn_in: int, n_steps: int, seed: int):
    target = get_target(name)
    starts = dispersed_starts(name, n_chains)
    main = MetropolisHastings(target, step_size=step_size, n_chains=n_chains, random_state=seed)
    trio_steps = np.array(TRIO) * target.good_step
    trio_start = target.mean + np.array([0.5, 0.5]) if name != "donut" else np.array([target.bounds[1] * 0.66, 0])
    trio = [MetropolisHastings(target, step_size=float(s), n_chains=1, random_state=seed + 1000 + i)
            .sample_steps(trio_start, n_steps) for i, s in enumerate(trio_steps)]
    x0, x1, y0, y1 = target.bounds
    ex, ey = np.linspace(x0, x1, N_BINS + 1), np.linspace(y0, y1, N_BINS + 1)
    hx = np.zeros(N_BINS, dtype=np.int64)
    hy = np.zeros(N_BINS, dtype=np.int64)
    chains = np.empty((n_chains, n_steps + 1, 2))
    trio_chains = np.empty((3, n_steps + 1))
    r_hat = ess = trio_ess = trio_stuck = None  # undefined before there are enough draws
    stuck = False
    acf = np.zeros(0)
    kept = 0
    for snap in main.sample_steps(starts, n_steps):
        t = snap.step
        tsnaps = [next(g) for g in trio]
        chains[:, t] = snap.state
        trio_chains[:, t] = [s.state[0, 0] for s in tsnaps]
        if t > burn_in:
            hx += _bin(snap.state[:, 0], ex)
            hy += _bin(snap.state[:, 1], ey)
            kept += n_chains
        fresh = diag_due(t, n_steps) or t == burn_in + MIN_DIAG_DRAWS
        if fresh:
            lo = min(burn_in + 1, t)
            draws = chains[:, lo: t + 1]
            if t - burn_in >= MIN_DIAG_DRAWS:
                stuck = not np.ptp(draws, axis=1).any()
                ess, r_hat = (None, None) if stuck else (effective_sample_size(draws), rhat(draws))
                acf = autocorrelation(draws[0, :, 0], min(MAX_LAG, draws.shape[1] - 1))
                trio_ess = np.array([effective_sample_size(trio_chains[i, lo: t + 1][None]) for i in range(3)])
                trio_stuck = np.ptp(trio_chains[:, lo: t + 1], axis=1) == 0
        lp_prop = target(snap.proposal)
        yield SamplingMHSnapshot(
            step=t, target=name, step_size=step_size, burn_in=burn_in, n_steps=n_steps, state=snap.state,
            proposal=snap.proposal,
            accepted=snap.accepted, log_p=snap.log_target, log_p_proposal=frozen_array(lp_prop),
            rates=frozen_array(snap.acceptance_rate), hist_x=frozen_array(hx), hist_y=frozen_array(hy),
            n_kept=kept, fresh=fresh, rhat=_frozen_or_none(r_hat), ess=_frozen_or_none(ess), acf=frozen_array(acf),
            trio_steps=frozen_array(trio_steps), trio_state=frozen_array(np.vstack([s.state for s in tsnaps])),
            trio_proposal=frozen_array(np.vstack([s.proposal for s in tsnaps])),
            trio_accepted=frozen_array(np.concatenate([s.accepted for s in tsnaps])),
            trio_rates=frozen_array(np.concatenate([s.acceptance_rate for s in tsnaps])),
            trio_ess=_frozen_or_none(trio_ess), stuck=stuck, trio_stuck=_frozen_or_none(trio_stuck))


def diagnostics_from(burn_in: int) -> int:
    """The first step with R̂ and ESS: every chain has MIN_DIAG_DRAWS draws after burn-in."""
    return burn_in + MIN_DIAG_DRAWS


def marginals_from(burn_in: int, n_chains: int) -> int:
    """The first step whose kept draws (all chains) reach MIN_MARGINAL_DRAWS."""
    return burn_in + -(-MIN_MARGINAL_DRAWS // n_chains)


def _frozen_or_none(a):
    return None if a is None else frozen_array(a)


def _bin(values: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Counts of ``values`` per bin of ``edges`` (values outside the range are left out)."""
    idx = np.searchsorted(edges, values, side="right") - 1
    idx = idx[(idx >= 0) & (idx < len(edges) - 1)]
    return np.bincount(idx, minlength=len(edges) - 1)


@lru_cache(maxsize=8)
def target_picture(name: str, n: int = 160) -> tuple:
    """(xs, ys, density (n, n), contour lines (x, y) with NaN breaks, marginals (xs, px, ys, py)) of a target."""
    from skimage import measure  # deferred: scikit-image loads when a target is first drawn

    target = get_target(name)
    xs, ys, dens = target.grid(n)
    top = dens.max()
    lx, ly = [], []
    for level in top * np.array([0.05, 0.2, 0.45, 0.75]):
        for c in measure.find_contours(dens, level):
            lx.extend(np.interp(c[:, 0], np.arange(n), xs).tolist() + [np.nan])
            ly.extend(np.interp(c[:, 1], np.arange(n), ys).tolist() + [np.nan])
    return xs, ys, dens, (np.array(lx), np.array(ly)), target.marginals(400)


# --------------------------------------------------------------------------- Gibbs on a Potts field
@dataclass(frozen=True, kw_only=True)
class SamplingGibbsSnapshot(Snapshot):
    """One sweep: the label field, its energy, the running marginal and the errors against the clean picture."""

    picture: "Picture"
    labels: np.ndarray  # (h, w)
    energy: float
    changed: float
    burn_in: int
    beta: float
    sigma: float
    n_kept: int
    marginal: np.ndarray  # (h, w): E[μ_z | x] over the sweeps after burn-in (the current field before)
    error: float  # fraction of pixels whose current label differs from the clean picture's
    marginal_error: float | None  # the same for the most frequent label after burn-in (None before)
    noisy_error: float  # the same for the nearest level of each noisy pixel


class Picture:
    """A clean K-level picture and its noisy version (read-only arrays shared by a run's snapshots).

    Deliberately not a dataclass: the runner counts the arrays of a snapshot's dataclass fields,
    and this constant object is shared by every snapshot of a run."""

    __slots__ = ("key", "clean", "levels", "noisy", "n_labels", "nearest")

    def __init__(self, key, clean: np.ndarray, levels: np.ndarray, noisy: np.ndarray):
        self.key = key
        self.clean = frozen_array(clean)
        self.levels = frozen_array(levels)
        self.noisy = frozen_array(noisy)
        self.n_labels = len(levels)
        self.nearest = frozen_array(np.argmin(np.abs(noisy[None] - levels[:, None, None]), axis=0))

    def __eq__(self, other):
        return isinstance(other, Picture) and self.key == other.key

    def __hash__(self):
        return hash(self.key)


@lru_cache(maxsize=8)
def clean_picture(name: str, size: int) -> np.ndarray:
    """Integer labels 0…K−1 of a shipped scikit-image picture, longest side ``size`` pixels."""
    from skimage import data, transform  # deferred: scikit-image loads when a picture is first used

    if name == "horse":
        img = (~data.horse()).astype(float)  # the horse is label 1
        levels = 2
    elif name == "blobs":
        img = data.binary_blobs(256, blob_size_fraction=0.12, rng=3).astype(float)
        levels = 2
    elif name == "camera":
        img = data.camera().astype(float) / 255.0
        levels = 3
    else:
        raise ValueError(f"picture must be one of {', '.join(p for p, _ in PICTURES)}, got {name!r}")
    h, w = img.shape
    scale = size / max(h, w)
    small = transform.resize(img, (max(1, round(h * scale)), max(1, round(w * scale))), anti_aliasing=True)
    if levels == 2:
        return (small > 0.5).astype(np.uint8)
    return np.digitize(small, np.quantile(small, [1 / 3, 2 / 3])).astype(np.uint8)


def make_picture(name: str, size: int, sigma: float, seed: int) -> Picture:
    labels = clean_picture(name, size)
    k = int(labels.max()) + 1
    levels = np.linspace(0.0, 1.0, k)
    noisy = levels[labels] + sigma * np.random.default_rng(seed).standard_normal(labels.shape)
    return Picture((name, size, sigma, seed), labels, levels, noisy)


def _gibbs_steps(picture: str, size: int, sigma: float, beta: float, init: str, n_sweeps: int, burn_in: int,
                 seed: int):
    pic = make_picture(picture, size, sigma, seed)
    k = pic.n_labels
    sampler = PottsGibbs(n_labels=k, beta=beta, means=pic.levels, sigma=sigma, burn_in=burn_in,
                         random_state=seed + 1)
    start = 0 if init == "one" else "nearest"
    noisy_error = float(np.mean(pic.nearest != pic.clean))
    counts = np.zeros((k,) + pic.clean.shape, dtype=np.int32)
    kept = 0
    for snap in sampler.sweep_steps(pic.noisy, n_sweeps, init=start):
        z = snap.labels
        if snap.step > burn_in:
            for lab in range(k):
                counts[lab] += z == lab
            kept += 1
        if kept:
            freq = counts / kept
            marginal = np.tensordot(pic.levels, freq, axes=1)
            marginal_error = float(np.mean(np.argmax(counts, axis=0) != pic.clean))
        else:
            marginal = pic.levels[z]
            marginal_error = None
        yield SamplingGibbsSnapshot(step=snap.step, picture=pic, labels=z, energy=snap.energy,
                                    changed=snap.changed_fraction, burn_in=burn_in, beta=beta, sigma=sigma,
                                    n_kept=kept, marginal=frozen_array(marginal, dtype=np.float32),
                                    error=float(np.mean(z != pic.clean)), marginal_error=marginal_error,
                                    noisy_error=noisy_error)


def run_steps(method: str, *args) -> Iterator[Snapshot]:
    """The lab's run for one method: 'rejection' (scale, M, per_step, n_steps, seed), 'mh' (target,
    step_size, n_chains, burn_in, n_steps, seed) or 'gibbs' (picture, size, sigma, beta, init, n_sweeps,
    burn_in, seed)."""
    steps = {"rejection": _rejection_steps, "mh": _mh_steps, "gibbs": _gibbs_steps}
    if method not in steps:
        raise ValueError(f"method must be one of {sorted(steps)}, not {method!r}")
    return steps[method](*args)
