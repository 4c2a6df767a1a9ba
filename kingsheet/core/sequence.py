"""Group 5 of the checks: the sequence of deals and whose turn each one was.

A report names the simplest explanation of what went wrong, at the deal where it was written:
the written games are aligned with the template's order by the fewest mistakes (a wrong game, a
missing or an extra deal, two neighbours swapped), and among equally few by the fewest written
cells they would change (a declarer who does not fit, cells that do not fit the game). Then a
missing deal and an extra deal of the same game are one moved deal; a deal written twice where
another belongs is said so; a whole half written first is one problem; and declarers or orderers
who all follow another first dealer are one problem.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Sequence

from kingsheet.core.game import GameFile
from kingsheet.core.i18n import _, language, ngettext
from kingsheet.core.problems import Problem, num
from kingsheet.core.record import Record
from kingsheet.core.report import Row
from kingsheet.core.rules import Order, Rules, Turn, base
from kingsheet.core.vocabulary import game_word

#: Rows past this many more than the template's slots are extra deals without aligning them.
_SLACK = 16


class Step(Record):
    """One step of an alignment: ``op`` is match, wrong, swap (row and row + 1 with slot and
    slot + 1 crossed), missing (slot has no row; ``row`` is the row it is missing before) or
    extra (row has no slot)."""

    op: str
    row: int
    slot: int


def align(slots: Sequence[str], played: Sequence[str | None], match_cost: Callable[[int, int], int],
          wrong_cost: Callable[[int, int], int], extra_cost: Callable[[int], int], missing_cost: int) -> list[Step]:
    """The alignment with the fewest mistakes, then the fewest changed cells (see the module).

    Slots after the last row are not missing while the sheet is shorter than the game: it is
    simply not finished.
    """
    n, m = len(played), len(slots)
    if n <= m and list(played) == list(slots[:n]):
        # every row where it belongs: no mistake at all, and no other alignment is without one
        return [Step("match", k, k) for k in range(n)]
    # The best alignment has no more mistakes than rows and slots paired in order (each pair that
    # differs a wrong game, the rows past the slots extra), and each step off the diagonal is a
    # mistake: so it lies within that many columns of the diagonal. Only that band is searched.
    band = sum(a != b for a, b in zip(played, slots)) + max(0, n - m)
    inf = (10**9, 10**9)
    cost = [[inf] * (m + 1) for _ in range(n + 1)]
    back: list[list[tuple[str, int, int] | None]] = [[None] * (m + 1) for _ in range(n + 1)]
    cost[0][0] = (0, 0)
    for i in range(n + 1):
        for j in range(max(0, i - band), min(m, i + band) + 1):
            here = cost[i][j]
            if i == 0 and j == 0:
                continue
            best: tuple[int, int] = here
            how: tuple[str, int, int] | None = back[i][j]
            options: list[tuple[tuple[int, int], tuple[str, int, int]]] = []
            if i and j:
                prev = cost[i - 1][j - 1]
                if played[i - 1] == slots[j - 1]:
                    options.append(((prev[0], prev[1] + match_cost(i - 1, j - 1)), ("match", i - 1, j - 1)))
                else:
                    options.append(((prev[0] + 1, prev[1] + wrong_cost(i - 1, j - 1)), ("wrong", i - 1, j - 1)))
            if i:
                prev = cost[i - 1][j]
                options.append(((prev[0] + 1, prev[1] + extra_cost(i - 1)), ("extra", i - 1, j)))
            if j:
                prev = cost[i][j - 1]
                options.append(((prev[0] + 1, prev[1] + missing_cost), ("missing", i, j - 1)))
            if (i > 1 and j > 1 and played[i - 1] == slots[j - 2] and played[i - 2] == slots[j - 1]
                    and played[i - 1] != played[i - 2]):
                prev = cost[i - 2][j - 2]
                extra = match_cost(i - 1, j - 2) + match_cost(i - 2, j - 1)
                options.append(((prev[0] + 1, prev[1] + extra), ("swap", i - 2, j - 2)))
            for c, option in options:
                if c < best:
                    best, how = c, option
            cost[i][j], back[i][j] = best, how
    # a sheet as long as the game is finished: its last slots are missing, not yet to come
    j = m if n >= m else min(range(m + 1), key=lambda k: (cost[n][k], -k))
    i, steps = n, []
    while i > 0 or j > 0:
        step = back[i][j]
        assert step is not None
        op, r, s = step
        steps.append(Step(op, r, s))
        if op in ("match", "wrong"):
            i, j = i - 1, j - 1
        elif op == "swap":
            i, j = i - 2, j - 2
        elif op == "extra":
            i -= 1
        else:
            j -= 1
    return list(reversed(steps))


def label(rules: Rules, gid: str | None, lang: str | None = None) -> str:
    """A game's name on the sheet (its template label), for messages; "?" when there is none."""
    if gid is None:
        return "?"
    game = rules.games.get(gid)
    return game.label(lang) if game else game_word(base(gid), lang or language())


