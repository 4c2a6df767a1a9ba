"""XLSX workbooks with openpyxl: a blank that checks itself as people type, and the filled sheet.

Sheet 1 is the paper blank with live formulas: the row sum beside the «Очки» column, a mark
per row, ИТОГО (−) / (+) / ИТОГО by SUMIF on the sign of «Очки» (so ordered games, whose
rows are chosen at the table, sum right too). Conditional formatting turns a row red when its
sum is not its total and ИТОГО red when it does not balance; data validation keeps entries
whole and within the row's range. Formula cells are locked, entry cells are not (no password).
Sheet 2 settles the money from a stake cell with formulas. A hidden sheet «kingsheet» records
the rules so that ``kingsheet check``/``import`` can read the workbook back.

Untrusted text (names, notes) is always written as a string cell: a name like "=1+1" never
becomes a formula.
"""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from typing import Any

from openpyxl import Workbook
from openpyxl.cell.cell import Cell
from openpyxl.formatting.rule import FormulaRule
from openpyxl.styles import Alignment, Border, Font, PatternFill, Protection, Side
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.datavalidation import DataValidation
from openpyxl.worksheet.worksheet import Worksheet

from kingsheet.core.i18n import DEFAULT, _, speaks
from kingsheet.core.money import CURRENCIES, Settlement, fmt_money
from kingsheet.core.rules import Order, Rules
from kingsheet.core.scoring import bid_row_total_formula, cell_sign, cell_step
from kingsheet.core.verify import Report
from kingsheet.render.labels import word
from kingsheet.render.sheet import SheetRow, player_names, reminders, rows_for, subtitle, unit_lines

META_SHEET = "kingsheet"
BLANK_ROW_PT = 26  # a deal's row on a blank: room to write by hand once printed (about 9 mm on A4)
FILLED_ROW_PT = 18
TALLEST_ROW_PT = 44  # a deal's row grown to fill the page (a short game on A4) stops here
HEADER_ROW = 5
FIRST_ROW = HEADER_ROW + 1
GREY = "BFBFBF"
LIGHT = PatternFill("solid", fgColor="EEEEEE")
RED_FILL = PatternFill("solid", fgColor="F4C7C3")
THIN = Side(style="thin", color="999999")
THICK_GREY = Side(style="thick", color="8C8C8C")
BOX = Border(left=THIN, right=THIN, top=THIN, bottom=THIN)
UNLOCKED = Protection(locked=False)
RISKY = ("=", "+", "-", "@", "\t", "\r")


def text_cell(ws: Worksheet, row: int, col: int, value: str, **style: Any) -> Cell:
    """A string cell that stays a string: never a formula, whatever the text begins with."""
    cell = ws.cell(row=row, column=col)
    cell.value = value
    cell.data_type = "s"
    if value.startswith(RISKY):
        cell.quotePrefix = True
    for key, val in style.items():
        setattr(cell, key, val)
    return cell


class _Columns:
    """Where everything is: A №, B Игра, C Очки, players, Сдаёт, Объявляет/Заказывает, [Заявка], Σ, ✓."""

    def __init__(self, rules: Rules) -> None:
        n = rules.players
        penalty = rules.games.get("penalty")
        self.first_player = 4
        self.last_player = 3 + n
        # games played to a limit: each player's running total, after the players
        self.running = range(self.last_player + 1, self.last_player + 1 + n) if rules.limit else range(0)
        self.dealer = (self.running[-1] if self.running else self.last_player) + 1
        self.who = self.dealer + 1
        col = self.who
        self.bid = self.contract = None
        if rules.bidding or (penalty is not None and penalty.bid):
            col += 1
            self.bid = col
        if penalty is not None and penalty.choose_suit:
            col += 1
            self.contract = col
        self.sum = col + 1
        self.mark = self.sum + 1

    def players(self) -> range:
        return range(self.first_player, self.last_player + 1)

    def letter(self, col: int) -> str:
        return get_column_letter(col)

    @property
    def span(self) -> str:
        return f"${self.letter(self.first_player)}{{r}}:${self.letter(self.last_player)}{{r}}"


