"""Names that print alike: «Аня» written with a Cyrillic А, with a Latin A, or a Greek Α are three
strings and, to a club, three players. Each name is brought to a skeleton (Unicode TS #39's idea,
for the letters of the Latin, Cyrillic and Greek scripts that look the same in print, and the
digits 0 and 1 beside O and l), and names of one skeleton are said as probably one person.

Pure Python and a small table: the club runs in the phone's browser too.
"""

from __future__ import annotations

import unicodedata
from collections import defaultdict
from collections.abc import Iterable

from kingsheet.core.i18n import _

# each letter that looks like another is written as the one it looks like (Latin where there is one)
_SAME = {
    # Cyrillic
    "а": "a", "е": "e", "ё": "ë", "і": "i", "ї": "ï", "ј": "j", "о": "o", "р": "p", "с": "c", "у": "y", "х": "x",
    "ѕ": "s", "ԁ": "d", "ԛ": "q", "ԝ": "w", "һ": "h", "ӏ": "l", "ү": "y",
    "А": "A", "В": "B", "Е": "E", "Ё": "Ë", "З": "3", "І": "l", "Ї": "Ï", "Ј": "J", "К": "K", "М": "M", "Н": "H",
    "О": "O", "Р": "P", "С": "C", "Т": "T", "У": "Y", "Х": "X", "Ѕ": "S", "Ԛ": "Q", "Ԝ": "W", "Һ": "H", "Ӏ": "l",
    "Ү": "Y", "Ь": "b",
    # Greek
    "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "l", "Κ": "K", "Μ": "M", "Ν": "N", "Ο": "O", "Ρ": "P",
    "Τ": "T", "Υ": "Y", "Χ": "X", "ο": "o", "ν": "v", "ρ": "p", "ι": "i", "α": "a", "υ": "u",
    # Latin and digits among themselves
    "I": "l", "1": "l", "|": "l", "0": "O",
}


def skeleton(name: str) -> str:
    """What ``name`` looks like in print: compatibility forms folded (NFKC: ﬁ, full-width letters),
    accents kept, each look-alike letter written as the one it looks like, any run of spaces one."""
    text = unicodedata.normalize("NFKC", name)
    out: list[str] = []
    for ch in text:
        if ch.isspace():
            if out and out[-1] != " ":
                out.append(" ")
            continue
        out.append(_SAME.get(ch, ch))
    return "".join(out).strip()


def _script(ch: str) -> str:
    word = unicodedata.name(ch, "").split(" ", 1)[0]
    return {"LATIN": _("Latin"), "CYRILLIC": _("Cyrillic"), "GREEK": _("Greek"),
            "DIGIT": _("the digit")}.get(word, f"U+{ord(ch):04X}")


def _mixed(name: str) -> int:
    """How many scripts a name's letters are of, past one (a name all of one script comes first)."""
    return len({unicodedata.name(ch, "?").split(" ", 1)[0] for ch in name if ch.isalpha()}) - 1


def lookalikes(names: Iterable[str]) -> list[str]:
    """One sentence for each group of names that differ but print alike, with the alias line of
    club.toml that would join them; the names as the club has them."""
    groups: dict[str, set[str]] = defaultdict(set)
    for n in names:
        groups[skeleton(n)].add(n)
    out = []
    for group in sorted((sorted(g, key=lambda n: (_mixed(n), n)) for g in groups.values() if len(g) > 1),
                        key=lambda g: g[0]):
        first = group[0]
        for other in group[1:]:
            where = next((k for k, (a, b) in enumerate(zip(first, other)) if a != b), min(len(first), len(other)))
            a, b = first[where:where + 1], other[where:where + 1]
            how = (_("{b} has {script_b} «{cb}» where {a} has {script_a} «{ca}»").format(
                a=f"«{first}»", b=f"«{other}»", script_a=_script(a), ca=a, script_b=_script(b), cb=b)
                if a and b else _("they differ only in how a character is encoded"))
            out.append(_("«{a}» and «{b}» print alike and are probably one person ({how}); to count them as one, "
                         "add to club.toml: aliases = [\"{a} = {b}\"]").format(a=first, b=other, how=how))
    return out
