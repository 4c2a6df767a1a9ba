"""What a person types for a deal, on any surface (the command line, the prompt, a web form):
player names by prefix, points in seating order, counts per player, and the game that comes next."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from kingsheet.core.game import GameFile, parse_taken
from kingsheet.core.problems import InputError
from kingsheet.core.vocabulary import CATEGORY_ALIASES, fold

if TYPE_CHECKING:
    from kingsheet.core.report import Report


def find_player(name: str, players: Sequence[str]) -> str:
    """A player by name or unambiguous prefix, case- and ё/е-insensitive."""
    key = fold(name)
    exact = [p for p in players if fold(p) == key]
    if exact:
        return exact[0]
    matches = [p for p in players if fold(p).startswith(key)]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise InputError(f"no player '{name}' at the table ({', '.join(players)})")
    raise InputError(f"'{name}' could be {' or '.join(matches)}; type more of the name")


def parse_taken_spec(spec: str, players: Sequence[str]) -> list[dict[str, int]]:
    """``"Аня: tricks=2 hearts=1; Боря: взятки=3"`` → counts per player in seating order."""
    out: list[dict[str, int]] = [{} for _ in players]
    seen: set[str] = set()
    for part in [p for p in spec.split(";") if p.strip()]:
        name, sep, rest = part.partition(":")
        if not sep:
            raise InputError(f"--taken: '{part.strip()}' needs a name and a colon, e.g. \"Аня: tricks=2 hearts=1\"")
        who = find_player(name.strip(), players)
        if who in seen:
            raise InputError(f"--taken: {who} is named twice")
        seen.add(who)
        counts: dict[str, Any] = {}
        for item in rest.replace(",", " ").split():
            key, eq, value = item.partition("=")
            if not eq:
                raise InputError(f"--taken: '{item}' should be key=count, e.g. tricks=2")
            if fold(key) not in CATEGORY_ALIASES:
                raise InputError(f"--taken: unknown count '{key}' (tricks, hearts, boys, girls, king, last)")
            try:
                counts[key] = int(value)
            except ValueError:
                raise InputError(f"--taken: {who}'s {key} = '{value}' is not a whole number") from None
        parsed, err = parse_taken(counts, 0)
        if err or parsed is None:
            raise InputError(f"--taken: {who}: {err}")
        out[players.index(who)] = parsed
    if not seen:
        raise InputError("--taken is empty")
    return out


def parse_points(values: Sequence[str], n: int) -> list[int]:
    points = []
    for v in values:
        try:
            points.append(int(v.replace("−", "-").replace("+", "")))
        except ValueError:
            raise InputError(f"'{v}' is not a whole number of points") from None
    if len(points) != n:
        raise InputError(f"{len(points)} points given for {n} players; write one per player in seating order")
    return points


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
    if rules.order != "fixed":
        return None
    n = len(game.deals)
    return rules.slots[n] if n < len(rules.slots) else None
