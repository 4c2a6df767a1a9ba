"""Plain-text renderings for the terminal: rules, check summaries, the sheet."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal

from .money import Settlement, fmt_money
from .problems import num
from .rules import Rules, Template
from .verify import Report
from .vocabulary import BOYS_PHRASES, UNIT_PHRASES

LABELS = {
    "minus": {"ru": "ИТОГО (−)", "en": "TOTAL (−)"},
    "plus": {"ru": "ИТОГО (+)", "en": "TOTAL (+)"},
    "total": {"ru": "ИТОГО", "en": "TOTAL"},
    "game": {"ru": "Игра", "en": "Game"},
    "points": {"ru": "Очки", "en": "Points"},
    "dealer": {"ru": "Сдаёт", "en": "Deals"},
    "declarer": {"ru": "Объявляет", "en": "Declares"},
    "orderer": {"ru": "Заказал", "en": "Ordered by"},
    "leader": {"ru": "Лидер", "en": "Leader"},
    "deal": {"ru": "№", "en": "#"},
}


def t(key: str, lang: str) -> str:
    return LABELS[key].get(lang, LABELS[key]["ru"])


def table(rows: list[list[str]], right: set[int] | None = None) -> str:
    """Columns padded to their widest cell; numbers (columns in ``right``) right-aligned."""
    right = right or set()
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = []
    for r in rows:
        cells = [c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths))]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


def unit_lines(rules: Rules, lang: str = "ru") -> list[str]:
    """The legend of units: «Взятки: −2 за взятку»."""
    units: dict[str, int] = {}
    for g in rules.games.values():
        for cat, u in g.units.items():
            units.setdefault(cat, u)
    out = []
    for cat, u in units.items():
        phrase = UNIT_PHRASES[cat][lang if lang in ("ru", "en") else "ru"]
        line = f"{u} {phrase}"
        if cat == "boys":
            line += f" ({BOYS_PHRASES[rules.deck.boys][lang]})"
        out.append(line)
    return out


def list_templates(templates: list[tuple[Template, Rules]], lang: str = "ru") -> str:
    rows = [["id", "players", "deals", "ИТОГО (−) / (+)" if lang == "ru" else "TOTAL (−) / (+)", "name"]]
    for tpl, rules in templates:
        rows.append([tpl.id, str(rules.players), str(len(rules.slots)),
                     f"{num(rules.stage_total(0))} / +{rules.stage_total(1)}", tpl.name.get(lang, tpl.id)])
    return table(rows, right={1, 2})


def describe_rules(rules: Rules, lang: str = "ru") -> str:
    tpl = rules.template
    lines = [f"{tpl.id}: {tpl.name.get(lang, tpl.id)}", f"source: {tpl.source}",
             f"players: {rules.players}; deck: {len(rules.deck.cards)} cards, {rules.deck.tricks} each"
             + (f", talon {rules.deck.talon}" if rules.deck.talon else ""),
             f"order: {rules.order}", ""]
    rows = [["#", t("game", lang), "id", t("points", lang), "units"]]
    slots = rules.per_round if rules.order != "fixed" else rules.slots
    for i, gid in enumerate(slots, 1):
        g = rules.games[gid]
        parts = " + ".join(f"{g.units[c]}×{g.counts[c]} {c}" for c in g.units)
        rows.append([str(i), g.label(lang), gid, num(g.total) if g.total < 0 else f"+{g.total}", parts])
    lines.append(table(rows, right={0, 3}))
    if rules.order == "ordered-player":
        lines.append(f"(each player orders each of these once: {len(rules.slots)} deals)")
    elif rules.order == "ordered-table":
        lines.append("(each game once, in any order the table chooses)")
    lines.append("")
    lines.append(f"{t('minus', lang)} = {num(rules.stage_total(0))}   {t('plus', lang)} = +{rules.stage_total(1)}"
                 f"   {t('total', lang)} = {num(rules.grand_total)}")
    lines.append("units: " + "; ".join(unit_lines(rules, lang)))
    for key, (choices, default) in tpl.options.items():
        chosen = rules.options[key]
        lines.append(f"option {key}: {' | '.join(choices)} (default {default}; now {chosen})")
    if rules.trumps.get("bidding"):
        lines.append("trump deals: the declarer's bid is taken off his tricks (bid = N)")
    if rules.trumps.get("buyout"):
        lines.append("trump deals may be bought: buyer = …, price = N tricks")
    for note in tpl.notes:
        lines.append(f"note: {note}")
    return "\n".join(lines)


def totals_block(report: Report, lang: str = "ru") -> str:
    players = list(report.game.players)
    rows = [["", *players, "Σ"]]
    sums = report.sums
    rows.append([t("minus", lang), *[num(report.totals[p].minus) for p in players], num(sums.minus)])
    rows.append([t("plus", lang), *[num(report.totals[p].plus) for p in players], num(sums.plus)])
    rows.append([t("total", lang), *[num(report.totals[p].total) for p in players], num(sums.total)])
    return table(rows, right=set(range(1, len(players) + 2)))


def status_line(report: Report) -> str:
    done, want = len(report.rows), len(report.game.rules.slots)
    state = "complete" if report.complete else f"{done} of {want} deals played"
    verdict = "all consistent" if report.ok else f"{len(report.problems)} problem(s)"
    expected = report.expected
    return (f"{state}; {verdict}; expected ИТОГО (−) {num(expected.minus)}, ИТОГО (+) +{expected.plus}, "
            f"ИТОГО {num(expected.total)}")


def signed_money(amount: Decimal, s: Settlement) -> str:
    return ("+" if amount > 0 else "") + fmt_money(amount, s).replace("-", "−")


def settlement_text(s: Settlement, columns: Mapping[str, Mapping[str, int]] | None = None, lang: str = "ru") -> str:
    """The money block: totals (per game when several), balances, pair debts, fewest transfers."""
    method = {"pairwise": "pairwise («каждый с каждым»)", "pot": "pot («на стол»)"}[s.method]
    lines = [f"method: {method}; stake {s.stake} {s.currency} a point"]
    names = list(s.totals)
    head = ["", *(columns or {}), t("total", lang), "balance"] + (["rounded"] if s.rounding else [])
    rows = [head]
    for p in names:
        per_game = [num(int(columns[g][p])) if p in columns[g] else "·" for g in columns] if columns else []
        total = s.totals[p]
        rows.append([p, *per_game, num(int(total)) if total == int(total) else str(total),
                     signed_money(s.balances[p], s)] + ([signed_money(s.settled[p], s)] if s.rounding else []))
    lines.append(table(rows, right=set(range(1, len(head)))))
    if s.pairs:
        lines.append("")
        lines.append("pairs (every pair settles the difference of their ИТОГО):")
        lines += [f"  {tr.payer} → {tr.payee} {fmt_money(tr.amount, s)}" for tr in s.pairs]
    lines.append("")
    fewest = "fewest" if s.exact else "greedy"
    lines.append(f"transfers ({fewest}: {len(s.transfers)}):")
    lines += [f"  {tr.payer} → {tr.payee} {fmt_money(tr.amount, s)}" for tr in s.transfers] or ["  nobody owes anything"]
    for note in s.notes:
        lines.append(f"note: {note}")
    return "\n".join(lines)
