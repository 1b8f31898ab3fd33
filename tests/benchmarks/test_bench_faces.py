"""Haar features and face detection versus scikit-image and OpenCV, timed in one process.

Run: .venv/bin/python -m pytest -q -s -o addopts="" -m benchmark tests/benchmarks/test_bench_faces.py
(OpenCV is a benchmark-only dependency: .venv/bin/pip install "opencv-python-headless<5").

Targets: all 162,336 features of the 24 x 24 window on the 200 lfw_subset patches >= 10 x
faster than skimage.feature.haar_like_feature; detection on astronaut() (grey, each library's
default call) on the numpy path (the application's, which ships without numba) within 2 x
OpenCV's Haar cascade and faster than skimage.feature.Cascade, the compiled window loop (numba)
giving the same boxes; training the classroom demo cascade (5 stages) in <= 2 minutes.
"""

import time

import numpy as np
import pytest
from _bench_table import record

from smlengine.cascade import Cascade, to_grey_float
from smlengine.datasets import load_cascade, load_face_patches, negative_photos
from smlengine.haar import SKIMAGE_TYPES, haar_feature_set, haar_features

from skimage import data as skdata
from skimage import feature as skfeature
from skimage import transform as sktransform


def _best(fn, repeats):
    best, out = np.inf, None
    for _ in range(repeats):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


@pytest.mark.benchmark
def test_bench_haar_features():
    patches = np.asarray(skdata.lfw_subset(), dtype=np.float64)[:, :24, :24]
    fs = haar_feature_set(24)
    t_us, X = _best(lambda: haar_features(patches, fs), 3)

    def reference():
        return np.stack([skfeature.haar_like_feature(sktransform.integral_image(p), 0, 0, 24, 24,
                                                     feature_type=list(SKIMAGE_TYPES.values())) for p in patches])

    t_sk, R = _best(reference, 1)
    # same multiset of values per patch (the two libraries enumerate features in different orders)
    np.testing.assert_allclose(np.sort(X, axis=1), np.sort(R, axis=1), atol=1e-9)
    print(f"\n{'Haar features, 200 x 162,336':32s} {'ours s':>8s} {'skimage s':>10s} {'speed-up':>9s}")
    print(f"{'':32s} {t_us:8.3f} {t_sk:10.3f} {t_sk / t_us:9.1f}")
    assert t_sk / t_us >= 10


@pytest.mark.benchmark
def test_bench_detection(monkeypatch):
    """Each side's default call on the same grey 8-bit photo: ``Cascade.detect(grey)`` (factor 1.25,
    windows from 24 pixels, stride 2 up to twice that size) against OpenCV's
    ``detectMultiScale(grey)`` (factor 1.1, same smallest window and stride rule), and beside it
    OpenCV with our settings (factor 1.25)."""
    cv2 = pytest.importorskip("cv2")
    import smlengine.cascade.scan as scan_module
    from smlengine.cascade import _compiled

    img = skdata.astronaut()
    grey8 = cv2.cvtColor(img, cv2.COLOR_RGB2GRAY)
    ours = load_cascade()
    compiled = _compiled.grid_kernel() is not None
    ours.detect(grey8)  # the compiled loop is compiled (or loaded from numba's cache) once, not timed
    cv = cv2.CascadeClassifier(cv2.data.haarcascades + "haarcascade_frontalface_default.xml")
    cv_calls = {
        "default": ("OpenCV detectMultiScale(grey) (Haar frontal, default: factor 1.1)",
                    lambda: cv.detectMultiScale(grey8)),
        "same settings": ("OpenCV detectMultiScale(grey, scaleFactor=1.25, minSize=(24, 24)) (Haar frontal)",
                          lambda: cv.detectMultiScale(grey8, scaleFactor=1.25, minNeighbors=3, minSize=(24, 24))),
    }
    paths = ("numpy", "compiled") if compiled else ("numpy",)
    times = {key: [] for key in (*paths, *cv_calls)}
    results, cv_boxes = {}, {}
    for _ in range(7):  # interleaved, so that a busy machine slows every contender alike
        for path in paths:
            monkeypatch.setattr(scan_module, "_USE_COMPILED", path == "compiled")
            t, results[path] = _best(lambda: ours.detect(grey8), 1)
            times[path].append(t)
        for key, (_name, call) in cv_calls.items():
            t, cv_boxes[key] = _best(call, 1)
            times[key].append(t)
    best = {key: min(ts) for key, ts in times.items()}
    sk = skfeature.Cascade(skdata.lbp_frontal_face_cascade_filename())
    t_sk, sk_boxes = _best(lambda: sk.detect_multi_scale(img=to_grey_float(img), scale_factor=1.25, step_ratio=1,
                                                         min_size=(24, 24), max_size=(512, 512)), 2)
    t_cv = best["default"]
    print(f"\n{'detection, astronaut 512 x 512':34s} {'time s':>8s} {'boxes':>6s} {'/ OpenCV':>9s} {'/ same':>7s}")
    for path in results:
        label = f"ours, {path} ({ours.n_stages_} stages)"
        print(f"{label:34s} {best[path]:8.3f} {len(results[path]):6d} {best[path] / t_cv:9.2f} "
              f"{best[path] / best['same settings']:7.2f}")
    print(f"{'OpenCV Haar, default call':34s} {t_cv:8.3f} {len(cv_boxes['default']):6d} {1.0:9.2f}")
    print(f"{'OpenCV Haar, factor 1.25':34s} {best['same settings']:8.3f} {len(cv_boxes['same settings']):6d} "
          f"{best['same settings'] / t_cv:9.2f}")
    print(f"{'scikit-image LBP cascade':34s} {t_sk:8.3f} {len(sk_boxes):6d} {t_sk / t_cv:9.2f}")
    print(f"threads: OpenCV {cv2.getNumThreads()}, ours {scan_module.THREADS} (across pyramid levels, either path)")
    for path in results:
        for key, (name, _call) in cv_calls.items():
            record("cascade.detect", f"astronaut 512x512, {path} path, detect(grey)", best[path], best[key], name,
                   note="" if key == "default" else "same factor, beside")
    if compiled:
        np.testing.assert_array_equal(results["compiled"], results["numpy"])
    # the application's path (numpy: it ships without numba) within 2 x a user's default OpenCV call
    assert best["numpy"] <= 2 * t_cv
    assert best["numpy"] < t_sk


@pytest.mark.benchmark
def test_bench_demo_training():
    faces = load_face_patches()
    photos = negative_photos("train")
    model = Cascade(max_stages=5, n_candidate_features=2000, negatives_per_stage=500, stage_detection_rate=0.998,
                    random_state=0)
    gaps = []
    t0 = last = time.perf_counter()
    for _snap in model.fit_steps(faces.train_faces, [faces.non_faces, *photos.values()]):
        now = time.perf_counter()
        gaps.append(now - last)
        last = now
    total = time.perf_counter() - t0
    gaps = np.array(gaps[1:]) * 1e3
    print(f"\ndemo cascade: {model.n_stages_} stages, {sum(len(s['features']) for s in model.stages_)} stumps, "
          f"{total:.1f} s, {gaps.size} snapshots, median gap {np.median(gaps):.1f} ms, "
          f"p99 {np.percentile(gaps, 99):.1f} ms, max {gaps.max():.1f} ms; "
          f"DR {model.detection_rate_:.3f}, FPR {model.false_positive_rate_:.2e}")
    assert model.n_stages_ == 5
    assert total <= 120
