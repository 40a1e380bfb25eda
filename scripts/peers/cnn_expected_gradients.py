"""PyTorch peer for expected gradients of a MC-dropout CNN's entropies (makes a fixture).

Writes crates/xai-models/tests/fixtures/cnn_expected_gradients.safetensors: the
weights of watson2023's MNIST CNN, M = 4 MC-dropout members whose dropout masks are
fixed (drawn once, shared by every row), three explained 1-vs-7 images, a background
of eight, K = 16 explicit expected-gradients draws per image, and what torch autograd
makes of them: the member log-odds, the aleatoric and epistemic entropies and their
expected-gradients attributions (Erion et al. 2021; shap's GradientExplainer). The
Rust side replays the same draws through the same masks and must agree to rounding.
Not run by tests or CI; it documents how the fixture was made.

    python3 -m venv /work/venv-peer
    /work/venv-peer/bin/pip install torch numpy safetensors    # shap too for --shap
    /work/venv-peer/bin/python scripts/peers/cnn_expected_gradients.py [--shap]

Run with Python 3.11.7, torch 2.15.0 (the PyPI wheel, 2.15.0+cu132, run on the CPU
with one thread; it needs its nvidia-* dependencies even to import, ~5 GB installed),
numpy 2.4.6, safetensors 0.8.0 and, for --shap, shap 0.51.0. Two runs wrote the same
bytes (sha256 4ad90af39ba84d1a58a6287b1fb4a9efa3cf71a393a91492c10db4f4ca696f57).

Network (PyTorch layout, input u = raw grey level / 255 of shape (1, 28, 28), f32):
    a1 = conv1(u)                                   (10, 24, 24)
    a2 = relu(max_pool2d(a1, 2)) * mask1[m]         (10, 12, 12)  p = 0.3
    a3 = conv2(a2) * mask2[m]                       (20, 8, 8)    p = 0.5
    a4 = relu(max_pool2d(a3, 2)) * mask3[m]         (20, 4, 4)    p = 0.3
    a5 = relu(fc1(a4 flattened channel-major)) * mask4[m]  (50)   p = 0.5
    o  = fc2(a5)                                    (2)
    z_m = o[1] - o[0] (f32; class 1 = digit 7), then cast to f64.
A mask entry is 0 with probability p, else 1/(1 - p) (inverted dropout); the four
masks are drawn in that order from torch.Generator seeded 1 (keep iff U >= p).
Weights: PyTorch's default init under torch.manual_seed(1), then 10 epochs of SGD
(lr 0.01, momentum 0.5, 8 batches of <= 128 per epoch shuffled by torch.Generator
seeded 3, cross-entropy on o, ordinary random dropout at the same four places) on the
1s and 7s of $XAI_DATA_DIR/mnist5k/mnist5k.csv (default ../shared/data) (file order, 500 of each) less
the last 20 of each digit, which are held out: 960 images. (2 epochs left every
member at p ~ 0.5; 10 give held-out accuracy 1 with members spread over (0.04, 1).)

Entropies in nats, in f64 from the member log-odds z_m, with s_m = sigmoid(z_m):
    h_a = mean_m H(s_m),  H(sigmoid(z)) = softplus(z) - z * sigmoid(z)
    h_e = H(pbar) - h_a,  ln pbar = logsumexp_m(-softplus(-z_m)) - ln M,
                          ln(1 - pbar) = logsumexp_m(-softplus(z_m)) - ln M.
Expected gradients in raw grey-level units (0-255), for h in {h_a, h_e}:
    phi_ij = (1/K) sum_k (x_ij - b_j) * dh/dx_j at t = b + alpha * (x_i - b),
with b = background[draw_index[i, k]] and alpha = draw_alpha[i, k]. The point t
is formed in f64 exactly as b + (x - b) * alpha, the network input is (t / 255)
computed in f64 then rounded to f32, and autograd carries the gradient back through
that rounding and the /255 to the raw f64 pixel value.

Held out: background = the first 4 held-out 1s and the first 4 held-out 7s; the
three explained images, among the other 32 held-out images, are the 1 with the largest
h_e, the 7 with the largest h_e and the next largest h_e of either digit. Draws: numpy.random.default_rng(2), for each image the K indices (integers in
0..8) and then the K alphas (U(0, 1)).

--shap also runs shap.GradientExplainer (nsamples = 2000) on modules that output h_a
and h_e from raw 0-255 inputs with the same masks and compares it with (a) our
estimator replaying shap's own draws and (b) our estimator with K = 2000 independent
draws, relative to the Monte-Carlo standard error. Nothing of shap goes in the fixture.
"""

