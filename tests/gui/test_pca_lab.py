"""The PCA lab: static views from the exact fit, the live power method, the d slider,
scores, drawing and novelty, opening image stacks (good and bad), sessions, the race."""

import json

import numpy as np
import pytest

from app.labs.pca import run


def _lab(qtbot, make_window):
    window = make_window(lab_ids=["pca"])
    lab = window.show_lab("pca")
    _drawn(qtbot, lab)
    return window, lab


def _drawn(qtbot, lab):
    """Wait until the run's first snapshot is drawn (static views included)."""
    r = lab.runner
    qtbot.waitUntil(lambda: r.current is not None and lab._data is r.current.data, timeout=20_000)


def _run_to(qtbot, lab, n):
    lab.run_to(n)
    r = lab.runner
    qtbot.waitUntil(lambda: r.finished or (r.timeline.last is not None and r.timeline.last.step >= n), timeout=20_000)
    r.flush()


def _open(qtbot, lab, path):
    lab.open_images(str(path))
    assert lab.task("open").wait(20)


def test_static_views_show_the_exact_fit(qtbot, make_window):
    window, lab = _lab(qtbot, make_window)
    data = lab._data
    assert data.n == 183 and data.shape == (8, 8) and data.K == 64  # the course's 3s
    h, w = data.shape
    np.testing.assert_allclose(lab.gallery.images["mean"].image, data.mean.reshape(h, w))
    eigen = lab.gallery.images["eigen"].image
    first = eigen[:h, :w]
    xi1 = data.components[0].reshape(h, w)
    np.testing.assert_allclose(first, xi1 / np.abs(xi1).max())
    assert lab.gallery.images["eigen"].levels.tolist() == [-1, 1]  # symmetric: white is zero
    x, y = lab.scree_curve.x, lab.scree_curve.y  # the series' data (the item clips to the view)
    np.testing.assert_allclose(y, 100 * data.eigenvalues / data.total_variance)
    np.testing.assert_allclose(lab.cumulative_curve.y[-1], 100.0)
    assert lab.gap_line.value() == data.gap + 0.5
    ex, ey = lab.error_curve.x, lab.error_curve.y
    np.testing.assert_array_equal(ex, np.arange(65))
    np.testing.assert_allclose(ey, data.errors / data.n)
    # changing the class refits: all digits
    lab.form.set_value("digit", "all")
    qtbot.waitUntil(lambda: lab._data is not None and lab._data.n == 1797, timeout=20_000)
    assert sorted(it.name() for it in lab._scatter_items) == [f"digit {i}" for i in range(10)]
    window.close()


def test_power_method_curves_and_iterate(qtbot, make_window):
    window, lab = _lab(qtbot, make_window)
    _run_to(qtbot, lab, 30)
    snap = lab.runner.current
    assert snap.step == 30
    x, y = lab.rayleigh_curve.x, lab.rayleigh_curve.y
    np.testing.assert_array_equal(x, np.arange(31))
    steps = list(lab.runner.timeline)
    np.testing.assert_allclose(y, [s.rayleigh for s in steps])
    # the Rayleigh quotient approaches the exact λ1 from below, the angle shrinks
    lam1 = lab._data.eigenvalues[0]
    assert y[0] < y[-1] <= lam1 * (1 + 1e-12)
    ay = lab.angle_curve.y
    assert ay[-1] < ay[0] / 100
    # the iterate image is the current vector (sign-fixed), on a symmetric scale
    img = lab.iterate_view.images["v"].image
    np.testing.assert_allclose(img.ravel(), run.sign_fixed(np.asarray(snap.vector)))
    lo, hi = lab.iterate_view.images["v"].levels
    assert lo == -hi
    assert "Power method" in lab.maths.toPlainText() and "λ" in lab.maths.toPlainText()
    window.close()


