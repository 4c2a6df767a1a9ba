"""Every flow a screen at the table starts, once: the sheet's state, the money, the rule systems,
a deal, a correction, undo, a new game, the sheet as a file, a sheet brought in. The phone page of
`kingsheet serve` calls these over HTTP; the phone app of `kingsheet site` calls the same ones in
its worker, on a game file in the browser's own file system. They read and write through the same
checked, locked, atomic saves as the commands (kingsheet.files.changes).

A request is a dict as the page sent it (JSON); an answer is a dict for the page, or ``Answer``
raised with the status a web server would give and one sentence in the current language.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import re
from collections.abc import Callable, Collection, Mapping
from pathlib import Path
from typing import Any

from kingsheet.club.config import CLUB_FILE as CLUB_FILE  # the phone app's bridge names the club file by it
from kingsheet.core.game import DEAL_EXTRAS, NAME_LIMIT
from kingsheet.core.i18n import LANGUAGES, _, ngettext
from kingsheet.core.problems import InputError, Unusable, num

MAX_RULES_REF = 120  # a bundled id or a template file's name
MAX_TEMPLATE_BYTES = 64 * 1024  # a house template is a page of TOML


class Answer(Exception):
    """A request that cannot be done, with the HTTP status that says why, and one sentence."""

    def __init__(self, status: int, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status, self.message, self.extra = status, message, extra

    def as_json(self) -> dict[str, Any]:
        return {"ok": False, "error": self.message, **self.extra}


def answer_of(exc: BaseException, folder: Path | None = None) -> tuple[int, dict[str, Any]]:
    """What a request that ended in ``exc`` answers, for `serve` and the phone app alike: one
    status and one sentence per kind of error (a refusal of the application layer its own; storage
    that failed 503; input that cannot be used 400; a bug of ours 500 and «nothing was changed»),
    with the games' folder taken out of the sentence (a phone is never shown a computer's paths)."""
    from kingsheet.core.problems import StorageError

    if isinstance(exc, Answer):
        status, data = exc.status, exc.as_json()
    elif isinstance(exc, StorageError):
        status, data = 503, {"ok": False, "error": str(exc)}
    elif isinstance(exc, Unusable):
        status, data = 400, {"ok": False, "error": str(exc)}
    else:
        status, data = 500, {"ok": False, "error": _("kingsheet: unexpected error ({name}: {exc}); nothing was changed").format(
            name=type(exc).__name__, exc=str(exc)[:200])}
    if folder is not None and isinstance(data.get("error"), str):
        data["error"] = data["error"].replace(f"{folder}/", "").replace(str(folder), ".")
    return status, data


# ---- reading ----------------------------------------------------------------------------------

def state(path: Path, lang: str) -> dict[str, Any]:
    """Everything the page shows: the rows as on the paper blank, ИТОГО, the problems, and what the
    next deal needs. Names and notes are plain strings; the page writes them as text."""
    from kingsheet.core.entry import next_game
    from kingsheet.core.verify import verify
    from kingsheet.files.gamefile import load_game
    from kingsheet.render.labels import word
    from kingsheet.render.sheet import rows_for
    from kingsheet.render.text import status_line

    try:
        game = load_game(path)
    except Unusable as exc:
        return {"ok": False, "error": str(exc), "words": words(lang), "lang": lang}
    report = verify(game)
    rules = game.rules
    rows = []
    for r in rows_for(rules, report, None, lang):
        rows.append({"number": r.number, "game": r.game, "game_id": r.game_id,
                     "points": None if r.points is None else num(r.points), "cells": list(r.cells),
                     "values": list(r.values) if r.values is not None else None, "dealer": r.dealer, "who": r.who,
                     "played": r.number <= len(game.deals), "ok": r.ok, "mark": r.mark, "stage": r.stage,
                     "stage_start": r.stage_start})
    totals = [[word("minus", lang), *[num(report.totals[p].minus) for p in game.players]],
              [word("plus", lang), *[num(report.totals[p].plus) for p in game.players]],
              [word("total", lang), *[num(report.totals[p].total) for p in game.players]]]
    if rules.limit is not None:
        totals = totals[2:]
    k = len(game.deals) + 1
    nxt = None if report.complete else next_game(game, report)
    return {
        "_template": str(rules.template.path) if rules.template.path else None,
        "ok": True, "lang": lang, "file": path.name, "rules": rules.id,
        "title": game.title or rules.template.name.get(lang, rules.id),
        "players": list(game.players), "date": game.date, "rows": rows, "totals": totals, "deals": len(game.deals),
        "complete": report.complete, "sheet_ok": report.ok, "status": status_line(report),
        "problems": [p.message for p in report.problems],
        "games": [_game_info(rules, g, lang) for g in rules.games.values()],
        "ordered": rules.ordered,
        "next": None if report.complete else {
            "number": k, "game": nxt, "dealer": game.dealer_of(k), "on_turn": game.on_turn(k),
        },
        "words": words(lang),
        # a deal's fields besides its cells, as the game file takes them (core.game.DEAL_EXTRAS):
        # the form's inputs and their limits are these, not the page's own
        "fields": [{"name": f.name, "kind": f.kind, "limit": f.limit} for f in DEAL_EXTRAS],
        "name_limit": NAME_LIMIT,
    }


def _game_info(rules: Any, g: Any, lang: str) -> dict[str, Any]:
    from kingsheet.core.entry import asked_fields
    from kingsheet.core.scoring import cell_sign

    counts = list(g.categories) if g.counted and g.categories else []
    return {"id": g.id, "label": g.label(lang), "total": num(g.total), "sign": cell_sign(rules, g),
            "extras": list(asked_fields(rules, g.id)), "counts": counts if len(counts) > 1 else []}


def words(lang: str) -> dict[str, str]:
    """The page's own words, from the catalog."""
    from kingsheet.core.i18n import in_language
    from kingsheet.core.vocabulary import COUNT_WORDS
    from kingsheet.render.labels import word
    from kingsheet.table.formats import IMPORTS

    out = {
        "sheet": _("Sheet"), "money": _("Money"), "new": _("New game"), "deal": word("deal", lang),
        "game": word("game", lang), "points": word("points", lang),
        "save": _("Save the deal"), "save_edit": _("Save the correction"), "cancel": _("Cancel"),
        "undo": _("Undo the last deal"), "undo_confirm": _("Remove the last deal?"),
        "next": _("Deal {number}: {game}, {dealer} deals"), "next_free": _("Deal {number}, {dealer} deals"),
        "edit": _("Correct deal {number}: {game}"), "taken": _("What each took"), "by_points": _("Points"),
        "declarer": word("declarer", lang), "orderer": word("orderer", lang), "bid": _("Bid"),
        "buyer": _("Bought by"), "nobody": _("nobody"), "price": _("Price (tricks)"),
        "contract": _("Contract"), "note": _("Note"), "complete": _("The sheet is complete."),
        "changed_elsewhere": _("Another tab of this app saved a change to this game first; the sheet shows it now, "
                               "and the numbers typed here are kept: check them and save again."),
        "complete_problems": _("The sheet is complete, but it has problems (listed below): correct them before "
                               "the money is settled."), "offline": _("No connection; trying again…"),
        "elsewhere": _("Deal {number} was entered on another phone or terminal."),
        "elsewhere_kept": _("Deal {number} was entered on another phone or terminal; what you typed is kept "
                            "in the form for the next deal: compare it with that row, then correct or clear it."),
        "pairwise": _("Pair by pair"), "pot": _("Through the pot"),
        "player": word("player", lang), "total_word": word("total", lang), "balance": _("Wins (+) or pays (−)"),
        "pairs": _("What each pair settles"),
        "stake": word("stake", lang), "transfers": word("transfers", lang),
        "nobody_owes": _("nobody owes anything"), "not_final": _("Not final: the sheet is unfinished or has problems."),
        "rules": _("Rules"), "players_in_order": _("Players, clockwise from the first dealer"),
        "start": _("Start the game"),
        "tap_to_edit": _("Tap a played row to correct it."), "language": _("Русский / English"),
        "club": _("Club"), "standings": _("standings"), "who_owes": _("who owes whom"),
        "evenings": _("evenings"), "won": _("won"), "money_word": _("money"), "rating": _("rating"),
        "to_settle": _("to settle everything:"),
        "club_player_hint": _("Tap a player's name for their figures."),
        "money_over_time": _("Money over the evenings"), "record_payment": _("Record a payment"),
        "paid_from": _("Who paid"), "paid_to": _("To whom"), "amount": _("Amount"), "currency": _("Currency"),
        "paid_on": _("Date"), "paid_this": _("Paid"), "payments_recorded": _("payments recorded:"),
        "club_file": _("Club file (club.toml)"),
        "photo_head": _("From a photo of the filled blank"), "photo_take": _("Photograph the blank"),
        "photo_hint": _("Each page of the filled blank, flat and whole, in good light. The photos are read "
                        "on the computer running kingsheet and are not kept."),
        "photo_reading": _("Reading the photo…"), "photo_keep": _("Save as a new game"),
        "photo_fill": _("Fill in rows {first}–{last} of this game"),
        "photo_leave": _("leave it marked, to check later"), "photo_typed": _("or type the row as written"),
        "photo_paper": _("the row on the paper"), "photo_read_well": _("read well; check it too"),
        "photo_corrected": _("a number crossed out: read as the one written again"),
        "photo_to_app": _("Back to the phone app ({host})"),
        "photo_for_app": _("For the phone app at {host}: the photo is read here, and the checked sheet goes "
                           "back to the app; nothing is kept on this computer."),
        "photo_app_hint": _("A computer on the same Wi-Fi reads the photo: run kingsheet serve --lan there "
                            "(with kingsheet[scan]) and type here the address it printed. The sheet comes back "
                            "to this app to be checked and kept."),
        "computer": _("Computer's address"),
        "computer_bad": _("This is not an address kingsheet serve printed: it starts with http:// and ends "
                          "with ?t= and the token."),
        "photo_back": _("A sheet read from a photo"), "photo_drop": _("Discard"),
        "photo_rows": _("rows on the sheet: {rows}"),
        "photo_from": _("Read on the computer at {host}."),
        "photo_foreign": _("A sheet came in a link from a page this app did not open; it was not taken."),
        # the phone app's own (kingsheet site)
        "games": _("Games"), "open": _("Open"), "delete": _("Delete"),
        "delete_confirm": _("Delete the game «{title}» from this phone? It cannot be brought back."),
        "new_confirm": _("Start a new game? «{title}» is not finished ({deals} deals played); it stays saved."),
        "loading": _("Getting ready… a deal typed now is checked as soon as kingsheet has started."),
        "ready_failed": _("kingsheet could not start on this phone: {error}"),
        "storage_full": _("The phone's storage for this app is full: nothing was saved. Delete old games, "
                          "or free space on the phone."),
        "file_out": _("Game file (.toml)"), "share": _("Share"), "print": _("Print"),
        "file_in": _("Open a game file or sheet (.toml, .xlsx, .csv)"),
        "file_types": ",".join((".toml", *IMPORTS)), "languages": ",".join(LANGUAGES),  # what the file picker offers: formats.IMPORTS
        "template_in": _("or a house template (.toml)"), "no_games": _("No games on this phone yet."),
        "deals_of": _("{deals} of {total} deals"),
        "problems_n": _("problems: {n}"), "row_ok": _("the row adds up"), "row_bad": _("the row has a mistake"), "reading_file": _("Reading {file}…"),
        # the phones together (table.js): codes from phone to phone, and a live table over WebRTC
        "table": _("Table"), "table_share": _("Hand the game over"), "table_join": _("Read a code"),
        "table_live": _("Invite a phone to the table"), "table_leave": _("Leave the table"),
        "table_stop": _("Stop the camera"), "table_picture": _("From a picture"),
        "code_of": _("code {n} of {of}"),
        "share_hint": _("On the other phone: Table → Read a code, and point its camera here. The codes "
                        "take turns; they carry the whole game."),
        "read_hint": _("Point the camera at the other phone's code."),
        "camera_off": _("The camera cannot be used here ({why}): read the code from a picture instead."),
        "no_reader": _("This browser cannot read codes: read the game as a file instead (Games)."),
        "no_code_seen": _("No code was found in this picture."),
        "table_alone": _("This phone keeps its games alone. To play one game on several phones, invite them "
                         "to the table; to give a game to another phone, hand it over."),
        "table_keeper": _("Phones at the table: {n}. This phone keeps the game."),
        "table_member": _("Phones at the table: {n}. The game is kept by {keeper}."),
        "this_phone": _("this phone"), "phone_named": _("phone {id}"), "keeps": _("keeps the game"),
        "invite_hint": _("On the other phone: Table → Read a code, pointed here. Then its answer code is "
                         "read here: the camera opens by itself."),
        "answer_hint": _("Show this code to the phone that invited this one: once it reads it, this phone "
                         "is at the table."),
        "joined": _("This phone is at the table: the sheet is the keeper's, and a deal entered here is "
                    "checked here and kept there."),
        "table_lost": _("This phone has lost the table: nothing was sent. Join again (a phone at the table "
                        "invites this one), or leave the table to go on here alone."),
        "no_rtc": _("Phones cannot connect directly in this browser: hand the game over by codes instead."),
        "rtc_failed": _("The phones could not connect (the Wi-Fi may keep phones apart): hand the game over "
                        "by codes instead."),
        "keeper_gone": _("The phone that kept the game left; {keeper} keeps it now, as it was."),
        "no_answer": _("The phone that keeps the game did not answer: the deal was not saved. Try again."),
        "code_used": _("This code to join was used already or is for another invitation: ask for a new one."),
        "no_game_to_share": _("No game is open on this phone: open or start one first."),
        "at_a_table": _("This phone is at a table already: this code invites it to another. Leave the "
                        "table first to join that one."),
    }
    for cat, pair in COUNT_WORDS.items():
        out[f"count_{cat}"] = in_language(lang, pair)
    return out


