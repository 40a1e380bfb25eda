"""Shapley values of a random forest's aleatoric and epistemic entropy, with
split-conformal intervals, on the Pima diabetes data (watson2023 §5, Table 1).

A forest's trees are its members (kind="members"): the entropy of its predictive
distribution splits into the aleatoric part, the mean entropy of the trees,
(1/M)·Σ_m H(q^m(x)), and the epistemic part, H(q(x)) − (1/M)·Σ_m H(q^m(x)), the
mutual information between the label and the tree (BALD). Each is a game v(S, x)
over the features, played with the features outside S drawn from a background of 50
training rows; its exact Shapley values φ_j(x) sum to v(all, x) − v(∅) (efficiency).
The first half of the explained rows calibrates a split-conformal interval per
feature, μ_j ± τ_j (watson2023 Eq. 10, α = 0.1); the second half measures how often
the interval holds a new row's φ_j.
"""

import numpy as np
from sklearn.ensemble import RandomForestClassifier

import xaiws

X, y = xaiws.dataset("pima")  # $XAI_DATA_DIR or data/cache, sha256 verified
order = np.random.default_rng(0).permutation(len(y))
train, test = order[:500], order[500:]
forest = RandomForestClassifier(50, min_samples_leaf=5, random_state=0).fit(X.iloc[train], y[train])

ROWS, BACKGROUND = 60, 50
results = {}
for value in ("aleatoric_entropy", "epistemic_entropy"):
    node = {
        "shapley": {
            "estimator": "exact",
            "value": value,
            "background": BACKGROUND,
            "rows": ROWS,
            "conformal": {"alpha": 0.1, "calibrate": 0.5},
        }
    }
    t = xaiws.explain(forest, X.iloc[train], y[train], node, X_test=X.iloc[test], y_test=y[test], kind="members").tidy
    results[value] = t.pivot(index="feature", columns="quantity", values="estimate").loc[list(X.columns)]

print("Shapley values of the forest's aleatoric and epistemic entropy (nats), Pima:")
print(f"{'feature':8} {'aleatoric φ':>12} {'μ ± τ':>18} {'cov':>5} {'epistemic φ':>12} {'μ ± τ':>18} {'cov':>5}")
for f in X.columns:
    a, e = results["aleatoric_entropy"].loc[f], results["epistemic_entropy"].loc[f]
    pa, pe = "aleatoric_entropy_shap", "epistemic_entropy_shap"
    print(
        f"{f:8} {a[pa]:12.4f} {a[pa + '_mu']:8.4f} ± {a[pa + '_tau']:6.4f} {a[pa + '_coverage']:5.2f}"
        f" {e[pe]:12.4f} {e[pe + '_mu']:8.4f} ± {e[pe + '_tau']:6.4f} {e[pe + '_coverage']:5.2f}"
    )


# Efficiency, computed here from the trees themselves: the mean over the explained
# rows of Σ_j φ_j equals the mean of v(all, x) minus v(∅), v(∅) the game on the
# background mixture of each tree.
def entropy(p):
    p = np.clip(p, 1e-300, 1)
    return -(p * np.log(p)).sum(axis=-1)


trees = forest.estimators_
rows = X.iloc[test[:ROWS]].to_numpy()
background = X.iloc[train[:BACKGROUND]].to_numpy()
per_tree = np.stack([t.predict_proba(rows) for t in trees])  # M × n × k
per_tree_empty = np.stack([t.predict_proba(background).mean(axis=0) for t in trees])  # M × k
aleatoric_full = entropy(per_tree).mean(axis=0).mean()
aleatoric_empty = entropy(per_tree_empty).mean()
epistemic_full = (entropy(per_tree.mean(axis=0)) - entropy(per_tree).mean(axis=0)).mean()
epistemic_empty = entropy(per_tree_empty.mean(axis=0)) - entropy(per_tree_empty).mean()
for value, full, empty in (
    ("aleatoric_entropy", aleatoric_full, aleatoric_empty),
    ("epistemic_entropy", epistemic_full, epistemic_empty),
):
    total = results[value][value + "_shap"].sum()
    print(f"{value}: Σ_j mean φ_j = {total:.6f}, mean v(all) − v(∅) = {full - empty:.6f}")
    # Summation order alone separates them (60 rows × 256 coalitions of ~1e-1).
    assert abs(total - (full - empty)) < 1e-9, (total, full, empty)
print("Efficiency holds for both games.")
