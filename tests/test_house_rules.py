"""House rules: custom templates, and the ten-times example checked against a hand-worked game."""

from __future__ import annotations

import re

import pytest

from conftest import EXAMPLES, ROOT
from kingsheet.cli.app import app
from kingsheet.core.templates import explain
from kingsheet.core.verify import verify
from kingsheet.files.gamefile import load_game
from kingsheet.files.templates import load_rules

HOUSE = EXAMPLES / "house"


def test_docs_example_is_the_shipped_template_and_loads():
    doc = (ROOT / "docs" / "templates.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```toml\n(.*?)```", doc, re.S)
    assert blocks == [(HOUSE / name).read_text(encoding="utf-8") for name in ("king-x10.toml", "king2.toml")]
    assert explain(blocks[1])[0] == []
    mistakes, resolved = explain(blocks[0])
    assert mistakes == [] and len(resolved) == 1
    rules = resolved[0]
    assert {g: rules.games[g].total for g in ("tricks", "girls", "last", "king", "eralash")} == {
        "tricks": -160, "girls": -160, "last": -160, "king": -160, "eralash": -960}
    assert rules.per_round[:7] == ("tricks", "hearts", "boys", "girls", "last", "king", "eralash")
    assert len(rules.slots) == 56 and rules.stage_total(0) == -7680


def test_hand_worked_game_under_house_rules():
    report = verify(load_game(HOUSE / "king-x10-game.toml"))
    assert report.problems == ()
    # worked by hand in the file's comments
    assert {p: t.total for p, t in report.totals.items()} == {"Аня": -280, "Боря": -460, "Вася": -180, "Галя": -360}
    assert report.rows[3].cells == (-240, -360, -80, -280)


