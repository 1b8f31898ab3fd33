"""The arithmetic of backpropagation for :mod:`smlengine.neural`: activations, the forward and
backward passes over blocks of rows, the clipped log-loss, and the two update rules.

Layers are numbered l = 0 .. L-1 by their weights: W[l] has shape (units[l], units[l+1]) as in
scikit-learn (inputs on rows), so a row of data x gives h[l+1] = g(h[l] W[l] + b[l]), h[0] = x.
The output unit is logistic for two classes (one column, scikit-learn's shape; the same as a
softmax over the logits (0, z)) and a softmax over K columns otherwise.

Why blocks: the data term of the loss and its gradient are sums over rows, so they are summed
block by block (:data:`BLOCK` rows at a time). The work arrays then stay a few megabytes --
small enough for the processor's cache, which makes the element-wise work (tanh, g', p - y)
faster than on whole-data arrays -- and the memory of a pass never grows with the data.
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit

__all__ = ["ACTIVATIONS", "BLOCK", "Adam", "Momentum", "Workspace", "activate", "apply_derivative", "block_rows",
           "gradient_pass", "loss_and_error", "output_layer", "predicted_index", "true_class_probabilities"]

ACTIVATIONS = ("tanh", "relu", "logistic")

#: rows of one block of the forward and backward passes
BLOCK = 4096
#: bytes the work arrays of one block may take (wide networks get shorter blocks)
WORK_BYTES = 64 * 2**20

# probabilities are clipped to [EPS, 1 - EPS] inside the logarithm, as scikit-learn's log_loss
EPS = np.finfo(np.float64).eps


def activate(name: str, A: np.ndarray, scratch: np.ndarray | None = None) -> np.ndarray:
    """h = g(a), in place (``scratch``: a work array of A's shape, for tanh).

    tanh is computed as sign(a) (1 − e) / (1 + e), e = exp(−2|a|): within 4.5e-16 of it everywhere
    (an absolute error: e's rounding), about twice as fast as ``np.tanh``, whose float64 loop is
    not vectorised, and tanh is the largest cost of a pass.
    """
    if name == "tanh":
        e = np.empty_like(A) if scratch is None else scratch
        np.abs(A, out=e)
        e *= -2.0
        np.exp(e, out=e)
        np.subtract(1.0, e, out=e)  # 1 − e
        np.copysign(e, A, out=A)  # sign(a) (1 − e)
        np.subtract(2.0, e, out=e)  # 1 + e
        A /= e
    elif name == "relu":
        np.maximum(A, 0.0, out=A)
    else:
        expit(A, out=A)
    return A


def apply_derivative(name: str, H: np.ndarray, D: np.ndarray, tmp: np.ndarray) -> None:
    """D *= g'(a), with g' written through the unit's output h = g(a) (``tmp`` is scratch).

    tanh' = 1 - h², logistic' = h (1 - h), relu' = [h > 0]: the forward pass keeps h, not a.
    """
    if name == "tanh":
        np.multiply(H, H, out=tmp)
        np.subtract(1.0, tmp, out=tmp)
        D *= tmp
    elif name == "logistic":
        np.subtract(1.0, H, out=tmp)
        D *= H
        D *= tmp
    else:
        np.copyto(D, 0.0, where=H == 0.0)


def output_layer(A: np.ndarray) -> np.ndarray:
    """p = logistic(z) for one output column, softmax(z) row by row otherwise (in place)."""
    if A.shape[1] == 1:
        expit(A, out=A)
    else:
        A -= A.max(axis=1, keepdims=True)
        np.exp(A, out=A)
        A /= A.sum(axis=1, keepdims=True)
    return A


def true_class_probabilities(P: np.ndarray, y_idx: np.ndarray) -> np.ndarray:
    """p(y_i | x_i), clipped to [eps, 1 - eps] first as scikit-learn's log-loss does."""
    Pc = np.clip(P, EPS, 1.0 - EPS)
    if P.shape[1] == 1:
        return np.where(y_idx == 1, Pc[:, 0], 1.0 - Pc[:, 0])
    return Pc[np.arange(len(y_idx)), y_idx]


def predicted_index(P: np.ndarray) -> np.ndarray:
    """The class index of the largest probability (class 1 when p > 1/2 for one output column)."""
    if P.shape[1] == 1:
        return (P[:, 0] > 0.5).astype(np.intp)
    return np.argmax(P, axis=1)


class Workspace:
    """Work arrays for blocks of at most ``rows`` rows of a network with these layer sizes.

    ``H[l]`` holds h[l+1] (``H[-1]`` the output probabilities) and ``D[l]`` the deltas of layer
    l, δ[l] = ∂(loss summed over the block)/∂a[l+1]. :meth:`pass_block` runs both passes on
    one block and adds its share of the gradient sums.
    """

    def __init__(self, units, rows: int, dtype=np.float64):
        units = [int(u) for u in units]
        self.units, self.rows = units, int(rows)
        self.H = [np.empty((self.rows, u), dtype) for u in units[1:]]
        self.D = [np.empty((self.rows, u), dtype) for u in units[1:]]
        self.tmp = np.empty((self.rows, max(units[1:])), dtype)
        self.X = np.empty((self.rows, units[0]), dtype)  # gathered rows of a mini-batch
        self.T = np.empty((self.rows, units[-1]), dtype)
        self.ones = np.ones(self.rows, dtype)

    def forward(self, X: np.ndarray, coefs, intercepts, activation: str) -> list[np.ndarray]:
        """h[l+1] = g(h[l] W[l] + b[l]) for the m rows of X; returns the views of H for them."""
        m = len(X)
        H = [h[:m] for h in self.H]
        prev = X
        for l, (W, b) in enumerate(zip(coefs, intercepts)):
            np.matmul(prev, W, out=H[l])
            H[l] += b
            if l < len(coefs) - 1:
                activate(activation, H[l], self.D[l][:m])  # the layer's deltas are free until the backward pass
            prev = H[l]
        output_layer(H[-1])
        return H

    def pass_block(self, X, T, coefs, intercepts, activation, coef_sums, intercept_sums) -> np.ndarray:
        """Forward then backward on one block; add Σ_i h[l]ᵢ δ[l]ᵢᵀ and Σ_i δ[l]ᵢ to the sums.

        δ[L-1] = p - y at the output; δ[l-1] = (δ[l] W[l]ᵀ) ⊙ g'(a[l]). Returns the block's
        output probabilities (a view of the work array, valid until the next block).
        """
        m = len(X)
        H = self.forward(X, coefs, intercepts, activation)
        D = [d[:m] for d in self.D]
        ones, tmp = self.ones[:m], self.tmp[:m]
        last = len(coefs) - 1
        np.subtract(H[-1], T, out=D[last])
        for l in range(last, -1, -1):
            below = X if l == 0 else H[l - 1]
            coef_sums[l] += below.T @ D[l]
            intercept_sums[l] += ones @ D[l]
            if l > 0:
                np.matmul(D[l], coefs[l].T, out=D[l - 1])
                apply_derivative(activation, H[l - 1], D[l - 1], tmp[:, :D[l - 1].shape[1]])
        return H[-1]


class Momentum:
    """Gradient descent with momentum: v ← μ v − η ∇L, w ← w + v (μ = 0: plain steps w ← w − η ∇L).

    With μ = 0 this is scikit-learn's ``solver="sgd"`` at a constant learning rate; with μ > 0
    its ``nesterovs_momentum=False``.
    """

    def __init__(self, params, learning_rate: float, momentum: float):
        self.learning_rate, self.momentum = float(learning_rate), float(momentum)
        self.velocities = [np.zeros_like(p) for p in params] if self.momentum else None

    def update(self, params, grads) -> None:
        """One step on every parameter array, in place."""
        if self.velocities is None:
            for p, g in zip(params, grads):
                p -= self.learning_rate * g
            return
        for p, g, v in zip(params, grads, self.velocities):
            v *= self.momentum
            v -= self.learning_rate * g
            p += v


class Adam:
    """Adam (Kingma & Ba, 2015) with β₁ = 0.9, β₂ = 0.999, ε = 1e-8, written as scikit-learn's:

    m ← β₁ m + (1 − β₁) g,  v ← β₂ v + (1 − β₂) g²,  η_t = η √(1 − β₂ᵗ) / (1 − β₁ᵗ),
    w ← w − η_t m / (√v + ε).
    """

    beta_1, beta_2, epsilon = 0.9, 0.999, 1e-8

    def __init__(self, params, learning_rate: float):
        self.learning_rate_init = float(learning_rate)
        self.learning_rate = float(learning_rate)
        self.t = 0
        self.ms = [np.zeros_like(p) for p in params]
        self.vs = [np.zeros_like(p) for p in params]

    def update(self, params, grads) -> None:
        """One step on every parameter array, in place."""
        self.t += 1
        b1, b2 = self.beta_1, self.beta_2
        self.ms = [b1 * m + (1 - b1) * g for m, g in zip(self.ms, grads)]
        self.vs = [b2 * v + (1 - b2) * (g ** 2) for v, g in zip(self.vs, grads)]
        self.learning_rate = self.learning_rate_init * np.sqrt(1 - b2 ** self.t) / (1 - b1 ** self.t)
        for p, m, v in zip(params, self.ms, self.vs):
            p += -self.learning_rate * m / (np.sqrt(v) + self.epsilon)


def block_rows(units, n_rows: int) -> int:
    """Rows per block: at most :data:`BLOCK`, fewer for wide networks so the work arrays fit
    :data:`WORK_BYTES`, never more than the data has."""
    per_row = 8 * (2 * sum(units[1:]) + max(units[1:]) + units[0] + units[-1] + 1)
    return int(max(1, min(BLOCK, WORK_BYTES // per_row, n_rows)))


def gradient_pass(X, T, y_idx, coefs, intercepts, activation, alpha, ws: Workspace, coef_grads, intercept_grads,
                  rows=None) -> tuple[float, float, float]:
    """Loss and gradient over the rows of X (or the rows ``rows`` of X, a mini-batch), in place.

    L = -(1/m) Σ_i log p(y_i | x_i) + α/(2m) Σ_l ‖W[l]‖²,
    ∂L/∂W[l] = (Σ_i h[l]ᵢ δ[l]ᵢᵀ + α W[l]) / m,  ∂L/∂b[l] = (Σ_i δ[l]ᵢ) / m.

    Fills ``coef_grads`` and ``intercept_grads`` and returns (L, the data term, the error rate).
    """
    m = len(X) if rows is None else len(rows)
    for g in (*coef_grads, *intercept_grads):
        g.fill(0.0)
    data_sum, wrong = 0.0, 0
    for start in range(0, m, ws.rows):
        if rows is None:
            Xb, Tb, yb = X[start:start + ws.rows], T[start:start + ws.rows], y_idx[start:start + ws.rows]
        else:
            idx = rows[start:start + ws.rows]
            Xb = np.take(X, idx, axis=0, out=ws.X[:len(idx)])
            Tb = np.take(T, idx, axis=0, out=ws.T[:len(idx)])
            yb = y_idx[idx]
        P = ws.pass_block(Xb, Tb, coefs, intercepts, activation, coef_grads, intercept_grads)
        data_sum -= float(np.log(true_class_probabilities(P, yb)).sum())
        wrong += int(np.count_nonzero(predicted_index(P) != yb))
    penalty = sum(float(np.dot(W.ravel(), W.ravel())) for W in coefs)
    for g, W in zip(coef_grads, coefs):
        g += alpha * W
        g /= m
    for g in intercept_grads:
        g /= m
    data = data_sum / m
    return data + 0.5 * alpha * penalty / m, data, wrong / m


def loss_and_error(X, y_idx, coefs, intercepts, activation, ws: Workspace) -> tuple[float, float]:
    """(-(1/m) Σ_i log p(y_i | x_i), the error rate) over the rows of X (no penalty: a validation score)."""
    data_sum, wrong = 0.0, 0
    for start in range(0, len(X), ws.rows):
        P = ws.forward(X[start:start + ws.rows], coefs, intercepts, activation)[-1]
        yb = y_idx[start:start + ws.rows]
        data_sum -= float(np.log(true_class_probabilities(P, yb)).sum())
        wrong += int(np.count_nonzero(predicted_index(P) != yb))
    return data_sum / len(X), wrong / len(X)
