"""Experiments whose YAML names a model supplied from Python (`external`), run by
`run(experiment, models=...)` (issue 49, "Studies from Python")."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.ensemble import RandomForestRegressor

import xaiws

YAML = """id: {id}
title: PFI and PD of a Python learner on a formula DGP
paper: molnar2023
figure: none
seed: 11
scales:
  smoke: {{ replicates: 2 }}
  ci: {{ replicates: 3 }}
  paper: {{ replicates: 3 }}
data:
  dgp:
    formula:
      features:
        - X1: uniform(0, 1)
        - X2: uniform(0, 1)
      target: X1 - X2 + normal(0, 0.1)
  n_train: 80
  n_test: 40
models:
  mine:
    external: {{ name: mine }}
methods:
  - pfi: {{ perturbation: {{ permutation: {{ repeats: 3 }} }}, statistics: [squared_error] }}
  - ice: {{ grid: {{ points: 3, range: {{ fixed: [0.2, 0.8] }} }}, statistics: [prediction] }}
"""


def experiment(tmp_path, name="python-learner"):
    path = tmp_path / f"{name}.yaml"
    path.write_text(YAML.format(id=name))
    return str(path)


def test_a_python_learner_runs_in_an_experiment_reproducibly(tmp_path):
    path = experiment(tmp_path)
    a = xaiws.run(path, models={"mine": RandomForestRegressor(20)}, out=str(tmp_path / "a"))
    b = xaiws.run(path, models={"mine": RandomForestRegressor(20)}, out=str(tmp_path / "b"), threads=2)
    assert (tmp_path / "a" / "summary.csv").read_bytes() == (tmp_path / "b" / "summary.csv").read_bytes()
    pfi = a.summary[a.summary.quantity == "loss_pfi"]
    assert list(pfi.feature) == ["X1", "X2"] and (pfi.estimate > 0).all()
    assert (a.summary.n[a.summary.quantity == "prediction_pd"] == 3).all()


def test_an_unsupplied_external_model_is_named(tmp_path):
    with pytest.raises(xaiws.XaiError, match="mine"):
        xaiws.run(experiment(tmp_path), out=str(tmp_path / "out"))


class Broken(Exception):
    pass


def test_an_exception_in_a_refit_comes_back_and_nothing_is_left(tmp_path):
    calls = []

    def fit_twice_then_fail(X, y):
        calls.append(len(X))
        if len(calls) > 2:
            raise Broken("third fit")
        return RandomForestRegressor(5, random_state=0).fit(X, y)

    out = tmp_path / "out"
    with pytest.raises(Broken, match="third fit"):
        xaiws.run(experiment(tmp_path), models={"mine": fit_twice_then_fail}, out=str(out))
    left = sorted(p.name for p in out.rglob("*")) if out.exists() else []
    assert left == [], left


def test_a_python_learners_kind_can_be_given():
    d = xaiws.formula_dgp({"features": ["X1: uniform(0, 1)"], "target": "bernoulli(X1)"})
    X, y = d.sample(50, seed=1)
    assert set(np.unique(y)) <= {0, 1}
    np.testing.assert_allclose(d.conditional_mean(X.to_numpy()), X["X1"].to_numpy())


def test_a_table_of_ones_own_by_its_path(tmp_path):
    """`data: dataset: {name, table: {file, target}}`: no registry entry, the file's
    sha256 recorded in the manifest."""
    import hashlib
    import json

    rng = np.random.default_rng(2)
    x = rng.normal(size=(120, 2))
    y = 3 * x[:, 0] + 0.1 * rng.normal(size=120)
    table = tmp_path / "mine.csv"
    np.savetxt(table, np.column_stack([x, y]), delimiter=",", header="a,b,y", comments="")
    path = tmp_path / "own.yaml"
    path.write_text(
        YAML.format(id="own").replace(
            """data:
  dgp:
    formula:
      features:
        - X1: uniform(0, 1)
        - X2: uniform(0, 1)
      target: X1 - X2 + normal(0, 0.1)
  n_train: 80
  n_test: 40""",
            """data:
  dataset:
    name: mine
    table: { file: mine.csv, target: { column: y, task: regression } }
    test_fraction: 0.25""",
        ).replace("fixed: [0.2, 0.8]", "fixed: [-1, 1]")
    )
    r = xaiws.run(str(path), models={"mine": RandomForestRegressor(20)}, out=str(tmp_path / "out"))
    pfi = r.summary[r.summary.quantity == "loss_pfi"].set_index("feature")["estimate"]
    assert pfi["a"] > 10 * abs(pfi["b"])
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert manifest["tables"] == {"mine.csv": hashlib.sha256(table.read_bytes()).hexdigest()}


class Faulty:
    """A fitted model whose predict fails in one of three ways."""

    def __init__(self, fault):
        self.fault = fault

    def predict(self, X):
        X = np.asarray(X)
        if self.fault == "raises":
            raise Broken("predict broke")
        out = X[:, 0].copy()
        if self.fault == "nan":
            out[5] = np.nan
            return out
        return out[:-1]  # one value short


@pytest.mark.parametrize(
    "fault, error, message",
    [
        ("raises", Broken, "predict broke"),
        ("nan", xaiws.XaiError, r"model `mine`: predictions at row 5 is NaN"),
        ("short", xaiws.XaiError, r"model `mine`: predictions: \d+ values for \d+ rows"),
    ],
)
def test_a_faulty_model_in_a_run_gives_its_error_and_leaves_nothing(tmp_path, fault, error, message):
    out = tmp_path / "out"
    with pytest.raises(error, match=message):
        xaiws.run(experiment(tmp_path), models={"mine": lambda X, y: Faulty(fault)}, out=str(out))
    assert not out.exists() or sorted(p.name for p in out.rglob("*")) == []
