"""The face-detection lab: boxes on the astronaut follow the engine, the heat map is the engine's
stage map, a corrupt file gives a banner and keeps the photo, sessions keep the opened photo,
a clicked window's stage sums, training snapshots follow, LBP and gallery side tasks."""

import numpy as np
import pytest
from PIL import Image

from app.labs.faces import run


def _lab(qtbot, make_window, **params):
    window = make_window(lab_ids=["faces"])
    lab = window.show_lab("faces")
    qtbot.waitUntil(lambda: lab.runner.current is not None or lab.runner.error is not None, timeout=30_000)
    if params:
        lab.form.set_values(params)
        lab.after_params_restored()
        lab.start()
        qtbot.waitUntil(lambda: lab.runner.current is not None or lab.runner.error is not None, timeout=30_000)
    return window, lab


def _finish(qtbot, lab, steps=10_000):
    r = lab.runner
    lab.run_to(steps)
    qtbot.waitUntil(lambda: r.error is not None or r.finished
                    or (r.timeline.last is not None and r.timeline.last.step >= steps), timeout=60_000)
    assert r.error is None, r.error
    qtbot.waitUntil(lambda: r.settled and r.current is r.timeline.last, timeout=20_000)
    return r.current


def _wait_task(qtbot, lab, name):
    qtbot.waitUntil(lambda: name in lab._tasks and not lab._tasks[name].busy, timeout=30_000)


def test_faces_found_on_the_astronaut_as_the_engine_finds_them(qtbot, make_window):
    window, lab = _lab(qtbot, make_window)
    snap = _finish(qtbot, lab)
    assert snap.done and snap.event == "done"
    ctx = snap.ctx
    expected = run.shipped_cascade().detect(ctx.photo.grey)
    # the same detections (windows scanned largest first: equal scores may come in another order)
    key = lambda b: b[np.lexsort(b.T[::-1])]  # noqa: E731
    np.testing.assert_allclose(key(snap.boxes), key(expected))
    # the astronaut's face (around row 75, column 180, ~90 px) is the strongest detection
    r, c, h, w, score = snap.boxes[0]
    assert 50 < r < 110 and 150 < c < 220 and 70 < h < 120
    # the drawn boxes are the detections
    xs, ys = lab.photo_view.layers["faces"].getData()
    ex, ey = run.box_polyline(snap.boxes[:, :4])
    np.testing.assert_allclose(xs[np.isfinite(xs)], ex[np.isfinite(ex)])
    # the heat map is the engine's stage map at the face's scale
    s = ctx.scales[snap.heat_level]
    smap = run.shipped_cascade().stage_map(ctx.photo.grey, scale=s, step=snap.heat.shape and 1)
    np.testing.assert_array_equal(lab.heat_view.image.image, snap.heat.astype(np.float32))
    np.testing.assert_array_equal(snap.heat, smap)
    assert snap.heat.max() == ctx.n_stages
    # funnel: every window passes >= 0 stages; counts never increase
    assert snap.funnel[0] == ctx.n_windows == snap.windows_scanned
    assert np.all(np.diff(snap.funnel) <= 0)
    assert "Funnel" in lab.maths.toPlainText()
    window.close()


def test_fewer_stages_find_more_windows(qtbot, make_window):
    window, lab = _lab(qtbot, make_window, n_stages=3)
    snap = _finish(qtbot, lab)
    n3 = snap.raw.shape[0]
    lab.form.set_values({"n_stages": 19})
    lab.start()
    snap19 = _finish(qtbot, lab)
    assert n3 > snap19.raw.shape[0]
    window.close()


def test_clicked_window_reports_stage_sums(qtbot, make_window):
    window, lab = _lab(qtbot, make_window)
    snap = _finish(qtbot, lab)
    r, c, h, w, _ = snap.boxes[0]
    lab.inspect_window(c + w / 2, r + h / 2)
    rep = lab.window_info
    assert rep is not None and len(rep["first"]) > 0
    # each stump's vote follows its normalised feature, threshold and polarity
    for stump in rep["first"]:
        assert stump["vote"] == (1 if stump["polarity"] * (stump["x_norm"] - stump["theta"]) > 0 else -1)
    # the stage sums against the thresholds agree with the engine on the same patch
    passed = run.shipped_cascade().stages_passed(rep["patch"])[0]
    assert sum(1 for *_, ok in rep["stages"] if ok) == passed
    assert "Stage sums" in lab.window_label.text()
    window.close()


def _png(path, array):
    Image.fromarray(np.asarray(array, dtype=np.uint8)).save(path)
    return str(path)


def test_corrupt_file_gives_a_banner_and_keeps_the_photo(qtbot, make_window, tmp_path):
    window, lab = _lab(qtbot, make_window)
    bad = tmp_path / "broken.png"
    bad.write_bytes(b"\x89PNG\r\n\x1a\n" + b"garbage" * 50)
    lab.open_image_file(str(bad))
    _wait_task(qtbot, lab, "open")
    assert "Could not open" in lab.error_text
    assert lab.image_path == ""
    assert lab.runner.current.ctx.photo.label == "astronaut"
    assert lab.photo_view.image.image is not None
    window.close()


