"""Problems are values: every check returns them, nothing raises for a bad sheet."""

from __future__ import annotations

import unicodedata
from typing import Any, NamedTuple


class Problem(NamedTuple):
    code: str
    deal: int | None
    game: str | None
    player: str | None
    expected: Any
    actual: Any
    message: str

    def as_json(self) -> dict[str, Any]:
        return self._asdict()


class Unusable(Exception):
    """kingsheet cannot go on (exit 2); the message is one line that says where and what."""

    def __init__(self, message: str) -> None:
        super().__init__(one_line(message))


class InputError(Unusable):
    """Unusable input: an unreadable file, unknown rules, a bad option or argument."""


class StorageError(Unusable):
    """The disk or the lock failed: a full disk, a folder that cannot be written, a lock not had.
    Nothing was written."""


# Characters that would break a message across lines or turn the text around it on a terminal
_HIDDEN = {0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069,
           0x2028, 0x2029}  # direction marks, and the line and paragraph separators


# Characters that print as nothing and are letters to Unicode (a name «Аня» with one inside would
# be another player who prints the same): the Hangul fillers and the blank Braille pattern
_BLANK = {0x115F, 0x1160, 0x3164, 0xFFA0, 0x2800}
_BLANK_CHARS = frozenset(map(chr, _BLANK))


def hidden(ch: str) -> bool:
    """A character that breaks a line, turns the text around it or prints as nothing: the C0 and
    C1 controls, every format character (direction marks and overrides, zero-width spaces and
    joiners, the soft hyphen, the word joiner, a byte order mark), the line and paragraph
    separators, and the letters that print blank."""
    code = ord(ch)
    if code < 32 or 127 <= code < 160 or code in _HIDDEN:
        return True
    return code >= 0xAD and (code in _BLANK or unicodedata.category(ch) == "Cf")


def first_hidden(text: str) -> str | None:
    """The first character of ``text`` that ``hidden`` finds; None for clean text. Every hidden
    character but the blank letters is one ``str.isprintable`` refuses, so printable text is passed
    without a scan of its own."""
    if text.isprintable() and _BLANK_CHARS.isdisjoint(text):
        return None
    return next((ch for ch in text if hidden(ch)), None)


def one_line(text: str, limit: int = 400) -> str:
    """Untrusted text quoted in a message: one line, control and direction characters shown escaped."""
    if text.isprintable() and _BLANK_CHARS.isdisjoint(text):  # nothing to escape (a line break and every
        # other hidden character are not printable)
        return text if len(text) <= limit else text[: limit - 1] + "…"
    out = []
    for ch in text:
        code = ord(ch)
        if ch == "\n":
            out.append("\\n")
        elif hidden(ch):
            out.append(f"\\u{code:04x}")
        else:
            out.append(ch)
    line = "".join(out)
    return line if len(line) <= limit else line[: limit - 1] + "…"


def num(value: int | float | str) -> str:
    """A number as a person writes it in a cell of the sheet: a real minus sign (gains have none)."""
    if isinstance(value, str):
        return value
    return f"−{-value}" if value < 0 else str(value)
