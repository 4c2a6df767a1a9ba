"""XLSX and CSV: live formulas recomputed headlessly, sheets read back, hand-filled sheets checked."""

from __future__ import annotations

import io
import json
from decimal import Decimal
from pathlib import Path

import pytest
from openpyxl import Workbook, load_workbook

from conftest import EXAMPLES, game_text
from kingsheet.cli.app import app
from kingsheet.core.problems import InputError
from kingsheet.core.verify import verify
from kingsheet.files.gamefile import load_game
from kingsheet.files.importers.csv import read_csv, write_csv
from kingsheet.files.importers.xlsx import read_xlsx
from kingsheet.files.templates import load_rules, template_ids
from kingsheet.render.xlsx import blank_xlsx, sheet_xlsx


def export(game: Path, tmp_path: Path, name: str = "sheet.xlsx") -> Path:
    out = tmp_path / name
    out.write_bytes(sheet_xlsx(verify(load_game(game))))
    return out


def recompute(path: Path) -> dict[str, object]:
    """Every formula computed by the `formulas` package, as Excel or LibreOffice would."""
    import formulas

    solution = formulas.ExcelModel().loads(str(path)).finish().calculate()
    out = {}
    for key, value in solution.items():
        ref = str(key).split("!")[-1]
        if ":" in ref or "КИНГ" not in str(key).upper():
            continue
        v = value.value[0][0] if hasattr(value, "value") else value
        out[ref] = v.item() if hasattr(v, "item") else v
    return out


@pytest.mark.parametrize("example", ["blank-4", "trump-bidding", "ordered"])
def test_formulas_recompute_to_kingsheets_sums(tmp_path, example):
    path = export(EXAMPLES / f"{example}.toml", tmp_path)
    report = verify(load_game(EXAMPLES / f"{example}.toml"))
    values = recompute(path)
    n_rows = len(report.rows)
    total_row = 6 + n_rows
    for j, p in enumerate(report.game.players):
        col = "DEFG"[j]
        assert values[f"{col}{total_row}"] == report.totals[p].minus
        assert values[f"{col}{total_row + 1}"] == report.totals[p].plus
        assert values[f"{col}{total_row + 2}"] == report.totals[p].total
    marks = [values.get(f"{'K' if example != 'trump-bidding' else 'L'}{6 + i}") for i in range(n_rows)]
    assert marks == ["✓"] * n_rows


def test_workbook_cells_read_back(tmp_path):
    path = export(EXAMPLES / "blank-4.toml", tmp_path)
    wb = load_workbook(path)
    ws = wb.worksheets[0]
    assert [ws.cell(5, c).value for c in range(1, 12)] == [
        "№", "Игра", "Очки", "Аня", "Боря", "Вася", "Галя", "Сдаёт", "Объявляет", "Σ", "Проверка"]
    assert ws["B6"].value == "Взятки" and ws["C6"].value == -16 and ws["D6"].value == -4
    assert ws["J6"].value.startswith("=IF(COUNT(")
    assert ws["D18"].value == '=SUMIF($C$6:$C$17,"<0",D$6:D$17)'
    assert ws.protection.sheet and not ws["D6"].protection.locked and ws["J6"].protection.locked
    assert int(ws.page_setup.paperSize) == int(ws.PAPERSIZE_A4) and ws.page_setup.fitToWidth == 1
    assert ws.print_title_rows == "$5:$5"
    assert len(ws.conditional_formatting) == 2
    assert any(dv.formula1 == "-16" and dv.formula2 == "0" for dv in ws.data_validations.dataValidation)
    money = wb.worksheets[1]
    assert money.title == "Расчёт" and money["B2"].value == 0.5
    assert wb["kingsheet"].sheet_state == "hidden"


@pytest.mark.parametrize("tid", template_ids())
def test_every_blank_exports_and_imports_back(tmp_path, tid):
    path = tmp_path / f"{tid}.xlsx"
    path.write_bytes(blank_xlsx(load_rules(tid), lang="ru"))
    game = read_xlsx(path)
    assert game.rules.id == tid and game.deals == ()
    assert verify(game).problems == ()


