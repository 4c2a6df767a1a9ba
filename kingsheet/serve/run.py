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


def serve(path: Path, lan: bool, port: int, lang: str, echo: Callable[..., Any], token: str | None = None) -> None:
    import uvicorn

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
    uvicorn.run(make_app(path, token, lang), host=host, port=port, log_level="warning", access_log=False,
                limit_concurrency=200, timeout_graceful_shutdown=1)
