"""PDF sheets with reportlab: the printable blank and the filled sheet. Renderers return bytes.

The layout follows seed 000's paper blank: players across the top, games down the side, the
«Очки» column to check each row against, a wide grey line between the stages, ИТОГО (−),
ИТОГО (+) and ИТОГО at the bottom. Names and notes are untrusted: they go into table cells
as plain strings, or through ``escape`` into a Paragraph, never as markup.
"""

from __future__ import annotations

import io
import re
import unicodedata
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any

from reportlab.lib import colors
from reportlab.lib.enums import TA_LEFT
from reportlab.lib.pagesizes import A4, landscape
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.platypus import (
    BaseDocTemplate,
    Frame,
    FrameBreak,
    KeepTogether,
    PageTemplate,
    Paragraph,
    Spacer,
    Table,
    TableStyle,
)

from kingsheet.core.i18n import DEFAULT, N_, _, speaks
from kingsheet.core.money import Settlement, fmt_money
from kingsheet.core.problems import num
from kingsheet.core.rules import Rules
from kingsheet.core.verify import Report
from kingsheet.render.labels import word
from kingsheet.render.layout import Box, DealBoxes, Layout, ordered_games
from kingsheet.render.money import signed_money
from kingsheet.render.qrcode import qr_modules
from kingsheet.render.sheet import SheetRow, player_names, reminders, rows_for, subtitle, unit_lines

FONT, BOLD = "KingSans", "KingSans-Bold"
FONT_DIR = Path(__file__).resolve().parent.parent / "fonts"
GREY = colors.Color(0.55, 0.55, 0.55)
LIGHT = colors.Color(0.93, 0.93, 0.93)
RED = colors.Color(0.8, 0.1, 0.1)
SERIES = [colors.Color(0.12, 0.35, 0.7), colors.Color(0.85, 0.4, 0.05), colors.Color(0.1, 0.6, 0.25),
          colors.Color(0.7, 0.1, 0.45), colors.Color(0.45, 0.3, 0.1), colors.Color(0.2, 0.6, 0.7)]


_GLYPHS: set[int] = set()


def printable(text: str) -> str:
    """Text the font can draw: invisible format characters (ZWJ, direction marks) dropped, and a
    character the font lacks (an emoji) shown as '?' rather than an empty box."""
    out = []
    for ch in text:
        if unicodedata.category(ch) in ("Cf", "Cc"):
            continue
        out.append(ch if ord(ch) in _GLYPHS or ch.isspace() else "?")
    return "".join(out)


def _fonts() -> None:
    if FONT in pdfmetrics.getRegisteredFontNames():
        return
    regular = TTFont(FONT, str(FONT_DIR / "DejaVuSansCondensed.ttf"))
    _GLYPHS.update(regular.face.charToGlyph)
    pdfmetrics.registerFont(regular)
    pdfmetrics.registerFont(TTFont(BOLD, str(FONT_DIR / "DejaVuSansCondensed-Bold.ttf")))
    pdfmetrics.registerFontFamily(FONT, normal=FONT, bold=BOLD, italic=FONT, boldItalic=BOLD)


def _style(size: float, bold: bool = False, color: colors.Color = colors.black) -> ParagraphStyle:
    return ParagraphStyle("k", fontName=BOLD if bold else FONT, fontSize=size, leading=size * 1.25,
                          alignment=TA_LEFT, textColor=color)


