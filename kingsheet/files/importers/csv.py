"""CSV, for any other spreadsheet: one row per deal.

    # kingsheet,"format=1","rules=blank-4","boys=jacks","first_dealer=Аня","title=Пятница у Ани","date=2026-11-27","money.stake=0.50","money.currency=RUB","money.method=pairwise"
    game,Аня,Боря,Вася,Галя,declarer,orderer,bid,buyer,price,contract,note
    tricks,-4,0,-8,-4,,,,,,,

The comment line says which rules (or ``import --rules``), the options, and the game's title,
date and money (``money.stake``…, read as a game file's ``[money]``); the columns after ``game`` up to
the first known extra (declarer, orderer, bid, …) are the players. Commas or semicolons.
Text a spreadsheet would take for a formula (= + - @ first) is written with a leading
apostrophe and read back without it.
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path
from typing import Any

from kingsheet.core.game import EXTRA, EXTRA_KEYS, MONEY_KEYS, GameFile, build_game
from kingsheet.core.i18n import _
from kingsheet.core.problems import InputError
from kingsheet.core.vocabulary import fold
from kingsheet.files.gamefile import read_text
from kingsheet.files.importers.common import game_data, header_kind, sheet_rules, unquote
from kingsheet.files.templates import rules_beside

EXTRAS = EXTRA_KEYS  # the columns after the players: core.game.DEAL_EXTRAS, in its order


_FORMULA = "=+-@\t\r"


def guard(text: str) -> str:
    """Text a spreadsheet would take for a formula gets an apostrophe: at its start, and after each
    comma or semicolon, where a reader with the other delimiter would start a cell."""
    text = re.sub(r"([,;])(?=[=+\-@\t\r])", r"\1'", text)
    return "'" + text if text.startswith(tuple(_FORMULA)) else text


def _quoted(text: str) -> str:
    return '"' + guard(text).replace('"', '""') + '"'


def write_csv(game: GameFile) -> str:
    """Every text field is quoted and guarded, so that neither a comma reader nor a semicolon
    reader (Excel in ru-RU) splits it or takes any part of it for a formula; numbers stay numbers."""
    buf = io.StringIO()
    meta = [("format", "1"), ("rules", game.rules_ref), *game.rules.options.items()]
    if game.first_dealer:
        meta.append(("first_dealer", game.first_dealer))
    # the game's own header travels with its deals: a stake lost on the way would settle the
    # evening at another one
    meta += [(k, getattr(game, k)) for k in ("title", "date") if getattr(game, k)]
    meta += [(f"money.{k}", game.money[k]) for k in MONEY_KEYS if game.money.get(k) is not None]
    buf.write(",".join(["# kingsheet", *(_quoted(f"{k}={v}") for k, v in meta)]) + "\n")
    writer = csv.writer(buf, lineterminator="\n", quoting=csv.QUOTE_NONNUMERIC)
    writer.writerow(["game", *(guard(p) for p in game.players), *EXTRAS, "forced", "confirm", "problems"])
    from kingsheet.core.verify import verify

    for row in verify(game).rows:
        deal = row.deal
        cells: list[int | str] = list(row.cells) if row.cells else [""] * len(game.players)
        extras = [getattr(deal, k) for k in EXTRAS]
        problems = "; ".join(p.message.split(": ", 1)[-1] for p in row.problems)
        writer.writerow([guard(deal.game), *cells, *("" if v is None else guard(str(v)) for v in extras),
                         "true" if deal.forced else "", "true" if deal.confirm else "", guard(problems)])
    return buf.getvalue()


def _meta(line: str) -> dict[str, str]:
    """The comment line: ``# kingsheet,"format=1","rules=blank-4",…`` (or the older ``# kingsheet
    format=1 rules=blank-4 …``, one field split at spaces)."""
    delimiter = ";" if line.count(";") > line.count(",") else ","
    try:
        fields = next(csv.reader([line], delimiter=delimiter))
    except (csv.Error, StopIteration):
        return {}
    words = fields[1:] if len(fields) > 1 else line.lstrip("#").split()
    out = {}
    for word in words:
        key, eq, value = unquote(word.strip()).partition("=")
        if eq:
            out[key.strip()] = value
    return out


def read_csv(path: Path, rules_ref: str | None = None) -> GameFile:
    text = read_text(path, "utf-8-sig")  # a spreadsheet's CSV may start with a byte-order mark
    meta: dict[str, str] = {}
    lines = []
    for line in text.splitlines():
        if line.startswith(("#", '"#')):
            if "kingsheet" in line:
                meta.update(_meta(line))
            continue
        if line.strip():
            lines.append(line)
    if not lines:
        raise InputError(_("{path}: no header row (game, then one column per player)").format(path=path))
    delimiter = ";" if lines[0].count(";") > lines[0].count(",") else ","
    try:
        rows = list(csv.reader(lines, delimiter=delimiter))
    except csv.Error as exc:
        raise InputError(_("{path}: not valid CSV ({exc})").format(path=path, exc=exc)) from None
    header = [unquote(h.strip()) for h in rows[0]]
    if not header or fold(header[0]) not in ("game", "игра"):
        raise InputError(_("{path}: the first column must be «game» (or «Игра»), not '{value}'").format(path=path, value=header[0] if header else ''))
    players: list[str] = []
    cols: dict[str, int] = {}
    for i, name in enumerate(header[1:], start=1):
        kind = header_kind(name)
        if kind or cols:
            if kind:
                cols.setdefault(kind, i)
            continue
        if not name:
            raise InputError(_("{path}: column {value} of the header is empty").format(path=path, value=i + 1))
        players.append(name)
    if not players:
        raise InputError(_("{path}: the header names no players").format(path=path))
    deals: list[dict[str, Any]] = []
    for n, row in enumerate(rows[1:], start=2):
        if not any(c.strip() for c in row):
            continue
        if len(row) < 1 + len(players):
            raise InputError(_("{path}: line {n} has {row} fields, the header {header}").format(path=path, n=n, row=len(row), header=len(header)))
        game = unquote(row[0].strip())
        points = []
        for j, cell in enumerate(row[1:1 + len(players)]):
            cell = cell.strip()
            try:
                points.append(int(cell.replace("−", "-")) if cell else 0)
            except ValueError:
                raise InputError(_("{path}: line {n}, {players}: '{cell}' is not a number").format(path=path, n=n, players=players[j], cell=cell)) from None
        deal: dict[str, Any] = {"game": game, "points": points}
        for mark in ("forced", "confirm"):
            if mark in cols and cols[mark] < len(row) and fold(row[cols[mark]].strip()) in ("true", "да", "1"):
                deal[mark] = True
        for key, i in cols.items():
            if key not in EXTRAS or i >= len(row) or not row[i].strip():
                continue
            value = unquote(row[i].strip())
            if EXTRA[key].kind == "whole":
                try:
                    deal[key] = int(value)
                except ValueError:
                    raise InputError(_("{path}: line {n}: {key} '{value}' is not a whole number").format(path=path, n=n, key=key, value=value)) from None
            else:
                deal[key] = value
        deals.append(deal)
    ref = sheet_rules(meta["rules"], path) if meta.get("rules") else rules_ref
    if not ref:
        from kingsheet.files.importers.common import infer_rules

        ref = infer_rules([d["game"] for d in deals], len(players))
    skip = {"format", "rules", "first_dealer", "title", "date"}
    options = {k: v for k, v in meta.items() if k not in skip and not k.startswith("money.")}
    data = game_data(ref, options, players, meta.get("first_dealer"), deals)
    data.update({k: meta[k] for k in ("title", "date") if meta.get(k)})
    money = {k[len("money."):]: v for k, v in meta.items() if k.startswith("money.")}
    if money:
        data["money"] = money  # checked as a game file's [money] is: unknown keys refused, bad stakes a problem
    return build_game(data, str(path), path, rules_beside(path.parent))