def money(path: Path, lang: str) -> dict[str, Any]:
    """Both settlements with the game's stake: pair by pair and through the pot (against the mean
    where the totals do not sum to zero), marked not final on an unfinished sheet or one with problems."""
    from kingsheet.core.money import fmt_money, game_money, local_decimal, settle
    from kingsheet.core.verify import verify
    from kingsheet.files.gamefile import load_game
    from kingsheet.render.money import signed_money

    report = verify(load_game(path))
    base, why = game_money(report)
    if base is None:  # the game's own money only: never a stake it does not have
        return {"ok": False, "error": why, "final": False}
    stake, currency = base.stake, base.currency
    totals = {p: t.total for p, t in report.totals.items()}
    template = report.game.rules.template.path
    out: dict[str, Any] = {"final": report.complete and report.ok, "ok": True,
                           "_template": str(template) if template else None}
    for method in ("pairwise", "pot"):
        s = settle(totals, stake, currency, method, pot_mean=True)
        out[method] = {
            "stake": f"{local_decimal(s.stake)} {s.symbol}",
            "rows": [[p, num(int(s.totals[p])) if s.totals[p] == int(s.totals[p]) else local_decimal(s.totals[p]),
                      signed_money(s.settled[p], s)] for p in s.totals],
            "transfers": [[t.payer, t.payee, fmt_money(t.amount, s)] for t in s.transfers],
            "pairs": [[t.payer, t.payee, fmt_money(t.amount, s)] for t in s.pairs],
            "notes": list(s.notes),
        }
    return out