def test_english_blank(tmp_path):
    path = tmp_path / "en.xlsx"
    path.write_bytes(blank_xlsx(load_rules("symmetric"), ["A", "B", "C", "D"], lang="en"))
    ws = load_workbook(path).worksheets[0]
    assert ws.title == "King" and ws["B6"].value == "Tricks" and ws["D5"].value == "A"


def test_planted_mistakes_give_the_same_report_as_the_game_file(tmp_path):
    for name in ("sign-slipped", "off-by-one-trick", "king-split", "deals-swapped", "deal-skipped"):
        src = EXAMPLES / "mistakes" / f"{name}.toml"
        path = export(src, tmp_path, f"{name}.xlsx")
        want = [p.message for p in verify(load_game(src)).problems]
        assert [p.message for p in verify(read_xlsx(path)).problems] == want, name


def test_hand_filled_sheet_laid_out_like_ours(tmp_path):
    """A sheet typed by someone else: labels in other case and ё, numbers as text, blanks as 0, no metadata."""
    wb = Workbook()
    ws = wb.active
    ws.append(["Наш кинг"])
    ws.append([])
    ws.append(["№", "ИГРА", "очки", "Аня", "Боря", "Вася", "Галя", "Сдаёт"])
    rows = [("взятки", -16, -4, 0, -8, -4), ("ЧЕРВИ", -16, "-4", "-4", None, -8), ("мальчики ", -16, 0, -4, 0, -12)]
    for i, (label, pts, *cells) in enumerate(rows, 1):
        ws.append([i, label, pts, *cells, "Аня"])
    ws.append([None, "Итого (−)", -192, "=SUM(D4:D6)"])
    path = tmp_path / "hand.xlsx"
    wb.save(path)
    game = read_xlsx(path)
    assert game.rules.id == "blank-4" and len(game.deals) == 3
    assert game.deals[1].points == (-4, -4, 0, -8)
    assert verify(game).problems == ()


def test_non_number_is_named_by_its_cell(tmp_path, runner):
    path = export(EXAMPLES / "blank-4.toml", tmp_path)
    wb = load_workbook(path)
    wb.worksheets[0]["D7"] = "абв"
    wb.save(path)
    res = runner.invoke(app, ["check", str(path)])
    assert res.exit_code == 2
    assert res.stderr.strip() == "kingsheet: D7: 'абв' is not a number"


@pytest.mark.parametrize("mutate, message", [
    (lambda p: p.write_bytes(b"not a zip at all"), "not a readable workbook"),
    (lambda p: p.write_bytes(p.read_bytes()[:2000]), "not a readable workbook"),
])
def test_broken_workbooks(tmp_path, runner, mutate, message):
    path = export(EXAMPLES / "blank-4.toml", tmp_path)
    mutate(path)
    res = runner.invoke(app, ["check", str(path)])
    assert res.exit_code == 2 and message in res.stderr and "Traceback" not in res.output


def test_no_header_merged_cells_wrong_player_count(tmp_path, runner):
    wb = Workbook()
    wb.active.append(["just", "some", "numbers"])
    empty = tmp_path / "empty.xlsx"
    wb.save(empty)
    res = runner.invoke(app, ["check", str(empty)])
    assert res.exit_code == 2 and "no sheet with a header row naming «Игра»" in res.stderr

    merged = export(EXAMPLES / "blank-4.toml", tmp_path, "merged.xlsx")
    wb = load_workbook(merged)
    wb.worksheets[0].merge_cells("D7:E7")
    wb.save(merged)
    res = runner.invoke(app, ["check", str(merged)])
    assert res.exit_code == 2 and "merged cells D7:E7 cover the entry area" in res.stderr

    five = export(EXAMPLES / "blank-4.toml", tmp_path, "five.xlsx")
    wb = load_workbook(five)
    ws = wb.worksheets[0]
    ws.insert_cols(8)
    ws["H5"] = "Дима"
    wb.save(five)
    res = runner.invoke(app, ["check", str(five)])
    assert res.exit_code == 2 and "blank-4 is for 4 players, the file has 5" in res.stderr


HOSTILE = ["=1+1", "+SUM(A1)", "-2+3", "@cmd"]


