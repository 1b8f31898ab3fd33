"""The segmentation lab: the drawn segmentation and curves follow the engine (k-means objective
never increases, EM log-likelihood never decreases as drawn), the uncertainty map, the clicked
pixel's terms, clicked seeds, opened files (bad files, too many clusters, too large a window
give a banner and lose nothing), sessions, and the model-order and restarts side tasks."""

import numpy as np
import pytest
from PIL import Image

from app.labs.segmentation import run
from app.labs.segmentation.lab import PALETTE


def _lab(qtbot, make_window, **params):
    window = make_window(lab_ids=["segmentation"])
    lab = window.show_lab("segmentation")
    qtbot.waitUntil(lambda: lab.runner.current is not None or lab.runner.error is not None, timeout=30_000)
    if params:
        lab.form.set_values(params)
        lab.after_params_restored()
        lab.start()
        qtbot.waitUntil(lambda: lab.runner.current is not None or lab.runner.error is not None, timeout=30_000)
    return window, lab


def _run(qtbot, lab, steps):
    r = lab.runner
    lab.run_to(steps)
    qtbot.waitUntil(lambda: r.error is not None or r.finished
                    or (r.timeline.last is not None and r.timeline.last.step >= steps), timeout=30_000)
    assert r.error is None, r.error
    qtbot.waitUntil(lambda: r.current is r.timeline.last, timeout=10_000)
    return r.current


def _png(path, array):
    Image.fromarray(np.asarray(array, dtype=np.uint8)).save(path)
    return str(path)


def _two_colour_png(tmp_path):
    img = np.zeros((40, 60, 3), np.uint8)
    img[:, 30:] = (200, 30, 30)
    return _png(tmp_path / "two.png", img)


def _open(qtbot, lab, path):
    lab.open_image_file(path)
    task = lab._tasks["open"]
    qtbot.waitUntil(lambda: not task.busy, timeout=20_000)


def test_em_segmentation_and_log_likelihood_follow_the_engine(qtbot, make_window):
    window, lab = _lab(qtbot, make_window)
    assert lab.run_params["method"] == "multinomial"
    snap = _run(qtbot, lab, 12)
    ctx, eng = snap.ctx, snap.engine
    assert max(ctx.shape) == 128  # downscaled for the live run
    # the curve is the log-likelihood of every step, and it never decreases
    steps = [s.step for s in lab.runner.history()]
    ll = [s.engine.log_likelihood for s in lab.runner.history()]
    np.testing.assert_array_equal(lab.objective.x, steps)
    np.testing.assert_allclose(lab.objective.y, ll)
    assert np.all(np.diff(lab.objective.y) >= -1e-9 * np.abs(lab.objective.y[1:]))
    # the segmentation image is the labels in Okabe-Ito colours, the photo is the image
    expected = PALETTE[np.asarray(eng.labels).reshape(ctx.shape) % len(PALETTE)]
    np.testing.assert_array_equal(lab.seg_view.image.image, expected)
    np.testing.assert_array_equal(lab.photo_view.overlay.image, expected)
    np.testing.assert_array_equal(lab.photo_view.image.image, ctx.image)
    # where EM is unsure: 1 - max responsibility
    np.testing.assert_allclose(lab.unc_view.image.image, (1 - eng.confidence).reshape(ctx.shape))
    # cluster histograms t_k as bars
    for k in range(ctx.n_clusters):
        np.testing.assert_allclose(lab.cluster_bars[k].opts["height"], eng.probabilities[k])
    assert "0.01" in lab.maths.toPlainText() and "M-step" in lab.maths.toPlainText()
    # the overlay slider sets the overlay's opacity
    lab.opacity.setValue(80)
    assert lab.photo_view.overlay.opacity() == pytest.approx(0.8)
    window.close()