def test_opened_photo_and_session_round_trip(qtbot, make_window, tmp_path):
    import skimage.data

    window, lab = _lab(qtbot, make_window)
    img = skimage.data.astronaut()[:300, 50:350]  # colour crop with the face
    path = _png(tmp_path / "crop.png", img)
    lab.open_image_file(path)
    _wait_task(qtbot, lab, "open")
    assert lab.image_path == path
    qtbot.waitUntil(lambda: lab.runner.current is not None and lab.runner.current.ctx.photo.label == "crop.png",
                    timeout=20_000)
    snap = _finish(qtbot, lab)
    assert snap.ctx.photo.grey.shape == (300, 300)
    assert snap.boxes.shape[0] >= 1
    state = lab.session_state()
    assert state["user_data"]["path"] == path
    # a second lab restores the opened photo
    window2, lab2 = _lab(qtbot, make_window)
    lab2.restore_session(state)
    qtbot.waitUntil(lambda: lab2.runner.current is not None, timeout=20_000)
    assert lab2.image_path == path
    assert lab2.runner.current.ctx.photo.label == "crop.png"
    with pytest.raises(ValueError):
        lab2.restore_session(dict(state, user_data={"path": 5}))
    assert lab2.image_path == path
    window.close()
    window2.close()


def test_huge_image_is_downscaled_with_a_note(qtbot, make_window, tmp_path):
    window, lab = _lab(qtbot, make_window)
    path = _png(tmp_path / "big.png", np.random.default_rng(0).integers(0, 255, (1200, 1000)))
    lab.open_image_file(path)
    _wait_task(qtbot, lab, "open")
    qtbot.waitUntil(lambda: lab.runner.current is not None and lab.runner.current.ctx.photo.label == "big.png",
                    timeout=20_000)
    photo = lab.runner.current.ctx.photo
    assert photo.grey.size <= run.FILE_MAX_PIXELS
    assert photo.note and "big.png" in lab.image_label.text()
    window.close()


def test_trained_cascade_needed_before_use(qtbot, make_window):
    window, lab = _lab(qtbot, make_window, cascade="trained")
    assert "No cascade has been trained" in lab.error_text
    window.close()


def test_training_run_snapshots_follow(qtbot, make_window):
    window, lab = _lab(qtbot, make_window, mode="train", max_stages=1, max_features=3)
    assert lab.tabs.currentIndex() in (0, 1)
    snap = _finish(qtbot, lab)
    e = snap.engine
    assert e.done and e.n_stages == 1
    hist = list(lab.runner.history())
    feats = [h for h in hist if h.engine.event == "feature"]
    assert 1 <= len(feats) <= 3 and snap.stumps == len(feats)
    # the curves are the per-stump rates
    np.testing.assert_allclose(lab.dr_stage.y, [h.engine.stage_detection_rate for h in feats])
    np.testing.assert_allclose(lab.fpr_total.y, [h.engine.false_positive_rate for h in feats])
    np.testing.assert_array_equal(lab.dr_stage.x, np.arange(1, len(feats) + 1))
    # the gallery of chosen stumps and the current feature over the mean face
    assert lab.features_view.image.image.ndim == 3
    assert lab.feature_view.image.image.shape[:2] == (24, 24)
    # the trained cascade becomes available for detection
    assert lab.trained is snap.ctx.cascade and lab.trained.n_stages_ == 1
    lab.form.set_values({"mode": "detect", "cascade": "trained"})
    lab.start()
    det = _finish(qtbot, lab)
    assert det.ctx.cascade_name == "trained here" and det.ctx.n_stages == 1
    assert lab.error_text == ""
    window.close()


def test_lbp_reference_and_gallery_side_tasks(qtbot, make_window):
    window, lab = _lab(qtbot, make_window)
    _wait_task(qtbot, lab, "lbp")
    xs, _ = lab.photo_view.layers["lbp"].getData()
    assert xs is not None and np.isfinite(xs).sum() >= 5  # at least one dashed box (the face)
    lab.tabs.setCurrentIndex(2)
    _wait_task(qtbot, lab, "gallery")
    g = lab.gallery
    assert g["hard"].shape[1:] == (24, 24) and g["hard"].shape[0] > 0
    assert lab.faces_view.image.image.shape == run.mosaic(g["faces"], 10).shape
    assert np.all(np.diff(g["hard_stages"]) <= 0)
    window.close()


def test_a_restart_frees_the_previous_run(qtbot, make_window):
    """Nothing keeps an old run alive (soak memory): after a restart and a redraw, the old
    run's snapshots, context and stage maps are collected; only the cached photo and cascade
    are shared between runs."""
    import gc
    import weakref

    window, lab = _lab(qtbot, make_window)
    snap = _finish(qtbot, lab)
    refs = [weakref.ref(snap), weakref.ref(snap.ctx), weakref.ref(snap.heat), weakref.ref(snap.raw)]
    photo, cascade = snap.ctx.photo, snap.ctx.cascade
    del snap
    for _ in range(3):  # restarts, each drawn
        lab.reset()
        new = _finish(qtbot, lab)
        assert new.ctx.photo is photo and new.ctx.cascade is cascade  # the caches are shared
        del new
    gc.collect()
    assert [r() is None for r in refs] == [True] * len(refs)
