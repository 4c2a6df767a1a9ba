"""The command line: thin wrappers that turn library results into lines and exit codes.

Exit codes (CONTRACT.md): 0 all consistent; 1 the sheet has problems; 2 unusable input or usage.
openpyxl and reportlab are imported only inside the commands that write or read those files.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer

from kingsheet.cli import helpwords
from kingsheet.core.i18n import LANGUAGES, _, ngettext
from kingsheet.core.problems import InputError, Unusable, one_line

# Imports of the library happen inside the commands: start-up stays close to typer's own.

def _startup_language() -> None:
    """The language of the help texts, decided before typer reads them: --lang in the command line,
    KINGSHEET_LANG, the locale. A language kingsheet does not speak is reported by the option."""
    from kingsheet.core import i18n

    argv = sys.argv[1:]
    given = next((argv[i + 1] for i, a in enumerate(argv[:-1]) if a == "--lang"), None)
    given = next((a[7:] for a in argv if a.startswith("--lang=")), given)
    try:
        i18n.use(i18n.choose(given))
    except i18n.UnknownLanguage:  # said by the option, in the language the rest would choose
        with contextlib.suppress(i18n.UnknownLanguage):
            i18n.use(i18n.choose(None))


_startup_language()
helpwords.install()


app = typer.Typer(
    add_completion=True,
    no_args_is_help=True,
    help=_("kingsheet: scorekeeping for Кинг (King). Blanks, checks, money."),
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
)

OK, PROBLEMS, UNUSABLE = 0, 1, 2


def fail(message: str, code: int = UNUSABLE) -> NoReturn:
    """One sentence on stderr, and the exit code."""
    typer.echo(_("kingsheet: {message}").format(message=one_line(message)), err=True)
    raise typer.Exit(code)


def fail_on(exc: Exception) -> NoReturn:
    """The sentence of a library error, with what the command line adds to it: an output that is
    already there is told how to replace it."""
    from kingsheet.files.storage import Exists

    fail(_("{exc}; use --force to replace it").format(exc=exc) if isinstance(exc, Exists) else str(exc))


def emit_json(obj: Any) -> None:
    import json

    typer.echo(json.dumps(obj, ensure_ascii=False, indent=2))


def complete_rules(incomplete: str) -> list[str]:
    from kingsheet.files.templates import template_ids

    return [t for t in template_ids() if t.startswith(incomplete)]


def parse_option_pairs(pairs: list[str] | None) -> dict[str, str]:
    out: dict[str, str] = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip() or not value.strip():
            fail(_("--option takes key=value, e.g. --option boys=jacks; got '{pair}'").format(pair=pair))
        out[key.strip()] = value.strip()
    return out


_BEFORE_COMMAND: list[str] = []  # a --lang given before the command (kingsheet --lang en check …)


def _set_lang(value: str) -> str:
    """--lang, then KINGSHEET_LANG, then the locale: the language of everything the command says."""
    from kingsheet.core import i18n

    if not value and _BEFORE_COMMAND:
        value = _BEFORE_COMMAND[0]

    try:
        lang = i18n.choose(value or None)
    except i18n.UnknownLanguage as exc:
        given, source = exc.args
        if source == "--lang":  # the refusal in the language KINGSHEET_LANG or the locale gives
            with contextlib.suppress(i18n.UnknownLanguage):
                i18n.use(i18n.choose(None))
        text = _("'{value}' is not a language kingsheet speaks: {languages}").format(
            value=one_line(given, 20), languages=", ".join(LANGUAGES))
        if source == "--lang":
            raise typer.BadParameter(text) from None
        fail(f"{source}: {text}")
    i18n.use(lang)
    return lang


Lang = Annotated[str, typer.Option("--lang", help=_("Language: {languages} (default: KINGSHEET_LANG, then the locale).").format(languages=", ".join(LANGUAGES)),
                                   callback=_set_lang, is_eager=True, show_default=False)]




def _set_lang_before_command(value: str) -> str:
    lang = _set_lang(value)
    if value:
        _BEFORE_COMMAND[:] = [lang]
    return lang


@app.callback()
def _everywhere(lang: Annotated[str, typer.Option(
        "--lang", help=_("Language: {languages} (default: KINGSHEET_LANG, then the locale).").format(languages=", ".join(LANGUAGES)),
        callback=_set_lang_before_command, is_eager=True, show_default=False)] = "") -> None:
    # --lang before the command too (kingsheet --lang en --help, kingsheet --lang en check …)
    pass


@app.command("rules", help=_("List the rule systems, or show one: rows, units, row and stage totals, options.\n" "\n" "Example: kingsheet rules blank-4 --option boys=jacks+kings\n" "Example: kingsheet rules --check our-king.toml"))
def rules_cmd(
    rules_id: Annotated[str | None, typer.Argument(metavar="[ID]", help=_("A template id or file."),
                                                   autocompletion=complete_rules)] = None,
    option: Annotated[list[str] | None, typer.Option("--option", "-O", help=_("key=value, e.g. boys=kings"))] = None,
    check: Annotated[Path | None, typer.Option("--check", help=_("Validate a template file of your own."))] = None,
    lang: Lang = "",
) -> None:
    from kingsheet.core.rules import RulesError
    from kingsheet.files.templates import load_rules, load_template, template_ids
    from kingsheet.render.text import describe_rules, list_templates

    if check is not None:
        _check_template(check, lang)
    try:
        if rules_id is None:
            typer.echo(list_templates([(load_template(t), load_rules(t)) for t in template_ids()], lang))
            return
        typer.echo(describe_rules(load_rules(rules_id, parse_option_pairs(option)), lang))
    except RulesError as exc:
        fail_on(exc)


def _check_template(path: Path, lang: str) -> NoReturn:
    from kingsheet.core.problems import num
    from kingsheet.core.rules import MAX_TEMPLATE_BYTES
    from kingsheet.core.templates import explain
    from kingsheet.files.gamefile import read_bounded

    try:
        text = read_bounded(path, MAX_TEMPLATE_BYTES, _("template")).decode("utf-8-sig")
    except UnicodeDecodeError:
        fail(_("{path}: not UTF-8 text").format(path=path))
    except Unusable as exc:
        fail_on(exc)
    mistakes, resolved = explain(text, path)
    for m in mistakes:
        typer.echo(one_line(f"{path}: {m}"), err=True)
    if mistakes:
        typer.echo(ngettext("{path}: {n} mistake; the template does not load",
                            "{path}: {n} mistakes; the template does not load", len(mistakes)).format(
            path=path, n=len(mistakes)), err=True)
        raise typer.Exit(UNUSABLE)
    first = resolved[0]
    typer.echo(ngettext("{path}: ok — {id}, {players} players, {deals} deals, TOTAL (−) {minus}, TOTAL (+) +{plus}; "
                        "{n} combination of options checked",
                        "{path}: ok — {id}, {players} players, {deals} deals, TOTAL (−) {minus}, TOTAL (+) +{plus}; "
                        "{n} combinations of options checked", len(resolved)).format(
        path=path, id=first.id, players=first.players, deals=len(first.slots), minus=num(first.stage_total(0)),
        plus=first.stage_total(1), n=len(resolved)))
    raise typer.Exit(OK)


@app.command("check", help=_("Verify game files: every row, every cell, the TOTAL rows and the order of deals.\n" "\n" "Example: kingsheet check examples/blank-4.toml"))
def check_cmd(
    files: Annotated[list[Path] | None, typer.Argument(help=_("Game files (TOML), or filled sheets (XLSX, CSV); default: the current game."))] = None,
    as_json: Annotated[bool, typer.Option("--json", help=_("One JSON object per file (a list for several)."))] = False,
    jobs: Annotated[int, typer.Option("--jobs", "-j", help=_("Worker processes for many files (0: one per core)."))] = 1,
    lang: Lang = "",
) -> None:
    import os

    from kingsheet.cli.batch import check_many

    files = files or [_current_named()]
    workers = jobs if jobs > 0 else (os.cpu_count() or 1)
    results = check_many([str(f) for f in files], lang, workers)
    code = max((r.code for r in results), default=OK)
    if code == PROBLEMS and any(r.code == UNUSABLE for r in results):
        code = UNUSABLE
    for r in results:
        for line in r.errors:
            typer.echo(line, err=True)
        if not as_json and r.summary:
            if len(files) > 1:
                typer.echo(f"== {r.path}")
            typer.echo(r.summary)
    if as_json:
        objs = [r.report for r in results]
        emit_json(objs[0] if len(files) == 1 else objs)
    raise typer.Exit(code)


@app.command("settle", help=_("Money: every pair's debt and the fewest transfers that settle the evening.\n" "\n" 'Example: kingsheet settle --totals "А=100,Б=70,В=65,Г=-20" --stake 1'))
def settle_cmd(
    files: Annotated[list[Path] | None, typer.Argument(help=_("Game files of one evening (summed by name)."))] = None,
    totals: Annotated[str | None, typer.Option("--totals", help=_('Totals by name: "А=100,Б=70,В=65,Г=-20"'))] = None,
    stake: Annotated[str | None, typer.Option("--stake", help=_("Money per point, a decimal (default: the file's, or 1)."))] = None,
    currency: Annotated[str | None, typer.Option("--currency", help=_("ISO code, e.g. RUB (default)."))] = None,
    method: Annotated[str | None, typer.Option("--method", help=_("pairwise (default) or pot."))] = None,
    pot_mean: Annotated[bool, typer.Option("--pot-mean", help=_("Pot on a result that is not zero-sum: against the mean."))] = False,
    round_to: Annotated[str | None, typer.Option("--round", help=_("Round transfers to 1 or 10 (whole units)."))] = None,
    force: Annotated[bool, typer.Option("--force", help=_("Settle even a sheet with problems."))] = False,
    as_json: Annotated[bool, typer.Option("--json", help=_("The settlement as JSON."))] = False,
    lang: Lang = "",
) -> None:

    from kingsheet.core.money import (
        METHODS,
        SettleError,
        check_currency,
        parse_decimal,
        parse_stake,
        parse_totals,
        settle,
    )
    from kingsheet.render.money import settlement_text

    columns: dict[str, dict[str, int]] = {}
    money: dict[str, Any] = {}
    try:
        if totals and files:
            fail(_("give game files or --totals, not both"), UNUSABLE)
        if not totals and not files:
            files = [_current_named()]
        if totals:
            try:
                summed = parse_totals(totals)
            except InputError as exc:
                fail(_("--totals: {exc}").format(exc=exc))
        else:  # the files given, or the current game
            summed, columns, money = _evening(files or [], force)
        cur = check_currency(currency or money.get("currency"))
        how = method or money.get("method") or "pairwise"
        if how not in METHODS:
            fail(_("--method must be pairwise or pot, not '{how}'").format(how=how))
        st = parse_stake(stake if stake is not None else money.get("stake"), cur)
        rnd = parse_decimal(round_to, "--round") if round_to is not None else None
        try:
            result = settle(summed, st, cur, how, pot_mean, rnd)
        except SettleError as exc:  # the error says what it is about; the command names its option
            flags = {"round": "--round", "pot": _("--method pairwise, or --pot-mean")}
            fail(f"{exc} ({flags[exc.about]})")
    except Unusable as exc:
        fail_on(exc)
    if as_json:
        emit_json(result.as_json())
    else:
        typer.echo(settlement_text(result, columns if len(columns) > 1 else None, lang))
    raise typer.Exit(OK)


def _evening(files: list[Path], force: bool) -> tuple[dict[str, Any], dict[str, dict[str, int]], dict[str, Any]]:
    """Sum several games by player name; refuse a sheet with problems unless forced."""
    from kingsheet.core.money import Disagreement, combine_games
    from kingsheet.core.verify import verify
    from kingsheet.files.load import load_any

    reports = []
    for path in files:
        report = verify(load_any(path))
        if report.problems and not force:
            for problem in report.problems:
                typer.echo(one_line(f"{path}: {problem.message}"), err=True)
            fail(_("{path} has problems; fix them, or settle anyway with --force").format(path=path), PROBLEMS)
        if not report.complete:
            from kingsheet.render.text import not_final

            typer.echo(f"{path}: {not_final(report)}", err=True)
        reports.append((path.stem, report))
    try:
        return combine_games(reports)
    except Disagreement as exc:
        fail(_("{exc}; give --{key}").format(exc=exc, key=exc.key))


# --- scorekeeping at the table -------------------------------------------------------------------

def _current_named() -> Path:
    """The current game, for a command given no file; it says which file it used."""
    from kingsheet.files.current import current_game

    try:
        path = current_game()
    except Unusable as exc:
        fail_on(exc)
    typer.echo(_("kingsheet: the current game, {path}").format(path=path), err=True)
    return path


def _game_path(file: Path | None) -> Path:
    from kingsheet.files.current import current_game

    return file if file is not None else current_game()


def complete_games(incomplete: str) -> list[str]:
    """Game ids and labels of the current game's rules (or blank-4's)."""
    try:
        from kingsheet.files.current import current_game
        from kingsheet.files.gamefile import load_game

        rules = load_game(current_game()).rules
    except Exception:  # completion must never fail loudly
        from kingsheet.files.templates import load_rules

        rules = load_rules("blank-4")
    names = [*rules.games, *(g.label(lang) for g in rules.games.values() for lang in LANGUAGES)]
    return [n for n in dict.fromkeys(names) if n.casefold().startswith(incomplete.casefold())]


def complete_players(incomplete: str) -> list[str]:
    try:
        from kingsheet.files.current import current_game
        from kingsheet.files.gamefile import load_game

        return [p for p in load_game(current_game()).players if p.startswith(incomplete)]
    except Exception:
        return []


@app.command("new", help=_("Start a game file and make it the current game.\n" "\n" 'Example: kingsheet new friday.toml --rules blank-4 --players "Аня,Боря,Вася,Галя" --stake 0.50'))
def new_cmd(
    file: Annotated[Path, typer.Argument(help=_("The game file to create (.toml)."))],
    rules_id: Annotated[str, typer.Option("--rules", "-r", help=_("Template id or file."), autocompletion=complete_rules)],
    players: Annotated[str, typer.Option("--players", "-p", help=_('Seating, clockwise: "Аня,Боря,Вася,Галя".'))],
    option: Annotated[list[str] | None, typer.Option("--option", "-O", help=_("key=value, e.g. boys=jacks"))] = None,
    first_dealer: Annotated[str | None, typer.Option("--first-dealer", help=_("Who deals first."))] = None,
    stake: Annotated[str | None, typer.Option("--stake", help=_("Money per point, e.g. 0.50."))] = None,
    currency: Annotated[str | None, typer.Option("--currency", help=_("ISO code, default RUB."))] = None,
    method: Annotated[str | None, typer.Option("--method", help=_("pairwise or pot."))] = None,
    title: Annotated[str | None, typer.Option("--title", help=_("A title for the sheet."))] = None,
    force: Annotated[bool, typer.Option("--force", help=_("Replace an existing file."))] = False,
    lang: Lang = "",
) -> None:
    from kingsheet.core.rules import RulesError
    from kingsheet.files.creation import create_game, seating
    from kingsheet.files.current import remember_current
    from kingsheet.files.gamefile import load_game

    names = seating(players)
    try:
        rules = create_game(file, rules_id, names, parse_option_pairs(option), first_dealer, stake, currency, method,
                            title, force)
    except (RulesError, Unusable) as exc:
        fail_on(exc)
    why = remember_current(file)
    if why:
        typer.echo(_("kingsheet: {file} was made, but could not be remembered as the current game " "({why}); name the file in later commands").format(file=file, why=why), err=True)
    first = rules.slots[0] if rules.slots else next(iter(rules.games))
    typer.echo(_("{file}: new {id} game for {names}; {length}. First: {game}, {dealer} deals.").format(
        file=file, id=rules.id, names=", ".join(names), length=_game_length(rules), game=rules.games[first].label(),
        dealer=load_game(file).dealer_of(1)))


def _game_length(rules: Any) -> str:
    if rules.limit:
        return ngettext("to {n} minus point", "to {n} minus points", rules.limit).format(n=rules.limit)
    n = len(rules.slots)
    return ngettext("{n} deal", "{n} deals", n).format(n=n)


def _split_deal_args(args: list[str]) -> tuple[Path | None, str | None, list[str]]:
    """[FILE] [GAME] POINTS…: a file ends in .toml or exists; a game is not a number."""
    file = None
    rest = list(args)
    if rest and _is_game_file(rest[0]):
        file = Path(rest.pop(0))
    game = None
    if rest and not _is_number(rest[0]):
        game = rest.pop(0)
    for a in rest:
        if a.startswith("--"):
            fail(_("unknown option {a}; see kingsheet deal --help").format(a=a))
    return file, game, rest


def _is_game_file(arg: str) -> bool:
    """Among a deal's words, the game file: it ends in .toml or exists."""
    return arg.endswith(".toml") or Path(arg).is_file()


