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


@app.command("settle")
def settle_cmd(
    files: Annotated[list[Path] | None, typer.Argument(help="Game files of one evening (summed by name).")] = None,
    totals: Annotated[str | None, typer.Option("--totals", help='ИТОГО by name: "А=100,Б=70,В=65,Г=-20"')] = None,
    stake: Annotated[str | None, typer.Option("--stake", help="Money per point, a decimal (default: the file's, or 1).")] = None,
    currency: Annotated[str | None, typer.Option("--currency", help="ISO code, e.g. RUB (default).")] = None,
    method: Annotated[str | None, typer.Option("--method", help="pairwise (default) or pot.")] = None,
    pot_mean: Annotated[bool, typer.Option("--pot-mean", help="Pot on a result that is not zero-sum: against the mean.")] = False,
    round_to: Annotated[str | None, typer.Option("--round", help="Round transfers to 1 or 10 (whole units).")] = None,
    force: Annotated[bool, typer.Option("--force", help="Settle even a sheet with problems.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="The settlement as JSON.")] = False,
    lang: Lang = "ru",
) -> None:
    """Money: every pair's debt and the fewest transfers that settle the evening.

    Example: kingsheet settle --totals "А=100,Б=70,В=65,Г=-20" --stake 1
    """
    from .money import METHODS, check_currency, parse_decimal, parse_stake, parse_totals, settle
    from .render_text import settlement_text

    columns: dict[str, dict[str, int]] = {}
    money: dict[str, Any] = {}
    try:
        if totals and files:
            fail("give game files or --totals, not both", UNUSABLE)
        if totals:
            summed = parse_totals(totals)
        elif files:
            summed, columns, money = _evening(files, force)
        else:
            fail("give game files, or --totals \"А=100,Б=70,В=65,Г=-20\"")
        cur = check_currency(currency or money.get("currency"))
        how = method or money.get("method") or "pairwise"
        if how not in METHODS:
            fail(f"--method must be pairwise or pot, not '{how}'")
        st = parse_stake(stake if stake is not None else money.get("stake"), cur)
        rnd = parse_decimal(round_to, "--round") if round_to is not None else None
        result = settle(summed, st, cur, how, pot_mean, rnd)
    except InputError as exc:
        fail(str(exc))
    if as_json:
        emit_json(result.as_json())
    else:
        typer.echo(settlement_text(result, columns if len(columns) > 1 else None, lang))
    raise typer.Exit(OK)


def _evening(files: list[Path], force: bool) -> tuple[dict[str, Any], dict[str, dict[str, int]], dict[str, Any]]:
    """Sum several games by player name; refuse a sheet with problems unless forced."""
    from decimal import Decimal

    from .sheets import load_any
    from .verify import verify

    summed: dict[str, Decimal] = {}
    columns: dict[str, dict[str, int]] = {}
    moneys: list[dict[str, Any]] = []
    for path in files:
        report = verify(load_any(path))
        if report.problems and not force:
            for problem in report.problems:
                typer.echo(f"{path}: {problem.message}", err=True)
            fail(f"{path} has problems; fix them, or settle anyway with --force", PROBLEMS)
        name = path.stem
        while name in columns:
            name += "'"
        columns[name] = {p: t.total for p, t in report.totals.items()}
        for p, t in report.totals.items():
            summed[p] = summed.get(p, Decimal(0)) + t.total
        moneys.append(dict(report.game.money))
    money: dict[str, Any] = {}
    for key in ("stake", "currency", "method"):
        values = {str(m[key]) for m in moneys if key in m}
        if len(values) > 1:
            raise InputError(f"the files disagree on {key} ({', '.join(sorted(values))}); give --{key}")
        if values:
            money[key] = values.pop()
    return summed, columns, money


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        typer.echo("\nkingsheet: interrupted; nothing half-written was kept", err=True)
        sys.exit(130)


if __name__ == "__main__":
    main()
