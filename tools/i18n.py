"""The message catalogs: gather the English strings from the code, keep the Russian in step, compile.

    python tools/i18n.py update    # kingsheet/locale/ru/LC_MESSAGES/kingsheet.po gains new strings, loses gone ones
    python tools/i18n.py compile   # ... and kingsheet.mo, the file the package reads
    python tools/i18n.py missing   # the strings still without Russian

Needs Babel (``pip install -e .[dev]``); the installed package needs only the .mo.
"""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from io import BytesIO
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "kingsheet"
PO = PACKAGE / "locale" / "ru" / "LC_MESSAGES" / "kingsheet.po"
MO = PO.with_suffix(".mo")
FIXED = datetime(2026, 1, 1, tzinfo=UTC)  # dates in the header would change the file at every run
KEYWORDS = {"_": None, "N_": None, "ngettext": (1, 2), "pgettext": ((1, "c"), 2), "NP_": ((1, "c"), 2)}


def extracted() -> Catalog:
    template = Catalog(project="kingsheet", domain="kingsheet", creation_date=FIXED)
    for filename, lineno, message, comments, context in extract_from_dir(
            str(PACKAGE), method_map=[("**.py", "python")], keywords=KEYWORDS, comment_tags=("i18n:",)):
        template.add(message, locations=[(f"kingsheet/{filename}", lineno)], auto_comments=comments, context=context)
    return template


def current() -> Catalog:
    if PO.exists():
        with PO.open("rb") as f:
            return read_po(f, locale="ru", domain="kingsheet")
    return Catalog(locale="ru", domain="kingsheet", project="kingsheet", creation_date=FIXED)


def update() -> Catalog:
    cat = current()
    cat.update(extracted(), no_fuzzy_matching=True)
    cat.obsolete.clear()
    cat.fuzzy = False
    cat.revision_date = FIXED
    cat.msgid_bugs_address = ""
    cat.last_translator = "kingsheet authors"
    cat.language_team = "kingsheet authors"
    buf = BytesIO()
    write_po(buf, cat, width=110, omit_header=False, sort_output=False, include_previous=False)
    PO.parent.mkdir(parents=True, exist_ok=True)
    PO.write_bytes(buf.getvalue())
    return cat


def compiled() -> bytes:
    buf = BytesIO()
    write_mo(buf, current(), use_fuzzy=False)
    return buf.getvalue()


def missing(cat: Catalog) -> list[str]:
    out = []
    for m in cat:
        if not m.id:
            continue
        strings = m.string if isinstance(m.string, tuple) else (m.string,)
        if not all(strings) or m.fuzzy:
            out.append(m.id if isinstance(m.id, str) else m.id[0])
    return out


def main(argv: list[str]) -> int:
    what = argv[0] if argv else "compile"
    if what == "update":
        cat = update()
        print(f"{PO.relative_to(ROOT)}: {len(cat) - 1} strings, {len(missing(cat))} without Russian")
    elif what == "compile":
        cat = update()
        MO.write_bytes(compiled())
        print(f"{MO.relative_to(ROOT)}: {len(cat) - 1} strings, {len(missing(cat))} without Russian")
    elif what == "missing":
        for m in missing(current()):
            print(repr(m))
    else:
        print(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
