"""The segmentation lab's default teaches model-order selection: on the shipped mosaic of four
textures the default run finds the four quadrants, and BIC and split-half stability both choose
K = 4; on a photo both curves show what was computed; the Photo box names an opened file."""

import numpy as np
import pytest
from PIL import Image
from scipy.optimize import linear_sum_assignment

from app.labs.segmentation import run, side_tasks
from smlengine.datasets import list_photos


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


def _quadrant_accuracy(labels, shape, window):
    """Pixel accuracy against the 2 × 2 quadrants under the best relabelling, pixels within
    half a window of a quadrant border left out."""
    h, w = shape
    truth = np.zeros(shape, np.int64)
    truth[: h // 2, w // 2:] = 1
    truth[h // 2:, : w // 2] = 2
    truth[h // 2:, w // 2:] = 3
    r = window // 2
    rows = np.arange(h)[:, None] + 0.5
    cols = np.arange(w)[None, :] + 0.5
    keep = (np.abs(rows - h / 2) > r) & (np.abs(cols - w / 2) > r)
    lab = np.asarray(labels, np.int64).reshape(shape)[keep]
    k = max(4, int(lab.max()) + 1)
    C = np.zeros((4, k))
    np.add.at(C, (truth[keep], lab), 1)
    r_, c_ = linear_sum_assignment(-C)
    return C[r_, c_].sum() / keep.sum()


def _order(qtbot, lab):
    lab.run_model_order()
    task = lab._tasks["order"]
    qtbot.waitUntil(lambda: not task.busy, timeout=120_000)
    assert "chooses" in lab.order_label.text(), lab.order_label.text()


def test_default_run_finds_the_four_textures_and_both_criteria_choose_four(qtbot, make_window):
    window, lab = _lab(qtbot, make_window)
    params = lab.run_params
    assert params["image"] == "textures" and params["K"] == 4 and params["method"] == "multinomial"
    r = lab.runner
    lab.run_to(10_000)
    qtbot.waitUntil(lambda: r.error is not None or r.finished, timeout=60_000)
    assert r.error is None, r.error
    qtbot.waitUntil(lambda: r.current is r.timeline.last, timeout=10_000)
    snap = r.current
    assert snap.engine.converged
    accuracy = _quadrant_accuracy(snap.engine.labels, snap.ctx.shape, int(params["window"]))
    assert accuracy >= 0.9, accuracy
    # the segmentation drawn is that run's
    from app.labs.segmentation.lab import PALETTE

    np.testing.assert_array_equal(lab.seg_view.image.image,
                                  PALETTE[np.asarray(snap.engine.labels).reshape(snap.ctx.shape) % len(PALETTE)])
    # Choose K: BIC and stability both find the four textures
    _order(qtbot, lab)
    ks = list(run.MODEL_ORDER_KS)
    np.testing.assert_array_equal(lab.bic.x, ks)
    assert lab.chosen_k_bic == 4 == ks[int(np.argmin(lab.bic.y))]
    res = lab._order_stab.result
    assert lab.chosen_k_stability == 4 == res.chosen_k(run.STRENGTH_THRESHOLD)
    assert "K = 4" in lab.order_label.text()
    # the BIC's honest counts are on screen: n non-overlapping windows, m free parameters
    item = lab._order_items[4]
    l = int(params["window"])
    h, w = snap.ctx.shape
    assert item.n == (h // l) * (w // l) and len(item.dispersion) == 2 and min(item.dispersion) > 1.0
    assert item.m == 3 + 4 * ((params["bins"] - 1) + (10 - 1))
    text = lab.maths.toPlainText()
    assert "m log n" in text and f"= {3 + params['K'] * (params['bins'] - 1 + 9)} for K = 4" in text
    window.close()


def test_choose_k_on_a_photo_shows_both_curves_as_computed(qtbot, make_window):
    window, lab = _lab(qtbot, make_window, image="coffee", resolution=32, window=5)
    _order(qtbot, lab)
    items = lab._order_items
    ks = sorted(items)
    assert ks == list(run.MODEL_ORDER_KS)
    np.testing.assert_array_equal(lab.bic.x, ks)
    np.testing.assert_allclose(lab.bic.y, [items[k].bic for k in ks])
    res = lab._order_stab.result
    np.testing.assert_array_equal(lab.stab.x, res.ks)
    np.testing.assert_allclose(lab.stab.y, res.strength)
    assert np.all((lab.stab.y >= 0) & (lab.stab.y <= 1))
    assert lab.chosen_k_bic == ks[int(np.argmin(lab.bic.y))]
    assert lab.chosen_k_stability == res.chosen_k(run.STRENGTH_THRESHOLD)
    bx, by = lab.bic_best.getData()
    assert bx[0] == lab.chosen_k_bic and by[0] == pytest.approx(min(lab.bic.y))
    sx, sy = lab.stab_best.getData()
    assert sx[0] == lab.chosen_k_stability
    h, w = lab.runner.current.ctx.shape
    assert items[2].n == (h // 5) * (w // 5) and f"n = {items[2].n} windows" in lab.order_label.text()
    window.close()


def test_photo_box_names_an_opened_file(qtbot, make_window, tmp_path):
    window, lab = _lab(qtbot, make_window)
    combo = lab.form.widgets["image"]
    assert combo.currentText() == "textures"
    img = np.random.default_rng(0).integers(0, 256, (40, 60, 3), dtype=np.uint8)  # colours enough for any K
    path = str(tmp_path / "mine.png")
    Image.fromarray(img).save(path)
    lab.open_image_file(path)
    qtbot.waitUntil(lambda: lab.runner.current is not None and lab.runner.current.ctx.label == "mine.png",
                    timeout=20_000)
    assert "mine.png" in combo.currentText()
    assert lab.form.value("image") in list_photos()  # the parameters stay valid
    saved = lab.session_state()
    # choosing a bundled photo drops the file and its entry
    combo.setCurrentIndex(combo.findData("coins"))
    assert lab.image_path == "" and combo.currentText() == "coins"
    assert all("mine.png" not in combo.itemText(i) for i in range(combo.count()))
    # a restored session names the file again
    lab.restore_session(saved)
    assert lab.image_path == path and "mine.png" in combo.currentText()
    window.close()


def test_too_few_windows_for_bic_is_a_clear_message():
    params = dict(image="textures", resolution=32, method="multinomial", K=4, window=31, bins=8, histograms="grey+lbp",
                  features="lab", position_weight=0.5, init="k-means++", pseudocount=0.01, max_iter=50)
    with pytest.raises(ValueError, match="too few to compare K"):
        list(side_tasks.model_order("multinomial", params, 0, ("photo", "textures")))
