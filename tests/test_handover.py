"""A game as QR codes (kingsheet.files.handover, docs/game-file.md «Game codes»): every rule system
through the codes and back byte for byte, in any order; a damaged code, a code of another game, of a
newer format, a hostile one: one sentence each, nothing kept. Then the commands: `export --qr`
(terminal, .pdf, .txt) and `import` of a picture of the page, read back with ZXing."""

from __future__ import annotations

import hashlib
import json
import random
import shutil
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from kingsheet.core.problems import InputError
from kingsheet.files import handover
from kingsheet.files.handover import (
    DICTIONARY,
    DICTIONARY_SHA256,
    HandedOver,
    b45decode,
    b45encode,
    codes,
    read_codes,
    relation,
)
from kingsheet.files.templates import template_ids

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples"))
from make_examples import write_example  # noqa: E402

NAMES = ["Аня", "<b>Боря</b>", "Вася & Co", "Галя\u200d", "'; rm -rf /", "Женя"]


def _game(tid: str, seed: int) -> str:
    """A played game of ``tid`` cut at a random deal, with names a hostile table might type."""
    rng = random.Random(seed)
    text = write_example(tid, seed)
    head, *deals = text.split("\n[[deals]]\n")
    keep = rng.randint(0, len(deals))
    text = head + "".join("\n[[deals]]\n" + d for d in deals[:keep])
    if not text.endswith("\n"):
        text += "\n"
    for plain, hostile in zip(("Аня", "Боря", "Вася", "Галя"), rng.sample(NAMES, 4)):
        text = text.replace(f'"{plain}"', json.dumps(hostile, ensure_ascii=False))
    return text


def test_the_dictionary_is_format_ones_own():
    """Changing a byte of it would make every code already printed unreadable: a new version then."""
    assert hashlib.sha256(DICTIONARY).hexdigest()[:32] == DICTIONARY_SHA256
    assert handover.VERSION == 1


@pytest.mark.parametrize("data", [b"", b"\x00", b"\xff\xff", bytes(range(256)), "Кинг".encode()])
def test_base45_is_rfc_9285(data):
    assert b45decode(b45encode(data)) == data
    assert b45encode(b"AB") == "BB8" and b45encode(b"ietf!") == "QED8WEX0"  # the RFC's own examples
    with pytest.raises(ValueError):
        b45decode("GGW")  # 65535 < 6 + 16·45 + 44·45²: no two bytes


@pytest.mark.parametrize("tid", template_ids())
def test_fifty_games_of_every_rule_system_go_through_the_codes_and_back(tid):
    for seed in range(50):
        text = _game(tid, seed)
        parts = codes(HandedOver("friday.toml", text))
        assert all(len(c) <= handover.HEADER + handover.PART_LETTERS for c in parts)
        assert all(c.startswith("KSG01") and set(c) <= set(handover._B45) | set("KSG") for c in parts)
        shuffled = parts[:]
        random.Random(seed).shuffle(shuffled)
        back = read_codes(shuffled + shuffled[:1])  # in any order, a code seen twice harmless
        assert back == HandedOver("friday.toml", text)
        assert back.text.encode("utf-8") == text.encode("utf-8")


def test_a_house_template_travels_with_its_game(tmp_path):
    from conftest import free_order_template

    template = free_order_template(tmp_path)
    game = tmp_path / "evening.toml"
    game.write_text(write_example("ordered-56", 3).replace('rules = "ordered-56"', 'rules = "free.toml"'),
                    encoding="utf-8")
    parts = handover.game_codes(game)
    back = read_codes(parts)
    assert back.template_name == "free.toml"
    assert back.template_text == template.read_text(encoding="utf-8")
    assert back.text == game.read_text(encoding="utf-8")
    assert handover.read_codes(handover.game_codes(ROOT / "examples" / "blank-4.toml")).template_name is None


def test_a_fourteen_deal_game_is_one_code():
    text = _game("blank-4", 1)
    text = write_example("blank-4", 1).split("\n[[deals]]\n")
    fourteen = text[0] + "".join("\n[[deals]]\n" + d for d in text[1:15])
    assert len(codes(HandedOver("g.toml", fourteen))) == 1


