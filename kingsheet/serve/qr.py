"""A QR code of the address, drawn in the terminal with half blocks (reportlab's encoder: no new
dependency)."""

from __future__ import annotations


def qr_lines(text: str, level: str = "L") -> list[str]:
    """The code as lines of text, two modules a character high, with the quiet zone around it."""
    from kingsheet.render.qrcode import qr_modules

    modules = qr_modules(text, level)
    n = len(modules)
    quiet = 2

    def dark(r: int, c: int) -> bool:
        return 0 <= r < n and 0 <= c < n and modules[r][c]

    lines = []
    for r in range(-quiet, n + quiet, 2):
        row = []
        for c in range(-quiet, n + quiet):
            top, bottom = dark(r, c), dark(r + 1, c)
            # light modules are drawn, dark ones left as the (dark) terminal background
            row.append({(False, False): "█", (True, False): "▄", (False, True): "▀", (True, True): " "}[(top, bottom)])
        lines.append("".join(row))
    return lines
