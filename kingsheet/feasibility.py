"""Is an Ералаш row possible? Exact, for any deck a template describes.

A row of Ералаш gives each player one number, the sum of everything he took. The row is
possible iff the deck's cards and tricks can be split among the players so that each gets
exactly his number. Only a card's *points* matter (K♥ is a heart, the King and perhaps a boy:
its points are the sum), so cards are grouped by their value in this game; a player who took
``t`` tricks holds ``players × t`` cards, so his scoring cards fit in them; the last tricks
are among his ``t``.

Per player we list every local tuple (tricks, last tricks, how many cards of each value) with
the player's number, encoded as one integer in a mixed radix wide enough that adding the
tuples of all players never carries: the sum of encodings is the encoding of the sum. The row
is possible iff one tuple per player adds up to the deck's totals: a meet-in-the-middle join
of two halves of the table.
"""

from __future__ import annotations

import itertools
from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass

from .rules import Game, Rules


@dataclass(frozen=True)
class _Space:
    by_value: dict[int, list[int]]  # a player's number -> encoded local tuples
    total: int  # the encoding of the deck's totals


def _card_values(rules: Rules, game: Game) -> Counter[int]:
    values: Counter[int] = Counter()
    for card in rules.deck.cards:
        v = sum(game.units[c] for c in ("hearts", "boys", "girls", "king") if rules.deck.is_in(card, c))
        if v:
            values[v] += 1
    return values


_SPACES: dict[tuple[object, ...], _Space] = {}


def _space(rules: Rules, game_id: str) -> _Space:
    key = (rules.key, game_id)
    if key not in _SPACES:
        _SPACES[key] = _build_space(rules, game_id)
    return _SPACES[key]


def _build_space(rules: Rules, game_id: str) -> _Space:
    game = rules.games[game_id]
    if game.kind == "cards":
        return _card_space(game.card_values, rules.players)
    deck, n = rules.deck, rules.players
    classes = sorted(_card_values(rules, game).items())  # (value, how many in the deck)
    tricks, last = deck.tricks, deck.last_tricks
    ut, ul = game.units["tricks"], game.units["last"]
    # digits: tricks, last, then one per card value; radix so that n players never carry
    totals = [tricks, last, *[cnt for _, cnt in classes]]
    weights, w = [], 1
    for tot in totals:
        weights.append(w)
        w *= n * tot + 1
    by_value: dict[int, list[int]] = defaultdict(list)
    ranges = [range(cnt + 1) for _, cnt in classes]
    for xs in itertools.product(*ranges):
        cards = sum(xs)
        card_points = sum(v * x for (v, _), x in zip(classes, xs))
        code_cards = sum(wt * x for wt, x in zip(weights[2:], xs))
        t_min = -(-cards // n)  # the cards must fit in his tricks
        for t in range(t_min, tricks + 1):
            for lt in range(min(t, last) + 1):
                value = ut * t + ul * lt + card_points
                by_value[value].append(weights[0] * t + weights[1] * lt + code_cards)
    total = sum(wt * tot for wt, tot in zip(weights, totals))
    return _Space(dict(by_value), total)


def _card_space(card_values: Mapping[str, int], n: int) -> _Space:
    """A game scored by card values alone (Tier 2): no tricks to fit in, just who took which card.
    Here a player's number is the signed cell itself (the ten of diamonds scores plus)."""
    classes = sorted(Counter(card_values.values()).items())
    weights, w = [], 1
    for _, cnt in classes:
        weights.append(w)
        w *= n * cnt + 1
    by_value: dict[int, list[int]] = defaultdict(list)
    for xs in itertools.product(*(range(cnt + 1) for _, cnt in classes)):
        value = sum(v * x for (v, _), x in zip(classes, xs))
        by_value[value].append(sum(wt * x for wt, x in zip(weights, xs)))
    total = sum(wt * cnt for wt, (_, cnt) in zip(weights, classes))
    return _Space(dict(by_value), total)


def cards_possible(rules: Rules, game_id: str, cells: list[int]) -> bool:
    """True iff the scoring cards can be split among the players to give exactly these cells."""
    values = sorted(cells)
    key = (rules.key, game_id, *values)
    if key not in _ROWS:
        _ROWS[key] = _join(_space(rules, game_id), values)
    return _ROWS[key]


def _sums(groups: list[list[int]]) -> set[int]:
    acc = {0}
    for codes in groups:
        acc = {a + c for a in acc for c in codes}
    return acc


_ROWS: dict[tuple[object, ...], bool] = {}


def eralash_possible(rules: Rules, game_id: str, cells: list[int]) -> bool:
    """True iff some split of the deck's cards and tricks gives exactly these cells."""
    game = rules.games[game_id]
    values = sorted(game.sign * c for c in cells)  # who holds which number does not matter
    if len(values) != rules.players or any(v < 0 for v in values):
        return False
    key = (rules.key, game_id, *values)
    if key not in _ROWS:
        if len(_ROWS) > 50_000:
            _ROWS.clear()
        _ROWS[key] = _search(rules, game_id, values)
    return _ROWS[key]


def _search(rules: Rules, game_id: str, values: list[int]) -> bool:
    return _join(_space(rules, game_id), values)


def _join(space: _Space, values: list[int]) -> bool:
    """Whether one local tuple per player adds up to the deck: meet in the middle of the table."""
    groups = [space.by_value.get(v) for v in values]
    if any(g is None for g in groups):
        return False
    ordered = sorted((g for g in groups if g is not None), key=len)
    # balance the two halves by the product of their sizes
    left: list[list[int]] = []
    right: list[list[int]] = []
    lsize = rsize = 1
    for g in reversed(ordered):
        if lsize <= rsize:
            left.append(g)
            lsize *= len(g)
        else:
            right.append(g)
            rsize *= len(g)
    small, big = (left, right) if lsize <= rsize else (right, left)
    need = {space.total - s for s in _sums(small)}
    if len(big) == 1:
        return not need.isdisjoint(big[0])
    return not need.isdisjoint(_sums(big))


def local_possible(rules: Rules, game_id: str, value: int) -> bool:
    """Whether one player alone can score ``value`` in this game (unsigned in trick games, the cell
    itself in games scored by card values)."""
    return value in _space(rules, game_id).by_value
