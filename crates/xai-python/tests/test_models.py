"""Models and learners from Python: kinds, seeding, and the errors a model's answer
can raise (issue 49, "Your model, your learner, your data")."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor
from sklearn.gaussian_process import GaussianProcessRegressor

import xaiws

PFI = {"pfi": {"perturbation": {"permutation": {"repeats": 3}}, "statistics": ["squared_error"]}}


def regression(n: int = 120, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    return X, X[:, 0] - X[:, 1] + 0.1 * rng.normal(size=n)


class Boom(Exception):
    pass


def test_an_exception_in_predict_comes_back_as_itself_with_its_traceback():
    X, y = regression()

    def exploding_model(rows):
        raise Boom("the model broke")

    with pytest.raises(Boom, match="the model broke") as info:
        xaiws.explain(exploding_model, X, y, PFI)
    frames = [f.name for f in info.traceback]
    assert "exploding_model" in frames


def test_an_exception_in_fit_comes_back_as_itself():
    X, y = regression()

    def exploding_fit(X, y):
        raise Boom("the fit broke")

    with pytest.raises(Boom, match="the fit broke"):
        xaiws.explain(learner=exploding_fit, X=X, y=y, methods=PFI)


def test_nan_predictions_name_the_model_and_the_first_bad_row():
    X, y = regression()

    def nan_at_row_7(rows):
        out = rows[:, 0].copy()
        out[7] = np.nan
        return out

    with pytest.raises(xaiws.XaiError, match=r"model `nan_at_row_7`.*row 7 is NaN"):
        xaiws.explain(nan_at_row_7, X, y, PFI)


def test_a_wrong_shape_names_the_model():
    X, y = regression()

    def one_short(rows):
        return rows[1:, 0]

    with pytest.raises(xaiws.XaiError, match=r"model `one_short`: predictions: 119 values for 120 rows"):
        xaiws.explain(one_short, X, y, PFI)


def test_probabilities_outside_0_1_name_the_model_and_row():
    X, y = regression()
    labels = (y > 0).astype(int)

    def too_sure(rows):
        p = np.column_stack([1 - 0.5 * np.ones(len(rows)), 0.5 * np.ones(len(rows))])
        p[4] = [-0.25, 1.25]
        return p

    with pytest.raises(xaiws.XaiError, match=r"model `too_sure`: probability -0.25 at row 4 is outside \[0, 1\]"):
        xaiws.explain(too_sure, X, labels, {"pfi": {"perturbation": {"permutation": {"repeats": 2}}, "statistics": ["brier"]}}, kind="probabilities")


def test_invalid_settings_name_the_method_and_field():
    X, y = regression()
    with pytest.raises(xaiws.XaiError, match=r"methods\[0\]"):
        xaiws.explain(lambda r: r[:, 0], X, y, {"pfi": {"perturbation": {"permutation": {"repeats": 2}}, "statistics": []}})


def test_kinds_are_detected():
    X, y = regression()
    gp = GaussianProcessRegressor().fit(X[:40], y[:40])
    t = xaiws.pfi(gp, X[:40], y[:40], statistics=["nll", "entropy"], repeats=2)
    assert set(t["quantity"]) == {"likelihood_pfi", "entropy_pfi"}
    labels = (y > 0).astype(int)
    rf = RandomForestClassifier(20, random_state=0).fit(X, labels)
    t = xaiws.pfi(rf, X, labels, statistics="brier", repeats=2)
    assert (t["estimate"] > -1).all()


def test_a_forests_trees_are_members_for_aleatoric_and_epistemic_entropy():
    X, y = regression()
    labels = np.where(y > 0, "yes", "no")
    rf = RandomForestClassifier(25, random_state=0).fit(X, labels)
    pd_entropy = xaiws.pd(rf, X, labels, statistics="entropy", features=["X1"], points=5, kind="members")
    # The members' mixture is the forest's own predict_proba: its entropy PD equals
    # the one of the forest read as probabilities, to summation order.
    as_proba = xaiws.pd(rf, X, labels, statistics="entropy", features=["X1"], points=5)
    np.testing.assert_allclose(pd_entropy["estimate"], as_proba["estimate"], rtol=0, atol=1e-12)


def test_a_learner_is_seeded_from_the_replicates_stream():
    X, y = regression()
    node = {
        "learner_inference": {
            "resampling": "subs",
            "refits": 3,
            "explain": [PFI],
        }
    }
    seeds = []

    def fit(X, y, random_state):
        seeds.append(random_state)
        return RandomForestRegressor(10, random_state=random_state).fit(X, y)

    # A model's stream is keyed on its name, as in a run: the same name, the same draws.
    a = xaiws.explain(learner=fit, X=X, y=y, methods=node, seed=5, name="forest").tidy
    first = list(seeds)
    b = xaiws.explain(learner=RandomForestRegressor(10), X=X, y=y, methods=node, seed=5, name="forest").tidy
    c = xaiws.explain(learner=fit, X=X, y=y, methods=node, seed=6, name="forest").tidy
    # The 3 refits: as in a run, the learner is fitted on the rows only before a
    # method that reads a fit (learner_inference refits, and reads none).
    assert len(first) == 3 and len(set(first)) == 3
    np.testing.assert_array_equal(a["estimate"], b["estimate"])
    assert not np.array_equal(a["estimate"], c["estimate"])


def test_a_fitted_model_cannot_refit():
    X, y = regression()
    rf = RandomForestRegressor(5, random_state=0).fit(X, y)
    node = {"learner_inference": {"resampling": "boot", "refits": 2, "explain": [PFI]}}
    with pytest.raises(xaiws.XaiError, match="pass learner="):
        xaiws.explain(rf, X, y, node)


def test_a_dataframe_keeps_names_and_categorical_columns():
    pd = pytest.importorskip("pandas")
    X, y = regression()
    frame = pd.DataFrame({"a": X[:, 0], "b": X[:, 1], "colour": pd.Categorical(np.where(X[:, 2] > 0, "red", "blue"))})
    seen = []

    def model(rows):
        seen.append(rows)
        return rows["a"].to_numpy() + (rows["colour"] == "red").to_numpy()

    t = xaiws.pfi(model, frame, y, repeats=2)
    assert list(t["feature"]) == ["a", "b", "colour"]
    assert isinstance(seen[0], pd.DataFrame)
    assert str(seen[0]["colour"].dtype) == "category"
    assert set(seen[0]["colour"]) == {"red", "blue"}


def test_a_built_in_learner_is_reachable_by_its_yaml_node():
    X, y = regression()
    node = {"random_forest": {"n_trees": 30}}
    a = xaiws.pfi(learner=node, X=X, y=y, repeats=2, seed=4)
    b = xaiws.pfi(learner=node, X=X, y=y, repeats=2, seed=4)
    np.testing.assert_array_equal(a["estimate"], b["estimate"])
    assert a["estimate"][0] > 10 * abs(a["estimate"][2])  # X1 drives y, X3 does not
    labels = np.where(y > 0, "up", "down")
    c = xaiws.pfi(learner=node, X=X, y=labels, statistics="brier", repeats=2)
    assert c["estimate"][0] > 0
    with pytest.raises(xaiws.XaiError, match="random_forest"):
        xaiws.pfi(learner={"random_forests": {}}, X=X, y=y)
