"""Maths panel of the face-detection lab (Qt-free): snapshot -> HTML with the current numbers."""

from __future__ import annotations

import html

import numpy as np

INTEGRAL = ("<p><b>Integral image</b> I(r, c) = Σ<sub>r′&lt;r, c′&lt;c</sub> x(r′, c′). "
            "A rectangle sum costs four reads:<br>"
            "S = I(r₁, c₁) − I(r₀, c₁) − I(r₁, c₀) + I(r₀, c₀).<br>"
            "A Haar feature: x<sub>j</sub> = S(grey) − S(white), normalised by the window's mean m and "
            "standard deviation s: (x<sub>j</sub> − m·A<sub>j</sub>) / s.</p>")
STUMP = ("<p><b>Stump</b> h<sub>t</sub>(x) = +1 if p<sub>t</sub>(x<sub>f<sub>t</sub></sub> − θ<sub>t</sub>) &gt; 0, "
         "else −1; α<sub>t</sub> = log((1 − err<sub>t</sub>) / err<sub>t</sub>).<br>"
         "<b>Stage</b> j accepts when f<sub>j</sub>(x) = Σ<sub>t</sub> α<sub>t</sub> h<sub>t</sub>(x) ≥ Θ<sub>j</sub> "
         "(Θ<sub>j</sub> lowered until DR(f<sub>j</sub>) reaches its target).</p>")


def _f(v, fmt=".3f") -> str:
    """A number as shown; "—" where it is undefined (None)."""
    try:
        v = float(v)
    except (TypeError, ValueError):
        return "—"
    return "—" if v != v else format(v, fmt)


def rates_html(dr_stages, fpr_stages) -> str:
    dr = np.asarray(dr_stages, dtype=float)
    fpr = np.asarray(fpr_stages, dtype=float)
    if dr.size == 0:
        return "<p><b>Rates</b> DR(f) = Π<sub>j</sub> DR(f<sub>j</sub>), FPR(f) = Π<sub>j</sub> FPR(f<sub>j</sub>).</p>"
    K = dr.size
    return (f"<p><b>Rates of the {K} stage(s) used</b> (a window is a face only if every stage accepts it):<br>"
            f"DR(f) = Π DR(f<sub>j</sub>) = {_f(np.prod(dr), '.4f')}<br>"
            f"FPR(f) = Π FPR(f<sub>j</sub>) = {_f(np.prod(fpr), '.2e')}<br>"
            f"e.g. 0.999<sup>{K}</sup> = {0.999 ** K:.4f}, 0.5<sup>{K}</sup> = {0.5 ** K:.2e}</p>")


