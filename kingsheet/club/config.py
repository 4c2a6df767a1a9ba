"""club.toml, the club's own file beside its games: its name, who is who, its seasons, and the
payments made between evenings. Everything in it is optional; a folder without it is a club of
calendar-year seasons and no aliases.

```toml
name = "Пятничный Кинг"
aliases = ["Аня = Анна = Anya", "Боря = Борис"]

[[seasons]]
name = "осень 2026"
from = 2026-09-01
to = 2026-12-31

[[paid]]
from = "Вася"
to = "Боря"
amount = "10"
currency = "RUB"
date = 2026-11-28
```
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping, Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any

from kingsheet.core.i18n import _
from kingsheet.core.money import MAX_TOTAL, check_currency, money_str, parse_decimal, payable
from kingsheet.core.problems import InputError
from kingsheet.core.record import EMPTY_MAP, Record
from kingsheet.core.tomltext import TomlProblem, parse

CLUB_FILE = "club.toml"
MAX_CLUB_BYTES = 1024 * 1024
MAX_NAME = 80


class Season(Record):
    name: str
    start: dt.date
    end: dt.date


class Payment(Record):
    payer: str
    payee: str
    amount: Decimal
    currency: str
    date: str | None = None

    def as_json(self) -> dict[str, Any]:
        return {"from": self.payer, "to": self.payee, "amount": money_str(self.amount), "currency": self.currency,
                "date": self.date}


class Club(Record):
    folder: Path
    name: str
    aliases: Mapping[str, str] = EMPTY_MAP  # a name as folded → the name the club uses
    seasons: tuple[Season, ...] = ()
    payments: tuple[Payment, ...] = ()

    def who(self, name: str) -> str:
        """The name the club uses for a player written ``name`` (aliases; case and ё do not matter)."""
        return self.aliases.get(_fold(name), name)

    def season(self, name: str) -> tuple[dt.date, dt.date]:
        """A named season of club.toml, or a calendar year («2026»)."""
        for s in self.seasons:
            if s.name.casefold() == name.strip().casefold():
                return s.start, s.end
        if re.fullmatch(r"\d{4}", name.strip()):
            year = int(name)
            return dt.date(year, 1, 1), dt.date(year, 12, 31)
        known = ", ".join(s.name for s in self.seasons) or _("none; a year such as 2026")
        raise InputError(_("no season '{name}' in {file} (seasons: {known})").format(
            name=name[:MAX_NAME], file=CLUB_FILE, known=known))


def _fold(name: str) -> str:
    return name.strip().casefold().replace("ё", "е")


def load_club(folder: Path) -> Club:
    """The club of ``folder``: its club.toml read and checked, or the defaults when there is none."""
    from kingsheet.files.gamefile import read_bounded

    path = folder / CLUB_FILE
    if not path.exists():
        return Club(folder, folder.resolve().name)
    data = read_bounded(path, MAX_CLUB_BYTES, CLUB_FILE)
    try:
        raw = parse(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, TomlProblem) as exc:
        raise InputError(_("{path}: not a club file ({why})").format(path=path, why=exc)) from None
    where = str(path)
    unknown = sorted(set(raw) - {"name", "aliases", "seasons", "paid"})
    if unknown:
        raise InputError(_("{path}: unknown key {keys}").format(path=where, keys=", ".join(unknown)))
    name = _text(raw.get("name", folder.resolve().name), where, "name")
    aliases = _aliases(raw.get("aliases", []), where)
    club = Club(folder, name, aliases, _seasons(raw.get("seasons", []), where))
    payments = tuple(_payment(p, where, k, club) for k, p in enumerate(_list(raw.get("paid", []), where, "paid"), 1))
    return Club(folder, name, aliases, club.seasons, payments)


def _text(value: Any, where: str, key: str) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_NAME or not value.isprintable():
        raise InputError(_("{path}: {key} must be a name of at most {most} characters").format(
            path=where, key=key, most=MAX_NAME))
    return value.strip()


def _list(value: Any, where: str, key: str) -> list[Any]:
    if not isinstance(value, list):
        raise InputError(_("{path}: {key} must be a list").format(path=where, key=key))
    return value


def _aliases(value: Any, where: str) -> dict[str, str]:
    """``["Аня = Анна = Anya"]``: the first name is the one the club uses."""
    out: dict[str, str] = {}
    for line in _list(value, where, "aliases"):
        if not isinstance(line, str):
            raise InputError(_('{path}: each alias is written "Аня = Анна = Anya"').format(path=where))
        names = [_text(n, where, "aliases") for n in line.split("=")]
        for n in names:
            if _fold(n) in out and out[_fold(n)] != names[0]:
                raise InputError(_("{path}: {name} is an alias of two players").format(path=where, name=n))
            out[_fold(n)] = names[0]
    return out


def _date(value: Any, where: str, key: str) -> dt.date:
    if isinstance(value, dt.date) and not isinstance(value, dt.datetime):
        return value
    try:
        return dt.date.fromisoformat(str(value))
    except ValueError:
        raise InputError(_("{path}: {key} must be a date such as 2026-11-27").format(path=where, key=key)) from None


def _seasons(value: Any, where: str) -> tuple[Season, ...]:
    out = []
    for s in _list(value, where, "seasons"):
        if not isinstance(s, dict):
            raise InputError(_("{path}: each season is a table with name, from and to").format(path=where))
        season = Season(_text(s.get("name"), where, "seasons.name"), _date(s.get("from"), where, "seasons.from"),
                        _date(s.get("to"), where, "seasons.to"))
        if season.end < season.start:
            raise InputError(_("{path}: the season {name} ends before it starts").format(path=where, name=season.name))
        out.append(season)
    return tuple(out)


def _payment(value: Any, where: str, k: int, club: Club) -> Payment:
    """A payment of club.toml, by the rules `club paid` keeps: from one player to another, above
    zero, in what the currency can pay (whether its names play in the club is known once the games
    are read: check_payments)."""
    if not isinstance(value, dict):
        raise InputError(_("{path}: payment {k} must be a table with from, to and amount").format(path=where, k=k))
    payer = _text(value.get("from"), where, "paid.from")
    payee = _text(value.get("to"), where, "paid.to")
    if club.who(payer) == club.who(payee):
        raise InputError(_("{path}: payment {k} is from {name} to {name}; a payment is from one player to "
                           "another").format(path=where, k=k, name=club.who(payer)))
    what = _("payment {k}").format(k=k)
    amount = parse_decimal(str(value.get("amount", "")), what, MAX_TOTAL)
    if amount <= 0:
        raise InputError(_("{path}: payment {k} must be above zero").format(path=where, k=k))
    currency = check_currency(value.get("currency"))
    try:
        payable(amount, currency, what)
    except InputError as exc:
        raise InputError(f"{where}: {exc}") from None
    date = value.get("date")
    return Payment(payer, payee, amount, currency, None if date is None else _date(date, where, "paid.date").isoformat())


def check_payments(club: Club, players: Sequence[str]) -> None:
    """Every payment of club.toml is between players of the club (by any alias), as `club paid`
    asks; a payment naming anyone else would add a stranger to the ledger."""
    known = {club.who(p) for p in players}
    for k, pay in enumerate(club.payments, 1):
        for name in (pay.payer, pay.payee):
            if club.who(name) not in known:
                raise InputError(_("{path}: payment {k} names {name}, who plays in no game of the club (a "
                                   "misspelling? an alias in club.toml joins two names)").format(
                    path=club.folder / CLUB_FILE, k=k, name=name))


def record_payment(club: Club, payer: str, payee: str, amount: str, currency: str | None, date: str | None,
                   players: Sequence[str]) -> Payment:
    """A payment added to club.toml (made if need be), under the lock and atomically; the names must
    be players of the club (by any alias). Returns the payment as recorded."""
    from kingsheet.core.entry import find_player
    from kingsheet.files.edits import _toml_value
    from kingsheet.files.storage import atomic_write, locked

    known = sorted({club.who(p) for p in players})
    payer, payee = (club.who(find_player(club.who(n), known, club=True)) for n in (payer, payee))
    if payer == payee:
        raise InputError(_("a payment is from one player to another"))
    value = parse_decimal(amount, _("amount"), MAX_TOTAL)
    if value <= 0:
        raise InputError(_("the amount must be above zero, not {amount}").format(amount=amount[:20]))
    code = check_currency(currency)
    payable(value, code, _("the amount"))
    when = _date(date, CLUB_FILE, "--date").isoformat() if date else dt.date.today().isoformat()
    payment = Payment(payer, payee, value, code, when)
    path = club.folder / CLUB_FILE
    table = (f"\n[[paid]]\nfrom = {_toml_value(payer)}\nto = {_toml_value(payee)}\n"
             f"amount = {_toml_value(money_str(value))}\ncurrency = {_toml_value(payment.currency)}\ndate = {when}\n")
    if not path.exists():
        atomic_write(path, f"name = {_toml_value(club.name)}\n".encode())
    with locked(path):
        text = path.read_text(encoding="utf-8")
        new = text + ("" if text.endswith("\n") else "\n") + table
        load_check = parse(new)  # the file must still read as a club file
        if not isinstance(load_check.get("paid"), list):
            raise InputError(_("{path}: paid must be written as [[paid]] tables").format(path=path))
        atomic_write(path, new.encode("utf-8"))
    load_club(club.folder)
    return payment
