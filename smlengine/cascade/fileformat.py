"""The cascade file: a ``.npz`` archive written by :meth:`Cascade.save` and read by :meth:`Cascade.load`.

Arrays: ``format`` (str ``smllab-haar-cascade``), ``version`` (int), ``window`` (int),
``type_names`` (str array), per stump ``kind`` (int8), ``rects`` (int16, (T, 4, 4) row, col,
height, width of each block), ``weights`` ((T, 4) +1 grey / -1 white / 0 padding), ``theta``,
``polarity`` (int8), ``alpha``; per stage ``stage_size`` (stumps, int), ``stage_threshold``,
``stage_detection_rate``, ``stage_false_positive_rate``, ``stage_negatives``,
``stage_windows_scanned``; and ``params`` (JSON of the hyper-parameters). Reading checks every
array's type, shape and range, so a damaged or foreign file raises ValueError, never more.
"""

from __future__ import annotations

import json

import numpy as np

from .._base import frozen_array
from ..haar import FEATURE_TYPES, HaarFeatureSet, corner_reads

__all__ = ["FORMAT_NAME", "FORMAT_VERSION", "save_cascade", "load_cascade_file"]

FORMAT_NAME = "smllab-haar-cascade"
FORMAT_VERSION = 1


def save_cascade(model, path):
    """Write a fitted cascade to ``path`` (a file name or a binary file object); see the module docstring."""
    model._check_ready()
    if not model.stages_:
        raise ValueError("this Cascade has no stage to save")
    type_names = list(FEATURE_TYPES)
    kinds = []
    for s in model.stages_:
        fs = s["features"]
        kinds.append(np.array([type_names.index(fs.type_names[k]) for k in fs.kind], dtype=np.int8))
    cat = lambda key: np.concatenate([np.asarray(s[key]) for s in model.stages_])  # noqa: E731
    params = {k: (list(v) if isinstance(v, tuple) else v) for k, v in model.get_params().items()
              if k != "random_state" or v is None or isinstance(v, int)}
    if hasattr(path, "write"):
        _write(model, path, type_names, kinds, cat, params)
    else:
        with open(path, "wb") as fh:
            _write(model, fh, type_names, kinds, cat, params)


def _write(model, fh, type_names, kinds, cat, params):
    np.savez_compressed(
        fh,
        format=np.array(FORMAT_NAME),
        version=np.array(FORMAT_VERSION),
        window=np.array(model.window),
        type_names=np.array(type_names),
        kind=np.concatenate(kinds),
        rects=np.concatenate([s["features"].rects for s in model.stages_]).astype(np.int16),
        weights=np.concatenate([s["features"].weights for s in model.stages_]),
        theta=cat("theta"),
        polarity=cat("polarity").astype(np.int8),
        alpha=cat("alpha"),
        stage_size=np.array([len(s["features"]) for s in model.stages_], dtype=np.int64),
        stage_threshold=np.array([s["threshold"] for s in model.stages_]),
        stage_detection_rate=model.stage_detection_rate_,
        stage_false_positive_rate=model.stage_false_positive_rate_,
        stage_negatives=np.array([s["n_negatives"] for s in model.stages_], dtype=np.int64),
        stage_windows_scanned=np.array([s["windows_scanned"] for s in model.stages_], dtype=np.int64),
        params=np.array(json.dumps(params)),
    )


def load_cascade_file(cls, path):
    """A ``cls`` (Cascade) read from ``path`` (a file name or a binary file object); a corrupt or
    foreign file raises ValueError."""
    if hasattr(path, "read"):
        data = _read_npz(path)
    else:
        with open(path, "rb") as fh:  # our own handle: np.load leaks it when the zip is bad
            data = _read_npz(fh)
    return _from_arrays(cls, data)


def _read_npz(fh):
    try:
        with np.load(fh, allow_pickle=False) as z:
            data = {k: z[k] for k in z.files}
    except Exception as exc:  # zip, zlib, header and allocation errors of a damaged file
        raise ValueError(f"not a cascade file (cannot read it as .npz: {type(exc).__name__})") from None
    return data


