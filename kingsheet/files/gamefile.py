"""The game file on disk (docs/game-file.md): read its text, bounded, into a GameFile."""

from __future__ import annotations

from pathlib import Path

from kingsheet.core.game import GameFile, build_game
from kingsheet.core.problems import InputError
from kingsheet.core.tomltext import TomlProblem, parse

MAX_FILE_BYTES = 4 * 1024 * 1024


def read_game(text: str, path: Path | None = None, base_dir: Path | None = None) -> GameFile:
    where = str(path) if path else "game"
    try:
        raw = parse(text)
    except TomlProblem as exc:
        raise InputError(f"{where}: {exc}") from None
    return build_game(raw, where, path, base_dir)


def read_text(path: Path, encoding: str = "utf-8") -> str:
    """A text file a user gave us (game file, CSV), or one plain sentence saying why not."""
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise InputError(f"{path}: {size} bytes is too large for a game file")
        return path.read_text(encoding=encoding)
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a folder, not a game file") from None
    except UnicodeDecodeError:
        raise InputError(f"{path}: not UTF-8 text") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror})") from None


def load_game(path: Path) -> GameFile:
    return read_game(read_text(path), path, path.parent)
