"""The segmentation lab's maths panel: pure functions from a snapshot to HTML (no Qt)."""

from __future__ import annotations

import html
import math

import numpy as np

from smlengine.features import histogram_parts

from . import run
from .run import SegmentationLabSnapshot


def _num(x: float, digits: int = 4) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):  # undefined at this step (e.g. no change yet)
        return "—"
    if isinstance(x, float) and math.isinf(x):
        return "∞"
    return f"{x:.{digits}g}"


def maths_html(snapshot: SegmentationLabSnapshot, previous: SegmentationLabSnapshot | None = None) -> str:
    """The update rules of the snapshot's method with its current numbers."""
    method = snapshot.ctx.method
    if method == "multinomial":
        body = multinomial_html(snapshot)
    elif method == "gmm":
        body = gmm_html(snapshot)
    else:
        body = kmeans_html(snapshot, previous)
    return body + data_html(snapshot) + choose_k_html(snapshot)


def n_free_parameters(ctx, k: int) -> tuple[int, str]:
    """(m, formula) of the mixture the "Choose K" tab scores for the run's data and K = k."""
    if ctx.H is not None:
        parts = histogram_parts(ctx.params.get("histograms", "grey"), int(ctx.params["bins"]))
        m = (k - 1) + k * sum(d - 1 for d in parts)
        inner = " + ".join(f"({d} − 1)" for d in parts)
        return m, f"m = (K − 1) + K·[{inner}]"
    f = ctx.X.shape[1]
    m = (k - 1) + k * f + k * f * (f + 1) // 2
    return m, f"m = (K − 1) + K·{f} + K·{f}·{f + 1}/2"


