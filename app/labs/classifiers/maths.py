"""The classifiers lab's maths panel: pure functions from a snapshot to HTML (no Qt)."""

from __future__ import annotations

import html

from .run import ClassifiersLabSnapshot, is_svm, pair_numbers


def maths_html(snapshot: ClassifiersLabSnapshot, previous: ClassifiersLabSnapshot | None = None) -> str:
    """The update rule of the snapshot's classifier with its current numbers.

    ``previous`` is the snapshot just before (for the SMO pair's old α values).
    """
    kind = snapshot.ctx.kind
    if kind == "logistic":
        return logistic_html(snapshot)
    if is_svm(kind):
        return svm_html(snapshot, previous)
    return perceptron_html(snapshot)


def split_line(snapshot) -> str:
    ctx = snapshot.ctx
    text = f"{len(ctx.train_idx)} training points"
    if ctx.n_test:
        text += f", {ctx.n_test} test points (hollow): test error {100 * snapshot.test_error:.1f}%"
    return text

def perceptron_html(snapshot) -> str:
    p = snapshot.ctx.params
    alpha = p["learning_rate"]
    v = ", ".join(f"{x:.3f}" for x in snapshot.engine.v)
    rows = [
        "<h3>Perceptron</h3>",
        "<p class='eq'>f(x) = ⟨v, x⟩ − c = ⟨z, x̃⟩, &nbsp; z = (−c, v), &nbsp; x̃ = (1, x)</p>",
        "<p>Cost over the misclassified points (y<sub>i</sub>⟨z, x̃<sub>i</sub>⟩ ≤ 0):</p>",
        "<p class='eq'>C<sub>P</sub>(z) = Σ<sub>i ∈ M</sub> |⟨z, x̃<sub>i</sub>⟩|</p>",
    ]
    if p["mode"] == "batch":
        rows.append("<p>Batch step (gradient descent on C<sub>P</sub>):</p>"
                    "<p class='eq'>z ← z + α Σ<sub>i ∈ M</sub> y<sub>i</sub> x̃<sub>i</sub></p>")
    else:
        rows.append("<p>Single-sample step, for each misclassified x<sub>i</sub> in turn:</p>"
                    "<p class='eq'>z ← z + α y<sub>i</sub> x̃<sub>i</sub></p>")
    rows.append("<h3>Now</h3><p class='num'>")
    rows.append(f"step {snapshot.step}, epoch {snapshot.engine.epoch}<br>α = {alpha:g}<br>v = ({html.escape(v)})<br>c "
                f"= {snapshot.engine.c + 0.0:.4f}<br>")
    ctx = snapshot.ctx
    if snapshot.engine.index is not None and snapshot.engine.index < len(ctx.train_idx):
        xi = ctx.X_train[snapshot.engine.index]
        yi = ctx.y_train[snapshot.engine.index]
        rows.append(f"used x<sub>{snapshot.engine.index}</sub> = ({xi[0]:.3f}, {xi[1]:.3f}), y = {yi:+.0f}<br>")
    rows.append(f"mistakes |M| = {snapshot.engine.n_mistakes}<br>C<sub>P</sub> = "
                f"{snapshot.engine.cost:.4f}<br>{split_line(snapshot)}</p>")
    if snapshot.engine.converged:
        rows.append("<p><b>Converged:</b> every point is on its side, C<sub>P</sub> = 0.</p>")
    return "".join(rows)

def logistic_html(snapshot) -> str:
    p = snapshot.ctx.params
    w = snapshot.engine.w
    solver = p["solver"]
    rows = [
        "<h3>Logistic regression</h3>",
        "<p class='eq'>P(y | x) = σ(y f(x)), &nbsp; f(x) = ⟨w, x̃⟩ = ⟨v, x⟩ + w<sub>0</sub>, &nbsp; σ(t) = 1/(1 + "
        "e<sup>−t</sup>)</p>",
        "<p>Regularised negative log-likelihood (w<sub>0</sub> not penalised):</p>",
        "<p class='eq'>L(w) = Σ<sub>i</sub> log(1 + e<sup>−y<sub>i</sub>⟨w, x̃<sub>i</sub>⟩</sup>) + ‖v‖²/(2C)</p>",
        "<p class='eq'>∇L = −Σ<sub>i</sub> σ(−y<sub>i</sub>⟨w, x̃<sub>i</sub>⟩) y<sub>i</sub> x̃<sub>i</sub> + (0, "
        "v)/C</p>",
    ]
    if solver == "newton":
        rows.append("<p>Newton (IRLS) step, s<sub>i</sub> = σ(⟨w, x̃<sub>i</sub>⟩):</p>"
                    "<p class='eq'>H = Σ<sub>i</sub> s<sub>i</sub>(1 − s<sub>i</sub>) x̃<sub>i</sub> "
                    "x̃<sub>i</sub><sup>T</sup> + diag(0, 1/C, …)"
                    "<br>w ← w − t H<sup>−1</sup>∇L</p>")
    else:
        rows.append("<p>Gradient descent step:</p><p class='eq'>w ← w − t ∇L</p>")
    rows.append("<p>t is halved from its first trial until L(w + t d) ≤ L(w) + 10<sup>−4</sup> t ⟨∇L, d⟩ "
                "(Armijo), so L never increases. Dashed: P(+1 | x) = ¼ and ¾.</p>")
    rows.append("<h3>Now</h3><p class='num'>")
    rows.append(f"step {snapshot.step}, C = {p['C']:g}<br>w<sub>0</sub> = {w[0]:.4f}<br>"
                f"v = ({w[1]:.4f}, {w[2]:.4f})<br>L(w) = {snapshot.engine.loss:.5f}<br>‖∇L‖ = "
                f"{snapshot.engine.grad_norm:.3e}<br>"
                f"t = {snapshot.engine.step_size:g}<br>training error "
                f"{100 * snapshot.metrics[2]:.1f}%<br>{split_line(snapshot)}</p>")
    if snapshot.engine.converged:
        rows.append("<p><b>Converged:</b> ‖∇L‖ ≤ tol.</p>")
    return "".join(rows)

