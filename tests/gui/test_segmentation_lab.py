"""The segmentation lab: the drawn segmentation and curves follow the engine (k-means objective
never increases, EM log-likelihood never decreases as drawn), the uncertainty map, the clicked
pixel's terms, clicked seeds, opened files (bad files, too many clusters, too large a window
give a banner and lose nothing), sessions, the model-order and restarts side tasks, the linked
views (a rectangle brushed on the photo selects exactly its pixels and highlights exactly those
of the scatter's subsample, and the other way round) and k-means versus EM from the same
initial centres (both maps equal the engines' labels, the agreement a brute-force matching)."""

import numpy as np
import pytest
from PIL import Image

from app.labs.segmentation import run, side_tasks
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
    assert "Objective" in lab.objective_panel.labels[0]
    window.close()


def test_method_names_its_panels(qtbot, make_window):
    window, lab = _lab(qtbot, make_window, method="gmm", image="coffee", K=3)
    assert lab.objective_panel.labels == ("Log-likelihood", "iteration", "ℓ")
    assert lab.terms_panel.labels[0] == "Log-terms" and "g(x" in lab.terms_panel.labels[2]
    assert lab.cluster_panel.labels == ("Means μ<sub>k</sub>", "cluster k", "share of pixels")
    lab.form.set_value("method", "multinomial")
    lab.on_param_changed("method")
    assert lab.objective_panel.labels == ("Log-likelihood", "iteration", "ℓ (penalised)")
    assert lab.cluster_panel.labels[0] == "Histograms t<sub>k</sub>"
    assert lab.pixel_panel.labels[1] == lab.cluster_panel.labels[1]
    lab.form.set_value("method", "kmeans_colour")
    lab.on_param_changed("method")
    assert lab.objective_panel.labels[:2] == ("Objective J", "iteration") and lab.objective_panel.labels[2] == "J"
    assert lab.terms_panel.labels[0] == "Squared distances"
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


# ----------------------------------------------------------------------------- linked views


class _Drag:
    """A finished left-button drag between two scene points (what pyqtgraph's scene delivers)."""

    def __init__(self, start, end):
        self._start, self._end = start, end
        self.accepted = False

    def button(self):
        from PySide6 import QtCore

        return QtCore.Qt.MouseButton.LeftButton

    def buttonDownScenePos(self):
        return self._start

    def scenePos(self):
        return self._end

    def isStart(self):
        return False

    def isFinish(self):
        return True

    def accept(self):
        self.accepted = True


def _drag(vb, x0, y0, x1, y1):
    from PySide6 import QtCore

    ev = _Drag(vb.mapViewToScene(QtCore.QPointF(x0, y0)), vb.mapViewToScene(QtCore.QPointF(x1, y1)))
    vb.mouseDragEvent(ev)
    assert ev.accepted


def _mouse_drag(qtbot, view, x0, y0, x1, y1):
    """Press, move and release the left button on ``view`` between two points of the image."""
    from PySide6 import QtCore, QtTest

    def at(x, y):
        return view.mapFromScene(view.vb.mapViewToScene(QtCore.QPointF(x, y)))

    a, b = at(x0, y0), at(x1, y1)
    port = view.viewport()
    left, none = QtCore.Qt.MouseButton.LeftButton, QtCore.Qt.KeyboardModifier.NoModifier
    QtTest.QTest.mousePress(port, left, none, a)
    for t in np.linspace(0.2, 1.0, 5):
        QtTest.QTest.mouseMove(port,
                               QtCore.QPoint(round(a.x() + t * (b.x() - a.x())), round(a.y() + t * (b.y() - a.y()))))
        qtbot.wait(5)
    QtTest.QTest.mouseRelease(port, left, none, b)
    assert view.brush.band.isVisible()


def _show_link_tab(qtbot, lab):
    from app.labs.segmentation.lab import LINK_TAB

    lab.tabs.setCurrentIndex(LINK_TAB)
    qtbot.waitUntil(lambda: lab.link_view.image.image is not None, timeout=5_000)


def _brush_rgba(item):
    return np.array([b.color().getRgb() for b in item.data["brush"]])


