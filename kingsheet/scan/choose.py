"""Where the reader and the rules meet: given, for every cell of a row, the readings the digit
reader proposes with their scores, the most likely row that the verifier accepts.

A misread digit almost always breaks a row (its sum, a cell's step or sign, the deck), so the
rules pick among the reader's alternatives. Nothing is guessed silently: a row is *sure* only when
its best accepted reading is far likelier than every other accepted one; else it is flagged, with
the alternatives, for a person to confirm.
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from kingsheet.core.game import Deal
from kingsheet.core.rules import Rules
from kingsheet.core.scoring import cell_sign
from kingsheet.core.verify import row_possible, row_problems

#: How many rows the search may try before it gives up on a row (each is one verifier call).
BUDGET = 3000
#: A row is sure when its reading carries at least this share of the probability of all the
#: accepted readings found ...
SURE = 0.9
#: ... and the rules did not have to go further from the reader's own first reading than this
#: (a log-probability): a row the reader found unlikely is confirmed by a person ...
STRETCH = 3.0
#: ... and the reader itself gives the reading at least this (a log-probability: 15 %); else the
#: truth may be a reading it never proposed (a stroke it missed, which the rules then "find" in a
#: neighbouring cell), and the one accepted reading found is no proof ...
FLOOR = math.log(0.15)
#: ... unless the rules went no further from the reader's first reading than this: the reader read
#: the row, unsure of some cells, and the rules confirmed it; a stroke missed would have had to be
#: made up for by another misread. Measured on photos by training hands (tools/scan/calibrate.py,
#: 597 sheets, seeds 3000000-3000196 and 3200000-3200399): of the rows only FLOOR flagged, the 63
#: within 2.0 were all right; within 3.0, 11 more right and one wrong.
CONFIRMED = 2.0


@dataclass(frozen=True)
class Reading:
    """One way to read a cell: the magnitude written (None: an empty cell) and its log-probability."""

    value: int | None
    score: float


@dataclass(frozen=True)
class Option:
    """A reading of a row that the verifier accepts."""

    game: str
    cells: tuple[int, ...]  # signed
    share: float  # of the probability of all the accepted readings found
    score: float = 0.0  # its log-probability by the reader (the game's number and the cells)


@dataclass(frozen=True)
class RowChoice:
    options: tuple[Option, ...]  # the accepted readings, likeliest first; () when none is accepted
    sure: bool
    changed: bool  # the rules chose something other than the reader's own first reading
    tried: int
    stretch: float = 0.0  # how much less likely the choice is than the reader's first reading (a log)
    numbers: tuple[tuple[str, float], ...] = ()  # ordered blanks: each game's log-probability by its number
    first_cells: float | None = None  # the log-probability of the cells as the reader first read them
    first: tuple[str, tuple[int, ...]] | None = None  # the game and the cells as the reader first read them
    needs: float = SURE  # the share this row needs to be sure (more where the count of games moved it)
    doubted: str = ""  # why a row the reader was sure of is to confirm all the same (doubt_sheet)
    near: bool = False  # no reading was accepted: the rows nearest to what was read (nearest_rows)
    dropped: bool = False  # ... found only with a digit left out (DROPPED_DIGIT): the row has no reading, as before
    further: float = 0.0  # the readings were searched this much further (a log: near_own_game), a misread beyond less likely
    corrected: bool = False  # a number in it was crossed out and written again, read surely as the new one (ask_marked)

    @property
    def cells(self) -> tuple[int, ...] | None:
        """The signed cells chosen; None when no reading is accepted."""
        return self.options[0].cells if self.options else None

    @property
    def game(self) -> str | None:
        return self.options[0].game if self.options else None

    @property
    def confidence(self) -> float:
        return self.options[0].share if self.options else 0.0

    @property
    def alternatives(self) -> tuple[tuple[int, ...], ...]:
        return tuple(o.cells for o in self.options[1:])


def written_sign(rules: Rules, game_id: str) -> int | None:
    """The sign every non-zero cell of the game carries, so that the paper need not show it: the
    game's own, or for a game scored by card values (domino's hearts, jokers) the sign all its cards
    share; None where a cell may be either (omnibus's +10 beside its −1s, a buyer's trump deal)."""
    game = rules.games[game_id]
    sign = cell_sign(rules, game)
    if sign is None and game.card_values and game.moon is None:
        signs = {v > 0 for v in game.card_values.values() if v}
        if len(signs) == 1:
            return 1 if signs.pop() else -1
    return sign


def needs_bid(rules: Rules, game_id: str | None) -> bool:
    """A trump deal of Кинг с торговлей: its row is checked with the declarer and their bid, which
    the blank does not hold (the person adds them)."""
    return game_id is not None and rules.bidding and rules.games[game_id].declared


def row_accepted(rules: Rules, game_id: str, cells: tuple[int, ...], players: tuple[str, ...], number: int) -> bool:
    """Whether the deck can produce the row; where it needs a bid not on the blank (needs_bid), for
    some declarer and the one bid that gives their cell (with no points of their own, a bid of as
    many tricks as they took: any larger gives the same row)."""
    if not needs_bid(rules, game_id):
        return row_possible(rules, game_id, cells, players, number=number)
    game = rules.games[game_id]
    unit, tricks = next(iter(game.units.values())), rules.deck.tricks
    for d, who in enumerate(players):
        others = sum(c for k, c in enumerate(cells) if k != d)
        if unit <= 0 or others % unit or cells[d] % unit:
            continue
        taken = tricks - others // unit
        bid = taken - cells[d] // unit
        if 0 <= bid <= tricks and not row_problems(rules, game_id, cells, players,
                                                   Deal(number, game_id, cells, declarer=who, bid=bid), number):
            return True
    return False


def signed(rules: Rules, game_id: str, value: int | None) -> int | None:
    """A magnitude as the cell holds it: the sign is the game's (a minus sign on the paper is
    optional); an empty cell is 0."""
    if value is None:
        return 0
    return -abs(value) if written_sign(rules, game_id) == -1 else value


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


#: Readings this much less likely (a log-probability) than the best accepted one found so far
#: cannot change a verdict: the search stops there.
NEGLIGIBLE = 12.0


@dataclass
class _Search:
    accepted: list[tuple[float, str, tuple[int, ...]]]
    first: tuple[float, str, tuple[int, ...]] | None = None  # the reader's own first reading
    tried: int = 0

    def best(self) -> float:
        return max((s for s, _g, _c in self.accepted), default=-math.inf)


def _search(rules: Rules, game_id: str, bonus: float, lists: list[list[Reading]], players: tuple[str, ...],
            number: int, budget: int, wanted: int, found: _Search) -> None:
    """Readings of the row as ``game_id`` (its score raised by ``bonus``), best first, into ``found``."""
    accepted = 0
    checked: set[tuple[int, ...]] = set()
    # each reading signed once, not each time a row is tried (in _ranked's order)
    values = [[signed(rules, game_id, r.value) or 0 for r in sorted(c, key=lambda r: -r.score)] for c in lists]
    for tried, (score, idx) in enumerate(_ranked(lists)):
        score += bonus
        cells = tuple(values[k][i] for k, i in enumerate(idx))
        if found.first is None or (tried == 0 and score > found.first[0]):
            found.first = (score, game_id, cells)
        if score < found.best() - NEGLIGIBLE or tried >= budget:
            break
        if cells in checked:  # two readings of one cell may give one number (an empty cell, 0)
            continue
        checked.add(cells)
        found.tried += 1
        if row_accepted(rules, game_id, cells, players, number):
            found.accepted.append((score, game_id, cells))
            accepted += 1
            if accepted >= wanted:
                break


def _verdict(found: _Search, wanted: int) -> RowChoice:
    if not found.accepted:
        return RowChoice((), False, False, found.tried)
    best: dict[tuple[str, tuple[int, ...]], float] = {}  # a row two ways of cutting the cells give: its likelier
    for s, g, c in found.accepted:
        best[g, c] = max(best.get((g, c), -math.inf), s)
    ranked = sorted(((s, g, c) for (g, c), s in best.items()), key=lambda a: -a[0])[:wanted]
    top = ranked[0][0]
    weights = [math.exp(s - top) for s, _g, _c in ranked]
    total = sum(weights)
    options = tuple(Option(g, c, w / total, s) for w, (s, g, c) in zip(weights, ranked))
    assert found.first is not None
    stretch = found.first[0] - top
    first = found.first[1:]
    return RowChoice(options, _sure(options[0].share, top, stretch),
                     (options[0].game, options[0].cells) != first, found.tried, stretch, first=first)


def _sure(share: float, score: float, stretch: float) -> bool:
    return share >= SURE and stretch <= STRETCH and (score >= FLOOR or stretch <= CONFIRMED)


def choose_row(rules: Rules, game_id: str, candidates: Sequence[Sequence[Reading]], players: tuple[str, ...],
               number: int = 1, budget: int = BUDGET, wanted: int = 4) -> RowChoice:
    """The likeliest reading of a row that the verifier accepts, how sure it is, and the others."""
    return choose_game_row(rules, [Reading(0, 0.0)], [game_id], candidates, players, number, budget, wanted)


#: A digit misread outright, the right one not among the reader's few readings of it (an MNIST
#: writer's 1 with a flag read as 9 made a King's −16 read −96, and no reading of the row was
#: possible: validation sheet 18098), a log-probability. Only for such a row (nearest_rows), whose
#: search it at most doubles (0.3 s on a 14-game ordered blank, the rules refusing 42,000 rows).
MISREAD_DIGIT = math.log(0.001)


def _one_digit_otherwise(cell: Sequence[Reading], likeliest: int = 3, dropped: bool = False) -> list[Reading]:
    """A cell's readings and, for its ``likeliest`` numbers, each with one of its digits any other
    (MISREAD_DIGIT less likely; never a leading 0); ``dropped``: or, of two digits or more, one of
    them left out, as likely (DROPPED_DIGIT)."""
    out: dict[int | None, float] = {r.value: r.score for r in cell}
    for r in sorted(cell, key=lambda r: -r.score)[:likeliest]:
        text, sign = ("", 1) if r.value is None else (str(abs(r.value)), -1 if r.value < 0 else 1)
        others = [(text[:at] + digit + text[at + 1:], MISREAD_DIGIT) for at in range(len(text))
                  for digit in "0123456789" if digit != text[at]]
        if dropped and len(text) > 1:
            others += [(text[:at] + text[at + 1:], DROPPED_DIGIT) for at in range(len(text))]
        for other, cost in others:
            if not (len(other) > 1 and other[0] == "0"):
                value = sign * int(other)
                out[value] = max(out.get(value, -math.inf), r.score + cost)
    return [Reading(v, score) for v, score in out.items()]


#: A number read with a digit the paper holds but not as a digit of it (a digit crossed out that the
#: reader did not see struck through, a stray mark, the end of the number beside it): read as one
#: digit more than written (−86 for −6, 862 for 62). On the validation sheets with a table's habits
#: (`tools/scan/validate.py KIND --table 30 61000`, 2026-12-08) such rows were nearly a third of the
#: rows read wrong: no reading of one possible, each was shown as read. The nearest rows (nearest_rows) also
#: leave one digit out, as likely as a digit read otherwise, and are asked about. A row all of whose
#: nearest rows need a digit left out still counts as one with no reading (RowChoice.dropped): no
#: row the rules changed on its sheet is sure (settle_mends), and totals that do not add up with it
#: wait for the person's row (check_totals). Taken for a reading, it let a row read 2 | 20 for 22 | 0,
#: changed by the rules and sure, pass on a validation sheet (61023) once the totals no longer
#: doubted it. A row of one number so mended is never made sure (ONE_NUMBER keeps its length).
DROPPED_DIGIT = MISREAD_DIGIT


def nearest_rows(rules: Rules, choice: RowChoice, game_cell: Sequence[Reading], games: Sequence[str],
                 candidates: Sequence[Sequence[Reading]], players: tuple[str, ...], number: int) -> RowChoice:
    """A row none of whose readings the rules accept: the rows they allow with a digit of its cells
    read otherwise (each MISREAD_DIGIT less likely) or left out (DROPPED_DIGIT: a digit too many read;
    ``dropped`` when every row shown needs one), likeliest first, so that the table is shown the
    possible rows nearest to what was read instead of an impossible one. Not sure: the reader did
    not read them (settle_mends makes sure only a row that holds one number, ONE_NUMBER). Any other
    row is returned as it is."""
    if choice.options:
        return choice
    near = choose_game_row(rules, game_cell, games, [_one_digit_otherwise(c, dropped=True) for c in candidates],
                           players, number)
    if not near.options:
        return choice
    otherwise = [{abs(r.value or 0) for r in _one_digit_otherwise(c)} for c in candidates]
    dropped = not any(all(abs(v) in values for v, values in zip(o.cells, otherwise)) for o in near.options)
    return replace(near, sure=False, near=True, dropped=dropped)


def near_own_game(rules: Rules, choice: RowChoice, candidates: Sequence[Sequence[Reading]],
                  players: tuple[str, ...], number: int) -> RowChoice:
    """On an ordered blank, a row whose cells the game its number reads as refuses, though some
    other game accepts them (Кинг's −16 read −96, a row of Ералаш+, the 1 not among the reader's
    readings of it: validation sheets 18008 and 20166): the rows of its own game with a digit read
    otherwise (MISREAD_DIGIT less likely, as nearest_rows) join its options, so that the count of
    games (assign_games, which runs next) weighs them with the others. Any other row is returned
    as it is. A misread beyond these (MISREAD) is then as much less likely as a digit read otherwise:
    the search has looked that much further."""
    if not choice.options or len(choice.numbers) < 2 or choice.first is None:
        return choice
    own = choice.first[0]
    if any(o.game == own for o in choice.options):
        return choice
    found = _Search([])
    lists = [sorted(_one_digit_otherwise(c), key=lambda r: -r.score) for c in candidates]
    _search(rules, own, dict(choice.numbers)[own], lists, players, number, BUDGET, 4, found)
    if not found.accepted:
        return choice
    top = choice.options[0]
    found.accepted += [(o.score, o.game, o.cells) for o in choice.options]
    found.first = (top.score + choice.stretch, *choice.first)
    merged = _verdict(found, len(found.accepted))
    return replace(merged, tried=choice.tried + merged.tried, numbers=choice.numbers, first_cells=choice.first_cells,
                   further=MISREAD_DIGIT)


#: How likely the reader is to miss the leading 1 of a game's number (13 read as 3, 11 as 1: a thin
#: stroke taken for a speck or joined to its neighbour), a log-probability. On photos of ordered
#: blanks by training hands (60 sheets, seeds 3100000-3100059, as tools/scan/calibrate.py makes
#: them) 5 of 750 numbers 10-14 were read first as their last digit (0.7 %); held-out hands are
#: read less well, hence 1 %.
DROPPED_ONE = math.log(0.01)
#: How likely the leading 1 of a game's number is read as another digit, the 1 itself not among the
#: reader's few readings of it (an MNIST writer's hooked 1 before a 3 read 73, 93 or 23, validation
#: sheet 20022: no game has such a number, and the row took Мальчики's 3 instead of 13 at
#: DROPPED_ONE). Taken as likely as the 1 missed, not measured apart: it weighs only numbers no game
#: has, against the floor of numbers never read.
MISREAD_ONE = DROPPED_ONE


def _number_score(k: int, by_number: dict[int, float], floor: float, games: int = 99) -> float:
    """The log-probability of game number ``k`` by the readings of its cell: its own reading, or
    for 10-19 its last digit's with the leading 1 missed, or a number of two digits no game has
    (above ``games``) ending as ``k`` with the 1 misread, or ``floor`` when the reader proposed
    none of these."""
    own = by_number.get(k, floor)
    if 10 <= k <= 19:
        if k - 10 in by_number:
            own = max(own, by_number[k - 10] + DROPPED_ONE)
        misread = [score for v, score in by_number.items() if 20 <= v <= 99 and v > games and v % 10 == k % 10]
        if misread:
            own = max(own, max(misread) + MISREAD_ONE)
    return own


def choose_game_row(rules: Rules, game_cell: Sequence[Reading], games: Sequence[str],
                    candidates: Sequence[Sequence[Reading]], players: tuple[str, ...], number: int = 1,
                    budget: int = BUDGET, wanted: int = 4,
                    variants: Sequence[Mapping[int, Sequence[Reading]]] = ()) -> RowChoice:
    """On an ordered blank the game is handwritten too, as its number in ``games`` (from 1; one
    game: the cell is not read). The game and the cells are chosen together: each game as likely
    as its number's reading (a game whose number is not among them, far less), each row of it as
    the cells' readings make it. ``variants``: other ways to cut the row into its cells (a number
    written across the line between two cells, its strokes given wholly to one of them: the
    readings of the cells so cut, by their place in the row), searched as well; the row is chosen
    among the readings of every way, a row two ways give counted once."""
    lists = [sorted(c, key=lambda r: -r.score) for c in candidates]
    if any(not c for c in lists):
        return RowChoice((), False, False, 0)
    ways = [lists, *([sorted(v[k], key=lambda r: -r.score) if k in v else c for k, c in enumerate(lists)]
                     for v in variants)]
    ways = [w for w in ways if all(w)]
    if len(games) == 1:
        scored = [(0.0, games[0])]
    else:
        by_number = {r.value: r.score for r in game_cell if r.value is not None}
        floor = (min(by_number.values()) - math.log(50)) if by_number else 0.0
        scored = sorted(((_number_score(k, by_number, floor, len(games)), gid) for k, gid in enumerate(games, 1)),
                        reverse=True)
    found = _Search([])
    for bonus, gid in scored:
        for way in ways:
            _search(rules, gid, bonus, way, players, number, budget, wanted, found)
    return replace(_verdict(found, wanted), numbers=tuple((gid, bonus) for bonus, gid in scored),
                   first_cells=sum(c[0].score for c in lists))


#: On an ordered blank, how much less likely (a log-probability) a game is taken to be than the
#: likeliest, when the reader proposed its number nowhere (choices built without the numbers' readings).
UNREAD = -NEGLIGIBLE
#: A game the whole sheet gives a row is sure only when the reader itself read the row's number as
#: it at least this often (a log-probability, 0.1 %, against its likeliest number): the count of
#: the games settles between readings the reader made, not against what it plainly read. Unless
#: the row's cells stand as the reader read them (but for their signs, which the game gives): then
#: the count overrules one misread number, not a number and a cell (Ералаш 0 −70 0 −26 with its 7
#: read as 1, Взятки: MNIST validation sheet 18118). On the validation sheets of ordered blanks
#: (tools/scan/validate.py, every kind of hand, 268 sheets) the count gave 11 rows left unsure
#: another game at 99 % or more with their cells as read, all right; of 21 with a cell changed
#: too, 7 were wrong (the fresh fonts': a number and a cell misread together).
GAME_FLOOR = math.log(0.001)
#: A row the count gives another game than its own likeliest, or makes less sure of its game by more
#: than 1 %, is sure only at this share (also by the totals): it rests on
#: how unlikely the other rows' misreads are, far into the reader's tails (on 12 diagnostic photos
#: of `ordered-56` by MNIST's test writers, 672 rows, one such row was at 91 % and wrong).
SURE_CHANGED = 0.99
#: A row's cells may be misread beyond what the search looks at (NEGLIGIBLE below its best): its game
#: is then as likely as its number's reading alone makes it, times this. A row whose every accepted
#: reading is that unlikely does not take games from the rows read well; its number decides.
MISREAD = -NEGLIGIBLE
#: The least weight a game has in a row (against the row's likeliest), that the sums stay positive.
NO_READING = math.exp(-30)


def assign_games(rules: Rules, choices: dict[int, RowChoice]) -> dict[int, RowChoice]:
    """An ordered blank as a whole: each game is played a set number of times at the table (or
    by each player, who orders in turn), so the rows' games are weighed together. Each row's game
    is given the probability of all the ways to give every row a game within the count (each way
    as likely as the product of its rows' readings, the game's number and the cells): two rows
    read as Кинг where only one may be split it by how likely each one's other readings are, and
    a row unsure only between games the others hold far more surely becomes sure. A game no
    reading of a row names is still weighed when the row's cells fit it (its number then as
    unlikely as the reader made it); a row's cells may also be misread beyond the search (MISREAD).
    A row is sure when its game and cells carry at least SURE of that probability (SURE_CHANGED
    where that game is not the row's own likeliest, or the count took more than 1 % off it), its cells are
    sure as the reader read them, and its game's number is one the reader itself gave at least
    GAME_FLOOR (or its cells stand as the reader read them, signs aside)."""
    from collections import Counter

    from kingsheet.core.rules import Order, Turn

    if rules.order is Order.ORDERED_TABLE:
        group = {n: 0 for n in choices}
    elif rules.order is Order.ORDERED_PLAYER and rules.orders is Turn.LEFT:
        group = {n: n % rules.players for n in choices}  # the same player orders every n-th deal
    else:
        return choices
    count = Counter(rules.per_round if rules.order is Order.ORDERED_PLAYER else rules.slots)  # one group's games
    out = dict(choices)
    for g in set(group.values()):
        out.update(_assign_group(rules, {n: c for n, c in choices.items() if group[n] == g}, count))
    return out


def _by_game(rules: Rules, number: int, choice: RowChoice, games: Sequence[str], numbers: dict[str, float]
             ) -> dict[str, list[Option]]:
    """A row's accepted readings by game, with the games its best cells also fit (re-signed: a
    minus sign is optional on the paper) though no reading of its number names them."""
    by_game: dict[str, list[Option]] = {}
    for o in choice.options:
        by_game.setdefault(o.game, []).append(o)
    if not choice.options:
        return by_game
    top = choice.options[0]
    players = tuple(f"P{i}" for i in range(1, rules.players + 1))
    for game in games:
        if game in by_game:
            continue
        cells = tuple(signed(rules, game, abs(v)) or 0 for v in top.cells)
        if row_accepted(rules, game, cells, players, number):
            gain = numbers.get(game, UNREAD) - numbers.get(top.game, 0.0)
            by_game[game] = [Option(game, cells, top.share * math.exp(gain), top.score + gain)]
    return by_game


def _numbers_from(options: Sequence[Option]) -> dict[str, float]:
    """Each game's log-probability by the row's own readings, where the number's are not known."""
    shares: dict[str, float] = {}
    for o in options:
        shares[o.game] = shares.get(o.game, 0.0) + o.share
    return {game: math.log(max(share, 1e-300)) for game, share in shares.items()}