def rule_systems(lang: str) -> list[dict[str, Any]]:
    """The bundled rule systems a new game may follow: id, name and players."""
    from kingsheet.files.templates import load_template, template_ids

    out = []
    for tid in template_ids():
        tpl = load_template(tid)
        out.append({"id": tid, "name": tpl.name.get(lang, tid), "players": tpl.players})
    return out


def export(path: Path, suffix: str, lang: str) -> tuple[bytes, str, str]:
    """The sheet as a file: its bytes, media type and name (the game file's, with the suffix)."""
    from kingsheet.core.verify import verify
    from kingsheet.files.gamefile import load_game, read_text
    from kingsheet.table.formats import EXPORTS, exported

    name = path.with_suffix(suffix).name
    if suffix == ".toml":
        try:
            return read_text(path).encode("utf-8"), "application/toml", name
        except Unusable as exc:
            raise Answer(400, str(exc)) from None
    if suffix not in EXPORTS:
        raise Answer(404, _("no such page"))
    try:
        return exported(verify(load_game(path)), suffix, lang), EXPORTS[suffix].media, name
    except Unusable as exc:
        raise Answer(400, str(exc)) from None


def club(folder: Path, lang: str) -> dict[str, Any]:
    """The club of the game's folder for the page: the standings and the ledger over every evening
    in it (the payments of club.toml taken off), the payments recorded, each player's money over
    the evenings for the chart, amounts written as the players read them, and the files that do
    not count. The same queries as `kingsheet club standings`, `ledger` and `report`."""
    from decimal import Decimal

    from kingsheet.club.queries import Period, files, history, ledger, standings
    from kingsheet.core.money import fmt_amount
    from kingsheet.render.club import files_text, provisional_note, rating_cell
    from kingsheet.render.money import signed_amount as signed

    c, conn, notices = _club_of(folder)
    with contextlib.closing(conn):
        table, owed, listed = standings(conn, c, Period()), ledger(conn, c), files(conn)
        story = history(conn, c, Period(), lang)
    main = table["currency"]
    return {"ok": True, "name": c.name,
            "standings": [[r["place"], r["player"], r["evenings"], r["won"],
                           ", ".join(signed(v, cur) for cur, v in r["money"].items()),
                           rating_cell(r["rating"], r["rating_provisional"])] for r in table["standings"]],
            "players": sorted(r["player"] for r in table["standings"]),
            "rating_note": provisional_note(table["provisional_below"])
            if any(r["rating_provisional"] for r in table["standings"]) else "",
            "ledgers": [{"currency": led["currency"], "evenings": led["evenings"],
                         "balances": [[p, signed(v, led["currency"])] for p, v in led["balances"].items()],
                         "transfers": [[t["from"], t["to"], fmt_amount(Decimal(t["amount"]), led["currency"]),
                                        t["amount"]] for t in led["transfers"]]} for led in owed["ledgers"]],
            "payments": [[p["date"] or "", p["from"], p["to"], fmt_amount(Decimal(p["amount"]), p["currency"])]
                         for p in owed["payments"]],
            # each player's money added up evening by evening, in the main currency (the report's chart)
            "chart": {"currency": main, "dates": story["dates"], "money": story["money"],
                      "last": {p: signed(v[-1], main) for p, v in story["money"].items()}},
            "not_counted": notices + files_text(listed, lang), "currency": main}


