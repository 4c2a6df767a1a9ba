"""kingsheet: scorekeeping for Кинг (King), the Russian trick-taking card game.

The package is layered, one import rule to a folder (tests/test_layers.py holds it to them):
``core`` (rules, the card model, the verifier, money) imports only ``core``; ``files`` (game files,
saving, importers) and ``render`` (sheets, text, PDF, XLSX) import ``core`` and themselves; ``cli``
may import everything.
"""

from __future__ import annotations


def __getattr__(name: str) -> str:
    """``kingsheet.__version__``, read from the installed metadata when asked for (importing
    importlib.metadata costs every command ~40 ms at start, so not before)."""
    if name != "__version__":
        raise AttributeError(f"module 'kingsheet' has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("kingsheet")
    except PackageNotFoundError:  # a source tree that was never installed
        return "0+unknown"
