"""`kingsheet play`: the whole evening at the prompt.

Each finished deal is saved at once (atomically), so Ctrl-C, a closed terminal or the end of
input loses nothing that was entered. A row that does not add up is refused with the reason
and asked again.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kingsheet.cli import Interrupted
from kingsheet.core.entry import EXTRA_KEYS, deal_fields, next_game
from kingsheet.core.game import GameFile
from kingsheet.core.problems import InputError, Unusable, one_line
from kingsheet.core.verify import Report, verify
from kingsheet.files.changes import Refused, add_deal, undo_deal
from kingsheet.files.gamefile import load_game
from kingsheet.render.text import sheet_text

HELP = ("type the points in seating order (-4 0 -8 -4), or what each took (Аня: tricks=2 hearts=1; Боря: …); "
        "a game's name first to play another game; declarer=…, bid=…, buyer=…, price=…, orderer=…, contract=… "
        "where needed; "
        "commands: undo, show, quit")


def _load(path: Path) -> GameFile:
    return load_game(path)


def _prompt(game: GameFile, report: Report) -> tuple[str, str | None]:
    k = len(game.deals) + 1
    dealer = game.dealer_of(k)
    gid = next_game(game, report)
    if gid is None:
        return f"deal {k} ({dealer} deals{game.turn_words(k, None)}) — game and points: ", None
    g = game.rules.games[gid]
    return f"deal {k}: {g.heading()}, {dealer} deals{game.turn_words(k, gid)} — points: ", gid


def parse_line(line: str, game: GameFile, default_game: str | None) -> dict[str, Any]:
    """One line of input → the fields of a deal (raises InputError with the reason)."""
    text = line.strip()
    extras: dict[str, Any] = {}
    if ":" not in text:
        words = []
        for word in text.split():
            key, eq, value = word.partition("=")
            if eq and key in EXTRA_KEYS:
                extras[key] = value
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
    if gid is None:
        raise InputError("which game? start the line with its name, e.g. «черви -4 -4 0 -8»")
    rest = " ".join(tokens)
    taken = rest if ":" in rest else None
    return deal_fields(game, len(game.deals) + 1, gid, [] if taken else tokens, taken, extras)


def run(path: Path, lang: str, echo: Callable[..., Any], read: Callable[[], str] | None = None) -> int:
    readline = read or sys.stdin.readline
    game = _load(path)
    echo(f"{path}: {game.rules.template.name.get(lang, game.rules.id)}; {HELP}")
    try:
        while True:
            game = _load(path)
            report = verify(game)
            if report.complete:
                echo(sheet_text(report, lang))
                echo("the sheet is complete")
                return 0 if report.ok else 1
            prompt, gid = _prompt(game, report)
            echo(prompt, nl=False)
            line = readline()
            if not line:  # end of input: everything entered is already saved
                echo("")
                echo(f"{len(game.deals)} deals saved in {path}")
                return 0
            word = line.strip().casefold()
            if not word:
                continue
            if word in ("q", "quit", "exit", "выход"):
                echo(f"{len(game.deals)} deals saved in {path}")
                return 0
            if word in ("?", "help", "помощь"):
                echo(HELP)
                continue
            if word in ("show", "s", "лист"):
                echo(sheet_text(report, lang))
                continue
            if word in ("undo", "u", "отмена"):
                try:
                    change = undo_deal(path)
                    echo(f"removed deal {change.number}")
                except Unusable as exc:
                    echo(f"✗ {exc}")
                continue
            try:
                fields = parse_line(line, game, gid)
                change = add_deal(path, fields)
            except Refused as exc:
                for p in exc.problems:
                    echo(one_line(f"✗ {p.message}"))
                echo("not recorded; type the row again")
                continue
            except Unusable as exc:
                echo(f"✗ {exc}")
                continue
            echo(f"✓ deal {change.number} saved")
            echo(sheet_text(change.report, lang))
    except (KeyboardInterrupt, Interrupted):
        echo("")
        echo(f"interrupted; {len(_load(path).deals)} deals saved in {path}")
        return 130