def test_brushing_the_photo_highlights_exactly_those_pixels_in_the_scatter(qtbot, make_window):
    window, lab = _lab(qtbot, make_window)
    snap = _run(qtbot, lab, 4)
    _show_link_tab(qtbot, lab)
    ctx, p = snap.ctx, snap.ctx.projection
    h, w = ctx.shape
    n = h * w
    # the projection: computed once per run, a seeded subsample, the 2-D PCA of the local
    # histograms (as fractions), up to the sign of each axis
    assert all(s.ctx.projection is p for s in lab.runner.history())
    assert len(p.sub) == min(n, run.SCATTER_MAX_POINTS) and np.all(np.diff(p.sub) > 0)
    np.testing.assert_array_equal(run.feature_projection(ctx).sub, p.sub)
    Z = ctx.H.reshape(n, -1) / float(ctx.params["window"]) ** 2
    _, _, Vt = np.linalg.svd(Z[p.sub] - Z[p.sub].mean(axis=0), full_matrices=False)
    np.testing.assert_allclose(np.abs(p.xy), np.abs((Z - Z[p.sub].mean(axis=0)) @ Vt[:2].T), atol=1e-5)
    # the scatter shows the subsample at its projection, coloured by the current cluster
    x, y = lab.scatter.getData()
    np.testing.assert_allclose(x, p.xy[p.sub, 0])
    np.testing.assert_allclose(y, p.xy[p.sub, 1])
    labels = np.asarray(snap.engine.labels)[p.sub]
    np.testing.assert_array_equal(_brush_rgba(lab.scatter)[:, :3], PALETTE[labels % len(PALETTE)])
    # drag a rectangle on the photo with the mouse: columns 10 .. 31, rows 5 .. 20 (pixel centres at +0.5)
    _mouse_drag(qtbot, lab.link_view, 10.0, 5.0, 31.0, 20.0)
    assert lab.brushed[0] == "image"
    expected = np.zeros((h, w), bool)
    expected[5:20, 10:31] = True
    np.testing.assert_array_equal(lab.brush_mask.reshape(h, w), expected)
    np.testing.assert_array_equal(lab.link_view.mask.image[..., 3] == 0, expected)
    rows, cols = np.divmod(p.sub, w)
    inside = (rows >= 5) & (rows < 20) & (cols >= 10) & (cols < 31)
    assert 0 < inside.sum() < len(p.sub)
    sx, sy = lab.scatter_sel.getData()
    np.testing.assert_allclose(sx, p.xy[p.sub[inside], 0])
    np.testing.assert_allclose(sy, p.xy[p.sub[inside], 1])
    alpha = _brush_rgba(lab.scatter)[:, 3]
    np.testing.assert_array_equal(alpha == 255, inside)
    assert f"{int(expected.sum()):,}</b> pixels" in lab.link_label.text()
    # later frames recolour by the new clusters; the positions stay
    snap = _run(qtbot, lab, 10)
    labels = np.asarray(snap.engine.labels)[p.sub]
    np.testing.assert_array_equal(_brush_rgba(lab.scatter)[:, :3], PALETTE[labels % len(PALETTE)])
    np.testing.assert_allclose(lab.scatter.getData()[0], p.xy[p.sub, 0])
    np.testing.assert_array_equal(_brush_rgba(lab.scatter)[:, 3] == 255, inside)
    window.close()


