"""A club's history (`kingsheet club`): a small club worked by hand, then a generated year of
evenings for the properties the ledger must keep (it sums to zero, it is every evening's settlement
less the payments, and it does not depend on the order the files were indexed in)."""

from __future__ import annotations

import json
import random
import shutil
import sys
from decimal import Decimal
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kingsheet.cli.app import app
from kingsheet.club.config import load_club
from kingsheet.club.index import INDEX_FILE, opened, update
from kingsheet.club.queries import Period, files, ledger, period, player, standings

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples"))


def _evening(source: str, date: str, stake: str, method: str, names: dict[str, str] | None = None) -> str:
    text = (ROOT / "examples" / source).read_text(encoding="utf-8")
    text = text.replace("date = 2026-11-27", f"date = {date}").replace('stake = "0.50"', f'stake = "{stake}"')
    text = text.replace('method = "pairwise"', f'method = "{method}"')
    for old, new in (names or {}).items():
        text = text.replace(f'"{old}"', f'"{new}"')
    return text


@pytest.fixture
def club(tmp_path) -> Path:
    """Three evenings worked by hand (two rule systems, «Анна» an alias of «Аня», one payment),
    and the files a real folder has besides: a copy of an evening, a game in progress, a broken
    file, a house template."""
    folder = tmp_path / "club"
    folder.mkdir()
    (folder / "2026-11-27.toml").write_text(_evening("blank-4.toml", "2026-11-27", "0.50", "pairwise"), encoding="utf-8")
    (folder / "2026-11-28.toml").write_text(
        _evening("blank-4.toml", "2026-11-28", "1", "pot", {"Аня": "Анна"}), encoding="utf-8")
    (folder / "2026-12-01.toml").write_text(_evening("ordered-56.toml", "2026-12-01", "0.50", "pairwise"),
                                            encoding="utf-8")
    shutil.copy(folder / "2026-11-27.toml", folder / "friday-copy.toml")  # the same game saved twice
    unfinished = _evening("blank-4.toml", "2026-12-02", "1", "pairwise")
    (folder / "2026-12-02.toml").write_text(unfinished[: unfinished.index("[[deals]]", 400)], encoding="utf-8")
    (folder / "broken.toml").write_text("players = [", encoding="utf-8")
    shutil.copy(ROOT / "examples" / "house" / "king-x10.toml", folder / "our-king.toml")
    (folder / "club.toml").write_text(
        'name = "Пятничный Кинг"\naliases = ["Аня = Анна"]\n\n[[seasons]]\nname = "зима"\nfrom = 2026-11-28\n'
        'to = 2027-02-28\n\n[[paid]]\nfrom = "Вася"\nto = "Боря"\namount = "10"\ndate = 2026-11-30\n',
        encoding="utf-8")
    return folder


def _indexed(folder: Path):
    c = load_club(folder)
    with opened(folder) as conn:
        update(conn, folder)
        yield c, conn


def test_the_hand_worked_standings(club):
    for c, conn in _indexed(club):
        table = standings(conn, c, Period())
        # money at each game's own stake and method: 0.50 pairwise, 1 through the pot, 0.50 pairwise
        assert [(r["player"], r["evenings"], r["won"], r["money"]["RUB"]) for r in table["standings"]] == [
            ("Боря", 3, 3, "311"), ("Галя", 3, 0, "19"), ("Вася", 3, 0, "-158"), ("Аня", 3, 0, "-172")]
        assert all(r["points"] is None for r in table["standings"])  # points only within one rule system
        blank = standings(conn, c, Period(rules="blank-4"))["standings"]
        assert {r["player"]: (r["points"], r["points_per_evening"]) for r in blank} == {
            "Боря": (74, 37), "Галя": (50, 25), "Вася": (-60, -30), "Аня": (-64, -32)}
        winter = standings(conn, c, period(c, "зима", None, None, None))["standings"]
        assert {r["player"]: r["money"]["RUB"] for r in winter} == {"Боря": "237", "Галя": "-31", "Вася": "-98",
                                                                    "Аня": "-108"}
        assert [r["evenings"] for r in standings(conn, c, period(c, "2026", None, "2026-11-27", None))["standings"]] == [1] * 4


