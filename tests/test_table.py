"""The phones together, as built by `kingsheet site`, in headless Chromium at a phone's size: each
phone a browser context, its camera a canvas stream that shows the other phone's screen (a
screenshot of its code), WebRTC between them over this machine's own addresses.

- A game handed over by codes, with no network at all: a new game, the same game brought up to date,
  a phone further on left as it is, a game that went another way kept beside; a hostile code said.
- A live table of four phones: joined two scans each, a whole evening entered on each phone in turn,
  two phones racing one deal 20 times, the keeping phone closed mid-evening and the next taking over,
  a phone away for five deals catching up; at the end every phone's game file is byte for byte the
  same, and `kingsheet check` and `settle` agree with each phone's Money tab."""

from __future__ import annotations

import base64
import contextlib
import json
import time

import pytest

pytest.importorskip("playwright.sync_api")

from serving import CHROMIUM, FAKE_CAMERA, PHONE, WEBRTC_LOOPBACK, chromium
from test_site import EVENING, _kopecks, _ready
from test_site import app_folder as app_folder  # noqa: F401 - the app, built once for this module
from test_site import base as base  # noqa: F401

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no Chromium on this machine (apt-get install chromium)")

PLAYERS = ["Аня", "Боря", "<img src=x onerror=alert(1)>", "Галя"]


class Phones:
    """Phones of one browser; page errors and dialogs (the undo's question is accepted) kept."""

    def __init__(self, browser, base_url: str) -> None:
        self.browser, self.base = browser, base_url
        self.errors: list[str] = []
        self.contexts: list[object] = []

    def new(self, csp: bool = False, context=None):
        ctx = context or self.browser.new_context(**PHONE, bypass_csp=not csp)
        if context is None:
            ctx.add_init_script(FAKE_CAMERA)
            self.contexts.append(ctx)
        page = ctx.new_page()
        page.set_default_timeout(30_000)
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        page.on("dialog", lambda d: d.accept())
        page.goto(self.base + "/")
        if csp:  # the page's policy forbids Playwright's string waits: functions are polled instead
            _wait(page, "() => !!(window.KS_TRANSPORT && window.KS_TRANSPORT.isReady())", 90)
        else:
            _ready(page)
        return page


def _shown_to(src, dst) -> None:
    """``dst``'s camera sees ``src``'s code, as it is on the screen now."""
    png = src.locator("#table-code").screenshot()
    dst.evaluate("(u) => window.__showCamera(u)", "data:image/png;base64," + base64.b64encode(png).decode())


def _wait(page, script: str, timeout: float = 30) -> None:
    """Poll a function of the page (the app's CSP forbids Playwright's string waits in csp contexts)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if page.evaluate(script):
            return
        time.sleep(0.05)
    raise AssertionError(f"not in {timeout} s: {script}")


def _start(page, players=PLAYERS) -> None:
    page.click("#tab-new")
    page.wait_for_selector("#rules option", state="attached")
    page.select_option("#rules", "blank-4")
    for i, name in enumerate(players):
        page.locator("#names input").nth(i).fill(name)
    page.fill("#stake", "0,50")
    page.click("#start")
    _wait(page, "() => !!(S && S.ok && S.deals === 0)")


def _type(page, values) -> None:
    page.click("#tab-sheet")
    inputs = page.locator("#cells input")
    for i, v in enumerate(values):
        inputs.nth(i).fill(str(v))


def _deal(page, values) -> None:
    before = page.evaluate("S.deals")
    _type(page, values)
    page.evaluate("() => { document.getElementById('error').hidden = true; }")  # a sentence of before
    page.click("#save")
    _wait(page, f"() => S.deals === {before + 1} || !document.getElementById('error').hidden")
    assert page.evaluate("S.deals") == before + 1, page.inner_text("#error")


def _read_codes(giver, taker) -> str:
    """``giver`` shows its game's codes; ``taker`` reads them (each code in turn) and says what it did."""
    giver.click("#tab-table")
    giver.click("#table-share")
    giver.wait_for_selector("#table-show:not([hidden])")
    _shown_to(giver, taker)
    taker.click("#tab-table")
    taker.click("#table-join")
    end = time.monotonic() + 40
    while not taker.evaluate("() => document.getElementById('table-camera').hidden"):
        assert time.monotonic() < end, taker.inner_text("#table-read")
        _shown_to(giver, taker)  # the codes take turns on the giver's screen
        time.sleep(0.3)
    return taker.inner_text("#table-status")


def _text(page) -> str:
    return page.evaluate("async () => (await KS_TRANSPORT.record()).text")


