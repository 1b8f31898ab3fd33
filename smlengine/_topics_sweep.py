"""One sweep of collapsed Gibbs sampling for latent Dirichlet allocation: without numba, or compiled.

A sweep visits every token i in order, removes it from the counts, draws its topic from

    p(z_i = k | z_−i, w) ∝ (n_dk + α)(n_kw + η)/(n_k + Vη)

and adds it back. Each draw depends on the counts the previous draws left, so the sweep is
sequential: the compiled path (numba, when installed) runs the whole loop in machine code; the
path without numba runs the same loop on Python lists (see :func:`sweep_numpy`). Both take the
same pre-drawn uniforms ``u`` and the same rule (the new topic is the first k whose running sum
of the K weights exceeds u times their total), so they give the same chain.

Counts: ``ndk`` (D × K), ``nwk`` (V × K: the topic counts of one word are contiguous), ``nk`` (K).

Numba compiles the loop at its first call (or loads it from its on-disk cache): a second or more
per process. :func:`warm_compiled` pays that once (a side task may call it ahead of need) and
:func:`compiled_ready` says, without waiting, whether the compiled loop can be called at once:
since both paths draw the same chain, a sampler may sweep without numba until then and switch.
"""

from __future__ import annotations

import threading

import numpy as np

from ._compiled import CompiledCode

__all__ = ["sweep_numpy", "compiled_sweep", "compiled_loaded", "compiled_ready", "warm_compiled"]


def sweep_numpy(doc, word, z, ndk, nwk, nk, alpha, eta, v_eta, u) -> int:
    """Resample every token's topic in place (arrays as in :func:`sweep_loop`); returns how
    many tokens changed topic.

    The path without numba. A token's K weights are too few for numpy to pay off (each array
    operation costs about a microsecond however small), so the counts are turned into nested
    lists for the sweep and written back after it; the arithmetic is that of the compiled loop,
    operation for operation, so both draw the same topics from the same uniforms.
    """
    n_topics = nk.shape[0]
    last = n_topics - 1
    topics = range(n_topics)
    rows_d = ndk.tolist()
    rows_w = nwk.tolist()
    totals = nk.tolist()
    zs = z.tolist()
    us = u.tolist()
    changed = 0
    for i, (d, w) in enumerate(zip(doc.tolist(), word.tolist())):
        k = zs[i]
        a = rows_d[d]
        b = rows_w[w]
        a[k] -= 1
        b[k] -= 1
        totals[k] -= 1
        cum = []
        total = 0.0
        for j in topics:
            total += (a[j] + alpha) * (b[j] + eta) / (totals[j] + v_eta)
            cum.append(total)
        x = us[i] * total
        new = last
        for j in topics:
            if cum[j] > x:
                new = j
                break
        a[new] += 1
        b[new] += 1
        totals[new] += 1
        if new != k:
            zs[i] = new
            changed += 1
    ndk[...] = rows_d
    nwk[...] = rows_w
    nk[...] = totals
    z[...] = zs
    return changed


def sweep_loop(doc, word, z, ndk, nwk, nk, alpha, eta, v_eta, u, cum):
    """The same sweep as :func:`sweep_numpy` in scalar loops, for numba to compile."""
    n_topics = nk.shape[0]
    last = n_topics - 1
    changed = 0
    for i in range(doc.shape[0]):
        d = doc[i]
        w = word[i]
        k = z[i]
        ndk[d, k] -= 1
        nwk[w, k] -= 1
        nk[k] -= 1
        total = 0.0
        for j in range(n_topics):
            total += (ndk[d, j] + alpha) * (nwk[w, j] + eta) / (nk[j] + v_eta)
            cum[j] = total
        x = u[i] * total
        new = last
        for j in range(n_topics):
            if cum[j] > x:
                new = j
                break
        ndk[d, new] += 1
        nwk[w, new] += 1
        nk[new] += 1
        if new != k:
            z[i] = new
            changed += 1
    return changed


def _compile(numba, cache):
    return numba.njit(cache=cache, nogil=True)(sweep_loop)


COMPILED = CompiledCode(_compile)


def compiled_sweep():
    """The compiled sweep (arguments of :func:`sweep_loop`), or None without numba."""
    return COMPILED.get()


def compiled_loaded() -> bool:
    """Whether numba has been asked for the compiled sweep in this process (never compiles it)."""
    return COMPILED.loaded()


_READY = threading.Event()  # set once the loop is compiled for the sampler's arrays


def compiled_ready() -> bool:
    """Whether the compiled sweep is compiled for the sampler's arrays in this process, so that a
    call runs at once (never compiles it, never waits)."""
    return _READY.is_set()


def warm_compiled() -> bool:
    """Compile the sweep (or load it from numba's cache) for the arrays the sampler passes, by one
    sweep of a one-token corpus; True when it is ready, False without numba."""
    if _READY.is_set():
        return True
    loop = compiled_sweep()
    if loop is None:
        return False
    i32 = np.zeros(1, dtype=np.int32)  # doc, word, z: int32; the counts int64; u and cum float64
    loop(i32, i32.copy(), i32.copy(), np.ones((1, 1), dtype=np.int64), np.ones((1, 1), dtype=np.int64),
         np.ones(1, dtype=np.int64), 0.1, 0.1, 0.1, np.zeros(1), np.empty(1))
    _READY.set()
    return True
