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
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from kingsheet.core.i18n import _, ngettext
from kingsheet.core.record import Record
from kingsheet.core.rules import Game, Kind, Rules
from kingsheet.core.vocabulary import CARD_CATEGORIES, card_word, count_word


class _Space(Record):
    by_value: dict[int, list[int]]  # a player's number -> encoded local tuples
    total: int  # the encoding of the deck's totals


def _card_values(rules: Rules, game: Game) -> Counter[int]:
    values: Counter[int] = Counter()
    for card in rules.deck.cards:
        v = sum(game.units[c] for c in CARD_CATEGORIES if rules.deck.is_in(card, c))
        if v:
            values[v] += 1
    return values


_T = TypeVar("_T")
_SPACES: dict[Any, Any] = {}
_ROWS: dict[Any, bool] = {}
_MAX_SPACES, _MAX_ROWS = 256, 50_000


def _memo(store: dict[Any, Any], key: Any, make: Callable[[], _T], limit: int) -> _T:
    """A bounded cache: a long-running process (``play``, a server) never grows without end."""
    if key not in store:
        if len(store) >= limit:
            store.clear()
        store[key] = make()
    result: _T = store[key]
    return result


def _space(rules: Rules, game_id: str) -> _Space:
    game = rules.games[game_id]
    # games that score alike share one space (Ералаш and АнтиЕралаш: the same units, signs apart)
    what = tuple(sorted(game.card_values.items())) if game.kind is Kind.CARDS else tuple(sorted(game.units.items()))
    return _memo(_SPACES, ("points", rules.key, game.kind is Kind.CARDS, what), lambda: _build_space(rules, game_id),
                 _MAX_SPACES)


