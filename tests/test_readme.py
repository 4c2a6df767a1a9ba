"""The README's quick tour runs as written, so it never rots."""

from __future__ import annotations

import re
import shlex
import shutil

from conftest import EXAMPLES, ROOT
from kingsheet.cli.app import app

# lines the README says are refused or report problems
EXPECTED_FAILURES = {"kingsheet deal -4 -4 -4 -2": 1, "kingsheet show": 1,
                     "kingsheet check examples/blank-4.toml examples/mistakes/deal-skipped.toml": 1}


def tour() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"## A quick tour\n\n.*?```sh\n(.*?)```", text, re.S)
    assert block, "the README has a quick tour"
    return [line for line in block.group(1).splitlines() if line.startswith("kingsheet ")]


def test_quick_tour_runs(runner, tmp_path, monkeypatch):
    shutil.copytree(EXAMPLES, tmp_path / "examples")
    monkeypatch.chdir(tmp_path)
    lines = tour()
    assert len(lines) >= 10
    for line in lines:
        args = shlex.split(line, comments=True)
        command = " ".join(args)
        res = runner.invoke(app, args[1:])
        assert res.exit_code == EXPECTED_FAILURES.get(command, 0), (command, res.output)
    assert (tmp_path / "blank.pdf").stat().st_size > 1000
    from kingsheet.files.gamefile import load_game

    first = load_game(tmp_path / "friday.toml").deals[0]
    assert first.forced and first.points == (-4, -6, -4, -4)  # the --force line really forced a wrong row
    assert (tmp_path / "back.toml").exists()


def test_readme_starts_with_the_two_commands():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    first_block = re.search(r"```sh\n(.*?)```", text, re.S).group(1).strip().splitlines()
    assert len(first_block) == 2
    assert "kingsheet check examples/blank-4.toml" in first_block[0]
    assert "pytest" in first_block[1]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "-m pytest" in ci and "'.[test" in ci


def install_specs() -> list[tuple[str, str]]:
    """Every `pip install` the README and docs/ give a person: (where, what it installs)."""
    found = []
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for line in path.read_text(encoding="utf-8").splitlines():
            for m in re.finditer(r"pip install((?: -[a-z]+)*) ('[^']+'|\S+)", line):
                found.append((f"{path.name}: {line.strip()[:80]}", m.group(2).strip("'`")))
    return found


def test_every_install_line_of_the_docs_installs_from_a_clone():
    """kingsheet is not on PyPI: an install line names the clone (.), and only extras it has."""
    import tomllib

    extras = set(tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"])
    specs = install_specs()
    assert len(specs) >= 5
    for where, spec in specs:
        m = re.fullmatch(r"\.(?:\[([a-z,]+)\])?", spec)
        assert m, f"{where}: installs {spec}, which is not the clone"
        assert set((m.group(1) or "").split(",")) - {""} <= extras, where


def test_a_skip_for_a_missing_system_package_ends_with_the_line_that_installs_it(monkeypatch):
    import conftest

    lines: list[str] = []

    class Report:
        def __init__(self, reason: str) -> None:
            self.longrepr = ("file", 1, f"Skipped: {reason}")

    class Terminal:
        stats = {"skipped": [Report("no Chromium on this machine (apt-get install chromium)"),
                             Report("needs pdftoppm and fonts-humor-sans"), Report("only root can do it")]}

        def write_line(self, text: str, **_markup: object) -> None:
            lines.append(text)

    conftest.pytest_terminal_summary(Terminal(), 0, None)
    assert lines == ["some tests were skipped for want of system packages; install them with: "
                     "sudo apt-get install chromium fonts-humor-sans poppler-utils"]
