"""Photos of one filled blank → its rows, each the likeliest reading the rules accept, with how
sure it is. Nothing is guessed silently: an unsure row carries its alternatives, and a row no
reading of which is possible is kept as read and marked."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from kingsheet.core.i18n import _
from kingsheet.core.rules import Order, Rules, load_rules
from kingsheet.scan.choose import RowChoice, choose_row, signed
from kingsheet.scan.page import Code, Unreadable, cells_of, read_page


@dataclass(frozen=True)
class RowRead:
    number: int
    game: str
    choice: RowChoice
    first: tuple[int, ...]  # the digit reader's own first reading, signed

    @property
    def cells(self) -> tuple[int, ...]:
        return self.choice.cells if self.choice.cells is not None else self.first


@dataclass(frozen=True)
class SheetRead:
    rules: Rules
    code: Code
    rows: tuple[RowRead, ...]


def read_sheet(photos: Sequence[Path]) -> SheetRead:
    """Every page of one blank (in any order), read and checked row by row."""
    from kingsheet.render.pdf import blank_layout
    from kingsheet.scan.digits import readings

    pages = [(path, *read_page(path)) for path in photos]
    first = pages[0][1]
    for path, code, _page in pages[1:]:
        if (code.rules, code.sheet) != (first.rules, first.sheet):
            raise Unreadable(_("{path}: a page of another blank ({rules}) than {first}").format(
                path=path, rules=code.rules, first=pages[0][0]))
    seen_pages = [code.page for _p, code, _pg in pages]
    if len(set(seen_pages)) != len(seen_pages):
        raise Unreadable(_("two photos show the same page {page}").format(
            page=next(p for p in seen_pages if seen_pages.count(p) > 1)))
    rules = load_rules(first.rules, first.options)
    if rules.order is not Order.FIXED:
        raise Unreadable(_("{rules}: only blanks whose games come in a fixed order can be read for now").format(
            rules=rules.id))
    layout = blank_layout(rules, first.named, first.lang)
    players = tuple(f"P{i}" for i in range(1, rules.players + 1))
    by_page = {code.page: page for _path, code, page in pages}
    read = {}
    for number in sorted(layout):
        page_no, boxes = layout[number]
        if page_no in by_page:
            read[number] = [readings(c) for c in cells_of(by_page[page_no], boxes)]
    written = [n for n, cands in read.items() if not all(len(c) == 1 and c[0].value is None for c in cands)]
    rows: list[RowRead] = []
    for number in sorted(n for n in read if written and n <= max(written)):  # the game stops at its last row
        cands = read[number]
        gid = rules.slots[number - 1]
        best = tuple(signed(rules, gid, max(c, key=lambda r: r.score).value) or 0 for c in cands)
        rows.append(RowRead(number, gid, choose_row(rules, gid, cands, players, number=number), best))
    return SheetRead(rules, first, tuple(rows))
