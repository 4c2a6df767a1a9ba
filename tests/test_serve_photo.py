"""The phone photographs the filled blank (`serve`): the photo goes to the computer, is read there
and never kept, the rows come back with each unsure row against the strip of paper it was read
from, the phone confirms them and the sheet becomes a new game. Bad photos get one sentence."""

from __future__ import annotations

import base64
import random
from pathlib import Path

import pytest

pytest.importorskip("starlette")

from serving import CHROMIUM, PHONE, TOKEN, chromium, friday, phone_client, running
from test_scan import FONT
from test_scan import pytestmark as pytestmark  # the scanner's extra, pdftoppm and the handwriting font

from kingsheet.files.gamefile import load_game
from kingsheet.serve.app import make_app


def _photo(seed: int) -> tuple[bytes, list[tuple[str, tuple[int, ...]]]]:
    from synth import filled_sheet, photograph

    rng = random.Random(seed)
    pages, rows = filled_sheet("blank-4", FONT, rng)
    return photograph(pages[0], rng, quality=(80, 90)), rows


@pytest.fixture(scope="module")
def shot():
    return _photo(2)


DOUBTED = (3, 7)


@pytest.fixture(autouse=True)
def doubted_rows(monkeypatch):
    """The handwriting font reads clean; rows 3 and 7 are made unsure as a hand the reader does not
    know leaves them: the true reading first, one the rules also accept (its cells swapped) second."""
    from dataclasses import replace

    import kingsheet.scan.reader as reader
    from kingsheet.scan.choose import Option

    real = reader.read_sheet

    def read_sheet(photos, given=None):
        sheet = real(photos, given)
        rows = []
        for r in sheet.rows:
            if r.number in DOUBTED:
                first = r.choice.options[0]
                other = Option(first.game, tuple(reversed(first.cells)), 0.4)
                r = replace(r, choice=replace(r.choice, sure=False, options=(replace(first, share=0.6), other)))
            rows.append(r)
        return replace(sheet, rows=tuple(rows))

    monkeypatch.setattr(reader, "read_sheet", read_sheet)


def _data_url(jpeg: bytes) -> str:
    return "data:image/jpeg;base64," + base64.b64encode(jpeg).decode()


def test_a_photo_sent_from_the_phone_becomes_a_new_game(tmp_path, shot):
    game = friday(tmp_path)
    client = phone_client(make_app(game, TOKEN, "en"), TOKEN)
    jpeg, truth = shot
    read = client.post("/api/photo", json={"photos": [_data_url(jpeg)]})
    assert read.status_code == 200, read.text
    data = read.json()
    assert data["rules"] == "blank-4" and [r["number"] for r in data["rows"]] == list(range(1, 13))
    unsure = [r for r in data["rows"] if not r["sure"]]
    assert [r["number"] for r in unsure] == list(DOUBTED)
    assert all(r["crop"].startswith("data:image/png;base64,") and len(r["options"]) == 2 for r in unsure)
    assert all("crop" not in r for r in data["rows"] if r["sure"])
    assert not list(tmp_path.glob("*.jp*g")) and len(list(tmp_path.iterdir())) == 1  # the photo is not kept
    # one unsure row confirmed by picking its first reading, the other typed in as it truly was
    choices = {"3": {"option": 0}, "7": {"typed": " ".join(map(str, truth[6][1]))}}
    kept = client.post("/api/photo/keep", json={"read": data["read"], "players": ["Аня", "Боря", "Вася", "Галя"],
                                                "choices": choices})
    assert kept.status_code == 200 and kept.json()["message"].startswith("new game: ")
    made = [p for p in tmp_path.glob("*.toml") if p != game]
    assert len(made) == 1
    loaded = load_game(made[0])
    assert loaded.players == ("Аня", "Боря", "Вася", "Галя") and len(loaded.deals) == 12
    assert [tuple(d.points or ()) for d in loaded.deals] == [cells for _g, cells in truth]
    assert client.get("/api/state").json()["file"] == made[0].name  # the page now serves the new game
    again = client.post("/api/photo/keep", json={"read": data["read"], "players": ["А", "Б", "В", "Г"]})
    assert again.status_code == 410  # a reading is kept once