def test_the_hand_worked_ledger(club):
    for c, conn in _indexed(club):
        (rub,) = ledger(conn, c)["ledgers"]
        # −64 −32 −76 = −172; 74 + 37 + 200 − 10 paid = 301; −60 −30 −68 + 10 = −148; 50 + 25 − 56 = 19
        assert rub["balances"] == {"Боря": "301", "Галя": "19", "Вася": "-148", "Аня": "-172"}
        assert rub["evenings"] == 3 and len(rub["transfers"]) == 3 and rub["fewest_exact"]
        settled = {p: Decimal(v) for p, v in rub["balances"].items()}
        for t in rub["transfers"]:
            settled[t["from"]] += Decimal(t["amount"])
            settled[t["to"]] -= Decimal(t["amount"])
        assert set(settled.values()) == {Decimal(0)}


def test_the_hand_worked_player(club):
    for c, conn in _indexed(club):
        anya = player(conn, c, "анна", Period(rules="blank-4"), "ru")  # any alias, any case
        assert anya["player"] == "Аня" and anya["evenings"] == 2 and anya["won"] == 0
        king = next(g for g in anya["games"]["blank-4"] if g["game"] == "king")
        assert king == {"game": "king", "label": "Кинг", "deals": 2, "average": -16, "worst_share": 100}
        tricks = next(g for g in anya["games"]["blank-4"] if g["game"] == "tricks")
        assert tricks["average"] == -4 and tricks["worst_share"] == 0  # −4 of −6, −6, 0: not the worst
        assert anya["best"]["money"] == "-32" and anya["worst"]["money"] == "-64"
        assert {h["player"]: (h["ahead"], h["behind"]) for h in anya["head_to_head"]} == {
            "Боря": (0, 2), "Вася": (0, 2), "Галя": (0, 2)}
        borya = player(conn, c, "Бор", Period(), "en")
        assert borya["streak"] == {"longest": 3, "current": 3}


def test_files_that_do_not_count_are_listed_and_kept_out(club):
    for _c, conn in _indexed(club):
        got = {f["file"]: f["status"] for f in files(conn)["files"]}
        assert got == {"2026-11-27.toml": "final", "2026-11-28.toml": "final", "2026-12-01.toml": "final",
                       "2026-12-02.toml": "unfinished", "broken.toml": "unreadable",
                       "friday-copy.toml": "duplicate"}  # and the house template is not a game


def test_the_index_follows_the_folder(club):
    for c, conn in _indexed(club):
        assert update(conn, club).read == 0  # nothing changed: nothing read
        (club / "2026-11-28.toml").unlink()
        assert update(conn, club).removed == 1
        assert standings(conn, c, Period())["standings"][0]["evenings"] == 2
        (club / "friday-copy.toml").unlink()  # its twin still holds the game
        update(conn, club)
        assert standings(conn, c, Period())["standings"][0]["evenings"] == 2


def test_a_damaged_index_is_made_again(club):
    for _c, _conn in _indexed(club):
        pass
    (club / INDEX_FILE).write_bytes(b"not a database at all" * 100)
    for c, conn in _indexed(club):
        assert len(standings(conn, c, Period())["standings"]) == 4


