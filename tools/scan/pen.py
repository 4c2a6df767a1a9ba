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
from handwriting import place
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

#: A second pen (2026-12-07, issue 68: an outside trial's new stroke pen read far worse than this
#: model's own held-out writers): other forms beside the copybook's, as people's hands drift from it
#: (a 1 as a bare stick or with a foot, a closed 4, a 7 with a hooked start, a 9 with a curled tail, an
#: 8 of two rings, an angular 2), each writer further from the forms, a wider range of slant, width and
#: size, and a pen whose line swells and thins as it is pressed (a fountain or a felt-tip's).
SECOND_FORMS: dict[str, list[list[Stroke]]] = {
    "0": [[[(0.35, 0.0), (0.1, 0.15), (0.05, 0.6), (0.2, 0.98), (0.42, 0.95), (0.56, 0.55), (0.5, 0.12),
            (0.35, 0.0), (0.2, 0.1)]],
          [[(0.45, 0.05), (0.2, 0.0), (0.04, 0.4), (0.1, 0.9), (0.35, 1.0), (0.55, 0.7), (0.52, 0.2),
            (0.38, 0.02)]]],  # open at the top, the end past the start
    "1": [[[(0.33, 0.0), (0.3, 1.0)]],  # a bare stick
          [[(0.1, 0.3), (0.38, 0.0), (0.36, 1.0)], [(0.12, 1.0), (0.58, 1.0)]],  # a flag and a foot
          [[(0.05, 0.4), (0.3, 0.15), (0.45, 0.0), (0.4, 1.0)]]],
    "2": [[[(0.05, 0.18), (0.3, 0.0), (0.55, 0.14), (0.5, 0.35), (0.04, 1.0), (0.6, 0.98)]],  # angular
          [[(0.02, 0.3), (0.15, 0.05), (0.42, 0.0), (0.58, 0.22), (0.4, 0.55), (0.05, 0.95), (0.25, 0.9),
            (0.62, 1.0)]]],
    "3": [[[(0.04, 0.1), (0.3, 0.0), (0.5, 0.15), (0.4, 0.42), (0.2, 0.5), (0.42, 0.56), (0.56, 0.78),
            (0.42, 0.98), (0.12, 1.0)]],
          [[(0.05, 0.05), (0.5, 0.02), (0.3, 0.4)], [(0.3, 0.4), (0.55, 0.6), (0.5, 0.92), (0.25, 1.0),
                                                     (0.03, 0.9)]]],
    "4": [[[(0.45, 0.0), (0.02, 0.66), (0.62, 0.66)], [(0.45, 0.0), (0.45, 1.0)]],  # closed
          [[(0.08, 0.0), (0.05, 0.55), (0.55, 0.52)], [(0.52, 0.1), (0.5, 1.0)]]],
    "5": [[[(0.1, 0.0), (0.06, 0.42), (0.3, 0.36), (0.55, 0.55), (0.52, 0.88), (0.28, 1.0), (0.02, 0.88)],
           [(0.1, 0.0), (0.55, -0.03)]],
          [[(0.55, 0.0), (0.15, 0.02), (0.1, 0.45), (0.45, 0.45), (0.58, 0.7), (0.4, 1.0), (0.1, 0.95)]]],
    "6": [[[(0.48, 0.0), (0.15, 0.45), (0.08, 0.8), (0.3, 1.0), (0.52, 0.85), (0.45, 0.6), (0.2, 0.6),
            (0.1, 0.75)]],
          [[(0.55, 0.1), (0.35, 0.0), (0.1, 0.25), (0.05, 0.7), (0.25, 1.0), (0.5, 0.9), (0.55, 0.65),
            (0.35, 0.5), (0.1, 0.6)]]],
    "7": [[[(0.03, 0.18), (0.04, 0.0), (0.58, 0.0), (0.35, 0.5), (0.25, 1.0)]],  # a hooked start
          [[(0.02, 0.02), (0.6, 0.0), (0.45, 0.3), (0.3, 0.65), (0.28, 1.0)], [(0.18, 0.52), (0.52, 0.5)]],
          [[(0.05, 0.0), (0.55, 0.04), (0.4, 0.45), (0.32, 1.0)]]],
    "8": [[[(0.3, 0.0), (0.1, 0.12), (0.15, 0.35), (0.3, 0.45), (0.45, 0.32), (0.48, 0.1), (0.3, 0.0)],
           [(0.3, 0.45), (0.06, 0.6), (0.08, 0.9), (0.32, 1.0), (0.55, 0.85), (0.52, 0.58), (0.3, 0.45)]],
          [[(0.5, 0.12), (0.3, 0.0), (0.1, 0.1), (0.2, 0.4), (0.5, 0.65), (0.5, 0.92), (0.28, 1.0),
            (0.08, 0.85), (0.2, 0.55), (0.45, 0.38), (0.52, 0.15)]]],
    "9": [[[(0.52, 0.2), (0.32, 0.0), (0.08, 0.12), (0.12, 0.42), (0.48, 0.38), (0.52, 0.65), (0.4, 0.95),
            (0.12, 0.95)]],  # a curled tail
          [[(0.5, 0.1), (0.3, 0.0), (0.05, 0.18), (0.15, 0.45), (0.5, 0.35)], [(0.52, 0.0), (0.5, 1.0)]]],
    "-": [[[(0.0, 0.55), (0.45, 0.5)]], [[(0.05, 0.5), (0.3, 0.5)]]],
}

