"""The sequence of deals and whose turn it was: the report names the simplest explanation.

Hand-worked sheets from the verifier issue, then a mutation campaign: games dealt and played with
real cards by the simulator (which knows nothing of the checker), each changed by one mistake of
the kinds people make, must be reported at the deal where the mistake was written, with a fitting
code and player, and with nothing else at any other deal.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from test_verify import simulated

from conftest import deal, game_text
from kingsheet.core.game import Deal, GameFile
from kingsheet.core.record import replace
from kingsheet.core.rules import Order, Rules, Turn
from kingsheet.core.verify import verify
from kingsheet.files.gamefile import read_game
from kingsheet.files.templates import load_rules, template_ids

SEQUENCE = {"wrong-order", "missing-deal", "extra-deal"}


def numbered(game: GameFile) -> list[tuple[str, int | None, str | None]]:
    """Problems at a deal (the stage sums of a changed sheet are expected to move too)."""
    return [(p.code, p.deal, p.player) for p in verify(game).problems if p.deal is not None]


def renumbered(game: GameFile, deals: list[Deal]) -> GameFile:
    return replace(game, deals=tuple(replace(d, number=k) for k, d in enumerate(deals, 1)))


BLANK_ROWS = [("tricks", [-4, -4, -4, -4]), ("hearts", [-4, -4, -4, -4]), ("boys", [-4, -4, -4, -4]),
              ("girls", [-4, -4, -4, -4]), ("king", [-16, 0, 0, 0]), ("last", [-8, -8, 0, 0]),
              ("eralash", [-24, -24, -24, -24]), ("eralash+", [24, 24, 24, 24])]
DECLARERS = ["Боря", "Вася", "Галя", "Аня"]  # deals 9–12: left of Аня, Боря, Вася, Галя


def blank_sheet(trumps: list[tuple[list[int], str]] | None = None) -> str:
    rows = "".join(deal(g, p) for g, p in BLANK_ROWS)
    trumps = trumps or [([12, 6, 6, 0], d) for d in DECLARERS]
    return game_text(deals=rows + "".join(deal("trumps", p, declarer=d) for p, d in trumps))


def test_the_blank_as_dealt_passes():
    assert verify(read_game(blank_sheet())).problems == ()


def test_a_copied_last_deal_is_the_extra_one():
    text = blank_sheet() + deal("trumps", [12, 6, 6, 0], declarer="Аня")
    assert numbered(read_game(text)) == [("extra-deal", 13, None)]
    assert "deal 13 (Trumps): written twice: a copy of deal 12" in [p.message for p in verify(read_game(text)).problems]


def test_a_deal_written_in_the_wrong_place_is_one_moved_deal():
    rows = list(BLANK_ROWS)
    rows.insert(4, rows.pop(1))  # Черви written fifth
    text = game_text(deals="".join(deal(g, p) for g, p in rows))
    assert numbered(read_game(text)) == [("wrong-order", 5, None)]
    assert [p.message for p in verify(read_game(text)).problems] == [
        "deal 5 (Hearts): written in the wrong place: its place is before deal 2"]


def test_the_plus_half_written_first_is_one_problem():
    minus = BLANK_ROWS[:7]
    rows = [(g + "+", [-c for c in p]) for g, p in minus] + minus
    text = game_text("symmetric", deals="".join(deal(g, p) for g, p in rows))
    found = verify(read_game(text)).problems
    assert [(p.code, p.deal) for p in found] == [("wrong-order", 1)]
    assert "plus games are written before the minus games" in found[0].message


def test_a_deal_written_twice_while_another_is_missing():
    rows = list(BLANK_ROWS)
    rows[3] = rows[2]  # Мальчики twice, Девочки missing
    text = game_text(deals="".join(deal(g, p) for g, p in rows))
    assert numbered(read_game(text)) == [("extra-deal", 4, None), ("missing-deal", 4, None)]
    messages = [p.message for p in verify(read_game(text)).problems]
    assert "deal 4 (Boys): Boys is written twice (deals 3 and 4)" in messages
    assert "deal 4 (Boys): Girls is missing: the sheet has it here" in messages


def test_a_king_written_for_two_players_names_both():
    text = game_text(deals=deal("king", [-16, 0, -16, 0]))
    found = [p for p in verify(read_game(text)).problems if p.code not in SEQUENCE]
    assert [(p.code, p.deal, p.player, p.expected) for p in found] == [("row-sum", 1, None, -16)]
    assert "Аня and Вася are each written the whole −16" in found[0].message


def test_declarers_swapped_between_two_deals_are_both_named():
    trumps = [([12, 6, 6, 0], d) for d in DECLARERS]
    trumps[0], trumps[1] = (trumps[0][0], "Вася"), (trumps[1][0], "Боря")
    found = verify(read_game(blank_sheet(trumps))).problems
    assert [(p.code, p.deal, p.player, p.expected) for p in found] == [
        ("declarer", 9, "Вася", "Боря"), ("declarer", 10, "Боря", "Вася")]


def test_a_sheet_written_as_if_another_player_dealt_first_is_one_problem():
    text = blank_sheet([([12, 6, 6, 0], d) for d in ["Вася", "Галя", "Аня", "Боря"]])
    found = verify(read_game(text)).problems
    assert [(p.code, p.deal) for p in found] == [("declarer", 9)]
    assert found[0].message == ("deal 9 (Trumps): every declarer is written as if Боря dealt first, but the sheet "
                                "has Аня dealing first (first_dealer in the game file)")


def test_auction_one_player_may_declare_twice():
    """trump-bidding: whoever wins the auction declares; three passes leave it to the dealer at 1."""
    rows = "".join(deal(g, p) for g, p in BLANK_ROWS[:7])
    trumps = [deal("trumps", [12, 12, 6, 6], declarer="Галя", bid=2),   # deal 8: Галя wins at 2, takes 3
              deal("trumps", [12, 12, 6, 6], declarer="Галя", bid=2),   # deal 9: and again
              deal("trumps", [18, 6, 6, 12], declarer="Боря", bid=1),   # deal 10: three passes, the dealer at 1
              deal("trumps", [18, 12, 6, 6], declarer="Аня", bid=1)]    # deal 11: Аня at 1, takes 4
    text = game_text("trump-bidding", deals=rows + "".join(trumps))
    assert load_rules("trump-bidding").declares is Turn.AUCTION
    assert [p for p in verify(read_game(text)).problems if p.deal is not None] == []


def test_a_buyout_where_the_rules_have_none_is_refused():
    rows = "".join(deal(g, p) for g, p in BLANK_ROWS[:7])
    text = game_text("trump-48", deals=rows + deal("trumps", [18, 24, -6, 12], declarer="Боря", buyer="Вася",
                                                       price=2))
    assert ("buyout", 8, None) in numbered(read_game(text))
    blank = blank_sheet([([18, 6, -6, 6], "Боря")] + [([12, 6, 6, 0], d) for d in DECLARERS[1:]])
    blank = blank.replace('declarer = "Боря"', 'declarer = "Боря"\nbuyer = "Вася"\nprice = 2', 1)
    assert numbered(read_game(blank)) == []


# ---- the mutation campaign ----------------------------------------------------------------------

# fixed-order templates with more than one game (jokers deals one game four times)
FIXED = [t for t in template_ids() if load_rules(t).order is Order.FIXED and len(set(load_rules(t).slots)) > 1]
ORDERED = [t for t in template_ids() if load_rules(t).order in (Order.ORDERED_TABLE, Order.ORDERED_PLAYER)]


def _run(rows: list[Deal], k: int) -> tuple[int, int]:
    """The first and last index of the run of rows with the same game as row k."""
    lo = hi = k
    while lo > 0 and rows[lo - 1].game == rows[k].game:
        lo -= 1
    while hi + 1 < len(rows) and rows[hi + 1].game == rows[k].game:
        hi += 1
    return lo, hi


def played(tid: str) -> Iterator[tuple[int, random.Random, GameFile, list[Deal], Rules]]:
    """Three games of ``tid`` dealt and played with real cards, each passing as played."""
    rng = random.Random(tid)
    for seed in range(3):
        game = simulated(tid, seed)
        assert numbered(game) == []
        yield seed, rng, game, list(game.deals), game.rules


@pytest.mark.parametrize("tid", FIXED)
def test_fixed_order_mistakes_are_reported_where_written(tid):
    for seed, rng, game, rows, rules in played(tid):
        # two neighbours of different games swapped
        k = rng.choice([i for i in range(len(rows) - 1) if rows[i].game != rows[i + 1].game])
        swapped = rows[:k] + [rows[k + 1], rows[k]] + rows[k + 2:]
        assert numbered(renumbered(game, swapped)) == [("wrong-order", k + 1, None)], (tid, seed, k)
        # a deal written twice, right after itself
        k = rng.randrange(len(rows))
        copied = numbered(renumbered(game, rows[:k + 1] + [rows[k]] + rows[k + 1:]))
        lo, hi = _run(rows, k)
        assert len(copied) == 1 and copied[0][0] == "extra-deal" and lo + 1 <= copied[0][1] - 1 <= hi + 1, \
            (tid, seed, k, copied)
        # a deal left out (not the last: an unfinished sheet is not a mistake)
        k = rng.randrange(len(rows) - 1)
        lo, hi = _run(rows, k)
        if hi + 1 < len(rows):
            dropped = numbered(renumbered(game, rows[:k] + rows[k + 1:]))
            assert len(dropped) == 1 and dropped[0][0] == "missing-deal" and lo + 1 <= dropped[0][1] <= hi + 1, \
                (tid, seed, k, dropped)
        # a deal of a game played once, written two or more places away
        once = [i for i in range(len(rows)) if list(rules.slots).count(rows[i].game) == 1]
        k = rng.choice(once)
        j = rng.choice([j for j in range(len(rows) - 1) if abs(j - k) >= 2])
        moved = rows[:k] + rows[k + 1:]
        moved.insert(j, rows[k])
        assert numbered(renumbered(game, moved)) == [("wrong-order", j + 1, None)], (tid, seed, k, j)
        # a declarer the rules do not give the turn
        trumps = [i for i, d in enumerate(rows) if rules.games[d.game].kind == "trumps"]
        if trumps and rules.declares is Turn.LEFT:
            k = rng.choice(trumps)
            right = rows[k].declarer
            other = rng.choice([p for p in game.players if p != right])
            changed = rows[:k] + [replace(rows[k], declarer=other)] + rows[k + 1:]
            assert numbered(renumbered(game, changed)) == [("declarer", k + 1, other)], (tid, seed, k)
            # the whole sheet as if another player had dealt first: one problem, at the first trump deal
            shifted = replace(game, first_dealer=game.players[1])
            assert [c for c, _, _ in numbered(shifted)] == ["declarer"], (tid, seed)


@pytest.mark.parametrize("tid", [t for t in FIXED if len([s for s in load_rules(t).stages if s]) == 2])
def test_a_stage_written_first_is_one_problem(tid):
    game = simulated(tid, 1)
    rules = game.rules
    first = len(rules.stages[0])
    if rules.games[rules.slots[0]].kind == rules.games[rules.slots[first]].kind == "single" and \
            [g.rstrip("+") for g in rules.stages[0]] == [g.rstrip("+") for g in rules.stages[1]]:
        rows = list(game.deals)
        turned = renumbered(game, rows[first:] + rows[:first])
        assert [(c, d) for c, d, _ in numbered(turned)] == [("wrong-order", 1)], tid


@pytest.mark.parametrize("tid", ORDERED)
def test_ordered_mistakes_are_reported_where_written(tid):
    for seed, rng, game, rows, rules in played(tid):
        assert rules.orders is Turn.LEFT
        # a wrong orderer
        k = rng.randrange(len(rows))
        other = rng.choice([p for p in game.players if p != rows[k].orderer])
        changed = rows[:k] + [replace(rows[k], orderer=other)] + rows[k + 1:]
        assert numbered(renumbered(game, changed)) == [("orderer", k + 1, other)], (tid, seed, k)
        # two deals swapped, orderers and all: the orderers no longer rotate
        i, j = sorted(rng.sample(range(len(rows)), 2))
        while rows[i].orderer == rows[j].orderer:
            i, j = sorted(rng.sample(range(len(rows)), 2))
        swapped = list(rows)
        swapped[i], swapped[j] = rows[j], rows[i]
        assert numbered(renumbered(game, swapped)) == [("orderer", i + 1, rows[j].orderer),
                                                       ("orderer", j + 1, rows[i].orderer)], (tid, seed, i, j)
        # a deal left out before the last few: every later orderer is one seat late (the first
        # dealer written in the file, so a first deal left out is not another first dealer)
        k = rng.randrange(len(rows) - 3)
        dropped = numbered(renumbered(replace(game, first_dealer=game.players[0]), rows[:k] + rows[k + 1:]))
        assert dropped[:1] == [("missing-deal", k + 1, None)] and all(c == "missing-deal" for c, _, _ in dropped), \
            (tid, seed, k, dropped)


def test_every_template_states_whose_turn_it_is():
    for tid in template_ids():
        rules = load_rules(tid)
        assert rules.declares in Turn and rules.orders in Turn
        assert (rules.declares is Turn.AUCTION) == rules.bidding, tid


# ---- found by the mutation campaign (bench/mutation.py) ------------------------------------------

def test_two_declarers_as_if_another_player_dealt_first_are_one_problem():
    """Only deals 9 and 10 written so far, both by the turn of a first dealer one seat on."""
    rows = "".join(deal(g, p) for g, p in BLANK_ROWS)
    text = game_text(deals=rows + deal("trumps", [12, 6, 6, 0], declarer="Вася")
                     + deal("trumps", [6, 9, 9, 0], declarer="Галя"))
    assert [(p.code, p.deal) for p in verify(read_game(text)).problems] == [("declarer", 9)]


def test_two_copies_and_one_missing_deal_is_one_moved_deal_and_one_extra():
    rows = list(BLANK_ROWS)
    rows = rows[:1] + rows[2:4] + [rows[1], rows[1]] + rows[4:]  # Черви left out at 2, written twice at 4 and 5
    text = game_text(deals="".join(deal(g, p) for g, p in rows))
    assert numbered(read_game(text)) == [("wrong-order", 4, None), ("extra-deal", 5, None)]


def test_a_finished_sheet_missing_its_last_deal_says_so_after_the_last_row():
    """Twelve rows, as many as the game has, but a King written twice and the last trump deal not
    at all: the extra King where it stands, and the missing deal after the last row."""
    rows = "".join(deal(g, p) for g, p in BLANK_ROWS[:4] + [("king", [0, -16, 0, 0])] + BLANK_ROWS[4:])
    rows += "".join(deal("trumps", [12, 6, 6, 0], declarer=d) for d in DECLARERS[:3])
    assert numbered(read_game(game_text(deals=rows))) == [("extra-deal", 5, None), ("missing-deal", 13, None)]


def test_a_deal_after_the_end_of_a_game_to_a_limit_is_extra():
    rows = "".join(deal("penalty", [-5, -1, -1, -1]) for _ in range(8))  # 8 hearts a deal; Аня −35 after deal 7
    found = verify(read_game(game_text("domino", deals=rows))).problems
    assert [(p.code, p.deal) for p in found] == [("extra-deal", 8)]
    assert "the game ended at deal 7, when a total reached −31" in found[0].message


def test_after_a_stage_written_first_the_missing_deal_is_named_from_the_order_written():
    """Plus games written before the minus ones, and one plus deal missing: the missing deal is named
    as a game of the half it is missing from, read in the order the sheet was written."""
    game = simulated("blank-4", 1)
    first = len(game.rules.stages[0])
    rows = list(game.deals)
    dropped = rows[first + 3]
    sheet = renumbered(game, rows[first:first + 3] + rows[first + 4:] + rows[:first])
    problems = [(p.code, p.game) for p in verify(sheet).problems]
    assert problems == [("wrong-order", rows[first].game), ("missing-deal", dropped.game)], problems


def test_with_free_declaring_a_player_may_declare_only_their_share(tmp_path):
    """[turn] trumps = "free": anyone declares, each their share of the trump deals (one of four here);
    a second trump deal by the same player is named at the deal where it passes the share."""
    from conftest import ROOT

    house = (ROOT / "templates" / "blank-4.toml").read_text(encoding="utf-8")
    (tmp_path / "free.toml").write_text(house.replace('id = "blank-4"', 'id = "free-4"') + '\n[turn]\ntrumps = "free"\n',
                                        encoding="utf-8")
    fair = blank_sheet(trumps=[([12, 6, 6, 0], d) for d in ("Галя", "Аня", "Боря", "Вася")])
    path = tmp_path / "g.toml"
    path.write_text(fair.replace('rules = "blank-4"', 'rules = "free.toml"'), encoding="utf-8")
    assert verify(read_game(path.read_text(encoding="utf-8"), path, tmp_path)).problems == ()
    twice = blank_sheet(trumps=[([12, 6, 6, 0], d) for d in ("Галя", "Аня", "Галя", "Вася")])
    path.write_text(twice.replace('rules = "blank-4"', 'rules = "free.toml"'), encoding="utf-8")
    problems = verify(read_game(path.read_text(encoding="utf-8"), path, tmp_path)).problems
    assert [(p.code, p.deal, p.player) for p in problems] == [("declarer", 11, "Галя")], problems
    assert "Галя declares more than their share (1)" in problems[0].message


def test_deals_far_past_the_end_of_the_blank_are_each_one_too_many():
    """Rows beyond the blank and the search's slack are not aligned at all: each is one deal too many."""
    text = blank_sheet() + "".join(deal("tricks", [-4, -4, -4, -4]) for _ in range(20))
    extra = [d for c, d, _ in numbered(read_game(text)) if c == "extra-deal"]
    assert extra == list(range(13, 33)), extra
    far = [p.message for p in verify(read_game(text)).problems if p.deal and p.deal > 28]
    assert far and all("one deal too many: the sheet has no row for it" in m for m in far), far