class _Problems:
    """Collects the sequence's problems, each message led by its deal and the game written there."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.items: list[Problem] = []

    def add(self, code: str, number: int | None, gid: str | None, text: str, player: str | None = None,
            shown: str | None = None, expected: object = None, actual: object = None) -> None:
        """``shown`` is the game the sheet has at that deal, when it differs from ``gid``."""
        label_of = shown or gid
        where = _("deal {number}").format(number=number) if number else _("the sheet")
        if label_of:
            where += f" ({label(self.rules, label_of)})"
        self.items.append(Problem(code, number, gid, player, expected, actual, f"{where}: {text}"))


def check_sequence(game: GameFile, rows: Sequence[Row]) -> list[Problem]:
    """Every sequence and turn problem of the sheet."""
    rules = game.rules
    out = _Problems(rules)
    if rules.order is Order.TO_LIMIT:
        end = ended_at(game, rows)
        if end is not None:
            for row in rows:
                if row.deal.number > end:
                    out.add("extra-deal", row.deal.number, row.game_id,
                            _("the game ended at deal {end}, when a total reached {limit}").format(
                                end=end, limit=num(-(rules.limit or 0))))
    elif rules.order is Order.FIXED:
        _fixed_order(game, rows, out)
    else:
        _ordered(game, rows, out)
    return out.items


# ---- fixed order --------------------------------------------------------------------------------

def _fixed_order(game: GameFile, rows: Sequence[Row], out: _Problems) -> None:
    rules = game.rules
    slots = list(rules.slots)
    head = list(rows[: len(slots) + _SLACK])
    played = [r.game_id for r in head]
    n = len(game.players)

    def expected_declarer(slot: int) -> str | None:
        if rules.declares is not Turn.LEFT or not rules.games[slots[slot]].declared:
            return None
        return game.on_turn(slot + 1)

    # a sheet whose deals keep the № of their rows (a workbook with a row left empty) says where
    # each deal was written: a deal away from its row is far costlier than the rows skipped before it
    placed = any(r.deal.number != k for k, r in enumerate(head, 1))

    def away(i: int, j: int) -> int:
        return 3 * (n + 1) if placed and head[i].deal.number != j + 1 else 0

    def match_cost(i: int, j: int) -> int:
        want = expected_declarer(j)
        written = head[i].deal.declarer
        return int(want is not None and written is not None and written != want) + away(i, j)

    def fits(i: int, gid: str) -> bool:
        row, g = head[i], rules.games.get(gid)
        return g is not None and row.cells is not None and sum(row.cells) == g.known_total

    def wrong_cost(i: int, j: int) -> int:
        return 1 + (0 if fits(i, slots[j]) else n) + away(i, j)

    def twin(i: int, k: int) -> bool:
        return 0 <= k < len(head) and (head[k].game_id, head[k].cells, head[k].deal.declarer) == \
            (head[i].game_id, head[i].cells, head[i].deal.declarer)

    def extra_cost(i: int) -> int:
        # a copy of the row before is the copy; the first of two equal rows, nearly; any other row
        # is a game and n cells written for nothing
        return 0 if twin(i, i - 1) else 1 if twin(i, i + 1) else n + 1

    def mistakes_of(steps: list[Step]) -> int:
        return sum(s.op != "match" for s in steps)

    steps = align(slots, played, match_cost, wrong_cost, extra_cost, n + 1)
    # a whole stage written before another: align with the stages reordered, one mistake more
    halves = [st for st in rules.stages if st]
    best_perm: tuple[int, ...] | None = None
    if len(halves) > 1 and mistakes_of(steps) > 1:  # a reordering costs one mistake: it must save two
        mistakes = mistakes_of(steps)
        for perm in itertools.permutations(range(len(halves))):
            if list(perm) == sorted(perm):
                continue
            reordered = [g for k in perm for g in halves[k]]
            if len(reordered) != len(slots):
                continue
            alt = align(reordered, played, match_cost, wrong_cost, extra_cost, n + 1)
            if mistakes_of(alt) + 1 < mistakes:
                mistakes, steps, best_perm = mistakes_of(alt) + 1, alt, perm
                slots = reordered
    if best_perm is not None:
        first = halves[best_perm[0]]
        text = (_("the plus games are written before the minus games; the blank starts with {game}")
                if rules.games[first[0]].sign > 0 else
                _("the minus games are written before the plus games; the blank starts with {game}"))
        number = head[0].deal.number if head else 1
        out.add("wrong-order", number, head[0].game_id if head else None,
                text.format(game=label(rules, rules.slots[0])))
    _report_steps(game, head, slots, steps, out, expected_declarer_for=expected_declarer
                  if best_perm is None else (lambda j: None))
    for row in rows[len(head):]:
        out.add("extra-deal", row.deal.number, row.game_id, _("one deal too many: the sheet has no row for it"))
    if rules.declares is Turn.FREE:
        _declarer_shares(game, rows, out)


def _report_steps(game: GameFile, rows: Sequence[Row], slots: Sequence[str], steps: list[Step],
                  out: _Problems, expected_declarer_for: Callable[[int], str | None]) -> None:
    rules = game.rules
    played = [r.game_id for r in rows]

    def number_at(idx: int) -> int:
        if idx < len(rows):
            return rows[idx].deal.number
        return rows[-1].deal.number + 1 if rows else 1

    # a missing deal and an extra deal of the same game are one moved deal
    missing = [s for s in steps if s.op == "missing"]
    extra = [s for s in steps if s.op == "extra"]
    moved: dict[int, Step] = {}  # extra row -> the missing step it fills
    used: set[int] = set()
    for e in extra:
        for k, ms in enumerate(missing):
            if k not in used and slots[ms.slot] == played[e.row]:
                used.add(k)
                moved[e.row] = ms
                break
    slot_count = Counter(slots)
    turns: list[tuple[str, str, str, str | None, int]] = []  # (dealer, written, expected, game, deal)
    for s in steps:
        row = rows[s.row] if s.row < len(rows) else None
        if s.op == "match" and row is not None:
            want = expected_declarer_for(s.slot)
            if want is not None and row.deal.declarer is not None:
                turns.append((game.dealer_of(s.slot + 1), row.deal.declarer, want, row.game_id, row.deal.number))
        elif s.op == "swap":
            out.add("wrong-order", number_at(s.row), played[s.row],
                    _("played before {game} (deal {deal}); the two are swapped").format(
                        game=label(rules, played[s.row + 1]), deal=number_at(s.row) + 1))
        elif s.op == "wrong":
            written = played[s.row]
            if written is not None and Counter(played)[written] > slot_count[written]:
                twin = next((rows[k].deal.number for k in range(len(rows)) if k != s.row and played[k] == written),
                            None)
                out.add("extra-deal", number_at(s.row), written,
                        _("{game} is written twice (deals {first} and {second})").format(
                            game=label(rules, written), first=twin, second=number_at(s.row))
                        if twin else _("{game} is written once too often").format(game=label(rules, written)))
                out.add("missing-deal", number_at(s.row), slots[s.slot],
                        _("{game} is missing: the sheet has it here").format(game=label(rules, slots[s.slot])), shown=written)
            else:
                out.add("wrong-order", number_at(s.row), written, _("the sheet has {game} here").format(game=label(rules, slots[s.slot])))
        elif s.op == "missing":
            if any(m is s for m in moved.values()):
                continue
            shown = played[s.row] if s.row < len(played) else None
            out.add("missing-deal", number_at(s.row), slots[s.slot],
                    _("{game} is missing before this deal").format(game=label(rules, slots[s.slot])), shown=shown)
        elif s.op == "extra":
            if s.row in moved:
                where = moved[s.row].row
                place = _("before deal {deal}").format(deal=number_at(where)) if where < len(rows) else _("later")
                out.add("wrong-order", number_at(s.row), played[s.row],
                        _("written in the wrong place: its place is {place}").format(place=place))
            else:
                copy_of = next((rows[k].deal.number for k in (s.row - 1, s.row + 1) if 0 <= k < len(rows)
                                and rows[k].game_id == rows[s.row].game_id and rows[k].cells == rows[s.row].cells),
                               None)
                text = (_("written twice: a copy of deal {copy_of}").format(copy_of=copy_of) if copy_of
                        else _("one deal too many: the sheet has no row for it"))
                out.add("extra-deal", number_at(s.row), played[s.row], text)
    _turn_problems(game, turns, "declarer", out)


def _declarer_shares(game: GameFile, rows: Sequence[Row], out: _Problems) -> None:
    """Free declaring: each player declares his share of the trump deals, no more."""
    rules = game.rules
    trump_slots = [g for g in rules.slots if rules.games[g].declared]
    if not trump_slots:
        return
    share = len(trump_slots) / len(game.players)
    declared: Counter[str] = Counter()
    for row in rows:
        if row.game_id and rules.games[row.game_id].declared and row.declarer:
            declared[row.declarer] += 1
            if declared[row.declarer] > share:
                out.add("declarer", row.deal.number, row.game_id,
                        _("{declarer} declares more than their share ({share:g})").format(
                            declarer=row.declarer, share=share), row.declarer)


def _turn_problems(game: GameFile, turns: list[tuple[str, str, str, str | None, int]], code: str,
                   out: _Problems) -> None:
    """(dealer, written, expected, game, deal number) of every deal whose turn the rules fix.

    When every one is wrong but all follow one other first dealer, that is the one mistake; in
    ordered games, where the deals have no fixed order, every orderer one seat off from some deal
    on means a deal is missing (or one too many) before it."""
    wrong = [t for t in turns if t[1] != t[2]]
    if not wrong:
        return
    players, n = game.players, len(game.players)

    def shift_of(entries: list[tuple[str, str, str, str | None, int]]) -> int | None:
        shifts = {(players.index(written) - players.index(want)) % n for _, written, want, _, _ in entries}
        return shifts.pop() if len(shifts) == 1 else None

    start = turns.index(wrong[0])
    tail = turns[start:]
    shift = shift_of(tail) if len(tail) >= 2 and len(wrong) == len(tail) else None
    # from the first deal on, a shift is another first dealer, or (ordered games) a first deal
    # missing: the first dealer as the file states it, in a sheet shorter than the game, makes
    # it the deal
    stated = game.first_dealer in players
    short = len(game.deals) < len(game.rules.slots)
    if shift is not None and start == 0 and not (code == "orderer" and stated and short):
        first = game.dealer_of(1)
        really = players[(players.index(first) + shift) % n]
        _unused, _unused, _unused, gid, number = turns[0]
        text = (_("every declarer is written as if {really} dealt first, but the sheet has {first} dealing first "
                  "(first_dealer in the game file)") if code == "declarer" else
                _("every orderer is written as if {really} dealt first, but the sheet has {first} dealing first "
                  "(first_dealer in the game file)"))
        out.add(code, number, gid, text.format(really=really, first=first), None, expected=first, actual=really)
        return
    if shift is not None and code == "orderer":
        _unused, _unused, _unused, gid, number = tail[0]
        if shift == n - 1:
            out.add("extra-deal", number, gid,
                    _("from this deal on every orderer is one seat early: one deal too many is written before it"))
        else:
            out.add("missing-deal", number, gid,
                    ngettext("from this deal on every orderer is {shift} seat late: {shift} deal is missing before it",
                             "from this deal on every orderer is {shift} seats late: {shift} deals are missing before it",
                             shift).format(shift=shift))
        return
    text = (_("{written} is written, but {want} declares here (left of {dealer}, who deals)") if code == "declarer"
            else _("{written} is written, but {want} orders here (left of {dealer}, who deals)"))
    for dealer, written, want, gid, number in wrong:
        out.add(code, number, gid, text.format(written=written, want=want, dealer=dealer),
                written, expected=want, actual=written)


# ---- ordered games --------------------------------------------------------------------------------

def orderer_of(game: GameFile, row: Row) -> str | None:
    """Who orders the deal by the rules' turn (the player left of its dealer); None where any player
    may order, and the sheet alone says who did."""
    return game.on_turn(row.deal.number) if game.rules.orders is Turn.LEFT else None


def _ordered(game: GameFile, rows: Sequence[Row], out: _Problems) -> None:
    rules = game.rules
    if rules.orders is Turn.LEFT:
        turns = [(game.dealer_of(r.deal.number), r.deal.orderer, game.on_turn(r.deal.number), r.game_id,
                  r.deal.number) for r in rows if r.deal.orderer is not None]
        _turn_problems(game, turns, "orderer", out)
    # who ordered each game: as written, or as the turn gives it where that explains more
    written = _games_ordered(game, rows, lambda r: r.deal.orderer if r.deal.orderer is not None
                             else orderer_of(game, r))
    if rules.orders is Turn.LEFT:
        by_turn = _games_ordered(game, rows, lambda r: orderer_of(game, r))
        if len(by_turn.items) < len(written.items):
            written = by_turn
    out.items.extend(written.items)


def _games_ordered(game: GameFile, rows: Sequence[Row], who_of: Callable[[Row], str | None]) -> _Problems:
    """Each game once at the table, or once by each player: what is played too often or not at all."""
    rules = game.rules
    out = _Problems(rules)
    per_player = rules.order is Order.ORDERED_PLAYER
    want = Counter(rules.per_round)
    seen: Counter[tuple[str | None, str]] = Counter()
    played: dict[tuple[str | None, str], list[tuple[Row, str | None]]] = {}
    found: list[tuple[int, str | None, str, str | None]] = []
    for row in rows:
        if row.game_id is None:
            continue
        who = who_of(row)
        if per_player and who is None:
            out.add("orderer", row.deal.number, row.game_id, _("who ordered this game is not recorded"))
            continue
        key = (who if per_player else None, row.game_id)
        seen[key] += 1
        played.setdefault(key, []).append((row, who))
    for key, entries in sorted(played.items(), key=lambda kv: kv[1][0][0].deal.number):
        extra = len(entries) - want[key[1]]
        if extra <= 0:
            continue
        # the simplest explanation: a row written again (its cells and its declarer as an earlier
        # row's) is the copy; the deals played too often past the copies are the last ones
        copies = [(row, who, first) for k, (row, who) in enumerate(entries)
                  if (first := next((e for e, _w in entries[:k] if _same_row(e, row)), None)) is not None][:extra]
        blamed = {row.deal.number for row, _w, _f in copies}
        late = [(row, who) for row, who in reversed(entries) if row.deal.number not in blamed][:extra - len(copies)]
        for row, who, first in copies:
            found.append((row.deal.number, row.game_id, _("written twice: a copy of deal {copy_of}").format(
                copy_of=first.deal.number), who if per_player else None))
        for row, who in late:
            text = (_("{who} has already played {game}") if per_player
                    else _("the table has already played {game}"))
            found.append((row.deal.number, row.game_id, text.format(who=who, game=label(rules, row.game_id)),
                          who if per_player else None))
    for number, gid, text, who in sorted(found, key=lambda f: f[0]):  # in the order of the deals
        out.add("extra-deal", number, gid, text, who)
    if len(rows) >= len(rules.slots):
        for who in (game.players if per_player else (None,)):
            for gid, count in want.items():
                short = count - seen[(who, gid)]
                if short > 0:
                    text = _("{who} has not played {game}") if who else _("the table has not played {game}")
                    out.add("missing-deal", None, gid, text.format(who=who, game=label(rules, gid)), who)
    return out


def _same_row(a: Row, b: Row) -> bool:
    """Two rows written alike: one game, the same cells, the same declarer and orderer."""
    return (a.game_id, a.cells, a.deal.declarer, a.deal.orderer) == (b.game_id, b.cells, b.deal.declarer, b.deal.orderer)


# ---- games played to a limit ----------------------------------------------------------------------

def ended_at(game: GameFile, rows: Sequence[Row]) -> int | None:
    """For a game played to a limit: the deal after which someone's total reached −limit."""
    limit = game.rules.limit
    if limit is None:
        return None
    running = dict.fromkeys(game.players, 0)
    for row in rows:
        for who, cell in zip(game.players, row.cells or ()):
            running[who] += cell
        if min(running.values()) <= -limit:
            return row.deal.number
    return None
