"""Counted rows (``taken``) are checked exactly: a row passes iff the real deck can give it.

The oracle here is written apart from the checker and shares none of its code: it hands out the
real cards one by one (K♥, Q♠, …), then builds the actual tricks, each of exactly as many cards
as there are players, puts the last tricks where the counts say, and counts the tricks again.
The checker (``kingsheet.core.feasibility.counts_possible``) groups cards and joins encodings; the
two must agree on every row, possible or not.
"""

from __future__ import annotations

import itertools
import random
from functools import cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import game_text
from kingsheet.core.feasibility import counts_possible
from kingsheet.core.rules import Rules
from kingsheet.core.verify import verify
from kingsheet.files.gamefile import read_game
from kingsheet.files.templates import load_rules, template_ids

CARD_CATS = ("hearts", "boys", "girls", "king")
SEQUENCE = ("wrong-order", "extra-deal", "missing-deal")  # these sheets are fragments of a game
NAMES = ("Аня", "Боря", "Вася", "Галя", "Дима", "Женя")


def counted(rules: Rules, gid: str) -> tuple[str, ...]:
    units = rules.games[gid].units
    return tuple(("tricks" if c == "trumps" else c) for c in units)


def card_in(rules: Rules, card: str, cat: str) -> bool:
    """Membership written out from the rules of the game, not taken from the checker's deck."""
    rank, suit = card[:-1], card[-1]
    boys = rules.options.get("boys", "jacks")
    return {
        "hearts": suit == "H",
        "girls": rank == "Q",
        "king": card == "KH",
        "boys": (rank == "J" and boys in ("jacks", "jacks+kings")) or (rank == "K" and boys in ("kings", "jacks+kings")),
    }[cat]


def count_tricks(rules: Rules, gid: str, tricks: list[tuple[int, list[str]]]) -> list[dict[str, int]]:
    """What each player took, from real tricks in the order they were played: (winner, cards)."""
    cats = counted(rules, gid)
    n, last = rules.players, rules.deck.last_tricks
    out = [dict.fromkeys(cats, 0) for _ in range(n)]
    for k, (winner, cards) in enumerate(tricks):
        assert len(cards) == n
        got = out[winner]
        if "tricks" in got:
            got["tricks"] += 1
        if "last" in got and k >= len(tricks) - last:
            got["last"] += 1
        for card in cards:
            for cat in CARD_CATS:
                if cat in got and card_in(rules, card, cat):
                    got[cat] += 1
    return out


def deal_real_cards(rules: Rules, gid: str, rng: random.Random) -> list[dict[str, int]]:
    """Shuffle the deck, put a talon of cards that score nothing aside, cut the rest into tricks
    and hand each trick to a player (some players favoured, so lopsided rows come up too)."""
    n = rules.players
    cards = list(rules.deck.cards)
    rng.shuffle(cards)
    cats = [c for c in CARD_CATS if c in counted(rules, gid)]
    blank = [c for c in cards if not any(card_in(rules, c, k) for k in cats)]
    for c in blank[: rules.deck.talon]:
        cards.remove(c)
    weights = [rng.random() ** 3 for _ in range(n)]
    tricks = [(rng.choices(range(n), weights)[0], cards[i:i + n]) for i in range(0, len(cards), n)]
    return count_tricks(rules, gid, tricks)


