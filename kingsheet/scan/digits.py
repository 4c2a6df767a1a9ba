"""Handwritten digits in a cell: cut into digits, each read by a small network that runs in numpy.

The weights (``digits.npz``, built by ``tools/scan/train.py``; sources in MODEL.md) ship in the
package: nothing is downloaded. A cell gives several readings with their log-probabilities; the
rules choose among them (``choose``).
"""

from __future__ import annotations

import heapq
import math
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from kingsheet.scan.choose import Reading

SIZE = 28  # a digit as the network sees it: SIZE × SIZE, the ink fitted in a 20-pixel box
BOX = 20
WEIGHTS = Path(__file__).resolve().parent / "digits.npz"


def normalize(patch: np.ndarray) -> np.ndarray:
    """Dark ink on light paper → the network's input: ink 1.0, paper 0.0, the ink's box scaled to
    BOX pixels on its longer side and centred."""
    import cv2

    ink = 255.0 - patch.astype(np.float32)
    ys, xs = np.nonzero(ink > 60)
    out = np.zeros((SIZE, SIZE), np.float32)
    if len(xs) == 0:
        return out.ravel()
    ink = ink[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    h, w = ink.shape
    scale = BOX / max(h, w)
    nh, nw = max(1, round(h * scale)), max(1, round(w * scale))
    small = cv2.resize(ink, (nw, nh), interpolation=cv2.INTER_AREA)
    top, left = (SIZE - nh) // 2, (SIZE - nw) // 2
    out[top:top + nh, left:left + nw] = small
    return (out / max(1.0, float(out.max()))).ravel()


def segment(cell: np.ndarray) -> list[np.ndarray]:
    """The digits written in a cell (grey, ink dark), left to right. Specks, the cell's own lines
    and a minus sign (optional on the paper: the game gives the sign) are left out; strokes of one
    digit that do not touch are kept together."""
    found = _pieces(cell)
    return [] if found is None else _cut(cell, found[0], found[1])


#: How much less likely a cut through a piece is than the piece being one digit (a log-probability).
SPLIT_COST = math.log(4)


def segmentations(cell: np.ndarray) -> list[tuple[float, list[np.ndarray]]]:
    """The ways a cell may divide into digits, each with its log-prior: as its ink's pieces fall,
    and with a wide piece cut in two where its ink is thinnest (two digits written touching)."""
    found = _pieces(cell)
    if found is None:
        return []
    binary, boxes = found
    out = [(0.0, _cut(cell, binary, boxes))]
    for k, (x0, y0, x1, y1) in enumerate(boxes[:3]):
        w, h = x1 - x0, y1 - y0
        if w < 0.75 * h or len(boxes) >= 3:
            continue
        column_ink = (binary[y0:y1, x0:x1] > 0).sum(axis=0)
        lo, hi = int(w * 0.3), int(w * 0.7) + 1
        at = x0 + lo + int(np.argmin(column_ink[lo:hi]))
        halves = [[x0, y0, at, y1], [at, y0, x1, y1]]
        out.append((-SPLIT_COST, _cut(cell, binary, [*boxes[:k], *halves, *boxes[k + 1:]])))
    return out


def _cut(cell: np.ndarray, binary: np.ndarray, boxes: list[list[int]]) -> list[np.ndarray]:
    digits = []
    for x0, y0, x1, y1 in boxes[:3]:
        mask = binary[y0:y1, x0:x1] > 0
        ys, xs = np.nonzero(mask)
        if len(xs) == 0:
            continue
        mask = mask[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
        y0, x0 = y0 + ys.min(), x0 + xs.min()
        piece = np.full(mask.shape, 255, np.uint8)
        piece[mask] = cell[y0:y0 + mask.shape[0], x0:x0 + mask.shape[1]][mask]
        digits.append(piece)
    return digits


def _pieces(cell: np.ndarray) -> tuple[np.ndarray, list[list[int]]] | None:
    """The cell's ink (binary) and the boxes of its digits, left to right; None: an empty cell."""
    import cv2

    h, w = cell.shape
    if h < 8 or w < 8:
        return None
    blur = cv2.GaussianBlur(cell, (3, 3), 0)
    _t, binary = cv2.threshold(blur, 0, 255, cv2.THRESH_BINARY_INV + cv2.THRESH_OTSU)
    paper_level = float(np.percentile(cell, 75))
    strong = int((cell < paper_level - 90).sum())
    if strong < max(12, cell.size * 0.002):
        return None  # nothing clearly darker than the paper's own grain: an empty cell
    count, _labels, stats, _c = cv2.connectedComponentsWithStats(binary, connectivity=8)
    boxes = []
    for k in range(1, count):
        x, y, bw, bh, area = (int(v) for v in stats[k])
        if area < max(6, h * w * 0.004) or bh < h * 0.22:
            continue  # a speck, or a minus sign (flat)
        if (bw > w * 0.9 and area < bw * bh * 0.3) or (bh > h * 0.92 and bw < w * 0.06):
            continue  # the remains of a grid line (a digit may run from the cell's top to its bottom)
        if bw <= max(3, w * 0.04) and (x == 0 or x + bw >= w) and bh > h * 0.6:
            continue  # a cell's own side, straight and thin at its edge
        boxes.append([x, y, x + bw, y + bh])
    boxes.sort()
    merged: list[list[int]] = []
    for b in boxes:  # strokes that overlap in x belong to one digit
        if merged and b[0] < merged[-1][2] - 0.35 * (b[2] - b[0]):
            m = merged[-1]
            merged[-1] = [min(m[0], b[0]), min(m[1], b[1]), max(m[2], b[2]), max(m[3], b[3])]
        else:
            merged.append(b)
    return (binary, merged) if merged else None


def _conv(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    """A valid convolution: x (batch, channels, h, w), w (out, channels, k, k) → (batch, out, h-k+1, w-k+1)."""
    k = w.shape[2]
    windows = np.lib.stride_tricks.sliding_window_view(x, (k, k), axis=(2, 3))  # b, c, h', w', k, k
    out = np.einsum("bchwij,ocij->bohw", windows, w, optimize=True)
    return np.asarray(out + b[None, :, None, None])


def _pool(x: np.ndarray) -> np.ndarray:
    b, c, h, w = x.shape
    return np.asarray(x[:, :, :h // 2 * 2, :w // 2 * 2].reshape(b, c, h // 2, 2, w // 2, 2).max(axis=(3, 5)))


class Model:
    """A small convolutional network (two convolutions with pooling, two dense layers), run in numpy."""

    def __init__(self, weights: Any) -> None:
        self.w = weights

    def log_probs(self, x: np.ndarray) -> np.ndarray:
        w = self.w
        maps: np.ndarray = x.reshape(-1, 1, SIZE, SIZE)
        maps = _pool(np.maximum(_conv(maps, w["c1"], w["c1b"]), 0))
        maps = _pool(np.maximum(_conv(maps, w["c2"], w["c2b"]), 0))
        flat: np.ndarray = maps.reshape(len(maps), -1)
        hidden = np.maximum(flat @ w["f1"].T + w["f1b"], 0)
        z = hidden @ w["f2"].T + w["f2b"]
        z = z - z.max(axis=1, keepdims=True)
        return np.asarray(z - np.log(np.exp(z).sum(axis=1, keepdims=True)))


LAYERS = ("c1", "c1b", "c2", "c2b", "f1", "f1b", "f2", "f2b")


@cache
def model() -> Model:
    with np.load(WEIGHTS) as data:
        return Model({k: data[k].astype(np.float32) for k in LAYERS})


def readings(cell: np.ndarray, top: int = 10, per_digit: int = 4) -> list[Reading]:
    """The likeliest numbers written in a cell, with their log-probabilities (an empty cell: None)."""
    ways = segmentations(cell)
    if not ways:
        return [Reading(None, 0.0)]
    pieces = [d for _prior, digits in ways for d in digits]
    if not pieces:
        return [Reading(None, 0.0)]
    lp = model().log_probs(np.stack([normalize(d) for d in pieces]))
    best: dict[int, float] = {}
    at = 0
    for k, (prior, digits) in enumerate(ways):  # the pieces as they fall: ``top`` readings; each cut: a few
        rows = lp[at:at + len(digits)]
        at += len(digits)
        choices = [sorted(((float(r[d]), d) for d in range(10)), reverse=True)[:per_digit] for r in rows]
        for score, ds in heapq.nlargest(top if k == 0 else 4, _combinations(choices)):
            value = int("".join(str(d) for d in ds))
            best[value] = max(best.get(value, -math.inf), score + prior)
    out = [Reading(v, s) for v, s in sorted(best.items(), key=lambda vs: -vs[1])]
    # a stray mark read as a digit: the cell may be empty after all (and 0 is written as nothing)
    out.append(Reading(None, min(r.score for r in out) - math.log(50)))
    return out


def _combinations(choices: list[list[tuple[float, int]]]) -> list[tuple[float, tuple[int, ...]]]:
    combos: list[tuple[float, tuple[int, ...]]] = [(0.0, ())]
    for options in choices:
        combos = [(s + ls, ds + (d,)) for s, ds in combos for ls, d in options]
    return combos
