"""Train the digit reader of `kingsheet scan` (numpy only) and write kingsheet/scan/digits.npz.

    python tools/scan/train.py            # about a minute on 2 cores

Data: scikit-learn's handwritten digits (80 %; the other 20 % are kept back to measure) and the
TRAIN_FONTS of tools/scan/handwriting.py, each digit written many times with augmentation. The
HELD_OUT_FONTS are used only to measure, here and in the bench. Needs the dev extras and the fonts
(apt-get install fonts-breip fonts-femkeklaver fonts-sjfonts fonts-comic-neue fonts-humor-sans
fonts-dkg-handwriting fonts-rufscript).
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(Path(__file__).resolve().parent)]

from handwriting import HELD_OUT_FONTS, TRAIN_FONTS, available, glyph, has_digit, sklearn_digits  # noqa: E402

from kingsheet.scan.digits import SIZE, WEIGHTS, normalize, segment  # noqa: E402

HIDDEN = 256
SEED = 20261130


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


def jitter(x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Small shifts of the normalised digit."""
    img = x.reshape(-1, SIZE, SIZE)
    out = np.zeros_like(img)
    for k in range(len(img)):
        dy, dx = rng.integers(-2, 3, 2)
        out[k] = np.roll(np.roll(img[k], dy, 0), dx, 1)
    return out.reshape(len(img), -1)


def train(x: np.ndarray, y: np.ndarray, epochs: int = 30) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(SEED)
    w1 = rng.normal(0, np.sqrt(2 / x.shape[1]), (x.shape[1], HIDDEN)).astype(np.float32)
    b1 = np.zeros(HIDDEN, np.float32)
    w2 = rng.normal(0, np.sqrt(2 / HIDDEN), (HIDDEN, 10)).astype(np.float32)
    b2 = np.zeros(10, np.float32)
    params = [w1, b1, w2, b2]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    lr, beta1, beta2, t = 1e-3, 0.9, 0.999, 0
    for epoch in range(epochs):
        order = rng.permutation(len(x))
        xe = jitter(x, rng)
        for start in range(0, len(x), 128):
            idx = order[start:start + 128]
            xb, yb = xe[idx], y[idx]
            h = np.maximum(xb @ w1 + b1, 0)
            z = h @ w2 + b2
            z -= z.max(axis=1, keepdims=True)
            p = np.exp(z)
            p /= p.sum(axis=1, keepdims=True)
            p[np.arange(len(yb)), yb] -= 1
            p /= len(yb)
            gw2 = h.T @ p + 1e-4 * w2
            gb2 = p.sum(0)
            dh = (p @ w2.T) * (h > 0)
            gw1 = xb.T @ dh + 1e-4 * w1
            gb1 = dh.sum(0)
            t += 1
            for k, g in enumerate((gw1, gb1, gw2, gb2)):
                m[k] = beta1 * m[k] + (1 - beta1) * g
                v[k] = beta2 * v[k] + (1 - beta2) * g * g
                params[k] -= lr * (m[k] / (1 - beta1 ** t)) / (np.sqrt(v[k] / (1 - beta2 ** t)) + 1e-8)
        if epoch == epochs * 2 // 3:
            lr /= 3
    return {"w1": w1, "b1": b1, "w2": w2, "b2": b2}


def accuracy(weights: dict[str, np.ndarray], x: np.ndarray, y: np.ndarray) -> float:
    h = np.maximum(x @ weights["w1"] + weights["b1"], 0)
    return float(((h @ weights["w2"] + weights["b2"]).argmax(1) == y).mean())


def main() -> None:
    rng = random.Random(SEED)
    images, labels = sklearn_digits()
    order = np.random.default_rng(SEED).permutation(len(images))
    cut = int(len(images) * 0.8)
    sk_x = np.stack([normalize(im) for im in images])
    train_x, train_y = [sk_x[order[:cut]]], [labels[order[:cut]]]
    fx, fy = font_set(available(TRAIN_FONTS), 250, rng)
    train_x.append(fx)
    train_y.append(fy)
    x, y = np.concatenate(train_x), np.concatenate(train_y)
    print(f"training on {len(x)} digits ({cut} from scikit-learn, {len(fx)} from {len(available(TRAIN_FONTS))} fonts)")
    weights = train(x, y)
    hx, hy = font_set(available(HELD_OUT_FONTS), 60, random.Random(SEED + 1))
    print(f"held-out scikit-learn digits: {accuracy(weights, sk_x[order[cut:]], labels[order[cut:]]):.1%}; "
          f"held-out fonts ({len(available(HELD_OUT_FONTS))}): {accuracy(weights, hx, hy):.1%}; "
          f"training: {accuracy(weights, x, y):.1%}")
    np.savez_compressed(WEIGHTS, **{k: v.astype(np.float16) for k, v in weights.items()})
    print(f"wrote {WEIGHTS.relative_to(ROOT)} ({WEIGHTS.stat().st_size // 1024} KiB)")


if __name__ == "__main__":
    main()
