"""The face-detection lab: boxes on the astronaut follow the engine, the heat map is the engine's
stage map, a corrupt file gives a banner and keeps the photo, sessions keep the opened photo,
a clicked window's stage sums, training snapshots follow, LBP and gallery side tasks."""

import numpy as np
import pytest
from PIL import Image

from app.labs.faces import run
from smlengine.detection import box_iou
from app.testing import run_to


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


def _wait_task(qtbot, lab, name):
    qtbot.waitUntil(lambda: name in lab._tasks and not lab._tasks[name].busy, timeout=30_000)


def test_faces_found_on_the_astronaut_as_the_engine_finds_them(qtbot, make_window):
    window, lab = _lab(qtbot, make_window)
    snap = run_to(lab, 10_000)
    assert snap.done and snap.event == "done"
    ctx = snap.ctx
    expected = run.shipped_cascade().detect(ctx.photo.grey)
    # the same detections (windows scanned largest first: equal scores may come in another order)
    key = lambda b: b[np.lexsort(b.T[::-1])]  # noqa: E731
    np.testing.assert_allclose(key(snap.boxes), key(expected))
    # one face, one box: the astronaut's face (around row 75, column 180, ~90 px)
    assert snap.boxes.shape[0] == 1
    r, c, h, w, score = snap.boxes[0]
    assert 50 < r < 110 and 150 < c < 220 and 70 < h < 120
    assert score > ctx.params["min_neighbors"] == run.MIN_NEIGHBORS
    # ... made of the largest group of accepted windows; the other groups have too few
    assert snap.groups.shape[0] > 1 and snap.groups[:, 4].max() == score
    assert np.sum(snap.groups[:, 4] > ctx.params["min_neighbors"]) == 1
    assert np.all(snap.raw_group < snap.groups.shape[0]) and np.bincount(snap.raw_group).max() == score
    # its neighbour count is written beside it
    shown = [t for t in lab._counts if t.isVisible()]
    assert len(shown) == 1 and shown[0].textItem.toPlainText().strip() == str(int(score))
    assert shown[0].pos().x() == pytest.approx(c) and shown[0].pos().y() == pytest.approx(r)
    # one face, one box: the accepted windows it merges are drawn on request only
    raw_x, _ = lab.photo_view.layers["raw"].getData()
    assert raw_x is None or len(raw_x) == 0
    # the key names every kind of box drawn, with the vote in force
    key = {label.text: sample.item for sample, label in lab.key.items}
    assert key == {"faces: n > 4": lab.photo_view.layers["faces"], "LBP (skimage)": lab.photo_view.layers["lbp"],
                   "scanning": lab.photo_view.layers["band"]}
    lab.raw_box.setChecked(True)
    raw_x, _ = lab.photo_view.layers["raw"].getData()
    assert np.isfinite(raw_x).sum() == 5 * min(snap.raw.shape[0], run.MAX_RAW_DRAWN)  # 5 corners a box
    key = {label.text: sample.item for sample, label in lab.key.items}
    assert key["windows"] is lab.photo_view.layers["raw"] and len(key) == 4
    vb = lab.photo_view.plot_item.getViewBox()
    assert not lab.key.sceneBoundingRect().intersects(vb.sceneBoundingRect())  # the key covers no photo
    # scikit-image's LBP cascade agrees on the face
    _wait_task(qtbot, lab, "lbp")
    assert box_iou(snap.boxes, lab._lbp_boxes).max() >= 0.5
    # the maths panel says how the windows became the box
    text = lab.maths.toPlainText()
    assert "Grouping" in text and f"{snap.raw.shape[0]} accepted windows → {snap.groups.shape[0]} group(s)" in text
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


def test_the_sweep_goes_band_by_band(qtbot, make_window):
    """The search is drawn as it goes: each step scans one band of window rows (at most
    WINDOWS_PER_STEP windows), the largest windows first, so the run bar's speed paces it."""
    window, lab = _lab(qtbot, make_window)
    last = run_to(lab, 10_000)
    hist = [h for h in lab.runner.history() if h.event == "scan"]
    assert len(hist) >= 25 and len(hist) == last.step - 1
    scanned = np.diff([0] + [h.windows_scanned for h in hist])
    assert np.all(scanned >= 1) and np.all(scanned <= run.WINDOWS_PER_STEP)
    sides = [h.band[3] - (h.heat.shape[1] - 1) * h.heat_geometry[3] for h in hist]  # window side of each band
    assert sides == sorted(sides, reverse=True)  # largest windows first
    grey = last.ctx.photo.grey
    for h in hist:
        top, left, height, width = h.band
        assert 0 <= top and top + height <= grey.shape[0] + 1e-6 and width <= grey.shape[1] + 1e-6
    # accepted windows only accumulate; the heat map grows row band by row band within a level
    assert all(a.raw.shape[0] <= b.raw.shape[0] for a, b in zip(hist, hist[1:]))
    for a, b in zip(hist, hist[1:]):
        if a.heat_level == b.heat_level:
            assert b.heat.shape[0] > a.heat.shape[0]
            np.testing.assert_array_equal(b.heat[: a.heat.shape[0]], a.heat)
    # a step drawn shows its band; the finished run shows none
    lab.runner.seek(hist[10].step)
    qtbot.waitUntil(lambda: lab.runner.current is not None and lab.runner.current.step == hist[10].step)
    qtbot.waitUntil(lambda: np.isfinite(lab.photo_view.layers["band"].getData()[0]).sum() == 5)
    xs, ys = lab.photo_view.layers["band"].getData()
    ex, ey = run.box_polyline([hist[10].band])
    np.testing.assert_allclose(xs[:5], ex[:5])
    np.testing.assert_allclose(ys[:5], ey[:5])
    window.close()


