"""Scorekeeping at the table: new, deal, edit, undo, show, play — as a user types them."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import EXAMPLES
from kingsheet.cli.app import app
from kingsheet.core.verify import verify
from kingsheet.files.gamefile import load_game

PLAYERS = "Аня,Боря,Вася,Галя"


def run(runner, *args, input=None):
    return runner.invoke(app, [str(a) for a in args], input=input)


@pytest.fixture
def game(runner, tmp_path) -> Path:
    path = tmp_path / "friday.toml"
    res = run(runner, "new", path, "--rules", "blank-4", "--players", PLAYERS, "--stake", "0.50")
    assert res.exit_code == 0, res.output
    assert res.stdout == (f"{path}: new blank-4 game for Аня, Боря, Вася, Галя; 12 deals. "
                          "First: Tricks, Аня deals.\n")
    return path


# the paper of examples/blank-4.toml, typed deal by deal
EVENING = [
    ["tricks", "-4", "-6", "-6", "0"],
    ["-4", "-4", "0", "-8"],
    ["мальчики", "0", "-4", "0", "-12"],
    ["Девочки", "0", "-8", "-4", "-4"],
    ["-16", "0", "0", "0"],
    ["0", "-16", "0", "0"],
    ["--taken", "Аня: tricks=3 hearts=3 boys=2 girls=2; Б: взятки=1 мальчики=1 девочки=1; "
                "Вася: tricks=3 hearts=5 boys=1 girls=1 king=1 last=2; Галя: tricks=1"],
    ["2", "46", "24", "24"],
    ["3", "15", "0", "6", "--contract", "трефы"],
    ["3", "3", "3", "15"],
    ["0", "21", "3", "0"],
    ["12", "0", "6", "6"],
]


def test_full_evening_by_cli_matches_the_paper(runner, game):
    for args in EVENING:
        res = run(runner, "deal", *args)
        assert res.exit_code == 0, (args, res.output)
    assert "the sheet is complete: Аня −32, Боря 37, Вася −30, Галя 25" in res.stdout
    report = verify(load_game(game))
    assert report.ok and report.complete
    paper = verify(load_game(EXAMPLES / "blank-4.toml"))
    assert {p: t.total for p, t in report.totals.items()} == {p: t.total for p, t in paper.totals.items()}
    assert report.sums.total == 0
    assert [r.declarer for r in report.rows[8:]] == ["Боря", "Вася", "Галя", "Аня"]


def test_deal_output_names_the_next_game(runner, game):
    res = run(runner, "deal", "tricks", "-4", "0", "-8", "-4")
    assert res.exit_code == 0
    assert res.stdout == ("recorded deal 1 (Tricks): −4 0 −8 −4 = −16 ✓\n"
                          "next: deal 2, Hearts (−16); Боря deals\n")
    res = run(runner, "deal", "-4", "-4", "-4", "-4")
    assert res.stdout.startswith("game: Hearts\nrecorded deal 2 (Hearts)")


def test_refused_deal_leaves_file_byte_identical(runner, game):
    run(runner, "deal", "tricks", "-4", "0", "-8", "-4")
    before = game.read_bytes()
    res = run(runner, "deal", "hearts", "-4", "-4", "-4", "-2")
    assert res.exit_code == 1
    assert res.stderr.splitlines() == [
        f"{game.resolve()}: deal 2 (Hearts): row sums to −14, expected −16",
        f"{game.resolve()}: not recorded; the file is unchanged (use --force to record it anyway)"]
    assert game.read_bytes() == before
    res = run(runner, "deal", "boys", "-4", "-4", "-4", "-4")  # out of order: Черви comes first
    assert res.exit_code == 1 and "Boys" in res.stderr
    assert game.read_bytes() == before


def test_force_records_marked(runner, game):
    res = run(runner, "deal", "tricks", "-4", "0", "-8", "-2", "--force")
    assert res.exit_code == 0 and "✗ forced" in res.stdout
    assert "forced = true" in game.read_text(encoding="utf-8")
    assert run(runner, "check", game).exit_code == 1


@pytest.mark.parametrize("args, message, code", [
    (["tricks", "-4", "0", "-8"], "3 points given for 4 players", 2),
    (["tricks", "-4", "0", "x", "-4"], "'x' is not a whole number of points", 2),
    (["tricks", "-4", "0", "1.5", "-4"], "'1.5' is not a whole number of points", 2),
    (["шахматы", "0", "0", "0", "0"], "blank-4 has no game 'шахматы'", 2),
    (["--taken", "Дима: tricks=2"], "no player 'Дима' at the table", 2),
    (["--taken", "Аня: colour=2"], "unknown count 'colour'", 2),
    (["tricks", "-4", "0", "-8", "-4", "--declarer", "Дима"], "no player 'Дима'", 2),
])
def test_bad_deal_input_one_sentence_nothing_written(runner, game, args, message, code):
    before = game.read_bytes()
    res = run(runner, "deal", *args)
    assert res.exit_code == code
    assert message in res.stderr and "Traceback" not in res.output
    assert game.read_bytes() == before


def test_missing_file_and_other_format(runner, tmp_path):
    res = run(runner, "deal", tmp_path / "none.toml", "tricks", "-4", "0", "-8", "-4")
    assert res.exit_code == 2 and "no such file" in res.stderr
    f = tmp_path / "v2.toml"
    f.write_text('format = 2\nrules = "blank-4"\nplayers = ["А","Б","В","Г"]\n', encoding="utf-8")
    res = run(runner, "deal", f, "tricks", "-4", "0", "-8", "-4")
    assert res.exit_code == 2 and "format 2 is not supported" in res.stderr


def test_no_current_game(runner):
    res = run(runner, "deal", "tricks", "-4", "0", "-8", "-4")
    assert res.exit_code == 2
    assert "no current game: give the game file, or start one with 'kingsheet new'" in res.stderr


def test_new_refuses_to_overwrite(runner, game):
    res = run(runner, "new", game, "--rules", "blank-4", "--players", PLAYERS)
    assert res.exit_code == 2 and "already exists; use --force" in res.stderr
    res = run(runner, "new", game, "--rules", "blank-4", "--players", "А,Б,В")
    assert res.exit_code == 2 and "blank-4 is for 4 players; 3 are named" in res.stderr


def test_edit_any_deal_keeps_hand_comments(runner, game):
    run(runner, "deal", "tricks", "-4", "0", "-8", "-4")
    run(runner, "deal", "hearts", "-4", "-4", "-4", "-4")
    text = game.read_text(encoding="utf-8").replace('game = "tricks"', 'game = "tricks"  # Аня сдавала')
    text = text.replace("[money]", "# ставка по договорённости\n[money]")
    game.write_text(text, encoding="utf-8")
    res = run(runner, "edit", "1", "-8", "0", "-4", "-4")
    assert res.exit_code == 0, res.output
    assert res.stdout.startswith("corrected deal 1 (Tricks): −8 0 −4 −4 = −16 ✓")
    after = game.read_text(encoding="utf-8")
    assert "# Аня сдавала" in after and "# ставка по договорённости" in after
    assert "points = [-8, 0, -4, -4]" in after
    before = game.read_bytes()
    res = run(runner, "edit", "1", "-8", "0", "-4", "-2")
    assert res.exit_code == 1 and game.read_bytes() == before


def test_a_row_read_from_a_photo_is_to_confirm_until_a_person_enters_it(runner, game):
    """kingsheet scan marks a row it is unsure of (confirm = true, and a note saying why): check
    reports it at its deal and settle refuses the sheet; entering the row, as read or corrected,
    takes the mark and the reader's note away, and a note of the person's own stays."""
    run(runner, "deal", "tricks", "-4", "0", "-8", "-4")
    run(runner, "deal", "hearts", "-4", "-4", "-4", "-4")
    text = game.read_text(encoding="utf-8")
    marked = text.replace('points = [-4, 0, -8, -4]', 'points = [-4, 0, -8, -4]\nnote = "scan: confirm this row (62 % sure)"'
                          '\nconfirm = true')
    game.write_text(marked, encoding="utf-8")
    res = run(runner, "check")
    assert res.exit_code == 1 and "deal 1" in res.stderr and "not yet confirmed" in res.stderr
    assert run(runner, "settle", str(game)).exit_code != 0
    res = run(runner, "edit", "1", "-4", "0", "-8", "-4")  # as read: confirmed
    assert res.exit_code == 0, res.output
    after = game.read_text(encoding="utf-8")
    assert "confirm" not in after and "scan:" not in after
    assert run(runner, "check").exit_code == 0
    game.write_text(marked.replace('"scan: confirm this row (62 % sure)"', '"Аня спорила"'), encoding="utf-8")
    run(runner, "edit", "1", "-8", "0", "-4", "-4", "--note", "Аня спорила")
    assert "confirm" not in game.read_text(encoding="utf-8") and "Аня спорила" in game.read_text(encoding="utf-8")


def test_undo(runner, game):
    run(runner, "deal", "tricks", "-4", "0", "-8", "-4")
    res = run(runner, "undo")
    assert res.exit_code == 0 and res.stdout.startswith("removed deal 1")
    assert load_game(game).deals == ()
    res = run(runner, "undo")
    assert res.exit_code == 2 and "no deals to undo" in res.stderr


def test_show_plain_like_the_blank(runner, game):
    run(runner, "deal", "tricks", "-4", "0", "-8", "-4")
    res = run(runner, "show", "--lang", "ru")
    assert res.exit_code == 0
    lines = res.stdout.splitlines()
    assert lines[1].split() == ["№", "Игра", "Очки", "Аня", "Боря", "Вася", "Галя", "Сдаёт", "Объявляет"]
    assert lines[2].split() == ["1", "Взятки", "−16", "−4", "0", "−8", "−4", "Аня", "✓"]
    assert any(line.startswith("━━━") for line in lines)
    assert lines[-8].split() == ["12", "Козыри", "24", "Галя", "Аня"]
    assert "Лидер: Боря (0)" in res.stdout
    res = run(runner, "show", "--lang", "en")
    assert "Tricks" in res.stdout and "TOTAL (−)" in res.stdout and "Leader" in res.stdout


def test_show_marks_problem_rows(runner):
    res = run(runner, "show", EXAMPLES / "mistakes" / "sign-slipped.toml")
    assert res.exit_code == 1
    assert "✗ Галя: 8 has the wrong sign; row sums to 0, expected −16" in res.stdout


def test_play_re_asks_a_wrong_row_and_saves_each_deal(runner, game):
    typed = "\n".join(["-4 0 -8 -4", "-4 -4 -4 -2", "-4 -4 -4 -4", "мальчики 0 -4 0 -12", "quit"]) + "\n"
    res = run(runner, "play", input=typed)
    assert res.exit_code == 0, res.output
    out = res.stdout
    assert "deal 2: Hearts (−16), Боря deals — points: ✗ deal 2 (Hearts): row sums to −14, expected −16" in out
    assert "not recorded; type the row again" in out
    assert "3 deals saved in" in out
    assert [d.game for d in load_game(game).deals] == ["tricks", "hearts", "boys"]


def test_play_end_of_input_loses_nothing(runner, game):
    res = run(runner, "play", input="-4 0 -8 -4\n-4 -4 -4 -4\n")
    assert res.exit_code == 0
    assert "2 deals saved" in res.stdout
    assert len(load_game(game).deals) == 2


def test_play_taken_and_trumps(runner, game):
    lines = [" ".join(a for a in args if not a.startswith("--")) if "--taken" not in args else args[1]
             for args in EVENING[:8]]
    lines[0] = "-4 -6 -6 0"
    lines[2] = "0 -4 0 -12"
    lines[3] = "0 -8 -4 -4"
    lines += ["3 15 0 6", "3 3 3 15", "0 21 3 0", "12 0 6 6 declarer=Аня"]
    res = run(runner, "play", input="\n".join(lines) + "\n")
    assert res.exit_code == 0, res.output[-2000:]
    assert "the sheet is complete" in res.stdout
    assert verify(load_game(game)).ok


def test_help_has_examples(runner):
    for cmd in ("new", "deal", "edit", "undo", "show", "play", "check", "settle", "rules"):
        res = run(runner, cmd, "--help")
        assert res.exit_code == 0 and "Example: kingsheet" in res.stdout, cmd


def test_two_terminals_lose_no_deals(tmp_path):
    """Two processes add deals to one game at the same time; the lock keeps every deal."""
    import subprocess
    import sys

    from conftest import ROOT, free_order_template

    # any player may order here ([turn] orders = "free"), so each writer orders its own games
    free_order_template(tmp_path)
    path = tmp_path / "long.toml"
    path.write_text('format = 1\nrules = "free.toml"\nplayers = ["Аня", "Боря", "Вася", "Галя"]\n', encoding="utf-8")
    games = ["tricks", "hearts", "boys", "girls", "king", "last"]
    rows = {"tricks": "-4 -4 -4 -4", "hearts": "-4 -4 -4 -4", "boys": "-4 -4 -4 -4", "girls": "-4 -4 -4 -4",
            "king": "-16 0 0 0", "last": "-8 -8 0 0"}
    script = ("import subprocess, sys\n"
              "for g, pts in {pairs!r}:\n"
              "    r = subprocess.run([sys.executable, '-m', 'kingsheet.cli', 'deal', {path!r}, g, *pts.split(),"
              " '--orderer', {who!r}], capture_output=True, text=True)\n"
              "    assert r.returncode == 0, r.stderr\n")
    procs = [subprocess.Popen([sys.executable, "-c", script.format(pairs=[(g, rows[g]) for g in games],
                                                                     path=str(path), who=who)], cwd=ROOT)
             for who in ("Аня", "Боря")]
    assert [p.wait(timeout=120) for p in procs] == [0, 0]
    deals = load_game(path).deals
    assert len(deals) == 12
    assert sorted((d.orderer, d.game) for d in deals) == sorted((w, g) for w in ("Аня", "Боря") for g in games)


def test_table_commands_do_not_import_heavy_modules(game):
    import subprocess
    import sys

    from conftest import ROOT

    code = ("import sys; from typer.testing import CliRunner; from kingsheet.cli.app import app; r = CliRunner(); "
            f"r.invoke(app, ['deal', {str(game)!r}, 'tricks', '-4', '0', '-8', '-4']); "
            f"r.invoke(app, ['show', {str(game)!r}]); r.invoke(app, ['--help']); r.invoke(app, ['deal', '--help']); "
            "print([m for m in ('openpyxl', 'reportlab') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "[]"
    assert len(load_game(game).deals) == 1


def test_ordered_game_orderer_defaults_to_the_turn(runner, tmp_path):
    path = tmp_path / "o.toml"
    assert runner.invoke(app, ["new", str(path), "--rules", "ordered-56", "--players", PLAYERS]).exit_code == 0
    res = runner.invoke(app, ["deal", "-4", "-4", "-4", "-4"])
    assert res.exit_code == 2 and "name the game" in res.stderr
    assert runner.invoke(app, ["deal", "tricks", "-4", "-4", "-4", "-4"]).exit_code == 0
    res = runner.invoke(app, ["deal", "Кинг", "-16", "0", "0", "0", "--orderer", "Аня"])
    assert res.exit_code == 1 and "Аня is written, but Вася orders here (left of Боря, who deals)" in res.stderr
    assert runner.invoke(app, ["deal", "Кинг", "-16", "0", "0", "0", "--orderer", "Вася"]).exit_code == 0
    res = runner.invoke(app, ["play"], input="eralash+ 24 24 24 24\nquit\n")
    assert res.exit_code == 0, res.output
    assert [(d.orderer, d.game) for d in load_game(path).deals] == [
        ("Боря", "tricks"), ("Вася", "king"), ("Галя", "eralash+")]


def test_output_into_a_file_as_folder(runner, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    res = runner.invoke(app, ["blank", "--rules", "short", "-o", str(blocker / "b.pdf")])
    assert res.exit_code == 2 and "does not exist" in res.stderr


def test_current_game_remembered_in_the_user_data_dir(runner, tmp_path, monkeypatch):
    from kingsheet.files import current as ledger

    monkeypatch.delenv("KINGSHEET_STATE_DIR")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("HOME", str(tmp_path))
    path = tmp_path / "g.toml"
    assert runner.invoke(app, ["new", str(path), "--rules", "short", "--players", PLAYERS]).exit_code == 0
    assert ledger.current_game() == path.resolve()
    assert (ledger.state_dir() / "current").read_text(encoding="utf-8") == str(path.resolve())
    monkeypatch.setenv("KINGSHEET_FILE", str(tmp_path / "other.toml"))
    assert ledger.current_game() == tmp_path / "other.toml"
    res = runner.invoke(app, ["show"])
    assert res.exit_code == 2 and "other.toml: no such file" in res.stderr


def test_saving_keeps_the_files_mode(runner, game):
    game.chmod(0o600)
    assert runner.invoke(app, ["deal", "tricks", "-4", "0", "-8", "-4"]).exit_code == 0
    assert game.stat().st_mode & 0o777 == 0o600


def test_shell_completion_of_templates_games_and_players(game):
    from kingsheet.cli.app import complete_games, complete_players, complete_rules

    assert complete_rules("bl") == ["blank-4"]
    assert "Девочки" in complete_games("Де") and "girls" in complete_games("gi")
    assert complete_players("Б") == ["Боря"]


def test_an_evening_stays_in_the_prompt(runner, tmp_path):
    """Every table command inside `play`: a typo with a suggestion, edit of any deal, undo saying
    what it removed, show, check, settle with the game's stake, and at the end the sheet, the money
    and how to print it."""
    path = tmp_path / "friday.toml"
    assert runner.invoke(app, ["new", str(path), "--rules", "blank-4", "--players", PLAYERS,
                               "--stake", "0.50"]).exit_code == 0
    rows = ["-4 -6 -2 -4", "-6 0 -8 -2", "-4 -8 0 -4", "0 -4 -8 -4", "0 0 -16 0", "-8 0 0 -8",
            "-24 -24 -24 -24", "40 8 24 24", "12 6 6 0", "6 9 9 0", "3 6 9 6"]
    script = ["малчики 0 -8 -4 -4", *rows[:3], "edit 2 -8 0 -6 -2", "undo", rows[2], "check", "show",
              *rows[3:], "settle", "9 3 3 9"]
    res = runner.invoke(app, ["play", str(path)], input="\n".join(script) + "\n")
    out = res.output
    assert res.exit_code == 0, out
    assert "no game «малчики» in blank-4; did you mean «Мальчики»?" in out
    assert "✓ deal 2 corrected" in out and "removed deal 3 (Boys: −4 −8 0 −4)" in out
    assert "1:Аня (deals)   2:Боря (turn)" in out  # the seating above the first prompt
    assert "the sheet is complete" in out and "to print it: kingsheet export" in out
    assert "0.50" in out and "→" in out  # the settlement, with the game's stake
    assert "Traceback" not in out
    deals = load_game(path).deals
    assert len(deals) == 12 and deals[1].points == (-8, 0, -6, -2)


def test_after_the_last_deal_the_prompt_stays_open_for_a_correction(runner, tmp_path):
    """«That King was mine», noticed when the money is shown: edit and undo still work at the end,
    the sheet is shown once after the last deal (with the money), again after a correction, and a
    row typed at a full sheet is refused in a sentence."""
    path = tmp_path / "friday.toml"
    assert runner.invoke(app, ["new", str(path), "--rules", "blank-4", "--players", PLAYERS]).exit_code == 0
    rows = ["-4 -6 -2 -4", "-6 0 -8 -2", "-4 -8 0 -4", "0 -4 -8 -4", "0 0 -16 0", "-8 0 0 -8",
            "-24 -24 -24 -24", "40 8 24 24", "12 6 6 0", "6 9 9 0", "3 6 9 6", "9 3 3 9"]
    script = [*rows, "1 2 3 4", "edit 5 -16 0 0 0", "settle", "quit"]
    res = runner.invoke(app, ["play", str(path)], input="\n".join(script) + "\n")
    out = res.output
    assert res.exit_code == 0, out
    assert out.count("the sheet is complete\n") == 0  # said once, by the sheet's summary (issue 67)
    assert out.count("\ncomplete; all consistent") == 2  # at the last deal, and after the correction
    assert out.count("expected TOTAL (−)") == 11 + 2  # a sheet after each deal but the last, and at each end
    assert "the sheet is complete: correct a deal with edit N …, remove the last with undo, or quit" in out
    assert "✓ deal 5 corrected" in out and "12 deals saved" in out
    assert load_game(path).deals[4].points == (-16, 0, 0, 0)
    # end of input at a full sheet ends it too, with the sheet's verdict
    res = runner.invoke(app, ["play", str(path)], input="")
    assert res.exit_code == 0 and "the sheet is complete" in res.output


def test_check_settle_and_export_use_the_current_game(runner, tmp_path):
    path = tmp_path / "g.toml"
    assert runner.invoke(app, ["new", str(path), "--rules", "blank-4", "--players", PLAYERS]).exit_code == 0
    assert runner.invoke(app, ["deal", "-4", "-6", "-2", "-4"]).exit_code == 0
    res = runner.invoke(app, ["check"])
    assert res.exit_code == 0 and f"the current game, {path.resolve()}" in res.stderr
    assert runner.invoke(app, ["settle", "--force"]).exit_code == 0
    res = runner.invoke(app, ["export", "-o", str(tmp_path / "g.pdf")])
    assert res.exit_code == 0 and (tmp_path / "g.pdf").stat().st_size > 1000


def test_lock_files_do_not_pile_up_beside_the_games(runner, tmp_path):
    path = tmp_path / "g.toml"
    assert runner.invoke(app, ["new", str(path), "--rules", "blank-4", "--players", PLAYERS]).exit_code == 0
    for row in (["-4", "-6", "-2", "-4"], ["-6", "0", "-8", "-2"]):
        assert runner.invoke(app, ["deal", *row]).exit_code == 0
    assert runner.invoke(app, ["undo"]).exit_code == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.toml"]


def test_a_note_is_shown_wherever_the_deal_is(runner, tmp_path):
    from openpyxl import load_workbook
    from pypdf import PdfReader

    path = tmp_path / "g.toml"
    assert runner.invoke(app, ["new", str(path), "--rules", "blank-4", "--players", PLAYERS]).exit_code == 0
    assert runner.invoke(app, ["deal", "-4", "-6", "-2", "-4", "--note", "Боря сдал с ошибкой"]).exit_code == 0
    assert "✓ · Боря сдал с ошибкой" in runner.invoke(app, ["show"]).stdout
    runner.invoke(app, ["export", "-o", str(tmp_path / "g.xlsx")])
    assert load_workbook(tmp_path / "g.xlsx").worksheets[0]["B6"].comment.text == "Боря сдал с ошибкой"
    runner.invoke(app, ["export", "-o", str(tmp_path / "g.pdf")])
    text = "".join(PdfReader(tmp_path / "g.pdf").pages[0].extract_text().split())
    assert "Борясдалсошибкой" in text


def test_points_typed_without_a_sign_take_the_games_minus_as_on_the_phone(runner, tmp_path):
    """`deal 4 4 4 4` on Черви used to print five errors; the phone takes magnitudes, and so do
    the command line and the prompt now, saying once that the sign was added."""
    path = tmp_path / "g.toml"
    assert runner.invoke(app, ["new", str(path), "--rules", "blank-4", "--players", PLAYERS]).exit_code == 0
    res = runner.invoke(app, ["deal", str(path), "4", "6", "6", "0"])
    assert res.exit_code == 0 and res.output.count("the points take the sign of Tricks (minus)") == 1
    res = runner.invoke(app, ["deal", str(path), "-4", "-4", "0", "-8"])  # signed: nothing said
    assert res.exit_code == 0 and "take the sign" not in res.output
    res = runner.invoke(app, ["edit", str(path), "2", "4", "4", "8", "0"])
    assert res.exit_code == 0 and "take the sign of Hearts" in res.output
    assert [d.points for d in load_game(path).deals] == [(-4, -6, -6, 0), (-4, -4, -8, 0)]
    res = runner.invoke(app, ["deal", str(path), "4", "4", "4", "2"])  # still checked: −14
    assert res.exit_code == 1 and "row sums to −14, expected −16" in res.output
    res = runner.invoke(app, ["play", str(path)], input="0 4 0 12\nedit 3 4 0 0 12\nquit\n")
    assert "the points take the sign of Boys (minus)" in res.output and "✓ deal 3 corrected" in res.output
    assert load_game(path).deals[2].points == (-4, 0, 0, -12)
    # trump deals score plus: nothing to add there
    empty = tmp_path / "e.toml"
    assert runner.invoke(app, ["new", str(empty), "--rules", "blank-4", "--players", PLAYERS]).exit_code == 0
    res = runner.invoke(app, ["play", str(empty)], input="edit 5 1 2 3 4\nquit\n")
    assert "no deal has been entered yet, so none can be corrected" in res.output


def test_a_mistyped_game_or_rules_gets_a_suggestion_and_a_full_sheet_says_so(runner, tmp_path):
    path = tmp_path / "g.toml"
    assert runner.invoke(app, ["new", str(path), "--rules", "blank-4", "--players", PLAYERS]).exit_code == 0
    res = runner.invoke(app, ["deal", str(path), "hreats", "4", "4", "0", "8"])
    assert res.exit_code == 2 and "blank-4 has no game 'hreats'; did you mean «Hearts»?" in res.output
    res = runner.invoke(app, ["new", str(tmp_path / "h.toml"), "--rules", "blank4", "--players", PLAYERS])
    assert res.exit_code == 2 and "unknown rules 'blank4'; did you mean 'blank-4'?" in res.output
    for row in ["-4 -6 -2 -4", "-6 0 -8 -2", "-4 -8 0 -4", "0 -4 -8 -4", "0 0 -16 0", "-8 0 0 -8",
                "-24 -24 -24 -24", "40 8 24 24", "12 6 6 0", "6 9 9 0", "3 6 9 6", "9 3 3 9"]:
        assert runner.invoke(app, ["deal", str(path), *row.split()]).exit_code == 0
    res = runner.invoke(app, ["deal", str(path), "1", "2", "3", "4"])
    assert res.exit_code == 2 and "the sheet is complete: every deal of blank-4 is written" in res.output
    assert "order is free" not in res.output


def test_money_on_an_unfinished_sheet_says_it_is_not_final(runner, tmp_path):
    path = tmp_path / "g.toml"
    assert runner.invoke(app, ["new", str(path), "--rules", "blank-4", "--players", PLAYERS]).exit_code == 0
    assert runner.invoke(app, ["deal", str(path), "-4", "-6", "-6", "0"]).exit_code == 0
    res = runner.invoke(app, ["settle", str(path)])
    assert res.exit_code == 0 and "not final: the sheet is not finished (1 of 12 deals)" in res.stderr
    res = runner.invoke(app, ["play", str(path)], input="settle\nquit\n")
    assert "not final: the sheet is not finished (1 of 12 deals)" in res.output


@pytest.mark.parametrize(("lang", "key"), [("ru", "объявляет"), ("en", "Объявляет"), ("ru", "declarer")])
def test_play_takes_the_keys_in_either_language_and_names_them_in_its_own(runner, game, lang, key):
    lines = [" ".join(a for a in args if not a.startswith("--")) if "--taken" not in args else args[1]
             for args in EVENING[:8]]
    lines[0] = "-4 -6 -6 0"
    lines[2] = "0 -4 0 -12"
    lines[3] = "0 -8 -4 -4"
    lines += ["3 15 0 6", "3 3 3 15", "0 21 3 0", f"12 0 6 6 {key}=Аня", f"edit 12 12 0 6 6 {key}=Аня"]
    res = run(runner, "play", "--lang", lang, input="\n".join(lines) + "\n")
    assert res.exit_code == 0, res.output[-2000:]
    assert verify(load_game(game)).ok and load_game(game).deals[-1].declarer == "Аня"
    banner = res.stdout.splitlines()[0]
    assert ("добавьте объявляет=…, покупатель=…, цена=…, контракт=…" if lang == "ru"
            else "add declarer=…, buyer=…, price=…, contract=…") in banner
    assert "declarer=" not in banner or lang == "en"


def test_play_suggests_the_command_a_mistyped_word_meant(runner, game):
    res = run(runner, "play", "--lang", "ru", input="setle\nисправит 1 -4 0 -8 -4\nпомошь\nвзятки -4 -6 -6 0\n")
    out = res.stdout
    assert "✗ «setle» — нет такой команды; может быть, «settle»?" in out
    assert "✗ «исправит» — нет такой команды; может быть, «исправить»?" in out
    assert "✗ «помошь» — нет такой команды; может быть, «помощь»?" in out
    assert "нет игры" not in out and len(load_game(game).deals) == 1  # a game's name is still a game
    res = run(runner, "play", "--lang", "en", input="undoo\n")
    assert "✗ «undoo» is not a command; did you mean «undo»?" in res.stdout
    assert len(load_game(game).deals) == 1


def test_a_declarer_not_at_the_table_is_named_in_the_players_language(runner, tmp_path):
    path = tmp_path / "g.toml"
    path.write_text((EXAMPLES / "blank-4.toml").read_text(encoding="utf-8").replace(
        'declarer = "Вася"', 'declarer = "Ваня"', 1), encoding="utf-8")
    ru = run(runner, "check", path, "--lang", "ru")
    assert "сдача 10: объявляет «Ваня» — такого игрока за столом нет" in ru.stderr
    assert "declarer" not in ru.stderr.split("сдача 10")[1]
    en = run(runner, "check", path, "--lang", "en")
    assert "declarer 'Ваня' is not at the table" in en.stderr
