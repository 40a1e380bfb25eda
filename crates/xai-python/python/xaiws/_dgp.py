"""Data generating processes with their truths, written as an experiment's YAML
writes them, and coverage studies of a learner of your own against those truths."""

from __future__ import annotations

import json
import tempfile
from typing import Any, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from . import _native
from ._tables import table


class DGP:
    """A data generating process (``dgp:`` of an experiment YAML) and its truths.

    ``sample(n, seed)`` draws n i.i.d. rows; ``conditional_mean`` and
    ``conditional_variance`` give E[Y | X = x] and Var(Y | X = x) (for a formula DGP
    derived from its target's expression and its one draw, crates/xai-synth's
    formula module); ``partial_dependence`` the true PD_j(v) = E_{X−j}[E[Y | X_j = v,
    X−j]] (molnar2023 Eq. 1); ``oracle_pfi`` the squared-error PFI of E[Y | X] itself,
    E[(m(X̃ʲ) − m(X))²] with X̃ʲ's x_j drawn afresh from P(X_j)."""

    def __init__(self, node: Union[str, Mapping[str, Any]]):
        #: The ``dgp:`` node as YAML text (a dict as JSON, which YAML reads too).
        self.yaml: str = node if isinstance(node, str) else json.dumps(node)
        self._dgp = _native.Dgp(self.yaml)

    @property
    def feature_names(self) -> Sequence[str]:
        return list(self._dgp.feature_names())

    def sample(self, n: int, seed: int = 0, *, frame: bool = True) -> Tuple[Any, np.ndarray]:
        """``n`` rows from stream ``seed``: (X, y), X a DataFrame with the feature names
        (pandas installed and ``frame``) or an array; y the target (class codes for a
        classification target)."""
        x, y, k = self._dgp.sample(int(n), int(seed))
        if k is not None:
            y = y.astype(np.int64)
        if frame:
            try:
                import pandas as pd

                return pd.DataFrame(x, columns=self.feature_names), y
            except ImportError:
                pass
        return x, y

    def conditional_mean(self, X: Any) -> np.ndarray:
        """E[Y | X = x] per row (for a binary target P(Y = 1 | x))."""
        return self._dgp.conditional_mean(np.ascontiguousarray(np.asarray(X, dtype=np.float64)))

    def conditional_variance(self, X: Any) -> np.ndarray:
        """Var(Y | X = x) per row."""
        return self._dgp.conditional_variance(np.ascontiguousarray(np.asarray(X, dtype=np.float64)))

    def partial_dependence(self, feature: Union[int, str], grid: Any, *, n: int = 100_000, seed: int = 0) -> np.ndarray:
        """The true PD of ``feature`` at ``grid``: closed form where the DGP has one, else
        the mean of E[Y | X] over ``n`` fresh rows with x_j set to each grid value."""
        j = self.feature_names.index(feature) if isinstance(feature, str) else int(feature)
        return self._dgp.partial_dependence(j, np.asarray(grid, dtype=np.float64), int(n), int(seed))

    def oracle_pfi(self, *, n: int = 100_000, seed: int = 0) -> Any:
        """The squared-error PFI of the true mean per feature, with its Monte-Carlo se
        over ``n`` rows: columns feature, estimate, se."""
        est, se = self._dgp.oracle_pfi(int(n), int(seed))
        return table({"feature": self.feature_names, "estimate": est, "se": se})


def dgp(node: Union[str, Mapping[str, Any]]) -> DGP:
    """Any registered DGP by its YAML node: ``dgp({"correlated_gaussian": {"rho":
    0.8}})`` (the names: ``cargo xtask kinds``)."""
    return DGP(node)


