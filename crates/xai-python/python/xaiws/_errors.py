"""The package's errors: one family under ``XaiError``, defined in Python (not in the
extension module) and named as members of ``xaiws``, so that they pickle and joblib or
multiprocessing can send them back from a worker. An exception raised by the caller's
own model or learner is not wrapped: it comes back as itself."""

from __future__ import annotations


class XaiError(Exception):
    """An error of the engine; the message says what is wrong and what to do."""


class SettingsError(XaiError, ValueError):
    """A setting, a method node or an experiment file that cannot be used (unknown,
    out of range, a method the model cannot serve); the message names the setting."""


class DataError(XaiError, ValueError):
    """Rows, a target or a dataset that do not suit the call (a value that is not
    finite, a label that is not a class, a dataset file that is missing)."""


class ModelError(XaiError):
    """A model whose predictions are not what its kind promises (shape, NaN,
    probabilities outside [0, 1]), or a fit that failed; the message names the model
    and the first bad row."""


class SizeError(XaiError, MemoryError):
    """A call that would need more memory than the machine has, refused before
    anything is allocated; the message names the setting to lower."""


for _cls in (XaiError, SettingsError, DataError, ModelError, SizeError):
    _cls.__module__ = "xaiws"
