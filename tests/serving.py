"""A real server on 127.0.0.1 for the tests that need one (the live stream, the browser, the bench):
uvicorn in a thread, stopped at the end, every wait bounded."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

TOKEN = "tok-" + "x" * 20


def friday(folder: Path) -> Path:
    """An empty blank-4 game with the table's stake (0.50 RUB, pair by pair), as the phones get it."""
    from conftest import game_text

    path = folder / "friday.toml"
    path.write_text(game_text(extra='\n[money]\nstake = "0.50"\ncurrency = "RUB"\nmethod = "pairwise"\n'),
                    encoding="utf-8")
    return path


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
    config = uvicorn.Config(make_app(game, token, lang), host="127.0.0.1", port=port, log_level="warning",
                            access_log=False, lifespan="off", timeout_graceful_shutdown=1)
    server = uvicorn.Server(config)
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
