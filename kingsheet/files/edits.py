"""Editing a game file's text at the table: new game, next deal, edit, undo.

tomlkit keeps whatever a person wrote by hand (comments, spacing, key order); we only add,
replace or remove ``[[deals]]`` tables. Every function takes text and returns text; saving is
storage's job, checking is the verifier's.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import re
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from kingsheet.core.game import DEAL_FIELDS
from kingsheet.core.i18n import _
from kingsheet.core.problems import InputError

FLAGS = ("forced", "confirm")  # written only when true

if TYPE_CHECKING:  # tomlkit is loaded only where a whole document is edited (start-up time)
    import tomlkit
    from tomlkit.items import AoT, Table


def new_game_text(rules_ref: str, players: Sequence[str], options: Mapping[str, str], first_dealer: str | None,
                  money: Mapping[str, str], title: str | None = None, date: dt.date | str | None = None) -> str:
    """A new game file's text; ``date`` is today's unless given (a date, or the text of one)."""
    import tomlkit

    if isinstance(date, str):
        with contextlib.suppress(ValueError):  # else kept as the text it was
            date = dt.date.fromisoformat(date)
    doc = tomlkit.document()
    doc.add(tomlkit.comment(_("kingsheet game file: edit by hand if you like, kingsheet keeps your comments")))
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
    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    try:
        return tomlkit.parse(text)
    except (TOMLKitError, RecursionError) as exc:
        raise InputError(_("the game file cannot be edited: {exc}").format(exc=exc)) from None


def deal_table(fields: Mapping[str, Any]) -> Table:
    """A ``[[deals]]`` table: game first, then who, then the cells."""
    import tomlkit

    table = tomlkit.table()
    for key in DEAL_FIELDS:
        value = fields.get(key)
        if key == "taken" and value is not None:
            arr = tomlkit.array()
            for counts in value:
                inline = tomlkit.inline_table()
                inline.update(counts)
                arr.append(inline)
            arr.multiline(True)
            table.add("taken", arr)
        elif key in FLAGS or key == "note":
            if value:
                table.add(key, value)
        elif value is not None:
            table.add(key, list(value) if key == "points" else value)
    return table


def _deals(doc: tomlkit.TOMLDocument) -> AoT:
    import tomlkit
    from tomlkit.items import AoT

    deals = doc.get("deals")
    if deals is None:
        deals = tomlkit.aot()
        doc.append("deals", deals)
    if not isinstance(deals, AoT):
        raise InputError(_("deals must be written as [[deals]] tables"))
    return deals


def append_deal(text: str, fields: Mapping[str, Any]) -> str:
    return append_deals(text, [fields])


def append_deals(text: str, many: Sequence[Mapping[str, Any]]) -> str:
    if text.strip() and not text.endswith("\n\n"):
        text = text.rstrip("\n") + "\n\n"  # a blank line before the new [[deals]], as people write it
    # the new tables written after the text as it is: the rest of a long file is never re-parsed by
    # tomlkit (1 s a MiB), and the result must read as the old file with the deals added
    added = _tables(many)
    fast = text + added
    if _reads_as(fast, text, lambda raw: raw.setdefault("deals", []).extend(_read(added)["deals"])):
        return fast
    import tomlkit

    doc = _parse(text)
    deals = _deals(doc)
    for fields in many:
        deals.append(deal_table(fields))
    return tomlkit.dumps(doc)


def _tables(many: Sequence[Mapping[str, Any]]) -> str:
    """The ``[[deals]]`` tables as deal_table writes them, without loading tomlkit (a command's
    start-up: `kingsheet deal` appends and never needs it). _reads_as checks what they read as."""
    out = []
    for fields in many:
        lines = ["[[deals]]"]
        for key in DEAL_FIELDS:
            value = fields.get(key)
            if key == "taken" and value is not None:
                rows = ["{" + ", ".join(f"{_toml_key(k)} = {_toml_value(v)}" for k, v in counts.items()) + "}"
                        for counts in value]
                lines.append("taken = [\n" + "".join(f"    {row},\n" for row in rows) + "]")
            elif key in FLAGS or key == "note":
                if value:
                    lines.append(f"{key} = {_toml_value(value)}")
            elif value is not None:
                lines.append(f"{key} = {_toml_value(list(value) if key == 'points' else value)}")
        out.append("\n".join(lines) + "\n")
    return "\n".join(out)


def _toml_value(value: Any) -> str:
    import json

    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        # a JSON string is a TOML basic string, once DEL (which JSON leaves bare) is escaped too
        return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise TypeError(type(value).__name__)


def _toml_key(key: str) -> str:
    return key if key.replace("_", "").replace("-", "").isascii() and key.replace("_", "").replace("-", "").isalnum() \
        else _toml_value(key)


def _read(text: str) -> dict[str, Any]:
    import tomllib

    return tomllib.loads(text)


def _reads_as(new: str, old: str, change: Callable[[dict[str, Any]], object]) -> bool:
    """Whether ``new`` reads as ``old`` with ``change`` made (tomllib: fast and strict). A quick
    edit of the text is kept only then; otherwise tomlkit edits the whole document."""
    import tomllib

    try:
        want = tomllib.loads(old)
        change(want)
        return tomllib.loads(new) == want
    except (tomllib.TOMLDecodeError, RecursionError, KeyError, IndexError, TypeError, AttributeError):
        return False


_DEALS_HEADER = re.compile(r"^[ \t]*\[\[[ \t]*deals[ \t]*\]\][ \t]*(?:#[^\n]*)?$", re.M)
_ANY_HEADER = re.compile(r"^[ \t]*\[", re.M)


def _deal_spans(text: str) -> list[tuple[int, int]]:
    """Where each ``[[deals]]`` table seems to stand in the text (from its header to the next
    table's header): a guess, which _reads_as checks."""
    spans = []
    for m in _DEALS_HEADER.finditer(text):
        nxt = _ANY_HEADER.search(text, m.end())
        spans.append((m.start(), nxt.start() if nxt else len(text)))
    return spans


def replace_deal(text: str, number: int, fields: Mapping[str, Any]) -> str:
    spans = _deal_spans(text)
    if 1 <= number <= len(spans):  # tomlkit on that deal's table alone, spliced back
        start, end = spans[number - 1]
        with contextlib.suppress(InputError):
            table = _replaced(text[start:end], 1, fields)
            fast = text[:start] + table + text[end:]

            def change(raw: dict[str, Any]) -> None:
                raw["deals"][number - 1] = _read(table)["deals"][0]

            if _reads_as(fast, text, change):
                return fast
    return _replaced(text, number, fields)


def _replaced(text: str, number: int, fields: Mapping[str, Any]) -> str:
    import tomlkit

    doc = _parse(text)
    deals = _deals(doc)
    if not 1 <= number <= len(deals):
        raise InputError(_("there is no deal {number}; the sheet has {deals}").format(number=number, deals=len(deals)))
    old = deals[number - 1]
    new = deal_table(fields)
    # change only what changed, so a person's comments on the other lines stay; ``fields`` are the
    # whole deal (what a correction keeps of the old one is core.game.kept_on_edit, the caller's)
    for key in list(old.keys()):
        if key in DEAL_FIELDS and key not in new:
            del old[key]
    for key, value in new.items():
        if key in old and old[key].unwrap() == value.unwrap():
            continue
        old[key] = value
    return tomlkit.dumps(doc)


def remove_last(text: str) -> tuple[str, int]:
    spans = _deal_spans(text)
    if spans:  # the last deal's table cut off the text, if that reads as the file without it
        start, end = spans[-1]
        fast = text[:start].rstrip("\n") + "\n" + text[end:]

        counted: list[int] = []

        def change(raw: dict[str, Any]) -> None:
            counted.append(len(raw["deals"]))
            raw["deals"].pop()
            if not raw["deals"]:
                del raw["deals"]

        if _reads_as(fast, text, change):
            return fast, counted[0]
    import tomlkit

    doc = _parse(text)
    deals = _deals(doc)
    if not len(deals):
        raise InputError(_("the sheet has no deals to undo"))
    n = len(deals)
    if n == 1:
        del doc["deals"]
    else:
        del deals[n - 1]
    return tomlkit.dumps(doc), n
