"""The verifier: the five groups of checks of RULES.md, every problem collected as a value.

1. each row sums to its total; 2. each cell is possible on its own; 3. the row is possible as
a whole (exact for Ералаш); 4. ИТОГО (−), ИТОГО (+) and ИТОГО; 5. the sequence of deals.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from kingsheet.core.feasibility import (
    cards_possible,
    count_conflict,
    count_shortfall,
    counts_possible,
    eralash_possible,
    local_possible,
)
from kingsheet.core.game import Deal, GameFile
from kingsheet.core.i18n import _
from kingsheet.core.problems import Problem, num
from kingsheet.core.record import Record, replace
from kingsheet.core.report import Report, Row, Totals
from kingsheet.core.rules import SUIT_NAMES, Game, Kind, Rules
from kingsheet.core.scoring import bid_row_total, declarer_tricks, is_rospis, rospis_each, undo_buyout
from kingsheet.core.sequence import check_sequence, ended_at
from kingsheet.core.sequence import label as game_label
from kingsheet.core.vocabulary import COUNT_WORDS, count_word

__all__ = ["Report", "Row", "Totals", "ended_at", "row_possible", "row_problems", "suit_of", "verify"]


class _Deal:
    """Collects the problems of one deal with its number and game label in every message."""

    def __init__(self, number: int, label: str, game_id: str | None) -> None:
        self.number, self.label, self.game_id = number, label, game_id
        self.problems: list[Problem] = []

    def add(self, code: str, text: str, player: str | None = None, expected: Any = None,
            actual: Any = None) -> None:
        self.problems.append(Problem(code, self.number, self.game_id, player, expected, actual,
                                     _("deal {number} ({label}): {text}").format(number=self.number, label=self.label, text=text)))


def _cells_from_taken(game: Game, taken: tuple[Mapping[str, int], ...], rules: Rules, chk: _Deal,
                      players: tuple[str, ...]) -> tuple[int, ...]:
    """Points from counts, checking the counts themselves exactly against the deck."""
    cats = game.categories
    as_counts = [{("trumps" if c == "tricks" and cats == ("trumps",) else c): v for c, v in t.items()}
                 for t in taken]
    for who, counts in zip(players, as_counts):
        extra = [c for c, v in counts.items() if c not in cats and v]
        if extra:
            chk.add("cell-impossible", _("{who}: {extra} is not counted in this game").format(who=who, extra=count_word(extra[0]) if extra[0] in COUNT_WORDS else extra[0]), who)
        elif (why := count_shortfall(rules, game.id, counts)) is not None:
            chk.add("cell-impossible", f"{who}: {why}", who)
    for cat in cats:
        got = sum(c.get(cat, 0) for c in as_counts)
        want = game.counts[cat]
        if got != want:
            noun = count_word(cat)
            chk.add("row-sum", _("{noun} taken add up to {got}, the deal holds {want}").format(noun=noun, got=got, want=want), expected=want, actual=got)
    if not chk.problems and not counts_possible(rules, game.id, as_counts):
        chk.add("cell-impossible", count_conflict(rules, game.id, as_counts))
    return tuple(game.points(c) for c in as_counts)


def suit_of(contract: str | None) -> str | None:
    key = (contract or "").strip().casefold().replace("ё", "е")
    for suit, names in SUIT_NAMES.items():
        if key in names or key == suit.casefold():
            return suit
    return None


class RowAt(Record):
    """What a check of one row reads: the rules, the row's game, the deal, its cells (points, or
    points from what each player took) and the players in seating order."""

    rules: Rules
    game: Game
    deal: Deal
    cells: tuple[int, ...]
    players: tuple[str, ...]


#: A check of one row (groups 1–3): the row in, its problems said into the deal's collector; it
#: returns the row's expected total (None when it cannot be known).
RowCheck = Callable[[RowAt, "_Deal"], int | None]


def _check_card_row(row: RowAt, chk: _Deal) -> int | None:
    """A Tier-2 deal: the cells must be a split of the scoring cards (or the moon, or a chosen suit)."""
    game, cells, rules, players, deal = row.game, row.cells, row.rules, row.players, row.deal
    if game.choose_suit:
        suit = suit_of(deal.contract)
        if suit is None:
            chk.add("contract", _("the penalty suit is not recorded (contract = пики, трефы, бубны or черви)"))
            return None
        size = rules.deck.suit_size(suit)
        cells_l = list(cells)
        bid = 0
        if game.bid:
            if deal.bid is None or deal.declarer is None:
                chk.add("bid", _("the auction's winner and their bid are not recorded (declarer = …, bid = N)"))
                return None
            bid = deal.bid
            cells_l[players.index(deal.declarer)] += bid  # the bid is written on top of his cards
        for who, cell in zip(players, cells_l):
            if cell > 0:
                chk.add("cell-sign", _("{who}: {cell} is above zero").format(who=who, cell=num(cell)), who, actual=cell)
            elif cell < -size:
                chk.add("cell-range", _("{who}: {cell}, but the suit has {size} cards").format(who=who, cell=num(cell), size=size), who,
                        expected=-size, actual=cell)
        expected = -size - bid
        if sum(cells) != expected:
            chk.add("row-sum", _("row sums to {cells}, expected {expected}").format(cells=num(sum(cells)), expected=num(expected)), expected=expected,
                    actual=sum(cells))
        return expected
    n = len(players)
    if game.moon is not None and sorted(cells) == [0] * (n - 1) + [game.moon]:
        return game.moon  # one player took every scoring card
    for who, cell in zip(players, cells):
        if not local_possible(rules, game.id, cell):
            chk.add("cell-impossible", _("{who}: no set of this game's cards gives {cell}").format(who=who, cell=num(cell)), who, actual=cell)
    expected = game.total
    if sum(cells) != expected:
        chk.add("row-sum", _("row sums to {cells}, expected {expected}").format(cells=num(sum(cells)), expected=num(expected)), expected=expected,
                actual=sum(cells))
    elif not chk.problems and not cards_possible(rules, game.id, list(cells)):
        chk.add("cell-impossible", _("no split of the cards gives these cells"))
    return expected


def _points_row(row: RowAt, chk: _Deal) -> int:
    """A deal of a single game: each cell on its own, then the row's sum."""
    _check_point_cells(row, chk)
    _check_row_sum(row, row.game.total, chk)
    return row.game.total


