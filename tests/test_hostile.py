"""Hostile, huge and odd input: every probe ends within seconds, in one sentence and exit 2 (or a
report), in bounded memory, with nothing lost and no control character or formula let through.

Each probe runs the real command in a child process with a time limit; the children's peak memory
is read afterwards. The huge inputs are made cheaply (sparse files, compressible parts, repeated
text), so the suite stays fast; KINGSHEET_HOSTILE_BIG=1 adds the full-size ones.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from conftest import EXAMPLES, ROOT, game_text

BIG = bool(os.environ.get("KINGSHEET_HOSTILE_BIG"))
MEMORY_MB = 200


# the command as `python -m kingsheet.cli`, writing its own peak memory where the test can read it:
# VmHWM of /proc/self/status, the high-water mark of this program's own memory (getrusage's
# ru_maxrss would carry over the forking test process's size across exec)
WRAPPER = ("import os, runpy, sys\nsys.argv = ['kingsheet', *sys.argv[1:]]\ntry:\n"
           "    runpy.run_module('kingsheet.cli', run_name='__main__')\nfinally:\n"
           "    hwm = [ln.split()[1] for ln in open('/proc/self/status') if ln.startswith('VmHWM:')]\n"
           "    with open(os.environ['KINGSHEET_TEST_RSS'], 'a') as fh:\n"
           "        fh.write((hwm[0] if hwm else '0') + '\\n')\n")
PEAKS: list[float] = []


def kingsheet(*args: str, env: dict[str, str] | None = None, timeout: float = 20,
              stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    import tempfile

    with tempfile.NamedTemporaryFile("r", suffix=".rss") as rss:
        res = subprocess.run([sys.executable, "-c", WRAPPER, *args], capture_output=True, text=True, cwd=ROOT,
                             timeout=timeout, input=stdin,
                             env={**os.environ, **(env or {}), "KINGSHEET_TEST_RSS": rss.name})
        PEAKS.extend(int(line) / 1024 for line in rss.read().split())
    assert "Traceback" not in res.stderr, res.stderr
    return res


def one_sentence(res: subprocess.CompletedProcess[str], *words: str) -> None:
    assert res.returncode == 2, (res.returncode, res.stdout[-300:], res.stderr[-300:])
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("kingsheet: "), res.stderr
    for word in words:
        assert word in lines[0], (word, lines[0])


def peak_memory_mb() -> float:
    """The largest resident size (MB) of the commands this module ran (each reports its own)."""
    return max(PEAKS, default=0.0)


# ---- inputs that eat the machine --------------------------------------------------------------

@pytest.mark.parametrize("args", [("check", "/dev/zero"), ("rules", "--check", "/dev/zero"), ("show", "/dev/zero"),
                                  ("settle", "/dev/zero"), ("export", "/dev/zero", "-o", "/tmp/never.pdf")])
def test_devices_are_refused_before_reading(args):
    one_sentence(kingsheet(*args, timeout=10), "not a regular file")


def test_a_device_behind_a_sheet_name_is_refused(tmp_path):
    for name in ("zero.csv", "zero.xlsx"):
        (tmp_path / name).symlink_to("/dev/zero")
        one_sentence(kingsheet("import", str(tmp_path / name), "-o", str(tmp_path / "x.toml"), timeout=10),
                     "not a regular file")


def test_the_current_game_on_a_device_and_a_fifo(tmp_path):
    one_sentence(kingsheet("show", env={"KINGSHEET_FILE": "/dev/zero"}, timeout=10), "not a regular file")
    fifo = tmp_path / "game.toml"
    os.mkfifo(fifo)
    one_sentence(kingsheet("check", str(fifo), timeout=10), "not a regular file")
    one_sentence(kingsheet("deal", str(fifo), "tricks", "-4", "-4", "-4", "-4", timeout=10), "not a regular file")
    assert not (tmp_path / ".game.toml.lock").exists()  # no lock made beside what is not a game
    game = tmp_path / "g.toml"
    game.write_text(game_text(rules="/dev/zero"), encoding="utf-8")
    one_sentence(kingsheet("check", str(game), timeout=10), "not a regular file")


def test_the_record_of_the_current_game_is_read_as_every_file_is(tmp_path):
    """The state folder's `current` made a link to /dev/zero, a FIFO, a huge file, or garbage."""
    state = tmp_path / "state"
    state.mkdir()
    pointer = state / "current"
    env = {"KINGSHEET_STATE_DIR": str(state)}
    pointer.symlink_to("/dev/zero")
    one_sentence(kingsheet("show", env=env, timeout=10), "not a regular file")
    pointer.unlink()
    os.mkfifo(pointer)
    one_sentence(kingsheet("show", env=env, timeout=10), "not a regular file")
    pointer.unlink()
    with pointer.open("wb") as fh:  # sparse: 1 GiB that costs nothing
        fh.truncate(1 << 30)
    one_sentence(kingsheet("show", env=env, timeout=10), "too large")
    pointer.write_bytes(b"/tmp/\x1b]0;PWNED\x07game.toml")
    one_sentence(kingsheet("show", env=env, timeout=10), "not a record of the current game")
    assert max(PEAKS[-4:]) < MEMORY_MB


