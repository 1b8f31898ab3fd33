"""The maths panel's text (Qt-free): the collapsed conditional of the highlighted token, as numbers."""

from __future__ import annotations

import html


def maths_html(s, word: str, alpha: float, eta: float, n_words: int) -> str:
    probs = ", ".join(f"{p:.3f}" for p in s.conditional)
    phase = (f"burn-in (sweeps 1–{s.burn_in})" if s.burning_in
             else "after burn-in: the estimates of φ and θ are being averaged")
    best = int(s.conditional.argmax()) + 1
    return (
        "<p>Collapsed Gibbs sampling: θ and φ integrated out, each token's topic drawn from "
        "p(z<sub>i</sub> = k | z<sub>−i</sub>, w) ∝ (n<sub>dk</sub> + α)(n<sub>kw</sub> + η) / (n<sub>k</sub> + Vη), "
        "counts without token i.</p>"
        f"<p>Sweep {s.sweep} ({phase}); α = {alpha:g}, η = {eta:g}, V = {n_words}, K = {s.n_topics}.</p>"
        f"<p>Highlighted token {s.token + 1} of document {s.doc_index + 1}: "
        f"“{html.escape(word)}”, now in topic {int(s.doc_assignments[s.token]) + 1}. Its conditional over "
        f"k = 1…{s.n_topics}: ({probs}); most probable: topic {best}.</p>"
        f"<p>log p(w, z) = {s.log_joint:,.1f}; {100 * s.changed_fraction:.1f} % of the tokens changed topic "
        "in this sweep. Estimates: φ<sub>kw</sub> ≈ (n<sub>kw</sub> + η)/(n<sub>k</sub> + Vη), "
        "θ<sub>dk</sub> ≈ (n<sub>dk</sub> + α)/(n<sub>d</sub> + Kα).</p>"
        + ("" if s.truth_distance is None else
           f"<p>Mean total-variation distance of the learned topics to the true ones, after matching: "
           f"{s.truth_distance:.3f}.</p>")
    )
