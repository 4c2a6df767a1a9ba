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


def main() -> None:
    """The ``kingsheet`` command. Its imports allocate many objects that live as long as the
    process and make almost no cycles, so the collector is off while they happen and what they
    made is set aside from later collections (gc.freeze): about 5 % of a short command's time."""
    import gc

    gc.disable()
    try:
        from kingsheet.cli.app import main as run

        gc.freeze()
    finally:
        gc.enable()
    run()