def escape(text: str) -> str:
    """Text as Paragraph markup reads it back: &, < and > escaped (xml.sax.saxutils' escape, without
    importing urllib.request, 30 ms of a blank's start-up)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def para(text: str, size: float = 8, bold: bool = False, color: colors.Color = colors.black) -> Paragraph:
    """A wrapped paragraph of untrusted text: escaped, so '<b>' prints as '<b>'."""
    return Paragraph(escape(printable(text)), _style(size, bold, color))


class _Doc:
    """Page geometry: portrait A4 for up to four players, landscape for more; two blanks a page
    side by side on landscape A4 with per_page=2."""

    def __init__(self, players: int, per_page: int) -> None:
        self.per_page = per_page
        self.pagesize = landscape(A4) if per_page == 2 or players > 4 else A4
        self.margin = 10 * mm if per_page == 2 else 12 * mm
        width, height = self.pagesize
        gap = 10 * mm
        cols = per_page
        self.frame_w = (width - 2 * self.margin - gap * (cols - 1)) / cols
        self.frames = [Frame(self.margin + i * (self.frame_w + gap), self.margin, self.frame_w,
                             height - 2 * self.margin, id=f"f{i}", leftPadding=0, rightPadding=0,
                             topPadding=0, bottomPadding=0) for i in range(cols)]
        self.scale = 0.82 if per_page == 2 else 1.0

    def build(self, story: list[object], title: str, scan: str | None = None) -> bytes:
        """``scan``: what the page's QR code says (a blank made to be photographed), or None."""
        buf = io.BytesIO()
        doc = BaseDocTemplate(buf, pagesize=self.pagesize, title=title, author="kingsheet", creator="kingsheet",
                              subject="Кинг", invariant=1, leftMargin=self.margin, rightMargin=self.margin,
                              topMargin=self.margin, bottomMargin=self.margin)
        on_page = _footer if scan is None else partial(_scan_marks, scan)
        doc.addPageTemplates([PageTemplate(id="page", frames=self.frames, onPage=on_page)])
        doc.build(story)
        return buf.getvalue()


# One scale of type for every page: the title, a heading, the body, small print.
TITLE, HEADING, BODY, SMALL = 13.0, 9.0, 8.5, 7.0


def _footer(canvas: object, doc: BaseDocTemplate) -> None:
    canvas.saveState()  # type: ignore[attr-defined]
    canvas.setFont(FONT, 6.5)  # type: ignore[attr-defined]
    canvas.setFillColor(GREY)  # type: ignore[attr-defined]
    canvas.drawRightString(doc.pagesize[0] - doc.rightMargin, 5 * mm,  # type: ignore[attr-defined]
                           f"kingsheet · {doc.page}")
    canvas.restoreState()  # type: ignore[attr-defined]


#: The marks a reader finds the sheet by: a filled square in each corner, centred in the margin.
MARK_MM, MARK_AT_MM = 5.0, 6.0
QR_MM = 11.0


def scan_code(rules: Rules, players: int, names: Sequence[str] | None, lang: str = "ru") -> str:
    """What a blank's QR code holds: the format, the rules id and options, the number of players,
    then the layout (names printed or a row to write them: n/b; the language) and an id that ties
    the pages of one blank together (the same blank printed twice has the same)."""
    import hashlib

    opts = " ".join(f"{k}:{v}" for k, v in sorted(rules.options.items()))
    sheet = hashlib.sha1("|".join([rules.id, opts, lang, *(names or ())]).encode()).hexdigest()[:6]
    # upper case, with QR's alphanumeric characters only: the smallest code for the margin
    return f"{CODE_VERSION}/{rules.id}/{opts}/{players}/{'N' if names else 'B'}{lang}{sheet}".upper()


#: The blank's layout revision its code names: KS2 since domino's blank has the 16 rows its game can
#: last (KS1: 30); a KS1 blank of a rule system laid out otherwise since is refused, never misread.
CODE_VERSION = "KS2"
RELAID_SINCE_KS1 = frozenset({"domino"})


class _Measured(Table):
    """A table that notes where it is drawn (page, origin, its column and row positions, its first
    column), so that a reader of the photographed blank knows where each cell is."""

    log: list[tuple[int, float, float, list[float], list[float], list[str]]] = []

    def drawOn(self, canvas: Any, x: float, y: float, _sW: float = 0) -> None:  # noqa: N802 - reportlab's name
        first = [str(row[0]) if isinstance(row[0], str) else "" for row in self._cellvalues]
        self.log.append((canvas.getPageNumber(), x, y, list(self._colpositions), list(self._rowpositions), first))
        super().drawOn(canvas, x, y, _sW)


def blank_layout(rules: Rules, named: bool, lang: str = "ru") -> dict[int, DealBoxes]:
    """Where each deal is on the printed blank: deal number → its page and boxes."""
    return blank_boxes(rules, named, lang)[0]


def blank_boxes(rules: Rules, named: bool, lang: str = "ru") -> tuple[dict[int, DealBoxes], list[DealBoxes]]:
    """Where each deal is on the printed blank, and the ИТОГО lines under them (−, +, all; each
    player's box where the table writes the player's sum; none for a game to a limit)."""
    deals, totals, _pages = _measured_blank(rules, named, lang)
    return deals, totals