@pytest.mark.parametrize("method", ["kmeans_colour", "kmeans_hist"])
def test_kmeans_objective_never_increases(qtbot, make_window, method):
    window, lab = _lab(qtbot, make_window, method=method, image="coffee", K=5)
    snap = _run(qtbot, lab, 10)
    J = lab.objective.y
    assert len(J) == snap.step + 1
    np.testing.assert_allclose(J, [s.engine.inertia for s in lab.runner.history()])
    assert np.all(np.diff(J) <= 1e-9 * J[:-1])
    assert "Objective" in lab.objective_panel._title
    window.close()


def test_gaussian_mixture_swatches_and_pixel_terms(qtbot, make_window):
    window, lab = _lab(qtbot, make_window, method="gmm", image="coffee", K=4)
    snap = _run(qtbot, lab, 6)
    ll = lab.objective.y
    assert np.all(np.diff(ll) >= -1e-7 * np.abs(ll[1:]))
    # the means as colour swatches (bar heights = weights)
    np.testing.assert_allclose(lab.swatches.opts["height"], snap.engine.weights)
    lab.inspect_pixel(20, 30)
    info = lab.pixel_info
    i = 20 * snap.ctx.shape[1] + 30
    assert info["index"] == i
    assert int(np.argmax(info["terms"])) == int(snap.engine.labels[i])
    np.testing.assert_allclose(lab.terms_bars.opts["height"], info["terms"])
    np.testing.assert_allclose(info["resp"].max(), snap.engine.confidence[i], rtol=1e-4)
    window.close()


def test_clicked_pixel_multinomial_terms(qtbot, make_window):
    window, lab = _lab(qtbot, make_window)
    snap = _run(qtbot, lab, 4)
    lab.inspect_pixel(70, 10)
    info = lab.pixel_info
    i = 70 * snap.ctx.shape[1] + 10
    H = snap.ctx.H.reshape(-1, snap.ctx.H.shape[2])[i]
    expected = np.log(snap.engine.weights) + np.log(snap.engine.probabilities) @ H
    np.testing.assert_allclose(info["terms"], expected)
    assert int(np.argmax(expected)) == int(snap.engine.labels[i])
    np.testing.assert_allclose(lab.pixel_bars.opts["height"], H / H.sum())
    assert "cluster" in lab.pixel_label.text()
    window.close()


def test_corrupt_file_gives_a_banner_and_keeps_the_image(qtbot, make_window, tmp_path):
    window, lab = _lab(qtbot, make_window)
    bad = tmp_path / "broken.png"
    bad.write_bytes(b"\x89PNG\r\n\x1a\n" + b"garbage" * 50)
    _open(qtbot, lab, str(bad))
    assert "Could not open" in lab.error_text
    assert lab.image_path == ""
    assert lab.runner.current.ctx.label == "textures"
    assert lab.photo_view.image.image is not None
    window.close()


def test_opened_file_too_many_clusters_and_session_round_trip(qtbot, make_window, tmp_path):
    window, lab = _lab(qtbot, make_window, method="kmeans_colour", features="rgb", init="random", K=2)
    path = _two_colour_png(tmp_path)
    _open(qtbot, lab, path)
    assert lab.image_path == path
    qtbot.waitUntil(lambda: lab.runner.current is not None and lab.runner.current.ctx.label == "two.png",
                    timeout=20_000)
    assert lab.runner.current.ctx.shape == (40, 60)
    # K larger than the number of distinct colours: a banner, nothing lost
    lab.form.set_values({"K": 5})
    lab.on_param_changed("K")
    qtbot.waitUntil(lambda: lab.error_text != "", timeout=20_000)
    assert "distinct" in lab.error_text
    assert lab.image_path == path
    # clicked seeds: two seeds for K = 2
    lab.form.set_values({"K": 2, "init": "clicked"})
    lab.on_param_changed("init")
    assert "Click 2 seed" in lab.error_text
    lab._pixel_clicked(lab.photo_view, 5, 5, 1)
    lab._pixel_clicked(lab.photo_view, 5, 50, 1)
    snap = _run(qtbot, lab, 2)
    assert lab.error_text == ""
    ctx = snap.ctx
    np.testing.assert_array_equal(ctx.seeds, [5 * 60 + 5, 5 * 60 + 50])
    np.testing.assert_allclose(ctx.init_centres, ctx.X[ctx.seeds])
    assert len(lab.photo_view.markers.data) == 2
    saved = lab.session_state()
    assert saved["user_data"]["path"] == path and len(saved["user_data"]["seeds"]) == 2
    # change everything, then restore
    lab.clear_seeds()
    lab.form.set_values({"image": "coins", "init": "random"})
    lab.on_param_changed("image")
    assert lab.image_path == "" and lab.seeds == []
    lab.restore_session(saved)
    assert lab.image_path == path and len(lab.seeds) == 2
    qtbot.waitUntil(lambda: lab.runner.current is not None, timeout=20_000)
    assert lab.runner.current.ctx.label == "two.png"
    np.testing.assert_array_equal(lab.runner.current.ctx.seeds, ctx.seeds)
    # a malformed session keeps the current state
    bad = dict(saved, user_data={"path": path, "seeds": [[2.0, "x"]]})
    with pytest.raises(ValueError):
        lab.restore_session(bad)
    assert len(lab.seeds) == 2 and lab.image_path == path
    window.close()


