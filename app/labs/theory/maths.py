"""The maths panel's text (Qt-free): the numbers of the step on screen, in the course's notation."""

from __future__ import annotations

import math

from smlengine import learning_theory as lt

from .run import (CLASS_NAMES, FINITE_SIZE, GRID, TheoryBoundsSnapshot, TheoryGameSnapshot, TheoryGrowthSnapshot,
                  TheoryShatterSnapshot)


def maths_html(s) -> str:
    if isinstance(s, TheoryGameSnapshot):
        return _game(s)
    if isinstance(s, TheoryShatterSnapshot):
        return _shatter(s)
    if isinstance(s, TheoryGrowthSnapshot):
        return _growth(s)
    if isinstance(s, TheoryBoundsSnapshot):
        return _bounds(s)
    return ""


def _rect(r) -> str:
    return "none yet" if r is None else f"[{r[0]:.3f}, {r[1]:.3f}] × [{r[2]:.3f}, {r[3]:.3f}]"


def _game(s: TheoryGameSnapshot) -> str:
    left, right, bottom, top = (f"{a:.4f}" for a in s.strip_areas)
    head = (f"<p>PAC: P(err(h) ≤ ε) ≥ 1 − δ once m ≥ m₀. The tightest rectangle R′ ⊂ R errs only in the four "
            f"strips of R around it: P(err(R′) &gt; ε) ≤ 4 (1 − ε/4)<sup>m</sup> ≤ 4 e<sup>−εm/4</sup> ≤ δ when "
            f"m ≥ (4/ε) ln(4/δ) = <b>{s.bound}</b> (ε = {s.epsilon:g}, δ = {s.delta:g}).</p>")
    if s.phase == "samples":
        n_pos = int(s.y.sum())
        body = (f"<p>Sample {s.n_seen} of {s.m}: {n_pos} inside R. R′ = {_rect(s.rectangle)}.<br>"
                f"err(R′) = area(R) − area(R′) = {s.error:.4f} = {left} + {right} + {bottom} + {top} "
                f"(left, right, bottom, top strip); "
                f"{'above' if s.error > s.epsilon else 'within'} ε = {s.epsilon:g}.</p>")
    else:
        frac = "—" if s.fraction_over is None else f"{s.fraction_over:.3f}"
        body = (f"<p>Trial {s.trial} of {s.n_trials}, m = {s.m} samples each (m₀ = {s.bound}): this trial's "
                f"err(R′) = {s.error:.4f}.<br>Fraction of trials with err &gt; ε: <b>{frac}</b> against δ = "
                f"{s.delta:g}; the bound at this m: 4 e<sup>−εm/4</sup> = {s.chance_bound:.3g}.</p>")
    return head + body


def _pattern(labels) -> str:
    return "".join("+" if v else "−" for v in labels)


def _shatter(s: TheoryShatterSnapshot) -> str:
    m, d = len(s.points), lt.vc_dimension(s.cls)
    name = CLASS_NAMES[s.cls].lower()
    total = 2 ** m
    realised = int((s.tried == 1).sum())
    verdict = (f"labelling {s.index} ({_pattern(s.labels)}, point 1 first) is realised"
               if s.realisable else f"labelling {s.index} ({_pattern(s.labels)}) cannot be realised")
    text = (f"<p>H shatters S when it realises all 2<sup>m</sup> labellings of S. {CLASS_NAMES[s.cls]} on these "
            f"m = {m} points: {verdict}; {realised} of the {s.index + 1} tried so far.<br>"
            f"In all, Π on these points = {s.n_realisable} of 2<sup>{m}</sup> = {total}; VC dimension d = {d}, "
            f"Sauer: Π<sub>H</sub>(m) ≤ Σ<sub>i≤d</sub> C(m, i) = {lt.sauer_bound(m, d)}.</p>")
    if s.witness is not None:
        text += f"<p>Witness: labelling {s.witness} ({_pattern(_bits(s.witness, m))}): not shattered.</p>"
    elif s.index == total - 1:
        text += f"<p>Every labelling realised: {name} shatter these {m} points.</p>"
    if s.cls == "half-planes" and m == 4:
        text += ("<p>No 4 points are shattered by half-planes: either one lies in the triangle of the other three "
                 "(label it − and them +), or they are in convex position (label the diagonals alike).</p>")
    return text


def _bits(k: int, m: int) -> list[int]:
    return [(k >> i) & 1 for i in range(m)]


def _growth(s: TheoryGrowthSnapshot) -> str:
    m = s.m
    rows = ", ".join(f"{CLASS_NAMES[c].lower()} {int(s.counts[c][-1])}" for c in lt.CLASSES)
    return (f"<p>Π<sub>H</sub>(m) = the most labellings H realises on m points; here on the first m = {m} "
            f"{'random' if s.source == 'random' else 'drawn'} points: {rows}; 2<sup>m</sup> = {2 ** m:,}.</p>"
            f"<p>Formulas in general position: thresholds m + 1 = {m + 1}, intervals m(m + 1)/2 + 1 = "
            f"{m * (m + 1) // 2 + 1}, half-planes m² − m + 2 = {m * m - m + 2}. Sauer: Π ≤ Σ<sub>i≤d</sub> C(m, i) = "
            f"{lt.sauer_bound(m, 3):,} (d = 3), {lt.sauer_bound(m, 4):,} (d = 4): polynomial in m once m &gt; d.</p>")


def _bounds(s: TheoryBoundsSnapshot) -> str:
    return (f"<p>A consistent learner (the smallest rectangle with corners on the 1/{GRID} grid around the positives: "
            f"|H| = {FINITE_SIZE:,}, VC dimension 4), m = {s.m}, {s.n_trials} trials, δ = {s.delta:g}.</p>"
            f"<p>Measured: mean err {s.mean_error[-1]:.4f}; the (1 − δ) quantile {s.quantile_error[-1]:.4f}.<br>"
            f"Finite class: ε = (ln|H| + ln(1/δ))/m = ({math.log(FINITE_SIZE):.2f} + {math.log(1 / s.delta):.2f})/"
            f"{s.m} = {s.finite_bound[-1]:.4f}.<br>"
            f"VC (double sampling): ε = (2/m)(log₂ Π(2m) + log₂(2/δ)) = {s.vc_bound[-1]:.4f}.<br>"
            f"Rectangle game: ε = (4/m) ln(4/δ) = {s.rectangle_bound[-1]:.4f}.</p>")
