"""xaiws: explanations of models and of their uncertainty, from Python, over the
xai-workspace engine (Rust).

Apply the methods of five papers to a model of your own (scikit-learn, XGBoost,
PyTorch, any callable): permutation feature importance with any sampler and
statistic (loss, Likelihood- and Entropy-PFI), PD/ICE and their uncertainty
variants, and every other method an experiment YAML can name, through ``explain``;
run any experiment as ``cargo xtask run`` does with ``run``. The same seed gives the
same numbers on any thread count and from either front end.
"""

from ._api import Explanation, Run, explain, ice, method_kinds, pd, pfi, run
from ._native import XaiError, __version__

__all__ = [
    "Explanation",
    "Run",
    "XaiError",
    "__version__",
    "explain",
    "ice",
    "method_kinds",
    "pd",
    "pfi",
    "run",
]
