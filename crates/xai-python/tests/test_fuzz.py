"""Every numeric keyword of the named functions, and the level, driven with 0, −1, 2.7,
NaN, 10⁹ and 10¹², and empty and one-row data (issue 62): each call returns a table or
raises one of the package's errors (``xaiws.XaiError``), never aborts the
interpreter, panics or hangs. The engine checks the values; the package sends them
as given (a fraction is never rounded to an integer)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.linear_model import LinearRegression

import xaiws

VALUES = [0, -1, 2.7, float("nan"), 10**9, 10**12]


def _data(n: int = 40):
    rng = np.random.default_rng(4)
    X = rng.normal(size=(n, 3))
    y = X[:, 0] + 0.5 * rng.normal(size=n)
    return X, y


def _model():
    X, y = _data()
    return LinearRegression().fit(X, y)


# (function, its keywords besides the one driven, the keywords driven)
CALLS = [
    (xaiws.pfi, {"repeats": 2}, ["repeats", "level"]),
    (xaiws.pd, {"points": 4}, ["points"]),
    (xaiws.ice, {"points": 4, "curves": 3}, ["points", "curves"]),
    (xaiws.shapley, {"background": 10, "samples": 16, "rows": 4}, ["background", "samples", "rows"]),
    (xaiws.shapley, {"background": 10, "samples": 16, "rows": 8, "conformal": 0.1}, ["conformal", "calibrate"]),
    (xaiws.ice_impact, {}, ["lam"]),
    (xaiws.cid, {"repeats": 2}, ["repeats", "alpha", "bins", "k"]),
]

LEARNER_CALLS = [
    (xaiws.learner_pfi, {"refits": 3, "repeats": 2}, ["refits", "repeats"]),
    (xaiws.learner_pd, {"refits": 3, "points": 3, "grid": {"fixed": [-1, 1]}}, ["refits", "points"]),
]


def _ends_well(call):
    try:
        out = call()
    except xaiws.XaiError:
        return
    assert out is not None


@pytest.mark.parametrize("value", VALUES, ids=repr)
@pytest.mark.parametrize("fn, base, driven", CALLS, ids=lambda c: getattr(c, "__name__", ""))
def test_a_model_call_ends_in_a_table_or_an_error_of_the_package(fn, base, driven, value):
    X, y = _data()
    model = _model()
    for key in driven:
        _ends_well(lambda: fn(model, X, y, **{**base, key: value}))


@pytest.mark.parametrize("value", VALUES, ids=repr)
@pytest.mark.parametrize("fn, base, driven", LEARNER_CALLS, ids=lambda c: getattr(c, "__name__", ""))
def test_a_learner_call_ends_in_a_table_or_an_error_of_the_package(fn, base, driven, value):
    X, y = _data()
    for key in driven:
        _ends_well(lambda: fn(LinearRegression(), X, y, **{**base, key: value}))


def test_a_fraction_is_refused_not_rounded():
    X, y = _data()
    with pytest.raises(xaiws.SettingsError, match="repeats|2.7"):
        xaiws.pfi(_model(), X, y, repeats=2.7)


@pytest.mark.parametrize("n", [0, 1])
def test_empty_and_one_row_data_end_in_a_table_or_an_error_of_the_package(n):
    X, y = _data(n)
    model = _model()
    _ends_well(lambda: xaiws.pfi(model, X, y, repeats=2))
    _ends_well(lambda: xaiws.pd(model, X, y, points=3))
    _ends_well(lambda: xaiws.learner_pfi(LinearRegression(), X, y, refits=2, repeats=2))
