"""Each of the verifier's small checks alone, on one row, in the style of beancount's validators:
the check, the row, and exactly what it says."""

from __future__ import annotations

import pytest

from conftest import ROOT
from kingsheet.core import verify as v
from kingsheet.core.game import Deal
from kingsheet.files.templates import load_rules

BLANK = load_rules("blank-4")
PLAYERS = ("Аня", "Боря", "Вася", "Галя")


def test_point_cells_sign_range_step_and_the_all_or_nothing_king():
    def run(gid, cells):
        chk = v._Deal(1, "x", gid)
        v._check_point_cells(v.RowAt(BLANK, BLANK.games[gid], Deal(1, gid, cells), cells, PLAYERS), chk)
        return [(p.code, p.player) for p in chk.problems]

    assert run("tricks", (-4, -4, -4, -4)) == []
    assert run("tricks", (4, -4, -18, -3)) == [("cell-sign", "Аня"), ("cell-range", "Вася"), ("cell-step", "Галя")]
    assert run("king", (-8, -8, 0, 0)) == [("cell-step", "Аня"), ("cell-step", "Боря")]
    assert run("eralash", (-95, -1, 0, 0)) == [("cell-impossible", "Аня"), ("cell-impossible", "Боря")]  # odd


def test_row_sum_names_players_written_the_whole_of_a_one_player_game():
    def run(gid, cells):
        chk = v._Deal(1, "x", gid)
        v._check_row_sum(v.RowAt(BLANK, BLANK.games[gid], Deal(1, gid, cells), cells, PLAYERS), BLANK.games[gid].total, chk)
        return [p.message.removeprefix("deal 1 (x): ") for p in chk.problems]

    assert run("king", (0, -16, 0, 0)) == []
    assert run("king", (-16, 0, -16, 0)) == [
        "row sums to −32, expected −16: Аня and Вася are each written the whole −16, which one player takes"]
    assert run("tricks", (-4, -4, -4, -2)) == ["row sums to −14, expected −16"]


def test_trump_cells_rospis_and_the_bid():
    chk = v._Deal(1, "x", "trumps")
    v._check_trump_cells([-3, 4, 27, 0], 3, 8, chk, PLAYERS)
    assert [(p.code, p.player) for p in chk.problems] == [("cell-sign", "Аня"), ("cell-step", "Боря"),
                                                           ("cell-range", "Вася")]
    chk = v._Deal(1, "x", "trumps")
    v._check_rospis([6, 6, 9, 3], 3, BLANK, chk, PLAYERS)
    assert [(p.player, p.expected, p.actual) for p in chk.problems] == [("Вася", 6, 9), ("Галя", 6, 3)]
    bidding = load_rules("trump-bidding")
    chk = v._Deal(1, "x", "trumps")
    deal = Deal(1, "trumps", (12, 0, 12, 12), declarer="Боря", bid=3)
    assert v._bid_total([12, 0, 12, 12], 6, bidding, chk, PLAYERS, deal) == 48 - 6 * 2  # he took 2 of his 3
    assert v._bid_total([12, 0, 12, 12], 6, bidding, chk, PLAYERS, Deal(1, "trumps", None)) == 48
    assert [p.code for p in chk.problems] == ["bid"]


def test_a_buyout_only_where_the_rules_have_one():
    deal = Deal(1, "trumps", (18, 24, -6, 12), declarer="Боря", buyer="Вася", price=2)
    for tid, codes in (("blank-4", []), ("trump-48", ["buyout"])):
        rules = load_rules(tid)
        chk = v._Deal(1, "x", "trumps")
        v._check_trump_row(v.RowAt(rules, rules.games["trumps"], deal, deal.points, PLAYERS), chk)
        assert [p.code for p in chk.problems if p.code == "buyout"] == codes, tid


