"""What the bridge to Python costs (issue 49, item 8); prints one JSON line.

1. PFI of a fitted scikit-learn forest through xaiws against
   `sklearn.inspection.permutation_importance` on the same model, rows and repeats
   (n_jobs=1), in the same process: xaiws calls `predict` once per feature on the
   feature's stacked copies (repeats × n rows), scikit-learn once per copy.
   `sklearn_over_xaiws` > 1 means xaiws is faster.
2. A built-in (Rust) learner's experiment run from Python (`xaiws.run`) against the
   CLI (`target/release/xtask run`, the process start included) on the same YAML,
   one thread each: `cli_over_python` ≈ 1 means the front end adds nothing.

Each time is the minimum of `--repeats` runs (default 3).

    python crates/xai-python/bench/bridge.py [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import pathlib
import subprocess
import tempfile
import time

import numpy as np
from sklearn.ensemble import RandomForestRegressor
from sklearn.inspection import permutation_importance

import xaiws

ROOT = pathlib.Path(__file__).resolve().parents[3]

YAML = """id: bridge-bench
title: A built-in learner's PFI, for timing the front ends
paper: molnar2023
figure: none
seed: 5
tidy: false
scales:
  smoke: { replicates: 4 }
  ci: { replicates: 4 }
  paper: { replicates: 4 }
data:
  dgp:
    formula:
      features:
        - X1: uniform(0, 1)
        - X2: uniform(0, 1)
        - X3: uniform(0, 1)
        - X4: uniform(0, 1)
      target: X1 - sqrt(1 + X2) + X3 * X4 + normal(0, 0.1)
  n_train: 1000
  n_test: 1000
models:
  rf:
    random_forest: { n_trees: 100 }
methods:
  - pfi: { perturbation: { permutation: { repeats: 5 } }, statistics: [squared_error] }
"""


def best(f, repeats):
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()

    rng = np.random.default_rng(0)
    X = rng.normal(size=(1000, 8))
    y = X[:, 0] + 2 * X[:, 1] ** 2 + X[:, 2] * X[:, 3] + 0.1 * rng.normal(size=1000)
    model = RandomForestRegressor(100, min_samples_leaf=5, random_state=0, n_jobs=1).fit(X, y)
    t_sklearn = best(lambda: permutation_importance(model, X, y, n_repeats=5, random_state=0, n_jobs=1, scoring="neg_mean_squared_error"), args.repeats)
    t_xaiws = best(lambda: xaiws.pfi(model, X, y, repeats=5), args.repeats)

    with tempfile.TemporaryDirectory() as d:
        path = pathlib.Path(d) / "bridge-bench.yaml"
        path.write_text(YAML)
        cli = [str(ROOT / "target" / "release" / "xtask"), "run", str(path), "--threads", "1", "--fresh", "--out", f"{d}/cli"]
        t_cli = best(lambda: subprocess.run(cli, cwd=ROOT, check=True, capture_output=True), args.repeats)
        t_python = best(lambda: xaiws.run(str(path), threads=1, fresh=True, out=f"{d}/py"), args.repeats)
        same = (pathlib.Path(d) / "cli" / "summary.csv").read_bytes() == (pathlib.Path(d) / "py" / "summary.csv").read_bytes()

    print(json.dumps({
        "workload": "python_bridge",
        "pfi_sklearn_forest": {"rows": 1000, "features": 8, "repeats": 5, "trees": 100,
                               "permutation_importance_s": round(t_sklearn, 4), "xaiws_s": round(t_xaiws, 4),
                               "sklearn_over_xaiws": round(t_sklearn / t_xaiws, 2)},
        "rust_learner_run": {"replicates": 4, "rows": 1000, "trees": 100, "cli_s": round(t_cli, 4),
                             "python_s": round(t_python, 4), "cli_over_python": round(t_cli / t_python, 2),
                             "summary_identical": same},
    }))
    assert same, "the CLI and Python runs differ"


if __name__ == "__main__":
    main()
