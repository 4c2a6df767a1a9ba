"""`kingsheet serve` under attack, each as an outside trial did it: a page on another port of the
same host, a name that is not the server's, slow connections that would hold every place, a burst
of live streams, bodies nested, chunked or late, and a new game asked to read files anywhere. The
cross-origin page runs in a real Chromium; the rest go to a real server over real sockets."""

from __future__ import annotations

import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

import contextlib

from serving import CHROMIUM, PHONE, TOKEN, chromium, friday, phone_client, running

from conftest import deal, game_text
from kingsheet.files.gamefile import load_game
from kingsheet.serve.app import make_app

ROWS = [("tricks", [-4, -6, -6, 0]), ("hearts", [-4, -4, 0, -8]), ("boys", [0, -4, 0, -12]), ("girls", [-4, -4, -4, -4])]


@pytest.fixture
def played(tmp_path) -> Path:
    path = tmp_path / "friday.toml"
    path.write_text(game_text(deals="".join(deal(g, p) for g, p in ROWS)), encoding="utf-8")
    return path


def _raw(base: str, data: bytes, read: bool = True, timeout: float = 5.0) -> bytes:
    host, port = base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=timeout) as s:
        s.sendall(data)
        if not read:
            return b""
        out = b""
        try:
            while not _whole(out):
                chunk = s.recv(4096)
                if not chunk:
                    break
                out += chunk
        except TimeoutError:
            pass
        return out


def _whole(answer: bytes) -> bool:
    """An answer's head and all of its body are in."""
    head, sep, body = answer.partition(b"\r\n\r\n")
    if not sep:
        return False
    for line in head.lower().split(b"\r\n"):
        if line.startswith(b"content-length:"):
            return len(body) >= int(line.split(b":")[1])
    return body.endswith(b"0\r\n\r\n")


# ---- a page on another port of the same host ------------------------------------------------------

ATTACK = """<!doctype html><meta charset="utf-8"><title>cats</title><script>
(async () => {
  const sheet = "%(sheet)s", token = "%(token)s";
  for (let n = 30; n >= 0; n--) {
    const body = JSON.stringify({seen: n});
    // what the outside trial sent: no-cors, the cookies included, a body the server used to read as JSON
    for (const url of [sheet + "/api/undo", sheet + "/api/undo?t=" + token]) {
      try { await fetch(url, {method: "POST", mode: "no-cors", credentials: "include",
                              headers: {"content-type": "text/plain"}, body}); } catch (e) {}
      try { await fetch(url, {method: "POST", mode: "no-cors", credentials: "include", body}); } catch (e) {}
      try { navigator.sendBeacon(url, new Blob([body], {type: "application/json"})); } catch (e) {}
    }
    // even knowing the token, a JSON request with the header needs a preflight the server refuses
    try { await fetch(sheet + "/api/undo", {method: "POST", credentials: "include",
                      headers: {"content-type": "application/json", "x-kingsheet-token": token}, body}); } catch (e) {}
  }
  // a form posted across origins (a navigation: no preflight, no custom header)
  const f = document.createElement("form");
  f.method = "POST"; f.action = sheet + "/api/undo?t=" + token; f.enctype = "text/plain"; f.target = "sink";
  const i = document.createElement("input"); i.name = '{"seen":4,"x":"'; i.value = '"}'; f.append(i);
  const frame = document.createElement("iframe"); frame.name = "sink"; document.body.append(frame, f);
  f.submit();
  setTimeout(() => { document.title = "done"; }, 1500);
})();
</script>"""