def _is_number(text: str) -> bool:
    return text.replace("−", "-").lstrip("+-").isdigit()


def _deal_fields(game: Any, number: int, gid: str, points: list[str], taken: str | None,
                 extras: dict[str, Any]) -> dict[str, Any]:
    """The library reads what was typed; here its messages get the command's flags."""
    from kingsheet.core.entry import TakenError, deal_fields

    try:
        return deal_fields(game, number, gid, points, taken, extras)
    except TakenError as exc:
        fail(_("--taken: {exc}").format(exc=exc))


def _with_sign(game: Any, gid: str, points: list[str]) -> list[str]:
    """Points typed without a sign take the game's minus, as on the phone (said once)."""
    from kingsheet.core.entry import adds_sign, sign_note, signed_points

    if not points or not adds_sign(game.rules, gid, points):
        return points
    typer.echo(sign_note(game.rules, gid))
    return signed_points(game.rules, gid, points)


def _print_refused(path: Path, exc: Any) -> NoReturn:
    for p in exc.problems:
        typer.echo(one_line(f"{path}: {p.message}"), err=True)
    typer.echo(_("{path}: not recorded; the file is unchanged (use --force to record it anyway)").format(path=path), err=True)
    raise typer.Exit(PROBLEMS)


def _after_change(path: Path, change: Any, verb: str) -> None:
    from kingsheet.core.entry import next_game
    from kingsheet.core.problems import num

    report = change.report
    row = next((r for r in report.rows if r.deal.number == change.number), None)
    if row is not None and row.cells is not None:
        label = report.game.rules.games[row.game_id].label() if row.game_id else row.deal.game
        cells = " ".join(num(c) for c in row.cells)
        mark = "✓" if row.ok else _("✗ forced")
        said = {"recorded": _("recorded deal {number} ({label}): {cells} = {total} {mark}"),
                "corrected": _("corrected deal {number} ({label}): {cells} = {total} {mark}"),
                "removed": _("deal {number} ({label}): {cells} = {total} {mark}")}[verb]
        typer.echo(said.format(number=row.deal.number, label=label, cells=cells, total=num(sum(row.cells)), mark=mark))
    game = report.game
    nxt = next_game(game, report)
    k = len(game.deals) + 1
    if report.complete:
        typer.echo(_("the sheet is complete: ") + ", ".join(f"{p} {num(t.total)}" for p, t in report.totals.items()))
    elif nxt:
        g = game.rules.games[nxt]
        typer.echo(_("next: deal {number}, {game}; {dealer} deals{turn}").format(
            number=k, game=g.heading(), dealer=game.dealer_of(k), turn=game.turn_words(k, nxt)))
    else:
        typer.echo(_("next: deal {number}; {dealer} deals{turn}").format(
            number=k, dealer=game.dealer_of(k), turn=game.turn_words(k, None)))
    others = [p for p in report.problems if p.deal != change.number]
    if others:
        typer.echo(ngettext("({n} other problem on the sheet: kingsheet check {path})",
                            "({n} other problems on the sheet: kingsheet check {path})", len(others)).format(
            n=len(others), path=path), err=True)


