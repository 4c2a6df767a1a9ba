"""Checking many files, in one process or several: each file's report as text and JSON."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kingsheet.core.problems import Unusable, one_line
from kingsheet.core.record import Record


class Checked(Record):
    path: str
    code: int  # 0 consistent, 1 problems, 2 unusable
    errors: tuple[str, ...]  # lines for stderr
    summary: str  # ИТОГО rows and the status line, for stdout
    report: dict[str, Any]  # the --json object (for an unusable file: file, ok = false, error)


def check_one(path: str, lang: str = "ru") -> Checked:
    from kingsheet.core.verify import verify
    from kingsheet.files.load import load_any
    from kingsheet.render.text import status_line, totals_block

    try:
        report = verify(load_any(Path(path)))
    except Unusable as exc:
        # the file still has its object in --json: which file, and why it could not be checked
        return Checked(path, 2, (f"kingsheet: {exc}",), "", {"file": path, "ok": False, "error": str(exc)})
    errors = tuple(one_line(f"{path}: {p.message}") for p in report.problems)
    summary = totals_block(report, lang) + "\n" + status_line(report)
    return Checked(path, 1 if report.problems else 0, errors, summary, report.as_json())


def check_many(paths: list[str], lang: str = "ru", jobs: int = 1) -> list[Checked]:
    """In file order; with ``jobs`` > 1 the files are shared among worker processes."""
    if jobs <= 1 or len(paths) < 2 * jobs:
        return [check_one(p, lang) for p in paths]
    from concurrent.futures import ProcessPoolExecutor
    from functools import partial

    chunk = max(1, min(256, len(paths) // (jobs * 4)))
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(partial(check_one, lang=lang), paths, chunksize=chunk))
