"""A game as values: the deals and the header of a game file, checked field by field.

Whole-file mistakes (unknown rules, no players) raise InputError: nothing can be checked. A
mistake inside one deal (an unknown key, a wrong number of cells) is a Problem naming the deal,
and the other deals are still checked. Reading the TOML text is files.gamefile's job.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from kingsheet.core.i18n import NP_, _, pgettext
from kingsheet.core.problems import InputError, Problem, first_hidden, one_line
from kingsheet.core.record import EMPTY_MAP, Record
from kingsheet.core.rules import Order, Rules, RulesError, Turn
from kingsheet.core.vocabulary import CATEGORY_ALIASES, fold

FORMAT = 1


FILE_KEYS = {"format", "rules", "title", "date", "players", "first_dealer", "options", "money", "deals"}


DEAL_KEYS = {
    "game", "points", "taken", "orderer", "declarer", "contract", "bid", "buyer", "price", "note",
    "forced", "confirm",
}


class Deal(Record):
    number: int
    game: str  # as written in the file
    points: tuple[int, ...] | None = None
    taken: tuple[Mapping[str, int], ...] | None = None
    orderer: str | None = None
    declarer: str | None = None
    contract: str | None = None
    bid: int | None = None
    buyer: str | None = None
    price: int | None = None
    note: str | None = None
    forced: bool = False
    confirm: bool = False  # read from a photo and not yet confirmed by a person (kingsheet scan)


#: A deal's fields besides its cells as a person names them, in each language: what the prompt
#: takes before «=» (``объявляет=Вася``, ``declarer=Вася``) and what a message calls the field.
FIELD_WORDS = {"declarer": NP_("field", "declarer"), "orderer": NP_("field", "orderer"),
               "buyer": NP_("field", "buyer"), "bid": NP_("field", "bid"), "price": NP_("field", "price"),
               "contract": NP_("field", "contract"), "note": NP_("field", "note")}


def field_word(key: str) -> str:
    """A deal's field (declarer) as the language spoken now says it («объявляет»)."""
    return pgettext(*FIELD_WORDS[key]) if key in FIELD_WORDS else key


class DealField(Record):
    """One of a deal's fields besides its cells. ``kind``: "player" (a name of the table), "whole"
    (a whole number from 0 to ``limit``) or "text" (at most ``limit`` characters); ``kept_on_edit``:
    a correction that does not give the field keeps the deal's own."""

    name: str
    kind: str
    limit: int
    kept_on_edit: bool = True


#: A deal's fields besides its cells: the one table that the game file's reader and writers, the
#: CSV and workbook readers, the CLI's options, `play`'s corrections and the page (sent in
#: ``state``) read. Its order is the CSV's columns. A bid or a price is a count of tricks.
NAME_LIMIT = 60  # a player's name, wherever it is typed
DEAL_EXTRAS = (
    DealField("declarer", "player", NAME_LIMIT),
    DealField("orderer", "player", NAME_LIMIT),
    DealField("bid", "whole", 999),
    DealField("buyer", "player", NAME_LIMIT),
    DealField("price", "whole", 999),
    DealField("contract", "text", 40),
    DealField("note", "text", 500),
)
EXTRA_KEYS = tuple(f.name for f in DEAL_EXTRAS)
EXTRA = {f.name: f for f in DEAL_EXTRAS}


def kept_on_edit(old: Deal | None, given: Mapping[str, Any]) -> dict[str, Any]:
    """What a correction keeps of deal ``old``: each field of DEAL_EXTRAS kept on edit that the
    correction does not give (None or absent; an empty text given clears it). The note of a row
    read from a photo and not yet confirmed is the reader's doubt, not the players': a correction
    replaces it."""
    if old is None:
        return {}
    return {f.name: getattr(old, f.name) for f in DEAL_EXTRAS
            if f.kept_on_edit and given.get(f.name) is None and getattr(old, f.name) is not None
            and not (f.name == "note" and old.confirm)}


#: A deal's fields as a game file writes them, in the order it writes them (its number is its place).
DEAL_FIELDS = ("game", "orderer", "declarer", "contract", "bid", "buyer", "price", "points", "taken", "note",
               "forced", "confirm")


