"""Named functions for the methods users reach for most, each a method node of the
engine's registry passed to ``explain`` (so each is what its YAML node computes)."""

from __future__ import annotations

from typing import Any, Dict, Optional, Sequence, Union

from . import _native
from ._api import Table, _dumps, _ice_node, _pfi_node, explain


def _learner_node(resampling: str, refits: int, m: Optional[Sequence[int]], explained: Dict[str, Any]) -> Dict[str, Any]:
    node: Dict[str, Any] = {"resampling": resampling, "refits": refits, "explain": [explained]}
    if m is not None:
        node["m"] = list(m)
    return {"learner_inference": node}


def learner_pfi(
    learner: Any,
    X: Any,
    y: Any,
    *,
    resampling: str = "boot",
    refits: int = 15,
    m: Optional[Sequence[int]] = None,
    statistics: Union[str, Sequence[str]] = "squared_error",
    perturbation: str = "permutation",
    repeats: int = 5,
    features: Optional[Sequence[str]] = None,
    **kw: Any,
) -> Table:
    """Learner-PFI (molnar2023 §4): the PFI averaged over ``refits`` refits of
    ``learner`` by ``resampling`` (``boot``, ``subs``: 0.632n without replacement), each
    explained on the rows it left out (the learner-PFI of Eq. 10), with the t-interval
    over refits (Eq. 6–8) and the Nadeau–Bengio corrected interval, variance ×
    (1/m + c), c = n_test/n_train = 0.368/0.632 (§2.3, unnumbered there):
    quantities ``learner_<prefix>_pfi`` and ``learner_<prefix>_pfi_corrected``; ``m``
    also reports the first m refits."""
    node = _learner_node(resampling, refits, m, {"pfi": _pfi_node(statistics, perturbation, repeats, features)})
    return explain(learner=learner, X=X, y=y, methods=node, **kw).tidy


def learner_pd(
    learner: Any,
    X: Any,
    y: Any,
    *,
    resampling: str = "boot",
    refits: int = 15,
    m: Optional[Sequence[int]] = None,
    statistics: Union[str, Sequence[str]] = "prediction",
    grid: Any = "min_max",
    points: int = 20,
    features: Optional[Sequence[str]] = None,
    **kw: Any,
) -> Table:
    """Learner-PD (molnar2023 Eq. 9, §4): the PD averaged over ``refits`` refits, with the
    t-interval over refits and the Nadeau–Bengio corrected one (see ``learner_pfi``;
    quantities ``learner_<prefix>_pd`` and ``learner_<prefix>_pd_corrected``).
    Use a ``{"fixed": [lo, hi]}`` grid so that every refit's PD has the same grid."""
    explained = {"ice": _ice_node(statistics, grid, points, features, "rows", 0)}
    return explain(learner=learner, X=X, y=y, methods=_learner_node(resampling, refits, m, explained), **kw).tidy


def shapley(
    model: Any,
    X: Any,
    y: Any = None,
    *,
    estimator: str = "kernel",
    value: str = "prediction",
    background: int = 100,
    samples: int = 2048,
    rows: Optional[int] = None,
    conformal: Optional[float] = None,
    calibrate: float = 0.5,
    **kw: Any,
) -> Table:
    """Shapley values φ_j(x) of a value function v(S, x) over the features, the
    features outside S drawn from ``background`` training rows (watson2023 §4):
    ``value`` ``prediction``, ``entropy``, ``aleatoric_entropy`` and
    ``epistemic_entropy`` (a members model, watson2023 §5), ``neg_kl``,
    ``neg_log_loss`` …; ``estimator`` ``exact`` (all 2^d coalitions) or ``kernel``
    (KernelSHAP, ``samples`` coalitions per row). With ``conformal=α``, the
    split-conformal interval μ_j ± τ_j of each feature's values (watson2023 Eq. 10),
    calibrated on the first ``calibrate`` share of the explained rows, and its coverage
    of the rest. Quantities ``<value>_shap`` (mean over rows), ``_shap_abs``, and with
    ``conformal`` ``_shap_mu``, ``_shap_tau``, ``_shap_coverage``."""
    node: Dict[str, Any] = {
        "estimator": estimator,
        "value": value,
        "background": background,
        "samples": samples,
    }
    if rows is not None:
        node["rows"] = rows
    if conformal is not None:
        node["conformal"] = {"alpha": conformal, "calibrate": calibrate}
    return explain(model, X, y, {"shapley": node}, **kw).tidy


def ice_impact(
    model: Any,
    X: Any,
    y: Any = None,
    *,
    lam: float = 0.75,
    statistics: Union[str, Sequence[str]] = "prediction",
    features: Optional[Sequence[str]] = None,
    **kw: Any,
) -> Table:
    """ICE feature impact (icefi2022 Eq. 1–5) on each feature's sorted unique values:
    ``<prefix>_fi`` (mean absolute slope of the ICE curves, in the feature's units),
    ``_signed_fi``, ``_idfi`` (in-distribution, each step weighted by ``lam``^{|v − x|/σ},
    Eq. 3), ``_he`` (heterogeneity, Eq. 4) and ``_nl`` (non-linearity, Eq. 5), with the
    authors' code conventions."""
    node = _ice_node(statistics, "unique", 0, features, "rows", 0)
    del node["grid"]["points"]
    node["impact"] = {"lambda": lam}
    return explain(model, X, y, {"ice": node}, **kw).tidy


def cid(
    model: Any,
    X: Any,
    y: Any,
    *,
    statistics: Union[str, Sequence[str]] = "r2_loss",
    repeats: int = 5,
    alpha: float = 0.01,
    bins: int = 20,
    k: int = 3,
    **kw: Any,
) -> Table:
    """PFI and its covered-information correction (cid2021): CID_j = PFI_j/(1 − Ĉ_j)
    (Eq. 8), Ĉ_j = 1 − I(X_j; Y | rest)/I(X_j; Y) the share of X_j's information about
    Y that the other features cover (Def. 3), from a graphical lasso (penalty
    ``alpha``) and KSG mutual information (k neighbours) on the training rows. Returns the PFI rows (``<prefix>_pfi``), the CID rows (``<prefix>_cid``) and
    the information terms."""
    pfi_method = {"pfi": _pfi_node(statistics, "permutation", repeats, None)}
    # The PFI quantities as the engine names them, whatever the statistics.
    corrects = _native.quantities(_dumps(pfi_method))
    methods = [
        pfi_method,
        {"cid": {"corrects": corrects, "alpha": alpha, "bins": bins, "mi": {"ksg": {"k": k}}}},
    ]
    return explain(model, X, y, methods, **kw).tidy
