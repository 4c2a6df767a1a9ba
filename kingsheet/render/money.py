"""The money block in the terminal: totals, balances, pair debts, the fewest transfers."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal

from kingsheet.core.money import Settlement, fmt_money
from kingsheet.core.problems import num
from kingsheet.render.labels import word
from kingsheet.render.text import table


def signed_money(amount: Decimal, s: Settlement) -> str:
    return ("+" if amount > 0 else "") + fmt_money(amount, s).replace("-", "−")


def settlement_text(s: Settlement, columns: Mapping[str, Mapping[str, int]] | None = None, lang: str = "ru") -> str:
    """The money block: totals (per game when several), balances, pair debts, fewest transfers."""
    method = {"pairwise": "pairwise («каждый с каждым»)", "pot": "pot («на стол»)"}[s.method]
    lines = [f"method: {method}; stake {s.stake} {s.currency} a point"]
    names = list(s.totals)
    head = ["", *(columns or {}), word("total", lang), "balance"] + (["rounded"] if s.rounding else [])
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
