"""Named functions for the methods users reach for most, each a method node of the
engine's registry passed to ``explain`` (so each is what its YAML node computes).
Each sends only the settings the caller gave; the engine fills in the rest from its
schema (``kinds``), so no default is written twice."""

from __future__ import annotations

from typing import Any, Dict, Optional, Sequence, Union

from . import _native
from ._api import Table, _dumps, _given, _ice_node, _pfi_node, explain


def _learner_node(resampling: Optional[str], refits: Optional[int], m: Optional[Sequence[int]], explained: Dict[str, Any]) -> Dict[str, Any]:
    node = _given(resampling=resampling, refits=refits, m=None if m is None else list(m))
    return {"learner_inference": {**node, "explain": [explained]}}


def learner_pfi(
    learner: Any,
    X: Any,
    y: Any,
    *,
    resampling: Optional[str] = None,
    refits: Optional[int] = None,
    m: Optional[Sequence[int]] = None,
    statistics: Union[str, Sequence[str], None] = None,
    perturbation: Optional[str] = None,
    repeats: Optional[int] = None,
    features: Optional[Sequence[str]] = None,
    **kw: Any,
) -> Table:
    """Learner-PFI (molnar2023 §4): the PFI averaged over refits of ``learner``, each
    explained on the rows it left out (the learner-PFI of Eq. 10), with the t-interval
    over refits (Eq. 6–8) and the Nadeau–Bengio corrected interval, variance ×
    (1/m + c), c = n_test/n_train = 0.368/0.632 (§2.3, unnumbered there).

    Parameters
    ----------
    resampling : str, default boot
        ``boot`` or ``subs`` (0.632n rows without replacement).
    refits : int, default 15
        Refits m.
    m : list of int, optional
        Also report the first m refits, for each m.
    statistics, perturbation, repeats, features
        As for ``pfi``.
    **kw
        Passed to ``explain``.

    Returns
    -------
    The tidy rows: quantities ``learner_<prefix>_pfi`` and ``learner_<prefix>_pfi_corrected``.
    """
    node = _learner_node(resampling, refits, m, {"pfi": _pfi_node(statistics, perturbation, repeats, features)})
    return explain(learner=learner, X=X, y=y, methods=node, **kw).tidy


def learner_pd(
    learner: Any,
    X: Any,
    y: Any,
    *,
    resampling: Optional[str] = None,
    refits: Optional[int] = None,
    m: Optional[Sequence[int]] = None,
    statistics: Union[str, Sequence[str], None] = None,
    grid: Any = None,
    points: Optional[int] = None,
    features: Optional[Sequence[str]] = None,
    **kw: Any,
) -> Table:
    """Learner-PD (molnar2023 Eq. 9, §4): the PD averaged over refits, with the
    t-interval over refits and the Nadeau–Bengio corrected one.

    Parameters
    ----------
    resampling, refits, m
        As for ``learner_pfi``.
    statistics, grid, points, features
        As for ``pd``; use a ``{"fixed": [lo, hi]}`` grid so that every refit's PD has
        the same grid.
    **kw
        Passed to ``explain``.

    Returns
    -------
    The tidy rows: quantities ``learner_<prefix>_pd`` and ``learner_<prefix>_pd_corrected``.
    """
    explained = {"ice": _ice_node(statistics, grid, points, features)}
    return explain(learner=learner, X=X, y=y, methods=_learner_node(resampling, refits, m, explained), **kw).tidy


