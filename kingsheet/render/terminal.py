"""The sheet as a rich table, for a terminal that shows colour (plain text otherwise).

Names and game labels are untrusted: they go in as ``Text`` objects and are printed with
``markup=False``, so a player called "[bold red]x" shows those very characters.
"""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from kingsheet.core.i18n import speaks
from kingsheet.core.verify import Report
from kingsheet.render.labels import word
from kingsheet.render.text import sheet_rows, status_line, totals_block


@speaks
def print_sheet(report: Report, lang: str = "ru") -> None:
    game = report.game
    rows = sheet_rows(report, lang)
    title = Text(game.title or game.rules.template.name.get(lang, game.rules.id))
    table = Table(title=title, show_lines=False)
    numbers = len(game.players) * (2 if game.rules.limit is not None else 1)
    for i, head in enumerate(rows[0]):
        table.add_column(Text(head), justify="right" if 2 <= i < 3 + numbers else "left")
    for row in rows[1:]:
        if row[0] == "—":
            table.add_section()
            continue
        style = None if row[-1] == "" or row[-1].startswith("✓") else "red"
        table.add_row(*(Text(cell) for cell in row), style=style)
    console = Console(highlight=False)
    console.print(table)
    console.print(totals_block(report, lang), markup=False)
    leaders = report.leader()
    if report.rows and leaders:
        console.print(f"{word('leader', lang)}: {', '.join(leaders)}", style="bold", markup=False)
    for p in (p for p in report.problems if p.deal is None):
        console.print(f"✗ {p.message}", style="red", markup=False)
    console.print(status_line(report), style="green" if report.ok else "red", markup=False)
