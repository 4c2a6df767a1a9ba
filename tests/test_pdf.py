"""PDF blanks and filled sheets, read back with pypdf; rendered to pixels where pdftoppm exists."""

from __future__ import annotations

import io
import shutil
import subprocess
from pathlib import Path

import pytest
from pypdf import PdfReader

from conftest import EXAMPLES
from kingsheet.cli.app import app
from kingsheet.core.money import settlement_of
from kingsheet.core.problems import num
from kingsheet.core.verify import verify
from kingsheet.files.gamefile import load_game
from kingsheet.files.templates import load_rules, template_ids
from kingsheet.render.pdf import FONT_DIR, blank_pdf, sheet_pdf
from kingsheet.render.sheet import reminders, unit_lines


def text_of(data: bytes) -> str:
    return "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(data)).pages)


def squash(s: str) -> str:
    return "".join(s.split())


@pytest.mark.parametrize("tid", template_ids())
def test_blank_holds_labels_and_totals(tid):
    rules = load_rules(tid)
    data = blank_pdf(rules)
    text = squash(text_of(data))
    for game in rules.games.values():
        assert squash(game.label("ru")) in text
        if rules.order == "fixed" or (rules.limit and not game.choose_suit):
            total = num(game.total) if game.total < 0 else f"+{game.total}"
            assert total in text
    if rules.limit is None:
        plus = rules.stage_total(1)
        assert num(rules.stage_total(0)) in text and (f"+{plus}" if plus else "0") in text
        assert "ИТОГО(−)" in text and "ИТОГО(+)" in text
    else:  # a long lined form with a running total beside each player, to the limit
        from kingsheet.render.sheet import limit_rows

        assert f"до{num(-rules.limit)}" in text and "ИТОГО" in text and str(limit_rows(rules)) in text
    assert "■" not in text


def test_every_printed_character_has_a_glyph():
    from reportlab.pdfbase.ttfonts import TTFontFile

    face = TTFontFile(str(FONT_DIR / "DejaVuSansCondensed.ttf"))
    printed = set()
    for tid in template_ids():
        rules = load_rules(tid)
        for lang in ("ru", "en"):
            printed |= set("".join(unit_lines(rules, lang)) + "".join(reminders(rules, lang)))
            printed |= set("".join(g.label(lang) for g in rules.games.values()))
    printed |= set("−✓✗→₽€$£ИТОГО№ΣЁё")
    missing = {c for c in printed if not c.isspace() and ord(c) not in face.charToGlyph}
    assert missing == set()


def test_blank_is_deterministic_and_two_per_page():
    rules = load_rules("blank-4")
    assert blank_pdf(rules) == blank_pdf(rules)
    two = PdfReader(io.BytesIO(blank_pdf(rules, per_page=2)))
    assert len(two.pages) == 1
    assert squash(two.pages[0].extract_text()).count("АнтиЕралаш") == 2
    width, height = two.pages[0].mediabox.width, two.pages[0].mediabox.height
    assert width > height  # landscape A4, two A5 blanks side by side


def test_long_blank_paginates_with_header_repeated():
    data = blank_pdf(load_rules("ordered-56"), lang="en")
    pages = PdfReader(io.BytesIO(data)).pages
    assert len(pages) >= 2
    assert all("Points" in p.extract_text() for p in pages[:2])
    assert "56" in pages[1].extract_text() or "56" in pages[0].extract_text()
    assert "Who ordered what" in text_of(data)


def test_hostile_names_print_literally():
    data = blank_pdf(load_rules("blank-4"), players=["<b>Аня & Co</b>", "Боря", "=1+1", "Галя"])
    text = squash(text_of(data))
    assert "<b>Аня&Co</b>" in text and "=1+1" in text