def _bounds(rules: Rules, gid: str | None) -> tuple[int, int]:
    """The range a cell of this row may hold (the verifier says exactly what is wrong)."""
    games = [rules.games[gid]] if gid else list(rules.games.values())
    lo = hi = 0
    for g in games:
        if g.declared:
            span = g.total * 2 if (rules.buyout or rules.bidding) else g.total
            lo, hi = min(lo, -span if rules.buyout else 0), max(hi, span)
        else:
            lo, hi = min(lo, g.total), max(hi, g.total)
    return lo, hi


def _sheet(wb: Workbook, rules: Rules, rows: list[SheetRow], names: Sequence[str], report: Report | None, lang: str,
           title: str | None, date: str | None) -> tuple[Worksheet, int, _Columns]:
    """The sheet of the paper blank: its header, a row a deal, the ИТОГО rows, the marks that turn a
    wrong row red, what each cell may hold, the legend and the page."""
    ws = wb.active
    ws.title = _("King")
    cols = _Columns(rules)
    _header(ws, rules, cols, names, report, lang, title, date)
    _deal_rows(ws, rules, cols, rows, report)
    total_row, n_totals = _totals(ws, rules, cols, rows, report, lang)
    _formatting(ws, rules, cols, rows, total_row)
    _validation(ws, rules, cols, rows, lang)
    _legend_and_page(ws, rules, cols, total_row + n_totals + 1, lang)
    _fill_the_page(ws, rules, cols, len(rows), BLANK_ROW_PT if report is None else FILLED_ROW_PT)
    return ws, total_row, cols


def _header(ws: Worksheet, rules: Rules, cols: _Columns, names: Sequence[str], report: Report | None, lang: str,
            title: str | None, date: str | None) -> None:
    """Title, rules, date, and the column heads (the players' names unlocked on a blank)."""
    name = rules.template.name.get(lang) or rules.template.name.get(DEFAULT, rules.id)
    text_cell(ws, 1, 1, title or name, font=Font(size=14, bold=True))
    text_cell(ws, 2, 1, f"{rules.id} · {subtitle(rules, lang)}", font=Font(size=8, color="808080"))
    text_cell(ws, 3, 1, f"{word('date', lang)}:")
    date_cell = text_cell(ws, 3, 2, date or "")
    date_cell.protection = UNLOCKED
    heads = [word("deal", lang), word("game", lang), word("points", lang)]
    for c, head in enumerate(heads, start=1):
        text_cell(ws, HEADER_ROW, c, head)
    for c, player in zip(cols.players(), names):
        cell = text_cell(ws, HEADER_ROW, c, player)
        if report is None:
            cell.protection = UNLOCKED  # the names are written at the table
    text_cell(ws, HEADER_ROW, cols.dealer, word("dealer", lang))
    ordered = rules.ordered
    text_cell(ws, HEADER_ROW, cols.who, word("orderer", lang) if ordered else word("declarer", lang))
    if cols.bid:
        text_cell(ws, HEADER_ROW, cols.bid, _("Bid"))
    if cols.contract:
        text_cell(ws, HEADER_ROW, cols.contract, _("Suit"))
    for c, player in zip(cols.running, names):
        text_cell(ws, HEADER_ROW, c, f"Σ {player}")
    text_cell(ws, HEADER_ROW, cols.sum, "Σ")
    text_cell(ws, HEADER_ROW, cols.mark, word("check", lang))
    for c in range(1, cols.mark + 1):
        cell = ws.cell(HEADER_ROW, c)
        cell.font = Font(bold=True)
        cell.fill = LIGHT
        cell.border = BOX
        cell.alignment = Alignment(horizontal="center", vertical="center", wrap_text=True)