def _club_of(folder: Path) -> tuple[Any, Any, list[str]]:
    """The club of ``folder`` with its index brought up to date; a club.toml that cannot be used
    is one sentence (400)."""
    from kingsheet.club.config import load_club
    from kingsheet.club.index import up_to_date

    try:
        c = load_club(folder)
        conn, notices = up_to_date(folder, club=c)
    except Unusable as exc:
        raise Answer(400, str(exc)) from None
    return c, conn, notices


def club_player(folder: Path, body: Mapping[str, Any], lang: str) -> dict[str, Any]:
    """One player's page of the club, in words (`kingsheet club player NAME`)."""
    from kingsheet.club.queries import Period, player
    from kingsheet.render.club import player_parts

    name = str(body.get("player") or "")[:MAX_NAME_TEXT]
    c, conn, _notices = _club_of(folder)
    with contextlib.closing(conn):
        try:
            data = player(conn, c, name, Period(), lang)
        except Unusable as exc:
            raise Answer(400, str(exc)) from None
    return {"ok": True, **player_parts(data, lang)}


def club_paid(folder: Path, body: Mapping[str, Any], lang: str) -> dict[str, Any]:
    """A payment between evenings recorded in the folder's club.toml, by the rules of `kingsheet
    club paid` (players of the club, above zero, a currency kingsheet knows), and the club as it
    now is."""
    from kingsheet.club.config import record_payment
    from kingsheet.core.money import fmt_amount

    given = {k: body.get(k) for k in ("from", "to", "amount", "currency", "date")}
    if any(v is not None and not isinstance(v, str) for v in given.values()):
        raise Answer(400, _("a payment needs who paid, who was paid and how much"))
    fields: dict[str, str] = {k: v for k, v in given.items() if isinstance(v, str)}
    if not all(fields.get(k, "").strip() for k in ("from", "to", "amount")):
        raise Answer(400, _("a payment needs who paid, who was paid and how much"))
    c, conn, _notices = _club_of(folder)
    with contextlib.closing(conn):
        players = [row[0] for row in conn.execute("SELECT DISTINCT player FROM results")]
    try:
        pay = record_payment(c, fields["from"][:MAX_NAME_TEXT], fields["to"][:MAX_NAME_TEXT],
                             fields["amount"][:40], fields.get("currency", "").strip() or None,
                             fields.get("date", "").strip()[:20] or None, players)
    except Unusable as exc:
        raise Answer(400, str(exc)) from None
    said = _("recorded: {payer} → {payee} {amount} ({date})").format(
        payer=pay.payer, payee=pay.payee, amount=fmt_amount(pay.amount, pay.currency), date=pay.date)
    return {**club(folder, lang), "message": said}


MAX_NAME_TEXT = 200  # a player's name as the page sends it, before it is matched


# ---- writing ----------------------------------------------------------------------------------

def seen_of(body: Mapping[str, Any]) -> int:
    seen = body.get("seen")
    if isinstance(seen, bool) or not isinstance(seen, int) or seen < 0:
        raise Answer(400, _("the request does not say how many deals the screen showed"))
    return seen


def deal_fields_of(game: Any, number: int, body: Mapping[str, Any], keep: Any = None) -> dict[str, Any]:
    """A deal's fields from the form, with the CLI's own parsing: points typed as magnitudes take
    the game's sign; names must be the table's; what each took is checked as in a game file."""
    from kingsheet.core.entry import EXTRA_KEYS, deal_fields, signed_points
    from kingsheet.core.game import kept_on_edit

    rules = game.rules
    gid = rules.find_game(str(body.get("game") or ""))
    if gid is None:
        raise Answer(400, _("{id} has no game '{game}'").format(id=rules.id, game=str(body.get("game"))[:40]))
    taken = body.get("taken")
    points = body.get("points")
    if taken is not None:
        if not isinstance(taken, list) or not all(isinstance(t, dict) for t in taken):
            raise Answer(400, _("what each took must be a list, one entry per player"))
        if not any(str(v).strip() for t in taken for v in t.values()):
            raise Answer(400, _("the row is empty: type what each player took"))
        tokens: list[str] = []
    else:
        if not isinstance(points, list) or not all(isinstance(v, (int, str)) and not isinstance(v, bool)
                                                   for v in points):
            raise Answer(400, _("the points must be a list, one per player"))
        if points and not any(str(v).strip() for v in points):
            raise Answer(400, _("the row is empty: type each player's points (0 for nothing)"))
        tokens = signed_points(rules, gid, [str(v)[:12] for v in points])
    extras = {k: body[k] for k in EXTRA_KEYS if body.get(k) not in (None, "")}
    for f in DEAL_EXTRAS:  # bounded as typed, before they are read: the table's limits
        if f.name in extras:
            # one character past the limit, so that a longer one is refused, never cut short
            extras[f.name] = str(extras[f.name])[:(len(str(f.limit)) if f.kind == "whole" else f.limit) + 1]
    # an edit keeps what the form does not send (a field sent empty is cleared)
    extras.update(kept_on_edit(keep, {k: "" if body[k] is None else body[k] for k in EXTRA_KEYS if k in body}))
    return deal_fields(game, number, gid, tokens, taken, extras)


