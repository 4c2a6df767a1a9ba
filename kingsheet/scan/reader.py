"""Photos of one filled blank → its rows, each the likeliest reading the rules accept, with how
sure it is. Nothing is guessed silently: an unsure row carries its alternatives, and a row no
reading of which is possible is kept as read and marked. On an ordered blank the game is read as
well, as the number the blank gives it, and chosen with the row's cells."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kingsheet.core.i18n import _
from kingsheet.core.rules import Order, Rules, RulesError
from kingsheet.files.templates import load_rules
from kingsheet.scan.choose import (
    ACROSS,
    CROSSED,
    Reading,
    RowChoice,
    TotalsCheck,
    ask_bids,
    ask_marked,
    assign_games,
    check_totals,
    choose_game_row,
    doubt_sheet,
    near_own_game,
    nearest_rows,
    row_accepted,
    settle_mends,
    signed,
    written_sign,
)
from kingsheet.scan.page import (
    LINED_UP,
    Astride,
    Code,
    CodeUnreadable,
    Crossing,
    Unreadable,
    across_lines,
    astride,
    cells_of,
    lines_in_place,
    photo_page,
    read_page_by_lines,
)

MAX_PHOTOS = 8  # pages of one blank (the longest, ordered-56, has 3)


@dataclass(frozen=True)
class RowRead:
    number: int
    first_game: str  # the game as first read (a fixed blank: printed)
    choice: RowChoice
    first: tuple[int, ...]  # the digit reader's own first reading, signed

    @property
    def cells(self) -> tuple[int, ...]:
        return self.choice.cells if self.choice.cells is not None else self.first

    @property
    def game(self) -> str:
        return self.choice.game or self.first_game


@dataclass(frozen=True)
class SheetRead:
    rules: Rules
    code: Code
    rows: tuple[RowRead, ...]
    totals: TotalsCheck | None = None  # what the ИТОГО lines written on the sheet said
    # the straightened pages and where each deal is on them: to show a person the paper of a row
    pages: Mapping[int, Any] = field(default_factory=dict, compare=False, repr=False)
    boxes: Mapping[int, Any] = field(default_factory=dict, compare=False, repr=False)
    told: bool = False  # no code read and no rules named: the blank told by its printed lines (tell_blank)
    # photos whose code could not be read, left out as every page with rows was read from the others: (k from 1, path)
    left_out: tuple[tuple[int, Path], ...] = ()


def read_sheet(photos: Sequence[Path], given: tuple[str, Mapping[str, str]] | None = None) -> SheetRead:
    """Every page of one blank (in any order), read and checked row by row. ``given``: the blank's
    rules and options as the person names them (``scan --rules``; on the phone, the open game's),
    for a photo whose QR code cannot be read: its page and way up are then told by its printed lines.
    A code that is read names the rules itself (whether they are the ones given is the caller's to say)."""
    from kingsheet.scan.page import forget_photos

    try:
        return _read_sheet(photos, given)
    finally:
        forget_photos()  # the last photo decoded, kept while its sheet was read


def _read_sheet(photos: Sequence[Path], given: tuple[str, Mapping[str, str]] | None) -> SheetRead:
    import cv2

    from kingsheet.render.layout import ordered_games
    from kingsheet.scan.digits import crossed_out, readings_of
    from kingsheet.scan.layout import blank_layout

    # OpenCV's threads on a photo's resizing, warping and blurring: 0.52 s of CPU a 13 MP photo in 0.40 s,
    # against 0.43 s in 0.43 s on one (this project's machine, two cores): a computer serving the table's
    # phones reads one photo after another, and the CPU is what it pays
    cv2.setNumThreads(1)
    if not photos:
        raise Unreadable(_("name the photos of the blank's pages"))
    if len(photos) > MAX_PHOTOS:
        raise Unreadable(_("{n} photos: one blank has at most {most} pages").format(n=len(photos), most=MAX_PHOTOS))
    # what each photo is, and its page straightened, before any cell is read
    def fits(code: Code, page: Any) -> bool:  # the page's printed lines where its layout has them
        try:
            layout = blank_layout(load_rules(code.rules, code.options), code.named, code.lang)
        except RulesError:
            return True  # refused below, with the reason
        return lines_in_place(page, _rows_on(layout.deals, code.page)) >= LINED_UP

    looked: list[tuple[Code | None, Any]] = []
    told = False
    lost: list[tuple[Path, CodeUnreadable]] = []  # photos whose code could not be read, no rules named
    for path in photos:
        try:
            looked.append(photo_page(path, fits, needed=given is None))
        except CodeUnreadable as exc:
            if given is not None:
                raise
            lost.append((path, exc))
            looked.append((None, None))  # its page told by its printed lines, below
    if lost and all(code is None for code, _page in looked):  # no page's code names the rules: told by the lines
        given = tell_blank(*lost[0])
        told = True
    # (else another page of the blank has its code read: it names the rules, and these pages are told by their lines)
    coded = [(path, code) for path, (code, _page) in zip(photos, looked) if code is not None]
    first = coded[0][1] if coded else None
    for path, code in coded[1:]:
        if first is not None and (code.rules, code.sheet) != (first.rules, first.sheet):
            raise Unreadable(_("{path}: a page of another blank ({rules}) than {first}").format(
                path=path, rules=code.rules, first=coded[0][0]))
    _one_photo_a_page([code.page for _path, code in coded])
    if first is not None:  # the codes name the rules
        rules_id, rule_options, where = first.rules, dict(first.options), coded[0][0]
    else:  # no code was read: the rules given (read_page refuses a codeless photo without them)
        assert given is not None
        rules_id, rule_options, where = given[0], dict(given[1]), photos[0]
    try:
        rules = load_rules(rules_id, rule_options)
    except RulesError as exc:
        raise Unreadable(_("{path}: the sheet's QR code names rules that cannot be used: {why}").format(
            path=where, why=exc) if first is not None else str(exc)) from None
    if first is not None and rules.players != first.players:
        raise Unreadable(_("{where}: the sheet's QR code is not one kingsheet prints").format(where=photos[0]))
    if rules.order is Order.TO_LIMIT:
        _readable_to_limit(rules)
    fixed = not rules.ordered  # the blank, not the hand, says each row's game
    games = ordered_games(rules)
    # the blank's layouts the photos may be of: the one their codes name, else each the blank is printed in
    looks = [(first.named, first.lang)] if first is not None else [(False, "ru"), (True, "ru"), (False, "en"), (True, "en")]
    for path, code in coded:
        if code.page > blank_layout(rules, code.named, code.lang).pages:
            raise Unreadable(_("{where}: the sheet's QR code is not one kingsheet prints").format(where=path))
    for _code, page in looked:  # every code checked: now what else is wrong with a photo
        if isinstance(page, Unreadable):
            raise page
    pages: list[tuple[Path, Code, Any]] = []
    left_out: list[tuple[int, Path]] = []
    # the pages that hold rows or ИТОГО lines: when the codes read give them all, a photo whose code is lost is
    # of a page the reader has nothing to read on (ordered-56's page of the games' grid) or a copy, and is left out
    coded_pages, needed = {code.page for _path, code in coded}, set()
    if first is not None:
        printed = blank_layout(rules, first.named, first.lang)
        needed = {b.page for b in printed.deals.values()} | {b.page for b in printed.totals}
    for k, (path, (seen, page)) in enumerate(zip(photos, looked), 1):
        if seen is not None:
            pages.append((path, seen, page))
            continue
        if first is not None and needed <= coded_pages:
            left_out.append((k, path))
            continue
        candidates = [((named, lang, k), _rows_on(blank_layout(rules, named, lang).deals, k))
                      for named, lang in looks for k in range(1, blank_layout(rules, named, lang).pages + 1)]
        (named, lang, number), page = read_page_by_lines(path, rules.players, [c for c in candidates if c[1]])
        looks = [(named, lang)]  # every page of one blank is printed alike
        pages.append((path, Code(rules.id, dict(rule_options), rules.players, named, lang, "", number), page))
    code_of = pages[0][1]
    _one_photo_a_page([code.page for _path, code, _page in pages])  # the pages told by their lines too
    layout, total_boxes, _pages = blank_layout(rules, code_of.named, code_of.lang)
    for path, code, page in pages:  # a page straightened askew is refused, never read into the wrong cells
        if lines_in_place(page, _rows_on(layout, code.page)) < LINED_UP:
            raise Unreadable(_("{where}: the blank's printed lines are not where they should be (a corner mark "
                               "half out of the picture, or the page not flat); photograph the whole page again, "
                               "all four corner marks in the frame").format(where=path))
    players = tuple(f"P{i}" for i in range(1, rules.players + 1))
    by_page = {code.page: page for _path, code, page in pages}
    on_photos = [(number, boxes) for number, boxes in sorted(layout.items()) if boxes.page in by_page]
    cut = [cells_of(by_page[boxes.page], [boxes.game, *boxes.cells]) for _number, boxes in on_photos]
    game_cells = [] if fixed else readings_of([c[0] for c in cut], narrow=True)
    n = rules.players
    struck = [crossed_out(cell) for c in cut for cell in c[1:]]  # found once: read without them, and marked
    player_cells = readings_of([cell for c in cut for cell in c[1:]], struck=struck)
    # rows the paper itself marks as to check: a number crossed out and written again, or across a line
    across = {number: (by_page[boxes.page], boxes.cells, through) for number, boxes in on_photos
              if (through := across_lines(by_page[boxes.page], boxes.cells))}
    crossed = {number: (cut[k][1:], struck[k * n:(k + 1) * n]) for k, (number, _boxes) in enumerate(on_photos)
               if any(mask is not None for mask in struck[k * n:(k + 1) * n])}
    # each line a number runs across, its cells cut again with the strokes through it given wholly to
    # one of them (page.astride), then to the other: read once, for the choice and for the asking
    sides = {(number, at.line): cells for number, (page, boxes, through) in across.items() for at in through
             if (cells := astride(page, boxes, at)) is not None}
    side_reads = readings_of([image for cells in sides.values() for image in cells[:4]])
    astrides: dict[int, dict[int, tuple[Astride, list[list[Reading]]]]] = {}
    for k, ((number, line), cells) in enumerate(sides.items()):
        astrides.setdefault(number, {})[line] = cells, side_reads[4 * k:4 * k + 4]
    read: dict[int, tuple[list[Reading], list[list[Reading]]]] = {
        number: ([] if fixed else game_cells[k], player_cells[k * n:(k + 1) * n])
        for k, (number, _boxes) in enumerate(on_photos)}

    def empty(cands: list[list[Reading]]) -> bool:
        return all(len(c) == 1 and c[0].value is None for c in cands)

    written = [n for n, (game, cells) in read.items() if not empty([game, *cells] if game else cells)]
    choices: dict[int, RowChoice] = {}
    firsts: dict[int, tuple[str, tuple[int, ...]]] = {}
    asked: dict[int, tuple[list[Reading], list[str], list[list[Reading]]]] = {}
    for number in sorted(n for n in read if written and n <= max(written)):  # the game stops at its last row
        game_cell, cands = read[number]
        options = [_printed_game(rules, number)] if fixed else games
        both_signs = bool(fixed and written_sign(rules, options[0]) is None and rules.games[options[0]].card_values)

        def signs(cell: list[Reading], both_signs: bool = both_signs) -> list[Reading]:
            # omnibus: a cell may be plus or minus (the ten of diamonds +10), and the reader reads no sign: each
            # reading is tried both ways, minus first (the likelier), and the rules choose; a row both ways allow
            # is left to confirm (6 % of omnibus deals, the two readings equally likely)
            return [*(Reading(-r.value, r.score) for r in cell if r.value), *cell] if both_signs else cell

        cands = [signs(c) for c in cands]
        variants = [{line - 1: signs(left), line: signs(right)}
                    for line, (_cells, (given_l, taken_r, taken_l, given_r)) in astrides.get(number, {}).items()
                    for left, right in ((given_l, taken_r), (taken_l, given_r))]
        choices[number] = choose_game_row(rules, game_cell, options, cands, players, number=number, variants=variants)
        asked[number] = game_cell, options, cands
        gid = options[0] if fixed else _first_game(game_cell, games)
        firsts[number] = gid, tuple(signed(rules, gid, max(c, key=lambda r: r.score).value) or 0 for c in cands)
    if not fixed:
        choices = assign_games(rules, {n: near_own_game(rules, c, asked[n][2], players, n) for n, c in choices.items()})
    # after the count (which did not weigh them), before the totals (which do: a row read only so is one of theirs)
    choices = {n: nearest_rows(rules, c, *asked[n], players, n) for n, c in choices.items()}
    totals = None
    if total_boxes and total_boxes[0].page in by_page:
        lines = [cells_of(by_page[b.page], b.cells) for b in total_boxes]
        sums = readings_of([c for line in lines for c in line], top=30)
        written_totals = [sums[k * n:(k + 1) * n] for k in range(len(lines))]
        totals = check_totals(rules, choices, written_totals, players)
        choices = totals.choices
    if totals is None or totals.agree:  # totals that do not add up: another sign of a photo read badly
        choices = settle_mends(choices)
    choices = ask_bids(rules, doubt_sheet(choices, totals is None or totals.agree))
    # a number across a line outranks one crossed out: a correction read surely passes, a number that
    # may be either cell's never does (a −12 astride a line in a row with a correction passed, wrong)
    marked = {**{number: CROSSED for number, (cells, masks) in crossed.items()
                 if not _read_through(choices[number], cells, masks)},
              **{number: ACROSS for number, (_page, _boxes, through) in across.items()
                 if not _read_astride(choices[number], through, astrides.get(number, {}),
                                      _rows_allowed(rules, choices[number], players, number))}}
    choices = ask_marked(choices, marked)
    rows = tuple(RowRead(n, firsts[n][0], choices[n], firsts[n][1]) for n in sorted(choices))
    return SheetRead(rules, first or code_of, rows, totals, by_page, layout, told=told and first is None,
                     left_out=tuple(left_out))


def _read_through(choice: RowChoice, cells: Sequence[Any], masks: Sequence[Any]) -> bool:
    """Whether a row where crossed_out found a number struck through was read, surely, as if nothing
    were: each such cell as its ink may read whole, a number that taking the struck one away does not
    give (digits.read_whole). Then the "rule through it" was a digit's own stroke (a 4's bar, a 6's
    belly), and the row needs no asking; a correction read as one is asked about."""
    from kingsheet.scan.digits import read_whole

    if not choice.sure or choice.cells is None:
        return False
    for cell, mask, value in zip(cells, masks, choice.cells, strict=True):
        if mask is not None:
            whole, without = read_whole(cell, mask)
            if abs(value) not in whole or abs(value) in without:
                return False
    return True


def _read_astride(choice: RowChoice, lines: Sequence[Crossing], cut: Mapping[int, tuple[Astride, list[list[Reading]]]],
                  accepted: Callable[[tuple[int, ...]], bool] | None = None) -> bool:
    """Whether a row where handwriting runs through a line between two cells (across_lines) was read,
    surely, as a digit of one cell that only touches or pokes past its line (a 2's foot, a 0 written
    wide): the strokes through the line given wholly to that cell (page.astride), both cells read as
    the row was chosen, each as its likeliest reading; the number that cell then holds (its own ink
    and the strokes) lying mostly on its side of the line (ASTRIDE_MOSTLY: a digit pressed onto its
    line, a 2's foot past it; not a 10 written astride the line, its 1 beside it and its 0 through
    it, which may be either cell's); and the other cell's own ink standing apart from the line. Or the row
    reads the same whichever cell they are given to. Or, chosen at ASTRIDE_SURE, one way reads as
    chosen and the rules (``accepted``: whether they allow a row) allow no other row with the two
    cells' digits, in their order, parted anywhere else by the line (a 16 astride the line beside
    the next cell's 4: neither 1 | 64, 164 | 0 nor 0 | 164 is a row). Never when the two cells'
    digits all in one cell, the other empty, make a row the rules allow (a −12 astride the line
    beside an empty cell may be either cell's: on the held-out bench one was given whole to the
    empty cell, unasked and wrong, on 2026-12-07). A number written astride the
    line, or alone over it, is asked about otherwise; so is a line at the row's end. ``cut``: each
    line's astride, with the readings of its four cells, by the line."""
    if not choice.sure or choice.cells is None:
        return False
    for at in lines:
        if at.line not in cut:
            return False
        cells, (given_l, taken_r, taken_l, given_r) = cut[at.line]
        want_l, want_r = abs(choice.cells[at.line - 1]), abs(choice.cells[at.line])
        to_left = _reads_as(given_l, want_l) and _reads_as(taken_r, want_r)
        to_right = _reads_as(given_r, want_r) and _reads_as(taken_l, want_l)
        if to_left and to_right:
            continue  # the same row whichever cell they are given to (a 0 astride two cells of 0)
        if accepted is None or any(accepted(other) for other in _parted_otherwise(choice.cells, at.line, whole=True)):
            return False  # the two cells' digits all in one of them, or all in the other, is a row too
        if not (to_left and cells.own_side[0] >= ASTRIDE_MOSTLY and cells.clear[1]
                or to_right and cells.own_side[1] >= ASTRIDE_MOSTLY and cells.clear[0]
                or (to_left or to_right) and accepted is not None and choice.confidence >= ASTRIDE_SURE
                and not any(accepted(other) for other in _parted_otherwise(choice.cells, at.line))):
            return False
    return True


#: A row with a number astride a line is read without asking, the rules allowing no other parting of
#: its digits by the line, only when chosen at least this surely (as a correction, CORRECTED_SURE).
ASTRIDE_SURE = 0.99


def _parted_otherwise(cells: tuple[int, ...], line: int, whole: bool = False) -> list[tuple[int, ...]]:
    """The rows ``cells`` would be were the digits of the two cells beside ``line`` (left to right, as
    written) parted anywhere else by it: each cell a number (a leading 0 only as 0 itself) or empty
    (0), of either sign. ``whole``: only those with every digit in one cell, the other empty."""
    left, right = abs(cells[line - 1]), abs(cells[line])
    digits = (str(left) if left else "") + (str(right) if right else "")
    out = []
    for at in range(len(digits) + 1):
        if whole and 0 < at < len(digits):
            continue
        parts = digits[:at], digits[at:]
        if any(len(part) > 1 and part[0] == "0" for part in parts):
            continue
        a, b = (int(part) if part else 0 for part in parts)
        if (a, b) == (left, right):
            continue
        for sa in {a, -a}:
            for sb in {b, -b}:
                out.append((*cells[:line - 1], sa, sb, *cells[line + 1:]))
    return out


#: A number through a line between two cells with at least this share of its ink on one side is that
#: cell's, pressed onto its line (a table's digit touching its line, 5 % of numbers on the bench), when
#: the row reads so and the other cell's own ink stands apart: a number astride the line, about half
#: on each side, may be either cell's and is asked about. Chosen on validation sheets (2026-12-07,
#: docs/scan-figures.md) for the strokes through the line alone; later that day (twenty-third session) of the whole number
#: the cell would hold (page.Astride.own_side): a 10 centred on the line between an empty cell and the
#: next, its 1 left of the line and its 0 through it, was given whole to the left cell as "continuing
#: its 1" and passed unasked, wrong (a validation sheet of Google fonts, 61020).
ASTRIDE_MOSTLY = 0.75


def _rows_allowed(rules: Rules, choice: RowChoice, players: tuple[str, ...], number: int
                  ) -> Callable[[tuple[int, ...]], bool] | None:
    """Whether the rules allow a row of the chosen row's game (None: no row chosen)."""
    game = choice.game
    if game is None:
        return None
    return lambda cells: row_accepted(rules, game, cells, players, number)


def _reads_as(readings: Sequence[Any], value: int) -> bool:
    """Whether a cell's likeliest reading is this number (0: also an empty cell)."""
    return readings[0].value == value or (value == 0 and readings[0].value is None)


#: The layouts a blank may be printed in: without names or with a row for them, in each language.
LOOKS = ((False, "ru"), (True, "ru"), (False, "en"), (True, "en"))


def tell_blank(path: Path, unread: CodeUnreadable) -> tuple[str, dict[str, str]]:
    """The rules of a photo whose QR code cannot be read, named by nobody: told by its printed
    lines among every bundled rule system's blank (each with its default options and with each
    other choice of one option, in every layout and page); ``unread`` again when none fits, and
    a sentence asking for ``--rules`` when two blanks of different rules fit alike (their lines
    are the same, their scoring need not be)."""
    from kingsheet.files.templates import load_template, template_ids
    from kingsheet.scan.layout import blank_layout
    from kingsheet.scan.page import CLEARLY, fits_by_lines

    layouts: dict[int, list[tuple[tuple[str, tuple[tuple[str, str], ...]], list[list[tuple[float, ...]]]]]] = {}
    for tid in template_ids():
        template = load_template(tid)
        tries = [{}, *({k: c} for k, (choices, default) in template.options.items() for c in choices if c != default)]
        for options in tries:
            try:
                rules = load_rules(tid, options)
            except RulesError:
                continue
            for named, lang in LOOKS:
                layout = blank_layout(rules, named, lang)
                for k in range(1, layout.pages + 1):
                    rows = _rows_on(layout.deals, k)
                    if rows:
                        layouts.setdefault(rules.players, []).append(((tid, tuple(sorted(options.items()))), rows))
    try:
        fits = fits_by_lines(path, layouts)
    except Unreadable:  # no marks either: the code is the first thing wrong with the photo
        raise unread from None
    if not fits or fits[0][0] < LINED_UP:
        raise unread
    best = fits[0]
    alike = sorted({key[0] for score, key in fits if score > best[0] - CLEARLY and key != best[1]} - {best[1][0]})
    if alike:
        raise Unreadable(_("{where}: the sheet's QR code cannot be read, and its printed lines fit the blanks of "
                           "{blanks} alike: name its rules (scan --rules ID)").format(
            where=path, blanks=", ".join([best[1][0], *alike])))
    return best[1][0], dict(best[1][1])


def _one_photo_a_page(pages: Sequence[int]) -> None:
    twice = next((p for p in pages if pages.count(p) > 1), None)
    if twice is not None:
        raise Unreadable(_("two photos show the same page {page}").format(page=twice))


def _rows_on(layout: Mapping[int, Any], page: int) -> list[list[tuple[float, ...]]]:
    """The boxes of each deal's row on one page of the blank: its game cell and its players' cells."""
    return [[b.game, *b.cells] for b in layout.values() if b.page == page]




def _printed_game(rules: Rules, number: int) -> str:
    """The game a fixed blank prints on row ``number``; a game played to a limit has one game."""
    return rules.slots[number - 1] if rules.order is Order.FIXED else next(iter(rules.games))


def _readable_to_limit(rules: Rules) -> None:
    """A blank of a game played to a limit is read when its rows hold only the players' points
    (domino; omnibus, whose cells' signs the rules choose); not where a row needs a bid and a suit
    (bidding-77)."""
    game = next(iter(rules.games.values()))
    if len(rules.games) != 1 or game.bid or game.choose_suit:
        raise Unreadable(_("{rules}: its rows hold a bid and a suit, which cannot be read from a photo yet").format(
            rules=rules.id))


def _first_game(game_cell: list[Reading], games: list[str]) -> str:
    """The game as the digit reader alone reads its number (else the first game)."""
    for r in sorted(game_cell, key=lambda r: -r.score):
        if r.value is not None and 1 <= r.value <= len(games):
            return games[r.value - 1]
    return games[0]
