"""What a club asks of its history, answered from the index: the standings of a season, the ledger
of who owes whom across the evenings, one player's figures, and the files that could not count.

An evening is one game file. Only finished games that check clean count (a game in progress is
listed as such, one with problems with its first problem). Points are compared only within one rule
system; money, at each game's own stake and method, across all. Every answer is plain data (the
`--json` of the commands); amounts are exact decimals written as strings.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import sqlite3
from collections import defaultdict
from decimal import Decimal
from typing import Any

from kingsheet.club.config import Club
from kingsheet.club.index import INDEX_FILE
from kingsheet.core.i18n import _
from kingsheet.core.money import fewest_transfers, from_minor, money_str
from kingsheet.core.problems import InputError, StorageError
from kingsheet.core.record import Record


class Period(Record):
    start: dt.date | None = None
    end: dt.date | None = None
    rules: str | None = None

    def where(self) -> tuple[str, list[Any]]:
        clauses, args = ["g.status = 'final'"], []
        if self.start:
            clauses.append("g.date >= ?")
            args.append(self.start.isoformat())
        if self.end:
            clauses.append("g.date <= ?")
            args.append(self.end.isoformat())
        if self.rules:
            clauses.append("g.rules = ?")
            args.append(self.rules)
        return " AND ".join(clauses), args

    def as_json(self) -> dict[str, Any]:
        return {"from": self.start.isoformat() if self.start else None,
                "to": self.end.isoformat() if self.end else None, "rules": self.rules}


def period(club: Club, season: str | None, start: str | None, end: str | None, rules: str | None) -> Period:
    """The evenings a command looks at: a season of the club (or a year), or dates, and a rule system."""
    def day(text: str, what: str) -> dt.date:
        try:
            return dt.date.fromisoformat(text)
        except ValueError:
            raise InputError(_("{what} must be a date such as 2026-11-27, not '{text}'").format(
                what=what, text=text[:40])) from None

    first, last = club.season(season) if season else (None, None)
    if start:
        first = day(start, "--from")
    if end:
        last = day(end, "--to")
    if rules is not None:
        from kingsheet.files.templates import template_ids

        if rules not in template_ids():
            raise InputError(_("unknown rules '{id}'").format(id=rules[:60]))
    return Period(first, last, rules)


def standings(conn: sqlite3.Connection, club: Club, when: Period) -> dict[str, Any]:
    """Per player: evenings, wins (leader at the end; a shared lead counts for each), money won or
    lost, and, within one rule system, points and points per evening; ranked by money, then wins."""
    rows: dict[str, dict[str, Any]] = {}
    where, args = when.where()
    for player_name, currency, evenings, won, points, minor in conn.execute(
            f"SELECT r.player, g.currency, COUNT(*), SUM(r.won), SUM(r.total), SUM(r.minor) FROM games g "  # noqa: S608
            f"JOIN results r ON r.game = g.id WHERE {where} GROUP BY r.player, g.currency", args):
        p = club.who(player_name)
        r = rows.setdefault(p, {"player": p, "evenings": 0, "won": 0, "points": Decimal(0),
                                "money": defaultdict(Decimal)})
        r["evenings"] += evenings
        r["won"] += won
        r["points"] += points
        r["money"][currency] += from_minor(minor, currency)
    main = _main_currency(conn, where, args)
    ranked = sorted(rows.values(), key=lambda r: (-r["money"].get(main, Decimal(0)), -r["won"], r["player"]))
    rated = {r["player"]: r for r in rating(conn, club, when)["ratings"]}
    out = []
    for place, r in enumerate(ranked, 1):
        skill = rated.get(r["player"])
        out.append({"place": place, "player": r["player"], "evenings": r["evenings"], "won": r["won"],
                    "rating": skill["rating"] if skill else None,
                    "rating_provisional": skill["provisional"] if skill else True,
                    "points": _num(r["points"]) if when.rules else None,
                    "points_per_evening": _num(r["points"] / r["evenings"]) if when.rules else None,
                    "money": {c: money_str(v) for c, v in sorted(r["money"].items())},
                    "money_per_evening": {c: money_str((v / r["evenings"]).quantize(Decimal("0.01")))
                                          for c, v in sorted(r["money"].items())}})
    from kingsheet.club.rating import PROVISIONAL

    return {"club": club.name, "period": when.as_json(), "currency": main, "standings": out,
            "provisional_below": PROVISIONAL}


def _amount(minor: int, currency: str, written: dict[int, str]) -> str:
    """An amount in minor units as a decimal string, each value written once."""
    text = written.get(minor)
    if text is None:
        text = written[minor] = money_str(from_minor(minor, currency))
    return text


def _main_currency(conn: sqlite3.Connection, where: str, args: list[Any]) -> str:
    """The currency most of the period's evenings were played in (roubles on a tie): the standings
    rank by it and the report charts it."""
    per = dict(conn.execute(f"SELECT g.currency, COUNT(*) FROM games g WHERE {where} GROUP BY g.currency",  # noqa: S608
                            args).fetchall())
    per.pop(None, None)
    return max(per, key=lambda c: (per[c], c == "RUB", c)) if per else "RUB"


def _num(value: Decimal) -> int | str:
    value = value.quantize(Decimal("0.01")) if value != value.to_integral_value() else value
    return int(value) if value == value.to_integral_value() else money_str(value)


def ledger(conn: sqlite3.Connection, club: Club, when: Period | None = None) -> dict[str, Any]:
    """Who owes whom across the evenings: each finished evening's settlement added, the payments of
    club.toml taken off, netted to the fewest transfers; one ledger per currency, exact."""
    balances: dict[str, dict[str, Decimal]] = defaultdict(lambda: defaultdict(Decimal))
    where, args = (when or Period()).where()
    evenings = dict(conn.execute(f"SELECT g.currency, COUNT(*) FROM games g WHERE {where} GROUP BY g.currency",  # noqa: S608
                                 args).fetchall())
    for player_name, currency, minor in conn.execute(
            f"SELECT r.player, g.currency, SUM(r.minor) FROM games g JOIN results r ON r.game = g.id "  # noqa: S608
            f"WHERE {where} GROUP BY r.player, g.currency", args):
        balances[currency][club.who(player_name)] += from_minor(minor, currency)
    for pay in club.payments:
        if when and pay.date and (when.end and pay.date > when.end.isoformat()
                                  or when.start and pay.date < when.start.isoformat()):
            continue  # a season's ledger: its evenings and the payments made within it
        balances[pay.currency][club.who(pay.payer)] += pay.amount  # paying settles a debt: owes less
        balances[pay.currency][club.who(pay.payee)] -= pay.amount
    out = []
    for currency, per in sorted(balances.items()):
        if sum(per.values(), Decimal(0)) != 0:  # pragma: no cover - the index's own checks (index.sound) hold
            raise StorageError(_("the club's index does not add up; delete {file} and it is made again").format(
                file=INDEX_FILE))
        transfers, exact = fewest_transfers({p: v for p, v in per.items()})
        out.append({"currency": currency, "evenings": evenings.get(currency, 0),
                    "balances": {p: money_str(v) for p, v in sorted(per.items(), key=lambda kv: (-kv[1], kv[0]))},
                    "transfers": [t.as_json() for t in transfers], "fewest_exact": exact})
    return {"club": club.name, "ledgers": out, "payments": [p.as_json() for p in club.payments]}


def player(conn: sqlite3.Connection, club: Club, name: str, when: Period, lang: str) -> dict[str, Any]:
    """One player's figures: per rule system and game the average per deal and the share of deals in
    which they took the worst of the table; the best and worst evening; streaks; head to head."""
    from kingsheet.core.entry import find_player

    written = [row[0] for row in conn.execute("SELECT DISTINCT player FROM results")]
    everyone = sorted({club.who(p) for p in written})
    if not everyone:
        raise InputError(_("no finished game in this club yet"))
    who = find_player(club.who(name), everyone)
    names = [p for p in written if club.who(p) == who]
    marks = ",".join("?" * len(names))
    per_game: dict[tuple[str, str], list[Any]] = {}
    where, args = when.where()
    labels = _labels(conn, lang)
    for rules, gid, deals, points, worst in conn.execute(
            f"SELECT g.rules, t.game_id, SUM(t.deals), SUM(t.points), SUM(t.worst) FROM tallies t "  # noqa: S608
            f"JOIN games g ON g.id = t.game WHERE {where} AND t.player IN ({marks}) GROUP BY g.rules, t.game_id",
            [*args, *names]):
        label, n = labels.get((rules, gid), (gid, 0))
        per_game[(rules, gid)] = [label, deals, points, worst, n]
    by_rules: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for (rules, gid), (label, deals, points, worst, _n) in sorted(per_game.items(), key=lambda kv: (kv[0][0], kv[1][4])):
        by_rules[rules].append({"game": gid, "label": label, "deals": deals,
                                "average": _num(Decimal(points) / deals) if deals else None,
                                "worst_share": _num(Decimal(100 * worst) / deals) if deals else None})
    evenings = [{"date": date, "rules": rules, "total": total, "money": money_str(from_minor(minor, currency)),
                 "currency": currency, "won": bool(won)}
                for date, rules, currency, total, minor, won in conn.execute(
                    f"SELECT g.date, g.rules, g.currency, r.total, r.minor, r.won FROM games g JOIN results r "  # noqa: S608
                    f"ON r.game = g.id WHERE {where} AND r.player IN ({marks}) ORDER BY g.date, g.id", [*args, *names])]
    by_money = sorted(evenings, key=lambda e: Decimal(e["money"]))
    longest = current = 0
    for e in evenings:
        current = current + 1 if e["won"] else 0
        longest = max(longest, current)
    met: dict[str, list[int]] = {}
    for other, together, ahead, behind in conn.execute(
            f"SELECT o.player, COUNT(*), SUM(me.total > o.total), SUM(me.total < o.total) FROM results me "  # noqa: S608
            f"JOIN results o ON o.game = me.game AND o.seat != me.seat JOIN games g ON g.id = me.game "
            f"WHERE {where} AND me.player IN ({marks}) GROUP BY o.player", [*args, *names]):
        if club.who(other) != who:
            acc = met.setdefault(club.who(other), [0, 0, 0])
            acc[0], acc[1], acc[2] = acc[0] + together, acc[1] + ahead, acc[2] + behind
    heads = [{"player": other, "evenings": n, "ahead": ahead, "behind": behind, "even": n - ahead - behind}
             for other, (n, ahead, behind) in sorted(met.items())]
    skill = next((r for r in rating(conn, club, when)["ratings"] if r["player"] == who), None)
    return {"club": club.name, "player": who, "period": when.as_json(), "evenings": len(evenings),
            "rating": skill,
            "won": sum(e["won"] for e in evenings), "games": dict(by_rules),
            "best": by_money[-1] if by_money else None, "worst": by_money[0] if by_money else None,
            "streak": {"longest": longest, "current": current}, "head_to_head": heads, "history": evenings}


def _labels(conn: sqlite3.Connection, lang: str) -> dict[tuple[str, str], tuple[str, int]]:
    """Each game's name in the language (else in the game's own, Russian), and its place in its
    rules, by rule system and game id."""
    from kingsheet.core.i18n import DEFAULT

    out: dict[tuple[str, str], tuple[str, int]] = {}
    for rules, gid, n, label in conn.execute(
            "SELECT rules, game_id, n, label FROM labels WHERE lang = ? OR lang = ? ORDER BY lang = ?",
            (lang, DEFAULT, lang)):  # the language's own row last: it wins
        out[(rules, gid)] = (label or gid, n)
    return out


def files(conn: sqlite3.Connection) -> dict[str, Any]:
    """Every file of the club and how it counts: final, in progress, with a problem, not loaded,
    or the same game as another file."""
    out = []
    seen: set[str] = set()
    for path, game, problem, status, gproblem, date, rules in conn.execute(
            "SELECT f.path, f.game, f.problem, g.status, g.problem, g.date, g.rules FROM files f "
            "LEFT JOIN games g ON g.key = f.game ORDER BY f.path"):  # (files keep the game's content key)
        if game is None and problem is None:
            continue  # a template or other TOML
        if game is None:
            out.append({"file": path, "status": "unreadable", "problem": problem})
        elif game in seen:
            out.append({"file": path, "status": "duplicate", "problem": None, "date": date, "rules": rules})
        else:
            seen.add(game)
            out.append({"file": path, "status": status, "problem": gproblem, "date": date, "rules": rules})
    return {"files": out}


def history(conn: sqlite3.Connection, club: Club, when: Period, lang: str) -> dict[str, Any]:
    """For the report's charts: each player's money added up evening by evening (in the club's main
    currency), and, for the rule system played most, each player's average per deal of each game."""
    where, args = when.where()
    main = _main_currency(conn, where, args)
    moves: dict[int, dict[str, int]] = {}
    dates = [""]
    who: dict[str, str] = {}  # each name's club name, looked up once
    for gid, date, player_name, minor in conn.execute(
            f"SELECT g.id, g.date, r.player, r.minor FROM games g JOIN results r ON r.game = g.id "  # noqa: S608
            f"WHERE {where} AND g.currency = ? ORDER BY g.date, g.id", [*args, main]):
        if gid not in moves:
            moves[gid] = {}
            dates.append(date or "")
        name = who.get(player_name) or who.setdefault(player_name, club.who(player_name))
        moves[gid][name] = minor
    names = sorted({p for m in moves.values() for p in m})
    written: dict[int, str] = {}  # a running total stays the same over the evenings one misses
    running = {p: [0] for p in names}
    for m in moves.values():
        for p in names:
            running[p].append(running[p][-1] + m.get(p, 0))
    counts = dict(conn.execute(f"SELECT g.rules, COUNT(*) FROM games g WHERE {where} GROUP BY g.rules",  # noqa: S608
                               args).fetchall())
    top = max(counts, key=lambda r: (counts[r], r)) if counts else None
    averages: dict[str, dict[str, list[int]]] = {}
    labels: dict[str, str] = {}
    if top:
        where, args = Period(when.start, when.end, top).where()
        known = _labels(conn, lang)
        for player_name, gid, deals, points in conn.execute(
                # CROSS JOIN: from the period's games to their tallies (SQLite would scan every tally)
                f"SELECT t.player, t.game_id, SUM(t.deals), SUM(t.points) FROM games g CROSS JOIN tallies t "  # noqa: S608
                f"ON t.game = g.id WHERE {where} GROUP BY t.player, t.game_id", args):
            per = averages.setdefault(club.who(player_name), {})
            labels[gid] = known.get((top, gid), (gid, 0))[0]
            acc = per.setdefault(gid, [0, 0])
            acc[0] += deals
            acc[1] += points
        labels = dict(sorted(labels.items(), key=lambda kv: known.get((top, kv[0]), (kv[0], 0))[1]))  # the rules' order
    return {"currency": main, "dates": dates,
            "money": {p: [_amount(v, main, written) for v in vals] for p, vals in running.items()},
            "rules": top, "games": labels,
            "averages": {p: {gid: _num(Decimal(pts) / n) for gid, (n, pts) in per.items() if n}
                         for p, per in averages.items()}}


