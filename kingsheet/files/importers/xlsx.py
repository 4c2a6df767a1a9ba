"""Read a workbook filled by hand — ours, or one laid out like it — into a game.

Rows are found by their label in the game column (case, spaces, ё/е folded); the player
columns by the header row; formula cells (Σ, ИТОГО, marks) are ignored in favour of the cells
people typed. A blank entry in a played row is a 0, as on paper.

The workbook is streamed (openpyxl's read-only mode) and only the part a score sheet can fill is
kept: the first MAX_COLS columns of the rows up to MAX_ROWS past the header. A cell far away
(XFD1048576) or a row of megabytes costs its bytes' parse, never a grid of that size.
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

from kingsheet.core.game import DEAL_EXTRAS, GameFile, build_game
from kingsheet.core.i18n import _
from kingsheet.core.problems import InputError
from kingsheet.core.rules import Order
from kingsheet.core.vocabulary import fold
from kingsheet.files.gamefile import read_bounded
from kingsheet.files.importers.common import TOTAL_LABELS, game_data, header_kind, infer_rules, sheet_rules
from kingsheet.files.templates import rules_beside

GAME_HEADERS = {"игра", "game"}
POINTS_HEADERS = {"очки", "points"}
MAX_ROWS = 2000
HEADER_ROWS = 40  # the header row is looked for this far down
MAX_COLS = 64  # № and the game, the points, up to a few dozen players, their extras
MAX_TEXT = 2000  # a cell's text kept (a note is at most 500)


MAX_WORKBOOK_BYTES = 8 * 1024 * 1024  # the file as it lies on disk
MAX_UNPACKED_BYTES = 16 * 1024 * 1024  # what its parts say they unpack to, all together
MAX_PARTS = 500
# cells in all the sheets, and strings in the shared table: a score sheet has a few thousand; past
# this many the streaming parse alone would take seconds (a row of them is parsed whole)
MAX_CELLS = 150_000


def _check_package(path: Path) -> None:
    """Refuse a workbook bomb before openpyxl unpacks anything: a workbook is a zip, and each part
    declares its unpacked size (zipfile never gives more than that)."""
    import zipfile

    read_bounded(path, MAX_WORKBOOK_BYTES, _("workbook"))  # a regular file of a sane size
    try:
        with zipfile.ZipFile(path) as zf:
            parts = zf.infolist()
    except Exception:  # a damaged zip fails with many types (BadZipFile, NotImplementedError, …)
        raise InputError(_("{path}: not a readable workbook (damaged, password-protected, or not XLSX)").format(path=path)) from None
    unpacked = sum(p.file_size for p in parts)
    if len(parts) > MAX_PARTS or unpacked > MAX_UNPACKED_BYTES:
        raise InputError(_("{path}: the workbook unpacks to {value} MB in {parts} parts, more than a score " "sheet can hold ({value2} MB); not read").format(path=path, value=unpacked // (1024 * 1024), parts=len(parts), value2=MAX_UNPACKED_BYTES // (1024 * 1024)))
    cells = _cells(path, parts)
    if cells > MAX_CELLS:
        raise InputError(_("{path}: the workbook holds {value} cells, more than a score sheet can hold ({most}); "
                           "not read").format(path=path, value=cells, most=MAX_CELLS))


def _cells(path: Path, parts: list[Any]) -> int:
    """The cells of every worksheet and the strings of the shared table, counted in their XML (the
    parts are bounded in size: this is a pass over at most MAX_UNPACKED_BYTES)."""
    import zipfile

    def tags(xml: bytes, tag: bytes) -> int:  # <c …>, <c/>, <x:c …> (bytes.count: no list of matches)
        return sum(xml.count(lead + tag + end) for lead in (b"<", b":") for end in (b" ", b">", b"/", b"\n", b"\t", b"\r"))

    count = 0
    try:
        with zipfile.ZipFile(path) as zf:
            for part in parts:
                name = part.filename.lower()
                if name.startswith("xl/worksheets/") and name.endswith(".xml"):
                    count += tags(zf.read(part), b"c")
                elif name == "xl/sharedstrings.xml":
                    count += tags(zf.read(part), b"si")
    except Exception:  # damaged: openpyxl says so in its own sentence
        return 0
    return count


def _open(path: Path) -> Any:
    from openpyxl import load_workbook

    _check_package(path)
    try:
        return load_workbook(path, data_only=False, read_only=True)
    except Exception:
        # a damaged zip or XML fails deep inside zipfile, zlib or openpyxl with any of a dozen
        # exception types (fuzzing found BadZipFile, zlib.error, NotImplementedError, KeyError…)
        raise InputError(_("{path}: not a readable workbook (damaged, password-protected, or not XLSX)").format(path=path)) from None


class Cell:
    """A cell of the grid: its value and where it is (D7), as openpyxl's cells say."""

    __slots__ = ("coordinate", "value")

    def __init__(self, row: int, column: int, value: Any) -> None:
        from openpyxl.utils import get_column_letter

        self.value = value
        self.coordinate = f"{get_column_letter(column)}{row}"


