"""The phone app (`kingsheet site`) in a real headless Chromium at a phone's size: built from the
pinned Pyodide, served on 127.0.0.1, an evening of 12 deals played on the phone alone (a refused
row, a correction, an undo, the money), then the network cut: the app opens again from its cache,
takes one more deal, keeps it over a reload; the game file it gives out checks and settles the same
with the commands. Hostile names stay text. Screenshots go to KINGSHEET_SHOTS (or the test's folder)."""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("playwright.sync_api")

from serving import CHROMIUM, PHONE, chromium, free_port

from kingsheet.site.build import PYODIDE_SHA256, RUNTIME, build

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no Chromium on this machine (apt-get install chromium)")

HOSTILE = '<img src=x onerror=alert(1)>'
PLAYERS = ["Аня", "Боря", HOSTILE, "Галя"]
# blank-4 as a table plays it, typed as the form takes it: magnitudes, the game's sign added
EVENING = [[4, 6, 6, 0], [4, 4, 0, 8], [0, 4, 0, 12], [0, 8, 4, 4], [16, 0, 0, 0], [0, 16, 0, 0],
           [28, 10, 56, 2], [2, 46, 24, 24], [3, 15, 0, 6], [3, 3, 3, 15], [0, 21, 3, 0], [12, 0, 6, 6]]


