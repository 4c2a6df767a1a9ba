"""Games played to a limit (Tier 2): each deal checked against the deck, the end found, lowest wins."""

from __future__ import annotations

import pytest

from conftest import EXAMPLES, deal, game_text
from kingsheet.cli.app import app
from kingsheet.core.feasibility import cards_possible
from kingsheet.core.verify import verify
from kingsheet.files.gamefile import load_game, read_game
from kingsheet.files.templates import load_rules


def report(rules: str, deals: str):
    return verify(read_game(game_text(rules, deals=deals)))


def codes(rep) -> list[tuple[str, int | None, str | None]]:
    return [(p.code, p.deal, p.player) for p in rep.problems]


def test_domino_ends_at_31_and_lowest_wins():
    rows = [[-8, 0, 0, 0], [-8, 0, 0, 0], [-8, 0, 0, 0], [-4, -2, -2, 0], [-5, -1, -1, -1]]
    rep = report("domino", "".join(deal("penalty", r) for r in rows))
    assert rep.problems == () and rep.complete and rep.ended_at == 5  # Аня: −8·3 −4 −5 = −33
    assert rep.leader() == ["Галя"]
    rep = report("domino", "".join(deal("penalty", r) for r in [*rows, [-2, -2, -2, -2]]))
    assert codes(rep) == [("extra-deal", 6, None)]
    assert "the game ended at deal 5" in rep.problems[0].message
    rep = report("domino", deal("Черви", [-4, -2, -2, 0]) + deal("penalty", [-4, -2, -1, 0]))
    assert codes(rep) == [("row-sum", 2, None)] and not rep.complete


def test_jokers_each_cell_is_a_set_of_cards():
    rules = load_rules("jokers")
    assert rules.games["penalty"].total == -124 and rules.stage_total(0) == -496
    assert cards_possible(rules, "penalty", [-20, -14, -13, -77])
    assert not cards_possible(rules, "penalty", [-2, -2, -60, -60])  # only the two of hearts is worth 2
    rep = report("jokers", deal("penalty", [-1, -20, -30, -73]))
    assert ("cell-impossible", 1, "Аня") in codes(rep)
    rep = report("jokers", deal("penalty", [-2, -2, -60, -60]))
    assert codes(rep) == [("cell-impossible", 1, None)]
    assert "no split of the cards gives these cells" in rep.problems[0].message


def test_omnibus_moon_and_ten_of_diamonds():
    rep = report("omnibus", deal("penalty", [26, 0, 0, 0]))
    assert rep.problems == () and rep.rows[0].expected == 26
    rep = report("omnibus", deal("penalty", [-13, -13, 10, 0]))  # Q♠; all thirteen hearts; 10♦
    assert rep.problems == ()
    rep = report("omnibus", deal("penalty", [11, -27, 0, 0]))
    assert ("cell-impossible", 1, "Аня") in codes(rep)
    rep = report("omnibus", deal("penalty", [26, 0, 0, -1]))
    assert ("row-sum", 1, None) in codes(rep)


def test_bidding_77_needs_the_suit_and_the_bid():
    rep = report("bidding-77", deal("penalty", [-5, -3, -4, -4], declarer="Аня", bid=3, contract="пики"))
    assert rep.problems == () and rep.rows[0].expected == -16
    rep = report("bidding-77", deal("penalty", [-5, -3, -4, -4], declarer="Аня", bid=3))
    assert codes(rep) == [("contract", 1, None)]
    rep = report("bidding-77", deal("penalty", [-5, -3, -4, -4], contract="трефы"))
    assert codes(rep) == [("bid", 1, None)]
    rep = report("bidding-77", deal("penalty", [-18, 0, 0, 2], declarer="Боря", bid=0, contract="♥"))
    assert ("cell-range", 1, "Аня") in codes(rep) and ("cell-sign", 1, "Галя") in codes(rep)


@pytest.mark.parametrize("tid", ["domino", "jokers", "bidding-77", "omnibus"])
def test_example_games_end_properly(tid):
    rep = verify(load_game(EXAMPLES / f"{tid}.toml"))
    assert rep.ok and rep.complete
    if rep.game.rules.limit:
        assert min(t.total for t in rep.totals.values()) <= -rep.game.rules.limit
        assert rep.ended_at == len(rep.rows)


def test_cli_at_the_table_to_a_limit(runner, tmp_path):
    path = tmp_path / "d.toml"
    assert runner.invoke(app, ["new", str(path), "--rules", "domino", "--players", "Аня,Боря,Вася,Галя"]).exit_code == 0
    for _ in range(3):
        res = runner.invoke(app, ["deal", "-8", "0", "0", "0"])
        assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["deal", "-7", "-1", "0", "0"])
    assert res.exit_code == 0 and "the sheet is complete" in res.stdout
    res = runner.invoke(app, ["deal", "penalty", "-8", "0", "0", "0"])
    assert res.exit_code == 1 and "the game ended at deal 4" in res.stderr
    res = runner.invoke(app, ["show", str(path)])
    assert "Σ Аня" in res.stdout and "the game ended at deal 4 (−31 reached)" in res.stdout
    assert "fewest minus points: Вася, Галя" in res.stdout


def test_limit_blank_is_a_long_lined_form(tmp_path, runner):
    from io import BytesIO

    from openpyxl import load_workbook

    out = tmp_path / "d.xlsx"
    assert runner.invoke(app, ["blank", "--rules", "omnibus", "-o", str(out), "--lang", "ru"]).exit_code == 0
    ws = load_workbook(BytesIO(out.read_bytes())).worksheets[0]
    heads = [ws.cell(5, c).value for c in range(1, 16)]
    assert heads[:8] == ["№", "Игра", "Очки", "Игрок 1", "Игрок 2", "Игрок 3", "Игрок 4", "Σ Игрок 1"]
    assert ws.cell(35, 1).value == 30 and ws.cell(36, 2).value == "ИТОГО"
    assert ws["H6"].value.startswith('=IF(COUNT(') and "SUM(D$6:D6)" in ws["H6"].value
