"""Viola-Jones cascade: stumps on known features, rate products, mining, detection, persistence."""

import io

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from smlengine.cascade import Cascade, CascadeSnapshot, group_boxes, to_grey_float
from smlengine.detection import box_iou, group_rectangles
from smlengine.haar import haar_feature_set, haar_features

W = 8


def _known_feature_data(seed=0, n=150):
    """Noise patches; faces have block B (rows 2-4, cols 4-6) brighter than block A (cols 1-3)."""
    rng = np.random.default_rng(seed)

    def make(sign):
        x = rng.random((n, W, W))
        diff = x[:, 2:5, 4:7].sum(axis=(1, 2)) - x[:, 2:5, 1:4].sum(axis=(1, 2))
        want = sign * rng.uniform(1.0, 3.0, n)
        x[:, 2:5, 4:7] += ((want - diff) / 9.0)[:, None, None]
        return x

    return make(+1), make(-1)


def _normalised_features(patches, fs):
    raw = haar_features(patches, fs)
    flat = patches.reshape(len(patches), -1)
    mean = flat.mean(axis=1)
    sd = np.sqrt(np.maximum((flat**2).mean(axis=1) - mean**2, 1e-6))
    return (raw - mean[:, None] * fs.signed_area) / sd[:, None]


def _small_cascade(**kw):
    params = dict(window=W, n_candidate_features=None, negatives_per_stage=400, random_state=0)
    params.update(kw)
    return Cascade(**params)


def test_first_stump_is_the_known_feature():
    faces, non = _known_feature_data()
    snaps = list(_small_cascade(max_stages=1).fit_steps(faces, non))
    first = next(s for s in snaps if s.event == "feature")
    assert first.feature_type == "2h"
    np.testing.assert_array_equal(first.feature_rects[:2], [[2, 1, 3, 3], [2, 4, 3, 3]])
    np.testing.assert_array_equal(first.feature_weights, [-1, 1, 0, 0])  # grey right block
    assert first.feature_polarity == 1 and first.weighted_error == 0.0
    stage = next(s for s in snaps if s.event == "stage")
    assert stage.stage_n_features == 1 and stage.stage_false_positive_rate == 0.0
    assert stage.stage_detection_rate == 1.0


def test_vectorised_stump_search_equals_brute_force():
    rng = np.random.default_rng(5)
    faces = rng.random((40, 6, 6))
    faces[:, :3] += 0.3 * rng.random((40, 1, 1))
    non = rng.random((30, 6, 6))
    fs = haar_feature_set(6)
    X = _normalised_features(np.concatenate([faces, non]), fs)
    y = np.r_[np.ones(40), -np.ones(30)]
    w = np.where(y > 0, 0.5 / 40, 0.5 / 30)
    best = np.inf
    for f in range(X.shape[1]):
        v = np.unique(X[:, f])
        for t in (v[1:] + v[:-1]) / 2:
            pred = np.where(X[:, f] > t, 1.0, -1.0)
            e = w[pred != y].sum()
            best = min(best, e, 1 - e)
    snap = next(s for s in Cascade(window=6, n_candidate_features=None, max_stages=1, random_state=0)
                .fit_steps(faces, non) if s.event == "feature")
    assert snap.weighted_error == pytest.approx(best, abs=1e-6)


def test_stages_meet_their_targets_and_rates_are_products():
    rng = np.random.default_rng(1)
    faces, _ = _known_feature_data(seed=1, n=200)
    non = rng.random((300, W, W))
    model = _small_cascade(max_stages=4, stage_detection_rate=0.99, stage_false_positive_rate=0.4,
                           max_features_per_stage=30).fit(faces, non)
    assert model.n_stages_ >= 2
    assert np.all(model.stage_detection_rate_ >= 0.99)
    # measured on the training data: the pool is small enough that each stage sees all of it
    passed_faces = model.stages_passed(faces)
    passed_non = model.stages_passed(non)
    assert np.mean(passed_faces == model.n_stages_) == pytest.approx(np.prod(model.stage_detection_rate_))
    assert np.mean(passed_non == model.n_stages_) == pytest.approx(np.prod(model.stage_false_positive_rate_))
    for j in range(model.n_stages_):  # stage j's conditional rate on the patches that reached it
        reached = passed_non >= j
        assert np.mean(passed_non[reached] > j) == pytest.approx(model.stage_false_positive_rate_[j])
    assert model.detection_rate_ == pytest.approx(np.prod(model.stage_detection_rate_))


