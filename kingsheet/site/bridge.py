"""The phone app's Python, in its worker: one request in, one answer out, both JSON.

The page keeps every game in the browser's storage (IndexedDB) and sends the one it has open with
each request: its file name, its text and, for a house template, the template's name and text.
Here they are written into a folder of the worker's own memory file system, the application layer
(kingsheet.table.actions, the same functions `kingsheet serve` calls) does the work on that file,
and a change comes back as the game's new text with its new state, for the page to store in one
transaction. Nothing is kept here between requests: the browser's storage is the only copy.
"""

from __future__ import annotations

import base64
import json
import re
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from kingsheet.core import i18n
from kingsheet.core.i18n import _
from kingsheet.files import handover
from kingsheet.table import actions
from kingsheet.table.actions import Answer

FOLDER = Path("/kingsheet-games")
MAX_REQUEST = 8 * 1024 * 1024  # a game file is at most 4 MiB, a workbook brought in as much again


def handle(request_json: str) -> str:
    """The worker's one entry: ``{"op", "lang", "game"?, "body"?, …}`` → ``{"status", "data", "game"?}``."""
    if len(request_json) > MAX_REQUEST:
        return json.dumps({"status": 413, "data": {"ok": False, "error": _("the request is too large")}})
    try:
        request = json.loads(request_json)
    except ValueError:
        return json.dumps({"status": 400, "data": {"ok": False, "error": _("the request is not JSON")}})
    lang = i18n.known(str(request.get("lang") or "")) or "ru"
    with i18n.speaking(lang):
        try:
            answer = _answer(request, lang)
        except Exception as exc:  # noqa: BLE001 - the page gets a sentence, never a traceback
            status, data = actions.answer_of(exc, FOLDER)  # the same mapping as `kingsheet serve`
            answer = {"status": status, "data": data}
    data = answer["data"]
    if isinstance(data, dict) and isinstance(data.get("error"), str):  # a file is named as the phone knows it
        data["error"] = data["error"].replace(f"{FOLDER}/", "")
    return json.dumps(answer, ensure_ascii=False)


def _answer(request: Mapping[str, Any], lang: str) -> dict[str, Any]:
    op = request.get("op")
    given = request.get("body")
    body: dict[str, Any] = given if isinstance(given, dict) else {}
    if op == "rules":
        return {"status": 200, "data": actions.rule_systems(lang)}
    if op == "words":
        return {"status": 200, "data": {"ok": False, "none": True, "words": actions.words(lang), "lang": lang,
                                        "error": _("No games on this phone yet.")}}
    if op in ("club", "club_player", "club_paid"):  # every game on this phone is the club
        return _club(op, request, body, lang)
    path = _lay_out(request.get("game"), request.get("taken_names"))
    if op == "receive":  # codes the camera read: a game handed over by another phone
        kept = [g for g in request.get("games") or [] if isinstance(g, dict)]
        texts = [str(t) for t in body.get("codes") or []] if isinstance(body.get("codes"), list) else []
        if texts and texts[-1].strip().startswith(handover.SIGNAL_PREFIX):  # a phone's code to join its table
            signal = handover.read_signal(texts[-1])
            return {"status": 200, "data": {"ok": True, "signal": {"kind": signal.kind, "session": signal.session,
                                                                   "sdp": signal.sdp}}}
        said, received = actions.take_over(FOLDER, texts, kept)
        if received is None:
            return {"status": 200, "data": said}
        answer = _written(received, lang, said["message"])
        answer["data"].update({k: v for k, v in said.items() if k != "message"})
        return answer
    if op == "signal":  # this phone's offer or answer to join a table, as a code
        text = handover.signal_code(handover.Signal(str(body.get("kind")), str(body.get("session")),
                                                    str(body.get("sdp") or "")))
        return {"status": 200, "data": {"ok": True, "codes": [actions.code_picture(text)]}}
    if op == "keep" and path is not None:  # the table's game as the keeping phone sent it
        return _written(path, lang, "")
    if op == "new":
        template = body.get("template")
        if isinstance(template, dict):
            body = {**body, "rules": _write_template(template)}
        return _written(actions.new_game(FOLDER, body), lang, None)
    if op == "import":
        data = base64.b64decode(str(request.get("data") or ""), validate=False)
        return _written(actions.bring_in(FOLDER, str(request.get("name") or ""), data), lang, None)
    if op == "photo":  # a sheet the computer read from a photo, brought back in the app's address
        return {"status": 200, "data": actions.fillable_text(FOLDER, path, str(body.get("text") or ""), lang)}
    if path is None:
        raise Answer(404, _("no game is open"))
    if op == "state":
        return {"status": 200, "data": actions.state(path, lang)}
    if op == "money":
        return {"status": 200, "data": actions.money(path, lang)}
    if op == "codes":  # the open game as codes, for another phone's camera
        return {"status": 200, "data": actions.hand_over(path)}
    if op == "export":
        data, media, name = actions.export(path, str(request.get("suffix") or ""), lang)
        return {"status": 200, "data": {"ok": True, "b64": base64.b64encode(data).decode(), "media": media,
                                        "name": name}}
    if op == "photo_fill":
        message = actions.fill_from_text(path, str(body.get("text") or ""), actions.seen_of(body))
        return _written(path, lang, message)
    if op in ("deal", "edit", "undo"):
        message = {"deal": actions.deal, "edit": actions.edit, "undo": actions.undo}[op](path, body)
        return _written(path, lang, message)
    raise Answer(404, _("no such page"))


