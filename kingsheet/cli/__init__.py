"""The command line: the typer app, the prompt, batch checks. May import everything."""

from __future__ import annotations

import signal
from types import FrameType


class Interrupted(BaseException):
    """Ctrl-C. Not a KeyboardInterrupt: typer turns those into a silent exit, and the person
    should hear that nothing half-written was kept."""


def _on_interrupt(signum: int, frame: FrameType | None) -> None:
    raise Interrupted


def catch_interrupts() -> None:
    """Ctrl-C raises Interrupted from now on (the command line's main() calls this)."""
    signal.signal(signal.SIGINT, _on_interrupt)
