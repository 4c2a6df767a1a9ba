"""`kingsheet play`: the whole evening at the prompt.

Each finished deal is saved at once (atomically), so Ctrl-C, a closed terminal or the end of
input loses nothing that was entered. A row that does not add up is refused with the reason
and asked again.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kingsheet.cli import Interrupted
from kingsheet.core.entry import (
    EXTRA_KEYS,
    adds_sign,
    asked_fields,
    deal_fields,
    extra_key,
    next_game,
    sign_note,
    signed_points,
    suggest_game,
)
from kingsheet.core.game import Deal, GameFile, field_word, kept_on_edit
from kingsheet.core.i18n import _, ngettext
from kingsheet.core.problems import InputError, Unusable, one_line
from kingsheet.core.verify import Report, verify
from kingsheet.files.changes import Change, Refused, add_deal, undo_deal
from kingsheet.files.gamefile import load_game
from kingsheet.render.text import sheet_text


def help_text(game: GameFile) -> str:
    """What to type, with this table's own names in the examples, and only the fields these rules ask for."""
    a, b = game.players[0], game.players[1 % len(game.players)]
    cells = " ".join(["-4", "0", "-8", "-4", "0", "0"][: len(game.players)])
    asked = {f for gid in game.rules.games for f in asked_fields(game.rules, gid)}
    extras = ", ".join(f"{field_word(key)}=…" for key in EXTRA_KEYS if key in asked)
    if not extras:
        return _("type the points in seating order ({cells}), or what each took ({a}: tricks=2 hearts=1; {b}: …); "
                 "start with a game's name to play another game (hearts …). Commands: edit N …, undo, show, "
                 "check, settle, help, quit").format(cells=cells, a=a, b=b)
    return _("type the points in seating order ({cells}), or what each took ({a}: tricks=2 hearts=1; {b}: …); "
             "start with a game's name to play another game (hearts …); add {extras} where needed. "
             "Commands: edit N …, undo, show, check, settle, help, quit").format(cells=cells, a=a, b=b, extras=extras)


def seating(game: GameFile, k: int) -> str:
    """Which number is whose, who deals and whose turn it is: the line above the prompt."""
    dealer, turn = game.dealer_of(k), game.on_turn(k)
    marks = {dealer: " " + _("(deals)"), turn: " " + _("(turn)")} if dealer != turn else {dealer: " " + _("(deals)")}
    return "   ".join(f"{i}:{p}{marks.get(p, '')}" for i, p in enumerate(game.players, 1))


def _load(path: Path) -> GameFile:
    return load_game(path)


def _prompt(game: GameFile, report: Report) -> tuple[str, str | None]:
    k = len(game.deals) + 1
    dealer = game.dealer_of(k)
    gid = next_game(game, report)
    if gid is None:
        return _("deal {number} ({dealer} deals{turn}) — game and points: ").format(
            number=k, dealer=dealer, turn=game.turn_words(k, None)), None
    g = game.rules.games[gid]
    return _("deal {number}: {game}, {dealer} deals{turn} — points: ").format(
        number=k, game=g.heading(), dealer=dealer, turn=game.turn_words(k, gid)), gid


def parse_line(line: str, game: GameFile, default_game: str | None, number: int | None = None,
               notes: list[str] | None = None) -> dict[str, Any]:
    """One line of input → the fields of a deal (raises InputError with the reason); what the person
    should be told of how it was read goes to ``notes``."""
    text = line.strip()
    extras: dict[str, Any] = {}
    if ":" not in text:
        words = []
        for word in text.split():
            key, eq, value = word.partition("=")
            field = extra_key(key) if eq else None
            if field is not None:
                extras[field] = value
            else:
                words.append(word)
        text = " ".join(words)
    gid = default_game
    tokens = text.split()
    if tokens and not tokens[0].lstrip("+-−").isdigit() and ":" not in tokens[0]:
        # a game name may be two words («Две последние»)
        for width in (2, 1):
            found = game.rules.find_game(" ".join(tokens[:width]))
            if found:
                gid = found
                tokens = tokens[width:]
                break
        else:
            suggestion = suggest_game(game.rules, " ".join(tokens[:2])) or suggest_game(game.rules, tokens[0])
            if suggestion or gid is None or not tokens[0].lstrip("+-−").replace(".", "").isdigit():
                hint = _("; did you mean «{game}»?").format(game=suggestion) if suggestion else ""
                raise InputError(_("no game «{word}» in {rules}{hint}").format(
                    word=one_line(tokens[0], 30), rules=game.rules.id, hint=hint))
    if gid is None:
        raise InputError(_("which game? start the line with its name, e.g. «hearts -4 -4 0 -8»"))
    rest = " ".join(tokens)
    taken = rest if ":" in rest else None
    if not taken and adds_sign(game.rules, gid, tokens):  # magnitudes take the game's minus, as on the phone
        if notes is not None:
            notes.append(sign_note(game.rules, gid))
        tokens = signed_points(game.rules, gid, tokens)
    return deal_fields(game, number or len(game.deals) + 1, gid, [] if taken else tokens, taken, extras)