def test_hostile_names_stay_text_in_xlsx(tmp_path):
    data = blank_xlsx(load_rules("blank-4"), HOSTILE)
    ws = load_workbook(io.BytesIO(data)).worksheets[0]
    for c, name in zip("DEFG", HOSTILE):
        assert ws[f"{c}5"].value == name and ws[f"{c}5"].data_type == "s"
    # and a game whose players are hostile, exported and read back, keeps them as names
    game_file = tmp_path / "h.toml"
    game_file.write_text('format = 1\nrules = "blank-4"\nplayers = ["=1+1", "+SUM(A1)", "-2+3", "@cmd"]\n'
                         '[[deals]]\ngame = "tricks"\npoints = [-4, 0, -8, -4]\nnote = "=HYPERLINK(\\"x\\")"\n',
                         encoding="utf-8")
    out = export(game_file, tmp_path, "h.xlsx")
    assert read_xlsx(out).players == tuple(HOSTILE)


def test_csv_round_trip_and_injection_guard(tmp_path):
    for example in ("blank-4", "trump-bidding", "ordered-56", "three-30"):
        game = load_game(EXAMPLES / f"{example}.toml")
        path = tmp_path / f"{example}.csv"
        path.write_text(write_csv(game), encoding="utf-8")
        back = read_csv(path)
        assert back.rules.id == game.rules.id and back.players == game.players
        original = verify(game)
        assert [r.cells for r in verify(back).rows] == [r.cells for r in original.rows]
        assert [(d.declarer, d.orderer, d.bid) for d in back.deals] == [(d.declarer, d.orderer, d.bid)
                                                                       for d in game.deals]
    game_file = tmp_path / "h.toml"
    game_file.write_text('format = 1\nrules = "blank-4"\nplayers = ["=1+1", "+SUM(A1)", "-2+3", "@cmd"]\n'
                         '[[deals]]\ngame = "tricks"\npoints = [-4, 0, -8, -4]\nnote = "=HYPERLINK()"\n',
                         encoding="utf-8")
    text = write_csv(load_game(game_file))
    assert '"\'=1+1","\'+SUM(A1)","\'-2+3","\'@cmd"' in text and "\'=HYPERLINK()" in text
    path = tmp_path / "h.csv"
    path.write_text(text, encoding="utf-8")
    back = read_csv(path)
    assert back.players == tuple(HOSTILE) and back.deals[0].note == "=HYPERLINK()"



def test_the_csv_keeps_the_games_title_date_and_money_so_it_settles_at_its_own_stake(tmp_path, runner):
    """An evening at 0,50 ₽ a point through CSV and back settles at 0,50 ₽, not at a stake the
    game does not have; an unusable stake in the CSV is the game file's money problem."""
    import json

    from kingsheet.cli.app import app

    for example in sorted(EXAMPLES.glob("*.toml")):
        game = load_game(example)
        path = tmp_path / f"{example.stem}.csv"
        path.write_text(write_csv(game), encoding="utf-8")
        back = read_csv(path)
        assert (back.title, back.date, dict(back.money)) == (game.title, game.date, dict(game.money)), example
    path = tmp_path / "blank-4.csv"
    settled = runner.invoke(app, ["settle", str(path), "--json"])
    assert json.loads(settled.stdout)["stake"] == "0.50" and json.loads(settled.stdout)["balances"]["Боря"] == "74"
    text = path.read_text(encoding="utf-8").replace("money.stake=0.50", "money.stake=NaN")
    bad = tmp_path / "bad.csv"
    bad.write_text(text, encoding="utf-8")
    refused = runner.invoke(app, ["settle", str(bad), "--lang", "en"])
    assert refused.exit_code != 0 and "NaN" in refused.output and "Traceback" not in refused.output
    checked = runner.invoke(app, ["check", str(bad), "--json"])
    assert "money" in [p["code"] for p in json.loads(checked.stdout)["errors"]]