def blank_pages(rules: Rules, named: bool, lang: str = "ru") -> int:
    """How many pages the printed blank has (an ordered blank's «Кто что заказал» is one of them)."""
    return _measured_blank(rules, named, lang)[2]


def measured_layout(rules: Rules, named: bool, lang: str = "ru") -> Layout:
    """The blank measured as it is drawn: deals, ИТОГО lines and pages."""
    return Layout(*_measured_blank(rules, named, lang))


_MEASURED: dict[tuple[object, ...], tuple[dict[int, DealBoxes], list[DealBoxes], int]] = {}


def _measured_blank(rules: Rules, named: bool, lang: str) -> tuple[dict[int, DealBoxes], list[DealBoxes], int]:
    """The blank built once per rules, layout and language, and measured as it is drawn."""
    key = (rules.key, named, lang)
    if key not in _MEASURED:
        if len(_MEASURED) >= 32:
            _MEASURED.clear()
        _MEASURED[key] = _measure(rules, named, lang)
    deals, totals, pages = _MEASURED[key]
    return dict(deals), list(totals), pages


def _measure(rules: Rules, named: bool, lang: str) -> tuple[dict[int, DealBoxes], list[DealBoxes], int]:
    log: list[tuple[int, float, float, list[float], list[float], list[str]]] = []
    measured = type("Measured", (_Measured,), {"log": log})
    names = [f"P{i}" for i in range(1, rules.players + 1)] if named else None
    pdf = blank_pdf(rules, names, lang, table_class=measured)
    height = (landscape(A4) if rules.players > 4 else A4)[1]
    step = 2 if rules.limit is not None else 1
    deals: dict[int, DealBoxes] = {}
    totals: list[DealBoxes] = []
    for page, x, y, cols, rows, first in log:
        def boxes(i: int) -> DealBoxes:
            top, bottom = (height - (y + rows[i])) / mm, (height - (y + rows[i + 1])) / mm  # noqa: B023

            def box(left: int, right: int) -> Box:
                return ((x + cols[left]) / mm, top, (x + cols[right]) / mm, bottom)  # noqa: B023

            return DealBoxes(page, [box(3 + step * j, 4 + step * j) for j in range(rules.players)], box(1, 2))  # noqa: B023

        numbered = [i for i, label in enumerate(first) if label.isdigit() and i + 1 < len(rows)]
        for i in numbered:
            deals[int(first[i])] = boxes(i)
        if numbered and rules.limit is None and int(first[numbered[-1]]) == len(rules.slots):
            totals = [boxes(i) for i in range(numbered[-1] + 1, min(numbered[-1] + 4, len(rows) - 1))]
    pages = int(re.findall(rb"/Count (\d+)", pdf)[-1])  # the page tree's count: the last, the root
    return deals, totals if len(totals) == 3 else [], pages


def draw_qr(canvas: Any, text: str, x: float, y: float, size: float) -> None:
    """A QR code of ``text`` as a square of ``size`` with its lower left corner at (x, y), one module
    of white around it; each run of dark modules in a row one filled rectangle."""
    modules = qr_modules(text, "M")
    box = size / (len(modules) + 2)
    for r, row in enumerate(modules):
        top = y + size - (r + 2) * box
        c = 0
        while c < len(row):
            if not row[c]:
                c += 1
                continue
            end = c
            while end < len(row) and row[end]:
                end += 1
            canvas.rect(x + (c + 1) * box, top, (end - c) * box, box, stroke=0, fill=1)
            c = end


def _scan_marks(code: str, canvas: object, doc: BaseDocTemplate) -> None:
    """The footer, the four corner marks and the QR code (with the page number) in the margins."""
    _footer(canvas, doc)
    c: Any = canvas
    width, height = doc.pagesize
    half = MARK_MM * mm / 2
    c.saveState()
    c.setFillColor(colors.black)
    for x, y in ((MARK_AT_MM * mm, MARK_AT_MM * mm), (width - MARK_AT_MM * mm, MARK_AT_MM * mm),
                 (MARK_AT_MM * mm, height - MARK_AT_MM * mm), (width - MARK_AT_MM * mm, height - MARK_AT_MM * mm)):
        c.rect(x - half, y - half, 2 * half, 2 * half, stroke=0, fill=1)
    draw_qr(c, f"{code}/{c.getPageNumber()}", 2 * MARK_AT_MM * mm, 0.5 * mm, QR_MM * mm)
    c.restoreState()