TakenOpt = Annotated[str | None, typer.Option("--taken", "-t", help=_('What each took: "Аня: tricks=2 hearts=1; Боря: …"'))]
DeclOpt = Annotated[str | None, typer.Option("--declarer", "-d", help=_("Trump deals: who named trump (default: whose turn)."),
                                             autocompletion=complete_players)]
ContractOpt = Annotated[str | None, typer.Option("--contract", help=_("Trump deals: пики, без козыря, мизер, роспись…"))]
BidOpt = Annotated[int | None, typer.Option("--bid", help=_("Trump deals with bidding: the declarer's bid in tricks."))]
BuyerOpt = Annotated[str | None, typer.Option("--buyer", help=_("Who bought the deal (торговля)."), autocompletion=complete_players)]
PriceOpt = Annotated[int | None, typer.Option("--price", help=_("Tricks the buyer paid."))]
OrdererOpt = Annotated[str | None, typer.Option("--orderer", help=_("Ordered games: who ordered."), autocompletion=complete_players)]
NoteOpt = Annotated[str | None, typer.Option("--note", help=_("A note kept with the deal."))]
ForceOpt = Annotated[bool, typer.Option("--force", help=_("Record a deal that fails a check, marked forced."))]
DEAL_CTX = {"ignore_unknown_options": True, "allow_interspersed_args": True}


