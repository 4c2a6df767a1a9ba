"""The paper blank as data: one row per deal in the template's order, for every renderer.

The terminal, the PDF and the XLSX all draw the same rows: №, Игра, Очки, a cell per player,
who deals, who declares or orders, and a mark. A blank has empty cells; a filled sheet has the
numbers and the checks' verdict per row.
"""

from __future__ import annotations

from typing import Any

from kingsheet.core.i18n import _, ngettext, pgettext, speaks
from kingsheet.core.problems import num, one_line
from kingsheet.core.record import Record
from kingsheet.core.report import Report
from kingsheet.core.rules import Order, Rules
from kingsheet.core.scoring import no_hearts_lead_games
from kingsheet.render.labels import word


@speaks
def reminders(rules: Rules, lang: str) -> list[str]:
    """The rules of play printed under a trick game's blank, from core.scoring's own list."""
    if "penalty" in rules.games:
        return []
    names = [g.label(lang) for g in no_hearts_lead_games(rules)]
    joined = _(" and ").join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)
    out = []
    if names:
        out.append(_("No hearts lead while other suits remain in {games}.").format(games=joined))
    out.append(_("The King (K♥) is discarded at the first chance."))
    if rules.bidding:
        trumps = rules.trump_game
        assert trumps is not None  # bidding is for the trump
        out.append(_("Each row must add up to its «Points» column; a trump row to {most} less {unit}·min(bid, the "
                     "declarer's tricks).").format(most=f"+{trumps.total}", unit=trumps.units["trumps"]))
    else:
        out.append(_("Each row must add up to its «Points» column."))
    return out


LIMIT_ROWS = 30  # rows on the blank of a game played to a limit


SUIT_SIGNS = {"S": "♠", "C": "♣", "D": "♦", "H": "♥"}


@speaks
def penalty_lines(game: Any, lang: str) -> list[str]:
    """What each card is worth in a game scored by card values, grouped as a person says it."""
    if game.choose_suit:
        return [_("the penalty suit (contract): −1 a card; the auction's winner also writes the bid")]
    by_suit: dict[str, set[int]] = {}
    for card, value in game.card_values.items():
        by_suit.setdefault(card[-1] if not card.startswith("JOKER") else "JOKER", set()).add(value)
    lines = []
    for suit, values in by_suit.items():
        cards = [c for c in game.card_values if (c[-1] == suit or (suit == "JOKER" and c.startswith("JOKER")))]
        if suit == "JOKER":
            lines.append(_("joker: {value}").format(value=num(next(iter(values)))))
        elif len(values) == 1 and len(cards) > 1:
            lines.append(_("{suit}: {value} a card").format(suit=SUIT_SIGNS[suit], value=num(next(iter(values)))))
        else:
            lines += [f"{c[:-1]}{SUIT_SIGNS[c[-1]]}: {num(game.card_values[c]) if game.card_values[c] < 0 else '+' + str(game.card_values[c])}"
                      for c in cards]
    if game.moon is not None:
        lines.append(_("who takes all of them writes +{moon}").format(moon=game.moon))
    return lines


class SheetRow(Record):
    number: int
    game: str  # label, or "" on an ordered blank
    game_id: str | None
    points: int | None  # the row total («Очки»)
    cells: tuple[str, ...]
    values: tuple[int, ...] | None  # the numbers behind cells, on a filled sheet
    dealer: str
    who: str  # declarer (fixed order) or orderer (ordered games)
    mark: str  # "✓", the problems, or "" when not played
    ok: bool
    stage: int  # 0 minus, 1 plus; -1 unknown (an ordered blank)
    stage_start: bool  # the first row of the plus stage: the grey line goes above it
    running: tuple[str, ...] = ()  # games played to a limit: each player's total after this deal