def _written(work: Callable[[], str]) -> str:
    """A change's sentence, or Answer: refused with the row's problems (422), written meanwhile by
    another screen (409), not a usable request (400), or the file unusable (503)."""
    from kingsheet.files.changes import Refused, Stale

    try:
        return work()
    except Refused as refused:
        problems = [p.message for p in refused.problems]
        raise Answer(422, "; ".join(problems), problems=problems) from None
    except InputError as exc:
        raise Answer(409 if isinstance(exc, Stale) else 400, str(exc)) from None
    except Unusable as exc:
        raise Answer(503, str(exc)) from None


def deal(path: Path, body: Mapping[str, Any]) -> str:
    """The next deal, checked; refused when its own row does not add up."""
    from kingsheet.files.changes import add_deal
    from kingsheet.files.gamefile import load_game

    seen = seen_of(body)

    def work() -> str:
        game = load_game(path)
        change = add_deal(path, deal_fields_of(game, seen + 1, body), seen=seen)
        return _("✓ deal {number} saved").format(number=change.number)

    return _written(work)


def edit(path: Path, body: Mapping[str, Any]) -> str:
    """A correction of any played deal, checked as a new one is."""
    from kingsheet.files.changes import edit_deal
    from kingsheet.files.gamefile import load_game

    seen = seen_of(body)
    number = body.get("number")

    def work() -> str:
        game = load_game(path)
        if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= len(game.deals):
            raise Answer(400, _("there is no deal {number}; the sheet has {deals}").format(
                number=str(number)[:10], deals=len(game.deals)))
        old = game.deals[number - 1]
        change = edit_deal(path, number, deal_fields_of(game, number, body, keep=old), seen=seen)
        return _("✓ deal {number} corrected").format(number=change.number)

    return _written(work)


def undo(path: Path, body: Mapping[str, Any]) -> str:
    """The last deal removed (only if the screen saw the sheet as it is)."""
    from kingsheet.files.changes import undo_deal

    seen = seen_of(body)
    return _written(lambda: _("deal {number} removed").format(number=undo_deal(path, seen=seen).number))


def new_game(folder: Path, body: Mapping[str, Any]) -> Path:
    """A new game in ``folder``, under a name kingsheet chooses (the date and a number): a screen
    never names a path. The rules are a bundled id or a template file's name in that folder."""
    from kingsheet.core.rules import RulesError
    from kingsheet.files.creation import create_game

    players = body.get("players")
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise Answer(400, _("the players must be a list of names"))
    names = [p.strip() for p in players]
    empty = [i for i, p in enumerate(names, 1) if not p]
    if empty:
        raise Answer(400, _("player {n} has no name").format(n=empty[0]))
    stake = str(body.get("stake") or "").strip().replace(",", ".") or None
    rules = rules_ref(body.get("rules"), folder)
    path = fresh_name(folder)
    try:
        _written(lambda: str(create_game(path, rules, names, None, None, stake)))
    except RulesError as exc:
        raise Answer(400, str(exc)) from None
    return path


def rules_ref(given: Any, folder: Path) -> str:
    """What a screen may name as the rules of a new game: a bundled rule system, or a template file
    lying in the game's own folder, by its name. Nothing else on the computer is read."""
    from kingsheet.files.templates import template_ids

    ref = given if isinstance(given, str) else ""
    if ref in template_ids():
        return ref
    plain = 0 < len(ref) <= MAX_RULES_REF and ref.endswith(".toml") and Path(ref).name == ref and \
        not ref.startswith(".") and "\\" not in ref
    if plain and (folder / ref).is_file() and (folder / ref).resolve().parent == folder.resolve():
        return str(folder / ref)
    raise Answer(400, _("the rules must be a bundled rule system or a template file in the game's folder"))


def own_name(folder: Path, name: str) -> Path:
    """A game file named as the person named the file brought in (friday.xlsx → friday.toml),
    numbered when taken; a name with nothing plain left in it gets a date."""
    stem = re.sub(r"[^\w.-]", "_", Path(name).stem)[:100].strip("._")
    return _free_name(folder, stem + ".toml") if stem else fresh_name(folder)


def fresh_name(folder: Path, suffix: str = ".toml") -> Path:
    today = dt.date.today().isoformat()
    for k in range(1, 1000):
        path = folder / f"{today}-{k}{suffix}"
        if not path.exists():
            return path
    raise Answer(409, _("too many games today in this folder"))


# ---- a photographed blank, read on the computer that serves the page ---------------------------

MAX_PHOTO_BYTES = 12 * 1024 * 1024  # a 12-megapixel phone photo as JPEG is 3–6 MB
MAX_PHOTO_PAGES = 4
READ_SECONDS = 30 * 60  # a read sheet waits this long for the phone to confirm it
_READS: dict[str, tuple[float, Any]] = {}


