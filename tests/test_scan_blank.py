"""A blank made to be photographed: four corner marks and a QR code in the margins, read back from
the rendered page as a reader will (pdftoppm, then zxing-cpp)."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from kingsheet.files.templates import load_rules
from kingsheet.render.pdf import MARK_AT_MM, MARK_MM, blank_pdf, scan_code

np = pytest.importorskip("numpy")
zxingcpp = pytest.importorskip("zxingcpp")
pytestmark = pytest.mark.skipif(shutil.which("pdftoppm") is None, reason="pdftoppm (poppler-utils) is needed")

DPI = 150


def pages(pdf: bytes, tmp_path):
    from PIL import Image

    (tmp_path / "b.pdf").write_bytes(pdf)
    subprocess.run(["pdftoppm", "-r", str(DPI), "-gray", "-png", str(tmp_path / "b.pdf"), str(tmp_path / "p")],
                   check=True)
    return [np.asarray(Image.open(p).convert("L")) for p in sorted(tmp_path.glob("p-*.png"))]


@pytest.mark.parametrize("tid, options", [("blank-4", {}), ("blank-4", {"boys": "kings"}), ("ordered-56", {}),
                                          ("six-48", {}), ("domino", {})])
def test_every_page_carries_its_code_and_four_corner_marks(tmp_path, tid, options):
    rules = load_rules(tid, options)
    imgs = pages(blank_pdf(rules, lang="ru"), tmp_path)
    want = scan_code(rules, rules.players, None)
    for number, img in enumerate(imgs, 1):
        found = [r.text for r in zxingcpp.read_barcodes(img)]
        assert found == [f"{want}/{number}"]
        assert want.split("/")[1] == tid.upper() and want.split("/")[3] == str(rules.players)
        px = DPI / 25.4
        h, w = img.shape
        for cx, cy in ((MARK_AT_MM, MARK_AT_MM), (w / px - MARK_AT_MM, MARK_AT_MM), (MARK_AT_MM, h / px - MARK_AT_MM),
                       (w / px - MARK_AT_MM, h / px - MARK_AT_MM)):
            r = MARK_MM * px / 2 * 0.8
            square = img[int(cy * px - r):int(cy * px + r), int(cx * px - r):int(cx * px + r)]
            assert square.mean() < 40, (number, cx, cy)  # a filled black square
            ring = img[int(cy * px - 2.2 * r):int(cy * px + 2.2 * r), int(cx * px - 2.2 * r):int(cx * px + 2.2 * r)]
            assert ring.mean() > square.mean() + 60  # and paper around it


def test_the_code_ties_pages_of_one_blank_and_tells_blanks_apart():
    rules = load_rules("blank-4")
    assert scan_code(rules, 4, None) == scan_code(load_rules("blank-4"), 4, None)
    assert scan_code(rules, 4, None) != scan_code(load_rules("blank-4", {"boys": "kings"}), 4, None)
    assert scan_code(rules, 4, ("Аня", "Боря", "Вася", "Галя")) != scan_code(rules, 4, None)


def test_two_blanks_a_page_are_for_pencil_only(tmp_path):
    imgs = pages(blank_pdf(load_rules("blank-4"), per_page=2), tmp_path)
    assert all(zxingcpp.read_barcodes(img) == [] for img in imgs)


@pytest.mark.parametrize("lang, hint", [("ru", "достаточно написать номер игры"), ("en", "the game's number")])
def test_an_ordered_blank_numbers_its_games_so_the_game_column_can_hold_a_number(lang, hint):
    """«Кто что заказал» numbers the games from 1, in the order the reader maps numbers back
    (render.pdf.ordered_games), and says that the number is enough."""
    from test_pdf import squash, text_of

    from kingsheet.render.pdf import blank_layout, ordered_games

    rules = load_rules("ordered-56")
    text = squash(text_of(blank_pdf(rules, lang=lang)))
    for k, gid in enumerate(ordered_games(rules), 1):
        assert squash(f"{k}. {rules.games[gid].label(lang)}") in text
    assert squash(hint) in text
    layout = blank_layout(rules, False, lang)
    assert sorted(layout) == list(range(1, 57)) and {b.page for b in layout.values()} == {1, 2}
    for boxes in layout.values():  # «Игра» is left of the players' cells, on the row's line
        assert boxes.game[2] <= boxes.cells[0][0] and boxes.game[1::2] == boxes.cells[0][1::2]


def test_the_readers_layout_is_measured_once_and_kept_under_its_key(tmp_path, monkeypatch):
    """scan.layout keeps the blank's measured layout on disk: a later `scan` reads it without
    drawing the blank; another language, a changed drawing or a spoiled file is measured again;
    KINGSHEET_CACHE= (empty) keeps nothing."""
    import kingsheet.render.pdf as pdf
    from kingsheet.files.templates import load_rules
    from kingsheet.scan import layout as kept

    monkeypatch.setenv("KINGSHEET_CACHE", str(tmp_path))
    monkeypatch.setattr(kept, "_KEPT", {})
    rules = load_rules("ordered-56")
    measured = pdf.measured_layout(rules, False, "ru")
    assert kept.blank_layout(rules, False, "ru") == measured
    files = list((tmp_path / "layouts").glob("*.json"))
    assert len(files) == 1

    def no_drawing(*args):
        raise AssertionError("the blank was drawn again")

    monkeypatch.setattr(pdf, "measured_layout", no_drawing)
    monkeypatch.setattr(kept, "_KEPT", {})  # a new process
    again = kept.blank_layout(rules, False, "ru")
    assert again == measured and again.pages == 3 and len(again.deals) == 56 and len(again.totals) == 3
    monkeypatch.undo()
    monkeypatch.setenv("KINGSHEET_CACHE", str(tmp_path))
    monkeypatch.setattr(kept, "_KEPT", {})
    kept.blank_layout(rules, False, "en")
    assert len(list((tmp_path / "layouts").glob("*.json"))) == 2  # another key
    files[0].write_text('{"deals": {"1": [1, [[0, 0]]', encoding="utf-8")  # spoiled
    monkeypatch.setattr(kept, "_KEPT", {})
    assert kept.blank_layout(rules, False, "ru") == measured
    assert kept._read(files[0]) == measured  # measured again, and kept again
    monkeypatch.setattr(kept, "_drawing_stamp", lambda: ("another drawing",))
    monkeypatch.setattr(kept, "_KEPT", {})
    kept.blank_layout(rules, False, "ru")
    assert len(list((tmp_path / "layouts").glob("*.json"))) == 3
    monkeypatch.setenv("KINGSHEET_CACHE", "")
    monkeypatch.setattr(kept, "_KEPT", {})
    assert kept.cache_folder() is None and kept.blank_layout(rules, True, "ru").pages == 3
    assert len(list((tmp_path / "layouts").glob("*.json"))) == 3
