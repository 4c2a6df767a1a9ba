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

    def list_directory(self, path: Any) -> None:  # no listings: only the app's own files
        self.send_error(404)
        return None

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        pass


def server(folder: Path, port: int) -> http.server.ThreadingHTTPServer:
    handler = functools.partial(_Files, directory=str(folder.resolve()))
    return http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)


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