@pytest.mark.parametrize("free", [False, True])
def test_a_whole_ordered_sheet_names_the_game_played_twice_and_the_one_not_played(free, tmp_path):
    """ordered-56 written in full, with Боря's fifth deal the game he ordered first: that game is one too
    many for him, and the game it replaced is missing, named once the sheet has all its rows. With
    free ordering the orderer is who the sheet says."""
    from conftest import free_order_template

    game = simulated("ordered-56", 2)
    if free:
        game = replace(game, rules=load_rules(str(free_order_template(tmp_path))))
    rows = list(game.deals)
    assert rows[0].orderer == rows[4].orderer == "Боря" and rows[4].game == "last"
    twice = replace(rows[4], game=rows[0].game, points=rows[0].points, taken=rows[0].taken)
    problems = verify(renumbered(game, rows[:4] + [twice] + rows[5:])).problems
    named = [(p.code, p.deal, p.game, p.player) for p in problems if p.code in ("extra-deal", "missing-deal")]
    assert named == [("extra-deal", 5, rows[0].game, "Боря"), ("missing-deal", None, "last", "Боря")], named


def test_a_whole_ordered_sheet_with_every_orderer_one_seat_on_is_one_first_dealer_problem():
    """The file says Аня deals first, every orderer of the whole sheet is written one seat on: one
    problem (as if Боря dealt first), not 56. (A sheet shorter than the game could instead be missing
    its first deal; a whole one cannot.)"""
    game = replace(simulated("ordered-56", 2), first_dealer="Аня")
    players = list(game.players)
    rows = [replace(r, orderer=players[(players.index(r.orderer) + 1) % 4]) for r in game.deals]
    problems = verify(renumbered(game, rows)).problems
    assert [(p.code, p.deal) for p in problems] == [("orderer", 1)], problems
    assert "as if Боря dealt first" in problems[0].message


