"""One engine behind both front ends (issue 62): ``explain`` runs the engine's
per-replicate kernel, so on a table it gives the rows ``run`` gives for an experiment
naming that table; settings are checked by the engine before any work; quantities are
named by the engine."""

from __future__ import annotations

import json
import time

import numpy as np
import pandas as pd
import pytest
from pandas.testing import assert_frame_equal
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.linear_model import LinearRegression

import xaiws

LEARNER = {"random_forest": {"n_trees": 8, "min_samples_split": 5}}
PFI = {"pfi": {"perturbation": {"permutation": {"repeats": 3}}, "statistics": ["squared_error"]}}
ICE = {"ice": {"grid": {"points": 5, "range": "min_max"}, "statistics": ["prediction"], "curves": 4}}
LEARNER_PD = {"ice": {"grid": {"points": 4, "range": {"fixed": [0, 2]}}, "statistics": ["prediction"], "features": ["x1"]}}
INFERENCE = {"learner_inference": {"resampling": "subs", "refits": 3, "explain": [PFI, LEARNER_PD]}}
METHODS = [PFI, ICE, INFERENCE]


def _table(path) -> pd.DataFrame:
    """y = 2·x1 + colour + noise, x2 unused; colour categorical (red, blue)."""
    i = np.arange(60)
    x1, x2 = (i % 9) / 4.0, (i % 7) / 3.0
    red = i % 3 == 0
    y = 2 * x1 + red + ((i * 37 % 11) - 5) / 20.0
    df = pd.DataFrame({"x1": x1, "x2": x2, "colour": np.where(red, "red", "blue"), "y": y})
    df.to_csv(path, index=False)
    return df


def test_explain_on_a_table_gives_the_rows_run_gives(tmp_path):
    df = _table(tmp_path / "mine.csv")
    yaml = {
        "id": "explain-identity",
        "title": "t",
        "paper": "molnar2023",
        "figure": "none",
        "seed": 17,
        "tidy": True,
        "scales": {s: {"replicates": 1} for s in ("smoke", "ci", "paper")},
        "data": {
            "dataset": {
                "name": "mine",
                "table": {
                    "file": "mine.csv",
                    "target": {"column": "y", "task": "regression"},
                    "categorical": {"colour": ["red", "blue"]},
                },
                "test_fraction": 0,
            }
        },
        "models": {"forest": LEARNER},
        "methods": METHODS,
    }
    (tmp_path / "explain-identity.yaml").write_text(json.dumps(yaml))  # JSON is YAML
    ran = xaiws.run(str(tmp_path / "explain-identity.yaml"), out=str(tmp_path / "out"), threads=2)
    X = df[["x1", "x2", "colour"]].assign(colour=pd.Categorical(df.colour, categories=["red", "blue"]))
    got = xaiws.explain(learner=LEARNER, X=X, y=df.y, methods=METHODS, name="forest", seed=17)
    assert_frame_equal(got.tidy, ran.tidy, check_exact=True)
    assert set(got.tidy.quantity) >= {"loss_pfi", "prediction_pd", "learner_loss_pfi_corrected"}
    # The curves carry ice.csv's columns: the row's values and its class.
    assert list(got.curves.columns)[-4:] == ["at_x1", "at_x2", "at_colour", "class"]
    other = xaiws.explain(learner=LEARNER, X=X, y=df.y, methods=METHODS, name="forest", seed=18)
    assert not other.tidy.estimate.equals(got.tidy.estimate)


def _gp():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(80, 3))
    y = X[:, 0] + X[:, 0] * 0.9 + 0.3 * rng.normal(size=80)
    X[:, 1] = X[:, 0] + 0.1 * rng.normal(size=80)
    return X, y, GaussianProcessRegressor(alpha=0.1).fit(X, y)


@pytest.mark.parametrize("statistic", ["squared_error", "r2_loss", "nll", "entropy", "prediction"])
def test_cid_corrects_the_pfi_of_any_statistic_the_model_allows(statistic):
    X, y, gp = _gp()
    t = xaiws.cid(gp, X, y, statistics=statistic, repeats=2)
    pfi = xaiws._native.quantities(json.dumps({"pfi": {"perturbation": {"permutation": {"repeats": 2}}, "statistics": [statistic]}}))
    assert len(pfi) == 1 and pfi[0].endswith("_pfi")
    cid = pfi[0][: -len("pfi")] + "cid"
    assert set(t.quantity) >= {pfi[0], cid}
    assert len(t[t.quantity == cid]) == 3


def test_a_size_that_cannot_fit_is_refused_before_it_is_allocated_naming_the_setting():
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(200, 3)), rng.normal(size=200)
    lm = LinearRegression().fit(X, y)
    start = time.perf_counter()
    with pytest.raises(xaiws.XaiError, match="`repeats` is too large"):
        xaiws.pfi(lm, X, y, repeats=10**9)
    print(f"refused in {time.perf_counter() - start:.3f} s")


@pytest.mark.parametrize("level", [0.0, 1.0, -0.1, 1.5, 95, float("nan")])
def test_a_level_outside_0_1_is_a_value_error_naming_level(level):
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(50, 2)), rng.normal(size=50)
    lm = LinearRegression().fit(X, y)
    with pytest.raises(ValueError, match="level must lie in"):
        xaiws.pfi(lm, X, y, repeats=2, level=level)


def test_ctrl_c_stops_a_long_call_at_its_next_block_and_raises_keyboard_interrupt():
    """A SIGINT (what Ctrl-C sends) during learner-PFI over 5000 refits: the call ends
    at a refit soon after with KeyboardInterrupt, and the package works on."""
    import os
    import signal

    rng = np.random.default_rng(1)
    X, y = rng.normal(size=(30, 2)), rng.normal(size=30)
    fits = []

    def fit(X, y):
        fits.append(1)
        if len(fits) == 3:
            os.kill(os.getpid(), signal.SIGINT)
        return LinearRegression().fit(X, y)

    with pytest.raises(KeyboardInterrupt):
        xaiws.learner_pfi(fit, X, y, refits=5000, repeats=2)
    assert 3 <= len(fits) < 5000
    assert len(xaiws.pfi(LinearRegression().fit(X, y), X, y, repeats=2)) == 2