def run(path: Path, lang: str, echo: Callable[..., Any], read: Callable[[], str] | None = None) -> int:
    """The evening: a prompt a deal, the table's commands, and at the end the sheet and the money."""
    if read is None:
        ask = _line_reader(path)
    else:
        def ask(prompt: str) -> str:
            echo(prompt, nl=False)
            return read()
    game = _load(path)
    echo(f"{path}: {game.rules.template.name.get(lang, game.rules.id)}; {help_text(game)}")
    seen = len(game.deals)
    ended = False  # the end (the sheet and the money) was shown, and nothing has changed since
    corrected = False  # a correction at the end: it showed the sheet, the end shows the money again
    try:
        while True:
            game = _load(path)
            if len(game.deals) > seen:  # another terminal wrote to this game
                for deal in game.deals[seen:]:
                    echo(_("deal {number} ({game}) was entered elsewhere, in another terminal or program").format(
                        number=deal.number, game=deal.game))
            seen = len(game.deals)
            report = verify(game)
            done = 0 if report.ok else 1  # what ending here says: a finished sheet with problems is 1
            if report.complete:
                # the prompt stays open: "that King was mine" is still mended here (edit, undo)
                if not ended:
                    _the_end(path, report, lang, echo, sheet=not corrected)
                    ended, corrected = True, False
                prompt, gid = _("the sheet is complete — edit N …, undo, settle, show, quit: "), None
            else:
                ended = False
                prompt, gid = _prompt(game, report)
                echo(seating(game, len(game.deals) + 1))
            line = ask(prompt)
            if not line:  # end of input: everything entered is already saved
                echo("")
                echo(_saved_words(len(game.deals), path))
                return done if report.complete else 0
            outcome = _command(line, path, game, report, lang, echo)
            if outcome == "quit":
                echo(_saved_words(len(game.deals), path))
                return done if report.complete else 0
            if outcome == "done":
                seen = len(_load(path).deals)
                if report.complete and _load(path) != game:
                    ended, corrected = False, True  # a correction: the money again
                continue
            if report.complete:
                echo(_("the sheet is complete: correct a deal with edit N …, remove the last with undo, or quit"))
                continue
            change = _saved(functools.partial(_add, path, line, game, gid, echo), echo,
                            _("not recorded; type the row again"))
            if change is None:
                continue
            seen = change.number
            echo(_("✓ deal {number} saved").format(number=change.number))
            if not change.report.complete:  # the last deal's sheet is shown once, with the money
                echo(sheet_text(change.report, lang))
    except (KeyboardInterrupt, Interrupted):
        echo("")
        echo(_("interrupted; {saved}; `kingsheet play` goes on from there").format(
            saved=_saved_words(len(_load(path).deals), path)))
        return 130


def _saved_words(n: int, path: Path) -> str:
    return ngettext("{n} deal saved in {path}", "{n} deals saved in {path}", n).format(n=n, path=path)


def _command(line: str, path: Path, game: GameFile, report: Report, lang: str, echo: Callable[..., Any]) -> str:
    """A table command: "quit", "done" (handled), or "" (not a command: a deal's row)."""
    word, _unused, rest = line.strip().partition(" ")
    word = word.casefold()
    if not word:
        return "done"
    command = next((c for c, words in COMMANDS.items() if word in words), None)
    if command == "quit":
        return "quit"
    if command == "help":
        echo(help_text(game))
    elif command == "show":
        echo(sheet_text(report, lang))
    elif command == "check":
        echo(_("all consistent") if report.ok else "\n".join(one_line(p.message) for p in report.problems))
    elif command == "settle":
        _settle(report, lang, echo)
    elif command == "undo":
        try:
            last = game.deals[-1] if game.deals else None
            change = undo_deal(path)
            held = _held(last) if last else "?"
            echo(_("removed deal {number} ({game}: {held})").format(
                number=change.number, game=_label(game, last.game) if last else "?", held=held))
        except Unusable as exc:
            echo(f"✗ {exc}")
    elif command == "edit":
        _edit(rest, path, game, echo, lang)
    elif (meant := mistyped(word, game)) is not None:
        echo("✗ " + _("«{word}» is not a command; did you mean «{command}»?").format(word=one_line(word, 30),
                                                                                    command=meant))
    else:
        return ""
    return "done"


#: The table's commands at the prompt, each with the words that call it (English and Russian).
COMMANDS = {"quit": ("q", "quit", "exit", "выход"), "help": ("?", "help", "помощь"), "show": ("show", "s", "лист"),
            "check": ("check", "проверка"), "settle": ("settle", "расчёт", "расчет"),
            "undo": ("undo", "u", "отмена"), "edit": ("edit", "e", "исправить")}


