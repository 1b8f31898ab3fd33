"""The face-detection lab's side tasks (Qt-free): scikit-image's LBP cascade on the same photo
(drawn dashed beside the cascade's faces), the gallery of the training material with the hard
negatives the cascade nearly accepts, and the report on a clicked window. The lab runs the first
two with ``self.task(...)`` on a worker thread; they read the photos, the training data and the
shipped cascade through the run's caches (:mod:`.run`).
"""

from __future__ import annotations

import numpy as np

from smlengine.cache import LRUCache
from smlengine.cascade import resize_patch
from smlengine.datasets import HELD_OUT_PHOTO, negative_photo
from smlengine.haar import integral_image

from .run import WINDOW, load_source, shipped_cascade, training_data

_MODELS = LRUCache(1)  # scikit-image's LBP cascade, loaded once


def clear_caches() -> None:
    """Drop the LBP cascade kept for the next comparison (the lab calls it when it shuts down)."""
    _MODELS.clear()


def lbp_reference(grey: np.ndarray, scale_factor: float, min_neighbors: int):
    """scikit-image's LBP frontal-face cascade (OpenCV's model) on the same photo: (k, 4) boxes."""
    import skimage.data  # deferred: scikit-image's cascade module loads only for this side task
    from skimage.feature import Cascade as LBPCascade

    try:
        model = _MODELS.get_or_compute("lbp", lambda: LBPCascade(skimage.data.lbp_frontal_face_cascade_filename()))
    except Exception as exc:  # noqa: BLE001 - a missing/odd model file is reported, not raised
        raise ValueError(f"scikit-image's LBP face cascade could not be loaded ({type(exc).__name__})") from None
    h, w = grey.shape
    found = model.detect_multi_scale(img=np.asarray(grey, dtype=np.float64), scale_factor=float(scale_factor),
                                     step_ratio=1, min_size=(WINDOW, WINDOW), max_size=(h, w),
                                     min_neighbor_number=max(1, int(min_neighbors)))
    return np.array([[d["r"], d["c"], d["height"], d["width"]] for d in found], dtype=float).reshape(-1, 4)


def lbp_boxes(source: tuple, scale_factor: float, min_neighbors: int):
    """The LBP comparison's side task: read the photo of ``source`` and find its faces (:func:`lbp_reference`)."""
    return lbp_reference(load_source(source).grey, scale_factor, min_neighbors)


def gallery_data(cascade=None, n_hard: int = 60, state=None) -> dict:
    """Faces, non-faces and the hard negatives: windows of the held-out face-free photo (and two
    training photos) that pass the most stages of the cascade, cut out at 24 x 24."""
    fp, _ = training_data()
    if state is not None:
        state.set_progress(0.3, "faces loaded")
    cascade = cascade if cascade is not None else shipped_cascade()
    cands = []
    for k, name in enumerate((HELD_OUT_PHOTO, "chelsea", "rocket")):
        if state is not None and state.cancelled:
            break
        photo = negative_photo(name)
        boxes, passed = cascade.scan(photo, keep_all=True)
        top = np.argsort(-passed, kind="stable")[: n_hard]
        for i in top:
            r, c, hh, ww = boxes[i]
            r0, c0 = int(round(r)), int(round(c))
            patch = photo[r0:r0 + int(round(hh)), c0:c0 + int(round(ww))]
            if min(patch.shape) >= 4:
                cands.append((int(passed[i]), k, resize_patch(patch, WINDOW)))
        if state is not None:
            state.set_progress(0.3 + 0.7 * (k + 1) / 3, f"mined {name}")
    cands.sort(key=lambda t: (-t[0], t[1]))
    hard = np.array([c[2] for c in cands[:n_hard]]) if cands else np.zeros((0, WINDOW, WINDOW))
    stages = np.array([c[0] for c in cands[:n_hard]], dtype=int)
    n_plain = fp.train_index.size
    return {"faces": np.asarray(fp.train_faces[:n_plain]), "non_faces": np.asarray(fp.non_faces),
            "hard": hard, "hard_stages": stages, "n_stages": cascade.n_stages_}


# ----------------------------------------------------------------------------- a clicked window


def window_report(cascade, grey: np.ndarray, top: float, left: float, side_h: float, side_w: float) -> dict:
    """Everything the maths panel says about one window: its 24 x 24 patch, integral-image corner
    reads of the first stage's stumps, every stump's vote in stage 1, and each stage's sum
    against its threshold (until the first rejecting stage), as :meth:`Cascade.explain` scores it."""
    h, w = grey.shape
    r0, c0 = int(max(0, round(top))), int(max(0, round(left)))
    r1, c1 = int(min(h, round(top + side_h))), int(min(w, round(left + side_w)))
    if r1 - r0 < 4 or c1 - c0 < 4:
        raise ValueError("the window lies outside the image")
    patch = resize_patch(grey[r0:r1, c0:c1], cascade.window)
    rep = cascade.explain(patch)
    stages = [(s["stage"], s["score"], s["threshold"], s["accepted"]) for s in rep["stages"]]
    first = []
    if rep["stages"]:
        ii = integral_image(patch)
        s0, fs = rep["stages"][0], cascade.stages_[0]["features"]
        for t in range(min(len(fs), 8)):
            blocks = []
            for (r, c, bh, bw), wt in zip(fs.rects[t], fs.weights[t]):
                if wt == 0:
                    continue
                corners = (ii[r + bh, c + bw], ii[r, c + bw], ii[r + bh, c], ii[r, c])
                blocks.append((int(r), int(c), int(bh), int(bw), float(wt), tuple(float(v) for v in corners)))
            first.append({"blocks": blocks, "x": float(s0["x"][t]), "x_norm": float(s0["x_norm"][t]),
                          "theta": float(s0["theta"][t]), "polarity": int(s0["polarity"][t]),
                          "alpha": float(s0["alpha"][t]), "vote": int(s0["votes"][t])})
    return {"box": (r0, c0, r1 - r0, c1 - c0), "mean": rep["mean"], "sigma": rep["sigma"], "stages": stages,
            "first": first, "n_stages": cascade.n_stages_, "patch": patch}