def rating(conn: sqlite3.Connection, club: Club, when: Period) -> dict[str, Any]:
    """Who plays best: each player's rating after the evenings of the period (club.rating: the
    Weng-Lin Plackett-Luce rating of each evening's order of ИТОГО), its uncertainty, the evenings
    it rests on and whether it is still provisional, ranked; and each player's rating after every
    evening they played. The evenings are taken by date, then by their content (never by file).
    The rating over all evenings is kept in the index until a game or an alias changes."""
    import hashlib
    import json

    generation = conn.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()
    state = hashlib.sha256(json.dumps([generation, sorted(club.aliases.items()), club.name],
                                      ensure_ascii=False).encode()).hexdigest()
    key = "rating " + json.dumps(when.as_json(), sort_keys=True)
    kept = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    if kept:
        try:
            stored = json.loads(kept[0])
        except ValueError:  # changed by hand: worked out again
            stored = {}
        if isinstance(stored, dict) and stored.get("state") == state and isinstance(stored.get("answer"), dict):
            return dict(stored["answer"])
    answer = _rating(conn, club, when)
    with contextlib.suppress(sqlite3.OperationalError):  # an index another command holds: kept next time
        conn.execute("DELETE FROM meta WHERE key LIKE 'rating %' AND value NOT LIKE ?", (f'{{"state": "{state}"%',))
        conn.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)",
                     (key, json.dumps({"state": state, "answer": answer}, ensure_ascii=False)))
        conn.commit()
    return answer


