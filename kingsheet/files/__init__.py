"""Game files and sheets on disk: reading, editing, saving, importing. Imports core and files."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

#: Told when another process holds a game's lock (the command line says so on stderr). Here, not in
#: storage, so that setting it at start-up does not import what saving needs.
on_wait: Callable[[Path], None] | None = None