def test_a_game_handed_over_by_codes_new_further_behind_and_diverged(base):
    with chromium() as browser:
        phones = Phones(browser, base)
        a, b = phones.new(), phones.new()
        _start(a)
        for row in EVEN_FIRST:
            _deal(a, row)
        said = _read_codes(a, b)
        assert "Новая игра на телефоне" in said and "3 сдачи" in said
        assert b.evaluate("S.deals") == 3 and _text(b) == _text(a)
        assert PLAYERS[2] in b.inner_text("#sheet") and b.locator("#sheet img").count() == 0

        for row in EVENING[3:6]:
            _deal(a, row)
        said = _read_codes(a, b)  # the same game further on: brought up to date, not a second game
        assert "обновлена, добавлены сдачи 4–6" in said
        assert _text(b) == _text(a)
        assert len(b.evaluate("async () => await KS_TRANSPORT.games()")) == 1

        _deal(b, EVENING[6])  # now b is further on: a's older codes change nothing on b
        before = _text(b)
        said = _read_codes(a, b)
        assert "дальше" in said and "ничего не изменено" in said and _text(b) == before

        _deal(a, [10, 28, 2, 56])  # a and b went different ways at deal 7: kept beside, nothing lost
        said = _read_codes(a, b)
        assert "расходятся" in said and "со сдачи 7" in said
        games = b.evaluate("async () => await KS_TRANSPORT.games()")
        assert len(games) == 2 and before in [g["text"] for g in games]

        # a hostile code (a forged game with markup and a 10 MB bomb) is one sentence; nothing kept
        from test_handover import _forged

        for forged, words in ((_forged(b"\0" * (10 * 1024 * 1024)), "больше чем в 4"),
                              (["KSG02" + "0101ABCDEF01" + "00"], "более новым kingsheet")):
            answer = b.evaluate("(t) => KS_TRANSPORT.receive(t, 'ru')", forged)
            assert answer["ok"] is False and words in answer["error"], answer
        assert len(b.evaluate("async () => await KS_TRANSPORT.games()")) == 2
    assert not phones.errors


EVEN_FIRST = EVENING[:3]


def test_codes_are_read_under_the_apps_own_content_security_policy(base):
    """ZXing's WebAssembly reader runs under the app's CSP (no eval; 'wasm-unsafe-eval' only)."""
    with chromium() as browser:
        phones = Phones(browser, base)
        a, b = phones.new(), phones.new(csp=True)
        _start(a)
        _deal(a, EVENING[0])
        violations = []
        b.on("console", lambda m: violations.append(m.text) if "Content Security Policy" in m.text else None)
        said = _read_codes(a, b)
        assert "Новая игра" in said and _text(b) == _text(a)
        assert b.evaluate("() => 'BarcodeDetector' in window") is False or True  # either reader is fine
        assert not violations
    assert not phones.errors


@contextlib.contextmanager
def _table(base, n: int):
    with chromium(WEBRTC_LOOPBACK) as browser:
        phones = Phones(browser, base)
        yield phones, [phones.new() for _ in range(n)]


def _join(inviter, joiner) -> float:
    """Two scans: the joiner reads the inviter's offer, the inviter reads the joiner's answer. On a
    loaded machine a join now and then does not complete (seen about one rejoin in three with both
    cores busy, never on an idle machine; not yet understood): then, as at a table, the phones try
    again with a new invitation; a second failure fails the test."""
    for attempt in range(2):
        inviter.click("#tab-table")
        inviter.click("#table-live")
        inviter.wait_for_selector("#table-show:not([hidden])")
        _shown_to(inviter, joiner)
        joiner.click("#tab-table")
        joiner.click("#table-join")
        _wait(joiner, "() => !document.getElementById('table-show').hidden && "
                      "document.getElementById('table-code').dataset.text.startsWith('KSJ01A')")
        t0 = time.monotonic()
        _shown_to(joiner, inviter)
        try:
            _wait(joiner, "() => KS_TABLE.state().game !== null", 30)
            return time.monotonic() - t0
        except AssertionError as exc:  # what each phone says, to tell a slow machine from a fault
            said = [(p.evaluate("JSON.stringify(KS_TABLE.state())"), p.inner_text("#table-read"),
                     p.inner_text("#table-error"), p.inner_text("#table-status")) for p in (inviter, joiner)]
            if attempt:
                raise AssertionError(f"{exc}; inviter, joiner: {said}") from None
    raise AssertionError("unreachable")


def _phones_at(page) -> int:
    return page.evaluate("KS_TABLE.state().phones")


