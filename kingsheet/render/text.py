"""Plain-text renderings for the terminal: rules, check summaries, the sheet."""

from __future__ import annotations

from kingsheet.core.i18n import N_, _, ngettext, speaks
from kingsheet.core.problems import num
from kingsheet.core.rules import Order, Rules, Template, Turn
from kingsheet.core.verify import Report
from kingsheet.core.vocabulary import count_word
from kingsheet.render.labels import word
from kingsheet.render.sheet import option_choice, rows_for, unit_lines


def table(rows: list[list[str]], right: set[int] | None = None) -> str:
    """Columns padded to their widest cell; numbers (columns in ``right``) right-aligned."""
    right = right or set()
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = []
    for r in rows:
        cells = [c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths))]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


@speaks
def list_templates(templates: list[tuple[Template, Rules]], lang: str = "ru") -> str:
    rows = [["id", _("players"), _("deals"), f"{word('total', lang)} (−) / (+)", _("name")]]
    for tpl, rules in templates:
        if rules.limit is not None:
            deals, sums = "—", _("to {limit}").format(limit=num(-rules.limit))
        else:
            deals, sums = str(len(rules.slots)), f"{num(rules.stage_total(0))} / +{rules.stage_total(1)}"
        rows.append([tpl.id, str(rules.players), deals, sums, tpl.name.get(lang, tpl.id)])
    return table(rows, right={1, 2})


def _source_words(source: str) -> str:
    """A template's source line («seed 002, variant 3») in the reader's words («текст 002, вариант 3»):
    the seeds are the three source texts the templates name."""
    import re

    words = {"seed": _("seed"), "variant": _("variant")}
    return re.sub(r"\b(seed|variant)\b", lambda m: words[m.group(1)], source)


@speaks
def describe_rules(rules: Rules, lang: str = "ru") -> str:
    tpl = rules.template
    deck = _("players: {players}; deck: {cards} cards, {tricks} each").format(
        players=rules.players, cards=len(rules.deck.cards), tricks=rules.deck.tricks)
    if rules.deck.talon:
        deck += _(", talon {talon}").format(talon=rules.deck.talon)
    lines = [f"{tpl.id}: {tpl.name.get(lang, tpl.id)}", _("source: {source}").format(source=_source_words(tpl.source)), deck,
             _("order: {order}").format(order=_(ORDER_WORDS[rules.order])), ""]
    rows = [["#", word("game", lang), "id", word("points", lang), _("units")]]
    slots = rules.per_round if rules.order is not Order.FIXED else rules.slots
    for i, gid in enumerate(slots, 1):
        g = rules.games[gid]
        parts = " + ".join(f"{g.units[c]}×{g.counts[c]} {count_word(c)}" for c in g.units)
        total = num(g.total) if g.total < 0 else f"+{g.total}"
        if g.declared and rules.bidding:  # the declarer's bid is taken off: at most this
            total = f"≤ {total}"
        rows.append([str(i), g.label(lang), gid, total, parts])
    lines.append(table(rows, right={0, 3}))
    if rules.order is Order.ORDERED_PLAYER:
        lines.append(_("(each player orders each of these once: {deals} deals)").format(deals=len(rules.slots)))
    elif rules.order is Order.ORDERED_TABLE:
        lines.append(_("(each game once, in any order the table chooses)"))
    lines.append("")
    if rules.limit is not None:
        lines.append(_("played until a total reaches {limit}; the fewest minus points win").format(
            limit=num(-rules.limit)))
    elif rules.bidding:  # the plus half depends on the bids: say how, not a number the sheet will not hold
        trumps = rules.trump_game
        assert trumps is not None  # bidding is for the trump
        unit = trumps.units["trumps"]
        lines.append(f"{word('minus', lang)} = {num(rules.stage_total(0))}   " + _(
            "{plus} = +{most} less {unit}·min(bid, the declarer's tricks) for each trump deal; the game is not "
            "zero-sum").format(plus=word("plus", lang), most=rules.stage_total(1), unit=unit))
    else:
        lines.append(f"{word('minus', lang)} = {num(rules.stage_total(0))}   {word('plus', lang)} = +{rules.stage_total(1)}"
                     f"   {word('total', lang)} = {num(rules.grand_total)}")
    lines.append(_("units: {units}").format(units="; ".join(unit_lines(rules, lang))))
    for key, (choices, default) in tpl.options.items():
        chosen = rules.options[key]
        lines.append(_("option {key}: {choices} (default {default}; now {chosen})").format(
            key=key, choices=" | ".join(option_choice(rules, key, c) for c in choices), default=default, chosen=chosen))
    lines.extend(turn_lines(rules))
    if rules.bidding:
        lines.append(_("trump deals: the declarer's bid is taken off their tricks (bid = N)"))
    if rules.buyout:
        lines.append(_("trump deals may be bought: buyer = …, price = N tricks"))
    for note in tpl.notes_in(lang):
        lines.append(_("note: {note}").format(note=note))
    return "\n".join(lines)


ORDER_WORDS = {
    Order.FIXED: N_("deal by deal as on the blank"),
    Order.ORDERED_TABLE: N_("the table orders each game once, in any order"),
    Order.ORDERED_PLAYER: N_("each player orders each game once"),
    Order.TO_LIMIT: N_("one game, dealt until a total reaches the limit"),
}

