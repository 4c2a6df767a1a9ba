"""Reading a template: its TOML checked key by key, its options chosen, and every total derived
from units × what the deck holds (totals a template states are only checked against them).
``explain`` collects every mistake of a template a person wrote, for ``rules --check``."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from kingsheet.core.i18n import LANGUAGES, _
from kingsheet.core.problems import first_hidden, one_line
from kingsheet.core.rules import (
    MAX_CARD_SHARES,
    MAX_DEALS,
    MAX_OPTION_COMBINATIONS,
    MAX_RANKS,
    MAX_TEMPLATE_BYTES,
    NO_HEARTS_LEAD,
    ORDERS,
    PLAY_KEYS,
    SPREAD,
    SUITS,
    TEMPLATE_KEYS,
    TRUMPS_KEYS,
    Deck,
    Game,
    Kind,
    Order,
    Rules,
    RulesError,
    Template,
    Turn,
    base,
)
from kingsheet.core.tomltext import TomlProblem, parse
from kingsheet.core.vocabulary import BASE_GAMES, CATEGORIES, GAME_LABELS, LAST_ONE_LABEL, in_every_language


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
        bad = first_hidden(value)
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
        said = spec.get("said", {})
        if not isinstance(said, dict) or any(
                value not in spec["choices"] or not isinstance(words, dict) or not words
                or set(words) - set(LANGUAGES) or not all(isinstance(w, str) and 0 < len(w) <= 80 for w in words.values())
                for value, words in said.items()):
            raise RulesError(_('{where}: options.{key}.said gives each choice its words in each language, e.g. '
                               'said.jacks = {{ ru = "мальчики — валеты", en = "boys are jacks" }}').format(where=where, key=key))
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
        if set(notes) - set(LANGUAGES):
            raise RulesError(_("{where}: notes are a list, or notes.ru and notes.en lists").format(where=where))
        return tuple((lang, listed(notes[lang])) for lang in LANGUAGES if lang in notes)
    return (("en", listed(notes)),) if listed(notes) else ()


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
    no_lead, spread = _play(raw.get("play", {}), games, where, say)
    rules = Rules(template, options, deck, games, tuple(stages), bidding, buyout, declares, orders, no_lead, spread)
    if complete:
        _check_stage_totals(raw, rules, where, say)
    signs = {games[g].sign for g in stages[0]} if stages else set()
    if len(signs) > 1:
        say(_("{where}: stages[0] mixes negative and positive games").format(where=where))
    if complete and not any(stages):
        say(_("{where}: no deals: stages list no games").format(where=where))
    _check_limit(template, games if complete else None, where, say)
    if complete:
        _check_contradictions(rules, where, say)
    return rules


def _check_contradictions(rules: Rules, where: str, say: Mistakes) -> None:
    """Templates that load but that no real evening could satisfy: a talon that must hold scoring
    cards (every deal's cards would then not add up), a free turn whose share of the trump deals
    is not whole (every complete game would be refused), a game to a limit that no deal moves
    towards it (it would never end)."""
    deck = rules.deck
    for gid, g in rules.games.items():
        if g.kind is Kind.CARDS and g.card_values and not g.choose_suit and deck.talon > len(deck.cards) - len(g.card_values):
            say(_("{where}: game {gid}: a talon of {talon} cards must then hold cards that score, but the checks "
                  "count every scoring card as taken ({scoring} of {cards} cards score)").format(
                where=where, gid=gid, talon=deck.talon, scoring=len(g.card_values), cards=len(deck.cards)))
    if rules.declares is Turn.FREE:
        trumps = sum(1 for gid in rules.slots if rules.games[gid].declared)
        if trumps % rules.players:
            say(_("{where}: anyone may declare, each player their share of the {n} trump deals, but {n} do not "
                  "divide among {players} players").format(where=where, n=trumps, players=rules.players))
    if rules.limit is not None and "penalty" in rules.games:
        g = rules.games["penalty"]
        minus = sum(v for v in g.card_values.values() if v < 0)
        if not g.choose_suit and not g.bid and g.card_values and minus == 0:
            say(_("{where}: a game played to −{limit} needs cards that score minus; with these no deal moves a "
                  "player towards the limit, and the game never ends").format(where=where, limit=rules.limit))


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
    named: dict[tuple[str, str], str] = {}
    for gid, g in games.items():  # a sheet's row names one game: two games of one name cannot be told apart
        for lang, text in g.labels.items():
            other = named.setdefault((lang, text.strip().casefold()), gid)
            if other != gid:
                say(_("{where}: games {a} and {b} are both named «{label}»; give one another name in [labels]").format(
                    where=where, a=other, b=gid, label=text))
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
        elif not isinstance(value, dict) or not value or set(value) - set(LANGUAGES) or \
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


def _play(spec: Any, games: Mapping[str, Game], where: str, err: Callable[[str], None]
          ) -> tuple[frozenset[str], tuple[str, ...]]:
    """[play]: the rules of play the verifier, the simulator and the printed reminder read, where the
    template says them; else the seeds' (rules.NO_HEARTS_LEAD, rules.SPREAD)."""
    no_lead, spread = NO_HEARTS_LEAD, SPREAD
    if not isinstance(spec, dict):
        err(_("{where}: play must be a table ([play] with {keys})").format(where=where, keys=", ".join(PLAY_KEYS)))
        return no_lead, spread
    bases = sorted({gid.rstrip("+") for gid in games})
    for key, value in spec.items():
        if key not in PLAY_KEYS:
            err(_("{where}: play.{key} is not a key of [play] (known: {known})").format(
                where=where, key=key, known=", ".join(PLAY_KEYS)))
        elif not isinstance(value, list) or not all(isinstance(v, str) and v.strip() and len(v) <= 40 for v in value):
            err(_("{where}: play.{key} must be a list of words, e.g. {example}").format(
                where=where, key=key, example='["hearts", "king"]' if key == "no_hearts_lead" else '["роспись"]'))
        elif key == "no_hearts_lead":
            unknown = [v for v in value if v.rstrip("+") not in bases]
            if unknown:
                err(_("{where}: play.no_hearts_lead names {unknown}, not a game of this template (games: {games})").format(
                    where=where, unknown=", ".join(unknown), games=", ".join(bases)))
            else:
                no_lead = frozenset(v.rstrip("+") for v in value)
        else:
            spread = tuple(dict.fromkeys(v.strip().casefold() for v in value))
    return no_lead, spread


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