def detect_html(snap) -> str:
    ctx = snap.ctx
    c = ctx.cascade
    K = ctx.n_stages
    parts = [f"<p><b>{html.escape(snap.message)}</b></p>", INTEGRAL, STUMP,
             rates_html(c.stage_detection_rate_[:K], c.stage_false_positive_rate_[:K])]
    parts.append(grouping_html(snap))
    f = np.asarray(snap.funnel)
    if f.size and f[0] > 0:
        step = max(1, f.size // 8)
        js = list(range(0, f.size, step)) + ([f.size - 1] if (f.size - 1) % step else [])
        # one line per j, no table: a narrow panel wraps a line between words, never inside a number
        lines = "<br>".join(f"j&nbsp;≥&nbsp;{j}: {int(f[j]):,} ({_share(f[j] / f[0])}&nbsp;%)" for j in js)
        parts.append("<p><b>Funnel</b>: windows scanned that pass at least j stages (share of all)<br>"
                     f"{lines}</p>")
    return "".join(parts)


def _share(fraction: float) -> str:
    """A fraction as a percentage with two significant digits (100, 24, 7.2, 0.0033)."""
    return np.format_float_positional(100.0 * float(fraction), precision=2, unique=False, fractional=False,
                                      trim="-")


def grouping_html(snap) -> str:
    """How the accepted windows became the boxes on screen, with this run's numbers."""
    mn = int(snap.ctx.params.get("min_neighbors", 0))
    groups = np.asarray(snap.groups)
    head = ("<p><b>Grouping</b> (Viola–Jones; OpenCV's rule): two accepted windows are neighbours when each "
            "side moves by at most ε·(min w + min h)/2, ε = 0.2; chains of neighbours form a group, whose box "
            "is the mean of its windows and whose <i>neighbour count</i> n is its number of windows. "
            f"A group is a face when n &gt; {mn} (Min. neighbours), unless it lies inside a stronger face.")
    if snap.raw.shape[0] == 0:
        return head + "</p>"
    if groups.shape[0] == 0:
        return head + f"<br>{snap.raw.shape[0]:,} accepted windows: too many to group.</p>"
    n = np.sort(groups[:, 4].astype(int))[::-1]
    shown = ", ".join(str(v) for v in n[:10]) + (", …" if n.size > 10 else "")
    k = snap.boxes.shape[0]
    return (head + f"<br>Now: {snap.raw.shape[0]} accepted windows → {n.size} group(s), n = {shown} → "
            f"{int(np.sum(n > mn))} with n &gt; {mn} → <b>{k} face(s)</b>.</p>")


def train_html(snap) -> str:
    e = snap.engine
    parts = [f"<p><b>{html.escape(e.message)}</b></p>"]
    if e.event == "feature":
        parts.append(f"<p><b>Stump {e.feature_index + 1} of stage {e.stage + 1}</b> ({e.feature_type}): "
                     f"err = {_f(e.weighted_error)}, α = log((1 − {_f(e.weighted_error)}) / {_f(e.weighted_error)}) "
                     f"= {_f(e.alpha)}; θ = {_f(e.feature_threshold)}, p = {e.feature_polarity:+d}.<br>"
                     "Misclassified patches' weights × e<sup>α</sup>, then renormalised.</p>")
    parts.append(STUMP)
    parts.append(f"<p><b>Stage {e.stage + 1} so far</b>: DR(f<sub>j</sub>) = {_f(e.stage_detection_rate)} "
                 f"(target {_f(snap.ctx.params.get('stage_dr'), '.4f')}), FPR(f<sub>j</sub>) = "
                 f"{_f(e.stage_false_positive_rate)} (target ≤ {_f(snap.ctx.params.get('stage_fpr'), '.2f')}).</p>")
    parts.append(f"<p><b>Cascade</b>: DR = Π DR(f<sub>j</sub>) = {_f(e.detection_rate, '.4f')}, "
                 f"FPR = Π FPR(f<sub>j</sub>) = {_f(e.false_positive_rate, '.2e')}.</p>")
    if e.windows_scanned:
        parts.append(f"<p><b>Mining</b>: {e.negatives_mined:,} non-faces that stages 1–{e.stage} accept, found in "
                     f"{e.windows_scanned:,} windows (acceptance {_f(e.mined_acceptance, '.2e')}).</p>")
    parts.append(INTEGRAL)
    return "".join(parts)


def window_html(report) -> str:
    """The clicked window: corner reads and votes of stage 1, every stage's sum against its threshold."""
    if report is None:
        return "Click a window on the photo: its integral-image reads, stage-1 votes and stage sums appear here."
    r0, c0, h, w = report["box"]
    out = [f"<b>Window</b> at row {r0}, col {c0}, {w} × {h} px → 24 × 24; m = {report['mean']:.3f}, "
           f"s = {report['sigma']:.3f}.<br><b>Stage 1 stumps</b>:<br>"]
    for t, st in enumerate(report["first"]):
        reads = "; ".join(f"{'+' if b[4] > 0 else '−'}[{b[5][0]:.1f} − {b[5][1]:.1f} − {b[5][2]:.1f} + {b[5][3]:.1f}]"
                          for b in st["blocks"])
        out.append(f"h<sub>{t + 1}</sub>: x = {reads} = {st['x']:.2f} → {st['x_norm']:.2f} vs θ = {st['theta']:.2f} "
                   f"(p = {st['polarity']:+d}) → vote {st['vote']:+d} × α = {st['alpha']:.2f}<br>")
    out.append("<b>Stage sums</b> f<sub>j</sub> vs Θ<sub>j</sub>: ")
    out.append(", ".join(f"{j + 1}: {s:.2f} {'≥' if ok else '<'} {th:.2f}" for j, s, th, ok in report["stages"]))
    n_ok = sum(1 for *_, ok in report["stages"] if ok)
    verdict = ("a <b>face</b> (every stage accepts)" if n_ok == report["n_stages"]
               else f"rejected by stage {n_ok + 1}")
    out.append(f"<br>→ {verdict}.")
    return "".join(out)
