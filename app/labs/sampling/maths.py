"""The sampling lab's maths panel: the rule of the sampler on screen with the current numbers (Qt-free)."""

from __future__ import annotations

import html
import math


from smlengine.sampling import get_target

from .run import (
    MIN_DIAG_DRAWS,
    MIN_MARGINAL_DRAWS,
    SamplingGibbsSnapshot,
    SamplingMHSnapshot,
    SamplingRejectionSnapshot,
    diagnostics_from,
    marginals_from,
)


def _f(v: float | None, digits: int = 3) -> str:
    """A number as shown; "—" where it is undefined (None)."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "—"
    if isinstance(v, float) and math.isinf(v):
        return "−∞" if v < 0 else "∞"
    return f"{v:.{digits}g}"


def _count(v: float | None) -> str:
    """An effective sample size as shown: a whole number, "—" where undefined."""
    return "—" if v is None or not math.isfinite(float(v)) else f"{float(v):,.0f}"


#: what the lab says instead of R̂ and ESS when no chain has moved since the burn-in
STUCK = "the chains are stuck: none has moved since the burn-in, so ESS and R̂ say nothing"


def ess_text(ess: float | None, stuck: bool = False) -> str:
    """A chain's effective sample size as shown: "— (stuck)" for a chain that never moved (its
    ESS would be its number of draws), "—" where undefined."""
    return "— (stuck)" if stuck else _count(ess)


def diagnostics_wait(s: SamplingMHSnapshot) -> str:
    """Why R̂ and ESS are not shown yet (empty once they are)."""
    if s.rhat is not None:
        return ""
    if s.stuck:
        return STUCK
    start = diagnostics_from(s.burn_in)
    if start > s.n_steps:
        return (f"not computed: they need {MIN_DIAG_DRAWS} draws per chain after burn-in, "
                f"a run of {start} steps (this one has {s.n_steps})")
    if s.step <= s.burn_in:
        return f"from step {start}: burn-in until step {s.burn_in}, then {MIN_DIAG_DRAWS} draws per chain"
    return f"from step {start} ({MIN_DIAG_DRAWS} draws per chain after burn-in; {s.step - s.burn_in} so far)"


def diagnostics_note(s: SamplingMHSnapshot) -> str:
    """The short reason an empty R̂ or ESS plot shows ("" once they are computed)."""
    if s.rhat is not None:
        return ""
    if s.stuck:
        return "the chains are stuck"
    start = diagnostics_from(s.burn_in)
    if start > s.n_steps:
        return f"needs a run of {start} steps ({MIN_DIAG_DRAWS} draws per chain after burn-in)"
    return f"from step {start} ({MIN_DIAG_DRAWS} draws per chain after burn-in)"


def marginals_count(s: SamplingMHSnapshot) -> str:
    """The marginal plot's note: how many kept draws its histograms show, or how many they wait for."""
    if s.n_kept >= MIN_MARGINAL_DRAWS:
        return f"{s.n_kept:,} draws"
    return f"histograms from {MIN_MARGINAL_DRAWS:,} draws: {s.n_kept:,} so far"


def marginals_note(s: SamplingMHSnapshot) -> str:
    """The maths panel's line on the marginal histograms."""
    if s.n_kept >= MIN_MARGINAL_DRAWS:
        return f"marginal histograms: the {s.n_kept:,} draws after burn-in"
    start = marginals_from(s.burn_in, s.state.shape[0])
    late = f" (a longer run: this one ends at step {s.n_steps})" if start > s.n_steps else ""
    return (f"marginal histograms: drawn from {MIN_MARGINAL_DRAWS:,} draws after burn-in on, at step "
            f"{start}{late}; {s.n_kept:,} so far")


def maths_html(snap) -> str:
    if isinstance(snap, SamplingRejectionSnapshot):
        return rejection_html(snap)
    if isinstance(snap, SamplingMHSnapshot):
        return mh_html(snap)
    if isinstance(snap, SamplingGibbsSnapshot):
        return gibbs_html(snap)
    return ""


def rejection_html(s: SamplingRejectionSnapshot) -> str:
    last = ""
    if s.last_x is not None:
        verdict = "accepted (under p̃)" if s.last_accepted else "rejected (above p̃)"
        last = (f"<p>Last proposal: x = {_f(s.last_x)}, u = {_f(s.last_u)} → <b>{verdict}</b>.</p>")
    return (
        "<h3>Rejection sampling</h3>"
        "<p>Proposal q = N(0, s²) with p̃(x) ≤ M q(x) for all x.</p>"
        "<ol><li>draw x ~ q</li><li>draw u ~ U(0, M q(x))</li><li>keep x if u ≤ p̃(x)</li></ol>"
        "<p>The kept points are draws of p = p̃ / Z; a proposal is kept with probability Z / M "
        "(1/M here: p̃ is normalised).</p>"
        f"<p>s = {_f(s.scale)}, M = {_f(s.M)}, 1/M = {_f(1 / s.M)}<br>"
        f"proposed {s.n_proposed:,}, accepted {s.n_accepted:,}<br>"
        f"acceptance rate <b>{_f(s.rate)}</b> (expected {_f(1 / s.M)})</p>" + last
    )