def _col_widths(total: float, players: int, filled: bool, who: bool, bid: bool = False) -> list[float]:
    """№, Игра, Очки, players…, Сдаёт, [Объявляет or Заказывает], [Заявка], mark: the players share
    the rest."""
    many = players > 6  # running totals beside each player: narrower words, wider numbers
    fixed = [0.04, 0.12 if many else 0.16, 0.06 if many else 0.075]
    tail = [0.08 if many else 0.09, *([0.09 if many else 0.105] if who else []), *([0.065] if bid else []),
            (0.1 if many else 0.2) if filled else 0.04]
    player = (1 - sum(fixed) - sum(tail)) / players
    return [total * f for f in (*fixed, *[player] * players, *tail)]


def _who_column(rules: Rules) -> bool:
    """«Объявляет» only with trump deals (or an auction's winner), «Заказывает» only in ordered games."""
    if rules.ordered:
        return True
    penalty = rules.games.get("penalty")
    return rules.trump_game is not None or \
        (penalty is not None and (penalty.bid or penalty.choose_suit))


def _sheet_table(rules: Rules, rows: list[SheetRow], names: Sequence[str], report: Report | None, lang: str,
                 width: float, scale: float, row_h: float | None = None, names_row: bool = False,
                 table_class: type[Table] = Table, page_after: int | None = None) -> Table:
    """The table of the blank: a row a deal, then ИТОГО. ``row_h`` sets the height of a row to write
    in (a blank); ``names_row`` adds the row under «Игрок 1…» where the names are written;
    ``page_after``: the rows after that many go to the next page together."""
    n = len(names)
    size = 8.5 * scale
    small = 6.5 * scale
    ordered = rules.ordered
    who = _who_column(rules)
    bidding = rules.bidding  # Кинг с торговлей: the declarer's bid, written beside the declarer
    running = rules.limit is not None  # each player: his points | his running total

    def per_player(cells: Sequence[object], after: Sequence[object]) -> list[object]:
        if not running:
            return list(cells)
        return [x for pair in zip(cells, after or [""] * n) for x in pair]

    def tail(dealer: object, by: object, mark: object, bid: object = "") -> list[object]:
        return [dealer, *([by] if who else []), *([bid] if bidding else []), mark]

    head = [word("deal", lang), word("game", lang), word("points", lang),
            *per_player([para(p, size, True) for p in names], [para("Σ", size, True)] * n),
            *tail(para(word("dealer", lang), small, True),
                  para(word("orderer", lang) if ordered else word("declarer", lang), small, True), "✓",
                  para(_("Bid"), small, True))]
    cols = n * (2 if running else 1)
    data: list[list[object]] = [head]
    style: list[tuple[object, ...]] = [
        ("FONT", (0, 0), (-1, -1), FONT, size),
        ("FONT", (0, 0), (-1, 0), BOLD, size),
        ("GRID", (0, 0), (-1, -1), 0.4, GREY),
        ("BOX", (0, 0), (-1, -1), 0.9, colors.black),
        ("BACKGROUND", (0, 0), (-1, 0), LIGHT),
        ("BACKGROUND", (2, 1), (2, -1), LIGHT),
        ("ALIGN", (2, 0), (2 + cols, -1), "RIGHT"),
        ("VALIGN", (0, 0), (-1, -1), "MIDDLE"),
        ("TOPPADDING", (0, 0), (-1, -1), 2.2 * scale),
        ("BOTTOMPADDING", (0, 0), (-1, -1), 2.2 * scale),
        ("LEFTPADDING", (0, 0), (-1, -1), 2),
        ("RIGHTPADDING", (0, 0), (-1, -1), 2),
    ]
    if names_row:  # «Пишем в ячейках, расположенных прямо под надписями Игрок1…Игрок4» (seed 000)
        data.append(["", para(_("Names"), small, color=GREY), "",
                     *[""] * cols, *tail("", "", "")])
        style.append(("LINEBELOW", (0, 1), (-1, 1), 1.2, colors.black))
    for k, r in enumerate(rows):
        i = len(data)
        if r.stage_start:
            # the wide grey line between the minus and the plus stage
            style.append(("LINEABOVE", (0, i), (-1, i), 3 * scale, GREY))
        points = "" if r.points is None else (num(r.points) if r.points < 0 else f"+{r.points}")
        if report is None and rules.bidding and r.game_id and rules.games[r.game_id].declared:
            points = f"≤ {points}"  # the declarer's bid is taken off: the row's total depends on the deal
        mark: object = r.mark if r.ok else para("✗ " + r.mark, small, color=RED)
        played = report.rows[k].deal if report is not None and k < len(report.rows) else None
        bid = "" if played is None or played.bid is None else str(played.bid)
        data.append([str(r.number), para(r.game, size), points, *per_player(r.cells, r.running),
                     *tail(para(r.dealer, small), para(r.who, small), mark, bid)])
        if bidding and not (r.game_id and rules.games[r.game_id].declared):
            style.append(("BACKGROUND", (-2, i), (-2, i), LIGHT))  # a bid only in a trump deal
        if not r.ok:
            style.append(("TEXTCOLOR", (0, i), (-2, i), RED))
        elif r.mark.startswith("✓"):
            style.append(("TEXTCOLOR", (-1, i), (-1, i), colors.Color(0.1, 0.5, 0.2)))
    # the ИТОГО rows: the expected sums in «Очки», each player's in his column, Σ across the tail
    expected = report.expected if report else None
    minus = expected.minus if expected else rules.stage_total(0)
    plus = expected.plus if expected else rules.stage_total(1)
    sums = ["", "", ""]
    totals: list[list[str]] = [[""] * n for _ in range(3)]
    if report is not None:
        for j, p in enumerate(names):
            tot = report.totals[p]
            totals[0][j], totals[1][j], totals[2][j] = num(tot.minus), num(tot.plus), num(tot.total)
        s = report.sums
        sums = [num(s.minus), num(s.plus), num(s.total)]
    first_total = len(data)
    lines: list[tuple[str, int | None, list[str], str]] = [
             (word("minus", lang), minus, totals[0], sums[0]), (word("plus", lang), plus, totals[1], sums[1]),
             (word("total", lang), minus + plus, totals[2], sums[2])]
    if running:  # one stage, no fixed sum: ИТОГО only, in the running-total columns
        lines = [(word("total", lang), None, totals[2], sums[2])]
    first_tail = 3 + cols
    for k, (label, exp, cells, actual) in enumerate(lines):
        shown = "" if exp is None else (num(exp) if exp <= 0 else f"+{exp}")
        if report is None and rules.bidding and k > 0 and exp is not None:
            shown = f"≤ {shown}"  # the plus half is at most this, less the bids taken off
        data.append(["", label, shown, *(per_player([""] * n, cells) if running else cells),
                     *tail(f"Σ {actual}".strip(), "", "")])
        style.append(("SPAN", (first_tail, first_total + k), (-1, first_total + k)))
    style += [
        ("LINEABOVE", (0, first_total), (-1, first_total), 1.6, colors.black),
        ("FONT", (0, first_total), (-1, -1), BOLD, size),
        ("BACKGROUND", (0, first_total), (-1, -1), LIGHT),
        ("ALIGN", (first_tail, first_total), (-1, -1), "LEFT"),
    ]
    if report is not None and not running:
        for k, (have, want) in enumerate(((report.sums.minus, minus), (report.sums.plus, plus),
                                          (report.sums.total, minus + plus))):
            if report.complete and have != want:
                style.append(("TEXTCOLOR", (first_tail, first_total + k), (-1, first_total + k), RED))
    heights = None
    if page_after is not None:
        style.append(("NOSPLIT", (0, page_after + (2 if names_row else 1)), (-1, -1)))
    if row_h is not None:  # room to write by hand
        heights = [None, *([row_h * 1.1] if names_row else []), *[row_h] * len(rows), *[row_h] * len(lines)]
    table = table_class(data, colWidths=_col_widths(width, cols, report is not None, who, bidding), rowHeights=heights,
                  repeatRows=2 if names_row else 1, hAlign="LEFT")
    table.setStyle(TableStyle(style))
    return table


