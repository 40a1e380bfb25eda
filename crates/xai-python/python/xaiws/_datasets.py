"""The registered real datasets (``data/datasets.yaml``), read as experiments read
them."""

from __future__ import annotations

from typing import Any, Tuple

import numpy as np

from . import _native


def dataset(name: str, *, missing: str = "error", frame: bool = True) -> Tuple[Any, np.ndarray]:
    """Dataset ``name`` of the workspace's registry (``pima``, ``heart``, ``concrete``,
    …; ``cargo xtask data verify`` lists them), found in ``$XAI_DATA_DIR`` or
    ``data/cache/``, its sha256 verified and its columns encoded as an experiment
    encodes them. ``missing``: ``error``, ``drop_rows``, ``keep`` or ``impute_mean``.
    Returns (X, y): X a DataFrame (categorical columns as pandas categoricals) when
    pandas is installed and ``frame``, else an array; y the target (class codes
    0..k−1 for a classification target)."""
    x, y, names, levels, k = _native.dataset(name, missing)
    if k is not None:
        y = y.astype(np.int64)
    if not frame:
        return x, y
    try:
        import pandas as pd
    except ImportError:
        return x, y
    cols = {}
    for j, (n, lv) in enumerate(zip(names, levels)):
        cols[n] = x[:, j] if lv is None else pd.Categorical.from_codes(x[:, j].astype(np.int64), categories=lv)
    return pd.DataFrame(cols), y
