"""Paths of the command line that the other tests do not walk: the coloured sheet, main() itself
and its last-resort handler, a CSV through check, and check --jobs."""

from __future__ import annotations

import json
import sys

import pytest

from conftest import EXAMPLES, game_text
from kingsheet.cli import app as cli
from kingsheet.cli.app import app
from kingsheet.core.verify import verify
from kingsheet.files.gamefile import read_game
from kingsheet.render.terminal import print_sheet


def test_the_coloured_sheet_prints_names_as_text(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "160")
    players = '"[bold red]Аня", "Боря", "Вася", "Галя"'
    deals = '\n[[deals]]\ngame = "tricks"\npoints = [-4, -4, -4, -2]\n'
    print_sheet(verify(read_game(game_text(players=players, deals=deals))), "ru")
    out = capsys.readouterr().out
    assert "[bold red]Аня" in out  # the name's markup shown, not obeyed
    assert "row sums to −14, expected −16" in out  # the problem on its row
    assert "ИТОГО (−)" in out and "сыграно 1 из 12; 1 ошибка" in out


def test_main_runs_one_command_and_the_whole_app(monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["kingsheet", "check", str(EXAMPLES / "blank-4.toml")])
    with pytest.raises(SystemExit) as exc:
        cli.main()
    assert exc.value.code == 0 and "all consistent" in capsys.readouterr().out
    monkeypatch.setattr(sys, "argv", ["kingsheet", "--help"])
    with pytest.raises(SystemExit) as exc:
        cli.main()
    assert exc.value.code == 0 and "settle" in capsys.readouterr().out


def test_an_unexpected_error_is_one_line_and_exit_2(monkeypatch, capsys):
    def broken(*args, **kwargs):
        raise RuntimeError("boom\nsecond line")

    monkeypatch.setattr("kingsheet.core.verify.verify", broken)
    monkeypatch.setattr(sys, "argv", ["kingsheet", "check", str(EXAMPLES / "blank-4.toml")])
    with pytest.raises(SystemExit) as exc:
        cli.main()
    err = capsys.readouterr().err
    assert exc.value.code == 2
    assert err.count("\n") == 1 and "unexpected error (RuntimeError: boom\\nsecond line)" in err
    assert "Traceback" not in err


def test_an_interrupt_says_nothing_half_written_was_kept(monkeypatch, capsys):
    """A real SIGINT in the middle of a command: typer alone would exit 130 without a word."""
    import os
    import signal

    def interrupted(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGINT)

    monkeypatch.setattr("kingsheet.core.verify.verify", interrupted)
    monkeypatch.setattr(sys, "argv", ["kingsheet", "check", str(EXAMPLES / "blank-4.toml")])
    before = signal.getsignal(signal.SIGINT)
    try:
        with pytest.raises(SystemExit) as exc:
            cli.main()
    finally:
        signal.signal(signal.SIGINT, before)
    assert exc.value.code == 130 and "interrupted; nothing half-written was kept" in capsys.readouterr().err


def test_a_csv_goes_through_check(runner, tmp_path):
    csv = tmp_path / "friday.csv"
    assert runner.invoke(app, ["export", str(EXAMPLES / "blank-4.toml"), "-o", str(csv)]).exit_code == 0
    res = runner.invoke(app, ["check", str(csv), "--json"])
    assert res.exit_code == 0, res.output
    got = json.loads(res.stdout)
    direct = json.loads(runner.invoke(app, ["check", str(EXAMPLES / "blank-4.toml"), "--json"]).stdout)
    assert got["ok"] and got["totals"] == direct["totals"] and got["rules"] == "blank-4"
    lines = csv.read_text(encoding="utf-8").splitlines()
    assert '"king",-16,0,0,0,"","","","","","","","","",""' in lines
    broken = [ln.replace('"king",-16,0,0,0', '"king",-8,0,-8,0') for ln in lines]
    csv.write_text("\n".join(broken) + "\n", encoding="utf-8")
    res = runner.invoke(app, ["check", str(csv)])
    assert res.exit_code == 1 and "the −16 goes whole to one player, and the others write 0" in res.stderr


def test_check_with_jobs_gives_what_one_process_gives(runner, tmp_path):
    files = sorted(str(p) for p in EXAMPLES.glob("*.toml"))
    bad = tmp_path / "bad.toml"
    bad.write_text(game_text(deals='\n[[deals]]\ngame = "tricks"\npoints = [-4, -4, -4, -2]\n'), encoding="utf-8")
    args = ["check", *files, str(bad), str(tmp_path / "missing.toml"), "--json"]
    one = runner.invoke(app, [*args, "--jobs", "1"])
    two = runner.invoke(app, [*args, "--jobs", "2"])
    assert one.exit_code == two.exit_code == 2  # the worst of the files: one is missing
    assert json.loads(one.stdout) == json.loads(two.stdout)
    assert len(json.loads(two.stdout)) == len(files) + 2
    assert json.loads(two.stdout)[-1] == {"file": str(tmp_path / "missing.toml"), "ok": False,
                                          "error": f"{tmp_path / 'missing.toml'}: no such file"}
