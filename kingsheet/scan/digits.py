"""Handwritten digits in a cell: cut into digits, each read by a small network that runs in numpy.

The weights (``digits.npz``, built by ``tools/scan/train.py``; sources in MODEL.md) ship in the
package: nothing is downloaded. A cell gives several readings with their log-probabilities; the
rules choose among them (``choose``).
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Iterable, Sequence
from functools import cache
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from kingsheet.scan.choose import FLOOR, Reading

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


#: How much less likely another division of the ink is than the plain one (a log-probability).
SPLIT_COST = math.log(4)

Piece = tuple[int, int, int, int, frozenset[int]]  # a box (x0, y0, x1, y1) and the ink components in it


class Way(NamedTuple):
    """One way a cell's ink may divide into digits: its log-prior, the digits' images, and when it
    cuts one piece of the plain division in two or three, that piece whole (its reading says how
    likely it is to be "not one digit")."""

    prior: float
    digits: list[np.ndarray]
    whole: np.ndarray | None = None


def segmentations(cell: np.ndarray, narrow: bool = False) -> list[Way]:
    """The ways a cell may divide into digits (_ways); in a cell where a number was crossed out and
    written again (crossed_out), first the ways without the number struck through, then those with
    it, each STRUCK_COST less likely."""
    return _segmentations(cell, narrow, crossed_out(cell))


def _segmentations(cell: np.ndarray, narrow: bool, struck: np.ndarray | None) -> list[Way]:
    """segmentations, the number struck through (crossed_out) already found."""
    if struck is None:
        return _ways(cell, narrow)
    return [*_ways(_unstruck(cell, struck), narrow),
            *(way._replace(prior=way.prior - STRUCK_COST) for way in _ways(cell, narrow))]


def _paper_level(cell: np.ndarray) -> float:
    """``float(np.percentile(cell, 75))`` of a grey cell, the same number (numpy's linear rule,
    its rounding too), from the cell's counts of each of the 256 levels: np.percentile's own
    overhead was a tenth of a photo's time, over a thousand small cells a page."""
    if cell.dtype != np.uint8 or cell.size == 0:
        return float(np.percentile(cell, 75))
    cum = np.cumsum(np.bincount(cell.ravel(), minlength=256))
    n = int(cum[-1])
    pos = 0.75 * (n - 1)
    lo = int(pos)
    hi = min(lo + 1, n - 1)
    a, b = float(np.searchsorted(cum, lo, side="right")), float(np.searchsorted(cum, hi, side="right"))
    t = pos - lo
    return b - (b - a) * (1 - t) if t >= 0.5 else a + (b - a) * t


def _of(labels: np.ndarray, ids: Iterable[int]) -> np.ndarray:
    """``np.isin(labels, list(ids))`` for a component image's labels, by a table (far quicker for the
    few ids of a piece)."""
    table = np.zeros(int(labels.max(initial=0)) + 1, bool)
    keep = [i for i in ids if 0 <= i < len(table)]
    table[keep] = True
    return np.asarray(table[labels])


def _unstruck(cell: np.ndarray, struck: np.ndarray) -> np.ndarray:
    """The cell with the ink under a mask taken away (a number crossed out, crossed_out's; a line of
    dots, _dots'): paper where it was."""
    return np.where(struck, np.uint8(_paper_level(cell)), cell).astype(np.uint8)


def read_whole(cell: np.ndarray, struck: np.ndarray) -> tuple[frozenset[int], frozenset[int]]:
    """A cell where crossed_out found a number struck through: the numbers its ink may read as whole
    (the "rule through it" a digit's own stroke), and those it may read as once the struck one is
    taken away: each whole reading as likely as a row's choice must be by the reader (choose.FLOOR),
    each of the others at least WITHOUT_STRUCK."""
    whole, without = readings_of([cell, _unstruck(cell, struck)], struck=[None, None])
    return (frozenset(r.value for r in whole if r.value is not None and r.score >= FLOOR),
            frozenset(r.value for r in without if r.value is not None and r.score >= WITHOUT_STRUCK))


#: How likely a reading of a cell with its struck number taken away must be to count (read_whole): a
#: row whose choice it is was read as a correction.
WITHOUT_STRUCK = math.log(0.01)


#: How much less likely a reading of a cell is that takes in a number struck through (a log).
STRUCK_COST = 2 * SPLIT_COST
#: A straight stroke through a piece of ink (as wide as STRUCK_WIDE or STRUCK_ONE say), at least this share
#: of its width long, within STRUCK_ANGLE degrees of level and across its middle (between STRUCK_BAND
#: of its height), crosses it out. A 7's bar is at its top, a 2's foot at its bottom, a 4's bar is
#: short, and a minus sign alone is no piece (too flat); a number crossed out is ruled through.
STRUCK_LINE = 0.85
#: A piece at least STRUCK_WIDE times as wide as tall may be a number ruled through (unless the network
#: reads it surely as one digit); one at least STRUCK_ONE times, a digit ruled through past both its ends.
STRUCK_WIDE = 1.2
STRUCK_ONE = 0.8
STRUCK_ANGLE = 30.0
STRUCK_BAND = (0.3, 0.75)


