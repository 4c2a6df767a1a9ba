"""Load any sheet a user may hand us: a game file, or (via importers) a filled XLSX or CSV."""

from __future__ import annotations

from pathlib import Path

from kingsheet.core.game import GameFile
from kingsheet.core.i18n import _
from kingsheet.core.problems import InputError
from kingsheet.files.gamefile import load_game


def load_any(path: Path, rules_ref: str | None = None) -> GameFile:
    """``rules_ref`` is for sheets that do not say which rules they follow."""
    suffix = path.suffix.lower()
    if suffix in (".xlsx", ".xlsm"):
        from kingsheet.files.importers.xlsx import read_xlsx

        return read_xlsx(path, rules_ref)
    if suffix == ".csv":
        from kingsheet.files.importers.csv import read_csv

        return read_csv(path, rules_ref)
    if suffix and suffix != ".toml":
        raise InputError(_("{path}: not a game file (.toml), a workbook (.xlsx) or a .csv").format(path=path))
    return load_game(path)
