"""Rule systems: template files (data) and the resolved rules of one game.

A template states units, the deck and the order of deals. Every row total and stage total is
*derived* here from units × what the deck holds; totals a template states (``[stated]``,
``stages.total``) are only checked against the derived ones.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Mapping
from enum import StrEnum
from functools import cached_property
from pathlib import Path
from typing import Any

from kingsheet.core.i18n import _, language
from kingsheet.core.problems import hidden, one_line
from kingsheet.core.problems import num as num_text
from kingsheet.core.record import EMPTY_MAP, Record, replace
from kingsheet.core.tomltext import TomlProblem, parse
from kingsheet.core.vocabulary import BASE_GAMES, CATEGORIES, GAME_LABELS, LAST_ONE_LABEL, fold, in_every_language

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
    "units", "trumps", "turn", "labels", "stages", "stated", "penalty", "limit",
}
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


def template_dir() -> Path:
    """Where the bundled templates live: inside the package when installed, else the repo."""
    here = Path(__file__).resolve().parent.parent
    packaged = here / "templates"
    return packaged if packaged.is_dir() else here.parent / "templates"


def template_ids() -> list[str]:
    return sorted(p.stem for p in template_dir().glob("*.toml"))


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
    def known_total(self) -> int | None:
        """The row total when the template alone fixes it (a chosen suit and a bid do not)."""
        return None if self.choose_suit else self.total

    def heading(self, lang: str | None = None) -> str:
        """The label with its total, as a prompt shows it: «Взятки (−16)»."""
        total = self.known_total
        return self.label(lang) if total is None else f"{self.label(lang)} ({num_text(total)})"

    def label(self, lang: str | None = None) -> str:
        """The game's name in ``lang`` (by default the language of the messages)."""
        return self.labels.get(lang or language()) or self.labels["ru"]

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
        return sum(self.is_in(c, category) for c in self.cards)


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

    @property
    def id(self) -> str:
        return self.template.id

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


def _card_list(ranks: list[str], remove: list[str], where: str = "template") -> tuple[str, ...]:
    cards = [r + s for s in SUITS for r in ranks]
    missing = [c for c in remove if c not in cards]
    if missing:
        raise RulesError(_("{where}: deck.remove names cards the deck does not hold: {missing} (a card is " "its rank and suit: 7S, 10H, AC)").format(where=where, missing=', '.join(missing)))
    return tuple(c for c in cards if c not in remove)


def _pick(value: Any, option: str, options: Mapping[str, str], where: str) -> Any:
    """A template value may depend on an option: ``{jacks = 4, kings = 4}`` keyed by its choices."""
    if not isinstance(value, dict):
        return value
    choice = options.get(option)
    if choice is None:
        raise RulesError(_("{where} depends on option '{option}', which the template does not have").format(where=where, option=option))
    if choice not in value:
        raise RulesError(_("{where} has no value for {option} = {choice}").format(where=where, option=option, choice=choice))
    return value[choice]


def _positive_int(value: Any, where: str, zero: bool = False) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < (0 if zero else 1):
        raise RulesError((_("{where} must be a whole number ≥ 0, not {value!r}") if zero else _("{where} must be a whole number above zero, not {value!r}")).format(where=where, value=value))
    return value


