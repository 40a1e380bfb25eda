"""The named functions on cases with closed forms (each a method node of the
registry, so these hold the bridge, not the methods, which the Rust tests hold)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.ensemble import RandomForestRegressor
from sklearn.linear_model import LinearRegression

import xaiws


def linear(n: int = 200, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3)) * [1.0, 2.0, 0.5]
    y = 2 * X[:, 0] - 0.5 * X[:, 1] + 0.1 * rng.normal(size=n)
    return X, y, LinearRegression().fit(X, y)


def test_ice_impact_of_a_linear_model_is_its_slope_times_the_features_sd():
    """icefi2022 Eq. 1: FI_j = σ_j·|β_j| (population sd); Eq. 4–5: straight, parallel
    curves have no heterogeneity and no non-linearity."""
    X, y, lm = linear()
    t = xaiws.ice_impact(lm, X, y).set_index(["quantity", "feature"])["estimate"]
    for j, name in enumerate(["X1", "X2", "X3"]):
        assert t["prediction_fi", name] == pytest.approx(abs(lm.coef_[j]) * X[:, j].std(), abs=1e-9)
        assert abs(t["prediction_he", name]) < 1e-9 and abs(t["prediction_nl", name]) < 1e-9


def test_exact_shapley_of_a_linear_model_is_its_slope_times_the_centred_value():
    """For f(x) = β·x + b and v(S, x) = mean over background b of f(x_S, b_−S),
    φ_j(x) = β_j·(x_j − mean_b b_j); averaged over the explained rows."""
    X, y, lm = linear()
    bg, rows = 50, 40
    t = xaiws.shapley(lm, X[:100], y[:100], estimator="exact", background=bg, rows=rows, X_test=X[100:], y_test=y[100:])
    phi = t[t.quantity == "prediction_shap"].set_index("feature")["estimate"]
    expected = lm.coef_ * (X[100 : 100 + rows].mean(axis=0) - X[:bg].mean(axis=0))
    np.testing.assert_allclose(phi.to_numpy(), expected, rtol=0, atol=1e-9)


def test_learner_pfi_reports_the_corrected_interval_wider():
    X, y, _ = linear()
    t = xaiws.learner_pfi(RandomForestRegressor(20), X, y, resampling="subs", refits=5, repeats=2, seed=2)
    plain = t[t.quantity == "learner_loss_pfi"].set_index("feature")
    corrected = t[t.quantity == "learner_loss_pfi_corrected"].set_index("feature")
    assert list(plain.index) == ["X1", "X2", "X3"]
    np.testing.assert_allclose(plain.estimate, corrected.estimate)
    assert ((corrected.upper - corrected.lower) > (plain.upper - plain.lower)).all()


def test_learner_pd_on_a_fixed_grid():
    X, y, _ = linear()
    t = xaiws.learner_pd(RandomForestRegressor(20), X, y, refits=3, grid={"fixed": [-1, 1]}, points=3, features=["X1"])
    pd = t[t.quantity == "learner_prediction_pd"]
    assert list(pd.x) == [-1.0, 0.0, 1.0] and pd.estimate.is_monotonic_increasing


def test_cid_corrects_the_pfi_of_a_copied_feature():
    """A feature and its near copy cover each other's information about y, so
    permuting one loses little (its PFI is small) and CID = PFI/(1 − C) restores it
    (cid2021 Eq. 8); an independent feature (C ≈ 0) keeps its PFI."""
    rng = np.random.default_rng(3)
    a, b = rng.normal(size=400), rng.normal(size=400)
    X = np.column_stack([a, a + 0.01 * rng.normal(size=400), b])
    y = a + b + 0.1 * rng.normal(size=400)
    lm = LinearRegression().fit(X, y)
    t = xaiws.cid(lm, X, y, statistics="r2_loss").set_index(["quantity", "feature"])["estimate"]
    assert t["r2_cid", "X3"] == pytest.approx(t["r2_pfi", "X3"], rel=0.05)
    for f in ("X1", "X2"):
        assert t["r2_cid", f] > 5 * t["r2_pfi", f]


def test_fresh_draw_pfi_reads_the_dgp_and_matches_the_oracle():
    """PFI with x_j drawn afresh from P(X_j) (molnar2023's ideal PFI) of a model close
    to E[Y | X] is the oracle's E[(m(X̃ʲ) − m(X))²]; for Y = 2·X1 − X2 + ε with
    uniform features it is 2·β²·Var(U) = β²/6: 2/3 for X1, 1/6 for X2. Within 4 se of
    the estimate's own interval (the rows' spread) plus the oracle's Monte-Carlo se."""
    d = xaiws.formula_dgp({"features": ["X1: uniform(0, 1)", "X2: uniform(0, 1)"], "target": "2 * X1 - X2 + normal(0, 0.1)"})
    X, y = d.sample(2000, seed=1)
    lm = LinearRegression().fit(X, y)
    node = {"pfi": {"perturbation": {"fresh_draws": {"repeats": 5}}, "statistics": ["squared_error"]}}
    t = xaiws.explain(lm, X, y, node, dgp=d).tidy.set_index("feature")
    oracle = d.oracle_pfi(n=20000).set_index("feature")
    for f, exact in (("X1", 2 / 3), ("X2", 1 / 6)):
        assert oracle.estimate[f] == pytest.approx(exact, abs=4 * oracle.se[f])
        se = np.hypot(t.se[f], oracle.se[f])
        assert abs(t.estimate[f] - oracle.estimate[f]) < 4 * se, (f, t.estimate[f], oracle.estimate[f], se)
    with pytest.raises(xaiws.XaiError, match="fresh_draws|DGP"):
        xaiws.explain(lm, X, y, node)
