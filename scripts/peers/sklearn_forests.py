"""scikit-learn's forests on the cervical rows as icefi2022 prepares them, over
independent seeds: the reference of `crates/xai-bench/tests/sklearn_forests.rs`.

Rows: ../shared/data/cervical/cervical.csv (858 rows), the screening results
Hinselmann, Schiller and Citology dropped, y = Biopsy, every '?' replaced by its
column's mean over the observed cells (SimpleImputer's "mean"), 32 features.

Four learners, scikit-learn's defaults but for 500 trees, each fitted with
random_state = 0..SEEDS-1 on all 858 rows: RandomForestClassifier,
RandomForestRegressor (y = Biopsy as 0.0/1.0), ExtraTreesClassifier and
ExtraTreesRegressor. Per fitted forest the statistics the test compares:
`feature_importances_` (32), the mean depth and the mean number of leaves of its
trees, and the prediction (P(Biopsy = 1), or the mean) at rows 0, 100, ..., 800.
One CSV line per forest; the test compares the mean of each statistic over the
seeds with ours over as many seeds of our own, within Monte-Carlo error.

A second file, `sklearn_calibrated_forest.csv`: CalibratedClassifierCV(
RandomForestClassifier(100 trees, random_state=seed), method="sigmoid", cv=5) (wood2024's
calibrated forest) on the same rows and seeds: P(Biopsy = 1) at the same rows, and
its mean and sd over all 858 rows.

    python3 -m venv /tmp/sk && /tmp/sk/bin/pip install scikit-learn==1.9.1 pandas
    /tmp/sk/bin/python scripts/peers/sklearn_forests.py \
        --data ../shared/data --out crates/xai-bench/tests/fixtures/sklearn_forests.csv
"""

import argparse

import numpy as np
import pandas as pd
import sklearn
from sklearn.calibration import CalibratedClassifierCV
from sklearn.ensemble import (
    ExtraTreesClassifier,
    ExtraTreesRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)

TREES = 500
ROWS = list(range(0, 858, 100))
LEARNERS = {
    "random_forest_classifier": RandomForestClassifier,
    "random_forest_regressor": RandomForestRegressor,
    "extra_trees_classifier": ExtraTreesClassifier,
    "extra_trees_regressor": ExtraTreesRegressor,
}


def cervical(data):
    frame = pd.read_csv(f"{data}/cervical/cervical.csv", na_values="?")
    frame = frame.drop(columns=["Hinselmann", "Schiller", "Citology"])
    y = frame.pop("Biopsy").to_numpy()
    x = frame.to_numpy(dtype=float)
    means = np.nanmean(x, axis=0)
    x = np.where(np.isnan(x), means, x)
    return list(frame.columns), x, y


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--seeds", type=int, default=20)
    args = parser.parse_args()
    names, x, y = cervical(args.data)
    header = (
        ["learner", "seed"]
        + [f"importance:{n}" for n in names]
        + ["mean_depth", "mean_leaves"]
        + [f"prediction:{r}" for r in ROWS]
    )
    lines = [
        f"# scikit-learn {sklearn.__version__}, numpy {np.__version__}; "
        f"{TREES} trees, defaults otherwise; scripts/peers/sklearn_forests.py",
        ",".join(f'"{h}"' if "," in h else h for h in header),
    ]
    for learner, make in LEARNERS.items():
        classifier = learner.endswith("classifier")
        for seed in range(args.seeds):
            model = make(n_estimators=TREES, random_state=seed, n_jobs=-1)
            model.fit(x, y if classifier else y.astype(float))
            trees = model.estimators_
            if classifier:
                predicted = model.predict_proba(x[ROWS])[:, 1]
            else:
                predicted = model.predict(x[ROWS])
            values = (
                list(model.feature_importances_)
                + [np.mean([t.get_depth() for t in trees])]
                + [np.mean([t.get_n_leaves() for t in trees])]
                + list(predicted)
            )
            lines.append(",".join([learner, str(seed)] + [repr(float(v)) for v in values]))
    with open(args.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    calibrated(x, y, args.seeds, args.out.replace("sklearn_forests", "sklearn_calibrated_forest"))


def calibrated(x, y, seeds, out):
    header = ["seed"] + [f"prediction:{r}" for r in ROWS] + ["mean_prediction", "sd_prediction"]
    lines = [
        f"# scikit-learn {sklearn.__version__}; CalibratedClassifierCV(RandomForestClassifier("
        "n_estimators=100, random_state=seed), method='sigmoid', cv=5); "
        "scripts/peers/sklearn_forests.py",
        ",".join(header),
    ]
    for seed in range(seeds):
        forest = RandomForestClassifier(n_estimators=100, random_state=seed, n_jobs=-1)
        model = CalibratedClassifierCV(forest, method="sigmoid", cv=5).fit(x, y)
        p = model.predict_proba(x)[:, 1]
        values = list(p[ROWS]) + [np.mean(p), np.std(p, ddof=1)]
        lines.append(",".join([str(seed)] + [repr(float(v)) for v in values]))
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