def test_the_commands(club, tmp_path):
    run = CliRunner()
    out = run.invoke(app, ["club", "standings", "--dir", str(club), "--lang", "ru"])
    assert out.exit_code == 0, out.output
    assert "Пятничный Кинг" in out.stdout and "+311 ₽" in out.stdout
    assert "broken.toml: не прочитан" in out.stderr and "2026-12-02.toml: игра не закончена" in out.stderr
    data = json.loads(run.invoke(app, ["club", "ledger", "--dir", str(club), "--json"]).stdout)
    assert data["ledgers"][0]["balances"]["Боря"] == "301"
    paid = run.invoke(app, ["club", "paid", "вася", "Бор", "12,50", "--dir", str(club), "--date", "2026-12-02"])
    assert paid.exit_code == 0, paid.output
    data = json.loads(run.invoke(app, ["club", "ledger", "--dir", str(club), "--json"]).stdout)
    assert data["ledgers"][0]["balances"]["Боря"] == "288.50" and len(data["payments"]) == 2
    assert '[[paid]]\nfrom = "Вася"\nto = "Боря"\namount = "12.50"' in (club / "club.toml").read_text(encoding="utf-8")
    text = run.invoke(app, ["club", "player", "Галя", "--dir", str(club), "--lang", "en"])
    assert text.exit_code == 0 and "ahead" in text.stdout and "Галя" in text.stdout
    pdf = tmp_path / "club.pdf"
    assert run.invoke(app, ["club", "report", "--dir", str(club), "-o", str(pdf)]).exit_code == 0
    from pypdf import PdfReader

    words = PdfReader(str(pdf)).pages[0].extract_text()
    assert "Пятничный Кинг" in words and "Боря" in words
    # refusals: one sentence, exit 2, nothing written
    for args in (["club", "standings", "--dir", str(club), "--season", "лето"],
                 ["club", "standings", "--dir", str(club), "--from", "вчера"],
                 ["club", "player", "Зина", "--dir", str(club)],
                 ["club", "paid", "Вася", "Вася", "5", "--dir", str(club)],
                 ["club", "paid", "Вася", "Боря", "-5", "--dir", str(club)],
                 ["club", "standings", "--dir", str(tmp_path / "nowhere")]):
        before = (club / "club.toml").read_bytes()
        got = run.invoke(app, args)
        assert got.exit_code == 2 and "Traceback" not in got.output, (args, got.output)
        assert (club / "club.toml").read_bytes() == before


def test_a_bad_club_file_is_one_sentence(club):
    run = CliRunner()
    for text in ('aliases = ["Аня = Боря", "Боря = Вася"]\n', "name = 5\n", "colour = 1\n",
                 '[[seasons]]\nname = "x"\nfrom = 2026-05-01\nto = 2026-01-01\n',
                 '[[paid]]\nfrom = "А"\nto = "Б"\namount = "-1"\n', "name = [\n"):
        (club / "club.toml").write_text(text, encoding="utf-8")
        got = run.invoke(app, ["club", "ledger", "--dir", str(club)])
        assert got.exit_code == 2 and "club.toml" in got.output and "Traceback" not in got.output, text


# ---- a generated year ------------------------------------------------------------------------