def test_a_photo_fills_in_the_rows_the_open_game_has_not_played(tmp_path, shot):
    """The table typed three deals on the phone and kept the rest on paper: the photo fills in rows
    4–12 of the open game; its own deals stay, and a row the paper reads otherwise is named."""
    from conftest import deal, game_text

    jpeg, truth = shot
    (g1, c1), (g2, c2), (g3, c3) = truth[:3]
    other = next(p for p in (c2[1:] + c2[:1], c2[::-1]) if p != c2)  # the same row, the players' cells moved
    game = tmp_path / "friday.toml"
    game.write_text(game_text(deals=deal(g1, list(c1)) + deal(g2, list(other)) + deal(g3, list(c3))),
                    encoding="utf-8")
    client = phone_client(make_app(game, TOKEN, "en"), TOKEN)
    data = client.post("/api/photo", json={"photos": [_data_url(jpeg)]}).json()
    assert data["fill"] == {"first": 4, "last": 12, "seen": 3}
    stale = client.post("/api/photo/fill", json={"read": data["read"], "seen": 2})
    assert stale.status_code == 409 and load_game(game).deals[3:] == ()  # the screen saw an older sheet
    choices = {"7": {"typed": " ".join(map(str, truth[6][1]))}}  # row 3 unsure too, but the game has it
    filled = client.post("/api/photo/fill", json={"read": data["read"], "seen": 3, "choices": choices})
    assert filled.status_code == 200, filled.text
    assert filled.json()["message"] == ("✓ deals 4–12 filled in from the photo; the paper reads otherwise in "
                                        "rows 2: the game keeps its own")
    loaded = load_game(game)
    assert [tuple(d.points or ()) for d in loaded.deals] == [c1, other, c3, *(c for _g, c in truth[3:])]
    assert not any(d.confirm for d in loaded.deals)  # row 7 confirmed on the phone; the rest read sure
    assert [p.name for p in tmp_path.iterdir()] == [game.name]  # no new game, no photo kept
    again = client.post("/api/photo/fill", json={"read": data["read"], "seen": 12})
    assert again.status_code == 410  # a reading is used once


def test_a_photo_fills_in_only_a_game_of_its_rules_with_rows_to_fill(tmp_path, shot):
    from conftest import deal, game_text

    jpeg, truth = shot
    other = tmp_path / "other.toml"
    other.write_text(game_text(rules="symmetric"), encoding="utf-8")
    client = phone_client(make_app(other, TOKEN, "ru"), TOKEN)
    data = client.post("/api/photo", json={"photos": [_data_url(jpeg)]}).json()
    assert data["fill"] is None  # not offered
    refused = client.post("/api/photo/fill?lang=ru", json={"read": data["read"], "seen": 0})
    assert refused.status_code == 422 and refused.json()["error"] == (
        "на фотографии бланк blank-4, а эта игра идёт по правилам symmetric: сохраните фотографию как новую игру")
    full = tmp_path / "full.toml"
    full.write_text(game_text(deals="".join(deal(g, list(c)) for g, c in truth)), encoding="utf-8")
    client = phone_client(make_app(full, TOKEN, "en"), TOKEN)
    data = client.post("/api/photo", json={"photos": [_data_url(jpeg)]}).json()
    assert data["fill"] is None
    nothing = client.post("/api/photo/fill", json={"read": data["read"], "seen": 12})
    assert nothing.status_code == 422 and nothing.json()["error"] == (
        "the photo holds no row after deal 12: nothing to fill in")
    assert load_game(other).deals == () and len(load_game(full).deals) == 12


def test_a_photo_whose_code_cannot_be_read_is_read_by_the_open_games_rules(tmp_path):
    """A smudged QR code: the phone's open game names the rules, and the page is told by its lines;
    a game of other rules does not make the photo read into the wrong cells."""
    from test_scan import codeless_photo

    from conftest import game_text

    path, truth = codeless_photo(tmp_path, seed=5, deals=4)
    client = phone_client(make_app(friday(tmp_path), TOKEN, "en"), TOKEN)
    data = client.post("/api/photo", json={"photos": [_data_url(path.read_bytes())]}).json()
    assert data["ok"] and data["rules"] == "blank-4" and [r["number"] for r in data["rows"]] == [1, 2, 3, 4]
    assert data["fill"] == {"first": 1, "last": 4, "seen": 0}
    other = tmp_path / "other.toml"
    other.write_text(game_text(rules="king-14"), encoding="utf-8")
    client = phone_client(make_app(other, TOKEN, "en"), TOKEN)
    refused = client.post("/api/photo", json={"photos": [_data_url(path.read_bytes())]})
    assert refused.status_code == 422 and refused.json()["error"].startswith(
        "photo 1: the sheet's QR code cannot be read, and the page's printed lines are not those of the blank")