def test_csv_fields_are_safe_under_either_delimiter_and_round_trip(tmp_path):
    """Every text field quoted and guarded: a semicolon reader (Excel in ru-RU) and a comma reader
    each find no cell that starts like a formula; a two-word first dealer comes back whole."""
    import csv as csvmod

    game_file = tmp_path / "h.toml"
    game_file.write_text('format = 1\nrules = "blank-4"\nplayers = ["Анна Мария", "Z,=HYPERLINK(1)", "ok;=2", "Галя"]\n'
                         'first_dealer = "Анна Мария"\n'
                         '[[deals]]\ngame = "tricks"\npoints = [-4, 0, -8, -4]\nnote = "x;=SUM(1);y,=2"\n',
                         encoding="utf-8")
    text = write_csv(load_game(game_file))
    for delimiter in (",", ";"):
        for row in csvmod.reader(text.splitlines(), delimiter=delimiter):
            assert not any(cell.startswith(("=", "+", "@")) for cell in row), (delimiter, row)
    path = tmp_path / "h.csv"
    path.write_text(text, encoding="utf-8")
    back = read_csv(path)
    assert back.first_dealer == "Анна Мария" and back.players[1:3] == ("Z,=HYPERLINK(1)", "ok;=2")
    assert back.deals[0].note == "x;=SUM(1);y,=2"


def test_csv_semicolons_and_bad_cells(tmp_path):
    path = tmp_path / "semi.csv"
    path.write_text("Игра;Аня;Боря;Вася;Галя\nВзятки;-4;0;-8;-4\nЧерви;-4;-4;x;-8\n", encoding="utf-8")
    with pytest.raises(InputError, match="line 3, Вася: 'x' is not a number"):
        read_csv(path)
    path.write_text("Игра;Аня;Боря;Вася;Галя\nВзятки;-4;0;-8;-4\n", encoding="utf-8")
    assert read_csv(path).rules.id == "blank-4"


def test_import_command(tmp_path, runner):
    xlsx = export(EXAMPLES / "minsk.toml", tmp_path)
    out = tmp_path / "back.toml"
    res = runner.invoke(app, ["import", str(xlsx), "-o", str(out)])
    assert res.exit_code == 0, res.output
    assert verify(load_game(out)).ok
    assert [d.points for d in load_game(out).deals] == [d.points for d in load_game(EXAMPLES / "minsk.toml").deals]
    res = runner.invoke(app, ["import", str(xlsx), "-o", str(out)])
    assert res.exit_code == 2 and "already exists" in res.stderr
    bad = tmp_path / "x.xlsx"
    bad.write_bytes(b"junk")
    res = runner.invoke(app, ["import", str(bad), "-o", str(tmp_path / "y.toml")])
    assert res.exit_code == 2 and not (tmp_path / "y.toml").exists()


def test_settle_reads_a_workbook(tmp_path, runner):
    path = export(EXAMPLES / "blank-4.toml", tmp_path)
    res = runner.invoke(app, ["settle", str(path), "--stake", "1", "--json"])
    assert res.exit_code == 0, res.output
    direct = runner.invoke(app, ["settle", str(EXAMPLES / "blank-4.toml"), "--stake", "1", "--json"])
    assert json.loads(res.stdout) == json.loads(direct.stdout)  # the workbook's money is the game's
    assert json.loads(res.stdout)["transfers"]  # and someone pays someone


def test_running_totals_recompute_for_a_game_to_a_limit(tmp_path):
    path = export(EXAMPLES / "bidding-77.toml", tmp_path)
    report = verify(load_game(EXAMPLES / "bidding-77.toml"))
    values = recompute(path)
    last = 6 + len(report.rows) - 1
    # players D..G, running totals H..K, then Сдаёт, Объявляет, Заявка, Масть, Σ, Проверка
    for j, p in enumerate(report.game.players):
        assert values[f"{'HIJK'[j]}{last}"] == report.totals[p].total
    for i, row in enumerate(report.rows):
        assert values[f"C{6 + i}"] == row.expected  # −13 less the bid, by formula
        assert values[f"Q{6 + i}"] == "✓"


@pytest.mark.parametrize("example", sorted(p.stem for p in EXAMPLES.glob("*.toml")))
def test_export_then_import_gives_back_the_same_game(tmp_path, runner, example):
    """Everything the game file holds comes back: header, money, and every deal's fields, counts,
    notes and forced marks (the workbook's hidden sheet carries what its rows do not show)."""
    source = EXAMPLES / f"{example}.toml"
    xlsx, back = tmp_path / "x.xlsx", tmp_path / "back.toml"
    assert runner.invoke(app, ["export", str(source), "-o", str(xlsx)]).exit_code in (0, 1)
    assert runner.invoke(app, ["import", str(xlsx), "-o", str(back)]).exit_code in (0, 1)
    a, b = load_game(source), load_game(back)
    assert (a.rules.id, a.players, a.first_dealer, a.title, a.date, dict(a.money)) == \
        (b.rules.id, b.players, b.first_dealer, b.title, b.date, dict(b.money))
    assert a.deals == b.deals


