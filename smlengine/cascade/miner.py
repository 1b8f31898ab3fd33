"""Hard-negative mining: the non-face windows the cascade trained so far wrongly accepts.

Stage j of a cascade trains on the windows of face-free material that stages 1..j-1 accept
(Viola and Jones, section 5.1): :class:`NegativeMiner` scans face-free photos at every
position and scale (as they are, mirrored, transposed or both) and stacks of ready-made
non-face patches, and keeps the accepted windows.
"""

from __future__ import annotations

import numpy as np

from ..haar import integral_image
from .scan import SIGMA_FLOOR, area_resize, level_scales, to_grey_float

__all__ = ["NegativeMiner", "patch_stats", "cut_patches"]


def patch_stats(patches):
    """Mean and standard deviation of each patch (the same floor as for image windows).

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.cascade.miner import patch_stats
    >>> ramp = np.arange(9.0).reshape(3, 3)
    >>> mean, std = patch_stats(np.stack([ramp, 2 * ramp]))
    >>> print(np.round(mean, 3), np.round(std, 3))
    [4. 8.] [2.582 5.164]
    """
    n = patches[0].size
    flat = patches.reshape(patches.shape[0], -1)
    mean = flat.sum(axis=1) / n
    var = (flat * flat).sum(axis=1) / n - mean * mean
    return mean, np.sqrt(np.maximum(var, SIGMA_FLOOR**2))


def cut_patches(image, rows, cols, W):
    """The W x W patches of ``image`` whose top-left corners are (rows, cols).

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.cascade.miner import cut_patches
    >>> p = cut_patches(np.arange(100.0).reshape(10, 10), np.array([0, 2]), np.array([0, 5]), 3)
    >>> p.shape
    (2, 3, 3)
    >>> print(p[1])
    [[25. 26. 27.]
     [35. 36. 37.]
     [45. 46. 47.]]
    """
    r = rows[:, None, None] + np.arange(W)[None, :, None]
    c = cols[:, None, None] + np.arange(W)[None, None, :]
    return image[r, c]