@pytest.fixture(scope="module")
def app_folder(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("app")
    given, zxing = os.environ.get("KINGSHEET_PYODIDE"), os.environ.get("KINGSHEET_ZXING")
    build(out, "ru", Path(given) if given else None, zxing=Path(zxing) if zxing else None)
    return out


@pytest.fixture(scope="module")
def base(app_folder):
    from kingsheet.site.serving import server

    httpd = server(app_folder, free_port())
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_port}"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def shots(tmp_path):
    folder = Path(os.environ.get("KINGSHEET_SHOTS") or tmp_path / "shots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def test_the_build_holds_only_what_the_app_needs(app_folder):
    names = sorted(str(p.relative_to(app_folder)) for p in app_folder.rglob("*") if p.is_file())
    assert sorted(f"pyodide/{n}" for n in RUNTIME) == [n for n in names if n.startswith("pyodide/")]
    assert not any(n.endswith((".map", ".html")) and n != "index.html" for n in names)  # no console, no maps
    import zipfile

    inside = zipfile.ZipFile(app_folder / "python.zip").namelist()
    assert "kingsheet/table/actions.py" in inside and "kingsheet/site/bridge.py" in inside
    assert "tomlkit/__init__.py" in inside and "openpyxl/__init__.py" in inside
    assert "kingsheet/templates/blank-4.toml" in inside
    assert not [n for n in inside if n.startswith(("kingsheet/cli/", "kingsheet/serve/", "kingsheet/scan/",
                                                    "kingsheet/fonts/")) or n.endswith(".pyc")]
    sw = (app_folder / "sw.js").read_text(encoding="utf-8")
    listed = json.loads(sw.split("const FILES = ", 1)[1].split(";", 1)[0])
    assert set(listed) == {"./", *[n for n in names if n != "sw.js"]}  # every file kept for offline use
    assert "{version}" not in sw


def test_a_pyodide_that_is_not_the_pinned_one_is_refused(tmp_path):
    from kingsheet.core.problems import InputError
    from kingsheet.site.build import runtime_files

    fake = tmp_path / "pyodide.tgz"
    fake.write_bytes(b"not pyodide")
    with pytest.raises(InputError, match="sha256"):
        runtime_files(fake)
    folder = tmp_path / "unpacked"
    folder.mkdir()
    for name in RUNTIME:
        (folder / name).write_bytes(b"x")
    with pytest.raises(InputError, match="sha256"):
        runtime_files(folder)
    assert len(PYODIDE_SHA256) == 64


def _phone(browser, errors, dialogs, csp: bool = False):
    """A phone at 390 px. Playwright's waits evaluate strings in the page, which the app's content
    security policy refuses (no eval): those contexts set the policy aside, and the test of the
    policy itself (csp=True) keeps it and waits by evaluating functions."""
    ctx = browser.new_context(**PHONE, accept_downloads=True, bypass_csp=not csp)
    page = ctx.new_page()
    page.set_default_timeout(30_000)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("dialog", lambda d: (dialogs.append(d.message), d.accept()))
    return ctx, page


@contextlib.contextmanager
def _opened_app(base: str):
    """The built app open and ready on a phone; no page error and no dialog by the end."""
    errors: list[str] = []
    dialogs: list[str] = []
    with chromium() as browser:
        ctx, page = _phone(browser, errors, dialogs)
        page.goto(base + "/")
        _ready(page)
        yield page
        ctx.close()
    assert not errors and not dialogs


def _ready(page) -> None:
    page.wait_for_function("window.KS_TRANSPORT && window.KS_TRANSPORT.isReady()", timeout=90_000)
    page.wait_for_function("document.getElementById('save').disabled === false || "
                           "!document.getElementById('view-sheet').offsetParent", timeout=30_000)


def _deal(page, values, expect_ok=True) -> str:
    inputs = page.locator("#cells input")
    for i, v in enumerate(values):
        inputs.nth(i).fill(str(v))
    before = page.evaluate("S.deals; document.getElementById('error').hidden = true; S.deals")
    page.click("#save")
    if expect_ok:
        page.wait_for_function(f"S?.deals === {before + 1} || document.getElementById('error').hidden === false")
    else:
        page.wait_for_selector("#error:not([hidden])")
    if expect_ok:
        assert page.evaluate("S.deals") == before + 1, page.inner_text("#error")
    return page.inner_text("#notice") if expect_ok else page.inner_text("#error")


def test_an_evening_on_a_phone_alone_then_offline(base, shots, tmp_path):
    errors: list[str] = []
    dialogs: list[str] = []
    with chromium() as browser:
        ctx, page = _phone(browser, errors, dialogs)
        page.goto(base + "/")
        _ready(page)
        page.wait_for_selector("#view-new", state="visible")  # a fresh phone opens on a new game
        page.screenshot(path=str(shots / "site-1-no-games.png"), full_page=True)
        page.click("#tab-games")
        page.wait_for_function("document.getElementById('view-games').innerText.includes('пока нет игр')")

        # a new game: blank-4, the players in seating order, the stake
        page.click("#tab-new")
        page.wait_for_selector("#rules option", state="attached")
        page.select_option("#rules", "blank-4")
        names = page.locator("#names input")
        for i, name in enumerate(PLAYERS):
            names.nth(i).fill(name)
        page.fill("#stake", "0,50")
        page.click("#start")
        page.wait_for_function("S?.ok && S.deals === 0")
        assert HOSTILE in page.inner_text("#sheet")  # a name is text, never markup
        assert page.locator("#sheet img").count() == 0

        # a row that does not add up is refused, and nothing is stored
        message = _deal(page, [4, 6, 6, 2], expect_ok=False)
        assert "16" in message and page.evaluate("S.deals") == 0
        for k, row in enumerate(EVENING[:4], 1):
            assert f"сдача {k} сохранена" in _deal(page, row)
        # a correction of deal 1, then undo of deal 4 and deal 4 again
        page.locator("#sheet tr").nth(1).click()
        page.wait_for_function("document.getElementById('deal-head').textContent.includes('1')")
        _deal_edit = page.locator("#cells input")
        for i, v in enumerate([6, 4, 6, 0]):
            _deal_edit.nth(i).fill(str(v))
        page.click("#save")
        page.wait_for_function("S?.rows?.[0]?.values?.[0] === -6")
        page.click("#undo")
        page.wait_for_function("S?.deals === 3")
        assert dialogs and "последнюю" in dialogs[-1].lower() or dialogs
        _deal(page, EVENING[3])
        for row in EVENING[4:11]:
            _deal(page, row)
        assert page.evaluate("S.deals") == 11
        page.screenshot(path=str(shots / "site-2-eleven-deals.png"), full_page=True)

        # the money, pair by pair and through the pot
        page.click("#tab-money")
        page.wait_for_selector("#money table")
        money_text = page.inner_text("#money")
        assert "₽" in money_text
        page.click("#tab-sheet")

        # the service worker holds every file: the network goes, the app opens again and works,
        # started from the memory snapshot made at the first visit
        page.evaluate("navigator.serviceWorker.ready.then(() => true)")
        page.wait_for_function("window.KS_TRANSPORT?.timings?.snapshot != null")
        assert page.evaluate("KS_TRANSPORT.timings.snapshot") is True
        page.reload()
        page.wait_for_function("navigator.serviceWorker?.controller != null")
        ctx.set_offline(True)
        page.reload()
        page.wait_for_function("S?.ok && S.deals === 11")  # the stored sheet, before Python is ready
        _ready(page)
        assert page.evaluate("KS_TRANSPORT.timings.how") == "snapshot"
        assert page.locator("#view-games").is_hidden() and page.locator("#view-new").is_hidden()
        assert "сдача 12 сохранена" in _deal(page, EVENING[11])
        page.reload()
        page.wait_for_function("S?.ok && S.deals === 12")
        assert page.evaluate("S.complete") is True
        page.screenshot(path=str(shots / "site-3-offline-complete.png"), full_page=True)
        state = page.evaluate("S")
        _ready(page)

        # the game file out of the phone, checked and settled by the commands to the kopeck
        with page.expect_download() as got:
            page.click("#toml")
        out = tmp_path / "from-phone.toml"
        got.value.save_as(out)
        page.click("#tab-money")
        page.wait_for_selector("#money table")
        phone_money = page.evaluate("[...document.querySelectorAll('#money table')][0].innerText")
        ctx.close()
    assert not errors and dialogs  # the undo asked first; nothing else alerted
    assert all(HOSTILE not in d for d in dialogs)

    from typer.testing import CliRunner

    from kingsheet.cli.app import app

    checked = CliRunner().invoke(app, ["check", str(out), "--json"])
    assert checked.exit_code == 0, checked.output
    report = json.loads(checked.stdout)
    totals = {p: t["total"] for p, t in report["totals"].items()}
    assert [str(totals[p]) for p in PLAYERS] == [c.replace("−", "-") for c in state["totals"][-1][1:]]
    settled = CliRunner().invoke(app, ["settle", str(out), "--json", "--lang", "ru"])
    assert settled.exit_code == 0, settled.output
    for transfer in json.loads(settled.stdout)["transfers"]:
        assert transfer["from"] in PLAYERS and transfer["to"] in PLAYERS
    for p in PLAYERS:
        balance = json.loads(settled.stdout)["balances"][p]
        shown = next(line for line in phone_money.splitlines() if line.startswith(p))
        assert _kopecks(shown.split("\t")[-1]) == round(float(balance) * 100), (p, shown, balance)



@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium on this machine (apt-get install chromium)")
@pytest.mark.parametrize("language", ["ru", "en"])
def test_each_format_goes_into_the_built_app_and_out_of_it_checking_and_settling_as_on_a_computer(
        base, tmp_path, language):
    """The bundled evening as a workbook and as a CSV (made by `kingsheet export`) opened on the
    phone from files, in each language: the sheet's totals those of `kingsheet check`, the Money
    tab's balances those of `kingsheet settle`; and the workbook and game file the phone gives
    out check and settle the same on a computer."""
    from typer.testing import CliRunner

    from kingsheet.cli.app import app

    example = ROOT / "examples" / "blank-4.toml"
    run = CliRunner()
    checked = json.loads(run.invoke(app, ["check", str(example), "--json"]).stdout)
    totals = {p: str(t["total"]) for p, t in checked["totals"].items()}
    balances = json.loads(run.invoke(app, ["settle", str(example), "--json"]).stdout)["balances"]
    files = {}
    for suffix in (".xlsx", ".csv"):
        files[suffix] = tmp_path / f"evening{suffix}"
        made = run.invoke(app, ["export", str(example), "-o", str(files[suffix]), "--lang", language])
        assert made.exit_code == 0, made.output
    out: dict[str, Path] = {}
    with _opened_app(base) as page:
        if language == "en":
            page.click("#lang")
            page.wait_for_function("document.getElementById('tab-money').textContent === 'Money'")
        for k, (suffix, path) in enumerate(files.items(), 1):
            page.click("#tab-games")
            page.set_input_files("#file-in", str(path))
            page.wait_for_function("S?.deals === 12")
            deadline = time.monotonic() + 30
            while page.evaluate("KS_TRANSPORT.games().then((g) => g.length)") != k:
                assert time.monotonic() < deadline
                time.sleep(0.05)
            shown = dict(zip(page.evaluate("S.players"), page.evaluate("S.totals[S.totals.length - 1]")[1:]))
            assert {p: v.replace("−", "-") for p, v in shown.items()} == totals, (suffix, shown)
            page.click("#tab-money")
            # the money of this game drawn (the tab fetches it when shown): a line for each player
            page.wait_for_function("""(names) => { const t = document.querySelector('#money table');
                const lines = t ? t.innerText.split('\\n') : [];
                return names.every((n) => lines.some((l) => l.startsWith(n + '\\t'))); }""", arg=list(balances))
            money = page.evaluate("[...document.querySelectorAll('#money table')][0].innerText")
            for p, balance in balances.items():
                line = next(row for row in money.splitlines() if row.startswith(p))
                assert _kopecks(line.split("\t")[-1]) == round(float(balance) * 100), (suffix, line, balance)
            page.click("#tab-sheet")
            for kind in ("xlsx", "toml"):
                with page.expect_download() as got:
                    page.click(f"#{kind}")
                out[suffix + kind] = tmp_path / f"out-{k}.{kind}"
                got.value.save_as(out[suffix + kind])
    for name, path in out.items():
        again = run.invoke(app, ["check", str(path), "--json"])
        assert again.exit_code == 0, (name, again.output)
        assert {p: str(t["total"]) for p, t in json.loads(again.stdout)["totals"].items()} == totals, name
        settled = run.invoke(app, ["settle", str(path), "--json"])
        assert settled.exit_code == 0, (name, settled.output)
        assert json.loads(settled.stdout)["balances"] == balances, name

def _kopecks(text: str) -> int:
    """«+12,50 ₽» / «−3 ₽» as kopecks."""
    t = text.replace("−", "-").replace("₽", "").replace("\u00a0", "").replace(" ", "").replace(",", ".")
    return round(float(t) * 100)


def test_the_site_command_writes_the_app(app_folder, tmp_path):
    """`kingsheet site -o DIR` as a person runs it (Pyodide from the user cache, or as given)."""
    from typer.testing import CliRunner

    from kingsheet.cli.app import app
    from kingsheet.site.build import PYODIDE_VERSION, _cache_folder

    given = os.environ.get("KINGSHEET_PYODIDE") or str(_cache_folder() / f"pyodide-{PYODIDE_VERSION}.tgz")
    out = tmp_path / "app"
    result = CliRunner().invoke(app, ["site", "-o", str(out), "--pyodide", given, "--lang", "en"])
    assert result.exit_code == 0, result.output
    assert f"wrote {out}: 19 files" in result.output
    assert (out / "index.html").read_text(encoding="utf-8").startswith("<!doctype html>")
    assert sorted(p.name for p in out.iterdir()) == sorted(p.name for p in app_folder.iterdir())


def _pinned_given() -> list[str]:
    """--pyodide and --zxing as this run has them (CI's npm packs, else the user cache)."""
    from kingsheet.site.build import PYODIDE, ZXING, _cache_folder

    given = []
    for option, env, pinned in (("--pyodide", "KINGSHEET_PYODIDE", PYODIDE), ("--zxing", "KINGSHEET_ZXING", ZXING)):
        path = os.environ.get(env) or str(_cache_folder() / f"{pinned.name}-{pinned.version}.tgz")
        given += [option, path]
    return given


def test_the_pages_workflow_builds_the_app_with_its_own_step(app_folder, tmp_path):
    """.github/workflows/phone-app.yml: its build step, run here as it is written (the packages
    given from this run's cache instead of fetched), writes the app that Pages publishes."""
    import shlex
    import subprocess
    import sys

    workflow = (ROOT / ".github" / "workflows" / "phone-app.yml").read_text(encoding="utf-8")
    step = workflow.split("- name: build the app\n", 1)[1].split("run: |\n", 1)[1]
    lines = []
    for line in step.splitlines():
        if not line.startswith(" " * 10):
            break
        lines.append(line.strip())
    assert lines[0] == "python -m pip install ."  # the checkout itself, as the README's lines
    command = shlex.split(lines[1])
    assert command[:3] == ["kingsheet", "site", "-o"] and "uses: actions/upload-pages-artifact@v3" in workflow
    published = workflow.split("upload-pages-artifact@v3", 1)[1].split("path:", 1)[1].split()[0]
    assert published == command[3] == "_site"
    assert "actions/deploy-pages@v4" in workflow and "pages: write" in workflow and "id-token: write" in workflow
    exe = Path(sys.executable).with_name("kingsheet")
    done = subprocess.run([str(exe), *command[1:], *_pinned_given()], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    built = tmp_path / "_site"
    assert sorted(p.name for p in built.iterdir()) == sorted(p.name for p in app_folder.iterdir())
    assert '<html lang="ru" data-transport="worker">' in (built / "index.html").read_text(encoding="utf-8")


def test_site_draws_the_code_of_the_address_a_table_opens(app_folder, tmp_path):
    from typer.testing import CliRunner

    from kingsheet.cli.app import app

    out = tmp_path / "app"
    result = CliRunner().invoke(app, ["site", "-o", str(out), *_pinned_given(), "--qr",
                                      "https://club.example.org/king/", "--lang", "en"])
    assert result.exit_code == 0, result.output
    assert "█" in result.output and "The app at https://club.example.org/king/" in result.output
    for bad in ("http://192.168.1.5:8766/", "javascript:alert(1)", "https://", "ftp://example.org/"):
        refused = CliRunner().invoke(app, ["site", "-o", str(tmp_path / "other"), "--qr", bad, "--lang", "en"])
        assert refused.exit_code == 2 and "only at an https:// address" in refused.output, bad
        assert not (tmp_path / "other").exists()


@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium on this machine (apt-get install chromium)")
def test_the_costly_workbooks_in_the_app_are_read_or_refused_at_once(base, tmp_path):
    """The attack's workbooks, into the built app on a phone: the one past a score sheet's cells is
    one sentence and no game; the others read their one deal (no worker busy for half a minute)."""
    import time

    from costly import costly_workbooks

    with _opened_app(base) as page:
        page.click("#tab-games")
        took = {}
        for name, (data, reads) in costly_workbooks().items():
            path = tmp_path / name
            path.write_bytes(data)
            games = page.evaluate("KS_TRANSPORT.games().then((g) => g.length)")
            page.evaluate("document.getElementById('games-error').hidden = true")
            t0 = time.monotonic()
            page.set_input_files("#file-in", str(path))
            if reads:
                deadline = time.monotonic() + 60  # (a predicate that returns a promise is truthy at once)
                while page.evaluate("KS_TRANSPORT.games().then((g) => g.length)") != games + 1:
                    assert time.monotonic() < deadline, page.inner_text("#games-error")
                    time.sleep(0.05)
                page.wait_for_function("S?.deals === 1")
                page.click("#tab-games")
            else:
                page.wait_for_selector("#games-error:not([hidden])")
                said = page.inner_text("#games-error")
                assert "ячеек — больше, чем бывает в листе записи (150000); не прочитана" in said, said
                assert "\n" not in said.strip()
                assert page.evaluate("KS_TRANSPORT.games().then((g) => g.length)") == games
            took[name] = time.monotonic() - t0
        print("the costly workbooks in the app (s):", {k: round(v, 1) for k, v in took.items()})
        assert page.evaluate("KS_TRANSPORT.games().then((g) => g.length)") == 2


def test_every_tab_of_the_bridge_runs_from_the_apps_own_zip_alone(app_folder, tmp_path):
    """The Python the built app carries (python.zip), with nothing else installed: a new game, a
    deal, the sheet, the money, the files out and in, and the Club tab (a package the build left
    out fails here, as it would on the phone)."""
    import subprocess
    import sys
    import textwrap

    script = textwrap.dedent(f"""
        import json, sys, zipfile
        from pathlib import Path
        lib = {str(tmp_path / "lib")!r}
        zipfile.ZipFile({str(app_folder / "python.zip")!r}).extractall(lib)  # as the worker unpacks it
        sys.path.insert(0, lib)
        from kingsheet.site import bridge
        assert bridge.__file__.startswith(lib), bridge.__file__
        bridge.FOLDER = Path({str(tmp_path / "fs")!r})
        def call(**request):
            answer = json.loads(bridge.handle(json.dumps(request)))
            assert answer["status"] == 200, (request["op"], answer)
            return answer
        game = call(op="new", lang="ru", body={{"rules": "blank-4", "players": ["Аня", "Боря", "Вася", "Галя"],
                                                "stake": "0.50"}})["game"]
        game = call(op="deal", lang="ru", game=game, body={{"seen": 0, "game": "tricks", "points": [4, 6, 6, 0]}})["game"]
        for op in ("state", "money", "rules"):
            call(op=op, lang="en", game=game)
        for suffix in (".toml", ".xlsx", ".csv", ".json"):
            call(op="export", lang="ru", game=game, suffix=suffix)
        example = Path({str(ROOT / "examples" / "blank-4.toml")!r}).read_text(encoding="utf-8")
        club = call(op="club", lang="ru", games=[{{"file": "a.toml", "text": example}}, game])["data"]
        assert club["ok"] and club["standings"][0][1] == "Боря" and club["standings"][0][5], club
        print("ok", sorted(m for m in sys.modules if m.startswith("kingsheet.club")))
    """)
    r = subprocess.run([sys.executable, "-S", "-c", script], capture_output=True, text=True, timeout=120,
                       cwd=tmp_path, env={"PYTHONPATH": "", "PATH": os.environ.get("PATH", "")})
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.startswith("ok") and "kingsheet.club.rating" in r.stdout


def _import_evenings(page, folder: Path, days) -> list[Path]:
    """The bundled evening, once per day, opened on the phone from files as a user does."""
    example = (ROOT / "examples" / "blank-4.toml").read_text(encoding="utf-8")
    paths = []
    page.click("#tab-games")
    for k, day in enumerate(days):
        path = folder / f"evening-{k}.toml"
        path.write_text(example.replace("2026-11-27", day), encoding="utf-8")
        paths.append(path)
        page.set_input_files("#file-in", str(path))
        page.wait_for_function("S?.deals === 12")
        page.click("#tab-games")
        deadline = time.monotonic() + 30
        while page.evaluate("KS_TRANSPORT.games().then((g) => g.length)") != k + 1:
            assert time.monotonic() < deadline
            time.sleep(0.05)
    return paths


@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium on this machine (apt-get install chromium)")
def test_the_club_tab_draws_the_money_opens_a_player_and_records_a_payment_as_the_cli_does(base, tmp_path, shots):
    """The club on the phone as built, at 390 px, in both languages: each player's money over the
    evenings drawn within the screen, a player's own figures on a tap (those of `kingsheet club
    player`), a transfer marked paid through the form, and the ledger after it the one `kingsheet
    club ledger` gives for the same games with the club.toml the phone keeps."""
    from typer.testing import CliRunner

    from kingsheet.cli.app import app

    folder = tmp_path / "club"
    folder.mkdir()
    with _opened_app(base) as page:
        _import_evenings(page, folder, ("2026-11-27", "2026-11-28"))
        page.click("#tab-club")
        page.wait_for_selector("#club figure.chart svg polyline")
        lines = page.locator("#club figure.chart polyline")
        assert lines.count() == 4
        chart = page.locator("#club figure.chart svg").bounding_box()
        assert chart and chart["x"] >= 0 and chart["x"] + chart["width"] <= 390.5, chart
        legend = page.inner_text("#club figure.chart .legend")
        assert "Боря: +148 ₽" in legend, legend
        page.screenshot(path=str(shots / "club-ru.png"), full_page=True)

        page.locator("#club button.link", has_text="Боря").click()
        page.wait_for_selector("#club-player h3")
        assert page.inner_text("#club-player h3").startswith("Боря (")
        out = CliRunner().invoke(app, ["club", "player", "Боря", "--dir", str(folder), "--lang", "ru"])
        assert out.exit_code == 0, out.output
        said = page.locator("#club-player p").first.inner_text()
        assert said and said in out.stdout, (said, out.stdout)
        assert page.locator("#club-player table").count() >= 1
        for cell in page.locator("#club-player td").all_inner_texts():
            assert cell in out.stdout, (cell, out.stdout)

        before = page.inner_text("#club")
        page.locator("#club button", has_text="Оплачено").first.click()
        payer, payee = page.input_value("#pay-from"), page.input_value("#pay-to")
        page.fill("#pay-amount", "50")
        page.fill("#pay-date", "2026-11-29")
        page.click("#pay-form button[type=submit]")
        page.wait_for_function("document.getElementById('pay-said')?.textContent.startsWith('записано')")
        assert page.inner_text("#pay-said") == f"записано: {payer} → {payee} 50 ₽ (2026-11-29)"
        assert page.inner_text("#club") != before
        paid = page.locator("#club table").last.inner_text()
        assert "2026-11-29" in paid and f"{payer} → {payee}" in paid and "50 ₽" in paid
        club_text = page.evaluate("localStorage.getItem('kingsheet-club')")
        assert "[[paid]]" in club_text
        (folder / "club.toml").write_text(club_text, encoding="utf-8")
        out = CliRunner().invoke(app, ["club", "ledger", "--dir", str(folder), "--json"])
        assert out.exit_code == 0, out.output
        led = json.loads(out.stdout)["ledgers"][0]
        shown = page.evaluate("""[...document.querySelectorAll('#club table')].map((t) => t.innerText)""")
        for transfer in led["transfers"]:
            assert any(transfer["from"] + " → " + transfer["to"] in t for t in shown), (transfer, shown)
        # a payment the club cannot take: one sentence, the form keeps what was typed, nothing stored
        page.select_option("#pay-to", payer)
        page.fill("#pay-amount", "7")
        page.click("#pay-form button[type=submit]")
        page.wait_for_selector("#pay-said.error")
        assert page.input_value("#pay-amount") == "7"
        assert page.evaluate("localStorage.getItem('kingsheet-club')") == club_text
        assert "\n" not in page.inner_text("#pay-said").strip()

        page.click("#lang")
        page.wait_for_function("document.getElementById('tab-money').textContent === 'Money'")
        page.click("#tab-club")
        page.wait_for_function("document.querySelector('#club figcaption')?.textContent.startsWith('Money')")
        assert "Payments" in page.inner_text("#club") or "payments" in page.inner_text("#club")
        assert page.locator("#club button", has_text="Paid").count() >= 1
        page.screenshot(path=str(shots / "club-en.png"), full_page=True)


@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium on this machine (apt-get install chromium)")
def test_the_club_tab_of_the_built_app_shows_its_players_and_their_ratings(base, tmp_path):
    with _opened_app(base) as page:
        _import_evenings(page, tmp_path, ("2026-11-27", "2026-11-28"))
        page.click("#tab-club")
        page.wait_for_selector("#club table td.rating")
        rows = page.locator("#club table").first.locator("tr")
        head = rows.nth(0).inner_text()
        assert "рейтинг" in head, head
        first = rows.nth(1).inner_text()
        assert "Боря" in first and "2" in first and "*" in first, first  # two evenings: provisional
        assert "предварительный" in page.inner_text("#club")
        assert "ModuleNotFoundError" not in page.inner_text("#club")


@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium on this machine (apt-get install chromium)")
def test_a_fresh_phone_opens_on_a_new_game_and_a_finished_sheet_with_problems_is_no_success(base, tmp_path):
    """The built app: with no game on the phone it opens on «Новая игра»; a finished sheet with
    two errors says so, not a green «Лист заполнен.»; and its page runs under a content security
    policy that refuses an inline script while the app itself (Pyodide in its worker) starts."""
    errors: list[str] = []
    dialogs: list[str] = []
    with chromium() as browser:
        strict, page = _phone(browser, errors, dialogs, csp=True)
        page.goto(base + "/")
        deadline = time.monotonic() + 90
        while not page.evaluate("() => !!(window.KS_TRANSPORT && window.KS_TRANSPORT.isReady())"):
            assert time.monotonic() < deadline, "the app did not start under its policy"
            time.sleep(0.2)
        policy = page.locator('meta[http-equiv="Content-Security-Policy"]').get_attribute("content")
        assert "script-src 'self' 'wasm-unsafe-eval'" in policy and "default-src 'self'" in policy
        ran = page.evaluate("""() => { const s = document.createElement('script');
            s.textContent = 'window.__inline = 1'; document.head.append(s); return window.__inline === 1; }""")
        assert ran is False  # an inline script (what a name turned into markup would need) never runs
        deadline = time.monotonic() + 30
        while not page.evaluate("() => !document.getElementById('view-new').hidden"):
            assert time.monotonic() < deadline, "a fresh phone did not open on a new game"
            time.sleep(0.1)
        assert page.locator("#view-sheet").is_hidden() and page.locator("#view-games").is_hidden()
        deadline = time.monotonic() + 30
        while page.evaluate("() => document.getElementById('rules').value") != "blank-4":  # the paper blank first
            assert time.monotonic() < deadline, page.evaluate("() => document.getElementById('rules').value")
            time.sleep(0.1)
        strict.close()
        ctx, page = _phone(browser, errors, dialogs)
        page.goto(base + "/")
        _ready(page)
        page.click("#tab-games")
        page.set_input_files("#file-in", str(ROOT / "examples" / "mistakes" / "king-split.toml"))
        page.wait_for_function("S?.deals === 12 && S.complete === true")
        page.wait_for_selector("#complete:not([hidden])")
        said = page.inner_text("#complete")
        assert said.startswith("Лист заполнен, но в нём есть ошибки") and said != "Лист заполнен."
        assert page.get_attribute("#complete", "class") == "error"
        assert page.locator("#problems li").count() == 2
        ctx.close()
    assert not errors and not dialogs


ROWS_OF_BLANK_4 = [[4, 4, 4, 4], [4, 4, 4, 4], [4, 4, 4, 4], [4, 4, 4, 4], [16, 0, 0, 0], [8, 8, 0, 0],
                   [24, 24, 24, 24], [24, 24, 24, 24], [6, 6, 6, 6], [6, 6, 6, 6], [6, 6, 6, 6], [6, 6, 6, 6]]


def _new_blank_4(page) -> None:
    page.click("#tab-new")
    page.wait_for_selector("#rules option", state="attached")
    page.select_option("#rules", "blank-4")
    for i, name in enumerate(["Аня", "Боря", "Вася", "Галя"]):
        page.locator("#names input").nth(i).fill(name)
    page.click("#start")
    page.wait_for_function("S?.ok && S.deals === 0")


@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium on this machine (apt-get install chromium)")
def test_two_tabs_saving_one_game_at_once_never_lose_a_deal(base):
    """Two tabs of the app on one game save a deal at the same moment, 20 rounds: one is kept, the
    other is told and keeps its numbers; as many deals are stored as were answered saved."""
    errors: list[str] = []
    dialogs: list[str] = []
    with chromium() as browser:
        ctx, a = _phone(browser, errors, dialogs)
        a.goto(base + "/")
        _ready(a)
        _new_blank_4(a)
        b = ctx.new_page()
        b.on("pageerror", lambda e: errors.append(str(e)))
        b.goto(base + "/")
        _ready(b)
        b.wait_for_function("S?.ok && S.deals === 0", polling=100)
        saved = told = 0
        for round_ in range(20):
            if round_ == 12:  # the sheet is full: a second game, which the other tab follows
                _new_blank_4(a)
                b.reload()  # (the race is the point here, not how the other tab hears of a new game)
                _ready(b)
                b.wait_for_function("S?.ok && S.deals === 0 && !S.complete", polling=100)
            deals = round_ % 12
            for page in (a, b):
                page.wait_for_function(f"S?.deals === {deals} && document.getElementById('save').disabled === false",
                                       polling=100)  # (a tab in the background runs no animation frames)
                for i, v in enumerate(ROWS_OF_BLANK_4[deals]):
                    page.locator("#cells input").nth(i).fill(str(v))
                page.evaluate("document.getElementById('error').hidden = true; document.getElementById('notice').textContent = ''")
            # both on the same millisecond (each tab's timer, one clock): each tab's worker computes
            # from the game as it read it, and only the writes can tell
            at = a.evaluate("Date.now() + 400")
            for page in (a, b):
                page.evaluate("(at) => setTimeout(() => document.getElementById('save').click(), at - Date.now())", at)
            for page in (a, b):
                page.wait_for_function("(at) => Date.now() > at + 5", arg=at, polling=50)
            outcomes = []
            for page in (a, b):  # the click disabled the button; the answer, whatever it is, enables it
                page.wait_for_function("document.getElementById('save').disabled === false", polling=50)
                said = page.inner_text("#error") if page.locator("#error").is_visible() else page.inner_text("#notice")
                outcomes.append(said if "другая вкладка" in said.lower() or "тем временем" in said else "saved")
            saved += outcomes.count("saved")
            refused = [o for o in outcomes if o != "saved"]
            told += len(refused)
            # told either way: the write found the game changed since it was read, or (when the other
            # tab's deal reached this one first) the deal it names was entered meanwhile
            assert len(refused) <= 1 and all("другая вкладка" in o.lower() or "тем временем" in o for o in refused), outcomes
            for page in (a, b):
                page.wait_for_function(f"S?.deals === {deals + 1}", polling=100)
            if refused:  # the refused tab keeps its numbers in the form for the next deal
                loser = a if outcomes[0] != "saved" else b
                kept = [loser.locator("#cells input").nth(i).input_value() for i in range(4)]
                assert kept == [str(v) for v in ROWS_OF_BLANK_4[deals]], kept
        stored = a.evaluate("KS_TRANSPORT.games().then((g) => g.map((x) => x.file))")
        assert len(stored) == 2
        assert saved == 20 and told + saved <= 40  # every deal answered saved is stored, none twice
        assert a.evaluate("S.deals") == 8 and b.evaluate("S.deals") == 8
        ctx.close()
    assert not errors


CUT = """() => [...document.querySelectorAll('.tab, #title, #sheet td.g, #sheet th, .games .what, .games .who')]
    .filter((e) => e.offsetParent && e.scrollWidth > e.clientWidth + 1).map((e) => e.id || e.textContent)"""


@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium on this machine (apt-get install chromium)")
@pytest.mark.parametrize("width", [320, 390])
def test_nothing_a_player_reads_is_cut_at_320_and_390_px_in_either_language(base, shots, width):
    """Tabs, the title, the games' names and the players' names wrap; none is cut to «Ден…»."""
    errors: list[str] = []
    with chromium() as browser:
        ctx = browser.new_context(**{**PHONE, "viewport": {"width": width, "height": 740}}, bypass_csp=True)
        page = ctx.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(base + "/")
        _ready(page)
        page.click("#tab-new")
        page.wait_for_selector("#rules option", state="attached")
        page.select_option("#rules", "blank-4")
        for i, name in enumerate(["Анастасия", "Борислав", "Василиса", "Галина"]):
            page.locator("#names input").nth(i).fill(name)
        page.click("#start")
        page.wait_for_function("S?.ok && S.deals === 0")
        for language in ("ru", "en"):
            if language == "en":
                page.click("#lang")
                page.wait_for_function("S?.lang === 'en' && document.getElementById('tab-money').textContent === 'Money'")
                assert page.inner_text("#title") == "King for four (the blank)"
            assert page.evaluate(CUT) == [], language
            for tab in page.locator(".tab:not([hidden])").all():  # every tab on the screen, none off its edge
                box = tab.bounding_box()
                assert box and box["x"] >= 0 and box["x"] + box["width"] <= width + 0.5, tab.inner_text()
            assert "Две последние" in page.inner_text("#sheet") or "Last two" in page.inner_text("#sheet")
            page.screenshot(path=str(shots / f"site-{width}-{language}.png"), full_page=True)
        page.click("#tab-games")
        page.wait_for_selector(".games .what")
        assert page.evaluate(CUT) == []
        ctx.close()
    assert not errors


@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium on this machine (apt-get install chromium)")
def test_the_pages_words_are_there_before_python_starts(app_folder, tmp_path):
    """The catalog is in the built page: while Python has not started (here it never does: the
    built folder served with a worker that never answers), the tabs and the first sentence are
    words, never keys like `no_games`, in both languages."""
    import shutil

    from kingsheet.site.serving import server

    held = tmp_path / "app"
    shutil.copytree(app_folder, held)
    (held / "worker.js").write_text("self.onmessage = () => {};  // Python that never starts\n", encoding="utf-8")
    httpd = server(held, free_port())
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        with chromium() as browser:
            ctx = browser.new_context(**PHONE, bypass_csp=True)
            page = ctx.new_page()
            page.goto(f"http://127.0.0.1:{httpd.server_port}/")
            page.wait_for_function("document.getElementById('tab-sheet').textContent !== ''")
            assert page.evaluate("KS_TRANSPORT.isReady()") is False
            for language, first in (("ru", ["Лист", "Деньги", "Новая игра", "Игры", "Клуб", "Стол"]),
                                    ("en", ["Sheet", "Money", "New game", "Games", "Club", "Table"])):
                if language == "en":
                    page.click("#lang")
                    page.wait_for_function("document.getElementById('tab-money').textContent === 'Money'")
                tabs = page.evaluate("[...document.querySelectorAll('.tab')].map((b) => b.textContent)")
                assert tabs == first, tabs
                shown = page.inner_text("body")
                for key in ("no_games", "file_in", "table_alone", "players_in_order", "template_in", "deals_of"):
                    assert key not in shown.split(), (key, shown[:300])
            ctx.close()
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium on this machine (apt-get install chromium)")
def test_the_game_list_tells_games_apart_and_an_import_keeps_its_name(base, tmp_path):
    errors: list[str] = []
    dialogs: list[str] = []
    mistaken = ROOT / "examples" / "mistakes" / "king-split.toml"
    with chromium() as browser:
        ctx, page = _phone(browser, errors, dialogs)
        page.goto(base + "/")
        _ready(page)
        for path in (mistaken, ROOT / "examples" / "blank-4.toml", mistaken):
            page.click("#tab-games")
            page.set_input_files("#file-in", str(path))
            page.wait_for_function("document.getElementById('view-sheet').offsetParent !== null")
        notice = page.inner_text("#notice")
        assert "king-split-2.toml" in notice, notice  # the file's own name, numbered when taken
        page.click("#tab-games")
        page.wait_for_function("document.querySelectorAll('.games li .who').length === 3")
        cards = [li.inner_text() for li in page.locator(".games li").all()]
        assert len(cards) == 3 and len(set(cards)) == 3  # no two cards alike
        assert all("Аня, Боря, Вася, Галя" in c for c in cards)
        assert sum("king-split" in c and "ошибок: 2" in c for c in cards) == 2
        assert any("blank-4.toml" in c and "ошибок" not in c for c in cards)
        from kingsheet.table.formats import IMPORTS

        assert page.get_attribute("#file-in", "accept") == ",".join((".toml", *IMPORTS))  # .xlsm too
        ctx.close()
    assert not errors and not dialogs


@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium on this machine (apt-get install chromium)")
def test_an_evening_walked_by_roles_and_names_as_a_screen_reader_does(base):
    """Chromium's accessibility tree of the built app: every step of an evening found by its role
    and its name only (no ids, no CSS), the sheet a table with a caption and column headers, each
    mark said in words, each refusal an alert and each saved deal a status, in both languages."""
    import re

    errors: list[str] = []
    dialogs: list[str] = []
    with chromium() as browser:
        ctx, page = _phone(browser, errors, dialogs)
        page.goto(base + "/")
        _ready(page)
        nav = page.get_by_role("navigation", name="kingsheet")
        nav.get_by_role("button", name="Новая игра").click()
        page.get_by_role("combobox", name="Правила").select_option("blank-4")
        for k, name in enumerate(["Аня", "Боря", "Вася", "Галя"], 1):
            page.get_by_role("textbox", name=f"Игрок {k}").fill(name)
        page.get_by_role("button", name="Начать игру").click()
        page.wait_for_function("S?.ok && S.deals === 0")
        assert nav.get_by_role("button", name="Лист").get_attribute("aria-current") == "page"

        def play(values, save: str) -> None:
            for name, v in zip(["Аня", "Боря", "Вася", "Галя"], values):
                page.get_by_role("textbox", name=re.compile(f"^{name}")).fill(str(v))
            page.get_by_role("button", name=save).click()

        play([4, 6, 6, 2], "Записать сдачу")  # 18 tricks of 16: an alert says why
        alert = page.get_by_role("alert")
        alert.wait_for()
        assert "16" in alert.inner_text()
        play([4, 6, 6, 0], "Записать сдачу")
        status = page.get_by_role("status").filter(has_text="сохранена")
        status.wait_for()
        assert "сдача 1 сохранена" in status.inner_text()
        play([4, 4, 0, 8], "Записать сдачу")
        page.wait_for_function("S?.deals === 2")

        table = page.get_by_role("table", name=re.compile("Кинг на четверых"))
        headers = [h.inner_text() for h in table.get_by_role("columnheader").all()]
        assert headers[:3] == ["№", "Игра", "Очки"] and headers[3:7] == ["Аня", "Боря", "Вася", "Галя"]
        first = table.get_by_role("row", name="Исправить сдачу 1: Взятки")
        assert "строка сходится" in first.inner_text()
        first.focus()
        page.keyboard.press("Enter")  # a row opens for correction from the keyboard too
        page.get_by_role("button", name="Записать исправление").wait_for()
        page.get_by_role("button", name="Отмена").click()
        tree = page.locator("body").aria_snapshot()
        assert "table" in tree and "columnheader \"Аня\"" in tree and "строка сходится" in tree

        page.get_by_role("button", name="Русский / English").click()
        page.wait_for_function("S?.lang === 'en'")
        play([0, 4, 0, 12], "Save the deal")
        page.get_by_role("status").filter(has_text="deal 3 saved").wait_for()
        table = page.get_by_role("table", name=re.compile("King for four"))
        assert [h.inner_text() for h in table.get_by_role("columnheader").all()][1:3] == ["Game", "Points"]
        assert "the row adds up" in table.get_by_role("row", name="Correct deal 3: Boys").inner_text()
        nav.get_by_role("button", name="Money").click()
        page.get_by_role("table").first.wait_for()
        ctx.close()
    assert not errors


@pytest.fixture
def small_disk(tmp_path):
    """A 120 MB file system of its own for a browser profile (a tmpfs: needs root, as CI has)."""
    import subprocess

    folder = tmp_path / "small"
    folder.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=120m", "tmpfs", str(folder)], capture_output=True)
    if done.returncode != 0:
        pytest.skip("a tmpfs cannot be mounted here (not root)")
    yield folder
    subprocess.run(["umount", "-l", str(folder)], check=False)


@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium on this machine (apt-get install chromium)")
def test_a_full_phone_says_so_and_loses_no_game(base, small_disk):
    """A real full disk under the browser's profile: the deal is refused with the sentence, and the
    game is there as it was once space is freed, though Chromium empties the origin's IndexedDB
    when a write fails for want of space (the games come back from their copy in localStorage)."""
    import shutil

    from playwright.sync_api import sync_playwright

    errors: list[str] = []
    with sync_playwright() as p:
        ctx = p.chromium.launch_persistent_context(
            str(small_disk / "profile"), executable_path=CHROMIUM, bypass_csp=True, **PHONE,
            args=["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"])
        page = ctx.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(base + "/")
        _ready(page)
        _new_blank_4(page)
        _deal(page, ROWS_OF_BLANK_4[0])
        before = page.evaluate("async () => (await KS_TRANSPORT.record()).text")
        filler = small_disk / "filler"
        with filler.open("wb") as f, contextlib.suppress(OSError):  # the phone's storage full, to the last page
            f.write(b"\0" * max(0, shutil.disk_usage(small_disk).free - 4096))
        _deal(page, ROWS_OF_BLANK_4[1], expect_ok=False)
        assert "закончилось: ничего не сохранено" in page.inner_text("#error")
        assert page.evaluate("S.deals") == 1
        filler.unlink()
        page.reload()
        _ready(page)
        page.wait_for_function("S?.ok === true")
        assert page.evaluate("S.deals") == 1
        assert page.evaluate("async () => (await KS_TRANSPORT.record()).text") == before
        _deal(page, ROWS_OF_BLANK_4[1])
        ctx.close()
    assert not errors


HELD_WORKER = """// the test's stand-in: kingsheet's worker starts only once the test puts go.txt beside it
const held = [];
self.onmessage = (ev) => { held.push(ev.data); };
(async () => {
  while (!(await fetch("go.txt", {cache: "no-store"})).ok) await new Promise((r) => setTimeout(r, 100));
  self.onmessage = null;
  await import("./worker-real.js");
  for (const data of held) self.onmessage({data});
})();
"""


@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium on this machine (apt-get install chromium)")
def test_a_first_visit_is_usable_before_python_has_started(app_folder, tmp_path):
    """The new-game form has its rule systems from the built page, and a deal typed while Python
    starts is taken, then checked and kept once it is up: held here until the test lets it start."""
    import shutil

    from kingsheet.site.serving import server

    held = tmp_path / "app"
    shutil.copytree(app_folder, held)
    (held / "worker.js").rename(held / "worker-real.js")
    (held / "worker.js").write_text(HELD_WORKER, encoding="utf-8")
    httpd = server(held, free_port())
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    errors: list[str] = []
    dialogs: list[str] = []
    try:
        with chromium() as browser:
            ctx, page = _phone(browser, errors, dialogs)
            page.goto(f"http://127.0.0.1:{httpd.server_port}/")
            page.wait_for_selector("#view-new", state="visible")
            page.wait_for_selector("#rules option[value='blank-4']", state="attached")
            assert page.evaluate("KS_TRANSPORT.isReady()") is False
            assert page.locator("#rules option").count() >= 20  # every rule system, before Python
            page.select_option("#rules", "blank-4")
            for i, name in enumerate(["Аня", "Боря", "Вася", "Галя"]):
                page.locator("#names input").nth(i).fill(name)
            page.click("#start")
            (held / "go.txt").write_text("go", encoding="utf-8")
            page.wait_for_function("S?.ok && S.deals === 0", timeout=90_000)

            (held / "go.txt").unlink()  # the next start is held again: the stored sheet, the form open
            page.reload()
            page.wait_for_function("S?.ok && S.deals === 0 && S.waiting === true")
            assert page.evaluate("KS_TRANSPORT.isReady()") is False
            assert page.is_enabled("#save") and "kingsheet запустится" in page.inner_text("#notice")
            for i, v in enumerate(ROWS_OF_BLANK_4[0]):
                page.locator("#cells input").nth(i).fill(str(v))
            page.click("#save")
            (held / "go.txt").write_text("go", encoding="utf-8")
            page.wait_for_function("S?.deals === 1", timeout=90_000)
            assert "сдача 1 сохранена" in page.inner_text("#notice")
            ctx.close()
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert not errors and not dialogs
