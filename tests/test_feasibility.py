"""The exact Ералаш check, against hand-worked rows, an independent brute force, and real play."""

from __future__ import annotations

import random
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kingsheet.core.feasibility import eralash_possible
from kingsheet.core.simulate import play_deal
from kingsheet.files.templates import load_rules

BLANK = load_rules("blank-4")  # boys = jacks


@pytest.mark.parametrize("row, ok", [
    ([-96, 0, 0, 0], True),          # one player took everything
    ([-24, -24, -24, -24], True),
    ([-2, -2, -2, -90], True),       # three took one empty trick each
    ([-94, -2, 0, 0], True),
    ([-4, 0, 0, -92], True),         # two empty tricks
    ([-6, -6, -6, -78], True),       # a trick and one heart each
    ([-90, -2, -2, -2], True),       # 5 tricks hold all 14 scoring cards (Q♥, J♥ count twice)
    ([-32, -32, -32, 0], True),
    ([-95, -1, 0, 0], False),        # odd: every unit is even
    ([-97, 1, 0, 0], False),         # a plus in a minus game
])
def test_hand_worked_rows(row, ok):
    assert eralash_possible(BLANK, "eralash", row) is ok
    assert brute_possible(tuple(-v for v in row)) is ok


def test_three_simple_local_impossibility():
    rules = load_rules("three-simple")  # trick 2, heart 2, jack 5, girl 5, King 20, last 10
    assert not eralash_possible(rules, "eralash", [-5, -20, -91])   # a jack alone: no trick to hold it
    assert eralash_possible(rules, "eralash", [-7, -20, -89])       # a trick with a jack in it
    assert not eralash_possible(rules, "eralash", [-115, 0, -1])


# --- an independent brute force over per-category counts, with the cards Q♥ J♥ K♥ named ----------

def _locals(value: int) -> list[tuple[int, ...]]:
    out = []
    for t in range(9):
        for lt in range(min(t, 2) + 1):
            for k in range(2):
                for q in range(2):       # holds Q♥
                    for j in range(2):   # holds J♥
                        for h in range(q + j + k, 9):
                            for g in range(q, 5):
                                for b in range(j, 5):
                                    if h + (g - q) + (b - j) > 4 * t:
                                        continue
                                    if 2 * t + 2 * h + 4 * b + 4 * g + 16 * k + 8 * lt == value:
                                        out.append((t, lt, k, q, j, h, g, b))
    return out


@cache
def _locals_cached(value: int) -> tuple[tuple[int, ...], ...]:
    return tuple(_locals(value))


def brute_possible(values: tuple[int, ...]) -> bool:
    totals = (8, 2, 1, 1, 1, 8, 4, 4)

    @cache
    def go(i: int, rest: tuple[int, ...]) -> bool:
        if i == len(values):
            return all(r == 0 for r in rest)
        for tup in _locals_cached(values[i]):
            nxt = tuple(r - x for r, x in zip(rest, tup))
            if min(nxt) >= 0 and go(i + 1, nxt):
                return True
        return False

    return go(0, totals)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 48), min_size=3, max_size=3))
def test_agrees_with_brute_force(halves):
    values = [2 * v for v in halves]
    last = 96 - sum(values)
    if last < 0:
        values, last = [0, 0, 0], 96
    row = (*values, last)
    assert eralash_possible(BLANK, "eralash", [-v for v in row]) is brute_possible(row)


@pytest.mark.parametrize("tid, opts", [
    ("blank-4", {}), ("blank-4", {"boys": "kings"}), ("king-14-alt", {}), ("kingcardgame", {}),
    ("three-30", {}), ("three-simple", {}), ("classic-52", {"eralash": "yes"}),
    ("classic-52-3", {"eralash": "yes", "last": "two"}), ("five-40", {}), ("six-48", {"boys": "jacks+kings"}),
])
def test_played_eralash_is_always_possible(tid, opts):
    rules = load_rules(tid, opts)
    rng = random.Random(tid)
    for gid in [g for g in rules.games if g.startswith("eralash")]:
        for _ in range(40):
            played = play_deal(rules, gid, rng, leader=rng.randrange(rules.players))
            assert sum(played.points) == rules.games[gid].total
            assert eralash_possible(rules, gid, list(played.points)), played