def choose_k_html(snapshot) -> str:
    """What the "Choose K" criteria compute, with m for the run's K."""
    ctx = snapshot.ctx
    k = ctx.n_clusters
    m, formula = n_free_parameters(ctx, k)
    rows = ["<h3>Choosing K (tab “Choose K”)</h3>",
            "<p class='eq'>BIC(K) = −2 log L + m log n</p>",
            f"<p>L is the likelihood of the fitted mixture, maximised over {run.BIC_RESTARTS} random starts; "
            f"m counts its free parameters: {formula} = <b>{m}</b> for K = {k}. "]
    if ctx.H is not None:
        l = int(ctx.params["window"])
        h, w = ctx.shape
        n = (h // l) * (w // l)
        rows.append(f"Each histogram adds (bins − 1) per cluster: its probabilities sum to 1. "
                    f"The windows of neighbouring pixels share most of their pixels, so the {h * w:,} histograms "
                    f"are not {h * w:,} samples: BIC uses the n = {h // l} × {w // l} = <b>{n}</b> windows that tile "
                    "the image without overlap. Nor are a window's pixels independent draws: each histogram's "
                    "counts are divided by its ĉ = Σ(U − V)² / Σ 2m p̂(1 − p̂), how much more the two halves "
                    "U, V of a window (left/right and top/bottom, m pixels each) differ than halves of m independent "
                    "pixels would, so a window counts as l²/ĉ pixels.</p>")
    else:
        rows.append("n = the number of pixels (colour features: one sample per pixel).</p>")
    rows.append(f"<p>Stability: cluster two random halves A and B of the pixels (best of {run.STABILITY_RESTARTS} "
                "starts each); the prediction strength of K is the smallest, over B's own clusters, share of "
                "their pixel pairs that A's model also puts together. Merging true groups keeps pairs together; "
                "splitting one group where the sample happens to cut it does not. Stability chooses the largest K "
                f"whose prediction strength, less one standard error over the {run.STABILITY_SPLITS} splits, "
                f"is ≥ {run.STRENGTH_THRESHOLD:g}.</p>")
    return "".join(rows)


def order_html(item) -> str:
    """The numbers behind the BIC curve (the "Choose K" caption), from one model-order item."""
    if item is None:
        return "★ marks the choice."
    if item.samples == "pixels":
        return f"★ marks the choice; BIC on n = {item.n:,} pixels,<br>m = {item.m} for K = {item.k}."
    c = ", ".join(f"{v:.2f}" for v in item.dispersion)
    return (f"★ marks the choice; BIC on n = {item.n} windows<br>"
            f"(no overlap), ĉ = {c}, m = {item.m} for K = {item.k}.")


def data_html(snapshot) -> str:
    ctx = snapshot.ctx
    h, w = ctx.shape
    n = h * w
    if ctx.H is not None:
        l = int(ctx.params["window"])
        parts = histogram_parts(ctx.params.get("histograms", "grey"), int(ctx.params["bins"]))
        if len(parts) == 1:
            what = (f"x<sub>i</sub> = local histogram H<sub>i</sub> of the {l} × {l} window around pixel i "
                    f"({ctx.H.shape[2]} grey-level bins, Σ<sub>j</sub> H<sub>ij</sub> = {l * l})")
        else:
            what = (f"x<sub>i</sub> = local histograms H<sub>i</sub> of the {l} × {l} window around pixel i: "
                    f"{parts[0]} grey-level bins (1–{parts[0]}), then {parts[1]} bins of local binary patterns "
                    f"({parts[0] + 1}–{parts[0] + parts[1]}: the code of each pixel's 3 × 3 neighbourhood, "
                    f"how many neighbours are at least as bright, or 'not uniform'); each part sums to {l * l}")
    else:
        what = f"x<sub>i</sub> = {html.escape(ctx.params['features'])} colour of pixel i ({ctx.X.shape[1]} numbers)"
    return (f"<h3>Data</h3><p>{n:,} pixels ({w} × {h}); {what}. "
            f"Segmentation: pixel i gets the colour of its cluster m<sub>i</sub>.</p>")


def kmeans_html(snapshot, previous=None) -> str:
    eng = snapshot.engine
    k = len(eng.counts)
    rows = [
        "<h3>k-means (Lloyd)</h3>",
        "<p>Objective (never increases):</p>",
        "<p class='eq'>J = Σ<sub>i</sub> ‖x<sub>i</sub> − μ<sub>m<sub>i</sub></sub>‖²</p>",
        "<p>1. Assignment: <span class='eq'>m<sub>i</sub> = argmin<sub>k</sub> ‖x<sub>i</sub> − "
        "μ<sub>k</sub>‖²</span></p>",
        "<p>2. Update: <span class='eq'>μ<sub>k</sub> = (1/n<sub>k</sub>) Σ<sub>i: m<sub>i</sub>=k</sub> "
        "x<sub>i</sub></span></p>",
        "<p>Stop when Σ<sub>k</sub>‖Δμ<sub>k</sub>‖ &lt; τ or no label changes.</p>",
        "<h3>Now</h3><p class='num'>",
        f"step {snapshot.step}<br>J = {_num(eng.inertia, 7)}",
    ]
    if previous is not None and previous.ctx is snapshot.ctx and previous.step == snapshot.step - 1:
        rows.append(f" (ΔJ = {_num(eng.inertia - previous.engine.inertia, 3)})")
    rows.append(f"<br>labels changed: {eng.n_changed:,}<br>Σ‖Δμ‖ = {_num(eng.center_shift, 3)}<br>")
    rows.append("n<sub>k</sub> = " + ", ".join(f"{int(c):,}" for c in eng.counts[:8]) + ("…" if k > 8 else ""))
    if eng.relocated:
        rows.append(f"<br>empty cluster(s) {', '.join(str(r) for r in eng.relocated)} moved to the worst-served pixel")
    rows.append("</p>")
    if eng.converged:
        rows.append("<p><b>Converged.</b></p>")
    return "".join(rows)


def multinomial_html(snapshot) -> str:
    eng, ctx = snapshot.engine, snapshot.ctx
    alpha = float(ctx.params["pseudocount"])
    T = np.asarray(eng.probabilities)
    k, d = T.shape
    rows = [
        "<h3>EM for the multinomial mixture</h3>",
        "<p class='eq'>π(H) = Σ<sub>k</sub> c<sub>k</sub> Π<sub>j</sub> t<sub>kj</sub><sup>H<sub>j</sub></sup> · "
        "N!/Π<sub>j</sub>H<sub>j</sub>!</p>",
        "<p><b>E-step</b> (responsibilities):</p>",
        "<p class='eq'>a<sub>ik</sub> = c<sub>k</sub> Π<sub>j</sub> t<sub>kj</sub><sup>H<sub>ij</sub></sup> / "
        "Σ<sub>l</sub> c<sub>l</sub> Π<sub>j</sub> t<sub>lj</sub><sup>H<sub>ij</sub></sup></p>",
        "<p><b>M-step</b>:</p>",
        "<p class='eq'>c<sub>k</sub> = (1/n) Σ<sub>i</sub> a<sub>ik</sub></p>",
        "<p class='eq'>t<sub>kj</sub> = (Σ<sub>i</sub> a<sub>ik</sub> H<sub>ij</sub> + α) / "
        "(Σ<sub>i</sub> a<sub>ik</sub> Σ<sub>j</sub> H<sub>ij</sub> + dα)</p>",
        f"<p>Pseudo-count α = {alpha:g} keeps every t<sub>kj</sub> &gt; 0 (a MAP step under a Dirichlet prior); "
        "EM never decreases the penalised log-likelihood ℓ = Σ<sub>i</sub> log π(H<sub>i</sub>) + α Σ<sub>k,j</sub> "
        "log t<sub>kj</sub>.</p>",
        "<h3>Now</h3><p class='num'>",
        f"step {snapshot.step}<br>ℓ = {_num(eng.log_likelihood, 8)}<br>",
        f"(log-prior part {_num(eng.log_prior, 4)})<br>",
        f"relative change {_num(eng.relative_change, 3)}<br>",
        "c<sub>k</sub> = " + ", ".join(f"{c:.3f}" for c in eng.weights[:8]) + ("…" if k > 8 else "") + "<br>",
    ]
    top = np.argsort(T[0])[::-1][:3]
    rows.append("t<sub>1j</sub>, largest: " + ", ".join(f"t<sub>1,{j + 1}</sub> = {T[0, j]:.3f}" for j in sorted(top)))
    rows.append("</p>")
    if eng.converged:
        rows.append("<p><b>Converged</b> (relative change below the tolerance).</p>")
    return "".join(rows)


def gmm_html(snapshot) -> str:
    eng = snapshot.engine
    k = len(eng.weights)
    mu = np.asarray(eng.means)
    rows = [
        "<h3>EM for the Gaussian mixture</h3>",
        "<p class='eq'>π(x) = Σ<sub>k</sub> c<sub>k</sub> g(x | μ<sub>k</sub>, Σ<sub>k</sub>)</p>",
        "<p><b>E-step</b>: <span class='eq'>a<sub>ik</sub> = c<sub>k</sub> g(x<sub>i</sub> | μ<sub>k</sub>, "
        "Σ<sub>k</sub>) / Σ<sub>l</sub> c<sub>l</sub> g(x<sub>i</sub> | μ<sub>l</sub>, Σ<sub>l</sub>)</span></p>",
        "<p><b>M-step</b>: n<sub>k</sub> = Σ<sub>i</sub> a<sub>ik</sub>, "
        "<span class='eq'>c<sub>k</sub> = n<sub>k</sub>/n, μ<sub>k</sub> = Σ<sub>i</sub> a<sub>ik</sub> x<sub>i</sub> "
        "/ n<sub>k</sub>, "
        "Σ<sub>k</sub> = Σ<sub>i</sub> a<sub>ik</sub>(x<sub>i</sub> − μ<sub>k</sub>)(x<sub>i</sub> − μ<sub>k</sub>)ᵀ / "
        "n<sub>k</sub></span></p>",
        "<p>The log-likelihood ℓ = Σ<sub>i</sub> log π(x<sub>i</sub>) never decreases.</p>",
        "<h3>Now</h3><p class='num'>",
        f"step {snapshot.step}<br>ℓ = {_num(eng.log_likelihood, 8)}<br>relative change "
        f"{_num(eng.relative_change, 3)}<br>",
        "c<sub>k</sub> = " + ", ".join(f"{c:.3f}" for c in eng.weights[:8]) + ("…" if k > 8 else "") + "<br>",
        "μ<sub>1</sub> = (" + ", ".join(f"{v:.3f}" for v in mu[0]) + ")",
        "</p>",
    ]
    if eng.converged:
        rows.append("<p><b>Converged</b> (relative change below the tolerance).</p>")
    return "".join(rows)


def pixel_html(info: dict | None, method: str) -> str:
    """The clicked pixel's numbers: what decides its cluster."""
    if not info:
        return "Click a pixel of the segmentation (or of the photo) to see what decides its cluster."
    k_lab = info["label"] + 1
    head = f"<b>Pixel (row {info['row']}, column {info['col']})</b> → cluster {k_lab}<br>"
    terms = info["terms"]
    if info["kind"] == "distance":
        body = "‖x − μ<sub>k</sub>‖² = " + ", ".join(f"<b>{t:.4g}</b>" if i == info["label"] else f"{t:.4g}"
                                                    for i, t in enumerate(terms))
        return head + body + "<br>(the nearest centre wins)"
    what = ("log c<sub>k</sub> + Σ<sub>j</sub> H<sub>j</sub> log t<sub>kj</sub>" if method == "multinomial"
            else "log c<sub>k</sub> + log g(x | μ<sub>k</sub>, Σ<sub>k</sub>)")
    body = what + " = " + ", ".join(f"<b>{t:.5g}</b>" if i == info["label"] else f"{t:.5g}"
                                    for i, t in enumerate(terms))
    body += "<br>a<sub>ik</sub> = " + ", ".join(f"{r:.3f}" for r in info["resp"])
    return head + body + "<br>(the largest term wins)"


def compare_html(result) -> str:
    """The k-means versus EM comparison in two short lines (the tab's caption)."""
    if result is None:
        return ("k-means and EM from the same initial centres:<br>"
                "Run both and compare their segmentations.")
    em_name = "EM multinomial" if result.family == "hist" else "EM Gaussian"
    km = (f"k-means ({'histograms' if result.family == 'hist' else 'colour'}) "
          f"J = {_num(result.kmeans_objective, 6)} ({len(result.kmeans_curve) - 1} it.)")
    if result.em_labels is None:
        return f"{km}; {em_name} running …"
    em = f"{em_name} ℓ = {_num(result.em_objective, 7)} ({len(result.em_curve) - 1} it.)"
    if not result.done:
        return f"{km}<br>{em} …"
    return (f"{km}<br>{em}<br>They agree on <b>{100 * result.agreement:.1f}%</b> of the pixels "
            "(Hungarian matching).")


def brush_html(n_selected: int, n_pixels: int, n_drawn: int, source: str) -> str:
    """Caption of the linked views: how many pixels the brush holds."""
    if source == "":
        return "Drag a rectangle on the photo or in the scatter:<br>the other view highlights the same pixels."
    where = "photo" if source == "image" else "scatter"
    share = 100.0 * n_selected / max(1, n_pixels)
    return (f"Brushed in the {where}: <b>{n_selected:,}</b> pixels ({share:.1f}%),<br>"
            f"{n_drawn:,} of them among the scatter's points.")