def test_filled_sheet_holds_names_cells_totals_and_transfers(runner, tmp_path):
    out = tmp_path / "sheet.pdf"
    res = runner.invoke(app, ["export", str(EXAMPLES / "blank-4.toml"), "-o", str(out), "--lang", "ru"])
    assert res.exit_code == 0, res.output
    text = squash(text_of(out.read_bytes()))
    report = verify(load_game(EXAMPLES / "blank-4.toml"))
    for p, tot in report.totals.items():
        assert p in text and num(tot.total) in text
    assert "Лидер:Боря(37)" in text
    assert "Переводы" in text and "→" in text
    assert "Счётпоходуигры" in text  # the chart's title
    assert out.read_bytes() == sheet_pdf(report, settlement_of(report))


def test_export_with_problems_marks_them_and_exits_1(runner, tmp_path):
    out = tmp_path / "bad.pdf"
    res = runner.invoke(app, ["export", str(EXAMPLES / "mistakes" / "sign-slipped.toml"), "-o", str(out)])
    assert res.exit_code == 1
    assert "1 problem" not in res.stdout and "problems marked" in res.stdout
    assert "✗Галя:8hasthewrongsign" in squash(text_of(out.read_bytes()))


@pytest.mark.parametrize("args, message", [
    (["blank", "--rules", "blank-4", "-o", "{tmp}/no/such/dir/b.pdf"], "does not exist"),
    (["blank", "--rules", "blank-9", "-o", "{tmp}/b.pdf"], "unknown rules 'blank-9'"),
    (["blank", "--rules", "blank-4", "-o", "{tmp}/b.doc"], "write to one of .pdf, .xlsx"),
    (["blank", "--rules", "blank-4", "-o", "{tmp}/b.pdf", "--per-page", "3"], "--per-page is 1 or 2"),
])
def test_blank_bad_input(runner, tmp_path, args, message):
    res = runner.invoke(app, [a.format(tmp=tmp_path) for a in args])
    assert res.exit_code == 2 and message in res.stderr
    assert not list(tmp_path.rglob("*.pdf"))


def test_no_overwrite_without_force(runner, tmp_path):
    out = tmp_path / "b.pdf"
    assert runner.invoke(app, ["blank", "--rules", "short", "-o", str(out)]).exit_code == 0
    res = runner.invoke(app, ["blank", "--rules", "short", "-o", str(out)])
    assert res.exit_code == 2 and "already exists; use --force" in res.stderr
    assert runner.invoke(app, ["blank", "--rules", "short", "-o", str(out), "--force"]).exit_code == 0
    assert [p.name for p in tmp_path.rglob("*") if p.name.startswith(".")] == []  # no temp file left


def _unwritable_folder(base: Path) -> tuple[Path, list[str], str]:
    """A folder this test's command cannot write in, and how to run the command: directly when
    not root; as the user 'nobody' (setpriv) when it can run Python and kingsheet from here; else a
    read-only tmpfs, which root cannot write either. Skipped only when none of them can be had."""
    import os
    import subprocess
    import sys

    from conftest import ROOT

    ro = base / "ro"
    ro.mkdir()
    if os.geteuid() != 0:
        ro.chmod(0o555)
        return ro, [], "cannot write"
    setpriv = shutil.which("setpriv")
    nobody = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"] if setpriv else []
    if nobody and subprocess.run([*nobody, sys.executable, "-c", "import kingsheet.cli.app"], cwd=ROOT,
                                 capture_output=True, timeout=60).returncode == 0:
        ro.chmod(0o555)
        return ro, nobody, "cannot write"
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=64k", "tmpfs", str(ro)], capture_output=True).returncode == 0:
        return ro, [], "cannot write"
    pytest.skip("root here, and neither setpriv nor a read-only mount is available to make a folder root cannot write")


