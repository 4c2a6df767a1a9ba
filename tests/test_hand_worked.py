"""Expectations worked by hand, not by kingsheet: the sums, the halves and the money of a whole
evening (examples/hand-worked/blank-4.toml shows the arithmetic in its comments)."""

from __future__ import annotations

from decimal import Decimal

from conftest import ROOT
from kingsheet.core.money import settlement_of
from kingsheet.core.verify import verify
from kingsheet.files.gamefile import load_game

GAME = ROOT / "examples" / "hand-worked" / "blank-4.toml"


def test_the_evening_adds_up_as_worked_by_hand():
    report = verify(load_game(GAME))
    assert report.problems == () and report.complete
    assert {p: (t.minus, t.plus, t.total) for p, t in report.totals.items()} == {
        "Аня": (-46, 70, 24), "Боря": (-42, 32, -10), "Вася": (-58, 51, -7), "Галя": (-46, 39, -7)}
    assert [r.expected for r in report.rows] == [-16] * 6 + [-96, 96] + [24] * 4
    assert [r.declarer for r in report.rows[8:]] == ["Боря", "Вася", "Галя", "Аня"]


def test_the_money_as_worked_by_hand():
    s = settlement_of(verify(load_game(GAME)))
    assert s is not None
    assert s.balances == {"Аня": Decimal("48"), "Боря": Decimal("-20"), "Вася": Decimal("-14"), "Галя": Decimal("-14")}
    pairs = {(t.payer, t.payee): t.amount for t in s.pairs}
    assert pairs == {("Боря", "Аня"): Decimal("17"), ("Вася", "Аня"): Decimal("15.5"), ("Галя", "Аня"): Decimal("15.5"),
                     ("Боря", "Вася"): Decimal("1.5"), ("Боря", "Галя"): Decimal("1.5")}
    assert sorted((t.payer, t.amount) for t in s.transfers) == [
        ("Боря", Decimal("20")), ("Вася", Decimal("14")), ("Галя", Decimal("14"))]


def test_seed_000_pairwise_example():
    """Seed 000: totals A 100, B 70, C 65, D −20 → A wins 30 from B, 35 from C, 120 from D."""
    from kingsheet.core.money import settle

    s = settle({"A": 100, "B": 70, "C": 65, "D": -20}, Decimal(1), "RUB", "pairwise")
    pairs = {(t.payer, t.payee): t.amount for t in s.pairs}
    assert pairs[("B", "A")] == 30 and pairs[("C", "A")] == 35 and pairs[("D", "A")] == 120
