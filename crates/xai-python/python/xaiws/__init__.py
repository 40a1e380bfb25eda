"""xaiws: explanations of models and of their uncertainty, from Python, over the
xai-workspace engine (Rust).

Apply the methods of five papers to a model of your own (scikit-learn, XGBoost,
PyTorch, any callable): permutation feature importance with any sampler and
statistic (loss, Likelihood- and Entropy-PFI), PD/ICE and their uncertainty
variants, and every other method an experiment YAML can name, through ``explain``;
run any experiment as ``cargo xtask run`` does with ``run``. The same seed gives the
same numbers on any thread count and from either front end.
"""

import os as _os

# As `cargo xtask` does: candle sizes its matrix products' parallelism from this
# variable (the networks' products are small; a second thread only adds hand-offs);
# the engine's own pools are sized per call. A value the user set is kept.
_os.environ.setdefault("RAYON_NUM_THREADS", "1")

from ._api import Explanation, Run, explain, ice, method_kinds, pd, pfi, run  # noqa: E402
from ._datasets import dataset  # noqa: E402
from ._dgp import DGP, coverage_study, dgp, formula_dgp  # noqa: E402
from ._named import cid, ice_impact, learner_pd, learner_pfi, shapley  # noqa: E402
from ._errors import DataError, ModelError, SettingsError, SizeError, XaiError  # noqa: E402
from ._kinds import kinds  # noqa: E402
from ._native import __version__  # noqa: E402

__all__ = [
    "DGP",
    "DataError",
    "Explanation",
    "ModelError",
    "Run",
    "SettingsError",
    "SizeError",
    "XaiError",
    "__version__",
    "cid",
    "coverage_study",
    "dataset",
    "dgp",
    "explain",
    "formula_dgp",
    "ice",
    "ice_impact",
    "kinds",
    "learner_pd",
    "learner_pfi",
    "method_kinds",
    "pd",
    "pfi",
    "run",
    "shapley",
]