def test_which_games_forbid_leading_hearts_and_the_reminder_that_names_them():
    from kingsheet.core.scoring import hearts_lead_forbidden, no_hearts_lead_games
    from kingsheet.render.sheet import reminders

    assert [hearts_lead_forbidden(BLANK, g) for g in ("hearts", "king+", "eralash", "tricks", "boys+", "trumps")] == [
        True, True, True, False, False, False]
    assert [g.id for g in no_hearts_lead_games(load_rules("symmetric"))] == ["hearts", "king", "eralash"]
    assert reminders(BLANK, "ru")[0] == "Ходить с червей нельзя, пока есть другие масти, в играх Черви, Кинг и Ералаш."


def test_the_rules_of_play_are_the_templates_own(tmp_path):
    """[play] in a template: which games forbid leading hearts (the blank's reminder and the card
    simulator read it) and which contracts are роспись (the verifier reads it); refused in one
    sentence when it names a game the template does not have."""
    from kingsheet.core.rules import RulesError
    from kingsheet.core.scoring import hearts_lead_forbidden, is_rospis
    from kingsheet.render.sheet import reminders

    text = (ROOT / "templates" / "blank-4.toml").read_text(encoding="utf-8")
    own = text.replace('no_hearts_lead = ["hearts", "king", "eralash"]', 'no_hearts_lead = ["hearts"]').replace(
        'spread = ["роспись", "rospis", "spread"]', 'spread = ["Расклад"]').replace('id = "blank-4"', 'id = "house-play"')
    assert own != text
    house = tmp_path / "house.toml"
    house.write_text(own, encoding="utf-8")
    rules = load_rules(str(house))
    assert hearts_lead_forbidden(rules, "hearts+") and not hearts_lead_forbidden(rules, "king")
    assert reminders(rules, "ru")[0] == "Ходить с червей нельзя, пока есть другие масти, в играх Черви."
    assert is_rospis(rules, " расклад ") and not is_rospis(rules, "роспись")
    assert is_rospis(BLANK, "Роспись")
    for bad, said in (('no_hearts_lead = ["hearts"]', 'no_hearts_lead = ["clubs"]'),
                      ('no_hearts_lead = ["hearts"]', 'no_hearts_lead = "hearts"'),
                      ('spread = ["Расклад"]', 'spread = ["Расклад"]\nlead = true')):
        house.write_text(own.replace(*(bad, said)), encoding="utf-8")
        with pytest.raises(RulesError) as got:
            load_rules(str(house))
        assert "play" in str(got.value) and "\n" not in str(got.value), str(got.value)


def test_what_an_option_means_is_the_templates_own_words(tmp_path):
    """An option's choices are explained by the template (``said``), in each language: the rules
    page and the blank's subtitle say them; a house option without words is shown as key = value;
    words for a choice the option does not have are refused in one sentence."""
    from kingsheet.core.rules import RulesError
    from kingsheet.render.sheet import subtitle
    from kingsheet.render.text import describe_rules

    assert "kings (мальчики — короли)" in describe_rules(BLANK, "ru")
    assert "kings (boys are kings)" in describe_rules(BLANK, "en")
    text = (ROOT / "templates" / "blank-4.toml").read_text(encoding="utf-8").replace('id = "blank-4"', 'id = "house-words"')
    house = tmp_path / "house.toml"
    house.write_text(text.replace('said.kings = { ru = "мальчики — короли", en = "boys are kings" }',
                                  'said.kings = { ru = "мальчики — только короли", en = "kings alone" }'), encoding="utf-8")
    rules = load_rules(str(house), {"boys": "kings"})
    assert "мальчики — только короли" in subtitle(rules, "ru") and "kings alone" in subtitle(rules, "en")
    bare = tmp_path / "bare.toml"
    bare.write_text("\n".join(line for line in text.splitlines() if not line.startswith("said.")), encoding="utf-8")
    assert "boys = kings" in subtitle(load_rules(str(bare), {"boys": "kings"}), "ru")
    house.write_text(text.replace('said.kings =', 'said.queens ='), encoding="utf-8")
    with pytest.raises(RulesError) as got:
        load_rules(str(house))
    assert "said" in str(got.value) and "\n" not in str(got.value)
