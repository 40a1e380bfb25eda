"""The package's functions: one generic entry point over the engine's registry of
methods, named functions for the common ones, and experiments run as the CLI runs
them."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

import numpy as np

from . import _native
from ._data import Frame, Target
from ._kinds import default
from ._model import check_kind, fitter, name_of, predictor
from ._tables import table

Table = Any  # a pandas DataFrame, or a dict of numpy columns without pandas


@dataclass
class Explanation:
    """What ``explain`` computed: ``tidy`` has exactly the columns of an experiment's
    ``tidy.csv`` (replicate, model, quantity, feature, x, estimate, se, lower, upper,
    n); ``curves`` those of ``ice.csv`` (replicate, model, quantity, feature, row, x,
    value) for the ICE curves a method kept."""

    tidy: Table
    curves: Table


def _labels(y: Any) -> bool:
    """Whether ``y`` holds class labels by its type: strings, booleans or a
    categorical (integer labels need ``classes=``)."""
    dtype = getattr(y, "dtype", None)
    if dtype is not None and str(dtype) == "category":
        return True
    return np.asarray(y).dtype.kind in "OUSb"


def _classes(model: Any, kind: str, y: Any, classes: Optional[Sequence[Any]]) -> Optional[Sequence[Any]]:
    if classes is not None:
        return classes
    fitted = getattr(model, "classes_", None)
    if fitted is not None:
        return list(fitted)
    proba = kind == "probabilities" or (
        kind == "members" and hasattr(model, "estimators_") and hasattr(model, "predict_proba")
    )
    if proba and y is not None:
        return sorted(set(np.asarray(y).tolist()))
    return None


def explain(
    model: Any = None,
    X: Any = None,
    y: Any = None,
    methods: Union[Mapping[str, Any], Sequence[Mapping[str, Any]]] = (),
    *,
    learner: Any = None,
    X_test: Any = None,
    y_test: Any = None,
    kind: Optional[str] = None,
    classes: Optional[Sequence[Any]] = None,
    feature_names: Optional[Sequence[str]] = None,
    name: Optional[str] = None,
    seed: int = 0,
    level: float = 0.95,
    dgp: Any = None,
) -> Explanation:
    """Runs methods of the engine's registry on a model of your own.

    ``methods`` is one method node, or a list of them, exactly as an experiment's YAML
    writes it under ``methods:`` (``{"pfi": {"perturbation": {"permutation":
    {"repeats": 10}}, "statistics": ["squared_error"]}}``); every kind in
    ``method_kinds()`` is accepted, with the settings its YAML node takes, and each
    method sees the values of those before it (``cid`` after ``pfi``). Give a fitted
    ``model`` or a ``learner`` (fitted on ``X``, ``y`` first; refitted by methods
    that refit): a scikit-learn estimator, a ``fit(X, y)`` callable, or a built-in
    learner by its YAML node (``{"random_forest": {"n_trees": 100}}``; the names:
    ``cargo xtask kinds``), which is fitted in Rust; a built-in learner classifies
    when ``y`` holds strings, booleans or a categorical, or ``classes`` is given. The methods explain ``X_test``, ``y_test`` (default ``X``, ``y``);
    their training rows are ``X``, ``y``. All random draws come from ``seed``: the
    same seed gives the same numbers, on any thread count. ``dgp`` (a ``DGP``) names
    the process the rows came from, for the methods that read it: PFI by fresh draws
    (``fresh_draws``), an ICE's ``coverage`` of the true PD, a learner's truth.

    An exception raised by the model comes back as itself; predictions of the wrong
    shape, not finite, or probabilities outside [0, 1] raise ``XaiError`` naming the
    model and the first bad row; nothing is written.
    """
    if (model is None) == (learner is None):
        raise TypeError("give either a fitted model or a learner")
    if X is None:
        raise TypeError("X is required")
    obj = model if model is not None else learner
    builtin = isinstance(learner, Mapping)
    if builtin:
        kind = "point"
        if classes is None and y is not None and _labels(y):
            classes = sorted(set(np.asarray(y).tolist()), key=str)
    else:
        kind = check_kind(kind, obj)
    frame = Frame.of(X, feature_names)
    target = Target.of(y, _classes(obj, kind, y, classes) if not builtin else classes)
    if X_test is None:
        X_test, y_test = X, y
    n_train, n_test = len(X), len(X_test)
    y = np.zeros(n_train) if y is None else y
    y_test = np.zeros(n_test) if y_test is None else y_test
    if isinstance(methods, Mapping):
        methods = [methods]
    if builtin:
        name = name or next(iter(learner))
        call, node = None, _dumps(dict(learner))
    else:
        name = name or name_of(obj)
        call = fitter(obj, kind, frame, target) if learner is not None else predictor(obj, kind, frame, target)
        node = None
    foreign = {"call": call, "builtin": node, "kind": kind, "name": name, "learner": learner is not None}
    schema = {"names": frame.names, "levels": frame.levels, "n_classes": target.n_classes}
    train = {"x": frame.matrix(X), "y": target.codes(y)}
    test = {"x": frame.matrix(X_test), "y": target.codes(y_test)}
    tidy, curves = _native.explain(
        foreign,
        schema,
        train,
        test,
        _dumps(list(methods)),
        int(seed),
        float(level),
        None if dgp is None else dgp._dgp,
    )
    return Explanation(table(tidy), table(curves))


def _plain(value: Any) -> Any:
    """``value`` as JSON holds it, for the engine to check: numpy scalars and arrays
    as Python numbers and lists (never rounded: ``2.7`` repeats stay 2.7 and are
    refused), and a float that is not finite as its text (``"nan"``), which JSON
    cannot hold and the engine refuses naming the setting."""
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, np.ndarray)):
        return [_plain(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not np.isfinite(value):
        return str(value)
    return value


def _dumps(value: Any) -> str:
    """The JSON the engine reads of method nodes ([`_plain`])."""
    return json.dumps(_plain(value))


def _statistics(statistics: Union[str, Sequence[str]]) -> List[str]:
    return [statistics] if isinstance(statistics, str) else list(statistics)


def _given(**settings: Any) -> Dict[str, Any]:
    """The settings the caller gave (not ``None``): the engine fills in the rest with
    its own defaults, declared once in its schema (``kinds``)."""
    return {k: v for k, v in settings.items() if v is not None}


def _perturbation(kind: Optional[str], repeats: Optional[int]) -> Optional[Dict[str, Any]]:
    """A ``perturbation`` node of what was given: the kind (default: the engine's
    ``pfi`` default) with ``repeats`` where given."""
    if kind is None and repeats is None:
        return None
    if kind is None:
        kind = next(iter(default("pfi", "perturbation")))
    return {kind: _given(repeats=repeats)}


def _pfi_node(statistics: Any, perturbation: Optional[str], repeats: Optional[int], features: Any) -> Dict[str, Any]:
    """A ``pfi`` method node (``xai-methods/src/pfi.rs``) of the settings given."""
    return _given(
        perturbation=_perturbation(perturbation, repeats),
        statistics=None if statistics is None else _statistics(statistics),
        features=None if features is None else list(features),
    )


def _ice_node(statistics: Any, grid: Any, points: Optional[int], features: Any, **more: Any) -> Dict[str, Any]:
    """An ``ice`` method node (``xai-methods/src/ice.rs``) of the settings given."""
    return _given(
        grid=_given(range=grid, points=points) or None,
        statistics=None if statistics is None else _statistics(statistics),
        features=None if features is None else list(features),
        **more,
    )


def pfi(
    model: Any = None,
    X: Any = None,
    y: Any = None,
    *,
    statistics: Union[str, Sequence[str], None] = None,
    perturbation: Optional[str] = None,
    repeats: Optional[int] = None,
    features: Optional[Sequence[str]] = None,
    permutations: Optional[np.ndarray] = None,
    **kw: Any,
) -> Table:
    """Permutation feature importance: PFI_j = (1/n)·Σ_i [s(q(·|x̃⁽ⁱ⁾), y⁽ⁱ⁾) − s(q(·|x⁽ⁱ⁾),
    y⁽ⁱ⁾)] averaged over ``repeats`` perturbed copies of column j (Breiman 2001;
    molnar2023 Eq. 4), with a t-interval over the rows (Eq. 6–8).

    Parameters
    ----------
    statistics : str or list of str, default squared_error
        A loss (``squared_error``, ``r2_loss``, ``misclassification``, ``brier``),
        ``nll`` (Likelihood-PFI, wood2024 Eq. 5) or ``entropy`` (Entropy-PFI, wood2024
        Eq. 8–10).
    perturbation : str, default permutation
        ``permutation`` (marginal), ``conditional_gaussian`` (X_j | X_−j from the rows'
        mean and covariance; wood2024 Prop. 3) or ``conditional_subgroups``
        (permutation within the leaves of a tree of X_j on X_−j; molnar2023 §2.7).
    repeats : int, default 5
        Perturbed copies of each feature.
    features : list of str, optional
        The features explained (default: all).
    permutations : array of int, optional
        ``repeats`` × n row permutations to replay: copy r sets row i's value to row
        perm_r[i]'s (another implementation's draws).
    **kw
        Passed to ``explain`` (``X_test``, ``seed``, ``level``, ``kind``, ...).

    Returns
    -------
    The tidy rows (quantity ``<statistic>_pfi``, one per feature).
    """
    node = _pfi_node(statistics, perturbation, repeats, features)
    if permutations is not None:
        perms = np.asarray(permutations, dtype=np.int64)
        node["perturbation"] = {"permutation": {"repeats": int(perms.shape[0])}}
        node["replay"] = perms.tolist()
    return explain(model, X, y, {"pfi": node}, **kw).tidy


def pd(
    model: Any = None,
    X: Any = None,
    y: Any = None,
    *,
    statistics: Union[str, Sequence[str], None] = None,
    grid: Any = None,
    points: Optional[int] = None,
    features: Optional[Sequence[str]] = None,
    band: Any = None,
    **kw: Any,
) -> Table:
    """Partial dependence PD_j(v) = (1/n)·Σ_i s(q(·|x⁽ⁱ⁾ with x_j = v)) on a grid
    (Friedman 2001; molnar2023 Eq. 2; with ``nll`` / ``entropy`` the Likelihood- and
    Entropy-PD of wood2024 Eq. 3–5).

    Parameters
    ----------
    statistics : str or list of str, default prediction
        What is read off each row's prediction.
    grid : str or dict, default min_max
        ``min_max``, ``quantiles``, ``unique`` (the sorted distinct values) or
        ``{"fixed": [lo, hi]}``.
    points : int, default 20
        Grid values per feature (not used with ``unique``).
    features : list of str, optional
        The features explained (default: all).
    band : str or dict, default rows
        ``rows``, the t-interval over rows (molnar2023 Eq. 5, 7); ``model``, from the
        model's covariance (§2.5); or ``{"conditional": {"nearest": r}}``, the
        conditional M-plot over the r rows nearest each grid value.
    **kw
        Passed to ``explain``.

    Returns
    -------
    The tidy rows (quantity ``<statistic>_pd``, one per feature and grid value ``x``).
    """
    node = _ice_node(statistics, grid, points, features, band=band)
    return explain(model, X, y, {"ice": node}, **kw).tidy


def ice(
    model: Any = None,
    X: Any = None,
    y: Any = None,
    *,
    statistics: Union[str, Sequence[str], None] = None,
    grid: Any = None,
    points: Optional[int] = None,
    features: Optional[Sequence[str]] = None,
    curves: Optional[int] = None,
    **kw: Any,
) -> Explanation:
    """ICE curves ICE⁽ⁱ⁾_j(v) = s(q(·|x⁽ⁱ⁾ with x_j = v)) (Goldstein et al. 2015; wood2024
    Eq. 3–4) with their mean, the PD.

    Parameters
    ----------
    statistics, grid, points, features
        As for ``pd``.
    curves : int, optional
        Rows whose curves are kept, drawn without replacement (default: every row).
    **kw
        Passed to ``explain``.

    Returns
    -------
    Explanation
        ``.curves`` has one row per curve and grid value, ``.tidy`` the PD.
    """
    node = _ice_node(statistics, grid, points, features, curves=len(X) if curves is None else curves)
    return explain(model, X, y, {"ice": node}, **kw)


@dataclass
class Run:
    """An experiment's run: the directory written (the CLI's outputs: ``summary.csv``,
    ``tidy.csv`` where the experiment keeps one, ``checks.csv``, figures,
    ``manifest.json``) and its tables (``tidy`` is ``None`` where the experiment
    keeps no ``tidy.csv``)."""

    id: str
    dir: str
    summary: Table
    tidy: Optional[Table]
    checks: Table


def run(
    experiment: str,
    *,
    scale: str = "ci",
    models: Optional[Mapping[str, Any]] = None,
    threads: int = 0,
    out: Optional[str] = None,
    fresh: bool = False,
    progress: bool = False,
    text: Optional[str] = None,
) -> Run:
    """Runs an experiment YAML (a paper's id, e.g. ``"wood2024-fig4"``, or a path to a
    ``.yaml``) exactly as ``cargo xtask run`` does: the same cells, the same outputs
    byte for byte (``summary.csv``), into ``out`` (default ``runs/<id>/<scale>/`` of
    the workspace); finished cells are resumed unless ``fresh``.

    ``text`` is the experiment's YAML itself (then ``experiment`` is the file name it
    answers to, ``<id>.yaml``): an experiment built in Python crosses as data.

    ``models`` supplies the learners of the YAML's ``external`` models by name
    (``models: {gbr: {external: {name: gbr}}}`` in the YAML, ``models={"gbr":
    GradientBoostingRegressor()}`` here): a scikit-learn estimator or a ``fit(X, y)``
    callable, or a pair ``(learner, kind)`` to say its kind. The engine refits it on
    every replicate's rows (numpy arrays; class labels as codes 0..k−1), seeding it
    from the replicate's stream, so a run is reproducible. Such a run is fresh (its
    cells are not resumed: a Python learner has no hash to key them on) and calls
    Python from one thread."""
    supplied = {}
    for key, value in (models or {}).items():
        learner, kind = value if isinstance(value, tuple) else (value, None)
        if kind is None:
            kind = check_kind(None, learner) if not _plain_callable(learner) else "point"
        supplied[key] = (fitter(learner, check_kind(kind, learner), None, None), kind)
    d, ident = _native.run(experiment, scale, int(threads), out, bool(fresh), bool(progress), supplied, text)
    d = str(d)
    tidy = os.path.join(d, "tidy.csv")
    return Run(
        ident,
        d,
        _read(os.path.join(d, "summary.csv")),
        _read(tidy) if os.path.exists(tidy) else None,
        _read(os.path.join(d, "checks.csv")),
    )


def _plain_callable(obj: Any) -> bool:
    return callable(obj) and not hasattr(obj, "fit")


def _read(path: str) -> Table:
    """A run's CSV table, typed as ``explain``'s tables are (the engine's one rule)."""
    return table(_native.read_table(path))


def method_kinds() -> List[str]:
    """Every method kind ``explain`` (and an experiment's ``methods:``) can name; their
    settings: ``kinds(name)``."""
    return list(_native.method_kinds())
