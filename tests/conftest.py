from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

ROOT = Path(__file__).resolve().parent.parent
# English unless a test asks for Russian, from the start: the CLI reads its help texts at import
os.environ["KINGSHEET_LANG"] = "en"
EXAMPLES = ROOT / "examples"


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


@pytest.fixture(scope="session")
def _cache_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("cache")


@pytest.fixture(autouse=True)
def _isolated_state(tmp_path_factory, monkeypatch, _cache_dir):
    """Commands that remember the current game must not touch the developer's real data dir, nor
    its cache (one for the whole run: the scanner's layouts measured once)."""
    state = tmp_path_factory.mktemp("state")
    monkeypatch.setenv("KINGSHEET_STATE_DIR", str(state))
    monkeypatch.setenv("KINGSHEET_CACHE", str(_cache_dir))
    monkeypatch.delenv("KINGSHEET_FILE", raising=False)
    monkeypatch.setenv("NO_COLOR", "1")
    # the suite reads English messages unless a test asks for Russian (tests/test_i18n.py and the
    # evening in both languages); the language of one test never leaks into the next
    monkeypatch.setenv("KINGSHEET_LANG", "en")
    from kingsheet.core import i18n

    i18n.use("en")
    os.environ.pop("COLUMNS", None)


GAME_HEAD = """format = 1
rules = "{rules}"
players = [{players}]
"""


def game_text(rules: str = "blank-4", players: str = '"Аня", "Боря", "Вася", "Галя"', deals: str = "",
              extra: str = "") -> str:
    return GAME_HEAD.format(rules=rules, players=players) + extra + deals


def deal(game: str, points: list[int], **extra: object) -> str:
    lines = ["", "[[deals]]", f'game = "{game}"', f"points = {points}"]
    for k, v in extra.items():
        lines.append(f'{k} = "{v}"' if isinstance(v, str) else f"{k} = {v}")
    return "\n".join(lines) + "\n"


def free_order_template(folder: Path) -> Path:
    """ordered-56 where any player may order ([turn] orders = "free"): for tests whose writers
    each order their own games, whatever the dealer."""
    house = (ROOT / "templates" / "ordered-56.toml").read_text(encoding="utf-8")
    path = folder / "free.toml"
    path.write_text(house.replace('id = "ordered-56"', 'id = "free-56"') + '\n[turn]\norders = "free"\n',
                    encoding="utf-8")
    return path


# ---- in CI, a suite never skips itself for want of a dependency -------------------------------------

#: Words of a skip that means something the tests need is missing (a package, a program, a font).
#: Elsewhere such a skip lets a developer run what they can; in CI (CI=true), where .ci/run installs
#: everything, it fails the run, so that a suite can never silently not run.
MISSING = ("could not import", "not installed", "no chromium", "is needed", "needs pdftoppm", "fonts-humor-sans")


def _missing_dependency(report: pytest.CollectReport | pytest.TestReport) -> str | None:
    if not os.environ.get("CI") or not report.skipped:
        return None
    longrepr = report.longrepr
    reason = str(longrepr[2] if isinstance(longrepr, tuple) else longrepr)
    return reason if any(word in reason.lower() for word in MISSING) else None


def _fail_when_missing(report: pytest.CollectReport | pytest.TestReport, what: str) -> None:
    reason = _missing_dependency(report)
    if reason:
        report.outcome = "failed"
        report.longrepr = f"CI: {what}skipped for a missing dependency: {reason}"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
    outcome = yield
    _fail_when_missing(outcome.get_result(), "")


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector):  # type: ignore[no-untyped-def]
    outcome = yield
    _fail_when_missing(outcome.get_result(), f"{collector.nodeid} ")


#: What to install for each kind of missing dependency a skip names (README: "System packages").
INSTALL_FOR = (("chromium", "chromium"), ("pdftoppm", "poppler-utils"), ("poppler", "poppler-utils"),
               ("humor-sans", "fonts-humor-sans"))


def pytest_terminal_summary(terminalreporter, exitstatus, config):  # type: ignore[no-untyped-def]
    """Outside CI, tests skipped for want of a system package end the run with the line that installs
    them (in CI such a skip already failed the run)."""
    packages: set[str] = set()
    python = 0
    for report in terminalreporter.stats.get("skipped", []):
        longrepr = report.longrepr
        reason = str(longrepr[2] if isinstance(longrepr, tuple) else longrepr).lower()
        if not any(word in reason for word in MISSING):
            continue
        found = {package for word, package in INSTALL_FOR if word in reason}
        packages |= found
        python += not found and "could not import" in reason
    if packages:
        terminalreporter.write_line(f"some tests were skipped for want of system packages; install them with: "
                                    f"sudo apt-get install {' '.join(sorted(packages))}", yellow=True)
    if python:
        terminalreporter.write_line("some tests were skipped for want of Python packages; install them with: "
                                    ".venv/bin/pip install -e '.[test]'", yellow=True)
