"""Digits as the reader meets them: cut by kingsheet's own pipeline from synthetic phone photos of
blanks filled in by *training* hands (TRAIN_FONTS, TRAIN_GOOGLE, MNIST's training writers), each
labelled with what was written. Clean renderings teach the shapes; these teach the photo: the
perspective, blur, JPEG, the straightening and the cell's cut.

    python tools/scan/photo_set.py SHEETS FIRST_SEED OUT.npz     # SHEETS photos, two processes
    python tools/scan/photo_set.py SHEETS FIRST_SEED OUT.npz --pen 0.3 [--pen-split validate]

``--more``: the hands added on 2026-12-07 as well (sources.MORE_TRAIN, the second pen's writers);
``--habits``: the sheets written and photographed with a table's habits (synth.TABLE).

``--pen SHARE``: that share of the sheets written by the pen model's writers (tools/scan/pen.py), of
its ``train`` split (``--pen-split validate`` for a set that checks, as photo-check.npz does); the
shipped weights' third tune took 0.3 of each (kingsheet/scan/MODEL.md).

A cell whose ink falls into exactly as many pieces as digits were written gives its pieces, a
digit each, in order. Digits written touching (one piece) give the cut of them that the current
model finds likeliest to be what was written, if any is at all likely. Held-out hands never come
here.
"""

from __future__ import annotations

import io
import math
import random
import sys
from multiprocessing import Pool
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(Path(__file__).resolve().parent)]

from handwriting import TRAIN_FONTS, DigitsHand, FontHand, available  # noqa: E402
from sources import MORE_TRAIN, TRAIN_GOOGLE, google_fonts, mnist  # noqa: E402

#: The blanks written on: every kind of layout the reader knows (fixed, ordered, two pages).
TEMPLATES = ("blank-4", "symmetric", "short", "king-14", "ordered", "ordered-56", "minsk", "three-30", "five-40",
             "classic-52", "six-48")