def test_a_templates_words_reach_no_terminal_as_escapes(tmp_path):
    import tomlkit

    house = (ROOT / "templates" / "blank-4.toml").read_text(encoding="utf-8")
    for field, value in [("name", "N\x1b]0;PWNED\x07"), ("source", "S\x1b[2J"), ("notes", ["a\u202eb"])]:
        doc = tomlkit.parse(house)
        doc[field] = value
        bad = tmp_path / f"{field}.toml"
        bad.write_text(tomlkit.dumps(doc), encoding="utf-8")
        game = tmp_path / f"g-{field}.toml"
        game.write_text(game_text(rules=bad.name), encoding="utf-8")
        for res in (kingsheet("rules", str(bad)), kingsheet("show", str(game)), kingsheet("check", str(game))):
            one_sentence(res, "control character")
            assert "\x1b" not in res.stdout + res.stderr and "\x07" not in res.stdout + res.stderr


def test_undo_on_dev_null_makes_no_lock_file():
    res = kingsheet("undo", "/dev/null", timeout=10)
    one_sentence(res, "not a regular file")
    assert not Path("/dev/.null.lock").exists()


def _bomb(path: Path, part_size: int) -> None:
    """A workbook whose one sheet unpacks to ``part_size`` bytes (zeros compress to almost nothing)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("[Content_Types].xml", "<Types/>")
        with zf.open("xl/worksheets/sheet1.xml", "w") as fh:
            chunk = b"0" * (1024 * 1024)
            for _ in range(part_size // len(chunk)):
                fh.write(chunk)


@pytest.mark.parametrize("size_mb", [40, *([1100] if BIG else [])])
def test_a_workbook_bomb_is_refused_by_its_declared_size(tmp_path, size_mb):
    bomb = tmp_path / "bomb.xlsx"
    _bomb(bomb, size_mb * 1024 * 1024)
    assert bomb.stat().st_size < 2 * 1024 * 1024 * max(1, size_mb // 100)
    for args in (("check", str(bomb)), ("import", str(bomb), "-o", str(tmp_path / "x.toml"))):
        one_sentence(kingsheet(*args, timeout=20), "unpacks to", "not read")
    assert not (tmp_path / "x.toml").exists()
    assert peak_memory_mb() < MEMORY_MB


def test_a_game_far_longer_than_its_rules_is_refused(tmp_path):
    # the file: under the 4 MiB cap, 80,000 deals (written tightly)
    deals = "".join('[[deals]]\ngame="tricks"\npoints=[-4,-4,-4,-4]\n' for _ in range(80_000 if BIG else 5_000))
    game = tmp_path / "long.toml"
    game.write_text(game_text(deals=deals), encoding="utf-8")
    for args in (("check", str(game)), ("deal", str(game), "tricks", "-4", "-4", "-4", "-4"),
                 ("export", str(game), "-o", str(tmp_path / "x.xlsx")), ("export", str(game), "-o", str(tmp_path / "x.pdf"))):
        one_sentence(kingsheet(*args, timeout=30), "5000 deals, ")
    assert not (tmp_path / "x.xlsx").exists() and not (tmp_path / "x.pdf").exists()
    csv = tmp_path / "long.csv"
    csv.write_text("game,Аня,Боря,Вася,Галя\n" + "tricks,-4,-4,-4,-4\n" * (100_000 if BIG else 5_000), encoding="utf-8")
    one_sentence(kingsheet("import", str(csv), "-o", str(tmp_path / "y.toml"), "--rules", "blank-4", timeout=30),
                 "far more than blank-4 has")
    assert not (tmp_path / "y.toml").exists()
    assert peak_memory_mb() < MEMORY_MB


@pytest.mark.parametrize("header, words", [
    ('title = "' + "x" * 250_000 + '"', ("title is 250000 characters long; at most 200",)),
    ("title = 5", ("title must be text, not int",)),
    ("date = [1, 2]", ("date must be text, not list",)),
    ('title = "a\\u001b]0;pwned\\u0007b"', ("title", "has a control character (U+001B)")),
    ('date = "2026\\u001b[2J"', ("date", "has a control character",)),
    ('title = "ok\\nall consistent"', ("has a control character (U+000A)",)),
    ('[money]\ncurrency = 5', ("currency must be text, not int",)),
    ('[money]\ntip = "10"', ("unknown key tip",)),
])
def test_every_header_field_is_checked_when_the_file_loads(tmp_path, header, words):
    game = tmp_path / "g.toml"
    text = game_text(deals='\n[[deals]]\ngame = "tricks"\npoints = [-4, -4, -4, -4]\n')
    game.write_text(text.replace('players = [', header + '\nplayers = [', 1) if not header.startswith("[money]")
                    else text.replace("\n[[deals]]", "\n" + header + "\n\n[[deals]]", 1), encoding="utf-8")
    for args in (("check", str(game)), ("show", str(game)), ("export", str(game), "-o", str(tmp_path / "x.xlsx")),
                 ("export", str(game), "-o", str(tmp_path / "x.pdf")), ("settle", str(game))):
        res = kingsheet(*args)
        one_sentence(res, *words)
        assert "\x1b" not in res.stdout + res.stderr and "\x07" not in res.stderr


def test_direction_overrides_in_names_are_refused():
    players = '"Аня\\u202e01", "Боря", "Вася", "Галя"'
    from kingsheet.core.problems import InputError
    from kingsheet.files.gamefile import read_game

    with pytest.raises(InputError, match="has a control character \\(U\\+202E\\)"):
        read_game(game_text(players=players))
    one_sentence(kingsheet("settle", "--totals", "Аня\u202e=10,Боря=-10"), "U+202E")


def test_many_players_in_totals_are_refused_at_once():
    totals = ",".join(f"p{i}={i - 1000}" for i in range(4000))
    one_sentence(kingsheet("settle", "--totals", totals, timeout=10), "at most 64")


# ---- money at the edges ------------------------------------------------------------------------

@pytest.mark.parametrize("args, words", [
    (("--totals", "A=429,B=373,C=-60", "--stake", "1e25", "--method", "pot", "--pot-mean"), ("too large",)),
    (("--totals", "A=429,B=373,C=-60", "--stake", "1e30"), ("too large",)),
    (("--totals", "A=1e30,B=-1e30"), ("too large",)),
    (("--totals", "A=429,B=373,C=-60", "--round", "1e-30"), ("decimal places",)),
    (("--totals", "A=429,B=373,C=-60", "--round", "0.003"), ("not a whole number of 0.01 RUB",)),
    (("--totals", "A=429,B=373,C=-60", "--round", "1e30"), ("too large",)),
    (("--totals", "A=NaN,B=1"), ("not a number",)),
    (("--totals", "A=1,B=-1", "--stake", "Infinity"), ("not a number",)),
])
def test_money_outside_what_is_accepted_is_one_sentence(args, words):
    one_sentence(kingsheet("settle", *args, timeout=10), *words)


def test_pair_debts_add_up_to_the_balances_exactly():
    import json
    import random
    from decimal import Decimal

    rng = random.Random(5)
    for _ in range(60):
        n = rng.randint(2, 6)
        totals = {f"p{i}": rng.randint(-300, 300) for i in range(n)}
        stake, currency = rng.choice([("0.005", "RUB"), ("0.5", "JPY"), ("0.33", "EUR"), ("1", "RUB")])
        from kingsheet.core.money import settle

        s = settle(totals, Decimal(stake), currency, "pairwise")
        for p in totals:
            got = sum((t.amount for t in s.pairs if t.payee == p), Decimal(0)) - \
                sum((t.amount for t in s.pairs if t.payer == p), Decimal(0))
            assert got == s.balances[p], (totals, stake, currency, p)
        assert sum(s.balances.values()) == 0
        text = json.dumps(s.as_json())
        assert "E+" not in text and '"-0"' not in text


# ---- files --------------------------------------------------------------------------------------

def test_a_symlinked_game_gets_the_deal_and_stays_a_link(tmp_path):
    target = tmp_path / "real.toml"
    target.write_text(game_text(), encoding="utf-8")
    link = tmp_path / "link.toml"
    link.symlink_to(target)
    assert kingsheet("deal", str(link), "tricks", "-4", "-4", "-4", "-4").returncode == 0
    assert kingsheet("deal", str(target), "hearts", "-4", "-4", "-4", "-4").returncode == 0
    assert link.is_symlink() and target.read_text(encoding="utf-8").count("[[deals]]") == 2
    assert not (tmp_path / ".link.toml.lock").exists()  # one lock, the target's


def test_a_planted_lock_link_is_not_followed(tmp_path):
    game = tmp_path / "g.toml"
    game.write_text(game_text(), encoding="utf-8")
    victim = tmp_path / "victim"
    (tmp_path / ".g.toml.lock").symlink_to(victim)
    one_sentence(kingsheet("deal", str(game), "tricks", "-4", "-4", "-4", "-4"), "its lock file is a link")
    assert not victim.exists() and "[[deals]]" not in game.read_text(encoding="utf-8")


def test_a_read_only_game_is_not_rewritten(tmp_path):
    game = tmp_path / "g.toml"
    game.write_text(game_text(), encoding="utf-8")
    game.chmod(0o444)
    before = game.read_bytes()
    one_sentence(kingsheet("deal", str(game), "tricks", "-4", "-4", "-4", "-4"), "read-only")
    assert game.read_bytes() == before and (game.stat().st_mode & 0o777) == 0o444


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can save another user's file")
def test_root_saving_another_users_game_keeps_its_owner(tmp_path):
    game = tmp_path / "g.toml"
    game.write_text(game_text(), encoding="utf-8")
    os.chown(game, 65534, 65534)
    game.chmod(0o600)
    assert kingsheet("deal", str(game), "tricks", "-4", "-4", "-4", "-4").returncode == 0
    info = game.stat()
    assert (info.st_uid, info.st_gid, info.st_mode & 0o777) == (65534, 65534, 0o600)


def test_a_lock_held_elsewhere_is_waited_for_then_given_up(tmp_path):
    import fcntl

    game = tmp_path / "g.toml"
    game.write_text(game_text(), encoding="utf-8")
    fd = os.open(tmp_path / ".g.toml.lock", os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        res = kingsheet("deal", str(game), "tricks", "-4", "-4", "-4", "-4", env={"KINGSHEET_LOCK_TIMEOUT": "1"})
    finally:
        os.close(fd)
    assert res.returncode == 2
    lines = res.stderr.strip().splitlines()
    assert "another kingsheet is changing this game; waiting" in lines[0]
    assert "has been changing this game for 1 s; nothing was written" in lines[1]


def test_new_says_when_it_cannot_remember_the_current_game(tmp_path):
    state = tmp_path / "state"
    state.write_text("a file where the folder should be", encoding="utf-8")
    res = kingsheet("new", str(tmp_path / "g.toml"), "--rules", "blank-4", "--players", "Аня,Боря,Вася,Галя",
                    env={"KINGSHEET_STATE_DIR": str(state)})
    assert res.returncode == 0 and (tmp_path / "g.toml").exists()
    assert "could not be remembered as the current game" in res.stderr


def test_import_rewrites_a_relative_template_for_the_output(tmp_path):
    (tmp_path / "A").mkdir()
    (tmp_path / "B").mkdir()
    shutil.copy(ROOT / "examples" / "house" / "king-x10.toml", tmp_path / "A" / "house.toml")
    csv = tmp_path / "A" / "g.csv"
    csv.write_text('# kingsheet,"rules=house.toml"\ngame,Аня,Боря,Вася,Галя\ntricks,-40,-40,-40,-40\n', encoding="utf-8")
    out = tmp_path / "B" / "g.toml"
    res = kingsheet("import", str(csv), "-o", str(out))
    assert res.returncode == 0, res.stderr
    assert 'rules = "../A/house.toml"' in out.read_text(encoding="utf-8")
    assert kingsheet("check", str(out)).returncode == 0


def test_a_sheet_may_not_name_a_template_elsewhere_on_the_disk(tmp_path):
    secret = tmp_path / "secret.toml"
    secret.write_text('password = "hunter2"\n', encoding="utf-8")
    (tmp_path / "in").mkdir()
    csv = tmp_path / "in" / "g.csv"
    csv.write_text(f'# kingsheet,"rules={secret}"\ngame,Аня,Боря,Вася,Галя\ntricks,-4,-4,-4,-4\n', encoding="utf-8")
    res = kingsheet("check", str(csv))
    one_sentence(res, "a sheet may name a bundled rules id, or a template file in its own folder")
    assert "password" not in res.stderr
    csv.write_text('# kingsheet,"rules=../secret.toml"\ngame,Аня,Боря,Вася,Галя\ntricks,-4,-4,-4,-4\n', encoding="utf-8")
    one_sentence(kingsheet("check", str(csv)), "in its own folder")


def test_a_byte_order_mark_is_accepted(tmp_path):
    game = tmp_path / "g.toml"
    game.write_bytes("\ufeff".encode() + (EXAMPLES / "blank-4.toml").read_bytes())
    assert kingsheet("check", str(game)).returncode == 0


def test_show_marks_the_row_of_a_declarer_problem(tmp_path):
    game = tmp_path / "g.toml"
    rows = "".join(f'\n[[deals]]\ngame = "{g}"\npoints = {p}\n' for g, p in [
        ("tricks", [-4, -4, -4, -4]), ("hearts", [-4, -4, -4, -4]), ("boys", [-4, -4, -4, -4]),
        ("girls", [-4, -4, -4, -4]), ("king", [-16, 0, 0, 0]), ("last", [-8, -8, 0, 0]),
        ("eralash", [-24, -24, -24, -24]), ("eralash+", [24, 24, 24, 24])])
    rows += '\n[[deals]]\ngame = "trumps"\ndeclarer = "Галя"\npoints = [6, 6, 6, 6]\n'
    game.write_text(game_text(deals=rows), encoding="utf-8")
    res = kingsheet("show", str(game))
    assert res.returncode == 1
    line = next(ln for ln in res.stdout.splitlines() if ln.lstrip().startswith("9 "))
    assert "✓" not in line and "Галя is written, but Боря declares here" in line


# ---- photos (`kingsheet scan`) -----------------------------------------------------------------------

def _scan(*photos: Path, cwd_file: Path | None = None) -> subprocess.CompletedProcess[str]:
    """`kingsheet scan` of the photos, in bounded time; its own peak memory must stay bounded too."""
    pytest.importorskip("cv2")
    pytest.importorskip("zxingcpp")
    before = len(PEAKS)
    out = (cwd_file or photos[0]).parent / "out.toml"
    res = kingsheet("scan", *map(str, photos), "-o", str(out), "--players", "А,Б,В,Г", timeout=30)
    assert max(PEAKS[before:], default=0) < MEMORY_MB
    assert not out.exists()
    return res


def _jpeg_declaring(width: int, height: int) -> bytes:
    """A real, tiny JPEG whose frame header is made to declare another size (691 bytes in the trial)."""
    import io

    from PIL import Image

    buf = io.BytesIO()
    Image.new("L", (8, 8), 255).save(buf, "JPEG")
    data = bytearray(buf.getvalue())
    k = data.index(b"\xff\xc0")
    data[k + 5:k + 9] = height.to_bytes(2, "big") + width.to_bytes(2, "big")
    return bytes(data)


def _png_declaring(width: int, height: int) -> bytes:
    import struct
    import zlib

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    rows = zlib.compress(b"\x00" * 1024)  # the first bytes of the picture; the rest is never read
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)) + \
        chunk(b"IDAT", rows) + chunk(b"IEND", b"")


def test_a_photo_declaring_billions_of_pixels_is_refused_before_it_is_decoded(tmp_path):
    cases = {"huge.jpg": _jpeg_declaring(30_000, 30_000), "huger.jpg": _jpeg_declaring(65_000, 65_000),
             "huge.png": _png_declaring(50_000, 50_000), "huger.png": _png_declaring(65_000, 65_000)}
    for name, data in cases.items():
        (tmp_path / name).write_bytes(data)
        one_sentence(_scan(tmp_path / name), name, "the picture is too large")
    for name, data in {"empty.jpg": b"", "zero.png": _png_declaring(0, 10), "gif.jpg": b"GIF89a" + b"\0" * 40,
                       "cut.jpg": _jpeg_declaring(100, 100)[:20]}.items():
        (tmp_path / name).write_bytes(data)
        one_sentence(_scan(tmp_path / name), name, "not a picture kingsheet can open")


def _code_photo(path: Path, text: str) -> Path:
    """A picture of nothing but a QR code holding ``text``: enough for the reader to read it first."""
    import numpy as np
    import zxingcpp
    from PIL import Image

    code = np.asarray(zxingcpp.create_barcode(text, zxingcpp.BarcodeFormat.QRCode).to_image(scale=8))
    page = np.full((code.shape[0] * 3, code.shape[1] * 3), 255, np.uint8)
    page[code.shape[0]:2 * code.shape[0], code.shape[1]:2 * code.shape[1]] = code
    Image.fromarray(page).save(path)
    return path


@pytest.mark.parametrize(("text", "words"), [
    ("KS1/NOSUCH//4/BRU123456/1", "names rules kingsheet does not have"),
    ("KS1/..//4/BRU123456/1", "names rules kingsheet does not have"),
    ("KS1/.//4/BRU123456/1", "names rules kingsheet does not have"),
    ("KS1/BIG8.TOML//4/BRU123456/1", "names rules kingsheet does not have"),
    ("KS1/BLANK-4/BOYS:QUEENS/4/BRU123456/1", "names rules that cannot be used"),
    ("KS1/BLANK-4//99999999999999999999/BRU123456/1", "not one kingsheet prints"),
    ("KS1/BLANK-4//4/BRU123456/²", "not one kingsheet prints"),
    ("KS1/BLANK-4//4/BRU123456", "not one kingsheet prints"),
    ("KS1/BLANK-4//4/BRU123456/0", "not one kingsheet prints"),
    ("KS1/BLANK-4//4/BXX123456/1", "not one kingsheet prints"),
    ("KS1/BLANK-4//5/BRU123456/1", "not one kingsheet prints"),
    ("KS1/BLANK-4//4/BRU123456/7", "not one kingsheet prints"),
])
def test_a_qr_code_that_says_what_no_blank_says_is_one_sentence(tmp_path, text, words):
    pytest.importorskip("zxingcpp")
    # a template file of that name beside the photo and in the current folder is never read
    (tmp_path / "big8.toml").write_text("[[deals]]\n" * 1000, encoding="utf-8")
    one_sentence(_scan(_code_photo(tmp_path / "code.png", text)), "code.png", words)


def test_many_photos_are_refused_before_any_is_read(tmp_path):
    pytest.importorskip("zxingcpp")
    one = _code_photo(tmp_path / "p.png", "KS1/BLANK-4//4/BRU123456/1")
    photos = []
    for k in range(60):
        photos.append(tmp_path / f"p{k}.png")
        shutil.copy(one, photos[-1])
    one_sentence(_scan(*photos), "60 photos", "at most 8 pages")
    # two photos of one page are found from their codes alone, before any cell is cut
    one_sentence(_scan(*photos[:3]), "two photos show the same page 1")


# ---- big but legal ----------------------------------------------------------------------------------

def test_a_game_padded_with_megabytes_of_comments_takes_a_deal_edit_and_undo(tmp_path):
    game = tmp_path / "pad.toml"
    pad = ("# " + "x" * 78 + "\n") * (int(3.9 * 1024 * 1024) // 81)
    game.write_text(game_text(deals=pad + "".join(
        f'\n[[deals]]\ngame = "{g}"\npoints = {p}\n' for g, p in [("tricks", [-4, -6, -6, 0]), ("hearts", [-4, -4, 0, -8])])),
        encoding="utf-8")
    before = len(PEAKS)
    for args in (("deal", str(game), "boys", "0", "-4", "0", "-12"), ("edit", str(game), "1", "-4", "-4", "-8", "0"),
                 ("undo", str(game)), ("check", str(game))):
        assert kingsheet(*args, timeout=30).returncode == 0, args
    assert max(PEAKS[before:]) < MEMORY_MB
    text = game.read_text(encoding="utf-8")
    assert pad in text and text.count("[[deals]]") == 2 and "points = [-4, -4, -8, 0]" in text


def test_a_thousand_deal_eight_player_template_checks_and_prints_in_bounded_memory(tmp_path):
    import random

    from kingsheet.core.simulate import play_game
    from kingsheet.files.templates import load_rules

    template = (tmp_path / "e8.toml")
    template.write_text('format = 1\nid = "e8"\nname = "E8"\nplayers = 8\norder = "fixed"\n\n[deck]\nranks = '
                        '["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]\nremove = []\ntalon = 4\n'
                        'last_tricks = 2\n\n[units]\ntricks = 2\nhearts = 2\ngirls = 4\nking = 16\nlast = 8\nboys = 4\n\n'
                        '[[stages]]\ndeals = ["tricks*200", "hearts*200", "eralash*400", "king*200"]\n', encoding="utf-8")
    rules = load_rules(str(template))
    played = [p for p, _dealer in play_game(rules, random.Random(3))]
    rows = [f'\n[[deals]]\ngame = "{p.game}"\npoints = {list(p.points)}\n' for p in played]
    del rows[150]  # a deal left out, and one written twice: the sequence check has work to do
    rows.insert(700, rows[699])
    names = ", ".join(f'"P{k}"' for k in range(1, 9))
    game = tmp_path / "g.toml"
    game.write_text(game_text(rules="e8.toml", players=names, deals="".join(rows)), encoding="utf-8")
    before = len(PEAKS)
    res = kingsheet("check", str(game), timeout=60)
    said = res.stdout + res.stderr
    assert res.returncode == 1 and "is missing" in said and "copy of deal 700" in said, said[-800:]
    assert kingsheet("export", str(game), "-o", str(tmp_path / "g.pdf"), "--force", timeout=60).returncode in (0, 1)
    assert (tmp_path / "g.pdf").stat().st_size > 0
    assert max(PEAKS[before:]) < MEMORY_MB


def test_a_photo_past_sixteen_megapixels_is_decoded_smaller_or_refused(tmp_path):
    """A blank needs no more than 16 MP: a bigger JPEG (a 48 MP phone photo) is decoded at half or a
    quarter of its size, in that much memory; a bigger picture of another kind is one sentence."""
    cv2 = pytest.importorskip("cv2")
    import numpy as np

    from kingsheet.scan.page import READ_PIXELS, load, reduction

    assert [reduction(s) for s in ((4000, 4000), (4001, 4000), (8000, 6000), (8001, 8000))] == [1, 2, 2, 4]
    big = np.full((6000, 7000), 200, np.uint8)
    big[1000:1100, :] = 0
    jpeg = tmp_path / "big.jpg"
    jpeg.write_bytes(cv2.imencode(".jpg", big)[1].tobytes())
    img = load(jpeg)
    assert img.shape[:2] == (3000, 3500) and img.shape[0] * img.shape[1] <= READ_PIXELS
    assert img[525, 100].min() < 60 and img[100, 100].min() > 150  # the picture, at half its size
    png = tmp_path / "big.png"
    png.write_bytes(cv2.imencode(".png", big)[1].tobytes())
    one_sentence(_scan(png), "big.png", "at most 16 megapixels")


@pytest.mark.parametrize("name", ["far.xlsx", "many.xlsx", "long.xlsx"])
def test_a_costly_workbook_is_read_within_its_sheet_in_bounded_memory(tmp_path, name):
    """The workbooks of the attack, each under the byte limits: `kingsheet import` reads what the
    sheet holds, or refuses it in one sentence, in at most 200 MB (the process's peak, measured)."""
    from costly import costly_workbooks

    from kingsheet.files.gamefile import load_game

    data, reads = costly_workbooks()[name]
    path = tmp_path / name
    path.write_bytes(data)
    out = tmp_path / "out.toml"
    # VmHWM: this process's own peak (ru_maxrss would count the test process it was forked from)
    script = ("import sys\nfrom kingsheet.cli import main\nsys.argv = ['kingsheet'] + sys.argv[1:]\n"
              "try:\n    main()\nfinally:\n"
              "    hwm = [l for l in open('/proc/self/status') if l.startswith('VmHWM:')][0].split()[1]\n"
              "    print('peak', hwm, file=sys.stderr)\n")
    r = subprocess.run([sys.executable, "-c", script, "import", str(path), "-o", str(out), "--lang", "en"],
                       capture_output=True, text=True, timeout=120)
    peak_mb = int(r.stderr.rsplit("peak", 1)[1]) / 1024
    said = r.stderr.rsplit("peak", 1)[0].strip()
    assert peak_mb < 200, f"{name}: {peak_mb:.0f} MB"
    if reads:
        assert r.returncode == 0 and out.exists(), said
        assert list(load_game(out).players) == ["Аня", "Боря", "Вася", "Галя"]
    else:
        assert r.returncode == 2 and not out.exists()
        assert said.startswith(f"kingsheet: {path}: the workbook holds 9000") and "\n" not in said
        assert said.endswith(" cells, more than a score sheet can hold (150000); not read")
