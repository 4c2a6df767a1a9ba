"""Validate `kingsheet scan` on hands it never trained on, without touching the bench's: sheets
filled in by the *first* half of MNIST's test digits (tools/scan/sources.py: MNIST_HALVES; the
bench reads the second half, written by other people), made and counted exactly as the bench makes
them (bench/bench.py). A choice made while building the reader (a threshold, a cut, a second
network) is made on these, so that the bench's figures stay measured on hands nothing was
chosen on.

    python tools/scan/validate.py SHEETS FIRST_SEED [--rows OUT.jsonl]   # sheets: two processes
    python tools/scan/validate.py --digits SHEETS FIRST_SEED OUT.npz     # the digits of such photos
    python tools/scan/validate.py --fonts …                               # either, by FRESH_FONTS
    python tools/scan/validate.py --pen …                                 # either, by the pen model's
    python tools/scan/validate.py --google …                              # either, by VALIDATE_GOOGLE
    python tools/scan/validate.py --sd1 …                                 # either, by MNIST's SD-1 writers
    python tools/scan/validate.py --crossed 0.05 …                        # sheets with numbers crossed out
    python tools/scan/validate.py --habit across=0.05 …                   # sheets with a habit of synth.HABITS
    python tools/scan/validate.py --table …                               # every habit at a table's rates
    python tools/scan/validate.py --weights OTHER.npz …                   # read with another network

``--fonts`` writes with the five Debian fonts of handwriting.FRESH_FONTS instead (sheet k by font
k mod 5): fonts the bench read as unseen until one of them was looked at closely, now a second
validation set, of fonts, beside MNIST's writers. ``--pen`` writes with the pen model's validation
writers (tools/scan/pen.py: WRITER_SPLITS["validate"], sheet k by writer k mod 400), never its
training or held-out ones. ``--google`` writes with the Google handwriting families of
sources.VALIDATE_GOOGLE (sheet k by family k mod their number; 18 since 2026-12-07, 23 before): neither GOOGLE's trained nor its held-out ones.
``--pen2`` writes with the second pen's validation writers (WRITER_SPLITS["validate-2"]), ``--more``
with the validation families of the Google fonts added on 2026-12-07 (sources.MORE_VALIDATE).
``--sd1`` writes with the first part of the second half instead (MNIST_HALVES: SD-1's high-school
students, whose hands the bench read far worse than SD-3's; other students than the bench's).

``--crossed SHARE`` crosses out that share of the numbers and writes the right one beside or above
(synth.cross_out, the bench's ``--scan-crossed``), to choose how such cells are read.
``--habit NAME=SHARE`` (again for more) gives the sheets a habit people have on paper (synth.HABITS,
the bench's ``--scan-habit``): digits touching the cell's line, a number across two cells, a coffee
ring, a fold.

``--rows`` keeps each sheet's rows as read beside what was written (JSON lines), to see what went
wrong. ``--digits`` cuts the digits of such photos as tools/scan/photo_set.py does the training
hands' (each labelled with what was written), to measure a network on photographed digits of
writers it never saw.
"""

from __future__ import annotations

import io
import json
import sys
from multiprocessing import Pool
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "bench"), str(Path(__file__).resolve().parent)]

NAMES = {"mnist": "MNIST test digits, first half (SD-3 writers: validation)",
         "fonts": "Debian fonts first used 2026-12-02 (FRESH_FONTS: validation)",
         "pen": "pen model, validation writers (copybook digits drawn as strokes)",
         "google": "Google Fonts handwriting, validation families (VALIDATE_GOOGLE)",
         "sd1": "MNIST test digits, second half's first part (SD-1 writers: validation)",
         "pen2": "second pen model, validation writers (other forms, a pressed line)",
         "more": "Google Fonts handwriting added 2026-12-07, validation families (MORE_VALIDATE)"}
KINDS = ("--fonts", "--pen", "--google", "--sd1", "--pen2", "--more")
_HAND: list[Any] = []


