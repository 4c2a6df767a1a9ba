"""The club's rating (kingsheet.club.rating, `kingsheet club rating`): the Weng-Lin Plackett-Luce
model as openskill implements it, and what a club expects of a rating."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kingsheet.cli.app import app
from kingsheet.club.rating import PROVISIONAL, Rating, places, rate, ratings

ROOT = Path(__file__).resolve().parent.parent


def test_four_newcomers_after_one_evening_as_openskill_gives_them():
    # openskill 6.2 PlackettLuce(), model.rate([[r()] for 4 players], ranks=...), printed
    after = rate([Rating()] * 4, [1, 2, 3, 4])
    want = [(27.795252672501135, 8.263571791259416), (26.55291815138952, 8.17961798837266),
            (24.689416369722096, 8.084127880168786), (20.962412806387245, 8.084127880168786)]
    for got, (mu, sigma) in zip(after, want, strict=True):
        assert got.mu == pytest.approx(mu, abs=1e-12) and got.sigma == pytest.approx(sigma, abs=1e-12)
    tied = rate([Rating()] * 4, places([30, 10, 10, -50]))  # equal totals share a place
    assert places([30, 10, 10, -50]) == [1, 2, 2, 4]
    assert tied[1] == tied[2] and tied[1].mu == pytest.approx(24.689416369722096, abs=1e-12)
    assert tied[3].mu == pytest.approx(22.825914588054673, abs=1e-12)


def test_any_evening_rates_as_openskill_rates_it():
    openskill = pytest.importorskip("openskill.models")
    model = openskill.PlackettLuce()
    rng = random.Random(7)
    for _trial in range(200):
        n = rng.choice([3, 4, 5, 6])
        before = [Rating(rng.uniform(10, 40), rng.uniform(0.5, 9)) for _ in range(n)]
        ranks = places([rng.choice([-40, -8, 0, 8, 40]) for _ in range(n)])
        theirs = model.rate([[model.rating(mu=r.mu, sigma=r.sigma)] for r in before], ranks=ranks)
        for mine, [other] in zip(rate(before, ranks), theirs, strict=True):
            assert mine.mu == pytest.approx(other.mu, abs=1e-9) and mine.sigma == pytest.approx(other.sigma, abs=1e-9)


def test_a_player_who_always_wins_rises_above_one_who_always_loses_and_a_newcomer_moves_more():
    evenings = [(k, {"Аня": 40, "Боря": 10, "Вася": -10, "Галя": -40}) for k in range(8)]
    current, counted, story = ratings(evenings)
    assert current["Аня"].ordinal > current["Боря"].ordinal > current["Вася"].ordinal > current["Галя"].ordinal
    assert counted == {"Аня": 8, "Боря": 8, "Вася": 8, "Галя": 8} and len(story) == 8
    assert current["Аня"].sigma < Rating().sigma  # more evenings, less doubt
    # the same win moves a newcomer's skill more than a regular's of the same skill
    field = [Rating(25, 3.0)] * 3
    newcomer = rate([Rating(), *field], [1, 2, 3, 4])[0]
    regular = rate([Rating(25, 3.0), *field], [1, 2, 3, 4])[0]
    assert newcomer.mu - 25 > 2 * (regular.mu - 25) > 0
    # and after the evening the newcomer's uncertainty has narrowed more (they were the surprise)
    assert Rating().sigma - newcomer.sigma > 3.0 - regular.sigma


def _club(folder: Path, names: list[str]) -> None:
    """Six evenings of blank-4 in which the players finish in the order ``names`` each evening,
    a newcomer at one of them; written under ``names`` of files that say nothing of their order."""
    folder.mkdir()
    text = (ROOT / "examples" / "blank-4.toml").read_text(encoding="utf-8")
    # the example's order by ИТОГО: Боря 37, Галя 25, Вася −30, Аня −32
    seats = {"Боря": names[0], "Галя": names[1], "Вася": names[2], "Аня": names[3]}
    for k in range(6):
        day = f"2026-10-{10 + k:02d}"
        evening = text.replace("date = 2026-11-27", f"date = {day}")
        table = dict(seats)
        if k == 3:
            table["Аня"] = "Новичок"
        for old, new in table.items():
            evening = evening.replace(f'"{old}"', f'"{new}"')
        (folder / f"{random.Random(k).randrange(10**6):06d}.toml").write_text(evening, encoding="utf-8")


def test_the_club_rating_ranks_the_winner_first_marks_the_newcomer_and_ignores_file_names(tmp_path):
    folder = tmp_path / "club"
    _club(folder, ["Ира", "Коля", "Лена", "Миша"])
    r = CliRunner().invoke(app, ["club", "rating", "--dir", str(folder), "--json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert [x["player"] for x in data["ratings"]][0] == "Ира"  # first every evening
    by = {x["player"]: x for x in data["ratings"]}
    assert by["Новичок"]["provisional"] and by["Новичок"]["evenings"] == 1
    assert not by["Ира"]["provisional"] and by["Ира"]["evenings"] == 6 >= PROVISIONAL
    assert float(by["Ира"]["rating"]) > float(by["Коля"]["rating"]) > float(by["Лена"]["rating"])
    # the same evenings under other names, indexed in another order: the same ratings
    other = tmp_path / "other"
    shutil.copytree(folder, other)
    for k, path in enumerate(sorted(other.glob("*.toml"), reverse=True)):
        path.rename(other / f"evening-{k}.toml")
    again = json.loads(CliRunner().invoke(app, ["club", "rating", "--dir", str(other), "--json"]).stdout)
    assert again["ratings"] == data["ratings"] and again["history"] == data["history"]
    text = CliRunner().invoke(app, ["club", "rating", "--dir", str(folder), "--lang", "ru"]).stdout
    assert "рейтинг" in text and "предварительный" in text and "Новичок" in text
    assert CliRunner().invoke(app, ["club", "standings", "--dir", str(folder), "--lang", "ru"]).stdout.count("*") >= 1
    player = CliRunner().invoke(app, ["club", "player", "Новичок", "--dir", str(folder), "--lang", "ru"]).stdout
    assert "рейтинг:" in player and "1 вечер" in player and "предварительный" in player
