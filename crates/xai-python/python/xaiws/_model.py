"""A model or learner of the caller's, as the engine calls it.

A *model* is a fitted object with ``predict`` / ``predict_proba`` (scikit-learn,
XGBoost's scikit-learn API, a wrapped PyTorch module) or any callable ``f(X)``. Its
*kind* says what it predicts; detected when not given:

- ``"probabilities"``: class probabilities (n, k), from ``predict_proba`` (columns in
  the order of ``classes_``);
- ``"gaussian"``: a Gaussian N(mean, std²) per row, from ``predict(X, return_std=True)``
  (scikit-learn's ``GaussianProcessRegressor``) or a callable returning ``(mean, std)``;
- ``"point"``: point predictions (n,), from ``predict`` or the callable;
- ``"members"`` (never detected): an ensemble whose prediction is its members' mean,
  so the entropy splits into aleatoric and epistemic parts (Watson et al. 2023 §5):
  a fitted scikit-learn forest's ``estimators_``, or a callable returning the members'
  predictions stacked, (M, n) or (M, n, k), or ``(means, stds)`` of shape (M, n) each
  (an MC-dropout network's M passes).

A *learner* is an unfitted scikit-learn estimator (cloned before each refit; a
``random_state`` parameter gets a seed drawn from the replicate's stream) or a
callable ``fit(X, y) -> model`` (given ``random_state=seed`` when it takes one).
"""

from __future__ import annotations

import inspect
from typing import Any, Callable, Optional

import numpy as np

from . import _native
from ._data import Frame, Target



def name_of(obj: Any) -> str:
    """The model's name in results and errors: its class's or function's name."""
    if inspect.isfunction(obj) or inspect.ismethod(obj):
        return obj.__name__
    return type(obj).__name__


def _takes(f: Callable[..., Any], param: str) -> bool:
    try:
        return param in inspect.signature(f).parameters
    except (TypeError, ValueError):
        return False


def detect_kind(model: Any) -> str:
    """The kind of ``model`` (see the module's doc)."""
    if hasattr(model, "predict_proba"):
        return "probabilities"
    if hasattr(model, "predict") and _takes(model.predict, "return_std"):
        return "gaussian"
    if hasattr(model, "predict") or callable(model):
        return "point"
    raise TypeError(f"{name_of(model)} is neither callable nor has predict / predict_proba")


def check_kind(kind: Optional[str], model: Any) -> str:
    kind = detect_kind(model) if kind is None else kind
    if kind not in _native.model_kinds():
        raise ValueError(f"kind={kind!r}: one of {', '.join(_native.model_kinds())}")
    return kind


def _float(a: Any) -> np.ndarray:
    return np.ascontiguousarray(np.asarray(a, dtype=np.float64))


def _point(a: Any) -> np.ndarray:
    a = _float(a)
    return a[:, 0].copy() if a.ndim == 2 and a.shape[1] == 1 else a


def _columns(p: Any, model_classes: Any, target: Target) -> np.ndarray:
    """Probabilities with one column per class of the data, in the data's order (a
    refit that saw only some classes gives the others probability 0)."""
    p = _float(p)
    if model_classes is None or target.classes is None or p.ndim != 2:
        return p
    model_classes = list(np.asarray(model_classes).tolist())
    wanted = target.classes.tolist()
    if model_classes == wanted:
        return p
    out = np.zeros((p.shape[0], len(wanted)))
    for j, c in enumerate(model_classes):
        if c in wanted:
            out[:, wanted.index(c)] = p[:, j]
        else:
            raise ValueError(f"the model's class {c!r} is not among the data's classes {wanted}")
    return out


def predictor(model: Any, kind: str, frame: Frame, target: Target) -> Callable[[np.ndarray], Any]:
    """``f(rows)`` as the engine calls it: the caller's rows rebuilt (a DataFrame when
    the features came as one), the answer as float64 arrays of the kind's shape."""
    classes = getattr(model, "classes_", None)

    def rows(m: np.ndarray) -> Any:
        return frame.rebuild(m)

    if kind == "probabilities":
        f = model.predict_proba if hasattr(model, "predict_proba") else model
        return lambda m: _columns(f(rows(m)), classes, target)
    if kind == "gaussian":
        if hasattr(model, "predict"):
            g = lambda x: model.predict(x, return_std=True)  # noqa: E731
        else:
            g = model

        def gaussian(m: np.ndarray) -> Any:
            mean, std = g(rows(m))
            return _point(mean), _point(std) ** 2

        return gaussian
    if kind == "members":
        members = getattr(model, "estimators_", None)
        if members is not None:
            members = list(np.ravel(members))
            proba = hasattr(members[0], "predict_proba")

            def stacked(m: np.ndarray) -> Any:
                # A forest's trees were fitted on arrays (no feature names).
                x = m if not frame.frame else frame.rebuild(m).to_numpy(dtype=np.float64)
                if proba:
                    return np.stack([_columns(t.predict_proba(x), classes, target) for t in members])
                return np.stack([_point(t.predict(x)) for t in members])

            return stacked

        def members_of(m: np.ndarray) -> Any:
            out = model(rows(m))
            if isinstance(out, tuple):
                means, stds = out
                return _float(means), _float(stds) ** 2
            return _float(out)

        return members_of
    f = model.predict if hasattr(model, "predict") else model
    return lambda m: _point(f(rows(m)))


def fitter(learner: Any, kind: str, frame: Optional[Frame], target: Optional[Target]) -> Callable[..., Any]:
    """``fit(X, y, seed, n_classes)`` as the engine calls it: a fresh clone of a
    scikit-learn estimator (``random_state=seed`` when it has that parameter) or the
    caller's ``fit(X, y)`` (given ``random_state=seed`` when it takes it), fitted on
    the caller's rows and labels; returns the fitted model's predictor. Without a
    ``frame`` and ``target`` (an experiment's data, which the engine loads), the
    rows are arrays and the labels the class codes 0..n_classes−1."""

    def context(n_classes: Optional[int]) -> Any:
        if frame is not None and target is not None:
            return frame, target
        return Frame([], [], False), Target(None if n_classes is None else np.arange(n_classes))

    if hasattr(learner, "fit") and hasattr(learner, "get_params"):
        from sklearn.base import clone

        def fit(m: np.ndarray, codes: np.ndarray, seed: int, n_classes: Optional[int]) -> Any:
            frame, target = context(n_classes)
            est = clone(learner)
            if "random_state" in est.get_params():
                est.set_params(random_state=int(seed))
            est.fit(frame.rebuild(m), target.labels(codes))
            return predictor(est, kind, frame, target)

        return fit
    if not callable(learner):
        raise TypeError(f"learner {name_of(learner)} is neither a scikit-learn estimator nor a fit(X, y) callable")
    seeded = _takes(learner, "random_state")

    def fit_callable(m: np.ndarray, codes: np.ndarray, seed: int, n_classes: Optional[int]) -> Any:
        frame, target = context(n_classes)
        extra = {"random_state": int(seed)} if seeded else {}
        model = learner(frame.rebuild(m), target.labels(codes), **extra)
        return predictor(model, kind, frame, target)

    return fit_callable
