"""scikit-learn's MLPClassifier over independent seeds: the reference of
`crates/xai-models/tests/sklearn_mlp.rs`.

Data (numpy default_rng(20261129)): 300 training rows of four Gaussian features with
scales 1, 2, 0.5, 3, y ~ Bernoulli(sigmoid(2 sin(x1) + x2 x3 / 2 - x4 / 3)), and 8
test rows. Learner: StandardScaler + MLPClassifier() with its defaults (one hidden
layer of 100 ReLU units, Adam 1e-3, alpha 1e-4, batches of 200, shuffled, 200 epochs,
Glorot-uniform start) except n_iter_no_change = 200, so that every fit runs its 200
epochs (scikit-learn otherwise stops when the training loss has not fallen by 1e-4 for
10 epochs; ours runs its epochs unless `flat_epochs` is set). For random_state
0..SEEDS-1: P(y = 1) of the test rows and the training rows' mean log-loss.

    python3 -m venv /tmp/sk && /tmp/sk/bin/pip install scikit-learn==1.9.1
    /tmp/sk/bin/python scripts/peers/sklearn_mlp.py crates/xai-models/tests/fixtures/sklearn_mlp.json
"""

import json
import sys
import warnings

import numpy as np
import sklearn
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import log_loss
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

SEEDS = 20


def main(out):
    rng = np.random.default_rng(20261129)
    x = rng.standard_normal((308, 4)) * np.array([1.0, 2.0, 0.5, 3.0])
    eta = 2.0 * np.sin(x[:, 0]) + x[:, 1] * x[:, 2] / 2.0 - x[:, 3] / 3.0
    y = (rng.random(308) < 1.0 / (1.0 + np.exp(-eta))).astype(int)
    train, test = slice(0, 300), slice(300, 308)
    fits = []
    for seed in range(SEEDS):
        model = make_pipeline(StandardScaler(), MLPClassifier(random_state=seed, n_iter_no_change=200))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            model.fit(x[train], y[train])
        assert model[-1].n_iter_ == 200
        fits.append(
            {
                "test_probability": model.predict_proba(x[test])[:, 1].tolist(),
                "train_log_loss": float(log_loss(y[train], model.predict_proba(x[train]))),
            }
        )
    result = {
        "versions": {"scikit-learn": sklearn.__version__, "numpy": np.__version__},
        "x": x[train].tolist(),
        "y": y[train].tolist(),
        "x_test": x[test].tolist(),
        "fits": fits,
    }
    with open(out, "w") as f:
        json.dump(result, f)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