def _eralash_row(row: RowAt, chk: _Deal) -> int:
    """Ералаш: as a single game, then (when nothing else is wrong) the row as a whole, exactly."""
    expected = _points_row(row, chk)
    if not chk.problems and not eralash_possible(row.rules, row.game.id, list(row.cells)):
        chk.add("cell-impossible", _("no split of the cards and tricks gives these cells"))
    return expected


def _trumps_row(row: RowAt, chk: _Deal) -> int:
    """A trump deal: its cells as played, then the row's sum (which a bid may change)."""
    expected = _check_trump_row(row, chk)
    _check_row_sum(row, expected, chk)
    return expected


#: The checks of a row, by the kind of its game: a new kind of game is one entry here.
ROW_CHECKS: dict[Kind, RowCheck] = {
    Kind.SINGLE: _points_row,
    Kind.ERALASH: _eralash_row,
    Kind.TRUMPS: _trumps_row,
    Kind.CARDS: _check_card_row,
}


def _check_cells(game: Game, cells: tuple[int, ...], rules: Rules, chk: _Deal, players: tuple[str, ...],
                 deal: Deal) -> int | None:
    """Groups 1–3 for one row; returns the row's expected total (None when it cannot be known)."""
    return ROW_CHECKS[game.kind](RowAt(rules, game, deal, cells, players), chk)


def _check_point_cells(row: RowAt, chk: _Deal) -> None:
    """Each cell alone: its sign, within the row's total, a multiple of the unit (all or nothing for
    the King or a single last trick), and for Ералаш a number one player can take."""
    game, rules = row.game, row.rules
    step = min(game.units.values()) if game.kind is Kind.SINGLE else None
    top = abs(game.total)
    for who, cell in zip(row.players, row.cells):
        value = game.sign * cell
        if cell and value < 0:
            chk.add("cell-sign", _("{who}: {cell} has the wrong sign").format(who=who, cell=num(cell)), who, actual=cell)
        elif value > top:
            chk.add("cell-range", _("{who}: {cell} is beyond the row's {total}").format(who=who, cell=num(cell), total=num(game.total)), who,
                    expected=game.total, actual=cell)
        elif step and value % step:
            if top == step:  # one card (the King) or one last trick: all or nothing
                text = _("{who}: {cell}, but the {total} goes whole to one player, and the others write 0").format(
                    who=who, cell=num(cell), total=num(game.total))
                want = game.total  # the whole of the row, with its sign
            else:
                text = _("{who}: {cell} is not a multiple of {step}").format(who=who, cell=num(cell), step=step)
                want = step
            chk.add("cell-step", text, who, expected=want, actual=cell)
        elif game.kind is Kind.ERALASH and not local_possible(rules, game.id, value):
            chk.add("cell-impossible", _("{who}: no one can take exactly {cell} in this game").format(who=who, cell=num(cell)), who,
                    actual=cell)


