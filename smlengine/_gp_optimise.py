"""A bounded quasi-Newton ascent that yields after every step, for the evidence's optimiser.

:mod:`smlengine.gp` maximises the log marginal likelihood over θ (log hyper-parameters) and
shows every step, so the optimiser is a generator rather than a call into scipy: L-BFGS
directions (the two-loop recursion over the last few steps and gradient changes), a
backtracking line search that accepts a step when the evidence rises by at least 10⁻⁴ of
what its slope promises (Armijo), and iterates kept inside the box of bounds by clipping,
the components held at a bound while the gradient pushes out of the box.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import numpy as np

__all__ = ["Iterate", "ascend"]


@dataclass(frozen=True)
class Iterate:
    """One point of the ascent: θ, f(θ), ∇f(θ), and whether the ascent stops there."""

    x: np.ndarray
    value: float
    gradient: np.ndarray
    converged: bool


def _projected(x, g, lower, upper):
    """The gradient without the components that push out of the box at a bound."""
    held = ((x <= lower) & (g < 0)) | ((x >= upper) & (g > 0))
    return np.where(held, 0.0, g), held


def _direction(pg, held, steps, changes):
    """H pg by the two-loop recursion, H the L-BFGS inverse-Hessian estimate of −f."""
    q = pg.copy()
    alphas = []
    for s, y in reversed(list(zip(steps, changes))):
        a = (s @ q) / (s @ y)
        alphas.append(a)
        q -= a * y
    if steps:
        s, y = steps[-1], changes[-1]
        q *= (s @ y) / (y @ y)
    for (s, y), a in zip(zip(steps, changes), reversed(alphas)):
        b = (y @ q) / (s @ y)
        q += (a - b) * s
    q[held] = 0.0
    return q


def _line_search(fun, x, fx, gx, d, lower, upper, t_max, c1=1e-4, c2=0.9):
    """A step t d (clipped into the box) satisfying the weak Wolfe conditions for ascent, or None.

    Sufficient increase f(x + p) >= f(x) + c1 ∇f(x)ᵀp and a slope that has flattened,
    ∇f(x + p)ᵀp <= c2 ∇f(x)ᵀp, found by bisection on an interval that doubles until it holds a
    step with both (never past ``t_max``); a step with only the first is kept if the search runs out.
    """
    lo, hi, t, fallback = 0.0, np.inf, 1.0, None
    for _ in range(40):
        xn = np.clip(x + t * d, lower, upper)
        p = xn - x
        slope = gx @ p
        if not np.any(p):
            break
        fn, gn = fun(xn)
        if not np.isfinite(fn) or fn < fx + c1 * slope:
            hi = t
        elif gn @ p > c2 * slope and np.array_equal(xn, x + t * d):
            lo, fallback = t, (xn, fn, gn)
        else:
            return xn, fn, gn
        if np.isfinite(hi):
            t = 0.5 * (lo + hi)
        elif lo >= t_max:
            break
        else:
            t = min(2.0 * lo, t_max)
    return fallback


def ascend(fun, x0, lower, upper, *, max_iter=100, memory=10, gtol=1e-5, ftol=1e-10, max_step=3.0, first_step=0.1):
    """Maximise ``fun`` over the box [lower, upper], yielding the start and every accepted step.

    Parameters
    ----------
    fun : callable
        ``fun(x) -> (value, gradient)``; a value of −inf (or NaN) marks a point to step back from.
    x0, lower, upper : ndarray
        The start (clipped into the box) and the bounds.
    max_iter : int
        Most steps.
    memory : int
        Steps kept for the L-BFGS estimate.
    gtol : float
        Stop when no component of the projected gradient exceeds it.
    ftol : float
        Stop when a step raises f by less than ftol · max(1, |f|).
    max_step : float
        Longest move of any component in one step (θ is a logarithm: a factor e³ at most).
    first_step : float
        Longest move of the first step, along the gradient (a factor e^0.1: the evidence of a
        period or a length-scale often has other maxima a long first step would jump to).

    Yields
    ------
    Iterate
        The last one has ``converged`` True when a test above stopped the ascent.
    """
    lower, upper = np.asarray(lower, float), np.asarray(upper, float)
    x = np.clip(np.asarray(x0, float), lower, upper)
    fx, gx = fun(x)
    if not np.isfinite(fx):
        yield Iterate(x, float(fx), np.zeros_like(x), False)
        return
    steps, changes = deque(maxlen=memory), deque(maxlen=memory)
    pg, held = _projected(x, gx, lower, upper)
    if np.max(np.abs(pg), initial=0.0) < gtol:
        yield Iterate(x, fx, gx, True)
        return
    yield Iterate(x, fx, gx, False)
    for _ in range(max_iter):
        d = _direction(pg, held, steps, changes)
        if not np.all(np.isfinite(d)) or d @ pg <= 1e-12 * (pg @ pg):
            steps.clear()
            changes.clear()
            d = pg.copy()
        if not steps:  # no curvature known yet: a short first step, before the estimate scales the next ones
            d *= first_step / float(np.max(np.abs(d)))
        found = _line_search(fun, x, fx, gx, d, lower, upper, max_step / float(np.max(np.abs(d))))
        if found is None:  # no step along d raises f: a maximum to working precision
            yield Iterate(x, fx, gx, True)
            return
        xn, fn, gn = found
        s, y = xn - x, gx - gn
        if s @ y > 1e-10 * np.sqrt((s @ s) * (y @ y)):
            steps.append(s)
            changes.append(y)
        gain = fn - fx
        x, fx, gx = xn, float(fn), gn
        pg, held = _projected(x, gx, lower, upper)
        converged = bool(np.max(np.abs(pg), initial=0.0) < gtol or gain <= ftol * max(1.0, abs(fx)))
        yield Iterate(x, fx, gx, converged)
        if converged:
            return
