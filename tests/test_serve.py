"""`kingsheet serve`: the API and the page through Starlette's test client, and a real server for
the live stream. The phones themselves are in tests/test_serve_browser.py."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from serving import friday, phone_client
from starlette.testclient import TestClient

from conftest import ROOT, deal, game_text
from kingsheet.files.changes import add_deal
from kingsheet.files.gamefile import load_game
from kingsheet.serve.app import MAX_BODY, make_app

TOKEN = "secret-token-for-tests"
HOSTILE = ['<img src=x onerror=alert(1)>', "Боря</td><script>alert(2)</script>", "=HYPERLINK(\"x\")", "Галя"]


@pytest.fixture
def game(tmp_path):
    return friday(tmp_path)


@pytest.fixture
def client(game: Path) -> TestClient:
    return phone_client(make_app(game, TOKEN, "en"), TOKEN)


def post(client: TestClient, what: str, **body: object) -> tuple[int, dict]:
    res = client.post(f"/api/{what}", json=body)
    return res.status_code, res.json()


@pytest.mark.parametrize("path", ["/", "/api/state", "/static/app.js", "/api/events", "/api/money",
                                  "/download/pdf", "/api/rules", "/api/club", "/download/toml"])
def test_nothing_is_read_without_the_token(game, path):
    c = TestClient(make_app(game, TOKEN, "en"), base_url="http://127.0.0.1:8765")
    assert c.get(path).status_code == 403
    assert c.get(path + "?t=wrong").status_code == 403
    assert c.get(path, headers={"x-kingsheet-token": TOKEN[:-1]}).status_code == 403


def test_nothing_is_written_without_the_token(game):
    c = TestClient(make_app(game, TOKEN, "en"), base_url="http://127.0.0.1:8765")
    before = game.read_bytes()
    for what in ("deal", "edit", "undo", "new"):
        assert c.post(f"/api/{what}", json={"seen": 0, "game": "tricks", "points": [4, 4, 4, 4]}).status_code == 403
    assert game.read_bytes() == before
    assert sorted(p.name for p in game.parent.iterdir()) == ["friday.toml"]


def test_the_token_is_never_a_cookie_and_every_answer_has_the_security_headers(game):
    c = TestClient(make_app(game, TOKEN, "en"), base_url="http://127.0.0.1:8765")
    res = c.get(f"/?t={TOKEN}")
    assert res.status_code == 200 and "set-cookie" not in res.headers and not c.cookies
    assert "script-src 'self'" in res.headers["content-security-policy"]
    assert res.headers["x-content-type-options"] == "nosniff" and res.headers["referrer-policy"] == "no-referrer"
    assert c.get("/api/state").status_code == 403  # the address alone gives nothing later
    assert c.get("/api/state", headers={"x-kingsheet-token": TOKEN}).status_code == 200
    assert f'<script src="/static/app.js?t={TOKEN}"' in res.text and "onclick" not in res.text  # no inline script
    assert c.get(f"/static/app.js?t={TOKEN}").status_code == 200


def test_a_deal_typed_as_magnitudes_takes_the_games_sign_and_is_saved(client, game):
    status, data = post(client, "deal", seen=0, game="tricks", points=["4", "6", "6", "0"])
    assert status == 200 and data["message"] == "✓ deal 1 saved"
    assert load_game(game).deals[0].points == (-4, -6, -6, 0)
    state = client.get("/api/state").json()
    assert state["deals"] == 1 and state["rows"][0]["cells"] == ["−4", "−6", "−6", "0"] and state["rows"][0]["ok"]


def test_a_refused_row_says_what_the_cli_says_and_nothing_is_written(client, game):
    before = game.read_bytes()
    status, data = post(client, "deal", seen=0, game="tricks", points=["4", "4", "4", "2"])
    assert status == 422 and data["error"] == "deal 1 (Tricks): row sums to −14, expected −16"
    assert game.read_bytes() == before


def test_what_each_took_is_checked_like_a_game_file(client, game):
    for k, (g, pts) in enumerate([("tricks", [4, 6, 6, 0]), ("hearts", [4, 4, 0, 8]), ("boys", [0, 4, 0, 12]),
                                  ("girls", [4, 4, 4, 4]), ("king", [0, 16, 0, 0]), ("last", [8, 0, 8, 0])]):
        assert post(client, "deal", seen=k, game=g, points=pts)[0] == 200
    taken = [{"tricks": 2, "hearts": 2, "boys": 1, "girls": 1}, {"tricks": 2, "hearts": 2, "boys": 1, "girls": 1},
             {"tricks": 2, "hearts": 2, "boys": 1, "girls": 1, "last": 1},
             {"tricks": 2, "hearts": 2, "boys": 1, "girls": 1, "king": 1, "last": 1}]
    status, data = post(client, "deal", seen=6, game="eralash", taken=taken)
    assert status == 200, data
    bad = [dict(t) for t in taken]
    bad[0]["tricks"] = "two"
    status, data = post(client, "deal", seen=7, game="eralash+", taken=bad)
    assert status == 400 and "Аня" in data["error"]


def test_two_phones_submitting_the_same_deal_record_one(client, game):
    assert post(client, "deal", seen=0, game="tricks", points=[4, 6, 6, 0])[0] == 200
    status, data = post(client, "deal", seen=0, game="tricks", points=[4, 6, 6, 0])
    assert status == 409 and "deal 1 was entered meanwhile" in data["error"]
    assert len(load_game(game).deals) == 1


def test_a_race_between_two_threads_records_exactly_one(game):
    results: list[int] = []
    barrier = threading.Barrier(4)

    def phone() -> None:
        c = phone_client(make_app(game, TOKEN, "en"), TOKEN)
        barrier.wait()
        results.append(c.post("/api/deal", json={"seen": 0, "game": "tricks", "points": [4, 6, 6, 0]}).status_code)

    threads = [threading.Thread(target=phone) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert sorted(results) == [200, 409, 409, 409]
    assert len(load_game(game).deals) == 1


def test_edit_and_undo_name_what_the_screen_saw(client, game):
    assert post(client, "deal", seen=0, game="tricks", points=[4, 6, 6, 0])[0] == 200
    assert post(client, "deal", seen=1, game="hearts", points=[4, 4, 0, 8])[0] == 200
    status, data = post(client, "edit", seen=2, number=1, game="tricks", points=[6, 4, 6, 0])
    assert status == 200 and load_game(game).deals[0].points == (-6, -4, -6, 0)
    assert post(client, "edit", seen=1, number=1, game="tricks", points=[4, 6, 6, 0])[0] == 409
    assert post(client, "edit", seen=2, number=9, game="tricks", points=[4, 6, 6, 0])[0] == 400
    assert post(client, "undo", seen=1)[0] == 409
    status, data = post(client, "undo", seen=2)
    assert status == 200 and data["message"] == "deal 2 removed" and len(load_game(game).deals) == 1


def test_a_row_read_from_a_photo_is_confirmed_by_entering_it_on_a_phone(client, game):
    """A row kingsheet scan left to confirm shows as a problem on the page; entering it again from a
    phone takes away the mark and the reader's note, as `kingsheet edit` does."""
    assert post(client, "deal", seen=0, game="tricks", points=[4, 6, 6, 0])[0] == 200
    text = game.read_text(encoding="utf-8").replace("points = [-4, -6, -6, 0]", 'points = [-4, -6, -6, 0]\n'
                                                    'note = "scan: confirm this row (62 % sure)"\nconfirm = true')
    game.write_text(text, encoding="utf-8")
    state = client.get("/api/state").json()
    assert not state["sheet_ok"] and any("not yet confirmed" in p for p in state["problems"])
    assert post(client, "edit", seen=1, number=1, game="tricks", points=[4, 6, 6, 0])[0] == 200
    assert "confirm" not in game.read_text(encoding="utf-8") and "scan:" not in game.read_text(encoding="utf-8")
    assert client.get("/api/state").json()["sheet_ok"]