def _assign_group(rules: Rules, choices: dict[int, RowChoice], count: dict[str, int]) -> dict[int, RowChoice]:
    """The rows one group orders (all the table's, or one player's), each game at most ``count``
    times: every row's options re-weighed by the probability of the whole group's ways, summed
    exactly by a forward and a backward pass over the counts used so far (at most 2 ** 14 states)."""
    import numpy as np

    games = list(count)
    rows = sorted(choices)
    if len(rows) > sum(count.values()):
        return choices  # more rows than games: the count says nothing trustworthy
    numbers = [dict(choices[n].numbers) or _numbers_from(choices[n].options) for n in rows]
    by_game = [_by_game(rules, n, choices[n], games, numbers[k]) for k, n in enumerate(rows)]
    # each reading's log-probability (without the numbers' readings: its share), and each game's in a
    # row: its accepted readings', or the cells misread (MISREAD)
    def log(n: int, o: Option) -> float:
        return o.score if choices[n].numbers else math.log(max(o.share, 1e-300))

    logs = np.array([[np.logaddexp.reduce([log(n, o) for o in by_game[k].get(game, ())]
                                          + [numbers[k].get(game, UNREAD) + MISREAD + choices[n].further])
                      for game in games]
                     for k, n in enumerate(rows)])
    weights = np.ones_like(logs)
    for k, n in enumerate(rows):
        if choices[n].options:  # no reading at all: any game
            weights[k] = np.maximum(np.exp(logs[k] - logs[k].max()), NO_READING)
    # the ways to give games, as counts used so far (one digit per game, in mixed radix)
    radix = [count[game] + 1 for game in games]
    strides = np.cumprod([1, *radix[:-1]])
    states = int(np.prod(radix))
    index = np.arange(states)
    room = [(index // strides[j]) % radix[j] < count[game] for j, game in enumerate(games)]
    forward = [np.zeros(states)]
    forward[0][0] = 1.0
    for k in range(len(rows)):
        nxt = np.zeros(states)
        for j in range(len(games)):
            nxt[index[room[j]] + strides[j]] += forward[k][room[j]] * weights[k, j]
        forward.append(nxt / nxt.sum())
    backward = [np.ones(states)]
    for k in reversed(range(len(rows))):
        prev = np.zeros(states)
        for j in range(len(games)):
            prev[room[j]] += weights[k, j] * backward[0][index[room[j]] + strides[j]]
        backward.insert(0, prev / prev.max())
    joint: list[int] | None = None  # the likeliest way, found once a row is left unsure
    out = {}
    for k, n in enumerate(rows):
        choice = choices[n]
        if not choice.options:
            continue
        post = np.array([float((forward[k][room[j]] * backward[k + 1][index[room[j]] + strides[j]]).sum())
                         * weights[k, j] for j in range(len(games))])
        post /= post.sum()
        options = sorted((replace(o, share=float(post[j] * math.exp(log(n, o) - logs[k, j])))
                          for j, game in enumerate(games) for o in by_game[k].get(game, ())),
                         key=lambda o: -o.share)
        top, first = options[0], choice.options[0]
        number = numbers[k].get(top.game, UNREAD)
        cells_score = top.score - (number if choice.numbers else 0.0)  # without the numbers: the whole
        first_cells = choice.first_cells if choice.first_cells is not None else first.score + choice.stretch
        own = sum(o.share for o in choice.options if o.game == top.game)
        moved = top.game != first.game or post[games.index(top.game)] < own - (1 - SURE_CHANGED)
        needs = SURE_CHANGED if moved else SURE
        as_read = choice.first is not None and tuple(map(abs, top.cells)) == tuple(map(abs, choice.first[1]))
        sure = (_sure(top.share, cells_score, first_cells - cells_score) and top.share >= needs
                and (number - max(numbers[k].values(), default=0.0) >= GAME_FLOOR or as_read))
        if not sure and joint is None:
            joint = _likeliest_ways(weights, room, index, strides)
        if not sure and joint is not None and top.game != games[joint[k]]:  # as the likeliest way for the group
            top = next((o for o in options if o.game == games[joint[k]]), top)
            options = [top, *(o for o in options if o is not top)]
        changed = choice.changed if (top.game, top.cells) == (first.game, first.cells) else True
        out[n] = replace(choice, options=tuple(options[:max(4, len(choice.options))]), sure=sure, changed=changed,
                         stretch=choice.stretch + first.score - top.score, needs=needs)
    return out


def _likeliest_ways(weights: Any, room: list[Any], index: Any, strides: Any) -> list[int]:
    """The likeliest way to give the group's rows their games within the count (Viterbi over the
    counts used so far): each row's game, as an index into the games. Each row's own likeliest game
    may not fit together (two rows unsure between Кинг and another game both lean to Кинг); a row
    left unsure shows the game of this way, so the rows as shown are a possible game."""
    import numpy as np

    logw = np.log(weights)
    best = np.full(len(index), -np.inf)
    best[0] = 0.0
    came: list[Any] = []
    for k in range(len(weights)):
        nxt = np.full(len(index), -np.inf)
        arg = np.full(len(index), -1)
        for j in range(weights.shape[1]):
            to = index[room[j]] + strides[j]
            value = best[room[j]] + logw[k, j]
            better = value > nxt[to]
            nxt[to[better]], arg[to[better]] = value[better], j
        came.append(arg)
        best = nxt
    state, out = int(np.argmax(best)), []
    for arg in reversed(came):
        j = int(arg[state])
        out.append(j)
        state -= int(strides[j])
    return out[::-1]


#: At most this many combinations of the unsure rows' readings are weighed against the totals.
TOTALS_BUDGET = 4096


@dataclass(frozen=True)
class TotalsCheck:
    """What the ИТОГО lines written on the sheet said: the rows, perhaps settled by them, and
    whether the rows as chosen add up to what is written."""

    choices: dict[int, RowChoice]
    written: bool  # some ИТОГО line is filled in
    agree: bool  # the rows add up to every total written but those taken for misread (True when none is)
    settled: tuple[int, ...] = ()  # rows the totals made sure of
    read: tuple[tuple[frozenset[int], ...], ...] = ()  # each line's totals as they may be read
    suspects: tuple[int, ...] = ()  # rows whose other reading would make them add up (then unsure)
    checked: bool = True  # False: written, but some row is missing or has no reading the rules allow
    unread: int = 0  # totals written but not read (TOTAL_UNREAD): they say nothing
    misread: tuple[tuple[int, int], ...] = ()  # (line, player) of totals no misread row explains: they say nothing

    def adds_up(self, rules: Rules, rows: Sequence[tuple[str, tuple[int, ...]]]) -> bool:
        """Whether these rows (game, cells), e.g. as a person confirmed them, add up to the totals
        (but one, taken for misread)."""
        sums = _line_sums(rules, rows)
        missed = sum(bool(values) and abs(sums[k][j]) not in values
                     for k, line in enumerate(self.read) for j, values in enumerate(line))
        return missed <= TOLERATED


def _line_sums(rules: Rules, rows: Sequence[tuple[str, tuple[int, ...]]]) -> list[list[int]]:
    """What the ИТОГО lines add up to by these rows (game, cells): the − stage, the + stage, all."""
    return [[sum(cells[j] for game, cells in rows if k == 2 or rules.stage_of(game) == k)
             for j in range(rules.players)] for k in range(3)]


def _misread_totals(sums: Sequence[Sequence[int]], read: Sequence[Sequence[dict[int, float]]],
                    values: Sequence[Sequence[frozenset[int]]]) -> list[tuple[int, int]]:
    """The totals (line, player) that do not add up with the rows and that no misread row can
    explain, when every one that does not add up is such; else []. Rows read otherwise change a
    player's column in the line of their stage and in the line of all alike (all = − and +), so a
    total off alone in its column, the column's two others read firmly as the rows make them (as the
    reader's likeliest reading), is a total misread (or added up wrong), not a row: two such totals
    off in two columns do not make the rows doubtful. A column with two totals off, or with one and
    another total not read firmly, may be a row misread, and then nothing is taken for misread."""
    if len(read) != 3:
        return []
    off: list[tuple[int, int]] = []
    for j in range(len(sums[0])):
        column = [(k, read[k][j], values[k][j]) for k in range(3)]
        missed = [k for k, _cell, plausible in column if plausible and abs(sums[k][j]) not in plausible]
        if not missed:
            continue
        firm = [k for k, cell, plausible in column
                if plausible and max(cell, key=cell.__getitem__) == abs(sums[k][j])]
        if len(missed) != 1 or len(firm) != 2:
            return []
        off.append((missed[0], j))
    return off


def check_totals(rules: Rules, choices: dict[int, RowChoice],
                 totals: Sequence[Sequence[Sequence[Reading]]], players: tuple[str, ...] = ()) -> TotalsCheck:
    """The ИТОГО lines (−, +, all) a table writes at the end are a checksum of each player's column,
    as a careful scorekeeper uses them. The readings of the rows not yet sure are weighed together
    with the totals as read (each stage against its line, else the whole game against the last):
    a row whose reading carries at least SURE of the probability of all the combinations that add
    up is sure. When no combination adds up, the rows as chosen disagree with what is written,
    which the caller says (a row passed as sure may be misread, or the table added up wrong), unless
    every total off is one no misread row explains (_misread_totals): those say nothing, and the
    rest are weighed again; or unless one row alone is unsure, and the totals make it a row the deck
    can produce, one digit away from what was read (_from_totals; ``players``: the players' names,
    for the verifier)."""
    read = [[{abs(r.value): r.score for r in cell if r.value is not None} for cell in line] for line in totals]
    strong = [[dict(sorted(cell.items(), key=lambda vs: -vs[1])[:STRONG]) for cell in line] for line in read]
    written = [k for k, line in enumerate(read) if any(line)]
    lost = [[_unread(cell) for cell in line] for line in read]
    values = tuple(tuple(frozenset() if no else _plausible(cell) for cell, no in zip(line, gone))
                   for line, gone in zip(read, lost))
    unread = sum(map(sum, lost))
    if not written:
        return TotalsCheck(choices, False, True)
    if len(choices) != len(rules.slots) or any(not c.options for c in choices.values()):
        return TotalsCheck(choices, True, True, read=values, checked=False, unread=unread)  # checked once a person has the rows
    stage_of = {n: {rules.stage_of(o.game) for o in c.options} for n, c in choices.items()}
    if all(k in written for k in (0, 1)) and all(len(s) == 1 for s in stage_of.values()):
        groups = [([n for n in choices if stage_of[n] == {k}], [k]) for k in (0, 1)]  # smaller: a stage each
    else:
        groups = [(list(choices), written)]
    out = dict(choices)
    settled: list[int] = []
    for rows, lines in groups:
        marginals = _weigh(rules, {n: choices[n] for n in rows}, {k: strong[k] for k in lines})
        for n, (option, share) in marginals.items():
            if share >= choices[n].needs and not choices[n].sure:
                rest = tuple(o for o in choices[n].options if o is not option)
                out[n] = RowChoice((option, *rest), True, option is not choices[n].options[0] or choices[n].changed,
                                   choices[n].tried, needs=choices[n].needs)
                settled.append(n)
    check = TotalsCheck(out, True, True, tuple(sorted(settled)), values, unread=unread)
    final = {n: (c.options[0].game, c.options[0].cells) for n, c in out.items()}
    if check.adds_up(rules, list(final.values())):
        return check
    # the simplest explanation: one row read otherwise, as another of its readings
    suspects = []
    for n, choice in sorted(out.items()):
        for option in choice.options[1:]:
            if check.adds_up(rules, [(option.game, option.cells) if m == n else row for m, row in final.items()]):
                rest = tuple(o for o in choice.options[1:] if o is not option)
                out[n] = RowChoice((choice.options[0], option, *rest), False, choice.changed, choice.tried,
                                   needs=choice.needs)
                suspects.append(n)
                break
    if not suspects and (off := _misread_totals(_line_sums(rules, list(final.values())), read, values)):
        # totals no misread row explains: they say nothing, as unread ones, and the others are weighed again
        blanked = [[[Reading(None, 0.0)] if (k, j) in off else cell for j, cell in enumerate(line)]
                   for k, line in enumerate(totals)]
        again = check_totals(rules, choices, blanked, players)
        if again.agree:  # else the rows settled so disagree with the rest: said as the totals read
            return replace(again, misread=tuple(off))
    made = _from_totals(rules, out, final, read, players, check) if not suspects else None
    if made is not None:
        n, option = made
        chosen = out[n]
        rest = tuple(o for o in chosen.options if o.cells != option.cells)
        mended = out | {n: replace(chosen, options=(option, *rest), sure=True, changed=True)}
        if all(c.sure for c in mended.values()):
            return replace(check, choices=mended, settled=tuple(sorted({*check.settled, n})))
        again = check_totals(rules, mended, totals, players)  # the other rows not sure, weighed with it
        if again.agree:
            return replace(again, settled=tuple(sorted({*again.settled, *check.settled, n})))
    if any(c.dropped for c in choices.values()):
        # a row read only with a digit left out (nearest_rows) has no reading, as before: the totals settle
        # rows with its nearest when they add up, but not adding up they say what a row with no reading
        # says, nothing yet (checked once a person has the rows), not that the whole sheet is in doubt
        return TotalsCheck(choices, True, True, read=values, checked=False, unread=unread)
    return replace(check, choices=out, agree=False, suspects=tuple(suspects))


def _from_totals(rules: Rules, choices: dict[int, RowChoice], rows: Mapping[int, tuple[str, tuple[int, ...]]],
                 read: Sequence[Sequence[dict[int, float]]], players: tuple[str, ...], check: TotalsCheck
                 ) -> tuple[int, Option] | None:
    """The row the totals make of a row not sure, when the rows as chosen do not add up. Of the lines
    that row adds to (its stage's and all), those whose every total is read surely (SURE_TOTAL), at
    least one, each leave the same row once the other rows (as chosen) are taken off: one the deck can
    produce as the game chosen, one cell off the reader's first reading by a digit written otherwise,
    lost or added (a 16 read 6, a 52 read 2), with which every line adds up (check.adds_up). Only when
    exactly one of the rows not sure can be made so. A careful scorekeeper finds a misread row this
    way: the totals are its sum; a misread total, or another row misread, would leave a row whose
    cells do not add up to its game's (the verifier refuses it). None when any of these fails."""
    if not players:
        return None
    found = [made for n, c in choices.items() if not c.sure and (made := _made(rules, n, c, rows, read, players))]
    if len(found) != 1:
        return None
    n, option = found[0]
    if not check.adds_up(rules, [(option.game, option.cells) if m == n else row for m, row in rows.items()]):
        return None
    return n, option


def _made(rules: Rules, n: int, choice: RowChoice, rows: Mapping[int, tuple[str, tuple[int, ...]]],
          read: Sequence[Sequence[dict[int, float]]], players: tuple[str, ...]) -> tuple[int, Option] | None:
    """Row ``n`` as the totals make it (_from_totals), or None."""
    if choice.first is None or not choice.options:
        return None
    game = choice.options[0].game
    others = _line_sums(rules, [row for m, row in rows.items() if m != n])
    made: set[tuple[int, ...]] | None = None
    for k in (rules.stage_of(game), 2):
        firm = [max(cell.items(), key=lambda vs: vs[1]) for cell in read[k] if cell]
        if len(firm) != rules.players or any(math.exp(score) < SURE_TOTAL for _v, score in firm):
            continue  # a line not read surely throughout only checks the row (adds_up)
        signs = [(-1,) if k == 0 else (1,) if k == 1 else (-1, 1)] * rules.players
        found = set()
        for sign in itertools.product(*signs):
            cells = tuple(s * v - o for s, (v, _score), o in zip(sign, firm, others[k]))
            if cells not in found and row_accepted(rules, game, cells, players, n):
                found.add(cells)
        made = found if made is None else made & found
    if made is None or len(made) != 1:
        return None
    cells = made.pop()
    off = [j for j, (a, b) in enumerate(zip(choice.first[1], cells)) if a != b]
    if cells == choice.options[0].cells or len(off) != 1 or not _one_edit(str(abs(choice.first[1][off[0]])),
                                                                          str(abs(cells[off[0]]))):
        return None
    return n, Option(game, cells, 1.0, choice.options[0].score)


def _one_edit(read: str, made: str) -> bool:
    """Whether ``made`` is ``read`` with one digit written otherwise, lost or added."""
    if len(read) == len(made):
        return sum(a != b for a, b in zip(read, made)) == 1
    short, long = sorted((read, made), key=len)
    return len(long) == len(short) + 1 and any(long[:k] + long[k + 1:] == short for k in range(len(long)))


#: One total that does not add up is taken for a misread total: a misread row changes at least two
#: cells (its sum is fixed), so it breaks at least two totals.
TOLERATED = 1
#: For the rows to add up to a total, the total must be read so at least this likely (or be the cell's
#: likeliest reading). The reader keeps many readings of a total (30): a long number has some reading
#: near almost any sum, and one at e^-13 once "agreed" with a row misread 1 ↔ 7 both ways (−10 and −72
#: read −70 and −12, the row's sum kept): a pen-model validation sheet (tools/scan/validate.py --pen,
#: seed 19803) passed that row sure and wrong with its ИТОГО lines filled in.
PLAUSIBLE_TOTAL = math.log(0.01)


#: A total whose readings the reader kept carry less than this together was not read: it says nothing,
#: as an empty one, and the rows are checked against the others (it does not make them "disagree").
#: On validation sheets with ИТОГО (tools/scan/validate.py, odd seeds of MNIST 18000–18199, the pen
#: model's 19800–19859, the fonts' 19700–19739): a pen-model sheet whose −102 and 16 read at 0 and 16 %
#: (every row right) no longer had every row to confirm; the other 149 sheets read alike, the three
#: with wrong rows (Écolier) still disagree. A misread row breaks two totals: both would have to be
#: unread for it to go unnoticed, as on a sheet without ИТОГО, where the rows stand on their own.
TOTAL_UNREAD = 0.5


def _unread(total: dict[int, float]) -> bool:
    """Whether a written total was not read at all (TOTAL_UNREAD)."""
    return bool(total) and sum(math.exp(v) for v in total.values()) < TOTAL_UNREAD


def _plausible(total: dict[int, float]) -> frozenset[int]:
    """The values a total may be taken for in the rows' agreement with it (PLAUSIBLE_TOTAL)."""
    floor = min(PLAUSIBLE_TOTAL, max(total.values(), default=0.0))
    return frozenset(v for v, score in total.items() if score >= floor)


#: To settle rows, every total must be one of its cell's few likeliest readings (a total matched
#: only by a far-fetched reading is chance) ...
STRONG = 3
#: ... but one (TOLERATED) that the reader itself doubted (its kept readings carry less than
#: SURE_TOTAL), taken for misread as likely as the reader made that: a misread row breaks at
#: least two totals, so one total read wrong cannot pass one.
SURE_TOTAL = 0.9


def _doubt(total: dict[int, float]) -> float:
    """How likely a total is none of the readings kept of it, where the reader doubted it (else 0)."""
    missed = max(0.0, 1 - sum(math.exp(v) for v in total.values()))
    return missed if missed >= 1 - SURE_TOTAL else 0.0


def _weigh(rules: Rules, choices: dict[int, RowChoice], lines: dict[int, list[dict[int, float]]]
           ) -> dict[int, tuple[Option, float]]:
    """Each unsure row's likeliest reading among the combinations that add up to every total as read
    but at most TOLERATED doubtful ones (line 0: the − stage, 1: the + stage, 2: all; each player's total, an
    empty one says nothing), with its share; {} when none does."""
    players = rules.players

    def adds(option: Option, line: int) -> bool:
        return line == 2 or rules.stage_of(option.game) == line

    # how likely each total is none of its readings kept (0: read too surely to be misread)
    doubt = {k: [_doubt(cell) for cell in line] for k, line in lines.items()}
    unsure = [n for n in sorted(choices) if not choices[n].sure]
    fixed = {k: [sum(choices[n].options[0].cells[j] for n in choices
                     if n not in unsure and adds(choices[n].options[0], k)) for j in range(players)] for k in lines}
    options = [choices[n].options for n in unsure]
    if math.prod(len(o) for o in options) > TOTALS_BUDGET:
        options = [o[:2] for o in options]
        if math.prod(len(o) for o in options) > TOTALS_BUDGET:
            return {}
    weights: dict[tuple[int, int], float] = {}
    total = 0.0
    found: list[tuple[float, tuple[int, ...]]] = []
    for combo in itertools.product(*(range(len(o)) for o in options)):
        sums = {k: list(v) for k, v in fixed.items()}
        score = 0.0
        for k, i in enumerate(combo):
            option = options[k][i]
            score += math.log(max(option.share, 1e-12))
            for line in lines:
                if adds(option, line):
                    sums[line] = [a + b for a, b in zip(sums[line], option.cells)]
        missed = 0
        for line, read in lines.items():
            for j in range(players):
                if read[j]:
                    value = read[j].get(abs(sums[line][j]))
                    if value is None:  # a total the reader itself doubted may be misread, but one only
                        missed += 1 if doubt[line][j] > 0 else TOLERATED + 1
                        score += math.log(max(doubt[line][j], 1e-12))
                    else:
                        score += value
        if missed <= TOLERATED:
            found.append((score, combo))
    if not found:
        return {}  # nothing adds up to every total as firmly read: the totals settle nothing
    top = max(s for s, _c in found)
    for score, combo in found:
        w = math.exp(score - top)
        total += w
        for k, i in enumerate(combo):
            weights[(k, i)] = weights.get((k, i), 0.0) + w
    out = {}
    for k, n in enumerate(unsure):
        i = max(range(len(options[k])), key=lambda i: weights.get((k, i), 0.0))  # noqa: B023
        out[n] = (options[k][i], weights.get((k, i), 0.0) / total)
    return out


#: The reader's commonest misread, by hands it was not trained on: a 1 written touching the digit
#: after it, read as that digit alone (16 as 6; digits.EDGE_CUTS offers the cut, but at a prior far
#: below the whole piece). A row the rules mend only by putting that 1 back, in one cell, the game
#: as read, at SURE_CHANGED, is sure up to this stretch whatever the mended cell's own score
#: (STRETCH, FLOOR): the stroke the rules found is the one the reader is known to lose, where it
#: lost it. Not on a sheet where the reader shows it is failing otherwise (settle_mends).
LOST_ONE = 7.0
#: Any row the rules mend, the game as read, at SURE_CHANGED, is sure up to this stretch whatever
#: its own score (STRETCH, FLOOR), but not on a sheet read badly either (settle_mends): an unseen
#: hand's digits are misread more often than a training hand's, and a mend the rules alone accept,
#: with nothing else near it, is one misread put right (16 read as 18, 8 as 3). Chosen on the validation half of MNIST's test
#: digits (tools/scan/validate.py, 60 sheets, seeds 19200-19259: six right rows flagged at share
#: 0.99 or more and stretch 2.5-4.9, no wrong row above share 0.8) and checked on photos by training
#: hands (about 7,500 rows, tools/scan/calibrate.py: no wrong row at share 0.97 or more nearer than
#: 8.5, the sheet where faint cells read empty, which the sheet's guard catches).
FAR = 5.0


def settle_mends(choices: dict[int, RowChoice]) -> dict[int, RowChoice]:
    """Rows the rules mended far from the reader's first reading but with no rival (FAR), by
    putting back a lost leading 1 (LOST_ONE), or that hold one number the game fixes (ONE_NUMBER),
    made sure, their game as read; unless some row of the sheet has no reading the rules accept,
    even with a digit read otherwise (nearest_rows, which runs first): cells read empty or far off
    there say the photo is read badly, and a mend may then hide strokes missed in other cells. On
    such a sheet no row the rules changed is sure at all (one mended close to the reader's reading,
    or given its game by the count of games, may be such a mend: a cell read empty, another read
    otherwise to make up)."""
    if any(not c.options or c.dropped for c in choices.values()):  # (a digit left out: no reading either)
        return {n: replace(c, sure=False) if c.sure and c.changed else c for n, c in choices.items()}

    def settled(c: RowChoice) -> bool:
        if c.sure or c.confidence < max(SURE_CHANGED, c.needs) or c.first is None or c.first[0] != c.game:
            return False
        if c.stretch <= ONE_NUMBER and _one_number(c.first, c.options[0]) and not (c.near and len(c.numbers) > 1):
            return True
        if c.near or _digit_added(c.first, c.options[0]):
            return False
        return c.stretch <= FAR or (c.stretch <= LOST_ONE and _lost_one(c.first, c.options[0]))

    return {n: replace(c, sure=True) if settled(c) else c for n, c in choices.items()}


def _digit_added(first: tuple[str, tuple[int, ...]], chosen: Option) -> bool:
    """Whether ``chosen`` gives some cell a number with more digits than the reader read there, other
    than a lost leading 1 put back (6 → 16): a digit the paper may not hold. A number written across
    the line between two cells, its second digit on the line where the finder does not see it
    (page.across_lines), reads as two numbers, and the rules may make the row up by adding a digit
    to one of them: 54 over the line read 5 | 4, chosen 50 | 4 (a validation sheet of MNIST's
    SD-1 writers, 2026-12-07, 61006, passed unasked at stretch 4.5). Of the rows made sure so on that
    day's validation runs (570 sheets read, the same sheets in some of them), two were that row, read
    twice; the one other, right (a row of one number, a 16 read as 7), is now asked about too. A row
    of one number mended by one digit (−96 → −16) is still settled as such (ONE_NUMBER)."""
    for was, now in zip(first[1], chosen.cells):
        a, b = str(abs(was)), str(abs(now))
        if was and len(b) > len(a) and b != "1" + a:
            return True
    return False


#: A row with one number in it, every other cell read 0 or empty (Кинг, −16 to one player), is fixed by
#: its game and where the number stands: the number itself only has to be that game's. One such row
#: mended by a digit read otherwise (−96 to −16: an MNIST writer's flagged 1 read as 9, the 1 not
#: among the reader's readings of it, so no reading of the row was possible; +14 to +16), its game as
#: read, at SURE_CHANGED, is sure up to this stretch: one digit misread outright (MISREAD_DIGIT) of
#: the reader's own first reading, as far as the lost 1 (LOST_ONE). Not on a sheet read badly
#: (settle_mends), nor a row read only so on an ordered blank (its game was not weighed with the
#: other rows' in the count of games, assign_games, which ran before; near_own_game's rows were). Chosen on validation sheets
#: (tools/scan/validate.py: MNIST 18000-18199 and 20000-20299, VALIDATE_GOOGLE 41000-41099, the pen
#: model 19800-19859, FRESH_FONTS 19700-19799, numbers crossed out 42000-42059; every sheet with a
#: row to confirm read again): two rows became sure, both right (sheets 18098 and 20250), and no
#: wrong row; the pointed-pen font's one such mend that was wrong (+19 +1 0 0 read for +16 0 0 0)
#: changed two cells.
ONE_NUMBER = LOST_ONE


def _one_cell(first: tuple[str, tuple[int, ...]] | None, chosen: Option) -> tuple[int, int, int] | None:
    """The one cell ``chosen`` changed from the first reading, its game as read, a number kept a
    number of the same sign: (its place, what was read, what is chosen); None otherwise."""
    if first is None or first[0] != chosen.game:
        return None
    changed = [(k, a, b) for k, (a, b) in enumerate(zip(first[1], chosen.cells)) if a != b]
    if len(changed) != 1 or changed[0][1] == 0 or (changed[0][1] > 0) != (changed[0][2] > 0):
        return None
    return changed[0]


def _one_number(first: tuple[str, tuple[int, ...]] | None, chosen: Option) -> bool:
    """Whether ``chosen`` is the first reading, a row holding one number, with one digit of that
    number read otherwise (−96 → −16), every other cell 0 as read."""
    cell = _one_cell(first, chosen)
    if cell is None:
        return False
    k, was, now = cell
    a, b = str(abs(was)), str(abs(now))
    return len(a) == len(b) and _one_edit(a, b) and not any(v for i, v in enumerate(chosen.cells) if i != k)


def _lost_one(first: tuple[str, tuple[int, ...]] | None, chosen: Option) -> bool:
    """Whether ``chosen`` is the first reading with a leading 1 put back in one cell (6 → 16)."""
    cell = _one_cell(first, chosen)
    return cell is not None and str(abs(cell[2])) == f"1{abs(cell[1])}"


#: A sheet on which at least this share of the rows (and at least DOUBTED_ROWS rows) is left to
#: confirm reads badly as a whole: the reader's probabilities were fitted over many hands, and on a
#: hand it reads this badly a row it calls sure is not (a bench sheet by one Google font: 30 of 56
#: rows unsure, one row sure at 99 % and wrong, its game's number misread). First a quarter and 3
#: rows; lowered when a `short` sheet by a pointed-pen hand (validation fonts, seed 19704) had 2 of
#: its 10 rows unsure and passed a third sure and wrong: two misreads that made up for each other
#: (−2 −8 −4 −2 read 0 −8 −6 −2). On the validation sheets (264: tools/scan/validate.py, MNIST
#: 19500-19619 and 19620-19672, fonts 19700-19799) any share from 10 % to 20 % with 2 rows catches
#: it and puts no other sheet in doubt (rows to confirm 8.5 → 8.7 %); 15 % is the middle. A sheet
#: asking about 2 rows already had something to confirm: no sheet loses "nothing to confirm".
DOUBTED_SHARE = 0.15
DOUBTED_ROWS = 2
#: Why every row of a sheet is to confirm (RowChoice.doubted).
TOTALS_DISAGREE = "totals"
READS_BADLY = "hand"
NO_BID = "bid"  # a trump deal of Кинг с торговлей: the declarer and the bid are not on the blank
CROSSED = "crossed"  # a number in the row was crossed out and written again (digits.crossed_out)
ACROSS = "across"  # a number in the row runs across a line between two cells (page.across_lines)


#: A row where a number was crossed out and written again (CROSSED) that the rules chose at least this
#: surely is read as corrected and not asked about: the table crossed the old number out, and the new
#: one is what it means. First every such row was asked; on the validation sheets of 2026-12-07
#: (`tools/scan/validate.py KIND --table 30 61000` for the six kinds, 172 sheets read, 2 % of their
#: numbers corrected) each of the 84 such rows chosen surely, on a sheet not in doubt, was right and
#: chosen at 99 % or more, while one row of 33 with a number written across a line, chosen at 99 %,
#: was wrong (such a number may be either cell's: those stay asked). Above SURE, for a margin.
CORRECTED_SURE = 0.99


def ask_marked(choices: dict[int, RowChoice], marked: Mapping[int, str]) -> dict[int, RowChoice]:
    """Every row the paper itself marks as to check is to confirm, and says why: a number written
    across the line between two cells (ACROSS), or crossed out and written again (CROSSED) unless
    the rules chose the row at least CORRECTED_SURE (then it is sure, and ``corrected``); read first
    as the rules chose. After doubt_sheet and ask_bids: a row read poorly, whose totals disagree, or
    that needs a bid, keeps that reason; one read well on a sheet that reads poorly takes this one,
    unless it is read as corrected (then it keeps the sheet's reason)."""
    def mark(c: RowChoice, why: str) -> RowChoice:
        if why == CROSSED and c.confidence >= CORRECTED_SURE and (c.sure or c.doubted == READS_BADLY):
            return replace(c, corrected=True)
        if c.sure or c.doubted == READS_BADLY:
            return replace(c, sure=False, doubted=why)
        return c

    return {n: mark(c, marked[n]) if n in marked else c for n, c in choices.items()}


def ask_bids(rules: Rules, choices: dict[int, RowChoice]) -> dict[int, RowChoice]:
    """Every row that needs a declarer and a bid (needs_bid) is to confirm, the reader being unable to
    give them; after doubt_sheet, so that these rows do not make the sheet look read badly."""
    return {n: replace(c, sure=False, doubted=NO_BID) if c.sure and needs_bid(rules, c.game) else c
            for n, c in choices.items()}


def doubt_sheet(choices: dict[int, RowChoice], totals_agree: bool) -> dict[int, RowChoice]:
    """The last word on a sheet as a whole: when the ИТОГО lines written on it do not add up with
    the rows as read, or many of its rows are unsure (DOUBTED_SHARE), no row of it is sure: a row
    the reader was sure of may be the misread (a 6 read as 0 beside a 0 read as 6 still adds up
    along the row; only the column's total says so). Such a sheet has rows to confirm already;
    this only leaves none of its rows passed unasked. A row the paper marks (ask_marked, after this)
    counts only if it read poorly, as any row: a correction or a number across two cells read well is
    not a hand read badly."""
    unsure = sum(not c.sure for c in choices.values())
    if totals_agree and (unsure < DOUBTED_ROWS or unsure < DOUBTED_SHARE * len(choices)):
        return choices
    why = READS_BADLY if totals_agree else TOTALS_DISAGREE
    return {n: replace(c, sure=False, doubted=why) if c.sure else c for n, c in choices.items()}
