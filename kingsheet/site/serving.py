"""Trying the phone app on this computer: its folder served on 127.0.0.1 (a service worker needs a
secure context, and localhost is one). Only files inside the folder are sent, each with the media
type a browser insists on (a module script, WebAssembly); nothing is written."""

from __future__ import annotations

import functools
import http.server
from collections.abc import Callable
from pathlib import Path
from typing import Any

TYPES = {".mjs": "text/javascript", ".js": "text/javascript", ".wasm": "application/wasm",
         ".webmanifest": "application/manifest+json", ".json": "application/json", ".zip": "application/zip",
         ".svg": "image/svg+xml", ".html": "text/html; charset=utf-8", ".css": "text/css"}


class _Files(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, **TYPES}

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-cache")
        self.send_header("X-Content-Type-Options", "nosniff")
        super().end_headers()

    def send_head(self) -> Any:
        """The file asked for, or a refusal: a path with a NUL or one the disk cannot take is a bad
        request (400), never a traceback and a dropped connection."""
        from urllib.parse import unquote

        if "\x00" in unquote(self.path):
            self.send_error(400)
            return None
        try:
            return super().send_head()
        except (ValueError, OSError):
            self.send_error(400)
            return None

    def list_directory(self, path: Any) -> None:  # no listings: only the app's own files
        self.send_error(404)
        return None

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        pass


class _Quiet(http.server.ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        """A browser that drops its connection mid-answer is no error to print a traceback of."""


def server(folder: Path, port: int) -> http.server.ThreadingHTTPServer:
    handler = functools.partial(_Files, directory=str(folder.resolve()))
    return _Quiet(("127.0.0.1", port), handler)


def serve_folder(folder: Path, port: int, say: Callable[[str], None]) -> None:
    from kingsheet.core.i18n import _

    httpd = server(folder, port)
    say(_("the phone app on this computer: http://127.0.0.1:{port}/ (Ctrl+C ends)").format(port=httpd.server_port))
    try:
        httpd.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        httpd.server_close()
