"""QR codes' modules, from reportlab's encoder (no new dependency), for the printed blank and the
address `serve` draws in the terminal."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

_NAME = "kingsheet._qrencoder"


def _encoder() -> ModuleType:
    """reportlab's encoder loaded from its file alone: importing it through its package imports every
    barcode widget reportlab has (20-40 ms of a blank's start-up). It needs only ``re`` and
    ``itertools``."""
    if (module := sys.modules.get(_NAME)) is not None:
        return module
    path = Path(__file__).with_name("_qrencoder.py")  # the phone app's copy (site/build.py puts it there)
    if not path.is_file():
        import reportlab

        path = Path(reportlab.__file__).parent / "graphics" / "barcode" / "qrencoder.py"
    spec = importlib.util.spec_from_file_location(_NAME, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sys.modules[_NAME] = module
    return module


def qr_modules(text: str, level: str) -> list[list[bool]]:
    """The code's modules row by row (True for dark), at error correction ``level`` (L, M, Q, H), in
    the smallest version that holds ``text``; no quiet zone."""
    encoder = _encoder()
    qr = encoder.QRCode(None, getattr(encoder.QRErrorCorrectLevel, level))
    qr.addData(text)
    qr.make()
    return [[bool(m) for m in row] for row in qr.modules]
