"""Editing a game file at the table: new game, next deal, edit, undo — on the TOML text.

tomlkit keeps whatever a person wrote by hand (comments, spacing, key order); we only add,
replace or remove ``[[deals]]`` tables. Every function takes text and returns text; saving is
storage's job, checking is the verifier's.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import tomlkit
from tomlkit.exceptions import TOMLKitError
from tomlkit.items import AoT, Table

from .gamefile import GameFile, parse_taken
from .problems import InputError

if TYPE_CHECKING:
    from .verify import Report
from .vocabulary import CATEGORY_ALIASES, fold


def new_game_text(rules_ref: str, players: Sequence[str], options: Mapping[str, str], first_dealer: str | None,
                  money: Mapping[str, str], title: str | None = None, date: dt.date | None = None) -> str:
    doc = tomlkit.document()
    doc.add(tomlkit.comment("kingsheet game file: edit by hand if you like, kingsheet keeps your comments"))
    doc.add("format", 1)
    doc.add("rules", rules_ref)
    if title:
        doc.add("title", title)
    doc.add("date", date or dt.date.today())
    doc.add("players", list(players))
    if first_dealer:
        doc.add("first_dealer", first_dealer)
    for name, values in (("options", options), ("money", money)):
        if values:
            table = tomlkit.table()
            for k, v in values.items():
                table.add(k, v)
            doc.add(tomlkit.nl())
            doc.add(name, table)
    return tomlkit.dumps(doc)


def _parse(text: str) -> tomlkit.TOMLDocument:
    try:
        return tomlkit.parse(text)
    except (TOMLKitError, RecursionError) as exc:
        raise InputError(f"the game file cannot be edited: {exc}") from None


def deal_table(fields: Mapping[str, Any]) -> Table:
    """A ``[[deals]]`` table: game first, then who, then the cells."""
    table = tomlkit.table()
    for key in ("game", "orderer", "declarer", "contract", "bid", "buyer", "price"):
        if fields.get(key) is not None:
            table.add(key, fields[key])
    if fields.get("points") is not None:
        table.add("points", list(fields["points"]))
    if fields.get("taken") is not None:
        arr = tomlkit.array()
        for counts in fields["taken"]:
            inline = tomlkit.inline_table()
            inline.update(counts)
            arr.append(inline)
        arr.multiline(True)
        table.add("taken", arr)
    if fields.get("note"):
        table.add("note", fields["note"])
    if fields.get("forced"):
        table.add("forced", True)
    return table


def _deals(doc: tomlkit.TOMLDocument) -> AoT:
    deals = doc.get("deals")
    if deals is None:
        deals = tomlkit.aot()
        doc.append("deals", deals)
    if not isinstance(deals, AoT):
        raise InputError("deals must be written as [[deals]] tables")
    return deals


def append_deal(text: str, fields: Mapping[str, Any]) -> str:
    return append_deals(text, [fields])


def append_deals(text: str, many: Sequence[Mapping[str, Any]]) -> str:
    if text.strip() and not text.endswith("\n\n"):
        text = text.rstrip("\n") + "\n\n"  # a blank line before the new [[deals]], as people write it
    doc = _parse(text)
    deals = _deals(doc)
    for fields in many:
        deals.append(deal_table(fields))
    return tomlkit.dumps(doc)


def replace_deal(text: str, number: int, fields: Mapping[str, Any]) -> str:
    doc = _parse(text)
    deals = _deals(doc)
    if not 1 <= number <= len(deals):
        raise InputError(f"there is no deal {number}; the sheet has {len(deals)}")
    old = deals[number - 1]
    new = deal_table(fields)
    # change only what changed, so a person's comments on the other lines stay
    for key in list(old.keys()):
        if key in ("points", "taken", "forced") and key not in new:
            del old[key]
    for key, value in new.items():
        if key in old and old[key].unwrap() == value.unwrap():
            continue
        old[key] = value
    return tomlkit.dumps(doc)


def remove_last(text: str) -> tuple[str, int]:
    doc = _parse(text)
    deals = _deals(doc)
    if not len(deals):
        raise InputError("the sheet has no deals to undo")
    n = len(deals)
    if n == 1:
        del doc["deals"]
    else:
        del deals[n - 1]
    return tomlkit.dumps(doc), n


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
            from .verify import verify

            report = verify(game)
        return None if report.ended_at is not None else "penalty"
    if rules.order != "fixed":
        return None
    n = len(game.deals)
    return rules.slots[n] if n < len(rules.slots) else None
