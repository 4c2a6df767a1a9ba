"""The current game: the file `new` made last, remembered in the user data folder."""

from __future__ import annotations

import os
from pathlib import Path

from kingsheet.core.i18n import _
from kingsheet.core.problems import InputError, StorageError, first_hidden
from kingsheet.files.storage import atomic_write

MAX_POINTER_BYTES = 4096  # a path


def state_dir() -> Path:
    env = os.environ.get("KINGSHEET_STATE_DIR")
    if env:
        return Path(env)
    import platformdirs

    return Path(platformdirs.user_data_dir("kingsheet", appauthor=False))


def remember_current(path: Path) -> str | None:
    """Make ``path`` the current game; returns why it could not be, or None. The game file itself
    is what matters, so the caller says so and goes on."""
    folder = state_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        atomic_write(folder / "current", str(path.resolve()).encode("utf-8"))
    except OSError as exc:
        return f"{folder}: {exc.strerror}"
    except StorageError as exc:
        return str(exc)
    return None


def current_game() -> Path:
    env = os.environ.get("KINGSHEET_FILE")
    if env:
        return Path(env)
    from kingsheet.files.gamefile import read_bounded

    pointer = state_dir() / "current"
    if not os.path.lexists(pointer):
        raise InputError(_("no current game: give the game file, or start one with 'kingsheet new'"))
    # read as every other file is: a regular file only, and only as much as a path can be
    data = read_bounded(pointer, MAX_POINTER_BYTES, _("record of the current game"))
    try:
        text = data.decode("utf-8").strip()
    except UnicodeDecodeError:
        text = ""
    if not text or first_hidden(text) is not None:
        raise InputError(_("{path}: not a record of the current game; start one with 'kingsheet new'").format(
            path=pointer))
    return Path(text)