def test_brushing_the_scatter_highlights_those_pixels_on_the_photo(qtbot, make_window):
    window, lab = _lab(qtbot, make_window, method="kmeans_colour", image="coffee", K=4, resolution=96)
    snap = _run(qtbot, lab, 3)
    _show_link_tab(qtbot, lab)
    ctx, p = snap.ctx, snap.ctx.projection
    h, w = ctx.shape
    x0, x1 = np.quantile(p.xy[:, 0], [0.3, 0.6])
    y0, y1 = np.quantile(p.xy[:, 1], [0.2, 0.7])
    lab.brush_scatter(x0, y0, x1, y1)
    expected = ((p.xy[:, 0] >= x0) & (p.xy[:, 0] <= x1) & (p.xy[:, 1] >= y0) & (p.xy[:, 1] <= y1))
    np.testing.assert_array_equal(lab.brush_mask, expected)
    np.testing.assert_array_equal(lab.link_view.mask.image[..., 3] == 0, expected.reshape(h, w))
    # every pixel in the rectangle, drawn in the scatter or not
    assert expected.sum() > expected[p.sub].sum() > 0
    sx, _ = lab.scatter_sel.getData()
    np.testing.assert_allclose(sx, p.xy[p.sub[expected[p.sub]], 0])
    # a drag in the scatter brushes too
    _drag(lab.scatter_panel.plot_item.getViewBox(), x0, y0, x1, y1)
    assert lab.brushed[0] == "scatter"
    np.testing.assert_allclose(lab.brushed[1:5], (x0, y0, x1, y1), rtol=1e-6, atol=1e-9)
    # another K: the same feature plane, the same pixels stay brushed
    lab.form.set_values({"K": 3})
    lab.on_param_changed("K")
    qtbot.waitUntil(lambda: lab.runner.current is not None and lab.runner.current.ctx is not ctx, timeout=20_000)
    _run(qtbot, lab, 1)
    assert lab.brushed is not None and lab.brush_mask.sum() == pytest.approx(expected.sum(), abs=expected.size * 1e-3)
    # another feature space: the rectangle is dropped; Clear removes a photo brush
    lab.form.set_values({"features": "rgb"})
    lab.on_param_changed("features")
    qtbot.waitUntil(lambda: lab.runner.current is not None and lab.runner.current.ctx.params["features"] == "rgb",
                    timeout=20_000)
    _run(qtbot, lab, 1)
    assert lab.brushed is None and lab.brush_mask is None and not lab.link_view.mask.isVisible()
    lab.brush_image(0, 0, 10, 10)
    assert lab.brush_mask.sum() == 100 and lab.clear_brush_button.isEnabled()
    lab.clear_brush_button.click()
    assert lab.brush_mask is None and len(lab.scatter_sel.getData()[0]) == 0
    window.close()


# ----------------------------------------------------------------------------- k-means versus EM


def _wait_compare(qtbot, lab):
    lab.run_compare()
    task = lab._tasks["compare"]
    qtbot.waitUntil(lambda: not task.busy, timeout=60_000)
    res = lab.compare_result
    assert res is not None and res.done, lab.compare_label.text()
    return res


def _best_permutation_agreement(a, b, k):
    import itertools

    return max(float(np.mean(a == np.asarray(perm)[b])) for perm in itertools.permutations(range(k)))


def test_kmeans_versus_multinomial_em_from_the_same_centres(qtbot, make_window):
    from smlengine.cluster import KMeans, MultinomialMixture, kmeans_plusplus
    from smlengine.features import local_histograms

    window, lab = _lab(qtbot, make_window, resolution=64, window=9, bins=12, K=3, histograms="grey")
    _run(qtbot, lab, 1)
    res = _wait_compare(qtbot, lab)
    ctx = lab.runner.current.ctx
    assert res.family == "hist" and res.shape == ctx.shape
    H = local_histograms(ctx.image, window=9, bins=12).reshape(-1, 12).astype(float)
    F = H / 81.0
    # the shared start: the run's k-means++ pixels; k-means at their fractions, EM at t_k = (H + 1)/(l² + d)
    rows = kmeans_plusplus(F, 3, np.random.default_rng([lab.seed, 4242]))  # the engine's seeding, no other
    np.testing.assert_array_equal(res.rows, rows)
    np.testing.assert_allclose(res.kmeans_init, F[rows])
    np.testing.assert_allclose(res.em_init, (H[rows] + 1) / (81 + 12))
    km = KMeans(3, init=F[rows], max_iter=200, tol=1e-6).fit(F)
    em = MultinomialMixture(3, pseudocount=0.01, max_iter=200, tol=1e-7, probabilities_init=(H[rows] + 1) / 93).fit(H)
    np.testing.assert_array_equal(res.kmeans_labels, km.labels_)
    np.testing.assert_array_equal(res.em_labels, em.labels_)
    np.testing.assert_allclose(res.kmeans_objective, km.inertia_)
    np.testing.assert_allclose(res.em_objective, em.log_likelihood_[-1])
    # the maps side by side: k-means labels, EM labels renamed to the matched k-means cluster
    np.testing.assert_array_equal(lab.km_view.image.image, PALETTE[km.labels_.reshape(ctx.shape) % len(PALETTE)])
    matched = res.matching[em.labels_]
    np.testing.assert_array_equal(lab.em_view.image.image, PALETTE[matched.reshape(ctx.shape) % len(PALETTE)])
    # agreement = the best relabelling, found by brute force over all 3! permutations
    assert res.agreement == pytest.approx(_best_permutation_agreement(km.labels_, em.labels_, 3))
    assert res.agreement == pytest.approx(np.mean(km.labels_ == matched))
    assert f"{100 * res.agreement:.1f}%" in lab.compare_label.text()
    differ = (lab.diff_view.image.image != 235).any(axis=2)
    np.testing.assert_array_equal(differ.ravel(), km.labels_ != matched)
    # the curves: J per k-means iteration (never up), ℓ per EM iteration (never down)
    np.testing.assert_allclose(lab.km_curve.y, km.objective_)
    np.testing.assert_allclose(lab.em_curve.y, em.log_likelihood_)
    assert np.all(np.diff(lab.km_curve.y) <= 1e-9 * lab.km_curve.y[:-1])
    assert np.all(np.diff(lab.em_curve.y) >= -1e-9 * np.abs(lab.em_curve.y[1:]))
    window.close()


