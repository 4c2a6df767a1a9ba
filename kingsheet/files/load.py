"""Load any sheet a user may hand us: a game file, or (via importers) a filled XLSX or CSV."""

from __future__ import annotations

import os
from pathlib import Path

from kingsheet.core.game import GameFile
from kingsheet.core.i18n import _
from kingsheet.core.problems import InputError
from kingsheet.files.gamefile import load_game
from kingsheet.files.templates import is_template_path


def _xlsx(path: Path, rules_ref: str | None) -> GameFile:
    from kingsheet.files.importers.xlsx import read_xlsx

    return read_xlsx(path, rules_ref)


def _csv(path: Path, rules_ref: str | None) -> GameFile:
    from kingsheet.files.importers.csv import read_csv

    return read_csv(path, rules_ref)


#: A sheet filled elsewhere, by its suffix: the reader (imported only when used). The one list of
#: what `check`, `settle`, `import`, the page's file picker and the phone app take besides a .toml.
READERS = {".xlsx": _xlsx, ".xlsm": _xlsx, ".csv": _csv}


def load_any(path: Path, rules_ref: str | None = None) -> GameFile:
    """``rules_ref`` is for sheets that do not say which rules they follow."""
    suffix = path.suffix.lower()
    if suffix in READERS:
        return READERS[suffix](path, rules_ref)
    if suffix and suffix != ".toml":
        raise InputError(_("{path}: not a game file (.toml), a workbook (.xlsx) or a .csv").format(path=path))
    return load_game(path)


def game_file_text(game: GameFile, read_in: Path, written_in: Path) -> str:
    """A sheet read elsewhere (a workbook, a CSV) as the text of a game file to be written in the
    folder ``written_in``: a template the sheet names (relative to ``read_in``, where it was read)
    still resolves from there, and every game is named by its id, as kingsheet writes it."""
    from kingsheet.core.game import DEAL_FIELDS
    from kingsheet.files.edits import append_deals, new_game_text

    ref = game.rules_ref
    if is_template_path(ref) and not Path(ref).is_absolute():
        ref = os.path.relpath((read_in / ref).resolve(), written_in.resolve())
    text = new_game_text(ref, game.players, dict(game.rules.options), game.first_dealer, dict(game.money),
                         game.title, game.date)
    return append_deals(text, [{**{k: getattr(deal, k) for k in DEAL_FIELDS if k != "confirm"},
                                "game": game.rules.find_game(deal.game) or deal.game} for deal in game.deals])
