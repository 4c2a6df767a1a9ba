"""Every example and template is loaded and checked (as beancount checks its examples)."""

from __future__ import annotations

import pytest

from conftest import EXAMPLES, ROOT
from kingsheet.cli.app import app
from kingsheet.core.verify import verify
from kingsheet.files.gamefile import load_game
from kingsheet.files.templates import template_ids

GAMES = sorted(EXAMPLES.glob("*.toml"))
MISTAKES = sorted((EXAMPLES / "mistakes").glob("*.toml"))


def test_one_example_per_template():
    assert {p.stem for p in GAMES} == set(template_ids())


@pytest.mark.parametrize("path", GAMES, ids=lambda p: p.stem)
def test_example_is_complete_and_consistent(path):
    report = verify(load_game(path))
    assert report.problems == ()
    assert report.complete
    assert report.sums.total == report.expected.total


@pytest.mark.parametrize("path", MISTAKES, ids=lambda p: p.stem)
def test_mistake_gives_its_report(path, runner, monkeypatch):
    monkeypatch.chdir(ROOT)
    rel = path.relative_to(ROOT)
    res = runner.invoke(app, ["check", str(rel)])
    assert res.exit_code == 1
    assert res.stderr == path.with_suffix(".expected").read_text(encoding="utf-8")
