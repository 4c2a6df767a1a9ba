"""Money: seed 000's example verbatim, exact sums, the fewest transfers against brute force."""

from __future__ import annotations

import json
from decimal import Decimal
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import EXAMPLES
from kingsheet.cli.app import app
from kingsheet.core.money import parse_totals, settle
from kingsheet.core.problems import InputError

SEED = {"A": 100, "B": 70, "C": 65, "D": -20}


def test_seed000_example_verbatim():
    s = settle(SEED, Decimal(1))
    assert {(t.payer, t.payee): t.amount for t in s.pairs if t.payee == "A"} == {
        ("B", "A"): 30, ("C", "A"): 35, ("D", "A"): 120}
    assert s.balances == {"A": 185, "B": 65, "C": 45, "D": -295}
    assert len(s.transfers) == 3


def test_seed000_example_cli_json(runner):
    res = runner.invoke(app, ["settle", "--totals", "A=100,B=70,C=65,D=-20", "--stake", "1", "--json"])
    assert res.exit_code == 0, res.output
    obj = json.loads(res.stdout)
    assert obj["method"] == "pairwise" and obj["stake"] == "1" and obj["currency"] == "RUB"
    assert obj["totals"] == SEED
    assert obj["balances"] == {"A": "185", "B": "65", "C": "45", "D": "-295"}
    assert {"from": "B", "to": "A", "amount": "30"} in obj["pairs"]
    assert obj["transfers"] == [{"from": "D", "to": "A", "amount": "185"}, {"from": "D", "to": "B", "amount": "65"},
                                {"from": "D", "to": "C", "amount": "45"}]


def test_cli_text_shows_arrows_and_roubles(runner):
    res = runner.invoke(app, ["settle", "--totals", "Аня=100,Боря=70,Вася=65,Галя=-20"])
    assert "Галя → Аня 185 ₽" in res.stdout
    assert "Боря → Аня 30 ₽" in res.stdout


def test_evening_of_several_files_sums_by_name(runner):
    files = [str(EXAMPLES / "blank-4.toml"), str(EXAMPLES / "symmetric.toml")]
    res = runner.invoke(app, ["settle", "--json", *files])
    assert res.exit_code == 0, res.output
    obj = json.loads(res.stdout)
    assert set(obj["totals"]) == {"Аня", "Боря", "Вася", "Галя"}
    assert obj["stake"] == "0.50"  # from the files' [money]
    one = [json.loads(runner.invoke(app, ["settle", "--json", f]).stdout)["totals"] for f in files]
    assert obj["totals"] == {p: one[0][p] + one[1][p] for p in obj["totals"]}
    assert sum(Decimal(v) for v in obj["balances"].values()) == 0


def test_files_of_different_tables_are_not_one_evening(runner):
    """Settling people who never sat together is a mistake (three-30 is played by three)."""
    res = runner.invoke(app, ["settle", str(EXAMPLES / "blank-4.toml"), str(EXAMPLES / "three-30.toml")])
    assert res.exit_code == 2 and "the files are not one table" in res.stderr and "separately" in res.stderr


def test_sheet_with_problems_is_not_settled(runner):
    res = runner.invoke(app, ["settle", str(EXAMPLES / "mistakes" / "off-by-one-trick.toml")])
    assert res.exit_code == 1
    assert "has problems; fix them, or settle anyway with --force" in res.stderr
    res = runner.invoke(app, ["settle", "--force", str(EXAMPLES / "mistakes" / "off-by-one-trick.toml")])
    assert res.exit_code == 0


@pytest.mark.parametrize("args, message", [
    (["--totals", "А=100,Б"], "'Б' has no '='"),
    (["--totals", "А=100,А=3"], "А appears twice"),
    (["--totals", "А=сто,Б=1"], "А's total 'сто' is not a number"),
    (["--totals", "А=1,Б=-1", "--stake", "-1"], "stake must be above zero"),
    (["--totals", "А=1,Б=-1", "--stake", "abc"], "stake 'abc' is not a number"),
    (["--totals", "А=1,Б=-1", "--currency", "XYZ"], "unknown currency code 'XYZ'"),
    (["--totals", "А=100,Б=70,В=65,Г=-20", "--method", "pot"], "the totals sum to 215, not zero"),
    (["--totals", "А=1,Б=-1", "--method", "cards"], "--method must be pairwise or pot"),
    ([], "no current game: give the game file, or start one with"),
])
def test_bad_input_one_sentence_exit_2(runner, args, message):
    res = runner.invoke(app, ["settle", *args])
    assert res.exit_code == 2
    assert message in res.stderr and len(res.stderr.strip().splitlines()) == 1