def _club(op: str, request: Mapping[str, Any], body: dict[str, Any], lang: str) -> dict[str, Any]:
    """The club of every game on the phone, with the phone's club.toml (its payments) if it has
    one; a payment recorded comes back as the club file's new text, for the page to keep."""
    CLUB_FILE = actions.CLUB_FILE

    _lay_out(None, None)
    for k, game in enumerate(request.get("games") or []):
        if isinstance(game, dict) and isinstance(game.get("text"), str):
            file = str(game.get("file") or "")  # the name the phone shows, where it is a plain one
            path = FOLDER / file if _SAFE.fullmatch(file) and file != CLUB_FILE else FOLDER / f"game-{k:04d}.toml"
            if path.exists():
                path = FOLDER / f"game-{k:04d}.toml"
            path.write_text(game["text"], encoding="utf-8")
            if isinstance(game.get("template"), dict):
                _write_template(game["template"])
    given = request.get("club")
    club_file = FOLDER / CLUB_FILE
    if isinstance(given, str) and given.strip():
        club_file.write_text(given, encoding="utf-8")
    if op == "club_player":
        return {"status": 200, "data": actions.club_player(FOLDER, body, lang)}
    if op == "club_paid":
        if not club_file.exists():
            club_file.write_text("", encoding="utf-8")  # no name of its own: the phone's club
        data = actions.club_paid(FOLDER, body, lang)
        data["club_text"] = club_file.read_text(encoding="utf-8")
    else:
        data = actions.club(FOLDER, lang)
    if data.get("name") == FOLDER.name:
        data["name"] = _("this phone")
    return {"status": 200, "data": data}


def warm() -> None:
    """Import what a deal needs and run one of each request, before a memory snapshot of the
    worker's Python is taken: a start from the snapshot then finds it all done. (Workbooks are left
    out: openpyxl takes 1.6 s to import here, paid only when a workbook goes out or comes in.)"""
    import kingsheet.files.importers.csv  # noqa: F401

    game = json.loads(handle(json.dumps({"op": "new", "lang": "ru", "body": {
        "rules": "blank-4", "players": ["А", "Б", "В", "Г"], "stake": "1"}})))["game"]
    opened = {"file": game["file"], "text": game["text"]}
    for op, body in (("state", {}), ("money", {}), ("deal", {"seen": 0, "game": "tricks", "points": ["4", "4", "4", "4"]}),
                     ("rules", {})):
        handle(json.dumps({"op": op, "lang": "en", "game": opened, "body": body}))
    shutil.rmtree(FOLDER, ignore_errors=True)


def _lay_out(game: Any, taken: Any) -> Path | None:
    """A fresh folder holding the open game (and its house template), and empty stand-ins for the
    file names other stored games use, so that a new game gets a name of its own."""
    shutil.rmtree(FOLDER, ignore_errors=True)
    FOLDER.mkdir(parents=True)
    for name in taken if isinstance(taken, list) else []:
        if isinstance(name, str) and _SAFE.fullmatch(name):
            (FOLDER / name).touch()
    if not isinstance(game, dict) or not isinstance(game.get("text"), str):
        return None
    file = str(game.get("file") or "game.toml")
    if not _SAFE.fullmatch(file):
        file = "game.toml"
    if isinstance(game.get("template"), dict):
        _write_template(game["template"])
    path = FOLDER / file
    path.write_text(game["text"], encoding="utf-8")
    return path


_SAFE = handover.FILE_NAME


def _write_template(template: Mapping[str, Any]) -> str:
    """A house template the phone picked, beside the game under a plain name; the name returned is
    what the game file's ``rules`` says."""
    text = template.get("text")
    if not isinstance(text, str) or len(text.encode("utf-8")) > actions.MAX_TEMPLATE_BYTES:
        raise Answer(400, _("the house template is not a text file of at most {kib} KiB").format(
            kib=actions.MAX_TEMPLATE_BYTES // 1024))
    name = re.sub(r"[^\w.-]", "_", Path(str(template.get("name") or "template")).name)[:100]
    if not name.endswith(".toml"):
        name += ".toml"
    name = name.lstrip(".") or "template.toml"
    (FOLDER / name).write_text(text, encoding="utf-8")
    return name


def _written(path: Path, lang: str, message: str | None) -> dict[str, Any]:
    """A change done: the sentence (for a new game, its name), and the game as it now is, to be stored."""
    from kingsheet.core.verify import verify
    from kingsheet.files.gamefile import load_game

    state = actions.state(path, lang)
    game = load_game(path)
    template = game.rules.template.path
    report = verify(game)
    if message is None:
        message = _("new game: {file}").format(file=path.name)
    return {"status": 200, "data": {"ok": True, "message": message},
            "game": {"file": path.name, "text": path.read_text(encoding="utf-8"),
                     "template": {"name": template.name, "text": template.read_text(encoding="utf-8")}
                     if template is not None and template.parent == FOLDER else None,
                     "title": state.get("title"), "rules": game.rules.id, "deals": len(game.deals),
                     "total": len(state.get("rows", [])),
                     "complete": report.complete, "state": state}}