def test_last_snapshot_matches_fit_and_steps_are_numbered():
    faces, non = _known_feature_data(seed=2, n=80)
    model = _small_cascade(max_stages=3)
    snaps = list(model.fit_steps(faces, non))
    assert [s.step for s in snaps] == list(range(len(snaps)))
    assert all(isinstance(s, CascadeSnapshot) for s in snaps)
    assert all(s.progress is None or 0.0 <= s.progress <= 1.0 for s in snaps)
    last = snaps[-1]
    assert last.done and last.event in ("done", "stopped")
    fitted = _small_cascade(max_stages=3).fit(faces, non)
    assert fitted.last_snapshot_.step == last.step
    assert fitted.n_stages_ == last.n_stages == model.n_stages_
    assert fitted.false_positive_rate_ == pytest.approx(last.false_positive_rate)
    np.testing.assert_array_equal(fitted.decision_function(faces), model.decision_function(faces))


def test_snapshot_arrays_are_read_only():
    faces, non = _known_feature_data(seed=3, n=60)
    snap = next(s for s in _small_cascade(max_stages=1).fit_steps(faces, non) if s.event == "feature")
    with pytest.raises(ValueError):
        snap.feature_rects[0, 0] = 5


def test_mining_from_photos_and_stop_when_they_run_out():
    rng = np.random.default_rng(4)
    faces, _ = _known_feature_data(seed=4, n=120)
    photo = rng.random((20, 30))  # 13 * 23 = 299 windows at scale 1, fewer above
    model = _small_cascade(max_stages=10, negatives_per_stage=300, target_false_positive_rate=1e-9)
    snaps = list(model.fit_steps(faces, [photo]))
    mining = [s for s in snaps if s.phase == "mining"]
    assert mining and mining[-1].windows_scanned > 0
    last = snaps[-1]
    assert last.event == "stopped" and "ran out" in last.message
    assert model.n_stages_ < 10
    stage_snaps = [s for s in snaps if s.event == "stage"]
    assert stage_snaps[0].windows_scanned >= stage_snaps[0].negatives_mined > 0


def test_predict_decision_and_stages_passed_are_consistent():
    faces, non = _known_feature_data(seed=6, n=100)
    model = _small_cascade(max_stages=3).fit(faces, non)
    both = np.concatenate([faces, non])
    d = model.decision_function(both)
    p = model.predict(both)
    k = model.stages_passed(both)
    np.testing.assert_array_equal(p == 1, d >= 0)
    np.testing.assert_array_equal(p == 1, k == model.n_stages_)
    assert np.all((d >= k - model.n_stages_ - 1) & (d <= k - model.n_stages_ + 1))


def test_window_path_equals_patch_path():
    """stage_map (integral image of a whole photo) agrees with stages_passed on cut-out patches."""
    faces, non = _known_feature_data(seed=7, n=100)
    model = _small_cascade(max_stages=3).fit(faces, non)
    rng = np.random.default_rng(7)
    img = rng.random((20, 26))
    img[5:8, 9:12] += 1.0
    smap = model.stage_map(img, scale=1.0, step=1)
    assert smap.shape == (13, 19)
    patches = np.stack([img[r : r + W, c : c + W] for r in range(13) for c in range(19)])
    np.testing.assert_array_equal(smap.ravel(), model.stages_passed(patches))
    boxes, passed = model.scan(img, step=1, keep_all=True, max_size=W)
    np.testing.assert_array_equal(passed, smap.ravel())
    np.testing.assert_array_equal(boxes[:3, :2], [[0, 0], [0, 1], [0, 2]])