def test_notes_forced_marks_and_counts_survive_the_workbook(tmp_path, runner):
    game = tmp_path / "g.toml"
    game.write_text(game_text(deals='\n[[deals]]\ngame = "tricks"\npoints = [-4, -4, -4, -2]\nforced = true\n'
                                    'note = "Боря спорит"\n\n[[deals]]\ngame = "hearts"\ntaken = [{ hearts = 2 }, '
                                    '{ hearts = 2 }, { hearts = 2 }, { hearts = 2 }]\n'), encoding="utf-8")
    xlsx, back = tmp_path / "x.xlsx", tmp_path / "back.toml"
    runner.invoke(app, ["export", str(game), "-o", str(xlsx)])
    runner.invoke(app, ["import", str(xlsx), "-o", str(back)])
    deals = load_game(back).deals
    assert deals[0].forced and deals[0].note == "Боря спорит"
    assert deals[1].taken == ({"hearts": 2},) * 4 and deals[1].points is None


def test_settle_uses_the_workbooks_own_money(tmp_path, runner):
    """Exported at 0.50 a point, a workbook settles at 0.50; a stake typed into its stake cell wins."""
    from openpyxl import load_workbook

    xlsx = tmp_path / "x.xlsx"
    runner.invoke(app, ["export", str(EXAMPLES / "blank-4.toml"), "-o", str(xlsx)])
    from_file = json.loads(runner.invoke(app, ["settle", str(EXAMPLES / "blank-4.toml"), "--json"]).stdout)
    from_book = json.loads(runner.invoke(app, ["settle", str(xlsx), "--json"]).stdout)
    assert from_book == from_file and from_book["stake"] == "0.50"
    wb = load_workbook(xlsx)
    wb.worksheets[1]["B2"] = 2
    wb.save(xlsx)
    typed = json.loads(runner.invoke(app, ["settle", str(xlsx), "--json"]).stdout)
    assert typed["stake"] == "2" and typed["balances"] == {p: str(Decimal(v) * 4) for p, v in from_file["balances"].items()}
    res = runner.invoke(app, ["check", str(xlsx), "--json"])
    assert res.exit_code == 0


def test_the_workbook_checks_each_cells_step_and_sign_itself(tmp_path, runner):
    """A blank filled by hand: −3 −5 −4 −4 in Взятки sums to −16 but no one takes half a trick, and
    +4 in a minus game has the wrong sign: neither gets ✓. Recomputed as a spreadsheet would."""
    blank = tmp_path / "b.xlsx"
    assert runner.invoke(app, ["blank", "--rules", "blank-4", "-o", str(blank), "--lang", "ru"]).exit_code == 0
    wb = load_workbook(blank)
    ws = wb.worksheets[0]
    for col, value in zip("DEFG", (-3, -5, -4, -4)):   # Взятки, row 6
        ws[f"{col}6"] = value
    for col, value in zip("DEFG", (4, -8, -8, -4)):    # Черви, row 7
        ws[f"{col}7"] = value
    for col, value in zip("DEFG", (-4, -4, -4, -4)):   # Мальчики, row 8: right
        ws[f"{col}8"] = value
    wb.save(blank)
    values = recompute(blank)
    assert [values.get(f"K{r}") for r in (6, 7, 8)] == ["✗", "✗", "✓"]
    titles = {str(dv.sqref).split(":")[0]: dv.errorTitle for dv in ws.data_validations.dataValidation}
    assert titles["D6"] == "Взятки, кратно 2" and titles["D10"] == "Кинг, кратно 16"


def test_a_row_with_a_problem_is_marked_in_the_workbook(tmp_path, runner):
    game = tmp_path / "g.toml"
    game.write_text(game_text(deals='\n[[deals]]\ngame = "tricks"\npoints = [-4, -4, -4, -4]\n'
                                    '\n[[deals]]\ngame = "hearts"\npoints = [-8, -8, 0, 0]\n'
                                    '\n[[deals]]\ngame = "boys"\npoints = [-4, -4, -4, -2]\nforced = true\n'),
                    encoding="utf-8")
    out = tmp_path / "g.xlsx"
    runner.invoke(app, ["export", str(game), "-o", str(out)])
    ws = load_workbook(out).worksheets[0]
    assert str(ws["K6"].value).startswith("=IF(")  # a good row keeps its live check
    mark = ws["K8"]
    assert mark.value == "✗ Галя: −2 is not a multiple of 4" and mark.data_type == "s"
    assert "row sums to −14, expected −16" in mark.comment.text and "forced = true" in mark.comment.text and ws["D8"].fill.fgColor.rgb.endswith("F4C7C3")


