"""Verdicts a mutation run found no test holding (issue 65): each would let a wrong row pass, or a
row the checks refused show ✓."""

from __future__ import annotations

from conftest import EXAMPLES, deal, game_text
from kingsheet.core.verify import verify
from kingsheet.files.gamefile import load_game, read_game


def codes(report, number: int) -> list[str]:
    return [p.code for p in report.problems if p.deal == number]


def test_a_chosen_suit_row_must_sum_to_its_suit_and_bid():
    text = (EXAMPLES / "bidding-77.toml").read_text(encoding="utf-8")
    head, _sep, _rest = text.partition("[[deals]]")
    row = ('[[deals]]\ngame = "penalty"\norderer = "Вася"\ndeclarer = "Вася"\ncontract = "пики"\nbid = 1\n'
           "points = [0, 0, -1, -12]\n")  # 13 spades and the bid of 1 are −14; −13 is written
    report = verify(read_game(head + row))
    assert codes(report, 1) == ["row-sum"]
    assert "row sums to −13, expected −14" in report.problems[0].message
    fine = verify(read_game(head + row.replace("-12]", "-13]")))
    assert codes(fine, 1) == []


def test_a_buyer_or_a_price_alone_is_refused_where_the_rules_have_no_buyout():
    for extra in ({"buyer": "Аня"}, {"price": 1}, {"buyer": "Аня", "price": 1}):
        text = game_text("trump-48", deals=deal("trumps", [12, 6, 6, 0], declarer="Боря", **extra))
        report = verify(read_game(text))
        assert "buyout" in codes(report, 1), (extra, report.problems)
    plain = verify(read_game(game_text("trump-48", deals=deal("trumps", [12, 6, 6, 0], declarer="Боря"))))
    assert "buyout" not in codes(plain, 1)


def test_a_row_read_from_a_photo_and_not_confirmed_is_a_problem():
    text = (EXAMPLES / "blank-4.toml").read_text(encoding="utf-8")
    marked = text.replace("points = [-4, -6, -6, 0]", "points = [-4, -6, -6, 0]\nconfirm = true", 1)
    assert marked != text
    report = verify(read_game(marked))
    assert codes(report, 1) == ["to-confirm"] and not report.ok and not report.rows[0].ok


def test_a_row_with_a_sequence_problem_is_marked_on_its_row():
    report = verify(load_game(EXAMPLES / "mistakes" / "deals-swapped.toml"))
    marked = [r.deal.number for r in report.rows if not r.ok]
    assert marked and all(codes(report, n) for n in marked)
    assert set(marked) == {p.deal for p in report.problems if p.deal is not None}


def _house(tmp_path, source: str, edits: list[tuple[str, str]], tail: str = "") -> str:
    """A bundled template made into a house one with ``edits``; the loader's words about it."""
    from pathlib import Path

    from typer.testing import CliRunner

    from kingsheet.cli.app import app

    text = (Path(__file__).resolve().parent.parent / "templates" / f"{source}.toml").read_text(encoding="utf-8")
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new, 1)
    path = tmp_path / "house.toml"
    path.write_text(text.replace(f'id = "{source}"', 'id = "house"') + tail, encoding="utf-8")
    r = CliRunner().invoke(app, ["rules", "--check", str(path), "--lang", "en"])
    assert r.exit_code == 2, r.output  # the template does not load
    return r.output


def test_three_self_contradictory_templates_are_refused_in_one_sentence(tmp_path):
    talon = _house(tmp_path, "domino", [('ranks = ["7", "8", "9", "10", "J", "Q", "K", "A"]',
                                         'ranks = ["7", "8", "9", "10", "J", "Q", "K", "A"]\ntalon = 28')])
    assert "a talon of 28 cards must then hold cards that score" in talon and "(8 of 32 cards score)" in talon
    share = _house(tmp_path, "blank-4", [('deals = ["eralash+", "trumps*4"]\ntotal = 192',
                                          'deals = ["eralash+", "trumps*3"]\ntotal = 168')], '\n[turn]\ntrumps = "free"\n')
    assert "each player their share of the 3 trump deals, but 3 do not divide among 4 players" in share
    never = _house(tmp_path, "domino", [("cards = { H = -1 }", "cards = { H = 1 }")])
    assert "needs cards that score minus" in never and "never ends" in never


def test_the_bundled_templates_are_not_refused_by_those_checks():
    from kingsheet.files.templates import load_rules, template_ids

    assert all(load_rules(t) for t in template_ids())


def test_a_copied_row_in_an_ordered_stage_that_plays_a_game_four_times_is_the_copy(tmp_path):
    """An ordered table whose plus stage is four trump deals: a trump row written again is blamed as
    the copy, not a later, honest trump deal («the table has already played Trumps»)."""
    import random
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    sys.path.insert(0, str(root / "examples"))
    from make_examples import write_example

    text = (root / "templates" / "ordered.toml").read_text(encoding="utf-8")
    text = text.replace('deals = ["tricks+", "hearts+", "boys+", "girls+", "king+", "last+", "eralash+"]',
                        'deals = ["tricks+", "hearts+", "boys+", "girls+", "king+", "last+", "trumps*4"]')
    text = text.replace("last = 8         # each of the last two tricks", "last = 8\ntrumps = 3")
    (tmp_path / "four.toml").write_text(text.replace('id = "ordered"', 'id = "four"'), encoding="utf-8")
    blamed_right = 0
    for seed in range(12):
        game = write_example(str(tmp_path / "four.toml"), seed).replace(f'rules = "{tmp_path / "four.toml"}"',
                                                                         'rules = "four.toml"')
        head, *deals = game.split("\n[[deals]]\n")
        trumps = [k for k, d in enumerate(deals) if 'game = "trumps"' in d]
        rng = random.Random(seed)
        copied = rng.choice(trumps[:-1])  # a trump deal written again right after itself
        deals.insert(copied + 1, deals[copied])
        path = tmp_path / f"g{seed}.toml"
        path.write_text("\n[[deals]]\n".join([head, *deals]), encoding="utf-8")
        report = verify(load_game(path))
        extra = [p for p in report.problems if p.code == "extra-deal"]
        assert any(p.deal == copied + 2 and f"a copy of deal {copied + 1}" in p.message for p in extra), (seed, extra)
        assert not [p for p in extra if "already played" in p.message], (seed, extra)  # no honest deal blamed
        assert {p.deal for p in extra} == {copied + 2}, (seed, extra)
        blamed_right += 1
    assert blamed_right == 12