def shapley(
    model: Any,
    X: Any,
    y: Any = None,
    *,
    estimator: Optional[str] = None,
    value: Any = None,
    background: Optional[int] = None,
    samples: Optional[int] = None,
    rows: Optional[int] = None,
    conformal: Optional[float] = None,
    calibrate: Optional[float] = None,
    **kw: Any,
) -> Table:
    """Shapley values φ_j(x) of a value function v(S, x) over the features, the
    features outside S drawn from background training rows (watson2023 §4).

    Parameters
    ----------
    estimator : str, default kernel
        ``exact`` (all 2^d coalitions), ``kernel`` (KernelSHAP) or ``tree``.
    value : str, default prediction
        ``prediction``, ``entropy``, ``aleatoric_entropy`` and ``epistemic_entropy`` (a
        members model, watson2023 §5), ``neg_kl``, ``neg_log_loss`` …
    background : int, default 100
        Background rows: the first this many training rows.
    samples : int, default 2048
        Coalitions per row of ``kernel``.
    rows : int, optional
        Explain the first this many rows (default: all).
    conformal : float, optional
        α: the split-conformal interval μ_j ± τ_j of each feature's values
        (watson2023 Eq. 10) and its coverage of new rows.
    calibrate : float, default 0.5
        With ``conformal``, the share of the explained rows that calibrate.
    **kw
        Passed to ``explain``.

    Returns
    -------
    The tidy rows: ``<value>_shap`` (mean over rows), ``_shap_abs``, and with
    ``conformal`` ``_shap_mu``, ``_shap_tau``, ``_shap_coverage``.
    """
    node = _given(estimator=estimator, value=value, background=background, samples=samples, rows=rows)
    if conformal is not None:
        node["conformal"] = _given(alpha=conformal, calibrate=calibrate)
    return explain(model, X, y, {"shapley": node}, **kw).tidy


def ice_impact(
    model: Any,
    X: Any,
    y: Any = None,
    *,
    lam: Optional[float] = None,
    statistics: Union[str, Sequence[str], None] = None,
    features: Optional[Sequence[str]] = None,
    **kw: Any,
) -> Table:
    """ICE feature impact (icefi2022 Eq. 1–5) on each feature's sorted unique values,
    with the authors' code conventions.

    Parameters
    ----------
    lam : float, default 0.75
        λ of the in-distribution weight λ^{|v − x|/σ} (Eq. 3).
    statistics, features
        As for ``pd``.
    **kw
        Passed to ``explain``.

    Returns
    -------
    The tidy rows: ``<prefix>_fi`` (mean absolute slope of the ICE curves, in the
    feature's units), ``_signed_fi``, ``_idfi`` (in-distribution), ``_he``
    (heterogeneity, Eq. 4) and ``_nl`` (non-linearity, Eq. 5).
    """
    node = _ice_node(statistics, "unique", None, features, impact={"lambda": lam} if lam is not None else {})
    return explain(model, X, y, {"ice": node}, **kw).tidy


def cid(
    model: Any,
    X: Any,
    y: Any,
    *,
    statistics: Union[str, Sequence[str], None] = None,
    repeats: Optional[int] = None,
    alpha: Optional[float] = None,
    bins: Optional[int] = None,
    k: Optional[int] = None,
    **kw: Any,
) -> Table:
    """PFI and its covered-information correction (cid2021): CID_j = PFI_j/(1 − Ĉ_j)
    (Eq. 8), Ĉ_j = 1 − I(X_j; Y | rest)/I(X_j; Y) the share of X_j's information about
    Y that the other features cover (Def. 3), from a graphical lasso and KSG mutual
    information on the training rows.

    Parameters
    ----------
    statistics, repeats
        As for ``pfi``.
    alpha : float, default 0.01
        Graphical-lasso penalty ρ.
    bins : int, default 20
        Bins per continuous variable.
    k : int, default 3
        Neighbours of the KSG estimator.
    **kw
        Passed to ``explain``.

    Returns
    -------
    The PFI rows (``<prefix>_pfi``), the CID rows (``<prefix>_cid``) and the
    information terms.
    """
    pfi_method = {"pfi": _pfi_node(statistics, None, repeats, None)}
    # The PFI quantities as the engine names them, whatever the statistics.
    corrects = _native.quantities(_dumps(pfi_method))
    node = _given(corrects=corrects, alpha=alpha, bins=bins, mi=None if k is None else {"ksg": {"k": k}})
    return explain(model, X, y, [pfi_method, {"cid": node}], **kw).tidy