def test_d_slider_reconstructs_without_restarting(qtbot, make_window):
    window, lab = _lab(qtbot, make_window)
    _run_to(qtbot, lab, 5)
    current = lab.runner.current
    data = lab._data
    lab.d_slider.setValue(12)
    assert lab.d == 12 and lab.d_box.value() == 12
    img = lab.recon_view.images["strip"].image
    h, w = data.shape
    pad = 2
    rec = run.reconstruct(data, data.sample, 12)
    # group 0: originals in row 0, reconstructions in row 1
    np.testing.assert_allclose(img[h + pad: 2 * h + pad, :w], rec[0].reshape(h, w))
    np.testing.assert_allclose(img[:h, :w], data.X[data.sample[0]].reshape(h, w))
    num = run.compression_numbers(data, 12)
    assert f"{num['stored']:,}" in lab.compression_label.text()
    assert lab.scree_d_line.value() == 12
    assert lab.runner.current is current  # no restart
    # d = D reconstructs exactly
    lab.d_box.setValue(64)
    np.testing.assert_allclose(run.reconstruct(data, data.sample, 64), data.X[data.sample], atol=1e-9)
    window.close()


def test_scatter_click_shows_digit_and_reconstruction(qtbot, make_window):
    window, lab = _lab(qtbot, make_window)
    item = lab._scatter_items[0]
    spot = item.points()[7]
    item.sigClicked.emit(item, [spot], None)
    i = int(spot.data())
    assert lab.selected == i
    data = lab._data
    h, w = data.shape
    pair = lab.selected_view.images["pair"].image
    np.testing.assert_allclose(pair[:, :w], data.X[i].reshape(h, w))
    np.testing.assert_allclose(pair[:, w + 2:], run.reconstruct(data, [i], lab.d).reshape(h, w))
    np.testing.assert_allclose(lab.selected_marker.getData()[0], [data.scores[i, 0]])
    window.close()


def test_drawn_letter_is_a_novelty_and_a_digit_is_not(qtbot, make_window):
    window, lab = _lab(qtbot, make_window)
    data = lab._data
    lab.select(int(data.sample[2]))
    lab.copy_selected_to_canvas()
    r = lab.drawing_result()
    assert not r["novelty"]
    np.testing.assert_allclose(lab.draw_view.images["rec"].image, r["reconstruction"])
    letter = np.zeros((8, 8))
    letter[1, 1:7] = 16  # a "T"
    letter[1:7, 3:5] = 16
    lab.canvas.set_pixels(letter)
    r = lab.drawing_result()
    assert r["novelty"] and r["residual"] > r["threshold"]
    assert "novelty" in lab.novelty_label.text()
    c, rec, res = run.project(data, letter, lab.d)
    np.testing.assert_allclose(lab.coeff_bars.opts["height"], c)
    # painting with the mouse (item coordinates: x = column, y = row)
    from PySide6 import QtCore
    lab.canvas.clear()
    lab.canvas.paint_at(QtCore.QPointF(2.5, 6.5))
    assert lab.canvas.pixels[6, 2] == data.hi and lab.drawn[6, 2] == data.hi
    window.close()


def _png_folder(tmp_path, sizes):
    from PIL import Image

    folder = tmp_path / "mixed"
    folder.mkdir()
    for i, (h, w) in enumerate(sizes):
        Image.fromarray((np.arange(h * w).reshape(h, w) * (i + 1) % 255).astype(np.uint8)).save(folder / f"{i}.png")
    return folder


