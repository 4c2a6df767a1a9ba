"""A pen model: digits drawn as strokes, the way people in Russia (and the other countries where King
is played) learnt them from a school copybook (пропись) — a 1 with a long up-flag, a 7 crossed in
the middle, an open 4, a 9 with a straight tail, a 2 with a flat foot — each writer with a hand of
their own (slant, width, roundness, size, pressure, how the strokes join) and each digit a little
different every time it is written.

A digit is a few strokes, each a smooth curve (Catmull-Rom) through control points in a box one unit
tall and about 0.6 wide (y grows downwards). A writer moves each control point of each digit once
(their way of writing it), and every time they write it the points move again, less. The pen
draws the curve with a width of its own (a ball-point's or a gel pen's), darker where pressed.

Writers are numbered; WRITER_SPLITS keeps them apart by use, as the fonts are kept apart by
writer: the training writers teach, the validation writers choose, and the held-out writers only
ever fill the bench's photos. The shipped network (kingsheet/scan/MODEL.md) learnt from the training
writers; the bench's figures on this hand are on writers the reader never met.
"""

from __future__ import annotations

import random
from typing import NamedTuple

import numpy as np
from PIL import Image, ImageDraw, ImageFilter

Point = tuple[float, float]
Stroke = list[Point]

#: Each digit as its strokes, in the copybook's forms (ways a writer may take: a list of forms).
FORMS: dict[str, list[list[Stroke]]] = {
    "0": [[[(0.30, 0.0), (0.05, 0.2), (0.02, 0.55), (0.15, 0.92), (0.35, 1.0), (0.55, 0.8), (0.58, 0.4),
            (0.48, 0.08), (0.30, 0.0), (0.22, 0.05)]]],
    "1": [[[(0.05, 0.38), (0.25, 0.2), (0.45, 0.0), (0.43, 0.5), (0.40, 1.0)]],  # the long up-flag
          [[(0.15, 0.25), (0.45, 0.0), (0.42, 1.0)]]],
    "2": [[[(0.05, 0.25), (0.2, 0.02), (0.45, 0.0), (0.56, 0.2), (0.45, 0.45), (0.2, 0.72), (0.02, 1.0),
            (0.3, 0.98), (0.6, 1.0)]],  # a flat foot
          [[(0.05, 0.22), (0.25, 0.0), (0.5, 0.05), (0.52, 0.3), (0.3, 0.6), (0.05, 0.92), (0.12, 0.98),
            (0.2, 0.9), (0.35, 0.97), (0.6, 1.0)]]],  # a little loop at the turn
    "3": [[[(0.05, 0.12), (0.3, 0.0), (0.52, 0.12), (0.45, 0.38), (0.22, 0.48), (0.48, 0.55), (0.58, 0.8),
            (0.4, 1.0), (0.15, 0.98), (0.02, 0.85)]],
          [[(0.05, 0.0), (0.55, 0.0), (0.25, 0.42), (0.5, 0.52), (0.58, 0.8), (0.35, 1.0), (0.02, 0.88)]]],  # flat top
    "4": [[[(0.38, 0.0), (0.05, 0.62), (0.6, 0.62)], [(0.48, 0.18), (0.46, 1.0)]],  # open: the strokes apart
          [[(0.1, 0.0), (0.06, 0.6), (0.6, 0.6)], [(0.5, 0.0), (0.48, 1.0)]]],
    "5": [[[(0.55, 0.0), (0.12, 0.0)], [(0.12, 0.0), (0.08, 0.45), (0.35, 0.4), (0.57, 0.6), (0.52, 0.9),
                                         (0.3, 1.0), (0.05, 0.9)]],
          [[(0.12, 0.0), (0.08, 0.45), (0.35, 0.4), (0.57, 0.6), (0.52, 0.9), (0.3, 1.0), (0.05, 0.9)],
           [(0.12, 0.0), (0.58, 0.02)]]],
    "6": [[[(0.5, 0.02), (0.25, 0.2), (0.06, 0.55), (0.12, 0.92), (0.35, 1.0), (0.55, 0.82), (0.48, 0.56),
            (0.25, 0.52), (0.08, 0.66)]]],
    "7": [[[(0.02, 0.12), (0.06, 0.0), (0.6, 0.0), (0.38, 0.45), (0.22, 1.0)], [(0.12, 0.5), (0.55, 0.48)]],  # crossed
          [[(0.04, 0.0), (0.6, 0.0), (0.3, 0.55), (0.2, 1.0)], [(0.15, 0.5), (0.52, 0.5)]],
          [[(0.04, 0.0), (0.6, 0.0), (0.35, 0.5), (0.22, 1.0)]]],  # some writers leave it uncrossed
    "8": [[[(0.45, 0.1), (0.3, 0.0), (0.08, 0.12), (0.12, 0.35), (0.45, 0.6), (0.55, 0.85), (0.32, 1.0),
            (0.06, 0.85), (0.15, 0.6), (0.48, 0.35), (0.52, 0.12), (0.38, 0.02)]]],
    "9": [[[(0.55, 0.25), (0.45, 0.02), (0.2, 0.0), (0.05, 0.2), (0.15, 0.45), (0.4, 0.45), (0.55, 0.25),
            (0.52, 0.6), (0.48, 1.0)]],  # a straight tail
          [[(0.52, 0.2), (0.35, 0.0), (0.1, 0.08), (0.08, 0.35), (0.3, 0.48), (0.55, 0.3), (0.52, 0.05),
            (0.5, 0.5), (0.45, 1.0)]]],
    "-": [[[(0.0, 0.55), (0.35, 0.52)]]],
}