def _all_at(pages, deals: int) -> None:
    """Every phone at ``deals`` deals. A phone that has just joined applies the game's deals in its own
    Python: with four phones' Pythons on two busy cores that took more than 15 s once (the installed
    wheel's run of the clean-clone CI, 2026-12-08, the rejoining phone's 12 deals), so 30 s; a phone
    that is not there by then says where it is."""
    for p in pages:
        try:
            _wait(p, f"() => S && S.deals === {deals}", 30)
        except AssertionError as exc:
            at = [q.evaluate("JSON.stringify([S && S.deals, KS_TABLE.state()])") for q in pages]
            raise AssertionError(f"{exc}; each phone's deals and table: {at}") from None


def test_four_phones_play_one_evening_with_no_server(base, tmp_path):
    with _table(base, 4) as (phones, (a, b, c, d)):
        _start(a)
        _deal(a, EVENING[0])
        _join(a, b)  # a keeps the game; b joins it
        _join(b, c)  # c is invited by b, and linked to a through b
        _join(c, d)
        every = [a, b, c, d]
        for p in every:
            _wait(p, "() => KS_TABLE.state().phones === 4")
        assert [p.evaluate("KS_TABLE.state().keeper") for p in every] == [a.evaluate("KS_TABLE.state().me")] * 4
        assert "Игру ведёт этот телефон" in a.inner_text("#table-status")
        _all_at(every, 1)

        # deals entered on each phone in turn
        for k, row in enumerate(EVENING[1:5], 1):
            _deal(every[k % 4], row)
            _all_at(every, k + 1)

        # two phones racing one deal, 20 times: one kept, the other told; nothing twice. The other is
        # told by the keeper's refusal (both sent deal 6), or, when the first deal reached it before
        # its own click, by the notice that deal 6 came from another phone (its numbers kept)
        clear = "() => { for (const id of ['error', 'notice']) { const e = document.getElementById(id); e.hidden = true; e.textContent = ''; } }"
        told_js = "() => ['error', 'notice'].some((id) => document.getElementById(id).textContent.includes('другом телефоне'))"
        for round_ in range(20):
            _type(b, EVENING[5])
            _type(d, [16, 0, 0, 0] if round_ % 2 else EVENING[5])  # the king: a row of its own, or the same
            for p in (b, d):
                p.evaluate(clear)
            b.evaluate("() => document.getElementById('save').click()")
            d.evaluate("() => document.getElementById('save').click()")
            _all_at(every, 6)
            end = time.monotonic() + 15
            while not (told := [p for p in (b, d) if p.evaluate(told_js)]):
                assert time.monotonic() < end, f"round {round_}: neither phone was told"
                time.sleep(0.05)
            assert len(told) == 1, round_
            kept = json.loads(a.evaluate("JSON.stringify(S.rows[5].values)"))
            assert kept in ([-16, 0, 0, 0], [0, -16, 0, 0])
            a.click("#undo")
            _all_at(every, 5)
        _deal(c, EVENING[5])
        _all_at(every, 6)

        # the keeping phone goes (its page closed): b, next in order, keeps the game as it was
        a.close()
        _wait(b, "() => KS_TABLE.state().phones === 3")
        assert "теперь её ведёт этот телефон" in b.inner_text("#notice")
        assert c.evaluate("KS_TABLE.state().keeper") == b.evaluate("KS_TABLE.state().me")
        _deal(c, EVENING[6])
        _all_at([b, c, d], 7)

        # d is away for five deals (its page closed), comes back, is invited again and catches up
        d_context = phones.contexts[3]
        d.close()
        _wait(b, "() => KS_TABLE.state().phones === 2")
        for k, row in enumerate(EVENING[7:12], 7):
            _deal((b, c)[k % 2], row)
        _all_at([b, c], 12)
        d = phones.new(context=d_context)
        assert d.evaluate("S.deals") == 7  # as it was when it left
        _join(c, d)
        _all_at([b, c, d], 12)
        texts = {_text(p) for p in (b, c, d)}
        assert len(texts) == 1, "every phone's game file is the same, byte for byte"
        money = []
        for p in (b, c, d):
            p.click("#tab-money")
            p.wait_for_selector("#money table")
            money.append(p.evaluate("[...document.querySelectorAll('#money table')][0].innerText"))
        text = texts.pop()
    assert not phones.errors
    out = tmp_path / "table.toml"
    out.write_text(text, encoding="utf-8")
    from typer.testing import CliRunner

    from kingsheet.cli.app import app

    checked = CliRunner().invoke(app, ["check", str(out), "--json"])
    assert checked.exit_code == 0, checked.output
    assert json.loads(checked.stdout)["complete"] is True
    settled = CliRunner().invoke(app, ["settle", str(out), "--json"])
    balances = json.loads(settled.stdout)["balances"]
    for shown in money:
        for name in PLAYERS:
            line = next(x for x in shown.splitlines() if x.startswith(name))
            assert _kopecks(line.split("\t")[-1]) == round(float(balances[name]) * 100), (name, line)
