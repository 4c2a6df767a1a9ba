"""Workbooks under the byte limits that used to cost seconds and hundreds of megabytes to read (an
outside attack's): a cell at XFD1048576 below a header far down, a row of 900,000 cells, a row of
16,000 cells of long text. Made here, small on disk."""

from __future__ import annotations

import io
import re
import zipfile


def _base(header_row: int = 1) -> bytes:
    from openpyxl import Workbook

    wb = Workbook()
    ws = wb.active
    ws.cell(header_row, 2, "Игра")
    ws.cell(header_row, 3, "Очки")
    for k, name in enumerate(["Аня", "Боря", "Вася", "Галя"]):
        ws.cell(header_row, 4 + k, name)
        ws.cell(header_row + 1, 4 + k, -4)
    ws.cell(header_row + 1, 2, "Взятки")
    out = io.BytesIO()
    wb.save(out)
    return out.getvalue()


def _with(data: bytes, rows: bytes) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as zin, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        for part in zin.infolist():
            body = zin.read(part)
            if part.filename == "xl/worksheets/sheet1.xml":
                body = body.replace(b"</sheetData>", rows + b"</sheetData>")
                body = re.sub(rb'<dimension ref="[^"]*"/>', b'<dimension ref="A1:XFD1048576"/>', body)
            z.writestr(part, body)
    return out.getvalue()


def _column(k: int) -> str:
    name = ""
    k += 1
    while k:
        k, rest = divmod(k - 1, 26)
        name = chr(65 + rest) + name
    return name


def costly_workbooks() -> dict[str, tuple[bytes, bool]]:
    """name → (the workbook, whether it reads as a game: True, or is refused in one sentence)."""
    far = _with(_base(35), b'<row r="1048576"><c r="XFD1048576" t="n"><v>1</v></c></row>')
    many = _with(_base(), b'<row r="3">' + b"<c><v>1</v></c>" * 900_000 + b"</row>")
    long = _with(_base(), b'<row r="3">' + b"".join(
        b'<c r="%s3" t="inlineStr"><is><t>%s</t></is></c>' % (_column(k).encode(), b"A" * 900)
        for k in range(7, 16384)) + b"</row>")
    return {"far.xlsx": (far, True), "many.xlsx": (many, False), "long.xlsx": (long, True)}
