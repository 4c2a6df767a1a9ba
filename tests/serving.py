"""A real server on 127.0.0.1 for the tests that need one (the live stream, the browser, the bench):
uvicorn in a thread, stopped at the end, every wait bounded."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

TOKEN = "tok-" + "x" * 20
CHROMIUM = next((p for p in (os.environ.get("KINGSHEET_CHROMIUM"), shutil.which("chromium"),
                             shutil.which("chromium-browser"), shutil.which("google-chrome")) if p), None)
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True, "device_scale_factor": 1}


@contextlib.contextmanager
def chromium(extra: tuple[str, ...] = ()) -> Iterator[object]:
    """The system's headless Chromium, driven by Playwright (which cannot download its own here)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=[
            "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", *extra])
        try:
            yield b
        finally:
            b.close()


#: WebRTC between the phones of one machine: real host addresses instead of mDNS names, and
#: loopback allowed (tests only; a real phone keeps its defaults).
WEBRTC_LOOPBACK = ("--disable-features=WebRtcHideLocalIpsWithMdns", "--allow-loopback-in-peer-connection")

#: A phone's camera in the tests: a canvas stream showing whatever picture the test puts before it
#: (``window.__showCamera(dataUrl)``), as a phone's camera shows another phone's screen.
FAKE_CAMERA = """
(() => {
  const canvas = document.createElement('canvas'); canvas.width = 640; canvas.height = 480;
  const g = canvas.getContext('2d');
  let img = null;
  window.__showCamera = (url) => { const i = new Image(); i.onload = () => { img = i; }; i.src = url; };
  setInterval(() => {
    g.fillStyle = '#6d6d6d'; g.fillRect(0, 0, 640, 480);
    if (img) { const s = Math.min(440 / img.width, 440 / img.height); g.drawImage(img, 110, 20, img.width * s, img.height * s); }
  }, 50);
  if (navigator.mediaDevices) navigator.mediaDevices.getUserMedia = async () => canvas.captureStream(20);
})();
"""


def friday(folder: Path) -> Path:
    """An empty blank-4 game with the table's stake (0.50 RUB, pair by pair), as the phones get it."""
    from conftest import game_text

    path = folder / "friday.toml"
    path.write_text(game_text(extra='\n[money]\nstake = "0.50"\ncurrency = "RUB"\nmethod = "pairwise"\n'),
                    encoding="utf-8")
    return path


def phone_client(app: object, token: str = TOKEN) -> object:
    """Starlette's test client as the page talks: at the printed address, the token in its header."""
    from starlette.testclient import TestClient

    return TestClient(app, base_url="http://127.0.0.1:8765", headers={"x-kingsheet-token": token})


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def running(game: Path, lang: str = "ru", token: str = TOKEN) -> Iterator[str]:
    """The base address (http://127.0.0.1:PORT) of a server for ``game``, until the block ends."""
    import uvicorn

    from kingsheet.serve.app import make_app

    port = free_port()
    from kingsheet.serve.run import server_config

    server = uvicorn.Server(server_config(make_app(game, token, lang), "127.0.0.1", port))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)


@contextlib.contextmanager
def served(game: Path, lang: str = "ru") -> Iterator[tuple[str, str, object]]:
    """`kingsheet serve` as a person starts it, in a process of its own (its memory and its printed
    words are its own): the base address, the token it printed, and the process. Stopped at the end;
    its stderr is in ``proc.stderr_text`` then."""
    import re
    import subprocess
    import sys
    import tempfile

    port = free_port()
    err = tempfile.TemporaryFile()  # noqa: SIM115 - closed in the finally below, after the process ends
    proc = subprocess.Popen([sys.executable, "-c", "from kingsheet.cli import main; main()", "serve", str(game), "--port", str(port),
                             "--lang", lang], stdout=subprocess.PIPE, stderr=err, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        deadline = time.monotonic() + 30
        token = None
        while token is None and time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            found = re.search(r"http://127\.0\.0\.1:(\d+)/\?t=(\S+)", line)
            if found:
                port, token = int(found[1]), found[2]
        if token is None:
            raise RuntimeError("kingsheet serve did not print its address")
        base = f"http://127.0.0.1:{port}"
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
                break
            time.sleep(0.05)
        yield base, token, proc
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except Exception:
            proc.kill()
            proc.wait(10)
        err.seek(0)
        proc.stderr_text = err.read().decode("utf-8", "replace")
        err.close()


def peak_memory_mb(pid: int) -> float:
    """The most memory a process has held so far (VmHWM), in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmHWM")
