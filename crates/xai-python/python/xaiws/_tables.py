"""Results as tidy tables: a pandas DataFrame when pandas is installed, else a dict
of numpy columns (the same column names either way)."""

from __future__ import annotations

from typing import Any, Dict

import numpy as np


def table(columns: Dict[str, Any]) -> Any:
    cols = {k: np.asarray(v) for k, v in columns.items()}
    try:
        import pandas as pd
    except ImportError:
        return cols
    return pd.DataFrame(cols)
