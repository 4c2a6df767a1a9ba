"""A rating of who plays best: the Weng-Lin Bayesian rating with the Plackett-Luce model (Weng and
Lin, «A Bayesian Approximation Method for Online Ranking», JMLR 12, 2011, algorithm 4), the model
the `openskill` package implements, written here in a few dozen lines of pure Python so that it
runs wherever the club does (the phone app too).

Each evening is a ranking of its players by their ИТОГО (equal totals share a place). Each player
has a skill μ and an uncertainty σ; an evening moves μ by how surprising its order was given
everyone's μ, more for a player whose σ is large (a newcomer), and narrows σ. The number shown is
the conservative estimate μ − 3σ: a player must have played to be rated high. The evenings are
taken in date order (then by their content, never by the file's name), so the same evenings give
the same ratings whatever their files are called or the order they were indexed in.

Why this and not a money ladder: money depends on the stakes a table played for and the method,
and points on the rule system; a place at the table means the same in every evening of every rule
system, and Plackett-Luce is the model built for rankings of more than two.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from kingsheet.core.record import Record

MU = 25.0  # a newcomer's skill
SIGMA = MU / 3  # and its uncertainty
BETA = SIGMA / 2  # how much one evening's form varies around the skill
KAPPA = 0.0001  # the least share of σ² an evening leaves
TAU = MU / 300  # σ grows a little before each evening (skill drifts)
PROVISIONAL = 5  # evenings before a rating stops being provisional


class Rating(Record):
    mu: float = MU
    sigma: float = SIGMA

    @property
    def ordinal(self) -> float:
        """The conservative estimate shown: μ − 3σ."""
        return self.mu - 3 * self.sigma


def rate(ratings: Sequence[Rating], ranks: Sequence[int], tau: float = TAU) -> list[Rating]:
    """The ratings after one evening whose players (``ratings``, in seating order) finished at
    ``ranks`` (1 the best; equal ranks for equal totals). Plackett-Luce, one player a team, as
    openskill's PlackettLuce model with its defaults (gamma = σ/c, limit_sigma off)."""
    before = [Rating(r.mu, math.sqrt(r.sigma ** 2 + tau ** 2)) for r in ratings]
    c = math.sqrt(sum(r.sigma ** 2 + BETA ** 2 for r in before))
    ties = [sum(1 for other in ranks if other == rank) for rank in ranks]
    strength = [math.exp(r.mu / c) for r in before]
    # the sum of the strengths of everyone who finished at q's place or below it
    below = [sum(strength[i] for i, rank in enumerate(ranks) if rank >= ranks[q]) for q in range(len(ranks))]
    out = []
    for i, r in enumerate(before):
        omega = delta = 0.0
        for q in range(len(ranks)):
            if ranks[q] > ranks[i]:
                continue  # only the places at or above i's own
            p = strength[i] / below[q]
            omega += ((1.0 if q == i else 0.0) - p) / ties[q]
            delta += p * (1 - p) / ties[q]
        variance = r.sigma ** 2
        gamma = r.sigma / c
        mu = r.mu + variance / c * omega
        sigma = r.sigma * math.sqrt(max(1 - gamma * variance / c ** 2 * delta, KAPPA))
        out.append(Rating(mu, sigma))
    return out


def places(totals: Sequence[int]) -> list[int]:
    """Each player's place by ИТОГО, 1 the highest; equal totals share a place (1, 2, 2, 4)."""
    return [1 + sum(1 for other in totals if other > t) for t in totals]


def ratings(evenings: Iterable[tuple[Any, Mapping[str, int]]]) -> tuple[dict[str, Rating], dict[str, int],
                                                                         list[tuple[Any, dict[str, float]]]]:
    """Every player's rating after the evenings, given in the order they were played as (what the
    evening is, each player's ИТОГО); also how many evenings each rating rests on, and the
    ratings shown (μ − 3σ) after each evening, of the players of that evening."""
    current: dict[str, Rating] = {}
    counted: dict[str, int] = {}
    story: list[tuple[Any, dict[str, float]]] = []
    for evening, totals in evenings:
        names = list(totals)
        if len(names) < 2:
            continue
        new = rate([current.get(p, Rating()) for p in names], places([totals[p] for p in names]))
        for p, r in zip(names, new, strict=True):
            current[p] = r
            counted[p] = counted.get(p, 0) + 1
        story.append((evening, {p: current[p].ordinal for p in names}))
    return current, counted, story
