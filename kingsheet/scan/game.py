"""A sheet read from photos → a game file: every row as the rules chose it, and each row a person
must confirm marked in the file (a note with the alternatives; a row no reading of which the rules
allow is kept as read, marked forced)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kingsheet.core.i18n import _
from kingsheet.core.problems import num
from kingsheet.files.edits import append_deals, new_game_text
from kingsheet.scan.reader import RowRead, SheetRead


def row_fields(row: RowRead) -> dict[str, Any]:
    fields: dict[str, Any] = {"game": row.game, "points": list(row.cells)}
    choice = row.choice
    if choice.cells is None:
        fields["forced"] = True
        fields["note"] = _("scan: read as {cells}, which the rules do not allow; correct it").format(
            cells=" ".join(num(c) for c in row.cells))
    elif not choice.sure:
        alts = "; ".join(" ".join(num(c) for c in alt) for alt in choice.alternatives[:3])
        fields["note"] = (_("scan: confirm this row ({confidence} % sure; also possible: {alternatives})")
                          if alts else _("scan: confirm this row ({confidence} % sure)")).format(
            confidence=round(choice.confidence * 100), alternatives=alts)
    return fields


def game_text(sheet: SheetRead, names: Sequence[str]) -> str:
    text = new_game_text(sheet.rules.id, list(names), sheet.code.options, None, {}, None)
    return append_deals(text, [row_fields(r) for r in sheet.rows])


def summary(sheet: SheetRead) -> list[str]:
    """The sheet as read, a line a row, with how sure each row is."""
    lines = []
    for r in sheet.rows:
        label = sheet.rules.games[r.game].label()
        cells = " ".join(f"{num(c):>4}" for c in r.cells)
        if r.choice.cells is None:
            mark = "✗ " + _("no reading the rules allow: check the photo")
        elif r.choice.sure:
            mark = "✓"
        else:
            mark = "? " + _("confirm ({confidence} % sure)").format(confidence=round(r.choice.confidence * 100))
        lines.append(f"{r.number:>3}  {label:<14} {cells}   {mark}")
    return lines
