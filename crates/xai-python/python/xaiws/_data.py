"""Rows from numpy arrays or DataFrames, as the engine reads them, and back.

A DataFrame keeps its column names and its categorical columns: a column of pandas'
``category`` dtype, or of strings, crosses as integer codes 0..L-1 with its levels
named; a model is called with a DataFrame of the same columns and dtypes again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, List, Optional, Sequence

import numpy as np


def _is_frame(x: Any) -> bool:
    return hasattr(x, "columns") and hasattr(x, "iloc")


@dataclass
class Frame:
    """The columns of the caller's features: names, levels of the categorical ones,
    and how to rebuild the caller's type from the engine's float matrix."""

    names: List[str]
    levels: List[Optional[List[str]]]
    frame: bool = False
    dtypes: Any = None
    categories: List[Any] = field(default_factory=list)

    @staticmethod
    def of(x: Any, names: Optional[Sequence[str]] = None) -> "Frame":
        if _is_frame(x):
            levels: List[Optional[List[str]]] = []
            categories: List[Any] = []
            for c in x.columns:
                col = x[c]
                cats = _categories(col)
                categories.append(cats)
                levels.append(None if cats is None else [str(v) for v in cats])
            return Frame([str(c) for c in x.columns], levels, True, x.dtypes, categories)
        a = np.asarray(x)
        if a.ndim != 2:
            raise ValueError(f"features must be a 2-D array or a DataFrame, got shape {a.shape}")
        d = a.shape[1]
        if names is None:
            names = [f"X{j + 1}" for j in range(d)]
        if len(names) != d:
            raise ValueError(f"{len(names)} feature names for {d} columns")
        return Frame(list(names), [None] * d, False, None, [None] * d)

    def matrix(self, x: Any) -> np.ndarray:
        """The engine's float64 matrix of ``x`` (categorical columns as codes)."""
        if not _is_frame(x):
            return np.ascontiguousarray(np.asarray(x, dtype=np.float64))
        if [str(c) for c in x.columns] != self.names:
            raise ValueError(f"the columns {list(x.columns)} are not {self.names}")
        cols = []
        for c, cats in zip(x.columns, self.categories):
            col = x[c]
            if cats is None:
                cols.append(np.asarray(col, dtype=np.float64))
            else:
                codes = np.asarray(
                    [np.nan if _missing(v) else cats.index(v) if v in cats else -1 for v in col],
                    dtype=np.float64,
                )
                if (codes < 0).any():
                    bad = list(col[codes < 0])[0]
                    raise ValueError(f"column {c!r}: the value {bad!r} is not one of its levels {cats}")
                cols.append(codes)
        return np.ascontiguousarray(np.column_stack(cols)) if cols else np.empty((len(x), 0))

    def rebuild(self, m: np.ndarray) -> Any:
        """The caller's type for the engine's rows ``m``: a DataFrame of the original
        columns and dtypes, or the array itself."""
        if not self.frame:
            return m
        import pandas as pd

        data = {}
        for j, (name, cats) in enumerate(zip(self.names, self.categories)):
            col = m[:, j]
            if cats is None:
                data[name] = col
            else:
                codes = col.astype(np.int64)
                if (codes != col).any() or (codes < 0).any() or (codes >= len(cats)).any():
                    bad = int(np.flatnonzero((codes != col) | (codes < 0) | (codes >= len(cats)))[0])
                    raise ValueError(
                        f"column {name!r}: the value {col[bad]} at row {bad} is not the code of one of its levels"
                    )
                data[name] = pd.Categorical.from_codes(codes, categories=cats)
        out = pd.DataFrame(data)
        for name, dtype, cats in zip(self.names, self.dtypes, self.categories):
            if cats is None and dtype.kind in "iub" and np.all(np.mod(out[name], 1) == 0):
                out[name] = out[name].astype(dtype)
            elif cats is not None and str(dtype) != "category":
                out[name] = out[name].astype(object)
        return out


def _missing(v: Any) -> bool:
    return v is None or (isinstance(v, float) and np.isnan(v))


def _categories(col: Any) -> Optional[List[Any]]:
    dtype = col.dtype
    if str(dtype) == "category":
        return list(col.cat.categories)
    if dtype.kind in "OSU" or str(dtype) in ("string", "str"):
        return sorted({v for v in col if not _missing(v)}, key=str)
    return None


@dataclass
class Target:
    """The caller's target: continuous values, or class labels coded 0..k-1 in the
    order of ``classes`` (a classifier's ``classes_``, else the sorted labels)."""

    classes: Optional[np.ndarray]

    @staticmethod
    def of(y: Any, classes: Optional[Sequence[Any]]) -> "Target":
        if classes is None:
            return Target(None)
        return Target(np.asarray(classes))

    @property
    def n_classes(self) -> Optional[int]:
        return None if self.classes is None else len(self.classes)

    def codes(self, y: Any) -> np.ndarray:
        y = np.asarray(y)
        if y.ndim != 1:
            raise ValueError(f"the target must be 1-D, got shape {y.shape}")
        if self.classes is None:
            return np.ascontiguousarray(y, dtype=np.float64)
        index = {v: i for i, v in enumerate(self.classes.tolist())}
        codes = np.fromiter((index.get(v, -1) for v in y.tolist()), dtype=np.float64, count=len(y))
        if (codes < 0).any():
            row = int(np.flatnonzero(codes < 0)[0])
            raise ValueError(f"the label {y[row]!r} at row {row} is not one of the classes {self.classes.tolist()}")
        return codes

    def labels(self, codes: np.ndarray) -> np.ndarray:
        return np.asarray(codes) if self.classes is None else self.classes[np.asarray(codes, dtype=np.int64)]
