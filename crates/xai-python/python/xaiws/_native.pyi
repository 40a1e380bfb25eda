"""Type stubs of the extension module (Rust, PyO3). The public API is the package's
pure-Python layer; these are its calls into the engine."""

from os import PathLike
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np
import numpy.typing as npt

__version__: str

def explain(
    foreign: Dict[str, Any],
    schema: Dict[str, Any],
    train: Dict[str, npt.NDArray[np.float64]],
    test: Dict[str, npt.NDArray[np.float64]],
    methods: str,
    seed: int,
    level: float,
    dgp: Optional["Dgp"],
) -> Tuple[Dict[str, List[Any]], Dict[str, List[Any]]]:
    """Runs the methods (a JSON list of YAML method nodes) on one model or learner;
    returns the tidy rows and the kept ICE curves as dicts of columns."""

def quantities(method: str) -> List[str]:
    """The quantities a method node (JSON) reports, as the engine names them."""

def read_table(path: "str | PathLike[str]") -> Dict[str, Any]:
    """A run's CSV table as columns, typed as ``explain``'s tables are."""

def run(
    experiment: str,
    scale: str,
    threads: int,
    out: Optional[str | PathLike[str]],
    fresh: bool,
    progress: bool,
    models: Dict[str, Tuple[Callable[..., Any], str]],
    text: Optional[str] = None,
) -> Tuple[str, str]:
    """Runs an experiment (an id, a path, or with ``text`` its YAML) as `cargo xtask
    run` does; returns (directory, id)."""

def method_kinds() -> List[str]: ...
def model_kinds() -> List[str]: ...
def kinds(section: Optional[str] = None) -> str:
    """Every kind (under ``section``) with its section and settings, as a JSON list."""

def kind(name: str, section: Optional[str] = None) -> str:
    """One kind with its section and settings, as JSON; ``SettingsError`` if none."""
def dataset(
    name: str, missing: str
) -> Tuple[
    npt.NDArray[np.float64],
    npt.NDArray[np.float64],
    List[str],
    List[Optional[List[str]]],
    Optional[int],
]: ...

class Dgp:
    def __init__(self, yaml: str) -> None: ...
    def feature_names(self) -> List[str]: ...
    def sample(
        self, n: int, seed: int
    ) -> Tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], Optional[int]]: ...
    def conditional_mean(self, x: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]: ...
    def conditional_variance(self, x: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]: ...
    def partial_dependence(
        self, feature: int, grid: npt.NDArray[np.float64], n: int, seed: int
    ) -> npt.NDArray[np.float64]: ...
    def oracle_pfi(self, n: int, seed: int) -> Tuple[Sequence[float], Sequence[float]]: ...
