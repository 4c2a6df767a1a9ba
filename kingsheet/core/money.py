"""Money: who pays whom, exactly, in the currency's minor unit.

pairwise («каждый с каждым», seed 000: «из итога победителя вычитаются итоги проигравших»):
every pair settles the difference of their ИТОГО. pot («через стол»): losers put their ИТОГО
on the table, winners take theirs. Either way the balances are then settled by the fewest
transfers: n minus the largest number of disjoint zero-sum groups (exact up to EXACT_LIMIT
players, a greedy settlement above that, and the result says which).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import ROUND_FLOOR, ROUND_HALF_EVEN, Decimal, Inexact, InvalidOperation, localcontext
from typing import Any

from kingsheet.core.game import text_problem
from kingsheet.core.i18n import _, pgettext
from kingsheet.core.problems import InputError, one_line
from kingsheet.core.record import Record
from kingsheet.core.report import Report

# ISO 4217 codes a table is likely to play for: minor-unit digits and the sign printed after amounts
CURRENCIES: dict[str, tuple[int, str]] = {
    "RUB": (2, "₽"), "BYN": (2, "Br"), "UAH": (2, "₴"), "KZT": (2, "₸"), "USD": (2, "$"), "EUR": (2, "€"),
    "GBP": (2, "£"), "CHF": (2, "CHF"), "PLN": (2, "zł"), "CZK": (2, "Kč"), "ILS": (2, "₪"), "GEL": (2, "₾"),
    "AMD": (2, "֏"), "AZN": (2, "₼"), "UZS": (2, "сўм"), "KGS": (2, "сом"), "MDL": (2, "L"), "TRY": (2, "₺"),
    "CNY": (2, "¥"), "JPY": (0, "¥"), "KRW": (0, "₩"), "CAD": (2, "$"), "AUD": (2, "$"), "SEK": (2, "kr"),
    "NOK": (2, "kr"), "DKK": (2, "kr"), "HUF": (2, "Ft"), "RSD": (2, "дин"), "BGN": (2, "лв"),
    "XXX": (0, "pts"),  # ISO's "no currency": settle in points
}
METHODS = ("pairwise", "pot")
EXACT_LIMIT = 16


class Transfer(Record):
    payer: str
    payee: str
    amount: Decimal

    def as_json(self) -> dict[str, str]:
        return {"from": self.payer, "to": self.payee, "amount": money_str(self.amount)}


class Settlement(Record):
    method: str
    stake: Decimal
    currency: str
    totals: Mapping[str, Decimal]  # ИТОГО per player, summed over the evening's games
    balances: Mapping[str, Decimal]  # what each wins (+) or pays (−), in the minor unit
    pairs: tuple[Transfer, ...]  # pairwise: every pair's debt
    transfers: tuple[Transfer, ...]  # the fewest payments settling `settled`
    settled: Mapping[str, Decimal]  # balances after --round (= balances without it)
    rounding: Decimal | None = None
    exact: bool = True  # False when the fewest-transfers search fell back to the greedy rule
    notes: tuple[str, ...] = ()

    @property
    def symbol(self) -> str:
        return CURRENCIES[self.currency][1]

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "method": self.method,
            "stake": str(self.stake),
            "currency": self.currency,
            "totals": {p: _plain(v) for p, v in self.totals.items()},
            "balances": {p: money_str(v) for p, v in self.balances.items()},
            "pairs": [t.as_json() for t in self.pairs],
            "transfers": [t.as_json() for t in self.transfers],
        }
        if self.rounding is not None:
            out["round"] = str(self.rounding)
            out["rounded_balances"] = {p: money_str(v) for p, v in self.settled.items()}
        out["fewest_exact"] = self.exact
        if self.notes:
            out["notes"] = list(self.notes)
        return out


#: What settle accepts, so that every amount fits exactly in the precision it works with.
MAX_STAKE = Decimal("1e9")
MAX_TOTAL = Decimal("1e9")
MAX_PLACES = 6  # decimal places of a stake, a total or a rounding step
MAX_PLAYERS = 64  # settle --totals: people at one evening, not a census
PRECISION = 60  # digits: 1e9 × 1e9 × 64 players, with the places, is far inside


def money_str(value: Decimal) -> str:
    """An amount as a decimal string: "185" when whole, else in the minor unit ("45.50"); never an
    exponent ("1E+3") and never "-0"."""
    if value == 0:
        return "0"
    if value == value.to_integral_value():
        return format(value.to_integral_value(), "f")
    return format(value, "f")


def _plain(value: Decimal) -> int | str:
    return int(value) if value == value.to_integral_value() else money_str(value)


def parse_decimal(text: str, what: str, limit: Decimal = MAX_TOTAL) -> Decimal:
    """A decimal a person typed, within ±``limit`` and at most MAX_PLACES places."""
    shown = one_line(str(text), 40)
    try:
        value = Decimal(str(text).strip().replace(",", ".").replace("−", "-"))
    except InvalidOperation:
        raise InputError(_("{what} '{shown}' is not a number").format(what=what, shown=shown)) from None
    if not value.is_finite():
        raise InputError(_("{what} '{shown}' is not a number").format(what=what, shown=shown))
    # bounded by its exponent before any arithmetic: 1e999999999 is a Decimal no context can hold
    # (abs() of it overflows), and 1e-999999999 one with a billion places
    if value != 0 and value.adjusted() > limit.adjusted():
        raise InputError(_("{what} '{shown}' is too large; at most {limit}").format(what=what, shown=shown, limit=money_str(limit)))
    if value != 0 and value.as_tuple().exponent < -MAX_PLACES:  # type: ignore[operator]
        raise InputError(_("{what} '{shown}' has more than {MAX_PLACES} decimal places").format(what=what, shown=shown, MAX_PLACES=MAX_PLACES))
    if abs(value) > limit:
        raise InputError(_("{what} '{shown}' is too large; at most {limit}").format(what=what, shown=shown, limit=money_str(limit)))
    return value + 0  # a plain value: no "-0"


def parse_stake(text: str | None, currency: str) -> Decimal:
    if text is None:
        return Decimal(1)
    if isinstance(text, float):
        raise InputError(_('stake must be a decimal string such as "0.50", not a float'))
    stake = parse_decimal(str(text), _("stake"), MAX_STAKE)
    if stake <= 0:
        raise InputError(_("stake must be above zero, not {text}").format(text=text))
    return stake


def check_currency(code: str | None) -> str:
    code = (code or "RUB").strip().upper()
    if code not in CURRENCIES:
        raise InputError(_("unknown currency code '{code}' (known: {CURRENCIES})").format(code=code, CURRENCIES=', '.join(sorted(CURRENCIES))))
    return code


def parse_totals(text: str) -> dict[str, Decimal]:
    """``"А=100,Б=70,В=65,Г=-20"`` → ordered totals; names as typed, each once."""
    out: dict[str, Decimal] = {}
    parts = [p for p in text.replace(";", ",").split(",") if p.strip()]
    if not parts:
        raise InputError(_('the totals are empty; write them as "Аня=100,Боря=70,Вася=65,Галя=-20"'))
    for part in parts:
        name, sep, value = part.partition("=")
        name = name.strip()
        if not sep:
            raise InputError(_("'{value}' has no '='; write name=points").format(value=part.strip()))
        if not name:
            raise InputError(_("'{value}' has no name before '='").format(value=part.strip()))
        if name in out:
            raise InputError(_("{name} appears twice").format(name=name))
        why = text_problem(name, "player")
        if why:
            raise InputError(why)
        out[name] = parse_decimal(value, _("{name}'s total").format(name=name))
    if len(out) < 2:
        raise InputError(_("settling needs at least two players"))
    if len(out) > MAX_PLAYERS:
        raise InputError(_("{out} players; an evening is settled for at most {MAX_PLAYERS}").format(out=len(out), MAX_PLAYERS=MAX_PLAYERS))
    return out


def _quantum(currency: str) -> Decimal:
    return Decimal(1).scaleb(-CURRENCIES[currency][0])


def payable(amount: Decimal, currency: str, what: str) -> Decimal:
    """``amount`` when the currency can pay it (a whole number of its smallest unit: 0.50 roubles,
    never 0.001), else one sentence."""
    if amount != amount.quantize(_quantum(currency)):
        raise InputError(_("{what} {amount} cannot be paid in {currency}: its smallest coin is {coin}").format(
            what=what, amount=local_number(money_str(amount)), currency=currency,
            coin=fmt_amount(_quantum(currency), currency)))
    return amount


def minor_units(amount: Decimal, currency: str) -> int:
    """A settled amount (a whole number of the currency's smallest unit) as that whole number:
    kopecks for roubles. Exact: sums of these are sums of money."""
    units = amount / _quantum(currency)
    if units != units.to_integral_value():
        raise ValueError(f"{amount} is not a whole number of {_quantum(currency)} {currency}")
    return int(units)


def from_minor(units: int, currency: str) -> Decimal:
    return Decimal(units) * _quantum(currency) + 0


def round_keeping_zero(values: Mapping[str, Decimal], step: Decimal) -> dict[str, Decimal]:
    """Round to multiples of ``step`` so that the sum stays what it was (zero).

    Largest remainder: everyone is rounded down, then the units still owed go to the largest
    remainders; ties go to the player named first in seating order. Deterministic.
    """
    floors = {p: (v / step).to_integral_value(rounding=ROUND_FLOOR) for p, v in values.items()}
    rema = {p: v - floors[p] * step for p, v in values.items()}
    missing = (sum(values.values(), Decimal(0)) - sum(floors.values(), Decimal(0)) * step) / step
    k = int(missing.to_integral_value())
    order = sorted(values, key=lambda p: (-rema[p], list(values).index(p)))
    out = {p: floors[p] * step for p in values}
    for p in order[:k]:
        out[p] += step
    return {p: (v.quantize(step) if step < 1 else v) for p, v in out.items()}


def fewest_transfers(balances: Mapping[str, Decimal]) -> tuple[list[Transfer], bool]:
    """The fewest transfers realising ``balances`` (which sum to zero), and whether the search was
    exact (up to EXACT_LIMIT people who owe or are owed) rather than the greedy rule."""
    return _fewest(balances)


def _fewest(balances: Mapping[str, Decimal]) -> tuple[list[Transfer], bool]:
    """The fewest transfers realising ``balances`` (sum zero)."""
    people = [p for p, v in balances.items() if v != 0]
    vals = [balances[p] for p in people]
    n = len(people)
    if n == 0:
        return [], True
    exact = n <= EXACT_LIMIT
    groups: list[list[int]]
    if exact:
        full = (1 << n) - 1
        sums = [Decimal(0)] * (1 << n)
        for mask in range(1, 1 << n):
            low = (mask & -mask).bit_length() - 1
            sums[mask] = sums[mask & (mask - 1)] + vals[low]
        best = [0] * (1 << n)
        for mask in range(1, 1 << n):
            m, b = mask, 0
            while m:
                bit = m & -m
                b = max(b, best[mask ^ bit])
                m ^= bit
            best[mask] = b + (1 if sums[mask] == 0 else 0)
        # walk back: peel off elements, closing a group each time the rest is zero-sum
        groups, current, mask = [], [], full
        while mask:
            m = mask
            while m:
                bit = m & -m
                if best[mask ^ bit] + (1 if sums[mask] == 0 else 0) == best[mask]:
                    break
                m ^= bit
            current.append(bit.bit_length() - 1)
            mask ^= bit
            if sums[mask] == 0:
                groups.append(current)
                current = []
    else:
        groups = [list(range(n))]
    transfers: list[Transfer] = []
    for group in groups:
        rest = {people[i]: vals[i] for i in group}
        while any(v != 0 for v in rest.values()):
            payer = min(rest, key=lambda p: (rest[p], people.index(p)))
            payee = max(rest, key=lambda p: (rest[p], -people.index(p)))
            amount = min(-rest[payer], rest[payee])
            transfers.append(Transfer(payer, payee, amount))
            rest[payer] += amount
            rest[payee] -= amount
    transfers.sort(key=lambda t: (people.index(t.payer), people.index(t.payee)))
    return transfers, exact


def settle(totals: Mapping[str, Decimal | int], stake: Decimal, currency: str = "RUB", method: str = "pairwise",
           pot_mean: bool = False, round_to: Decimal | None = None) -> Settlement:
    """Who pays whom. Every amount is exact in a context wide enough for all that is accepted
    (MAX_STAKE, MAX_TOTAL, MAX_PLAYERS); what lies outside is refused with a sentence."""
    with localcontext() as ctx:
        ctx.prec = PRECISION
        ctx.traps[Inexact] = False
        return _settle(totals, stake, currency, method, pot_mean, round_to)


def _settle(totals: Mapping[str, Decimal | int], stake: Decimal, currency: str, method: str, pot_mean: bool,
            round_to: Decimal | None) -> Settlement:
    if method not in METHODS:
        raise InputError(_("method must be pairwise or pot, not '{method}'").format(method=method))
    currency = check_currency(currency)
    tot = {p: Decimal(v) for p, v in totals.items()}
    n = len(tot)
    if n < 2:
        raise InputError(_("settling needs at least two players"))
    if n > MAX_PLAYERS:
        raise InputError(_("{n} players; an evening is settled for at most {MAX_PLAYERS}").format(n=n, MAX_PLAYERS=MAX_PLAYERS))
    if not (0 < stake <= MAX_STAKE) or any(abs(v) > MAX_TOTAL for v in tot.values()):
        raise InputError(_("the stake must be above 0 and at most {MAX_STAKE}, and each total within ±{MAX_TOTAL}").format(MAX_STAKE=money_str(MAX_STAKE), MAX_TOTAL=money_str(MAX_TOTAL)))
    grand = sum(tot.values(), Decimal(0))
    notes: list[str] = []
    q = _quantum(currency)
    pairs: list[Transfer] = []
    if method == "pot":
        if grand != 0 and not pot_mean:
            raise SettleError(
                _("the totals sum to {grand}, not zero, so a pot does not balance; settle pairwise, " "or the pot against the mean").format(grand=grand),
                "pot")
        mean = grand / n
        raw = {p: (v - mean) * stake for p, v in tot.items()}
        if grand != 0:
            notes.append(_("settled against the mean total {value}: the totals sum to {grand}").format(
                value=_signed_number(mean), grand=_signed_number(Decimal(grand))))
    else:
        raw = {p: (n * v - grand) * stake for p, v in tot.items()}
        names = list(tot)
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                diff = (tot[a] - tot[b]) * stake
                if diff > 0:
                    pairs.append(Transfer(b, a, diff))
                elif diff < 0:
                    pairs.append(Transfer(a, b, -diff))
    if pairs:
        # pairwise: each pair's debt in the minor unit, and each balance the sum of its pairs, so the
        # pair debts add up to the balances exactly (and the balances to zero)
        exact_pairs = all(t.amount == t.amount.quantize(q) for t in pairs)
        pairs = [Transfer(t.payer, t.payee, t.amount.quantize(q, rounding=ROUND_HALF_EVEN)) for t in pairs]
        balances = dict.fromkeys(tot, Decimal(0))
        for t in pairs:
            balances[t.payee] += t.amount
            balances[t.payer] -= t.amount
        balances = {p: v.quantize(q) + 0 for p, v in balances.items()}
        if not exact_pairs:
            notes.append(_("each pair's debt rounded to {q} {currency}, a half to the even coin; a balance is the sum "
                           "of its pairs").format(q=money_str(q), currency=currency))
    elif all(v == v.quantize(q) for v in raw.values()):
        balances = {p: v.quantize(q) + 0 for p, v in raw.items()}
    else:
        balances = round_keeping_zero(raw, q)
        notes.append(_("balances rounded to {q} {currency} by largest remainder; ties to the first seated").format(q=q, currency=currency))
    settled = balances
    if round_to is not None:
        if round_to <= 0:
            raise SettleError(_("the rounding step must be above zero, not {round_to}").format(round_to=money_str(round_to)),
                              "round")
        if round_to % q != 0:
            raise SettleError(_("the rounding step {round_to} is not a whole number of {q} {currency}").format(
                round_to=money_str(round_to), q=money_str(q), currency=currency), "round")
        settled = round_keeping_zero(balances, round_to)
        notes.append(_("transfers rounded to {round_to} {currency} by largest remainder (everyone " "rounded down, the rest to the largest remainders, ties to the first seated); the " "balances still sum to zero").format(round_to=money_str(round_to), currency=currency))
    transfers, exact = _fewest(settled)
    if not exact:
        notes.append(_("more than {EXACT_LIMIT} players: transfers by the greedy rule, perhaps not the fewest").format(EXACT_LIMIT=EXACT_LIMIT))
    return Settlement(method, stake, currency, tot, balances, tuple(pairs), tuple(transfers), settled, round_to,
                      exact, tuple(notes))


def fmt_money(amount: Decimal, s: Settlement) -> str:
    """An amount as the players read it: «1 234,50 ₽» in Russian, «1,234.50 ₽» in English; whole
    amounts without the kopecks («185 ₽»)."""
    return fmt_amount(amount, s.currency)


def fmt_amount(amount: Decimal, currency: str) -> str:
    """An amount in ``currency`` as the players read it (see fmt_money)."""
    q = _quantum(currency)
    text = f"{amount.quantize(q):,}"
    if text.endswith(".00"):
        text = text[:-3]
    return f"{local_number(text)} {CURRENCIES[currency][1]}"


def number_marks() -> tuple[str, str]:
    """How the active language writes a number, its thousands separator and its decimal mark, read
    from its catalog: the translation of the sample «1,234.5» (Russian «1 234,5», a narrow space)."""
    sample = pgettext("number format: thousands separator after 1, decimal mark after 234", "1,234.5")
    if len(sample) == 7 and sample[0] == "1" and sample[2:5] == "234" and sample[6] == "5" and sample[1] != sample[5]:
        return sample[1], sample[5]
    return ",", "."  # a catalog that gets the sample wrong: the source's marks, never a garbled number


def local_number(text: str) -> str:
    """A number written the English way ("1,234.5") as the active language writes it: in Russian the
    decimal comma and a narrow space between thousands ("1 234,5")."""
    thousands, decimal = number_marks()
    if (thousands, decimal) == (",", "."):
        return text
    return text.replace(",", "\0").replace(".", decimal).replace("\0", thousands)


def _signed_number(value: Decimal) -> str:
    """A total as the sheet writes it: a real minus sign, the language's decimal mark, no exponent."""
    text = local_number(format(abs(value).normalize(), "f"))
    return f"−{text}" if value < 0 else text


def local_decimal(value: Decimal) -> str:
    """A stake or a step as written ("0.50" → «0,50» in Russian), never an exponent."""
    return local_number(money_str(value))


class SettleError(InputError):
    """A settlement refused for what one choice of the person's decides: ``about`` is "round" (the
    rounding step) or "pot" (a pot that does not balance); a surface names its own way to choose."""

    def __init__(self, message: str, about: str) -> None:
        super().__init__(message)
        self.about = about


class Disagreement(InputError):
    """Games of one evening whose money headers differ; ``key`` is stake, currency or method."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(message)
        self.key = key


def money_problem(money: Mapping[str, Any]) -> str | None:
    """Why a game's [money] cannot settle it (its stake, currency or method), or None: the check
    reports it (code ``money``), and every surface says it instead of amounts."""
    try:
        cur = check_currency(money.get("currency"))
        parse_stake(money.get("stake"), cur)
        method = str(money.get("method", "pairwise"))
        if method not in METHODS:
            raise InputError(_("method must be pairwise or pot, not '{method}'").format(method=one_line(method, 20)))
    except InputError as exc:
        return str(exc)
    return None


def game_money(report: Report) -> tuple[Settlement | None, str | None]:
    """The one settlement of a game, which every surface shows (settle, the exports, the phones,
    the club): its own [money] (1 a point pairwise when it has none), through the pot against the
    mean where the rules do not sum to zero (the settlement's notes say so), pair debts rounded to
    the currency's coin a half to the even (said too). Or None and the sentence why not."""
    money = report.game.money
    why = money_problem(money)
    if why is not None:
        return None, _("[money] cannot be used: {why}").format(why=why)
    cur = check_currency(money.get("currency"))
    try:
        return settle({p: t.total for p, t in report.totals.items()}, parse_stake(money.get("stake"), cur), cur,
                      str(money.get("method", "pairwise")), pot_mean=True), None
    except InputError as exc:
        return None, str(exc)


def settlement_of(report: Report) -> Settlement | None:
    """The settlement the sheets print (game_money's), or None if the file's money cannot be used."""
    return game_money(report)[0]


def combine_games(reports: Sequence[tuple[str, Report]]) -> tuple[dict[str, Decimal], dict[str, dict[str, int]],
                                                                  dict[str, Any]]:
    """Several games of one evening: each player's totals summed by name, a column per game (its
    name made unique), and the money header they agree on. Files that disagree on stake, currency
    or method raise InputError naming the key."""
    summed: dict[str, Decimal] = {}
    columns: dict[str, dict[str, int]] = {}
    tables = {frozenset(r.game.players) for _, r in reports}
    if len(tables) > 1:
        sets = "; ".join(", ".join(r.game.players) + f" ({name})" for name, r in reports)
        raise InputError(_("the files are not one table: {sets}. Settling people who never sat together is a " "mistake; settle each table's files separately").format(sets=sets))
    for name, report in reports:
        while name in columns:
            name += "'"
        columns[name] = {p: t.total for p, t in report.totals.items()}
        for p, t in report.totals.items():
            summed[p] = summed.get(p, Decimal(0)) + t.total
    money: dict[str, Any] = {}
    for key in ("stake", "currency", "method"):
        values = {str(r.game.money[key]) for _, r in reports if key in r.game.money}
        if len(values) > 1:
            raise Disagreement(key, _("the files disagree on {key} ({values})").format(key=key, values=', '.join(sorted(values))))
        if values:
            money[key] = values.pop()
    return summed, columns, money
