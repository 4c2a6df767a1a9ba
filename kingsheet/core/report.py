"""What the verifier returns: each row with its problems, the totals, and the whole report."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kingsheet.core.game import Deal, GameFile
from kingsheet.core.problems import Problem
from kingsheet.core.record import Record


class Row(Record):
    deal: Deal
    game_id: str | None
    cells: tuple[int, ...] | None
    expected: int | None  # the row's total («Очки»)
    dealer: str
    declarer: str | None
    problems: tuple[Problem, ...]

    @property
    def ok(self) -> bool:
        return not self.problems


class Totals(Record):
    minus: int
    plus: int

    @property
    def total(self) -> int:
        return self.minus + self.plus


class Report(Record):
    game: GameFile
    rows: tuple[Row, ...]
    problems: tuple[Problem, ...]
    totals: Mapping[str, Totals]
    expected: Totals  # what ИТОГО (−) and ИТОГО (+) of the table should be when complete
    complete: bool
    ended_at: int | None = None  # a game played to a limit: the deal that ended it

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def sums(self) -> Totals:
        return Totals(sum(t.minus for t in self.totals.values()), sum(t.plus for t in self.totals.values()))

    def leader(self) -> list[str]:
        if not self.totals:
            return []
        best = max(t.total for t in self.totals.values())
        return [p for p, t in self.totals.items() if t.total == best]

    def as_json(self) -> dict[str, Any]:
        sums = self.sums
        return {
            "file": str(self.game.path) if self.game.path else None,
            "rules": self.game.rules.id,
            "ok": self.ok,
            "complete": self.complete,
            "errors": [p.as_json() for p in self.problems],
            "players": list(self.game.players),
            "totals": {p: {"minus": t.minus, "plus": t.plus, "total": t.total} for p, t in self.totals.items()},
            "sums": {"minus": sums.minus, "plus": sums.plus, "total": sums.total},
            "expected": {"minus": self.expected.minus, "plus": self.expected.plus,
                         "total": self.expected.total},
        }