def test_read_only_folder_is_refused_in_one_sentence():
    """A folder the user may not write in. Root writes anywhere, so under root (as in CI) the command
    runs as the unprivileged user 'nobody', or into a read-only mount."""
    import os
    import subprocess
    import sys
    import tempfile

    from conftest import ROOT

    base = Path(tempfile.mkdtemp(prefix="kingsheet-ro-"))
    base.chmod(0o755)
    ro = base / "ro"
    try:
        ro, prefix, expected = _unwritable_folder(base)
        cmd = [*prefix, sys.executable, "-m", "kingsheet.cli", "blank", "--rules", "short", "-o", str(ro / "b.pdf")]
        res = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=120,
                             env={**os.environ, "KINGSHEET_STATE_DIR": str(base / "state")})
        assert res.returncode == 2, res.stderr
        assert res.stderr.startswith("kingsheet: ") and expected in res.stderr and "Traceback" not in res.stderr
        assert list(ro.iterdir()) == []
    finally:
        subprocess.run(["umount", str(ro)], capture_output=True)
        if ro.exists():
            ro.chmod(0o755)
        shutil.rmtree(base)


@pytest.mark.skipif(shutil.which("pdftoppm") is None, reason="pdftoppm (poppler-utils) not installed")
def test_rendered_page_is_not_blank(tmp_path):
    pdf = tmp_path / "b.pdf"
    pdf.write_bytes(sheet_pdf(verify(load_game(EXAMPLES / "blank-4.toml"))))
    subprocess.run(["pdftoppm", "-r", "30", "-gray", "-singlefile", str(pdf), str(tmp_path / "page")], check=True)
    pgm = (tmp_path / "page.pgm").read_bytes()
    # P5 header: magic, width, height, maxval, then one byte a pixel
    header, _, rest = pgm.partition(b"\n255\n")
    width, height = map(int, header.split()[1:3])
    pixels = rest[: width * height]
    dark = sum(1 for b in pixels if b < 128)
    assert 0.01 < dark / len(pixels) < 0.5


def test_odd_unicode_names_print_without_empty_boxes():
    data = blank_pdf(load_rules("blank-4"), players=["Аня👩‍👩‍👧", "\u202eБоря", "Вася\u200d", "Галя"])
    text = text_of(data)
    assert "Аня???" in text and "Боря" in text and "\u202e" not in text and "\u200d" not in text


# ---- the printed blank, read back by where its text stands and by its pixels ----------------------

def _words(pdf: bytes, page: int = 0) -> list[tuple[str, float, float]]:
    """(text, x, y) of each piece of text on a page, y from the bottom, in points."""
    out: list[tuple[str, float, float]] = []

    def visit(text, cm, tm, font, size):  # noqa: ANN001 - pypdf's visitor
        if text.strip():  # the text matrix, placed by the current transformation (tables translate)
            x = tm[4] * cm[0] + tm[5] * cm[2] + cm[4]
            y = tm[4] * cm[1] + tm[5] * cm[3] + cm[5]
            out.append((text.strip(), x, y))

    PdfReader(io.BytesIO(pdf)).pages[page].extract_text(visitor_text=visit)
    return out


def test_a_row_for_the_names_under_the_players():
    pdf = blank_pdf(load_rules("blank-4"))
    words = _words(pdf)
    heads = [(x, y) for t, x, y in words if t.startswith("Игрок")]
    names = [(x, y) for t, x, y in words if t == "Имена"]
    first = [(x, y) for t, x, y in words if t == "Взятки"]
    assert len(heads) == 4 and names and first
    assert first[0][1] < names[0][1] < heads[0][1]  # the names row lies under «Игрок 1…4», above deal 1


@pytest.mark.parametrize("tid", ["blank-4", "symmetric", "short", "three-30", "trump-bidding", "classic-52"])
def test_rows_are_at_least_9_mm_and_the_blank_fills_its_page(tid):
    pdf = blank_pdf(load_rules(tid))
    words = _words(pdf)
    numbers = sorted((y for t, x, y in words if t.isdigit() and x < 60), reverse=True)  # the № column
    gaps = [a - b for a, b in zip(numbers, numbers[1:])]
    assert gaps and min(gaps) >= 9 * 72 / 25.4 - 0.5, (tid, min(gaps))
    lowest = min(y for t, _, y in words if not t.startswith("kingsheet"))
    assert lowest < 0.25 * 842, (tid, lowest)  # the stake box sits in the bottom quarter of A4