def _deal_rows(ws: Worksheet, rules: Rules, cols: _Columns, rows: list[SheetRow], report: Report | None) -> None:
    """A row a deal: №, game, «Очки», the cells, who deals and declares, running sums and the mark."""
    for i, r in enumerate(rows):
        row = FIRST_ROW + i
        ws.cell(row, 1, r.number)
        if r.game or rules.order is Order.FIXED:
            text_cell(ws, row, 2, r.game)
        else:
            ws.cell(row, 2).protection = UNLOCKED  # ordered games: the game is written at the table
        _points_cell(ws, rules, cols, r, row)
        for j, c in enumerate(cols.players()):
            cell = ws.cell(row, c)
            if r.values is not None:
                cell.value = r.values[j]
            cell.protection = UNLOCKED
            cell.alignment = Alignment(horizontal="center", vertical="center")
        dealer = text_cell(ws, row, cols.dealer, r.dealer)
        if report is None:
            dealer.protection = UNLOCKED  # on a blank, who deals is written at the table
        ws.row_dimensions[row].height = BLANK_ROW_PT if report is None else FILLED_ROW_PT
        who = text_cell(ws, row, cols.who, r.who)
        who.protection = UNLOCKED
        deal = report.rows[i].deal if report is not None and i < len(report.rows) else None
        if deal is not None and deal.note:  # the deal's note, on its game's cell
            from openpyxl.comments import Comment

            ws.cell(row, 2).comment = Comment(deal.note, "kingsheet", width=240, height=60)
        if cols.bid:
            bid_cell = ws.cell(row, cols.bid)
            bid_cell.value = deal.bid if deal else None
            bid_cell.protection = UNLOCKED
        if cols.contract:
            suit = text_cell(ws, row, cols.contract, (deal.contract or "") if deal else "")
            suit.protection = UNLOCKED
        span = cols.span.format(r=row)
        for c, p in zip(cols.running, cols.players()):
            col = get_column_letter(p)
            ws.cell(row, c, f'=IF(COUNT({span})=0,"",SUM({col}${FIRST_ROW}:{col}{row}))')
        ws.cell(row, cols.sum, f"=IF(COUNT({span})=0,\"\",SUM({span}))")
        penalty = rules.games.get("penalty")
        moon = penalty.moon if penalty is not None else None
        ok = f"SUM({span})=$C{row}" if moon is None else f"OR(SUM({span})=$C{row},SUM({span})={moon})"
        cells_ok = _cells_ok(rules, r.game_id, span)
        ws.cell(row, cols.mark, f'=IF(COUNT({span})=0,"",IF({ok},IF({cells_ok},"✓","✗"),"≠ "&$C{row}))')
        problem = report.rows[i] if report is not None and i < len(report.rows) else None
        if problem is not None and (problem.problems or problem.deal.forced):
            _mark_problem(ws, row, cols, problem)
        for c in range(1, cols.mark + 1):
            cell = ws.cell(row, c)
            cell.border = Border(left=THIN, right=THIN, bottom=THIN, top=THICK_GREY if r.stage_start else THIN)
            if cell.alignment.vertical is None:  # a row grown to fill the page keeps its words in the middle
                cell.alignment = Alignment(horizontal=cell.alignment.horizontal, vertical="center",
                                           wrap_text=cell.alignment.wrap_text)
        ws.cell(row, 3).fill = LIGHT


def _cells_ok(rules: Rules, gid: str | None, span: str) -> str:
    """The workbook's own check of each cell, by core.scoring's rule: a whole multiple of the
    game's step and the game's sign (a row that sums right but holds −3 in Взятки is not ✓)."""
    game = rules.games.get(gid) if gid else None
    if game is None:
        return "TRUE"
    tests = []
    step = cell_step(game)
    if step and step > 1:
        tests.append(f"SUMPRODUCT(MOD({span},{step}))=0")  # MOD by a positive step is never negative
    sign = cell_sign(rules, game)
    if sign is not None:
        tests.append(f'COUNTIF({span},"{">" if sign < 0 else "<"}0")=0')
    return f"AND({','.join(tests)})" if tests else "TRUE"