def hands(pen: float = 0.0, pen_split: str = "train", more: bool = False) -> list[Any]:
    fonts = [FontHand(f) for f in available(TRAIN_FONTS) + google_fonts(TRAIN_GOOGLE + (MORE_TRAIN if more else []))]
    images, labels = mnist("train")
    writers = [DigitsHand("mnist-train", images, labels)] if len(images) else []
    out: list[Any] = fonts + writers * max(1, len(fonts) // 2)  # a third of the sheets by MNIST's writers
    if pen > 0:  # the pen model's writers of one split (never its held-out ones)
        from pen import WRITER_SPLITS, PenHand

        if pen_split not in ("train", "validate"):
            raise SystemExit(f"--pen-split {pen_split}: train or validate (the held-out writers only fill the bench)")
        many = max(1, round(len(out) * pen / (1 - pen)) if pen < 1 else len(out))
        splits = [pen_split, f"{pen_split}-2"] if more else [pen_split]  # --more: the second pen's writers too
        pens = []
        for split in splits:
            writers = WRITER_SPLITS[split]  # every writer of the split: each hand a group, a number each
            share = many // len(splits)
            pens += [PenHand(f"pen-{split}-{k}", list(writers[k::share])) for k in range(share)]
        out = ([] if pen >= 1 else out) + pens
    return out


def sheet_digits(seed: int, misses: list[tuple[str, list[int]]] | None = None
                 ) -> tuple[list[np.ndarray], list[int], int, int]:
    """One photographed sheet's digits (normalised for the network) and labels; also how many
    written cells there were (a zero left empty not counted) and how many of them divided as
    written; ``misses``: each cell that did not, its text and its divisions' digit counts."""
    import tempfile

    from synth import filled_sheet, photograph

    from kingsheet.core.rules import Order
    from kingsheet.files.templates import load_rules
    from kingsheet.render.pdf import blank_boxes, ordered_games
    from kingsheet.scan.digits import _divisions, _upright, model, normalize
    from kingsheet.scan.page import cells_of, read_page

    rng = random.Random(seed)
    all_hands = _HANDS
    template = TEMPLATES[rng.randrange(len(TEMPLATES))]
    rules = load_rules(template)
    pages, truth = filled_sheet(template, all_hands[rng.randrange(len(all_hands))], rng,
                                deals=None if rng.random() < 0.7 else rng.randint(1, len(rules.slots)),
                                habits=_HABITS or None)
    layout, _totals = blank_boxes(rules, False, "ru")
    numbers = {gid: k for k, gid in enumerate(ordered_games(rules), 1)}
    xs: list[np.ndarray] = []
    ys: list[int] = []
    cells = matched = 0
    with tempfile.TemporaryDirectory() as d:
        read = {}
        for k, page in enumerate(pages):
            path = Path(d) / f"p{k}.jpg"
            path.write_bytes(photograph(page, rng, habits=_HABITS or None))
            try:
                code, straight = read_page(path)
            except Exception:  # noqa: BLE001 - a photo the reader refuses teaches nothing
                continue
            read[code.page] = straight
    for n, written in enumerate(truth, 1):
        boxes = layout[n]
        if boxes.page not in read:
            continue
        texts = [str(abs(v)) for v in written.points]
        wanted = list(boxes.cells)
        if rules.order is not Order.FIXED:
            texts.insert(0, str(numbers[written.game]))
            wanted.insert(0, boxes.game)
        for text, cell in zip(texts, cells_of(read[boxes.page], wanted)):
            cells += 1
            ways = _divisions(cell)
            upright = _upright(cell)
            if upright is not None:
                ways += _divisions(upright)[:1]
            if not ways and text == "0":
                cells -= 1  # a zero left empty, as the blank allows
                continue
            got = False
            for prior, digits, _whole in ways:
                if prior == 0.0 and len(digits) == len(text):  # the plain division, as written
                    xs += [normalize(p) for p in digits]
                    ys += [int(ch) for ch in text]
                    got = True
            matched += got
            cut = [np.stack([normalize(p) for p in digits]) for prior, digits, _whole in ways
                   if prior < 0 and len(digits) == len(text) > 1]
            if not got and cut:  # touching digits: the cut the model itself finds likeliest for the truth
                want = [int(ch) for ch in text]
                fits = [float(model().log_probs(c)[range(len(want)), want].sum()) for c in cut]
                best = int(np.argmax(fits))
                if fits[best] > len(want) * math.log(0.05):
                    xs += list(cut[best])
                    ys += want
            if not got and misses is not None:
                misses.append((text, [len(way.digits) for way in ways]))
    return xs, ys, cells, matched


_HANDS: list[Any] = []
#: The habits the sheets are written and photographed with (--habits): none, or synth.TABLE's but a
#: number across two cells (which cell it belongs to is not the network's to learn).
_HABITS: dict[str, float] = {}


def _init(pen: float = 0.0, pen_split: str = "train", more: bool = False, habits: bool = False) -> None:
    _HANDS[:] = hands(pen, pen_split, more)
    if habits:
        from synth import TABLE

        _HABITS.update({name: share for name, share in TABLE.items() if name != "across"})


def main() -> None:
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sheets", type=int)
    ap.add_argument("first", type=int)
    ap.add_argument("out", type=Path)
    ap.add_argument("--pen", type=float, default=0.0, help="the share of sheets by the pen model's writers")
    ap.add_argument("--pen-split", default="train", choices=("train", "validate"))
    ap.add_argument("--more", action="store_true", help="the hands added on 2026-12-07 too: sources.MORE_TRAIN's "
                    "families and the second pen's writers (pen.SECOND_FORMS) beside the first's")
    ap.add_argument("--habits", action="store_true", help="every sheet with the habits of a table (synth.TABLE, "
                    "but a number across two cells) at their rates")
    args = ap.parse_args()
    sheets, first, out = args.sheets, args.first, args.out
    xs: list[np.ndarray] = []
    ys: list[int] = []
    cells = matched = 0
    with Pool(2, initializer=_init, initargs=(args.pen, args.pen_split, args.more, args.habits)) as pool:
        for k, (x, y, c, m) in enumerate(pool.imap_unordered(sheet_digits, range(first, first + sheets)), 1):
            xs += x
            ys += y
            cells += c
            matched += m
            if k % 50 == 0:
                print(f"{k}/{sheets} sheets, {len(xs)} digits; cells divided as written {matched / cells:.1%}",
                      flush=True)
    buf = io.BytesIO()
    np.savez_compressed(buf, x=np.stack(xs).astype(np.float16), y=np.array(ys))
    out.write_bytes(buf.getvalue())
    print(f"{len(xs)} digits from {sheets} photographed sheets → {out}; cells divided as written {matched / cells:.1%}")


if __name__ == "__main__":
    main()