def test_bad_image_stacks_give_a_banner_and_keep_the_data(qtbot, make_window, tmp_path):
    window, lab = _lab(qtbot, make_window)
    _run_to(qtbot, lab, 3)
    before, current = lab._data, lab.runner.current
    one = tmp_path / "one.npy"
    np.save(one, np.random.default_rng(0).random((1, 8, 8)))
    flat = tmp_path / "flat.npy"
    np.save(flat, np.ones((5, 6, 6)))
    text = tmp_path / "text.npy"
    text.write_text("hello")
    cases = [(one, "at least 2 images"), (flat, "identical"),
             (_png_folder(tmp_path, [(8, 8), (9, 8)]), "different sizes"),
             (tmp_path / "nothing.npz", "no such file"), (text, "not a readable")]
    for path, expected in cases:
        lab.clear_error()
        _open(qtbot, lab, path)
        assert expected in lab.error_text, (path, lab.error_text)
        assert lab.open_path == ""
        assert lab._data is before and lab.runner.current is current
        assert "shipped" in lab.data_label.text()
    window.close()


def test_open_stack_and_session_round_trip(qtbot, make_window, tmp_path):
    window, lab = _lab(qtbot, make_window)
    rng = np.random.default_rng(1)
    stack = rng.random((30, 6, 5)) * 255
    path = tmp_path / "faces.npz"
    np.savez(path, images=stack)
    _open(qtbot, lab, path)
    _drawn(qtbot, lab)
    assert lab.error_text == ""
    assert lab._data.shape == (6, 5) and lab._data.n == 30 and lab._data.K == 30
    np.testing.assert_allclose(lab.gallery.images["mean"].image, stack.mean(axis=0))
    assert set(np.unique(lab._data.labels)) == {-1}
    assert lab.canvas.pixels.shape == (6, 5)
    lab.d_slider.setValue(7)
    drawing = np.zeros((6, 5))
    drawing[2, 1:4] = 200.0
    lab.canvas.set_pixels(drawing)
    drawing = lab.canvas.pixels.copy()  # clipped to the data's value range
    assert drawing[2, 2] == 200.0 and drawing[0, 0] == lab._data.lo
    state = json.loads(json.dumps(lab.session_state()))
    assert state["user_data"]["path"] == str(path) and state["user_data"]["d"] == 7

    # back to the digits, then restore the session
    lab.use_digits()
    _drawn(qtbot, lab)
    assert lab._data.shape == (8, 8)
    lab.restore_session(state)
    _drawn(qtbot, lab)
    assert lab.open_path == str(path) and lab._data.shape == (6, 5)
    assert lab.d == 7 and lab.d_slider.value() == 7
    np.testing.assert_allclose(lab.canvas.pixels, drawing)
    # a malformed session changes nothing
    bad = json.loads(json.dumps(state))
    bad["user_data"]["d"] = "many"
    with pytest.raises(ValueError):
        lab.restore_session(bad)
    assert lab.open_path == str(path) and lab.d == 7
    window.close()


def test_solver_race(qtbot, make_window):
    window, lab = _lab(qtbot, make_window)
    lab.start_race()
    assert lab.task("race").wait(60)
    rows = {r["method"]: r for r in lab.race_rows}
    assert set(rows) == {"svd", "eigh", "randomized", "power"}
    assert rows["svd"]["angle"] < 1e-8 and rows["eigh"]["angle"] < 1e-8
    assert rows["power"]["angle"] < 1e-4
    np.testing.assert_allclose(lab.race_bars.opts["height"], [1e3 * rows[m]["seconds"] for m, _ in run.RACE_SOLVERS])
    assert lab.race_table.item(3, 2).text() == str(rows["power"]["iterations"])
    window.close()


def test_maths_panel_has_the_current_numbers(qtbot, make_window):
    window, lab = _lab(qtbot, make_window)
    lab.d_slider.setValue(3)
    data = lab._data
    stored = f"{run.compression_numbers(data, 3)['stored']:,}"
    qtbot.waitUntil(lambda: stored in lab.maths.toPlainText(), timeout=5_000)  # follows the slider shortly
    text = lab.maths.toPlainText()
    assert "183·64 = 11,712" in text
    assert f"{run.compression_numbers(data, 3)['stored']:,}" in text
    assert "ξ3" in text.replace(" ", "") or "ξ\u20083" in text
    window.close()