class NegativeMiner:
    """Finds the non-face windows that the current cascade wrongly accepts.

    Photos are cut into small chunks (a band of a few window rows of one pyramid level,
    taken as is, mirrored, transposed or both, so every photo gives four times its windows);
    each stage visits the chunks in a fresh random order and keeps at most a few accepted
    windows per chunk, so the negatives of a stage come from many photos and scales.
    Stacks of ready-made patches are chunks whose every accepted patch is kept.

    Parameters
    ----------
    source : array or sequence of arrays
        Face-free photos (2-D grey or colour) and/or stacks (m, W, W) of non-face patches.
    window : int
        W, the side of the detection window.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.cascade.miner import NegativeMiner
    >>> NegativeMiner([np.zeros((40, 40)), np.ones((10, 8, 8))], 8).describe()
    '1 face-free photo(s) and 10 non-face patches (9,494 windows)'
    """

    _CHUNK_WINDOWS = 2048

    def __init__(self, source, window):
        W = window
        self.window = W
        items = []
        if isinstance(source, np.ndarray):
            items = [source]
        elif isinstance(source, (list, tuple)):
            items = list(source)
        else:
            raise TypeError("negative_source must be an array or a list of arrays (photos or patch stacks)")
        if not items:
            raise ValueError("negative_source is empty: give face-free photos or non-face patches")
        self.pools, self.levels, self.photos = [], [], []
        self.chunks = []  # ('pool', pool, start, stop, 0) or ('photo', level, row0, nrows, variant)
        for i, item in enumerate(items):
            a = np.asarray(item)
            if a.ndim == 3 and a.shape[1:] == (W, W):
                pool = a.astype(np.float64) / (np.iinfo(a.dtype).max if a.dtype.kind in "ui" else 1.0)
                if a.dtype.kind not in "uifb" or not np.all(np.isfinite(pool)):
                    raise ValueError(f"negative_source item {i} must be finite numbers")
                k = len(self.pools)
                self.pools.append(pool)
                for s in range(0, pool.shape[0], self._CHUNK_WINDOWS):
                    self.chunks.append(("pool", k, s, min(pool.shape[0], s + self._CHUNK_WINDOWS), 0))
                continue
            grey = to_grey_float(a, name=f"negative_source item {i}")
            if min(grey.shape) < W:
                raise ValueError(f"negative_source photo {i} is smaller than the {W} x {W} window")
            self.photos.append(grey)
        self.n_photos = len(self.photos)
        self.n_pool = sum(p.shape[0] for p in self.pools)
        self.total_windows = self.n_pool
        for grey in self.photos:
            h, w = grey.shape
            for s in level_scales(grey.shape, W, 1.25):
                self.total_windows += 4 * (int(round(h / s)) - W + 1) * (int(round(w / s)) - W + 1)

    def prepare(self):
        """Generator: build every photo's pyramid (one level per yield); yields the fraction done."""
        W = self.window
        todo = [(grey, s) for grey in self.photos for s in level_scales(grey.shape, W, 1.25)]
        for done, (grey, s) in enumerate(todo):
            h, w = grey.shape
            lv = area_resize(integral_image(grey), int(round(h / s)), int(round(w / s)))
            k = len(self.levels)
            self.levels.append(lv.astype(np.float32))
            for v in range(4):
                view = self._view(k, v)
                n_cols = view.shape[1] - W + 1
                rows = max(1, self._CHUNK_WINDOWS // n_cols)
                for r0 in range(0, view.shape[0] - W + 1, rows):
                    self.chunks.append(("photo", k, r0, min(rows, view.shape[0] - W + 1 - r0), v))
            yield (done + 1) / len(todo)
        self.photos = []

    def _view(self, k, variant):
        """Level k as is, mirrored, transposed, or transposed and mirrored (4 x the windows)."""
        lv = self.levels[k]
        if variant >= 2:
            lv = lv.T
        return lv[:, ::-1] if variant % 2 else lv

    def describe(self):
        """One sentence naming the material and how many windows it holds."""
        parts = []
        if self.n_photos:
            parts.append(f"{self.n_photos} face-free photo(s)")
        if self.n_pool:
            parts.append(f"{self.n_pool} non-face patches")
        return " and ".join(parts) + f" ({self.total_windows:,} windows)"

    def mine(self, cascade, quota, rng):
        """Generator: progress tuples (found, scanned, fraction), then (patches, scanned, accepted)."""
        W = self.window
        found, kept, reserve = 0, [], []
        scanned = accepted = 0
        cap = max(1, int(np.ceil(quota / 50)))
        since = 0
        order = rng.permutation(len(self.chunks))
        for ci in order:
            kind, k, a, b, v = self.chunks[ci]
            if kind == "pool":
                patches = self.pools[k][a:b]
                ok = cascade._eval_patches(patches)[0] >= cascade.n_stages_ if cascade.n_stages_ else \
                    np.ones(b - a, dtype=bool)
                sel = np.flatnonzero(ok)
                scanned += b - a
                accepted += sel.size
                since += b - a
                if sel.size:
                    kept.append(patches[sel])
                    found += sel.size
            else:
                lv = self._view(k, v)
                nrows = b
                band = lv[a : a + nrows + W - 1].astype(np.float64)
                ii, ii2 = integral_image(band), integral_image(band * band)
                stride = ii.shape[1]
                n_cols = lv.shape[1] - W + 1
                bases = (np.arange(nrows)[:, None] * stride + np.arange(n_cols)[None, :]).ravel()
                m = bases.size
                scanned += m
                since += m
                if cascade.n_stages_:
                    passed = cascade._eval_windows(ii.ravel(), ii2.ravel(), bases, stride)[0]
                    sel = np.flatnonzero(passed >= cascade.n_stages_)
                else:
                    sel = np.arange(m)
                accepted += sel.size
                if sel.size:
                    if sel.size > cap:
                        mask = np.zeros(sel.size, dtype=bool)
                        mask[rng.choice(sel.size, size=cap, replace=False)] = True
                        rest = sel[~mask]
                        reserve.append((k, v, a + rest // n_cols, rest % n_cols))
                        sel = sel[mask]
                    kept.append(cut_patches(band, sel // n_cols, sel % n_cols, W))
                    found += sel.size
            if found >= quota:
                break
            if since >= 60_000:
                since = 0
                yield (min(found, quota), scanned, min(1.0, found / quota))
        if found < quota and reserve:  # a small source: fill up with the windows skipped above
            lv_id = np.concatenate([np.full(r.size, 4 * k + v) for k, v, r, _ in reserve])
            rows = np.concatenate([r for _, _, r, _ in reserve])
            cols = np.concatenate([c for _, _, _, c in reserve])
            pick = np.sort(rng.choice(rows.size, size=min(rows.size, quota - found), replace=False))
            for kv in np.unique(lv_id[pick]):
                p = pick[lv_id[pick] == kv]
                kept.append(cut_patches(self._view(kv // 4, kv % 4).astype(np.float64), rows[p], cols[p], W))
            found += pick.size
        negs = np.concatenate(kept) if kept else np.zeros((0, W, W))
        if negs.shape[0] > quota:
            negs = negs[np.sort(rng.choice(negs.shape[0], size=quota, replace=False))]
        yield (min(found, quota), scanned, 1.0)
        yield [negs, scanned, accepted]
