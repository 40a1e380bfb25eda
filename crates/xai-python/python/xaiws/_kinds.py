"""The kinds the engine knows and their settings, read off its schema (one declaration
per setting, in the Rust settings types; the look-up and its refusals are the
engine's): what ``kinds()`` shows and where the named functions find a default they
need to name."""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional

import numpy as np

from . import _native
from ._tables import table


def kinds(kind: Optional[str] = None, section: Optional[str] = None) -> Any:
    """The kinds ``explain`` and an experiment's YAML can name, or one kind's settings.

    Parameters
    ----------
    kind : str, optional
        A kind (``"pfi"``, ``"random_forest"``, ``"formula"``) or a type its settings
        name (``"PerturbationSpec"``, ``"GridSpec"``, ``"Statistic"``). Without it, every
        kind of every registry.
    section : str, optional
        Where the kind is written (``"dgp"``, ``"models"``, ``"methods"``, ``"assert"``,
        ``"plots"``, or a type's name), for a name two registries share
        (``permutation_map`` is a method and a plot).

    Returns
    -------
    pandas.DataFrame (a dict of numpy columns without pandas)
        Without ``kind``: ``section``, ``kind``, ``doc``. With it: one row per setting,
        ``setting``, ``type``, ``required``, ``default``, ``range``, ``doc``, as the
        engine declares them (the same table as ``docs/kinds.md``).
    """
    if kind is None:
        entries = json.loads(_native.kinds(section))
        rows = [{"section": e["section"], "kind": e["name"], "doc": e["doc"]} for e in entries]
        return _columns(rows, ["section", "kind", "doc"])
    fields = ["type", "required", "default", "range", "doc"]
    found = json.loads(_native.kind(kind, section))
    rows = [{"setting": s["name"], **{k: s[k] for k in fields}} for s in found["settings"]]
    return _columns(rows, ["setting", *fields])


def _columns(rows: List[Dict[str, Any]], names: List[str]) -> Any:
    """Rows as a table of object columns (a default may be a number, a list or none)."""
    columns = {}
    for n in names:
        col = np.empty(len(rows), dtype=object)
        for i, r in enumerate(rows):
            col[i] = r[n]
        columns[n] = col
    return table(columns)


def default(kind: str, setting: str) -> Any:
    """The engine's default of a method's setting (as JSON gives it)."""
    settings = json.loads(_native.kind(kind, "methods"))["settings"]
    for s in settings:
        if s["name"] == setting:
            return s["default"]
    raise KeyError(f"the engine's method `{kind}` has no setting `{setting}`")
