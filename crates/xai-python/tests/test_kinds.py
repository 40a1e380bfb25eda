"""Every default a named function documents is the engine's (its schema, declared once
in the Rust settings types), and ``kinds`` shows each kind's settings."""

from __future__ import annotations

import inspect
import json
import re
from typing import Any, Dict, List, Tuple

import pytest

import xaiws
from xaiws import _native

# Where each documented keyword's default is declared: a method's setting, or a
# setting of a variant of a named type (section, kind, setting).
WHERE: Dict[str, Tuple[str, str, str]] = {
    "statistics@pfi": ("methods", "pfi", "statistics"),
    "perturbation@pfi": ("methods", "pfi", "perturbation"),
    "repeats@pfi": ("PerturbationSpec", "permutation", "repeats"),
    "statistics@pd": ("methods", "ice", "statistics"),
    "grid@pd": ("GridSpec", "GridSpec", "range"),
    "points@pd": ("GridSpec", "GridSpec", "points"),
    "band@pd": ("methods", "ice", "band"),
    "resampling@learner_pfi": ("methods", "learner_inference", "resampling"),
    "refits@learner_pfi": ("methods", "learner_inference", "refits"),
    "estimator@shapley": ("methods", "shapley", "estimator"),
    "value@shapley": ("methods", "shapley", "value"),
    "background@shapley": ("methods", "shapley", "background"),
    "samples@shapley": ("methods", "shapley", "samples"),
    "calibrate@shapley": ("Conformal", "Conformal", "calibrate"),
    "lam@ice_impact": ("ImpactSpec", "ImpactSpec", "lambda"),
    "alpha@cid": ("methods", "cid", "alpha"),
    "bins@cid": ("methods", "cid", "bins"),
    "k@cid": ("MiEstimator", "ksg", "k"),
}

NAMED = [xaiws.pfi, xaiws.pd, xaiws.ice, xaiws.learner_pfi, xaiws.learner_pd, xaiws.shapley, xaiws.ice_impact, xaiws.cid]


def documented(fn: Any) -> List[Tuple[str, str]]:
    """The ``name : type, default value`` lines of a numpydoc Parameters section."""
    return re.findall(r"^(\w+) : [^\n]*?, default (\S+)$", inspect.getdoc(fn) or "", re.M)


def schema_default(section: str, kind: str, setting: str) -> Any:
    table = xaiws.kinds(kind, section=section)
    rows = [r for r in zip(table["setting"], table["default"], table["required"]) if r[0] == setting]
    assert rows, f"{section} `{kind}` has no setting `{setting}`"
    name, value, required = rows[0]
    assert not required, f"{section} `{kind}`.{setting} is required: it has no default"
    return value


def as_written(value: Any) -> str:
    """The engine's default as a docstring writes it: a one-entry list or mapping by
    its entry (``statistics="squared_error"``; ``perturbation="permutation"``)."""
    if isinstance(value, list) and len(value) == 1:
        value = value[0]
    if isinstance(value, dict) and len(value) == 1:
        value = next(iter(value))
    return value if isinstance(value, str) else json.dumps(value)


def _where(fn: Any, name: str) -> Tuple[str, str, str]:
    """Where a keyword's default is declared: the table's entry for this function, or
    for the function its docstring defers to (``As for ``pfi````)."""
    for owner in (fn.__name__, "pfi", "pd", "learner_pfi"):
        if f"{name}@{owner}" in WHERE:
            return WHERE[f"{name}@{owner}"]
    raise AssertionError(f"{fn.__name__} documents a default of `{name}` that the test cannot place")


@pytest.mark.parametrize("fn", NAMED, ids=lambda f: f.__name__)
def test_every_documented_default_is_the_engines(fn: Any) -> None:
    found = documented(fn)
    signature = inspect.signature(fn).parameters
    for name, written in found:
        engine = as_written(schema_default(*_where(fn, name)))
        assert written == engine, f"{fn.__name__}({name}=...) documents {written}; the engine's default is {engine}"
        # The function sends nothing the caller did not give: its own default is None.
        assert signature[name].default is None, f"{fn.__name__} restates the default of `{name}`"


def test_the_named_functions_document_their_defaults() -> None:
    assert {n for f in NAMED for n, _ in documented(f)} >= {"statistics", "repeats", "points", "refits", "background", "samples", "alpha", "bins", "k", "lam", "calibrate"}


def test_a_default_that_differs_from_the_engines_is_caught() -> None:
    def fake(*, repeats: Any = None) -> None:
        """Parameters
        ----------
        repeats : int, default 10
            Copies.
        """

    fake.__name__ = "pfi"
    with pytest.raises(AssertionError, match="documents 10; the engine's default is 5"):
        test_every_documented_default_is_the_engines(fake)


def test_kinds_lists_every_registry_and_a_kind_s_settings() -> None:
    every = xaiws.kinds()
    assert set(every["section"]) >= {"dgp", "models", "methods", "assert", "plots"}
    assert list(every["kind"][every["section"] == "methods"]) == xaiws.method_kinds()
    pfi = xaiws.kinds("pfi")
    assert list(pfi["setting"]) == ["features", "perturbation", "replay", "statistics"]
    forest = xaiws.kinds("random_forest")
    assert "n_trees" in set(forest["setting"])
    with pytest.raises(xaiws.SettingsError, match="several registries"):
        xaiws.kinds("permutation_map")
    assert len(xaiws.kinds("permutation_map", section="plots")) > 0
    with pytest.raises(xaiws.SettingsError, match="no kind `pfj`"):
        xaiws.kinds("pfj")


def test_the_schema_is_the_one_docs_kinds_md_is_written_from() -> None:
    entries = json.loads(_native.kinds())
    sections = list(dict.fromkeys(e["section"] for e in entries))
    assert sections[:5] == ["dgp", "models", "methods", "assert", "plots"]
    assert json.loads(_native.kind("pfi"))["section"] == "methods"
