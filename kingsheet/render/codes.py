"""A game's hand-over codes on paper (`kingsheet export --qr -o codes.pdf`): one A4 page, up to six
codes a page, each with its number, for a phone's camera to read in turn."""

from __future__ import annotations

from collections.abc import Sequence


def codes_pdf(codes: Sequence[str], title: str, lang: str, level: str = "M") -> bytes:
    """The page(s); ``level``: the codes' error correction (kingsheet.files.handover.LEVEL)."""
    import io

    from reportlab.lib.pagesizes import A4
    from reportlab.lib.units import mm
    from reportlab.pdfgen.canvas import Canvas

    from kingsheet.core.i18n import _, speaking
    from kingsheet.render.pdf import BOLD, FONT, _fonts, printable
    from kingsheet.render.qrcode import qr_modules

    _fonts()
    out = io.BytesIO()
    page = Canvas(out, pagesize=A4, invariant=True)
    page.setTitle(printable(title)[:200])
    width, height = A4
    side = 80 * mm  # a code, its quiet zone included
    places = [(x, y) for y in (height - 40 * mm - side, height - 50 * mm - 2 * side, height - 60 * mm - 3 * side)
              for x in (15 * mm, width - 15 * mm - side)]
    with speaking(lang):
        for k, text in enumerate(codes):
            if k % len(places) == 0:
                if k:
                    page.showPage()
                page.setFont(BOLD, 13)
                page.drawString(15 * mm, height - 20 * mm, printable(title)[:90])
                page.setFont(FONT, 9)
                page.drawString(15 * mm, height - 27 * mm, _(
                    "kingsheet game codes: Table → Read a code on a phone, or kingsheet import this page's picture"))
            x, y = places[k % len(places)]
            modules = qr_modules(text, level)
            n = len(modules)
            cell = side / (n + 8)
            for r, row in enumerate(modules):
                for c, dark in enumerate(row):
                    if dark:
                        page.rect(x + (c + 4) * cell, y + side - (r + 5) * cell, cell, cell, stroke=0, fill=1)
            page.setFont(FONT, 10)
            page.drawCentredString(x + side / 2, y - 2 * mm, _("code {n} of {of}").format(n=k + 1, of=len(codes)))
    page.showPage()
    page.save()
    return out.getvalue()
