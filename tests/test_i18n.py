"""The players' language: the catalog is whole and safe, the language is chosen as documented,
plurals and money are written the Russian way, and every surface speaks both languages."""

from __future__ import annotations

import importlib.util
import string
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest

from conftest import EXAMPLES, ROOT, deal, game_text
from kingsheet.core import i18n
from kingsheet.core.money import fmt_money, settle

pytest.importorskip("babel")


def _tool():
    spec = importlib.util.spec_from_file_location("i18n_tool", ROOT / "tools" / "i18n.py")
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


def _fields(text: str) -> list[tuple[str, str, str]]:
    return sorted({(name, spec or "", conv or "") for _lit, name, spec, conv in string.Formatter().parse(text)
                   if name is not None})


@pytest.mark.skipif(not (ROOT / "tools" / "i18n.py").exists(), reason="the catalog tools are in the source tree")
def test_every_message_of_the_code_has_its_russian_and_the_same_placeholders():
    tool = _tool()
    catalog = tool.current()
    in_code = {m.id for m in tool.extracted() if m.id}
    in_po = {m.id for m in catalog if m.id}
    assert in_code == in_po, "run: python tools/i18n.py compile"
    assert tool.missing(catalog) == []
    for m in catalog:
        if not m.id:
            continue
        ids = m.id if isinstance(m.id, tuple) else (m.id,)
        strings = m.string if isinstance(m.string, tuple) else (m.string,)
        for text in strings:
            assert _fields(text) == _fields(ids[-1]), (m.id, text)
            # and it formats: a placeholder the translation invented would raise at the table
            text.format(**{name: 1 for name, _spec, _conv in _fields(text)})


@pytest.mark.skipif(not (ROOT / "tools" / "i18n.py").exists(), reason="the catalog tools are in the source tree")
def test_the_compiled_catalog_is_the_po_file():
    tool = _tool()
    assert tool.MO.read_bytes() == tool.compiled(), "run: python tools/i18n.py compile"


@pytest.mark.parametrize("explicit, env, want", [
    ("en", {"KINGSHEET_LANG": "ru", "LANG": "ru_RU.UTF-8"}, "en"),
    (None, {"KINGSHEET_LANG": "en", "LANG": "ru_RU.UTF-8"}, "en"),
    (None, {"LANG": "ru_RU.UTF-8"}, "ru"),
    (None, {"LC_ALL": "en_GB.UTF-8", "LANG": "ru_RU.UTF-8"}, "en"),
    (None, {"LANGUAGE": "ru:en", "LANG": "en_US.UTF-8"}, "ru"),
    (None, {"LANG": "de_DE.UTF-8"}, "en"),  # a language kingsheet does not speak: English
    (None, {"LANG": "C.UTF-8"}, "ru"),  # no language at all: the game's own
    (None, {}, "ru"),
    ("RU", {}, "ru"),
])
def test_the_language_comes_from_lang_then_the_variable_then_the_locale(explicit, env, want):
    assert i18n.choose(explicit, env) == want


@pytest.mark.parametrize("explicit, env", [("de", {}), (None, {"KINGSHEET_LANG": "klingon"})])
def test_a_language_kingsheet_does_not_speak_is_an_error(explicit, env):
    with pytest.raises(i18n.UnknownLanguage):
        i18n.choose(explicit, env)


@pytest.mark.parametrize("n, word", [(1, "сдача"), (2, "сдачи"), (4, "сдачи"), (5, "сдач"), (11, "сдач"),
                                     (12, "сдач"), (21, "сдача"), (22, "сдачи"), (25, "сдач"), (111, "сдач")])
def test_russian_plurals(n, word):
    with i18n.speaking("ru"):
        assert i18n.ngettext("{n} deal", "{n} deals", n).format(n=n) == f"{n} {word}"
    with i18n.speaking("en"):
        assert i18n.ngettext("{n} deal", "{n} deals", n).format(n=n) == f"{n} deal" + ("" if n == 1 else "s")


def test_money_is_written_as_each_language_writes_it():
    s = settle({"Аня": 185, "Боря": -185}, Decimal("0.50"))
    with i18n.speaking("ru"):
        assert fmt_money(Decimal("92.50"), s) == "92,50 ₽"
        assert fmt_money(Decimal("1234.5"), s) == "1\u202f234,50 ₽"
        assert fmt_money(Decimal("185"), s) == "185 ₽"
    with i18n.speaking("en"):
        assert fmt_money(Decimal("92.50"), s) == "92.50 ₽"
        assert fmt_money(Decimal("1234.5"), s) == "1,234.50 ₽"