def oracle(rules: Rules, gid: str, taken: list[dict[str, int]]) -> bool:
    """Hand out every scoring card, then build the tricks for real and count them again."""
    n, deck = rules.players, rules.deck
    cats = counted(rules, gid)
    card_cats = [c for c in CARD_CATS if c in cats]
    scoring = [c for c in deck.cards if any(card_in(rules, c, k) for k in card_cats)]
    filler = [c for c in deck.cards if c not in scoring]
    want = [tuple(t.get(k, 0) for k in card_cats) for t in taken]
    n_last = deck.last_tricks
    n_tricks = (len(deck.cards) - deck.talon) // n
    tricks_of = [t.get("tricks") for t in taken] if "tricks" in cats else None
    last_of = [t.get("last", 0) for t in taken] if "last" in cats else None
    if tricks_of is not None and sum(tricks_of) != n_tricks:
        return False
    if last_of is not None and sum(last_of) != n_last:
        return False

    def build(hands: list[list[str]]) -> bool:
        lasts = last_of or [0] * n
        if tricks_of is not None:
            counts = list(tricks_of)
        else:
            counts = [max(-(-len(h) // n), lasts[i]) for i, h in enumerate(hands)]
            if sum(counts) > n_tricks:
                return False
            counts[0] += n_tricks - sum(counts)  # the spare tricks go to anyone
        if any(len(hand) > n * counts[p] or lasts[p] > counts[p] for p, hand in enumerate(hands)):
            return False
        pool = list(filler)
        tricks: list[tuple[int, list[str]]] = []
        for p, hand in enumerate(hands):
            held = hand + [pool.pop() for _ in range(n * counts[p] - len(hand))]
            tricks.extend((p, held[k * n:(k + 1) * n]) for k in range(counts[p]))
        # the last tricks: lasts[p] of each player's tricks go to the end
        early = [t for p in range(n) for t in [x for x in tricks if x[0] == p][lasts[p]:]]
        late = [t for p in range(n) for t in [x for x in tricks if x[0] == p][:lasts[p]]]
        if last_of is None:
            early, late = tricks, []
        return count_tricks(rules, gid, early + late) == [
            {k: t.get(k, 0) for k in cats} for t in taken]

    failed: set[tuple[object, ...]] = set()
    hands: list[list[str]] = [[] for _ in range(n)]

    def place(i: int, need: list[list[int]]) -> bool:
        if i == len(scoring):
            return all(not any(x) for x in need) and build([list(h) for h in hands])
        key = (i, tuple(map(tuple, need)), tuple(len(h) for h in hands))
        if key in failed:
            return False
        card = scoring[i]
        marks = [card_in(rules, card, k) for k in card_cats]
        for p in range(n):
            if all(need[p][j] >= 1 for j, m in enumerate(marks) if m):
                for j, m in enumerate(marks):
                    need[p][j] -= m
                hands[p].append(card)
                ok = place(i + 1, need)
                hands[p].pop()
                for j, m in enumerate(marks):
                    need[p][j] += m
                if ok:
                    return True
        failed.add(key)
        return False

    return place(0, [list(w) for w in want])


def variants() -> list[tuple[str, dict[str, str], str]]:
    """Every template's counted games under every boys and last option."""
    out = []
    for tid in template_ids():
        base = load_rules(tid)
        opts = {k: v for k, v in base.template.options.items() if k in ("boys", "last")}
        for combo in itertools.product(*(choices for choices, _ in opts.values())):
            chosen = dict(zip(opts, combo))
            rules = load_rules(tid, chosen)
            for gid, game in rules.games.items():
                if game.kind != "cards" and not gid.endswith("+"):
                    out.append((tid, chosen, gid))
    return out


VARIANTS = variants()


def perturb(rules: Rules, gid: str, row: list[dict[str, int]], rng: random.Random) -> list[dict[str, int]]:
    """Move one unit of a category from one player to another: the sums stay, the split may not."""
    row = [dict(r) for r in row]
    cats = counted(rules, gid)
    for _ in range(rng.randint(1, 3)):
        cat = rng.choice(cats)
        givers = [p for p in range(len(row)) if row[p].get(cat, 0) > 0]
        if not givers:
            continue
        a = rng.choice(givers)
        b = rng.randrange(len(row))
        row[a][cat] -= 1
        row[b][cat] = row[b].get(cat, 0) + 1
    return row


@cache
def rules_of(tid: str, opts: tuple[tuple[str, str], ...]) -> Rules:
    return load_rules(tid, dict(opts))


@pytest.mark.parametrize("tid, opts, gid", VARIANTS, ids=lambda v: str(v) if not isinstance(v, dict) else
                         ",".join(v.values()) or "-")
def test_real_deals_pass_and_perturbed_ones_agree_with_the_oracle(tid, opts, gid):
    rules = rules_of(tid, tuple(sorted(opts.items())))
    rng = random.Random(f"{tid}{opts}{gid}")
    agreed = refused = 0
    for _ in range(12):
        row = deal_real_cards(rules, gid, rng)
        assert counts_possible(rules, gid, row), row
        assert oracle(rules, gid, row), row
        for _ in range(4):
            bent = perturb(rules, gid, row, rng)
            truth = oracle(rules, gid, bent)
            assert counts_possible(rules, gid, bent) is truth, bent
            agreed += 1
            refused += not truth
    assert agreed == 48


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_count_rows_agree_with_the_oracle(data):
    """Rows drawn freely within each category's total: mostly impossible ones, near the edge."""
    tid, opts, gid = data.draw(st.sampled_from([v for v in VARIANTS if v[2] == "eralash"]))
    rules = rules_of(tid, tuple(sorted(opts.items())))
    n, deck = rules.players, rules.deck
    row: list[dict[str, int]] = [{} for _ in range(n)]
    for cat in counted(rules, gid):
        total = deck.count(cat)
        cuts = sorted(data.draw(st.lists(st.integers(0, total), min_size=n - 1, max_size=n - 1)))
        parts = [b - a for a, b in zip([0, *cuts], [*cuts, total])]
        for p in range(n):
            row[p][cat] = parts[p]
    assert counts_possible(rules, gid, row) is oracle(rules, gid, row), row


# The three rows of the verifier issue, 4 players and 32 cards; each was accepted before.
ISSUE_ROWS = [
    ("kings", [  # Аня has the King but no boy, while the others hold all four kings
        "{ tricks = 2, hearts = 1, king = 1 }", "{ tricks = 2, boys = 4, hearts = 2 }",
        "{ tricks = 2, hearts = 5, girls = 4, last = 1 }", "{ tricks = 2, last = 1 }"], "Аня",
     "Аня: the King is a boy under these rules, so boys cannot be 0"),
    ("jacks", [  # Аня takes all 8 hearts with no jack and no queen; Боря has 4 jacks (J♥ twice)
        "{ tricks = 3, hearts = 8, king = 1 }", "{ tricks = 2, boys = 4, girls = 1 }",
        "{ tricks = 2, girls = 3, last = 1 }", "{ tricks = 1, last = 1 }"], "Аня", None),
    ("jacks", [  # Аня's one trick would hold K♥, two queens and two jacks: five cards
        "{ tricks = 1, hearts = 1, king = 1, girls = 2, boys = 2 }", "{ tricks = 3, hearts = 4, boys = 2, last = 1 }",
        "{ tricks = 2, hearts = 3, girls = 2, last = 1 }", "{ tricks = 2 }"], "Аня",
     "Аня: 1 trick holds 4 cards, fewer than the 5 these counts need"),
]


@pytest.mark.parametrize("boys, row, who, message", ISSUE_ROWS)
def test_the_issue_rows_are_refused_naming_the_player(boys, row, who, message):
    deals = '\n[[deals]]\ngame = "eralash"\ntaken = [\n' + ",\n".join(f"  {r}" for r in row) + "\n]\n"
    text = game_text(deals=deals, extra=f'\n[options]\nboys = "{boys}"\n')
    report = verify(read_game(text))
    found = [p for p in report.problems if p.code == "cell-impossible"]
    assert [p for p in report.problems if p.code not in ("cell-impossible", *SEQUENCE)] == []
    assert found and found[0].deal == 1 and found[0].player == who, report.problems
    if message:
        assert found[0].message == f"deal 1 (Eralash): {message}"
    rules = load_rules("blank-4", {"boys": boys})
    parsed = read_game(text).deals[0].taken
    assert parsed is not None
    assert not oracle(rules, "eralash", [dict(t) for t in parsed])


def test_a_row_refused_only_as_a_whole_says_why():
    """Each player's counts are possible alone; together four queens and no hearts leave Q♥ nowhere."""
    row = [
        "{ tricks = 4, girls = 3, last = 1 }",
        "{ tricks = 1, girls = 1 }",
        "{ tricks = 2, hearts = 5, boys = 2, king = 1, last = 1 }",
        "{ tricks = 1, hearts = 3, boys = 2 }",
    ]
    deals = '\n[[deals]]\ngame = "eralash"\ntaken = [\n' + ",\n".join(f"  {r}" for r in row) + "\n]\n"
    game = read_game(game_text(deals=deals))
    assert game.deals[0].taken is not None
    assert not oracle(load_rules("blank-4"), "eralash", [dict(t) for t in game.deals[0].taken])
    assert [(p.code, p.deal, p.player, p.message) for p in verify(game).problems
            if p.code not in SEQUENCE] == [
        ("cell-impossible", 1, None, "deal 1 (Eralash): Q♥: a heart and a girl, but the players' counts leave "
                                     "room for 0 such cards, not 1")]


def test_seed_001_trick_counted():
    """Seed 001: 9♣ K♥ J♣ A♣ as the 7th trick of negative Ералаш costs its winner 2 + 2 + 4 + 16 + 8
    = −32 with boys = jacks+kings (king-14-alt: 2 a boy). Written as counts, with the rest of the
    deck taken by the others."""
    rules = load_rules("king-14-alt")
    one = {"tricks": 1, "hearts": 1, "boys": 2, "king": 1, "last": 1}
    assert rules.games["eralash"].points(one) == -32
    row = [one, {"tricks": 3, "hearts": 4, "boys": 3, "girls": 2, "last": 1},
           {"tricks": 2, "hearts": 3, "boys": 2, "girls": 2}, {"tricks": 2, "boys": 1}]
    assert counts_possible(rules, "eralash", row) and oracle(rules, "eralash", row)
    # the same trick with the King but no boy cannot be: K♥ is a boy in this convention
    row[0] = {"tricks": 1, "hearts": 1, "boys": 0, "king": 1, "last": 1}
    row[3] = {"tricks": 2, "boys": 3}
    assert not counts_possible(rules, "eralash", row) and not oracle(rules, "eralash", row)


@pytest.mark.parametrize("tid, opts", [("blank-4", {"boys": "jacks+kings"}), ("classic-52", {"eralash": "yes"}),
                                       ("three-30", {})])
def test_the_encodings_never_carry(tid, opts):
    """The join adds one encoding per player and compares with the deck's: that is exact only if no
    digit can overflow into the next, so each radix must exceed what all players together can hold.
    (A narrower radix would pass almost every row and accept a few impossible ones.)"""
    from kingsheet.core.feasibility import _count_model, _space

    rules = load_rules(tid, opts)
    n, deck = rules.players, rules.deck
    model = _count_model(rules, "eralash")
    w = 1
    for _, size in model.groups:
        w *= n * size + 1
    assert model.w_tricks == w and model.w_last == w * (n * deck.tricks + 1)
    space = _space(rules, "eralash")  # the points model: every one player's code fits below the deck's
    assert all(code <= space.total for codes in space.by_value.values() for code in codes)
