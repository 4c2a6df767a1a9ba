"""Deal a shuffled deck and play legal cards: real deals for examples, tests and benchmarks.

Nothing here decides what is *right*; it only plays cards by the rules of play (follow suit,
no hearts lead where forbidden, trumps beat) and counts what each player took.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from kingsheet.core.record import Record
from kingsheet.core.rules import Kind, Order, Rules
from kingsheet.core.scoring import hearts_lead_forbidden


class Played(Record):
    game: str
    taken: tuple[dict[str, int], ...]  # per player, category -> count
    points: tuple[int, ...]
    declarer: int | None = None
    contract: str | None = None  # games with a chosen penalty suit: its name
    bid: int | None = None


def play_deal(rules: Rules, game_id: str, rng: random.Random, leader: int = 0,
              trump: str | None = None) -> Played:
    game = rules.games[game_id]
    deck, n = rules.deck, rules.players
    ranks = list(dict.fromkeys(c[:-1] for c in deck.cards))
    power = {r: i for i, r in enumerate(ranks)}
    cards = list(deck.cards)
    rng.shuffle(cards)
    if deck.talon:
        # the declarer discards cards that score nothing in this deal (seed 002, Минский)
        scoring = {c for c in cards if any(deck.is_in(c, k) for k in ("hearts", "boys", "girls", "king")
                                            if k in game.units)}
        talon = [c for c in cards if c not in scoring][: deck.talon]
        cards = [c for c in cards if c not in talon]
    hands = [cards[i::n] for i in range(n)]
    won: list[list[str]] = [[] for _ in range(n)]
    base = game_id.rstrip("+")
    counts = [dict.fromkeys(("tricks", "hearts", "boys", "girls", "king", "last"), 0) for _ in range(n)]
    for trick_no in range(deck.tricks):
        order = [(leader + k) % n for k in range(n)]
        hand = hands[leader]
        leads = hand
        if hearts_lead_forbidden(rules, base) and trump is None:
            others = [c for c in hand if c[-1] != "H"]
            leads = others or hand
        lead = rng.choice(leads)
        played = {leader: lead}
        hand.remove(lead)
        for p in order[1:]:
            follow = [c for c in hands[p] if c[-1] == lead[-1]]
            card = rng.choice(follow or hands[p])
            hands[p].remove(card)
            played[p] = card

        def strength(item: tuple[int, str], lead: str = lead) -> tuple[int, int]:
            card = item[1]
            if trump and card[-1] == trump:
                return (2, power.get(card[:-1], -1))
            return (1, power.get(card[:-1], -1)) if card[-1] == lead[-1] else (0, 0)

        winner = max(played.items(), key=strength)[0]
        won[winner].extend(played.values())
        got = counts[winner]
        got["tricks"] += 1
        if trick_no >= deck.tricks - deck.last_tricks:
            got["last"] += 1
        for card in played.values():
            for cat in ("hearts", "boys", "girls", "king"):
                if deck.is_in(card, cat):
                    got[cat] += 1
        leader = winner
    cats = game.categories
    if game.kind is Kind.CARDS:
        for p in range(n):  # cards that did not fill a trick (domino's «базар») join their holder's
            won[p].extend(hands[p])
        return _card_points(rules, game_id, won, rng)
    if cats == ("trumps",):
        taken = tuple({"tricks": c["tricks"]} for c in counts)
        points = tuple(game.units["trumps"] * c["tricks"] for c in counts)
    else:
        taken = tuple({k: c[k] for k in cats if c[k]} for c in counts)
        points = tuple(game.points(c) for c in counts)
    return Played(game_id, taken, points)


SUIT_WORDS = {"S": "пики", "C": "трефы", "D": "бубны", "H": "черви"}


def _card_points(rules: Rules, game_id: str, won: list[list[str]], rng: random.Random) -> Played:
    game = rules.games[game_id]
    n = rules.players
    if game.choose_suit:
        suit = rng.choice("SCDH")
        declarer = rng.randrange(n)
        bid = rng.randint(0, 4) if game.bid else 0
        points = [-sum(1 for c in cards if c[-1] == suit and not c.startswith("JOKER")) for cards in won]
        points[declarer] -= bid
        return Played(game_id, (), tuple(points), declarer, SUIT_WORDS[suit], bid if game.bid else None)
    values = game.card_values
    points = [sum(values.get(c, 0) for c in cards) for cards in won]
    if game.moon is not None:
        for k, cards in enumerate(won):
            if set(values) <= set(cards):  # took every scoring card
                points = [0] * n
                points[k] = game.moon
    return Played(game_id, (), tuple(points))


def play_game(rules: Rules, rng: random.Random, first_dealer: int = 0) -> Iterator[tuple[Played, int]]:
    """A whole game in the template's order; yields (deal, index of its orderer/declarer)."""
    n = rules.players
    if rules.limit is not None:  # played until someone's total reaches −limit
        totals = [0] * n
        for k in range(500):
            dealer = (first_dealer + k) % n
            played = play_deal(rules, "penalty", rng, leader=(dealer + 1) % n)
            yield played, (played.declarer if played.declarer is not None else (dealer + 1) % n)
            totals = [a + b for a, b in zip(totals, played.points)]
            if min(totals) <= -rules.limit:
                return
        return
    slots = list(rules.slots)
    if rules.order is not Order.FIXED:
        rng.shuffle(slots)
    if rules.order is Order.ORDERED_PLAYER:
        # each player orders each of his games once: the player left of the dealer orders
        pending = {p: list(rules.per_round) for p in range(n)}
        for p in pending.values():
            rng.shuffle(p)
        slots = []
        for k in range(len(rules.slots)):
            orderer = (first_dealer + k + 1) % n
            slots.append(pending[orderer].pop())
    for k, gid in enumerate(slots):
        dealer = (first_dealer + k) % n
        left = (dealer + 1) % n
        trump = rng.choice("SCDH") if rules.games[gid].kind is Kind.TRUMPS else None
        yield play_deal(rules, gid, rng, leader=left, trump=trump), left
