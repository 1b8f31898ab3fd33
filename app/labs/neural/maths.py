"""The maths panel's text and the captions that judge a training (Qt-free)."""

from __future__ import annotations

import numpy as np

from .run import NeuralLabSnapshot, PointStep

#: at most this many numbers of a layer are written out (the rest: "…")
SHOWN_UNITS = 8
G_PRIME = {"tanh": "1 − h²", "relu": "[a > 0]", "logistic": "h (1 − h)"}
OPTIMIZER_RULES = {
    "gd": "w ← w − η ∇L",
    "momentum": "v ← μ v − η ∇L, &nbsp; w ← w + v",
    "adam": "m ← β₁m + (1 − β₁)∇L, &nbsp; v ← β₂v + (1 − β₂)(∇L)², &nbsp; w ← w − η<sub>t</sub> m / (√v + ε)",
}


def sup(l: int) -> str:
    """⁽ˡ⁾ with the layer's number as superscript digits."""
    return "⁽" + str(l).translate(str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")) + "⁾"


def number(x: float) -> str:
    """Three significant digits, no "−0"; an overflowed value is written "overflow"."""
    x = float(x)
    if not np.isfinite(x):
        return "overflow"
    return f"{x:.3g}".replace("-", "−") if abs(x) >= 5e-4 or x == 0 else f"{x:.2e}".replace("-", "−")


def vector(v) -> str:
    v = np.ravel(v)
    shown = ", ".join(number(x) for x in v[:SHOWN_UNITS])
    return f"({shown}{', …' if len(v) > SHOWN_UNITS else ''})"


def layer_sizes(net) -> str:
    return " → ".join(str(n) for n in [net.coefs[0].shape[0], *(W.shape[1] for W in net.coefs)])


def loss_verdict(losses, diverged: str = "") -> str:
    """What a loss curve did, from its numbers: diverged (it rose above its start or the weights
    overflowed), oscillated (a fifth of its steps went up) or descended (by how much)."""
    losses = [float(v) for v in losses]
    if diverged:
        return f"diverged: {diverged}"
    if len(losses) < 2:
        return "not trained yet"
    first, last = losses[0], losses[-1]
    if last > first:
        return f"diverged: the loss rose from {number(first)} to {number(last)}"
    ups = sum(b > a for a, b in zip(losses, losses[1:]))
    fell = f"the loss fell from {number(first)} to {number(last)} ({number(100 * (last - first) / first)} %)"
    return f"oscillates: {ups} of {len(losses) - 1} steps went up; {fell}" if ups > 0.2 * (len(losses) - 1) \
        else f"descends: {fell}"


def maths_html(s: NeuralLabSnapshot, point: PointStep | None) -> str:
    net, p = s.net, s.ctx.params
    n = len(s.ctx.y_train)
    batch = int(p["batch_size"])
    batches = "the whole training set" if not batch or batch >= n else f"mini-batches of {batch} (shuffled)"
    penalty = net.loss - net.data_loss
    rows = [
        "<h3>The network</h3>",
        f"<p class='eq'>h⁽ˡ⁾ = g(W⁽ˡ⁾ h⁽ˡ⁻¹⁾ + b⁽ˡ⁾), &nbsp; g = {net.activation}, &nbsp; p(+1 | x) = σ(a⁽ᴸ⁾)</p>",
        f"<p>Layers {layer_sizes(net)}; {_optimizer(p)} on {batches}:</p>",
        f"<p class='eq'>{OPTIMIZER_RULES[p['optimizer']]}</p>",
        "<p class='eq'>L = −(1/n) Σ<sub>i</sub> log p(y<sub>i</sub> | x<sub>i</sub>) "
        "+ α/(2n) Σ<sub>l</sub> ‖W⁽ˡ⁾‖²</p>",
        "<h3>Now</h3><p class='num'>",
        f"epoch {s.epoch}" + (f", mini-batch {net.batch}" if net.batch else "") + f", {net.n_updates} updates<br>",
        f"L = {number(net.data_loss)} + {number(penalty)} = {number(net.loss)} &nbsp;(n = {n})<br>",
        f"‖∇L‖ = {number(net.grad_norm)}<br>",
        f"training error {100 * net.train_error:.1f} %",
    ]
    if s.test_error is not None:
        rows.append(f", test error {100 * s.test_error:.1f} %, test loss {number(net.val_loss)}")
    rows.append("</p>")
    if s.epoch:
        rows.append(f"<p>{_start_verdict(s)}</p>")
    if net.converged:
        rows.append("<p><b>Converged:</b> ‖∇L‖ ≤ the tolerance.</p>")
    if point is not None:
        rows.append(point_html(point, net.activation))
    return "".join(rows)


def _optimizer(p) -> str:
    if p["optimizer"] == "momentum":
        return f"momentum μ = {float(p['momentum']):g}, η = {float(p['learning_rate']):g}, α = {float(p['alpha']):g}"
    name = "Adam" if p["optimizer"] == "adam" else "gradient descent"
    return f"{name}, η = {float(p['learning_rate']):g}, α = {float(p['alpha']):g}"


def _start_verdict(s: NeuralLabSnapshot) -> str:
    if s.loss > s.start_loss:
        return (f"<b>The loss rose above its start</b> ({number(s.start_loss)} → {number(s.loss)}): the steps "
                "overshoot; lower the learning rate η.")
    return f"The loss fell from {number(s.start_loss)} to {number(s.loss)} since the start."


def point_html(step: PointStep, activation: str) -> str:
    """Point i's forward values, deltas and the update of one SGD step on it alone."""
    t = step.trace
    L = len(t.deltas)
    rows = [f"<h3>Backpropagation on point {step.index}</h3>",
            f"<p class='num'>x = {vector(step.x)}, class {'+1' if step.label > 0 else '−1'} "
            f"(target y = {1 if step.label > 0 else 0})<br>"]
    for l in range(1, L):
        rows.append(f"a{sup(l)} = {vector(t.pre_activations[l - 1])}<br>h{sup(l)} = {vector(t.activations[l])}<br>")
    p1 = float(t.activations[L][0, 0])
    rows.append(f"p(+1 | x) = {number(p1)}</p>")
    rows.append(f"<p class='eq'>δ⁽ᴸ⁾ = p − y, &nbsp; δ⁽ˡ⁾ = (W⁽ˡ⁺¹⁾ᵀ δ⁽ˡ⁺¹⁾) ⊙ g′(a⁽ˡ⁾), &nbsp; "
                f"g′ = {G_PRIME[activation]}</p><p class='num'>")
    for l in range(L, 0, -1):
        rows.append(f"δ{sup(l)} = {vector(t.deltas[l - 1])}<br>")
    rows.append("</p><p>One SGD step on this point alone: ΔW⁽ˡ⁾ = −η (δ⁽ˡ⁾ h⁽ˡ⁻¹⁾ᵀ + α W⁽ˡ⁾), "
                f"η = {step.learning_rate:g}:</p><p class='num'>")
    for l, d in enumerate(step.coef_updates, start=1):
        rows.append(f"‖ΔW{sup(l)}‖ = {number(np.linalg.norm(d))}, largest |Δw| = {number(np.abs(d).max())}<br>")
    after = "overflow (the step leaves the weights' range)" if step.loss_after is None else number(step.loss_after)
    rows.append(f"its loss {number(t.loss)} → {after}</p>")
    return "".join(rows)