@app.command("deal", context_settings=DEAL_CTX, help=_("Record the next deal after checking it; a row that does not add up is refused.\n" "\n" "Example: kingsheet deal tricks -4 0 -8 -4      (the current game; GAME may be omitted)"))
def deal_cmd(
    args: Annotated[list[str] | None, typer.Argument(metavar="[FILE] [GAME] POINTS...", autocompletion=complete_games)] = None,
    taken: TakenOpt = None, declarer: DeclOpt = None, contract: ContractOpt = None, bid: BidOpt = None,
    buyer: BuyerOpt = None, price: PriceOpt = None, orderer: OrdererOpt = None, note: NoteOpt = None,
    force: ForceOpt = False, lang: Lang = "",
) -> None:
    from kingsheet.core.entry import next_game
    from kingsheet.core.rules import RulesError
    from kingsheet.files.changes import Refused, add_deal
    from kingsheet.files.gamefile import load_game

    file, game_name, points = _split_deal_args(args or [])
    try:
        path = _game_path(file)
        game = load_game(path)
        if game_name is None:
            gid = next_game(game)
            if gid is None:
                from kingsheet.core.verify import verify

                if verify(game).complete:
                    fail(_("the sheet is complete: every deal of {id} is written (kingsheet edit N … corrects one)")
                         .format(id=game.rules.id))
                fail(_("name the game: the order is free in these rules"))
            typer.echo(_("game: {value}").format(value=game.rules.games[gid].label()))
        else:
            found = game.rules.find_game(game_name)
            if found is None:
                from kingsheet.core.entry import suggest_game

                known = ", ".join(g.label() for g in game.rules.games.values())
                close = suggest_game(game.rules, game_name)
                hint = _("did you mean «{game}»? ").format(game=close) if close else ""
                fail(_("{id} has no game '{game_name}'; {hint}games: {known}").format(
                    id=game.rules.id, game_name=game_name, hint=hint, known=known))
            gid = found
        points = _with_sign(game, gid, points)
        fields = _deal_fields(game, len(game.deals) + 1, gid, points, taken, dict(
            declarer=declarer, contract=contract, bid=bid, buyer=buyer, price=price, orderer=orderer, note=note))
        change = add_deal(path, fields, force)
    except Refused as exc:
        _print_refused(path, exc)
    except (Unusable, RulesError) as exc:
        fail_on(exc)
    _after_change(path, change, "recorded")


@app.command("edit", context_settings=DEAL_CTX, help=_("Correct deal N (any deal, not only the last); the whole sheet is checked again.\n" "\n" "Example: kingsheet edit 3 0 -4 0 -12"))
def edit_cmd(
    args: Annotated[list[str], typer.Argument(metavar="[FILE] N [GAME] POINTS...")],
    taken: TakenOpt = None, declarer: DeclOpt = None, contract: ContractOpt = None, bid: BidOpt = None,
    buyer: BuyerOpt = None, price: PriceOpt = None, orderer: OrdererOpt = None, note: NoteOpt = None,
    force: ForceOpt = False, lang: Lang = "",
) -> None:
    from kingsheet.core.rules import RulesError
    from kingsheet.files.changes import Refused, edit_deal
    from kingsheet.files.gamefile import load_game

    rest = list(args)
    file = Path(rest.pop(0)) if rest and _is_game_file(rest[0]) else None
    if not rest or not rest[0].isdigit():
        fail(_("say which deal to correct: kingsheet edit [FILE] N POINTS…"))
    number = int(rest.pop(0))
    _unused, game_name, points = _split_deal_args(rest)
    try:
        path = _game_path(file)
        game = load_game(path)
        old = next((d for d in game.deals if d.number == number), None)
        if old is None and not 1 <= number <= len(game.deals):
            fail(_("there is no deal {number}; the sheet has {deals}").format(number=number, deals=len(game.deals)))
        gid = game.rules.find_game(game_name or (old.game if old else ""))
        if gid is None:
            fail(_("{id} has no game '{value}'").format(id=game.rules.id, value=game_name or (old.game if old else '')))
        from kingsheet.core.game import kept_on_edit

        given = dict(declarer=declarer, contract=contract, bid=bid, buyer=buyer, price=price, orderer=orderer,
                     note=note)
        points = _with_sign(game, gid, points)
        fields = _deal_fields(game, number, gid, points, taken, {**given, **kept_on_edit(old, given)})
        change = edit_deal(path, number, fields, force)
    except Refused as exc:
        _print_refused(path, exc)
    except (Unusable, RulesError) as exc:
        fail_on(exc)
    _after_change(path, change, "corrected")


@app.command("undo", help=_("Remove the last deal.\n" "\n" "Example: kingsheet undo"))
def undo_cmd(file: Annotated[Path | None, typer.Argument(help=_("The game file (default: the current game)."))] = None,
             lang: Lang = "") -> None:
    from kingsheet.files.changes import undo_deal

    try:
        path = _game_path(file)
        change = undo_deal(path)
    except Unusable as exc:
        fail_on(exc)
    typer.echo(_("removed deal {number}").format(number=change.number))
    _after_change(path, change, "removed")


@app.command("show", help=_("The sheet as the paper blank: every row, the «Очки» column, marks, TOTAL, the leader.\n" "\n" "Example: kingsheet show friday.toml --lang en"))
def show_cmd(
    file: Annotated[Path | None, typer.Argument(help=_("The game file (default: the current game)."))] = None,
    lang: Lang = "",
) -> None:
    from kingsheet.core.verify import verify
    from kingsheet.files.load import load_any
    from kingsheet.render.text import sheet_text

    try:
        report = verify(load_any(_game_path(file)))
    except Unusable as exc:
        fail_on(exc)
    if sys.stdout.isatty() and not _no_color():
        from kingsheet.render.terminal import print_sheet

        print_sheet(report, lang)
    else:
        typer.echo(sheet_text(report, lang))
    raise typer.Exit(OK if report.ok else PROBLEMS)


def _no_color() -> bool:
    import os

    return bool(os.environ.get("NO_COLOR"))


@app.command("play", help=_("An evening at the table: asks for each deal in turn, re-asks a row that does not add up.\n" "\n" "Type the points in seating order (-4 0 -8 -4), or what each took (Аня: tricks=2 hearts=1; Боря: …),\n" "optionally after the game's name; add declarer=…, bid=…, buyer=…, price=…, orderer=… where\n" "needed. Commands: edit N …, undo, show, check, settle, help, quit. Every finished deal is saved at once.\n" "\n" "Example: kingsheet play friday.toml"))
def play_cmd(
    file: Annotated[Path | None, typer.Argument(help=_("The game file (default: the current game)."))] = None,
    lang: Lang = "",
) -> None:
    from kingsheet.cli.play import run

    try:
        path = _game_path(file)
        code = run(path, lang, typer.echo)
    except Unusable as exc:
        fail_on(exc)
    raise typer.Exit(code)


def _one_command(argv: list[str]) -> typer.Typer | None:
    """The app with only the command being run: typer builds every command's options at start-up,
    which costs more than the rest of kingsheet's start; --help and completion get the full app."""
    import os

    if not argv or any(k.startswith("_KINGSHEET") for k in os.environ):
        return None
    info = next((c for c in app.registered_commands if c.name == argv[0]), None)
    if info is None:
        return None
    single = typer.Typer(add_completion=False, rich_markup_mode=None, pretty_exceptions_enable=False)
    single.registered_commands.append(info)
    return single


@app.command("serve", help=_("The live sheet on every phone at the table: a local web page for the game, "
                              "with the deals, corrections and the money.\n\n"
                              "Example: kingsheet serve friday.toml --lan"))
def serve_cmd(
    file: Annotated[Path | None, typer.Argument(help=_("The game file (default: the current game)."))] = None,
    lan: Annotated[bool, typer.Option("--lan", help=_("Listen on the local network, for the phones."))] = False,
    port: Annotated[int, typer.Option("--port", help=_("The port (the next free one if it is taken)."),
                                      min=1024, max=65535)] = 8765,
    lang: Lang = "",
) -> None:
    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError:
        fail(_("kingsheet serve needs its extra: pip install '.[serve]' in kingsheet's folder"))
    from kingsheet.serve.run import serve

    path = _game_path(file)
    try:
        serve(path, lan, port, lang, typer.echo)
    except Unusable as exc:
        fail_on(exc)


