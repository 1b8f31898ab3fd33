"""The random-walk Metropolis–Hastings loop for the named 2-D targets, compiled with numba
when it is installed.

Why: a chain is sequential (each proposal starts from the state the previous step left), so
numpy can vectorise only across chains or over runs of rejections; one step then costs a
vectorised call of the target, about ten microseconds of fixed cost. For the named targets of
:mod:`smlengine.sampling` the log density is a few arithmetic operations, and the whole loop
runs compiled: the same pre-drawn steps and uniforms, the same rule (accept when
log u < log p̃(x') − log p̃(x)), so the chain is the numpy path's up to rounding.

Without numba (``rw_chain()`` is None) the sampler uses its numpy path alone.
"""

from __future__ import annotations

import math

import numpy as np

from ._compiled import CompiledCode

#: target kinds understood by the compiled log density (``Target2D.kind``)
GAUSSIAN, BANANA, TWO_MODES, DONUT = 0, 1, 2, 3



def log_density(kind, p, x0, x1):
    """log p(x) of the named target ``kind`` with parameters ``p`` (see ``Target2D.params``).

    Plain Python on scalars, so that it compiles as it is.
    """
    if kind == GAUSSIAN:  # p = (m0, m1, P00, P01, P11, const)
        d0 = x0 - p[0]
        d1 = x1 - p[1]
        return p[5] - 0.5 * (p[2] * d0 * d0 + 2.0 * p[3] * d0 * d1 + p[4] * d1 * d1)
    if kind == BANANA:  # p = (a, b, const)
        u = x0 / p[0]
        v = x1 - p[1] * x0 * x0
        return p[2] - 0.5 * u * u - 0.5 * v * v
    if kind == TWO_MODES:  # p = (c, var, const): ½ N((−c, −c), var I) + ½ N((c, c), var I)
        a0 = x0 + p[0]
        a1 = x1 + p[0]
        b0 = x0 - p[0]
        b1 = x1 - p[0]
        la = -0.5 * (a0 * a0 + a1 * a1) / p[1]
        lb = -0.5 * (b0 * b0 + b1 * b1) / p[1]
        hi = la if la > lb else lb
        lo = lb if la > lb else la
        return p[2] + hi + math.log1p(math.exp(lo - hi))
    # DONUT, p = (radius, width, const)
    r = math.sqrt(x0 * x0 + x1 * x1)
    z = (r - p[0]) / p[1]
    return p[2] - 0.5 * z * z


def chain(kind, p, x, lp, steps, log_u, out):
    """Run one chain over the pre-drawn ``steps`` (m, 2) and ``log_u`` (m,) from the state
    x (2,) with log density lp; write the states into ``out`` (m, 2). Returns
    (accepted count, final log density); x is updated in place."""
    m = steps.shape[0]
    acc = 0
    for j in range(m):
        y0 = x[0] + steps[j, 0]
        y1 = x[1] + steps[j, 1]
        lq = _logp(kind, p, y0, y1)
        if log_u[j] < lq - lp:
            x[0] = y0
            x[1] = y1
            lp = lq
            acc += 1
        out[j, 0] = x[0]
        out[j, 1] = x[1]
    return acc, lp


# log_density compiled (set by _compile); a module global, not a closure variable: numba's cache
# keys a closure by its cells, which would make every process compile the chain again
_logp = log_density


def _compile(numba, cache):
    global _logp
    _logp = numba.njit(cache=cache, nogil=True)(log_density)
    return numba.njit(cache=cache, nogil=True)(chain)


COMPILED = CompiledCode(_compile)


def rw_chain():
    """The compiled chain loop (:func:`chain`), or None without numba; compiled (or loaded
    from numba's cache) at the first call of a process."""
    return COMPILED.get()


def loaded() -> bool:
    """Whether the compiled loop is ready in this process (never loads it)."""
    return COMPILED.loaded()


def as_params(values) -> np.ndarray:
    return np.ascontiguousarray(values, dtype=np.float64)