def test_a_blank_told_by_its_lines_says_so_on_the_page_in_the_pages_words(tmp_path):
    """No game's rules to go by and the code rubbed out: the page's answer says which blank the
    photo was taken for, as the CLI does, but tells the phone's user what they can do there (start a
    game with the rules), not a command-line option; in both languages."""
    from test_scan import _code_smudged

    from kingsheet.core import i18n
    from kingsheet.table.actions import read_photos

    path, truth = _code_smudged(tmp_path, "ordered")
    body = {"photos": [_data_url(path.read_bytes())]}
    with i18n.speaking("en"):
        data = read_photos(body, "en", None)
    assert data["rules"] == "ordered" and len(data["rows"]) == len(truth)
    first = data["summary"][0]
    assert first.startswith("the QR code could not be read: by its printed lines the blank is ordered")
    assert "start a game with its rules" in first and "--rules" not in first
    with i18n.speaking("ru"):
        said = read_photos(body, "ru", None)["summary"][0]
    assert "ordered" in said and "--rules" not in said and "QR" in said and "правил" in said, said


def test_a_bad_photo_or_a_bad_answer_is_one_sentence(tmp_path, shot):
    game = friday(tmp_path)
    client = phone_client(make_app(game, TOKEN, "ru"), TOKEN)
    for body, status, words in (
            ({"photos": []}, 400, "фотографии"),
            ({"photos": ["not base64!"]}, 400, "не изображение"),
            ({"photos": [_data_url(b"\xff\xd8\xff" + b"0" * 100)]}, 422, "фотография 1"),
            ({"photos": [_data_url(b"x")] * 5}, 400, "не больше 4")):
        got = client.post("/api/photo?lang=ru", json=body)
        assert got.status_code == status and words in got.json()["error"], (got.status_code, got.text)
        assert "/tmp" not in got.json()["error"]  # the temporary folder is never named
    data = client.post("/api/photo", json={"photos": [_data_url(shot[0])]}).json()
    for players in (["А", "а", "В", "Г"], ["А", "Б"], "А,Б,В,Г", ["А", "", "В", "Г"]):
        names = client.post("/api/photo/keep", json={"read": data["read"], "players": players})
        assert names.status_code == 400, players
    wrong = client.post("/api/photo/keep?lang=ru", json={"read": data["read"], "players": ["А", "Б", "В", "Г"],
                                                         "choices": {"3": {"typed": "1 2 3 4"}}})
    assert wrong.status_code == 422 and wrong.json()["error"].startswith("строка 3: ")
    assert [p.name for p in tmp_path.iterdir()] == [game.name]  # nothing written


def test_the_photo_route_alone_takes_megabytes(tmp_path):
    client = phone_client(make_app(friday(tmp_path), TOKEN, "en"), TOKEN)
    big = {"photos": ["A" * (40 * 1024)]}
    assert client.post("/api/deal", json=big).status_code == 413  # every other route: 16 KiB
    got = client.post("/api/photo", json=big)
    assert got.status_code == 422 and got.json()["error"].startswith("photo 1")  # read, and refused: no picture


@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium on this machine (apt-get install chromium)")
def _photo_tab(browser, base: str):
    """A phone's page of the served game, on its «New» tab with the photo's part shown; the page and
    the script errors it will collect."""
    page = browser.new_context(**PHONE).new_page()
    page.set_default_timeout(60_000)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{base}/?t={TOKEN}")
    page.wait_for_selector("#sheet tr >> nth=1")
    page.click("#tab-new")
    page.wait_for_selector("#photo-head:not(:empty)")
    return page, errors