def _init(kind: str, weights: str = "") -> None:
    import kingsheet.scan  # noqa: F401 - before numpy: BLAS's threads as `kingsheet scan` has them

    if weights:  # another network's weights, to compare two on the same sheets
        import kingsheet.scan.digits

        kingsheet.scan.digits.WEIGHTS = Path(weights)
    from handwriting import FRESH_FONTS, DigitsHand, FontHand, available, install_hint
    from sources import MORE_VALIDATE, VALIDATE_GOOGLE, google_fonts, mnist

    if kind in ("google", "more"):
        names = VALIDATE_GOOGLE if kind == "google" else MORE_VALIDATE
        if len(fonts := google_fonts(names)) < len(names):
            sys.exit("Some of the validation Google fonts are not fetched: python tools/scan/sources.py")
        _HAND[:] = [FontHand(f) for f in fonts]
        return
    if kind in ("pen", "pen2"):
        from pen import WRITER_SPLITS, PenHand

        split = "validate" if kind == "pen" else "validate-2"
        _HAND[:] = [PenHand(f"pen-{n}", [n]) for n in WRITER_SPLITS[split]]
        return
    if kind == "fonts":
        if hint := install_hint(FRESH_FONTS):
            sys.exit(hint)
        _HAND[:] = [FontHand(f) for f in available(FRESH_FONTS)]
        return
    split = "t10k-sd1-validation" if kind == "sd1" else "t10k-validation"
    images, labels = mnist(split)
    if not len(images):
        sys.exit("MNIST is not fetched: python tools/scan/sources.py")
    _HAND[:] = [DigitsHand(f"mnist-{split}", images, labels)]


def _sheet(job: tuple[int, int, str, float, dict[str, float]]) -> tuple[Any, dict[str, Any]]:
    from bench import _ScanTally

    k, seed, name, crossed, habits = job
    tally = _ScanTally(name, crossed=crossed, habits=habits)
    return tally, tally.photo(_HAND[k % len(_HAND)], k, seed)


def _digits(seed: int) -> tuple[list[np.ndarray], list[int]]:
    import photo_set

    photo_set._HANDS[:] = _HAND
    xs, ys, _cells, _matched = photo_set.sheet_digits(seed)
    return xs, ys


def sheets(count: int, first: int, rows: Path | None, kind: str, crossed: float = 0.0,
           habits: dict[str, float] | None = None, weights: str = "") -> None:
    from bench import _ScanTally

    total = _ScanTally(NAMES[kind], crossed=crossed, habits=habits)
    with Pool(2, initializer=_init, initargs=(kind, weights)) as pool, \
            (rows.open("w", encoding="utf-8") if rows else io.StringIO()) as out:
        for tally, detail in pool.imap_unordered(_sheet, [(k, first + k, NAMES[kind], crossed, habits or {})
                                                                  for k in range(count)]):
            total.add(tally)
            out.write(json.dumps(detail, ensure_ascii=False) + "\n")
            out.flush()
    total.report(count)


def digits(count: int, first: int, out: Path, kind: str) -> None:
    xs: list[np.ndarray] = []
    ys: list[int] = []
    with Pool(2, initializer=_init, initargs=(kind,)) as pool:
        for x, y in pool.imap_unordered(_digits, range(first, first + count)):
            xs += x
            ys += y
    np.savez_compressed(out, x=np.stack(xs).astype(np.float16), y=np.array(ys))
    print(f"{len(xs)} digits from {count} photographed sheets → {out}")


def main() -> None:
    args = sys.argv[1:]
    kinds = [a[2:] for a in args if a in KINDS]
    if len(kinds) > 1:
        sys.exit(f"{', '.join(KINDS)} are validation sets: give one of them (or none, for MNIST's SD-3 writers).")
    kind = kinds[0] if kinds else "mnist"
    args = [a for a in args if a not in KINDS]
    crossed = 0.0
    if "--crossed" in args:
        at = args.index("--crossed")
        try:
            crossed = float(args[at + 1])
        except (IndexError, ValueError):
            sys.exit("--crossed takes the share of numbers crossed out, such as 0.05")
        del args[at:at + 2]
    from synth import HABITS, TABLE, TABLE_CROSSED

    weights = ""
    if "--weights" in args:
        at = args.index("--weights")
        if at + 1 >= len(args) or not Path(args[at + 1]).is_file():
            sys.exit("--weights takes a network's .npz file (digits.npz's shape)")
        weights = args[at + 1]
        del args[at:at + 2]
    habits: dict[str, float] = {}
    if "--table" in args:  # every habit at a table's rates, as the bench's --scan-table
        args.remove("--table")
        habits, crossed = dict(TABLE), max(crossed, TABLE_CROSSED)
    while "--habit" in args:
        at = args.index("--habit")
        name, _eq, share = (args[at + 1] if at + 1 < len(args) else "").partition("=")
        try:
            habits[name] = float(share)
        except ValueError:
            share = ""
        if not share or name not in HABITS or not 0 <= habits[name] <= 1:
            sys.exit(f"--habit takes NAME=SHARE, NAME one of {', '.join(HABITS)}, SHARE from 0 to 1 (such as across=0.05)")
        del args[at:at + 2]
    if args[:1] == ["--digits"] and len(args) == 4:
        digits(int(args[1]), int(args[2]), Path(args[3]), kind)
    elif len(args) in (2, 4) and (len(args) == 2 or args[2] == "--rows"):
        sheets(int(args[0]), int(args[1]), Path(args[3]) if len(args) == 4 else None, kind, crossed, habits, weights)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
