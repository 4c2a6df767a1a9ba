"""Where the reader and the rules meet: given, for every cell of a row, the readings the digit
reader proposes with their scores, the most likely row that the verifier accepts.

A misread digit almost always breaks a row (its sum, a cell's step or sign, the deck), so the
rules pick among the reader's alternatives. Nothing is guessed silently: a row is *sure* only when
its best accepted reading is far likelier than every other accepted one; else it is flagged, with
the alternatives, for a person to confirm.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from kingsheet.core.rules import Rules
from kingsheet.core.scoring import cell_sign
from kingsheet.core.verify import row_problems

#: How many rows the search may try before it gives up on a row (each is one verifier call).
BUDGET = 3000
#: A row is sure when its reading carries at least this share of the probability of all the
#: accepted readings found ...
SURE = 0.9
#: ... and the rules did not have to go further from the reader's own first reading than this
#: (a log-probability): a row the reader found unlikely is confirmed by a person.
STRETCH = 3.0


@dataclass(frozen=True)
class Reading:
    """One way to read a cell: the magnitude written (None: an empty cell) and its log-probability."""

    value: int | None
    score: float


@dataclass(frozen=True)
class RowChoice:
    cells: tuple[int, ...] | None  # the signed cells chosen; None when no reading is accepted
    confidence: float  # the share of the accepted readings' probability that this one has
    sure: bool
    alternatives: tuple[tuple[int, ...], ...]  # the other accepted readings, likeliest first
    changed: bool  # the rules chose something other than the reader's own first reading
    tried: int


def signed(rules: Rules, game_id: str, value: int | None) -> int | None:
    """A magnitude as the cell holds it: the sign is the game's (a minus sign on the paper is
    optional); an empty cell is 0."""
    if value is None:
        return 0
    sign = cell_sign(rules, rules.games[game_id])
    return -abs(value) if sign == -1 else value


def _ranked(candidates: Sequence[Sequence[Reading]]) -> Iterator[tuple[float, tuple[int, ...]]]:
    """Every combination of one reading per cell, in decreasing total score (best-first over the
    product of sorted lists)."""
    lists = [sorted(c, key=lambda r: -r.score) for c in candidates]
    if any(not c for c in lists):
        return
    start = (0,) * len(lists)
    heap = [(-sum(c[0].score for c in lists), start)]
    seen = {start}
    while heap:
        neg, idx = heapq.heappop(heap)
        yield -neg, idx
        for k in range(len(lists)):
            if idx[k] + 1 < len(lists[k]):
                nxt = idx[:k] + (idx[k] + 1,) + idx[k + 1:]
                if nxt not in seen:
                    seen.add(nxt)
                    score = -neg - lists[k][idx[k]].score + lists[k][idx[k] + 1].score
                    heapq.heappush(heap, (-score, nxt))


def choose_row(rules: Rules, game_id: str, candidates: Sequence[Sequence[Reading]], players: tuple[str, ...],
               number: int = 1, budget: int = BUDGET, wanted: int = 4) -> RowChoice:
    """The likeliest reading of a row that the verifier accepts, how sure it is, and the others."""
    lists = [sorted(c, key=lambda r: -r.score) for c in candidates]
    accepted: list[tuple[float, tuple[int, ...]]] = []
    first: tuple[int, ...] | None = None
    first_score = 0.0
    tried = 0
    checked: set[tuple[int, ...]] = set()
    for score, idx in _ranked(lists):
        cells = tuple(signed(rules, game_id, lists[k][i].value) or 0 for k, i in enumerate(idx))
        if first is None:
            first, first_score = cells, score
        if cells in checked:  # two readings of one cell may give one number (an empty cell, 0)
            continue
        checked.add(cells)
        tried += 1
        if not row_problems(rules, game_id, cells, players, number=number):
            accepted.append((score, cells))
            if len(accepted) >= wanted:
                break
        if tried >= budget:
            break
    if not accepted:
        return RowChoice(None, 0.0, False, (), False, tried)
    top = accepted[0][0]
    weights = [math.exp(s - top) for s, _cells in accepted]
    confidence = weights[0] / sum(weights)
    best = accepted[0][1]
    sure = confidence >= SURE and first_score - top <= STRETCH
    return RowChoice(best, confidence, sure, tuple(c for _s, c in accepted[1:]), best != first, tried)
