"""scikit-learn's deterministic learners on fixed data: the reference of
`crates/xai-models/tests/sklearn_reference.rs`.

Writes one JSON file with the data and, on it:

- `logistic`: StandardScaler + LogisticRegression(C = 1 and C = 0.05,
  solver="newton-cholesky", tol=1e-12): intercept and coefficients (on the
  standardised columns) and P(y = 1) of the test rows;
- `glasso`: graphical_lasso(empirical covariance, alpha = 0.05 and 0.2, mode="cd",
  tol=1e-12, enet_tol=1e-12, max_iter=1000): the precision matrix;
- `svc`: StandardScaler + SVC(kernel="linear", C=1, tol=1e-12, shrinking=False, libsvm's
  plain SMO as ours): the decision values of the test rows;
- `gp`: GaussianProcessRegressor(ConstantKernel(2) * RBF([1.5, 0.7, 2, 3]) +
  WhiteKernel(0.1), optimizer=None, normalize_y=True) on the training rows with a
  continuous target: its log marginal likelihood at those hyperparameters and the
  predictive mean and sd (noise included) of the test rows;
- `platt`: sklearn.calibration._sigmoid_calibration (Platt's sigmoid with his smoothed
  targets, L-BFGS-B with gtol 1e-6) on the SVC's decision values of the training rows:
  a and b, and the smallest eigenvalue of the log-loss Hessian at (a, b), which bounds
  the distance to the optimum at that gradient tolerance.

Data (numpy default_rng(20261128)): 200 training and 50 test rows of four correlated
Gaussian features, y ~ Bernoulli(sigmoid(0.5 + x1 - 2 x2 + 0.5 x3)); for the
graphical lasso 200 rows of six features with a chain-structured precision.

    python3 -m venv /tmp/sk && /tmp/sk/bin/pip install scikit-learn==1.9.1
    /tmp/sk/bin/python scripts/peers/sklearn_learners.py \
        crates/xai-models/tests/fixtures/sklearn_learners.json
"""

import json
import sys

import numpy as np
import sklearn
from sklearn.calibration import _sigmoid_calibration
from sklearn.covariance import empirical_covariance, graphical_lasso
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF, ConstantKernel, WhiteKernel
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC


def main(out):
    rng = np.random.default_rng(20261128)
    mix = np.array([[1.0, 0.5, 0.0, 0.0], [0.0, 1.0, 0.3, 0.0], [0.0, 0.0, 1.0, 0.4], [0.0, 0.0, 0.0, 1.0]])
    x = rng.standard_normal((250, 4)) @ mix * np.array([1.0, 2.0, 0.5, 3.0]) + np.array([0.0, 1.0, -2.0, 5.0])
    eta = 0.5 + x[:, 0] - 2.0 * (x[:, 1] - 1.0) / 2.0 + 0.5 * (x[:, 2] + 2.0) / 0.5
    y = (rng.random(250) < 1.0 / (1.0 + np.exp(-eta))).astype(int)
    train, test = slice(0, 200), slice(200, 250)

    logistic = {}
    for c in (1.0, 0.05):
        model = make_pipeline(
            StandardScaler(), LogisticRegression(C=c, solver="newton-cholesky", tol=1e-12, max_iter=1000)
        ).fit(x[train], y[train])
        fitted = model[-1]
        logistic[repr(c)] = {
            "intercept": float(fitted.intercept_[0]),
            "coefficients": fitted.coef_[0].tolist(),
            "probability": model.predict_proba(x[test])[:, 1].tolist(),
        }

    precision = np.diag([1.0] * 6) + np.diag([-0.4] * 5, 1) + np.diag([-0.4] * 5, -1)
    z = rng.multivariate_normal(np.zeros(6), np.linalg.inv(precision), size=200)
    glasso = {}
    for alpha in (0.05, 0.2):
        _, prec = graphical_lasso(
            empirical_covariance(z), alpha=alpha, mode="cd", tol=1e-12, enet_tol=1e-12, max_iter=1000
        )
        glasso[repr(alpha)] = prec.tolist()

    svc = make_pipeline(StandardScaler(), SVC(kernel="linear", C=1.0, tol=1e-12, shrinking=False)).fit(x[train], y[train])
    decision_train = svc.decision_function(x[train])
    a, b = _sigmoid_calibration(decision_train, y[train])
    p = 1.0 / (1.0 + np.exp(a * decision_train + b))
    w = p * (1.0 - p)
    hessian = np.array([[np.sum(w * decision_train**2), np.sum(w * decision_train)], [np.sum(w * decision_train), np.sum(w)]])

    y_reg = np.sin(x[:, 0]) + 0.3 * x[:, 1] * x[:, 2] + 0.2 * rng.standard_normal(250)
    kernel = ConstantKernel(2.0) * RBF([1.5, 0.7, 2.0, 3.0]) + WhiteKernel(0.1)
    gp = GaussianProcessRegressor(kernel, optimizer=None, normalize_y=True).fit(x[train], y_reg[train])
    mean, sd = gp.predict(x[test], return_std=True)
    gp_result = {
        "y": y_reg[train].tolist(),
        "theta": gp.kernel_.theta.tolist(),
        "log_marginal_likelihood": float(gp.log_marginal_likelihood_value_),
        "mean": mean.tolist(),
        "sd": sd.tolist(),
    }

    result = {
        "versions": {"scikit-learn": sklearn.__version__, "numpy": np.__version__},
        "x": x[train].tolist(),
        "y": y[train].tolist(),
        "x_test": x[test].tolist(),
        "logistic": logistic,
        "glasso_x": z.tolist(),
        "glasso": glasso,
        "svc_decision": svc.decision_function(x[test]).tolist(),
        "svc_decision_train": decision_train.tolist(),
        "gp": gp_result,
        "platt": {"a": float(a), "b": float(b), "hessian_min_eigenvalue": float(np.linalg.eigvalsh(hessian)[0])},
    }
    with open(out, "w") as f:
        json.dump(result, f)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