def _mark_problem(ws: Worksheet, row: int, cols: _Columns, sheet_row: Any) -> None:
    """A row kingsheet found wrong (or that was forced): ✗ with the first problem, every problem in
    a comment, and the row filled red."""
    from openpyxl.comments import Comment

    texts = [p.message for p in sheet_row.problems] or [_("forced: saved with a problem")]
    if sheet_row.deal.forced and sheet_row.problems:
        texts.append("forced = true")
    mark = ws.cell(row, cols.mark)
    mark.value = "✗ " + texts[0].split(": ", 1)[-1]
    mark.data_type = "s"
    mark.comment = Comment("\n".join(texts), "kingsheet", width=320, height=60 + 20 * len(texts))
    for c in range(1, cols.mark + 1):
        ws.cell(row, c).fill = RED_FILL


def _points_cell(ws: Worksheet, rules: Rules, cols: _Columns, r: SheetRow, row: int) -> None:
    """The «Очки» of a row: the number, or a formula where the total depends on what is written
    (a chosen suit and a bid, a bid for the trump, or a game named at the table)."""
    lookup = f"'{META_SHEET}'!$A$20:$B${19 + len(rules.games)}"
    penalty = rules.games.get("penalty")
    if penalty is not None and penalty.choose_suit and cols.bid:
        # the penalty suit's cards and the bid: −13 less the bid
        size = max(rules.deck.suit_size(x) for x in "SCDH")
        bid_ref = f"${get_column_letter(cols.bid)}{row}"
        ws.cell(row, 3, f'=IF({bid_ref}="","",{-size}-{bid_ref})')
    elif not rules.ordered and r.points is not None and not (
            cols.bid and r.game_id and rules.games[r.game_id].declared):
        ws.cell(row, 3, r.points)
    elif cols.bid and r.game_id and rules.games[r.game_id].declared:
        # trump-bidding: 48 less 6 for each bid trick the declarer took (his tricks follow from the others')
        ws.cell(row, 3, _bid_total_formula(rules, cols, row))
    else:
        ws.cell(row, 3, f'=IFERROR(VLOOKUP($B{row},{lookup},2,FALSE),"")')


def _totals(ws: Worksheet, rules: Rules, cols: _Columns, rows: list[SheetRow], report: Report | None,
            lang: str) -> tuple[int, int]:
    """ИТОГО (−), ИТОГО (+) and ИТОГО (or one ИТОГО for a game to a limit); returns their first row
    and how many there are."""
    last = FIRST_ROW + len(rows) - 1
    total_row = last + 1
    first_l, last_l = FIRST_ROW, last
    expected = report.expected if report else None
    minus = expected.minus if expected else rules.stage_total(0)
    plus = expected.plus if expected else rules.stage_total(1)
    sum_col = get_column_letter(cols.sum)
    complete = f"COUNT(${sum_col}${first_l}:${sum_col}${last_l})={len(rows)}"
    lines = [("minus", minus), ("plus", plus), ("total", minus + plus)]
    if rules.limit is not None:
        lines = [("limit", 0)]  # one stage, no fixed sum: one ИТОГО row of plain sums
    for k, (key, exp) in enumerate(lines):
        row = total_row + k
        if key == "limit":
            text_cell(ws, row, 2, word("total", lang), font=Font(bold=True))
            for c in cols.players():
                col = get_column_letter(c)
                ws.cell(row, c, f"=SUM({col}${first_l}:{col}${last_l})")
                ws.cell(row, c).font = Font(bold=True)
            ws.cell(row, cols.sum, f"=SUM({cols.span.format(r=row)})")
            for c in range(1, cols.mark + 1):
                ws.cell(row, c).fill = LIGHT
                ws.cell(row, c).border = Border(left=THIN, right=THIN, bottom=THIN,
                                                top=Side(style="medium", color="000000"))
            continue
        text_cell(ws, row, 2, word(key, lang), font=Font(bold=True))
        ws.cell(row, 3, exp)
        for c in cols.players():
            col = get_column_letter(c)
            rng = f"{col}${first_l}:{col}${last_l}"
            crit = f"$C${first_l}:$C${last_l}"
            if key == "minus":
                ws.cell(row, c, f'=SUMIF({crit},"<0",{rng})')
            elif key == "plus":
                ws.cell(row, c, f'=SUMIF({crit},">0",{rng})')
            else:
                ws.cell(row, c, f"={col}{total_row}+{col}{total_row + 1}")
        span = cols.span.format(r=row)
        ws.cell(row, cols.sum, f"=SUM({span})")
        # judged once every row is written, as on paper
        ws.cell(row, cols.mark, f'=IF(NOT({complete}),"",IF(SUM({span})=$C{row},"✓","≠ "&$C{row}))')
        for c in range(1, cols.mark + 1):
            cell = ws.cell(row, c)
            cell.font = Font(bold=True)
            cell.fill = LIGHT
            cell.border = Border(left=THIN, right=THIN, bottom=THIN,
                                 top=Side(style="medium", color="000000") if k == 0 else THIN)
    return total_row, len(lines)