class Grid:
    """The part of a worksheet a score sheet can fill, read once as it streams by: rows 1 to
    ``rows``, columns 1 to ``cols``; beyond it nothing is kept (and nothing is made)."""

    def __init__(self, ws: Any, rows: int, cols: int = MAX_COLS) -> None:
        self.values: dict[tuple[int, int], Any] = {}
        self.max_row = 0
        for r, row in enumerate(ws.iter_rows(min_row=1, max_row=rows, max_col=cols, values_only=True), start=1):
            for c, value in enumerate(row, start=1):
                if value is not None:
                    if isinstance(value, str) and len(value) > MAX_TEXT:
                        value = value[:MAX_TEXT]
                    self.values[(r, c)] = value
                    self.max_row = r

    def value(self, row: int, column: int) -> Any:
        return self.values.get((row, column))

    def cell(self, row: int, column: int) -> Cell:
        return Cell(row, column, self.value(row, column))


def _merged(path: Path, ws: Any) -> list[tuple[str, int, int, int, int]]:
    """The merged ranges of a worksheet (coord, min_row, min_col, max_row, max_col), read from its
    part (the streaming reader does not keep them); the part was bounded by _check_package."""
    import re
    import zipfile

    from openpyxl.utils.cell import range_boundaries

    try:
        with zipfile.ZipFile(path) as zf:
            xml = zf.read(ws._worksheet_path)
    except Exception:
        return []
    out = []
    for ref in re.findall(rb'<(?:\w+:)?mergeCell\b[^>]*\bref="([A-Z]{1,3}[0-9]{1,7}:[A-Z]{1,3}[0-9]{1,7})"', xml)[:MAX_ROWS]:
        text = ref.decode()
        min_col, min_row, max_col, max_row = range_boundaries(text)
        out.append((text, min_row, min_col, max_row, max_col))
    return out


def _find_header(grid: Grid) -> tuple[int, dict[str, int], list[tuple[int, str]]] | None:
    for r in range(1, min(grid.max_row, HEADER_ROWS) + 1):
        texts = {c: fold(v) for c in range(1, MAX_COLS + 1) if isinstance(v := grid.value(r, c), str)}
        game_col = next((col for col, v in texts.items() if v in GAME_HEADERS), None)
        points_col = next((col for col, v in texts.items() if v in POINTS_HEADERS), None)
        if game_col is None:
            continue
        cols: dict[str, int] = {"game": game_col}
        if points_col:
            cols["points"] = points_col
        players: list[tuple[int, str]] = []
        start = (points_col or game_col) + 1
        col = start
        while col <= MAX_COLS:
            value = grid.value(r, col)
            if value is None or not str(value).strip():
                break
            kind = header_kind(str(value))
            if kind:
                break
            players.append((col, str(value).strip()))
            col += 1
        for c in range(col, min(col + 12, MAX_COLS + 1)):
            value = grid.value(r, c)
            if isinstance(value, str) and (kind := header_kind(value)):
                cols.setdefault(kind, c)
        return r, cols, players
    return None


