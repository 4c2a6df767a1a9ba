"""A club's figures for people: the standings, the ledger, a player's page and the files, as text
for the terminal and as a PDF report (reportlab's own charts). They take the plain data of
kingsheet.club.queries (the `--json` of the commands)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from kingsheet.core.i18n import _, ngettext, speaks
from kingsheet.core.money import fmt_amount, local_number
from kingsheet.core.problems import num
from kingsheet.render.money import signed_amount
from kingsheet.render.text import table


def _points(value: Any) -> str:
    """A figure as the language writes it: «24,67» and «−3,33» in Russian, a real minus sign."""
    if value is None:
        return "—"
    return num(value) if isinstance(value, int) else local_number(str(value)).replace("-", "−")


def _money_cell(moneys: dict[str, str], main: str) -> str:
    return ", ".join(signed_amount(v, c) for c, v in sorted(moneys.items(), key=lambda kv: kv[0] != main)) or "0"


def _period(p: dict[str, Any]) -> str:
    parts = []
    if p.get("from") or p.get("to"):
        parts.append(_("from {start} to {end}").format(start=p.get("from") or "…", end=p.get("to") or "…"))
    if p.get("rules"):
        parts.append(_("rules {id}").format(id=p["rules"]))
    return "; ".join(parts) or _("all evenings")


@speaks
def standings_text(data: dict[str, Any], lang: str = "ru") -> str:
    lines = [f"{data['club']}: {_('standings')} ({_period(data['period'])})"]
    if not data["standings"]:
        return "\n".join([*lines, _("no finished game in this period")])
    head = ["#", _("player"), _("evenings"), _("won"), _("points"), _("per evening"), _("money"), _("rating")]
    rows = [head]
    for r in data["standings"]:
        rows.append([str(r["place"]), r["player"], str(r["evenings"]), str(r["won"]), _points(r["points"]),
                     _points(r["points_per_evening"]), _money_cell(r["money"], data["currency"]),
                     rating_cell(r.get("rating"), r.get("rating_provisional", True))])
    lines.append(table(rows, right={0, 2, 3, 4, 5, 6, 7}))
    if any(r.get("rating_provisional") for r in data["standings"]):
        lines.append(provisional_note(data["provisional_below"]))
    if not data["period"].get("rules"):
        lines.append(_("points are compared within one rule system: add --rules ID to see them"))
    return "\n".join(lines)


def rating_cell(value: str | None, provisional: bool) -> str:
    """A rating as the table shows it: «27,3», «18,0*» while provisional."""
    if value is None:
        return "—"
    return _points(value) + ("*" if provisional else "")


def provisional_note(evenings: int) -> str:
    """The line under a table of ratings: what the * means (``evenings``: club.rating.PROVISIONAL,
    given by the figures' data)."""
    return ngettext("* provisional: fewer than {n} evening behind it", "* provisional: fewer than {n} evenings behind it",
                    evenings).format(n=evenings)


@speaks
def rating_text(data: dict[str, Any], lang: str = "ru") -> str:
    """`club rating`: who plays best, by the order of each evening's ИТОГО (club.rating)."""
    lines = [f"{data['club']}: {_('rating')} ({_period(data['period'])})"]
    if not data["ratings"]:
        return "\n".join([*lines, _("no finished game in this period")])
    rows = [["#", _("player"), _("rating"), _("skill ± uncertainty"), _("evenings")]]
    rows += [[str(r["place"]), r["player"], rating_cell(r["rating"], r["provisional"]),
              f"{_points(r['mu'])} ± {_points(r['sigma'])}", str(r["evenings"])] for r in data["ratings"]]
    lines.append(table(rows, right={0, 2, 3, 4}))
    if any(r["provisional"] for r in data["ratings"]):
        lines.append(provisional_note(data["provisional_below"]))
    lines.append(_("the rating is the skill less three times its uncertainty (Weng-Lin, Plackett-Luce), from the "
                   "order of the players' TOTAL in each evening, the evenings by date; stakes and rule systems "
                   "do not enter it"))
    return "\n".join(lines)


@speaks
def ledger_text(data: dict[str, Any], lang: str = "ru") -> str:
    lines = [f"{data['club']}: {_('who owes whom')}"]
    if not data["ledgers"]:
        lines.append(_("no finished game yet: nobody owes anything"))
    for led in data["ledgers"]:
        cur = led["currency"]
        lines.append(ngettext("{n} finished evening, in {currency}:", "{n} finished evenings, in {currency}:",
                              led["evenings"]).format(n=led["evenings"], currency=cur))
        lines.append(table([[p, signed_amount(v, cur)] for p, v in led["balances"].items()], right={1}))
        if led["transfers"]:
            lines.append(_("to settle everything:"))
            lines += [f"  {t['from']} → {t['to']} {fmt_amount(Decimal(t['amount']), cur)}" for t in led["transfers"]]
        else:
            lines.append(_("nobody owes anything"))
    if data["payments"]:
        lines.append(_("payments recorded:"))
        lines += [f"  {p['date'] or ''} {p['from']} → {p['to']} {fmt_amount(Decimal(p['amount']), p['currency'])}"
                  for p in data["payments"]]
    return "\n".join(lines)


@speaks
def player_parts(data: dict[str, Any], lang: str = "ru") -> dict[str, Any]:
    """A player's page in parts, each already in words: a heading, a summary line, a table per rule
    system (game, deals, average, how often the worst fell to them), the lines of best and worst
    evening, streak and rating, and the head-to-head table. The terminal lays them out as text,
    the phone as tables (one wording for both)."""
    tables = []
    for rules, games in data["games"].items():
        rows = [[g["label"], str(g["deals"]), _points(g["average"]),
                 "—" if g["worst_share"] is None else f"{_points(g['worst_share'])} %"] for g in games]
        tables.append({"title": rules, "head": [_("game"), _("deals"), _("average"), _("took the worst")],
                       "rows": rows})
    lines = []
    for key, word in (("best", _("best evening")), ("worst", _("worst evening"))):
        e = data[key]
        if e:
            lines.append(f"{word}: {e['date'] or '?'} {e['rules']}, {_points(e['total'])}, "
                         f"{signed_amount(e['money'], e['currency'])}")
    lines.append(_("longest run of wins: {longest}; now: {current}").format(**data["streak"]))
    skill = data.get("rating")
    if skill:
        lines.append(ngettext("rating: {rating} (skill {mu} ± {sigma}, {n} evening){provisional}",
                              "rating: {rating} (skill {mu} ± {sigma}, {n} evenings){provisional}",
                              skill["evenings"]).format(
            rating=_points(skill["rating"]), mu=_points(skill["mu"]), sigma=_points(skill["sigma"]), n=skill["evenings"],
            provisional=", " + _("provisional") if skill["provisional"] else ""))
    heads = None
    if data["head_to_head"]:
        heads = {"title": "", "head": [_("against"), _("evenings"), _("ahead"), _("behind"), _("even")],
                 "rows": [[h["player"], str(h["evenings"]), str(h["ahead"]), str(h["behind"]), str(h["even"])]
                          for h in data["head_to_head"]]}
    return {"player": data["player"], "heading": f"{data['player']} ({data['club']}, {_period(data['period'])})",
            "summary": ngettext("{n} evening, won {won}", "{n} evenings, won {won}", data["evenings"]).format(
                n=data["evenings"], won=data["won"]),
            "tables": tables, "lines": lines, "head_to_head": heads}


@speaks
def player_text(data: dict[str, Any], lang: str = "ru") -> str:
    parts = player_parts(data, lang)
    lines = [parts["heading"], parts["summary"]]
    for t in parts["tables"]:
        lines += ["", t["title"], table([t["head"], *t["rows"]], right={1, 2, 3})]
    lines += parts["lines"]
    if parts["head_to_head"]:
        t = parts["head_to_head"]
        lines += ["", table([t["head"], *t["rows"]], right={1, 2, 3, 4})]
    return "\n".join(lines)


def status_word(status: str) -> str:
    """How a file counts in the club («counted», «in progress, not counted»…), in the language spoken."""
    return {"final": _("counted"), "unfinished": _("in progress, not counted"),
            "problems": _("has problems, not counted"), "unreadable": _("not read"),
            "duplicate": _("the same game as another file, counted once")}.get(status, status)


@speaks
def files_text(data: dict[str, Any], lang: str = "ru", every: bool = False) -> list[str]:
    """One line per file that does not count (``every``: per file), for stderr or `club files`."""
    return [f"{f['file']}: {status_word(f['status'])}" + (f": {f['problem']}" if f.get("problem") else "")
            for f in data["files"] if every or f["status"] != "final"]


@speaks
def report_pdf(standing: dict[str, Any], owed: dict[str, Any], story: dict[str, Any], lang: str = "ru",
               rated: dict[str, Any] | None = None) -> bytes:
    """The club on paper: the standings, the ledger, each player's money over the evenings, and the
    average per deal of each game for the rule system played most."""
    import io

    from reportlab.lib.pagesizes import A4
    from reportlab.lib.units import mm
    from reportlab.platypus import KeepTogether, SimpleDocTemplate, Spacer, Table, TableStyle

    from kingsheet.render.pdf import FONT, GREY, _fonts, para

    _fonts()
    width = A4[0] - 24 * mm
    out = io.BytesIO()
    doc = SimpleDocTemplate(out, pagesize=A4, leftMargin=12 * mm, rightMargin=12 * mm, topMargin=12 * mm,
                            bottomMargin=12 * mm, title=standing["club"], author="kingsheet")
    flow: list[Any] = [para(standing["club"], 14, True), para(_period(standing["period"]), 8, color=GREY),
                       Spacer(1, 4 * mm), para(_("standings"), 11, True)]
    rows = [["#", _("player"), _("evenings"), _("won"), _("points"), _("money"), _("rating")]]
    rows += [[str(r["place"]), r["player"], str(r["evenings"]), str(r["won"]), _points(r["points"]),
              _money_cell(r["money"], standing["currency"]), rating_cell(r.get("rating"), r.get("rating_provisional", True))]
             for r in standing["standings"]]
    flow.append(_grid(rows, [0.06, 0.3, 0.11, 0.09, 0.12, 0.2, 0.12], width, FONT, GREY, Table, TableStyle))
    if any(r.get("rating_provisional") for r in standing["standings"]):
        flow.append(para(provisional_note(standing["provisional_below"]), 7, color=GREY))
    flow += [Spacer(1, 4 * mm), para(_("who owes whom"), 11, True)]
    for led in owed["ledgers"]:
        cur = led["currency"]
        flow.append(_grid([[p, signed_amount(v, cur)] for p, v in led["balances"].items()], [0.4, 0.25], width, FONT,
                          GREY, Table, TableStyle))
        flow += [para(f"{t['from']} → {t['to']}  {fmt_amount(Decimal(t['amount']), cur)}", 8)
                 for t in led["transfers"]] or [para(_("nobody owes anything"), 8)]
    if owed["payments"]:  # why the ledger's balances differ from the standings' money
        flow += [Spacer(1, 2 * mm), para(_("payments recorded (the ledger takes them off; the standings show the "
                                           "money the evenings gave):"), 8, True)]
        flow += [para(f"{p['date'] or ''} {p['from']} → {p['to']}  {fmt_amount(Decimal(p['amount']), p['currency'])}", 8)
                 for p in owed["payments"]]
    if len(story["dates"]) > 1:  # each chart with its heading, never a heading alone at a page's foot
        flow += [Spacer(1, 4 * mm), KeepTogether([
            para(_("money over the evenings ({currency})").format(currency=story["currency"]), 11, True),
            _money_chart(story, width)])]
    if rated and len(rated["history"]) > 1:
        flow += [Spacer(1, 4 * mm), KeepTogether([para(_("rating over the evenings"), 11, True),
                                                  _rating_chart(rated, width)])]
    if story["averages"]:
        flow += [Spacer(1, 4 * mm), KeepTogether([
            para(_("average per deal, {rules}").format(rules=story["rules"]), 11, True), _average_bars(story, width)])]
    doc.build(flow)
    return out.getvalue()


def _grid(rows: list[list[str]], shares: list[float], width: float, font: str, grey: Any, table: Any,
          style: Any) -> Any:
    t = table(rows, colWidths=[width * s for s in shares], hAlign="LEFT")
    t.setStyle(style([("FONT", (0, 0), (-1, -1), font, 8), ("ALIGN", (2, 0), (-1, -1), "RIGHT"),
                      ("LINEBELOW", (0, 0), (-1, 0), 0.5, grey)]))
    return t


def _money_chart(story: dict[str, Any], width: float) -> Any:
    from reportlab.graphics.charts.lineplots import LinePlot
    from reportlab.graphics.shapes import Drawing
    from reportlab.lib.units import mm

    from kingsheet.render.pdf import FONT, SERIES

    names = list(story["money"])
    d = Drawing(width, 70 * mm)
    lp = LinePlot()
    lp.x, lp.y, lp.width, lp.height = 34, 16, width - 140, 70 * mm - 28
    lp.data = [[(i, float(v)) for i, v in enumerate(story["money"][p])] for p in names]
    for i in range(len(names)):
        lp.lines[i].strokeColor = SERIES[i % len(SERIES)]
        lp.lines[i].strokeWidth = 1.3
    evenings = len(story["dates"]) - 1
    lp.xValueAxis.valueMin, lp.xValueAxis.valueMax = 0, max(evenings, 1)
    lp.xValueAxis.valueSteps = list(range(0, evenings + 1, max(1, -(-evenings // 12))))
    lp.xValueAxis.labelTextFormat = lambda v: str(int(v))
    for axis in (lp.xValueAxis, lp.yValueAxis):
        axis.labels.fontName, axis.labels.fontSize = FONT, 6.5
    lp.yValueAxis.labelTextFormat = lambda v: f"{v:,.0f}".replace(",", "\u202f").replace("-", "−")
    d.add(lp)
    return _with_legend(d, names, width, 70 * mm)


def _rating_chart(rated: dict[str, Any], width: float) -> Any:
    """Each player's rating after every evening of the period (held between the evenings they miss)."""
    from reportlab.graphics.charts.lineplots import LinePlot
    from reportlab.graphics.shapes import Drawing
    from reportlab.lib.units import mm

    from kingsheet.render.pdf import FONT, SERIES

    names = [r["player"] for r in rated["ratings"]]
    series: dict[str, list[tuple[int, float]]] = {p: [] for p in names}
    for k, evening in enumerate(rated["history"], 1):
        for p, value in evening["ratings"].items():
            if p in series:
                series[p].append((k, float(value)))
    d = Drawing(width, 70 * mm)
    lp = LinePlot()
    lp.x, lp.y, lp.width, lp.height = 34, 16, width - 140, 70 * mm - 28
    shown = [p for p in names if series[p]]
    lp.data = [series[p] for p in shown]
    for i in range(len(shown)):
        lp.lines[i].strokeColor = SERIES[i % len(SERIES)]
        lp.lines[i].strokeWidth = 1.3
    evenings = len(rated["history"])
    lp.xValueAxis.valueMin, lp.xValueAxis.valueMax = 1, max(evenings, 2)
    lp.xValueAxis.valueSteps = list(range(1, evenings + 1, max(1, -(-evenings // 12))))
    lp.xValueAxis.labelTextFormat = lambda v: str(int(v))
    values = [v for p in shown for _k, v in series[p]] or [0.0]
    lo, hi, step = _nice_range(min(values), max(values))
    lp.yValueAxis.valueMin, lp.yValueAxis.valueMax, lp.yValueAxis.valueStep = lo, hi, step
    lp.yValueAxis.labelTextFormat = lambda v: local_number(f"{v:g}").replace("-", "−")
    for axis in (lp.xValueAxis, lp.yValueAxis):
        axis.labels.fontName, axis.labels.fontSize = FONT, 6.5
    d.add(lp)
    return _with_legend(d, shown, width, 70 * mm)


def _with_legend(d: Any, names: list[str], width: float, height: float) -> Any:
    """A chart's legend at its top right: each player's colour and name."""
    from reportlab.graphics.charts.legends import Legend

    from kingsheet.render.pdf import FONT, SERIES

    legend = Legend()
    legend.x, legend.y = width - 95, height - 10
    legend.fontName, legend.fontSize = FONT, 7
    legend.columnMaximum = max(len(names), 1)
    legend.colorNamePairs = [(SERIES[i % len(SERIES)], p) for i, p in enumerate(names)]
    d.add(legend)
    return d


def _average_bars(story: dict[str, Any], width: float) -> Any:
    from reportlab.graphics.charts.barcharts import VerticalBarChart
    from reportlab.graphics.shapes import Drawing
    from reportlab.lib.units import mm

    from kingsheet.render.pdf import FONT, SERIES

    games = list(story["games"])
    names = list(story["averages"])
    d = Drawing(width, 80 * mm)
    bc = VerticalBarChart()
    bc.x, bc.y, bc.width, bc.height = 34, 44, width - 140, 80 * mm - 54
    bc.data = [[float(story["averages"][p].get(g, 0)) for g in games] for p in names]
    bc.categoryAxis.categoryNames = [story["games"][g] for g in games]  # whole: «Две последние»
    bc.categoryAxis.labels.angle = 30
    bc.categoryAxis.labels.boxAnchor = "ne"
    bc.categoryAxis.labelAxisMode = "low"  # the names below the chart, not on the zero line over the bars
    values = [v for row in bc.data for v in row] or [0.0]
    lo, hi, step = _nice_range(min(values), max(values))
    bc.valueAxis.valueMin, bc.valueAxis.valueMax, bc.valueAxis.valueStep = lo, hi, step  # both ends labelled
    bc.valueAxis.labelTextFormat = lambda v: f"{v:g}".replace("-", "−")
    for axis in (bc.categoryAxis, bc.valueAxis):
        axis.labels.fontName, axis.labels.fontSize = FONT, 6.5
    for i in range(len(names)):
        bc.bars[i].fillColor = SERIES[i % len(SERIES)]
    d.add(bc)
    return _with_legend(d, names, width, 80 * mm)


def _nice_range(low: float, high: float) -> tuple[float, float, float]:
    """An axis from a round number at or below ``low`` to one at or above ``high`` (zero within),
    in steps of 1, 2 or 5 times a power of ten, about five of them."""
    import math

    low, high = min(low, 0.0), max(high, 0.0)
    span = (high - low) or 1.0
    raw = span / 5
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    return math.floor(low / step) * step, math.ceil(high / step) * step, step
