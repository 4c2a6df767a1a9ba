"""The tables of files kingsheet writes and reads, each read by every surface: a filled sheet
(EXPORTS: the suffix, its media type, the function, imported only when used, that makes its bytes,
and whether the phone page offers it as a download), an empty blank (BLANKS), and what a sheet made
elsewhere may be brought in as (IMPORTS, the readers of kingsheet.files.load). Read by `kingsheet
export`, `blank` and `import`, the phone page of `serve` and the phone app."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from kingsheet.core.record import Record
from kingsheet.files.load import READERS

if TYPE_CHECKING:
    from kingsheet.core.money import Settlement
    from kingsheet.core.report import Report
    from kingsheet.core.rules import Rules


class Format(Record):
    suffix: str
    media: str
    write: Callable[[Report, Settlement | None, str], bytes]
    download: bool = True  # the phone page's /download/{kind}


class Blank(Record):
    suffix: str
    write: Callable[[Rules, Sequence[str] | None, str, int, str | None], bytes]  # rules, names, lang, per page, stake
    per_page: bool = False  # takes --per-page 2


def _blank_pdf(rules: Rules, names: Sequence[str] | None, lang: str, per_page: int, stake: str | None) -> bytes:
    from kingsheet.render.pdf import blank_pdf

    return blank_pdf(rules, names, lang, per_page, stake)


def _blank_xlsx(rules: Rules, names: Sequence[str] | None, lang: str, per_page: int, stake: str | None) -> bytes:
    from kingsheet.render.xlsx import blank_xlsx

    return blank_xlsx(rules, names, lang, stake)


def _pdf(report: Report, money: Settlement | None, lang: str) -> bytes:
    from kingsheet.render.pdf import sheet_pdf

    return sheet_pdf(report, money, lang)


def _xlsx(report: Report, money: Settlement | None, lang: str) -> bytes:
    from kingsheet.render.xlsx import sheet_xlsx

    return sheet_xlsx(report, money, lang)


def _csv(report: Report, money: Settlement | None, lang: str) -> bytes:
    from kingsheet.files.importers.csv import write_csv

    return write_csv(report.game).encode("utf-8")


def _json(report: Report, money: Settlement | None, lang: str) -> bytes:
    import json

    obj = report.as_json()
    obj["settlement"] = money.as_json() if money else None
    return (json.dumps(obj, ensure_ascii=False, indent=2) + "\n").encode("utf-8")


EXPORTS = {f.suffix: f for f in (
    Format(".pdf", "application/pdf", _pdf),
    Format(".xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", _xlsx),
    Format(".csv", "text/csv; charset=utf-8", _csv),
    Format(".json", "application/json", _json, download=False),  # for programs, not for the table
)}

BLANKS = {b.suffix: b for b in (Blank(".pdf", _blank_pdf, per_page=True), Blank(".xlsx", _blank_xlsx))}

#: The phone page's downloads: the sheet as each format offered, and the game file itself.
DOWNLOADS = (*(f.suffix.lstrip(".") for f in EXPORTS.values() if f.download), "toml")

#: What a filled sheet made elsewhere may be brought in as (besides a game file, .toml).
IMPORTS = tuple(READERS)


def exported(report: Report, suffix: str, lang: str) -> bytes:
    """The sheet of ``report`` as a file of the given suffix (one of EXPORTS), with its money."""
    from kingsheet.core.money import settlement_of

    return EXPORTS[suffix].write(report, settlement_of(report), lang)