class GameFile(Record):
    rules: Rules
    rules_ref: str
    players: tuple[str, ...]
    deals: tuple[Deal, ...]
    problems: tuple[Problem, ...] = ()  # structural problems found while reading deals
    title: str | None = None
    date: str | None = None
    first_dealer: str | None = None
    money: Mapping[str, Any] = EMPTY_MAP
    path: Path | None = None

    def dealer_of(self, number: int) -> str:
        """Who deals deal ``number`` (1-based): the deal passes clockwise."""
        start = self.players.index(self.first_dealer) if self.first_dealer in self.players else 0
        return self.players[(start + number - 1) % len(self.players)]

    def left_of(self, player: str) -> str:
        return self.players[(self.players.index(player) + 1) % len(self.players)]

    def on_turn(self, number: int) -> str:
        """The player left of the dealer of deal ``number``: the one who declares, orders or opens
        the auction (seeds 000, 002). Whether the rules hold the table to it is ``Rules.declares``
        and ``Rules.orders``."""
        return self.left_of(self.dealer_of(number))

    def turn_words(self, number: int, game_id: str | None) -> str:
        """Who is on turn at deal ``number``, as a prompt says it: ", Боря declares"; '' for none."""
        who = self.on_turn(number)
        if game_id is None:
            return _(", {who} orders").format(who=who)
        if not self.rules.games[game_id].declared:
            return ""
        return _(", {who} opens the auction").format(who=who) if self.rules.declares is Turn.AUCTION else _(", {who} declares").format(who=who)

    def with_turn(self, fields: dict[str, Any], number: int) -> dict[str, Any]:
        """The fields of deal ``number`` with its declarer and orderer filled in from the turn where
        they were left out."""
        out = dict(fields)
        turn = self.on_turn(number)
        if self.rules.games[out["game"]].declared:
            out.setdefault("declarer", turn)
        if self.rules.ordered:
            out.setdefault("orderer", turn)
        return out


#: The one rule for every text a file carries (names, header fields, a deal's contract and note):
#: text, no control characters (escape sequences, line breaks) and no direction overrides (which
#: would turn an amount around on a terminal), and no longer than this.
TEXT_LIMITS = {"player": NAME_LIMIT, "title": 200, "date": 40, "rules": 255, "currency": 12, "stake": 40,
               "method": 20, "game": 60, "option": 40, **{f.name: f.limit for f in DEAL_EXTRAS if f.kind == "text"}}
MONEY_KEYS = ("stake", "currency", "method")
#: More deals than the rules can have are read only up to a margin: past it the file is refused.
DEAL_MARGIN = 2
MAX_DEALS_TO_LIMIT = 500


def text_problem(value: Any, field: str) -> str | None:
    """Why ``value`` cannot stand as the text of ``field``, or None."""
    if not isinstance(value, str):
        return _("{field} must be text, not {name} {value}").format(field=field, name=type(value).__name__, value=one_line(repr(value), 40))
    bad = first_hidden(value)
    if bad is not None:
        return _("{field} '{value}' has a control character (U+{bad:04X})").format(field=field, value=one_line(value, 40), bad=ord(bad))
    limit = TEXT_LIMITS.get(field, 200)
    if len(value) > limit:
        return _("{field} is {value} characters long; at most {limit}").format(field=field, value=len(value), limit=limit)
    return None


def checked_text(value: Any, field: str, where: str) -> str:
    why = text_problem(value, field)
    if why:
        raise InputError(f"{where}: {why}")
    return str(value)


def max_deals(rules: Rules) -> int:
    """How many deals a file of these rules may hold: the rules' own, twice over (a sheet with extra
    deals is still checked and reported), or a bound for a game played to a limit."""
    return MAX_DEALS_TO_LIMIT if rules.order is Order.TO_LIMIT else DEAL_MARGIN * len(rules.slots) + 8


def _problem(deal: int, code: str, message: str, game: str | None = None, player: str | None = None,
             expected: Any = None, actual: Any = None) -> Problem:
    return Problem(code, deal, game, player, expected, actual, _("deal {deal}: {message}").format(deal=deal, message=message))


