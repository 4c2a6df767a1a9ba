"""Rule systems: template files (data) and the resolved rules of one game.

A template states units, the deck and the order of deals. Every row total and stage total is
*derived* here from units × what the deck holds; totals a template states (``[stated]``,
``stages.total``) are only checked against the derived ones.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from functools import cached_property
from pathlib import Path
from typing import Any

from kingsheet.core.i18n import DEFAULT, language
from kingsheet.core.problems import num as num_text
from kingsheet.core.problems import one_line
from kingsheet.core.record import EMPTY_MAP, Record
from kingsheet.core.vocabulary import CARD_CATEGORIES, GAME_LABELS, fold, in_every_language

SUITS = ("S", "C", "D", "H")


class Kind(StrEnum):
    """What a row counts."""

    SINGLE = "single"  # one category: tricks, hearts, boys, girls, the King, the last tricks
    ERALASH = "eralash"  # all six at once
    TRUMPS = "trumps"  # tricks of a trump deal, at their own unit
    CARDS = "cards"  # a game scored by card values (Tier 2, played to a limit)


class Order(StrEnum):
    """How the deals of a game follow each other."""

    FIXED = "fixed"  # the template's order, deal by deal
    ORDERED_TABLE = "ordered-table"  # any order; each game once at the table
    ORDERED_PLAYER = "ordered-player"  # any order; each player orders each game once
    TO_LIMIT = "to-limit"  # one game dealt until a total reaches the limit


ORDERS = tuple(o.value for o in Order)
TEMPLATE_KEYS = {
    "format", "id", "name", "source", "notes", "players", "order", "deck", "options",
    "units", "trumps", "turn", "labels", "stages", "stated", "penalty", "limit", "play",
}
#: [play] of a template that does not say: the games in which hearts may not be led while other
#: suits remain (seed 000: the hearts, the King and Ералаш, and their plus mirrors), and the
#: contracts of a trump deal with no play, where every player is written the same tricks (seed 002).
NO_HEARTS_LEAD = frozenset({"hearts", "king", "eralash"})
SPREAD = ("роспись", "rospis", "spread")
PLAY_KEYS = {"no_hearts_lead": "the games in which hearts may not be led while other suits remain",
             "spread": "the contracts of a trump deal with no play (роспись)"}
TRUMPS_KEYS = {"bidding": "whether the declarer bids tricks for the trump (Кинг с торговлей)",
               "buyout": "whether another player may buy the deal (торговля: buyer and price)"}


class Turn(StrEnum):
    """Who declares a trump deal or orders a game."""

    LEFT = "left-of-dealer"  # the player left of that deal's dealer (seeds 000, 002)
    FREE = "free"  # anyone; each player keeps his share (trump deals) or his games (ordered)
    AUCTION = "auction"  # whoever wins the auction; three passes leave it to the dealer, bidding 1
SUIT_NAMES = {
    "S": ("s", "spades", "пики", "пика", "♠"), "C": ("c", "clubs", "трефы", "трефа", "крести", "♣"),
    "D": ("d", "diamonds", "бубны", "бубна", "♦"), "H": ("h", "hearts", "черви", "червы", "♥"),
}
MAX_TEMPLATE_BYTES = 256 * 1024
MAX_OPTION_COMBINATIONS = 64  # `rules --check` resolves every one
MAX_CARD_SHARES = 100_000  # forms of one player's share of a card-value game's scoring cards
MAX_DEALS = 1000
MAX_RANKS = 13


class RulesError(Exception):
    """A template that cannot be used, or an unknown rules id; the message says which and why."""

    def __init__(self, message: str) -> None:
        super().__init__(one_line(message))


class Template(Record):
    """A template file as read, before options are chosen."""

    id: str
    name: Mapping[str, str]
    source: str
    notes: tuple[tuple[str, tuple[str, ...]], ...]  # (language, its notes); one language serves both
    players: int
    order: Order
    raw: Mapping[str, Any]
    path: Path | None = None
    stamp: tuple[int, int] | None = None  # the file's mtime and size when it was read

    def notes_in(self, lang: str | None = None) -> tuple[str, ...]:
        """The notes in ``lang`` (the language of the messages by default), else in the other one."""
        by_lang = dict(self.notes)
        return by_lang.get(lang or language()) or next(iter(by_lang.values()), ())

    def option_said(self, key: str, value: str, lang: str | None = None) -> str | None:
        """What option ``key`` = ``value`` means, as the table says it («мальчики — валеты»), from
        the template's ``said`` of that option, in ``lang`` (else the game's own language); None
        where the template does not say (a house option: shown as key = value)."""
        said = self.raw.get("options", {}).get(key, {}).get("said", {}).get(value)
        if not isinstance(said, dict):
            return None
        from kingsheet.core.i18n import DEFAULT

        return said.get(lang or language()) or said.get(DEFAULT)

    @property
    def options(self) -> dict[str, tuple[tuple[str, ...], str]]:
        out = {}
        for key, spec in self.raw.get("options", {}).items():
            out[key] = (tuple(spec["choices"]), spec["default"])
        return out


class Game(Record):
    """One row kind of the sheet: what it counts, with which sign and unit, and its total."""

    id: str
    sign: int
    kind: Kind
    units: Mapping[str, int]  # category -> points a unit, without sign
    counts: Mapping[str, int]  # category -> how many units the deal holds
    labels: Mapping[str, str]
    card_values: Mapping[str, int] = EMPTY_MAP  # "cards": card -> signed points
    moon: int | None = None  # "cards": taking every scoring card scores this instead (omnibus)
    choose_suit: bool = False  # "cards": the penalty suit is chosen each deal (contract), −1 a card
    bid: bool = False  # "cards": the auction's winner also writes his bid

    @property
    def categories(self) -> tuple[str, ...]:
        return tuple(self.units)

    @property
    def total(self) -> int:
        """The row total with its sign (the «Очки» column)."""
        if self.kind is Kind.CARDS:
            return sum(self.card_values.values())
        return self.sign * sum(self.units[c] * self.counts[c] for c in self.units)

    @property
    def declared(self) -> bool:
        """A player declares each deal of this game (the trump): the sheet has a «Объявляет» cell,
        and a bid where the rules have bidding."""
        return self.kind is Kind.TRUMPS

    @property
    def counted(self) -> bool:
        """What each player took may be written instead of points (single games and Ералаш)."""
        return self.kind in (Kind.SINGLE, Kind.ERALASH)

    @property
    def known_total(self) -> int | None:
        """The row total when the template alone fixes it (a chosen suit and a bid do not)."""
        return None if self.choose_suit else self.total

    def heading(self, lang: str | None = None) -> str:
        """The label with its total, as a prompt shows it: «Взятки (−16)», «АнтиЕралаш (+96)» (the sign
        the ИТОГО lines give it)."""
        total = self.known_total
        if total is None:
            return self.label(lang)
        return f"{self.label(lang)} ({'+' if total > 0 else ''}{num_text(total)})"

    def label(self, lang: str | None = None) -> str:
        """The game's name in ``lang`` (by default the language of the messages)."""
        return self.labels.get(lang or language()) or self.labels[DEFAULT]

    def points(self, taken: Mapping[str, int]) -> int:
        """Points of one player who took ``taken`` (category -> count) in this game."""
        return self.sign * sum(self.units[c] * taken.get(c, 0) for c in self.units)