def _meta(wb: Any) -> dict[str, str]:
    """The hidden «kingsheet» sheet: rules, options, header fields (rows 1–19) and the per-deal
    record (from row 60); the label lookup between them is for the formulas."""
    if "kingsheet" not in wb.sheetnames:
        return {}
    ws = wb["kingsheet"]
    out = {}
    for r, row in enumerate(ws.iter_rows(min_row=1, max_row=60 + 3 * MAX_ROWS, max_col=2, values_only=True), start=1):
        if (r <= 19 or r >= 60) and len(row) == 2 and isinstance(row[0], str) and row[1] is not None:
            out[row[0]] = str(row[1])[:MAX_TEXT]
    return out


def _money(wb: Any, meta: dict[str, str]) -> dict[str, str]:
    """The workbook's money: currency and method as exported, and the stake from the stake cell of
    the money sheet, where a person may have typed another."""
    money = {k.split(".", 1)[1]: v for k, v in meta.items() if k.startswith("money.")}
    if len(wb.worksheets) > 1:
        second = next(wb.worksheets[1].iter_rows(min_row=2, max_row=2, max_col=2, values_only=True), ())
        label, value = (tuple(second) + (None, None))[:2]
        if isinstance(label, str) and fold(label).startswith(("ставка", "stake")) and isinstance(value, (int, float)) \
                and not isinstance(value, bool) and value > 0:
            typed = Decimal(repr(value))
            try:
                same = "stake" in money and Decimal(money["stake"]) == typed
            except ArithmeticError:
                same = False
            if not same:  # a stake typed into the cell; else the exported text ("0.50") as it was
                money["stake"] = format(typed.normalize(), "f")
    return money


def _deal_extras(deal: dict[str, Any], number: int, meta: dict[str, str]) -> None:
    """What the visible row does not hold: a forced mark, a note, the counts of a counted row."""
    for key in ("orderer", "declarer", "contract", "buyer", "bid", "price"):  # where the sheet did not show them
        value = meta.get(f"deal.{number}.{key}")
        if value is not None and key not in deal:
            deal[key] = int(value) if key in ("bid", "price") and value.isdigit() else value
    if f"deal.{number}.game" in meta and fold(str(deal.get("game", ""))) == fold(meta.get(f"deal.{number}.label", "")):
        deal["game"] = meta[f"deal.{number}.game"]  # the row's label as exported: the game it was
    if meta.get(f"deal.{number}.forced") == "true":
        deal["forced"] = True
    if meta.get(f"deal.{number}.confirm") == "true":
        deal["confirm"] = True
    if f"deal.{number}.note" in meta:
        deal["note"] = meta[f"deal.{number}.note"]
    if f"deal.{number}.taken" in meta:
        try:
            taken = json.loads(meta[f"deal.{number}.taken"])
        except ValueError:
            return
        if isinstance(taken, list):
            deal.pop("points", None)
            deal["taken"] = taken


def _number(cell: Any) -> int | None:
    value = cell.value
    where = cell.coordinate
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, bool):
        raise InputError(_("{where}: {value} is not a number").format(where=where, value=value))
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if value.is_integer():
            return int(value)
        raise InputError(_("{where}: {value} is not a whole number").format(where=where, value=value))
    text = str(value).strip()
    if text.startswith("="):
        raise InputError(_("{where}: holds a formula ({text}); type the number itself").format(where=where, text=text))
    try:
        return int(text.replace("−", "-").replace(" ", ""))
    except ValueError:
        raise InputError(_("{where}: '{text}' is not a number").format(where=where, text=text)) from None


def _text(value: Any) -> str | None:
    if value is None:
        return None
    text = str(value).strip()
    return text or None


def read_xlsx(path: Path, rules_ref: str | None = None) -> GameFile:
    wb = _open(path)
    try:
        return _read(path, wb, rules_ref)
    except InputError:
        raise
    except Exception:
        # the streaming reader parses each sheet's XML only as its rows are read: damage there
        # (a mismatched tag, a cell of no known type…) surfaces here, with any exception type
        raise InputError(_("{path}: not a readable workbook (damaged, password-protected, or not XLSX)").format(path=path)) from None
    finally:
        wb.close()  # the streaming reader keeps the file open until then