def parse_taken(entry: Any, number: int) -> tuple[dict[str, int] | None, str | None]:
    """One player's counts: {tricks = 2, hearts = 1}; keys in English or Russian."""
    if not isinstance(entry, dict):
        return None, _("each entry of taken must be a table like {{ tricks = 2 }}, not {entry!r}").format(entry=entry)
    out: dict[str, int] = {}
    for key, value in entry.items():
        cat = CATEGORY_ALIASES.get(fold(str(key)))
        if cat is None:
            return None, _("unknown count key '{key}' (use tricks, hearts, boys, girls, king, last)").format(key=key)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            return None, _("count {key} = {value!r} is not a whole number ≥ 0").format(key=key, value=value)
        out[cat] = out.get(cat, 0) + value
    return out, None


def _read_deal(number: int, raw: Any, players: tuple[str, ...]) -> tuple[Deal | None, list[Problem]]:
    if not isinstance(raw, dict):
        return None, [_problem(number, "bad-deal", _("is not a table"))]
    problems: list[Problem] = []
    unknown = sorted(set(raw) - DEAL_KEYS)
    if unknown:
        problems.append(_problem(number, "unknown-key", _("unknown key {unknown}").format(unknown=', '.join(unknown))))
    game = raw.get("game")
    if not isinstance(game, str) or not game.strip():
        return None, [*problems, _problem(number, "unknown-game", _("has no game"))]
    n = len(players)
    points = taken = None
    if "points" in raw and "taken" in raw:
        problems.append(_problem(number, "bad-deal", _("has both points and taken; keep one")))
    elif "points" in raw:
        pts = raw["points"]
        if not isinstance(pts, list) or any(isinstance(p, bool) or not isinstance(p, int) for p in pts):
            problems.append(_problem(number, "bad-deal", _("points must be a list of whole numbers")))
        elif len(pts) != n:
            problems.append(_problem(number, "cell-count", _("has {pts} cells for {n} players").format(pts=len(pts), n=n),
                                     expected=n, actual=len(pts)))
        else:
            points = tuple(pts)
    elif "taken" in raw:
        tk = raw["taken"]
        if not isinstance(tk, list):
            problems.append(_problem(number, "bad-deal", _("taken must be a list, one table per player")))
        elif len(tk) != n:
            problems.append(_problem(number, "cell-count", _("has {tk} entries in taken for {n} players").format(tk=len(tk), n=n),
                                     expected=n, actual=len(tk)))
        else:
            parsed = [parse_taken(e, number) for e in tk]
            errs = [e for _, e in parsed if e]
            if errs:
                problems.append(_problem(number, "bad-deal", errs[0]))
            else:
                taken = tuple(p for p, _ in parsed if p is not None)
    else:
        problems.append(_problem(number, "bad-deal", _("has neither points nor taken")))
    people = {}
    for key in (f.name for f in DEAL_EXTRAS if f.kind == "player"):
        who = raw.get(key)
        if who is None:
            continue
        if who not in players:
            problems.append(_problem(number, key if key != "buyer" else "declarer",
                                     _("{key} '{who}' is not at the table").format(key=field_word(key), who=who),
                                     player=None))
            continue
        people[key] = who
    ints = {}
    for key in (f.name for f in DEAL_EXTRAS if f.kind == "whole"):
        val = raw.get(key)
        if val is None:
            continue
        if isinstance(val, bool) or not isinstance(val, int) or not 0 <= val <= EXTRA[key].limit:
            problems.append(_problem(number, "bad-deal", _("{key} must be a whole number from 0 to {most}, not {val}").format(
                key=field_word(key), most=EXTRA[key].limit, val=one_line(repr(val), 40))))
            continue
        ints[key] = val
    text = {}
    for key in (f.name for f in DEAL_EXTRAS if f.kind == "text"):
        if key in raw:
            why = text_problem(raw[key], key)
            if why:
                problems.append(_problem(number, "bad-deal", why))
            else:
                text[key] = raw[key]
    if problems and points is None and taken is None:
        return Deal(number, game.strip(), **people, **ints, **text), problems  # type: ignore[arg-type]
    deal = Deal(number, game.strip(), points, taken, forced=bool(raw.get("forced", False)),
                confirm=bool(raw.get("confirm", False)), **people, **ints, **text)  # type: ignore[arg-type]
    return deal, problems


def parse_options(raw: Any) -> dict[str, str]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise InputError(_('[options] must be a table, e.g. boys = "jacks"'))
    return {str(k): str(v) for k, v in raw.items()}


#: How a game finds its rules by their reference and options (the files layer gives it).
RulesLookup = Callable[[str, Mapping[str, str]], Rules]


