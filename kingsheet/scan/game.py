"""A sheet read from photos → a game file: every row as the rules chose it, and each row a person
must confirm marked in the file (a note with the alternatives; a row no reading of which the rules
allow is kept as read, marked forced)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from kingsheet.core.i18n import _, ngettext
from kingsheet.core.problems import num
from kingsheet.core.rules import Order, Rules
from kingsheet.files.edits import append_deals, new_game_text
from kingsheet.render.labels import word_now
from kingsheet.scan.choose import ACROSS, CROSSED, NO_BID, READS_BADLY, TOTALS_DISAGREE, needs_bid, row_accepted
from kingsheet.scan.reader import RowRead, SheetRead

Confirmed = tuple[str, tuple[int, ...]]  # a row a person confirmed: its game and cells
Bid = tuple[str, int]  # a trump deal of Кинг с торговлей, as a person gave it: the declarer and the bid


def _shown(rules: Rules, game: str, cells: tuple[int, ...], chosen: str) -> str:
    """A reading as a person checks it: its cells, with its game when that is not the chosen one."""
    text = " ".join(num(c) for c in cells)
    return text if game == chosen else f"{rules.games[game].label()}: {text}"


def row_fields(rules: Rules, row: RowRead, confirmed: Confirmed | None = None, bid: Bid | None = None
               ) -> dict[str, Any]:
    """A row's deal; ``confirmed``: the game and cells a person confirmed at the terminal (no mark then),
    ``bid``: the declarer and bid they gave."""
    if confirmed is not None:
        given = {"declarer": bid[0], "bid": bid[1]} if bid else {}
        return {"game": confirmed[0], "points": list(confirmed[1]), **given}
    fields: dict[str, Any] = {"game": row.game, "points": list(row.cells)}
    choice = row.choice
    if not choice.sure:
        fields["confirm"] = True  # kingsheet check reports it until a person corrects or confirms it
    if choice.cells is None:
        fields["forced"] = True
        fields["note"] = _("scan: read as {cells}, which the rules do not allow; correct it").format(
            cells=" ".join(num(c) for c in row.cells))
    elif choice.doubted:
        fields["note"] = _doubted_note(choice.doubted)
    elif choice.corrected:
        fields["note"] = _("scan: a number in this row was crossed out and written again; read as the new one")
    elif not choice.sure:
        alts = "; ".join(_shown(rules, o.game, o.cells, row.game) for o in choice.options[1:4])
        fields["note"] = (_("scan: confirm this row ({why}; also possible: {alternatives})")
                          if alts else _("scan: confirm this row ({why})")).format(why=_why(rules, row), alternatives=alts)
    return fields


def _why(rules: Rules, row: RowRead) -> str:
    """Why a row the reader chose a reading for is to confirm, in a few words: another reading is
    nearly as likely; or the rules had to change what the reader read (which may be a stroke it
    missed); or the reader itself found the handwriting unlikely."""
    choice = row.choice
    if choice.confidence < choice.needs:
        return _("{confidence} % sure").format(confidence=round(choice.confidence * 100))
    if (row.first_game, row.first) != (row.game, row.cells):
        return _("read as {reading}; the rules changed it").format(
            reading=_shown(rules, row.first_game, row.first, row.game))
    return _("hard to read")


def _sheet_doubt(why: str | None) -> str:
    """Why a row read well is asked about: its sheet is in doubt, for this reason."""
    if why == TOTALS_DISAGREE:
        return _("the totals written on the sheet do not add up with the rows as read")
    return _("many rows of this sheet read poorly")


def _doubted_note(why: str) -> str:
    """The game file's mark on a row the reader was sure of, to confirm all the same (the whole
    sheet, a bid not on the blank, a number crossed out)."""
    if why == CROSSED:
        return _("scan: confirm this row: a number in it was crossed out and written again")
    if why == ACROSS:
        return _("scan: confirm this row: a number in it is written across the line between two cells")
    if why == NO_BID:
        return _("scan: the blank does not hold this trump deal's declarer and bid: add them (kingsheet edit N … "
                 "--declarer NAME --bid N)")
    if why == TOTALS_DISAGREE:
        return _("scan: confirm this row: the totals written on the sheet do not add up with the rows as read")
    return _("scan: confirm this row: many rows of this sheet read poorly")


def game_text(sheet: SheetRead, names: Sequence[str], confirmed: Mapping[int, Confirmed] | None = None,
              bids: Mapping[int, Bid] | None = None) -> str:
    text = new_game_text(sheet.rules.id, list(names), sheet.code.options, None, {}, None)
    confirmed, bids = confirmed or {}, bids or {}
    return append_deals(text, [row_fields(sheet.rules, r, confirmed.get(r.number), bids.get(r.number))
                               for r in sheet.rows])


def ask_bid(rules: Rules, number: int, row: Confirmed, names: Sequence[str], ask: Callable[[str], str],
            say: Callable[[str], Any]) -> Bid | None:
    """A confirmed trump row of Кинг с торговлей: its declarer and bid, which the blank does not hold,
    asked for and checked with the row (Enter: added later, and `kingsheet check` asks for them)."""
    from kingsheet.core.game import Deal
    from kingsheet.core.verify import row_problems

    while True:
        words = ask(_("declarer and bid, e.g. «{name} 2» (Enter: add them later): ").format(name=names[0])).split()
        if not words:
            return None
        who = next((n for n in names if n.casefold() == " ".join(words[:-1]).casefold()), None)
        if who is None or not words[-1].isdigit():
            say("✗ " + _("a name of the table and a number of tricks, e.g. «{name} 2»").format(name=names[0]))
            continue
        deal = Deal(number, row[0], row[1], declarer=who, bid=int(words[-1]))
        problems = row_problems(rules, row[0], row[1], tuple(names), deal, number)
        if problems:
            say("✗ " + "; ".join(p.message for p in problems))
            continue
        return who, int(words[-1])


def typed_row(rules: Rules, r: RowRead, answer: str) -> Confirmed | str:
    """A row as a person typed it in place of the readings (on an ordered blank it may start with the
    game), if the rules allow it; else the sentence saying why not."""
    from kingsheet.core.entry import parse_points
    from kingsheet.core.problems import InputError
    from kingsheet.core.verify import row_problems

    players = tuple(f"P{i}" for i in range(1, rules.players + 1))
    words = answer.split()
    named = rules.find_game(words[0]) if words and rules.order is not Order.FIXED else None
    game_id = named or r.game
    try:
        cells = tuple(parse_points(words[1:] if named else words, rules.players))
    except InputError as exc:
        return str(exc)
    if not row_accepted(rules, game_id, cells, players, r.number):  # the bid, not on the blank, is added later
        problems = [p for p in row_problems(rules, game_id, cells, players, number=r.number) if p.code != "bid"]
        return "; ".join(p.message for p in problems) or _("no declarer's bid gives this row")
    return game_id, cells


def row_crop(sheet: SheetRead, number: int) -> bytes | None:
    """The strip of paper a row was read from (its game and cells, a little around them), as a PNG."""
    import cv2

    from kingsheet.scan.page import PX

    boxes = sheet.boxes.get(number)
    if boxes is None or sheet.pages.get(boxes.page) is None:
        return None
    page = sheet.pages[boxes.page]
    every = [boxes.game, *boxes.cells]
    x0, y0 = min(b[0] for b in every) - 2, min(b[1] for b in every) - 2
    x1, y1 = max(b[2] for b in every) + 2, max(b[3] for b in every) + 2
    h, w = page.shape[:2]
    strip = page[max(0, round(y0 * PX)):min(h, round(y1 * PX)), max(0, round(x0 * PX)):min(w, round(x1 * PX))]
    if strip.size == 0:
        return None
    scale = min(1.0, 720 / strip.shape[1])
    if scale < 1:
        strip = cv2.resize(strip, (round(strip.shape[1] * scale), round(strip.shape[0] * scale)),
                           interpolation=cv2.INTER_AREA)
    ok, png = cv2.imencode(".png", strip)
    return png.tobytes() if ok else None


def confirm(sheet: SheetRead, ask: Callable[[str], str], say: Callable[[str], Any], names: Sequence[str] = (),
            bids: dict[int, Bid] | None = None) -> dict[int, Confirmed]:
    """At a terminal: each row to confirm, with its readings numbered; Enter keeps the first, a
    number picks another, a row typed in full replaces them (checked by the rules; on an ordered
    blank it may start with the game), a lone "-" leaves the row marked in the file."""

    rules = sheet.rules
    out: dict[int, Confirmed] = {}
    # the rows read poorly first; then those read well but in doubt with their sheet, said once
    doubted = [r for r in sheet.rows if not r.choice.sure and r.choice.doubted in (READS_BADLY, TOTALS_DISAGREE)]
    unsure = [r for r in sheet.rows if not r.choice.sure and r not in doubted]
    for r in unsure + doubted:
        if doubted and r is doubted[0]:
            say(_("The rows below read well; they are asked about because {why}. Enter keeps each.").format(
                why=_sheet_doubt(r.choice.doubted)))
        options = [(o.game, o.cells) for o in r.choice.options[:4]]
        say(_("row {number}, {game}:").format(number=r.number, game=rules.games[r.game].heading()))
        for k, (game, cells) in enumerate(options, 1):
            say(f"  {k}) " + _shown(rules, game, cells, r.game))
        while True:
            answer = ask(_("Enter: the first; a number: another; or type the row; -: leave it marked: ")).strip()
            if answer == "-":
                break
            if not answer and options:
                out[r.number] = options[0]
                break
            if answer.isdigit() and 1 <= int(answer) <= len(options):
                out[r.number] = options[int(answer) - 1]
                break
            typed = typed_row(rules, r, answer)
            if isinstance(typed, str):
                say(f"✗ {typed}")
                continue
            out[r.number] = typed
            break
        given = out.get(r.number)
        if given and names and bids is not None and needs_bid(rules, given[0]) \
                and (bid := ask_bid(rules, r.number, given, names, ask, say)) is not None:
            bids[r.number] = bid
    return out


def summary(sheet: SheetRead, page: bool = False) -> list[str]:
    """The sheet as read, a line a row, with how sure each row is (first, where the blank was told
    by its printed lines, which blank it was taken for). ``page``: for the phone page, where the
    rules are not named with --rules but are the open game's."""
    lines = []
    if sheet.told:
        opts = ", ".join(f"{k}={v}" for k, v in sorted(sheet.rules.options.items()))
        rules = f"{sheet.rules.id} ({opts})" if opts else sheet.rules.id
        if page:
            lines.append(_("the QR code could not be read: by its printed lines the blank is {rules}; if it is "
                           "another, start a game with its rules and send the photo again").format(rules=rules))
        else:
            lines.append(_("the QR code could not be read: by its printed lines the blank is {rules}; if it is "
                           "another, name it with --rules").format(rules=rules))
    for k, path in sheet.left_out:
        lines.append("· " + _("{photo}: its QR code could not be read, and it is not needed: every page with rows "
                              "was read from the other photos").format(photo=_("photo {k}").format(k=k) if page else path))
    for r in sheet.rows:
        label = sheet.rules.games[r.game].label()
        cells = " ".join(f"{num(c):>4}" for c in r.cells)
        if r.choice.cells is None:
            mark = "✗ " + _("no reading the rules allow: check the photo")
        elif r.choice.sure and r.choice.corrected:
            mark = "✓ (" + _("a number crossed out: read as the one written again") + ")"
        elif r.choice.sure:
            mark = "✓"
        elif r.choice.doubted == NO_BID:
            mark = "? " + _("confirm, and add the declarer and the bid")
        elif r.choice.doubted == CROSSED:
            mark = "? " + _("confirm (a number in it was crossed out and written again)")
        elif r.choice.doubted == ACROSS:
            mark = "? " + _("confirm (a number in it is written across the line between two cells)")
        elif r.choice.doubted:
            mark = "? " + _("read well; confirm it too ({why})").format(why=_sheet_doubt(r.choice.doubted))
        else:
            mark = "? " + _("confirm ({why})").format(why=_why(sheet.rules, r))
        lines.append(f"{r.number:>3}  {label:<14} {cells}   {mark}")
    blank = len(sheet.rules.slots) if sheet.rules.order is not Order.TO_LIMIT else 0
    if sheet.rows and len(sheet.rows) < blank:  # never fewer rows than the blank holds without a word
        lines.append("· " + ngettext(
            "row {rows} of the blank is empty on the photo: the game stopped before it, or it could not be read; "
            "look at the paper", "rows {rows} of the blank are empty on the photo: the game stopped before them, or "
            "they could not be read; look at the paper", blank - len(sheet.rows)).format(
            rows=f"{len(sheet.rows) + 1}–{blank}" if blank - len(sheet.rows) > 1 else str(blank)))
    doubt = next((r.choice.doubted for r in sheet.rows if r.choice.doubted in (READS_BADLY, TOTALS_DISAGREE)), None)
    if doubt is not None:  # the doubt as what it is: which rows read poorly, and why the others are asked about
        poor = [str(r.number) for r in sheet.rows
                if not r.choice.sure and r.choice.doubted not in (READS_BADLY, TOTALS_DISAGREE, CROSSED, ACROSS)]
        again = (_("the others read well and are asked about too, as so many did not") if doubt == READS_BADLY
                 else _("the others read well and are asked about again, as the totals do not add up"))
        lines.append("✗ " + (ngettext("{n} row read poorly ({rows}); {again}", "{n} rows read poorly ({rows}); {again}",
                                      len(poor)).format(n=len(poor), rows=", ".join(poor), again=again) if poor else
                             _("every row read well, and each is asked about again, as the totals do not add up")))
    totals = sheet.totals
    if totals is not None and totals.written:
        if not totals.checked:
            lines.append("· " + _("the totals written on the sheet are not checked yet: some rows are missing or "
                                  "have no reading the rules allow"))
        elif not totals.agree and totals.suspects:
            lines.append("✗ " + ngettext(
                "the totals written on the sheet do not add up with the rows as read; row {rows} read otherwise "
                "would make them add up", "the totals written on the sheet do not add up with the rows as read; "
                "rows {rows}, each read otherwise, would make them add up", len(totals.suspects)).format(
                rows=", ".join(map(str, totals.suspects))))
        elif not totals.agree:
            lines.append("✗ " + _("the totals written on the sheet do not add up with the rows as read: check the rows "
                                  "and the totals"))
        elif totals.settled:
            lines.append(ngettext("✓ the totals written on the sheet settle row {rows}",
                                  "✓ the totals written on the sheet settle rows {rows}", len(totals.settled)).format(
                rows=", ".join(map(str, totals.settled))))
        else:
            lines.append("✓ " + _("the rows add up to the totals written on the sheet"))
        if totals.unread:  # they said nothing, as empty totals: how many were not checked
            lines.append("· " + ngettext("{n} total written on the sheet could not be read and was not checked; "
                                         "look at it on the paper", "{n} totals written on the sheet could not be "
                                         "read and were not checked; look at them on the paper",
                                         totals.unread).format(n=totals.unread))
        if totals.misread:  # off alone in their columns: the totals read (or added up) wrong, not a row
            which = "; ".join(_("{line}, column {column}").format(line=word_now(("minus", "plus", "total")[k]), column=j + 1)
                              for k, j in totals.misread)
            lines.append("· " + ngettext("{n} total written on the sheet ({which}) does not add up with the rows, and "
                                         "no row read otherwise would make it so: taken for misread and not checked; "
                                         "look at it on the paper", "{n} totals written on the sheet ({which}) do not "
                                         "add up with the rows, and no row read otherwise would make them so: taken "
                                         "for misread and not checked; look at them on the paper",
                                         len(totals.misread)).format(n=len(totals.misread), which=which))
    return lines


def recheck_totals(sheet: SheetRead, final: Sequence[tuple[str, tuple[int, ...]]], complete: bool) -> bool | None:
    """Whether the rows as the person left them (``final``: game and cells, each row) add up to the
    ИТОГО lines written on the sheet, where the reader's own rows did not, or the person changed
    them, or they could not be checked (a row had no reading the rules allow: checked once every row
    is given, ``complete``); None when there is nothing more to say."""
    totals = sheet.totals
    as_read = [(r.game, r.cells) for r in sheet.rows]
    if totals is None or not totals.written or (totals.checked and totals.agree and list(final) == as_read):
        return None
    if not totals.checked and not (complete and len(final) == len(sheet.rules.slots)):
        return None
    return totals.adds_up(sheet.rules, final)