def test_the_csv_keeps_forced_and_the_problem(tmp_path, runner):
    game = tmp_path / "g.toml"
    game.write_text(game_text(deals='\n[[deals]]\ngame = "tricks"\npoints = [-4, -4, -4, -2]\nforced = true\n'),
                    encoding="utf-8")
    out = tmp_path / "g.csv"
    runner.invoke(app, ["export", str(game), "-o", str(out)])
    text = out.read_text(encoding="utf-8")
    assert '"forced","confirm","problems"' in text.splitlines()[1] and '"true","","row sums to −14, expected −16"' in text
    assert read_csv(out).deals[0].forced


def test_a_row_to_confirm_stays_to_confirm_through_csv_and_workbook(tmp_path, runner):
    """A row `kingsheet scan` left to confirm (confirm = true) is a problem of its deal until a person
    corrects it, and an export to CSV or XLSX and back keeps the mark."""
    game = tmp_path / "g.toml"
    game.write_text(game_text(deals='\n[[deals]]\ngame = "tricks"\npoints = [-4, -4, -4, -4]\nconfirm = true\n'),
                    encoding="utf-8")
    res = runner.invoke(app, ["check", str(game), "--json"])
    assert res.exit_code == 1
    assert [e["code"] for e in json.loads(res.stdout)["errors"]] == ["to-confirm"]
    for suffix, read in ((".csv", read_csv), (".xlsx", read_xlsx)):
        out = tmp_path / f"g{suffix}"
        assert runner.invoke(app, ["export", str(game), "-o", str(out)]).exit_code == 1  # written, with its problem
        assert read(out).deals[0].confirm, suffix


def test_the_blank_workbook_prints_like_the_blank(tmp_path, runner):
    """Rows tall enough to write in, the heads wrapping rather than cut, the legend wrapped across
    the table inside the print area, and every cell a person fills open: names, «Сдаёт», points."""
    path = tmp_path / "b.xlsx"
    runner.invoke(app, ["blank", "--rules", "blank-4", "-o", str(path)])
    ws = load_workbook(path).worksheets[0]
    assert all(ws.row_dimensions[r].height >= 26 for r in range(6, 18))
    assert ws.row_dimensions[5].height >= 30 and ws["A5"].alignment.wrap_text is not False
    assert not ws["D5"].protection.locked and not ws["H6"].protection.locked and not ws["D6"].protection.locked
    legend = [str(m) for m in ws.merged_cells.ranges]
    assert legend and all(m.startswith("A") and m.split(":")[1].startswith("K") for m in legend)
    last_legend = max(int(m.split(":")[1][1:]) for m in legend)
    assert ws.print_area.endswith(f"$K${last_legend}")


def _printed_height_pt(ws) -> tuple[float, float]:
    """The table's height as printed on A4 fitted to its width, and the page's usable height (both in
    points; a column of width w is about 7·w + 5 px, a pixel ¾ pt, as LibreOffice and Excel draw it)."""
    from openpyxl.utils import get_column_letter

    last = ws.max_column
    width = sum(0.75 * (7 * (ws.column_dimensions[get_column_letter(c)].width or 11) + 5) for c in range(1, last + 1))
    margins = ws.page_margins
    scale = min(1.0, (595 - 72 * (margins.left + margins.right)) / width)
    height = sum(ws.row_dimensions[r].height or 15 for r in range(1, ws.max_row + 1))
    return height * scale, 842 - 72 * (margins.top + margins.bottom)