def formula_dgp(formula: Union[str, Mapping[str, Any]]) -> DGP:
    """A DGP written as formulas, in the YAML's syntax (as text or a dict):
    ``{"features": ["X1: uniform(0, 1)", "X2: 0.5 * X1 + normal(0, 0.1)"],
    "target": "X1 - X2 + normal(0, 1)"}``. Features are distributions or expressions
    of the features above them; the target an expression plus at most one draw, from
    which E[Y | X] and Var(Y | X) are derived."""
    if isinstance(formula, str):
        text = "formula:\n" + "\n".join("  " + line for line in formula.splitlines())
        return DGP(text)
    node = dict(formula)
    feats = node.get("features")
    if isinstance(feats, list):
        node["features"] = [_feature(f) for f in feats]
    return DGP({"formula": node})


def _feature(f: Any) -> Any:
    if isinstance(f, str) and ":" in f:
        name, expr = f.split(":", 1)
        return {name.strip(): expr.strip()}
    return f


def coverage_study(
    dgp: DGP,
    learner: Any,
    *,
    kind: Optional[str] = None,
    explain: Union[str, Mapping[str, Any]] = "pd",
    features: Optional[Sequence[str]] = None,
    grid: Sequence[float] = (-1.0, 1.0),
    points: int = 5,
    resampling: Sequence[str] = ("boot", "subs", "ideal"),
    refits: int = 15,
    replicates: int = 50,
    n_train: int = 200,
    n_test: int = 100,
    truth_runs: int = 200,
    seed: int = 1,
    out: Optional[str] = None,
) -> Any:
    """The coverage of learner-PD or learner-PFI intervals of ``learner`` on ``dgp``
    (molnar2023 Table 1, §4): per replicate, fresh training rows, ``refits`` refits by
    ``resampling`` (``boot``: bootstrap; ``subs``: subsampling 0.632n; ``ideal``:
    fresh rows per refit), the t-interval over refits (Eq. 6–8) and for ``boot``/``subs``
    also the Nadeau–Bengio corrected interval (variance × (1/m + c), c = n_test/n_train
    = 0.368/0.632; §2.3),
    against the learner-level truth, the mean over ``truth_runs`` fits on fresh data.
    ``explain``: ``"pd"`` (prediction PD on a fixed ``grid`` of ``points`` values from
    grid[0] to grid[1]), ``"pfi"`` (squared-error PFI, 5 permutations) or a method
    node. Runs as an experiment (``run``), so it writes the CLI's outputs into ``out``;
    returns its summary (quantities ``coverage_*`` and ``width_*``, one per grid
    value, resampling and, for PFI, feature)."""
    from ._api import run

    if explain == "pd":
        node: Any = {"ice": {"grid": {"points": int(points), "range": {"fixed": [float(grid[0]), float(grid[1])]}}, "statistics": ["prediction"]}}
    elif explain == "pfi":
        node = {"pfi": {"perturbation": {"permutation": {"repeats": 5}}, "statistics": ["squared_error"]}}
    else:
        node = dict(explain)
    if features is not None:
        next(iter(node.values()))["features"] = list(features)
    spec = {
        "id": "coverage-study",
        "title": "Coverage of learner intervals of a Python learner",
        "paper": "molnar2023",
        "figure": "none",
        "seed": int(seed),
        "tidy": False,
        "scales": {s: {"replicates": int(replicates)} for s in ("smoke", "ci", "paper")},
        "models": {"learner": {"external": {"name": "learner"}}},
        "grid": {"resampling": list(resampling)},
        "methods": [
            {
                "learner_inference": {
                    "resampling": resampling[0],
                    "refits": int(refits),
                    "truth": {"runs": int(truth_runs)},
                    "explain": [node],
                }
            }
        ],
    }
    # Block YAML: each top-level value as JSON (YAML reads it), the DGP's node as given.
    lines = [f"{k}: {json.dumps(v)}" for k, v in spec.items()]
    lines += ["data:", f"  n_train: {int(n_train)}", f"  n_test: {int(n_test)}", "  dgp:"]
    lines += ["    " + line for line in dgp.yaml.splitlines()]
    value = learner if kind is None else (learner, kind)
    out = out or tempfile.mkdtemp(prefix="xaiws-coverage-")
    text = "\n".join(lines) + "\n"
    return run("coverage-study.yaml", models={"learner": value}, out=out, text=text).summary