def test_a_bad_stake_is_named_in_russian_too():
    from kingsheet.core import i18n
    from kingsheet.core.money import parse_stake

    with i18n.speaking("ru"), pytest.raises(InputError) as err:
        parse_stake("abc", "RUB")
    assert str(err.value) == "ставка: «abc» — не число"


def test_pot_mean_and_pot():
    s = settle({"a": 10, "b": -10, "c": 0}, Decimal("0.5"), method="pot")
    assert s.balances == {"a": 5, "b": -5, "c": 0}
    s = settle(SEED, Decimal(1), method="pot", pot_mean=True)
    assert sum(s.balances.values()) == 0
    assert "mean" in s.notes[0]


totals_st = st.dictionaries(st.text("абвгдежзик", min_size=1, max_size=3), st.integers(-500, 500),
                            min_size=2, max_size=7)
stake_st = st.decimals(min_value=Decimal("0.01"), max_value=Decimal("100"), places=3)


@settings(max_examples=150, deadline=None)
@given(totals_st, stake_st, st.sampled_from([None, Decimal(1), Decimal(10)]), st.sampled_from(["pairwise", "pot"]))
def test_sums_are_exactly_zero_and_transfers_realise_balances(totals, stake, rnd, method):
    s = settle(totals, stake, method=method, pot_mean=True, round_to=rnd)
    assert sum(s.balances.values()) == 0
    assert sum(s.settled.values()) == 0
    got = dict.fromkeys(totals, Decimal(0))
    for t in s.transfers:
        assert t.amount > 0
        got[t.payer] -= t.amount
        got[t.payee] += t.amount
    assert got == dict(s.settled)
    for v in s.balances.values():
        assert v == v.quantize(Decimal("0.01"))
    if rnd:
        assert all(v % rnd == 0 for v in s.settled.values())
        assert all(abs(s.settled[p] - s.balances[p]) < rnd for p in totals)


@settings(max_examples=100, deadline=None)
@given(totals_st, st.decimals(min_value=Decimal("0.01"), max_value=Decimal("100"), places=2))
def test_pairwise_is_n_times_distance_from_mean(totals, stake):
    s = settle(totals, stake)
    n = len(totals)
    mean = Decimal(sum(totals.values())) / n
    for p, v in totals.items():
        assert s.balances[p] == (n * (v - mean) * stake).quantize(Decimal("0.01"))
    pair_sum = dict.fromkeys(totals, Decimal(0))
    for t in s.pairs:
        pair_sum[t.payer] -= t.amount
        pair_sum[t.payee] += t.amount
    assert pair_sum == dict(s.balances)


def brute_min(balances: tuple[int, ...]) -> int:
    """Fewest transfers by search: each transfer clears the payer or the payee (an optimum of that form exists)."""

    @cache
    def go(state: tuple[int, ...]) -> int:
        rest = [v for v in state if v]
        if not rest:
            return 0
        state_l = sorted(rest)
        best = 10**9
        i = 0  # the first debtor pays someone: try every creditor
        for j, v in enumerate(state_l):
            if v > 0:
                nxt = list(state_l)
                amount = min(-nxt[i], v)
                nxt[i] += amount
                nxt[j] -= amount
                best = min(best, 1 + go(tuple(sorted(nxt))))
        return best

    return go(tuple(sorted(balances)))


@settings(max_examples=120, deadline=None)
@given(st.lists(st.integers(-6, 6), min_size=2, max_size=6))
def test_fewest_transfers_equals_brute_force(values):
    values = [*values, -sum(values)]
    totals = {f"p{i}": v for i, v in enumerate(values)}
    s = settle(totals, Decimal(1), method="pot")
    assert len(s.transfers) == brute_min(tuple(values))


def test_exact_for_ten_players_quickly():
    totals = {f"p{i}": v for i, v in enumerate([5, -5, 3, -3, 7, -2, -5, 4, -4, 0])}
    s = settle(totals, Decimal(1), method="pot")
    assert len(s.transfers) == 9 - 4 and s.exact  # nine non-zero, four zero-sum groups


def test_parse_totals_keeps_order_and_accepts_unicode_minus():
    assert list(parse_totals("Галя=−20, Аня=100")) == ["Галя", "Аня"]
    with pytest.raises(InputError):
        parse_totals("А=1")


# ---- found by the mutation campaign (bench/mutation.py) -------------------------------------------