import argparse
import math
import os
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from safetensors.numpy import load_file, save_file

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(os.environ.get("XAI_DATA_DIR", ROOT.parent / "shared/data")) / "mnist5k/mnist5k.csv"
OUT = ROOT / "crates/xai-models/tests/fixtures/cnn_expected_gradients.safetensors"

M = 4
P_DROP = (0.3, 0.5, 0.3, 0.5)
MASK_SHAPES = ((10, 12, 12), (20, 8, 8), (20, 4, 4), (50,))
HELD_PER_DIGIT = 20
N_BACKGROUND = 8
N_EXPLAIN = 3
K = 16
K_SHAP = 2000


def load_pairs(path):
    """The 1s and 7s in file order: raw grey levels (n, 784) f64 and label (7 -> 1)."""
    m = np.loadtxt(path, delimiter=",", skiprows=1)
    digit = m[:, -1].astype(int)
    keep = (digit == 1) | (digit == 7)
    return m[keep, :-1], (digit[keep] == 7).astype(np.int64)


class Cnn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(1, 10, kernel_size=5)
        self.conv2 = torch.nn.Conv2d(10, 20, kernel_size=5)
        self.fc1 = torch.nn.Linear(320, 50)
        self.fc2 = torch.nn.Linear(50, 2)

    def forward(self, u, masks=None, train_p=None):
        """u: (n, 1, 28, 28) f32. With `masks` (each (M, ...)) -> logits (n, M, 2) of
        the fixed-mask members; with `train_p` -> (n, 2) with random dropout."""
        def drop(a, level):
            if masks is not None:
                return a * masks[level]
            if train_p is not None:
                return F.dropout(a, train_p[level], training=True)
            return a

        n = u.shape[0]
        a = F.relu(F.max_pool2d(self.conv1(u), 2))
        if masks is not None:
            a = a.unsqueeze(1).expand(n, M, 10, 12, 12)
        a = drop(a, 0)
        a = self.conv2(a.reshape(-1, 10, 12, 12))
        if masks is not None:
            a = a.reshape(n, M, 20, 8, 8)
        a = drop(a, 1)
        a = F.relu(F.max_pool2d(a.reshape(-1, 20, 8, 8), 2))
        if masks is not None:
            a = a.reshape(n, M, 20, 4, 4)
        a = drop(a, 2)
        a = a.reshape(-1, 320)
        a = F.relu(self.fc1(a))
        if masks is not None:
            a = a.reshape(n, M, 50)
        a = drop(a, 3)
        return self.fc2(a)


def train(net, x, y, epochs, batch=128, lr=0.01, momentum=0.5):
    u = torch.tensor(x / 255.0, dtype=torch.float32).reshape(-1, 1, 28, 28)
    t = torch.tensor(y)
    opt = torch.optim.SGD(net.parameters(), lr=lr, momentum=momentum)
    order = torch.Generator().manual_seed(3)
    for epoch in range(epochs):
        perm = torch.randperm(len(t), generator=order)
        total = 0.0
        for s in range(0, len(t), batch):
            idx = perm[s:s + batch]
            opt.zero_grad()
            loss = F.cross_entropy(net(u[idx], train_p=P_DROP), t[idx])
            loss.backward()
            opt.step()
            total += loss.item() * len(idx)
        print(f"epoch {epoch + 1}: mean training loss {total / len(t):.4f}")


def draw_masks():
    g = torch.Generator().manual_seed(1)
    masks = []
    for p, shape in zip(P_DROP, MASK_SHAPES):
        keep = torch.rand((M,) + shape, generator=g) >= p
        masks.append(keep.to(torch.float32) / (1.0 - p))
    return masks


def softplus(z):
    """log(1 + e^z) in f64 without the threshold of F.softplus."""
    return torch.logaddexp(torch.zeros_like(z), z)


def entropies(z):
    """z: (n, M) f64 member log-odds -> (h_a, h_e), each (n,)."""
    sp = softplus(z)
    h_member = sp - z * torch.sigmoid(z)
    h_a = h_member.mean(dim=1)
    ln_m = math.log(z.shape[1])
    ln_p = torch.logsumexp(-softplus(-z), dim=1) - ln_m
    ln_q = torch.logsumexp(-sp, dim=1) - ln_m
    h_total = -(torch.exp(ln_p) * ln_p + torch.exp(ln_q) * ln_q)
    return h_a, h_total - h_a


