"""kingsheet: scorekeeping for Кинг (King), the Russian trick-taking card game.

The package is layered, one import rule to a folder (tests/test_layers.py holds it to them):
``core`` (rules, the card model, the verifier, money) imports only ``core``; ``files`` (game files,
saving, importers) and ``render`` (sheets, text, PDF, XLSX) import ``core`` and themselves; ``cli``
may import everything.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("kingsheet")
except PackageNotFoundError:  # a source tree that was never installed
    __version__ = "0+unknown"
