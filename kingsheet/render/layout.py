"""Where things are on a printed blank, as the photo reader needs it: without reportlab, which only
measuring the blank (render.pdf) needs."""

from __future__ import annotations

from typing import NamedTuple

from kingsheet.core.rules import Rules

Box = tuple[float, float, float, float]  # (left, top, right, bottom) in mm from the page's top left corner


class DealBoxes(NamedTuple):
    """Where one deal is written on the printed blank."""

    page: int
    cells: list[Box]  # a box per player
    game: Box  # «Игра»: handwritten on an ordered blank


class Layout(NamedTuple):
    """A printed blank measured: each deal's boxes by its number, the ИТОГО lines under them (−, +,
    all; none for a game to a limit) and how many pages it has."""

    deals: dict[int, DealBoxes]
    totals: list[DealBoxes]
    pages: int


def ordered_games(rules: Rules) -> list[str]:
    """The games of an ordered blank as its grid numbers them (from 1)."""
    return list(dict.fromkeys(rules.per_round))