def read_template(text: str, path: Path | None = None) -> Template:
    """Parse a template file's text; structural mistakes raise RulesError naming the key."""
    where = path.name if path else "template"
    if len(text.encode("utf-8")) > MAX_TEMPLATE_BYTES:
        raise RulesError(_("{where}: larger than {value} KiB; not a template").format(where=where, value=MAX_TEMPLATE_BYTES // 1024))
    try:
        raw = parse(text)
    except TomlProblem as exc:
        raise RulesError(f"{where}: {exc}") from None
    unknown = sorted(set(raw) - TEMPLATE_KEYS)
    if unknown:
        raise RulesError(_("{where}: unknown key {unknown}").format(where=where, unknown=', '.join(unknown)))
    _check_texts(raw, where, "")
    return template_from_raw(raw, where, path)


#: A template's words reach the terminal, the sheets and the phones: the text rule of game files
#: (no control or direction character anywhere, keys included) and a bound on each string.
TEMPLATE_TEXT = 1000


def _check_texts(value: Any, where: str, key: str) -> None:
    if isinstance(value, dict):
        for k, v in value.items():
            _check_texts(k, where, key)
            _check_texts(v, where, f"{key}.{k}" if key else str(k))
    elif isinstance(value, list):
        for v in value:
            _check_texts(v, where, key)
    elif isinstance(value, str):
        bad = next((ch for ch in value if hidden(ch)), None)
        if bad is not None:
            raise RulesError(_("{where}: {key} '{value}' has a control character (U+{bad:04X})").format(
                where=where, key=key or _("a key"), value=one_line(value, 40), bad=ord(bad)))
        if len(value) > TEMPLATE_TEXT:
            raise RulesError(_("{where}: {key} is {value} characters long; at most {limit}").format(
                where=where, key=key or _("a key"), value=len(value), limit=TEMPLATE_TEXT))


def template_from_raw(raw: dict[str, Any], where: str, path: Path | None = None) -> Template:
    for key in ("id", "players", "deck", "units", "stages"):
        if key not in raw:
            raise RulesError(_("{where}: missing key '{key}'").format(where=where, key=key))
    if raw.get("format", 1) != 1:
        raise RulesError(_("{where}: format {value!r} is not supported (expected 1)").format(where=where, value=raw.get('format')))
    players = _positive_int(raw["players"], _("{where}: players").format(where=where))
    if not 2 <= players <= 8:
        raise RulesError(_("{where}: players must be 2 to 8, not {players}").format(where=where, players=players))
    order = raw.get("order", "fixed")
    if order not in ORDERS:
        raise RulesError(_("{where}: order must be one of {ORDERS}, not {order!r}").format(where=where, ORDERS=', '.join(ORDERS), order=order))
    options = raw.get("options", {})
    if not isinstance(options, dict):
        raise RulesError(_("{where}: options must be tables like [options.boys]").format(where=where))
    for key, spec in options.items():
        if not isinstance(spec, dict) or not isinstance(spec.get("choices"), list) or not spec["choices"] \
                or "default" not in spec:
            raise RulesError(_('{where}: options.{key} needs choices = ["…", …] and default = "…"').format(where=where, key=key))
    combinations = math.prod(len(spec["choices"]) for spec in options.values())
    if combinations > MAX_OPTION_COMBINATIONS:
        raise RulesError(_("{where}: the options make {combinations:,} combinations; at most " "{MAX_OPTION_COMBINATIONS} are checked, so use fewer options or choices").format(where=where, combinations=combinations, MAX_OPTION_COMBINATIONS=MAX_OPTION_COMBINATIONS))
    if not isinstance(raw["stages"], list) or not all(isinstance(st, dict) for st in raw["stages"]):
        raise RulesError(_("{where}: stages must be [[stages]] tables, each with deals = [...]").format(where=where))
    for key in ("deck", "units"):
        if not isinstance(raw[key], dict):
            raise RulesError(_("{where}: {key} must be a table ([{key}])").format(where=where, key=key))
    name = raw.get("name", {"ru": raw["id"]})
    if isinstance(name, str):
        name = {"ru": name, "en": name}
    return Template(
        id=str(raw["id"]), name=name, source=str(raw.get("source", "")),
        notes=_notes(raw.get("notes", []), where), players=players, order=Order(order), raw=raw, path=path,
    )


def _notes(notes: Any, where: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """notes = ["…", …] (one language, shown in both) or notes.ru = [...] and notes.en = [...]."""
    def listed(value: Any) -> tuple[str, ...]:
        return (value,) if isinstance(value, str) else tuple(str(n) for n in value) if isinstance(value, list) else ()

    if isinstance(notes, dict):
        if set(notes) - {"ru", "en"}:
            raise RulesError(_("{where}: notes are a list, or notes.ru and notes.en lists").format(where=where))
        return tuple((lang, listed(notes[lang])) for lang in ("ru", "en") if lang in notes)
    return (("en", listed(notes)),) if listed(notes) else ()


def is_template_path(ref: str) -> bool:
    """A rules reference names a file (``house.toml``, ``rules/ours.toml``), not a bundled id."""
    return ref.endswith(".toml") or "/" in ref or "\\" in ref


def template_path(ref: str) -> Path:
    """Where a rules reference's template lives; RulesError when there is none."""
    path = Path(ref) if is_template_path(ref) else template_dir() / f"{ref}.toml"
    if path.exists() and not path.is_file():
        raise RulesError(_("template {ref} is not a regular file (a folder, a device or a pipe)").format(ref=ref))
    if not path.is_file():
        if is_template_path(ref):
            raise RulesError(_("template file {ref} not found").format(ref=ref))
        import difflib

        close = difflib.get_close_matches(ref.casefold(), template_ids(), n=1, cutoff=0.6)
        hint = _("did you mean '{id}'? ").format(id=close[0]) if close else ""
        raise RulesError(_("unknown rules '{ref}'; {hint}known: {value}").format(
            ref=ref, hint=hint, value=', '.join(template_ids())))
    return path


def _stamp(path: Path) -> tuple[int, int]:
    """When a template file last changed: a running process (``play``, a server) sees edits."""
    try:
        st = path.stat()
    except OSError as exc:
        raise RulesError(_("cannot read template {path}: {strerror}").format(path=path, strerror=exc.strerror)) from None
    return st.st_mtime_ns, st.st_size


_TEMPLATES: dict[tuple[str, int, int], Template] = {}
_RULES: dict[tuple[object, ...], Rules] = {}
_CACHE_SIZE = 64


def load_template(ref: str) -> Template:
    """A bundled template by id, or a template file by path; read again when the file changes."""
    path = template_path(ref)
    key = (str(path.resolve()), *_stamp(path))
    if key not in _TEMPLATES:
        if len(_TEMPLATES) >= _CACHE_SIZE:
            _TEMPLATES.clear()
        try:
            with path.open("rb") as fh:  # never more than the limit, whatever the file claims
                data = fh.read(MAX_TEMPLATE_BYTES + 1)
            text = data.decode("utf-8-sig")
        except (OSError, UnicodeDecodeError) as exc:
            raise RulesError(_("cannot read template {ref}: {exc}").format(ref=ref, exc=exc)) from None
        _TEMPLATES[key] = replace(read_template(text, path), stamp=key[1:])
    return _TEMPLATES[key]


def _expand_deals(entries: Any, options: Mapping[str, str], where: str) -> list[str]:
    if not isinstance(entries, list):
        raise RulesError(_("{where}: deals must be a list").format(where=where))
    out: list[str] = []
    for entry in entries:
        count = 1
        if isinstance(entry, str):
            game, _unused, times = entry.partition("*")
            if times:
                if not times.isdigit() or len(times) > 4:
                    raise RulesError(_("{where}: bad repeat in {entry!r} (a game id, then *N with N ≤ {MAX_DEALS})").format(where=where, entry=entry, MAX_DEALS=MAX_DEALS))
                count = int(times)
        elif isinstance(entry, dict):
            extra = set(entry) - {"game", "count", "when"}
            if extra or "game" not in entry:
                raise RulesError(_("{where}: a deal entry takes game, count, when; got {entry}").format(where=where, entry=sorted(entry)))
            game = entry["game"]
            count = _positive_int(entry.get("count", 1), _("{where}: count").format(where=where), zero=True)
            if count > MAX_DEALS:
                raise RulesError(_("{where}: count {count} is more than {MAX_DEALS} deals").format(where=where, count=count, MAX_DEALS=MAX_DEALS))
            when = entry.get("when")
            if when is not None:
                opt, _unused, val = str(when).partition("=")
                if opt not in options:
                    raise RulesError(_("{where}: 'when' names unknown option {opt!r}").format(where=where, opt=opt))
                if options[opt] != val:
                    continue
        else:
            raise RulesError(_("{where}: a deal entry must be a game id or a table, not {entry!r}").format(where=where, entry=entry))
        if base(game) not in BASE_GAMES or game in ("trumps+", "penalty+"):
            raise RulesError(_("{where}: unknown game {game!r}").format(where=where, game=game))
        if len(out) + count > MAX_DEALS:
            raise RulesError(_("{where}: more than {MAX_DEALS} deals").format(where=where, MAX_DEALS=MAX_DEALS))
        out.extend([game] * count)
    if len(out) > MAX_DEALS:
        raise RulesError(_("{where}: more than {MAX_DEALS} deals").format(where=where, MAX_DEALS=MAX_DEALS))
    return out


class Mistakes:
    """Where the mistakes found while resolving a template go: raised at the first (``resolve``,
    for a game) or collected so the checks go on where they can (``explain``, for a person
    writing a template). Called with one sentence per mistake."""

    def __init__(self, collect: bool = False) -> None:
        self.collect = collect
        self.found: list[str] = []

    def __call__(self, message: str) -> None:
        if not self.collect:
            raise RulesError(message)
        self.found.append(message)

    def checked(self, fn: Callable[[], Any], fallback: Any) -> Any:
        """The value of ``fn``, or ``fallback`` once its mistake is said."""
        try:
            return fn()
        except RulesError as exc:
            self(str(exc))
            return fallback


def resolve(template: Template, chosen: Mapping[str, str] | None = None) -> Rules:
    """Choose options and derive every total; raise RulesError on the first inconsistency."""
    rules = _resolve(template, chosen, Mistakes())
    assert rules is not None
    return rules


def _resolve(template: Template, chosen: Mapping[str, str] | None, say: Mistakes) -> Rules | None:
    """The work of resolve, one step a function; None when the deck itself cannot be made."""
    raw, where = template.raw, template.id
    options = _choose_options(template, chosen, say)
    deck = _build_deck(template, options, say)
    if deck is None:
        return None
    units = _read_units(raw, options, where, say)
    stages = _read_stages(raw, options, where, say)
    labels = _labels(raw.get("labels", {}), {g for st in stages for g in st}, where, say)
    games = _build_games(raw, deck, units, stages, labels, where, say)
    if (len(deck.cards) - deck.talon) % deck.players and any(g.kind is not Kind.CARDS or g.bid for g in games.values()):
        # tricks need the cards dealt evenly; a game scored by the cards alone does not (domino for
        # three: the cards left over, the «базар», join the tricks of those who hold them)
        say(_("{where}: {cards} cards less a talon of {talon} do not divide among {players} players").format(
            where=where, cards=len(deck.cards), talon=deck.talon, players=deck.players))
    complete = all(g in games for st in stages for g in st)  # else the stage totals would only echo a mistake
    stages = [tuple(g for g in st if g in games) for st in stages]
    _check_stated(raw, games, where, say)
    bidding, buyout = _trump_flags(raw.get("trumps", {}), where, say)
    declares, orders = _turns(raw.get("turn", {}), bidding, where, say)
    rules = Rules(template, options, deck, games, tuple(stages), bidding, buyout, declares, orders)
    if complete:
        _check_stage_totals(raw, rules, where, say)
    signs = {games[g].sign for g in stages[0]} if stages else set()
    if len(signs) > 1:
        say(_("{where}: stages[0] mixes negative and positive games").format(where=where))
    if complete and not any(stages):
        say(_("{where}: no deals: stages list no games").format(where=where))
    _check_limit(template, games if complete else None, where, say)
    return rules


def _choose_options(template: Template, chosen: Mapping[str, str] | None, say: Mistakes) -> dict[str, str]:
    """Each option's default, then what the game chose."""
    where = template.id
    options: dict[str, str] = {}
    for key, (choices, default) in template.options.items():
        if default not in choices:
            say(_("{where}: option {key} default {default!r} is not among its choices").format(where=where, key=key, default=default))
            default = choices[0]
        options[key] = default
    for key, value in (chosen or {}).items():
        if key not in options:
            known = ", ".join(options) or "none"
            say(_("{where} has no option '{key}' (options: {known})").format(where=where, key=key, known=known))
            continue
        choices = template.options[key][0]
        if value not in choices:
            say(_("option {key} must be one of {choices}, not {value!r}").format(key=key, choices=', '.join(choices), value=value))
            continue
        options[key] = value
    return options


def _build_deck(template: Template, options: Mapping[str, str], say: Mistakes) -> Deck | None:
    """[deck]: the ranks in each suit, cards removed, jokers, the talon and the last tricks."""
    where, deck_raw = template.id, template.raw["deck"]
    ranks, remove = deck_raw.get("ranks"), deck_raw.get("remove", [])
    if not isinstance(ranks, list) or not all(isinstance(r, str) and r for r in ranks) or len(set(ranks)) != len(ranks):
        say(_('{where}: deck.ranks must be a list of distinct rank names, e.g. ["7", "8", …, "A"]').format(where=where))
        return None
    if not 1 <= len(ranks) <= MAX_RANKS:
        say(_("{where}: deck.ranks has {ranks} ranks; a deck has 1 to {MAX_RANKS} in each suit").format(where=where, ranks=len(ranks), MAX_RANKS=MAX_RANKS))
        return None
    if not isinstance(remove, list) or not all(isinstance(c, str) for c in remove):
        say(_('{where}: deck.remove must be a list of cards such as "7S"').format(where=where))
        remove = []
    everything = _card_list(list(ranks), [])
    cards = say.checked(lambda: _card_list(list(ranks), list(remove), where),
                        tuple(c for c in everything if c not in remove))
    jokers = say.checked(lambda: _positive_int(deck_raw.get("jokers", 0), _("{where}: deck.jokers").format(where=where), zero=True), 0)
    if jokers > 4:
        say(_("{where}: deck.jokers is at most 4, not {jokers}").format(where=where, jokers=jokers))
        jokers = 0
    cards = (*cards, *(f"JOKER{i}" for i in range(1, jokers + 1)))
    talon = say.checked(lambda: _positive_int(deck_raw.get("talon", 0), _("{where}: deck.talon").format(where=where), zero=True), 0)
    last_tricks = say.checked(lambda: _positive_int(
        _pick(deck_raw.get("last_tricks", 2), "last", options, _("{where}: deck.last_tricks").format(where=where)),
        _("{where}: deck.last_tricks").format(where=where), zero=True), 2)
    deck = Deck(cards, template.players, talon, last_tricks, options.get("boys", "jacks"))
    if last_tricks > deck.tricks:
        say(_("{where}: deck.last_tricks {last_tricks} is more than the {tricks} tricks").format(where=where, last_tricks=last_tricks, tricks=deck.tricks))
    return deck


def _read_units(raw: Mapping[str, Any], options: Mapping[str, str], where: str, say: Mistakes) -> dict[str, int]:
    """[units]: points a unit of each category, perhaps by an option's choice."""
    units: dict[str, int] = {}
    for key, value in raw["units"].items():
        if key not in (*CATEGORIES, "trumps"):
            say(_("{where}: units.{key} is not a category ({CATEGORIES}, trumps)").format(where=where, key=key, CATEGORIES=', '.join(CATEGORIES)))
            continue
        try:
            units[key] = _positive_int(_pick(value, key, options, _("{where}: units.{key}").format(where=where, key=key)), _("{where}: units.{key}").format(where=where, key=key))
        except RulesError as exc:
            say(str(exc))
    return units


def _read_stages(raw: Mapping[str, Any], options: Mapping[str, str], where: str, say: Mistakes) -> list[tuple[str, ...]]:
    stages: list[tuple[str, ...]] = []
    for i, stage in enumerate(raw["stages"]):
        try:
            stages.append(tuple(_expand_deals(stage.get("deals"), options, _("{where}: stages[{i}]").format(where=where, i=i))))
        except RulesError as exc:
            say(str(exc))
            stages.append(())
    return stages


def _build_games(raw: Mapping[str, Any], deck: Deck, units: Mapping[str, int], stages: list[tuple[str, ...]],
                 labels_raw: Mapping[str, Mapping[str, str]], where: str, say: Mistakes) -> dict[str, Game]:
    """Each game the stages name: what it counts, its sign, units, counts and labels."""
    games: dict[str, Game] = {}
    for gid in dict.fromkeys(g for st in stages for g in st):
        b = base(gid)
        if b == "penalty":
            game = _penalty_game(raw, deck, where, say)
            if game is not None:
                games[gid] = game
            continue
        sign = 1 if gid.endswith("+") or b == "trumps" else -1
        cats: tuple[str, ...] = CATEGORIES if b == "eralash" else ("trumps",) if b == "trumps" else (b,)
        missing = [c for c in cats if c not in units]
        if missing:
            if missing[0] not in raw["units"]:  # else its unit was wrong, and said so
                say(_("{where}: game {gid} needs units.{missing}").format(where=where, gid=gid, missing=missing[0]))
            continue
        counts = {c: deck.count("tricks" if c == "trumps" else c) for c in cats}
        zero = [c for c in cats if counts[c] == 0]
        if zero:
            say(_("{where}: game {gid} counts {zero}, which the deck does not hold").format(where=where, gid=gid, zero=zero[0]))
            continue
        labels = dict(labels_raw.get(gid) or labels_raw.get(b) or
                      in_every_language(LAST_ONE_LABEL if b == "last" and deck.last_tricks == 1 else GAME_LABELS[b]))
        negative = games.get(b)
        if sign > 0 and b != "trumps" and negative is not None and gid not in labels_raw and \
                dict(negative.labels) == labels:
            # the plus mirror of a game: the same name on paper, told apart by a (+)
            labels = {lang: f"{text} (+)" for lang, text in labels.items()}
        kind = Kind.ERALASH if b == "eralash" else Kind.TRUMPS if b == "trumps" else Kind.SINGLE
        games[gid] = Game(gid, sign, kind, {c: units[c] for c in cats}, counts, labels)
    return games


def _check_stated(raw: Mapping[str, Any], games: Mapping[str, Game], where: str, say: Mistakes) -> None:
    """[stated]: the «Очки» the paper prints must be what the units give."""
    stated_raw = raw.get("stated", {})
    for key, stated in (stated_raw.items() if isinstance(stated_raw, dict) else ()):
        if key not in BASE_GAMES:
            say(_("{where}: stated.{key} is not a game").format(where=where, key=key))
            continue
        for game in (g for g in games.values() if base(g.id) == key):
            if abs(game.total) != stated:
                parts = " + ".join(f"{game.units[c]}×{game.counts[c]}" for c in game.units)
                say(_("{where}: stated total of {key} is {stated}, but its units give {parts} = {total}").format(where=where, key=key, stated=stated, parts=parts, total=abs(game.total)))
                break


def _check_stage_totals(raw: Mapping[str, Any], rules: Rules, where: str, say: Mistakes) -> None:
    for i, stage in enumerate(raw["stages"]):
        if "total" in stage:
            derived = sum(rules.games[g].total for g in rules.slots if g in rules.stages[i])
            if stage["total"] != derived:
                say(_("{where}: stages[{i}] states total {stage}, but its deals sum to {derived}").format(where=where, i=i, stage=stage['total'], derived=derived))


def _check_limit(template: Template, games: Mapping[str, Game] | None, where: str, say: Mistakes) -> None:
    """[limit] belongs to a game played to a limit, and such a game has one game, penalty."""
    limit = template.raw.get("limit")
    if template.order is Order.TO_LIMIT:
        points = limit.get("points") if isinstance(limit, dict) else None
        if isinstance(points, bool) or not isinstance(points, int) or points <= 0:
            say(_("{where}: a game played to a limit needs [limit] points = N (a whole number above zero)").format(where=where))
        if games is not None and set(games) != {"penalty"}:
            say(_("{where}: a game played to a limit has one game, 'penalty'").format(where=where))
    elif limit is not None:
        say(_('{where}: [limit] is only for order = "to-limit"').format(where=where))


def _labels(spec: Any, played: set[str], where: str, err: Callable[[str], None]) -> dict[str, dict[str, str]]:
    """[labels]: a game the template plays (or its base id), named { ru = "…", en = "…" }."""
    if not isinstance(spec, dict):
        err(_('{where}: labels must be a table ([labels] with game = {{ ru = "…", en = "…" }})').format(where=where))
        return {}
    out = {}
    for key, value in spec.items():
        if key not in played and not any(base(g) == key for g in played):
            err(_("{where}: labels.{key} names no game of this template ({played})").format(where=where, key=key, played=', '.join(sorted(played))))
        elif not isinstance(value, dict) or not value or set(value) - {"ru", "en"} or \
                not all(isinstance(v, str) and v.strip() for v in value.values()):
            err(_('{where}: labels.{key} must be {{ ru = "…", en = "…" }}').format(where=where, key=key))
        else:
            out[key] = dict(value)
    return out


def _trump_flags(spec: Any, where: str, err: Callable[[str], None]) -> tuple[bool, bool]:
    """[trumps]: known keys only, and each a true boolean (``bidding = "no"`` is a mistake)."""
    if not isinstance(spec, dict):
        err(_("{where}: trumps must be a table ([trumps] with {TRUMPS_KEYS})").format(where=where, TRUMPS_KEYS=', '.join(TRUMPS_KEYS)))
        return False, False
    flags = {}
    for key, value in spec.items():
        if key not in TRUMPS_KEYS:
            err(_("{where}: trumps.{key} is not a key of [trumps] (known: {TRUMPS_KEYS})").format(where=where, key=key, TRUMPS_KEYS=', '.join(TRUMPS_KEYS)))
        elif not isinstance(value, bool):
            err(_("{where}: trumps.{key} must be true or false, not {value!r}").format(where=where, key=key, value=value))
        else:
            flags[key] = value
    return flags.get("bidding", False), flags.get("buyout", False)


def _turns(spec: Any, bidding: bool, where: str, err: Callable[[str], None]) -> tuple[Turn, Turn]:
    """[turn]: who declares trump deals and who orders games; by default the player left of the
    dealer (seeds 000 and 002), and the auction's winner where the trump deals are bid for."""
    declares, orders = (Turn.AUCTION if bidding else Turn.LEFT), Turn.LEFT
    if not isinstance(spec, dict):
        err(_("{where}: turn must be a table ([turn] with trumps = …, orders = …)").format(where=where))
        return declares, orders
    known = ", ".join(t.value for t in Turn)
    for key, value in spec.items():
        if key not in ("trumps", "orders"):
            err(_("{where}: turn.{key} is not a key of [turn] (known: trumps, orders)").format(where=where, key=key))
        elif value not in {t.value for t in Turn}:
            err(_("{where}: turn.{key} must be one of {known}, not {value!r}").format(where=where, key=key, known=known, value=value))
        elif key == "trumps":
            declares = Turn(value)
        else:
            orders = Turn(value)
    return declares, orders


def _penalty_game(raw: Mapping[str, Any], deck: Deck, where: str, err: Callable[[str], None]) -> Game | None:
    """The one game of a Tier-2 template: each deal scores the cards each player took."""
    spec = raw.get("penalty")
    if not isinstance(spec, dict):
        err(_("{where}: the game 'penalty' needs a [penalty] table (cards = {{ H = -1 }}, …)").format(where=where))
        return None
    unknown = sorted(set(spec) - {"label", "cards", "moon", "choose_suit", "bid"})
    if unknown:
        err(_("{where}: penalty has unknown key {unknown}").format(where=where, unknown=', '.join(unknown)))
    labels = spec.get("label") or in_every_language(GAME_LABELS["penalty"])
    values: dict[str, int] = {}
    choose = bool(spec.get("choose_suit", False))
    patterns = spec.get("cards", {})
    if not isinstance(patterns, dict) or (not patterns and not choose):
        err(_("{where}: penalty.cards must name cards and their points, e.g. {{ H = -1, QS = -13 }}").format(where=where))
        return None
    for card in deck.cards:
        # the card itself, else its suit ("H": every heart); jokers by "JOKER"
        value = patterns.get("JOKER") if card.startswith("JOKER") else patterns.get(card, patterns.get(card[-1]))
        if value is not None:
            if isinstance(value, bool) or not isinstance(value, int) or value == 0:
                err(_("{where}: penalty.cards value for {card} must be a whole number other than 0").format(where=where, card=card))
                return None
            values[card] = value
    matched = {k for k in patterns if k == "JOKER" and any(c.startswith("JOKER") for c in deck.cards)
               or k in deck.cards or k in SUITS}
    for key in sorted(set(patterns) - matched):
        err(_("{where}: penalty.cards names {key}, which the deck does not hold").format(where=where, key=key))
    moon = spec.get("moon")
    if moon is not None and (isinstance(moon, bool) or not isinstance(moon, int)):
        err(_("{where}: penalty.moon must be a whole number").format(where=where))
        moon = None
    shares = math.prod(n + 1 for n in Counter(values.values()).values())
    if shares > MAX_CARD_SHARES:
        # the possibility check lists every share of the scoring cards by value: bounded here,
        # so a template that would make `check` slow does not load
        err(_("{where}: penalty.cards give {value} different values; a player's share of them " "has {shares:,} forms, more than the {MAX_CARD_SHARES:,} kingsheet checks (give " "cards fewer values)").format(where=where, value=len(set(values.values())), shares=shares, MAX_CARD_SHARES=MAX_CARD_SHARES))
        return None
    return Game("penalty", -1, Kind.CARDS, {}, {}, dict(labels), values, moon, choose, bool(spec.get("bid", False)))


def explain(text: str, path: Path | None = None) -> tuple[list[str], list[Rules]]:
    """Every mistake of a template a person wrote, one sentence each (for ``rules --check``).

    The rules are resolved with every combination of the options, collecting mistakes rather
    than stopping at the first, so a total that is wrong only with boys = kings is found too.
    Returns (mistakes, the rules of each combination that resolved cleanly).
    """
    import itertools

    where = path.name if path else "template"
    try:
        raw = parse(text)
    except TomlProblem as exc:
        return [f"{where}: {exc}"], []
    mistakes: list[str] = []
    unknown = sorted(set(raw) - TEMPLATE_KEYS)
    if unknown:
        mistakes.append(_("{where}: unknown key {unknown} (known: {TEMPLATE_KEYS})").format(where=where, unknown=', '.join(unknown), TEMPLATE_KEYS=', '.join(sorted(TEMPLATE_KEYS))))
        raw = {k: v for k, v in raw.items() if k in TEMPLATE_KEYS}
    try:
        template = template_from_raw(raw, where, path)
    except RulesError as exc:
        return [*mistakes, str(exc)], []
    resolved: list[Rules] = []
    opts = template.options
    for combo in itertools.product(*(choices for choices, _unused in opts.values())):
        chosen = dict(zip(opts, combo))
        say = Mistakes(collect=True)
        rules = _resolve(template, chosen, say)
        found = say.found
        label = ", ".join(f"{k} = {v}" for k, v in chosen.items())
        for message in found:
            if all(message not in m for m in mistakes):
                mistakes.append(message + (_(" (with {label})").format(label=label) if resolved and label else ""))
        if rules is not None and not found:
            resolved.append(rules)
    for key, (choices, _unused) in opts.items():
        value = template.raw["units"].get(key)
        if isinstance(value, dict):
            extra = sorted(set(value) - set(choices))
            if extra:
                mistakes.append(_("{where}: units.{key} names {extra}, which option {key} does not offer").format(where=where, key=key, extra=', '.join(extra)))
    if resolved:
        used = {c for r in resolved for g in r.games.values() for c in g.units}
        idle = sorted(set(template.raw["units"]) - used)
        if idle:
            mistakes.append(_("{where}: units.{idle} given, but no game counts it").format(where=where, idle=', units.'.join(idle)))
    return mistakes, resolved


def load_rules(ref: str, options: Mapping[str, str] | None = None) -> Rules:
    """The rules of a game: a template with its options chosen. Rules are immutable, so a batch of
    game files of one system resolves it once; an edited template file is read again."""
    template = load_template(ref)
    key = (template.id, str(template.path), template.stamp, tuple(sorted((options or {}).items())))
    if key not in _RULES:
        if len(_RULES) >= _CACHE_SIZE:
            _RULES.clear()
        _RULES[key] = resolve(template, dict(options or {}))
    return _RULES[key]
