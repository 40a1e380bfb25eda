"""The package against scikit-learn's own inspection tools on the same fitted model
(issue 49, "Checked against the Python peers").

Tolerance 1e-12: both sides average the same predictions of the same model on the
same rows; they differ only in summation order (n ≤ 300 terms of size ≤ 10, so the
rounding is below 300 · 2⁻⁵² · 10 ≈ 7e-13)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.ensemble import RandomForestRegressor
from sklearn.inspection import partial_dependence, permutation_importance

import xaiws

TOL = 1e-12


def data(n: int = 300, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    X[:, 3] = np.round(X[:, 3])  # a few distinct values: a column with ties
    y = X[:, 0] + 2 * X[:, 1] ** 2 + X[:, 3] + 0.3 * rng.normal(size=n)
    return X, y


def sklearn_permutations(n: int, repeats: int, random_state: int) -> np.ndarray:
    """The row permutations `permutation_importance` applies, replayed from its
    source (scikit-learn 1.9.1, `_permutation_importance.py`): one seed for every
    column, `randint(2**31)` of `RandomState(random_state)`; per repeat the index is
    shuffled in place and applied to the already-permuted column, so repeat r's
    column is the original taken at p_r = p_(r-1)[s_r], s_r the shuffled index."""
    seed = np.random.RandomState(random_state).randint(np.iinfo(np.int32).max + 1)
    rs = np.random.RandomState(seed)
    idx = np.arange(n)
    p = np.arange(n)
    out = []
    for _ in range(repeats):
        rs.shuffle(idx)
        p = p[idx]
        out.append(p.copy())
    return np.array(out)


@pytest.fixture(scope="module")
def forest():
    X, y = data()
    return RandomForestRegressor(n_estimators=40, random_state=1).fit(X, y), X, y


def test_pfi_equals_permutation_importance(forest):
    model, X, y = forest
    ours = xaiws.pfi(model, X, y, statistics="squared_error", permutations=sklearn_permutations(len(X), 5, 7))
    theirs = permutation_importance(model, X, y, n_repeats=5, random_state=7, scoring="neg_mean_squared_error")
    assert list(ours["feature"]) == ["X1", "X2", "X3", "X4"]
    np.testing.assert_allclose(ours["estimate"], theirs.importances_mean, rtol=0, atol=TOL)


def test_pfi_differs_with_other_permutations(forest):
    """The planted difference: scikit-learn's draws for another random_state."""
    model, X, y = forest
    ours = xaiws.pfi(model, X, y, permutations=sklearn_permutations(len(X), 5, 8))
    theirs = permutation_importance(model, X, y, n_repeats=5, random_state=7, scoring="neg_mean_squared_error")
    assert np.max(np.abs(ours["estimate"] - theirs.importances_mean)) > 1e-3


def test_pd_equals_partial_dependence_brute(forest):
    model, X, y = forest
    rows = X[:60]  # fewer distinct values than grid_resolution: sklearn's grid is np.unique
    for j in range(4):
        ours = xaiws.pd(model, rows, features=[f"X{j + 1}"], grid="unique")
        theirs = partial_dependence(model, rows, [j], method="brute", kind="average", grid_resolution=100, percentiles=(0, 1))
        np.testing.assert_array_equal(ours["x"], theirs["grid_values"][0])
        np.testing.assert_allclose(ours["estimate"], theirs["average"][0], rtol=0, atol=TOL)


def test_pd_differs_on_other_rows(forest):
    """The planted difference: the PD of other rows."""
    model, X, y = forest
    ours = xaiws.pd(model, X[:60], features=["X4"], grid="unique")
    theirs = partial_dependence(model, X[60:120], [3], method="brute", kind="average", grid_resolution=100, percentiles=(0, 1))
    common, i, k = np.intersect1d(ours["x"], theirs["grid_values"][0], return_indices=True)
    assert len(common) >= 3
    assert np.max(np.abs(ours["estimate"].to_numpy()[i] - theirs["average"][0][k])) > 1e-3