def _header(rules: Rules, lang: str, title: str | None, date: str | None, scale: float) -> list[object]:
    name = rules.template.name.get(lang) or rules.template.name.get(DEFAULT, rules.id)
    out: list[object] = [para(title or name, TITLE * scale, True)]
    if title:
        out.append(para(name, HEADING * scale))
    out.append(para(subtitle(rules, lang), SMALL * scale, color=GREY))
    when = date or "______________"
    out.append(para(f"{word('date', lang)}: {when}     {word('place', lang)}: ______________________", BODY * scale))
    out.append(Spacer(1, 2 * mm))
    return out


def _legend(rules: Rules, lang: str, scale: float) -> list[object]:
    lines = [f"{word('units', lang)}: " + "; ".join(unit_lines(rules, lang)) + "."]
    lines += reminders(rules, lang)
    if rules.limit is not None:
        lines.append(_("To {limit}: the game ends with the deal in which a total reaches {limit}; the fewest minus "
                       "points win.").format(limit=num(-rules.limit)))
    if rules.bidding:
        lines.append(_("Trumps with bidding: the declarer writes only the tricks above the bid."))
    return [Spacer(1, 2 * mm), *[para(line, SMALL * scale) for line in lines]]


def _stake_box(width: float, lang: str, scale: float, stake: str | None) -> Table:
    rows = [[f"{word('stake', lang)}: {stake or '________'}", f"{word('settlement', lang)}:"]]
    rows += [["", "______________ → ______________  ________"] for _ in range(3)]
    box = Table(rows, colWidths=[width * 0.35, width * 0.65], hAlign="LEFT")
    box.setStyle(TableStyle([("FONT", (0, 0), (-1, -1), FONT, BODY * scale), ("BOX", (0, 0), (-1, -1), 0.8, GREY),
                             ("VALIGN", (0, 0), (-1, -1), "TOP")]))
    return box