@app.command("site", help=_("The phone app: a folder of static files that keeps score on a phone alone, offline "
                             "once opened (put it on any HTTPS host, or try it here with --serve).\n\n"
                             "Example: kingsheet site -o kingsheet-app --serve"))
def site_cmd(
    output: Annotated[Path, typer.Option("--output", "-o", metavar=_("FOLDER"), help=_("The folder to write the app into."))],
    pyodide: Annotated[Path | None, typer.Option("--pyodide", metavar=_("FILE|FOLDER"), help=_(
        "Pyodide's npm package (.tgz) or its unpacked folder, instead of fetching it (checked either way)."))] = None,
    zxing: Annotated[Path | None, typer.Option("--zxing", metavar=_("FILE|FOLDER"), help=_(
        "zxing-wasm's npm package (.tgz, the camera's code reader) or its unpacked folder, instead of fetching it."))] = None,
    serve: Annotated[bool, typer.Option("--serve", help=_("Then serve the folder on this computer to try it."))] = False,
    port: Annotated[int, typer.Option("--port", help=_("The port for --serve."), min=1024, max=65535)] = 8766,
    qr: Annotated[str | None, typer.Option("--qr", metavar="URL", help=_(
        "The address the app is published at (https://…): its QR code is drawn, for the table's cameras."))] = None,
    lang: Lang = "",
) -> None:
    from kingsheet.core import i18n
    from kingsheet.site.build import build

    if output.exists() and not output.is_dir():
        fail(_("{path} is not a folder").format(path=output))
    if qr is not None and not _app_address(qr):
        fail(_("--qr {url}: a phone opens the app only at an https:// address (or http://localhost)").format(url=qr[:200]))
    try:
        sizes = build(output, i18n.language(), pyodide, lambda text: typer.echo(text, err=True), zxing)
    except Unusable as exc:
        fail_on(exc)
    total = sum(sizes.values())
    from kingsheet.core.money import local_number

    typer.echo(ngettext("wrote {output}: {n} file, {mb} MB", "wrote {output}: {n} files, {mb} MB",
                        len(sizes)).format(output=output, n=len(sizes), mb=local_number(f"{total / 1e6:.1f}")))
    if qr is not None:
        from kingsheet.serve.qr import qr_lines

        typer.echo("\n".join(qr_lines(qr, "M")))
        typer.echo(_("The app at {url}: a phone's camera opens it; once opened it works offline.").format(url=qr))
    if serve:
        from kingsheet.serve.run import free_port
        from kingsheet.site.serving import serve_folder

        try:
            serve_folder(output, free_port("127.0.0.1", port), typer.echo)
        except OSError as exc:
            fail(_("cannot serve {path}: {why}").format(path=output, why=exc.strerror or exc))