def svm_html(snapshot, previous=None) -> str:
    ctx = snapshot.ctx
    p = ctx.params
    kernel = {"svm_linear": "k(x, x′) = ⟨x, x′⟩",
              "svm_poly": f"k(x, x′) = (⟨x, x′⟩ + 1)<sup>{int(p['degree'])}</sup>",
              "svm_rbf": f"k(x, x′) = exp(−γ‖x − x′‖²), γ = {p['gamma']:g}"}[ctx.kind]
    rows = [
        "<h3>Soft-margin SVM, dual problem</h3>",
        "<p class='eq'>max<sub>α</sub> W(α) = Σ<sub>i</sub> α<sub>i</sub> − ½ Σ<sub>i,j</sub> α<sub>i</sub> "
        "α<sub>j</sub> y<sub>i</sub> "
        "y<sub>j</sub> k(x<sub>i</sub>, x<sub>j</sub>)</p>",
        f"<p class='eq'>0 ≤ α<sub>i</sub> ≤ C = {p['C']:g}, &nbsp; Σ<sub>i</sub> y<sub>i</sub> α<sub>i</sub> = 0</p>",
        f"<p class='eq'>f(x) = Σ<sub>i</sub> α<sub>i</sub> y<sub>i</sub> k(x<sub>i</sub>, x) + b, &nbsp; {kernel}</p>",
        "<h3>SMO pair update</h3>",
        "<p>Pick i with the largest KKT violation and j by the second-order rule; move along "
        "y<sub>i</sub>α<sub>i</sub> + y<sub>j</sub>α<sub>j</sub> = const, where W is a parabola:</p>",
        "<p class='eq'>η = k<sub>ii</sub> + k<sub>jj</sub> − 2k<sub>ij</sub>, &nbsp; t = (F<sub>i</sub> − "
        "F<sub>j</sub>)/η clipped to the box<br>α<sub>i</sub> ← α<sub>i</sub> + y<sub>i</sub> t, &nbsp; "
        "α<sub>j</sub> ← α<sub>j</sub> − y<sub>j</sub> t</p>",
        "<p>Stop when the KKT gap m(α) − M(α) ≤ tol = 10<sup>−3</sup>; b = mean over free support vectors "
        "(0 &lt; α<sub>i</sub> &lt; C).</p>",
        "<h3>Now</h3><p class='num'>",
        f"step {snapshot.step}",
    ]
    pn = pair_numbers(snapshot, previous)
    if pn is not None:
        rows.append(f"<br>pair i = {pn['i']} (y = {pn['yi']:+.0f}), j = {pn['j']} (y = {pn['yj']:+.0f})<br>η = "
                    f"{pn['eta']:.4f}<br>")
        if "ai0" in pn:
            rows.append(f"α<sub>i</sub>: {pn['ai0']:.4f} → {pn['ai']:.4f}<br>α<sub>j</sub>: {pn['aj0']:.4f} → "
                        f"{pn['aj']:.4f}")
        else:
            rows.append(f"α<sub>i</sub> = {pn['ai']:.4f}, α<sub>j</sub> = {pn['aj']:.4f}")
    n_free = snapshot.engine.n_support - snapshot.engine.n_bounded
    rows.append(f"<br>b = {snapshot.engine.b:.4f}<br>W(α) = {snapshot.engine.dual_objective:.5f}<br>KKT gap = "
                f"{snapshot.engine.kkt_gap:.3e}<br>"
                f"support vectors {snapshot.engine.n_support} ({n_free} free, {snapshot.engine.n_bounded} at C)<br>"
                f"training error {100 * snapshot.engine.train_error:.1f}%<br>{split_line(snapshot)}</p>")
    if snapshot.engine.converged:
        rows.append("<p><b>Converged:</b> the KKT conditions hold within tol.</p>")
    return "".join(rows)