def test_custom_template_anywhere_a_rules_id_goes(runner, tmp_path, monkeypatch):
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "ours.toml").write_text((HOUSE / "king-x10.toml").read_text(encoding="utf-8"),
                                                   encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    res = runner.invoke(app, ["new", "games/tue.toml", "--rules", "./rules/ours.toml", "--players", "А,Б,В,Г"])
    assert res.exit_code == 2 and "does not exist" in res.stderr  # the folder games/ is not there
    (tmp_path / "games").mkdir()
    res = runner.invoke(app, ["new", "games/tue.toml", "--rules", "./rules/ours.toml", "--players", "А,Б,В,Г"])
    assert res.exit_code == 0, res.output
    assert 'rules = "../rules/ours.toml"' in (tmp_path / "games" / "tue.toml").read_text(encoding="utf-8")
    res = runner.invoke(app, ["deal", "tricks", "-40", "-60", "-20", "-40", "--orderer", "Б"])
    assert res.exit_code == 0, res.output
    assert runner.invoke(app, ["check", "games/tue.toml"]).exit_code == 0
    res = runner.invoke(app, ["blank", "--rules", "rules/ours.toml", "-o", "b.pdf"])
    assert res.exit_code == 0 and (tmp_path / "b.pdf").exists()
    res = runner.invoke(app, ["rules", "rules/ours.toml"])
    assert "−7680" in res.stdout


BASE = (HOUSE / "king-x10.toml").read_text(encoding="utf-8")


@pytest.mark.parametrize("change, message", [
    (lambda t: t.replace("tricks = 160", "tricks = 150"),
     "stated total of tricks is 150, but its units give 20×8 = 160"),
    (lambda t: t.replace("players = 4", "players = 5"), "32 cards less a talon of 0 do not divide among 5 players"),
    (lambda t: "colour = 1\n" + t, "unknown key colour"),
    (lambda t: t.replace("[deck]", '[deck]\nremove = ["1S"]'), "deck.remove names cards the deck does not hold: 1S"),
    (lambda t: t.replace("girls = 40", "girls = 0"), "units.girls must be a whole number above zero, not 0"),
    (lambda t: t.replace("girls = 40", "girls = 2.5"), "units.girls must be a whole number above zero, not 2.5"),
    (lambda t: t.replace('"last", "king", "eralash"]', '"last", "king", "eralash", "chess"]'),
     "unknown game 'chess'"),
    (lambda t: t.replace("king = 160\n", ""), "game king needs units.king"),
    (lambda t: t.replace('ranks = ["7", "8", "9", "10", "J", "Q", "K", "A"]', 'ranks = ["7", "8", "9", "10", "J", "Q", "A", "2"]'),
     "game king counts king, which the deck does not hold"),
    (lambda t: t.replace("total = -7680", "total = -1920"), "states total -1920, but its deals sum to -7680"),
])
def test_each_kind_of_mistake_is_explained(runner, tmp_path, change, message):
    bad = tmp_path / "bad.toml"
    bad.write_text(change(BASE), encoding="utf-8")
    res = runner.invoke(app, ["rules", "--check", str(bad)])
    assert res.exit_code == 2
    assert message in res.stderr, res.stderr
    assert "the template does not load" in res.stderr


def test_several_mistakes_at_once(runner, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("colour = 1\n" + BASE.replace("tricks = 160", "tricks = 150").replace("girls = 40", "girls = 0"),
                   encoding="utf-8")
    res = runner.invoke(app, ["rules", "--check", str(bad)])
    assert "3 mistakes" in res.stderr


def test_huge_or_broken_template_refused_within_a_bound(runner, tmp_path):
    huge = tmp_path / "huge.toml"
    huge.write_text(BASE + "\n# " + "x" * 300_000, encoding="utf-8")
    res = runner.invoke(app, ["rules", "--check", str(huge)])
    assert res.exit_code == 2 and "too large for a template (at most 256 KiB)" in res.stderr
    loop = tmp_path / "loop.toml"
    loop.write_text(BASE.replace('"trumps*', '"x*').replace('"eralash+"]', '"eralash+", "trumps*99999999"]'),
                    encoding="utf-8")
    res = runner.invoke(app, ["rules", "--check", str(loop)])
    assert res.exit_code == 2 and "bad repeat" in res.stderr
    game = tmp_path / "g.toml"
    game.write_text(f'format = 1\nrules = "{huge.name}"\nplayers = ["А","Б","В","Г"]\n', encoding="utf-8")
    res = runner.invoke(app, ["check", str(game)])
    assert res.exit_code == 2 and "larger than 256 KiB" in res.stderr
    assert load_rules(str(HOUSE / "king-x10.toml")).id == "king-x10"


SHORT = (ROOT / "templates" / "short.toml").read_text(encoding="utf-8")
DOMINO = (ROOT / "templates" / "domino.toml").read_text(encoding="utf-8")


@pytest.mark.parametrize("text, message", [
    (SHORT.replace("players = 4", "players = 1"), "players must be 2 to 8, not 1"),
    (SHORT.replace('order = "fixed"', 'order = "random"'), "order must be one of"),
    (SHORT.replace("format = 1", "format = 3"), "format 3 is not supported"),
    (SHORT.replace('id = "short"\n', ""), "missing key 'id'"),
    (SHORT.replace('default = "jacks"', ""), "options.boys needs choices"),
    (SHORT.replace('default = "jacks"', 'default = "queens"'), "option boys default 'queens' is not among its choices"),
    (SHORT.replace("[[stages]]\ndeals", "[[stages]]\ndeals").replace("[[stages]]", "stages = 3\n[[x]]", 1), "stages"),
    (SHORT.replace('ranks = ["7", "8", "9", "10", "J", "Q", "K", "A"]', 'ranks = "7 to A"'), "deck.ranks must be a list"),
    (SHORT.replace('ranks = ["7", "8", "9", "10", "J", "Q", "K", "A"]', f"ranks = {[str(i) for i in range(20)]}"),
     "deck.ranks has 20 ranks"),
    (SHORT.replace("remove = []", 'remove = "7S"'), "deck.remove must be a list"),
    (SHORT.replace("talon = 0", "talon = -1"), "deck.talon must be a whole number ≥ 0"),
    (SHORT.replace("talon = 0", "talon = 0\njokers = 9"), "deck.jokers is at most 4"),
    (SHORT.replace("last_tricks = 2", "last_tricks = 12"), "deck.last_tricks 12 is more than the 8 tricks"),
    (SHORT.replace("\ntricks = 2\n", "\ntricks = 2\nspades = 3\n", 1), "units.spades is not a category"),
    (SHORT.replace('deals = ["trumps*4"]', 'deals = [{ game = "trumps", count = 4, when = "colour=red" }]'),
     "'when' names unknown option 'colour'"),
    (SHORT.replace('deals = ["trumps*4"]', 'deals = [{ game = "trumps", times = 4 }]'), "a deal entry takes game"),
    (SHORT.replace('deals = ["trumps*4"]', 'deals = [{ game = "trumps", count = 5000 }]'), "more than 1000 deals"),
    (SHORT.replace('deals = ["trumps*4"]', "deals = [4]"), "a deal entry must be a game id or a table"),
    (SHORT.replace('deals = ["trumps*4"]', 'deals = "trumps"'), "deals must be a list"),
    (SHORT + "\nchess = 4\n", "stated.chess is not a game"),
    (DOMINO.replace("[limit]\npoints = 31\n", ""), "needs [limit] points = N"),
    (SHORT + "\n[limit]\npoints = 3\n", "[limit] is only for order"),
    (DOMINO.replace("[penalty]", "[penaltyx]"), "needs a [penalty] table"),
    (DOMINO.replace("cards = { H = -1 }", "cards = { H = -1 }\ncolour = 1"), "penalty has unknown key colour"),
    (DOMINO.replace("cards = { H = -1 }", "cards = { H = 0 }"), "must be a whole number other than 0"),
    (DOMINO.replace("cards = { H = -1 }", 'cards = { H = -1, ZZ = 3 }'), "penalty.cards names ZZ"),
    (DOMINO.replace("cards = { H = -1 }", 'cards = { H = -1 }\nmoon = "all"'), "penalty.moon must be a whole number"),
    (DOMINO.replace('deals = ["penalty"]', 'deals = ["penalty", "tricks"]').replace("[units]", "[units]\ntricks = 2"),
     "a game played to a limit has one game"),
    (SHORT.replace('name = { ru = "Кинг короткий", en = "King, short" }', 'name = "Короткий"')
     .replace("total = -96", "total = -1"), "states total -1"),
])
def test_template_mistakes(text, message):
    mistakes, _ = explain(text)
    assert any(message in m for m in mistakes), mistakes


def test_stage_mixing_signs_and_empty_stages():
    mistakes, _ = explain(SHORT.replace('deals = ["tricks", "hearts"', 'deals = ["tricks+", "hearts"'))
    assert any("mixes negative and positive" in m for m in mistakes)
    mistakes, _ = explain(SHORT.replace('deals = ["trumps*4"]', "deals = []").replace(
        'deals = ["tricks", "hearts", "boys", "girls", "king", "last"]', "deals = []"))
    assert any("no deals" in m for m in mistakes)


def test_king2_orderers_rotate_and_a_swapped_sheet_is_refused():
    """docs/templates.md: the KING2 rules, with the orderer fixed by the dealer of each deal."""
    from kingsheet.core.rules import Turn

    rules = load_rules(str(HOUSE / "king2.toml"))
    assert rules.orders is Turn.LEFT and len(rules.slots) == 56 and rules.games["eralash"].total == -960
    assert verify(load_game(HOUSE / "king2-game.toml")).problems == ()
    swapped = verify(load_game(HOUSE / "king2-swapped.toml"))
    assert [(p.code, p.deal, p.player, p.expected) for p in swapped.problems] == [
        ("orderer", 3, "Боря", "Галя"), ("orderer", 5, "Галя", "Боря")]
    doc = (ROOT / "docs" / "templates.md").read_text(encoding="utf-8")
    for p in swapped.problems:
        assert f"# examples/house/king2-swapped.toml: {p.message}" in doc


def test_domino_for_three_works_as_its_note_promises(tmp_path):
    """domino's note: «three (a copy with players = 3) work the same». 32 cards do not divide among
    three, and need not: every card is played, the «базар» too, so each deal's eight hearts are all
    taken. Evenings dealt with real cards check clean; a wrong row is caught where it is."""
    import random

    from kingsheet.core.simulate import play_game

    note = " ".join(load_rules("domino").template.notes_in("en"))
    assert "three (a copy with players = 3) work the same" in note
    text = (ROOT / "templates" / "domino.toml").read_text(encoding="utf-8")
    (tmp_path / "domino-3.toml").write_text(text.replace("players = 4", "players = 3"), encoding="utf-8")
    rules = load_rules(str(tmp_path / "domino-3.toml"))
    assert rules.players == 3
    for seed in range(8):
        deals = "".join(f'\n[[deals]]\ngame = "{p.game}"\npoints = {list(p.points)}\n'
                        for p, _dealer in play_game(rules, random.Random(seed)))
        game = tmp_path / f"evening-{seed}.toml"
        game.write_text(f'format = 1\nrules = "domino-3.toml"\nplayers = ["Аня", "Боря", "Вася"]\n{deals}',
                        encoding="utf-8")
        report = verify(load_game(game))
        assert report.problems == () and report.complete, (seed, [p.message for p in report.problems])
    rows = '\n[[deals]]\ngame = "penalty"\npoints = [-3, -3, -2]\n\n[[deals]]\ngame = "penalty"\npoints = [-4, -3, 0]\n'
    bad = tmp_path / "bad.toml"
    bad.write_text(f'format = 1\nrules = "domino-3.toml"\nplayers = ["Аня", "Боря", "Вася"]\n{rows}', encoding="utf-8")
    problems = verify(load_game(bad)).problems
    assert [(p.code, p.deal) for p in problems] == [("row-sum", 2)]
    # a rule system that counts tricks still needs the cards dealt evenly
    blank = (ROOT / "templates" / "blank-4.toml").read_text(encoding="utf-8")
    (tmp_path / "blank-3.toml").write_text(blank.replace("players = 4", "players = 3"), encoding="utf-8")
    with pytest.raises(Exception, match="do not divide among 3 players"):
        load_rules(str(tmp_path / "blank-3.toml"))