def test_a_long_game_takes_two_pages_a_stage_each_with_rows_of_at_least_8_mm():
    """ordered-56 at 9 mm would leave one deal alone on a third page: its rows go a little lower
    (≥ 8 mm) so that deals 1–28 (−) fill page 1 and 29–56 (+) with ИТОГО page 2; a third page
    holds the legend and «Кто что заказал»."""
    pdf = blank_pdf(load_rules("ordered-56"))
    for k, want in ((0, list(range(1, 29))), (1, list(range(29, 57)))):
        deals = sorted(((y, int(t)) for t, x, y in _words(pdf, k) if t.isdigit() and x < 60), reverse=True)
        assert [d for _y, d in deals] == want
        ys = [y for y, _d in deals]
        assert min(a - b for a, b in zip(ys, ys[1:])) >= 8 * 72 / 25.4 - 0.5
    assert "ИТОГО" in PdfReader(io.BytesIO(pdf)).pages[1].extract_text()
    atomic = blank_pdf(load_rules("atomic"))  # 36 deals need two pages either way: 9 mm rows
    ys = sorted((y for t, x, y in _words(atomic, 0) if t.isdigit() and x < 60), reverse=True)
    assert min(a - b for a, b in zip(ys, ys[1:])) >= 9 * 72 / 25.4 - 0.5


@pytest.mark.parametrize("tid, column", [("three-30", None), ("domino", None), ("king-14", None),
                                         ("blank-4", "Объявляет"), ("ordered", "Заказывает"),
                                         ("bidding-77", "Объявляет")])
def test_a_column_for_who_declares_or_orders_only_where_the_rules_have_one(tid, column):
    text = squash(text_of(blank_pdf(load_rules(tid))))
    assert ("Объявляет" in text) == (column == "Объявляет") and ("Заказывает" in text) == (column == "Заказывает")


def test_the_subtitle_is_for_players_not_for_programmers():
    text = text_of(blank_pdf(load_rules("blank-4")))
    assert "4 игрока · 12 сдач · мальчики — валеты" in text
    for word in ("blank-4", "seed", "boys =", "variant"):
        assert word not in text
    assert "3 игрока · 14 сдач · мальчики — валеты и короли" in text_of(blank_pdf(load_rules("three-30")))
    assert "одна" in text_of(blank_pdf(load_rules("classic-52", {"last": "one"})))


def test_the_sums_of_itogo_stand_right_of_the_players():
    words = _words(blank_pdf(load_rules("blank-4")))
    sigma = [x for t, x, y in words if t.startswith("Σ")]
    dealer = [x for t, x, y in words if t == "Сдаёт"]
    last_player = max(x for t, x, y in words if t.startswith("Игрок"))
    assert len(sigma) == 3 and all(last_player < x <= dealer[0] + 1 for x in sigma)


def test_the_footer_follows_the_chosen_options():
    one = text_of(blank_pdf(load_rules("classic-52", {"last": "one", "eralash": "no"})))
    assert squash("Последняя: −150 за последнюю взятку") in squash(one) and "Ералаш" not in one
    two = text_of(blank_pdf(load_rules("classic-52", {"last": "two", "eralash": "yes"})))
    assert squash("Две последние: −75 за каждую из последних") in squash(two) and "Ералаш" in two


@pytest.mark.skipif(shutil.which("pdftoppm") is None, reason="pdftoppm (poppler-utils) not installed")
@pytest.mark.parametrize("tid", template_ids())
def test_every_blank_renders_and_uses_its_page(tmp_path, tid):
    """Every template's blank, rendered to a picture: drawn, and not crowded into the top of the page."""
    pdf = tmp_path / "b.pdf"
    pdf.write_bytes(blank_pdf(load_rules(tid)))
    subprocess.run(["pdftoppm", "-r", "30", "-gray", "-f", "1", "-l", "1", "-singlefile", str(pdf),
                    str(tmp_path / "page")], check=True)
    header, _, rest = (tmp_path / "page.pgm").read_bytes().partition(b"\n255\n")
    width, height = map(int, header.split()[1:3])
    pixels = rest[: width * height]
    rows_with_ink = [y for y in range(height) if any(b < 128 for b in pixels[y * width:(y + 1) * width])]
    used = (rows_with_ink[-1] - rows_with_ink[0]) / height if rows_with_ink else 0
    assert used > (0.7 if len(load_rules(tid).slots) >= 10 else 0.45), (tid, used)


