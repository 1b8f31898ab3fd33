"""Render the five teaching scenarios of the labs' defaults, as a class sees them, and print their figures.

Each scenario is built through the app's public Python API in a main window of 1280 × 760 (a 1280 × 800
screen less its title bar) in projector mode, the window is grabbed into
``<folder>/scenario-<k>-<name>.png`` and one line of figures is printed:

1. PCA: a drawn 3 and a drawn 7 in the "3s" model, residual against the novelty threshold.
2. Segmentation: pixel accuracy of the default run on the default mosaic, K chosen by BIC and by stability.
3. Faces: grouped boxes on the astronaut and their IoU with scikit-image's LBP box.
4. PageRank: the ranks of a small space-separated edge list opened as a file.
5. Side tasks: the classifiers lab's grid search, its number of cells and whether it finished.

Run headless::

    QT_QPA_PLATFORM=offscreen .venv/bin/python build/render_scenarios.py docs/pictures

A scenario that fails prints its error and the others still run.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
import traceback
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

WIDTH, HEIGHT = 1280, 760


class Timeout(RuntimeError):
    pass


def wait(app, predicate, timeout=60.0, what="condition"):
    """Process events until ``predicate()`` holds; raise :class:`Timeout` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        app.processEvents()
        if predicate():
            return
        if time.monotonic() > deadline:
            raise Timeout(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(0.01)


def settle(app, seconds=0.5):
    """Let the window lay out and repaint."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        app.processEvents()
        time.sleep(0.01)


def make_window(lab_id):
    from app.main_window import MainWindow

    w = MainWindow(restore=False, autosave=False, lab_ids=[lab_id])
    w.resize(WIDTH, HEIGHT)
    w.show()
    w.set_projector(True)
    lab = w.show_lab(lab_id)
    return w, lab


def close_window(app, w):
    from app.tasks import live_threads
    from PySide6 import QtCore

    w.shutdown()
    w.close()
    w.deleteLater()
    pool = QtCore.QThreadPool.globalInstance()
    deadline = time.monotonic() + 10.0
    while (pool.activeThreadCount() or live_threads()) and time.monotonic() < deadline:
        app.processEvents()
        time.sleep(0.01)
    QtCore.QCoreApplication.sendPostedEvents(None, QtCore.QEvent.Type.DeferredDelete)
    app.processEvents()


def grab(app, w, path, pause=0.8):
    settle(app, pause)
    if not w.grab().save(str(path)):
        raise RuntimeError(f"could not save {path}")
    return path


def finish_run(app, lab, steps=10_000, timeout=120.0):
    """Run the lab's run to its end and wait until its last snapshot is drawn."""
    r = lab.runner
    lab.run_to(steps)
    wait(app, lambda: r.error is not None or r.finished
         or (r.timeline.last is not None and r.timeline.last.step >= steps), timeout, "the run to finish")
    if r.error is not None:
        raise RuntimeError(f"the run failed: {r.error}")
    wait(app, lambda: r.settled and r.current is r.timeline.last, 30.0, "the run to settle")
    r.flush()
    return r.current


# ----------------------------------------------------------------------------- 1. PCA
def _arc(cx, cy, rx, ry, a0, a1, n=12):
    a = np.radians(np.linspace(a0, a1, n))
    return np.c_[cx + rx * np.cos(a), cy - ry * np.sin(a)]


#: a hand's 3 and 7 as strokes through a unit box (x right, y down)
HAND = {
    3: [np.vstack([_arc(0.5, 0.27, 0.3, 0.23, 160, -90), _arc(0.5, 0.73, 0.33, 0.25, 90, -160)])],
    7: [np.array([[0.15, 0.05], [0.85, 0.05], [0.62, 0.45], [0.4, 0.95]])],
}


def hand_strokes(digit, side=64, scale=0.78, width=0.75, slant=0.12):
    out = []
    for pts in HAND[digit]:
        x = 0.5 + ((pts[:, 0] - 0.5) * width + slant * (0.5 - pts[:, 1])) * scale
        y = 0.5 + (pts[:, 1] - 0.5) * scale
        out.append(np.c_[x, y] * side)
    return out


def scenario_pca(app, folder):
    from app.labs.pca.lab import TAB_DRAW

    w, lab = make_window("pca")
    try:
        r = lab.runner
        wait(app, lambda: r.current is not None and lab._data is r.current.data, 60.0, "the PCA fit")
        lab.tabs.setCurrentIndex(TAB_DRAW)
        wait(app, lambda: lab.canvas.isVisible() and lab.canvas.width() > 100, 10.0, "the Draw tab")
        side = lab.canvas.ink.shape[0]
        results, paths = {}, []
        for digit in (7, 3):  # the 3 last: the main picture is the well-drawn digit that is no novelty
            lab.canvas.clear_drawing()
            for stroke in hand_strokes(digit, side):
                lab.canvas.stroke(stroke)
            res = lab.drawing_result()
            results[digit] = res
            name = "pca-drawn-3" if digit == 3 else "pca-drawn-7"
            paths.append(grab(app, w, folder / f"scenario-1-{name}.png"))
        digit_class = lab.form.value("digit")
        parts = [f"model '{digit_class}s', d = {lab.d}"]
        for digit in (3, 7):
            res = results[digit]
            verdict = "novelty" if res["novelty"] else "like the training digits"
            parts.append(f"drawn {digit}: residual {res['residual']:.1f} vs threshold {res['threshold']:.1f} "
                         f"({verdict})")
        print("PCA: " + "; ".join(parts) + f"  [label: {lab.novelty_label.text()!r}]", flush=True)
        return paths
    finally:
        close_window(app, w)


# ----------------------------------------------------------------------------- 2. segmentation
def quadrant_accuracy(labels, shape, window):
    """Pixel accuracy against the 2 × 2 quadrants under the best relabelling, pixels within half a
    window of a quadrant border left out."""
    from scipy.optimize import linear_sum_assignment

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


def scenario_segmentation(app, folder):
    w, lab = make_window("segmentation")
    try:
        r = lab.runner
        wait(app, lambda: r.current is not None or r.error is not None, 60.0, "the segmentation run")
        params = lab.run_params
        snap = finish_run(app, lab, timeout=180.0)
        acc = quadrant_accuracy(snap.engine.labels, snap.ctx.shape, int(params["window"]))
        lab.run_model_order()
        task = lab._tasks["order"]
        wait(app, lambda: not task.busy, 300.0, "Choose K")
        names = [lab.tabs.tabText(i) for i in range(lab.tabs.count())]
        lab.tabs.setCurrentIndex(names.index("Choose K"))
        path = grab(app, w, folder / "scenario-2-segmentation-choose-k.png")
        kb = getattr(lab, "chosen_k_bic", None)
        ks = getattr(lab, "chosen_k_stability", None)
        print(f"Segmentation: image '{params['image']}', K = {params['K']}, {params['method']}, window "
              f"{params['window']}: pixel accuracy {100 * acc:.1f}% (converged: {snap.engine.converged}); "
              f"Choose K over K = {int(min(lab.bic.x))}..{int(max(lab.bic.x))}: BIC K = {kb}, stability K = {ks}",
              flush=True)
        return [path]
    finally:
        close_window(app, w)


# ----------------------------------------------------------------------------- 3. faces
def scenario_faces(app, folder):
    from smlengine.detection import box_iou

    w, lab = make_window("faces")
    try:
        r = lab.runner
        wait(app, lambda: r.current is not None or r.error is not None, 60.0, "the detection run")
        snap = finish_run(app, lab, timeout=300.0)
        lbp = "not run"
        try:
            wait(app, lambda: "lbp" in lab._tasks and not lab._tasks["lbp"].busy, 60.0, "the LBP side task")
            boxes = getattr(lab, "_lbp_boxes", None)
            if boxes is None or len(boxes) == 0:
                lbp = "scikit-image's LBP cascade found no box"
            elif len(snap.boxes) == 0:
                lbp = f"{len(boxes)} LBP box(es), nothing to compare"
            else:
                iou = box_iou(snap.boxes, boxes).max()
                lbp = f"IoU with scikit-image's LBP box {iou:.2f} ({len(boxes)} LBP box(es))"
        except Timeout as e:
            lbp = f"LBP: {e}"
        names = [lab.tabs.tabText(i) for i in range(lab.tabs.count())]
        lab.tabs.setCurrentIndex(names.index("Detection"))
        path = grab(app, w, folder / "scenario-3-faces-astronaut.png")
        boxes = "; ".join(f"box at row {b[0]:.0f}, col {b[1]:.0f}, {b[2]:.0f}×{b[3]:.0f} px, "
                          f"{b[4]:.0f} neighbours" for b in snap.boxes)
        print(f"Faces: photo '{snap.ctx.photo.label}': {snap.raw.shape[0]} accepted windows -> "
              f"{snap.groups.shape[0]} group(s) -> {snap.boxes.shape[0]} grouped box(es) with "
              f"min neighbours {snap.ctx.params['min_neighbors']} ({boxes}); {lbp}", flush=True)
        return [path]
    finally:
        close_window(app, w)


# ----------------------------------------------------------------------------- 4. PageRank
EDGES = "home about\nabout news\nnews home\nhome news\nblog home\nabout blog\nblog news\ncontact home\n"


def scenario_pagerank(app, folder):
    w, lab = make_window("pagerank")
    tmp = tempfile.TemporaryDirectory()
    try:
        r = lab.runner
        wait(app, lambda: r.current is not None or r.error is not None, 60.0, "the PageRank run")
        path = Path(tmp.name) / "about-news.txt"
        path.write_text(EDGES, encoding="utf-8")
        lab.open_graph(str(path), "edges")
        wait(app, lambda: (lab.form.value("graph") == "custom" and lab._custom == ("edges", str(path)))
             or lab.error_text != "", 30.0, "the edge list to open")
        if lab.error_text:
            raise RuntimeError(f"opening the space-separated edge list failed: {lab.error_text}")
        lab.runbar.speed.setCurrentIndex(lab.runbar.speed.count() - 1)  # as fast as possible
        lab.start(play=True)
        wait(app, lambda: r.finished or r.error is not None, 120.0, "the PageRank run to finish")
        if r.error is not None:
            raise RuntimeError(f"the run failed: {r.error}")
        r.flush()
        snap = r.current
        g, dist = snap.graph, np.asarray(snap.distribution)
        png = grab(app, w, folder / "scenario-4-pagerank-about-news.png")
        order = np.argsort(-dist, kind="stable")
        ranks = ", ".join(f"{g.names[i]} {dist[i]:.4f}" for i in order)
        note = getattr(lab, "_file_note", "")
        labels = len(lab.labels_shown())
        heads = len(lab.arrow_heads()[0])
        print(f"PageRank: {g.n} pages from a space-separated edge list ({note or 'no file note'}): ranks {ranks}; "
              f"{labels} labels, {heads} arrowheads drawn", flush=True)
        return [png]
    finally:
        close_window(app, w)
        tmp.cleanup()


# ----------------------------------------------------------------------------- 5. side tasks
MOONS = dict(classifier="svm_rbf", dataset="moons", n_samples=160, noise=0.2, C=1.0, gamma=2.0, test_fraction=0.25)


def scenario_side_tasks(app, folder):
    w, lab = make_window("classifiers")
    try:
        r = lab.runner
        wait(app, lambda: r.current is not None, 60.0, "the classifiers run")
        lab.form.set_values(MOONS, quiet=True)
        lab.after_params_restored()
        lab.regenerate()
        wait(app, lambda: r.current is not None or r.error is not None, 60.0, "the moons run")
        cv = lab.cv_view
        lab.tabs.setCurrentIndex(1)
        speed = lab.runbar.speed.currentText() if hasattr(lab, "runbar") else "?"
        t0 = time.monotonic()
        cv.run_button.click()
        # a picture half-way, as the class watches the cells fill in
        mid = None
        try:
            wait(app, lambda: cv.errors is not None and len(cv.snapshots) >= cv.errors.size // 2
                 or cv.result is not None or "failed" in cv.summary.text(), 300.0, "half the grid")
            if cv.result is None:
                mid = grab(app, w, folder / "scenario-5-side-task-grid-search-running.png", pause=0.05)
        except Timeout:
            pass
        wait(app, lambda: cv.result is not None or "failed" in cv.summary.text(), 600.0, "the grid search")
        wait(app, lambda: not cv.running, 30.0, "the grid search task to end")
        elapsed = time.monotonic() - t0
        path = grab(app, w, folder / "scenario-5-side-task-grid-search.png")
        cells = cv.errors.size if cv.errors is not None else 0
        finished = cv.result is not None
        best = cv.result["best_params"] if finished else None
        shape = " × ".join(str(len(v)) for v in cv.values)
        print(f"Side tasks: grid search ({lab.kind}) over {cells} cells ({shape}), "
              f"{len(cv.snapshots)} filled, finished: {finished}, best {best}, "
              f"{elapsed:.1f} s at run-bar speed '{speed}'", flush=True)
        return [p for p in (mid, path) if p is not None]
    finally:
        close_window(app, w)


SCENARIOS = [("PCA", scenario_pca), ("Segmentation", scenario_segmentation), ("Faces", scenario_faces),
             ("PageRank", scenario_pagerank), ("Side tasks", scenario_side_tasks)]


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    folder = Path(argv[0] if argv else "docs/pictures").resolve()
    only = set(argv[1:])
    folder.mkdir(parents=True, exist_ok=True)
    config = tempfile.TemporaryDirectory()
    os.environ["SMLLAB_CONFIG_DIR"] = config.name  # no user settings read or written

    from PySide6 import QtWidgets

    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication(sys.argv[:1])
    written = []
    for name, fn in SCENARIOS:
        if only and name.split()[0].lower() not in {o.lower() for o in only}:
            continue
        try:
            written += fn(app, folder)
        except Exception as e:  # noqa: BLE001 - a failed scenario is reported and the others still run
            print(f"{name}: FAILED: {type(e).__name__}: {e}", flush=True)
            traceback.print_exc(file=sys.stderr)
    for p in written:
        print(f"wrote {p}", flush=True)
    config.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
