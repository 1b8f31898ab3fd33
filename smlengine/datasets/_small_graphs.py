"""Small graphs and chains built in code: the course's textbook chains, Zachary's karate club, a scale-free generator.

:func:`textbook_chain` gives the course's small Markov chains (two-state, reducible,
periodic) as row-stochastic matrices, :func:`karate_club` Zachary's undirected karate-club
network as a symmetric adjacency, and :func:`scale_free_digraph` a seeded directed graph
with power-law in- and out-degrees and a share of dangling pages. Nothing is read from disk;
:mod:`smlengine.datasets._graph` re-exports all three.
"""

from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp

from .._base import check_random_state, check_scalar, quote_text


# ----------------------------------------------------------------------------- small chains

TEXTBOOK_CHAINS = ("two-state", "reducible", "periodic", "periodic-self-loops")


def textbook_chain(name: str = "two-state"):
    """Small chains from the course, as a row-stochastic transition matrix.

    ``p[s, t] = Pr{X_n = t | X_{n-1} = s}`` (rows sum to one).

    * ``'two-state'``: p = [[0.7, 0.3], [0.1, 0.9]]; irreducible and aperiodic, unique
      equilibrium (0.25, 0.75).
    * ``'reducible'``: four states in two closed classes {A, B} and {C, D} that never
      communicate; two equilibria (2/7, 5/7, 0, 0) and (0, 0, 0.8, 0.2). Which one P_n tends to
      depends on the start.
    * ``'periodic'``: p = [[0, 1], [1, 0]]; period 2, P_n oscillates forever unless it starts
      at (1/2, 1/2).
    * ``'periodic-self-loops'``: p = [[0.1, 0.9], [0.9, 0.1]]; the self-loops make it aperiodic,
      so P_n converges to (1/2, 1/2).

    Returns
    -------
    p : ndarray of shape (d, d)
        The transition matrix.
    names : list of str
        The states' names.

    Examples
    --------
    >>> from smlengine.datasets import textbook_chain
    >>> p, names = textbook_chain()
    >>> print(p, names)
    [[0.7 0.3]
     [0.1 0.9]] ['1', '2']
    """
    chains = {
        "two-state": ([[0.7, 0.3], [0.1, 0.9]], ["1", "2"]),
        "reducible": (
            [[0.5, 0.5, 0.0, 0.0], [0.2, 0.8, 0.0, 0.0], [0.0, 0.0, 0.9, 0.1], [0.0, 0.0, 0.4, 0.6]],
            ["A", "B", "C", "D"],
        ),
        "periodic": ([[0.0, 1.0], [1.0, 0.0]], ["1", "2"]),
        "periodic-self-loops": ([[0.1, 0.9], [0.9, 0.1]], ["1", "2"]),
    }
    if name not in chains:
        raise ValueError(f"unknown chain {quote_text(name)}; available: {', '.join(TEXTBOOK_CHAINS)}")
    p, names = chains[name]
    return np.array(p, dtype=np.float64), list(names)


# Zachary (1977), "An information flow model for conflict and fission in small groups":
# members 0..33, the 78 friendships; for each member, its neighbours with a larger index.
_KARATE = {
    0: (1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 12, 13, 17, 19, 21, 31),
    1: (2, 3, 7, 13, 17, 19, 21, 30),
    2: (3, 7, 8, 9, 13, 27, 28, 32),
    3: (7, 12, 13),
    4: (6, 10),
    5: (6, 10, 16),
    6: (16,),
    8: (30, 32, 33),
    9: (33,),
    13: (33,),
    14: (32, 33),
    15: (32, 33),
    18: (32, 33),
    19: (33,),
    20: (32, 33),
    22: (32, 33),
    23: (25, 27, 29, 32, 33),
    24: (25, 27, 31),
    25: (31,),
    26: (29, 33),
    27: (33,),
    28: (31, 33),
    29: (32, 33),
    30: (32, 33),
    31: (32, 33),
    32: (33,),
}


