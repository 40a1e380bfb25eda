"""scikit-learn's KSG mutual information (mutual_info_regression, its
`_compute_mi_cc`): the reference of `crates/xai-synth/tests/ksg_reference.rs`.

Two fixtures:

- `sklearn_ksg_pairs.csv`: paired samples and, per pair and k in {1, 3, 5}, the
  value of scikit-learn's estimator on exactly those numbers (the KSG sum
  ψ(N) + ψ(k) − ⟨ψ(n_x + 1)⟩ − ⟨ψ(n_y + 1)⟩ of `_compute_mi_cc`, before its
  max(0, ·)). The pairs: 400 draws of a bivariate Gaussian with ρ = 0.6 and with
  ρ = 0; 400 draws of cid2021's (X2, Y); and the ρ = 0.6 pair rounded to a grid of
  0.25 (ties everywhere), scaled and jittered as mutual_info_regression does
  (x / sd(x), plus 1e-10 · max(1, mean |x|) · N(0, 1), random_state 0) — the noise
  replayed, so both sides see the same numbers.
- `sklearn_ksg_toy.csv`: over 100 independent samples of cid2021's toy (N(0, Σ),
  PAPERS.md §5.4) of 4500 rows, the mean and sd over samples of
  mutual_info_regression(X, y, n_neighbors=3, random_state=s) per feature (clipped
  at 0, as scikit-learn returns it) and of the same pipeline's value before the
  clip; the script asserts that the clipped values are max(0, unclipped).

    python3 -m venv /tmp/sk && /tmp/sk/bin/pip install scikit-learn==1.9.1
    /tmp/sk/bin/python scripts/peers/sklearn_ksg.py --out crates/xai-synth/tests/fixtures
"""

import argparse

import numpy as np
import sklearn
from scipy.special import digamma
from sklearn.feature_selection import mutual_info_regression
from sklearn.neighbors import KDTree, NearestNeighbors

SIGMA = np.array(
    [
        [1.0, 0.4, 0.1, 0.1, 0.1, 0.0, 0.0, 0.3],
        [0.4, 1.0, 0.1, 0.1, 0.1, 0.0, 0.0, 0.3],
        [0.1, 0.1, 1.0, 0.7, 0.7, 0.0, 0.0, 0.4],
        [0.1, 0.1, 0.7, 1.0, 0.7, 0.0, 0.0, 0.4],
        [0.1, 0.1, 0.7, 0.7, 1.0, 0.0, 0.0, 0.4],
        [0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.9, 0.0],
        [0.0, 0.0, 0.0, 0.0, 0.0, 0.9, 1.0, 0.0],
        [0.3, 0.3, 0.4, 0.4, 0.4, 0.0, 0.0, 1.0],
    ]
)


def ksg_unclipped(x, y, k):
    """`sklearn.feature_selection._mutual_info._compute_mi_cc` without its final
    max(0, mi): the same neighbour searches and the same sum."""
    n = x.size
    xy = np.hstack((x.reshape(-1, 1), y.reshape(-1, 1)))
    nn = NearestNeighbors(metric="chebyshev", n_neighbors=k).fit(xy)
    radius = np.nextafter(nn.kneighbors()[0][:, -1], 0)
    counts = []
    for v in (x, y):
        tree = KDTree(v.reshape(-1, 1), metric="chebyshev")
        counts.append(np.array(tree.query_radius(v.reshape(-1, 1), radius, count_only=True)) - 1.0)
    nx, ny = counts
    return digamma(n) + digamma(k) - np.mean(digamma(nx + 1)) - np.mean(digamma(ny + 1))


def jitter(v, rng):
    """mutual_info_regression's preparation of a continuous column."""
    v = v / np.std(v)
    return v + 1e-10 * max(1.0, np.mean(np.abs(v))) * rng.standard_normal(v.size)


def pairs(out):
    rng = np.random.default_rng(20260001)
    a = rng.standard_normal(400)
    gauss = (a, 0.6 * a + 0.8 * rng.standard_normal(400))
    independent = (rng.standard_normal(400), rng.standard_normal(400))
    toy = rng.multivariate_normal(np.zeros(8), SIGMA, size=400)
    rounded = [np.round(v * 4) / 4 for v in gauss]
    noise = np.random.RandomState(0)
    tied = (jitter(rounded[0], noise), jitter(rounded[1], noise))
    sets = {
        "gaussian_rho_0.6": gauss,
        "gaussian_rho_0": independent,
        "cid2021_x2_y": (toy[:, 2], toy[:, 7]),
        "rounded_jittered": tied,
    }
    lines = [
        f"# scikit-learn {sklearn.__version__}; scripts/peers/sklearn_ksg.py",
        "pair,row,x,y",
    ]
    values = ["# per pair: k=1, k=3, k=5 (KSG sum before max(0, .))"]
    for name, (x, y) in sets.items():
        for i, (u, v) in enumerate(zip(x, y)):
            lines.append(f"{name},{i},{float(u)!r},{float(v)!r}")
        values.append(f"# {name}: " + " ".join(repr(float(ksg_unclipped(x, y, k))) for k in (1, 3, 5)))
    with open(f"{out}/sklearn_ksg_pairs.csv", "w") as f:
        f.write("\n".join(values[:1] + values[1:] + lines) + "\n")


def toy(out, samples):
    clipped, raw = [], []
    for s in range(samples):
        rng = np.random.default_rng(s)
        z = rng.multivariate_normal(np.zeros(8), SIGMA, size=4500)
        x, y = z[:, :7], z[:, 7]
        public = mutual_info_regression(x, y, n_neighbors=3, random_state=s)
        # The same preparation as mutual_info_regression: features, then target.
        noise = np.random.RandomState(s)
        xs = x / np.std(x, axis=0)
        xs = xs + 1e-10 * np.maximum(1, np.mean(np.abs(xs), axis=0)) * noise.standard_normal(xs.shape)
        ys = y / np.std(y)
        ys = ys + 1e-10 * max(1, np.mean(np.abs(ys))) * noise.standard_normal(ys.size)
        unclipped = np.array([ksg_unclipped(xs[:, j], ys, 3) for j in range(7)])
        assert np.allclose(public, np.maximum(0, unclipped), rtol=0, atol=1e-12), (public, unclipped)
        clipped.append(public)
        raw.append(unclipped)
    clipped, raw = np.array(clipped), np.array(raw)
    lines = [
        f"# scikit-learn {sklearn.__version__}; {samples} samples of 4500 rows; "
        "scripts/peers/sklearn_ksg.py",
        "feature,population,mean_clipped,sd_clipped,mean_unclipped,sd_unclipped,samples",
    ]
    for j in range(7):
        rho = SIGMA[j, 7]
        lines.append(
            ",".join(
                [f"X{j}", repr(float(-0.5 * np.log(1 - rho**2)))]
                + [repr(float(f(c[:, j]))) for c in (clipped, raw) for f in (np.mean, lambda v: np.std(v, ddof=1))]
                + [str(samples)]
            )
        )
    with open(f"{out}/sklearn_ksg_toy.csv", "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("--samples", type=int, default=100)
    args = parser.parse_args()
    pairs(args.out)
    toy(args.out, args.samples)


if __name__ == "__main__":
    main()