def test_a_filled_sheet_says_when_it_is_unfinished_or_not_final(tmp_path):
    from conftest import game_text
    from kingsheet.files.gamefile import read_game

    part = verify(read_game(game_text(deals='\n[[deals]]\ngame = "tricks"\npoints = [-4, -6, -2, -4]\n'
                                            '\n[[deals]]\ngame = "hearts"\npoints = [-6, 0, -8, -2]\n')))
    text = text_of(sheet_pdf(part, settlement_of(part)))
    assert "Лист не закончен: сыграно 2 из 12." in text and "Лидер" not in text
    assert squash("Не окончательно") in squash(text)
    assert "каждый с каждым" in text and "pairwise" not in text
    for tick in ("0.5", "1.5"):  # the chart counts whole deals
        assert tick not in text.split()
    whole = verify(load_game(EXAMPLES / "hand-worked" / "blank-4.toml"))
    done = text_of(sheet_pdf(whole, settlement_of(whole)))
    assert "Лидер: Аня (24)" in done and "не закончен" not in done and squash("Не окончательно") not in squash(done)


def test_the_trump_bidding_blank_says_only_what_its_rules_hold():
    """A trump row with a bid sums to at most +48 (the bid taken off), so the blank says «≤ +48»,
    «ИТОГО (+) ≤ +192», «ИТОГО ≤ 0» and how a trump row is checked, never a fixed +48 or ИТОГО 0."""
    import io

    from pypdf import PdfReader

    from kingsheet.files.templates import load_rules
    from kingsheet.render.pdf import blank_pdf

    text = PdfReader(io.BytesIO(blank_pdf(load_rules("trump-bidding"), lang="ru"))).pages[0].extract_text()
    assert text.count("≤ +48") == 4 and "≤ +192" in text and "≤ 0" in text
    assert "козырная строка даёт +48 минус 6·min(заявка, взятки заказавшего)" in " ".join(text.split())
    plain = PdfReader(io.BytesIO(blank_pdf(load_rules("blank-4"), lang="ru"))).pages[0].extract_text()
    assert "≤" not in plain and "+192" in plain


def test_the_trump_bidding_blank_has_a_place_for_the_bid():
    """The bid decides a trump row's total, so the blank leaves room for it: a «Заявка» column after
    «Объявляет», greyed on the minus deals; a filled sheet prints each trump deal's bid there."""
    from kingsheet.core.verify import verify
    from kingsheet.files.gamefile import load_game

    words = _words(blank_pdf(load_rules("trump-bidding"), ["Аня", "Боря", "Вася", "Галя"], lang="ru"))
    head = {t: x for t, x, y in words if t in ("Сдаёт", "Объявляет", "Заявка")}
    assert head["Сдаёт"] < head["Объявляет"] < head["Заявка"]
    assert "Заявка" not in {t for t, *_ in _words(blank_pdf(load_rules("blank-4"), lang="ru"))}
    game = load_game(EXAMPLES / "trump-bidding.toml")
    filled = _words(sheet_pdf(verify(game), lang="ru"))
    column = next(x for t, x, y in filled if t == "Заявка")
    bottom = max(y for t, x, y in filled if t.startswith("ИТОГО"))  # the table's rows lie above
    bids = [t for t, x, y in filled if abs(x - column) < 25 and y > bottom and t.isdigit()]
    assert bids == [str(d.bid) for d in game.deals if d.bid is not None] and bids