def mh_html(s: SamplingMHSnapshot) -> str:
    t = get_target(s.target)
    x, xp = s.state[0], s.proposal[0]
    ratio = math.exp(min(0.0, float(s.log_p_proposal[0] - s.log_p[0]))) if s.step else None
    if s.step == 0:
        move = "<p>Step 0: the chains at their dispersed starts.</p>"
    else:
        verdict = "accepted: x<sub>t+1</sub> = x′" if s.accepted[0] else "rejected: x<sub>t+1</sub> = x<sub>t</sub>"
        move = (f"<p>Chain 1, step {s.step}: x′ = ({_f(xp[0])}, {_f(xp[1])}), "
                f"min(1, p̃(x′)/p̃(x<sub>t</sub>)) = {_f(ratio)} → <b>{verdict}</b>; "
                f"now x = ({_f(x[0])}, {_f(x[1])}).</p>")
    rates = ", ".join(_f(float(r), 2) for r in s.rates)
    if s.rhat is None:
        diagnostics = f"bulk ESS and split R̂: — ({html.escape(diagnostics_wait(s))})</p>"
    else:
        diagnostics = (
            f"bulk ESS (x₁, x₂): <b>{', '.join(_count(v) for v in s.ess)}</b><br>"
            f"rank-normalised split R̂ (x₁, x₂): <b>{', '.join(_f(float(v), 4) for v in s.rhat)}</b> "
            "(≈ 1 when the chains agree; &lt; 1.01 is good)</p>")
    trio_ess = [None] * len(s.trio_steps) if s.trio_ess is None else s.trio_ess
    trio_stuck = [False] * len(s.trio_steps) if s.trio_stuck is None else s.trio_stuck
    trio = "".join(
        f"<tr><td>{_f(float(st), 2)}</td><td>{_f(float(r), 2)}</td><td>{ess_text(e, stuck)}</td></tr>"
        for st, r, e, stuck in zip(s.trio_steps, s.trio_rates, trio_ess, trio_stuck))
    return (
        f"<h3>Metropolis–Hastings: {html.escape(t.title)}</h3>"
        "<p>Propose x′ = x<sub>t</sub> + s ε, ε ~ N(0, I); accept with probability "
        "<b>a = min(1, p̃(x′) / p̃(x<sub>t</sub>))</b> (u ~ U(0, 1), accept if u &lt; a), "
        "else stay: x<sub>t+1</sub> = x<sub>t</sub>. The proposal is symmetric, so detailed balance "
        "p(x) T(x→x′) = p(x′) T(x′→x) holds and p is invariant.</p>"
        + move +
        f"<p>s = {_f(s.step_size)}, burn-in {s.burn_in} steps, draws kept {s.n_kept:,}<br>"
        f"{html.escape(marginals_note(s))}<br>"
        f"acceptance rate per chain: {rates}<br>"
        + diagnostics +
        f"<p>True mean ({_f(float(t.mean[0]))}, {_f(float(t.mean[1]))}), "
        f"variances ({_f(float(t.cov[0, 0]))}, {_f(float(t.cov[1, 1]))}).</p>"
        "<p>Step sizes compared (one chain each):</p>"
        f"<table><tr><th>s</th><th>accepted</th><th>ESS x₁</th></tr>{trio}</table>"
        + ("" if s.trio_ess is not None else f"<p>ESS: {html.escape(diagnostics_wait(s))}.</p>")
    )


def gibbs_html(s: SamplingGibbsSnapshot) -> str:
    pic = s.picture
    mus = ", ".join(_f(float(m), 2) for m in pic.levels)
    marg = "—" if s.marginal_error is None else f"{100 * s.marginal_error:.1f} %"
    phase = "burn-in (not counted)" if s.step <= s.burn_in else "counted in the marginals"
    return (
        "<h3>Gibbs sampling of a Potts field</h3>"
        "<p>Posterior p(z | x) ∝ exp(β Σ<sub>i~j</sub> [z<sub>i</sub> = z<sub>j</sub>]) "
        "Π<sub>i</sub> N(x<sub>i</sub>; μ<sub>z<sub>i</sub></sub>, σ²).</p>"
        "<p>Full conditional of one pixel given its 4 neighbours:<br>"
        "<b>p(z<sub>i</sub> = k | z<sub>−i</sub>, x) ∝ exp(β n<sub>i</sub>(k) − "
        "(x<sub>i</sub> − μ<sub>k</sub>)² / (2σ²))</b>,<br>n<sub>i</sub>(k) = neighbours labelled k. "
        "A sweep draws all pixels of one checkerboard colour at once, then the other.</p>"
        f"<p>β = {_f(s.beta)}, σ = {_f(s.sigma)}, μ = ({mus})<br>"
        f"sweep {s.step} ({phase}; burn-in {s.burn_in})<br>"
        f"energy E(z) = {s.energy:,.1f}<br>changed this sweep: {100 * s.changed:.1f} %<br>"
        f"error of this sample: <b>{100 * s.error:.1f} %</b><br>"
        f"error of the marginal's most frequent label: <b>{marg}</b><br>"
        f"error of the noisy picture (nearest level): {100 * s.noisy_error:.1f} %</p>"
    )
