"""Changes to a game file on disk: check first, then save atomically under the lock.

A change that makes its own deal fail a check is refused and nothing is written, unless the
caller forces it, in which case the deal is saved marked ``forced = true``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from kingsheet.core.i18n import _
from kingsheet.core.problems import InputError, Problem
from kingsheet.core.record import Record
from kingsheet.core.report import Report
from kingsheet.core.tomltext import parse
from kingsheet.core.verify import verify
from kingsheet.files.edits import append_deal, append_deals, remove_last, replace_deal
from kingsheet.files.gamefile import read_game, read_text
from kingsheet.files.storage import atomic_write, check_writable, locked, real_game_path


class Refused(Exception):
    def __init__(self, problems: list[Problem], report: Report) -> None:
        super().__init__(_("the deal does not add up"))
        self.problems = problems
        self.report = report


class Stale(InputError):
    """The sheet changed after the screen that asked for this change last saw it (another phone or
    a terminal wrote first): nothing was written."""

    def __init__(self, seen: int, now: int, number: int | None) -> None:
        if number is not None and now >= number:
            text = _("deal {number} was entered meanwhile on another phone or terminal; nothing was written. "
                     "Look at the sheet, then enter the next deal").format(number=number)
        else:
            text = _("the sheet changed meanwhile (it has {now} deals, this screen saw {seen}); nothing was "
                     "written. Look at the sheet and try again").format(now=now, seen=seen)
        super().__init__(text)
        self.seen, self.now = seen, now


class Change(Record):
    report: Report
    number: int  # the deal that was added, edited or removed


def _apply(path: Path, change: Callable[[str, bool], tuple[str, int]], force: bool, seen: int | None = None,
           adding: bool = False) -> Change:
    """``change(text, forced)`` returns the new text and the number of the deal it touched.

    ``seen``: the number of deals the caller's screen showed; when the file holds another number
    (someone else wrote first), :class:`Stale` is raised under the lock and nothing is written."""
    if not path.name or path.is_dir():
        raise InputError(_("'{path}' is a folder, not a game file").format(path=path))
    read_text(path)  # a regular file that is there, before any lock file is made beside it
    path = real_game_path(path)
    check_writable(path)
    with locked(path):
        _sweep(path)
        text = read_text(path)
        read_game(text, path, path.parent)  # the file as it is must be usable
        if seen is not None and (now := _count(text)) != seen:
            raise Stale(seen, now, seen + 1 if adding else None)
        new_text, number = change(text, False)
        after = verify(read_game(new_text, path, path.parent))
        own = [p for p in after.problems if p.deal == number]
        if own and not force:
            raise Refused(own, after)
        if own:
            new_text, _unused = change(text, True)
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


def add_deal(path: Path, fields: Mapping[str, Any], force: bool = False, seen: int | None = None) -> Change:
    def change(text: str, forced: bool) -> tuple[str, int]:
        return append_deal(text, {**fields, "forced": forced}), _count(text) + 1

    return _apply(path, change, force, seen, adding=True)


def add_deals(path: Path, many: Sequence[Mapping[str, Any]], seen: int | None = None) -> Change:
    """Several deals at the end at once (the rows of a photographed blank), written as they are:
    each carries its own marks (``confirm``, ``forced``) from where it was read, and what the sheet
    then checks to is reported by ``check``, not refused here."""
    def change(text: str, forced: bool) -> tuple[str, int]:
        return append_deals(text, many), _count(text) + len(many)

    return _apply(path, change, True, seen, adding=True)


def edit_deal(path: Path, number: int, fields: Mapping[str, Any], force: bool = False,
              seen: int | None = None) -> Change:
    def change(text: str, forced: bool) -> tuple[str, int]:
        return replace_deal(text, number, {**fields, "forced": forced}), number

    return _apply(path, change, force, seen)


def undo_deal(path: Path, seen: int | None = None) -> Change:
    def change(text: str, forced: bool) -> tuple[str, int]:
        return remove_last(text)

    return _apply(path, change, True, seen)