def crossed_out(cell: np.ndarray) -> np.ndarray | None:
    """Where a number was crossed out (its ink, as a mask of the cell), when another number stands
    beside or above it, as tall as a digit; None in a cell without one."""
    import cv2

    found = _components(cell)
    if found is None:
        return None
    labels, boxes, pale = found
    h, w = cell.shape
    struck: set[int] = set()
    tall = max((y1 - y0 for _x0, y0, _x1, y1, _ids in boxes), default=0)
    for x0, y0, x1, y1, ids in boxes:
        bw, bh = x1 - x0, y1 - y0
        if bh < max(0.25 * h, SHORT * tall) or bw < STRUCK_ONE * bh or (x0 == 0 and x1 >= w):
            continue  # a number crossed out is as tall as the digits beside it (not a 3's top come apart)
        ink = _of(labels[y0:y1, x0:x1], ids).astype(np.uint8) * 255
        lines = cv2.HoughLinesP(ink, 1, np.pi / 180, threshold=max(10, bw // 2),
                                minLineLength=int(STRUCK_LINE * bw), maxLineGap=3)
        for lx0, ly0, lx1, ly1 in ([] if lines is None else lines.reshape(-1, 4).tolist()):
            angle = abs(math.degrees(math.atan2(ly1 - ly0, lx1 - lx0)))
            if min(angle, 180 - angle) >= STRUCK_ANGLE or not STRUCK_BAND[0] < (ly0 + ly1) / 2 / bh < STRUCK_BAND[1]:
                continue
            line, thick = (int(lx0), int(ly0), int(lx1), int(ly1)), max(3, round(0.12 * bh))
            if _ruled_past(ink > 0, line, thick) or (bw >= STRUCK_WIDE * bh and _through_digits(ink > 0, line, thick)
                                                     and not _one_digit(cell, ink > 0, x0, y0)):
                struck |= ids
                break
    rest = [b for b in boxes if not b[4] & struck and b[3] - b[1] >= 0.25 * h]
    if not struck or not rest:
        return None
    mask = _of(labels, struck)
    return None if pale and _joined_by_faint_ink(cell, mask) else mask


def _joined_by_faint_ink(cell: np.ndarray, mask: np.ndarray) -> bool:
    """Whether a piece taken for a number crossed out is digits that only a pale pen's faint ink joins
    (two digits as tall as it, apart without it: "04" written close in a grey pen, blurred by the
    photo, whose 4's bar then looks like a rule through them). A rule through a number joins them
    with clear ink. Asked of a pale cell only."""
    found = _components(cell, join_faint=False)
    if found is None:
        return False
    labels, boxes, _pale = found
    ys = np.nonzero(mask.any(axis=1))[0]
    tall = SHORT * (ys.max() - ys.min() + 1)
    inside = [b for b in boxes if b[3] - b[1] >= tall and float(mask[labels == min(b[4])].mean()) > 0.5]
    return len(inside) >= 2


def _through_digits(ink: np.ndarray, line: tuple[int, int, int, int], thick: int) -> bool:
    """Whether a straight stroke runs through written digits, not beside them: along each half of it
    the piece has ink both above and below the stroke in at least STRUCK_ACROSS of the columns. A
    minus sign written touching the 1 after it is a stroke with such ink at one end only."""
    x0, y0, x1, y1 = line if line[0] <= line[2] else (line[2], line[3], line[0], line[1])
    if x1 - x0 < 4:
        return False
    rows = np.arange(ink.shape[0])
    off = []
    for x in range(x0, x1 + 1):
        at = y0 + (y1 - y0) * (x - x0) / (x1 - x0)
        off.append(bool((ink[:, x] & (rows < at - thick)).any() and (ink[:, x] & (rows > at + thick)).any()))
    half = len(off) // 2
    return min(sum(off[:half]) / half, sum(off[half:]) / (len(off) - half)) >= STRUCK_ACROSS


#: The share of each half of a stroke along which a number crossed out has ink off the stroke.
STRUCK_ACROSS = 0.3


def _ruled_past(ink: np.ndarray, line: tuple[int, int, int, int], thick: int) -> bool:
    """Whether a straight stroke runs on past the rest of a piece's ink at both ends, each by at least
    RULED_PAST of the piece's height: a rule through a number, drawn from before it to beyond it (a
    digit's own straight stroke turns into the rest of the digit at one end at least)."""
    x0, y0, x1, y1 = line if line[0] <= line[2] else (line[2], line[3], line[0], line[1])
    h, w = ink.shape
    rows, cols = np.arange(h)[:, None], np.arange(w)[None, :]
    at = y0 + (y1 - y0) * (cols - x0) / max(1, x1 - x0)
    off = ink & (np.abs(rows - at) > thick)  # the ink off the stroke: the digits it crosses
    xs = np.nonzero(off.any(axis=0))[0]
    past = max(2.0, RULED_PAST * h)
    if len(xs) == 0 or xs.min() - x0 < past or x1 - xs.max() < past:
        return False
    span = slice(int(xs.min()), int(xs.max()) + 1)  # and through them: ink above it and below it
    return bool(((off & (rows < at))[:, span].any(axis=0) & (off & (rows > at))[:, span].any(axis=0)).mean()
                >= STRUCK_ACROSS)


#: How far a rule runs past the number it crosses out, at each end, at least (of the piece's height).
RULED_PAST = 0.1


def _one_digit(cell: np.ndarray, mask: np.ndarray, x0: int, y0: int) -> bool:
    """Whether the network reads a piece as one digit, sure of it (ONE_DIGIT): a wide 0, 2, 5, 6 or 8
    whose stroke runs straight for a while is such a piece, a number ruled through is not (the
    network calls it "not one digit", or is unsure)."""
    piece = _ink(cell, mask, x0, y0)
    if piece is None:
        return False
    return float(_read_pieces(normalize(piece)[None])[0, :NOT_ONE].max()) >= math.log(ONE_DIGIT)


#: A piece the network reads as one digit at least this surely is a digit, not a number crossed out.
#: On the validation sheets' cells taken for crossed out (MNIST's first-half writers and FRESH_FONTS,
#: seeds 19500–19529 and 19700–19729): the single digits at 0.989 or more, 73 of 76 numbers ruled
#: through under 0.9.
ONE_DIGIT = 0.9


def _ways(cell: np.ndarray, narrow: bool = False) -> list[Way]:
    """The ways a cell may divide into digits, each with its log-prior: as its ink's pieces fall
    (strokes that overlap left to right taken for one digit); with such strokes kept apart (digits
    of a slanted hand overlap); with a piece at least half as wide as tall cut in two, straight
    down where its ink is thinnest and along the path of least ink (two digits written touching;
    as likely as TOUCHING says), or a very wide one in three; and all of these again with a slanted
    hand stood upright. ``narrow``: a piece narrower than that is cut in two as well when both
    halves are as tall as it (11 written with its ones touching)."""
    out = _divisions(cell, narrow)
    upright = _upright(cell)
    if upright is not None:
        out += [way._replace(prior=way.prior - SPLIT_COST / 2) for way in _divisions(upright, narrow)]
    return out


#: Slants tried (x moves this much a pixel up); a hand leaning more than MIN_SLANT is stood upright.
SLANTS = np.linspace(-0.7, 0.7, 15)
MIN_SLANT = 0.15


def _upright(cell: np.ndarray) -> np.ndarray | None:
    """The cell with its handwriting's slant taken out (the shear that makes the ink's columns
    most concentrated), or None when it hardly leans."""
    import cv2

    ink = cell < min(200.0, _paper_level(cell) - 60)
    ys, xs = np.nonzero(ink)
    if len(xs) < 20:
        return None
    h, w = cell.shape
    mid = h / 2
    best, slant = -1.0, 0.0
    for s in SLANTS:
        cols = np.bincount(np.round(xs + s * (ys - mid)).astype(np.int64) + w, minlength=3 * w)
        score = float((cols.astype(np.float64) ** 2).sum())
        if score > best:
            best, slant = score, float(s)
    if abs(slant) < MIN_SLANT:
        return None
    pad = int(abs(slant) * h / 2) + 2
    matrix = np.array([[1, slant, pad - slant * mid], [0, 1, 0]], np.float32)
    return np.asarray(cv2.warpAffine(cell, matrix, (w + 2 * pad, h), flags=cv2.INTER_LINEAR,
                                     borderMode=cv2.BORDER_REPLICATE))


def _divisions(cell: np.ndarray, narrow: bool = False) -> list[Way]:
    found = _pieces(cell)
    if found is None:
        return []
    labels, pieces, apart, pale = found
    out = _divisions_of(cell, narrow, labels, pieces, apart) + _dotted_ways(cell, narrow)
    # a pale pen's faint ink joins its hairlines to its strokes, and may join digits written close together
    # too (a grey pen's «158», blurred by the photo, one piece): the cell is divided without it as well
    unjoined = _pieces(cell, join_faint=False) if pale else None
    if unjoined is not None and len(unjoined[1]) > len(pieces):
        out += [way._replace(prior=way.prior - SPLIT_COST) for way in _divisions_of(cell, narrow, *unjoined[:3])]
    return out


def _divisions_of(cell: np.ndarray, narrow: bool, labels: np.ndarray, pieces: list[Piece], apart: list[Piece]
                  ) -> list[Way]:
    plain = _cut(cell, labels, pieces)
    out = [Way(0.0, plain)]
    if len(apart) > len(pieces):
        out.append(Way(-SPLIT_COST, _cut(cell, labels, apart)))
    for way in _without_short(pieces):
        out.append(Way(-SPLIT_COST, _cut(cell, labels, way)))
    for way in _joined_close(pieces):
        out.append(Way(-SPLIT_COST, _cut(cell, labels, way)))
    for k, (x0, y0, x1, y1, ids) in enumerate(pieces[:3]):
        w, h = x1 - x0, y1 - y0
        ink = _of(labels[y0:y1, x0:x1], ids)
        column_ink = ink.sum(axis=0)
        for parts in (2, 3):  # two or three digits written touching
            thin = parts == 2 and narrow and NARROW * h <= w < 0.7 * h and _two_strokes(labels, pieces[k])
            if (w < (TOUCHING[0][0] if parts == 2 else 1.3) * h and not thin) or len(pieces) + parts - 1 > 3:
                continue
            for choice in range(3 if parts == 2 else 1):  # two digits: the three thinnest places
                cuts = [x0]
                for m in range(1, parts):  # each cut where the ink is thin, near its share of the width
                    lo, hi = int(w * (m - 0.4) / parts), int(w * (m + 0.4) / parts) + 1
                    order = _thinnest(column_ink[lo:hi])
                    if choice >= len(order):
                        break
                    cuts.append(x0 + lo + order[choice])
                else:
                    cuts.append(x1)
                    split: list[Piece] = [(a, y0, b, y1, ids) for a, b in zip(cuts, cuts[1:])]
                    if thin and not _both_tall(labels, split):
                        continue  # a slanted stroke cut across: not two digits side by side
                    prior = -SPLIT_COST * (parts - 1) if parts == 3 else (
                        -2 * SPLIT_COST if thin else _touching(w / h))
                    out.append(Way(prior - SPLIT_COST * choice / 2,
                                   _cut(cell, labels, [*pieces[:k], *split, *pieces[k + 1:]]), plain[k]))
            if parts == 2 and not thin:  # and along the path of least ink, which may lean or bend
                seams = _seam_cuts(cell, ink, x0, y0, [(MIDDLE_SEAM, 0.15), *((band, 0.08) for band in EDGE_SEAMS)])
                if seams[0]:
                    out.append(Way(_touching(w / h) - SPLIT_COST / 4,
                                   [*plain[:k], *seams[0], *plain[k + 1:]], plain[k]))
                for a, b in EDGE_CUTS:  # and near an edge: a narrow digit (a 1) touching the other
                    lo = int(w * a)
                    at = x0 + lo + _thinnest(column_ink[lo:int(w * b) + 1])[0]
                    edge: list[Piece] = [(x0, y0, at, y1, ids), (at, y0, x1, y1, ids)]
                    if _both_tall(labels, edge):
                        out.append(Way(_touching(w / h) - SPLIT_COST / 2,
                                       _cut(cell, labels, [*pieces[:k], *edge, *pieces[k + 1:]]), plain[k]))
                for seam in seams[1:]:  # and along a path near an edge: a leaning 1 that a 6's loop touches
                    if len(seam) == 2 and all(d.shape[0] >= 0.75 * h for d in seam):
                        out.append(Way(_touching(w / h) - SPLIT_COST / 2, [*plain[:k], *seam, *plain[k + 1:]],
                                       plain[k]))
    return out


def _dotted_ways(cell: np.ndarray, narrow: bool) -> list[Way]:
    """A stroke that came out as a line of dots (a 1 written lightly, its ink broken by the paper's
    grain; or a stray mark): the cell divided without it and with it as a digit of its own, each
    DOTTED less likely. As the ink falls, the dots are specks left out (a −16 read −6) or, joined by
    a pencil's faint ink, a piece read as some digit (a stray mark beside a 4 read as 34)."""
    out: list[Way] = []
    for chain in _dots(cell):
        without = _unstruck(cell, chain)  # paper where the dots were
        found = _pieces(without)
        if found is None:
            continue
        labels, pieces, apart, _pale = found
        out += [way._replace(prior=way.prior + DOTTED) for way in _divisions_of(without, narrow, labels, pieces, apart)]
        if len(pieces) < 3:  # the dots joined into the stroke they were, read as a digit of its own
            stroke, drawn = _joined_dots(cell, chain)
            ys, xs = np.nonzero(stroke)
            dotted: Piece = (int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1,
                             frozenset({int(labels.max()) + 1}))
            marked = np.where(stroke, labels.max() + 1, labels)
            out.append(Way(DOTTED, _cut(drawn, marked, sorted([*pieces, dotted], key=lambda b: b[0]))))
    return out


def _joined_dots(cell: np.ndarray, chain: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A line of dots (_dots' mask) drawn as the stroke it was: each dot joined to the next by a line
    as dark as the dots and about as thick; the stroke's mask and the cell with it drawn."""
    import cv2

    count, labels = cv2.connectedComponents(chain.astype(np.uint8), connectivity=8)
    centres = sorted(((float(ys.mean()), float(xs.mean())) for k in range(1, count)
                      for ys, xs in [np.nonzero(labels == k)]))
    widths = [int(np.ptp(np.nonzero(labels == k)[1])) + 1 for k in range(1, count)]
    line = np.zeros(cell.shape, np.uint8)
    for (y0, x0), (y1, x1) in zip(centres, centres[1:]):
        cv2.line(line, (round(x0), round(y0)), (round(x1), round(y1)), 1, max(2, int(np.median(widths) * 0.6)))
    stroke = chain | (line > 0)
    drawn = cell.copy()
    drawn[stroke & ~chain] = np.uint8(np.median(cell[chain]))
    return stroke, drawn


def _dots(cell: np.ndarray) -> list[np.ndarray]:
    """Lines of dots in a cell (its ink as the threshold cuts it, no faint ink joined): at least
    two components, each less tall than DOT of the line and of the tallest component, each at
    most DOT_GAP of the tallest's height below the one above it and as far sideways, together at
    least DOTTED_TALL as tall as the tallest and at most DOTTED_WIDE as wide as tall. Each as a
    mask of the cell."""
    import cv2

    _blur, _level, binary = _otsu(cell)
    count, labels, stats, _c = cv2.connectedComponentsWithStats(binary, connectivity=8)
    if count < 3:
        return []
    tall = int(stats[1:, 3].max())
    small = sorted((k for k in range(1, count) if stats[k, 3] < DOT * tall and stats[k, 4] >= 4),
                   key=lambda k: stats[k, 1])
    chains: list[list[int]] = []
    for k in small:  # top to bottom: each dot goes on the chain whose lowest dot is just above it
        x, y, w, h = (int(v) for v in stats[k, :4])
        for chain in chains:
            last = stats[chain[-1]]
            if 0 <= y - (last[1] + last[3]) <= DOT_GAP * tall and abs((x + w / 2) - (last[0] + last[2] / 2)) <= DOT_GAP * tall:
                chain.append(k)
                break
        else:
            chains.append([k])
    out = []
    for chain in chains:
        x0 = min(int(stats[k, 0]) for k in chain)
        x1 = max(int(stats[k, 0] + stats[k, 2]) for k in chain)
        y0 = min(int(stats[k, 1]) for k in chain)
        y1 = max(int(stats[k, 1] + stats[k, 3]) for k in chain)
        if len(chain) >= 2 and y1 - y0 >= DOTTED_TALL * tall and x1 - x0 <= DOTTED_WIDE * (y1 - y0) \
                and all(stats[k, 3] < DOT * (y1 - y0) for k in chain):
            out.append(np.isin(labels, chain))
    return out


#: A line of dots (_dots): each dot less tall than this share of the line and of the cell's tallest
#: ink; on MNIST's SD-1 validation writers (tools/scan/validate.py --sd1), a 1 written lightly broke
#: into four dots, each a fifth of the line, and a stray mark beside a 4 into two, each under half ...
DOT = 0.5
#: ... each at most this share of the tallest ink below the dot above it, and as far sideways ...
DOT_GAP = 0.25
#: ... the line at least this share as tall as the tallest ink, and at most this share as wide as tall.
DOTTED_TALL = 0.5
DOTTED_WIDE = 0.5
#: A cell divided without a line of dots, or with it as a digit, is this much less likely than as
#: its ink falls (a log-probability).
DOTTED = -SPLIT_COST


#: A piece of ink less tall than this share of the tallest is seldom a digit of its own: a stroke of
#: the digit beside it that came apart (the foot of a 2, the top of a 5 or a 4) or a stray mark.
SHORT = 0.6


def _without_short(pieces: list[Piece]) -> list[list[Piece]]:
    """Other ways to take a cell's short pieces (SHORT), when taller ones stand beside them: each
    joined to the nearest tall piece, and all dropped."""
    tall = max(y1 - y0 for _x0, y0, _x1, y1, _ids in pieces)
    short = [k for k, (_x0, y0, _x1, y1, _ids) in enumerate(pieces) if y1 - y0 < SHORT * tall]
    if not short or len(short) == len(pieces):
        return []
    kept = [p for k, p in enumerate(pieces) if k not in short]
    joined = list(kept)
    for k in short:
        x0, _y0, x1, _y1, _ids = pieces[k]
        near = min(range(len(kept)), key=lambda j: max(kept[j][0] - x1, x0 - kept[j][2], 0))  # noqa: B023
        joined[near] = _join(joined[near], pieces[k])
    return [joined, kept]


def _join(a: Piece, b: Piece) -> Piece:
    """One piece of two: the box around both, and both pieces' ink."""
    return min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]), a[4] | b[4]


def _joined_close(pieces: list[Piece]) -> list[list[Piece]]:
    """Other ways to take a cell's pieces: each two neighbours nearly touching (JOIN_GAP) and together
    no wider than one digit (JOIN_WIDE) joined into one, a digit whose stroke broke (a 0 in two arcs)."""
    out = []
    for k in range(len(pieces) - 1):
        a, b = pieces[k], pieces[k + 1]
        both = _join(a, b)
        x0, y0, x1, y1 = both[:4]
        if b[0] - a[2] <= JOIN_GAP * (y1 - y0) and x1 - x0 <= JOIN_WIDE * (y1 - y0):
            out.append([*pieces[:k], both, *pieces[k + 2:]])
    return out


#: Two pieces at most this share of their height apart, together at most JOIN_WIDE times as wide as
#: tall, may be one digit: a 0 whose stroke broke in two was read as 07 (validation sheet 18034).
JOIN_GAP = 0.1
JOIN_WIDE = 1.2


#: Where a piece may be cut in two besides its middle (fractions of its width): a 1 written
#: touching the digit beside it takes a fifth of the piece or less, out of the middle cuts' reach.
EDGE_CUTS = ((0.08, 0.3), (0.7, 0.92))
#: Where a path of least ink may cut a piece near an edge (fractions of its width), both parts as
#: tall as the piece: a leaning 1 that the next digit's loop runs into, which no straight cut parts.
EDGE_SEAMS = ((0.05, 0.4), (0.6, 0.95))


#: Where the path of least ink may cut a wide piece in two (fractions of its width): its middle.
MIDDLE_SEAM = (0.2, 0.8)
#: How far a seam between two touching digits may move sideways from one row to the next (pixels).
SEAM_STEP = 2


def _seam_cuts(cell: np.ndarray, mask: np.ndarray, x0: int, y0: int,
               bands: Sequence[tuple[tuple[float, float], float]]) -> list[list[np.ndarray]]:
    """A piece (its ink ``mask``, placed at x0, y0) cut in two along the top-to-bottom path through
    the least ink (moving at most SEAM_STEP pixels a row), once for each band of ``bands``: the
    fractions of its width the path keeps within (its middle, MIDDLE_SEAM, or near an edge) and
    the least share of the ink either side must hold (a 1 beside a broad digit may hold a tenth of
    it), else []. Two digits touching where a straight cut would take a stroke of one into the
    other (a 1 leaning on a 6's rising stroke). The bands are searched together, each padded to
    the widest with columns no path may enter: the search's loop over the rows is most of its time."""
    h, w = mask.shape
    spans = [(int(w * a), int(w * b) + 1) for (a, b), _least in bands]
    width = max(hi - lo for lo, hi in spans)
    if width < 3:
        return [[] for _ in bands]
    ink = np.full((len(spans), h, width), np.inf)
    for i, (lo, hi) in enumerate(spans):
        ink[i, :, :hi - lo] = mask[:, lo:hi]
    cost = ink[:, 0].copy()
    back = np.zeros((h, len(spans), width), np.int64)
    aslant = 0.05 * np.abs(np.arange(-SEAM_STEP, SEAM_STEP + 1))  # a step sideways a little dearer
    columns = np.arange(width) - SEAM_STEP
    above = np.full((len(spans), width + 2 * SEAM_STEP), np.inf)  # the row above, no path beyond its ends
    # from column x + d of the row above (d from -SEAM_STEP): each column's reach, a view of ``above``
    reaches = np.lib.stride_tricks.sliding_window_view(above, 2 * SEAM_STEP + 1, axis=1)
    for y in range(1, h):
        above[:, SEAM_STEP:SEAM_STEP + width] = cost
        reach = reaches + aslant
        pick = reach.argmin(axis=2)
        back[y] = columns + pick
        cost = reach.min(axis=2) + ink[:, y]  # the value argmin picked (take_along_axis: 3 × slower)
    out: list[list[np.ndarray]] = []
    for i, ((lo, hi), ((_a, _b), least)) in enumerate(zip(spans, bands)):
        if hi - lo < 3:
            out.append([])
            continue
        path = np.empty(h, np.int64)
        path[-1] = int(cost[i].argmin())
        for y in range(h - 1, 0, -1):
            path[y - 1] = back[y, i, path[y]]
        left = np.arange(w)[None, :] < (path + lo)[:, None]
        parts = [mask & left, mask & ~left]
        if min(int(p.sum()) for p in parts) < least * int(mask.sum()):
            out.append([])
            continue
        out.append([digit for part in parts if (digit := _ink(cell, part, x0, y0)) is not None])
    return out


#: How often a piece of ink this wide for its height (width / height, then log-odds) is two digits
#: written touching rather than one, measured on photos by training hands kept aside from training
#: (tools/scan/photo_set.py's sheets 2000000-2000149: 11,962 single digits, 130 touching pairs; the
#: narrowest bin, 0.5-0.7, from a later count on such photos: 3,370 of 8,992 single digits, 4 of 98
#: pairs, a «16» with a thin 1 tucked into the 6): a digit is seldom wider than tall. Narrower pieces are not cut (but in a game's cell: ``narrow``). Before,
#: a cut was never taken as less likely than SPLIT_COST: every digit a little wider than tall was
#: also offered as two at 25 %, readings the rules then had to weigh against the true one.
TOUCHING = ((0.5, -6.7), (0.7, -6.0), (0.95, -4.6), (1.1, -2.7), (1.3, -1.5), (1.5, -0.9), (1.75, 0.6))


#: The narrowest piece (width / height) cut in two where asked (``narrow``): two ones touching, told
#: from one 1 by two strokes side by side (TWO_STROKES of its rows cross ink twice). Chosen on
#: diagnostic photos of game numbers by MNIST's test writers (20 sheets, seeds 9000-9019, not the
#: bench's): no narrow piece of a 1 alone had such rows, two of four joined 11s had most of their
#: rows so. On training hands (60 sheets, seeds 3100000-3100059) 6 of 100 narrow pieces of a 1
#: alone pass, and are only offered as 11 beside their reading as 1 (at -2 SPLIT_COST).
NARROW = 0.3
TWO_STROKES = 0.15


def _two_strokes(labels: np.ndarray, piece: Piece) -> bool:
    x0, y0, x1, y1, ids = piece
    ink = _of(labels[y0:y1, x0:x1], ids)
    starts = (np.diff(ink.astype(np.int8), axis=1) == 1).sum(axis=1) + ink[:, 0]
    inked = ink.any(axis=1)
    return bool(((starts >= 2) & inked).sum() >= TWO_STROKES * max(1, int(inked.sum())))


def _both_tall(labels: np.ndarray, split: list[Piece]) -> bool:
    """Whether each part of a piece cut in two has ink nearly its whole height."""
    tall = []
    for x0, y0, x1, y1, ids in split:
        rows = np.nonzero(_of(labels[y0:y1, x0:x1], ids).any(axis=1))[0]
        tall.append(len(rows) > 0 and rows[-1] - rows[0] + 1 >= 0.75 * (y1 - y0))
    return all(tall)


def _touching(aspect: float) -> float:
    xs, ys = zip(*TOUCHING)
    return float(np.interp(aspect, xs, ys))


def _thinnest(ink: np.ndarray) -> list[int]:
    """Places to cut, thinnest ink first, at least three columns apart."""
    out: list[int] = []
    for at in np.argsort(ink, kind="stable"):
        if all(abs(int(at) - o) >= 3 for o in out):
            out.append(int(at))
    return out


def _cut(cell: np.ndarray, labels: np.ndarray, pieces: list[Piece]) -> list[np.ndarray]:
    digits = []
    for x0, y0, x1, y1, ids in pieces[:3]:
        digit = _ink(cell, _of(labels[y0:y1, x0:x1], ids), x0, y0)
        if digit is not None:
            digits.append(digit)
    return digits


def _ink(cell: np.ndarray, mask: np.ndarray, x0: int, y0: int) -> np.ndarray | None:
    """The cell's ink under ``mask`` (placed at x0, y0), cropped to it, on white; None: no ink."""
    ys, xs = np.nonzero(mask)
    if len(xs) == 0:
        return None
    mask = mask[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    top, left = y0 + ys.min(), x0 + xs.min()
    digit = np.full(mask.shape, 255, np.uint8)
    digit[mask] = cell[top:top + mask.shape[0], left:left + mask.shape[1]][mask]
    return digit


#: Ink at least this much darker than the paper (of 255) is ink still, where it touches clear ink: a
#: pencil's or a fine pen's hairlines, which the cell's own threshold leaves out.
FAINT = 12.0
#: A cell's threshold (Otsu's) nearer the paper than this: the ink is pale, a pencil's (a pen's ink lies
#: some 200 below the paper and the threshold near half-way; a pencil's 60-90 below).
PALE = 60.0


def _pieces(cell: np.ndarray, join_faint: bool = True) -> tuple[np.ndarray, list[Piece], list[Piece], bool] | None:
    """The cell's ink components (labels) and its digits, left to right: strokes that overlap left
    to right merged, and (the third) the tall ones kept apart; whether a pale pen's faint ink joined
    them (_components). None: an empty cell."""
    found = _components(cell, join_faint)
    if found is None:
        return None
    labels, boxes, pale = found
    merged: list[Piece] = []
    for b in boxes:  # strokes that overlap in x belong to one digit
        if merged and b[0] < merged[-1][2] - 0.35 * (b[2] - b[0]):
            m = merged[-1]
            merged[-1] = (min(m[0], b[0]), min(m[1], b[1]), max(m[2], b[2]), max(m[3], b[3]), m[4] | b[4])
        else:
            merged.append(b)
    tall = max((b[3] - b[1] for b in boxes), default=0)
    apart = [b for b in boxes if b[3] - b[1] >= 0.6 * tall]  # a stroke as tall as a digit may be one
    if not merged:
        return None
    return labels, merged, apart if len(apart) <= 3 and len(apart) > len(merged) else merged, pale


def _otsu(cell: np.ndarray) -> tuple[np.ndarray, float, np.ndarray]:
    """The cell lightly blurred, its ink's threshold (Otsu's) and the ink it cuts (255; paper 0)."""
    import cv2

    blur = cv2.GaussianBlur(cell, (3, 3), 0)
    level, binary = cv2.threshold(blur, 0, 255, cv2.THRESH_BINARY_INV + cv2.THRESH_OTSU)
    return blur, float(level), binary


#: A component of a cell's dark this thick (a share of the cell's height) and this pale (its middle
#: lighter than this share of the paper) is no stroke of a pen: the shade of a hard shadow, or a
#: fold's facet, across the cell. The light is then evened within the cell and its ink found again.
#: (Where strokes of ink meet they may be as thick, but they are ink-dark.)
SHADE = 0.3
SHADE_PALE = 0.5


def _shaded(cell: np.ndarray, binary: np.ndarray) -> bool:
    """Whether some dark region of the cell is thicker than a pen's stroke and paler than ink."""
    import cv2

    h = cell.shape[0]
    k = max(7, round(h * SHADE)) | 1
    core = cv2.erode(binary, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))) > 0
    if not core.any():
        return False
    return float(np.median(cell[core])) > SHADE_PALE * _paper_level(cell)