#: Writers by use: the first train, the next validate; HELD_OUT only fill the bench's photos.
WRITER_SPLITS = {"train": range(0, 2000), "validate": range(2000, 2400), "held_out": range(100_000, 100_400)}


class Writer(NamedTuple):
    """One person's hand: their forms and their way of writing each digit."""

    number: int
    slant: float  # a shear: x moves by slant × (1 - y)
    width: float  # how wide their digits are, against the copybook's
    size: float  # how tall, against the cell
    wobble: float  # how much a digit moves each time it is written
    thickness: float  # the pen's line, a share of the digit's height
    forms: dict[str, list[Stroke]]  # each digit as this writer makes it


def writer(number: int) -> Writer:
    """Writer ``number``, always the same hand for the same number."""
    rng = random.Random(f"pen-writer-{number}")
    way = rng.uniform(0.02, 0.06)  # how far their habits lie from the copybook
    forms = {}
    for ch, options in FORMS.items():
        strokes = rng.choice(options)
        forms[ch] = [[(x + rng.gauss(0, way), y + rng.gauss(0, way)) for x, y in stroke] for stroke in strokes]
    return Writer(number, rng.uniform(-0.05, 0.35), rng.uniform(0.75, 1.25), rng.uniform(0.55, 0.8),
                  rng.uniform(0.01, 0.035), rng.uniform(0.06, 0.12), forms)


def _curve(points: Stroke, steps: int = 12) -> list[Point]:
    """A Catmull-Rom curve through the points (a stroke of two points: the straight line)."""
    if len(points) < 3:
        return list(points)
    pts = [points[0], *points, points[-1]]
    out = []
    for i in range(1, len(pts) - 2):
        p0, p1, p2, p3 = (np.array(p) for p in pts[i - 1:i + 3])
        for t in np.linspace(0, 1, steps, endpoint=False):
            t2, t3 = t * t, t * t * t
            q = 0.5 * (2 * p1 + (-p0 + p2) * t + (2 * p0 - 5 * p1 + 4 * p2 - p3) * t2 + (-p0 + 3 * p1 - 3 * p2 + p3) * t3)
            out.append((float(q[0]), float(q[1])))
    out.append(points[-1])
    return out


def draw_number(hand: Writer, text: str, height: float, rng: random.Random, scale: int = 3
                ) -> Image.Image:
    """``text`` (digits, a leading minus) written by ``hand``, ``height`` pixels tall: dark on white,
    its own size; drawn ``scale`` times larger and shrunk, for the pen's soft edge."""
    h = height * scale
    advance = 0.72 * hand.width * h
    widths = [(0.45 if ch == "-" else 1.0) * advance for ch in text]
    pad = int(0.3 * h)
    img = Image.new("L", (int(sum(widths) + 2 * pad + hand.slant * h), int(h + 2 * pad)), 255)
    draw = ImageDraw.Draw(img)
    line = max(2, round(hand.thickness * h * rng.uniform(0.85, 1.15)))
    x = pad
    for ch, w in zip(text, widths):
        for stroke in hand.forms.get(ch, []):
            moved = [(px + rng.gauss(0, hand.wobble), py + rng.gauss(0, hand.wobble)) for px, py in stroke]
            path = [(x + (px * hand.width + hand.slant * (1 - py) * 0.9) * h, pad + py * h) for px, py in _curve(moved)]
            draw.line(path, fill=rng.randint(0, 40), width=line, joint="curve")
            r = line / 2  # round ends, as a ball-point leaves them
            for ex, ey in (path[0], path[-1]):
                draw.ellipse((ex - r, ey - r, ex + r, ey + r), fill=rng.randint(0, 40))
        x += w + rng.uniform(-0.03, 0.08) * h
    img = img.filter(ImageFilter.GaussianBlur(scale * 0.4))
    return img.resize((max(1, img.width // scale), max(1, img.height // scale)), Image.LANCZOS)


class PenHand:
    """Writers of the pen model as a hand: each number is written by one of them (a sheet's numbers
    by turns, as the table's scorekeeper changes), placed in the cell as people place it."""

    def __init__(self, name: str, writers: range | list[int]) -> None:
        self.name = name
        self.writers = [writer(n) for n in writers]

    def write(self, page: Image.Image, box: tuple[float, float, float, float], text: str, rng: random.Random,
              ink: int = 20) -> None:
        x0, y0, x1, y1 = box
        h = y1 - y0
        hand = self.writers[rng.randrange(len(self.writers))]
        number = draw_number(hand, text, h * hand.size * rng.uniform(0.9, 1.1), rng)
        arr = np.asarray(number, np.float32)
        ys, xs = np.nonzero(arr < 200)
        if len(xs) == 0:
            return
        arr = arr[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
        free = max(0.0, (x1 - x0) - arr.shape[1] - 0.1 * h)
        px = int(x0 + 0.05 * h + free * rng.uniform(0.2, 1.0))  # people write towards the right
        py = int(y0 + (h - arr.shape[0]) * rng.uniform(0.3, 0.7))
        area = (px, py, min(page.width, px + arr.shape[1]), min(page.height, py + arr.shape[0]))
        if area[2] <= px or area[3] <= py:
            return
        under = np.asarray(page.crop(area), np.float32)
        dark = 255 - (255 - arr[:area[3] - py, :area[2] - px]) * (255 - ink) / 255
        page.paste(Image.fromarray(np.minimum(under, dark).astype(np.uint8)), area[:2])