def _check_row_sum(row: RowAt, expected: int, chk: _Deal) -> None:
    """The row adds up to its total; where several players are each written the whole of a game
    one player takes (the King written twice), they are named."""
    total = sum(row.cells)
    if total == expected:
        return
    whole = [who for who, cell in zip(row.players, row.cells) if cell == expected] if row.game.kind is Kind.SINGLE else []
    why = (_(": {whole} are each written the whole {expected}, which one player takes").format(whole=_(' and ').join(whole), expected=num(expected))
           if len(whole) > 1 else "")
    chk.add("row-sum", _("row sums to {total}, expected {expected}{why}").format(total=num(total), expected=num(expected), why=why), expected=expected, actual=total)


def _check_trump_row(row: RowAt, chk: _Deal) -> int:
    """A trump deal: a buyout only where the rules have one, each cell as played, the row's total
    with the bid taken off where the trump is bid for, and роспись. Returns the row's total."""
    game, cells, rules, players, deal = row.game, row.cells, row.rules, row.players, row.deal
    unit = game.units["trumps"]
    if (deal.buyer or deal.price is not None) and not rules.buyout:
        chk.add("buyout", _("these rules have no buyout (торговля): buyer and price are not part of them"))
        played = list(cells)
    else:
        played = undo_buyout(cells, players, deal, unit)
    _check_trump_cells(played, unit, rules.deck.tricks, chk, players)
    expected = game.total
    if rules.bidding:
        expected = _bid_total(played, unit, rules, chk, players, deal)
    if is_rospis(rules, deal.contract):
        _check_rospis(played, unit, rules, chk, players)
    return expected


def _check_trump_cells(played: list[int], unit: int, tricks: int, chk: _Deal, players: tuple[str, ...]) -> None:
    """Tricks of a trump deal: none below zero, whole tricks, no more than the deal holds."""
    for who, cell in zip(players, played):
        if cell < 0:
            chk.add("cell-sign", _("{who}: {cell} is below zero").format(who=who, cell=num(cell)), who, actual=cell)
        elif cell % unit:
            chk.add("cell-step", _("{who}: {cell} is not a multiple of {unit}").format(who=who, cell=num(cell), unit=unit), who, actual=cell)
        elif cell > unit * tricks:
            chk.add("cell-range", _("{who}: {cell} is more than {value}").format(who=who, cell=num(cell), value=unit * tricks), who,
                    expected=unit * tricks, actual=cell)


def _bid_total(played: list[int], unit: int, rules: Rules, chk: _Deal, players: tuple[str, ...],
               deal: Deal) -> int:
    """Кинг с торговлей: the row's total follows from the bid and the declarer's tricks."""
    tricks = rules.deck.tricks
    if deal.bid is None or deal.declarer is None:
        chk.add("bid", _("the declarer and their bid are not recorded (declarer = …, bid = N)"))
        return unit * tricks
    if deal.bid > tricks:  # a bid is of tricks, and a deal holds no more
        chk.add("bid", _("a bid of {bid} is more than the tricks of a deal ({tricks})").format(bid=deal.bid, tricks=tricks),
                expected=tricks, actual=deal.bid)
        return unit * tricks
    d = players.index(deal.declarer)
    others = sum(c for k, c in enumerate(played) if k != d)
    return bid_row_total(unit, tricks, deal.bid, declarer_tricks(unit, tricks, others))


def _check_rospis(played: list[int], unit: int, rules: Rules, chk: _Deal, players: tuple[str, ...]) -> None:
    """Роспись: no play, every player written the same tricks."""
    each = rospis_each(rules, unit)
    if each is None:
        return
    for who, cell in zip(players, played):
        if cell != each:
            chk.add("cell-impossible", _("{who}: роспись writes {each} to everyone, not {cell}").format(who=who, each=each, cell=num(cell)), who,
                    expected=each, actual=cell)


def row_problems(rules: Rules, game_id: str, cells: tuple[int, ...], players: tuple[str, ...],
                 deal: Deal | None = None, number: int = 1) -> list[Problem]:
    """The problems of one row on its own (groups 1–3: the sum, each cell, the row as a whole), as
    the verifier reports them; [] when the deck can produce it. For readers that propose rows."""
    g = rules.games[game_id]
    chk = _Deal(number, game_label(rules, game_id), game_id)
    deal = deal or Deal(number=number, game=game_id, points=cells)
    if g.kind is Kind.TRUMPS and deal.declarer is None:
        deal = replace(deal, declarer=players[number % len(players)])
    _check_cells(g, cells, rules, chk, players, deal)
    return chk.problems