def _rating(conn: sqlite3.Connection, club: Club, when: Period) -> dict[str, Any]:
    from kingsheet.club.rating import PROVISIONAL, ratings

    where, args = when.where()
    evenings: dict[int, dict[str, Any]] = {}
    for gid, date, key, player_name, total in conn.execute(
            f"SELECT g.id, g.date, g.key, r.player, r.total FROM games g JOIN results r ON r.game = g.id "  # noqa: S608
            f"WHERE {where} ORDER BY COALESCE(g.date, '9999'), g.key, r.seat", args):
        e = evenings.setdefault(gid, {"date": date, "key": key, "totals": {}})
        name = club.who(player_name)
        e["totals"][name] = e["totals"].get(name, 0) + total  # two aliases at one table: one player
    current, counted, story = ratings((e["date"], e["totals"]) for e in evenings.values())
    ranked = sorted(current, key=lambda p: (-current[p].ordinal, p))
    table = [{"place": k, "player": p, "rating": _one(current[p].ordinal), "mu": _one(current[p].mu),
              "sigma": _one(current[p].sigma), "evenings": counted[p], "provisional": counted[p] < PROVISIONAL}
             for k, p in enumerate(ranked, 1)]
    return {"club": club.name, "period": when.as_json(), "model": "weng-lin plackett-luce",
            "provisional_below": PROVISIONAL, "ratings": table,
            "history": [{"date": date, "ratings": {p: _one(v) for p, v in sorted(after.items())}}
                        for date, after in story]}


def _one(value: float) -> str:
    """A rating as a decimal string with one place («27.3»)."""
    return f"{value:.1f}"
