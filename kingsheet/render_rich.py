"""The sheet as a rich table, for a terminal that shows colour (plain text otherwise)."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from .layout import t
from .render_text import sheet_rows, status_line, totals_block
from .verify import Report


def print_sheet(report: Report, lang: str = "ru") -> None:
    game = report.game
    rows = sheet_rows(report, lang)
    table = Table(title=game.title or game.rules.template.name.get(lang, game.rules.id), show_lines=False)
    for i, head in enumerate(rows[0]):
        table.add_column(head, justify="right" if 2 <= i < 3 + len(game.players) else "left")
    for row in rows[1:]:
        if row[0] == "—":
            table.add_section()
            continue
        style = None if row[-1] in ("", "✓") else "red"
        table.add_row(*row, style=style)
    console = Console(highlight=False)
    console.print(table)
    console.print(totals_block(report, lang))
    leaders = report.leader()
    if report.rows and leaders:
        console.print(f"{t('leader', lang)}: {', '.join(leaders)}", style="bold")
    for p in (p for p in report.problems if p.deal is None):
        console.print(f"✗ {p.message}", style="red")
    console.print(status_line(report), style="green" if report.ok else "red")
