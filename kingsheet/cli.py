"""The command line: thin wrappers that turn library results into lines and exit codes.

Exit codes (CONTRACT.md): 0 all consistent; 1 the sheet has problems; 2 unusable input or usage.
openpyxl and reportlab are imported only inside the commands that write or read those files.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer

from .problems import InputError
from .rules import RulesError, load_rules, load_template, template_ids

app = typer.Typer(
    add_completion=True,
    no_args_is_help=True,
    help="kingsheet: scorekeeping for Кинг (King). Blanks, checks, money.",
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
)

OK, PROBLEMS, UNUSABLE = 0, 1, 2


def fail(message: str, code: int = UNUSABLE) -> NoReturn:
    typer.echo(f"kingsheet: {message}", err=True)
    raise typer.Exit(code)


def emit_json(obj: Any) -> None:
    typer.echo(json.dumps(obj, ensure_ascii=False, indent=2))


def complete_rules(incomplete: str) -> list[str]:
    return [t for t in template_ids() if t.startswith(incomplete)]


def parse_option_pairs(pairs: list[str] | None) -> dict[str, str]:
    out: dict[str, str] = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip() or not value.strip():
            fail(f"--option takes key=value, e.g. --option boys=jacks; got '{pair}'")
        out[key.strip()] = value.strip()
    return out


Lang = Annotated[str, typer.Option("--lang", help="Labels: ru (default) or en.")]


@app.command("rules")
def rules_cmd(
    rules_id: Annotated[str | None, typer.Argument(metavar="[ID]", help="A template id or file.",
                                                   autocompletion=complete_rules)] = None,
    option: Annotated[list[str] | None, typer.Option("--option", "-O", help="key=value, e.g. boys=kings")] = None,
    lang: Lang = "ru",
) -> None:
    """List the rule systems, or show one: rows, units, row and stage totals, options.

    Example: kingsheet rules blank-4 --option boys=jacks+kings
    """
    from .render_text import describe_rules, list_templates

    try:
        if rules_id is None:
            typer.echo(list_templates([(load_template(t), load_rules(t)) for t in template_ids()], lang))
            return
        typer.echo(describe_rules(load_rules(rules_id, parse_option_pairs(option)), lang))
    except RulesError as exc:
        fail(str(exc))


@app.command("check")
def check_cmd(
    files: Annotated[list[Path], typer.Argument(help="Game files (TOML), or filled sheets (XLSX, CSV).")],
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per file (a list for several).")] = False,
    lang: Lang = "ru",
) -> None:
    """Verify game files: every row, every cell, the ИТОГО rows and the order of deals.

    Example: kingsheet check examples/blank-4.toml
    """
    from .render_text import status_line, totals_block
    from .sheets import load_any
    from .verify import verify

    code = OK
    results = []
    for path in files:
        try:
            report = verify(load_any(path))
        except InputError as exc:
            typer.echo(f"kingsheet: {exc}", err=True)
            code = UNUSABLE
            continue
        if report.problems and code == OK:
            code = PROBLEMS
        if as_json:
            results.append(report.as_json())
            continue
        for problem in report.problems:
            typer.echo(f"{path}: {problem.message}", err=True)
        if len(files) > 1:
            typer.echo(f"== {path}")
        typer.echo(totals_block(report, lang))
        typer.echo(status_line(report))
    if as_json:
        emit_json(results[0] if len(files) == 1 and results else results)
    raise typer.Exit(code)


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        typer.echo("\nkingsheet: interrupted; nothing half-written was kept", err=True)
        sys.exit(130)


if __name__ == "__main__":
    main()
