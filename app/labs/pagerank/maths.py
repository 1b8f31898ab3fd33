"""The PageRank lab's maths panel (Qt-free): the web chain, the power method and the
current numbers of a snapshot; "—" where a number is undefined at that step."""

from __future__ import annotations

import html

import numpy as np

from . import run


def _num(value, fmt: str) -> str:
    """A number as shown; "—" where it is undefined (None)."""
    return "—" if value is None else format(value, fmt)


def maths_html(snapshot, tol: float) -> str:
    """The maths panel of one snapshot (``tol`` is the run's tolerance τ)."""
    g = snapshot.graph
    a = snapshot.teleport
    n_dangling = int(np.sum(g.out_degree == 0))
    rows = [
        "<h3>The web chain</h3>",
        "<p>Row convention: p[s, t] = p<sub>s→t</sub> = Pr{X<sub>n</sub> = t | X<sub>n−1</sub> = s}; "
        "rows sum to 1.</p>",
        "<p class='eq'>p = (1 − α) A + (α / d) 𝟙𝟙<sup>T</sup></p>",
        "<p>A<sub>i→j</sub> = 1 / #out-links of i; a dangling page (no out-link) jumps uniformly: "
        "its row of A is 𝟙<sup>T</sup>/d.</p>",
        "<h3>Power method</h3>",
        "<p class='eq'>P<sub>n+1</sub> = p<sup>T</sup> P<sub>n</sub>, &nbsp; stop when "
        "‖P<sub>n+1</sub> − P<sub>n</sub>‖₁ &lt; τ</p>",
        "<p>For α &gt; 0: ‖P<sub>n</sub> − P‖₁ ≤ 2(1 − α)<sup>n</sup>. The surfers' visit "
        "frequencies tend to the same P (error ∝ 1/√visits).</p>",
        "<h3>Now</h3><p class='num'>",
        f"{html.escape(run.describe_source(g.base_key))}: d = {g.n} pages, {g.n_links} links, "
        f"{n_dangling} dangling<br>",
    ]
    if g.note:
        rows.append(f"{html.escape(g.note, quote=False)}<br>")
    if g.key[1]:
        rows.append(f"edited links: {len(g.key[1])}<br>")
    rows.append(f"α = {a:.3f}, τ = {tol:.0e}<br>")
    rows.append(f"step {snapshot.step} — {html.escape(snapshot.phase)}<br>")
    if snapshot.iteration > 0:
        rows.append(f"iteration n = {snapshot.iteration}<br>")
        rows.append(f"residual ‖P<sub>n</sub> − P<sub>n−1</sub>‖₁ = {_num(snapshot.change, '.3e')}<br>")
        rows.append(f"bound 2(1 − α)<sup>n</sup> = {2 * snapshot.bound:.3e}<br>")
        if snapshot.converged:
            rows.append("<b>converged</b> (residual &lt; τ)<br>")
    if snapshot.moves > 0:
        rows.append(f"surfers: {snapshot.n_walkers} × {snapshot.moves} moves, "
                    f"‖freq − P‖₁ = {_num(snapshot.l1_error, '.4f')}<br>")
    rows.append("</p><p>")
    rows.append(f"irreducible: <b>{'yes' if snapshot.irreducible else 'no'}</b>, "
                f"aperiodic: <b>{'yes' if snapshot.aperiodic else 'no'}</b><br>")
    if not snapshot.irreducible:
        rows.append("Several closed classes: the equilibrium is not unique, the limit depends on P₀ "
                    "(try another <i>Start P₀</i>).")
    elif not snapshot.aperiodic:
        rows.append("Periodic: P<sub>n</sub> oscillates and has no limit unless P₀ is the equilibrium.")
    else:
        rows.append("Unique equilibrium P = p<sup>T</sup>P, the limit from any start.")
    rows.append("</p>")
    if g.chain and g.n <= 6:
        dist = ", ".join(f"{v:.4f}" for v in snapshot.distribution)
        rows.append(f"<p class='num'>P<sub>n</sub> = ({dist})</p>")
    return "".join(rows)
