"""One table of the files a filled sheet can be written as: the suffix, its media type, and the
function (imported only when used) that makes its bytes. Read by `kingsheet export`, the phone page
of `serve` and the phone app."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from kingsheet.core.record import Record

if TYPE_CHECKING:
    from kingsheet.core.money import Settlement
    from kingsheet.core.report import Report


class Format(Record):
    suffix: str
    media: str
    write: Callable[[Report, Settlement | None, str], bytes]


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
    Format(".json", "application/json", _json),
)}

#: What a filled sheet made elsewhere may be brought in as (besides a game file, .toml).
IMPORTS = (".xlsx", ".xlsm", ".csv")


def exported(report: Report, suffix: str, lang: str) -> bytes:
    """The sheet of ``report`` as a file of the given suffix (one of EXPORTS), with its money."""
    from kingsheet.core.money import settlement_of

    return EXPORTS[suffix].write(report, settlement_of(report), lang)