def _ordered_grid(rules: Rules, names: Sequence[str], lang: str, width: float, scale: float) -> Table:
    games = list(rules.per_round)
    head: list[object] = [word("ordered_grid", lang), *names]
    data: list[list[object]] = [head]
    for number, gid in enumerate(ordered_games(rules), 1):  # numbered: the number is enough in «Игра»
        count = games.count(gid)
        label = f"{number}. " + rules.games[gid].label(lang) + (f" ×{count}" if count > 1 else "")
        # a box under every player: the table ticks who ordered it (each player orders each game
        # once where each player orders; else the game is ordered once, by whoever's turn it was)
        cells = ["□ " * count] * len(names)
        data.append([label, *cells])
    grid = Table(data, colWidths=[width * 0.3, *[width * 0.7 / len(names)] * len(names)], hAlign="LEFT",
                 repeatRows=1)
    grid.setStyle(TableStyle([("FONT", (0, 0), (-1, -1), FONT, SMALL * scale), ("FONT", (0, 0), (-1, 0), BOLD, SMALL * scale),
                              ("GRID", (0, 0), (-1, -1), 0.3, GREY), ("BACKGROUND", (0, 0), (-1, 0), LIGHT)]))
    return grid


MIN_ROW_MM = 9.0  # a cell a person writes in, when one blank is on a page
MAX_ROW_MM = 14.0


@speaks
def blank_pdf(rules: Rules, players: Sequence[str] | None = None, lang: str = "ru", per_page: int = 1,
              stake: str | None = None, table_class: type[Table] = Table) -> bytes:
    """The empty printable blank of ``rules``; ``per_page=2`` puts two on one A4. The rows share
    the page's height (at least 9 mm each with one blank a page; a long game goes on to a second
    page, its header repeated), with a row under «Игрок 1…» for the names."""
    _fonts()
    doc = _Doc(rules.players, per_page)
    names = player_names(rules, tuple(players) if players else None, lang)
    story: list[object] = []
    frame_h = doc.pagesize[1] - 2 * doc.margin
    for copy in range(per_page):
        rows = rows_for(rules, None, tuple(players) if players else None, lang)
        head = _header(rules, lang, None, None, doc.scale)
        legend = _legend(rules, lang, doc.scale)
        ordered = rules.ordered
        grid = [_ordered_grid(rules, names, lang, doc.frame_w, doc.scale),
                para(word("game_number", lang), SMALL * doc.scale, color=GREY)] if ordered else []
        box = _stake_box(doc.frame_w, lang, doc.scale, stake)
        used = sum(f.wrap(doc.frame_w, frame_h)[1] for f in [*head, *legend, *grid, box]) + 10 * mm
        lines = 1 if rules.limit is not None else 3
        count = len(rows) + lines + (1.1 if not players else 0) + 1.3  # + the column heads
        low = (MIN_ROW_MM if per_page == 1 else 6.2) * mm
        row_h = min(max((frame_h - used) / count, low), MAX_ROW_MM * mm * doc.scale)
        page_after = None
        if per_page == 1 and (frame_h - used) / count < low:
            row_h, page_after = _long_rows(rules, rows, names, lang, doc, head, not players)
        story += head
        story.append(_sheet_table(rules, rows, names, None, lang, doc.frame_w, doc.scale, row_h, not players,
                                  table_class, page_after))
        story += legend
        story.append(Spacer(1, 2 * mm))
        if grid:  # «Кто что заказал» whole, with the stake box: on the page it fits, never parted
            story.append(KeepTogether([*grid, Spacer(1, 2 * mm), box]))
        else:
            story.append(KeepTogether([box]))
        if copy + 1 < per_page:
            story.append(FrameBreak())
    # one blank a page is a blank made to be photographed: corner marks and a QR code in the
    # margins (two a page are for pencil only)
    code = scan_code(rules, rules.players, tuple(players) if players else None, lang) if per_page == 1 else None
    return doc.build(story, f"Кинг: {rules.id}", scan=code)