def _app_address(url: str) -> bool:
    """An address a phone can install the app from: https, or this computer's own http."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    own = parts.hostname in ("localhost", "127.0.0.1", "::1")
    return bool(parts.hostname) and len(url) <= 500 and url.isprintable() and (
        parts.scheme == "https" or (parts.scheme == "http" and own))


club_app = typer.Typer(no_args_is_help=True, rich_markup_mode=None, help=_(
    "A club's history: a folder of game files added up evening by evening (standings, ledger, a "
    "player, payments, a report).\n\nExample: kingsheet club standings --dir ~/king --season 2026"))
app.add_typer(club_app, name="club")
ClubDir = Annotated[Path | None, typer.Option("--dir", metavar=_("FOLDER"), help=_(
    "The club's folder of game files (default: the folder of the current game)."))]
Season = Annotated[str | None, typer.Option("--season", help=_("A season of club.toml, or a year (2026)."))]
From = Annotated[str | None, typer.Option("--from", help=_("The first date counted (2026-09-01)."))]
To = Annotated[str | None, typer.Option("--to", help=_("The last date counted."))]
ClubRules = Annotated[str | None, typer.Option("--rules", "-r", help=_("Only games of this rule system (points are "
                                                                        "compared within one)."),
                                               autocompletion=complete_rules)]
AsJson = Annotated[bool, typer.Option("--json", help=_("Machine-readable output."))]
Jobs = Annotated[int, typer.Option("--jobs", "-j", min=1, max=64, help=_("Processes that read new files."))]


@contextlib.contextmanager
def _club(folder: Path | None, jobs: int, lang: str, quiet: bool = False) -> Iterator[tuple[Any, Any]]:
    """The club of the folder and its index brought up to date, open for the block; files that do not
    count are listed."""
    from kingsheet.club.config import load_club
    from kingsheet.club.index import up_to_date
    from kingsheet.club.queries import files
    from kingsheet.render.club import files_text

    if folder is None:
        from kingsheet.files.current import current_game

        try:
            folder = current_game().parent
        except Unusable:
            fail(_("which club? give its folder with --dir (or start a game there with kingsheet new)"))
    if not folder.is_dir():
        fail(_("{path}: no such folder").format(path=folder))
    try:
        club = load_club(folder)
        conn, notices = up_to_date(folder, jobs, club)
    except Unusable as exc:
        fail_on(exc)
    with contextlib.closing(conn):
        for line in notices:
            typer.echo(one_line(line), err=True)
        if not quiet:
            for line in files_text(files(conn), lang):
                typer.echo(one_line(line), err=True)
        yield club, conn


def _club_answer(work: Any, as_json: bool, text: Any, lang: str) -> None:
    try:
        data = work()
    except Unusable as exc:
        fail_on(exc)
    if as_json:
        emit_json(data)
    else:
        typer.echo(text(data, lang))


@club_app.command("standings", help=_("Who is ahead: evenings, wins, money, and points within one rule system.\n\n"
                                      "Example: kingsheet club standings --season 2026"))
def club_standings(folder: ClubDir = None, season: Season = None, start: From = None, end: To = None,
                   rules: ClubRules = None, as_json: AsJson = False, jobs: Jobs = 1, lang: Lang = "") -> None:
    from kingsheet.club.queries import period, standings
    from kingsheet.render.club import standings_text

    with _club(folder, jobs, lang) as (club, conn):
        _club_answer(lambda: standings(conn, club, period(club, season, start, end, rules)), as_json,
                     standings_text, lang)


@club_app.command("ledger", help=_("Who owes whom across the evenings, payments taken off, in the fewest transfers.\n\n"
                                   "Example: kingsheet club ledger"))
def club_ledger(folder: ClubDir = None, as_json: AsJson = False, jobs: Jobs = 1, lang: Lang = "") -> None:
    from kingsheet.club.queries import ledger
    from kingsheet.render.club import ledger_text

    with _club(folder, jobs, lang) as (club, conn):
        _club_answer(lambda: ledger(conn, club), as_json, ledger_text, lang)


@club_app.command("rating", help=_("Who plays best: each player's rating from the order of the TOTALs in every "
                                   "evening (Weng-Lin, Plackett-Luce), provisional while it rests on few evenings.\n\n"
                                   "Example: kingsheet club rating --season 2026"))
def club_rating(folder: ClubDir = None, season: Season = None, start: From = None, end: To = None,
                rules: ClubRules = None, as_json: AsJson = False, jobs: Jobs = 1, lang: Lang = "") -> None:
    from kingsheet.club.queries import period, rating
    from kingsheet.render.club import rating_text

    with _club(folder, jobs, lang) as (club, conn):
        _club_answer(lambda: rating(conn, club, period(club, season, start, end, rules)), as_json, rating_text, lang)


@club_app.command("player", help=_("One player: averages per game, how often the worst fell to them, best and worst "
                                   "evening, streaks, head to head.\n\nExample: kingsheet club player Аня"))
def club_player(name: Annotated[str, typer.Argument(help=_("The player (any alias, or the start of the name)."))],
                folder: ClubDir = None, season: Season = None, start: From = None, end: To = None,
                rules: ClubRules = None, as_json: AsJson = False, jobs: Jobs = 1, lang: Lang = "") -> None:
    from kingsheet.club.queries import period, player
    from kingsheet.core import i18n
    from kingsheet.render.club import player_text

    with _club(folder, jobs, lang) as (club, conn):
        _club_answer(lambda: player(conn, club, name, period(club, season, start, end, rules), i18n.language()),
                     as_json, player_text, lang)


@club_app.command("paid", context_settings={"ignore_unknown_options": True}, help=_("Record a payment between evenings (kept in club.toml).\n\n"
                                 "Example: kingsheet club paid Вася Боря 10"))
def club_paid(payer: Annotated[str, typer.Argument(help=_("Who paid."))],
              payee: Annotated[str, typer.Argument(help=_("Who was paid."))],
              amount: Annotated[str, typer.Argument(help=_("How much (10, 12.50)."))],
              date: Annotated[str | None, typer.Option("--date", help=_("When (default: today)."))] = None,
              currency: Annotated[str | None, typer.Option("--currency", help=_("Default RUB."))] = None,
              folder: ClubDir = None, lang: Lang = "") -> None:
    from kingsheet.club.config import record_payment
    from kingsheet.core.money import fmt_amount

    with _club(folder, 1, lang, quiet=True) as (club, conn):
        players = [row[0] for row in conn.execute("SELECT DISTINCT player FROM results")]
    try:
        pay = record_payment(club, payer, payee, amount, currency, date, players)
    except Unusable as exc:
        fail_on(exc)
    typer.echo(_("recorded: {payer} → {payee} {amount} ({date})").format(
        payer=pay.payer, payee=pay.payee, amount=fmt_amount(pay.amount, pay.currency), date=pay.date))


@club_app.command("files", help=_("Every game file of the club and how it counts.\n\nExample: kingsheet club files"))
def club_files(folder: ClubDir = None, as_json: AsJson = False, jobs: Jobs = 1, lang: Lang = "") -> None:
    from kingsheet.club.queries import files

    with _club(folder, jobs, lang, quiet=not as_json) as (club, conn):
        data = files(conn)
    if as_json:
        emit_json(data)
        return
    from kingsheet.render.club import files_text

    for line in files_text(data, lang, every=True):
        typer.echo(one_line(line))


@club_app.command("report", help=_("The club as a PDF: standings, ledger, money over time, averages per game.\n\n"
                                   "Example: kingsheet club report -o club.pdf --season 2026"))
def club_report(output: Annotated[Path, typer.Option("--output", "-o", help=_("club.pdf"))],
                folder: ClubDir = None, season: Season = None, start: From = None, end: To = None,
                rules: ClubRules = None, force: Annotated[bool, typer.Option("--force", help=_("Replace an existing file."))] = False,
                jobs: Jobs = 1, lang: Lang = "") -> None:
    from kingsheet.club.queries import history, ledger, period, rating, standings
    from kingsheet.core import i18n
    from kingsheet.files.storage import write_new
    from kingsheet.render.club import report_pdf

    _output(output, {".pdf"})
    with _club(folder, jobs, lang) as (club, conn):
        try:
            when = period(club, season, start, end, rules)
            data = report_pdf(standings(conn, club, when), ledger(conn, club, when),
                              history(conn, club, when, i18n.language()), i18n.language(), rating(conn, club, when))
            write_new(output, data, force)
        except Unusable as exc:
            fail_on(exc)
    typer.echo(_("wrote {output}").format(output=output))


@app.command("scan", help=_("Read photographed blanks back into a game file, each row checked and chosen by the "
                             "rules; rows to confirm are listed and marked in the file.\n\n"
                             'Example: kingsheet scan page1.jpg -o friday.toml --players "Аня,Боря,Вася,Галя"'))
def scan_cmd(
    photos: Annotated[list[Path], typer.Argument(help=_("Photos of the pages of one filled blank (JPEG or PNG)."))],
    output: Annotated[Path, typer.Option("--output", "-o", help=_("The game file to write (.toml)."))],
    players: Annotated[str | None, typer.Option("--players", "-p", help=_(
        'The names, clockwise from the first dealer: "Аня,Боря,Вася,Галя".'))] = None,
    force: Annotated[bool, typer.Option("--force", help=_("Replace an existing file."))] = False,
    rules_id: Annotated[str | None, typer.Option("--rules", "-r", help=_(
        "The blank's rules (a bundled id, e.g. blank-4), for a photo whose QR code cannot be read: its page "
        "and way up are then told by its printed lines."))] = None,
    option: Annotated[list[str] | None, typer.Option("--option", "-O", help=_("key=value, e.g. boys=kings"))] = None,
    lang: Lang = "",
) -> None:
    import kingsheet.scan  # noqa: F401 - first: it sets how numpy's BLAS runs, before numpy is imported

    try:
        import cv2  # noqa: F401
        import numpy  # noqa: F401
        import zxingcpp  # noqa: F401
    except ImportError:
        fail(_("kingsheet scan needs its extra: pip install '.[scan]' in kingsheet's folder"))
    if option and not rules_id:
        fail(_("--option names an option of the rules given with --rules"))
    from kingsheet.core.rules import RulesError
    from kingsheet.files.templates import load_rules

    try:
        given = load_rules(rules_id, parse_option_pairs(option)) if rules_id else None
    except RulesError as exc:
        fail(str(exc))
    from kingsheet.files.creation import seating
    from kingsheet.files.gamefile import read_game
    from kingsheet.files.storage import write_new
    from kingsheet.scan.game import confirm, game_text, recheck_totals, summary
    from kingsheet.scan.page import CodeUnreadable
    from kingsheet.scan.reader import read_sheet

    try:
        try:
            sheet = read_sheet(photos, (rules_id, parse_option_pairs(option)) if rules_id else None)
        except CodeUnreadable as exc:
            fail(_("{exc}; if it is smudged or torn, name the blank's rules: --rules ID").format(exc=exc))
        if given is not None and given.key != sheet.rules.key:
            opts = ", ".join(f"{k}={v}" for k, v in sorted(sheet.code.options.items()))
            fail(_("the sheet's QR code says the blank is of {rules}, not of the rules given with --rules").format(
                rules=f"{sheet.rules.id} ({opts})" if opts else sheet.rules.id))
        names = seating(players) if players else _ask_names(sheet.rules.players)
        if len(names) != sheet.rules.players:
            fail(_("{id} is for {players} players; {names} are named").format(
                id=sheet.rules.id, players=sheet.rules.players, names=len(names)))
        if len({n.casefold() for n in names}) != len(names):
            fail(_("a player is named twice (names that differ only in case are the same name)"))
        if players:
            typer.echo(_seating_line(names))
        for line in summary(sheet):
            typer.echo(line)
        bids: dict[int, tuple[str, int]] = {}
        confirmed = confirm(sheet, input, typer.echo, names, bids) if sys.stdin.isatty() else {}
        text = game_text(sheet, names, confirmed, bids)
        read_game(text, output, output.resolve().parent)
        write_new(output, text.encode("utf-8"), force)
    except Unusable as exc:
        fail_on(exc)
    unsure = [r.number for r in sheet.rows if not r.choice.sure and r.number not in confirmed]
    typer.echo(_("wrote {output}: {n} rows of {id}").format(output=output, n=len(sheet.rows), id=sheet.rules.id))
    final = [confirmed.get(r.number, (r.game, r.cells)) for r in sheet.rows]
    adds_up = recheck_totals(sheet, final, complete=not unsure)
    if adds_up:
        typer.echo("✓ " + _("the rows as they now stand add up to the totals written on the sheet"))
    elif adds_up is False:
        typer.echo(_("the totals as read from the sheet do not match the rows: compare them on the paper, then: "
                     "kingsheet check {output}")
                   .format(output=output))
        raise typer.Exit(PROBLEMS)
    if unsure:
        typer.echo(ngettext("confirm row {rows} (marked in the file), then: kingsheet check {output}",
                            "confirm rows {rows} (marked in the file), then: kingsheet check {output}",
                            len(unsure)).format(rows=", ".join(map(str, unsure)), output=output))
        raise typer.Exit(PROBLEMS)


def _seating_line(names: Sequence[str]) -> str:
    return _("seating, clockwise: {names}; {first} deals the first deal").format(
        names=" → ".join(names), first=names[0])


def _ask_names(count: int) -> list[str]:
    """The names are handwriting too: asked for at a terminal, the seating shown and confirmed
    (the columns Игрок 1…N are the players clockwise from the first dealer); else --players is
    needed."""
    from kingsheet.files.creation import seating

    if not sys.stdin.isatty():
        fail(ngettext("name the {n} player with --players (clockwise from the first dealer)",
                      "name the {n} players with --players (clockwise from the first dealer)", count).format(n=count))
    while True:
        answer = input(ngettext("The {n} player, clockwise from the first dealer, separated by commas: ",
                                "The {n} players, clockwise from the first dealer, separated by commas: ",
                                count).format(n=count))
        names = seating(answer)
        if len(names) != count:
            typer.echo("✗ " + ngettext("{n} name is needed", "{n} names are needed", count).format(n=count))
            continue
        typer.echo(_seating_line(names))
        if input(_("Right? [Y/n] ")).strip().casefold() in ("", *YES):
            return names


YES = ("y", "yes", "д", "да")


# --- sheets: PDF, XLSX, CSV -------------------------------------------------------------------------



def _output(path: Path, allowed: set[str]) -> str:
    suffix = path.suffix.lower()
    if suffix not in allowed:
        fail(_("-o {path}: write to one of {allowed}").format(path=path, allowed=', '.join(sorted(allowed))))
    return suffix


@app.command("blank", help=_("The empty printable blank of a rule system, as PDF or XLSX.\n" "\n" 'Example: kingsheet blank --rules blank-4 -o blank.pdf --players "Аня,Боря,Вася,Галя"'))
def blank_cmd(
    rules_id: Annotated[str, typer.Option("--rules", "-r", help=_("Template id or file."), autocompletion=complete_rules)],
    output: Annotated[Path, typer.Option("--output", "-o", help=_("blank.pdf or blank.xlsx"))],
    players: Annotated[str | None, typer.Option("--players", "-p", help=_('Names to print: "Аня,Боря,Вася,Галя".'))] = None,
    option: Annotated[list[str] | None, typer.Option("--option", "-O", help=_("key=value, e.g. boys=kings"))] = None,
    per_page: Annotated[int, typer.Option("--per-page", help=_("Blanks on one A4 (1 or 2); PDF only. Two to a page are for pen and paper: `scan` reads only one to a page."))] = 1,
    stake: Annotated[str | None, typer.Option("--stake", help=_("Stake to print in the money box."))] = None,
    lang: Lang = "",
    force: Annotated[bool, typer.Option("--force", help=_("Replace an existing file."))] = False,
) -> None:
    from kingsheet.core.rules import RulesError
    from kingsheet.files.storage import write_new
    from kingsheet.files.templates import load_rules
    from kingsheet.table.formats import BLANKS

    suffix = _output(output, set(BLANKS))
    if per_page not in (1, 2):
        fail(_("--per-page is 1 or 2"))
    if per_page == 2 and not BLANKS[suffix].per_page:
        fail(_("--per-page 2 is for a PDF blank; a workbook is one blank a sheet"))
    try:
        rules = load_rules(rules_id, parse_option_pairs(option))
        names = [p.strip() for p in players.split(",") if p.strip()] if players else None
        if names is not None and len(names) != rules.players:
            fail(_("{id} is for {players} players; --players names {names}").format(id=rules.id, players=rules.players, names=len(names)))
        data = BLANKS[suffix].write(rules, names, lang, per_page, stake)
        write_new(output, data, force)
    except (RulesError, Unusable) as exc:
        fail_on(exc)
    typer.echo(_("wrote {output}: the {id} blank ({length})").format(output=output, id=rules.id,
                                                                    length=_game_length(rules)))


@app.command("export", help=_("The filled sheet: numbers, marks, TOTAL, the money; a sheet with problems is printed with them marked.\n" "\n" "Example: kingsheet export friday.toml -o friday.pdf\n" "Example: kingsheet export friday.toml --qr      (the game as codes for a phone's camera)"))
def export_cmd(
    output: Annotated[Path | None, typer.Option("--output", "-o", help=_("sheet.pdf, .xlsx, .csv or .json; with --qr: codes.pdf or codes.txt"))] = None,
    file: Annotated[Path | None, typer.Argument(help=_("The game file, or a filled XLSX/CSV sheet (default: the current game)."))] = None,
    qr: Annotated[bool, typer.Option("--qr", help=_("The game as QR codes for a phone (Table → Read a code): drawn here, or into -o."))] = False,
    lang: Lang = "",
    force: Annotated[bool, typer.Option("--force", help=_("Replace an existing file."))] = False,
) -> None:
    from kingsheet.core.verify import verify
    from kingsheet.files.load import load_any
    from kingsheet.files.storage import write_new
    from kingsheet.table.formats import EXPORTS, exported

    if qr:
        _export_codes(file or _current_named(), output, force)
        return
    if output is None:
        fail(_("say where to write the sheet: -o sheet.pdf (or --qr for codes)"))
    suffix = _output(output, set(EXPORTS))
    file = file or _current_named()
    try:
        report = verify(load_any(file))
        data = exported(report, suffix, lang)
        write_new(output, data, force)
    except Unusable as exc:
        fail_on(exc)
    for problem in report.problems:
        typer.echo(one_line(f"{file}: {problem.message}"), err=True)
    typer.echo(_("wrote {output}").format(output=output) + ("" if report.ok else ngettext(" ({n} problem marked)", " ({n} problems marked)", len(report.problems)).format(n=len(report.problems))))
    raise typer.Exit(OK if report.ok else PROBLEMS)


def _export_codes(file: Path, output: Path | None, force: bool) -> None:
    """The game file as hand-over codes (docs/game-file.md, «Game codes»): in the terminal, or as
    a page of codes (.pdf) or their texts (.txt, one a line)."""
    from kingsheet.core import i18n
    from kingsheet.files.handover import LEVEL, game_codes
    from kingsheet.files.storage import write_new

    if file.suffix.lower() != ".toml":
        fail(_("{file}: codes are made of a game file (.toml); import the sheet first").format(file=file))
    suffix = _output(output, {".pdf", ".txt"}) if output is not None else None
    try:
        codes = game_codes(file)
        if suffix == ".pdf":
            from kingsheet.files.gamefile import load_game
            from kingsheet.render.codes import codes_pdf

            assert output is not None
            write_new(output, codes_pdf(codes, load_game(file).title or file.stem, i18n.language(), LEVEL), force)
        elif suffix == ".txt":
            assert output is not None
            write_new(output, "".join(c + "\n" for c in codes).encode("ascii"), force)
    except Unusable as exc:
        fail_on(exc)
    if output is not None:
        typer.echo(ngettext("wrote {output}: {n} code", "wrote {output}: {n} codes", len(codes)).format(
            output=output, n=len(codes)))
        return
    from kingsheet.serve.qr import qr_lines

    for k, code in enumerate(codes, 1):
        typer.echo("\n".join(qr_lines(code, LEVEL)))
        typer.echo(_("code {n} of {of}").format(n=k, of=len(codes)) + "\n")
    typer.echo(_("On a phone: kingsheet's app, Table → Read a code, pointed at each code in turn."))


PICTURES = (".png", ".jpg", ".jpeg", ".webp", ".bmp")


@app.command("import", help=_("A sheet filled by hand elsewhere, into a game file (checked on the way).\n" "\n" "Example: kingsheet import friday.xlsx -o friday.toml\n" "Example: kingsheet import codes.png -o friday.toml      (a phone's game codes: photos, screenshots)"))
def import_cmd(
    sheets: Annotated[list[Path], typer.Argument(metavar=_("SHEET..."), help=_("A filled sheet: .xlsx or .csv; or pictures of a game's codes (.png, .jpg), or their texts (.txt)."))],
    output: Annotated[Path, typer.Option("--output", "-o", help=_("The game file to write (.toml)."))],
    rules_id: Annotated[str | None, typer.Option("--rules", "-r", help=_("Rules, when the sheet does not say."),
                                                 autocompletion=complete_rules)] = None,
    force: Annotated[bool, typer.Option("--force", help=_("Replace an existing file."))] = False,
    lang: Lang = "",
) -> None:
    from kingsheet.files.load import game_file_text, load_any
    from kingsheet.files.storage import write_new

    _output(output, {".toml"})
    kinds = {p.suffix.lower() in (*PICTURES, ".txt") for p in sheets}
    if kinds == {True}:
        _import_codes(sheets, output, force)
        return
    sheet = sheets[0]
    if len(sheets) > 1:
        fail(_("{sheet}: one sheet at a time (several files are read only as a game's codes)").format(sheet=sheets[1]))
    from kingsheet.table.formats import IMPORTS

    if sheet.suffix.lower() not in IMPORTS:
        fail(_("{sheet}: import reads .xlsx or .csv sheets, or pictures of game codes").format(sheet=sheet))
    try:
        game = load_any(sheet, rules_id)
        text = game_file_text(game, sheet.parent, output.resolve().parent)
        write_new(output, text.encode("utf-8"), force)
    except Unusable as exc:
        fail_on(exc)
    _imported(game, sheet, output)


def _import_codes(files: list[Path], output: Path, force: bool) -> None:
    """A game from its hand-over codes: pictures read with ZXing (kingsheet[scan]), or texts."""
    from kingsheet.files.gamefile import MAX_FILE_BYTES, read_bounded, read_game, read_text
    from kingsheet.files.handover import Reading
    from kingsheet.files.storage import write_new

    reading = Reading()
    try:
        for path in files:
            if path.suffix.lower() == ".txt":
                texts = [line for line in read_text(path).splitlines() if line.strip()]
            else:
                texts = _codes_in_picture(path, read_bounded(path, 4 * MAX_FILE_BYTES, _("picture")))
            if not texts:
                fail(_("{path}: no code was found in this picture").format(path=path))
            for text in texts:
                try:
                    reading.add(text)
                except InputError as exc:
                    fail(f"{path}: {exc}")
        if not reading.complete:
            missing = [str(k) for k in range(1, reading.of + 1) if k not in reading.parts]
            fail(_("codes {missing} of {of} are missing: give their pictures too").format(
                missing=", ".join(missing), of=reading.of))
        given = reading.game()
        folder = output.resolve().parent
        if given.template_name is not None and given.template_text is not None:
            beside = folder / given.template_name
            if beside.exists() and read_text(beside) != given.template_text:
                fail(_("{path}: a different file of this name is there already; the game's house template "
                       "was not written").format(path=beside))
            if not beside.exists():
                write_new(beside, given.template_text.encode("utf-8"), False)
        game = read_game(given.text, output, folder)
        write_new(output, given.text.encode("utf-8"), force)
    except Unusable as exc:
        fail_on(exc)
    _imported(game, output, output)


def _imported(game: Any, where: Path, output: Path) -> NoReturn:
    """What import wrote: its deals, and the sheet's problems (named by ``where``) on stderr."""
    from kingsheet.core.verify import verify

    report = verify(game)
    for problem in report.problems:
        typer.echo(one_line(f"{where}: {problem.message}"), err=True)
    n = len(game.deals)
    typer.echo(ngettext("wrote {output}: {n} deal of {id}", "wrote {output}: {n} deals of {id}", n).format(
        output=output, n=n, id=game.rules.id)
        + ("" if report.ok else ngettext("; {n} problem", "; {n} problems", len(report.problems)).format(
            n=len(report.problems))))
    raise typer.Exit(OK if report.ok else PROBLEMS)