def _sentence(texts) -> str:
    with pytest.raises(InputError) as caught:
        read_codes(texts)
    message = str(caught.value)
    assert "\n" not in message and "Traceback" not in message
    return message


def test_damaged_foreign_newer_and_hostile_codes_are_one_sentence_each():
    a = codes(HandedOver("a.toml", write_example("ordered-56", 1)))
    b = codes(HandedOver("b.toml", write_example("ordered-56", 2)))
    assert len(a) == len(b) == 2
    flipped = a[0][:30] + ("A" if a[0][30] != "A" else "B") + a[0][31:]
    assert "do not fit together" in _sentence([flipped, a[1]])
    assert "another game" in _sentence([a[0], b[1]])
    assert "newer kingsheet" in _sentence(["KSG02" + a[0][5:]])
    assert "damaged" in _sentence([a[0][:12]])
    assert "damaged" in _sentence(["KSG010302" + a[0][9:]])  # number 3 of 2
    assert "alphabet" in _sentence([a[0][:40] + "a" + a[0][41:]])
    assert "printed blank" in _sentence(["KS2:blank-4:4"])
    assert "not a kingsheet" in _sentence(["https://example.com/"])
    assert "1 of 2 codes" in _sentence([a[0]])
    assert "no game code" in _sentence([])


