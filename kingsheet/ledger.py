"""Changes to a game file on disk: check first, then save atomically under the lock.

A change that makes its own deal fail a check is refused and nothing is written, unless the
caller forces it, in which case the deal is saved marked ``forced = true``.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .gamefile import read_game, read_text
from .problems import InputError, Problem
from .scorebook import append_deal, remove_last, replace_deal
from .storage import atomic_write, locked
from .tomltext import parse
from .verify import Report, verify


class Refused(Exception):
    def __init__(self, problems: list[Problem], report: Report) -> None:
        super().__init__("the deal does not add up")
        self.problems = problems
        self.report = report


@dataclass(frozen=True)
class Change:
    report: Report
    number: int  # the deal that was added, edited or removed


def state_dir() -> Path:
    env = os.environ.get("KINGSHEET_STATE_DIR")
    if env:
        return Path(env)
    import platformdirs

    return Path(platformdirs.user_data_dir("kingsheet", appauthor=False))


def remember_current(path: Path) -> None:
    folder = state_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        atomic_write(folder / "current", str(path.resolve()).encode("utf-8"))
    except (OSError, InputError):
        pass  # remembering is a convenience; the game file itself is what matters


def current_game() -> Path:
    env = os.environ.get("KINGSHEET_FILE")
    if env:
        return Path(env)
    try:
        return Path((state_dir() / "current").read_text(encoding="utf-8").strip())
    except OSError:
        raise InputError("no current game: give the game file, or start one with 'kingsheet new'") from None


def _apply(path: Path, change: Callable[[str, bool], tuple[str, int]], force: bool) -> Change:
    """``change(text, forced)`` returns the new text and the number of the deal it touched."""
    if not path.name or path.is_dir():
        raise InputError(f"'{path}' is a folder, not a game file")
    with locked(path):
        _sweep(path)
        text = read_text(path)
        read_game(text, path, path.parent)  # the file as it is must be usable
        new_text, number = change(text, False)
        after = verify(read_game(new_text, path, path.parent))
        own = [p for p in after.problems if p.deal == number]
        if own and not force:
            raise Refused(own, after)
        if own:
            new_text, _ = change(text, True)
        atomic_write(path, new_text.encode("utf-8"))
        return Change(after, number)


def _sweep(path: Path) -> None:
    """Remove temporary files a killed save left behind (we hold the lock: no save is under way)."""
    for leftover in path.parent.glob(f".{path.name}.*.tmp"):
        with contextlib.suppress(OSError):
            leftover.unlink()


def _count(text: str) -> int:
    deals = parse(text).get("deals", [])
    return len(deals) if isinstance(deals, list) else 0


def add_deal(path: Path, fields: Mapping[str, Any], force: bool = False) -> Change:
    def change(text: str, forced: bool) -> tuple[str, int]:
        return append_deal(text, {**fields, "forced": forced}), _count(text) + 1

    return _apply(path, change, force)


def edit_deal(path: Path, number: int, fields: Mapping[str, Any], force: bool = False) -> Change:
    def change(text: str, forced: bool) -> tuple[str, int]:
        return replace_deal(text, number, {**fields, "forced": forced}), number

    return _apply(path, change, force)


def undo_deal(path: Path) -> Change:
    def change(text: str, forced: bool) -> tuple[str, int]:
        return remove_last(text)

    return _apply(path, change, True)