#: Writers by use: the first train, the next validate; HELD_OUT only fill the bench's photos. The
#: second pen's writers ("-2") are numbered apart, so that the first pen's stay the hands they were.
WRITER_SPLITS = {"train": range(0, 2000), "validate": range(2000, 2400), "held_out": range(100_000, 100_400),
                 "train-2": range(200_000, 202_000), "validate-2": range(202_000, 202_400),
                 "held_out-2": range(300_000, 300_400)}
SECOND = range(200_000, 400_000)


class Writer(NamedTuple):
    """One person's hand: their forms and their way of writing each digit."""

    number: int
    slant: float  # a shear: x moves by slant × (1 - y)
    width: float  # how wide their digits are, against the copybook's
    size: float  # how tall, against the cell
    wobble: float  # how much a digit moves each time it is written
    thickness: float  # the pen's line, a share of the digit's height
    forms: dict[str, list[Stroke]]  # each digit as this writer makes it
    pressure: float = 0.0  # how much the line swells and thins along a stroke (the first pen: none)


def writer(number: int) -> Writer:
    """Writer ``number``, always the same hand for the same number."""
    if number in SECOND:
        return _second_writer(number)
    rng = random.Random(f"pen-writer-{number}")
    way = rng.uniform(0.02, 0.06)  # how far their habits lie from the copybook
    forms = {}
    for ch, options in FORMS.items():
        strokes = rng.choice(options)
        forms[ch] = [[(x + rng.gauss(0, way), y + rng.gauss(0, way)) for x, y in stroke] for stroke in strokes]
    return Writer(number, rng.uniform(-0.05, 0.35), rng.uniform(0.75, 1.25), rng.uniform(0.55, 0.8),
                  rng.uniform(0.01, 0.035), rng.uniform(0.06, 0.12), forms)


def _second_writer(number: int) -> Writer:
    """A writer of the second pen: the copybook's forms or the others, further from them."""
    rng = random.Random(f"pen-2-writer-{number}")
    way = rng.uniform(0.03, 0.08)
    forms = {}
    for ch in FORMS:
        strokes = rng.choice(FORMS[ch] + SECOND_FORMS[ch] * 2)
        forms[ch] = [[(x + rng.gauss(0, way), y + rng.gauss(0, way)) for x, y in stroke] for stroke in strokes]
    return Writer(number, rng.uniform(-0.15, 0.45), rng.uniform(0.6, 1.4), rng.uniform(0.45, 0.85),
                  rng.uniform(0.01, 0.045), rng.uniform(0.045, 0.13), forms, rng.uniform(0.2, 0.6))


def _pressed(draw: ImageDraw.ImageDraw, path: list[Point], line: int, pressure: float, rng: random.Random,
             fill: int) -> None:
    """A stroke whose line swells and thins as the pen is pressed, thinner at its ends."""
    phase, turns = rng.uniform(0, 6.3), rng.uniform(0.5, 2.0)
    n = len(path)
    for k in range(n - 1):
        t = k / max(1, n - 2)
        swell = 1 + pressure * np.sin(phase + turns * 6.28 * t) - pressure * 0.6 * (abs(2 * t - 1) ** 4)
        w = max(1.0, line * max(0.35, swell))
        (ax, ay), (bx, by) = path[k], path[k + 1]
        draw.line([(ax, ay), (bx, by)], fill=fill, width=round(w))
        draw.ellipse((bx - w / 2, by - w / 2, bx + w / 2, by + w / 2), fill=fill)


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
            if hand.pressure:
                _pressed(draw, path, line, hand.pressure, rng, rng.randint(0, 40))
                continue
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
              ink: int = 20, centred: bool = False) -> None:
        x0, y0, x1, y1 = box
        h = y1 - y0
        hand = self.writers[rng.randrange(len(self.writers))]
        number = draw_number(hand, text, h * hand.size * rng.uniform(0.9, 1.1), rng)
        arr = np.asarray(number, np.float32)
        ys, xs = np.nonzero(arr < 200)
        if len(xs) == 0:
            return
        arr = arr[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
        px = int(place(x0, x1, h, arr.shape[1], rng, centred))  # people write towards the right
        py = int(y0 + (h - arr.shape[0]) * rng.uniform(0.3, 0.7))
        area = (px, py, min(page.width, px + arr.shape[1]), min(page.height, py + arr.shape[0]))
        if area[2] <= px or area[3] <= py:
            return
        under = np.asarray(page.crop(area), np.float32)
        dark = 255 - (255 - arr[:area[3] - py, :area[2] - px]) * (255 - ink) / 255
        page.paste(Image.fromarray(np.minimum(under, dark).astype(np.uint8)), area[:2])