def read_photos(body: Mapping[str, Any], lang: str, open_game: Path | None = None) -> dict[str, Any]:
    """The pages of one filled blank, photographed on a phone: each row as the rules chose it, and
    each row a person must confirm shown with the strip of paper it was read from and its choices.
    The photos are read from a temporary folder and never kept. ``open_game``: the game the page
    shows; when it is played by the blank's rules and the photo holds rows after its last deal, the
    answer says which (``fill``) and the reading may fill them in (fill_from_read)."""
    import base64
    import binascii
    import secrets
    import tempfile
    import time

    photos = body.get("photos")
    if not isinstance(photos, list) or not photos or not all(isinstance(p, str) for p in photos):
        raise Answer(400, _("send the photos of the blank's pages"))
    if len(photos) > MAX_PHOTO_PAGES:
        raise Answer(400, _("{n} photos: send at most {most} pages at once").format(n=len(photos), most=MAX_PHOTO_PAGES))
    import kingsheet.scan  # noqa: F401 - first: it sets how numpy's BLAS runs, before numpy is imported

    try:
        import cv2  # noqa: F401
        import zxingcpp  # noqa: F401
    except ImportError:
        raise Answer(501, _("the computer running kingsheet serve cannot read photos: it needs "
                            "pip install '.[scan]' in kingsheet's folder")) from None
    from kingsheet.scan.choose import READS_BADLY, TOTALS_DISAGREE
    from kingsheet.scan.game import row_crop, summary
    from kingsheet.scan.reader import read_sheet

    with tempfile.TemporaryDirectory(prefix="kingsheet-photo-") as tmp:
        paths = []
        for k, text in enumerate(photos, 1):
            try:
                data = base64.b64decode(text.split(",", 1)[-1], validate=True)
            except (binascii.Error, ValueError):
                raise Answer(400, _("photo {k} is not a picture").format(k=k)) from None
            if len(data) > MAX_PHOTO_BYTES:
                raise Answer(413, _("photo {k} is larger than {mb} MB").format(k=k, mb=MAX_PHOTO_BYTES // 2**20))
            path = Path(tmp) / f"photo-{k}"
            path.write_bytes(data)
            paths.append(path)
        try:
            sheet = read_sheet(paths, _rules_of(open_game))
        except Unusable as exc:
            message = str(exc)
            for k, path in enumerate(paths, 1):
                message = message.replace(str(path), _("photo {k}").format(k=k))
            raise Answer(422, message) from None
    rules = sheet.rules
    rows = []
    for r in sheet.rows:
        row: dict[str, Any] = {"number": r.number, "game": rules.games[r.game].label(lang),
                               "cells": [num(c) for c in r.cells], "sure": r.choice.sure,
                               # read well, asked about only because its sheet is in doubt
                               "doubted": r.choice.doubted in (READS_BADLY, TOTALS_DISAGREE),
                               "corrected": r.choice.corrected,  # crossed out and written again, read surely
                               "options": [[rules.games[o.game].label(lang), [num(c) for c in o.cells]]
                                           for o in r.choice.options[:4]]}
        if not r.choice.sure:
            crop = row_crop(sheet, r.number)
            row["crop"] = "data:image/png;base64," + base64.b64encode(crop).decode() if crop else None
        rows.append(row)
    now = time.monotonic()
    for key in [k for k, (t, _s) in _READS.items() if now - t > READ_SECONDS]:
        del _READS[key]
    while len(_READS) >= 4:
        del _READS[min(_READS, key=lambda k: _READS[k][0])]
    token = secrets.token_urlsafe(16)
    _READS[token] = (now, sheet)
    return {"ok": True, "read": token, "rules": rules.id, "name": rules.template.name.get(lang, rules.id),
            "players": rules.players, "rows": rows, "summary": summary(sheet, page=True), "fill": _fillable(open_game, rules, [r.number for r in sheet.rows])}


def _rules_of(path: Path | None) -> tuple[str, dict[str, str]] | None:
    """The open game's rules, for a photo whose QR code cannot be read (its page is then told by its
    printed lines): only bundled rules, as a blank's code names only those."""
    from kingsheet.files.gamefile import load_game
    from kingsheet.files.templates import template_dir

    if path is None:
        return None
    try:
        rules = load_game(path).rules
    except Unusable:
        return None
    where = rules.template.path
    return (rules.id, dict(rules.options)) if where is not None and where.parent == template_dir() else None


def _fillable(path: Path | None, rules: Any, numbers: Collection[int]) -> dict[str, int] | None:
    """The rows read (by their ``numbers``) that the open game has not played yet: the first and the
    last, and the deals it has (the page's ``seen``); None when there are none, or the game is played
    by other rules or cannot be read."""
    from kingsheet.files.gamefile import load_game

    if path is None:
        return None
    try:
        game = load_game(path)
    except Unusable:
        return None
    after = _numbers_after(numbers, len(game.deals))
    if game.rules.key != rules.key or not after:
        return None
    return {"first": after[0], "last": after[-1], "seen": len(game.deals)}


def _kept_read(body: Mapping[str, Any]) -> Any:
    kept = _READS.get(str(body.get("read") or ""))
    if kept is None:
        raise Answer(410, _("this reading of the photos is no longer kept: photograph the blank again"))
    return kept[1]


def _confirmed(sheet: Any, body: Mapping[str, Any]) -> dict[int, tuple[str, tuple[int, ...]]]:
    """Each unsure row as the person chose it on the phone: one of its readings, or the row typed in
    (checked by the rules); a row left alone stays marked to confirm."""
    from kingsheet.scan.game import typed_row

    rules = sheet.rules
    given = body.get("choices")
    choices: dict[str, Any] = given if isinstance(given, dict) else {}
    confirmed = {}
    for r in sheet.rows:
        choice = choices.get(str(r.number))
        if r.choice.sure or not isinstance(choice, dict):
            continue
        option, typed = choice.get("option"), choice.get("typed")
        if isinstance(typed, str) and typed.strip():
            got = typed_row(rules, r, typed[:200])
            if isinstance(got, str):
                raise Answer(422, _("row {number}: {why}").format(number=r.number, why=got))
            confirmed[r.number] = got
        elif isinstance(option, int) and not isinstance(option, bool) and 0 <= option < len(r.choice.options[:4]):
            o = r.choice.options[option]
            confirmed[r.number] = (o.game, o.cells)
    return confirmed


def _read_text(folder: Path, sheet: Any, body: Mapping[str, Any]) -> str:
    """A sheet read from photos as a game file's text, checked as a game file: the players named in
    seating order, each row to confirm as the person chose (a reading, a row typed in, or left marked)."""
    from kingsheet.files.gamefile import read_game
    from kingsheet.scan.game import game_text

    rules = sheet.rules
    names = body.get("players")
    if not isinstance(names, list) or not all(isinstance(n, str) and n.strip() for n in names):
        raise Answer(400, _("the players must be a list of names"))
    names = [n.strip() for n in names]
    if len(names) != rules.players:
        raise Answer(400, _("{id} is for {players} players; {names} are named").format(
            id=rules.id, players=rules.players, names=len(names)))
    if len({n.casefold() for n in names}) != len(names):
        raise Answer(400, _("a player is named twice (names that differ only in case are the same name)"))
    text = game_text(sheet, names, _confirmed(sheet, body), {})
    try:
        read_game(text, folder / "photo.toml", folder)
    except Unusable as exc:
        raise Answer(400, str(exc)) from None
    return text


def keep_read(folder: Path, body: Mapping[str, Any]) -> Path:
    """A sheet read from photos, as a new game file in ``folder``."""
    from kingsheet.files.storage import write_new

    text = _read_text(folder, _kept_read(body), body)
    path = fresh_name(folder)
    try:
        write_new(path, text.encode("utf-8"))
    except Unusable as exc:
        raise Answer(400, str(exc)) from None
    _READS.pop(str(body.get("read")), None)
    return path


def read_for_app(folder: Path, body: Mapping[str, Any]) -> dict[str, Any]:
    """A sheet read from photos for the phone app (`kingsheet site`), which keeps it on the phone:
    the game file's text, nothing written here; the reading is used up as by keep_read."""
    sheet = _kept_read(body)
    text = _read_text(folder, sheet, body)
    _READS.pop(str(body.get("read")), None)
    return {"ok": True, "text": text, "rules": sheet.rules.id, "deals": len(sheet.rows)}


def fill_from_read(path: Path, body: Mapping[str, Any]) -> str:
    """The rows of a sheet read from photos that the open game has not played yet, added to it at
    once, each unsure row as the person chose it on the phone (or left marked to confirm)."""
    from kingsheet.scan.game import row_fields

    sheet = _kept_read(body)
    confirmed = _confirmed(sheet, body)
    read = {r.number: confirmed.get(r.number, (r.game, r.cells)) for r in sheet.rows}
    fields = {r.number: row_fields(sheet.rules, r, confirmed.get(r.number)) for r in sheet.rows}
    said = _fill_rows(path, seen_of(body), sheet.rules, read, fields)
    _READS.pop(str(body.get("read")), None)
    return said


def fill_from_text(path: Path, text: str, seen: int) -> str:
    """The same, from a sheet read elsewhere and brought to the phone app as a game file's text
    (the computer read the photo; the phone keeps the games): its deals after the open game's."""
    rules, read, fields = _deals_of_text(path.parent, text)
    return _fill_rows(path, seen, rules, read, fields)


def fillable_text(folder: Path, path: Path | None, text: str, lang: str) -> dict[str, Any]:
    """What a sheet read elsewhere holds (its rules and number of rows) and which of its rows the
    open game could be filled in with (``fill``, as read_photos says it, or None)."""
    rules, read, _fields = _deals_of_text(folder, text)
    return {"ok": True, "rules": rules.id, "name": rules.template.name.get(lang, rules.id), "deals": len(read),
            "fill": _fillable(path, rules, read)}


def _deals_of_text(folder: Path, text: str) -> tuple[Any, dict[int, tuple[Any, Any]], dict[int, dict[str, Any]]]:
    """A game file's text (untrusted: it came in an address) read and checked as a game file: its
    rules, each deal's game and points by number, and each deal's fields as a game file writes them."""
    from kingsheet.core.game import DEAL_FIELDS
    from kingsheet.files.gamefile import MAX_FILE_BYTES, read_game

    if not isinstance(text, str) or not text.strip() or len(text.encode("utf-8")) > MAX_FILE_BYTES:
        raise Answer(400, _("the sheet read from the photo did not come whole: photograph the blank again"))
    try:
        game = read_game(text, folder / "photo.toml", folder)
    except Unusable as exc:
        raise Answer(400, str(exc)) from None
    read, fields = {}, {}
    for d in game.deals:
        read[d.number] = (game.rules.find_game(d.game), d.points)
        f: dict[str, Any] = {}
        for key in DEAL_FIELDS:
            value = getattr(d, key)
            if value is None or value is False:
                continue
            f[key] = list(value) if key == "points" else [dict(t) for t in value] if key == "taken" else value
        fields[d.number] = f
    return game.rules, read, fields


def _numbers_after(read: Collection[int], played: int) -> list[int]:
    """The rows read after deal ``played``, when they follow it without a gap (the photos may lack a
    page of a longer blank: then none, never rows out of their place)."""
    after = sorted(n for n in read if n > played)
    return after if after == list(range(played + 1, played + 1 + len(after))) else []


def _fill_rows(path: Path, seen: int, rules_read: Any, read: Mapping[int, tuple[str, Any]],
               fields: Mapping[int, Mapping[str, Any]]) -> str:
    """The open game filled in with the read rows after its last deal (``seen``: the deals the page
    showed). Its own deals stay as they are; rows the paper reads otherwise are named in the answer."""
    from kingsheet.files.changes import add_deals
    from kingsheet.files.gamefile import load_game

    def work() -> str:
        game = load_game(path)
        rules = game.rules
        if rules.key != rules_read.key:
            raise Answer(422, _("the photo is a blank of {photo}, and this game is played by {game}: save the photo "
                                "as a new game").format(photo=rules_read.id, game=rules.id))
        played = game.deals[:seen]
        numbers = _numbers_after(read, len(played))
        if not numbers and any(n > len(played) for n in read):  # a page of a longer blank not photographed
            raise Answer(422, _("the photos do not hold every row after deal {deals}: photograph each page").format(
                deals=len(played)))
        if not numbers:
            raise Answer(422, _("the photo holds no row after deal {deals}: nothing to fill in").format(deals=len(played)))
        differ = []
        for n in sorted(n for n in read if n <= len(played)):
            d = played[n - 1]
            if d.points is not None and (rules.find_game(d.game), d.points) != tuple(read[n]):
                differ.append(str(n))
        add_deals(path, [fields[n] for n in numbers], seen=seen)
        first, last = numbers[0], numbers[-1]
        said = (_("✓ deal {number} filled in from the photo").format(number=first) if first == last else
                _("✓ deals {first}–{last} filled in from the photo").format(first=first, last=last))
        if differ:
            said += "; " + _("the paper reads otherwise in rows {rows}: the game keeps its own").format(
                rows=", ".join(differ))
        return said

    return _written(work)


def bring_in(folder: Path, name: str, data: bytes) -> Path:
    """A sheet from elsewhere (a game file, a workbook or a CSV) as a new game file in ``folder``,
    under a fresh name; refused with the reason when it does not load. What it checks to is the
    sheet's business: it is kept as it is, problems and all, as `kingsheet import` keeps it."""
    from kingsheet.files.gamefile import MAX_FILE_BYTES, read_game
    from kingsheet.files.load import game_file_text, load_any
    from kingsheet.files.storage import atomic_write
    from kingsheet.table.formats import IMPORTS

    suffix = Path(name).suffix.lower()
    if suffix not in (".toml", *IMPORTS):
        raise Answer(400, _("{path}: not a game file (.toml), a workbook (.xlsx) or a .csv").format(path=name[:80]))
    if len(data) > MAX_FILE_BYTES:
        raise Answer(413, _("the request is too large"))
    sheet = fresh_name(folder, ".in" + suffix)
    path = own_name(folder, name)
    try:
        if suffix == ".toml":
            try:
                text = data.decode("utf-8-sig")
            except UnicodeDecodeError:
                raise InputError(_("{path}: not UTF-8 text").format(path=name[:80])) from None
            read_game(text, Path(name[:80]), folder)  # named as the person knows it
        else:
            atomic_write(sheet, data)
            text = game_file_text(load_any(sheet), folder, folder)
        atomic_write(path, text.encode("utf-8"))
    except Unusable as exc:
        raise Answer(400, str(exc).replace(str(sheet), name[:80])) from None
    finally:
        sheet.unlink(missing_ok=True)
    return path


# ---- a game handed over as QR codes (kingsheet.files.handover) -----------------------------------

def hand_over(path: Path) -> dict[str, Any]:
    """The open game as codes to show: each code's text and its modules (rows of "0"/"1")."""
    from kingsheet.files.handover import game_codes

    return {"ok": True, "codes": [code_picture(t) for t in game_codes(path)]}


def code_picture(text: str) -> dict[str, Any]:
    """A code's text and its modules, rows of "0" and "1", for the page to draw."""
    from kingsheet.files.handover import LEVEL
    from kingsheet.render.qrcode import qr_modules

    return {"text": text, "rows": ["".join("1" if m else "0" for m in row) for row in qr_modules(text, LEVEL)]}


def take_over(folder: Path, texts: list[str], kept: list[dict[str, Any]]) -> tuple[dict[str, Any], Path | None]:
    """Codes read by the camera, against the games kept on this phone (``kept``: each ``{"id",
    "text"}``). The answer says how far the reading is, or what the codes carry and what becomes of
    it: a new game, the same game brought up to date (``match``: its id), or nothing (this phone has
    it, or has it further on). The path is the game to keep, written in ``folder``; None when
    nothing is to be kept yet."""
    from kingsheet.files.gamefile import read_game
    from kingsheet.files.handover import FILE_NAME, Reading, relation
    from kingsheet.files.storage import atomic_write

    reading = Reading()
    for text in texts[:MOST_CODES]:
        try:
            part = reading.add(str(text))
        except InputError as exc:
            raise Answer(400, str(exc)) from None
    if not reading.parts:
        raise Answer(400, _("no game code was found"))
    if not reading.complete:
        return {"ok": True, "partial": True, "have": len(part.have), "of": part.of,
                "message": _("{n} of {of} codes read; show the next").format(n=len(part.have), of=part.of)}, None
    try:
        given = reading.game()
        if given.template_name is not None and given.template_text is not None:
            atomic_write(folder / given.template_name, given.template_text.encode("utf-8"))
        game = read_game(given.text, Path(given.file), folder)
    except Unusable as exc:
        raise Answer(400, str(exc)) from None
    n = len(game.deals)
    # against every kept game: the closest tie wins (a copy kept beside an earlier version must not
    # make a reading of the same codes keep yet another copy)
    found = [(relation(other["text"], given.text), other) for other in kept if isinstance(other.get("text"), str)]
    rel, other = min(found, key=lambda f: _CLOSEST.index(f[0].kind), default=(None, {}))
    if rel is not None and rel.kind == "same":
        return {"ok": True, "kind": "same", "match": other.get("id"), "message": ngettext(
            "This phone has this game already, as the code has it ({n} deal): nothing changed.",
            "This phone has this game already, as the code has it ({n} deals): nothing changed.", n).format(n=n)}, None
    if rel is not None and rel.kind == "behind":
        return {"ok": True, "kind": "behind", "match": other.get("id"), "message": _(
            "This phone has this game further on ({kept} deals; the code has {given}): nothing changed.").format(
            kept=rel.deals[0], given=rel.deals[1])}, None
    if rel is not None and rel.kind == "further":
        path = folder / (str(other.get("file")) if FILE_NAME.fullmatch(str(other.get("file"))) else given.file)
        atomic_write(path, given.text.encode("utf-8"))
        added = (_("The same game further on: brought up to date, deal {number} added.").format(
            number=rel.deals[1]) if rel.deals[1] == rel.deals[0] + 1 else _(
            "The same game further on: brought up to date, deals {first}–{last} added.").format(
            first=rel.deals[0] + 1, last=rel.deals[1]))
        return {"ok": True, "kind": "further", "match": other.get("id"), "message": added}, path
    path = _free_name(folder, given.file)
    atomic_write(path, given.text.encode("utf-8"))
    if rel is not None and rel.kind == "diverged":
        return {"ok": True, "kind": "diverged", "match": other.get("id"), "message": _(
            "The same game, but its deals differ from this phone's from deal {number} on: kept as "
            "another game beside it, nothing overwritten.").format(number=rel.differs)}, path
    return {"ok": True, "kind": "new", "message": ngettext(
        "A new game on this phone: {title} ({n} deal).", "A new game on this phone: {title} ({n} deals).", n).format(
        title=game.title or path.stem, n=n)}, path


MOST_CODES = 99
_CLOSEST = ("same", "behind", "further", "diverged", "other")


def _free_name(folder: Path, name: str) -> Path:
    path = folder / name
    if not path.exists():
        return path
    stem = path.stem
    for k in range(2, 1000):
        candidate = folder / f"{stem}-{k}.toml"
        if not candidate.exists():
            return candidate
    return fresh_name(folder)