def _read(path: Path, wb: Any, rules_ref: str | None) -> GameFile:
    meta = _meta(wb)
    found = None
    for ws in wb.worksheets:
        if ws.sheet_state != "visible":
            continue
        grid = Grid(ws, HEADER_ROWS)
        found = _find_header(grid)
        if found:
            break
    if not found:
        raise InputError(_("{path}: no sheet with a header row naming «Игра» (or «Game») and the players").format(path=path))
    header_row, cols, players = found
    if not players:
        raise InputError(_("{path}: the header row names no players after «Очки»").format(path=path))
    grid = Grid(ws, header_row + MAX_ROWS)
    first_p, last_p = players[0][0], players[-1][0]
    end = next((r for r in range(header_row + 1, min(grid.max_row, header_row + MAX_ROWS) + 1)
                if (label := _text(grid.value(r, cols["game"]))) and fold(label).startswith(TOTAL_LABELS)),
               header_row + MAX_ROWS + 1)
    for coord, min_row, min_col, max_row, max_col in _merged(path, ws):  # a merge under ИТОГО (a legend) is not in the way
        if header_row < max_row and min_row < end and min_col <= last_p and max_col >= first_p:
            raise InputError(_("{path}: merged cells {coord} cover the entry area; unmerge them").format(path=path, coord=coord))
    deals: list[dict[str, Any]] = []
    labels: list[str] = []
    totals: list[int | None] = []
    numbers: list[int] = []  # each deal's place among the sheet's rows (its №)
    place = 0
    for r in range(header_row + 1, min(grid.max_row, header_row + MAX_ROWS) + 1):
        label = _text(grid.value(r, cols["game"]))
        if label and label.startswith("="):
            label = None  # a formula in the game column is not a game
        if label and fold(label).startswith(TOTAL_LABELS):
            break
        values = [_number(grid.cell(r, c)) for c, _ in players]
        points_cell = grid.value(r, cols["points"]) if "points" in cols else None
        row_total = points_cell if isinstance(points_cell, int) and not isinstance(points_cell, bool) else None
        if all(v is None for v in values):
            if label:  # a row of the blank left empty: its place counts (a later row keeps its №)
                labels.append(label)
                totals.append(row_total)
                place += 1
            continue
        place += 1
        numbers.append(place)
        if not label:
            raise InputError(_("{path}: row {r} has points but no game in column {column_letter}").format(path=path, r=r, column_letter=grid.cell(r, cols["game"]).coordinate.rstrip("0123456789")))
        labels.append(label)
        totals.append(row_total)
        deal: dict[str, Any] = {"game": label, "points": [v or 0 for v in values]}
        for f in DEAL_EXTRAS:  # the deal's other fields, by the table's kinds
            if f.name not in cols:
                continue
            if f.kind == "whole":
                if (num := _number(grid.cell(r, cols[f.name]))) is not None:
                    deal[f.name] = num
            elif (text := _text(grid.value(r, cols[f.name]))) and not text.startswith("="):
                deal[f.name] = text
        deals.append(deal)
    if not deals and not labels and not meta.get("rules"):
        raise InputError(_("{path}: no rows of games under the header").format(path=path))
    names = [name for _, name in players]
    ref = sheet_rules(meta["rules"], path) if meta.get("rules") else (rules_ref or infer_rules(labels, len(names), totals))
    options = {k.split(".", 1)[1]: v for k, v in meta.items() if k.startswith("option.")}
    for number, deal in enumerate(deals, start=1):
        _deal_extras(deal, number, meta)
    data = game_data(ref, options, names, meta.get("first_dealer"), deals)
    data.update({key: meta[key] for key in ("title", "date") if key in meta})
    money = _money(wb, meta)
    if money:
        data["money"] = money
    lookup = rules_beside(path.parent)
    if numbers == list(range(1, len(deals) + 1)):
        return build_game(data, str(path), path, lookup)
    # a row left empty before played ones: on a blank of fixed order each deal keeps its row's
    # number, so the check says the game skipped there (by the sheet's №), not a game misplaced
    game = build_game(data, str(path), path, lookup, numbers)
    return game if game.rules.order is Order.FIXED else build_game(data, str(path), path, lookup)