def member_logits(net, masks, raw):
    """raw: (n, 784) f64 tensor (may require grad) -> (n, M) f64 log-odds."""
    u = (raw / 255.0).to(torch.float32).reshape(-1, 1, 28, 28)
    o = net(u, masks=masks)
    return (o[..., 1] - o[..., 0]).to(torch.float64)


def h_of(net, masks, raw):
    return entropies(member_logits(net, masks, raw))


def expected_gradients(net, masks, x, background, index, alpha, per_draw=False):
    """x (n, 784), background (B, 784), index/alpha (n, K), all numpy -> for h_a and
    h_e the attributions (n, 784) (or, with per_draw, the (n, K, 784) summands)."""
    out = {"a": [], "e": []}
    for i in range(x.shape[0]):
        b = torch.tensor(background[index[i]])                  # (K, 784) f64
        xi = torch.tensor(x[i]).expand_as(b)
        step = xi - b
        t = (b + step * torch.tensor(alpha[i]).unsqueeze(1)).detach().requires_grad_()
        h_a, h_e = h_of(net, masks, t)
        for name, h in (("a", h_a), ("e", h_e)):
            (g,) = torch.autograd.grad(h.sum(), t, retain_graph=name == "a")
            summand = (g * step).numpy()
            out[name].append(summand if per_draw else summand.mean(axis=0))
    return np.stack(out["a"]), np.stack(out["e"])