def _codes_in_picture(path: Path, data: bytes) -> list[str]:
    try:
        import cv2
        import numpy as np
        import zxingcpp
    except ImportError:
        fail(_("reading codes from a picture needs kingsheet's scan extra: pip install '.[scan]' in "
               "kingsheet's folder (or give the codes' texts as a .txt)"))
    from kingsheet.scan.page import READ_PIXELS

    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_GRAYSCALE)
    if image is None:
        raise InputError(_("{path}: not a picture that can be read").format(path=path))
    if image.shape[0] * image.shape[1] > READ_PIXELS:
        raise InputError(_("{path}: too large a picture (more than {mp} megapixels)").format(
            path=path, mp=READ_PIXELS // 1_000_000))
    found = zxingcpp.read_barcodes(image)
    return [r.text for r in found if r.valid and r.format == zxingcpp.BarcodeFormat.QRCode]


def _say_waiting(path: Path) -> None:
    typer.echo(_("kingsheet: {path}: another kingsheet is changing this game; waiting…").format(path=path), err=True)


def main() -> None:
    import kingsheet.files
    from kingsheet.cli import Interrupted, catch_interrupts

    argv = sys.argv[1:]
    catch_interrupts()
    kingsheet.files.on_wait = _say_waiting
    try:
        single = _one_command(argv)
        if single is not None:
            single(args=argv[1:], prog_name=f"kingsheet {argv[0]}")
        else:
            app()
    except (KeyboardInterrupt, Interrupted):
        typer.echo(_("\nkingsheet: interrupted; nothing half-written was kept"), err=True)
        sys.exit(130)
    except Exception as exc:  # a bug of ours: one line, not a traceback (KINGSHEET_DEBUG=1 shows it)
        import os

        if os.environ.get("KINGSHEET_DEBUG"):
            raise
        typer.echo(_("kingsheet: unexpected error ({name}: {exc}); nothing was changed by it. Please " "report it; KINGSHEET_DEBUG=1 shows the details").format(name=type(exc).__name__, exc=one_line(str(exc))), err=True)
        sys.exit(UNUSABLE)
