"""What the XLSX and CSV readers share: turning rows of a sheet into the game file's data."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from kingsheet.core.i18n import LANGUAGES, _
from kingsheet.core.problems import InputError, one_line
from kingsheet.core.rules import Order, RulesError
from kingsheet.core.vocabulary import fold
from kingsheet.files.templates import is_template_path, load_rules, template_ids

EXTRA_HEADERS = {
    "declarer": {"declarer", "объявляет", "declares", "козыри объявил", "заказал козыри"},
    "orderer": {"orderer", "заказал", "ordered by", "заказчик"},
    "bid": {"bid", "заявка"},
    "buyer": {"buyer", "купил", "покупатель"},
    "price": {"price", "цена"},
    "contract": {"contract", "контракт", "козырь", "масть", "suit"},
    "note": {"note", "заметка", "примечание"},
    "dealer": {"dealer", "сдаёт", "сдает", "deals", "сдающий"},
    "sum": {"σ", "сумма", "sum"},
    "check": {"проверка", "check", "✓"},
    "forced": {"forced", "принудительно"},
    "confirm": {"confirm", "подтвердить"},
    "problems": {"problems", "ошибки"},
}
TOTAL_LABELS = ("итого", "total")


def header_kind(text: str) -> str | None:
    key = fold(text)
    if key.startswith("σ ") or key.startswith("итог "):
        return "running"  # a running total beside the players (games played to a limit)
    for kind, names in EXTRA_HEADERS.items():
        if key in names:
            return kind
    return None


def unquote(text: str) -> str:
    """Undo the CSV-injection guard: an apostrophe before = + - @, at the start or after a comma or
    a semicolon, was ours."""
    text = re.sub(r"([,;])'(?=[=+\-@\t\r])", r"\1", text)
    if len(text) > 1 and text[0] == "'" and text[1] in "=+-@\t\r":
        return text[1:]
    return text


DEFAULTS = {4: "blank-4", 3: "three-30"}  # the paper blanks, when a sheet fits several systems


def infer_rules(labels: Sequence[str], players: int, totals: Sequence[int | None] | None = None) -> str:
    """The template whose fixed order of games matches the sheet's game column (and «Очки», if given).

    ``labels`` are all game rows of the sheet, played or not; ``totals`` the «Очки» beside them.
    When several systems fit the rows there are, a sheet with as many rows as one of them picks
    it; else the paper blank for that many players; else the user is asked for --rules.
    """
    wanted = [fold(label) for label in labels if label]
    fits: list[tuple[str, int]] = []
    for tid in template_ids():
        try:
            rules = load_rules(tid)
        except RulesError:  # pragma: no cover - every bundled template loads (tested)
            continue
        if rules.players != players or rules.order is not Order.FIXED:
            continue
        seqs = [[fold(rules.games[g].label(lang)) for g in rules.slots] for lang in LANGUAGES]
        seqs.append([fold(g) for g in rules.slots])
        if not wanted or not any(wanted == seq[: len(wanted)] for seq in seqs):
            continue
        if totals and any(want is not None and want != rules.games[g].total
                          for want, g in zip(totals, rules.slots)):
            continue
        fits.append((tid, len(rules.slots)))
    if len(fits) == 1:
        return fits[0][0]
    if not fits:
        raise InputError(_("cannot tell which rules this sheet follows; give --rules ID"))
    exact = [tid for tid, n in fits if n == len(wanted)]
    if len(exact) == 1:
        return exact[0]
    default = DEFAULTS.get(players)
    if default in [tid for tid, _ in fits]:
        return default
    raise InputError(_("the sheet fits several rule systems ({value}); give --rules ID").format(value=', '.join(t for t, _ in fits)))


def sheet_rules(ref: str, sheet: Path) -> str:
    """The rules a sheet names for itself. A sheet comes from anywhere, so it may name a bundled
    rules id, or a template file lying beside it, and nothing else on the disk."""
    if not is_template_path(ref):
        return ref
    name = Path(ref)
    if name.name != ref or ref in (".", "..") or not (sheet.parent / name).is_file():
        raise InputError(_("{sheet}: the sheet names rules '{ref}'; a sheet may name a bundled rules id, or " "a template file in its own folder (or give --rules)").format(sheet=sheet, ref=one_line(ref, 60)))
    return ref


def game_data(rules_ref: str, options: dict[str, str], players: list[str], first_dealer: str | None,
              deals: list[dict[str, Any]]) -> dict[str, Any]:
    data: dict[str, Any] = {"format": 1, "rules": rules_ref, "players": players, "deals": deals}
    if options:
        data["options"] = options
    if first_dealer:
        data["first_dealer"] = first_dealer
    return data