# ISO 4217 minor units, written out here from the standard, not read from kingsheet
ISO_MINOR = {"RUB": 2, "BYN": 2, "UAH": 2, "KZT": 2, "USD": 2, "EUR": 2, "GBP": 2, "CHF": 2, "PLN": 2, "CZK": 2,
             "ILS": 2, "GEL": 2, "AMD": 2, "AZN": 2, "UZS": 2, "KGS": 2, "MDL": 2, "TRY": 2, "CNY": 2, "JPY": 0,
             "KRW": 0, "CAD": 2, "AUD": 2, "SEK": 2, "NOK": 2, "DKK": 2, "HUF": 2, "RSD": 2, "BGN": 2, "XXX": 0}


@pytest.mark.parametrize("currency", sorted(ISO_MINOR))
def test_amounts_are_in_each_currencys_minor_unit(currency):
    s = settle({"A": 7, "B": 0, "C": -7}, Decimal("0.333"), currency, "pairwise")
    # pair debts 2.331, 4.662 and 2.331, each in the minor unit: A wins 2.33 + 4.66 (or 2 + 5)
    assert s.balances["A"] == (Decimal("6.99") if ISO_MINOR[currency] == 2 else Decimal(7)), s.balances


def test_transfers_are_listed_in_seating_order():
    s = settle({"Аня": -30, "Боря": 50, "Вася": -40, "Галя": 20}, Decimal(1), "RUB", "pot")
    seats = ["Аня", "Боря", "Вася", "Галя"]
    order = [(seats.index(t.payer), seats.index(t.payee)) for t in s.transfers]
    assert order == sorted(order) and len(order) >= 2


def test_the_pot_against_the_mean_writes_its_numbers_as_the_sheet_does():
    from decimal import Decimal

    from kingsheet.core import i18n
    from kingsheet.core.money import settle

    with i18n.speaking("ru"):
        s = settle({"А": 10, "Б": -20, "В": -16, "Г": 0}, Decimal("0.5"), "RUB", "pot", pot_mean=True)
    assert s.notes == ("расчёт относительно среднего ИТОГО −6,5: сумма итогов −26",)
    s = settle({"А": 10, "Б": -20, "В": -16, "Г": 0}, Decimal("0.5"), "RUB", "pot", pot_mean=True)
    assert s.notes == ("settled against the mean total −6.5: the totals sum to −26",)


# ---- the library guards money itself, whoever calls it (mutants that changed an amount lived) ---

@pytest.mark.parametrize("stake", [Decimal(-1), Decimal(0), Decimal("-0.50"), Decimal("1e10")])
def test_the_library_refuses_a_stake_that_would_reverse_or_break_every_payment(stake):
    from kingsheet.core.money import settle
    from kingsheet.core.problems import InputError

    with pytest.raises(InputError, match="stake"):
        settle({"А": 10, "Б": -10}, stake)


@pytest.mark.parametrize("step, message", [(Decimal(0), "above zero"), (Decimal(-1), "above zero"),
                                           (Decimal("0.005"), "whole number of 0.01")])
def test_a_rounding_step_must_be_a_positive_whole_number_of_kopecks(step, message):
    from kingsheet.core.money import settle
    from kingsheet.core.problems import InputError

    with pytest.raises(InputError, match=message):
        settle({"А": 10, "Б": -10}, Decimal(1), round_to=step)


@pytest.mark.parametrize("value, text", [(Decimal("1.00"), "1"), (Decimal("1"), "1"), (Decimal("0.50"), "0.50"),
                                         (Decimal("185"), "185"), (Decimal("-0"), "0"), (Decimal("1E+3"), "1000"),
                                         (Decimal("-12.5"), "-12.5"), (Decimal("0.01"), "0.01")])
def test_an_amount_is_written_as_a_plain_decimal(value, text):
    """A 1-rouble transfer reads "1" in the JSON, never "0", an exponent or "-0"."""
    from kingsheet.core.money import money_str

    assert money_str(value) == text


def _reports(*stakes: str | None):
    from kingsheet.core.verify import verify
    from kingsheet.files.gamefile import read_game

    text = (EXAMPLES / "blank-4.toml").read_text(encoding="utf-8")
    out = []
    for k, stake in enumerate(stakes):
        t = text if stake is None else text.replace('stake = "0.50"', f'stake = "{stake}"')
        out.append((f"game{k}.toml", verify(read_game(t))))
    return out


def test_files_of_one_evening_at_different_stakes_are_not_settled_at_either():
    from kingsheet.core.money import Disagreement, combine_games

    with pytest.raises(Disagreement) as caught:
        combine_games(_reports("0.50", "1"))
    assert caught.value.key == "stake" and str(caught.value) == "the files disagree on stake (0.50, 1)"


