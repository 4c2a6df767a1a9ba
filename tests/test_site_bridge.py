"""The phone app's Python, as its worker calls it (kingsheet.site.bridge), here in CPython: every
request the page makes, the game's text going out and coming back, and every refusal a sentence.
The same application layer serves `kingsheet serve` (tests/test_serve.py)."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kingsheet.cli.app import app
from kingsheet.site import bridge

ROOT = Path(__file__).resolve().parent.parent
PLAYERS = ["Аня", "Боря", "Вася", "Галя"]


@pytest.fixture(autouse=True)
def _folder(tmp_path, monkeypatch):
    monkeypatch.setattr(bridge, "FOLDER", tmp_path / "worker-fs")


def call(**request):
    return json.loads(bridge.handle(json.dumps(request)))


def opened(game):
    return {"file": game["file"], "text": game["text"], "template": game.get("template")}


def new_game(lang="ru", **body):
    answer = call(op="new", lang=lang, body={"rules": "blank-4", "players": PLAYERS, "stake": "0,50", **body})
    assert answer["status"] == 200, answer
    return answer["game"]


def test_a_new_game_comes_back_as_its_text_and_state():
    game = new_game()
    assert game["rules"] == "blank-4" and game["deals"] == 0 and game["total"] == 12
    assert 'stake = "0.50"' in game["text"] and game["template"] is None
    assert game["state"]["players"] == PLAYERS and game["state"]["next"]["number"] == 1


def test_deals_edits_and_undo_change_the_text_the_page_stores():
    game = new_game()
    answer = call(op="deal", lang="ru", game=opened(game), body={"seen": 0, "game": "tricks", "points": ["4", "6", "6", "0"]})
    assert answer["data"] == {"ok": True, "message": "✓ сдача 1 сохранена"}
    game = answer["game"]
    assert game["deals"] == 1 and "points = [-4, -6, -6, 0]" in game["text"]
    # a row that does not add up: refused with the row's problem, and no text to store
    refused = call(op="deal", lang="ru", game=opened(game), body={"seen": 1, "game": "hearts", "points": [4, 4, 0, 4]})
    assert refused["status"] == 422 and "game" not in refused and "−16" in refused["data"]["error"]
    # another screen's view of the sheet: nothing written
    stale = call(op="deal", lang="en", game=opened(game), body={"seen": 0, "game": "hearts", "points": [4, 4, 0, 8]})
    assert stale["status"] == 409 and "meanwhile" in stale["data"]["error"]
    edited = call(op="edit", lang="en", game=opened(game), body={"seen": 1, "number": 1, "game": "tricks",
                                                                   "points": [6, 4, 6, 0]})
    assert edited["data"]["message"] == "✓ deal 1 corrected" and "points = [-6, -4, -6, 0]" in edited["game"]["text"]
    undone = call(op="undo", lang="en", game=opened(edited["game"]), body={"seen": 1})
    assert undone["data"]["message"] == "deal 1 removed" and undone["game"]["deals"] == 0
    assert call(op="edit", lang="en", game=opened(undone["game"]), body={"seen": 0, "number": 1})["status"] == 400


def test_state_money_and_rules_read_without_changing_anything():
    text = (ROOT / "examples" / "blank-4.toml").read_text(encoding="utf-8")
    game = {"file": "friday.toml", "text": text}
    state = call(op="state", lang="en", game=game)
    assert state["status"] == 200 and "game" not in state and state["data"]["complete"] is True
    money = call(op="money", lang="ru", game=game)["data"]
    assert money["final"] is True and [t[:2] for t in money["pairwise"]["transfers"]] == [
        ["Аня", "Боря"], ["Вася", "Боря"], ["Вася", "Галя"]]
    rules = call(op="rules", lang="en")["data"]
    assert {"id": "blank-4", "name": "King for four (the blank)", "players": 4} in rules
    words = call(op="words", lang="en")["data"]
    assert words["none"] is True and words["words"]["games"] == "Games"


def test_files_out_of_the_phone():
    text = (ROOT / "examples" / "blank-4.toml").read_text(encoding="utf-8")
    game = {"file": "friday.toml", "text": text}
    xlsx = call(op="export", lang="ru", suffix=".xlsx", game=game)["data"]
    assert xlsx["name"] == "friday.xlsx" and base64.b64decode(xlsx["b64"])[:2] == b"PK"
    toml = call(op="export", lang="ru", suffix=".toml", game=game)["data"]
    assert base64.b64decode(toml["b64"]).decode("utf-8") == text
    csv = call(op="export", lang="ru", suffix=".csv", game=game)["data"]
    assert "Аня" in base64.b64decode(csv["b64"]).decode("utf-8")
    assert call(op="export", lang="en", suffix=".exe", game=game)["status"] == 404


def test_files_into_the_phone(tmp_path):
    """A workbook or CSV made elsewhere becomes a game on the phone that checks the same."""
    for suffix in (".xlsx", ".csv"):
        sheet = tmp_path / f"friday{suffix}"
        assert CliRunner().invoke(app, ["export", str(ROOT / "examples" / "blank-4.toml"), "-o", str(sheet)]).exit_code == 0
        answer = call(op="import", lang="en", name=sheet.name, data=base64.b64encode(sheet.read_bytes()).decode(),
                      taken_names=["2026-01-01-1.toml"])
        assert answer["status"] == 200, answer
        assert answer["game"]["deals"] == 12 and answer["game"]["complete"] is True
        assert answer["game"]["state"]["totals"][-1][1:] == ["−32", "37", "−30", "25"]
    bad = call(op="import", lang="en", name="../../etc/passwd.toml", data=base64.b64encode(b"x = [").decode())
    assert bad["status"] == 400 and "passwd.toml" in bad["data"]["error"] and "worker-fs" not in bad["data"]["error"]
    assert call(op="import", lang="en", name="photo.jpg", data="")["status"] == 400


def test_a_house_template_picked_on_the_phone_travels_with_its_game():
    template = (ROOT / "examples" / "house" / "king-x10.toml").read_text(encoding="utf-8")
    game = new_game("en", rules="ignored", template={"name": "../our king!.toml", "text": template})
    assert game["template"]["name"] == "our_king_.toml" and 'rules = "our_king_.toml"' in game["text"]
    assert game["rules"] == "king-x10"
    state = call(op="state", lang="en", game=opened(game))["data"]
    assert state["ok"] is True and state["deals"] == 0
    big = call(op="new", lang="en", body={"players": PLAYERS, "template": {"name": "t.toml", "text": "#" * 70_000}})
    assert big["status"] == 400 and "KiB" in big["data"]["error"]


def test_every_refusal_is_a_sentence():
    assert call(op="deal", lang="en", body={})["status"] == 404  # no game open
    assert call(op="launch", lang="en", game={"file": "a.toml", "text": 'format = 1\nrules = "blank-4"\nplayers = ["A", "B", "C", "D"]\n'})["status"] == 404
    answer = json.loads(bridge.handle("{not json"))
    assert answer["status"] == 400 and answer["data"]["ok"] is False
    assert json.loads(bridge.handle("x" * (bridge.MAX_REQUEST + 1)))["status"] == 413
    broken = call(op="state", lang="en", game={"file": "../x.toml", "text": 'format = 1\nrules = "nope"\nplayers = ["A"]\n'})
    assert broken["data"]["ok"] is False and "nope" in broken["data"]["error"]
    assert broken["data"]["error"].startswith("game.toml: ")  # the file as the phone knows it, no folder
    # the worker never throws a traceback at the page: an unexpected failure is a sentence too
    original = bridge._answer
    try:
        bridge._answer = lambda request, lang: 1 / 0  # type: ignore[assignment]
        crashed = json.loads(bridge.handle('{"op": "state"}'))
    finally:
        bridge._answer = original
    assert crashed["status"] == 500 and "ZeroDivisionError" in crashed["data"]["error"]


def test_warming_up_before_the_snapshot_leaves_nothing_behind():
    bridge.warm()
    assert not bridge.FOLDER.exists()


def test_the_site_command_writes_the_app_or_says_why_not(tmp_path):
    fake = tmp_path / "pyodide.tgz"
    fake.write_bytes(b"not pyodide")
    result = CliRunner().invoke(app, ["site", "-o", str(tmp_path / "app"), "--pyodide", str(fake)])
    assert result.exit_code == 2 and "sha256" in result.output and "Traceback" not in result.output
    assert not (tmp_path / "app").exists()  # nothing half-written
    a_file = tmp_path / "file"
    a_file.write_text("x")
    assert CliRunner().invoke(app, ["site", "-o", str(a_file)]).exit_code == 2


def test_the_club_of_the_phone_is_every_game_on_it():
    text = (ROOT / "examples" / "blank-4.toml").read_text(encoding="utf-8")
    games = [{"file": "a.toml", "text": text}, {"file": "b.toml", "text": text.replace("2026-11-27", "2026-11-28")},
             {"file": "c.toml", "text": new_game()["text"]}]
    club = call(op="club", lang="ru", games=games)["data"]
    assert club["ok"] is True and [row[:4] for row in club["standings"]][0] == [1, "Боря", 2, 2]
    assert club["ledgers"][0]["balances"][0] == ["Боря", "+148 ₽"]
    assert any("не закончена" in line for line in club["not_counted"])


def _two_evenings():
    text = (ROOT / "examples" / "blank-4.toml").read_text(encoding="utf-8")
    return [{"file": "a.toml", "text": text}, {"file": "b.toml", "text": text.replace("2026-11-27", "2026-11-28")}]


def test_a_payment_recorded_on_the_phone_is_taken_off_the_ledger_as_club_paid_does(tmp_path):
    games = _two_evenings()
    before = call(op="club", lang="ru", games=games)["data"]
    assert before["name"] == "этот телефон" and before["players"] == sorted(PLAYERS)
    assert before["payments"] == [] and len(before["chart"]["dates"]) == 3  # the start, then two evenings
    owes, gets, amount = before["ledgers"][0]["transfers"][0][0], before["ledgers"][0]["transfers"][0][1], "50"
    paid = call(op="club_paid", lang="ru", games=games, club="",
                body={"from": owes, "to": gets, "amount": amount, "date": "2026-11-29", "currency": "RUB"})
    assert paid["status"] == 200, paid
    data = paid["data"]
    assert data["message"] == f"записано: {owes} → {gets} 50 ₽ (2026-11-29)"
    assert data["payments"] == [["2026-11-29", owes, gets, "50 ₽"]] and "[[paid]]" in data["club_text"]
    again = call(op="club", lang="ru", games=games, club=data["club_text"])["data"]
    assert again["ledgers"] == data["ledgers"] != before["ledgers"]
    # the same games and club.toml on a computer: `kingsheet club ledger` and `player` say the same
    folder = tmp_path / "club"
    folder.mkdir()
    for g in games:
        (folder / g["file"]).write_text(g["text"], encoding="utf-8")
    (folder / "club.toml").write_text(data["club_text"], encoding="utf-8")
    out = CliRunner().invoke(app, ["club", "ledger", "--dir", str(folder), "--json"])
    assert out.exit_code == 0, out.output
    led = json.loads(out.stdout)["ledgers"][0]
    from kingsheet.render.money import signed_amount

    with __import__("kingsheet.core.i18n", fromlist=["speaking"]).speaking("ru"):
        assert again["ledgers"][0]["balances"] == [[p, signed_amount(v, "RUB")] for p, v in led["balances"].items()]
    assert [t[:2] + [t[3]] for t in again["ledgers"][0]["transfers"]] == [[t["from"], t["to"], t["amount"]]
                                                                          for t in led["transfers"]]
    figures = call(op="club_player", lang="ru", games=games, club=data["club_text"], body={"player": "бор"})["data"]
    out = CliRunner().invoke(app, ["club", "player", "бор", "--dir", str(folder), "--lang", "ru"])
    assert out.exit_code == 0, out.output
    assert figures["heading"].startswith("Боря (") and figures["summary"] in out.stdout
    for t in figures["tables"]:
        for row in t["rows"]:
            assert all(cell in out.stdout for cell in row)
    for line in figures["lines"]:
        assert line in out.stdout


def test_a_payment_the_club_cannot_take_is_one_sentence_and_the_club_file_is_unchanged():
    games = _two_evenings()
    for body, said in (({"from": "Аня", "to": "Аня", "amount": "5"}, "от одного игрока другому"),
                       ({"from": "Аня", "to": "Боря", "amount": "1e999999999"}, "сумма"),
                       ({"from": "Аня", "to": "Зоя", "amount": "5"}, "Зоя"),
                       ({"from": "Аня", "to": "Боря", "amount": "-5"}, "больше нуля"),
                       ({"from": "Аня", "to": "Боря"}, "сколько"),
                       ({"from": "Аня", "to": "Боря", "amount": "5", "date": "вчера"}, "--date")):
        answer = call(op="club_paid", lang="ru", games=games, club="", body=body)
        assert answer["status"] == 400, (body, answer)
        assert said in answer["data"]["error"] and "club_text" not in answer["data"], (body, answer)
        assert "непредвиденная" not in answer["data"]["error"]
    unknown = call(op="club_player", lang="en", games=games, body={"player": "Зоя"})
    assert unknown["status"] == 400 and "Зоя" in unknown["data"]["error"]


# ---- the build's sources of Pyodide, and the try-it server ---------------------------------------

@pytest.fixture(scope="module")
def pyodide_tgz() -> bytes:
    """The pinned npm package, as the build gets it (the user cache, or the registry once)."""
    import os

    from kingsheet.site.build import PYODIDE_VERSION, _cache_folder, runtime_files

    given = os.environ.get("KINGSHEET_PYODIDE")
    if given:
        return Path(given).read_bytes()
    runtime_files()
    return (_cache_folder() / f"pyodide-{PYODIDE_VERSION}.tgz").read_bytes()


def test_pyodide_is_fetched_once_then_taken_from_the_cache(pyodide_tgz, tmp_path, monkeypatch):
    import io
    import urllib.request

    import kingsheet.site.build as build

    monkeypatch.setattr(build, "_cache_folder", lambda: tmp_path / "cache")
    fetched: list[str] = []

    def urlopen(url, timeout):
        fetched.append(url)
        return io.BytesIO(pyodide_tgz)

    monkeypatch.setattr(urllib.request, "urlopen", urlopen)
    said: list[str] = []
    first = build.runtime_files(None, said.append)
    assert fetched == [build.PYODIDE_URL] and "npm" in said[0] and sorted(first) == sorted(build.RUNTIME)
    assert build.runtime_files(None, said.append) == first and len(fetched) == 1  # from the cache now
    (tmp_path / "cache" / f"pyodide-{build.PYODIDE_VERSION}.tgz").write_bytes(b"tampered")
    build.runtime_files(None)  # a cache that is not the pinned file is fetched again
    assert len(fetched) == 2


def test_pyodide_that_cannot_be_fetched_is_one_sentence(tmp_path, monkeypatch):
    import io
    import urllib.error
    import urllib.request

    import kingsheet.site.build as build
    from kingsheet.core.problems import InputError

    monkeypatch.setattr(build, "_cache_folder", lambda: tmp_path / "cache")

    def offline(url, timeout):
        raise urllib.error.URLError("no network")

    monkeypatch.setattr(urllib.request, "urlopen", offline)
    with pytest.raises(InputError, match="cannot fetch Pyodide .* --pyodide FILE"):
        build.runtime_files(None)
    monkeypatch.setattr(build, "MAX_TGZ", 10)
    monkeypatch.setattr(urllib.request, "urlopen", lambda url, timeout: io.BytesIO(b"x" * 100))
    with pytest.raises(InputError, match="larger than expected"):
        build.runtime_files(None)


def test_pyodide_given_as_its_unpacked_folder(pyodide_tgz, tmp_path):
    import io
    import tarfile

    from kingsheet.site.build import RUNTIME, runtime_files

    with tarfile.open(fileobj=io.BytesIO(pyodide_tgz), mode="r:gz") as tar:
        tar.extractall(tmp_path, filter="data")
    assert sorted(runtime_files(tmp_path / "package")) == sorted(RUNTIME)


def test_the_try_it_server_sends_the_apps_files_and_nothing_else(tmp_path, monkeypatch):
    import http.server
    import threading
    import urllib.error
    import urllib.request

    from kingsheet.site.serving import serve_folder, server

    (tmp_path / "index.html").write_text("<!doctype html>", encoding="utf-8")
    (tmp_path / "m.mjs").write_text("export {}", encoding="utf-8")
    (tmp_path / "pyodide").mkdir()
    httpd = server(tmp_path, 0)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{httpd.server_port}"
    try:
        with urllib.request.urlopen(base + "/m.mjs") as r:
            assert r.headers["content-type"] == "text/javascript" and r.headers["cache-control"] == "no-cache"
        for path in ("/pyodide/", "/../etc/passwd"):
            with pytest.raises(urllib.error.HTTPError) as caught:
                urllib.request.urlopen(base + path)
            assert caught.value.code == 404
        import contextlib
        import io

        printed = io.StringIO()
        with contextlib.redirect_stderr(printed):
            for path in ("/%00", "/index.html%00.js", "/pyodide/%00/x", "/" + "a" * 5000):
                with pytest.raises(urllib.error.HTTPError) as caught:
                    urllib.request.urlopen(base + path)
                assert caught.value.code in (400, 404)  # a bad request, the connection answered
            with urllib.request.urlopen(base + "/m.mjs") as r:  # and the server still serves
                assert r.status == 200
        assert "Traceback" not in printed.getvalue()
    finally:
        httpd.shutdown()
        httpd.server_close()
    monkeypatch.setattr(http.server.ThreadingHTTPServer, "serve_forever",
                        lambda self: (_ for _ in ()).throw(KeyboardInterrupt))
    said: list[str] = []
    serve_folder(tmp_path, 0, said.append)  # Ctrl+C ends it quietly
    assert said and said[0].startswith("the phone app on this computer: http://127.0.0.1:")


def test_the_sheet_as_json_out_of_the_phone():
    text = (ROOT / "examples" / "blank-4.toml").read_text(encoding="utf-8")
    got = call(op="export", lang="en", suffix=".json", game={"file": "f.toml", "text": text})["data"]
    assert got["media"] == "application/json"
    assert json.loads(base64.b64decode(got["b64"]))["settlement"]["balances"]["Боря"] == "74"


def test_more_refusals_of_the_application_layer(monkeypatch):
    broken = {"file": "g.toml", "text": 'format = 1\nrules = "nope"\nplayers = ["A", "B", "C", "D"]\n'}
    assert call(op="export", lang="en", suffix=".xlsx", game=broken)["status"] == 400
    assert call(op="export", lang="en", suffix=".toml", game=broken)["status"] == 200  # the text as it is
    bad_club = call(op="club", lang="en", games=[broken, {"file": "club.toml", "text": "x"}])
    assert bad_club["status"] == 200  # a game that does not load is listed, never stops the club
    latin1 = base64.b64encode("players = ['é']".encode("latin-1")).decode()
    got = call(op="import", lang="en", name="old.toml", data=latin1)
    assert got["status"] == 400 and "UTF-8" in got["data"]["error"]
    game = new_game("en")
    for body, words in (({"seen": 0, "game": "tricks", "points": ["", "", "", ""]}, "empty"),
                        ({"seen": 0, "game": "eralash", "taken": [{}, {}, {}, {}]}, "empty"),
                        ({"seen": 0, "game": "nope", "points": [1]}, "no game"),
                        ({"seen": 0, "game": "tricks", "points": "4 4 4 4"}, "list"),
                        ({"seen": "0", "game": "tricks", "points": [4, 4, 4, 4]}, "how many deals")):
        answer = call(op="deal", lang="en", game=opened(game), body=body)
        assert answer["status"] == 400 and words in answer["data"]["error"], (body, answer)
    import kingsheet.files.gamefile as gamefile

    monkeypatch.setattr(gamefile, "MAX_FILE_BYTES", 10)
    assert call(op="import", lang="en", name="big.toml", data=base64.b64encode(b"#" * 50).decode())["status"] == 413


def test_a_sheet_a_computer_read_fills_the_open_game_or_becomes_a_new_one():
    """The computer read a photo and the sheet came back to the phone as a game file's text: the
    bridge says what it holds and which rows the open game lacks, and fills them in (its own deals
    stay; rows the paper reads otherwise are named), or it becomes a new game through `import`."""
    example = (ROOT / "examples" / "blank-4.toml").read_text(encoding="utf-8")
    from kingsheet.files.gamefile import read_game

    truth = read_game(example, ROOT / "examples" / "blank-4.toml", ROOT / "examples")
    game = new_game("en")
    for k, d in enumerate(truth.deals[:3]):
        points = [abs(p) for p in d.points]
        if k == 1:  # the table's own row 2 is not the paper's: the same row, its cells moved
            points = next(p for p in (points[1:] + points[:1], points[::-1]) if p != points)
        answer = call(op="deal", lang="en", game=opened(game),
                      body={"seen": k, "game": d.game, "points": [str(p) for p in points]})
        assert answer["status"] == 200, answer
        game = answer["game"]
    said = call(op="photo", lang="en", game=opened(game), body={"text": example})["data"]
    assert said["ok"] and said["rules"] == "blank-4" and said["deals"] == 12
    assert said["fill"] == {"first": 4, "last": 12, "seen": 3}
    assert call(op="photo", lang="en", body={"text": example})["data"]["fill"] is None  # no game open
    stale = call(op="photo_fill", lang="en", game=opened(game), body={"text": example, "seen": 2})
    assert stale["status"] == 409 and "game" not in stale
    filled = call(op="photo_fill", lang="en", game=opened(game), body={"text": example, "seen": 3})
    assert filled["status"] == 200, filled
    assert filled["data"]["message"] == ("✓ deals 4–12 filled in from the photo; the paper reads otherwise in "
                                         "rows 2: the game keeps its own")
    assert filled["game"]["deals"] == 12 and filled["game"]["complete"] is True
    phone = read_game(filled["game"]["text"], Path("phone.toml"), ROOT / "examples")
    assert [d.points for d in phone.deals[3:]] == [d.points for d in truth.deals[3:]]
    assert [d.points for d in phone.deals[:3]] == [d.points for d in read_game(
        game["text"], Path("phone.toml"), ROOT / "examples").deals]  # the game's own deals kept
    again = call(op="photo_fill", lang="en", game=opened(filled["game"]), body={"text": example, "seen": 12})
    assert again["status"] == 422 and "nothing to fill in" in again["data"]["error"]
    other = new_game("en", rules="symmetric")
    refused = call(op="photo_fill", lang="en", game=opened(other), body={"text": example, "seen": 0})
    assert refused["status"] == 422 and "symmetric" in refused["data"]["error"]
    for bad in ("", "x = [", "#" * (5 * 1024 * 1024)):
        answer = call(op="photo", lang="ru", game=opened(game), body={"text": bad})
        assert answer["status"] == 400 and answer["data"]["ok"] is False and "\n" not in answer["data"]["error"]
    made = call(op="import", lang="en", name="photo.toml", data=base64.b64encode(example.encode()).decode())
    assert made["status"] == 200 and made["game"]["deals"] == 12