def test_group_boxes_merges_neighbours():
    boxes = np.array([[10, 10, 20, 20], [11, 10, 20, 20], [10, 12, 21, 21], [100, 100, 20, 20.0]])
    out = group_boxes(boxes, min_neighbors=2)
    assert out.shape == (1, 5)
    np.testing.assert_allclose(out[0], [31 / 3, 32 / 3, 61 / 3, 61 / 3, 3])
    assert group_boxes(boxes, min_neighbors=0).shape == (2, 5)
    assert group_boxes(np.zeros((0, 4))).shape == (0, 5)


def test_bands_stack_into_the_levels():
    """scan_bands visits the same windows as scan_levels, band by band, with the same results."""
    faces, non = _known_feature_data(seed=7, n=100)
    model = _small_cascade(max_stages=3).fit(faces, non)
    img = np.random.default_rng(8).random((40, 53))
    levels = list(model.scan_levels(img, scale_factor=1.3))
    for largest_first in (False, True):
        bands = list(model.scan_bands(img, scale_factor=1.3, max_windows=70, largest_first=largest_first))
        order = [b["level"] for b in bands]
        assert order == sorted(order, reverse=largest_first)
        for k, lv in enumerate(levels):
            mine = [b for b in bands if b["level"] == k]
            assert [b["row0"] for b in mine] == list(np.cumsum([0] + [b["passed"].shape[0] for b in mine[:-1]]))
            assert all(b["passed"].size <= max(70, lv["passed"].shape[1]) for b in mine)
            assert all(b["n_rows"] == lv["passed"].shape[0] and b["n_levels"] == len(levels) for b in mine)
            np.testing.assert_array_equal(np.concatenate([b["passed"] for b in mine]), lv["passed"])
            np.testing.assert_allclose(np.concatenate([b["last"] for b in mine]), lv["last"], atol=1e-12)
            assert mine[0]["window"] == lv["window"] and mine[0]["step"] == lv["step"]
    with pytest.raises(ValueError, match="max_windows"):
        next(model.scan_bands(img, max_windows=0))


def test_to_grey_float_scales_and_rejects():
    rgb = np.zeros((2, 2, 3), dtype=np.uint8)
    rgb[..., 0] = 255
    np.testing.assert_allclose(to_grey_float(rgb), 0.2125)
    np.testing.assert_allclose(to_grey_float(np.full((2, 2), 65535, dtype=np.uint16)), 1.0)
    with pytest.raises(ValueError):
        to_grey_float(np.zeros((2, 2, 5)))
    with pytest.raises(ValueError):
        to_grey_float(np.array([[np.inf]]))


@pytest.mark.parametrize(
    "kw, exc",
    [
        ({"window": 2}, ValueError),
        ({"stage_detection_rate": 1.5}, ValueError),
        ({"stage_false_positive_rate": 0.0}, ValueError),
        ({"max_stages": 0}, ValueError),
        ({"negatives_per_stage": 2.5}, TypeError),
        ({"feature_types": ("2h", "x")}, ValueError),
    ],
)
def test_invalid_parameters_raise_clear_errors(kw, exc):
    faces, non = _known_feature_data(n=10)
    params = dict(window=W)
    params.update(kw)
    with pytest.raises(exc):
        Cascade(**params).fit(faces, non)


