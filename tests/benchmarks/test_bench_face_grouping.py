"""What the vote min_neighbors trades: faces found in photos against false boxes (a measurement).

Run: .venv/bin/python -m pytest -q -s -o addopts="" -m benchmark tests/benchmarks/test_bench_face_grouping.py

The 20 held-out LFW faces (never used in training) are pasted at 30, 45, 70 and 100 pixels into
random crops of the held-out photo ``coffee``; a face counts as found when a grouped detection
has IoU >= 0.5 with it. False boxes are counted on those crops and on the unseen face-free
photos. Printed per min_neighbors; the shipped default is 4.
"""

import numpy as np
import pytest

from smlengine.cascade import to_grey_float
from smlengine.datasets import load_cascade, load_face_patches
from smlengine.datasets._faces import HELD_OUT_PHOTO, UNSEEN_PHOTO_NAMES
from smlengine.detection import box_iou, group_rectangles

from skimage import data as skdata
from skimage import transform as sktransform

VOTES = range(0, 8)


@pytest.mark.benchmark
def test_bench_vote_trade_off():
    cascade = load_cascade()
    fp = load_face_patches()
    faces = np.asarray(skdata.lfw_subset(), dtype=np.float64)[:100][fp.test_index]
    background = to_grey_float(getattr(skdata, HELD_OUT_PHOTO)())
    rng = np.random.default_rng(0)
    found = {v: 0 for v in VOTES}
    false_in_crops = {v: 0 for v in VOTES}
    n = 0
    for face in faces:
        for side in (30, 45, 70, 100):
            size = max(3 * side, 120)
            r0, c0 = rng.integers(0, background.shape[0] - size), rng.integers(0, background.shape[1] - size)
            crop = background[r0:r0 + size, c0:c0 + size].copy()
            pr, pc = rng.integers(0, size - side, 2)
            crop[pr:pr + side, pc:pc + side] = sktransform.resize(face, (side, side), anti_aliasing=True)
            raw, _ = cascade.scan(crop)
            truth = [[pr, pc, side, side]]
            n += 1
            for v in VOTES:
                boxes = group_rectangles(raw, min_neighbors=v)
                iou = box_iou(boxes, truth)[:, 0] if boxes.shape[0] else np.zeros(0)
                found[v] += bool(np.any(iou >= 0.5))
                false_in_crops[v] += int(np.sum(iou < 0.5))
    photos = {name: getattr(skdata, name)() for name in UNSEEN_PHOTO_NAMES}
    raws = {name: cascade.scan(img)[0] for name, img in photos.items()}
    print(f"\nheld-out faces pasted into {HELD_OUT_PHOTO} crops ({n} crops) and unseen face-free photos")
    print(f"{'min_neighbors':>13s} {'faces found':>12s} {'false (crops)':>14s}  false boxes per unseen photo")
    for v in VOTES:
        per_photo = ", ".join(f"{name} {group_rectangles(raws[name], min_neighbors=v).shape[0]}" for name in raws)
        print(f"{v:13d} {found[v] / n:12.3f} {false_in_crops[v]:14d}  {per_photo}")
    assert found[0] >= found[max(VOTES)]