@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium on this machine (apt-get install chromium)")
def test_a_page_on_another_port_deletes_nothing_even_knowing_the_token(played):
    with running(played) as base:
        page_html = (ATTACK % {"sheet": base, "token": TOKEN}).encode()

        class Evil(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                self.send_response(200)
                self.send_header("content-type", "text/html; charset=utf-8")
                self.end_headers()
                self.wfile.write(page_html)

            def log_message(self, *args: object) -> None:
                pass

        evil = ThreadingHTTPServer(("127.0.0.1", 0), Evil)
        threading.Thread(target=evil.serve_forever, daemon=True).start()
        try:
            with chromium() as browser:
                ctx = browser.new_context(**PHONE)
                sheet = ctx.new_page()
                sheet.goto(f"{base}/?t={TOKEN}")  # the table's own phone has the sheet open
                sheet.wait_for_selector("#sheet tr >> nth=1")
                attacker = ctx.new_page()
                attacker.goto(f"http://127.0.0.1:{evil.server_address[1]}/")
                attacker.wait_for_function("document.title === 'done'", timeout=30_000)
                assert not ctx.cookies()  # no token is kept where another port could receive it
                sheet.reload()
                sheet.wait_for_selector("#sheet tr >> nth=1")
        finally:
            evil.shutdown()
        assert len(load_game(played).deals) == len(ROWS)


def test_a_write_must_come_from_the_page_itself(played):
    c = phone_client(make_app(played, TOKEN, "en"), TOKEN)
    body = json.dumps({"seen": 4}).encode()
    json_type = {"content-type": "application/json"}
    cases = [
        ({"content-type": "text/plain"}, 415, "JSON"),
        ({}, 415, "JSON"),
        ({**json_type, "origin": "http://127.0.0.1:18999"}, 403, "own page"),
        ({**json_type, "origin": "null"}, 403, "own page"),
        ({**json_type, "sec-fetch-site": "same-site"}, 403, "own page"),
        ({**json_type, "sec-fetch-site": "cross-site"}, 403, "own page"),
    ]
    for headers, status, words in cases:
        res = c.post("/api/undo", content=body, headers=headers)
        assert res.status_code == status and words in res.text, headers
    # the token in the address is for reading; a write carries it in the header the page adds
    bare = phone_client(make_app(played, TOKEN, "en"), "")
    assert bare.post(f"/api/undo?t={TOKEN}", content=body, headers=json_type).status_code == 403
    assert len(load_game(played).deals) == len(ROWS)
    ok = c.post("/api/undo", content=body, headers={**json_type, "origin": "http://127.0.0.1:8765",
                                                    "sec-fetch-site": "same-origin"})
    assert ok.status_code == 200 and len(load_game(played).deals) == len(ROWS) - 1


def test_a_name_that_is_not_the_servers_is_refused(played):
    """DNS rebinding: a site whose name is made to point at 127.0.0.1 reaches the server under its
    own name, with the token if it ever learnt it. The Host header must name this computer."""
    app = make_app(played, TOKEN, "en")
    c = phone_client(app, TOKEN)
    for host in ("evil.example", "evil.example:8765", "127.0.0.1.evil.example", ""):
        assert c.get("/api/state", headers={"host": host}).status_code == 421, host
        res = c.post("/api/undo", json={"seen": 4}, headers={"host": host})
        assert res.status_code == 421 and "address it printed" in res.text
    assert c.get("/api/state", headers={"host": "localhost:8765"}).status_code == 200
    assert len(load_game(played).deals) == len(ROWS)
    lan = phone_client(make_app(played, TOKEN, "en", hosts=("127.0.0.1", "localhost", "192.168.1.20")), TOKEN)
    assert lan.get("/api/state", headers={"host": "192.168.1.20:8765"}).status_code == 200


# ---- bodies -----------------------------------------------------------------------------------

def test_deeply_nested_json_is_one_sentence(played):
    c = phone_client(make_app(played, TOKEN, "en"), TOKEN)
    body = '{"seen":' + "[" * 5000 + "]" * 5000 + "}"
    res = c.post("/api/deal", content=body[:16000], headers={"content-type": "application/json"})
    assert res.status_code == 400 and res.json()["error"] == "the request is nested too deeply"
    # brackets inside a note are text, not nesting
    res = c.post("/api/deal", json={"seen": 4, "game": "king", "points": [0, 16, 0, 0], "note": "[" * 100})
    assert res.status_code == 200, res.text
    assert c.get("/api/state").status_code == 200


def test_chunked_late_and_bodied_reads_are_refused_by_a_real_server(played, monkeypatch):
    monkeypatch.setattr("kingsheet.serve.app.BODY_SECONDS", 1.0)
    with running(played, lang="en") as base:
        head = f"GET /api/events?t={TOKEN} HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n"
        out = _raw(base, head.encode() + b"4000\r\n" + b"x" * 0x4000 + b"\r\n0\r\n\r\n")
        assert out.startswith(b"HTTP/1.1 400") and b"sends no body" in out
        # a body promised and never sent: the answer comes once BODY_SECONDS have passed
        late = (f"POST /api/deal HTTP/1.1\r\nHost: 127.0.0.1\r\nx-kingsheet-token: {TOKEN}\r\n"
                "content-type: application/json\r\ncontent-length: 100\r\n\r\n{\"seen\"")
        start = time.monotonic()
        out = _raw(base, late.encode())
        assert out.startswith(b"HTTP/1.1 408") and b"came too slowly" in out and time.monotonic() - start < 4
        chunked = (f"POST /api/deal HTTP/1.1\r\nHost: 127.0.0.1\r\nx-kingsheet-token: {TOKEN}\r\n"
                   "content-type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
        out = _raw(base, chunked.encode() + (b"1000\r\n" + b" " * 0x1000 + b"\r\n") * 5 + b"0\r\n\r\n")
        assert out.startswith(b"HTTP/1.1 413")
    assert len(load_game(played).deals) == len(ROWS)


# ---- a new game names only what it may ------------------------------------------------------------

def test_a_new_game_reads_no_file_outside_the_games_folder(tmp_path):
    folder = tmp_path / "table"
    folder.mkdir()
    game = friday(folder)
    secret = tmp_path / "secret.toml"
    secret.write_text('api_key = "k"\npassword = "p"\n', encoding="utf-8")
    house = (Path(__file__).resolve().parent.parent / "templates" / "blank-4.toml").read_text(encoding="utf-8")
    (tmp_path / "elsewhere.toml").write_text(house, encoding="utf-8")
    c = phone_client(make_app(game, TOKEN, "en"), TOKEN)
    names = ["Аня", "Боря", "Вася", "Галя"]
    for rules in ("/etc/passwd", str(secret), str(tmp_path / "elsewhere.toml"), "../elsewhere.toml",
                  "../secret.toml", "x" * 5000, "a/b.toml", ".hidden.toml", 7, None, ["blank-4"]):
        res = c.post("/api/new", json={"rules": rules, "players": names})
        error = res.json()["error"]
        assert res.status_code == 400 and "bundled rule system or a template file" in error, rules
        assert "root" not in error and "api_key" not in error and "password" not in error
    assert sorted(p.name for p in folder.iterdir()) == ["friday.toml"]
    (folder / "house.toml").write_text(house, encoding="utf-8")
    res = c.post("/api/new", json={"rules": "house.toml", "players": names})
    assert res.status_code == 200, res.text
    made = [p for p in folder.iterdir() if p.name not in ("friday.toml", "house.toml")]
    assert len(made) == 1 and load_game(made[0]).rules.players == 4


# ---- holding the server's places ----------------------------------------------------------------------

def test_slow_connections_without_the_token_do_not_block_the_phones(played, monkeypatch):
    """300 sockets each sending a request's head one line every half second (the outside trial's
    250, every 2 s): the phones holding the token are still answered at once, and the slow ones are
    closed once HEAD_SECONDS have passed."""
    import httpx

    monkeypatch.setattr("kingsheet.serve.run.HEAD_SECONDS", 3.0)
    with running(played) as base:
        host, port = base.removeprefix("http://").split(":")
        slow: list[socket.socket] = []
        for _ in range(300):
            s = socket.create_connection((host, int(port)), timeout=5)
            s.sendall(b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            slow.append(s)
        stop = threading.Event()

        def dribble() -> None:
            while not stop.is_set():
                for s in slow:
                    with contextlib.suppress(OSError):
                        s.sendall(b"X-Slow: 1\r\n")
                stop.wait(0.5)

        threading.Thread(target=dribble, daemon=True).start()
        try:
            answers = []
            with httpx.Client(base_url=base, headers={"x-kingsheet-token": TOKEN}, timeout=5) as phone:
                for _ in range(10):
                    start = time.monotonic()
                    answers.append((phone.get("/api/state").status_code, time.monotonic() - start))
                    time.sleep(0.1)
            assert all(status == 200 for status, _ in answers), answers
            assert max(took for _, took in answers) < 2, answers
            time.sleep(4)  # past HEAD_SECONDS: every slow socket has been closed by the server
            closed = 0
            for s in slow:
                s.settimeout(2)
                try:
                    closed += s.recv(1) == b""
                except OSError:
                    closed += 1
            assert closed == len(slow)
        finally:
            stop.set()
            for s in slow:
                s.close()


def test_a_burst_of_live_streams_stops_at_the_limit(played):
    from kingsheet.serve.app import MAX_LISTENERS

    with running(played) as base:
        host, port = base.removeprefix("http://").split(":")
        socks = [socket.create_connection((host, int(port)), timeout=10) for _ in range(MAX_LISTENERS + 36)]
        head = f"GET /api/events?t={TOKEN} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode()
        for s in socks:  # every head sent before any answer is read
            s.sendall(head)
        statuses = []
        for s in socks:
            statuses.append(s.recv(12)[9:12])
        for s in socks:
            s.close()
        assert statuses.count(b"200") == MAX_LISTENERS and statuses.count(b"503") == 36
        time.sleep(0.5)  # every place is given back once the streams are gone
        with socket.create_connection((host, int(port)), timeout=5) as s:
            s.sendall(head)
            assert s.recv(12)[9:12] == b"200"


# ---- photos, third round: bombs at once, a big body beside the phones, uploads cut off ---------------

def _png_bomb(side: int = 7680) -> bytes:
    """A grey PNG of side × side pixels that are all white: some 60 KB that decode to ``side²`` bytes."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    rows = zlib.compress((b"\0" + b"\xff" * side) * side, 9)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", side, side, 8, 0, 0, 0, 0))
            + chunk(b"IDAT", rows) + chunk(b"IEND", b""))


def _jpeg_bomb(side: int = 6000) -> bytes:
    """A real grey JPEG of side × side pixels (36 MP), a few hundred KB."""
    import cv2
    import numpy as np

    img = np.full((side, side), 255, np.uint8)
    img[::97, :] = 0  # some lines, so that the reader has something to look at
    ok, data = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 50])
    assert ok
    return data.tobytes()


def _post(base: str, token: str, path: str, body: bytes, timeout: float = 120) -> tuple[int, dict]:
    import urllib.error
    import urllib.request

    req = urllib.request.Request(base + path, data=body, method="POST", headers={
        "content-type": "application/json", "x-kingsheet-token": token, "origin": base})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def _get(base: str, token: str, path: str, timeout: float = 30) -> tuple[int, bytes]:
    import urllib.request

    req = urllib.request.Request(base + path, headers={"x-kingsheet-token": token})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return r.status, r.read()


def test_twelve_photo_bombs_at_once_keep_the_server_small(played):
    """Twelve phones send at once a photo that decodes to 59 MP (PNG) or 36 MP (JPEG): one sheet is
    read at a time, the PNG is refused by its size before it is decoded, the JPEG is decoded at half
    its size, the phones past the two places are told at once, and the server stays under 600 MB."""
    pytest.importorskip("cv2")
    import base64
    from concurrent.futures import ThreadPoolExecutor

    from serving import peak_memory_mb, served

    png = json.dumps({"photos": [base64.b64encode(_png_bomb()).decode()]}).encode()
    jpg = json.dumps({"photos": [base64.b64encode(_jpeg_bomb()).decode()] * 2}).encode()
    with served(played, "en") as (base, token, proc):
        start = peak_memory_mb(proc.pid)
        barrier = threading.Barrier(12)

        def one(k: int) -> tuple[int, dict]:
            barrier.wait(30)
            return _post(base, token, "/api/photo", png if k % 2 else jpg)

        with ThreadPoolExecutor(12) as pool:
            answers = list(pool.map(one, range(12)))
        assert _get(base, token, "/api/state")[0] == 200  # the server is still the table's
        alone = _post(base, token, "/api/photo", png)  # (which two were taken in is the race's)
        peak = peak_memory_mb(proc.pid)
    for status, answer in answers:
        assert answer["ok"] is False and "\n" not in answer["error"], answer
        assert status in (422, 503), (status, answer)
        if status == 503:
            assert "another phone's photos are being read" in answer["error"]
    assert any(s == 503 for s, _a in answers)  # twelve at once cannot all be taken in
    assert alone[0] == 422 and "too large" in alone[1]["error"]  # a PNG bomb gets its sentence, undecoded
    assert peak < 600, f"the server grew from {start:.0f} MB to {peak:.0f} MB"
    assert "Traceback" not in proc.stderr_text


def test_a_phone_turned_away_from_the_photos_gets_the_sentence_not_a_broken_connection(played, monkeypatch):
    """A phone past the photo places is answered only once its upload has passed (dropped as it comes,
    never kept): answered at once, the phone still sending megabytes would find the connection closed
    under it (a broken pipe, as the clean-clone CI once saw among twelve bombs) and show no sentence."""
    import kingsheet.serve.app as served_app

    monkeypatch.setattr(served_app, "PHOTO_PLACES", 0)  # every place taken
    body = json.dumps({"photos": ["A" * (16 * 1024 * 1024)]}).encode()
    with running(played, "en") as base:
        for _ in range(3):
            status, answer = _post(base, TOKEN, "/api/photo", body)
            assert status == 503 and answer["ok"] is False, (status, answer)
            assert answer["error"] == "another phone's photos are being read; send these again in a minute"
        assert _get(base, TOKEN, "/api/state")[0] == 200


def test_a_big_body_is_parsed_while_the_phones_are_answered(played, monkeypatch):
    """A 24 MB body is parsed away from the server's loop: while its parse is held, another phone's
    state is answered (were it parsed on the loop, that answer would wait for it)."""
    import kingsheet.serve.app as served_app

    held, release = threading.Event(), threading.Event()
    parse = served_app._parsed

    def slow(raw: bytes) -> dict:
        if len(raw) > served_app.PARSE_OFF_LOOP:
            held.set()
            release.wait(30)
        return parse(raw)

    monkeypatch.setattr(served_app, "_parsed", slow)
    body = json.dumps({"photos": ["A" * (23 * 1024 * 1024)]}).encode()
    with running(played) as base:
        upload = threading.Thread(target=lambda: _post(base, TOKEN, "/api/photo", body), daemon=True)
        upload.start()
        try:
            assert held.wait(30), "the big body never reached its parse"
            status, state = _get(base, TOKEN, "/api/state", timeout=10)  # answered while the parse is held
            assert status == 200 and json.loads(state)["ok"]
        finally:
            release.set()
            upload.join(60)


def test_uploads_cut_off_mid_body_print_no_traceback(played):
    from serving import served

    with served(played) as (base, token, proc):
        port = int(base.rsplit(":", 1)[1])
        for _k in range(20):
            head = (f"POST /api/photo HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\ncontent-type: application/json\r\n"
                    f"x-kingsheet-token: {token}\r\ncontent-length: 1000000\r\n\r\n").encode()
            with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
                s.sendall(head + b'{"photos": ["' + b"A" * 5000)
        time.sleep(0.5)
        assert _get(base, token, "/api/state")[0] == 200
    assert "Traceback" not in proc.stderr_text, proc.stderr_text[:2000]
    assert len(proc.stderr_text.splitlines()) <= 1, proc.stderr_text[:2000]
