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
import hmac
import json
import time
from collections.abc import Awaitable, Callable, Collection, MutableMapping
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from kingsheet.core import i18n
from kingsheet.core.i18n import _, ngettext
from kingsheet.table import actions, formats
from kingsheet.table.actions import Answer

MAX_BODY = 16 * 1024  # a deal, an edit or a new game is a few hundred bytes
PHOTO_PATH = "/api/photo"
MAX_PHOTO_BODY = 24 * 1024 * 1024  # the photos of a blank's pages, as base64 in JSON
PHOTO_SECONDS = 120.0  # a phone on a slow Wi-Fi sends a few megabytes within this
# photos read at once: one is read (its pages one after another), one more may arrive and wait;
# any other is refused before its body is taken in, so a burst of uploads costs two bodies' memory
PHOTO_PLACES = 2
PARSE_OFF_LOOP = 64 * 1024  # a body past this is parsed in a thread: no phone waits on it
MAX_LISTENERS = 64  # phones following the sheet at once
BODY_SECONDS = 10.0  # a request's body arrives within this, once its head has
TICK = 0.1  # how often the live stream looks at the game file (s)
BEAT = 15.0  # a comment on an idle stream, so that proxies and phones keep it open (s)
STATIC = Path(__file__).resolve().parent / "static"
ASSETS = {"app.js": "text/javascript; charset=utf-8", "app.css": "text/css; charset=utf-8"}
TOKEN_HEADER = "x-kingsheet-token"
LOCAL_HOSTS = ("127.0.0.1", "localhost")  # the names a browser on this computer uses for it
MAX_JSON_DEPTH = 20  # a deal is three levels deep
# img-src data: is for the strips of paper a photographed row was read from (PNG, made here)
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
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
        self.photos = 0  # photo requests admitted (being received, waiting or read)
        self.reading = asyncio.Lock()  # one photo read at a time

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
        await self.app(scope, _bounded(receive, *_limit(scope.get("path", ""))), _secured(send))

    def refusal(self, request: Request) -> tuple[int, str] | None:
        """Why this request is turned away before it reaches the page or the API, or None."""
        if _hostname(request.headers.get("host", "")) not in self.hosts:
            return 421, _("kingsheet: this server is not reached under that name; open the address it printed")
        write = request.method not in ("GET", "HEAD")
        given = request.headers.get(TOKEN_HEADER) or ("" if write else request.query_params.get("t", ""))
        if not hmac.compare_digest(given.encode(), self.table.token.encode()):
            return 403, _("kingsheet: this address needs the token that `kingsheet serve` printed")
        length = request.headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > _limit(request.url.path)[0]):
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


def _limit(path: str) -> tuple[int, float]:
    """How large a request's body may be, and how long it may take to arrive: a photo of the blank
    is megabytes, everything else a few hundred bytes."""
    return (MAX_PHOTO_BODY, PHOTO_SECONDS) if path == PHOTO_PATH else (MAX_BODY, BODY_SECONDS)


def _bounded(receive: Receive, most: int = MAX_BODY, seconds: float = BODY_SECONDS) -> Receive:
    """A body is cut off past ``most`` bytes (one sent without its length too) and must arrive within
    ``seconds``; once it is whole, receiving waits as long as the answer takes (the live stream)."""
    seen = 0
    whole = False
    deadline = time.monotonic() + seconds

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
            if seen > most:
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
    except ClientDisconnect:
        raise _Gone from None
    if len(raw) > PARSE_OFF_LOOP:  # megabytes of photos: parsed in a thread, the other phones answered meanwhile
        return await run_in_threadpool(_parsed, raw)
    return _parsed(raw)


async def _drained(request: Request) -> None:
    """A body let pass without being kept (each piece dropped as it comes, within the same bounds of
    size and time), so that the phone has sent it whole before it is answered: a server that answers
    and closes while the phone still sends leaves the phone a broken connection, not the sentence."""
    try:
        async for _piece in request.stream():
            pass
    except (_TooLarge, _TooSlow, ClientDisconnect):
        pass


class _Gone(Exception):
    """The phone went away before its request's body was whole: nobody is left to answer."""


def _parsed(raw: bytes) -> dict[str, Any]:
    """A request's body as the JSON object it must be, or the sentence why not."""
    try:
        text = raw.decode("utf-8") or "{}"
    except UnicodeDecodeError:
        raise _Answer(400, _("the request is not JSON")) from None
    if text.count("[") + text.count("{") > MAX_JSON_DEPTH and _depth(text) > MAX_JSON_DEPTH:
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


class _Answer(Answer):
    """An answer given by the server itself (not the application layer)."""


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
                except _Gone:  # the phone left mid-body: no traceback, no answer anyone reads
                    return Response(status_code=400)
                except Exception as exc:  # noqa: BLE001 - every error one status and one sentence (actions.answer_of)
                    status, data = actions.answer_of(exc, table.folder)
                    return _json(data, status)

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
        Route("/api/club", endpoint(club)),
        Route("/api/club/player", endpoint(club_player), methods=["POST"]),
        Route("/api/club/paid", endpoint(club_paid), methods=["POST"]),
        Route(PHOTO_PATH, endpoint(post_photo), methods=["POST"]),
        Route("/api/photo/keep", endpoint(post_keep_photo), methods=["POST"]),
        Route("/api/photo/fill", endpoint(post_fill_photo), methods=["POST"]),
        Route("/api/photo/text", endpoint(post_photo_text), methods=["POST"]),
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
    return await _remembered(table, "state", lang, lambda: {**actions.state(table.path, lang),
                                                             "version": table.version()})