def _words_broken(text_edit) -> list[str]:
    """Places where the laid-out text of a QTextEdit breaks a line inside a word or number."""
    bad = []
    block = text_edit.document().begin()
    while block.isValid():
        layout, text = block.layout(), block.text()
        for i in range(1, layout.lineCount()):
            k = layout.lineAt(i).textStart()
            if not (text[k - 1].isspace() or text[k].isspace() or text[k - 1] in "-–—/"):
                bad.append(text[max(0, k - 12): k + 12])
        block = block.next()
    return bad


@pytest.mark.parametrize("size, projector", [((1024, 768), False), ((1024, 768), True), ((1280, 800), True)],
                         ids=["1024x768", "1024x768-projector", "1280x800-projector"])
def test_maths_text_is_never_cut_mid_word(qtbot, make_window, size, projector):
    from app import style as theme

    theme.manager().set(projector=projector)
    window = make_window(lab_ids=["faces"])
    window.set_projector(projector)
    window.resize(size[0], size[1] - 40)
    lab = window.show_lab("faces")
    run_to(lab, 10_000)
    if lab.maths_folded_by_projector():  # folded away in projector mode: F1 opens it
        window.toggle_maths(True)
    qtbot.waitUntil(lambda: lab.maths.isVisible() and not lab.maths_folded_by_projector())
    text = lab.maths.toPlainText()
    assert "Funnel" in text and "Grouping" in text
    assert lab.maths.horizontalScrollBar().maximum() == 0
    assert not _words_broken(lab.maths), _words_broken(lab.maths)
    window.close()


def test_fewer_stages_find_more_windows(qtbot, make_window):
    window, lab = _lab(qtbot, make_window, n_stages=3)
    snap = run_to(lab, 10_000)
    n3 = snap.raw.shape[0]
    lab.form.set_values({"n_stages": 19})
    lab.start()
    snap19 = run_to(lab, 10_000)
    assert n3 > snap19.raw.shape[0]
    window.close()


def test_clicked_window_reports_stage_sums(qtbot, make_window):
    window, lab = _lab(qtbot, make_window)
    snap = run_to(lab, 10_000)
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
    assert lab.form.widgets["image"].currentText() == "file: crop.png"  # the Photo box names the opened photo
    qtbot.waitUntil(lambda: lab.runner.current is not None and lab.runner.current.ctx.photo.label == "crop.png",
                    timeout=20_000)
    snap = run_to(lab, 10_000)
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
    assert lab2.form.widgets["image"].currentText() == "file: crop.png"
    with pytest.raises(ValueError):
        lab2.restore_session(dict(state, user_data={"path": 5}))
    assert lab2.image_path == path
    lab2.form.widgets["image"].setCurrentIndex(1)  # a sample photo again: the file's entry goes
    assert lab2.image_path == "" and lab2.form.value("image") == "camera"
    assert [lab2.form.widgets["image"].itemText(i) for i in range(lab2.form.widgets["image"].count())] == \
        ["astronaut", "camera"]
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
    snap = run_to(lab, 10_000)
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
    # the DR and FPR keys sit beside the curves, not on them, and show their whole names
    for panel in (lab.dr_panel, lab.fpr_panel):
        legend, vb = panel.legend, panel.plot_item.getViewBox()
        assert legend.isVisible() and not legend.sceneBoundingRect().intersects(vb.sceneBoundingRect())
        assert [label.text for _, label in legend.items] == ["stage", "cascade"]
        for _, label in legend.items:
            assert legend.sceneBoundingRect().contains(label.sceneBoundingRect())
            assert label.item.boundingRect().width() >= label.item.document().idealWidth() - 1
    # the trained cascade becomes available for detection
    assert lab.trained is snap.ctx.cascade and lab.trained.n_stages_ == 1
    lab.form.set_values({"mode": "detect", "cascade": "trained"})
    lab.start()
    det = run_to(lab, 10_000)
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
    run's snapshots, context and stage maps are collected (the photo and cascade they used
    live on in the lab's caches, which side tasks may refill meanwhile)."""
    import gc
    import weakref

    window, lab = _lab(qtbot, make_window)
    snap = run_to(lab, 10_000)
    refs = [weakref.ref(snap), weakref.ref(snap.ctx), weakref.ref(snap.heat), weakref.ref(snap.raw)]
    del snap
    for _ in range(3):  # restarts, each drawn
        lab.reset()
        new = run_to(lab, 10_000)
        assert new.ctx.photo.label == "astronaut" and new.step > 0
        del new
    gc.collect()
    assert [r() is None for r in refs] == [True] * len(refs)