def run_shap(net, masks, x, background):
    import shap

    class Head(torch.nn.Module):
        def __init__(self, which):
            super().__init__()
            self.which = which

        def forward(self, raw):
            h_a, h_e = h_of(net, masks, raw)
            return (h_a if self.which == "a" else h_e).unsqueeze(1)

    bg32 = torch.tensor(background, dtype=torch.float32)
    x32 = torch.tensor(x, dtype=torch.float32)
    rseed = 12345
    phis = {}
    for which in ("a", "e"):
        explainer = shap.GradientExplainer(Head(which), bg32)
        sv = explainer.shap_values(x32, nsamples=K_SHAP, rseed=rseed)
        phis[which] = np.asarray(sv, dtype=np.float64).reshape(x.shape)

    # shap's draws: np.random.seed(rseed), then per image and sample one
    # np.random.choice(B) and one np.random.uniform() (t weights x).
    np.random.seed(rseed)
    idx = np.zeros((x.shape[0], K_SHAP), dtype=np.int64)
    alp = np.zeros((x.shape[0], K_SHAP))
    for i in range(x.shape[0]):
        for k in range(K_SHAP):
            idx[i, k] = np.random.choice(background.shape[0])
            alp[i, k] = np.random.uniform()
    replay = expected_gradients(net, masks, x, background, idx, alp)

    rng = np.random.default_rng(99)
    idx2 = rng.integers(0, background.shape[0], size=(x.shape[0], K_SHAP))
    alp2 = rng.random((x.shape[0], K_SHAP))
    own = expected_gradients(net, masks, x, background, idx2, alp2, per_draw=True)

    for n, which in enumerate(("a", "e")):
        s, r = phis[which], replay[n]
        summands = own[n]
        mine = summands.mean(axis=1)
        se = summands.std(axis=1, ddof=1) / math.sqrt(K_SHAP)   # SE of one estimate
        live = se > 0
        zscore = (s - mine)[live] / (math.sqrt(2.0) * se[live])
        print(f"shap h_{which}: replaying shap's draws: max|diff| {np.abs(s - r).max():.3e} "
              f"(max|phi| {np.abs(r).max():.3e}), corr {np.corrcoef(s.ravel(), r.ravel())[0, 1]:.9f}")
        print(f"shap h_{which}: vs own K={K_SHAP} draws: corr {np.corrcoef(s.ravel(), mine.ravel())[0, 1]:.6f}, "
              f"max|diff| {np.abs(s - mine).max():.3e}, max|diff|/SE(diff) {np.abs(zscore).max():.2f}, "
              f"mean (diff/SE)^2 {np.mean(zscore ** 2):.3f} over {live.sum()} pixel values")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--shap", action="store_true", help="also compare with shap.GradientExplainer")
    args = ap.parse_args()
    torch.set_num_threads(1)

    x_all, y_all = load_pairs(args.data)
    ones, sevens = np.where(y_all == 0)[0], np.where(y_all == 1)[0]
    held = np.concatenate([ones[-HELD_PER_DIGIT:], sevens[-HELD_PER_DIGIT:]])
    train_rows = np.setdiff1d(np.arange(len(y_all)), held)
    bg_rows = np.concatenate([ones[-HELD_PER_DIGIT:][:4], sevens[-HELD_PER_DIGIT:][:4]])
    cand_rows = np.setdiff1d(held, bg_rows)

    torch.manual_seed(1)
    net = Cnn()
    net.train()
    train(net, x_all[train_rows], y_all[train_rows], epochs=args.epochs)
    net.eval()
    for prm in net.parameters():
        prm.requires_grad_(False)
    masks = draw_masks()

    with torch.no_grad():
        z_cand = member_logits(net, masks, torch.tensor(x_all[cand_rows]))
        h_a_cand, h_e_cand = entropies(z_cand)
        p_cand = torch.sigmoid(z_cand)
    print(f"held-out candidates: member p in [{p_cand.min():.4f}, {p_cand.max():.4f}], "
          f"accuracy of pbar {float(((p_cand.mean(1) > 0.5).long().numpy() == y_all[cand_rows]).mean()):.3f}, "
          f"h_a in [{h_a_cand.min():.4f}, {h_a_cand.max():.4f}], h_e in [{h_e_cand.min():.2e}, {h_e_cand.max():.2e}]")
    ranked = cand_rows[np.argsort(-h_e_cand.numpy(), kind="stable")]
    first = [ranked[y_all[ranked] == 0][0], ranked[y_all[ranked] == 1][0]]
    pick = np.sort(first + [r for r in ranked if r not in first][:N_EXPLAIN - 2])
    x = x_all[pick]
    background = x_all[bg_rows]

    rng = np.random.default_rng(2)
    draw_index = np.zeros((N_EXPLAIN, K), dtype=np.int64)
    draw_alpha = np.zeros((N_EXPLAIN, K))
    for i in range(N_EXPLAIN):
        draw_index[i] = rng.integers(0, N_BACKGROUND, size=K)
        draw_alpha[i] = rng.random(K)

    with torch.no_grad():
        logits = member_logits(net, masks, torch.tensor(x))
        h_a, h_e = entropies(logits)
        h_a_bg, h_e_bg = entropies(member_logits(net, masks, torch.tensor(background)))
    phi_a, phi_e = expected_gradients(net, masks, x, background, draw_index, draw_alpha)

    print(f"explained rows (among the 1s and 7s, file order): {pick.tolist()}, labels {y_all[pick].tolist()}")
    print(f"background rows: {bg_rows.tolist()}")
    for i in range(N_EXPLAIN):
        print(f"image {i}: z = {np.array2string(logits[i].numpy(), precision=4)}, "
              f"p = {np.array2string(torch.sigmoid(logits[i]).numpy(), precision=4)}")
        for name, h, hb, phi in (("h_a", h_a, h_a_bg, phi_a), ("h_e", h_e, h_e_bg, phi_e)):
            gap = float(h[i] - hb.numpy()[draw_index[i]].mean())
            print(f"  {name}(x) = {float(h[i]):.6f}: sum phi = {phi[i].sum():+.6f}, "
                  f"h(x) - mean_k h(b_k) = {gap:+.6f}, max|phi| = {np.abs(phi[i]).max():.3e}, "
                  f"nonzero phi {int((phi[i] != 0).sum())}")

    tensors = {name: prm.detach().numpy().astype(np.float32)
               for name, prm in net.state_dict().items()}
    for level, mask in enumerate(masks):
        tensors[f"mask{level + 1}"] = mask.numpy()
    tensors.update({
        "x": x,
        "background": background,
        "draw_index": draw_index,
        "draw_alpha": draw_alpha,
        "logits": logits.numpy(),
        "h_aleatoric_entropy": h_a.numpy(),
        "h_epistemic_entropy": h_e.numpy(),
        "phi_aleatoric_entropy": phi_a,
        "phi_epistemic_entropy": phi_e,
    })
    tensors = {k: np.ascontiguousarray(v) for k, v in tensors.items()}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    save_file(tensors, str(args.out))
    back = load_file(str(args.out))
    for name in sorted(back):
        assert np.array_equal(back[name], tensors[name]) and back[name].dtype == tensors[name].dtype
        print(f"  {name}: {back[name].dtype} {back[name].shape}")
    print(f"wrote {args.out} ({args.out.stat().st_size} bytes)")

    if args.shap:
        run_shap(net, masks, x, background)


if __name__ == "__main__":
    main()
