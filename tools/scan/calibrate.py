"""What the reader's thresholds of sureness (kingsheet/scan/choose.py: SURE, STRETCH, FLOOR) cost
and save, measured on sheets by *training* hands (as photo_set.py writes them; held-out hands never
come here, so the bench's figures stay honest): every row read, with how sure its choice was by
each measure and whether it was right.

    python tools/scan/calibrate.py SHEETS FIRST_SEED OUT.jsonl [mnist|fonts]    # two processes

Each sheet is written with a pen drawn as the bench draws them and photographed in colour; the
last argument keeps to MNIST's training writers or to the training fonts (else a third of the
sheets are MNIST's, as in photo_set.py).

Each line: the template, the row, whether it is right and sure, the choice's share, how far the
rules went from the reader's first reading (stretch), the reading's log-probability (score), the
cells' alone on an ordered blank, and whether the game was changed from the row's own likeliest.
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
from multiprocessing import Pool
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(Path(__file__).resolve().parent)]

import photo_set  # noqa: E402

#: The bench's blanks (bench/bench.py: _ScanTally.TEMPLATES), read as the bench reads them.
TEMPLATES = ("blank-4", "symmetric", "short", "king-14", "ordered", "ordered-56")


def sheet_rows(seed: int) -> list[dict[str, object]]:
    from synth import filled_sheet, photograph, usual_pen

    from kingsheet.scan.reader import read_sheet

    rng = random.Random(seed)
    template = TEMPLATES[seed // 2 % len(TEMPLATES)]  # as the bench: each blank with and without totals
    hand = _HANDS[rng.randrange(len(_HANDS))]
    pages, truth = filled_sheet(template, hand, rng, totals=seed % 2 == 1, pen=usual_pen(rng))
    with tempfile.TemporaryDirectory() as d:
        paths = []
        for k, page in enumerate(pages):
            paths.append(Path(d) / f"p{k}.jpg")
            paths[-1].write_bytes(photograph(page, rng))
        sheet = read_sheet(paths)
    out = []
    for row, want in zip(sheet.rows, truth):
        choice = row.choice
        top = choice.options[0] if choice.options else None
        numbers = dict(choice.numbers)
        out.append({
            "seed": seed, "template": template, "hand": getattr(hand, "name", "mnist"), "row": row.number,
            "right": (row.game, row.cells) == tuple(want), "sure": choice.sure,
            "share": top.share if top else 0.0, "stretch": choice.stretch, "score": top.score if top else None,
            "cells_score": (top.score - numbers.get(top.game, 0.0)) if top else None,
            "first_cells": choice.first_cells, "changed_game": bool(top) and top.game != row.first_game,
            "settled_by_totals": sheet.totals is not None and row.number in sheet.totals.settled,
        })
    return out


_HANDS: list[object] = []


def _init(which: str) -> None:
    photo_set._init()
    from handwriting import DigitsHand

    _HANDS[:] = [h for h in photo_set._HANDS
                 if which == "all" or isinstance(h, DigitsHand) == (which == "mnist")]


def main() -> None:
    sheets, first, out = int(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3])
    which = sys.argv[4] if len(sys.argv) > 4 else "all"
    with Pool(2, initializer=_init, initargs=(which,)) as pool, out.open("w") as f:
        for rows in pool.imap_unordered(sheet_rows, range(first, first + sheets)):
            for row in rows:
                f.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