def _from_arrays(cls, d):
    def get(key, kind, ndim):
        if key not in d:
            raise ValueError(f"not a cascade file: '{key}' is missing")
        a = d[key]
        if a.dtype.kind not in kind or a.ndim != ndim:
            raise ValueError(f"corrupt cascade file: '{key}' has the wrong type or shape")
        if a.dtype.kind == "f" and not np.all(np.isfinite(a)):
            raise ValueError(f"corrupt cascade file: '{key}' contains NaN or infinite values")
        return a

    fmt = get("format", "U", 0)
    if str(fmt) != FORMAT_NAME:
        raise ValueError(f"not a cascade file (format is {str(fmt)[:40]!r}, expected {FORMAT_NAME!r})")
    version = int(get("version", "iu", 0))
    if version != FORMAT_VERSION:
        raise ValueError(f"cascade file version {version} is not supported (this program reads {FORMAT_VERSION})")
    W = int(get("window", "iu", 0))
    if not 4 <= W <= 64:
        raise ValueError(f"corrupt cascade file: window {W} outside 4..64")
    type_names = [str(t) for t in get("type_names", "U", 1)]
    if not type_names or any(t not in FEATURE_TYPES for t in type_names) or len(type_names) > 5:
        raise ValueError("corrupt cascade file: unknown Haar pattern names")
    kind = get("kind", "iu", 1).astype(np.int64)
    T = kind.shape[0]
    rects = get("rects", "iu", 3).astype(np.int64)
    weights = get("weights", "f", 2).astype(np.float64)
    theta = get("theta", "f", 1).astype(np.float64)
    polarity = get("polarity", "i", 1).astype(np.int64)
    alpha = get("alpha", "f", 1).astype(np.float64)
    sizes = get("stage_size", "iu", 1).astype(np.int64)
    J = sizes.shape[0]
    thr = get("stage_threshold", "f", 1)
    dr = get("stage_detection_rate", "f", 1)
    fpr = get("stage_false_positive_rate", "f", 1)
    nneg = get("stage_negatives", "iu", 1)
    nscan = get("stage_windows_scanned", "iu", 1)
    if T == 0 or J == 0:
        raise ValueError("corrupt cascade file: it has no stage")
    if (rects.shape != (T, 4, 4) or weights.shape != (T, 4) or theta.shape != (T,) or polarity.shape != (T,)
            or alpha.shape != (T,)):
        raise ValueError("corrupt cascade file: the stump arrays do not have matching shapes")
    if any(a.shape != (J,) for a in (thr, dr, fpr, nneg, nscan)):
        raise ValueError("corrupt cascade file: the stage arrays do not have matching shapes")
    if np.any(sizes < 1) or int(sizes.sum()) != T:
        raise ValueError("corrupt cascade file: stage sizes do not add up to the number of stumps")
    if np.any(kind < 0) or np.any(kind >= len(type_names)):
        raise ValueError("corrupt cascade file: a stump has an unknown pattern")
    if np.any((polarity != 1) & (polarity != -1)):
        raise ValueError("corrupt cascade file: polarities must be +1 or -1")
    if np.any(alpha < 0) or np.any(alpha > 100):
        raise ValueError("corrupt cascade file: stump weights alpha outside [0, 100]")
    used = weights != 0
    if not np.all(np.isin(weights, (-1.0, 0.0, 1.0))) or np.any(used.sum(axis=1) < 2):
        raise ValueError("corrupt cascade file: block weights must be +1, -1 or 0 with at least two blocks")
    r, c, h, w = (rects[..., i] for i in range(4))
    bad = used & ((r < 0) | (c < 0) | (h < 1) | (w < 1) | (r + h > W) | (c + w > W))
    if np.any(bad):
        raise ValueError("corrupt cascade file: a Haar block lies outside the window")
    if np.any((dr < 0) | (dr > 1) | (fpr < 0) | (fpr > 1)):
        raise ValueError("corrupt cascade file: stage rates outside [0, 1]")
    params = {}
    if "params" in d:
        try:
            params = json.loads(str(d["params"]))
            if not isinstance(params, dict):
                params = {}
        except (ValueError, TypeError):
            params = {}
    model = cls(window=W)
    for key in ("stage_detection_rate", "stage_false_positive_rate", "target_false_positive_rate",
                "max_stages", "max_features_per_stage", "negatives_per_stage", "feature_min_size",
                "feature_step", "n_candidate_features", "random_state"):
        value = params.get(key, getattr(model, key))
        if value is None or (isinstance(value, (int, float)) and not isinstance(value, bool)):
            setattr(model, key, value)
    ft = params.get("feature_types")
    if isinstance(ft, list) and ft and all(isinstance(t, str) and t in FEATURE_TYPES for t in ft):
        model.feature_types = tuple(ft)
    crow, ccol, ccoef = corner_reads(rects.astype(np.int16), np.where(used, weights, 0.0))
    area = (np.where(used, weights, 0.0) * h * w).sum(axis=1)
    names = tuple(type_names)
    full = HaarFeatureSet(
        window=W, type_names=names, kind=frozen_array(kind.astype(np.int8)),
        rects=frozen_array(np.where(used[..., None], rects, 0).astype(np.int16)),
        weights=frozen_array(np.where(used, weights, 0.0)), corner_rows=frozen_array(crow),
        corner_cols=frozen_array(ccol), corner_coef=frozen_array(ccoef),
        signed_area=frozen_array(area.astype(np.float64)), groups=None)
    model.stages_, model._stage_objs = [], []
    start = 0
    for j in range(J):
        idx = np.arange(start, start + int(sizes[j]))
        start += int(sizes[j])
        model._append_stage(full.subset(idx), theta[idx], polarity[idx], alpha[idx], float(thr[j]),
                            float(dr[j]), float(fpr[j]), int(nneg[j]), int(nscan[j]))
    model.stop_reason_ = "loaded from file"
    return model

