"""`kingsheet check` and `kingsheet rules`: exact messages, exit codes, JSON shape."""

from __future__ import annotations

import json

from conftest import EXAMPLES, deal, game_text
from kingsheet.cli.app import app


def run(runner, *args):
    return runner.invoke(app, list(map(str, args)))


def test_check_consistent_example(runner):
    res = run(runner, "check", EXAMPLES / "blank-4.toml")
    assert res.exit_code == 0, res.output
    assert "complete; all consistent" in res.stdout
    assert "TOTAL (−)" in res.stdout and res.stderr == ""


def test_check_reports_row_and_exit_1(runner, tmp_path):
    f = tmp_path / "g.toml"
    f.write_text(game_text(deals=deal("tricks", [-4, 0, -8, -2]) + deal("hearts", [-4, -4, -4, -4])
                           + deal("boys", [-4, -4, -4, -4])), encoding="utf-8")
    res = run(runner, "check", f)
    assert res.exit_code == 1
    assert res.stderr.splitlines() == [f"{f}: deal 1 (Tricks): row sums to −14, expected −16"]
    assert "3 of 12 deals played; 1 problem" in res.stdout


def test_check_json_shape(runner, tmp_path):
    f = tmp_path / "g.toml"
    f.write_text(game_text(deals=deal("tricks", [-4, 0, -8, -2])), encoding="utf-8")
    res = run(runner, "check", "--json", f)
    assert res.exit_code == 1
    obj = json.loads(res.stdout)
    assert obj["file"] == str(f) and obj["rules"] == "blank-4" and obj["ok"] is False
    assert obj["complete"] is False
    assert obj["errors"][0] == {"code": "row-sum", "deal": 1, "game": "tricks", "player": None,
                                "expected": -16, "actual": -14,
                                "message": "deal 1 (Tricks): row sums to −14, expected −16"}
    assert obj["players"] == ["Аня", "Боря", "Вася", "Галя"]
    assert obj["totals"]["Вася"] == {"minus": -8, "plus": 0, "total": -8}
    assert obj["sums"] == {"minus": -14, "plus": 0, "total": -14}


def test_check_several_files_json_list(runner):
    res = run(runner, "check", "--json", EXAMPLES / "blank-4.toml", EXAMPLES / "short.toml")
    assert res.exit_code == 0
    assert [o["rules"] for o in json.loads(res.stdout)] == ["blank-4", "short"]


def test_malformed_toml_exit_2_with_line_and_column(runner, tmp_path):
    f = tmp_path / "bad.toml"
    f.write_text('format = 1\nrules = "blank-4"\nplayers = ["А", "Б"\n', encoding="utf-8")
    res = run(runner, "check", f)
    assert res.exit_code == 2
    assert "not valid TOML" in res.stderr and "line 3" in res.stderr and "column" in res.stderr
    assert "Traceback" not in res.output
    f.write_text('format = 1\nrules = "blank-4"\nplayers = ["А" "Б"]\n', encoding="utf-8")
    res = run(runner, "check", f)
    assert res.exit_code == 2 and "(at line 3, column 16)" in res.stderr


def test_unknown_rules_exit_2_lists_ids(runner, tmp_path):
    f = tmp_path / "g.toml"
    f.write_text(game_text(rules="blank-5"), encoding="utf-8")
    res = run(runner, "check", f)
    assert res.exit_code == 2
    assert "unknown rules 'blank-5'; did you mean 'blank-4'? known: atomic, bidding-77, blank-4, classic-52" in res.stderr


def test_missing_file_exit_2(runner, tmp_path):
    res = run(runner, "check", tmp_path / "nope.toml")
    assert res.exit_code == 2
    assert res.stderr.strip() == f"kingsheet: {tmp_path / 'nope.toml'}: no such file"


def test_wrong_player_count_and_format(runner, tmp_path):
    f = tmp_path / "g.toml"
    f.write_text(game_text(players='"А", "Б", "В"'), encoding="utf-8")
    assert "blank-4 is for 4 players, the file has 3" in run(runner, "check", f).stderr
    f.write_text(game_text().replace("format = 1", "format = 7"), encoding="utf-8")
    res = run(runner, "check", f)
    assert res.exit_code == 2 and "format 7 is not supported" in res.stderr


def test_rules_list_and_show(runner):
    res = run(runner, "rules")
    assert res.exit_code == 0 and "ordered-56" in res.stdout and "−768 / +768" in res.stdout
    res = run(runner, "rules", "blank-4", "--lang", "ru")
    assert "АнтиЕралаш" in res.stdout and "ИТОГО (−) = −192" in res.stdout
    assert "настройка boys: jacks (мальчики — валеты) | kings (мальчики — короли) | jacks+kings" in res.stdout
    res = run(runner, "rules", "classic-52", "--option", "eralash=yes")
    assert "Ералаш" in res.stdout and "−2760" in res.stdout
    res = run(runner, "rules", "nope")
    assert res.exit_code == 2 and "unknown rules 'nope'" in res.stderr


def test_cli_does_not_import_heavy_modules():
    import subprocess
    import sys

    code = ("import sys; from kingsheet.cli.app import app; from typer.testing import CliRunner; "
            "CliRunner().invoke(app, ['check', 'examples/blank-4.toml']); "
            "CliRunner().invoke(app, ['--help']); "
            "print([m for m in ('openpyxl', 'reportlab') if m in sys.modules])")
    from conftest import ROOT
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "[]"


def test_the_command_turns_the_collector_back_on(monkeypatch, capsys):
    """`kingsheet` (kingsheet.cli.main) loads its modules with the collector off; the command itself
    runs with it on, so a long evening at the prompt or a server collects its garbage."""
    import gc
    import sys

    import pytest

    from kingsheet import cli

    monkeypatch.setattr(sys, "argv", ["kingsheet", "check", str(EXAMPLES / "blank-4.toml"), "--lang", "en"])
    try:
        with pytest.raises(SystemExit) as ended:
            cli.main()
    finally:
        gc.unfreeze()
    assert ended.value.code == 0 and gc.isenabled()
    assert "complete; all consistent" in capsys.readouterr().out


def test_the_installed_command_is_kingsheet_cli_main():
    import tomllib

    from conftest import ROOT

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["scripts"] == {"kingsheet": "kingsheet.cli:main"}
