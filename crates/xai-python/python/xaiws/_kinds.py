"""The kinds the engine knows and their settings, read off its schema (one declaration
per setting, in the Rust settings types): what ``kinds()`` shows and where the named
functions find a default they need to name."""

from __future__ import annotations

import functools
import json
from typing import Any, Dict, List, Optional

import numpy as np

from . import _native
from ._errors import SettingsError
from ._tables import table


@functools.lru_cache(maxsize=1)
def _vocabulary() -> Dict[str, Any]:
    return json.loads(_native.kinds())


def _entries(section: Optional[str]) -> List[Dict[str, Any]]:
    """Every kind (with its section) and every variant of a named type."""
    v = _vocabulary()
    out = [
        {"section": r["section"], **k}
        for r in v["registries"]
        if section in (None, r["section"])
        for k in r["kinds"]
    ]
    for t in v["types"]:
        if section in (None, t["name"]):
            out.extend({"section": t["name"], **k, "name": k["name"] or t["name"]} for k in t["kinds"])
    return out


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
        return _columns([{"section": e["section"], "kind": e["name"], "doc": e["doc"]} for e in _entries(section)], ["section", "kind", "doc"])
    found = [e for e in _entries(section) if e["name"] == kind]
    if not found:
        names = sorted({e["name"] for e in _entries(section) if e["name"]})
        raise SettingsError(f"no kind `{kind}`{_in(section)}; the kinds: {', '.join(names)}")
    if len({e["section"] for e in found}) > 1:
        where = ", ".join(sorted({e["section"] for e in found}))
        raise SettingsError(f"`{kind}` is a kind of several registries ({where}): pass section=")
    fields = ["type", "required", "default", "range", "doc"]
    rows = [{"setting": s["name"], **{k: s[k] for k in fields}} for s in found[0]["settings"]]
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


def _in(section: Optional[str]) -> str:
    return "" if section is None else f" under `{section}`"


def default(kind: str, setting: str) -> Any:
    """The engine's default of a method's setting (as JSON gives it)."""
    found = [e for e in _entries("methods") if e["name"] == kind]
    for s in found[0]["settings"] if found else []:
        if s["name"] == setting:
            return s["default"]
    raise SettingsError(f"the method `{kind}` has no setting `{setting}`")