@pytest.mark.parametrize("seats, code, words", [(3, "extra-deal", "one seat early: one deal too many is written before it"),
                                                (1, "missing-deal", "1 seat late: 1 deal is missing before it")])
def test_orderers_a_seat_off_from_a_deal_on_are_a_deal_too_many_or_missing(seats, code, words):
    """From deal 10 on every orderer is written a seat early (three seats on, at four players: as if a deal
    were written twice before) or a seat late (a deal missing before): one problem, at deal 10."""
    game = simulated("ordered-56", 2)
    players = list(game.players)
    rows = [r if r.number < 10 else replace(r, orderer=players[(players.index(r.orderer) + seats) % 4])
            for r in game.deals]
    problems = [p for p in verify(renumbered(game, rows)).problems if p.deal is not None]
    assert [(p.code, p.deal) for p in problems] == [(code, 10)], problems
    assert words in problems[0].message


def test_where_anyone_may_order_a_deal_without_its_orderer_is_named(tmp_path):
    """Free ordering: the sheet alone says who ordered, so a deal without an orderer is a problem at it."""
    from conftest import free_order_template

    game = replace(simulated("ordered-56", 2), rules=load_rules(str(free_order_template(tmp_path))))
    rows = list(game.deals)
    rows[6] = replace(rows[6], orderer=None)
    problems = [p for p in verify(renumbered(game, rows)).problems if p.deal is not None]
    assert [(p.code, p.deal) for p in problems] == [("orderer", 7)], problems
    assert "who ordered this game is not recorded" in problems[0].message
