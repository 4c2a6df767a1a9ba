"""One answer for money (issue 65): a game whose [money] cannot be used — a mistyped stake, one
past any context's reach — gets one sentence from every surface and never a settlement at a stake
it does not have, nor an «unexpected error»."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import EXAMPLES
from kingsheet.cli.app import app

STAKES = {"0,5O": ("«0,5O» — не число", "'0,5O' is not a number"),
          "1e999999999": ("слишком много", "is too large"),
          "NaN": ("не число", "is not a number")}


def _game(folder: Path, stake: str) -> Path:
    path = folder / "bad.toml"
    path.write_text((EXAMPLES / "blank-4.toml").read_text(encoding="utf-8").replace(
        'stake = "0.50"', f'stake = "{stake}"'), encoding="utf-8")
    return path


def run(*args: str):
    return CliRunner().invoke(app, list(args))


@pytest.mark.parametrize("stake", list(STAKES))
def test_check_settle_and_export_say_the_sentence(tmp_path, stake):
    ru, en = STAKES[stake]
    path = _game(tmp_path, stake)
    for lang, words, lead in (("ru", ru, "[money] не годится для расчёта: ставка"),
                              ("en", en, "[money] cannot be used: stake")):
        r = run("check", str(path), "--lang", lang)
        assert r.exit_code == 1 and lead in r.stderr and words in r.stderr, r.output
        assert "непредвиденная" not in r.output and "unexpected" not in r.output
    codes = json.loads(run("check", str(path), "--json").stdout)
    assert "money" in [p["code"] for p in codes["errors"]]
    r = run("settle", str(path), "--force", "--lang", "en")
    assert r.exit_code == 2 and en in r.output and "₽" not in r.output
    out = tmp_path / "sheet.json"
    assert run("export", str(path), "-o", str(out)).exit_code == 1  # written, its problem marked
    exported = json.loads(out.read_text(encoding="utf-8"))
    assert exported.get("settlement") is None and "money" in json.dumps(exported, ensure_ascii=False)


@pytest.mark.parametrize("stake", ["0,5O", "1e999999999"])
def test_the_phone_and_the_app_say_the_sentence_not_money(tmp_path, stake):
    pytest.importorskip("starlette")
    from serving import TOKEN, phone_client

    from kingsheet.serve.app import make_app
    from kingsheet.site import bridge

    path = _game(tmp_path, stake)
    got = phone_client(make_app(path, TOKEN, "ru")).get("/api/money")
    assert got.status_code == 200
    data = got.json()
    assert data["ok"] is False and "[money] не годится для расчёта" in data["error"] and "pairwise" not in data
    bridge.FOLDER = tmp_path / "worker"
    answer = json.loads(bridge.handle(json.dumps({"op": "money", "lang": "en", "game": {
        "file": "bad.toml", "text": path.read_text(encoding="utf-8")}})))
    assert answer["data"]["ok"] is False and "[money] cannot be used" in answer["data"]["error"]


@pytest.mark.parametrize("stake", ["0,5O", "1e999999999"])
def test_the_club_keeps_the_evening_out_with_the_sentence_and_the_rest_counts(tmp_path, stake):
    folder = tmp_path / "club"
    folder.mkdir()
    _game(folder, stake)
    shutil.copy(EXAMPLES / "blank-4.toml", folder / "good.toml")
    for command in ("ledger", "standings", "rating", "files"):
        r = run("club", command, "--dir", str(folder), "--lang", "ru")
        assert r.exit_code == 0 and "непредвиденная" not in r.output, (command, r.output)
    r = run("club", "ledger", "--dir", str(folder), "--lang", "ru")
    assert "bad.toml: в игре ошибки, не учитывается: [money] не годится для расчёта" in r.stderr
    assert "1 законченный вечер" in r.stdout


@pytest.mark.parametrize("amount", ["1e999999999", "-1E+400", "1e-999999999"])
def test_every_decimal_a_person_types_is_bounded_before_arithmetic(tmp_path, amount):
    folder = tmp_path / "club"
    folder.mkdir()
    shutil.copy(EXAMPLES / "blank-4.toml", folder / "good.toml")
    for args in (["club", "paid", "Вася", "Боря", amount, "--dir", str(folder)],
                 ["settle", "--totals", f"А={amount},Б=0", "--stake", "1"],
                 ["settle", "--totals", "А=10,Б=-10", "--stake", amount],
                 ["new", str(tmp_path / "n.toml"), "--rules", "blank-4", "--players", "А,Б,В,Г", "--stake", amount]):
        r = run(*args, "--lang", "en")
        assert r.exit_code == 2, (args, r.output)
        assert "unexpected" not in r.output and "Overflow" not in r.output and len(r.output.strip().splitlines()) == 1
    (folder / "club.toml").write_text(f'[[paid]]\nfrom = "Вася"\nto = "Боря"\namount = "{amount}"\n', encoding="utf-8")
    r = run("club", "ledger", "--dir", str(folder), "--lang", "en")
    assert r.exit_code == 2 and "payment 1" in r.output and "unexpected" not in r.output


def test_settle_names_the_option_an_error_is_about():
    for lang, flag in (("en", "(--method pairwise, or --pot-mean)"), ("ru", "(--method pairwise или --pot-mean)")):
        r = run("settle", "--totals", "А=10,Б=5", "--method", "pot", "--lang", lang)
        assert r.exit_code == 2 and r.output.strip().endswith(flag), r.output
    r = run("settle", "--totals", "А=10,Б=-10", "--round", "0.001", "--lang", "en")
    assert r.exit_code == 2 and r.output.strip().endswith("is not a whole number of 0.01 RUB (--round)"), r.output
    from kingsheet.core.money import SettleError, settle

    with pytest.raises(SettleError) as caught:
        settle({"А": 10, "Б": 5}, __import__("decimal").Decimal(1), "RUB", "pot")
    assert caught.value.about == "pot" and "(" not in str(caught.value)  # the library names no option


def test_a_broken_game_is_one_status_and_one_sentence_on_serve_and_in_the_app(tmp_path):
    """Errors are mapped once (table.actions.answer_of): a game file that no longer loads answers
    the money, a download and a deal alike, in the page's language, without the computer's path."""
    pytest.importorskip("starlette")
    from serving import TOKEN, phone_client

    from kingsheet.serve.app import make_app
    from kingsheet.site import bridge

    path = tmp_path / "friday.toml"
    path.write_text((EXAMPLES / "blank-4.toml").read_text(encoding="utf-8"), encoding="utf-8")
    client = phone_client(make_app(path, TOKEN, "ru"))
    path.write_text("players = [", encoding="utf-8")  # broken after the server started
    answers = [client.get("/api/money"), client.get("/download/pdf"),
               client.post("/api/deal", json={"seen": 12, "game": "tricks", "points": [4, 4, 4, 4]},
                           headers={"origin": "http://127.0.0.1:8765"})]
    sentences = set()
    for got in answers:
        assert got.status_code == 400, (got.status_code, got.text)
        data = got.json()
        assert data["ok"] is False and "\n" not in data["error"]
        assert str(tmp_path) not in data["error"] and "Internal Server Error" not in got.text
        sentences.add(data["error"])
    assert len(sentences) == 1 and "friday.toml" in sentences.pop()
    bridge.FOLDER = tmp_path / "worker"
    answer = json.loads(bridge.handle(json.dumps({"op": "money", "lang": "ru", "game": {
        "file": "friday.toml", "text": "players = ["}})))
    assert answer["status"] == 400 and "friday.toml" in answer["data"]["error"]
    assert str(tmp_path) not in answer["data"]["error"]
