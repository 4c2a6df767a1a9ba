"""The money block in the terminal: totals, balances, pair debts, the fewest transfers."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal

from kingsheet.core.i18n import _, speaks
from kingsheet.core.money import Settlement, fmt_amount, fmt_money, local_decimal
from kingsheet.core.problems import num
from kingsheet.render.labels import word
from kingsheet.render.text import table


def signed_money(amount: Decimal, s: Settlement) -> str:
    return signed_amount(amount, s.currency)


def signed_amount(amount: Decimal | str, currency: str) -> str:
    """«+74 ₽», «−3,50 ₽»: an amount won (+) or paid (−), as the players read it (a JSON amount too)."""
    value = Decimal(amount)
    return ("+" if value > 0 else "") + fmt_amount(value, currency).replace("-", "−")


@speaks
def settlement_text(s: Settlement, columns: Mapping[str, Mapping[str, int]] | None = None, lang: str = "ru") -> str:
    """The money block: totals (per game when several), balances, pair debts, fewest transfers."""
    method = (_("pairwise («каждый с каждым»)") if s.method == "pairwise" else _("pot («через стол»)"))
    lines = [_("method: {method}; stake {stake} {currency} a point").format(
        method=method, stake=local_decimal(s.stake), currency=s.symbol)]
    names = list(s.totals)
    head = ["", *(columns or {}), word("total", lang), _("balance")] + ([_("rounded")] if s.rounding else [])
    rows = [head]
    for p in names:
        per_game = [num(int(columns[g][p])) if p in columns[g] else "·" for g in columns] if columns else []
        total = s.totals[p]
        rows.append([p, *per_game, num(int(total)) if total == int(total) else local_decimal(total),
                     signed_money(s.balances[p], s)] + ([signed_money(s.settled[p], s)] if s.rounding else []))
    lines.append(table(rows, right=set(range(1, len(head)))))
    if s.pairs:
        lines.append("")
        lines.append(_("pairs (every pair settles the difference of their totals):"))
        lines += [f"  {tr.payer} → {tr.payee} {fmt_money(tr.amount, s)}" for tr in s.pairs]
    lines.append("")
    n = len(s.transfers)
    lines.append((_("transfers (fewest: {n}):") if s.exact else _("transfers (greedy: {n}):")).format(n=n))
    lines += [f"  {tr.payer} → {tr.payee} {fmt_money(tr.amount, s)}" for tr in s.transfers] or [
        "  " + _("nobody owes anything")]
    for note in s.notes:
        lines.append(_("note: {note}").format(note=note))
    return "\n".join(lines)