def test_kmeans_versus_gaussian_em_from_the_same_random_pixels(qtbot, make_window):
    from smlengine.cluster import KMeans
    from smlengine.features import pixel_features
    from smlengine.mixture import GaussianMixture

    window, lab = _lab(qtbot, make_window, method="gmm", image="coffee", resolution=48, K=3, init="random",
                       features="rgb")
    _run(qtbot, lab, 1)
    res = _wait_compare(qtbot, lab)
    X = pixel_features(lab.runner.current.ctx.image, kind="rgb")
    assert res.family == "colour" and len(np.unique(X[res.rows], axis=0)) == 3
    km = KMeans(3, init=X[res.rows], max_iter=200, tol=1e-6).fit(X)
    gm = GaussianMixture(3, init=X[res.rows], max_iter=200, tol=1e-7, convergence="relative", reg_covar=1e-5).fit(X)
    np.testing.assert_array_equal(res.kmeans_labels, km.labels_)
    np.testing.assert_array_equal(res.em_labels, gm.labels_)
    assert res.agreement == pytest.approx(_best_permutation_agreement(km.labels_, gm.labels_, 3))
    # the same seed gives the same comparison
    first = res
    res = _wait_compare(qtbot, lab)
    np.testing.assert_array_equal(res.rows, first.rows)
    assert res.agreement == first.agreement
    window.close()


def test_pixels_in_rect_and_matched_agreement_by_hand():
    mask = run.pixels_in_rect((4, 5), 0.6, 1.4, 2.5, 3.6).reshape(4, 5)
    expected = np.array([[(r + 0.5 >= 1.4) and (r + 0.5 <= 3.6) and (c + 0.5 >= 0.6) and (c + 0.5 <= 2.5)
                          for c in range(5)] for r in range(4)])
    np.testing.assert_array_equal(mask, expected)
    assert mask.sum() == 3 * 2  # rows 1..3, columns 1..2
    a = np.array([0, 0, 1, 1, 2, 2, 2])
    b = np.array([2, 2, 0, 1, 1, 1, 1])
    agreement, perm = side_tasks.matched_agreement(a, b, 3)
    assert agreement == pytest.approx(_best_permutation_agreement(a, b, 3)) == pytest.approx(6 / 7)
    np.testing.assert_array_equal(perm, [1, 2, 0])


def test_undefined_comparison_values_are_none_and_shown_as_a_dash():
    from app.labs.segmentation import maths as seg_maths

    res = side_tasks.CompareResult(family="colour", shape=(2, 2), image=np.zeros((2, 2)), rows=np.arange(2),
                            kmeans_init=np.zeros((2, 3)), em_init=np.zeros((2, 3)), em_labels=np.zeros(4, dtype=int))
    assert res.agreement is None and res.kmeans_objective is None and res.em_objective is None
    text = seg_maths.compare_html(res)
    assert "J = —" in text and "ℓ = —" in text and "nan" not in text.lower() and "inf" not in text.lower()


@pytest.mark.parametrize("method, text", [("kmeans_colour", "Σ‖Δμ‖ = —"), ("gmm", "relative change —")])
def test_step_zero_shows_a_dash_for_the_change(qtbot, make_window, method, text):
    from app.labs.segmentation import maths as seg_maths

    window, lab = _lab(qtbot, make_window, method=method, image="coffee", resolution=48, K=3)
    _run(qtbot, lab, 2)
    first, second = lab.runner.history()[:2]
    assert text in seg_maths.maths_html(first)
    assert text not in seg_maths.maths_html(second, first)
    assert "nan" not in seg_maths.maths_html(first).lower()
    window.close()
