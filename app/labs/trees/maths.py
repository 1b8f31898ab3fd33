"""The trees lab's maths panel: pure functions from a snapshot to HTML (no Qt)."""

from __future__ import annotations

import math

import numpy as np

from .run import TreesLabSnapshot

AXES = ("x₁", "x₂")
CRIT_FORMULA = {
    "misclassification": "Q<sub>k</sub> = 1 − max<sub>c</sub> p<sub>kc</sub> (misclassified fraction)",
    "gini": "Q<sub>k</sub> = Σ<sub>c</sub> p<sub>kc</sub>(1 − p<sub>kc</sub>) (Gini)",
    "entropy": "Q<sub>k</sub> = −Σ<sub>c</sub> p<sub>kc</sub> log₂ p<sub>kc</sub> (entropy)",
}


def maths_html(step: TreesLabSnapshot) -> str:
    method = step.ctx.method
    if method == "adaboost":
        return boost_html(step)
    if method == "tree":
        return tree_html(step)
    return forest_html(step)


def _split_line(step: TreesLabSnapshot) -> str:
    ctx = step.ctx
    train = "—" if step.train_error is None else f"{100 * step.train_error:.1f}%"
    text = f"{len(ctx.train_idx)} training points, training error {train}"
    if ctx.n_test and step.test_error is not None:
        text += f"<br>{ctx.n_test} test points (hollow): test error {100 * step.test_error:.1f}%"
    return text


def boost_html(step: TreesLabSnapshot) -> str:
    e = step.engine
    rows = [
        "<h3>AdaBoost with stumps</h3>",
        "<p>Start with w<sub>i</sub> = 1/n. Round m fits the stump g<sub>m</sub> with the smallest weighted error</p>",
        "<p class='eq'>err<sub>m</sub> = Σ<sub>i</sub> w<sub>i</sub> I{y<sub>i</sub> ≠ g<sub>m</sub>(x<sub>i</sub>)} / "
        "Σ<sub>i</sub> w<sub>i</sub></p>",
        "<p class='eq'>α<sub>m</sub> = log((1 − err<sub>m</sub>) / err<sub>m</sub>)</p>",
        "<p class='eq'>w<sub>i</sub> ← w<sub>i</sub> · e<sup>α<sub>m</sub> I{y<sub>i</sub> ≠ "
        "g<sub>m</sub>(x<sub>i</sub>)}</sup>, then normalise</p>",
        "<p class='eq'>F(x) = Σ<sub>m</sub> α<sub>m</sub> g<sub>m</sub>(x), &nbsp; ŷ = sign F(x)</p>",
        "<p>Training error ≤ (1/n) Σ<sub>i</sub> e<sup>−y<sub>i</sub>F(x<sub>i</sub>)/2</sup> = "
        "Π<sub>m</sub> 2√(err<sub>m</sub>(1 − err<sub>m</sub>)).</p>",
        "<h3>Now</h3><p class='num'>",
        f"round m = {e.round}",
    ]
    if e.learner is not None and e.error is not None:
        err = e.error
        if e.axis is not None and e.axis >= 0:
            side = "&gt;" if e.polarity != -1 else "≤"
            rows.append(f"<br>stump: +1 where {AXES[e.axis]} {side} {e.threshold:.3f}")
        rows.append(f"<br>err<sub>m</sub> = {err:.4f}")
        if e.accepted and 0 < err < 0.5:
            factor = (1 - err) / err
            rows.append(f"<br>α<sub>m</sub> = log({1 - err:.4f} / {err:.4f}) = {e.alpha:.4f}")
            rows.append(f"<br>misclassified weights × e<sup>α</sup> = × {factor:.3f}")
            n_wrong = int(np.count_nonzero(e.misclassified)) if e.misclassified is not None else 0
            rows.append(f" ({n_wrong} points)")
            # after normalisation the misclassified points hold exactly half the weight
            rows.append(f"<br>their share: {err:.3f} → {err * factor / (err * factor + 1 - err):.3f}")
        elif e.accepted:
            rows.append(f"<br>α<sub>m</sub> = {e.alpha:.3f} (err = 0: a perfect stump)")
        else:
            rows.append("<br>err<sub>m</sub> ≥ ½: the stump is no better than chance (discarded)")
        w = e.weights
        rows.append(f"<br>weights: max {w.max():.4f}, min {w.min():.2e} (1/n = {1 / len(w):.4f})")
    rows.append(f"<br>exp. loss (1/n)Σe<sup>−yF/2</sup> = {e.exp_loss_half:.4f}<br>bound Π 2√(err(1−err)) = "
                f"{e.bound:.4f}")
    rows.append(f"<br>{_split_line(step)}</p>")
    if e.stopped_because:
        rows.append(f"<p><b>Stopped:</b> {e.stopped_because}.</p>")
    if step.ctx.params.get("dataset") == "circles":
        rows.append("<p>With the default circles (300 points, noise 0.1, half held out) the training error reaches 0 "
                    "near round 20, yet the test error keeps falling for another ten rounds: boosting keeps "
                    "widening the margins y F(x).</p>")
    return "".join(rows)