def row_possible(rules: Rules, game_id: str, cells: tuple[int, ...], players: tuple[str, ...],
                 number: int = 1) -> bool:
    """Whether ``row_problems`` finds nothing, answered without wording any problem: a row of
    points whose sum is not its game's total is refused at once (the first check it would fail).
    For readers that try many rows."""
    g = rules.games[game_id]
    if g.kind not in (Kind.TRUMPS, Kind.CARDS) and sum(cells) != g.total:
        return False
    return not row_problems(rules, game_id, cells, players, number=number)


def verify(game: GameFile) -> Report:
    rules, players = game.rules, game.players
    rows: list[Row] = []
    all_problems: list[Problem] = list(game.problems)
    minus = dict.fromkeys(players, 0)
    plus = dict.fromkeys(players, 0)
    adjust = [0, 0]  # rows whose total depends on the deal (bids, the moon) move the stage sums
    for deal in game.deals:
        gid = rules.find_game(deal.game)
        dealer = game.dealer_of(deal.number)
        label = game_label(rules, gid) if gid else deal.game
        chk = _Deal(deal.number, label, gid)
        cells: tuple[int, ...] | None = None
        expected = None
        declarer = None
        if gid is None:
            known = ", ".join(g.label() for g in rules.games.values())
            chk.add("unknown-game", _("{id} has no game '{game}' (games: {known})").format(id=rules.id, game=deal.game, known=known), actual=deal.game)
        else:
            g = rules.games[gid]
            if g.kind is Kind.TRUMPS:
                declarer = deal.declarer or game.on_turn(deal.number)
                deal = _with_declarer(deal, declarer)
            if deal.taken is not None:
                cells = _cells_from_taken(g, deal.taken, rules, chk, players)
            elif deal.points is not None:
                cells = deal.points
            if cells is not None:
                expected = _check_cells(g, cells, rules, chk, players, deal)
                if expected is not None and g.kind in (Kind.TRUMPS, Kind.CARDS):
                    adjust[rules.stage_of(gid)] += expected - g.total
                side = minus if rules.stage_of(gid) == 0 else plus
                for who, cell in zip(players, cells):
                    side[who] += cell
        if deal.confirm:
            chk.add("to-confirm", _("read from a photo and not yet confirmed: compare it with the paper, then correct it "
                                    "(kingsheet edit) or delete its line confirm = true"))
        rows.append(Row(deal, gid, cells, expected, dealer, declarer, tuple(chk.problems)))
        all_problems.extend(chk.problems)
    sequence = check_sequence(game, rows)
    all_problems.extend(sequence)
    # every problem shows on its row: a declarer out of turn, a deal out of order
    at: dict[int, list[Problem]] = {}
    for problem in sequence:
        if problem.deal is not None:
            at.setdefault(problem.deal, []).append(problem)
    rows = [replace(r, problems=r.problems + tuple(at[r.deal.number])) if r.deal.number in at else r for r in rows]
    totals = {p: Totals(minus[p], plus[p]) for p in players}
    ended = ended_at(game, rows)
    if rules.limit is not None:
        # played to a limit: no fixed sum for the stage; what the rows should add up to
        complete = ended is not None
        exp = Totals(sum(r.expected for r in rows if r.expected is not None), 0)
    else:
        complete = len(rows) >= len(rules.slots)
        exp = Totals(rules.stage_total(0) + adjust[0], rules.stage_total(1) + adjust[1])
    if complete and rules.limit is None:
        s_minus, s_plus = sum(minus.values()), sum(plus.values())
        if s_minus != exp.minus:
            all_problems.append(Problem("stage-sum", None, None, None, exp.minus, s_minus,
                                        _("TOTAL (−) sums to {s_minus}, expected {minus}").format(s_minus=num(s_minus), minus=num(exp.minus))))
        if s_plus != exp.plus:
            all_problems.append(Problem("stage-sum", None, None, None, exp.plus, s_plus,
                                        _("TOTAL (+) sums to {s_plus}, expected {plus}").format(s_plus=num(s_plus), plus=num(exp.plus))))
        if s_minus + s_plus != exp.total:
            all_problems.append(Problem("grand-total", None, None, None, exp.total, s_minus + s_plus,
                                        _("TOTAL sums to {value}, expected {total}").format(value=num(s_minus + s_plus), total=num(exp.total))))
    from kingsheet.core.money import money_problem

    why = money_problem(game.money)  # money is settled from the sheet: a [money] that cannot be is a problem
    if why is not None:
        all_problems.append(Problem("money", None, None, None, None, game.money.get("stake"),
                                    _("[money] cannot be used: {why}").format(why=why)))
    return Report(game, tuple(rows), tuple(all_problems), totals, exp, complete, ended)


def _with_declarer(deal: Deal, declarer: str) -> Deal:
    return deal if deal.declarer == declarer else replace(deal, declarer=declarer)