def _unshaded(cell: np.ndarray) -> np.ndarray:
    """The cell with its light evened: divided by its paper's brightness, found by a median wider
    than twice a stroke (strokes are the few dark pixels of a window; a shadow's step, and the
    band beside it, are most of the window's on their side, so they stay in it and are divided out)."""
    import cv2

    k = max(9, round(cell.shape[0] * 0.45)) | 1
    paper = cv2.medianBlur(np.ascontiguousarray(cell), k)
    return np.asarray(cv2.divide(cell, np.maximum(paper, 1), scale=235))


def _components(cell: np.ndarray, join_faint: bool = True, evened: bool = False
                ) -> tuple[np.ndarray, list[Piece], bool] | None:
    """The cell's ink components (labels) and those that may be (part of) a digit, left to right:
    specks, a minus sign and what is left of the printed lines left out; and whether a pale pen's
    faint ink was joined to them (PALE; ``join_faint=False``: never). None: an empty cell. A shade
    across the cell (a hard shadow, a fold: _shaded) is not ink: the cell is read again with its
    light evened (``evened``: it was)."""
    import cv2

    h, w = cell.shape
    if h < 8 or w < 8:
        return None
    blur, level, binary = _otsu(cell)
    if not evened and _shaded(cell, binary):
        return _components(_unshaded(cell), join_faint, evened=True)
    paper_level = _paper_level(cell)
    strong = int((cell < paper_level - 40).sum())
    if strong < max(12, cell.size * 0.002):
        return None  # nothing clearly darker than the paper's own grain: an empty cell
    pale = join_faint and paper_level - level < PALE
    if pale:  # a pale pen (a pencil): its hairlines, fainter ink, join the ink they touch
        faint = paper_level - max(FAINT, (paper_level - level) * 0.5)
        count, joined = cv2.connectedComponents((blur < faint).astype(np.uint8), connectivity=8)
        kept = np.zeros(count, np.uint8)
        kept[joined[binary > 0]] = 255  # each faint component that holds clear ink, whole
        kept[0] = 0
        binary = kept[joined]
    binary = _off_the_line(binary)  # a line from side to side (a crease, a shadow's edge), the digits it touches kept
    count, labels, stats, _c = cv2.connectedComponentsWithStats(binary, connectivity=8)
    boxes: list[Piece] = []
    for k in range(1, count):
        x, y, bw, bh, area = (int(v) for v in stats[k])
        if (area < max(6, h * w * 0.004) and bh < h * 0.35) or bh < h * 0.22:
            continue  # a speck (a thin pen's 1 is tall, not a speck), or a minus sign (flat)
        at_side = not w * 0.12 < x < w * 0.88 - bw
        if (bw > w * 0.9 and area < bw * bh * 0.3) or (bh > h * 0.92 and bw < w * 0.06 and at_side):
            continue  # the remains of a grid line, at the cell's side (a 1 may run from its top to its bottom)
        if bw <= max(3, w * 0.04) and (x == 0 or x + bw >= w) and bh > h * 0.6:
            continue  # a cell's own side, straight and thin at its edge
        if evened and x <= 1 and x + bw >= w - 1:
            continue  # in a shaded cell, what runs from side to side is the shadow's edge (no digit does)
        boxes.append((x, y, x + bw, y + bh, frozenset({k})))
    boxes.sort(key=lambda b: b[:4])
    return labels, boxes, pale