def tree_html(step: TreesLabSnapshot) -> str:
    e = step.engine
    crit = step.ctx.params["criterion"]
    rows = [
        "<h3>Growing a classification tree</h3>",
        "<p>For a region R<sub>m</sub> and a split x<sub>j</sub> &gt; t into R<sub>1</sub> (≤ t) and R<sub>2</sub> "
        "(&gt; t):</p>",
        "<p class='eq'>Q(R<sub>m</sub>, t) = (N<sub>1</sub>Q<sub>1</sub> + N<sub>2</sub>Q<sub>2</sub>) / "
        "N<sub>m</sub></p>",
        f"<p class='eq'>{CRIT_FORMULA[crit]}</p>",
        "<p>Every axis j is scanned; the t with the smallest Q wins (thresholds halfway between data values). "
        "Regions are split breadth first until the depth limit or until pure; each leaf votes its majority.</p>",
        "<h3>Now</h3><p class='num'>",
        f"step {e.step}: {e.n_leaves} leaves, depth {e.tree_depth}",
    ]
    if e.axis is not None:
        tree = e.tree
        left, right = tree.children_left[e.node], tree.children_right[e.node]
        nl, nr = tree.value[left], tree.value[right]
        N1, N2 = nl.sum(), nr.sum()
        rows.append(f"<br>split region {e.node} (depth {e.node_depth}, N<sub>m</sub> = {int(len(e.indices))})")
        rows.append(f"<br>rule: {AXES[e.axis]} ≤ {e.threshold:.3f}")
        rows.append(f"<br>R<sub>1</sub>: {int(nl[0])} of −1, {int(nl[1])} of +1, Q<sub>1</sub> = "
                    f"{tree.impurity[left]:.4f}")
        rows.append(f"<br>R<sub>2</sub>: {int(nr[0])} of −1, {int(nr[1])} of +1, Q<sub>2</sub> = "
                    f"{tree.impurity[right]:.4f}")
        rows.append(f"<br>Q(R<sub>m</sub>, t) = ({N1:g}·{tree.impurity[left]:.3f} + "
                    f"{N2:g}·{tree.impurity[right]:.3f}) / "
                    f"{N1 + N2:g} = {e.cost:.4f}")
        rows.append(f"<br>Q(R<sub>m</sub>) before the split = {e.region_cost:.4f}")
    elif e.done:
        rows.append("<br>the tree is finished")
    rows.append(f"<br>{_split_line(step)}</p>")
    return "".join(rows)


def forest_html(step: TreesLabSnapshot) -> str:
    e = step.engine
    forest = step.ctx.method == "forest"
    rows = [
        f"<h3>{'Random forest' if forest else 'Bagging'}</h3>",
        "<p>Tree b is grown on a bootstrap sample: n draws with replacement. The ensemble votes by majority.</p>",
        "<p class='eq'>P(point i not drawn) = (1 − 1/n)<sup>n</sup> → 1/e ≈ 0.368</p>",
        "<p>The trees that did not see a point vote on it: the out-of-bag (OOB) error, an estimate of the test error "
        "for free.</p>",
    ]
    if forest:
        rows.append(f"<p>Each split considers only {int(step.ctx.params['max_features'])} random axis(es), "
                    "which decorrelates the trees.</p>")
    rows.append("<p>Condorcet: m independent voters, each right with probability p &gt; ½, have a majority that is "
                "right with probability Σ<sub>j&gt;m/2</sub> C(m, j) p<sup>j</sup>(1 − p)<sup>m−j</sup> → 1. "
                "Trees are not independent, so the forest gains less.</p>")
    rows.append(f"<h3>Now</h3><p class='num'>trees: {e.n_trees}")
    if e.left_out_fraction is not None:
        rows.append(f"<br>left out by this tree: {e.left_out_fraction:.3f}; mean {e.oob_fraction:.3f} (1/e = "
                    f"{math.exp(-1):.3f})")
    if e.oob_error is not None:
        rows.append(f"<br>OOB error {100 * e.oob_error:.1f}% (points covered {100 * e.oob_covered:.0f}%)")
    if step.tree_accuracy is not None:
        rows.append(f"<br>single trees' mean test accuracy p̂ = {step.tree_accuracy:.3f}")
    if e.n_trees:
        rows.append(f"<br>{_split_line(step)}")
    rows.append("</p>")
    return "".join(rows)


def guess_html(guess: dict | None) -> str:
    """The student's split of the region about to be split next to the algorithm's optimum."""
    if not guess:
        return ""
    a, b = AXES[guess["axis"]], AXES[guess["best_axis"]]
    gap = guess["cost"] - guess["best_cost"]
    verdict = ("you found the optimum" if gap <= 1e-12 else
               f"{gap:.4f} above the optimum" + (" (no better than not splitting)"
                                                 if guess["cost"] >= guess["region_cost"] - 1e-12 else ""))
    return (f"<h3>You split region {guess['node']}</h3><p class='num'>"
            f"your rule: {a} ≤ {guess['threshold']:.3f} ({guess['n_left']} of {guess['n']} points left)"
            f"<br>Q(R<sub>m</sub>, t) = {guess['cost']:.4f}"
            f"<br>best: {b} ≤ {guess['best_threshold']:.3f}, Q = {guess['best_cost']:.4f}"
            f"<br>Q(R<sub>m</sub>) unsplit = {guess['region_cost']:.4f}<br>{verdict}</p>")