def test_on_the_phone_the_unsure_rows_show_their_paper(tmp_path, shot):
    game = friday(tmp_path)
    photo = tmp_path / "blank.jpg"
    photo.write_bytes(shot[0])
    shots = Path(__import__("os").environ.get("KINGSHEET_SHOTS") or tmp_path / "shots")
    shots.mkdir(parents=True, exist_ok=True)
    with running(game, "ru") as base, chromium() as browser:
        page, errors = _photo_tab(browser, base)
        assert page.inner_text("#photo-head") == "С фотографии заполненного бланка"
        page.set_input_files("#photo-in", str(photo))
        page.wait_for_selector("#photo-keep:not([hidden])")
        page.screenshot(path=str(shots / "photo-read.png"), full_page=True)
        crops = page.locator("#photo-rows img.crop")
        assert crops.count() == len(DOUBTED)
        for k in range(crops.count()):  # each strip of paper is a real picture, drawn
            assert page.evaluate("(img) => img.complete && img.naturalWidth > 100", crops.nth(k).element_handle())
        assert [page.locator("#photo-names input").nth(i).input_value() for i in range(4)] == [
            "Аня", "Боря", "Вася", "Галя"]  # the open game's players, in seating order
        # the open game has no deal yet and the same rules: it may be filled in instead
        assert page.inner_text("#photo-fill") == "Заполнить строки 1–12 этой игры"
        page.click("#photo-keep")
        page.wait_for_selector("#notice:has-text('новая игра')")
        page.wait_for_selector("#sheet tr.played >> nth=11")
        assert not errors
    assert photo.exists() and len(list(tmp_path.glob("*.toml"))) == 2


def test_a_photo_for_the_phone_app_goes_back_as_its_text_and_nothing_is_kept(tmp_path, shot):
    """The phone app (kingsheet site) keeps its games on the phone: the computer reads the photo,
    the phone confirms the rows, and the sheet goes back as a game file's text; nothing is written."""
    from kingsheet.files.gamefile import read_game

    game = friday(tmp_path)
    client = phone_client(make_app(game, TOKEN, "en"), TOKEN)
    jpeg, truth = shot
    data = client.post("/api/photo", json={"photos": [_data_url(jpeg)]}).json()
    refused = client.post("/api/photo/text", json={"read": data["read"], "players": ["А", "а", "В", "Г"]})
    assert refused.status_code == 400 and "named twice" in refused.json()["error"]
    choices = {"3": {"option": 0}, "7": {"typed": " ".join(map(str, truth[6][1]))}}
    back = client.post("/api/photo/text", json={"read": data["read"], "players": ["Аня", "Боря", "Вася", "Галя"],
                                                "choices": choices})
    assert back.status_code == 200, back.text
    got = back.json()
    assert got["ok"] and got["rules"] == "blank-4" and got["deals"] == 12
    loaded = read_game(got["text"], tmp_path / "phone.toml", tmp_path)
    assert loaded.players == ("Аня", "Боря", "Вася", "Галя")
    assert [tuple(d.points or ()) for d in loaded.deals] == [c for _g, c in truth]
    assert not any(d.confirm for d in loaded.deals)
    assert [p.name for p in tmp_path.iterdir()] == [game.name]  # nothing written on the computer
    assert client.post("/api/photo/text", json={"read": data["read"], "players": ["А", "Б", "В", "Г"]}
                       ).status_code == 410  # the reading is used once


def test_on_the_phone_a_row_read_as_corrected_says_so_and_is_not_asked(tmp_path):
    """A row where a number was crossed out and written again, read surely as the new one, shows
    «✓» and says it was read as corrected, in the page's language; the game kept from the photo
    carries the note and no mark to confirm on it."""
    from synth import filled_sheet, photograph

    rng = random.Random(11)  # test_scan's sheet whose numbers crossed out are each found
    pages, truth = filled_sheet("blank-4", FONT, rng, crossed=0.1)
    photo = tmp_path / "crossed.jpg"
    photo.write_bytes(photograph(pages[0], rng, quality=(80, 90)))
    game = friday(tmp_path)
    with running(game, "ru") as base, chromium() as browser:
        page, errors = _photo_tab(browser, base)
        page.set_input_files("#photo-in", str(photo))
        page.wait_for_selector("#photo-keep:not([hidden])")
        said = page.locator("#photo-rows .read.sure", has_text="✓ число зачёркнуто: прочитано написанное заново")
        corrected = [int(said.nth(k).inner_text().split("·")[0]) for k in range(said.count())]
        assert len(corrected) >= 2 and not set(corrected) & set(DOUBTED)
        page.click("#photo-keep")  # rows 3 and 7 (unsure, by the fixture) left marked to check later
        page.wait_for_selector("#notice:has-text('новая игра')")
        assert not errors
    made = [p for p in tmp_path.glob("*.toml") if p != game]
    loaded = load_game(made[0])
    assert [tuple(d.points or ()) for d in loaded.deals] == [cells for _g, cells in truth]
    for n in corrected:
        deal = loaded.deals[n - 1]
        assert deal.note == "скан: число в этой строке зачёркнуто и написано заново; прочитано новое"
        assert not deal.confirm
