"""The web page and its API: one game, one token, everything checked by the CLI's own verifier and
saved by the CLI's own atomic, locked writes.

Every request needs the token: the printed address carries it, and the page sends it in a header
(or, where a browser cannot add one, the address). There is no cookie: a cookie is not bound to a
port, and any other server on the same host would receive it. A write must also come from the page
itself: JSON, the token in the header, and the page's own origin (a page on another port of the
same host is another origin, refused). The Host header must name an address the server listens on
(no DNS rebinding). Bodies are bounded in size and time, names and notes reach the page only as JSON
text (never as markup), pages are sent with a content security policy, and only the game's own
folder is ever touched.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import hmac
import json
import time
from collections.abc import Awaitable, Callable, Collection, Mapping, MutableMapping
from decimal import Decimal
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from kingsheet.core import i18n
from kingsheet.core.i18n import _, ngettext
from kingsheet.core.problems import InputError, Unusable, num

MAX_BODY = 16 * 1024  # a deal, an edit or a new game is a few hundred bytes
MAX_LISTENERS = 64  # phones following the sheet at once
BODY_SECONDS = 10.0  # a request's body arrives within this, once its head has
TICK = 0.1  # how often the live stream looks at the game file (s)
BEAT = 15.0  # a comment on an idle stream, so that proxies and phones keep it open (s)
STATIC = Path(__file__).resolve().parent / "static"
ASSETS = {"app.js": "text/javascript; charset=utf-8", "app.css": "text/css; charset=utf-8"}
TOKEN_HEADER = "x-kingsheet-token"
LOCAL_HOSTS = ("127.0.0.1", "localhost")  # the names a browser on this computer uses for it
MAX_JSON_DEPTH = 20  # a deal is three levels deep
MAX_RULES_REF = 120  # a bundled id or a template file's name
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
       "form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
HEADERS = {"content-security-policy": CSP, "x-content-type-options": "nosniff", "referrer-policy": "no-referrer",
           "cache-control": "no-store", "x-frame-options": "DENY"}

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]


class Table:
    """What the server serves: the game file (it may change to a new game in the same folder), the
    token and the language of the command line."""

    def __init__(self, path: Path, token: str, lang: str) -> None:
        self.path = path.resolve()
        self.folder = self.path.parent
        self.token = token
        self.lang = lang
        self.listeners = 0
        self.wake = asyncio.Event()  # set (and replaced) when a write through this server is saved
        self._answers: dict[tuple[str, str], tuple[str, bytes, str | None]] = {}

    def changed(self) -> None:
        """Tell every live stream at once (a change from a terminal is found by the stream's look)."""
        old, self.wake = self.wake, asyncio.Event()
        old.set()

    def remembered(self, what: str, lang: str) -> bytes | None:
        """An answer built from the game file as it is now, if one was kept (see keep)."""
        kept = self._answers.get((what, lang))
        if kept is not None and kept[0] == self.version() + _template_stamp(kept[2]):
            return kept[1]
        return None

    def keep(self, what: str, lang: str, version: str, answer: dict[str, Any]) -> bytes:
        """An answer kept, as the bytes sent, until the game file (or its template) changes: every
        phone asks for the state after each deal, and the same file gives the same state."""
        template = answer.pop("_template", None)
        body = JSONResponse(answer).body
        if len(self._answers) > 16:
            self._answers.clear()
        self._answers[(what, lang)] = (version + _template_stamp(template), bytes(body), template)
        return bytes(body)

    def version(self) -> str:
        """Changes whenever the game file does (an atomic save replaces the file)."""
        try:
            st = self.path.stat()
        except OSError:
            return f"{self.path.name}:none"
        return f"{self.path.name}:{st.st_ino}:{st.st_mtime_ns}:{st.st_size}"


def _template_stamp(path: str | None) -> str:
    """The state of the template file an answer was built with (a house template may be edited)."""
    if not path:
        return ""
    try:
        st = Path(path).stat()
    except OSError:
        return ":gone"
    return f":{st.st_mtime_ns}:{st.st_size}"


class Guard:
    """The token on every request, the page's own origin on every write, the Host header, bounded
    bodies, and the security headers on every answer."""

    def __init__(self, app: Callable[[Scope, Receive, Send], Awaitable[None]], table: Table,
                 hosts: Collection[str]) -> None:
        self.app, self.table = app, table
        self.hosts = {h.lower() for h in hosts}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        with i18n.speaking(_lang(request, self.table)):  # in the page's language, as every answer
            refusal = self.refusal(request)
        if refusal is not None:
            await _plain(*refusal)(scope, receive, _secured(send))
            return
        await self.app(scope, _bounded(receive), _secured(send))

    def refusal(self, request: Request) -> tuple[int, str] | None:
        """Why this request is turned away before it reaches the page or the API, or None."""
        if _hostname(request.headers.get("host", "")) not in self.hosts:
            return 421, _("kingsheet: this server is not reached under that name; open the address it printed")
        write = request.method not in ("GET", "HEAD")
        given = request.headers.get(TOKEN_HEADER) or ("" if write else request.query_params.get("t", ""))
        if not hmac.compare_digest(given.encode(), self.table.token.encode()):
            return 403, _("kingsheet: this address needs the token that `kingsheet serve` printed")
        length = request.headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
            return 413, _("kingsheet: the request is too large")
        if not write:
            if (length or "0") != "0" or "transfer-encoding" in request.headers:
                return 400, _("kingsheet: a request to read sends no body")
            return None
        if request.headers.get("content-type", "").split(";")[0].strip().lower() != "application/json":
            return 415, _("kingsheet: a change is sent as JSON")
        origin = request.headers.get("origin")
        if origin is not None and origin != f"{request.url.scheme}://{request.headers.get('host', '')}":
            return 403, _("kingsheet: a change must come from the sheet's own page")
        if request.headers.get("sec-fetch-site", "same-origin") != "same-origin":
            return 403, _("kingsheet: a change must come from the sheet's own page")
        return None


def _hostname(host: str) -> str:
    """The name in a Host header, without its port (an IPv6 address keeps its brackets)."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[:host.find("]") + 1]
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def _secured(send: Send) -> Send:
    """The security headers on every answer, whatever the route set."""
    async def inner(message: MutableMapping[str, Any]) -> None:
        if message["type"] == "http.response.start":
            headers = [(k, v) for k, v in message.get("headers", []) if k.decode().lower() not in HEADERS]
            headers += [(k.encode(), v.encode()) for k, v in HEADERS.items()]
            message["headers"] = headers
        await send(message)

    return inner


def _bounded(receive: Receive) -> Receive:
    """A body is cut off past MAX_BODY (one sent without its length too) and must arrive within
    BODY_SECONDS; once it is whole, receiving waits as long as the answer takes (the live stream)."""
    seen = 0
    whole = False
    deadline = time.monotonic() + BODY_SECONDS

    async def inner() -> MutableMapping[str, Any]:
        nonlocal seen, whole
        if whole:
            return await receive()
        try:
            message = await asyncio.wait_for(receive(), max(0.0, deadline - time.monotonic()))
        except TimeoutError:
            raise _TooSlow from None
        if message["type"] == "http.request":
            seen += len(message.get("body", b""))
            if seen > MAX_BODY:
                raise _TooLarge
            whole = not message.get("more_body", False)
        else:
            whole = True
        return message

    return inner


class _TooLarge(Exception):
    pass


class _TooSlow(Exception):
    pass


def _plain(status: int, text: str) -> Response:
    return Response(text + "\n", status_code=status, media_type="text/plain; charset=utf-8")


def _lang(request: Request, table: Table) -> str:
    return i18n.known(request.query_params.get("lang")) or table.lang


async def _body(request: Request) -> dict[str, Any]:
    try:
        raw = await request.body()
    except _TooLarge:
        raise _Answer(413, _("the request is too large")) from None
    except _TooSlow:
        raise _Answer(408, _("the request came too slowly")) from None
    try:
        text = raw.decode("utf-8") or "{}"
    except UnicodeDecodeError:
        raise _Answer(400, _("the request is not JSON")) from None
    if _depth(text) > MAX_JSON_DEPTH:
        raise _Answer(400, _("the request is nested too deeply"))
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        raise _Answer(400, _("the request is not JSON")) from None
    if not isinstance(data, dict):
        raise _Answer(400, _("the request is not a JSON object"))
    return data


def _depth(text: str) -> int:
    """How deeply a JSON text nests, counted before parsing it (the parser recurses)."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            escaped, in_string = (False, True) if escaped else (ch == "\\", ch != '"')
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


class _Answer(Exception):
    def __init__(self, status: int, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status, self.message, self.extra = status, message, extra


def _json(obj: Any, status: int = 200) -> JSONResponse:
    return JSONResponse(obj, status_code=status)


def make_app(path: Path, token: str, lang: str, hosts: Collection[str] = LOCAL_HOSTS) -> Any:
    """The ASGI application for one game: the page, its API and the live stream, behind the guard.
    ``hosts`` are the names the server is reached under (with --lan, the computer's address too)."""
    table = Table(path, token, lang)

    def endpoint(work: Callable[[Request, Table, str], Awaitable[Response]]) -> Callable[[Request], Awaitable[Response]]:
        async def handle(request: Request) -> Response:
            lang = _lang(request, table)
            with i18n.speaking(lang):  # every answer in the page's language, errors too
                try:
                    return await work(request, table, lang)
                except _Answer as exc:
                    return _json({"ok": False, "error": exc.message, **exc.extra}, exc.status)

        return handle

    routes = [
        Route("/", endpoint(page)),
        Route("/static/{name}", endpoint(asset)),
        Route("/favicon.ico", endpoint(no_icon)),
        Route("/api/state", endpoint(state)),
        Route("/api/events", endpoint(events)),
        Route("/api/room", endpoint(room)),
        Route("/api/deal", endpoint(post_deal), methods=["POST"]),
        Route("/api/edit", endpoint(post_edit), methods=["POST"]),
        Route("/api/undo", endpoint(post_undo), methods=["POST"]),
        Route("/api/money", endpoint(money)),
        Route("/api/rules", endpoint(rules_list)),
        Route("/api/new", endpoint(post_new), methods=["POST"]),
        Route("/download/{kind}", endpoint(download)),
    ]
    app = Starlette(routes=routes)
    app.state.table = table
    return Guard(app, table, hosts)


# ---- the page ---------------------------------------------------------------------------------

async def page(request: Request, table: Table, lang: str) -> Response:
    from urllib.parse import quote

    html = (STATIC / "index.html").read_text(encoding="utf-8").replace('lang="ru"', f'lang="{lang}"')
    html = html.replace("{token}", quote(table.token, safe=""))  # the assets ask with the page's token
    return Response(html, media_type="text/html; charset=utf-8")


async def asset(request: Request, table: Table, lang: str) -> Response:
    name = request.path_params["name"]
    if name not in ASSETS:  # a fixed list: no path from the request reaches the disk
        raise _Answer(404, _("no such page"))
    return Response((STATIC / name).read_bytes(), media_type=ASSETS[name])


async def no_icon(request: Request, table: Table, lang: str) -> Response:
    return Response(status_code=204)


# ---- reading ----------------------------------------------------------------------------------

def _in(lang: str, work: Callable[[], Any]) -> Any:
    with i18n.speaking(lang):
        return work()


async def _threaded(lang: str, work: Callable[[], Any]) -> Any:
    """File work off the event loop (a save may wait for the lock), in the request's language."""
    return await run_in_threadpool(_in, lang, work)


async def state(request: Request, table: Table, lang: str) -> Response:
    return await _remembered(table, "state", lang, sheet_state)


async def _remembered(table: Table, what: str, lang: str, build: Callable[[Table, str], dict[str, Any]]) -> Response:
    """An answer from the game file: the kept one while the file is as it was (no thread, no
    reading), else built afresh in a thread and kept."""
    body = table.remembered(what, lang)
    if body is None:
        def work() -> bytes:
            version = table.version()  # before reading: a change meanwhile is built again next time
            return table.keep(what, lang, version, build(table, lang))

        body = await _threaded(lang, work)
    return Response(body, media_type="application/json")


def sheet_state(table: Table, lang: str) -> dict[str, Any]:
    """Everything the page shows: the rows as on the paper blank, ИТОГО, the problems, and what the
    next deal needs. Names and notes are plain strings; the page writes them as text."""
    from kingsheet.core.entry import next_game
    from kingsheet.core.verify import verify
    from kingsheet.files.gamefile import load_game
    from kingsheet.render.labels import word
    from kingsheet.render.sheet import rows_for
    from kingsheet.render.text import status_line

    version = table.version()
    try:
        game = load_game(table.path)
    except Unusable as exc:
        return {"ok": False, "error": str(exc), "version": version, "words": words(lang), "lang": lang}
    report = verify(game)
    rules = game.rules
    rows = []
    for r in rows_for(rules, report, None, lang):
        rows.append({"number": r.number, "game": r.game, "game_id": r.game_id,
                     "points": None if r.points is None else num(r.points), "cells": list(r.cells),
                     "values": list(r.values) if r.values is not None else None, "dealer": r.dealer, "who": r.who,
                     "played": r.number <= len(game.deals), "ok": r.ok, "mark": r.mark, "stage": r.stage,
                     "stage_start": r.stage_start})
    totals = [[word("minus", lang), *[num(report.totals[p].minus) for p in game.players]],
              [word("plus", lang), *[num(report.totals[p].plus) for p in game.players]],
              [word("total", lang), *[num(report.totals[p].total) for p in game.players]]]
    if rules.limit is not None:
        totals = totals[2:]
    k = len(game.deals) + 1
    nxt = None if report.complete else next_game(game, report)
    return {
        "_template": str(rules.template.path) if rules.template.path else None,
        "ok": True, "version": version, "lang": lang, "file": table.path.name, "rules": rules.id,
        "title": game.title or rules.template.name.get(lang, rules.id),
        "players": list(game.players), "rows": rows, "totals": totals, "deals": len(game.deals),
        "complete": report.complete, "sheet_ok": report.ok, "status": status_line(report),
        "problems": [p.message for p in report.problems],
        "games": [_game_info(rules, g, lang) for g in rules.games.values()],
        "ordered": rules.order.value not in ("fixed", "to-limit"),
        "next": None if report.complete else {
            "number": k, "game": nxt, "dealer": game.dealer_of(k), "on_turn": game.on_turn(k),
        },
        "words": words(lang),
    }


def _game_info(rules: Any, g: Any, lang: str) -> dict[str, Any]:
    from kingsheet.core.rules import Kind
    from kingsheet.core.scoring import cell_sign

    extras = []
    if g.kind is Kind.TRUMPS:
        extras.append("declarer")
        if rules.bidding:
            extras.append("bid")
        if rules.buyout:
            extras += ["buyer", "price"]
        extras.append("contract")
    elif g.kind is Kind.CARDS and g.choose_suit:
        extras.append("contract")
        if g.bid:
            extras += ["declarer", "bid"]
    if rules.order.value not in ("fixed", "to-limit"):
        extras.append("orderer")
    counts = list(g.categories) if g.kind in (Kind.ERALASH, Kind.SINGLE) and g.categories else []
    return {"id": g.id, "label": g.label(lang), "total": num(g.total), "sign": cell_sign(rules, g),
            "extras": extras, "counts": counts if len(counts) > 1 else []}


def words(lang: str) -> dict[str, str]:
    """The page's own words, from the catalog."""
    from kingsheet.core.vocabulary import COUNT_WORDS
    from kingsheet.render.labels import word

    out = {
        "sheet": _("Sheet"), "money": _("Money"), "new": _("New game"), "deal": word("deal", lang),
        "game": word("game", lang), "points": word("points", lang),
        "save": _("Save the deal"), "save_edit": _("Save the correction"), "cancel": _("Cancel"),
        "undo": _("Undo the last deal"), "undo_confirm": _("Remove the last deal?"),
        "next": _("Deal {number}: {game}, {dealer} deals"), "next_free": _("Deal {number}, {dealer} deals"),
        "edit": _("Correct deal {number}: {game}"), "taken": _("What each took"), "by_points": _("Points"),
        "declarer": word("declarer", lang), "orderer": word("orderer", lang), "bid": _("Bid"),
        "buyer": _("Bought by"), "nobody": _("nobody"), "price": _("Price (tricks)"),
        "contract": _("Contract"), "note": _("Note"), "complete": _("The sheet is complete."), "offline": _("No connection; trying again…"),
        "elsewhere": _("Deal {number} was entered on another phone or terminal."),
        "elsewhere_kept": _("Deal {number} was entered on another phone or terminal; what you typed is kept "
                            "in the form for the next deal: compare it with that row, then correct or clear it."),
        "pairwise": _("Pair by pair"), "pot": _("Through the pot"),
        "player": word("player", lang), "total_word": word("total", lang), "balance": _("Wins (+) or pays (−)"),
        "pairs": _("What each pair settles"),
        "stake": word("stake", lang), "transfers": word("transfers", lang),
        "nobody_owes": _("nobody owes anything"), "not_final": _("Not final: the sheet is unfinished or has problems."),
        "rules": _("Rules"), "players_in_order": _("Players, clockwise from the first dealer"),
        "start": _("Start the game"),
        "tap_to_edit": _("Tap a played row to correct it."), "language": _("Русский / English"),
    }
    for cat, names in COUNT_WORDS.items():
        out[f"count_{cat}"] = names.get(lang, names["en"])
    return out


def _full() -> str:
    return ngettext("{most} phone already follows this game, the most one server lets in; this phone shows "
                    "the sheet when it is opened again or another phone closes it",
                    "{most} phones already follow this game, the most one server lets in; this phone shows "
                    "the sheet when it is opened again or another phone closes it", MAX_LISTENERS).format(
        most=MAX_LISTENERS)


async def room(request: Request, table: Table, lang: str) -> Response:
    """Whether another phone may follow the game: a browser's live stream cannot read why it was
    turned away, so the page asks here and shows the sentence."""
    if table.listeners >= MAX_LISTENERS:
        return _json({"ok": False, "error": _full()})
    return _json({"ok": True})


async def events(request: Request, table: Table, lang: str) -> Response:
    """Server-sent events: one `change` each time the game file changes (a save here, on another
    phone, or by `kingsheet deal` in a terminal). The page reloads the state then."""
    if table.listeners >= MAX_LISTENERS:
        raise _Answer(503, _full())
    table.listeners += 1  # counted as the request is admitted: a burst cannot pass the limit

    async def stream() -> Any:
        last = None
        beat = time.monotonic()
        yield "retry: 1000\n\n"
        while not await request.is_disconnected():
            now = table.version()
            if now != last:
                last, beat = now, time.monotonic()
                yield f"event: change\ndata: {json.dumps(now)}\n\n"
            elif time.monotonic() - beat > BEAT:
                beat = time.monotonic()
                yield ": still here\n\n"
            with contextlib.suppress(TimeoutError):  # a write here wakes it at once; a terminal's is looked for
                await asyncio.wait_for(table.wake.wait(), TICK)

    return _Followed(table, stream(), media_type="text/event-stream", headers={"x-accel-buffering": "no"})


class _Followed(StreamingResponse):
    """The live stream, which gives its place back however it ends (even if it never started)."""

    def __init__(self, table: Table, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.table = table

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self.table.listeners -= 1


async def money(request: Request, table: Table, lang: str) -> Response:
    return await _remembered(table, "money", lang, money_state)


def money_state(table: Table, lang: str) -> dict[str, Any]:
    """Both settlements with the game's stake: pair by pair and through the pot (against the mean
    where the totals do not sum to zero), marked not final on an unfinished sheet or one with problems."""
    from kingsheet.core.money import fmt_money, local_decimal, settle, settlement_of
    from kingsheet.core.verify import verify
    from kingsheet.files.gamefile import load_game
    from kingsheet.render.money import signed_money

    report = verify(load_game(table.path))
    base = settlement_of(report)
    stake = base.stake if base else Decimal(1)
    currency = base.currency if base else "RUB"
    totals = {p: t.total for p, t in report.totals.items()}
    template = report.game.rules.template.path
    out: dict[str, Any] = {"final": report.complete and report.ok, "ok": True,
                           "_template": str(template) if template else None}
    for method in ("pairwise", "pot"):
        s = settle(totals, stake, currency, method, pot_mean=True)
        out[method] = {
            "stake": f"{local_decimal(s.stake)} {s.symbol}",
            "rows": [[p, num(int(s.totals[p])) if s.totals[p] == int(s.totals[p]) else local_decimal(s.totals[p]),
                      signed_money(s.settled[p], s)] for p in s.totals],
            "transfers": [[t.payer, t.payee, fmt_money(t.amount, s)] for t in s.transfers],
            "pairs": [[t.payer, t.payee, fmt_money(t.amount, s)] for t in s.pairs],
            "notes": list(s.notes),
        }
    return out


async def rules_list(request: Request, table: Table, lang: str) -> Response:
    def work() -> list[dict[str, Any]]:
        from kingsheet.core.rules import load_template, template_ids

        out = []
        for tid in template_ids():
            tpl = load_template(tid)
            out.append({"id": tid, "name": tpl.name.get(lang, tid), "players": tpl.players})
        return out

    return _json(await _threaded(lang, work))


async def download(request: Request, table: Table, lang: str) -> Response:
    kind = request.path_params["kind"]
    if kind not in ("pdf", "xlsx"):
        raise _Answer(404, _("no such page"))

    def work() -> bytes:
        from kingsheet.core.money import settlement_of
        from kingsheet.core.verify import verify
        from kingsheet.files.gamefile import load_game

        report = verify(load_game(table.path))
        money = settlement_of(report)
        if kind == "pdf":
            from kingsheet.render.pdf import sheet_pdf

            return sheet_pdf(report, money, lang)
        from kingsheet.render.xlsx import sheet_xlsx

        return sheet_xlsx(report, money, lang)

    try:
        data = await _threaded(lang, work)
    except Unusable as exc:
        raise _Answer(400, str(exc)) from None
    media = "application/pdf" if kind == "pdf" else \
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
    name = table.path.with_suffix("." + kind).name
    return Response(data, media_type=media, headers={
        "content-disposition": f"attachment; filename=\"sheet.{kind}\"; filename*=UTF-8''{_quote(name)}"})


def _quote(name: str) -> str:
    from urllib.parse import quote

    return quote(name, safe="")


# ---- writing ----------------------------------------------------------------------------------

def _seen(body: Mapping[str, Any]) -> int:
    seen = body.get("seen")
    if isinstance(seen, bool) or not isinstance(seen, int) or seen < 0:
        raise _Answer(400, _("the request does not say how many deals the screen showed"))
    return seen


def _fields(game: Any, number: int, body: Mapping[str, Any], keep: Any = None) -> dict[str, Any]:
    """A deal's fields from the form, with the CLI's own parsing: points typed as magnitudes take
    the game's sign; names must be the table's; what each took is checked as in a game file."""
    from kingsheet.core.entry import deal_fields, signed_points

    rules = game.rules
    gid = rules.find_game(str(body.get("game") or ""))
    if gid is None:
        raise _Answer(400, _("{id} has no game '{game}'").format(id=rules.id, game=str(body.get("game"))[:40]))
    taken = body.get("taken")
    points = body.get("points")
    if taken is not None:
        if not isinstance(taken, list) or not all(isinstance(t, dict) for t in taken):
            raise _Answer(400, _("what each took must be a list, one entry per player"))
        if not any(str(v).strip() for t in taken for v in t.values()):
            raise _Answer(400, _("the row is empty: type what each player took"))
        tokens: list[str] = []
    else:
        if not isinstance(points, list) or not all(isinstance(v, (int, str)) and not isinstance(v, bool)
                                                   for v in points):
            raise _Answer(400, _("the points must be a list, one per player"))
        if points and not any(str(v).strip() for v in points):
            raise _Answer(400, _("the row is empty: type each player's points (0 for nothing)"))
        tokens = signed_points(rules, gid, [str(v)[:12] for v in points])
    extras = {k: body[k] for k in ("declarer", "orderer", "buyer", "bid", "price", "contract", "note")
              if body.get(k) not in (None, "")}
    for key in ("bid", "price"):
        if key in extras:
            extras[key] = str(extras[key])[:6]
    if keep is not None:  # an edit keeps what the form does not show (not the note of a row read from a photo)
        for key in ("declarer", "orderer", "contract", "bid", "buyer", "price", *(() if keep.confirm else ("note",))):
            if getattr(keep, key) is not None and key not in extras and key not in body:
                extras[key] = getattr(keep, key)
    return deal_fields(game, number, gid, tokens, taken, extras)


def _refused(exc: Any) -> _Answer:
    return _Answer(422, "; ".join(p.message for p in exc.problems), problems=[p.message for p in exc.problems])


async def _write(table: Table, lang: str, work: Callable[[], str]) -> Response:
    from kingsheet.files.changes import Refused

    try:
        message = await _threaded(lang, work)
    except _Answer:
        raise
    except Refused as refused:
        raise _refused(refused) from None
    except InputError as exc:
        from kingsheet.files.changes import Stale

        raise _Answer(409 if isinstance(exc, Stale) else 400, str(exc)) from None
    except Unusable as exc:
        raise _Answer(503, str(exc)) from None
    table.changed()
    return _json({"ok": True, "message": message})


async def post_deal(request: Request, table: Table, lang: str) -> Response:
    body = await _body(request)
    seen = _seen(body)

    def work() -> str:
        from kingsheet.files.changes import add_deal
        from kingsheet.files.gamefile import load_game

        game = load_game(table.path)
        change = add_deal(table.path, _fields(game, seen + 1, body), seen=seen)
        return _("✓ deal {number} saved").format(number=change.number)

    return await _write(table, lang, work)


async def post_edit(request: Request, table: Table, lang: str) -> Response:
    body = await _body(request)
    seen = _seen(body)
    number = body.get("number")

    def work() -> str:
        from kingsheet.files.changes import edit_deal
        from kingsheet.files.gamefile import load_game

        game = load_game(table.path)
        if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= len(game.deals):
            raise _Answer(400, _("there is no deal {number}; the sheet has {deals}").format(
                number=str(number)[:10], deals=len(game.deals)))
        old = game.deals[number - 1]
        change = edit_deal(table.path, number, _fields(game, number, body, keep=old), seen=seen)
        return _("✓ deal {number} corrected").format(number=change.number)

    return await _write(table, lang, work)


async def post_undo(request: Request, table: Table, lang: str) -> Response:
    body = await _body(request)
    seen = _seen(body)

    def work() -> str:
        from kingsheet.files.changes import undo_deal

        change = undo_deal(table.path, seen=seen)
        return _("deal {number} removed").format(number=change.number)

    return await _write(table, lang, work)


async def post_new(request: Request, table: Table, lang: str) -> Response:
    """A new game in the same folder, under a name kingsheet chooses (the date and a number): the
    page never names a path. The server then serves the new game."""
    body = await _body(request)

    def work() -> str:
        from kingsheet.files.creation import create_game

        players = body.get("players")
        if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
            raise _Answer(400, _("the players must be a list of names"))
        names = [p.strip() for p in players]
        empty = [i for i, p in enumerate(names, 1) if not p]
        if empty:
            raise _Answer(400, _("player {n} has no name").format(n=empty[0]))
        stake = str(body.get("stake") or "").strip().replace(",", ".") or None
        rules = _rules_ref(body.get("rules"), table.folder)
        path = _fresh_name(table.folder)
        create_game(path, rules, names, None, None, stake)
        table.path = path
        return _("new game: {file}").format(file=path.name)

    from kingsheet.core.rules import RulesError

    try:
        return await _write(table, lang, work)
    except RulesError as exc:
        raise _Answer(400, str(exc)) from None


def _rules_ref(given: Any, folder: Path) -> str:
    """What a phone may name as the rules of a new game: a bundled rule system, or a template file
    lying in the game's own folder, by its name. Nothing else on the computer is read."""
    from kingsheet.core.rules import template_ids

    ref = given if isinstance(given, str) else ""
    if ref in template_ids():
        return ref
    plain = 0 < len(ref) <= MAX_RULES_REF and ref.endswith(".toml") and Path(ref).name == ref and \
        not ref.startswith(".") and "\\" not in ref
    if plain and (folder / ref).is_file() and (folder / ref).resolve().parent == folder:
        return str(folder / ref)
    raise _Answer(400, _("the rules must be a bundled rule system or a template file in the game's folder"))


def _fresh_name(folder: Path) -> Path:
    today = dt.date.today().isoformat()
    for k in range(1, 1000):
        path = folder / f"{today}-{k}.toml"
        if not path.exists():
            return path
    raise _Answer(409, _("too many games today in this folder"))