def test_files_of_one_evening_sum_by_name_with_a_column_each():
    from kingsheet.core.money import combine_games

    summed, columns, money = combine_games(_reports("0.50", "0.50"))
    assert summed == {"Аня": -64, "Боря": 74, "Вася": -60, "Галя": 50}
    assert list(columns) == ["game0.toml", "game1.toml"] and columns["game1.toml"]["Боря"] == 37
    assert money == {"stake": "0.50", "currency": "RUB", "method": "pairwise"}
    same_name = combine_games([("x", r) for _n, r in _reports(None, None)])[1]
    assert list(same_name) == ["x", "x'"]  # two files of one name keep a column each


# ---- the library's own boundaries, each stated (the mutation campaign over core/money.py) ---------------

@pytest.mark.parametrize("currency", sorted(ISO_MINOR))
def test_a_tenth_of_the_currency_is_kept_only_where_it_has_minor_units(currency):
    s = settle({"A": 1, "B": 0}, Decimal("0.1"), currency, "pairwise")
    assert s.balances["A"] == (Decimal("0.1") if ISO_MINOR[currency] == 2 else 0), s.balances


def test_amounts_in_the_minor_unit_and_back():
    from kingsheet.core.money import from_minor, minor_units

    assert minor_units(Decimal("12.34"), "RUB") == 1234 and minor_units(Decimal("-7"), "JPY") == -7
    assert from_minor(1234, "RUB") == Decimal("12.34") and str(from_minor(-5, "JPY")) == "-5"
    assert str(from_minor(0, "RUB")) == "0.00"
    with pytest.raises(ValueError, match="not a whole number"):
        minor_units(Decimal("12.345"), "RUB")


@pytest.mark.parametrize("text, ok", [("1000000000", True), ("-1000000000", True), ("1000000000.000001", False),
                                      ("0.000001", True), ("0.0000001", False), ("0.0000000", True)])
def test_a_number_is_taken_up_to_its_limit_and_six_places(text, ok):
    from kingsheet.core.money import parse_decimal

    if ok:
        assert parse_decimal(text, "x") == Decimal(text)
    else:
        with pytest.raises(InputError):
            parse_decimal(text, "x")


def test_minus_zero_is_written_zero():
    from kingsheet.core.money import money_str, parse_decimal

    assert str(parse_decimal("-0", "x")) == "0" and str(parse_decimal("−0.00", "x")) == "0.00"
    assert money_str(Decimal("-0")) == "0"


def test_a_stake_of_zero_is_refused_where_it_is_typed():
    from kingsheet.core.money import parse_stake

    with pytest.raises(InputError, match="above zero"):
        parse_stake("0", "RUB")
    assert parse_stake("0.01", "RUB") == Decimal("0.01") and parse_stake(None, "RUB") == 1


def test_sixty_four_players_are_settled_and_sixty_five_are_not():
    totals = {f"p{i}": i - 32 for i in range(64)}
    text = ",".join(f"{p}={v}" for p, v in totals.items())
    assert len(parse_totals(text)) == 64 and len(settle(totals, Decimal(1)).balances) == 64
    with pytest.raises(InputError, match="at most 64"):
        parse_totals(text + ",extra=0")
    with pytest.raises(InputError, match="at most 64"):
        settle({**totals, "extra": 0}, Decimal(1))


def test_the_fewest_transfers_are_searched_exactly_for_sixteen_people_and_greedily_beyond():
    from kingsheet.core.money import fewest_transfers

    sixteen = {f"p{i}": Decimal(v) for i, v in enumerate([1, -1] * 8)}
    transfers, exact = fewest_transfers(sixteen)
    assert exact and len(transfers) == 8
    seventeen = {**{f"p{i}": Decimal(2) for i in range(8)}, **{f"q{i}": Decimal(-2) for i in range(7)},
                 "q7": Decimal(-1), "r": Decimal(0), "s": Decimal(-1)}  # seventeen who pay or are paid
    s = settle({p: v for p, v in seventeen.items()}, Decimal(1), method="pot")
    assert not s.exact and any("greedy" in n for n in s.notes)
    assert sum(t.amount for t in s.transfers if t.payer == "s") == 1


def test_rounding_the_transfers_is_said_and_kept_in_the_json():
    s = settle({"A": 10, "B": -3, "C": -7}, Decimal("0.37"), round_to=Decimal(1))
    assert any("rounded to 1" in n for n in s.notes)
    data = s.as_json()
    assert data["round"] == "1" and sum(Decimal(v) for v in data["rounded_balances"].values()) == 0
    plain = settle({"A": 10, "B": -10}, Decimal(1)).as_json()
    assert "round" not in plain and "rounded_balances" not in plain


