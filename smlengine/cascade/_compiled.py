"""The cascade's window loop compiled with numba, when it is installed.

Why: on the vectorised path (:mod:`smlengine.cascade.scan`) every stage costs whole-array
operations over the windows still alive, and the survivors of the first stages are gathered
into temporary arrays. Compiled, each window runs its stages one after the other, reads the
integral image in place and stops at its first rejecting stage -- the loop of Viola and Jones.
The arithmetic is the slice path's, in the same order (corner reads in order, mean and
deviation terms, votes added in order from -sum alpha), so the stages passed are the same.

Without numba (``grid_kernel()`` is None) the engine uses the vectorised path alone; the frozen
application ships without numba.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from .._compiled import CompiledCode


def _grid(ii, ii2, n_rows, n_cols, step, window, floor2, reads_off, reads_k, stump_start, area, theta, pol,
          two_alpha, stage_start, stage_thr, stage_alpha_sum, passed, last):
    """Stages passed and last margin of window (i, j), top-left corner (i step, j step) of ``ii``.

    Stump t reads ``reads_off[stump_start[t]:stump_start[t + 1]]`` (flat offsets from the
    window's corner) with coefficients ``reads_k``; stage s holds stumps
    ``stage_start[s]:stage_start[s + 1]``.
    """
    n = float(window * window)
    n_stages = stage_thr.shape[0]
    stride = ii.shape[1]
    flat = ii.ravel()
    flat2 = ii2.ravel()
    br = window * stride + window
    bl = window * stride
    for i in range(n_rows):
        for j in range(n_cols):
            base = i * step * stride + j * step
            s1 = flat[base + br] - flat[base + window] - flat[base + bl] + flat[base]
            s2 = flat2[base + br] - flat2[base + window] - flat2[base + bl] + flat2[base]
            mean = s1 / n
            var = s2 / n - mean * mean
            sigma = np.sqrt(var if var > floor2 else floor2)
            k_passed = 0
            margin = 0.0
            for s in range(n_stages):
                score = -stage_alpha_sum[s]
                for t in range(stage_start[s], stage_start[s + 1]):
                    a = stump_start[t]
                    x = flat[base + reads_off[a]] * reads_k[a]
                    for q in range(a + 1, stump_start[t + 1]):
                        x = x + flat[base + reads_off[q]] * reads_k[q]
                    x -= mean * area[t]
                    x -= sigma * theta[t]
                    if x * pol[t] > 0:
                        score += two_alpha[t]
                margin = (score - stage_thr[s]) / (2.0 * stage_alpha_sum[s] + 1e-300)
                if score >= stage_thr[s]:
                    k_passed = s + 1
                else:
                    break
            passed[i, j] = k_passed
            last[i, j] = margin


def _level(ii, y0, fy, x0, fx, factor, out, out2):
    """Integral image ``out`` and squared integral image ``out2`` (zero first row and column) of a
    pyramid level area-averaged from the image's integral image ``ii``, in one pass.

    The level is :func:`smlengine.cascade.scan.area_resize` (bilinear reads of ``ii`` at the
    fractional corners y0 + fy, x0 + fx, box differences, times ``factor``); its sums are formed
    as by :func:`smlengine.cascade.scan.level_integrals` (down the columns, then along the rows).
    """
    out_h = y0.shape[0] - 1
    out_w = x0.shape[0] - 1
    prev = np.empty(out_w + 1)
    cur = np.empty(out_w + 1)
    col = np.zeros(out_w)
    col2 = np.zeros(out_w)
    for i in range(out_h + 1):
        a = 1 - fy[i]
        b = fy[i]
        ya = y0[i]
        for j in range(out_w + 1):
            xa = x0[j]
            r0 = ii[ya, xa] * a + ii[ya + 1, xa] * b
            r1 = ii[ya, xa + 1] * a + ii[ya + 1, xa + 1] * b
            cur[j] = r0 * (1 - fx[j]) + r1 * fx[j]
        if i > 0:
            acc = 0.0
            acc2 = 0.0
            for j in range(out_w):
                v = (cur[j + 1] - prev[j + 1] - cur[j] + prev[j]) * factor
                col[j] = col[j] + v if i > 1 else v
                col2[j] = col2[j] + v * v if i > 1 else v * v
                acc = acc + col[j] if j > 0 else col[j]
                acc2 = acc2 + col2[j] if j > 0 else col2[j]
                out[i, j + 1] = acc
                out2[i, j + 1] = acc2
        prev, cur = cur, prev


def grid_kernel():
    """The compiled window loop, or None without numba; compiled (or loaded from numba's cache)
    at the first call of a process."""
    functions = COMPILED.get()
    return None if functions is None else functions.grid


def _compile(numba, cache):
    f8, i8, i4 = numba.float64, numba.int64, numba.int32
    vf, vi = f8[::1], i8[::1]
    signature = numba.void(f8[:, ::1], f8[:, ::1], i8, i8, i8, i8, f8, vi, vf, vi, vf, vf, vf, vf, vi, vf, vf,
                           i4[:, ::1], f8[:, ::1])
    level_sig = numba.void(f8[:, ::1], vi, vf, vi, vf, f8, f8[:, ::1], f8[:, ::1])
    return SimpleNamespace(grid=numba.njit(signature, cache=cache, nogil=True)(_grid),
                           level=numba.njit(level_sig, cache=cache, nogil=True)(_level))


COMPILED = CompiledCode(_compile)


def level_kernel():
    """The compiled level builder (see ``_level``), or None without numba."""
    functions = COMPILED.get()
    return None if functions is None else functions.level


def packed(stages, stride: int):
    """The stages' stumps as flat arrays for the compiled loop (reads as offsets for row length ``stride``)."""
    key = (tuple(id(st) for st in stages), int(stride))
    owner = stages[0]
    cache = owner.__dict__.setdefault("_packed", {})
    if key in cache:
        return cache[key]
    off, coef, starts, area, theta, pol, two_alpha, stage_start, thr, asum = ([] for _ in range(10))
    n_reads = n_stumps = 0
    for st in stages:
        stage_start.append(n_stumps)
        thr.append(st.threshold)
        asum.append(st.alpha_sum)
        for t, plan in enumerate(st.dense_plan):
            starts.append(n_reads)
            off.extend(r * stride + c for r, c, _ in plan)
            coef.extend(k for _, _, k in plan)
            n_reads += len(plan)
            area.append(st.area[t])
            theta.append(st.theta[t])
            pol.append(st.polarity[t])
            two_alpha.append(st.two_alpha[t])
            n_stumps += 1
    starts.append(n_reads)
    stage_start.append(n_stumps)
    i64, f64 = np.int64, np.float64
    out = (np.array(off, i64), np.array(coef, f64), np.array(starts, i64), np.array(area, f64),
           np.array(theta, f64), np.array(pol, f64), np.array(two_alpha, f64), np.array(stage_start, i64),
           np.array(thr, f64), np.array(asum, f64))
    if len(cache) > 64:
        cache.clear()
    cache[key] = out
    return out