def karate_club():
    """Zachary's karate club: 34 members, 78 friendships, undirected.

    Returns
    -------
    adjacency : scipy.sparse.csr_matrix of shape (34, 34)
        Symmetric (each friendship stored both ways), so the simple random walk has
        equilibrium pi_i = deg(i) / (2 * 78).
    names : list of str
        ``'0'`` ... ``'33'``.

    Examples
    --------
    >>> from smlengine.datasets import karate_club
    >>> A, names = karate_club()
    >>> A.shape, int(A.nnz), names[:3]
    ((34, 34), 156, ['0', '1', '2'])
    """
    src = [s for s, ts in _KARATE.items() for _ in ts]
    dst = [t for ts in _KARATE.values() for t in ts]
    a = sp.csr_matrix((np.ones(2 * len(src)), (src + dst, dst + src)), shape=(34, 34))
    a.sum_duplicates()
    a.data[:] = 1.0  # 0/1: a friendship listed twice is still one link
    a.sort_indices()
    return a, [str(i) for i in range(34)]


# ----------------------------------------------------------------------------- generator


def scale_free_digraph(
    n: int,
    random_state=None,
    *,
    mean_degree: float = 10.0,
    dangling: float = 0.05,
    in_exponent: float = 2.1,
    out_exponent: float = 2.7,
):
    """Seeded directed scale-free graph (Chung--Lu style, vectorized, fast for millions).

    Each node draws an out-degree from a power law P(k) ~ k^-out_exponent, scaled so the
    mean is ``mean_degree``; a fraction ``dangling`` of the nodes gets no out-link at all.
    Each link's target is drawn with probability proportional to a power-law "fitness"
    w_j ~ j^(-1/(in_exponent - 1)), which gives in-degrees P(k) ~ k^-in_exponent like the
    web. Self-loops and duplicate links are removed afterwards, so the edge count is a bit
    below ``n * mean_degree * (1 - dangling)``. Cost O(E log n) time, O(E) memory;
    ``n`` is at most 50,000,000.

    Returns
    -------
    adjacency : scipy.sparse.csr_matrix of shape (n, n)
        ``adjacency[i, j] = 1`` for a link i -> j.
    names : list of str
        ``'0'`` ... ``str(n - 1)``.

    Examples
    --------
    >>> from smlengine.datasets import scale_free_digraph
    >>> G, names = scale_free_digraph(200, random_state=0)
    >>> G.shape, int(G.nnz)
    ((200, 200), 1551)
    """
    check_scalar("n", n, numbers.Integral, min_value=2, max_value=50_000_000)
    check_scalar("mean_degree", mean_degree, numbers.Real, min_value=0.0, include_min=False)
    check_scalar("dangling", dangling, numbers.Real, min_value=0.0, max_value=1.0, include_max=False)
    check_scalar("in_exponent", in_exponent, numbers.Real, min_value=1.0, include_min=False)
    check_scalar("out_exponent", out_exponent, numbers.Real, min_value=2.0, include_min=False)
    rng = check_random_state(random_state)
    n = int(n)
    raw = (1.0 - rng.random(n)) ** (-1.0 / (out_exponent - 1.0))
    raw = np.minimum(raw, n ** 0.5 * 10)  # cap the heavy tail so one draw cannot eat the edge budget
    outdeg = np.maximum(1, np.rint(raw * (mean_degree / raw.mean()))).astype(np.int64)
    outdeg = np.minimum(outdeg, n - 1)
    outdeg[rng.random(n) < dangling] = 0
    fitness = np.arange(1, n + 1, dtype=np.float64) ** (-1.0 / (in_exponent - 1.0))
    fitness = fitness[rng.permutation(n)]  # popular pages anywhere, not only at low indices
    cum = np.cumsum(fitness)
    src = np.repeat(np.arange(n, dtype=np.int64), outdeg)
    # Inverse-CDF sampling of the targets; sorted queries make searchsorted cache-friendly
    # (about 10x faster at 10^7 links), and a permutation then pairs them with random sources.
    u = rng.random(src.size)
    u *= cum[-1]
    u.sort()
    dst = np.searchsorted(cum, u, side="right")
    del u
    np.minimum(dst, n - 1, out=dst)
    dst = dst[rng.permutation(dst.size)]
    # Drop self-loops and duplicates with one sort of the row-major codes, then build the CSR
    # arrays directly (several times faster than scipy's COO -> CSR with sum_duplicates).
    codes = src[src != dst] * n + dst[src != dst]
    codes.sort()
    codes = codes[np.r_[True, codes[1:] != codes[:-1]]]
    rows, cols = np.divmod(codes, n)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=n), out=indptr[1:])
    index_dtype = np.int32 if codes.size < 2**31 else np.int64
    a = sp.csr_matrix(
        (np.ones(codes.size), cols.astype(index_dtype), indptr.astype(index_dtype)), shape=(n, n)
    )
    a.has_sorted_indices = True
    return a, [str(i) for i in range(n)]
