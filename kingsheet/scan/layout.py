"""The printed blank's layout for the reader, measured once per rules and kept on disk: a `scan`
then never loads reportlab nor builds the blank (about 0.25 s a command on this project's machine).

The layout is measured by drawing the blank (render.pdf) and kept in kingsheet's cache folder
under a key of everything the drawing depends on: the rules (their template file and its
contents' stamp, the options), the layout and language, the sources of the package's sheets, its
catalogs and fonts, and reportlab's own files. A layout kept under another key is never used; one
that cannot be read is measured again; a cache that cannot be written is done without. (A page's
printed lines are checked against the layout before any cell is read: page.lines_in_place.)
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
from functools import cache
from pathlib import Path
from typing import Any

from kingsheet.core.rules import Rules
from kingsheet.render.layout import DealBoxes, Layout

_KEPT: dict[tuple[Any, ...], Layout] = {}


def blank_layout(rules: Rules, named: bool, lang: str) -> Layout:
    """The blank of ``rules`` as printed with names or a row to write them, in ``lang``."""
    key = (rules.key, named, lang)
    if key not in _KEPT:
        if len(_KEPT) >= 32:
            _KEPT.clear()
        _KEPT[key] = _from_disk(rules, named, lang)
    return _KEPT[key]


def _from_disk(rules: Rules, named: bool, lang: str) -> Layout:
    folder = cache_folder()
    digest = hashlib.sha256(repr((rules.key, named, lang, _drawing_stamp())).encode()).hexdigest()[:32]
    path = folder / f"{digest}.json" if folder is not None else None
    if path is not None:
        kept = _read(path)
        if kept is not None:
            return kept
    from kingsheet.render.pdf import measured_layout

    layout = measured_layout(rules, named, lang)
    if path is not None:
        _write(path, layout)
    return layout


def cache_folder() -> Path | None:
    """Where layouts are kept (KINGSHEET_CACHE, else the user's cache folder); None: not kept."""
    import os

    given = os.environ.get("KINGSHEET_CACHE")
    if given == "":
        return None
    if given:
        return Path(given) / "layouts"
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("kingsheet", appauthor=False)) / "layouts"


@cache
def _drawing_stamp() -> tuple[Any, ...]:
    """What the blank's drawing depends on besides the rules: the sheets' sources, the catalogs
    and fonts (their size and time), and reportlab's files (its version is in them)."""
    package = Path(__file__).resolve().parent.parent
    stamps: list[Any] = [hashlib.sha256(b"".join(p.read_bytes() for p in sorted((package / "render").glob("*.py"))))
                         .hexdigest()]
    for p in sorted([*(package / "locale").glob("*/LC_MESSAGES/*.mo"), *(package / "fonts").glob("*")]):
        st = p.stat()
        stamps.append((p.name, st.st_size, st.st_mtime_ns))
    spec = importlib.util.find_spec("reportlab")
    if spec is not None and spec.origin:
        st = Path(spec.origin).stat()
        stamps.append((spec.origin, st.st_size, st.st_mtime_ns))
    return tuple(stamps)


def _read(path: Path) -> Layout | None:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        deals = {int(k): _boxes(v) for k, v in raw["deals"].items()}
        return Layout(deals, [_boxes(v) for v in raw["totals"]], int(raw["pages"]))
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        return None


def _boxes(raw: Any) -> DealBoxes:
    def box(b: Any) -> tuple[float, float, float, float]:
        left, top, right, bottom = (float(v) for v in b)
        return left, top, right, bottom

    return DealBoxes(int(raw[0]), [box(b) for b in raw[1]], box(raw[2]))


def _write(path: Path, layout: Layout) -> None:
    import contextlib

    from kingsheet.core.problems import Unusable
    from kingsheet.files.storage import atomic_write

    data = {"deals": {str(k): list(v) for k, v in layout.deals.items()}, "totals": [list(v) for v in layout.totals],
            "pages": layout.pages}
    with contextlib.suppress(OSError, Unusable):  # a cache that cannot be written is done without
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, json.dumps(data).encode("utf-8"))
