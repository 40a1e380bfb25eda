"""PyTorch peer of `cargo xtask bench nn_mc_dropout` (../shared/NN.md's workload).

Reads the rows the Rust workload writes (<data>/nn_mc_dropout/{train,test}.csv:
x1..x8, y, f, sd), trains the same network on one CPU thread and prints one JSON
line with the same phase and result names:

    cargo xtask bench nn_mc_dropout --data /tmp/nn   # writes the rows, times ours
    python3 scripts/peers/nn_mc_dropout.py --data /tmp/nn

Network: 8 -> 50 -> 50 -> 2 (ReLU, dropout 0.1 after each hidden layer, mean and
log-variance heads), Gaussian NLL on the z-scored target, inputs z-scored on the
training rows, Adam (lr 1e-3, no weight decay), 1000 epochs in shuffled batches of
64; prediction: 100 passes with dropout on, the predictive Gaussian with the
mixture's moments. Needs torch and numpy (not in ../shared/peers/requirements.txt).
"""

import argparse
import json
import math
import time
from pathlib import Path

import numpy as np
import torch


def read(path):
    with open(path) as f:
        header = f.readline().strip().split(",")
    m = np.loadtxt(path, delimiter=",", skiprows=1)
    xs = [j for j, h in enumerate(header) if h.startswith("x")]
    col = {h: j for j, h in enumerate(header)}
    return m[:, xs], m[:, col["y"]], m[:, col["f"]], m[:, col["sd"]]


def gaussian_nll(mean, var, y):
    return float(np.mean(0.5 * np.log(2 * math.pi * var) + 0.5 * (y - mean) ** 2 / var))


class Net(torch.nn.Module):
    def __init__(self, d, p=0.1):
        super().__init__()
        self.body = torch.nn.Sequential(
            torch.nn.Linear(d, 50), torch.nn.ReLU(), torch.nn.Dropout(p),
            torch.nn.Linear(50, 50), torch.nn.ReLU(), torch.nn.Dropout(p),
            torch.nn.Linear(50, 2),
        )

    def forward(self, x):
        out = self.body(x)
        return out[:, 0], out[:, 1]


def train(x, y, epochs, batch, seed):
    torch.manual_seed(seed)
    net = Net(x.shape[1])
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    n = x.shape[0]
    net.train()
    for _ in range(epochs):
        order = torch.randperm(n)
        for start in range(0, n, batch):
            rows = order[start:start + batch]
            mu, s = net(x[rows])
            loss = (0.5 * (s + (y[rows] - mu) ** 2 * torch.exp(-s))).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
    return net


def predict(net, x, passes):
    net.train()  # dropout on
    with torch.no_grad():
        outs = [net(x) for _ in range(passes)]
    mu = torch.stack([m for m, _ in outs])
    var = torch.stack([torch.exp(s) for _, s in outs])
    mean = mu.mean(0)
    return mean, (var + (mu - mean) ** 2).mean(0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True, type=Path)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--epochs", type=int, default=1000)
    args = ap.parse_args()
    torch.set_num_threads(1)
    d = args.data / "nn_mc_dropout"
    x, y, _, _ = read(d / "train.csv")
    xt, yt, ft, sdt = read(d / "test.csv")
    xm, xs = x.mean(0), x.std(0)
    ym, ys = y.mean(), y.std()
    tx = torch.tensor((x - xm) / xs, dtype=torch.float32)
    ty = torch.tensor((y - ym) / ys, dtype=torch.float32)
    ttx = torch.tensor((xt - xm) / xs, dtype=torch.float32)
    oracle = gaussian_nll(ft, sdt ** 2, yt)
    marginal = gaussian_nll(np.full_like(yt, y.mean()), np.full_like(yt, y.var()), yt)
    runs_train, runs_pred, runs_skill = [], [], []
    for r in range(args.repeats + 1):  # the first is a warm-up, as in the Rust workload
        t = time.perf_counter()
        net = train(tx, ty, args.epochs, 64, seed=r)
        t_train = time.perf_counter() - t
        t = time.perf_counter()
        mean, var = predict(net, ttx, 100)
        t_pred = time.perf_counter() - t
        mean = ym + ys * mean.numpy().astype(np.float64)
        var = ys * ys * var.numpy().astype(np.float64)
        nll = gaussian_nll(mean, var, yt)
        runs_skill.append((marginal - nll) / (marginal - oracle))
        if r > 0:
            runs_train.append(t_train)
            runs_pred.append(t_pred)
    print(json.dumps({
        "workload": "nn_mc_dropout",
        "peer": f"torch {torch.__version__}",
        "threads": 1,
        "repeats": args.repeats,
        "wall_s": {"train": float(np.median(runs_train)), "predict_100_passes": float(np.median(runs_pred))},
        "runs_s": {"train": runs_train, "predict_100_passes": runs_pred},
        "result": {
            "test_rmse": float(np.sqrt(np.mean((mean - yt) ** 2))),
            "test_nll": nll,
            "oracle_test_nll": oracle,
            "marginal_test_nll": marginal,
            "skill": (marginal - nll) / (marginal - oracle),
            "skill_per_seed": runs_skill,
        },
    }))


if __name__ == "__main__":
    main()