def test_the_currency_sign_and_a_stake_as_written():
    from kingsheet.core import i18n
    from kingsheet.core.money import local_decimal

    assert settle({"A": 1, "B": -1}, Decimal(1)).symbol == "₽"
    assert settle({"A": 1, "B": -1}, Decimal(1), "EUR").symbol == "€"
    with i18n.speaking("ru"):
        assert local_decimal(Decimal("0.50")) == "0,50"
    with i18n.speaking("en"):
        assert local_decimal(Decimal("0.50")) == "0.50"


def test_what_was_rounded_is_said():
    """A pair's debt that is not a whole number of kopecks, or a balance through the pot that is not,
    is rounded, and the settlement says how."""
    exact = settle({"A": 10, "B": -10}, Decimal("0.5"))
    assert exact.notes == () and settle({"A": 10, "B": -10}, Decimal(1), method="pot").notes == ()
    mean = settle({"A": 1, "B": 0}, Decimal(1), method="pot", pot_mean=True)
    assert any("settled against the mean total" in n for n in mean.notes), mean.notes
    pairs = settle({"A": 1, "B": 0, "C": -1}, Decimal("0.333"))
    assert any("each pair's debt rounded to 0.01 RUB, a half to the even coin" in n for n in pairs.notes), pairs.notes
    pot = settle({"A": 1, "B": 0, "C": -1}, Decimal("0.333"), method="pot")
    assert pot.balances == {"A": Decimal("0.33"), "B": Decimal("0"), "C": Decimal("-0.33")}
    odd = settle({"A": 1, "B": 0, "C": 0}, Decimal(1), method="pot", pot_mean=True)  # a mean of 1/3
    assert odd.balances == {"A": Decimal("0.67"), "B": Decimal("-0.33"), "C": Decimal("-0.34")}, odd.balances  # ties: first seated
    assert any("by largest remainder" in n for n in odd.notes), odd.notes


@pytest.mark.parametrize("values, fewest", [([0, 6, -3, -5, 1, -6, 7], 4), ([0, 0, 3, 6, 6, -6, 5, -14], 4),
                                            ([3, -1, -2, 5, -5], 3)])
def test_the_fewest_transfers_split_the_table_into_as_many_groups_as_settle_alone(values, fewest):
    """6 and −6 settle between themselves, and −3, −5, 1, 7 among themselves: 1 + 3 transfers, where a
    search that splits the table less well pays 5 (found by comparing with every split, by hand)."""
    from kingsheet.core.money import fewest_transfers

    transfers, exact = fewest_transfers({f"p{i}": Decimal(v) for i, v in enumerate(values)})
    assert exact and len(transfers) == fewest


def test_equal_totals_settle_to_nothing_either_way():
    for method in ("pairwise", "pot"):
        s = settle({"A": 5, "B": 5, "C": 5}, Decimal("0.5"), method=method, pot_mean=True)
        assert all(v == 0 for v in s.balances.values()) and s.transfers == () and s.pairs == (), (method, s)


def test_the_library_settles_totals_up_to_its_limit_exactly():
    s = settle({"A": Decimal("1e9"), "B": Decimal("-1e9")}, Decimal("1e9"))
    assert s.balances == {"A": Decimal("2e18"), "B": Decimal("-2e18")}
    with pytest.raises(InputError, match="within ±1000000000"):
        settle({"A": Decimal("1000000000.000001"), "B": 0}, Decimal(1))


@pytest.mark.parametrize("balances, transfers", [
    ({"Аня": -2, "Боря": -2, "Вася": 2, "Галя": 2}, [("Аня", "Вася", 2), ("Боря", "Галя", 2)]),
    ({"Аня": -5, "Боря": 3, "Вася": 2, "Галя": -5, "Дима": 5},
     [("Аня", "Боря", 3), ("Аня", "Вася", 2), ("Галя", "Дима", 5)]),
])
def test_among_equally_few_transfers_the_table_settles_in_seating_order(balances, transfers):
    """Two ways to pay with as few transfers are told apart by the seating: the first seated settles
    with the first seated who close a group with them (Аня with Боря and Вася, not with Дима), so the
    same totals always give the same payments."""
    from kingsheet.core.money import fewest_transfers

    got, exact = fewest_transfers({p: Decimal(v) for p, v in balances.items()})
    assert exact and [(t.payer, t.payee, t.amount) for t in got] == [(a, b, Decimal(v)) for a, b, v in transfers]