TURN_WORDS = {
    Turn.LEFT: N_("the player left of the dealer (the turn passes round the table with the deal)"),
    Turn.FREE: N_("any player, each keeping to their share"),
    Turn.AUCTION: N_("whoever wins the auction; after three passes the dealer, with a bid of 1"),
}


def turn_lines(rules: Rules) -> list[str]:
    """Whose turn it is, as `rules ID` shows it: only where the rules have such a turn."""
    out = []
    if rules.trump_game is not None:
        out.append(_("who declares a trump deal: {who}").format(who=_(TURN_WORDS[rules.declares])))
    if rules.ordered:
        out.append(_("who orders a game: {who}").format(who=_(TURN_WORDS[rules.orders])))
    return out


@speaks
def totals_block(report: Report, lang: str = "ru") -> str:
    players = list(report.game.players)
    rows = [["", *players, "Σ"]]
    sums = report.sums
    if report.game.rules.limit is not None:  # one stage: only ИТОГО
        rows.append([word("total", lang), *[num(report.totals[p].total) for p in players], num(sums.total)])
        return table(rows, right=set(range(1, len(players) + 2)))
    rows.append([word("minus", lang), *[num(report.totals[p].minus) for p in players], num(sums.minus)])
    rows.append([word("plus", lang), *[num(report.totals[p].plus) for p in players], num(sums.plus)])
    rows.append([word("total", lang), *[num(report.totals[p].total) for p in players], num(sums.total)])
    return table(rows, right=set(range(1, len(players) + 2)))


def verdict(report: Report) -> str:
    if report.ok:
        return _("all consistent")
    n = len(report.problems)
    return ngettext("{n} problem", "{n} problems", n).format(n=n)


def status_line(report: Report) -> str:
    rules = report.game.rules
    if rules.limit is not None:
        if report.ended_at is None:
            n = len(report.rows)
            return ngettext("{n} deal played, to {limit}; {verdict}", "{n} deals played, to {limit}; {verdict}",
                            n).format(n=n, limit=num(-rules.limit), verdict=verdict(report))
        return _("the game ended at deal {deal} ({limit} reached); {verdict}; fewest minus points: {winners}").format(
            deal=report.ended_at, limit=num(-rules.limit), verdict=verdict(report), winners=", ".join(report.leader()))
    done, want = len(report.rows), len(report.game.rules.slots)
    state = _("complete") if report.complete else ngettext(
        "{done} of {want} deal played", "{done} of {want} deals played", want).format(done=done, want=want)
    expected = report.expected
    return _("{state}; {verdict}; expected TOTAL (−) {minus}, TOTAL (+) +{plus}, TOTAL {total}").format(
        state=state, verdict=verdict(report), minus=num(expected.minus), plus=expected.plus, total=num(expected.total))


def sheet_rows(report: Report, lang: str = "ru") -> list[list[str]]:
    """The paper blank as rows of text: a row of "—" marks the line between the stages."""
    game = report.game
    rules = game.rules
    running = rules.limit is not None
    head = [word("deal", lang), word("game", lang), word("points", lang), *game.players,
            *([f"Σ {p}" for p in game.players] if running else []), word("dealer", lang),
            word("orderer", lang) if rules.ordered else word("declarer", lang), ""]
    rows = [head]
    for r in rows_for(rules, report, None, lang):
        if r.stage_start:
            rows.append(["—"] * len(head))
        mark = r.mark if r.ok else "✗ " + r.mark
        rows.append([str(r.number), r.game, "" if r.points is None else num(r.points), *r.cells, *r.running,
                     r.dealer, r.who, mark])
    return rows


@speaks
def sheet_text(report: Report, lang: str = "ru") -> str:
    game = report.game
    rules = game.rules
    title = game.title or rules.template.name.get(lang, rules.id)
    lines = [f"{title} — {rules.id}" + (f", {game.date}" if game.date else "")]
    rows = sheet_rows(report, lang)
    width = len(rows[0])
    body = [r if r[0] != "—" else [""] * width for r in rows]
    numbers = len(game.players) * (2 if rules.limit is not None else 1)
    text = table(body, right=set(range(2, 3 + numbers)))
    rule_w = len(text.splitlines()[0])
    out = []
    for r, line in zip(rows, text.splitlines()):
        out.append("━" * rule_w if r[0] == "—" else line)
    lines += out
    remaining = len(rules.slots) - len(report.rows)
    if rules.ordered and remaining > 0:
        lines.append(ngettext("({n} more deal to order)", "({n} more deals to order)", remaining).format(n=remaining))
    lines.append("")
    lines.append(totals_block(report, lang))
    leaders = report.leader()
    if report.rows and leaders:
        best = report.totals[leaders[0]].total
        lines.append(f"{word('leader', lang)}: {', '.join(leaders)} ({num(best)})")
    for p in (p for p in report.problems if p.deal is None):
        lines.append(f"✗ {p.message}")
    lines.append(status_line(report))
    return "\n".join(lines)


def not_final(report: Report) -> str:
    """Said beside money settled on a sheet still being played: the amounts are not the evening's."""
    slots, played = len(report.game.rules.slots), len(report.game.deals)
    if slots:
        return _("not final: the sheet is not finished ({played} of {slots} deals)").format(played=played, slots=slots)
    return _("not final: the game has not ended")