def build_game(raw: Mapping[str, Any], where: str, path: Path | None, find_rules: RulesLookup,
               numbers: Sequence[int] | None = None) -> GameFile:
    """A game from the file's data (TOML, or what an importer read from a sheet). ``numbers``: each
    deal's number on the sheet it was read from, rising, where rows were left empty between played
    ones (a workbook's №); a game file's deals are numbered by their place."""
    unknown = sorted(set(raw) - FILE_KEYS)
    if unknown:
        raise InputError(_("{where}: unknown key {unknown}").format(where=where, unknown=', '.join(unknown)))
    fmt = raw.get("format", FORMAT)
    if fmt != FORMAT:
        raise InputError(_("{where}: format {fmt!r} is not supported by this kingsheet (it reads format {FORMAT})").format(where=where, fmt=fmt, FORMAT=FORMAT))
    ref = raw.get("rules")
    if ref is None:
        raise InputError(_('{where}: missing rules = "<template id>"').format(where=where))
    ref = checked_text(ref, "rules", where)
    players = raw.get("players")
    if not isinstance(players, list) or not players or not all(isinstance(p, str) and p.strip() for p in players):
        raise InputError(_("{where}: players must be a list of names").format(where=where))
    players_t = tuple(checked_text(p.strip(), "player", where) for p in players)
    if len(set(players_t)) != len(players_t):
        raise InputError(_("{where}: a player's name appears twice").format(where=where))
    try:
        rules = find_rules(ref, parse_options(raw.get("options")))
    except RulesError as exc:
        raise InputError(f"{where}: {exc}") from None
    if len(players_t) != rules.players:
        raise InputError(_("{where}: {id} is for {players} players, the file has {players_t}").format(where=where, id=rules.id, players=rules.players, players_t=len(players_t)))
    first = raw.get("first_dealer")
    if first is not None:
        first = checked_text(first, "player", _("{where}: first_dealer").format(where=where))
    if first is not None and first not in players_t:
        raise InputError(_("{where}: first_dealer '{first}' is not at the table").format(where=where, first=first))
    money = _money_header(raw.get("money", {}), where)
    deals_raw = raw.get("deals", [])
    if not isinstance(deals_raw, list):
        raise InputError(_("{where}: deals must be an array of tables ([[deals]])").format(where=where))
    if len(deals_raw) > max_deals(rules):
        raise InputError(_("{where}: {deals_raw} deals, far more than {id} has ({value}); at most {rules} are read").format(where=where, deals_raw=len(deals_raw), id=rules.id, value=len(rules.slots) or _('a game to a limit'), rules=max_deals(rules)))
    deals: list[Deal] = []
    problems: list[Problem] = []
    if numbers is not None and (len(numbers) != len(deals_raw) or list(numbers) != sorted(set(numbers))
                                or (numbers and numbers[0] < 1)):
        raise ValueError("deal numbers must rise from 1, one a deal")
    for i, d in zip(numbers if numbers is not None else range(1, len(deals_raw) + 1), deals_raw, strict=True):
        deal, probs = _read_deal(i, d, players_t)
        problems.extend(probs)
        if deal is not None:
            deals.append(deal)
    date = raw.get("date")
    if isinstance(date, (dt.date, dt.datetime)):
        date = date.isoformat()
    if date is not None:
        date = checked_text(date, "date", where)
    title = raw.get("title")
    if title is not None:
        title = checked_text(title, "title", where)
    return GameFile(rules, ref, players_t, tuple(deals), tuple(problems), title, date, first, money, path)


def _money_header(money: Any, where: str) -> dict[str, Any]:
    """[money]: stake (text or a number), currency and method, each checked as text."""
    if not isinstance(money, dict):
        raise InputError(_("{where}: [money] must be a table").format(where=where))
    unknown = sorted(set(money) - set(MONEY_KEYS))
    if unknown:
        raise InputError(_("{where}: [money] has unknown key {unknown} (known: {MONEY_KEYS})").format(where=where, unknown=', '.join(unknown), MONEY_KEYS=', '.join(MONEY_KEYS)))
    out = dict(money)
    stake = out.get("stake")
    if isinstance(stake, (int, float)) and not isinstance(stake, bool):
        out["stake"] = str(stake)
    for key in MONEY_KEYS:
        if key in out:
            checked_text(out[key], key, _("{where}: [money]").format(where=where))
    return out
