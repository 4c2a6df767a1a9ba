"""A new game file, from what a person chose: the rules, the seating, the money. One place for the
command line and the phone page."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from kingsheet.core.entry import find_player
from kingsheet.core.i18n import _
from kingsheet.core.money import METHODS, check_currency, parse_stake
from kingsheet.core.problems import InputError
from kingsheet.core.rules import Rules
from kingsheet.files.edits import new_game_text
from kingsheet.files.gamefile import read_game
from kingsheet.files.storage import write_new
from kingsheet.files.templates import is_template_path, load_rules


def seating(text: str) -> list[str]:
    """Names as typed, separated by commas (or semicolons)."""
    return [p.strip() for p in text.replace(";", ",").split(",") if p.strip()]


def create_game(file: Path, rules_id: str, names: Sequence[str], options: Mapping[str, str] | None = None,
                first_dealer: str | None = None, stake: str | None = None, currency: str | None = None,
                method: str | None = None, title: str | None = None, force: bool = False) -> Rules:
    """Write a new game file (atomically; an existing one only with ``force``) and return its rules.
    Raises InputError (or RulesError) with the reason; nothing is written then."""
    folder = file.parent if str(file.parent) else Path(".")
    if not folder.is_dir():
        raise InputError(_("{file}: the folder {folder} does not exist").format(file=file, folder=folder))
    opts = dict(options or {})
    rules = load_rules(rules_id, opts)
    names = list(names)
    if len(names) != rules.players:
        raise InputError(_("{id} is for {players} players; {names} are named").format(
            id=rules.id, players=rules.players, names=len(names)))
    if len({n.casefold() for n in names}) != len(names):
        raise InputError(_("a player is named twice (names that differ only in case are the same name)"))
    dealer = find_player(first_dealer, names) if first_dealer else None
    money: dict[str, str] = {}
    if stake is not None or currency or method:
        cur = check_currency(currency)
        money = {"stake": str(parse_stake(stake, cur)), "currency": cur}
        if method and method not in METHODS:
            raise InputError(_("the method must be pairwise or pot, not '{method}'").format(method=method))
        money["method"] = method or "pairwise"
    ref = rules_id
    if is_template_path(ref):
        # a template file of the user's: stored relative to the game file, as the loader reads it
        ref = os.path.relpath(Path(ref).resolve(), file.resolve().parent)
    text = new_game_text(ref, names, opts, dealer, money, title)
    read_game(text, file, file.resolve().parent)  # the new file must load as it will be read
    write_new(file, text.encode("utf-8"), force)
    return rules
