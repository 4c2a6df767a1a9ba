"""What a person types for a deal, on any surface (the command line, the prompt, a web form):
player names by prefix, points in seating order, counts per player, and the game that comes next."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from kingsheet.core.game import DEAL_EXTRAS, GameFile, field_word, parse_taken
from kingsheet.core.game import EXTRA_KEYS as _EXTRA_KEYS
from kingsheet.core.i18n import LANGUAGES, _
from kingsheet.core.problems import InputError, one_line
from kingsheet.core.rules import Kind, Order, Rules
from kingsheet.core.vocabulary import CATEGORY_ALIASES, fold

if TYPE_CHECKING:
    from kingsheet.core.report import Report


#: What a deal may carry besides its cells, as a person types it (``declarer=Боря``): the table's.
EXTRA_KEYS = _EXTRA_KEYS


def extra_key(word: str) -> str | None:
    """The field a typed key names, in any language kingsheet speaks (``объявляет``, ``declarer``,
    any case), or None."""
    from kingsheet.core.game import FIELD_WORDS
    from kingsheet.core.i18n import LANGUAGES, in_language

    folded = fold(word)
    for key in EXTRA_KEYS:
        if folded == key or any(folded == fold(in_language(lang, FIELD_WORDS[key])) for lang in LANGUAGES):
            return key
    return None


def asked_fields(rules: Rules, game_id: str) -> tuple[str, ...]:
    """The fields besides the cells that a deal of this game asks for under these rules, in the
    order a form shows them (the note, which any deal may carry, is not among them)."""
    g = rules.games[game_id]
    asked: list[str] = []
    if g.declared:
        asked.append("declarer")
        if rules.bidding:
            asked.append("bid")
        if rules.buyout:
            asked += ["buyer", "price"]
        asked.append("contract")
    elif g.kind is Kind.CARDS and g.choose_suit:
        asked.append("contract")
        if g.bid:
            asked += ["declarer", "bid"]
    if rules.ordered:
        asked.append("orderer")
    return tuple(asked)


class TakenError(InputError):
    """What each player took, written so it cannot be read (the CLI names its --taken flag)."""


def deal_fields(game: GameFile, number: int, gid: str, points: Sequence[str],
                taken: str | Sequence[Mapping[str, Any]] | None, extras: Mapping[str, Any]) -> dict[str, Any]:
    """The fields of deal ``number`` from what a person typed: the points in seating order or what
    each took, players by name or prefix, and the declarer and orderer from the turn where they
    are not given. Raises InputError with the reason."""
    fields: dict[str, Any] = {"game": gid}
    if taken is not None:
        if points:
            raise InputError(_("give the points or what each took, not both"))
        fields["taken"] = (parse_taken_spec(taken, game.players) if isinstance(taken, str)
                           else _taken_table(taken, game.players, number))
    elif not points:
        raise InputError(_("give the points in seating order (e.g. -4 0 -8 -4), or what each took (Аня: tricks=2; …)"))
    else:
        fields["points"] = parse_points(points, len(game.players))
    for f in DEAL_EXTRAS:  # the table's kinds: a name of the table, a whole number, a text
        value = extras.get(f.name)
        if f.kind == "player":
            if value:
                fields[f.name] = find_player(str(value), game.players)
        elif f.kind == "whole":
            if isinstance(value, str):
                if not value.isdigit():
                    raise InputError(_("{key} must be a whole number, not '{value}'").format(
                        key=field_word(f.name), value=one_line(value, 20)))
                value = int(value)
            if value is not None:
                fields[f.name] = value
        elif value is not None:
            fields[f.name] = str(value)
    return game.with_turn(fields, number)


def _taken_table(taken: Sequence[Mapping[str, Any]], players: Sequence[str], number: int) -> list[dict[str, int]]:
    """What each took, one table per player in seating order (a form's grid)."""
    if len(taken) != len(players):
        raise TakenError(_("{given} entries of what each took for {n} players").format(given=len(taken), n=len(players)))
    out = []
    for who, entry in zip(players, taken):
        parsed, err = parse_taken(dict(entry), number)
        if err or parsed is None:
            raise TakenError(f"{who}: {err}")
        out.append(parsed)
    return out


def suggest_game(rules: Rules, typed: str) -> str | None:
    """The game label closest to a mistyped name («малчики» → «Мальчики»), or None."""
    import difflib

    labels = {fold(g.label(lang)): g.label(lang) for g in rules.games.values() for lang in reversed(LANGUAGES)}  # Russian wins a tie
    labels.update({fold(gid): rules.games[gid].label() for gid in rules.games})
    close = difflib.get_close_matches(fold(typed).replace("-", ""), list(labels), n=1, cutoff=0.7)
    return labels[close[0]] if close else None


def find_player(name: str, players: Sequence[str], club: bool = False) -> str:
    """A player by name or unambiguous prefix, case- and ё/е-insensitive; ``club``: among a club's
    players (who are not at one table)."""
    key = fold(name)
    exact = [p for p in players if fold(p) == key]
    if exact:
        return exact[0]
    matches = [p for p in players if fold(p).startswith(key)]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        import difflib

        close = difflib.get_close_matches(key, [fold(p) for p in players], n=1, cutoff=0.6)
        hint = _("; did you mean {name}?").format(name=players[[fold(p) for p in players].index(close[0])]) if close else ""
        text = (_("no player '{name}' in the club's games ({players}){hint}") if club else
                _("no player '{name}' at the table ({players}){hint}"))
        raise InputError(text.format(name=name, players=', '.join(players), hint=hint))
    raise InputError(_("'{name}' could be {matches}; type more of the name").format(name=name, matches=_(' or ').join(matches)))


def parse_taken_spec(spec: str, players: Sequence[str]) -> list[dict[str, int]]:
    """``"Аня: tricks=2 hearts=1; Боря: взятки=3"`` → counts per player in seating order."""
    out: list[dict[str, int]] = [{} for _ in players]
    seen: set[str] = set()
    for part in [p for p in spec.split(";") if p.strip()]:
        name, sep, rest = part.partition(":")
        if not sep:
            raise TakenError(_('\'{value}\' needs a name and a colon, e.g. "Аня: tricks=2 hearts=1"').format(value=part.strip()))
        who = find_player(name.strip(), players)
        if who in seen:
            raise TakenError(_("{who} is named twice").format(who=who))
        seen.add(who)
        counts: dict[str, Any] = {}
        for item in rest.replace(",", " ").split():
            key, eq, value = item.partition("=")
            if not eq:
                raise TakenError(_("'{item}' should be key=count, e.g. tricks=2").format(item=item))
            if fold(key) not in CATEGORY_ALIASES:
                raise TakenError(_("unknown count '{key}' (tricks, hearts, boys, girls, king, last)").format(key=key))
            try:
                counts[key] = int(value)
            except ValueError:
                raise TakenError(_("{who}'s {key} = '{value}' is not a whole number").format(who=who, key=key, value=value)) from None
        parsed, err = parse_taken(counts, 0)
        if err or parsed is None:
            raise TakenError(f"{who}: {err}")
        out[players.index(who)] = parsed
    if not seen:
        raise TakenError(_("no player's counts are given"))
    return out


def parse_points(values: Sequence[str], n: int) -> list[int]:
    points = []
    for v in values:
        try:
            points.append(int(v.replace("−", "-").replace("+", "")))
        except ValueError:
            raise InputError(_("'{value}' is not a whole number of points").format(value=v)) from None
    if len(points) != n:
        raise InputError(_("{points} points given for {n} players; write one per player in seating order").format(points=len(points), n=n))
    return points


def signed_points(rules: Rules, game_id: str, values: Sequence[str]) -> list[str]:
    """Points typed as magnitudes (a phone's keypad may have no minus key): the sign is the game's.
    A value typed with its sign keeps it; where a cell may be either, the value is as typed."""
    from kingsheet.core.scoring import cell_sign

    sign = cell_sign(rules, rules.games[game_id])
    out = []
    for v in values:
        text = v.strip().replace("−", "-")
        if sign == -1 and text.isdigit():  # a whole number typed bare: anything else is said as typed
            text = "-" + text
        out.append(text or "0")
    return out


def adds_sign(rules: Rules, game_id: str, values: Sequence[str]) -> bool:
    """Whether signed_points gives some value typed without a sign the game's minus (a number, not 0)."""
    return any(a.strip().replace("−", "-") != b and b.lstrip("-0") != ""
               for a, b in zip(values, signed_points(rules, game_id, values)))


def sign_note(rules: Rules, game_id: str) -> str:
    """Said once when the game's sign was added to points typed without one."""
    return _("the points take the sign of {game} (minus), as typed without one").format(
        game=rules.games[game_id].label())


def next_game(game: GameFile, report: Report | None = None) -> str | None:
    """The game the template expects next (fixed order), or None when the order is free or done.

    A game played to a limit is done when a total reached it: pass the game's report if you
    have one, so it is not verified again."""
    rules = game.rules
    if rules.limit is not None:
        if report is None:
            from kingsheet.core.verify import verify

            report = verify(game)
        return None if report.ended_at is not None else "penalty"
    if rules.order is not Order.FIXED:
        return None
    n = len(game.deals)
    return rules.slots[n] if n < len(rules.slots) else None