def _off_the_line(binary: np.ndarray) -> np.ndarray:
    """A cell's ink (_components) without a line from side to side (a fold's crease, a printed line
    the fold bent into the cell, a shadow's edge: across nine tenths of the cell, at most LINE_ROWS
    thick), but for the strokes that cross it: where ink goes on above and below the line, it stays.
    Before 2026-12-07 a digit joined to such a line (touching it, or by a pale pen's faint ink) went
    with it as one piece, sparse and from side to side, and was dropped as the remains of a printed
    line (on validation sheets folded on every page, whole rows of digits read empty)."""
    import cv2

    h, w = binary.shape
    long = cv2.morphologyEx(binary, cv2.MORPH_OPEN, np.ones((1, max(3, w // 2)), np.uint8))
    rows = (long > 0).sum(axis=1) >= w * 0.9  # the line's rows: across (nearly) the whole cell
    if not rows.any():
        return binary
    band = np.nonzero(rows)[0]
    out = binary.copy()
    for part in np.split(band, np.nonzero(np.diff(band) > 1)[0] + 1):
        a, b = int(part[0]), int(part[-1]) + 1
        if b - a > LINE_ROWS:
            continue  # thicker than a line: not this
        lo, hi = max(0, a - 1), min(h, b + 1)  # with its soft edges
        above = np.asarray(binary[max(0, lo - 2):lo].any(axis=0)) if lo > 0 else np.zeros(w, bool)
        below = np.asarray(binary[hi:hi + 2].any(axis=0)) if hi < h else np.zeros(w, bool)
        through = np.asarray(above & below)  # a stroke crossing the line
        out[lo:hi] = np.where(through[None, :], binary[lo:hi], 0)
    return out


#: A line across a cell is this many pixel rows thick at most (a crease, a bent printed line, a shadow's edge).
LINE_ROWS = 6


def _conv(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    """A valid convolution: x (batch, channels, h, w), w (out, channels, k, k) → (batch, out, h-k+1, w-k+1)."""
    k = w.shape[2]
    windows = np.lib.stride_tricks.sliding_window_view(x, (k, k), axis=(2, 3))  # b, c, h', w', k, k
    out = np.einsum("bchwij,ocij->bohw", windows, w, optimize=True)
    return np.asarray(out + b[None, :, None, None])


def _pool(x: np.ndarray) -> np.ndarray:
    """2 × 2 max pooling (four strided views: far faster than a reduction over a reshape)."""
    h, w = x.shape[2] // 2 * 2, x.shape[3] // 2 * 2
    return np.asarray(np.maximum(np.maximum(x[:, :, 0:h:2, 0:w:2], x[:, :, 1:h:2, 0:w:2]),
                                 np.maximum(x[:, :, 0:h:2, 1:w:2], x[:, :, 1:h:2, 1:w:2])))


class Model:
    """Small convolutional networks (convolutions with pooling, two dense layers), run in numpy:
    one, or several trained apart whose logits are averaged (an ensemble: their misreads differ, so
    together they misread less). Its classes are the ten digits and an eleventh, "not one digit" (two
    digits written touching, taken for one piece): a reading's probability is its digit's, so such a
    piece is not read as some digit with confidence."""

    def __init__(self, weights: dict[str, np.ndarray] | list[dict[str, np.ndarray]]) -> None:
        self.members = weights if isinstance(weights, list) else [weights]

    def log_probs(self, x: np.ndarray) -> np.ndarray:
        z = np.mean([_logits(w, x) for w in self.members], axis=0)
        z = z - z.max(axis=1, keepdims=True)
        return np.asarray(z - np.log(np.exp(z).sum(axis=1, keepdims=True)))


def _logits(w: dict[str, np.ndarray], x: np.ndarray) -> np.ndarray:
    maps: np.ndarray = x.reshape(-1, 1, SIZE, SIZE)
    for k, name in enumerate(convolutions(w)):
        pad = int(w["pad"][k]) if "pad" in w else 0
        if pad:
            maps = np.pad(maps, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
        maps = np.maximum(_conv(maps, w[name], w[name + "b"]), 0)
        if "pool" not in w or w["pool"][k]:
            maps = _pool(maps)
    flat: np.ndarray = maps.reshape(len(maps), -1)
    hidden = np.maximum(flat @ w["f1"].T + w["f1b"], 0)
    return np.asarray(hidden @ w["f2"].T + w["f2b"])


#: The layers every network has: convolutions c1, c2 (and any c3, c4… after them), two dense layers.
LAYERS = ("c1", "c1b", "c2", "c2b", "f1", "f1b", "f2", "f2b")
#: A network of more than two convolutions says of each how far its input is padded ("pad") and
#: whether 2 × 2 pooling follows it ("pool"); without these, each is unpadded and pooled.
SHAPE = ("pad", "pool")


def convolutions(w: dict[str, np.ndarray]) -> list[str]:
    """The names of a network's convolutions, in order: c1, c2, …"""
    out: list[str] = []
    while f"c{len(out) + 1}" in w:
        out.append(f"c{len(out) + 1}")
    return out


def _layers(names: set[str], prefix: str) -> list[str] | None:
    """The keys of the network stored under ``prefix`` among ``names`` (None: there is none)."""
    if not all(prefix + k in names for k in LAYERS):
        return None
    extra: list[str] = []
    while f"{prefix}c{len(extra) // 2 + 3}" in names:
        extra += [f"c{len(extra) // 2 + 3}", f"c{len(extra) // 2 + 3}b"]
    return [*LAYERS, *extra, *(k for k in SHAPE if prefix + k in names)]


def load_members(path: Path = WEIGHTS) -> list[dict[str, np.ndarray]]:
    """The networks stored in ``path``: the first's layers under their names (``c1``…), the k-th's
    (k ≥ 1) as ``m{k}_c1``…"""
    with np.load(path) as data:
        names = set(data.files)
        out: list[dict[str, np.ndarray]] = []
        while (keys := _layers(names, f"m{len(out)}_" if out else "")) is not None:
            prefix = f"m{len(out)}_" if out else ""
            out.append({k: data[prefix + k].astype(np.int64 if k in SHAPE else np.float32) for k in keys})
    return out


def save_members(members: list[dict[str, np.ndarray]], path: Path = WEIGHTS) -> None:
    """Write ``members`` as load_members reads them (float16: the package stays small)."""
    arrays: dict[str, Any] = {(f"m{i}_{k}" if i else k): v.astype(np.int8 if k in SHAPE else np.float16)
                              for i, w in enumerate(members) for k, v in w.items()}
    np.savez_compressed(path, **arrays)


#: The network's eleventh class: ink that is not one digit (two written touching).
NOT_ONE = 10
#: A cut of a piece is at least as likely as the network finds the piece "not one digit", times
#: this (which of the cuts tried is the right one): its width alone (TOUCHING) says less than the
#: network that has seen the ink. A 14 whose 1 touches the 4 is read as 4 at 58 % and "not one
#: digit" at 42 %; by its width alone, the cut was at 0.25 %.
NOT_ONE_CUT = -SPLIT_COST


@cache
def model() -> Model:
    return Model(load_members(WEIGHTS))  # the module's WEIGHTS when first asked (the bench may point it elsewhere)


def readings(cell: np.ndarray, top: int = 10, per_digit: int = 4, narrow: bool = False) -> list[Reading]:
    """The likeliest numbers written in a cell, with their log-probabilities (an empty cell: None).
    ``narrow``: a narrow piece may be two digits touching (segmentations)."""
    return readings_of([cell], top, per_digit, narrow)[0]


def readings_of(cells: Sequence[np.ndarray], top: int = 10, per_digit: int = 4, narrow: bool = False,
                struck: Sequence[np.ndarray | None] | None = None) -> list[list[Reading]]:
    """``readings`` of many cells, their pieces read by the network together (one batch for a page:
    the network's cost is mostly per call). ``struck``: each cell's crossed_out, when the caller has
    found them already (the reader marks such rows too)."""
    masks = [crossed_out(cell) for cell in cells] if struck is None else struck
    all_ways = [_segmentations(cell, narrow, mask) for cell, mask in zip(cells, masks, strict=True)]
    inputs: dict[int, np.ndarray] = {}  # the ways of a cell share images (the piece whole, the pieces beside a cut)
    order: list[int] = []
    for ways in all_ways:
        for way in ways:
            for d in (*way.digits, *([] if way.whole is None else [way.whole])):
                if id(d) not in inputs:
                    inputs[id(d)] = normalize(d)
                order.append(id(d))
    lp = _read_pieces(np.stack([inputs[i] for i in order])) if order else np.empty((0, NOT_ONE + 1))
    out = []
    at = 0
    for ways in all_ways:
        if not any(way.digits or way.whole is not None for way in ways):
            out.append([Reading(None, 0.0)])
            continue
        best: dict[int, float] = {}
        for k, way in enumerate(ways):  # the pieces as they fall: ``top`` readings; each cut: a few
            rows = lp[at:at + len(way.digits)]
            at += len(way.digits)
            prior = way.prior
            if way.whole is not None:  # the network's own word that the piece cut is not one digit
                prior = max(prior, float(lp[at, NOT_ONE]) + NOT_ONE_CUT)
                at += 1
            choices = [sorted(((float(r[d]), d) for d in range(10)), reverse=True)[:per_digit] for r in rows]
            for score, ds in heapq.nlargest(top if k == 0 else 4, _combinations(choices, LEADING_ZERO)):
                value = int("".join(str(d) for d in ds))
                best[value] = max(best.get(value, -math.inf), score + prior)
        found = [Reading(v, s) for v, s in sorted(best.items(), key=lambda vs: -vs[1])]
        if not found:
            out.append([Reading(None, 0.0)])
            continue
        # a stray mark read as a digit: the cell may be empty after all (and 0 is written as nothing)
        found.append(Reading(None, min(r.score for r in found) - math.log(50)))
        out.append(found)
    return out


def _read_pieces(inputs: np.ndarray) -> np.ndarray:
    """The network's log-probabilities for each input, each distinct input read once (a cell's ways
    to divide often cut the same piece: about one in eight)."""
    seen: dict[bytes, int] = {}  # an input → its row among those read
    keep: list[int] = []
    which = []
    for k, x in enumerate(inputs):
        key = x.tobytes()
        if key not in seen:
            seen[key] = len(keep)
            keep.append(k)
        which.append(seen[key])
    distinct = inputs[keep]
    net = model()
    read = [net.log_probs(distinct[k:k + BATCH]) for k in range(0, len(distinct), BATCH)]
    return np.concatenate(read)[which]


#: Inputs the network reads at once: a page's pieces in batches of this many (larger batches copy
#: more than they save; 64 was the quickest on this project's machine, by 10-30 %).
BATCH = 64


#: A number of two digits or more written with a leading 0 ("06") is this much less likely: nobody
#: writes one, but a 1 with an up-flag read as 0 made a King's −16 read −6 (validation sheets 18008,
#: 18098). Not impossible: a 0 and the digit beside it may still be what the cell holds.
LEADING_ZERO = -math.log(1000)


def _combinations(choices: list[list[tuple[float, int]]], leading_zero: float = 0.0
                  ) -> list[tuple[float, tuple[int, ...]]]:
    """Every number the pieces' choices make, with its score; one of two digits or more starting
    with 0 gets ``leading_zero`` besides."""
    combos: list[tuple[float, tuple[int, ...]]] = [(0.0, ())]
    for options in choices:
        combos = [(s + ls, ds + (d,)) for s, ds in combos for ls, d in options]
    return [(s + leading_zero, ds) if len(ds) > 1 and ds[0] == 0 else (s, ds) for s, ds in combos]