def test_invalid_data_raise_clear_errors():
    faces, non = _known_feature_data(n=10)
    with pytest.raises(ValueError, match="8 x 8"):
        _small_cascade().fit(faces[:, :6, :6], non)
    bad = faces.copy()
    bad[0, 0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        _small_cascade().fit(bad, non)
    with pytest.raises(ValueError, match="empty"):
        _small_cascade().fit(faces, [])
    with pytest.raises(ValueError, match="smaller"):
        _small_cascade().fit(faces, [np.zeros((5, 40))])
    with pytest.raises(ValueError, match="not fitted"):
        Cascade(window=W).predict(faces)


def test_save_load_round_trip(tmp_path):
    faces, non = _known_feature_data(seed=8, n=100)
    model = _small_cascade(max_stages=3).fit(faces, non)
    path = tmp_path / "c.npz"
    model.save(path)
    back = Cascade.load(path)
    assert back.n_stages_ == model.n_stages_ and back.window == W
    assert back.negatives_per_stage == model.negatives_per_stage
    both = np.concatenate([faces, non])
    np.testing.assert_array_equal(back.decision_function(both), model.decision_function(both))
    np.testing.assert_array_equal(back.stage_false_positive_rate_, model.stage_false_positive_rate_)
    for a, b in zip(back.stages_, model.stages_):
        np.testing.assert_array_equal(a["features"].rects, b["features"].rects)
        assert a["windows_scanned"] == b["windows_scanned"]


def _valid_bytes():
    faces, non = _known_feature_data(seed=9, n=60)
    buf = io.BytesIO()
    model = _small_cascade(max_stages=2).fit(faces, non)
    model.save(buf)
    return buf.getvalue()


_VALID = None


def _valid():
    global _VALID
    if _VALID is None:
        _VALID = _valid_bytes()
    return _VALID


def test_foreign_and_damaged_files_raise_value_error(tmp_path):
    foreign = tmp_path / "foreign.npz"
    np.savez(foreign, x=np.arange(3))
    with pytest.raises(ValueError, match="not a cascade"):
        Cascade.load(foreign)
    text = tmp_path / "text.npz"
    text.write_text("hello")
    with pytest.raises(ValueError, match="not a cascade"):
        Cascade.load(text)
    wrong_version = tmp_path / "v.npz"
    with np.load(io.BytesIO(_valid())) as z:
        arrays = {k: z[k] for k in z.files}
    arrays["version"] = np.array(99)
    np.savez(wrong_version, **arrays)
    with pytest.raises(ValueError, match="version 99"):
        Cascade.load(wrong_version)
    arrays["version"] = np.array(1)
    arrays["rects"] = arrays["rects"] + 30
    np.savez(wrong_version, **arrays)
    with pytest.raises(ValueError, match="outside the window"):
        Cascade.load(wrong_version)


@settings(max_examples=50, deadline=None)
@given(st.data())
def test_fuzz_load_only_raises_value_error(tmp_path_factory, data):
    raw = bytearray(_valid())
    n_edits = data.draw(st.integers(1, 8))
    for _ in range(n_edits):
        pos = data.draw(st.integers(0, len(raw) - 1))
        raw[pos] = data.draw(st.integers(0, 255))
    if data.draw(st.booleans()):
        raw = raw[: data.draw(st.integers(0, len(raw)))]
    path = tmp_path_factory.mktemp("fuzz") / "c.npz"
    path.write_bytes(bytes(raw))
    try:
        model = Cascade.load(path)
    except ValueError as exc:
        assert len(str(exc)) <= 1000
    else:
        assert model.n_stages_ >= 1


# ------------------------------------------------------------------ the shipped cascade


@pytest.fixture(scope="module")
def shipped():
    from smlengine.datasets import load_cascade

    return load_cascade()


def test_shipped_cascade_on_held_out_patches(shipped):
    from smlengine.datasets import load_face_patches, negative_photos

    data = load_face_patches()
    assert shipped.window == 24 and shipped.n_stages_ >= 5
    dr = shipped.predict(data.test_faces).mean()
    assert dr >= 0.90
    photo = negative_photos("test")
    assert list(photo) == ["coffee"]
    _, passed = shipped.scan(photo["coffee"], keep_all=True)
    assert passed.size > 100_000
    assert np.mean(passed == shipped.n_stages_) <= 0.01


def test_shipped_cascade_finds_the_astronaut(shipped):
    from skimage import data as skdata
    from skimage import feature
    img = skdata.astronaut()
    try:
        ref = feature.Cascade(skdata.lbp_frontal_face_cascade_filename())
    except Exception:  # pragma: no cover - the LBP file needs no download in scikit-image >= 0.19
        pytest.skip("scikit-image's LBP cascade is not available")
    ref_boxes = ref.detect_multi_scale(img=img, scale_factor=1.2, step_ratio=1, min_size=(60, 60),
                                       max_size=(200, 200))
    assert len(ref_boxes) == 1
    rb = ref_boxes[0]
    boxes = shipped.detect(img)

    def iou(b):
        r0, c0 = max(b[0], rb["r"]), max(b[1], rb["c"])
        r1, c1 = min(b[0] + b[2], rb["r"] + rb["height"]), min(b[1] + b[3], rb["c"] + rb["width"])
        inter = max(0.0, r1 - r0) * max(0.0, c1 - c0)
        return inter / (b[2] * b[3] + rb["height"] * rb["width"] - inter)

    ious = np.array([iou(b) for b in boxes])
    # one face, one box: the grouped detections are exactly the face
    assert ious.size == 1 and ious[0] >= 0.5
    np.testing.assert_allclose(box_iou(boxes, [[rb["r"], rb["c"], rb["height"], rb["width"]]])[:, 0], ious)
    # the raw windows that the vote turns into this box: many on the face, a few elsewhere
    raw, _ = shipped.scan(img)
    groups = group_rectangles(raw, min_neighbors=0)
    assert groups[0, 4] == boxes[0, 4] >= 20
    assert groups.shape[0] > 5 and np.all(groups[1:, 4] <= 4)
    # colour 8-bit, colour float and grey input give the same detections
    np.testing.assert_allclose(shipped.detect(img.astype(np.float64) / 255.0), boxes)
    np.testing.assert_allclose(shipped.detect(to_grey_float(img)), boxes)


def _held_out_photos():
    """Face-free photos kept out of training and of the choice of ``min_neighbors``: the held-out
    photo of the training data and scikit-image pictures the cascade never saw (all in the wheel)."""
    import skimage.data

    from smlengine.datasets._faces import HELD_OUT_PHOTO, NEGATIVE_PHOTO_NAMES, UNSEEN_PHOTO_NAMES

    names = (HELD_OUT_PHOTO, *UNSEEN_PHOTO_NAMES)
    assert not set(names) & (set(NEGATIVE_PHOTO_NAMES) - {HELD_OUT_PHOTO})  # never mined
    photos = {name: getattr(skimage.data, name)() for name in names}
    try:  # two more photos that ship with scikit-learn (a test dependency)
        from sklearn.datasets import load_sample_images

        sample = load_sample_images()
        photos.update({"china (scikit-learn)": sample.images[0], "flower (scikit-learn)": sample.images[1]})
    except ImportError:  # pragma: no cover
        pass
    return photos


def test_shipped_cascade_on_face_free_photos_it_never_saw(shipped):
    """One false box at most on each held-out face-free photo, with the default vote."""
    counts = {name: shipped.detect(img).shape[0] for name, img in _held_out_photos().items()}
    assert all(n <= 1 for n in counts.values()), counts
    assert sum(counts.values()) <= 2, counts


# ------------------------------------------------------------------ the two scanning paths, limits, explain


def _compiled_or_skip():
    from smlengine.cascade import _compiled

    if _compiled.grid_kernel() is None:
        pytest.skip(f"numba is not installed: the compiled window loop is not in use ({_compiled.COMPILED.error})")


@pytest.fixture(params=["numpy", "compiled"])
def scan_path(request, monkeypatch):
    """Run a test on the vectorised path and on the compiled window loop."""
    import smlengine.cascade.scan as scan_module

    if request.param == "compiled":
        _compiled_or_skip()
    else:
        monkeypatch.setattr(scan_module, "_USE_COMPILED", False)
    return request.param


def _all_windows(model, img, kw):
    """Boxes, stages passed and last margins of every window of every level."""
    levels = list(model.scan_levels(img, **kw))
    boxes = np.concatenate([np.column_stack([np.indices(lv["passed"].shape).reshape(2, -1).T * lv["step"],
                                             np.full(lv["passed"].size, lv["window"][0])]) for lv in levels])
    return (boxes, np.concatenate([lv["passed"].ravel() for lv in levels]),
            np.concatenate([lv["last"].ravel() for lv in levels]))


def test_compiled_loop_passes_the_same_stages_as_the_vectorised_path(shipped, monkeypatch):
    """Every window of every level of several photos: the same stages passed on both paths, and the
    same margins to the last bit (both add the reads, the terms and the votes in the same order)."""
    _compiled_or_skip()
    import skimage.data

    import smlengine.cascade.scan as scan_module

    photos = [skimage.data.astronaut(), skimage.data.camera()[::2, ::2], np.random.default_rng(3).random((61, 90))]
    for img in photos:
        for kw in ({}, {"scale_factor": 1.1, "step": 1, "n_stages": 7}):
            monkeypatch.setattr(scan_module, "_USE_COMPILED", True)
            box_c, pass_c, last_c = _all_windows(shipped, img, kw)
            monkeypatch.setattr(scan_module, "_USE_COMPILED", False)
            box_n, pass_n, last_n = _all_windows(shipped, img, kw)
            np.testing.assert_array_equal(box_c, box_n)
            np.testing.assert_array_equal(pass_c, pass_n)
            np.testing.assert_array_equal(last_c, last_n)


def test_both_paths_find_the_astronaut_alike(shipped, scan_path):
    from skimage import data as skdata

    img = skdata.astronaut()
    boxes = shipped.detect(img)
    assert boxes.shape == (1, 5) and boxes[0, 4] >= 20
    faces, non = _known_feature_data(seed=7, n=100)
    model = _small_cascade(max_stages=3).fit(faces, non)
    small = np.random.default_rng(7).random((20, 26))
    smap = model.stage_map(small, scale=1.0, step=1)
    patches = np.stack([small[r : r + W, c : c + W] for r in range(13) for c in range(19)])
    np.testing.assert_array_equal(smap.ravel(), model.stages_passed(patches))


def test_bands_bound_memory_and_give_the_level_map(shipped, monkeypatch):
    """A level scanned in many bands of window rows gives the map of one whole-level pass."""
    import skimage.data

    import smlengine.cascade.scan as scan_module

    monkeypatch.setattr(scan_module, "_USE_COMPILED", False)
    img = skimage.data.coffee()
    whole = shipped.scan(img, keep_all=True)[1]
    monkeypatch.setattr(scan_module, "BAND_WINDOWS", 700)
    np.testing.assert_array_equal(shipped.scan(img, keep_all=True)[1], whole)


def test_numpy_path_results_do_not_depend_on_its_grouping_threads_or_blocks(shipped, monkeypatch):
    """The numpy path shares a pyramid's levels and survivors between threads, scores the survivors
    of several levels together, in blocks, by one gather or read by read: every way of cutting the
    work gives the same stages and margins, equal to one level at a time (the band path)."""
    import skimage.data

    import smlengine.cascade.scan as scan_module

    monkeypatch.setattr(scan_module, "_USE_COMPILED", False)
    img = skimage.data.astronaut()[::2, ::2]
    levels = list(shipped.scan_levels(img))
    banded = [np.concatenate([b["passed"] for b in shipped.scan_bands(img) if b["level"] == k]) for k in
              range(len(levels))]
    for lv, band in zip(levels, banded):
        np.testing.assert_array_equal(lv["passed"], band)
    for setting in ({"THREADS": 1}, {"THREADS": 3, "CHUNK_CELLS": 20_000}, {"SPARSE_BLOCK": 97, "GATHER_WINDOWS": 0},
                    {"GATHER_WINDOWS": 10**9, "GATHER_CELLS": 1000, "DENSE_FRACTION": 0.9}):
        with monkeypatch.context() as m:
            for name, value in setting.items():
                m.setattr(scan_module, name, value)
            other = list(shipped.scan_levels(img))
        assert len(other) == len(levels)
        for a, b in zip(levels, other):
            np.testing.assert_array_equal(a["passed"], b["passed"])
            np.testing.assert_array_equal(a["last"], b["last"])


@pytest.mark.parametrize(
    "kw, match",
    [
        ({"scale_factor": 1 + 1e-9}, r"scale_factor must be >= 1.01"),
        ({"scale_factor": 1.0}, r"scale_factor must be >= 1.01"),
        ({"scale_factor": 5.0}, r"scale_factor must be <= 4"),
        ({"scale_factor": float("nan")}, "scale_factor must be finite"),
        ({"step": 0}, "step must be >= 1"),
        ({"step": 2**63}, "step must be <= 24"),
        ({"min_size": 1e308, "max_size": 1.0}, "max_size must be >= 1e"),
        ({"min_size": 4}, "min_size must be at least"),
        ({"n_stages": 10**9}, "n_stages must be <="),
        ({"min_neighbors": -1}, "min_neighbors must be >= 0"),
    ],
)
def test_absurd_detection_parameters_are_refused_before_any_work(shipped, kw, match):
    img = np.zeros((2000, 2000), dtype=np.uint8)  # min_size=4 would scan it at 12,000 x 12,000
    with pytest.raises(ValueError, match=match):
        shipped.detect(img, **kw)


def test_huge_images_are_refused_by_size_before_conversion(shipped):
    from smlengine.cascade import MAX_IMAGE_PIXELS

    huge = np.broadcast_to(np.uint8(0), (10_000, 10_000))  # no memory: a view of one byte
    for call in (lambda: shipped.detect(huge), lambda: shipped.scan(huge), lambda: next(shipped.scan_levels(huge)),
                 lambda: next(shipped.scan_bands(huge)), lambda: shipped.stage_map(huge)):
        with pytest.raises(ValueError, match=f"at most {MAX_IMAGE_PIXELS:,} pixels"):
            call()
    with pytest.raises(ValueError, match="use a larger scale"):
        shipped.stage_map(np.zeros((1000, 1000)), scale=0.1)


def test_training_tables_are_bounded():
    faces, non = _known_feature_data(n=10)
    with pytest.raises(ValueError, match="lower n_candidate_features or negatives_per_stage"):
        Cascade(window=24, n_candidate_features=None, negatives_per_stage=1_000_000).fit(
            np.random.default_rng(0).random((4, 24, 24)), np.random.default_rng(1).random((30, 24, 24)))


def test_explain_scores_a_patch_as_the_cascade_does(shipped):
    from smlengine.datasets import load_face_patches

    data = load_face_patches()
    patches = np.concatenate([data.test_faces[:5], data.non_faces[:5]])
    passed = shipped.stages_passed(patches)
    score = shipped.decision_function(patches)
    for p, k, d in zip(patches, passed, score):
        rep = shipped.explain(p)
        stages = rep["stages"]
        assert len(stages) == min(k + 1, shipped.n_stages_)
        assert [s["accepted"] for s in stages] == [True] * k + [False] * (len(stages) - k)
        last = stages[-1]
        # the stage score is sum_t alpha_t h_t of the stumps' votes, and gives the decision margin
        np.testing.assert_allclose(last["score"], np.sum(last["alpha"] * last["votes"]), atol=1e-12)
        np.testing.assert_allclose(d, (k - shipped.n_stages_) + (last["score"] - last["threshold"])
                                   / (2 * last["alpha"].sum()), atol=1e-12)
        first = stages[0]
        flat = p.ravel()
        m = flat.mean()
        s = max(np.sqrt(max((flat**2).mean() - m * m, 0.0)), 1e-3)
        assert rep["mean"] == pytest.approx(m) and rep["sigma"] == pytest.approx(s)
        fs = shipped.stages_[0]["features"]
        np.testing.assert_allclose(first["x"], haar_features(p[None], fs)[0], atol=1e-12)
        np.testing.assert_allclose(first["x_norm"], (first["x"] - m * fs.signed_area) / s, atol=1e-9)
    with pytest.raises(ValueError, match="one 24 x 24 patch"):
        shipped.explain(patches[:2])