def _formatting(ws: Worksheet, rules: Rules, cols: _Columns, rows: list[SheetRow], total_row: int) -> None:
    """A row turns red when its sum is not its total; ИТОГО red when it does not balance."""
    last = FIRST_ROW + len(rows) - 1
    sum_col = get_column_letter(cols.sum)
    complete = f"COUNT(${sum_col}${FIRST_ROW}:${sum_col}${last})={len(rows)}"
    area = f"A{FIRST_ROW}:{get_column_letter(cols.mark)}{last}"
    first_span = cols.span.format(r=FIRST_ROW)
    penalty = rules.games.get("penalty")
    not_moon = f",SUM({first_span})<>{penalty.moon}" if penalty is not None and penalty.moon is not None else ""
    ws.conditional_formatting.add(area, FormulaRule(
        formula=[f"AND(COUNT({first_span})>0,SUM({first_span})<>$C{FIRST_ROW}{not_moon})"], fill=RED_FILL))
    if rules.limit is None:
        tot_area = f"A{total_row}:{get_column_letter(cols.mark)}{total_row + 2}"
        tot_span = cols.span.format(r=total_row)
        ws.conditional_formatting.add(tot_area, FormulaRule(
            formula=[f"AND({complete},SUM({tot_span})<>$C{total_row})"], fill=RED_FILL))


def _validation(ws: Worksheet, rules: Rules, cols: _Columns, rows: list[SheetRow], lang: str) -> None:
    """What a cell may hold, with a message saying so."""
    for i, r in enumerate(rows):
        row = FIRST_ROW + i
        lo, hi = _bounds(rules, r.game_id)
        dv = DataValidation(type="whole", operator="between", formula1=str(lo), formula2=str(hi), allow_blank=True,
                            showErrorMessage=True, errorTitle=_game_title(rules, r, lang),
                            error=_("A whole number from {lo} to {hi}").format(lo=lo, hi=hi))
        dv.add(f"{get_column_letter(cols.first_player)}{row}:{get_column_letter(cols.last_player)}{row}")
        ws.add_data_validation(dv)


def _game_title(rules: Rules, r: SheetRow, lang: str) -> str:
    """A validation message names the game of its row (and its step), never «Кинг» for every row."""
    game = rules.games.get(r.game_id) if r.game_id else None
    if game is None:
        return (r.game or _("Deal"))[:32]
    step = cell_step(game)
    extra = _(", a multiple of {step}").format(step=step) if step and step > 1 else ""
    return (game.label(lang) + extra)[:32]


