"""A sheet read from photos → a game file: every row as the rules chose it, and each row a person
must confirm marked in the file (a note with the alternatives; a row no reading of which the rules
allow is kept as read, marked forced)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from kingsheet.core.i18n import _
from kingsheet.core.problems import num
from kingsheet.files.edits import append_deals, new_game_text
from kingsheet.scan.reader import RowRead, SheetRead


def row_fields(row: RowRead, confirmed: tuple[int, ...] | None = None) -> dict[str, Any]:
    """A row's deal; ``confirmed``: the cells a person confirmed at the terminal (no mark then)."""
    if confirmed is not None:
        return {"game": row.game, "points": list(confirmed)}
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


def game_text(sheet: SheetRead, names: Sequence[str],
              confirmed: Mapping[int, tuple[int, ...]] | None = None) -> str:
    text = new_game_text(sheet.rules.id, list(names), sheet.code.options, None, {}, None)
    confirmed = confirmed or {}
    return append_deals(text, [row_fields(r, confirmed.get(r.number)) for r in sheet.rows])


def confirm(sheet: SheetRead, ask: Callable[[str], str], say: Callable[[str], Any]) -> dict[int, tuple[int, ...]]:
    """At a terminal: each row to confirm, with its readings numbered; Enter keeps the first, a
    number picks another, a row typed in full replaces them (checked by the rules), a lone "-"
    leaves the row marked in the file."""
    from kingsheet.core.entry import parse_points
    from kingsheet.core.problems import InputError
    from kingsheet.core.verify import row_problems

    out: dict[int, tuple[int, ...]] = {}
    players = tuple(f"P{i}" for i in range(1, sheet.rules.players + 1))
    for r in sheet.rows:
        if r.choice.sure:
            continue
        options = [c for c in (r.choice.cells, *r.choice.alternatives) if c is not None][:4]
        label = sheet.rules.games[r.game].heading()
        say(_("row {number}, {game}:").format(number=r.number, game=label))
        for k, cells in enumerate(options, 1):
            say(f"  {k}) " + " ".join(num(c) for c in cells))
        while True:
            answer = ask(_("Enter: the first; a number: another; or type the row; -: leave it marked: ")).strip()
            if answer == "-":
                break
            if not answer and options:
                out[r.number] = options[0]
                break
            if answer.isdigit() and 1 <= int(answer) <= len(options):
                out[r.number] = options[int(answer) - 1]
                break
            try:
                cells = tuple(parse_points(answer.split(), sheet.rules.players))
            except InputError as exc:
                say(f"✗ {exc}")
                continue
            problems = row_problems(sheet.rules, r.game, cells, players, number=r.number)
            if problems:
                say("✗ " + "; ".join(p.message for p in problems))
                continue
            out[r.number] = cells
            break
    return out


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