@pytest.mark.parametrize("source", ["blank", "filled"])
def test_a_short_game_fills_its_a4_page_and_a_long_one_keeps_its_rows(tmp_path, source):
    """A 12-deal sheet printed small in the top third of A4 (found in LibreOffice): its deal rows grow
    until the table takes most of the page, never past it; a 56-deal game keeps the usual height."""
    if source == "blank":
        data = blank_xlsx(load_rules("blank-4"), ["Аня", "Боря", "Вася", "Галя"])
    else:
        data = sheet_xlsx(verify(load_game(EXAMPLES / "blank-4.toml")))
    ws = load_workbook(io.BytesIO(data)).worksheets[0]
    printed, usable = _printed_height_pt(ws)
    assert 0.6 * usable <= printed <= usable
    heights = {ws.row_dimensions[r].height for r in range(6, 18)}
    assert len(heights) == 1 and 26 < heights.pop() <= 44
    assert all(ws.cell(r, c).alignment.vertical == "center" for r in range(6, 18) for c in (1, 2, 4))
    assert ws.print_options.horizontalCentered
    long = load_workbook(io.BytesIO(blank_xlsx(load_rules("ordered-56")))).worksheets[0]
    assert {long.row_dimensions[r].height for r in range(6, 62)} == {26}


def test_the_money_sheet_shows_amounts_in_the_currency_and_heads_that_fit(tmp_path):
    """«8.00» with no currency in LibreOffice: every amount cell carries the game's currency sign and
    a real minus; the heads wrap instead of being clipped («Каждый с каждым»)."""
    from kingsheet.core.money import settlement_of
    from kingsheet.render.xlsx import amount_format

    report = verify(load_game(EXAMPLES / "blank-4.toml"))
    ws = load_workbook(io.BytesIO(sheet_xlsx(report, settlement_of(report)))).worksheets[1]
    assert ws["C5"].value == "Каждый с каждым" and ws["C5"].alignment.wrap_text
    assert ws.column_dimensions["C"].width >= 16 and ws.row_dimensions[5].height >= 30
    amounts = [ws.cell(r, c) for r in range(6, 10) for c in (3, 4)] + [ws["B2"]]
    assert {c.number_format for c in amounts} == {amount_format("RUB")}
    assert amount_format("RUB") == '#,##0.00" ₽";"−"#,##0.00" ₽";0" ₽"'
    assert amount_format("JPY") == '#,##0" ¥";"−"#,##0" ¥";0" ¥"'
    assert amount_format("EUR").endswith('0" €"')


def test_a_row_of_the_blank_left_empty_keeps_the_later_rows_numbers(tmp_path):
    """Rows №1–3 and №5 of a short blank filled, №4 left empty: the check says Девочки was skipped
    before deal 5 (the workbook's own №), as it says of a game file that skips a game; the sheet
    shows the Кинг in its own row and row 4 empty. An ordered blank has no such places."""
    from typer.testing import CliRunner

    path = tmp_path / "short.xlsx"
    assert CliRunner().invoke(app, ["blank", "--rules", "short", "-o", str(path)]).exit_code == 0
    wb = load_workbook(path)
    ws = wb.worksheets[0]
    for r, cells in {6: [-4, -4, -4, -4], 7: [-4, -4, -8, 0], 8: [0, -8, -4, -4], 10: [-16, 0, 0, 0]}.items():
        for k, v in enumerate(cells):
            ws.cell(r, 4 + k, v)
    wb.save(path)
    for lang, words in (("en", "deal 5 (King): Girls is missing before this deal"),
                        ("ru", "сдача 5 (Кинг): перед этой сдачей пропущена игра Девочки")):
        r = CliRunner().invoke(app, ["check", str(path), "--lang", lang])
        assert r.exit_code == 1
        found = [line for line in r.stderr.splitlines() if line.startswith(str(path))]
        assert found == [f"{path}: {words}"], r.stderr
    report = verify(read_xlsx(path))
    assert [d.number for d in report.game.deals] == [1, 2, 3, 5]
    shown = CliRunner().invoke(app, ["show", str(path), "--lang", "ru"]).stdout.splitlines()
    row4 = next(line for line in shown if line.startswith("4 "))
    row5 = next(line for line in shown if line.startswith("5 "))
    assert "Девочки" in row4 and row4.count("−") == 1 and "✓" not in row4 and "✗" not in row4  # only its Очки
    assert "Кинг" in row5 and row5.split()[2:4] == ["−16", "−16"] and "✗" in row5
    assert sum(line.startswith("5 ") for line in shown) == 1