def _legend_and_page(ws: Worksheet, rules: Rules, cols: _Columns, legend_row: int, lang: str) -> None:
    """The units and the reminders under the table; A4, the header row on every page, protection."""
    last_col = get_column_letter(cols.mark)
    legend = [f"{word('units', lang)}: " + "; ".join(unit_lines(rules, lang)), *reminders(rules, lang)]
    for k, line in enumerate(legend):
        # each line across the whole table, wrapped: nothing runs past the print area's right edge
        cell = text_cell(ws, legend_row + k, 1, line, font=Font(size=8))
        cell.alignment = Alignment(wrap_text=True, vertical="top")
        ws.merge_cells(f"A{legend_row + k}:{last_col}{legend_row + k}")
        ws.row_dimensions[legend_row + k].height = 12 * max(1, -(-len(line) // 110))
    ws.row_dimensions[HEADER_ROW].height = 30  # the heads wrap instead of being cut

    widths = {1: 5, 2: 16, 3: 7, cols.dealer: 10, cols.who: 11, cols.sum: 7, cols.mark: 10}
    if cols.bid:
        widths[cols.bid] = 7
    for c in cols.running:
        widths[c] = 8
    for c in range(1, cols.mark + 1):
        ws.column_dimensions[get_column_letter(c)].width = widths.get(c, 11)
    ws.freeze_panes = ws.cell(FIRST_ROW, cols.first_player)
    ws.print_title_rows = f"{HEADER_ROW}:{HEADER_ROW}"
    ws.page_setup.paperSize = ws.PAPERSIZE_A4
    ws.page_setup.orientation = "landscape" if rules.players > 4 else "portrait"
    ws.page_setup.fitToWidth = 1
    ws.page_setup.fitToHeight = 0
    ws.sheet_properties.pageSetUpPr.fitToPage = True
    ws.print_area = f"A1:{last_col}{legend_row + len(legend) - 1}"
    ws.protection.sheet = True  # formulas locked, entry cells unlocked; no password
    ws.protection.formatColumns = False


def _fill_the_page(ws: Worksheet, rules: Rules, cols: _Columns, deals: int, base: float) -> None:
    """Grow the deals' rows so that a short game fills its A4 page, as the paper blank does, instead of
    printing small in the top third (the page is fitted to its width, so its height is what is left).
    A spreadsheet's column of width w is about 7·w + 5 pixels wide; a pixel is ¾ pt."""
    landscape = ws.page_setup.orientation == "landscape"
    page_w, page_h = (842, 595) if landscape else (595, 842)
    margins = ws.page_margins
    usable_w = page_w - 72 * (margins.left + margins.right)
    usable_h = page_h - 72 * (margins.top + margins.bottom) - 36  # and room for the heads repeated
    width_pt = sum(0.75 * (7 * (ws.column_dimensions[get_column_letter(c)].width or 11) + 5)
                   for c in range(1, cols.mark + 1))
    scale = min(1.0, usable_w / width_pt)
    deal_rows = range(FIRST_ROW, FIRST_ROW + deals)
    others = sum(ws.row_dimensions[r].height or 15 for r in range(1, ws.max_row + 1) if r not in deal_rows)
    height = (usable_h / scale - others) / max(1, deals)
    if height <= base:
        return  # a long game goes on over pages at the usual height
    for r in deal_rows:
        ws.row_dimensions[r].height = round(min(height, TALLEST_ROW_PT), 1)
    ws.print_options.horizontalCentered = True


def _bid_total_formula(rules: Rules, cols: _Columns, row: int) -> str:
    """core.scoring's rule for a bidding row, with the declarer's tricks read from the others' cells."""
    unit = rules.games["trumps"].units["trumps"]
    who = f"${get_column_letter(cols.who)}{row}"
    names = f"${get_column_letter(cols.first_player)}${HEADER_ROW}:${get_column_letter(cols.last_player)}${HEADER_ROW}"
    span = cols.span.format(r=row)
    own = f"INDEX({span},MATCH({who},{names},0))"
    bid = f"${get_column_letter(cols.bid or 0)}{row}"
    total = unit * rules.deck.tricks
    return f"=IFERROR({bid_row_total_formula(unit, rules.deck.tricks, bid, f'SUM({span})-{own}')},{total})"


META_DEALS_ROW = 60  # the hidden sheet's per-deal record starts here (below the label lookup)


def _meta(wb: Workbook, rules: Rules, report: Report | None, lang: str) -> None:
    """The hidden sheet: what the visible sheet does not show, so that an imported workbook gives
    back the game file it came from (title, date, money, and per deal: forced, confirm, note, counts)."""
    ws = wb.create_sheet(META_SHEET)
    ws.sheet_state = "hidden"
    rows: list[tuple[str, str]] = [("format", "1"), ("rules", report.game.rules_ref if report else rules.id)]
    rows += [(f"option.{k}", v) for k, v in rules.options.items()]
    if report is not None:
        game = report.game
        rows += [(key, str(value)) for key, value in (("first_dealer", game.first_dealer), ("title", game.title),
                                                     ("date", game.date)) if value]
        rows += [(f"money.{key}", str(value)) for key, value in game.money.items()]
    for k, (key, value) in enumerate(rows, start=1):
        text_cell(ws, k, 1, key)
        text_cell(ws, k, 2, value)
    extras: list[tuple[str, str]] = []
    for deal in report.game.deals if report is not None else ():
        if deal.forced:
            extras.append((f"deal.{deal.number}.forced", "true"))
        if deal.confirm:
            extras.append((f"deal.{deal.number}.confirm", "true"))
        if deal.note:
            extras.append((f"deal.{deal.number}.note", deal.note))
        if deal.taken is not None:
            extras.append((f"deal.{deal.number}.taken", json.dumps([dict(t) for t in deal.taken], ensure_ascii=False)))
        for key in ("orderer", "declarer", "contract", "bid", "buyer", "price"):  # the sheet shows some of them
            if getattr(deal, key) is not None:
                extras.append((f"deal.{deal.number}.{key}", str(getattr(deal, key))))
        # the game's id, where two games share a label on paper (king-14's «Всё подряд»)
        label = rules.games[gid].label(lang) if (gid := rules.find_game(deal.game)) else deal.game
        extras += [(f"deal.{deal.number}.game", deal.game), (f"deal.{deal.number}.label", label)]
    for k, (key, value) in enumerate(extras, start=META_DEALS_ROW):
        text_cell(ws, k, 1, key)
        text_cell(ws, k, 2, value)
    # labels → row totals, for the «Очки» lookup of ordered games
    for k, g in enumerate(rules.games.values(), start=20):
        text_cell(ws, k, 1, g.label(lang))
        ws.cell(k, 2, g.total)
    ws.protection.sheet = True


def amount_format(currency: str) -> str:
    """A number format that shows an amount as the players read it: «1 234,50 ₽», «−8,00 ₽» (the
    separators are the spreadsheet's own, by its locale)."""
    digits, sign = CURRENCIES.get(currency, (2, currency))
    number = "#,##0" + ("." + "0" * digits if digits else "")
    sign = sign.replace('"', "")
    return f'{number}" {sign}";"−"{number}" {sign}";0" {sign}"'


def _money_sheet(wb: Workbook, rules: Rules, names: Sequence[str], total_row: int, cols: _Columns,
                 settlement: Settlement | None, stake: str | None, lang: str, currency: str = "RUB") -> None:
    ws = wb.create_sheet(word("settlement", lang))
    amount = amount_format(settlement.currency if settlement else currency)
    main = wb.worksheets[0].title
    ref = f"'{main}'!"
    n = len(names)
    text_cell(ws, 1, 1, word("settlement", lang), font=Font(size=13, bold=True))
    text_cell(ws, 2, 1, word("stake", lang))
    stake_cell = ws.cell(2, 2)
    stake_value = settlement.stake if settlement else (stake or 1)
    try:
        stake_cell.value = float(stake_value)
    except ValueError:
        stake_cell.value = 1.0
    stake_cell.protection = UNLOCKED
    stake_cell.number_format = amount
    text_cell(ws, 3, 1, _("pair by pair: (n·TOTAL − ΣTOTAL) × stake; through the pot: TOTAL × stake"), font=Font(size=8))
    heads = ["", word("total", lang), word("pairs", lang), _("Through the pot")]
    for c, h in enumerate(heads, start=1):
        head = text_cell(ws, 5, c, h, font=Font(bold=True), fill=LIGHT)
        # never cut at the column's edge; over a column of amounts it stands where they do (right)
        head.alignment = Alignment(wrap_text=True, vertical="center", horizontal="right" if c > 1 else None)
    ws.row_dimensions[5].height = 30
    grand_row = total_row + 2
    first, last = 6, 5 + n
    for i, c in enumerate(cols.players()):
        row = 6 + i
        col = get_column_letter(c)
        ws.cell(row, 1, f"={ref}{col}${HEADER_ROW}")
        ws.cell(row, 2, f"={ref}{col}${grand_row}")
        ws.cell(row, 3, f"=ROUND(({n}*B{row}-SUM($B${first}:$B${last}))*$B$2,2)")
        ws.cell(row, 4, f"=ROUND(B{row}*$B$2,2)")
        for cc in (3, 4):
            ws.cell(row, cc).number_format = amount
    # the pair matrix: row pays column when negative
    mrow = last + 2
    text_cell(ws, mrow, 1, word("pairs", lang) + _(" (row wins from column)"),
              font=Font(bold=True))
    for j in range(n):
        ws.cell(mrow + 1, 2 + j, f"=A{6 + j}")
    for i in range(n):
        ws.cell(mrow + 2 + i, 1, f"=A{6 + i}")
        for j in range(n):
            ws.cell(mrow + 2 + i, 2 + j, f"=ROUND((B{6 + i}-B{6 + j})*$B$2,2)")
            ws.cell(mrow + 2 + i, 2 + j).number_format = amount
    if settlement is not None:
        trow = mrow + 3 + n
        text_cell(ws, trow, 1, word("transfers", lang) + _(" — by kingsheet, at export"),
                  font=Font(bold=True))
        for k, tr in enumerate(settlement.transfers, start=1):
            text_cell(ws, trow + k, 1, tr.payer)
            text_cell(ws, trow + k, 2, "→")
            text_cell(ws, trow + k, 3, tr.payee)
            text_cell(ws, trow + k, 4, fmt_money(tr.amount, settlement))
    ws.column_dimensions["A"].width = 18
    for c in range(2, max(4, n + 1) + 1):
        ws.column_dimensions[get_column_letter(c)].width = 16
    # printed on A4 one page wide: the pair matrix's last column does not go to a page of its own
    ws.page_setup.paperSize = ws.PAPERSIZE_A4
    ws.page_setup.fitToWidth = 1
    ws.page_setup.fitToHeight = 0
    ws.sheet_properties.pageSetUpPr.fitToPage = True
    ws.protection.sheet = True


def _save(wb: Workbook) -> bytes:
    wb.properties.creator = "kingsheet"
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


@speaks
def blank_xlsx(rules: Rules, players: Sequence[str] | None = None, lang: str = "ru", stake: str | None = None) -> bytes:
    wb = Workbook()
    names = player_names(rules, tuple(players) if players else None, lang)
    rows = rows_for(rules, None, tuple(players) if players else None, lang)
    _unused, total_row, cols = _sheet(wb, rules, rows, names, None, lang, None, None)
    _money_sheet(wb, rules, names, total_row, cols, None, stake, lang)
    _meta(wb, rules, None, lang)
    return _save(wb)


@speaks
def sheet_xlsx(report: Report, settlement: Settlement | None = None, lang: str = "ru") -> bytes:
    game = report.game
    wb = Workbook()
    rows = rows_for(game.rules, report, None, lang)
    _unused, total_row, cols = _sheet(wb, game.rules, rows, game.players, report, lang, game.title, game.date)
    stake = game.money.get("stake")
    _money_sheet(wb, game.rules, game.players, total_row, cols, settlement, str(stake) if stake else None, lang,
                 str(game.money.get("currency") or "RUB"))
    _meta(wb, game.rules, report, lang)
    return _save(wb)