class Deck(Record):
    cards: tuple[str, ...]
    players: int
    talon: int
    last_tricks: int
    boys: str

    @property
    def tricks(self) -> int:
        return (len(self.cards) - self.talon) // self.players

    def suit_size(self, suit: str) -> int:
        return sum(1 for c in self.cards if c[-1] == suit and not c.startswith("JOKER"))

    def is_in(self, card: str, category: str) -> bool:
        rank, suit = card[:-1], card[-1]
        if category == "hearts":
            return suit == "H"
        if category == "girls":
            return rank == "Q"
        if category == "king":
            return card == "KH"
        if category == "boys":
            return (rank == "J" and self.boys in ("jacks", "jacks+kings")) or (
                rank == "K" and self.boys in ("kings", "jacks+kings")
            )
        return False

    def count(self, category: str) -> int:
        if category == "tricks":
            return self.tricks
        if category == "last":
            return self.last_tricks
        return self._held.get(category, 0)

    @cached_property
    def _held(self) -> dict[str, int]:
        """How many cards of each counted kind the deck holds (asked for every counted row)."""
        return {cat: sum(self.is_in(c, cat) for c in self.cards) for cat in CARD_CATEGORIES}


class Rules(Record):
    """A template with its options chosen: everything the verifier and the sheets need."""

    template: Template
    options: Mapping[str, str]
    deck: Deck
    games: Mapping[str, Game]
    stages: tuple[tuple[str, ...], ...]  # game ids per stage, in the template's order
    bidding: bool = False  # trump deals: the declarer bid N tricks and scores only those above N
    buyout: bool = False  # trump deals: another player may buy the deal for a price in tricks
    declares: Turn = Turn.LEFT  # who declares a trump deal
    orders: Turn = Turn.LEFT  # who orders a game (ordered templates)
    no_hearts_lead: frozenset[str] = NO_HEARTS_LEAD  # [play]: games where hearts may not be led (minus ids)
    spread: tuple[str, ...] = SPREAD  # [play]: the contracts of a trump deal with no play, folded

    @property
    def id(self) -> str:
        return self.template.id

    @property
    def ordered(self) -> bool:
        """Someone orders each game (the table, or each player in turn): the order of the deals is
        the players', not the blank's. The one way to ask it (as ``Game.declared`` for trumps)."""
        return self.order in (Order.ORDERED_TABLE, Order.ORDERED_PLAYER)

    @property
    def key(self) -> tuple[object, ...]:
        """Identifies the rules for caches: the template and the options chosen."""
        return (self.template.id, str(self.template.path), self.template.stamp, tuple(sorted(self.options.items())))

    @property
    def players(self) -> int:
        return self.template.players

    @property
    def order(self) -> Order:
        return self.template.order

    @property
    def trump_game(self) -> Game | None:
        """The game whose deals a player declares (the trump), if the rules have one."""
        return next((g for g in self.games.values() if g.declared), None)

    def stage_of(self, game_id: str) -> int:
        return 0 if self.games[game_id].sign < 0 else 1

    @property
    def per_round(self) -> tuple[str, ...]:
        return tuple(g for stage in self.stages for g in stage)

    @property
    def limit(self) -> int | None:
        """Games played to a limit: the game ends after the deal in which a total reaches −limit."""
        value = self.template.raw.get("limit", {}).get("points") if self.order is Order.TO_LIMIT else None
        return int(value) if value is not None else None

    @property
    def slots(self) -> tuple[str, ...]:
        """Every deal of a complete game, in order (fixed) or as a multiset (ordered);
        none for a game played to a limit, which has no fixed number of deals."""
        if self.order is Order.ORDERED_PLAYER:
            return self.per_round * self.players
        if self.order is Order.TO_LIMIT:
            return ()
        return self.per_round

    def stage_total(self, stage: int) -> int:
        return sum(self.games[g].total for g in self.slots if self.stage_of(g) == stage)

    @property
    def grand_total(self) -> int:
        return self.stage_total(0) + self.stage_total(1)

    @cached_property
    def _names(self) -> dict[str, str]:
        """Every way to name a game, folded → its id; the first game named so wins."""
        names: dict[str, str] = {}
        for gid, game in self.games.items():
            names.setdefault(fold(gid), gid)
            for label in game.labels.values():
                names.setdefault(fold(label), gid)
        for gid, game in self.games.items():  # "Взятки+" for the positive mirror
            if game.sign > 0:
                for label in in_every_language(GAME_LABELS[base(gid)]).values():
                    names.setdefault(fold(label) + "+", gid)
        return names

    def find_game(self, name: str) -> str | None:
        """A game id from an id or a sheet label (case- and ё/е-insensitive)."""
        return self._names.get(fold(name))


def base(game_id: str) -> str:
    return game_id.rstrip("+")