@pytest.fixture(scope="module")
def year(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("year") / "club"
    from make_examples import write_club

    write_club(folder, 60, 7)
    return folder


def _independent_ledger(folder: Path) -> dict[str, Decimal]:
    """Each file settled as `kingsheet settle` settles it (not through the index), once per game,
    finished and clean games only, less the payments."""
    from kingsheet.core.money import settlement_of
    from kingsheet.core.verify import verify
    from kingsheet.files.gamefile import load_game

    total: dict[str, Decimal] = {}
    seen = set()
    for path in sorted(folder.glob("*.toml")):
        if path.name in ("club.toml", "copy-of-first.toml"):
            continue
        try:
            report = verify(load_game(path))
        except Exception:  # noqa: BLE001 - the torn file
            continue
        if not (report.complete and report.ok) or path.read_bytes() in seen:
            continue
        seen.add(path.read_bytes())
        for p, v in settlement_of(report).settled.items():  # type: ignore[union-attr]
            total[p] = total.get(p, Decimal(0)) + v
    total["Аня"] += Decimal("3.30")
    total["Боря"] -= Decimal("3.30")
    return {p: v for p, v in total.items()}


def test_the_ledger_of_a_year_is_every_evening_less_the_payments(year):
    c = load_club(year)
    with opened(year) as conn:
        update(conn, year, jobs=2)
        (rub,) = ledger(conn, c)["ledgers"]
    balances = {p: Decimal(v) for p, v in rub["balances"].items()}
    assert sum(balances.values()) == 0
    assert balances == {p: v for p, v in _independent_ledger(year).items()}
    assert rub["evenings"] >= 50


def test_the_ledger_does_not_depend_on_the_order_files_were_indexed(year, tmp_path):
    c = load_club(year)
    with opened(year) as conn:
        update(conn, year)
        first = ledger(conn, c)
    again = tmp_path / "shuffled"
    again.mkdir()
    rng = random.Random(3)
    paths = sorted(year.glob("*.toml"))
    names = [f"{k:03d}.toml" for k in range(len(paths))]
    rng.shuffle(names)
    for path, name in zip(paths, names, strict=True):
        shutil.copy(path, again / ("club.toml" if path.name == "club.toml" else name))
    # indexed bit by bit, in another order, with a change made and undone on the way
    with opened(again) as conn:
        update(conn, again)
        some = sorted(again.glob("0*.toml"))[:3]
        kept = some[0].read_text(encoding="utf-8")
        some[0].write_text(kept.replace("[[deals]]", "# edited\n[[deals]]", 1), encoding="utf-8")
        update(conn, again)
        second = ledger(conn, load_club(again))
    assert first["ledgers"] == second["ledgers"]
    assert c.name == "club"


def test_the_words_for_an_empty_club_and_for_payments(tmp_path, club):
    from kingsheet.render.club import ledger_text, player_text, standings_text

    empty = tmp_path / "empty"
    empty.mkdir()
    for c, conn in _indexed(empty):
        assert "no finished game in this period" in standings_text(standings(conn, c, Period()), "en")
        assert "nobody owes anything" in ledger_text(ledger(conn, c), "en")
        with pytest.raises(Exception, match="no finished game"):
            player(conn, c, "Аня", Period(), "en")
    for c, conn in _indexed(club):
        text = ledger_text(ledger(conn, c), "ru")
        assert "записанные платежи:" in text and "2026-11-30 Вася → Боря 10 ₽" in text
        page = player_text(player(conn, c, "Боря", Period(), "ru"), "ru")
        assert "лучший вечер" in page and "против" in page


def test_the_index_goes_to_the_user_data_folder_when_the_games_folder_is_read_only(club, monkeypatch, tmp_path):
    import kingsheet.club.index as index

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setattr(index.os, "access", lambda path, mode: False)
    where = index.index_path(club)
    assert where.parent == tmp_path / "data" / "kingsheet" / "clubs" and where.suffix == ".sqlite"
    for c, conn in _indexed(club):
        assert len(standings(conn, c, Period())["standings"]) == 4
    assert not (club / INDEX_FILE).exists()


def test_an_index_of_another_layout_is_made_again(club):
    import sqlite3

    conn = sqlite3.connect(club / INDEX_FILE)
    conn.executescript("CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT); INSERT INTO meta VALUES ('schema', '0');")
    conn.commit()
    conn.close()
    for c, conn in _indexed(club):
        assert standings(conn, c, Period())["standings"][0]["player"] == "Боря"


def test_games_in_subfolders_count_and_hidden_ones_do_not(club):
    (club / "2025").mkdir()
    shutil.move(club / "2026-11-28.toml", club / "2025" / "2026-11-28.toml")
    (club / ".trash").mkdir()
    shutil.copy(club / "2026-12-01.toml", club / ".trash" / "old.toml")
    for _c, conn in _indexed(club):
        listed = {f["file"] for f in files(conn)["files"]}
        assert "2025/2026-11-28.toml" in listed and not any(f.startswith(".trash") for f in listed)


def test_the_files_command_and_a_club_without_a_folder(club, monkeypatch):
    run = CliRunner()
    text = run.invoke(app, ["club", "files", "--dir", str(club)])
    assert text.exit_code == 0 and "broken.toml: not read: " in text.stdout
    data = json.loads(run.invoke(app, ["club", "files", "--dir", str(club), "--json"]).stdout)
    assert {f["status"] for f in data["files"]} == {"final", "unfinished", "unreadable", "duplicate"}
    nowhere = run.invoke(app, ["club", "ledger"])
    assert nowhere.exit_code == 2 and "--dir" in nowhere.output
    monkeypatch.setenv("KINGSHEET_FILE", str(club / "2026-11-27.toml"))  # the current game's folder
    assert json.loads(run.invoke(app, ["club", "ledger", "--json"]).stdout)["club"] == "Пятничный Кинг"


# ---- hostile input, third round: a held lock, tampered figures, links out, odd payments, look-alikes ---

def _run(*args: str) -> object:
    return CliRunner().invoke(app, list(args), catch_exceptions=False)


def test_a_lock_held_by_another_process_is_waited_for_and_said_never_deleted(club, monkeypatch):
    import sqlite3
    import subprocess
    import textwrap

    import kingsheet.club.index as index

    assert _run("club", "ledger", "--dir", str(club), "--lang", "en").exit_code == 0
    path = club / INDEX_FILE
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import sqlite3, sys, time
        conn = sqlite3.connect({str(path)!r}, isolation_level=None)
        conn.execute("BEGIN EXCLUSIVE")
        print("held", flush=True)
        sys.stdin.readline()
        conn.execute("INSERT INTO meta VALUES ('other', 'x')")
        conn.execute("COMMIT")
        print("committed", flush=True)
    """)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        inode = path.stat().st_ino
        monkeypatch.setattr(index, "LOCK_SECONDS", 0.5)
        r = _run("club", "ledger", "--dir", str(club), "--lang", "en")
        assert r.exit_code == 2
        assert "index is in use by another kingsheet command" in r.output and "Traceback" not in r.output
        assert len(r.output.strip().splitlines()) == 1
        assert path.exists() and path.stat().st_ino == inode  # not taken for damage
        holder.stdin.write("\n")
        holder.stdin.flush()
        assert holder.stdout.readline().strip() == "committed"  # the other process's commit went through
    finally:
        holder.kill()
        holder.wait(10)
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT value FROM meta WHERE key = 'other'").fetchone() == ("x",)
    assert _run("club", "ledger", "--dir", str(club), "--lang", "en").exit_code == 0


@pytest.mark.parametrize("tamper", [
    "UPDATE results SET minor = minor + 1000 WHERE seat = 0",
    "UPDATE results SET won = 1 - won",
    "DELETE FROM games WHERE id = (SELECT MIN(id) FROM games)",
])
def test_figures_changed_by_hand_in_the_index_are_made_again_from_the_files(club, tamper):
    import sqlite3

    before = _run("club", "ledger", "--dir", str(club), "--json")
    assert before.exit_code == 0
    with sqlite3.connect(club / INDEX_FILE) as conn:
        conn.execute(tamper)
    r = CliRunner().invoke(app, ["club", "ledger", "--dir", str(club), "--json", "--lang", "en"],
                           catch_exceptions=False)
    assert r.exit_code == 0, r.output
    assert "did not add up (was it changed by hand?); it was made again from the game files" in r.stderr
    assert json.loads(r.stdout) == json.loads(before.stdout)
    for command in ("standings", "player Вася", "files"):
        assert _run("club", *command.split(), "--dir", str(club)).exit_code == 0


def test_a_link_to_a_game_outside_the_folder_is_not_counted(club, tmp_path):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "stranger.toml").write_text(
        _evening("blank-4.toml", "2026-11-29", "100", "pairwise", {"Аня": "Чужой"}), encoding="utf-8")
    (club / "stranger.toml").symlink_to(outside / "stranger.toml")
    (club / "away").symlink_to(outside, target_is_directory=True)
    (club / "inside-link.toml").symlink_to(club / "2026-11-27.toml")  # inside: the same game, counted once
    r = CliRunner().invoke(app, ["club", "ledger", "--dir", str(club), "--json", "--lang", "en"],
                           catch_exceptions=False)
    assert r.exit_code == 0
    assert "Чужой" not in r.stdout
    assert "stranger.toml: not read: a link to a file outside the club's folder: not counted" in r.stderr
    listed = json.loads(_run("club", "files", "--dir", str(club), "--json").stdout)
    names = {f["file"] for f in listed["files"]}
    assert "stranger.toml" in names and not any(n.startswith("away") for n in names)


@pytest.mark.parametrize(("amount", "currency", "words"), [
    ("0.001", "RUB", "0.001 cannot be paid in RUB: its smallest coin is 0.01 ₽"),
    ("10.005", "RUB", "10.005 cannot be paid in RUB"),
    ("1.5", "JPY", "1.5 cannot be paid in JPY"),
])
def test_a_payment_the_currency_cannot_pay_is_refused_both_ways_in(club, amount, currency, words):
    before = (club / "club.toml").read_text(encoding="utf-8")
    r = _run("club", "paid", "Вася", "Боря", amount, "--currency", currency, "--dir", str(club), "--lang", "en")
    assert r.exit_code == 2 and words in r.output, r.output
    assert (club / "club.toml").read_text(encoding="utf-8") == before
    (club / "club.toml").write_text(before + f'\n[[paid]]\nfrom = "Вася"\nto = "Боря"\namount = "{amount}"\n'
                                             f'currency = "{currency}"\n', encoding="utf-8")
    r = _run("club", "ledger", "--dir", str(club), "--lang", "en")
    assert r.exit_code == 2 and "club.toml: payment 2 " + words in r.output, r.output


@pytest.mark.parametrize(("payer", "payee", "words"), [
    ("Вася", "Вася", "payment 2 is from Вася to Вася; a payment is from one player to another"),
    ("Аня", "Анна", "payment 2 is from Аня to Аня"),  # an alias is the same player
    ("Ваня", "Боря", "payment 2 names Ваня, who plays in no game of the club"),
    ("Вася", "Незнакомка", "payment 2 names Незнакомка, who plays in no game of the club"),
])
def test_club_toml_takes_only_the_payments_club_paid_would(club, payer, payee, words):
    text = (club / "club.toml").read_text(encoding="utf-8")
    (club / "club.toml").write_text(text + f'\n[[paid]]\nfrom = "{payer}"\nto = "{payee}"\namount = "5"\n',
                                    encoding="utf-8")
    for command in ("ledger", "standings"):
        r = _run("club", command, "--dir", str(club), "--lang", "en")
        assert r.exit_code == 2 and words in r.output, r.output
        assert len(r.output.strip().splitlines()) == 1


def test_an_invisible_character_in_a_name_is_refused_and_look_alikes_are_said(club):
    hidden = _evening("blank-4.toml", "2026-11-29", "1", "pairwise", {"Аня": "А\u200bня"})
    (club / "hidden.toml").write_text(hidden, encoding="utf-8")
    latin = _evening("blank-4.toml", "2026-11-30", "1", "pairwise", {"Аня": "Aня"})  # a Latin A
    (club / "latin.toml").write_text(latin, encoding="utf-8")
    r = CliRunner().invoke(app, ["club", "standings", "--dir", str(club), "--lang", "en"], catch_exceptions=False)
    assert r.exit_code == 0
    assert "hidden.toml" in r.stderr and "control character (U+200B)" in r.stderr  # kept out, with the why
    assert ("«Аня» and «Aня» print alike and are probably one person («Aня» has Latin «A» where «Аня» has Cyrillic "
            "«А»); to count them as one, add to club.toml: aliases = [\"Аня = Aня\"]") in r.stderr
    ru = CliRunner().invoke(app, ["club", "standings", "--dir", str(club), "--lang", "ru"], catch_exceptions=False)
    assert "«Аня» и «Aня» пишутся одинаково" in ru.stderr
    text = (club / "club.toml").read_text(encoding="utf-8")
    (club / "club.toml").write_text(text.replace('aliases = ["Аня = Анна"]', 'aliases = ["Аня = Анна = Aня"]'),
                                    encoding="utf-8")
    r = CliRunner().invoke(app, ["club", "standings", "--dir", str(club), "--lang", "en"], catch_exceptions=False)
    assert "print alike" not in r.stderr  # joined by the alias line it gave


def test_invisible_characters_are_hidden_and_look_alike_skeletons():
    from kingsheet.club.lookalike import lookalikes, skeleton
    from kingsheet.core.problems import first_hidden

    for ch in ("\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u3164", "\u2800", "\u115f"):
        assert first_hidden(f"А{ch}ня") == ch
    assert first_hidden("Анна-Мария О'Нил Ёж 😀") is None
    assert skeleton("Аня") == skeleton("Aня") == skeleton("Αня")  # Cyrillic, Latin, Greek capital A
    assert skeleton("Кира") == skeleton("Kира") and skeleton("Ира") != skeleton("Кира")
    assert skeleton("Вася  Пупкин") == skeleton("Вася Пупкин")
    assert lookalikes(["Аня", "Боря", "Вася"]) == []
    assert len(lookalikes(["Аня", "Aня", "Αня"])) == 2


def test_club_files_says_how_each_file_counts_in_the_players_language(club):
    for lang, words, leaks in (("ru", ("учитывается", "не закончена", "не прочитан", "та же игра"), ("final", "duplicate")),
                               ("en", ("counted", "in progress, not counted", "not read", "the same game"), ())):
        out = _run("club", "files", "--dir", str(club), "--lang", lang).stdout
        for w in words:
            assert w in out, (lang, w, out)
        for w in ("final", "duplicate", "unfinished", "problems", "unreadable") if lang == "ru" else leaks:
            assert f": {w}" not in out, (lang, w, out)
        assert "2026-11-27.toml: " + ("учитывается" if lang == "ru" else "counted") in out