def _forged(raw: bytes, dictionary: bytes = DICTIONARY) -> list[str]:
    """Codes with a valid header around any payload, as an attacker would make them."""
    packer = zlib.compressobj(9, zlib.DEFLATED, -15, 9, zlib.Z_DEFAULT_STRATEGY, dictionary)
    data = b45encode(packer.compress(raw) + packer.flush())
    n = max(1, -(-len(data) // handover.PART_LETTERS))
    size = -(-len(data) // n)
    digest = hashlib.sha256(data.encode()).hexdigest()[:8].upper()
    return [f"KSG01{k + 1:02d}{n:02d}{digest}{data[k * size:(k + 1) * size]}" for k in range(n)]


def test_a_code_that_unpacks_to_ten_megabytes_is_refused_unread():
    bomb = _forged(b"\0" * (10 * 1024 * 1024))
    assert len(bomb) < 30  # 10 MB of zeros deflate to 10 KB: a couple of dozen codes
    assert "more than 4 MiB" in _sentence(bomb)


@pytest.mark.parametrize("raw", [b"game text only", "текст\0../../etc/passwd".encode(), b"a\0b.toml\0c",
                                 b"\xff\xfe\0x.toml", b"x\0<script>.toml"])
def test_a_forged_payload_is_damaged_not_a_path(raw):
    assert "damaged" in _sentence(_forged(raw))


def test_markup_in_names_arrives_as_the_same_text():
    text = _game("blank-4", 7).replace('title = "', 'title = "<img src=x onerror=alert(1)> ')
    assert read_codes(codes(HandedOver("g.toml", text))).text == text


def test_how_a_given_game_stands_to_a_kept_one():
    full = write_example("blank-4", 4)
    head, *deals = full.split("\n[[deals]]\n")
    upto = lambda k: head + "".join("\n[[deals]]\n" + d for d in deals[:k])  # noqa: E731
    assert relation(upto(5), upto(5)).kind == "same"
    assert relation(upto(5), upto(9)) == handover.Relation("further", (5, 9))
    assert relation(upto(9), upto(5)).kind == "behind"
    changed = upto(5).replace("points = [", "points = [ ", 1)  # the same numbers, written otherwise
    assert relation(upto(5), changed).kind == "same"
    other_row = upto(6).rsplit("points = [", 1)[0] + "points = [0, 0, 0, -99]\n"
    assert relation(upto(6), other_row).kind == "diverged"
    assert relation(upto(5), upto(5).replace('stake = "0.50"', 'stake = "1"')).kind == "other"
    assert relation(upto(5), "not toml [").kind == "other"


# ---- the commands ---------------------------------------------------------------------------------

def test_export_qr_draws_the_codes_and_writes_their_texts(runner, tmp_path):
    from kingsheet.cli.app import app

    game = tmp_path / "friday.toml"
    shutil.copy(ROOT / "examples" / "ordered-56.toml", game)
    result = runner.invoke(app, ["export", str(game), "--qr", "--lang", "ru"])
    assert result.exit_code == 0, result.output
    assert "код 1 из 2" in result.output and "код 2 из 2" in result.output and "█" in result.output
    result = runner.invoke(app, ["export", str(game), "--qr", "-o", str(tmp_path / "codes.txt"), "--lang", "en"])
    assert result.exit_code == 0 and "2 codes" in result.output
    lines = (tmp_path / "codes.txt").read_text().splitlines()
    assert read_codes(lines).text == game.read_text(encoding="utf-8")
    result = runner.invoke(app, ["import", str(tmp_path / "codes.txt"), "-o", str(tmp_path / "back.toml")])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "back.toml").read_bytes() == game.read_bytes()
    result = runner.invoke(app, ["export", str(game), "--lang", "en"])
    assert result.exit_code == 2 and "-o sheet.pdf" in result.output


def test_a_damaged_or_partial_set_of_codes_is_one_sentence_and_writes_nothing(runner, tmp_path):
    from kingsheet.cli.app import app

    parts = codes(HandedOver("g.toml", write_example("ordered-56", 1)))
    given = tmp_path / "codes.txt"
    given.write_text(parts[0] + "\n", encoding="ascii")
    result = runner.invoke(app, ["import", str(given), "-o", str(tmp_path / "out.toml"), "--lang", "en"])
    assert result.exit_code == 2 and "codes 2 of 2 are missing" in result.output
    given.write_text(parts[0][:-3] + "ZZZ\n" + parts[1] + "\n", encoding="ascii")
    result = runner.invoke(app, ["import", str(given), "-o", str(tmp_path / "out.toml"), "--lang", "en"])
    assert result.exit_code == 2 and "do not fit together" in result.output
    assert len(result.output.strip().splitlines()) == 1
    assert not (tmp_path / "out.toml").exists()


@pytest.mark.skipif(shutil.which("pdftoppm") is None, reason="needs pdftoppm (apt-get install poppler-utils)")
def test_a_picture_of_the_printed_codes_imports_the_game_byte_for_byte(runner, tmp_path):
    pytest.importorskip("zxingcpp")
    pytest.importorskip("cv2")
    from kingsheet.cli.app import app

    game = tmp_path / "friday.toml"
    shutil.copy(ROOT / "examples" / "ordered-56.toml", game)
    result = runner.invoke(app, ["export", str(game), "--qr", "-o", str(tmp_path / "codes.pdf"), "--lang", "ru"])
    assert result.exit_code == 0, result.output
    subprocess.run(["pdftoppm", "-r", "90", "-png", str(tmp_path / "codes.pdf"), str(tmp_path / "page")], check=True)
    from pypdf import PdfReader

    words = PdfReader(tmp_path / "codes.pdf").pages[0].extract_text()
    assert "код 1 из 2" in words and "Пятница у Ани" in words
    result = runner.invoke(app, ["import", str(tmp_path / "page-1.png"), "-o", str(tmp_path / "back.toml")])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "back.toml").read_bytes() == game.read_bytes()
    blank = tmp_path / "white.png"
    import cv2
    import numpy as np

    cv2.imwrite(str(blank), np.full((200, 200), 255, np.uint8))
    result = runner.invoke(app, ["import", str(blank), "-o", str(tmp_path / "none.toml"), "--lang", "en"])
    assert result.exit_code == 2 and "no code was found" in result.output


# ---- the phone app's worker answers (kingsheet.site.bridge), as site.js asks them ------------------

def _ask(request: dict) -> dict:
    from kingsheet.site.bridge import handle

    return json.loads(handle(json.dumps(request)))


def test_the_workers_answers_to_codes_keep_a_game_once_and_never_over_its_own_deals():
    full = write_example("blank-4", 4)
    head, *deals = full.split("\n[[deals]]\n")
    upto = lambda k: head + "".join("\n[[deals]]\n" + d for d in deals[:k])  # noqa: E731
    shown = _ask({"op": "codes", "lang": "en", "game": {"file": "g.toml", "text": upto(6)}})
    assert shown["status"] == 200 and shown["data"]["codes"][0]["rows"][0].startswith("1111111")
    texts = [c["text"] for c in shown["data"]["codes"]]

    def receive(kept_text):
        kept = [{"id": "x", "file": "g.toml", "text": kept_text}] if kept_text else []
        return _ask({"op": "receive", "lang": "en", "body": {"codes": texts}, "games": kept,
                     "taken_names": ["g.toml"] if kept_text else []})

    new = receive(None)
    assert new["data"]["kind"] == "new" and new["game"]["text"] == upto(6) and new["game"]["deals"] == 6
    assert receive(upto(6))["data"]["kind"] == "same" and "game" not in receive(upto(6))
    further = receive(upto(5))
    assert further["data"]["kind"] == "further" and "deal 6 added" in further["data"]["message"]
    assert further["game"]["file"] == "g.toml" and further["game"]["text"] == upto(6)
    assert "deals 3–6 added" in receive(upto(2))["data"]["message"]
    behind = receive(upto(8))
    assert behind["data"]["kind"] == "behind" and "game" not in behind
    last = upto(6).rsplit("points = [", 1)
    other_way = last[0] + ("points = [0, 0, -16, 0]\n" if "[0, 0, -16, 0]" not in last[1] else "points = [0, -16, 0, 0]\n")
    diverged = receive(other_way)
    assert diverged["data"]["kind"] == "diverged" and diverged["game"]["file"] == "g-2.toml"
    again = _ask({"op": "receive", "lang": "en", "body": {"codes": texts}, "taken_names": ["g.toml", "g-2.toml"],
                  "games": [{"id": "x", "file": "g.toml", "text": other_way},
                            {"id": "y", "file": "g-2.toml", "text": upto(6)}]})
    assert again["data"]["kind"] == "same" and again["data"]["match"] == "y"  # no third copy
    partial = _ask({"op": "receive", "lang": "ru", "body": {"codes": codes(HandedOver(
        "g.toml", write_example("ordered-56", 1)))[:1]}, "games": []})
    assert partial["data"]["partial"] is True and "1 из 2" in partial["data"]["message"]
    bad = _ask({"op": "receive", "lang": "en", "body": {"codes": ["KSG01"]}, "games": []})
    assert bad["status"] == 400 and "damaged" in bad["data"]["error"]


def test_the_workers_join_codes_and_the_tables_game_kept_as_sent():
    sdp = "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\na=ice-ufrag:ab\r\na=fingerprint:sha-256 00:11\r\n"
    made = _ask({"op": "signal", "lang": "en", "body": {"kind": "offer", "session": "0A1B2C3D", "sdp": sdp}})
    text = made["data"]["codes"][0]["text"]
    assert text.startswith("KSJ01O0A1B2C3D")
    read = _ask({"op": "receive", "lang": "en", "body": {"codes": [text]}, "games": []})
    assert read["data"]["signal"] == {"kind": "offer", "session": "0A1B2C3D", "sdp": sdp}
    for forged in ("KSJ02O0A1B2C3D00", "KSJ01X0A1B2C3D00", text[:-2]):
        assert _ask({"op": "receive", "lang": "en", "body": {"codes": [forged]}, "games": []})["status"] == 400
    wrong = _ask({"op": "signal", "lang": "en", "body": {"kind": "offer", "session": "nothex", "sdp": sdp}})
    assert wrong["status"] == 400
    game = write_example("blank-4", 2)
    kept = _ask({"op": "keep", "lang": "en", "game": {"file": "t.toml", "text": game}})
    assert kept["game"]["text"] == game and kept["game"]["file"] == "t.toml"
