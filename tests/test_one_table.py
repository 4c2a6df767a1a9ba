"""One answer from one table. A deal's fields besides its cells are core.game.DEAL_EXTRAS: its
kinds, its limits and «kept on edit» are the same on every surface (the game file, CSV, the CLI's
edit, `play`'s edit, the phone page, which gets the table in `state`). The files written and read
are the tables of table.formats, for the CLI, the page and the app alike."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import EXAMPLES
from kingsheet.cli.app import app
from kingsheet.core.game import DEAL_EXTRAS, DEAL_KEYS, EXTRA_KEYS, NAME_LIMIT, TEXT_LIMITS, Deal, kept_on_edit
from kingsheet.files.gamefile import load_game

ALL = {"declarer": "Боря", "orderer": "Вася", "bid": 3, "buyer": "Галя", "price": 2, "contract": "пики",
       "note": "Аня спорила"}
NOTE = "Аня спорила, потом согласилась"


def test_the_table_is_every_field_a_deal_carries_besides_its_cells():
    assert set(EXTRA_KEYS) == set(DEAL_KEYS) - {"game", "points", "taken", "forced", "confirm"}
    assert set(ALL) == set(EXTRA_KEYS) and all(f.kind in ("player", "whole", "text") for f in DEAL_EXTRAS)
    for f in DEAL_EXTRAS:
        assert f.limit == (NAME_LIMIT if f.kind == "player" else TEXT_LIMITS[f.name] if f.kind == "text" else 999)


def test_an_edit_keeps_every_field_it_is_not_given_and_clears_one_given_empty():
    old = Deal(1, "trumps", (3, 15, 0, 6), **ALL)
    assert kept_on_edit(old, {}) == ALL
    assert kept_on_edit(old, {"note": "", "bid": 4}) == {k: v for k, v in ALL.items() if k not in ("note", "bid")}
    read = Deal(1, "trumps", (3, 15, 0, 6), note="scan: confirm this row", confirm=True, declarer="Боря")
    assert kept_on_edit(read, {}) == {"declarer": "Боря"}  # the reader's doubt is not kept
    assert kept_on_edit(None, {}) == {}


def test_every_field_goes_through_csv_and_back(tmp_path):
    from kingsheet.files.importers.csv import read_csv, write_csv

    path = tmp_path / "g.toml"
    text = (EXAMPLES / "blank-4.toml").read_text(encoding="utf-8")
    fields = "".join(f"{k} = {json.dumps(v, ensure_ascii=False)}\n" for k, v in ALL.items())
    path.write_text(text.replace('declarer = "Боря"\ncontract = "трефы"\n', fields, 1), encoding="utf-8")
    game = load_game(path)
    assert {k: getattr(game.deals[8], k) for k in ALL} == ALL
    csv = tmp_path / "g.csv"
    csv.write_text(write_csv(game), encoding="utf-8")
    assert {k: getattr(read_csv(csv).deals[8], k) for k in ALL} == ALL


@pytest.fixture
def noted(tmp_path) -> Path:
    """The bundled evening with a note on deal 9 (Trumps: Боря declared трефы)."""
    path = tmp_path / "friday.toml"
    text = (EXAMPLES / "blank-4.toml").read_text(encoding="utf-8")
    path.write_text(text.replace('contract = "трефы"\n', f'contract = "трефы"\nnote = "{NOTE}"\n', 1), encoding="utf-8")
    return path


def _deal9(path: Path) -> dict:
    d = load_game(path).deals[8]
    return {"declarer": d.declarer, "contract": d.contract, "note": d.note, "points": d.points}


def test_the_cli_edit_keeps_the_note_and_the_declarer_it_is_not_given(noted):
    res = CliRunner().invoke(app, ["edit", str(noted), "9", "3", "15", "6", "0", "--lang", "en"])
    assert res.exit_code == 0, res.output
    assert _deal9(noted) == {"declarer": "Боря", "contract": "трефы", "note": NOTE, "points": (3, 15, 6, 0)}
    res = CliRunner().invoke(app, ["edit", str(noted), "9", "3", "15", "6", "0", "--note", "", "--lang", "en"])
    assert res.exit_code == 0 and _deal9(noted)["note"] is None  # given empty: cleared


def test_plays_edit_keeps_the_note_and_the_declarer_it_is_not_given(noted):
    res = CliRunner().invoke(app, ["play", str(noted), "--lang", "en"], input="edit 9 3 15 6 0\nquit\n")
    assert res.exit_code == 0, res.output
    assert _deal9(noted) == {"declarer": "Боря", "contract": "трефы", "note": NOTE, "points": (3, 15, 6, 0)}


def test_the_page_gets_the_table_and_its_edit_keeps_what_the_form_does_not_send(noted):
    from serving import phone_client

    from kingsheet.serve.app import make_app

    client = phone_client(make_app(noted, "a-token-of-the-test", "en"), "a-token-of-the-test")
    state = client.get("/api/state").json()
    assert state["fields"] == [{"name": f.name, "kind": f.kind, "limit": f.limit} for f in DEAL_EXTRAS]
    assert state["name_limit"] == NAME_LIMIT
    res = client.post("/api/edit", json={"seen": 12, "number": 9, "game": "trumps", "points": [3, 15, 6, 0]})
    assert res.status_code == 200, res.json()
    assert _deal9(noted) == {"declarer": "Боря", "contract": "трефы", "note": NOTE, "points": (3, 15, 6, 0)}
    # the file's limit is the page's: a note of 500 characters is kept whole, one of 501 refused in a sentence
    long = "н" * TEXT_LIMITS["note"]
    res = client.post("/api/edit", json={"seen": 12, "number": 9, "game": "trumps", "points": [3, 15, 6, 0],
                                         "note": long})
    assert res.status_code == 200 and _deal9(noted)["note"] == long
    before = noted.read_bytes()
    res = client.post("/api/edit", json={"seen": 12, "number": 9, "game": "trumps", "points": [3, 15, 6, 0],
                                         "note": long + "н"})
    assert res.status_code in (400, 422) and "500" in res.json()["error"] and "\n" not in res.json()["error"]
    assert noted.read_bytes() == before
    res = client.post("/api/edit", json={"seen": 12, "number": 9, "game": "trumps", "points": [3, 15, 6, 0],
                                         "declarer": "Вася", "bid": 1000})
    assert res.status_code in (400, 422) and noted.read_bytes() == before


def test_the_tables_of_formats_are_what_every_surface_offers(tmp_path):
    """One table of each: what `export` writes, what `blank` writes, what the page downloads and
    what is read in (the page's file picker, `import`, `check`) are the tables of table.formats."""
    from serving import phone_client

    from kingsheet.files.load import READERS
    from kingsheet.serve.app import make_app
    from kingsheet.table.formats import BLANKS, DOWNLOADS, EXPORTS, IMPORTS

    run = CliRunner()
    example = EXAMPLES / "blank-4.toml"
    for suffix in EXPORTS:
        out = tmp_path / f"sheet{suffix}"
        assert run.invoke(app, ["export", str(example), "-o", str(out)]).exit_code == 0 and out.stat().st_size
    for suffix in BLANKS:
        out = tmp_path / f"blank{suffix}"
        assert run.invoke(app, ["blank", "--rules", "blank-4", "-o", str(out)]).exit_code == 0 and out.stat().st_size
    refused = run.invoke(app, ["export", str(example), "-o", str(tmp_path / "sheet.doc"), "--lang", "en"])
    assert refused.exit_code == 2 and all(s in refused.output for s in EXPORTS)
    assert tuple(READERS) == IMPORTS and ".xlsm" in IMPORTS
    workbook = tmp_path / "sheet.xlsx"
    macro = tmp_path / "sheet.xlsm"
    macro.write_bytes(workbook.read_bytes())  # a macro workbook is read as a workbook
    assert run.invoke(app, ["check", str(macro)]).exit_code == 0
    game = tmp_path / "friday.toml"
    game.write_text(example.read_text(encoding="utf-8"), encoding="utf-8")
    client = phone_client(make_app(game, "a-token-of-the-test", "en"), "a-token-of-the-test")
    assert client.get("/api/state").json()["words"]["file_types"].split(",") == [".toml", *IMPORTS]
    for kind in DOWNLOADS:
        assert client.get(f"/download/{kind}").status_code == 200, kind
    assert "json" not in DOWNLOADS and client.get("/download/json").status_code == 404
