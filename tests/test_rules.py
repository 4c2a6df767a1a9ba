"""Templates: every one loads, totals are derived, a wrong stated total is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from kingsheet.core.rules import RulesError
from kingsheet.core.templates import explain, read_template, resolve
from kingsheet.files.templates import load_rules, template_dir, template_ids

EXPECTED_IDS = {
    "blank-4", "symmetric", "replay-8", "short", "king-14", "king-14-alt", "ordered", "ordered-56",
    "trump-48", "trump-bidding", "kingcardgame", "three-30", "three-simple", "minsk", "atomic",
    "classic-52", "classic-52-3", "five-40", "six-48", "domino", "jokers", "bidding-77", "omnibus",
}

# (stage minus, stage plus, number of deals) as RULES.md gives them
STAGES = {
    "blank-4": (-192, 192, 12), "symmetric": (-192, 192, 14), "replay-8": (-192, 192, 15),
    "short": (-96, 96, 10), "king-14": (-192, 192, 14), "king-14-alt": (-192, 192, 14),
    "ordered": (-192, 192, 14), "ordered-56": (-768, 768, 56), "trump-48": (-192, 192, 11),
    "trump-bidding": (-192, 192, 11), "kingcardgame": (-480, 480, 14), "three-30": (-300, 300, 14),
    "three-simple": (-232, 232, 14), "minsk": (-720, 720, 27), "atomic": (-720, 720, 36),
    "classic-52": (-1380, 1300, 10), "classic-52-3": (-1275, 1275, 9),
    "five-40": (-200, 200, 14), "six-48": (-208, 208, 14),
    "domino": (0, 0, 0), "jokers": (-496, 0, 4), "bidding-77": (0, 0, 0), "omnibus": (0, 0, 0),
}


def test_every_bundled_template_is_known():
    assert set(template_ids()) == EXPECTED_IDS


def test_five_and_six_players_follow_their_deck():
    five, six = load_rules("five-40"), load_rules("six-48")
    assert (len(five.deck.cards), five.deck.tricks, five.deck.count("hearts")) == (40, 8, 10)
    assert (len(six.deck.cards), six.deck.tricks, six.deck.count("hearts")) == (48, 8, 12)
    assert five.games["hearts"].total == -20 and six.games["eralash"].total == -104


@pytest.mark.parametrize("tid", sorted(EXPECTED_IDS))
def test_template_loads_with_every_option(tid):
    rules = load_rules(tid)
    assert (rules.stage_total(0), rules.stage_total(1), len(rules.slots)) == STAGES[tid]
    for key, (choices, _) in rules.template.options.items():
        for choice in choices:
            load_rules(tid, {key: choice})
    assert rules.template.source and rules.template.notes
    assert all(g.labels["ru"] and g.labels["en"] for g in rules.games.values())


@pytest.mark.parametrize("boys", ["jacks", "kings", "jacks+kings"])
def test_blank4_single_games_are_16_and_eralash_96_for_every_boys_option(boys):
    rules = load_rules("blank-4", {"boys": boys})
    assert {g.id: g.total for g in rules.games.values()} == {
        "tricks": -16, "hearts": -16, "boys": -16, "girls": -16, "king": -16, "last": -16,
        "eralash": -96, "eralash+": 96, "trumps": 24}
    assert rules.grand_total == 0


def test_seed001_trick_costs_minus_32_with_jacks_and_kings():
    # 9♣ K♥ J♣ A♣ as the 7th trick of negative Ералаш: trick 2 + heart 2 + boys 2+2 + King 16 + last 8
    rules = load_rules("king-14-alt")
    assert rules.options["boys"] == "jacks+kings"
    eralash = rules.games["eralash"]
    cards = ["9C", "KH", "JC", "AC"]
    taken = {"tricks": 1, "last": 1}
    for cat in ("hearts", "boys", "girls", "king"):
        taken[cat] = sum(rules.deck.is_in(c, cat) for c in cards)
    assert taken == {"tricks": 1, "last": 1, "hearts": 1, "boys": 2, "girls": 0, "king": 1}
    assert eralash.points(taken) == -32


def test_classic52_options_change_the_rows():
    plain = load_rules("classic-52")
    both = load_rules("classic-52", {"eralash": "yes", "last": "two"})
    assert plain.games["last"].counts["last"] == 1 and both.games["last"].counts["last"] == 2
    assert both.games["last"].total == -150
    assert (both.stage_total(0), both.stage_total(1)) == (-2760, 2600)
    assert "eralash" not in plain.games


def bad(text: str) -> str:
    with pytest.raises(RulesError) as exc:
        resolve(read_template(text))
    return str(exc.value)


BASE = (template_dir() / "short.toml").read_text(encoding="utf-8")


def test_stated_total_disagreeing_with_units_does_not_load():
    msg = bad(BASE.replace("tricks = 16", "tricks = 18"))
    assert "stated total of tricks is 18, but its units give 2×8 = 16" in msg


def test_stage_total_disagreeing_is_refused():
    msg = bad(BASE.replace("total = -96", "total = -100"))
    assert "states total -100, but its deals sum to -96" in msg


def test_deck_that_does_not_divide_is_refused():
    msg = bad(BASE.replace("players = 4", "players = 3"))
    assert "32 cards less a talon of 0 do not divide among 3 players" in msg


def test_unknown_key_and_unknown_card():
    assert "unknown key colour" in bad('colour = "red"\n' + BASE)
    assert "stated.colour is not a game" in bad(BASE + "\ncolour = 3\n")
    assert "does not hold: ZZ" in bad(BASE.replace("remove = []", 'remove = ["ZZ"]'))


def test_unknown_rules_lists_known_ids():
    with pytest.raises(RulesError) as exc:
        load_rules("blank-5")
    assert "unknown rules 'blank-5'; did you mean 'blank-4'? known: atomic, bidding-77, blank-4" in str(exc.value)


def test_bad_option_value():
    with pytest.raises(RulesError, match="option boys must be one of jacks, kings, jacks\\+kings, not 'queens'"):
        load_rules("blank-4", {"boys": "queens"})


def test_templates_are_plain_files(tmp_path: Path):
    # a copy of a bundled template used by path loads the same
    copy = tmp_path / "mine.toml"
    copy.write_text((template_dir() / "blank-4.toml").read_text(encoding="utf-8"), encoding="utf-8")
    assert load_rules(str(copy)).stage_total(0) == -192


@pytest.mark.parametrize("section, message", [
    ("[trumps]\nbiding = true\n", "trumps.biding is not a key of [trumps] (known: bidding, buyout)"),
    ('[trumps]\nbidding = "no"\n', "trumps.bidding must be true or false, not 'no'"),
    ('[turn]\ntrumps = "left"\n', "turn.trumps must be one of left-of-dealer, free, auction, not 'left'"),
    ("[turn]\nwho = 1\n", "turn.who is not a key of [turn] (known: trumps, orders)"),
    ('[labels]\neralash = { ru = "Всё подряд" }\n', "labels.eralash names no game of this template"),
    ("[labels]\ntricks = 5\n", 'labels.tricks must be { ru = "…", en = "…" }'),
])
def test_every_section_has_a_strict_schema(section, message):
    assert "[trumps]\nbuyout = true\n" in BASE  # short: a buyout, no Ералаш
    assert message in bad(BASE.replace("[trumps]\nbuyout = true\n", section))


def test_trump_flags_and_turns_drive_the_rules():
    from kingsheet.core.rules import Turn

    assert load_rules("trump-bidding").bidding and load_rules("trump-bidding").declares is Turn.AUCTION
    assert load_rules("blank-4").buyout and not load_rules("trump-48").buyout
    assert load_rules("blank-4").declares is Turn.LEFT and load_rules("ordered-56").orders is Turn.LEFT


def test_an_edited_template_is_read_again(tmp_path):
    """load_rules is cached, but a running process (play, a server) sees a template edited on disk."""
    path = tmp_path / "ours.toml"
    path.write_text(BASE, encoding="utf-8")
    before = load_rules(str(path))
    assert load_rules(str(path)) is before  # cached while the file is as it was
    import os

    assert 'name = { ru = "Кинг короткий"' in BASE
    path.write_text(BASE.replace('name = { ru = "Кинг короткий', 'name = { ru = "Наш кинг короткий'), encoding="utf-8")
    os.utime(path, ns=(before.template.stamp[0] + 10**9,) * 2)  # type: ignore[index]
    after = load_rules(str(path))
    assert after.template.name["ru"].startswith("Наш") and before.template.name["ru"].startswith("Кинг")


def test_a_huge_template_file_is_not_read_whole(tmp_path):
    path = tmp_path / "big.toml"
    with path.open("wb") as fh:
        fh.truncate(50 * 1024 * 1024)  # sparse: 50 MB that cost nothing to make
    with pytest.raises(RulesError, match="larger than 256 KiB"):
        load_rules(str(path))


def test_templates_that_would_make_a_check_slow_do_not_load(tmp_path):
    """A card-value game whose every card has its own value, and a dozen options of eight choices (with
    short.toml's boys option of three):
    both refused by the template checker, with the reason, at once."""
    ranks = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
    cards = ", ".join(f"{r}{s} = {-(i * 4 + j + 1)}" for i, r in enumerate(ranks) for j, s in enumerate("SCDH"))
    slow = (f'format = 1\nid = "slow"\nplayers = 4\norder = "to-limit"\n[deck]\nranks = {ranks!r}\n[units]\n'
            f'[penalty]\ncards = {{ {cards} }}\n[limit]\npoints = 100\n[[stages]]\ndeals = ["penalty"]\n'
            ).replace("'", '"')
    mistakes, resolved = explain(slow)
    assert resolved == [] and len(mistakes) == 1 and "52 different values" in mistakes[0]
    options = "\n".join(f'[options.o{i}]\nchoices = ["a", "b", "c", "d", "e", "f", "g", "h"]\ndefault = "a"'
                        for i in range(12))
    mistakes, _ = explain(BASE.replace("[units]", options + "\n\n[units]", 1))
    assert mistakes == ["template: the options make 206,158,430,208 combinations; at most 64 are checked, "
                        "so use fewer options or choices"]