def test_window_larger_than_the_image_gives_a_banner(qtbot, make_window):
    window, lab = _lab(qtbot, make_window)
    lab.form.set_values({"resolution": 32, "window": 41})
    lab.on_param_changed("window")
    qtbot.waitUntil(lambda: lab.error_text != "", timeout=20_000)
    assert "larger than the image" in lab.error_text
    assert lab.form.value("window") == 41  # the user's setting is kept
    lab.form.set_values({"window": 9})
    lab.on_param_changed("window")
    qtbot.waitUntil(lambda: lab.runner.current is not None, timeout=20_000)
    assert lab.error_text == ""
    assert max(lab.runner.current.ctx.shape) == 32
    window.close()


def test_model_order_side_task(qtbot, make_window):
    window, lab = _lab(qtbot, make_window, resolution=48, window=7)
    lab.run_model_order()
    task = lab._tasks["order"]
    qtbot.waitUntil(lambda: not task.busy, timeout=60_000)
    ks = list(run.MODEL_ORDER_KS)
    np.testing.assert_array_equal(lab.bic.x, ks)
    assert np.all(np.isfinite(lab.bic.y))
    assert lab.chosen_k_bic == ks[int(np.argmin(lab.bic.y))]
    np.testing.assert_array_equal(lab.stab.x, ks)
    assert np.all((lab.stab.y >= 0) & (lab.stab.y <= 1))
    assert lab.chosen_k_stability in ks
    assert len(lab.bic_best.data) == 1 and len(lab.stab_best.data) == 1
    assert lab.thumbs.image.image.shape[1] > 6 * 48  # one thumbnail per K
    assert "chooses" in lab.order_label.text()
    window.close()


def test_restarts_side_task_and_kmeanspp_map(qtbot, make_window):
    window, lab = _lab(qtbot, make_window, method="kmeans_colour", image="coffee", resolution=64, K=5)
    lab.run_restarts()
    task = lab._tasks["restarts"]
    qtbot.waitUntil(lambda: not task.busy, timeout=60_000)
    res = lab._restarts
    assert res.done and len(res.inertias) == 20
    x, y = lab.restarts_points.getData()
    np.testing.assert_array_equal(x, np.arange(1, 21))
    np.testing.assert_allclose(y, res.inertias)
    assert 1 <= res.n_distinct <= 20 and f"{res.n_distinct} distinct" in lab.restarts_label.text()
    assert len(res.maps) == 4
    lab.d2_slider.setValue(2)
    shown = lab.d2_view.image.image
    assert shown.shape == res.shape
    np.testing.assert_allclose(shown.sum(), 1.0, rtol=1e-4)
    # a chosen centre has probability 0 of being chosen again
    w = res.shape[1]
    assert shown[res.chosen[0] // w, res.chosen[0] % w] == 0
    window.close()