def limit_rows(rules: Rules) -> int:
    """Rows on the blank of a game played to a limit: as many deals as the game can last when
    every deal's minus points are fixed and none are plus (domino: −8 a deal over four players
    reaches −31 by the 16th deal at the latest), else LIMIT_ROWS."""
    g = rules.games.get("penalty")
    limit = rules.limit
    if g is None or limit is None or g.choose_suit or g.moon is not None or not g.card_values \
            or any(v >= 0 for v in g.card_values.values()):
        return LIMIT_ROWS
    per_deal = -g.total
    return min(LIMIT_ROWS, (limit - 1) * rules.players // per_deal + 1)


def player_names(rules: Rules, players: list[str] | tuple[str, ...] | None, lang: str) -> tuple[str, ...]:
    if players:
        return tuple(players)
    return tuple(f"{word('player', lang)} {i}" for i in range(1, rules.players + 1))


def rows_for(rules: Rules, report: Report | None, players: tuple[str, ...] | None, lang: str) -> list[SheetRow]:
    """Every row of the sheet: played rows from the report, then the template's remaining slots."""
    out: list[SheetRow] = []
    n = rules.players
    named = bool(players) or report is not None
    names = report.game.players if report else (players or ())

    def dealer_of(k: int) -> str:
        if report is not None:
            return report.game.dealer_of(k)
        return names[(k - 1) % n] if named else ""

    def left_of(p: str) -> str:
        return names[(names.index(p) + 1) % n] if p in names else ""

    stage = 0
    limit = rules.limit is not None
    running = [0] * n

    def empty(k: int) -> SheetRow:  # a row of the blank not played (yet)
        nonlocal stage
        if rules.order is not Order.FIXED:
            return SheetRow(k, "", None, None, ("",) * n, None, dealer_of(k), left_of(dealer_of(k)), "", True, -1, False)
        gid = rules.slots[k - 1]
        g = rules.games[gid]
        st = rules.stage_of(gid)
        start = st == 1 and stage == 0
        stage = max(stage, st)
        who = left_of(dealer_of(k)) if g.declared else ""
        return SheetRow(k, g.label(lang), gid, g.total, ("",) * n, None, dealer_of(k), who, "", True, st, start)

    if report is not None:
        for row in report.rows:
            if rules.order is Order.FIXED and not limit:  # rows left empty before this one (a workbook's №)
                while len(out) + 1 < min(row.deal.number, len(rules.slots) + 1):
                    out.append(empty(len(out) + 1))
            gid = row.game_id
            st = rules.stage_of(gid) if gid else stage
            start = rules.order is Order.FIXED and st == 1 and stage == 0
            stage = max(stage, st)
            cells = tuple(num(c) for c in row.cells) if row.cells else ("?",) * n
            who = (row.deal.orderer or "") if rules.order is not Order.FIXED else (row.declarer or "")
            if row.ok:
                mark = "✓"
            else:
                mark = "; ".join(p.message.split(": ", 1)[-1] for p in row.problems)
                if row.deal.forced:
                    mark += " " + _("(forced)")
            if row.deal.note:  # a deal's note is shown wherever the deal is
                mark += f" · {one_line(row.deal.note, 80)}"
            expected = row.expected if row.expected is not None else (rules.games[gid].total if gid else None)
            after: tuple[str, ...] = ()
            if limit:
                running = [a + b for a, b in zip(running, row.cells or (0,) * n)]
                after = tuple(num(v) for v in running)
                who = row.deal.declarer or ""
            out.append(SheetRow(row.deal.number, rules.games[gid].label(lang) if gid else one_line(row.deal.game, 40), gid,
                                expected, cells, row.cells, row.dealer, who, mark, row.ok, st, start, after))
    played = len(out)
    if limit:  # a long lined form: rows to fill until someone reaches the limit
        if report is None:
            g = rules.games["penalty"]
            label = g.label(lang)
            total = None if g.choose_suit else g.total
            for k in range(1, limit_rows(rules) + 1):
                out.append(SheetRow(k, label, "penalty", total, ("",) * n, None, dealer_of(k), "", "", True, 0,
                                    False, ("",) * n))
        return out
    for k in range(played + 1, len(rules.slots) + 1):
        out.append(empty(k))
    return out


@speaks
def unit_lines(rules: Rules, lang: str = "ru") -> list[str]:
    """The legend of units: «Взятки: −2 за взятку; …», the boys option named."""
    from kingsheet.core.vocabulary import BOYS_PHRASES, UNIT_PHRASES, game_word

    penalty = rules.games.get("penalty")
    if penalty is not None:
        return penalty_lines(penalty, lang)
    seen: dict[str, int] = {}
    signs: dict[str, set[int]] = {}
    for g in rules.games.values():
        for cat, u in g.units.items():
            seen.setdefault(cat, u)
            signs.setdefault(cat, set()).add(g.sign)
    lines = []
    for cat, u in seen.items():
        label = game_word("tricks" if cat == "trumps" else cat, lang)
        if cat == "trumps":
            trump_game = rules.trump_game
            assert trump_game is not None  # only a trump game counts trumps
            label = trump_game.label(lang)
        sign = {frozenset({-1}): "−", frozenset({1}): "+"}.get(frozenset(signs[cat]), "±")
        phrase = pgettext(*UNIT_PHRASES[cat])
        if cat == "last" and rules.deck.last_tricks == 1:
            label = next(g.label(lang) for g in rules.games.values() if g.id.rstrip("+") == "last")
            phrase = _("the last trick")
        line = f"{label}: {sign}{u} {phrase}"
        if cat == "boys":
            boys = BOYS_PHRASES.get(rules.deck.boys)
            line += f" ({pgettext(*boys) if boys else rules.deck.boys})"
        lines.append(line)
    return lines


def option_word(rules: Rules, key: str, value: str) -> str | None:
    """An option's value as the table says it («мальчики — валеты»), in the language spoken now: the
    template's words for it (``said``); None for an option the template does not explain."""
    return rules.template.option_said(key, value)


def option_choice(rules: Rules, key: str, value: str) -> str:
    """A value to type after -O, with what it means: «kings (мальчики — короли)»."""
    said = option_word(rules, key, value)
    return f"{value} ({said})" if said else value


@speaks
def subtitle(rules: Rules, lang: str) -> str:
    """What a player needs under the title, in plain words: players, deals, and the choices made (the
    ones that change this game: boys only where a game counts them, the default Eralash unsaid)."""
    n = rules.players
    parts = [ngettext("{n} player", "{n} players", n).format(n=n)]
    if rules.limit is not None:
        parts.append(_("to {limit}").format(limit=num(-rules.limit)))
    else:
        k = len(rules.slots)
        parts.append(ngettext("{n} deal", "{n} deals", k).format(n=k))
    if "boys" in rules.options and any("boys" in g.units for g in rules.games.values()):
        parts.append(option_word(rules, "boys", rules.options["boys"]) or rules.options["boys"])
    if rules.options.get("last") == "one":
        parts.append(option_word(rules, "last", "one") or "last = one")
    if rules.options.get("eralash") == "yes":
        parts.append(option_word(rules, "eralash", "yes") or "eralash = yes")
    parts += [f"{k} = {v}" for k, v in rules.options.items() if option_word(rules, k, v) is None]  # a house option
    return " · ".join(parts)