def _kingsheet(*args: str, lang: str | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    import os

    env = {k: v for k, v in os.environ.items() if not k.startswith(("KINGSHEET_LANG", "LC_", "LANG"))}
    if lang:
        env["KINGSHEET_LANG"] = lang
    return subprocess.run([sys.executable, "-m", "kingsheet.cli", *args], capture_output=True, text=True, env=env,
                          cwd=cwd, timeout=60)


def test_help_is_in_the_chosen_language():
    ru = _kingsheet("new", "--help", lang="ru")
    en = _kingsheet("new", "--help", "--lang", "en", lang="ru")
    assert "Рассадка по часовой стрелке" in ru.stdout and "Seating, clockwise" in en.stdout


def test_lang_works_before_the_command_too():
    """The README says --lang works on any command: before the command as well as after it."""
    top = _kingsheet("--lang", "en", "--help", lang="ru")
    assert top.returncode == 0 and "scorekeeping for Кинг" in top.stdout and "Language: ru, en" in top.stdout
    check = _kingsheet("--lang", "en", "check", str(EXAMPLES / "blank-4.toml"), lang="ru")
    assert check.returncode == 0 and "all consistent" in check.stdout
    after = _kingsheet("--lang", "en", "check", str(EXAMPLES / "blank-4.toml"), "--lang", "ru", lang="en")
    assert "всё сходится" in after.stdout  # the option nearest the command's own words wins
    for command in ("settle", "scan"):
        res = _kingsheet(command, "--help", "--lang", "en", lang="ru")
        assert "Language: ru, en" in res.stdout and "Язык" not in res.stdout, command


def test_help_names_values_in_words_not_python_types():
    """`<list[str]>`, `<int range>` and `{file}` are a programmer's notes; a player reads FILE, N, TEXT."""
    import re

    from typer.testing import CliRunner

    from kingsheet.cli.app import app, club_app

    runner = CliRunner()
    commands = [[c.name] for c in app.registered_commands] + [["club", c.name] for c in club_app.registered_commands]
    assert len(commands) > 15
    for command in commands:
        res = runner.invoke(app, [*command, "--help"])
        assert res.exit_code == 0, (command, res.output)
        assert not re.search(r"<[a-z]|\{[a-z_]+\}|list\[|range>", res.stdout), (command, res.stdout)
    for lang, text_word in (("en", "TEXT"), ("ru", "ТЕКСТ")):
        new = _kingsheet("new", "--help", lang=lang).stdout
        assert f"--players {text_word}" in new and "Usage: kingsheet new [OPTIONS] FILE" in new, new
        assert "--per-page N" in _kingsheet("blank", "--help", lang=lang).stdout


def test_an_unknown_language_is_refused_with_exit_2(tmp_path):
    res = _kingsheet("rules", "--lang", "de")
    assert res.returncode == 2 and "'de' is not a language kingsheet speaks" in res.stderr.replace("«", "'") \
        or "«de»" in res.stderr
    res = _kingsheet("rules", lang="xx")
    assert res.returncode == 2 and "KINGSHEET_LANG" in res.stderr and "Traceback" not in res.stderr


def test_a_russian_check_reads_russian_and_the_json_stays_neutral(tmp_path):
    import json

    path = tmp_path / "g.toml"
    path.write_text(game_text(deals=deal("tricks", [-4, -4, -4, -2]) + deal("hearts", [-8, -8, 0, 0])),
                    encoding="utf-8")
    res = _kingsheet("check", str(path), lang="ru")
    assert res.returncode == 1
    assert "сдача 1 (Взятки): сумма строки −14, должно быть −16" in res.stdout + res.stderr
    data = json.loads(_kingsheet("check", str(path), "--json", lang="ru").stdout)
    problem = data["errors"][0]
    assert problem["code"] == "row-sum" and problem["expected"] == -16 and problem["deal"] == 1


def test_renderers_speak_the_language_they_are_given(tmp_path):
    """A sheet printed in English from a Russian prompt (and back): messages and money follow the sheet."""
    from kingsheet.core.game import build_game
    from kingsheet.core.tomltext import parse
    from kingsheet.core.verify import verify
    from kingsheet.files.templates import rules_beside
    from kingsheet.render.money import settlement_text
    from kingsheet.render.text import sheet_text

    text = game_text(deals=deal("tricks", [-4, -6, -2, -4]))
    report = verify(build_game(parse(text), "g.toml", None, rules_beside(tmp_path)))
    with i18n.speaking("ru"):
        assert "played" in sheet_text(report, "en") and "сыграно" not in sheet_text(report, "en")
        s = settle({"Аня": 15, "Боря": -15}, Decimal("0.05"))
        assert "1.50 ₽" in settlement_text(s, None, "en")
    with i18n.speaking("en"):
        assert "сыграно 1 из 12" in sheet_text(report, "ru")
        assert "1,50 ₽" in settlement_text(s, None, "ru")


def test_no_renderer_branches_on_the_language():
    """Every word a sheet prints comes from the catalog (or the labels table): a renderer never
    picks Russian or English by comparing the language itself, so the two can never drift apart."""
    import ast

    from conftest import ROOT

    found = []
    for path in sorted((ROOT / "kingsheet" / "render").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Compare) and any(
                    isinstance(c, ast.Constant) and c.value in ("ru", "en") for c in node.comparators):
                found.append(f"{path.name}:{node.lineno}")
            if isinstance(node, ast.Name) and node.id == "ru":
                found.append(f"{path.name}:{node.lineno}")
    assert not found, found


def test_no_table_of_words_in_the_code_holds_both_languages():
    """A word in two languages is a msgid and its Russian in the catalog, never a {"ru": …, "en": …}
    written in the code (the game names, the counted things and the cards were such tables)."""
    import ast

    from conftest import ROOT

    found = []
    for path in sorted((ROOT / "kingsheet").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Dict) and {getattr(k, "value", None) for k in node.keys} == {"ru", "en"} \
                    and all(isinstance(v, ast.Constant) and isinstance(v.value, str) for v in node.values):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not found, found


def test_the_rules_page_and_the_workbook_say_options_and_sources_in_the_readers_words():
    """«blank-4 · seed 000 «бланк»; = seed 002, variant 3 · boys = jacks» was the Russian workbook's
    subtitle: the options are said as the table says them, and the provenance stays on the rules page."""
    import io

    from openpyxl import load_workbook

    from kingsheet.files.templates import load_rules
    from kingsheet.render.text import describe_rules
    from kingsheet.render.xlsx import blank_xlsx

    for lang, said, foreign in (("ru", "мальчики — валеты", ("seed", "variant")),
                                ("en", "boys are jacks", ("мальчики", "текст"))):
        sub = load_workbook(io.BytesIO(blank_xlsx(load_rules("blank-4"), lang=lang))).worksheets[0]["A2"].value
        assert sub.startswith("blank-4 · ") and sub.endswith(f" · {said}"), sub
        page = describe_rules(load_rules("blank-4"), lang)
        assert not any(f in page for f in foreign), page
    ru = describe_rules(load_rules("classic-52", {"last": "two"}), "ru")
    assert "источник: текст 000" in ru and "two (две последние взятки)" in ru and "сейчас two" in ru
    assert "настройка eralash: no (без Ералаша) | yes (с Ералашем)" in ru
    house = load_workbook(io.BytesIO(blank_xlsx(load_rules("classic-52"), lang="ru"))).worksheets[0]["A2"].value
    assert house == "classic-52 · 4 игрока · 10 сдач · мальчики — валеты и короли · последняя взятка одна"


def test_the_languages_are_listed_once():
    """kingsheet.core.i18n.LANGUAGES is the one list of the languages spoken: no other module lists
    them again (a third language then needs its catalog, its number marks and nothing else)."""
    import re
    from pathlib import Path

    import kingsheet

    package = Path(kingsheet.__file__).parent
    pair = re.compile(r"""["'](ru|en)["']\s*,\s*["'](ru|en)["']""")
    listed = [f"{p.relative_to(package)}:{k}" for p in sorted(package.rglob("*.py")) if p.name != "i18n.py"
              for k, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if pair.search(line)]
    assert listed == []
    from kingsheet.core.i18n import LANGUAGES, speaking
    from kingsheet.core.money import local_number, number_marks

    for lang in LANGUAGES:  # each language's number marks are its catalog's
        with speaking(lang):
            thousands, decimal = number_marks()
            assert thousands != decimal and local_number("1,234.5") == f"1{thousands}234{decimal}5"
    with speaking("ru"):
        assert number_marks() == ("\u202f", ",")


# A third language, from a fixture catalog (Esperanto; a handful of its words): what adding a
# language takes is the catalog (its number marks included) and a label in each template.
NUMBER_FORMAT = "number format: thousands separator after 1, decimal mark after 234"
FIXTURE_EO = [(None, "all consistent", "ĉio kongruas"), ("game", "Tricks", "Prenoj"), ("game", "Hearts", "Koroj"),
              ("sheet", "TOTAL", "SUMO"), (None, "Sheet", "Folio"), (None, "Money", "Mono"),
              (NUMBER_FORMAT, "1,234.5", "1.234,5")]


def _catalog_folder(folder: Path) -> Path:
    from babel.messages.catalog import Catalog
    from babel.messages.mofile import write_mo

    cat = Catalog(locale="eo", domain="kingsheet")
    for context, message, words in FIXTURE_EO:
        cat.add(message, words, context=context)
    mo = folder / "eo" / "LC_MESSAGES" / "kingsheet.mo"
    mo.parent.mkdir(parents=True)
    with mo.open("wb") as f:
        write_mo(f, cat)
    return folder


def _in_eo(folder: Path, *args: str, cwd: Path | None = None, code: str | None = None) -> subprocess.CompletedProcess[str]:
    import os

    env = {k: v for k, v in os.environ.items() if not k.startswith(("KINGSHEET_LANG", "LC_", "LANG"))}
    env["KINGSHEET_LOCALE_DIR"] = str(folder)
    command = [sys.executable, "-c", code] if code else [sys.executable, "-m", "kingsheet.cli", *args]
    return subprocess.run(command, capture_output=True, text=True, env=env, cwd=cwd, timeout=120)


def test_a_third_language_is_its_catalog_and_a_label_in_each_template(tmp_path):
    import io
    import json

    from pypdf import PdfReader

    folder = _catalog_folder(tmp_path / "locale")
    # the CLI: its messages, its list of languages, its numbers
    checked = _in_eo(folder, "check", str(EXAMPLES / "blank-4.toml"), "--lang", "eo")
    assert checked.returncode == 0 and "ĉio kongruas" in checked.stdout, checked.stdout + checked.stderr
    refused = _in_eo(folder, "rules", "--lang", "xx")
    assert refused.returncode == 2 and "ru, en, eo" in refused.stderr, refused.stderr
    money = _in_eo(folder, "settle", "--totals", "А=1001,Б=-1001", "--stake", "0.75", "--currency", "EUR",
                   "--lang", "eo")
    assert money.returncode == 0 and "1.501,5" in money.stdout, money.stdout + money.stderr
    # a PDF of the evening: the game names and ИТОГО from the catalog
    out = tmp_path / "evening.pdf"
    made = _in_eo(folder, "export", str(EXAMPLES / "blank-4.toml"), "-o", str(out), "--lang", "eo")
    assert made.returncode == 0, made.stderr
    text = "\n".join(p.extract_text() for p in PdfReader(io.BytesIO(out.read_bytes())).pages)
    assert "Prenoj" in text and "Koroj" in text and "SUMO" in text and "Взятки" not in text, text[:400]
    # a house template with its name in the third language: the blank prints it
    house = tmp_path / "house.toml"
    house.write_text((ROOT / "templates" / "blank-4.toml").read_text(encoding="utf-8").replace(
        'en = "King for four (the blank)" }', 'en = "King for four (the blank)", eo = "Reĝo por kvar" }'),
        encoding="utf-8")
    blank = tmp_path / "blank.pdf"
    made = _in_eo(folder, "blank", "--rules", str(house), "-o", str(blank), "--lang", "eo")
    assert made.returncode == 0, made.stderr
    assert "Reĝo por kvar" in "\n".join(p.extract_text() for p in PdfReader(io.BytesIO(blank.read_bytes())).pages)
    # the phone page: its words and its list of languages
    page = _in_eo(folder, code=f"""
import json, shutil, sys
sys.path.insert(0, {str(ROOT / "tests")!r})
from pathlib import Path
from serving import phone_client
from kingsheet.serve.app import make_app
game = Path({str(tmp_path / "g.toml")!r})
shutil.copy({str(EXAMPLES / "blank-4.toml")!r}, game)
c = phone_client(make_app(game, "a-token-of-the-test", "eo"), "a-token-of-the-test")
state = c.get("/api/state?lang=eo").json()
print(json.dumps({{"html": c.get("/").text[:400], "words": state["words"], "rows": state["rows"][0]}}))
""")
    assert page.returncode == 0, page.stderr
    shown = json.loads(page.stdout)
    assert 'lang="eo"' in shown["html"]
    assert shown["words"]["sheet"] == "Folio" and shown["words"]["money"] == "Mono"
    assert shown["words"]["languages"] == "ru,en,eo"
    assert "Prenoj" in json.dumps(shown["rows"], ensure_ascii=False)