def test_bodies_are_bounded(client, game):
    big = json.dumps({"seen": 0, "game": "tricks", "points": [4, 6, 6, 0], "note": "x" * (MAX_BODY + 10)})
    assert client.post("/api/deal", content=big, headers={"content-type": "application/json"}).status_code == 413

    def chunks():
        for _ in range(MAX_BODY // 1000 + 5):
            yield b" " * 1000

    assert client.post("/api/deal", content=chunks(), headers={"content-type": "application/json"}).status_code == 413
    assert len(load_game(game).deals) == 0


@pytest.mark.parametrize("body", ["not json", "[1, 2]", '{"seen": -1}', '{"seen": true}',
                                  '{"seen": 0, "game": "tricks", "points": "4 4 4 4"}',
                                  '{"seen": 0, "game": "nope", "points": [4, 4, 4, 4]}',
                                  '{"seen": 0, "game": "tricks", "points": [4, 4, 4]}'])
def test_bad_requests_get_one_sentence_and_change_nothing(client, game, body):
    before = game.read_bytes()
    res = client.post("/api/deal", content=body, headers={"content-type": "application/json"})
    assert res.status_code == 400 and res.json()["error"] and "\n" not in res.json()["error"]
    assert game.read_bytes() == before


def test_hostile_names_reach_the_page_only_as_json_text(tmp_path):
    path = tmp_path / "g.toml"
    names = ", ".join(json.dumps(n, ensure_ascii=False) for n in HOSTILE)
    path.write_text(game_text(players=names, deals=deal("tricks", [-4, -6, -6, 0])), encoding="utf-8")
    c = phone_client(make_app(path, TOKEN, "ru"), TOKEN)
    page = c.get(f"/?t={TOKEN}")
    static = (Path(__file__).resolve().parent.parent / "kingsheet" / "serve" / "static" / "index.html")
    # the page itself carries no data (no name is in it), only the token its assets are asked with
    assert page.text == static.read_text(encoding="utf-8").replace("{token}", TOKEN)
    state = c.get("/api/state")
    assert state.headers["content-type"].startswith("application/json")
    assert state.json()["players"] == HOSTILE
    js = (Path(__file__).resolve().parent.parent / "kingsheet" / "serve" / "static" / "app.js").read_text()
    assert "innerHTML" not in js and "insertAdjacentHTML" not in js and "eval(" not in js


def test_only_the_games_folder_is_touched(client, game):
    assert client.get("/static/..%2Fapp.py").status_code == 404
    assert client.get("/static/../app.py").status_code in (403, 404)
    assert client.get("/download/..%2F..%2Fetc%2Fpasswd").status_code == 404
    status, data = post(client, "new", rules="../../../etc/passwd", players=["А", "Б", "В", "Г"], stake="1")
    assert status == 400
    status, data = post(client, "new", rules="blank-4", players=["А", "Б", "В", "Г"], stake="0.5")
    assert status == 200, data
    made = [p for p in game.parent.iterdir() if p.name != "friday.toml"]
    assert len(made) == 1 and made[0].parent == game.parent and made[0].suffix == ".toml"
    assert client.get("/api/state").json()["players"] == ["А", "Б", "В", "Г"]  # the server follows the new game


def test_a_new_game_refuses_empty_and_twice_given_names(client):
    assert "player 2 has no name" in post(client, "new", rules="blank-4", players=["А", " ", "В", "Г"])[1]["error"]
    assert "named twice" in post(client, "new", rules="blank-4", players=["Аня", "аня", "В", "Г"])[1]["error"]


def test_money_both_ways_with_the_games_stake(client):
    for k, (g, pts) in enumerate([("tricks", [4, 6, 6, 0])]):
        post(client, "deal", seen=k, game=g, points=pts)
    data = client.get("/api/money?lang=ru").json()
    assert data["final"] is False
    assert data["pairwise"]["stake"] == "0,50 ₽" and data["pot"]["stake"] == "0,50 ₽"
    assert data["pairwise"]["transfers"] and all(len(t) == 3 for t in data["pot"]["transfers"])


def test_downloads_are_the_exported_sheets(client):
    post(client, "deal", seen=0, game="tricks", points=[4, 6, 6, 0])
    pdf = client.get("/download/pdf")
    assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF")
    xlsx = client.get("/download/xlsx?lang=en")
    assert xlsx.status_code == 200 and xlsx.content.startswith(b"PK")
    assert "attachment" in pdf.headers["content-disposition"]


def test_the_page_speaks_both_languages(client):
    ru = client.get("/api/state?lang=ru").json()["words"]
    en = client.get("/api/state?lang=en").json()["words"]
    assert ru["save"] == "Записать сдачу" and en["save"] == "Save the deal"
    assert set(ru) == set(en)


def test_a_deal_from_the_terminal_shows_on_the_page(client, game):
    v1 = client.get("/api/state").json()["version"]
    add_deal(game, {"game": "tricks", "points": [-4, -6, -6, 0]})
    state = client.get("/api/state").json()
    assert state["version"] != v1 and state["deals"] == 1


def test_the_live_stream_tells_every_phone_of_a_change_from_anywhere(game):
    """Two phones follow the sheet; a deal from one, then one from the terminal, reach both."""
    import httpx
    from serving import TOKEN as T
    from serving import running

    def changes(base: str, seen: list[str], stop: threading.Event) -> None:
        with httpx.Client(timeout=10) as c, c.stream("GET", f"{base}/api/events?t={T}") as res:
            for line in res.iter_lines():
                if line.startswith("data:"):
                    seen.append(line)
                if stop.is_set() or len(seen) >= 3:
                    return

    with running(game) as base:
        phones: list[list[str]] = [[], []]
        stop = threading.Event()
        threads = [threading.Thread(target=changes, args=(base, seen, stop), daemon=True) for seen in phones]
        for t in threads:
            t.start()
        _wait(lambda: all(len(s) >= 1 for s in phones))  # each hears the sheet as it is
        with httpx.Client(base_url=base, timeout=10) as c:
            res = c.post("/api/deal", headers={"x-kingsheet-token": T}, json={"seen": 0, "game": "tricks", "points": [4, 6, 6, 0]})
            assert res.status_code == 200
        _wait(lambda: all(len(s) >= 2 for s in phones))
        add_deal(game, {"game": "hearts", "points": [-4, -4, 0, -8]})  # as `kingsheet deal` does
        _wait(lambda: all(len(s) >= 3 for s in phones))
        stop.set()
        for t in threads:
            t.join(5)


def _wait(ok, seconds: float = 10.0) -> None:
    import time

    deadline = time.monotonic() + seconds
    while not ok():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def test_serve_prints_the_address_with_its_token_and_a_qr_code(game, monkeypatch):
    from kingsheet.serve import run as serve_run

    calls = {}
    monkeypatch.setattr(serve_run, "run_server", lambda config: calls.update(config=config))
    out: list[str] = []
    serve_run.serve(game, lan=False, port=8765, lang="en", echo=out.append, token="abc")
    text = "\n".join(out)
    config = calls["config"]
    assert f"http://127.0.0.1:{config.port}/?t=abc" in text and config.host == "127.0.0.1"
    assert config.app.hosts == {"127.0.0.1", "localhost"}  # no other name for it is answered
    assert "█" in text and "--lan" in text
    serve_run.serve(game, lan=True, port=8765, lang="ru", echo=out.append, token="abc")
    config = calls["config"]
    assert config.host == "0.0.0.0" and serve_run.lan_address() in config.app.hosts


def test_the_qr_code_is_a_square_with_its_three_finders():
    from kingsheet.serve.qr import qr_lines

    lines = qr_lines("http://192.168.1.20:8765/?t=" + "x" * 24)
    assert len({len(line) for line in lines}) == 1
    width = len(lines[0])
    assert width >= 25 + 4 and abs(len(lines) * 2 - width) <= 2


def test_a_broken_game_file_is_one_sentence_on_the_page(tmp_path):
    path = tmp_path / "g.toml"
    path.write_text("format = 1\nrules = [", encoding="utf-8")
    c = phone_client(make_app(path, TOKEN, "en"), TOKEN)
    state = c.get("/api/state").json()
    assert state["ok"] is False and "not valid TOML" in state["error"] and state["words"]["save"]
    res = c.get("/download/pdf")
    assert res.status_code == 400 and "not valid TOML" in res.json()["error"]


def test_assets_are_a_fixed_list(client):
    assert client.get("/static/app.js").headers["content-type"].startswith("text/javascript")
    assert client.get("/static/app.css").status_code == 200
    assert client.get("/static/index.html").status_code == 404
    assert client.get("/favicon.ico").status_code == 204
    rules = client.get("/api/rules").json()
    assert {"id": "blank-4", "name": "King for four (the blank)", "players": 4} in rules


@pytest.mark.parametrize("tid, game, extras", [
    ("blank-4", "trumps", ["declarer", "buyer", "price", "contract"]),
    ("trump-bidding", "trumps", ["declarer", "bid", "contract"]),
    ("ordered", "tricks", ["orderer"]),
    ("domino", "penalty", []),
])
def test_the_form_asks_for_what_the_rules_need(tmp_path, tid, game, extras):
    from kingsheet.files.templates import load_rules

    path = tmp_path / "g.toml"
    n = load_rules(tid).players
    names = ", ".join(f'"P{i}"' for i in range(n))
    path.write_text(game_text(rules=tid, players=names), encoding="utf-8")
    c = phone_client(make_app(path, TOKEN, "en"), TOKEN)
    state = c.get("/api/state").json()
    info = next(g for g in state["games"] if g["id"] == game)
    assert info["extras"] == extras
    assert len(state["totals"]) == (1 if tid == "domino" else 3)


def test_malformed_counts_and_players_are_refused(client):
    assert post(client, "deal", seen=0, game="eralash", taken="Аня: tricks=2")[0] == 400
    assert post(client, "deal", seen=0, game="eralash", taken=[{"tricks": 2}])[0] == 400
    assert post(client, "new", rules="blank-4", players="А,Б,В,Г")[0] == 400


def test_an_edit_keeps_what_the_form_does_not_show(client, game):
    for k, (g, pts) in enumerate([("tricks", [4, 6, 6, 0]), ("hearts", [4, 4, 0, 8]), ("boys", [0, 4, 0, 12]),
                                  ("girls", [4, 4, 4, 4]), ("king", [0, 16, 0, 0]), ("last", [8, 0, 8, 0]),
                                  ("eralash", [24, 24, 24, 24]), ("eralash+", [24, 24, 24, 24])]):
        assert post(client, "deal", seen=k, game=g, points=pts)[0] == 200
    status, data = post(client, "deal", seen=8, game="trumps", points=[9, 6, 6, 3], declarer="Боря",
                        contract="пики", note="по телефону")
    assert status == 200, data
    assert post(client, "edit", seen=9, number=9, game="trumps", points=[6, 9, 6, 3])[0] == 200
    deal9 = load_game(game).deals[8]
    assert deal9.points == (6, 9, 6, 3) and deal9.declarer == "Боря" and deal9.contract == "пики"
    assert deal9.note == "по телефону"


def test_too_many_followers_are_turned_away(game):
    from kingsheet.serve.app import MAX_LISTENERS

    guard = make_app(game, TOKEN, "en")
    guard.table.listeners = MAX_LISTENERS
    c = TestClient(guard, base_url="http://127.0.0.1:8765")
    res = c.get(f"/api/events?t={TOKEN}")
    assert res.status_code == 503 and "64 phones already follow this game" in res.json()["error"]
    room = c.get(f"/api/room?t={TOKEN}").json()  # what the page asks when its stream is turned away
    assert room["ok"] is False and room["error"] == res.json()["error"]
    guard.table.listeners = 3
    assert c.get(f"/api/room?t={TOKEN}").json() == {"ok": True}


def test_the_state_kept_between_deals_follows_the_file_and_its_template(tmp_path):
    """The state is built once per version of the game file, and again when either the file or the
    house template it names changes (an edit by hand, a deal from the terminal)."""
    house = (Path(__file__).resolve().parent.parent / "templates" / "blank-4.toml").read_text(encoding="utf-8")
    (tmp_path / "house.toml").write_text(house.replace('en = "King for four (the blank)"', 'en = "Our King"'),
                                         encoding="utf-8")
    path = tmp_path / "g.toml"
    path.write_text(game_text(rules="house.toml"), encoding="utf-8")
    c = phone_client(make_app(path, TOKEN, "en"), TOKEN)
    first = c.get("/api/state").json()
    assert first["title"] == "Our King" and c.get("/api/state").json() == first and "_template" not in first
    add_deal(path, {"game": "tricks", "points": [-4, -6, -6, 0]})  # as `kingsheet deal` does
    assert c.get("/api/state").json()["deals"] == 1
    (tmp_path / "house.toml").write_text(house.replace('en = "King for four (the blank)"', 'en = "Our King, v2"'),
                                         encoding="utf-8")
    assert c.get("/api/state").json()["title"] == "Our King, v2"
    assert c.get("/api/money").json()["pairwise"]["rows"][0][0] == "Аня"


def test_the_club_tab_adds_up_the_games_folder(client, game, tmp_path):
    """/api/club: the standings and the ledger of every evening in the game's folder (kingsheet club)."""
    import shutil

    shutil.copy(ROOT / "examples" / "blank-4.toml", game.parent / "friday-before.toml")
    (game.parent / "torn.toml").write_text("players = [", encoding="utf-8")
    got = client.get("/api/club").json()
    assert got["ok"] is True
    assert [row[1] for row in got["standings"]] == ["Боря", "Галя", "Вася", "Аня"]
    assert got["ledgers"][0]["transfers"][0][:3] == ["Аня", "Боря", "64 ₽"]
    assert any(line.startswith("torn.toml") for line in got["not_counted"])
    assert any("in progress" in line for line in got["not_counted"])  # the game being played
    assert client.get("/api/club?lang=ru").json()["standings"][0][4] == "+74 ₽"
    # each player's rating beside the money, provisional after one evening, said under the table
    ru = client.get("/api/club?lang=ru").json()
    assert [row[5] for row in ru["standings"]][0].endswith("*") and "," in ru["standings"][0][5]
    assert ru["rating_note"].startswith("* предварительный")
    assert client.get("/api/state?lang=ru").json()["words"]["rating"] == "рейтинг"


def test_a_payment_from_the_phone_page_goes_into_the_folders_club_file_as_club_paid_writes_it(client, game):
    """/api/club/paid and /api/club/player: the payment is recorded in club.toml beside the games
    (the file `kingsheet club paid` writes), the ledger answered is the one after it, a payment the
    club cannot take is one sentence that leaves the file as it was, and nothing without the token."""
    import shutil

    from typer.testing import CliRunner

    from kingsheet.cli.app import app

    shutil.copy(ROOT / "examples" / "blank-4.toml", game.parent / "friday-before.toml")
    status, got = post(client, "club/paid", **{"from": "Аня", "to": "Боря", "amount": "14", "date": "2026-11-30"})
    assert status == 200, got
    assert got["message"] == "recorded: Аня → Боря 14 ₽ (2026-11-30)"
    club_file = game.parent / "club.toml"
    assert "[[paid]]" in club_file.read_text(encoding="utf-8")
    out = CliRunner().invoke(app, ["club", "ledger", "--dir", str(game.parent), "--json"])
    cli = json.loads(out.stdout)["ledgers"][0]
    assert [t[:2] + [t[3]] for t in got["ledgers"][0]["transfers"]] == [[t["from"], t["to"], t["amount"]]
                                                                        for t in cli["transfers"]]
    assert got["payments"] == [["2026-11-30", "Аня", "Боря", "14 ₽"]]
    before = club_file.read_bytes()
    for body in ({"from": "Аня", "to": "Аня", "amount": "5"}, {"from": "Аня", "to": "Зоя", "amount": "5"},
                 {"from": "Аня", "to": "Боря", "amount": "0"}, {"from": ["Аня"], "to": "Боря", "amount": "5"}):
        status, said = post(client, "club/paid", **body)
        assert status == 400 and said["ok"] is False and said["error"] and "\n" not in said["error"], (body, said)
    assert club_file.read_bytes() == before
    status, figures = post(client, "club/player", player="бор")
    assert status == 200 and figures["heading"].startswith("Боря")
    assert post(client, "club/player", player="Зоя")[0] == 400
    stranger = TestClient(make_app(game, TOKEN, "en"), base_url="http://127.0.0.1:8765")
    assert stranger.post("/api/club/paid", json={"from": "Аня", "to": "Боря", "amount": "1"}).status_code == 403
    assert club_file.read_bytes() == before
