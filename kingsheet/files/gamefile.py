"""The game file on disk (docs/game-file.md): read its text, bounded, into a GameFile."""

from __future__ import annotations

import re
import stat
from pathlib import Path
from typing import Any

from kingsheet.core.game import DEAL_MARGIN, GameFile, build_game
from kingsheet.core.i18n import _
from kingsheet.core.problems import InputError
from kingsheet.core.rules import MAX_DEALS
from kingsheet.core.tomltext import TomlProblem, parse
from kingsheet.files.templates import rules_beside

MAX_FILE_BYTES = 4 * 1024 * 1024


#: No rules have more deals than this, and a file is read to at most twice its rules' deals.
MOST_DEALS = DEAL_MARGIN * MAX_DEALS + 8
_DEAL_HEADER = re.compile(r"^[ \t]*\[\[[ \t]*deals[ \t]*\]\]", re.M)


def read_game(text: str, path: Path | None = None, base_dir: Path | None = None,
              parsed: dict[str, Any] | None = None) -> GameFile:
    """The game a file's text holds; ``parsed``: that text already parsed (the club reads each file
    once)."""
    where = str(path) if path else "game"
    # counted before parsing: a file of tens of thousands of deals is refused at once
    headers = sum(1 for _m in _DEAL_HEADER.finditer(text))
    if headers > MOST_DEALS:
        raise InputError(_("{where}: {deals} deals, more than any rules have; at most {most} are read").format(
            where=where, deals=headers, most=MOST_DEALS))
    try:
        raw = parse(text) if parsed is None else parsed
    except TomlProblem as exc:
        raise InputError(f"{where}: {exc}") from None
    return build_game(raw, where, path, rules_beside(base_dir))


def read_bounded(path: Path, limit: int, what: str | None = None) -> bytes:
    """The bytes of a regular file a user named, never more than ``limit`` (a device, a FIFO or a
    folder is refused before anything is read: /dev/zero has a size of 0 and no end)."""
    what = what or _("game file")
    try:
        info = path.stat()
    except FileNotFoundError:
        raise InputError(_("{path}: no such file").format(path=path)) from None
    except OSError as exc:
        raise InputError(_("{path}: cannot read ({strerror})").format(path=path, strerror=exc.strerror)) from None
    if stat.S_ISDIR(info.st_mode):
        raise InputError(_("{path}: is a folder, not a {what}").format(path=path, what=what))
    if not stat.S_ISREG(info.st_mode):
        raise InputError(_("{path}: not a regular file (a device or a pipe), so not a {what}").format(path=path, what=what))
    if info.st_size > limit:
        raise InputError(_("{path}: {st_size} bytes is too large for a {what} (at most {value} KiB)").format(path=path, st_size=info.st_size, what=what, value=limit // 1024))
    try:
        with path.open("rb") as fh:
            data = fh.read(limit + 1)
    except OSError as exc:
        raise InputError(_("{path}: cannot read ({strerror})").format(path=path, strerror=exc.strerror)) from None
    if len(data) > limit:  # it grew since stat
        raise InputError(_("{path}: larger than {value} KiB; not a {what}").format(path=path, value=limit // 1024, what=what))
    return data


def read_text(path: Path, encoding: str = "utf-8") -> str:
    """A text file a user gave us (game file, CSV), or one plain sentence saying why not. A UTF-8
    byte order mark, as some editors write one, is dropped."""
    data = read_bounded(path, MAX_FILE_BYTES)
    try:
        return data.decode("utf-8-sig" if encoding == "utf-8" else encoding)
    except UnicodeDecodeError:
        raise InputError(_("{path}: not UTF-8 text").format(path=path)) from None


def load_game(path: Path) -> GameFile:
    return read_game(read_text(path), path, path.parent)
