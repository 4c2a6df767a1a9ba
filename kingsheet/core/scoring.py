"""What the rules mean, in one place: each rule of scoring or play that more than one part of
kingsheet needs. The verifier checks by these functions, the workbook writes its formulas from
them, the simulator plays by them and the printed blank reminds the table of them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from kingsheet.core.game import Deal
from kingsheet.core.rules import Game, Kind, Rules


def hearts_lead_forbidden(rules: Rules, game_id: str) -> bool:
    """Hearts may not be led in this game while other suits remain (the template's [play])."""
    return game_id.rstrip("+") in rules.no_hearts_lead


def no_hearts_lead_games(rules: Rules) -> list[Game]:
    """The games of these rules in which hearts may not be led, each once (the minus one)."""
    seen, out = set(), []
    for gid in rules.per_round:
        base = gid.rstrip("+")
        if base in rules.no_hearts_lead and base not in seen:
            seen.add(base)
            out.append(rules.games[gid])
    return out


def is_rospis(rules: Rules, contract: str | None) -> bool:
    """A contract of a trump deal with no play (роспись): one of the template's [play] spread."""
    return (contract or "").strip().casefold() in rules.spread


def rospis_each(rules: Rules, unit: int) -> int | None:
    """What роспись writes to each player, or None where the tricks do not divide evenly."""
    tricks = rules.deck.tricks
    return unit * tricks // rules.players if tricks % rules.players == 0 else None


def undo_buyout(cells: Sequence[int], players: Sequence[str], deal: Deal, unit: int) -> list[int]:
    """Торговля: the buyer gave the seller ``price`` tricks after play. The cells as played."""
    out = list(cells)
    if deal.buyer and deal.price is not None and deal.declarer and deal.buyer != deal.declarer:
        i, j = players.index(deal.buyer), players.index(deal.declarer)
        out[i] += unit * deal.price
        out[j] -= unit * deal.price
    return out


def declarer_tricks(unit: int, tricks: int, others: int) -> int:
    """A bidding declarer's cell hides his tricks: they are the deal's tricks less the others'."""
    return tricks - others // unit


def bid_row_total(unit: int, tricks: int, bid: int, taken: int) -> int:
    """Кинг с торговлей: the row is the deal's tricks at ``unit`` less ``unit`` for each bid trick
    the declarer took (he writes only the tricks above his bid)."""
    return unit * tricks - unit * min(bid, max(taken, 0))


def bid_row_total_formula(unit: int, tricks: int, bid: str, others: str) -> str:
    """The same rule as a spreadsheet formula, given the cells of the bid and of the others' sum."""
    taken = f"({tricks}-({others})/{unit})"
    return f"{unit * tricks}-{unit}*MIN({bid},MAX({taken},0))"


def cell_step(game: Game) -> int | None:
    """What every cell of the game's row is a whole multiple of (None for a card-value game)."""
    if game.kind is Kind.CARDS:
        return None
    return math.gcd(*game.units.values())


def cell_sign(rules: Rules, game: Game) -> int | None:
    """The sign every non-zero cell carries; None where it may be either (a card-value game, or a
    trump deal whose buyer may go below zero)."""
    if game.kind is Kind.CARDS or (game.kind is Kind.TRUMPS and rules.buyout):
        return None
    return game.sign