def _build_space(rules: Rules, game_id: str) -> _Space:
    game = rules.games[game_id]
    if game.kind is Kind.CARDS:
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
    # every choice of how many cards of each value (the order of itertools.product over the
    # values: the first slowest), built value by value: (cards, their points, their code)
    shares = [(0, 0, 0)]
    for (v, cnt), wt in zip(classes, weights[2:]):
        shares = [(cards + x, points + v * x, code + wt * x) for cards, points, code in shares for x in range(cnt + 1)]
    # the tricks and last tricks of a player who holds at least t_min tricks: (points, code);
    # none when t_min is more than the deal has (his cards do not fit in its tricks)
    most = -(-sum(cnt for _, cnt in classes) // n)
    tails = [[(ut * t + ul * lt, weights[0] * t + weights[1] * lt)
              for t in range(t_min, tricks + 1) for lt in range(min(t, last) + 1)] for t_min in range(max(most, tricks) + 1)]
    by_value: dict[int, list[int]] = defaultdict(list)
    for cards, points, code in shares:
        for dv, dc in tails[-(-cards // n)]:  # the cards must fit in his tricks
            by_value[points + dv].append(code + dc)
    total = sum(wt * tot for wt, tot in zip(weights, totals))
    return _Space(dict(by_value), total)


def _card_space(card_values: Mapping[str, int], n: int) -> _Space:
    """A game scored by card values alone (Tier 2): no tricks to fit in, just who took which card.
    Here a player's number is the signed cell itself (the ten of diamonds scores plus)."""
    classes = sorted(Counter(card_values.values()).items())
    weights, w = [], 1
    for _unused, cnt in classes:
        weights.append(w)
        w *= n * cnt + 1
    by_value: dict[int, list[int]] = defaultdict(list)
    for xs in itertools.product(*(range(cnt + 1) for _unused, cnt in classes)):
        value = sum(v * x for (v, _), x in zip(classes, xs))
        by_value[value].append(sum(wt * x for wt, x in zip(weights, xs)))
    total = sum(wt * cnt for wt, (_, cnt) in zip(weights, classes))
    return _Space(dict(by_value), total)


def cards_possible(rules: Rules, game_id: str, cells: list[int]) -> bool:
    """True iff the scoring cards can be split among the players to give exactly these cells."""
    values = sorted(cells)
    return _memo(_ROWS, (rules.key, game_id, *values), lambda: _join(_space(rules, game_id), values), _MAX_ROWS)


def _sums(groups: list[list[int]]) -> set[int]:
    acc = {0}
    for codes in groups:
        acc = {a + c for a in acc for c in codes}
    return acc


def eralash_possible(rules: Rules, game_id: str, cells: list[int]) -> bool:
    """True iff some split of the deck's cards and tricks gives exactly these cells."""
    game = rules.games[game_id]
    values = sorted(game.sign * c for c in cells)  # who holds which number does not matter
    if len(values) != rules.players or any(v < 0 for v in values):
        return False
    return _memo(_ROWS, (rules.key, game_id, *values), lambda: _join(_space(rules, game_id), values), _MAX_ROWS)


def _join(space: _Space, values: list[int]) -> bool:
    """Whether one local tuple per player (by his number) adds up to the deck."""
    groups = [space.by_value.get(v) for v in values]
    return all(g is not None for g in groups) and _join_codes([g for g in groups if g is not None], space.total)


def _join_codes(groups: list[list[int]], total: int) -> bool:
    """Whether one encoding from each group adds up to ``total``: meet in the middle of the table."""
    if any(not g for g in groups):
        return False
    ordered = sorted(groups, key=len)
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
    need = {total - s for s in _sums(small)}
    if len(big) == 1:
        return not need.isdisjoint(big[0])
    return not need.isdisjoint(_sums(big))


def local_possible(rules: Rules, game_id: str, value: int) -> bool:
    """Whether one player alone can score ``value`` in this game (unsigned in trick games, the cell
    itself in games scored by card values)."""
    return value in _space(rules, game_id).by_value


# ---- counted rows: what each player took, checked against the real deck ------------------------


class _CountModel(Record):
    """The deck seen through the card categories one game counts.

    Cards are grouped by which counted categories they belong to (K♥ is a heart, the King and,
    with boys = kings, a boy: one group of its own). A player's local choice is how many cards of
    each group he took; ``by_counts`` maps the counts those cards give to every such choice, as
    (cards held, encoding). The encoding is mixed-radix with room for every player, with two more
    digits for tricks and last tricks, so the sum of the players' encodings is the encoding of
    the sum and the row is possible iff one choice per player adds up to the whole deck.
    """

    cats: tuple[str, ...]  # the card categories counted, in CARD_CATEGORIES order
    groups: tuple[tuple[tuple[str, ...], int], ...]  # (categories of the group's cards, how many)
    by_counts: dict[tuple[int, ...], list[tuple[int, int]]]
    w_tricks: int
    w_last: int
    total_cards: int  # the encoding of every group taken in full


def _count_model(rules: Rules, game_id: str) -> _CountModel:
    counted = tuple(sorted(rules.games[game_id].units))  # the model depends only on what is counted
    return _memo(_SPACES, ("counts", rules.key, counted), lambda: _build_count_model(rules, game_id), _MAX_SPACES)


def _build_count_model(rules: Rules, game_id: str) -> _CountModel:
    game, deck, n = rules.games[game_id], rules.deck, rules.players
    cats = tuple(c for c in CARD_CATEGORIES if c in game.units)
    sizes: Counter[tuple[str, ...]] = Counter()
    for card in deck.cards:
        sig = tuple(c for c in cats if deck.is_in(card, c))
        if sig:
            sizes[sig] += 1
    groups = tuple(sorted(sizes.items()))
    weights, w = [], 1
    for _unused, cnt in groups:
        weights.append(w)
        w *= n * cnt + 1
    w_tricks = w
    w_last = w * (n * deck.tricks + 1)
    # every choice of how many of each group, built up group by group (the order of
    # itertools.product over the groups: the first group slowest): its counts, cards and code;
    # the counts as one integer, a digit per category, read back into a tuple at the end
    radix = len(deck.cards) + 1
    shares = [(0, 0, 0)]
    for (sig, cnt), wt in zip(groups, weights):
        mask = sum(radix ** k for k, c in enumerate(cats) if c in sig)
        shares = [(seen + x * mask, cards + x, code + wt * x) for seen, cards, code in shares for x in range(cnt + 1)]
    by_code: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for seen, cards, code in shares:
        by_code[seen].append((cards, code))
    digits = [radix ** k for k in range(len(cats))]
    by_counts = {tuple([seen // d % radix for d in digits]): choices for seen, choices in by_code.items()}
    total = sum(wt * cnt for wt, (_, cnt) in zip(weights, groups))
    return _CountModel(cats, groups, by_counts, w_tricks, w_last, total)


def _player_codes(rules: Rules, model: _CountModel, counts: Mapping[str, int], tricks_known: bool,
                  last_known: bool) -> list[int]:
    """Every encoding of one player's share that gives exactly his counts."""
    deck, n = rules.deck, rules.players
    choices = model.by_counts.get(tuple(counts.get(c, 0) for c in model.cats), [])
    t_fixed = counts.get("tricks", 0) if tricks_known else None
    lt = counts.get("last", 0) if last_known else 0
    out = []
    for cards, code in choices:
        lowest = max(-(-cards // n), lt)
        for t in ([t_fixed] if t_fixed is not None else range(lowest, deck.tricks + 1)):
            if lowest <= t <= deck.tricks:
                out.append(code + model.w_tricks * t + model.w_last * lt)
    return out


def counts_possible(rules: Rules, game_id: str, taken: Sequence[Mapping[str, int]]) -> bool:
    """True iff the deck can be split into tricks, and the tricks (with the last ones) given to
    the players, so that each player's counts come out exactly as written.

    ``taken`` holds, per player, the game's categories (``tricks`` for the tricks of a trump deal).
    A category the game does not count is free.
    """
    rows = sorted(tuple(sorted(_as_tricks(t).items())) for t in taken)  # who took what does not matter
    return _memo(_ROWS, ("counts", rules.key, game_id, *rows), lambda: _counts_join(rules, game_id, rows), _MAX_ROWS)


def _as_tricks(counts: Mapping[str, int]) -> dict[str, int]:
    """A trump deal counts its tricks under the name ``trumps``; here they are tricks."""
    return {("tricks" if c == "trumps" else c): v for c, v in counts.items()}


def _known(game: Game) -> tuple[bool, bool]:
    """Whether the game counts the tricks and the last tricks (else they are free)."""
    return "tricks" in game.units or "trumps" in game.units, "last" in game.units


def _counts_join(rules: Rules, game_id: str, rows: list[tuple[tuple[str, int], ...]]) -> bool:
    model = _count_model(rules, game_id)
    tricks_known, last_known = _known(rules.games[game_id])
    groups = [_player_codes(rules, model, dict(r), tricks_known, last_known) for r in rows]
    # every trick is someone's; the last tricks are among them when they are counted
    deck = rules.deck
    total = model.total_cards + model.w_tricks * deck.tricks + (model.w_last * deck.last_tricks if last_known else 0)
    return _join_codes(groups, total)


def count_shortfall(rules: Rules, game_id: str, counts: Mapping[str, int]) -> str | None:
    """Why one player's counts are impossible whatever the others took, naming the card or the
    tricks at fault; None when some share of the deck gives them."""
    game, deck, n = rules.games[game_id], rules.deck, rules.players
    model = _count_model(rules, game_id)
    tricks_known, last_known = _known(game)
    counts = _as_tricks(counts)
    t, lt = counts.get("tricks", 0), counts.get("last", 0)
    counted = (*model.cats, *(("tricks",) if tricks_known else ()), *(("last",) if last_known else ()))
    for cat in counted:
        if counts.get(cat, 0) > deck.count(cat):
            return _("{what} {count}, but the deal holds only {held}").format(
                what=count_word(cat), count=counts[cat], held=deck.count(cat))
    if tricks_known and last_known and lt > t:
        return ngettext("{last} of the last tricks, but only {tricks} trick in all",
                        "{last} of the last tricks, but only {tricks} tricks in all", t).format(last=lt, tricks=t)
    held = [c for c in model.cats if counts.get(c, 0)]
    if tricks_known and t == 0 and held:
        return _("no tricks taken, so {what} cannot be {count}").format(
            what=count_word(held[0]), count=counts[held[0]])
    if counts.get("king", 0):
        for cat, why in (("hearts", _("the King is a heart")), ("boys", _("the King is a boy under these rules"))):
            if cat in model.cats and deck.is_in("KH", cat) and counts.get(cat, 0) == 0:
                return _("{why}, so {what} cannot be 0").format(why=why, what=count_word(cat))
    choices = model.by_counts.get(tuple(counts.get(c, 0) for c in model.cats))
    if not choices:
        shown = ", ".join(f"{count_word(c)} {counts.get(c, 0)}" for c in model.cats)
        return _("no cards of the deck give {shown} together (Q♥, J♥ and K♥ count twice)").format(shown=shown)
    fewest = min(cards for cards, _choice in choices)
    if tricks_known and fewest > n * t:
        return ngettext("{tricks} trick holds {cards} cards, fewer than the {need} these counts need",
                        "{tricks} tricks hold {cards} cards, fewer than the {need} these counts need",
                        t).format(tricks=t, cards=n * t, need=fewest)
    return None


def count_conflict(rules: Rules, game_id: str, taken: Sequence[Mapping[str, int]]) -> str:
    """Why counts that are each possible alone cannot come from one deck: the first card that
    counts twice with no player to hold it, else the tricks that cannot hold what they must."""
    model = _count_model(rules, game_id)
    rows = [_as_tricks(t) for t in taken]
    for sig, size in model.groups:
        if len(sig) < 2:
            continue
        room = sum(min(r.get(c, 0) for c in sig) for r in rows)
        if room < size:
            cards = [_card_name(c) for c in rules.deck.cards if tuple(k for k in model.cats
                                                                      if rules.deck.is_in(c, k)) == sig]
            what = _(" and ").join(card_word(c) for c in sig)
            return ngettext("{cards}: {what}, but the players' counts leave room for {room} such card, not {size}",
                            "{cards}: {what}, but the players' counts leave room for {room} such cards, not {size}",
                            room).format(cards=", ".join(cards), what=what, room=room, size=size)
    return _("no split of the cards into tricks of {players} gives these counts together "
             "(Q♥, J♥ and K♥ count twice)").format(players=rules.players)


def _card_name(card: str) -> str:
    return card[:-1] + {"S": "♠", "C": "♣", "D": "♦", "H": "♥"}[card[-1]]
