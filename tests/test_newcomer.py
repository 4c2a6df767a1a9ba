"""What a newcomer tripped on (issue 67), each read as a person reads it: the command's words in
both languages, the help, the prompt."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from conftest import EXAMPLES
from kingsheet.cli.app import app


def run(*args: str, env: dict[str, str] | None = None, input: str | None = None):
    return CliRunner().invoke(app, list(args), env=env, input=input)


@pytest.mark.parametrize(("env", "words"), [
    ({"KINGSHEET_LANG": "en"}, "'de' is not a language kingsheet speaks: ru, en"),
    ({"KINGSHEET_LANG": "ru"}, "«de» — такого языка kingsheet не знает: ru, en"),
    ({"KINGSHEET_LANG": "", "LANG": "en_GB.UTF-8", "LC_ALL": "", "LANGUAGE": ""}, "'de' is not a language"),
])
def test_an_unknown_lang_is_refused_in_the_language_the_rest_would_choose(env, words):
    r = run("check", str(EXAMPLES / "blank-4.toml"), "--lang", "de", env=env)
    assert r.exit_code == 2 and words in r.output, r.output


def test_a_plus_game_is_shown_with_the_sign_of_its_total():
    from kingsheet.files.templates import load_rules

    rules = load_rules("blank-4")
    assert rules.games["eralash+"].heading("ru") == "АнтиЕралаш (+96)"
    assert rules.games["tricks"].heading("ru") == "Взятки (−16)"
    assert rules.games["trumps"].heading("en") == "Trumps (+24)"


def test_the_king_split_and_a_declarer_out_of_turn_read_as_they_are():
    r = run("check", str(EXAMPLES / "mistakes" / "king-split.toml"), "--lang", "ru")
    assert "Аня: −8, но все −16 достаются одному игроку, у остальных 0" in r.stderr
    assert "или никто" not in r.stderr
    text = (EXAMPLES / "blank-4.toml").read_text(encoding="utf-8").replace('declarer = "Вася"', 'declarer = "Боря"', 1)
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "g.toml"
        path.write_text(text, encoding="utf-8")
        ru = run("check", str(path), "--lang", "ru").stderr
        en = run("check", str(path), "--lang", "en").stderr
    assert "записано: Боря, но здесь объявляет Вася: сдаёт Боря, а объявляет тот, кто слева от сдающего" in ru, ru
    assert "Боря is written, but Вася declares here (left of Боря, who deals)" in en, en


def test_every_bundled_template_names_its_games_apart_and_a_house_one_must():
    from kingsheet.core.rules import RulesError
    from kingsheet.files.templates import load_rules, template_ids

    for tid in template_ids():
        rules = load_rules(tid)
        for lang in ("ru", "en"):
            labels = [g.label(lang).casefold() for g in rules.games.values()]
            assert len(labels) == len(set(labels)), (tid, lang, labels)
    assert load_rules("king-14").games["eralash+"].label("ru") == "Всё подряд (+)"
    import tempfile
    from pathlib import Path

    text = (Path(__file__).resolve().parent.parent / "templates" / "king-14.toml").read_text(encoding="utf-8")
    text = text.replace('"eralash+" = { ru = "Всё подряд (+)", en = "Everything (+)" }',
                        '"eralash+" = { ru = "Всё подряд", en = "Everything" }').replace('id = "king-14"', 'id = "ours"')
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "ours.toml"
        path.write_text(text, encoding="utf-8")
        r = run("rules", "--check", str(path), "--lang", "ru")
        assert r.exit_code == 2
        assert "игры eralash и eralash+ обе называются «Всё подряд»; дайте одной из них другое название" in r.output
        with pytest.raises(RulesError):
            load_rules(str(path))


def test_a_folder_is_called_a_folder_in_the_help():
    import os
    import subprocess
    import sys

    def helped(*args: str) -> str:  # a process of its own: the help's words are chosen as it starts
        return subprocess.run([sys.executable, "-c", "from kingsheet.cli import main; main()", *args, "--help"],
                              capture_output=True, text=True, env={**os.environ, "COLUMNS": "120"}).stdout

    for lang, folder, file in (("ru", "ПАПКА", "ФАЙЛ"), ("en", "FOLDER", "FILE")):
        site = helped("site", "--lang", lang)
        assert f"--output {folder}" in site and f"--pyodide {file}|{folder}" in site, site
        assert f"--dir {folder}" in helped("club", "ledger", "--lang", lang)


@pytest.fixture
def club_folder(tmp_path):
    import shutil

    folder = tmp_path / "club"
    folder.mkdir()
    for name in ("blank-4.toml", "short.toml", "atomic.toml"):
        shutil.copy(EXAMPLES / name, folder / name)
    (folder / "club.toml").write_text('name = "Пятница"\n\n[[paid]]\nfrom = "Аня"\nto = "Боря"\namount = "3.50"\n',
                                      encoding="utf-8")
    return folder


def test_club_figures_are_written_as_the_language_writes_numbers(club_folder):
    import re

    ru = run("club", "player", "Аня", "--dir", str(club_folder), "--lang", "ru").stdout
    en = run("club", "player", "Аня", "--dir", str(club_folder), "--lang", "en").stdout
    assert re.search(r"−\d+,\d\d\b", ru) and re.search(r"\d+,\d\d %", ru), ru
    assert not re.search(r"\d\.\d", ru), ru
    assert re.search(r"−\d+\.\d\d\b", en) and re.search(r"\d+\.\d\d %", en), en


def test_club_paid_refuses_a_negative_amount_and_a_stranger_in_a_clubs_words(club_folder):
    before = (club_folder / "club.toml").read_text(encoding="utf-8")
    for lang, words in (("ru", "сумма должна быть больше нуля, а не -3"), ("en", "the amount must be above zero, not -3")):
        r = run("club", "paid", "Вася", "Галя", "-3", "--dir", str(club_folder), "--lang", lang)
        assert r.exit_code == 2 and words in r.output and "No such option" not in r.output, r.output
    r = run("club", "paid", "Ваня", "Галя", "3", "--dir", str(club_folder), "--lang", "ru")
    assert r.exit_code == 2 and "в играх клуба нет игрока «Ваня»" in r.output and "за столом" not in r.output
    r = run("club", "paid", "Ваня", "Галя", "3", "--dir", str(club_folder), "--lang", "en")
    assert "no player 'Ваня' in the club's games" in r.output
    assert (club_folder / "club.toml").read_text(encoding="utf-8") == before


def test_the_club_report_lists_the_payments_and_labels_its_chart_whole(club_folder, tmp_path):
    import re
    import shutil
    import subprocess

    from pypdf import PdfReader

    out = tmp_path / "club.pdf"
    r = run("club", "report", "-o", str(out), "--dir", str(club_folder), "--rules", "blank-4", "--lang", "ru")
    assert r.exit_code == 0, r.output
    text = "\n".join(page.extract_text() for page in PdfReader(out).pages)
    assert "записанные платежи" in text and "Аня → Боря" in text and "3,50 ₽" in text
    assert "Две последние" in text  # the game's name whole under its bars
    assert not re.search(r"(?<![\w.])-\d", text), text  # every minus a real one
    assert re.search(r"−\d+\b", text)  # the axis's negative end is labelled
    if shutil.which("pdftoppm"):  # every page renders (looked at when this was written)
        subprocess.run(["pdftoppm", "-r", "40", "-png", str(out), str(tmp_path / "page")], check=True)
        assert len(list(tmp_path.glob("page-*.png"))) == len(PdfReader(out).pages)


def _pdf_text(path) -> list[str]:
    from pypdf import PdfReader

    return [page.extract_text() for page in PdfReader(path).pages]


def test_the_ordered_blank_keeps_who_ordered_what_whole_with_a_box_for_everyone(tmp_path):
    out = tmp_path / "ordered.pdf"
    assert run("blank", "--rules", "ordered", "-o", str(out), "--lang", "ru").exit_code == 0
    pages = _pdf_text(out)
    grid = [k for k, text in enumerate(pages) if "Кто что заказал" in text]
    assert len(grid) == 1  # the whole grid on one page
    text = pages[grid[0]]
    assert "14. Ералаш (+)" in text and "Ставка за очко" in text  # its last rows with the stake box
    assert text.count("□") == 14 * 4  # a box under each of the four players, for each of the 14 games


def test_the_domino_blank_has_the_rows_its_game_can_last_on_one_page(tmp_path):
    out = tmp_path / "domino.pdf"
    assert run("blank", "--rules", "domino", "-o", str(out), "--lang", "ru").exit_code == 0
    pages = _pdf_text(out)
    assert len(pages) == 1 and "ИТОГО" in pages[0]
    lines = [line.strip() for line in pages[0].splitlines()]
    assert pages[0].count("Черви") >= 16 and "16" in lines and "17" not in lines  # −8 a deal over four: −31 by the 16th
    book = tmp_path / "domino.xlsx"
    assert run("blank", "--rules", "domino", "-o", str(book)).exit_code == 0


def test_an_old_domino_blanks_code_is_refused_not_misread():
    from kingsheet.scan.page import Unreadable, parse_code

    assert parse_code("KS1/BLANK-4//4/BRU123456/1", "p.jpg").rules == "blank-4"  # other blanks: as they were
    assert parse_code("KS2/DOMINO//4/BRU123456/1", "p.jpg").rules == "domino"
    with pytest.raises(Unreadable, match="printed by an older kingsheet"):
        parse_code("KS1/DOMINO//4/BRU123456/1", "p.jpg")


def test_the_workbooks_money_sheet_heads_its_amounts_and_prints_one_page_wide(tmp_path):
    from openpyxl import load_workbook

    book = tmp_path / "six.xlsx"
    assert run("export", str(EXAMPLES / "six-48.toml"), "-o", str(book), "--lang", "ru").exit_code == 0
    ws = load_workbook(book).worksheets[1]
    heads = {c: ws.cell(5, c) for c in range(1, 5)}
    assert [heads[c].value for c in (2, 3, 4)] == ["ИТОГО", "Каждый с каждым", "Через стол"]
    assert all(heads[c].alignment.horizontal == "right" for c in (2, 3, 4))  # over right-aligned amounts
    assert ws.page_setup.fitToWidth == 1 and ws.sheet_properties.pageSetUpPr.fitToPage  # the pair matrix whole
