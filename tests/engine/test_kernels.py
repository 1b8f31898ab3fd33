"""Kernels: Gram matrices equal the direct formulas and are symmetric PSD."""

import numpy as np
import pytest

from smlengine import kernels


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    return rng.normal(size=(30, 3)), rng.normal(size=(7, 3))


def _direct(func, X, Y):
    return np.array([[func(x, y) for y in Y] for x in X])


def test_formulas(data):
    X, Y = data
    np.testing.assert_allclose(kernels.linear(X, Y), _direct(np.dot, X, Y), atol=1e-12)
    np.testing.assert_allclose(
        kernels.polynomial(X, Y, degree=2, coef0=0.5), _direct(lambda a, b: (a @ b + 0.5) ** 2, X, Y), rtol=1e-12
    )
    np.testing.assert_allclose(
        kernels.rbf(X, Y, gamma=0.7), _direct(lambda a, b: np.exp(-0.7 * np.sum((a - b) ** 2)), X, Y), rtol=1e-10
    )


@pytest.mark.parametrize(
    "name, params", [("linear", {}), ("poly", {"degree": 3, "coef0": 1.0}), ("rbf", {"gamma": 2.0})]
)
def test_gram_symmetric_psd(data, name, params):
    X, _ = data
    k = kernels.make_kernel(name, **params)
    K = k(X, X)
    np.testing.assert_allclose(K, K.T, rtol=1e-12, atol=1e-12)
    eig = np.linalg.eigvalsh((K + K.T) / 2)
    assert eig.min() >= -1e-10 * max(1.0, eig.max())
    np.testing.assert_allclose(k(X), K)


def test_rbf_diagonal_is_one(data):
    X, _ = data
    np.testing.assert_array_equal(np.diag(kernels.rbf(X, gamma=5.0)), 1.0)


def test_make_kernel_ignores_unused_and_rejects_bad():
    X = np.eye(3)
    np.testing.assert_allclose(kernels.make_kernel("linear", gamma=3.0)(X, X), np.eye(3))
    with pytest.raises(ValueError, match="kernel must be one of"):
        kernels.make_kernel("sigmoid")
    with pytest.raises(ValueError, match=r"gamma must be a float in \(0, 1e6\]; got 0"):
        kernels.make_kernel("rbf", gamma=0.0)
    with pytest.raises(ValueError, match="unknown kernel parameter"):
        kernels.make_kernel("rbf", sigma=1.0)


def test_bad_input():
    with pytest.raises(ValueError, match="NaN or infinite"):
        kernels.rbf(np.array([[np.nan, 0.0]]), np.zeros((1, 2)))
    with pytest.raises(ValueError, match="different numbers of features"):
        kernels.linear(np.zeros((2, 2)), np.zeros((2, 3)))
    with pytest.raises(ValueError, match=r"gamma must be a float in \(0, 1e6\]; got -1"):
        kernels.rbf(np.zeros((2, 2)), gamma=-1.0)


@pytest.mark.parametrize(
    "name, params", [("linear", {}), ("poly", {"degree": 3, "coef0": 0.5}), ("rbf", {"gamma": 0.7})]
)
@pytest.mark.parametrize("scale", [1.0, 2.0])
def test_kernel_rows_are_the_gram_columns(data, name, params, scale):
    X, _ = data
    K = kernels.make_kernel(name, **params)(X, X)
    rows = kernels.KernelRows(name, X, scale=scale, **params)
    np.testing.assert_allclose(rows.diag, np.diag(K), rtol=1e-12)
    np.testing.assert_allclose(kernels.diagonal(name, X, **params), np.diag(K), rtol=1e-12)
    for o in (0, 7, 29):
        np.testing.assert_allclose(rows.row(o, np.empty(30)), scale * K[:, o], rtol=1e-12, atol=1e-14)
    # on a subset of the points, in another order: the terms P, aux gathered by the caller
    sub = np.array([5, 2, 17, 11])
    aux = None if rows.aux is None else rows.aux[sub]
    np.testing.assert_allclose(rows.row(3, np.empty(4), rows.P[sub], aux), scale * K[sub, 3], rtol=1e-12)
    coef = np.random.default_rng(1).normal(size=6)
    R, S = np.array([0, 4, 9, 28]), np.array([1, 2, 3, 10, 20, 25])
    np.testing.assert_allclose(rows.block_dot(R, S, coef), K[np.ix_(R, S)] @ coef, rtol=1e-10)


def test_kernel_rows_reject_unknown_kernel(data):
    with pytest.raises(ValueError, match="kernel must be one of"):
        kernels.KernelRows("sigmoid", data[0])


def test_rbf_grid_expansion_is_the_kernel_expansion():
    rng = np.random.default_rng(2)
    centres, coef = rng.normal(size=(9, 2)), rng.normal(size=9)
    xs, ys = np.linspace(-2, 2, 7), np.linspace(-1, 3, 5)
    gx, gy = np.meshgrid(xs, ys)
    pts = np.column_stack([gx.ravel(), gy.ravel()])
    f = kernels.rbf_grid_expansion(xs, ys, centres, coef, 1.3)
    assert f.shape == (5, 7)
    np.testing.assert_allclose(f.ravel(), kernels.rbf(pts, centres, gamma=1.3) @ coef, rtol=1e-12, atol=1e-15)
    # far from every centre (exponent below -200 per coordinate) the terms are exactly 0
    assert np.all(kernels.rbf_grid_expansion(xs + 1e3, ys, centres, coef, 1.3) == 0.0)