LONG_MIN_ROW_MM = 8.0  # a long blank may go this low to need one page fewer


def _long_rows(rules: Rules, rows: list[SheetRow], names: Sequence[str], lang: str, doc: _Doc, head: list[Any],
               names_row: bool) -> tuple[float, int | None]:
    """The row height of a blank too long for one page, and after which row its first page ends.
    Rows of MIN_ROW_MM, unless rows of at least LONG_MIN_ROW_MM need a page fewer: then the rows
    share those two pages evenly (ordered-56: the 28 deals of each stage on a page of their own,
    not one deal alone on a third page)."""
    frame_h = doc.pagesize[1] - 2 * doc.margin
    low = MIN_ROW_MM * mm
    lines = 1 if rules.limit is not None else 3
    probe = _sheet_table(rules, [], names, None, lang, doc.frame_w, doc.scale, low, names_row)
    head_row = probe.wrap(doc.frame_w, frame_h)[1] - ((1.1 if names_row else 0) + lines) * low
    room = frame_h - sum(f.wrap(doc.frame_w, frame_h)[1] for f in head) - head_row - 4 * mm
    names_h = 1.1 if names_row else 0

    later_room = frame_h - head_row - 4 * mm  # the column heads and the names' row repeat

    def pages(h: float) -> int:
        first, later = max(1, int(room / h - names_h)), max(1, int(later_room / h - names_h))
        return 1 + -(-max(0, len(rows) - first) // later)

    count = pages(LONG_MIN_ROW_MM * mm)
    if count >= pages(low) or count > 2:
        return low, None
    share = -(-len(rows) // count)
    last = len(rows) - share * (count - 1) + lines  # the ИТОГО lines with the last rows, if they fit
    h = min(room / (share + names_h), MAX_ROW_MM * mm * doc.scale)
    if later_room / (last + names_h) >= LONG_MIN_ROW_MM * mm:
        h = min(h, later_room / (last + names_h))
    return float(h) * 0.995, share


def _chart(report: Report, lang: str, width: float) -> Any:
    """Each player's running total deal by deal (reportlab's own graphics)."""
    from reportlab.graphics.charts.legends import Legend  # a filled sheet's chart only: a blank has none
    from reportlab.graphics.charts.lineplots import LinePlot
    from reportlab.graphics.shapes import Drawing, String

    names = report.game.players
    running = {p: [0] for p in names}
    for row in report.rows:
        for j, p in enumerate(names):
            add = row.cells[j] if row.cells else 0
            running[p].append(running[p][-1] + add)
    height = 62 * mm
    d = Drawing(width, height)
    d.add(String(0, height - 10, word("running", lang), fontName=BOLD, fontSize=9))
    lp = LinePlot()
    lp.x, lp.y = 28, 18
    lp.width, lp.height = width - 120, height - 40
    lp.data = [list(enumerate(running[p])) for p in names]
    for i, _unused in enumerate(names):
        lp.lines[i].strokeColor = SERIES[i % len(SERIES)]
        lp.lines[i].strokeWidth = 1.4
    deals = max(len(report.rows), 1)
    lp.xValueAxis.valueMin = 0
    lp.xValueAxis.valueMax = deals
    lp.xValueAxis.valueSteps = list(range(0, deals + 1, max(1, -(-deals // 14))))  # whole deals only
    lp.xValueAxis.labelTextFormat = lambda v: str(int(v))
    lp.xValueAxis.labels.fontName = FONT
    lp.xValueAxis.labels.fontSize = 6.5
    lp.yValueAxis.labels.fontName = FONT
    lp.yValueAxis.labels.fontSize = 6.5
    lp.yValueAxis.labelTextFormat = lambda v: num(int(v))
    d.add(lp)
    legend = Legend()
    legend.x, legend.y = width - 85, height - 24
    legend.fontName, legend.fontSize = FONT, SMALL
    legend.alignment = "right"
    legend.columnMaximum = len(names)
    legend.colorNamePairs = [(SERIES[i % len(SERIES)], p) for i, p in enumerate(names)]
    d.add(legend)
    return d


METHOD_WORDS = {"pairwise": N_("Pair by pair"), "pot": N_("Through the pot")}  # the phone page's words


def _money_block(s: Settlement, lang: str, width: float, final: bool = True) -> list[object]:
    """The settlement; on a sheet that is unfinished or has problems it is printed marked as not final."""
    method = _(METHOD_WORDS[s.method]).lower() if s.method in METHOD_WORDS else s.method
    stake = _("{stake} a point").format(stake=fmt_money(s.stake, s))
    out: list[object] = [Spacer(1, 3 * mm), para(f"{word('settlement', lang)}: {method}, {stake}", HEADING, True)]
    if not final:
        out.append(para(_("Not final: the sheet is unfinished or has problems; `kingsheet settle` refuses it."),
                        BODY, True, color=RED))
    rows = [["", word("total", lang), "±"]]
    for p, tot in s.totals.items():
        bal = s.settled[p]
        rows.append([p, num(int(tot)) if tot == int(tot) else str(tot),
                     signed_money(bal, s)])
    bal_table = Table(rows, hAlign="LEFT", colWidths=[width * 0.25, width * 0.12, width * 0.18])
    bal_table.setStyle(TableStyle([("FONT", (0, 0), (-1, -1), FONT, BODY), ("ALIGN", (1, 0), (-1, -1), "RIGHT"),
                                   ("LINEBELOW", (0, 0), (-1, 0), 0.5, GREY)]))
    out.append(bal_table)
    if s.pairs:
        out.append(para(word("pairs", lang) + ": " + "; ".join(
            f"{x.payer} → {x.payee} {fmt_money(x.amount, s)}" for x in s.pairs), 7.5))
    out.append(para(word("transfers", lang) + ":", BODY, True))
    for x in s.transfers:
        out.append(para(f"{x.payer} → {x.payee}  {fmt_money(x.amount, s)}", BODY))
    for note in s.notes:
        out.append(para(note, SMALL, color=GREY))
    return out


@speaks
def sheet_pdf(report: Report, settlement: Settlement | None = None, lang: str = "ru") -> bytes:
    """The filled sheet: numbers, a mark per row, ИТОГО, the leader, the money and a chart."""
    _fonts()
    game = report.game
    rules = game.rules
    doc = _Doc(rules.players, 1)
    rows = rows_for(rules, report, None, lang)
    story: list[object] = _header(rules, lang, game.title, game.date, 1.0)
    story.append(_sheet_table(rules, rows, game.players, report, lang, doc.frame_w, 1.0))
    leaders = report.leader()
    if report.complete and leaders:
        best = report.totals[leaders[0]].total
        story.append(para(f"{word('leader', lang)}: {', '.join(leaders)} ({num(best)})", HEADING, True))
    elif not report.complete:
        played, of = len(report.rows), len(rules.slots)
        story.append(para(_("The sheet is unfinished: {played} of {of} deals played.").format(played=played, of=of)
                          if of else _("The sheet is unfinished: {played} deals, no one has reached {limit}.").format(
                              played=played, limit=num(-(rules.limit or 0))), HEADING, True))
    general = [p for p in report.problems if p.deal is None]
    if general:
        story.append(para(word("problems", lang) + ": " + "; ".join(p.message for p in general), BODY, color=RED))
    story += _legend(rules, lang, 1.0)
    if settlement is not None:
        story.append(KeepTogether(_money_block(settlement, lang, doc.frame_w, report.complete and report.ok)))
    if report.rows:
        story.append(Spacer(1, 3 * mm))
        story.append(KeepTogether([_chart(report, lang, doc.frame_w)]))
    return doc.build(story, game.title or f"Кинг: {rules.id}")
