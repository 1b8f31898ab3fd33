"""The PCA lab at its edges: extreme values and header bombs refused before the data is
replaced, the cheaper side (covariance or Gram) named in the maths panel, few large images
opened quickly, and undefined values shown as "—", never NaN."""

import io
import zipfile

import numpy as np
import pytest

from app.labs.pca import maths, run

from pca_digits import open_lab, open_stack, wait_drawn  # noqa: E402 - shared helpers beside the tests


def _bomb(path):
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(buf, {"descr": "|V1000000000", "fortran_order": False, "shape": (2, 1, 1)})
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as zf:
        zf.writestr("images.npy", buf.getvalue() + b"\0" * 2_000_000)
    return path


def test_extreme_values_and_header_bombs_leave_the_data_as_it_was(qtbot, make_window, tmp_path):
    window, lab = open_lab(qtbot, make_window)
    rng = np.random.default_rng(0)
    good = tmp_path / "good.npy"
    np.save(good, rng.random((12, 6, 6)))
    open_stack(lab, good)
    wait_drawn(qtbot, lab)
    before, current = lab._data, lab.runner.current
    assert lab.open_path == str(good)
    huge, tiny, complex_ = tmp_path / "huge.npy", tmp_path / "tiny.npy", tmp_path / "complex.npy"
    np.save(huge, rng.random((12, 6, 6)) * 1e200)
    np.save(tiny, rng.random((12, 6, 6)) * 1e-320)
    np.save(complex_, np.zeros((12, 6, 6), complex))
    cases = [(huge, "squares overflow"), (tiny, "underflows"), (_bomb(tmp_path / "bomb.npz"), "real numbers"),
             (complex_, "complex numbers")]
    for path, words in cases:
        lab.clear_error()
        open_stack(lab, path)
        assert words in lab.error_text and path.name in lab.error_text, (path, lab.error_text)
        assert "rescale" in lab.error_text or path.suffix == ".npz" or "complex" in words
        assert lab.open_path == str(good) and lab._data is before and lab.runner.current is current
        assert good.name in lab.data_label.text()
    window.close()


def test_maths_panel_names_the_side_and_few_large_images_use_the_gram_matrix(qtbot, make_window, tmp_path):
    window, lab = open_lab(qtbot, make_window)
    assert lab._data.route == "covariance"
    lab.pause()
    qtbot.waitUntil(lambda: "covariance" in lab.maths.toPlainText(), timeout=10_000)
    assert "D = 64 ≤ n = 183" in lab.maths.toPlainText()
    stack = np.random.default_rng(1).random((3, 512, 512))
    path = tmp_path / "three.npy"
    np.save(path, stack)
    open_stack(lab, path)
    wait_drawn(qtbot, lab)
    data = lab._data
    assert lab.error_text == "" and data.route == "gram" and data.K == 3
    assert data.gap in (1, 2) and lab.gap_line.value() == data.gap + 0.5
    lab.pause()
    qtbot.waitUntil(lambda: "Gram" in lab.maths.toPlainText(), timeout=10_000)
    text = lab.maths.toPlainText()
    assert "n = 3 < D = 262144" in text and "U = A Q D" in text
    window.close()


def test_undefined_values_are_none_and_shown_as_a_dash():
    run.load_data("3")
    snaps = list(run.run_steps("3", "", 2, 1e-8, 50, 0))
    first = snaps[0]
    assert first.phase == "init" and first.change is None
    assert all(s.change is not None for s in snaps if s.phase == "iterate")
    for s in snaps:
        for name in ("change", "rate", "angle", "predicted", "exact_lambda", "rayleigh"):
            value = getattr(s, name)
            assert value is None or np.isfinite(value), (s.step, name, value)
    html = maths.power_html(first)
    assert "‖Δv‖ = —" in html and "nan" not in html.lower()
    # the last exact component has no next eigenvalue: no rate, no predicted angle
    two = np.random.default_rng(2).random((2, 4, 4))
    small = run.build_data(two, np.full(2, -1), "two images")
    assert small.gap is None and small.K == 2


def test_gap_is_defined_from_three_components(qtbot, make_window, tmp_path):
    """Two images give two eigenvalues, one gap and no largest one: None, and no gap line."""
    stack = np.random.default_rng(3).random((2, 5, 5))
    assert run.build_data(stack, np.full(2, -1), "two").gap is None
    stack = np.random.default_rng(3).random((4, 5, 5))
    assert run.build_data(stack, np.full(4, -1), "four").gap in (1, 2, 3)
    window, lab = open_lab(qtbot, make_window)
    path = tmp_path / "two.npy"
    np.save(path, np.random.default_rng(3).random((2, 5, 5)))
    open_stack(lab, path)
    wait_drawn(qtbot, lab)
    assert lab._data.gap is None and not lab.gap_line.isVisible()
    window.close()


@pytest.mark.parametrize("n, side", [(3, 512), (20, 96)])
def test_few_large_images_are_opened_in_small_memory(tmp_path, n, side):
    """In a child process: the data of n images of side × side pixels (the engine's Gram side)
    raises the peak memory by less than 30 × the images' own size, never a D × D matrix."""
    import subprocess
    import sys
    from pathlib import Path

    Image = pytest.importorskip("PIL.Image")
    rng = np.random.default_rng(4)
    folder = tmp_path / "images"
    folder.mkdir()
    for i in range(n):
        Image.fromarray((rng.random((side, side)) * 255).astype(np.uint8)).save(folder / f"{i:02d}.png")
    code = (
        "import resource, sys\n"
        "from app.labs.pca import run\n"
        "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "data = run.load_data('3', sys.argv[1])\n"
        "steps = sum(1 for _ in run.run_steps('3', sys.argv[1], 3, 1e-6, 20, 0))\n"
        "print(data.route, data.K, steps, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before)\n"
    )
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "-c", code, str(folder)], capture_output=True, text=True, cwd=root,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    route, K, steps, grown_kb = out.stdout.split()[-4:]
    assert route == "gram" and int(K) == n and int(steps) > 3
    assert int(grown_kb) * 1024 < 30 * n * side * side * 8, grown_kb
