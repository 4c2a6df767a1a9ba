"""Starting the server: the address with its token, as text and as a QR code, then uvicorn until Ctrl-C."""

from __future__ import annotations

import secrets
import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kingsheet.core.i18n import _
from kingsheet.core.problems import InputError
from kingsheet.serve.qr import qr_lines

DEFAULT_PORT = 8765
HEAD_SECONDS = 10.0  # a connection sends a whole request head within this, or is closed
MAX_CONNECTIONS = 256  # open at once; past it the oldest connection that is not in a request makes room


def lan_address() -> str:
    """This machine's address on the local network (no packet is sent: a UDP socket only picks
    the route); 127.0.0.1 when there is no network."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("10.254.254.254", 1))
            return str(s.getsockname()[0])
        except OSError:
            return "127.0.0.1"


def free_port(host: str, wanted: int) -> int:
    """``wanted`` if it is free, else the next free one of the ten after it."""
    for port in range(wanted, wanted + 10):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            try:
                s.bind((host, port))
                return port
            except OSError:
                continue
    raise InputError(_("ports {first} to {last} are all in use; give another with --port").format(
        first=wanted, last=wanted + 9))


def server_config(app: Any, host: str, port: int) -> Any:
    """uvicorn's settings for the table: connections that dawdle over a request's head are closed,
    and a full server makes room by closing those, never a phone's request or live stream."""
    import uvicorn

    return uvicorn.Config(app, host=host, port=port, log_level="warning", access_log=False, lifespan="off",
                          http=doorman(), limit_concurrency=None, timeout_graceful_shutdown=1)


def doorman() -> type:
    """uvicorn's HTTP/1.1 protocol with a bound on the time to send a request's head. A slow client
    (one header line every few seconds) would otherwise hold its connection for ever, and a few
    hundred of them fill the server. Built on call, so uvicorn is imported only by `serve`."""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class Doorman(H11Protocol):
        _timer: Any = None

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self._arm()
            if len(self.connections) > MAX_CONNECTIONS:
                idle: list[Any] = [c for c in self.connections if c is not self and getattr(c, "idle", lambda: False)()]
                victim = min(idle, key=lambda c: c.since, default=self)
                victim.transport.close()

        def idle(self) -> bool:
            """Not in a request: waiting for a head (perhaps a slow one) or kept alive between requests."""
            return self.cycle is None or bool(self.cycle.response_complete)

        def _arm(self) -> None:
            if self._timer is not None:
                self._timer.cancel()
            self.since = self.loop.time()
            self._timer = self.loop.call_later(HEAD_SECONDS, self._too_slow)

        def _too_slow(self) -> None:
            self._timer = None
            if self.idle():
                self.transport.close()

        def handle_events(self) -> None:
            super().handle_events()
            if not self.idle() and self._timer is not None:
                self._timer.cancel()
                self._timer = None

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            if self._timer is not None:
                self._timer.cancel()
            super().connection_lost(exc)

    return Doorman


def hosts_for(lan: bool) -> tuple[str, ...]:
    """The names a phone's browser reaches the server under: this computer's own names and, with
    --lan, its address on the network. Any other Host header is refused (no DNS rebinding)."""
    from kingsheet.serve.app import LOCAL_HOSTS

    return (*LOCAL_HOSTS, lan_address()) if lan else LOCAL_HOSTS


def serve(path: Path, lan: bool, port: int, lang: str, echo: Callable[..., Any], token: str | None = None) -> None:
    from kingsheet.files.gamefile import load_game
    from kingsheet.serve.app import make_app

    load_game(path)  # a game that cannot be read is said now, not on the first phone
    host = "0.0.0.0" if lan else "127.0.0.1"  # noqa: S104 - --lan asks for the local network
    port = free_port(host, port)
    token = token or secrets.token_urlsafe(18)
    shown = lan_address() if lan else "127.0.0.1"
    address = f"http://{shown}:{port}/?t={token}"
    echo(_("kingsheet: {file} at {address}").format(file=path.name, address=address))
    echo("\n".join(qr_lines(address)))
    if lan:
        echo(_("Open the address on the phones at the table (the same Wi-Fi), or scan the code. "
               "Anyone without the token is turned away. Ctrl-C stops the server."))
    else:
        echo(_("Only this computer can open it; --lan lets the phones on the same Wi-Fi in. "
               "Ctrl-C stops the server."))
    run_server(server_config(make_app(path, token, lang, hosts_for(lan)), host, port))


def run_server(config: Any) -> None:
    """uvicorn until Ctrl-C."""
    import uvicorn

    uvicorn.Server(config).run()