async def money(request: Request, table: Table, lang: str) -> Response:
    return await _remembered(table, "money", lang, lambda: actions.money(table.path, lang))


async def _remembered(table: Table, what: str, lang: str, build: Callable[[], dict[str, Any]]) -> Response:
    """An answer from the game file: the kept one while the file is as it was (no thread, no
    reading), else built afresh in a thread and kept."""
    body = table.remembered(what, lang)
    if body is None:
        def work() -> bytes:
            version = table.version()  # before reading: a change meanwhile is built again next time
            return table.keep(what, lang, version, build())

        body = await _threaded(lang, work)
    return Response(body, media_type="application/json")


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


async def rules_list(request: Request, table: Table, lang: str) -> Response:
    return _json(await _threaded(lang, lambda: actions.rule_systems(lang)))


async def club(request: Request, table: Table, lang: str) -> Response:
    """The club of the game's folder: its standings and ledger (kingsheet club)."""
    return _json(await _threaded(lang, lambda: actions.club(table.folder, lang)))


async def club_player(request: Request, table: Table, lang: str) -> Response:
    """One player's page of the club (kingsheet club player)."""
    body = await _body(request)
    return _json(await _threaded(lang, lambda: actions.club_player(table.folder, body, lang)))


async def club_paid(request: Request, table: Table, lang: str) -> Response:
    """A payment between evenings, recorded in the folder's club.toml (kingsheet club paid)."""
    body = await _body(request)
    return _json(await _threaded(lang, lambda: actions.club_paid(table.folder, body, lang)))


async def download(request: Request, table: Table, lang: str) -> Response:
    kind = request.path_params["kind"]
    if kind not in formats.DOWNLOADS:
        raise _Answer(404, _("no such page"))
    data, media, name = await _threaded(lang, lambda: actions.export(table.path, "." + kind, lang))
    return Response(data, media_type=media, headers={
        "content-disposition": f"attachment; filename=\"sheet.{kind}\"; filename*=UTF-8''{_quote(name)}"})


def _quote(name: str) -> str:
    from urllib.parse import quote

    return quote(name, safe="")


# ---- writing ----------------------------------------------------------------------------------

async def _write(table: Table, lang: str, work: Callable[[], str]) -> Response:
    message = await _threaded(lang, work)
    table.changed()
    return _json({"ok": True, "message": message})


async def post_deal(request: Request, table: Table, lang: str) -> Response:
    body = await _body(request)
    return await _write(table, lang, lambda: actions.deal(table.path, body))


async def post_edit(request: Request, table: Table, lang: str) -> Response:
    body = await _body(request)
    return await _write(table, lang, lambda: actions.edit(table.path, body))


async def post_undo(request: Request, table: Table, lang: str) -> Response:
    body = await _body(request)
    return await _write(table, lang, lambda: actions.undo(table.path, body))


async def post_photo(request: Request, table: Table, lang: str) -> Response:
    """The photos of a filled blank, read here; the rows come back to the phone to confirm. One
    sheet is read at a time and one more may wait; a phone past those is told so, its photos let
    pass without being kept or decoded."""
    if table.photos >= PHOTO_PLACES:
        await _drained(request)
        raise _Answer(503, _("another phone's photos are being read; send these again in a minute"))
    table.photos += 1
    try:
        body = await _body(request)
        async with table.reading:
            return _json(await _threaded(lang, lambda: actions.read_photos(body, lang, table.path)))
    finally:
        table.photos -= 1


async def post_keep_photo(request: Request, table: Table, lang: str) -> Response:
    """A sheet read from photos, confirmed on the phone: a new game in the folder, served from then on."""
    body = await _body(request)

    def work() -> str:
        table.path = actions.keep_read(table.folder, body)
        return _("new game: {file}").format(file=table.path.name)

    return await _write(table, lang, work)


async def post_fill_photo(request: Request, table: Table, lang: str) -> Response:
    """A sheet read from photos, confirmed on the phone: the rows the open game has not played yet."""
    body = await _body(request)
    return await _write(table, lang, lambda: actions.fill_from_read(table.path, body))


async def post_photo_text(request: Request, table: Table, lang: str) -> Response:
    """A sheet read from photos, confirmed on the phone, for the phone app: its game file's text goes
    back to the phone (the page hands it to the app), and nothing is written here."""
    body = await _body(request)
    return _json(await _threaded(lang, lambda: actions.read_for_app(table.folder, body)))


async def post_new(request: Request, table: Table, lang: str) -> Response:
    """A new game in the same folder, under a name kingsheet chooses: the page never names a path.
    The server then serves the new game."""
    body = await _body(request)

    def work() -> str:
        table.path = actions.new_game(table.folder, body)
        return _("new game: {file}").format(file=table.path.name)

    return await _write(table, lang, work)
