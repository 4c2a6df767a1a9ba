"""Problems are values: every check returns them, nothing raises for a bad sheet."""

from __future__ import annotations

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


class InputError(Exception):
    """Unusable input (exit 2): an unreadable file, unknown rules, a bad option or argument."""


def num(value: int | float | str) -> str:
    """A number as a person writes it on the sheet: a real minus sign, a plus for gains."""
    if isinstance(value, str):
        return value
    return f"−{-value}" if value < 0 else str(value)