def mistyped(word: str, game: GameFile) -> str | None:
    """The command a mistyped first word was probably meant as («setle» → settle, «исправит» →
    исправить), or None: a game's name, a number or a word near no command is not a command."""
    import difflib

    if len(word) < 3 or ":" in word or "=" in word or word.lstrip("+-−").isdigit() or game.rules.find_game(word):
        return None
    words = [w for ws in COMMANDS.values() for w in ws if len(w) >= 3]
    close = difflib.get_close_matches(word, words, n=1, cutoff=0.75)
    return close[0] if close else None


def _edit(rest: str, path: Path, game: GameFile, echo: Callable[..., Any], lang: str) -> None:
    from kingsheet.files.changes import edit_deal

    number, _unused, row = rest.strip().partition(" ")
    if not game.deals:
        echo("✗ " + _("no deal has been entered yet, so none can be corrected"))
        return
    if not number.isdigit() or not 1 <= int(number) <= len(game.deals):
        echo("✗ " + _("edit which deal? edit N then the row, N from 1 to {last}").format(last=len(game.deals)))
        return
    old = game.deals[int(number) - 1]

    def correct() -> Change:
        notes: list[str] = []
        fields = parse_line(row, game, game.rules.find_game(old.game), int(number), notes=notes)
        for note in notes:
            echo(note)
        typed = {extra_key(w.partition("=")[0]) for w in row.split() if "=" in w}
        fields.update(kept_on_edit(old, {k: fields.get(k) if k in typed else None for k in EXTRA_KEYS}))
        return edit_deal(path, int(number), fields)

    change = _saved(correct, echo, _("not changed"))
    if change is None:
        return
    echo(_("✓ deal {number} corrected").format(number=change.number))
    echo(sheet_text(change.report, lang))


def _add(path: Path, line: str, game: GameFile, gid: str | None, echo: Callable[..., Any]) -> Change:
    notes: list[str] = []
    fields = parse_line(line, game, gid, notes=notes)
    for note in notes:
        echo(note)
    return add_deal(path, fields)


def _saved(save: Callable[[], Change], echo: Callable[..., Any], refused: str) -> Change | None:
    """Save a row; a row the checks refuse, or input that cannot be used, is said and None returned."""
    try:
        return save()
    except Refused as exc:
        for p in exc.problems:
            echo(one_line(f"✗ {p.message}"))
        echo(refused)
    except Unusable as exc:
        echo(f"✗ {exc}")
    return None


def _settle(report: Report, lang: str, echo: Callable[..., Any]) -> None:
    from kingsheet.core.money import game_money
    from kingsheet.render.money import settlement_text

    if report.problems:
        echo(_("the sheet has problems: fix them first (check lists them)"))
        return
    if not report.complete:
        from kingsheet.render.text import not_final

        echo(not_final(report))
    s, why = game_money(report)
    if s is None:
        echo(f"✗ {why}")
        return
    echo(settlement_text(s, None, lang))  # the game's own method only (its [money] says which)


def _the_end(path: Path, report: Report, lang: str, echo: Callable[..., Any], sheet: bool = True) -> None:
    """The last deal is written: the final sheet, the money, and how to print it."""
    if sheet:  # (after a correction the sheet was just shown): its last line says it is complete
        echo(sheet_text(report, lang))
    _settle(report, lang, echo)
    echo(_("to print it: kingsheet export {path} -o {pdf}").format(path=path, pdf=path.with_suffix(".pdf").name))


def _label(game: GameFile, written: str) -> str:
    """A game as the sheet names it («Ералаш»), whatever the file has (eralash)."""
    gid = game.rules.find_game(written)
    return game.rules.games[gid].label() if gid else written


def _held(deal: Deal) -> str:
    """What a removed row held: its points, or what each player took."""
    from kingsheet.core.problems import num

    if deal.points:
        return " ".join(num(c) for c in deal.points)
    if deal.taken:
        return "; ".join(" ".join(f"{k}={v}" for k, v in t.items() if v) or "0" for t in deal.taken)
    return "?"


def _line_reader(path: Path) -> Callable[[str], str]:
    """input() with line editing and history (readline) at a terminal; the history is kept beside
    the user's other kingsheet state. Returns "" at the end of input."""
    if sys.stdin.isatty():
        try:
            import readline

            from kingsheet.files.current import state_dir

            history = state_dir() / "history"
            with contextlib.suppress(OSError):
                readline.read_history_file(history)
            atexit.register(lambda: _save_history(readline, history))
        except ImportError:  # pragma: no cover - no readline on this platform
            pass

    def read(prompt: str) -> str:
        try:
            return input(prompt) + "\n"
        except EOFError:
            return ""

    return read


def _save_history(readline: Any, history: Path) -> None:
    with contextlib.suppress(OSError):
        history.parent.mkdir(parents=True, exist_ok=True)
        readline.set_history_length(1000)
        readline.write_history_file(history)
