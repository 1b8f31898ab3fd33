"""Train the shipped face cascade ``resources/data/face-cascade.npz`` with our own code.

Run from the repository root:

    .venv/bin/python resources/data/scripts/train_face_cascade.py            # shipped cascade
    .venv/bin/python resources/data/scripts/train_face_cascade.py --demo     # ~5-stage classroom demo

Data (all offline, bundled with scikit-image): the augmented training faces of
``smlengine.datasets.load_face_patches()`` (80 LFW faces x 22 = 1760 patches; the 20 test
faces are never used), negatives from the 100 LFW non-face patches and windows mined from
the face-free photos of ``negative_photos('train')`` (``coffee`` is held out). The run is
deterministic under its seed; it prints one line per stage and the total time.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from smlengine.cascade import Cascade  # noqa: E402
from smlengine.datasets._faces import load_face_patches, negative_photos  # noqa: E402

PARAMS = dict(
    window=24,
    stage_detection_rate=0.999,
    stage_false_positive_rate=0.5,
    target_false_positive_rate=1e-6,
    max_stages=20,
    max_features_per_stage=200,
    negatives_per_stage=1000,
    feature_min_size=1,
    feature_step=1,
    n_candidate_features=4000,
    random_state=0,
)
DATA = dict(window=24, test_fraction=0.2, n_augment=20, random_state=0)
DEMO = dict(PARAMS, max_stages=5, n_candidate_features=2000, negatives_per_stage=500)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--demo", action="store_true", help="train the ~5-stage classroom demo instead")
    parser.add_argument("--out", default=None, help="output file (default: the shipped cascade; none for --demo)")
    args = parser.parse_args(argv)
    params = DEMO if args.demo else PARAMS
    t0 = time.perf_counter()
    faces = load_face_patches(**DATA)
    photos = negative_photos("train")
    t1 = time.perf_counter()
    cascade = Cascade(**params)
    for snap in cascade.fit_steps(faces.train_faces, [faces.non_faces, *photos.values()]):
        if snap.event in ("start", "stage", "done", "stopped"):
            print(f"{time.perf_counter() - t1:7.1f} s  {snap.message}", flush=True)
    t2 = time.perf_counter()
    print(f"data {t1 - t0:.1f} s, training {t2 - t1:.1f} s; {cascade.n_stages_} stages, "
          f"{sum(len(s['features']) for s in cascade.stages_)} stumps")
    print("parameters:", json.dumps(params))
    out = args.out or (None if args.demo else str(ROOT / "resources" / "data" / "face-cascade.npz"))
    if out:
        cascade.save(out)
        print("saved", out)


if __name__ == "__main__":
    main()
