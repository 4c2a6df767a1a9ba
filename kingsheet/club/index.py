"""The club's index: every game file of the folder read once, checked, and kept in SQLite.

Brought up to date on every `club` command: a file whose size and time are as indexed is not read;
one that changed is read again (and if its bytes are the same, only its time is noted); a removed
file is dropped. A game is keyed by its content (the game file's data, not its bytes or name), so
the same game saved twice under two names counts once. A file that does not load is listed with
its problem and kept out of the figures; so is a game with problems, and a game still in progress
is shown as such.

Per game the index keeps what the queries need and no more, as rows SQL sums: each player's ИТОГО
and money (at the game's own stake and method), and per player and game of the rules: deals
played, points, and the deals where the player took the worst of the table; each game's name in
every language kingsheet speaks, a row a language. The index lives beside the games
(``.kingsheet-club.sqlite``), or in the user data folder when the games' folder cannot be written.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from kingsheet.club.config import CLUB_FILE
from kingsheet.core.i18n import _
from kingsheet.core.problems import StorageError, Unusable
from kingsheet.core.record import Record

INDEX_FILE = ".kingsheet-club.sqlite"
SCHEMA = 5
MAX_GAMES = 100_000  # files in one club folder
LOCK_SECONDS = 10.0  # a command waits this long for another one's hold on the index, then says so

TABLES = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS files(path TEXT PRIMARY KEY, mtime_ns INTEGER, size INTEGER, sha TEXT, game TEXT,
                                 problem TEXT);
CREATE TABLE IF NOT EXISTS games(id INTEGER PRIMARY KEY, key TEXT UNIQUE, status TEXT, problem TEXT, rules TEXT,
                                 date TEXT, title TEXT, deals INTEGER, stake TEXT, currency TEXT, method TEXT);
CREATE TABLE IF NOT EXISTS results(game INTEGER, seat INTEGER, player TEXT, total INTEGER, minor INTEGER,
                                   won INTEGER, PRIMARY KEY(game, seat)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS tallies(game INTEGER, player TEXT, game_id TEXT, deals INTEGER, points INTEGER,
                                   worst INTEGER, PRIMARY KEY(game, player, game_id)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS labels(rules TEXT, game_id TEXT, n INTEGER, lang TEXT, label TEXT,
                                  PRIMARY KEY(rules, game_id, lang)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS tallies_player ON tallies(player, game);
CREATE INDEX IF NOT EXISTS results_player ON results(player);
CREATE INDEX IF NOT EXISTS games_date ON games(date);
"""


class Updated(Record):
    read: int  # files read and checked this time
    unchanged: int
    removed: int


def index_path(folder: Path) -> Path:
    """Beside the games when that folder can be written, else in the user data folder."""
    beside = folder / INDEX_FILE
    if os.access(folder, os.W_OK) or beside.exists() and os.access(beside, os.W_OK):
        return beside
    from platformdirs import user_data_dir

    key = hashlib.sha256(str(folder.resolve()).encode()).hexdigest()[:16]
    other = Path(user_data_dir("kingsheet")) / "clubs" / f"{key}.sqlite"
    other.parent.mkdir(parents=True, exist_ok=True)
    return other


def open_index(folder: Path) -> sqlite3.Connection:
    """The club's index, made if need be (and made afresh if it is of another schema or damaged).
    An index another command holds is waited for (LOCK_SECONDS), then said: never taken for damage."""
    path = index_path(folder)
    for attempt in (1, 2):
        conn = None
        try:
            conn = sqlite3.connect(path, timeout=LOCK_SECONDS)
            conn.executescript(TABLES)
            row = conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
            if row is None:
                conn.execute("INSERT INTO meta VALUES ('schema', ?)", (str(SCHEMA),))
                conn.commit()
            elif row[0] != str(SCHEMA):
                raise sqlite3.DatabaseError("another schema")
            return conn
        except sqlite3.DatabaseError as exc:
            if conn is not None:
                conn.close()
            if _held(exc):
                raise in_use(path) from None
            if attempt == 2:
                break
            with contextlib.suppress(OSError):
                path.unlink()  # only an index: it is made again from the games
    raise StorageError(_("{path}: the club's index cannot be made").format(path=path))


def _held(exc: sqlite3.DatabaseError) -> bool:
    """The index is held by another connection (a lock, not damage)."""
    return isinstance(exc, sqlite3.OperationalError) and any(w in str(exc) for w in ("locked", "busy"))


def in_use(path: Path) -> StorageError:
    return StorageError(_("{path}: the club's index is in use by another kingsheet command; try again when it "
                          "is done").format(path=path))


def up_to_date(folder: Path, jobs: int = 1, club: Any = None) -> tuple[sqlite3.Connection, list[str]]:
    """The index open and brought up to date with the folder, and what a person should hear of it: an
    index that fails its own checks (figures changed by hand) is made again from the game files;
    with the ``club`` (club.toml), its payments are checked against the players, and names that
    print alike are said."""
    from kingsheet.club.config import check_payments
    from kingsheet.club.lookalike import lookalikes

    conn = open_index(folder)
    notices = []
    try:
        update(conn, folder, jobs)
        if not sound(conn):
            conn.close()
            path = index_path(folder)
            with contextlib.suppress(OSError):
                path.unlink()
            conn = open_index(folder)
            update(conn, folder, jobs)
            notices.append(_("{path}: the club's index did not add up (was it changed by hand?); it was made again "
                             "from the game files").format(path=path))
        if club is not None:
            players = [row[0] for row in conn.execute("SELECT DISTINCT player FROM results")]
            check_payments(club, players)
            notices += lookalikes({club.who(p) for p in players})
    except BaseException:
        conn.close()
        raise
    return conn, notices


def sound(conn: sqlite3.Connection) -> bool:
    """The index's own checks: every evening's money sums to zero, and the leaders are the players
    with the best ИТОГО. Cheap (a pass over the results), run on every command."""
    money = conn.execute("SELECT 1 FROM results GROUP BY game HAVING COUNT(minor) > 0 AND "
                         "(SUM(minor) != 0 OR COUNT(minor) != COUNT(*)) LIMIT 1").fetchone()
    leaders = conn.execute("SELECT 1 FROM results r JOIN (SELECT game, MAX(total) AS best FROM results GROUP BY game) b "
                           "ON b.game = r.game WHERE r.won != (r.total = b.best) LIMIT 1").fetchone()
    orphans = conn.execute("SELECT 1 FROM results WHERE game NOT IN (SELECT id FROM games) LIMIT 1").fetchone()
    return money is None and leaders is None and orphans is None


@contextlib.contextmanager
def opened(folder: Path) -> Iterator[sqlite3.Connection]:
    conn = open_index(folder)
    try:
        yield conn
    finally:
        conn.close()


def game_files(folder: Path) -> dict[str, tuple[int, int]]:
    """Every game file in the folder and below it (not the club's file, not hidden ones), by its
    path relative to the folder, with its time and size. Only what lies in the folder counts: a
    link to a folder is not followed, and a link to a file outside the folder is listed in
    ``OUTSIDE`` form (its own time, a size of -1) so that the club can say why it is not counted."""
    out: dict[str, tuple[int, int]] = {}
    root = folder.resolve()
    pending = [("", str(folder))]
    while pending:
        prefix, where = pending.pop()
        try:
            entries = list(os.scandir(where))
        except OSError:
            continue
        for entry in entries:
            if entry.name.startswith("."):
                continue
            rel = prefix + entry.name
            try:
                if entry.is_dir(follow_symlinks=False):
                    pending.append((rel + "/", entry.path))
                elif entry.name.endswith(".toml") and rel != CLUB_FILE and entry.is_file():
                    if entry.is_symlink() and not Path(entry.path).resolve().is_relative_to(root):
                        out[rel] = (entry.stat(follow_symlinks=False).st_mtime_ns, OUTSIDE)
                        continue
                    st = entry.stat()
                    out[rel] = (st.st_mtime_ns, st.st_size)
            except OSError:
                continue
            if len(out) > MAX_GAMES:
                raise StorageError(_("{folder}: more than {most} game files; a club is a folder of evenings").format(
                    folder=folder, most=MAX_GAMES))
    return out


OUTSIDE = -1  # the size noted for a link to a file outside the club's folder


def update(conn: sqlite3.Connection, folder: Path, jobs: int = 1) -> Updated:
    """Bring the index up to date with the folder."""
    try:
        return _update(conn, folder, jobs)
    except sqlite3.OperationalError as exc:
        conn.rollback()
        if _held(exc):
            raise in_use(index_path(folder)) from None
        raise StorageError(_("{path}: the club's index cannot be written ({why})").format(
            path=index_path(folder), why=exc)) from None


def _update(conn: sqlite3.Connection, folder: Path, jobs: int) -> Updated:
    here = game_files(folder)
    known = {row[0]: (row[1], row[2]) for row in conn.execute("SELECT path, mtime_ns, size FROM files")}
    stale = sorted(rel for rel, stamp in here.items() if known.get(rel) != stamp)
    removed = [p for p in known if p not in here]
    outside = {rel for rel in stale if here[rel][1] == OUTSIDE}
    read = [rel for rel in stale if rel not in outside]
    for rel, facts in zip(read, _read_all([str(folder / rel) for rel in read], jobs), strict=True):
        _store(conn, rel, here[rel], facts)
    for rel in outside:
        _store(conn, rel, here[rel], {"sha": None, "problem": _(
            "a link to a file outside the club's folder: not counted")})
    for rel in removed:
        conn.execute("DELETE FROM files WHERE path = ?", (rel,))
    # a game no file holds any more goes with its figures
    if stale or removed:
        gone = "SELECT id FROM games WHERE key NOT IN (SELECT game FROM files WHERE game IS NOT NULL)"
        conn.execute(f"DELETE FROM results WHERE game IN ({gone})")  # noqa: S608
        conn.execute(f"DELETE FROM tallies WHERE game IN ({gone})")  # noqa: S608
        conn.execute("DELETE FROM games WHERE key NOT IN (SELECT game FROM files WHERE game IS NOT NULL)")
        # what was worked out from the figures (the rating) is worked out again when next asked
        conn.execute("INSERT OR REPLACE INTO meta VALUES ('generation', ?)", (os.urandom(8).hex(),))
    conn.commit()
    return Updated(len(stale), len(here) - len(stale), len(removed))


def _read_all(paths: list[str], jobs: int) -> Iterable[dict[str, Any]]:
    if jobs <= 1 or len(paths) < 4 * jobs:
        return [read_game_facts(p) for p in paths]
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(read_game_facts, paths, chunksize=max(1, min(64, len(paths) // (jobs * 4)))))


def read_game_facts(path: str) -> dict[str, Any]:
    """What the index keeps of one game file (run in a worker process for many files)."""
    from kingsheet.core.i18n import LANGUAGES
    from kingsheet.core.money import game_money, minor_units, money_str
    from kingsheet.core.tomltext import TomlProblem, parse
    from kingsheet.core.verify import verify
    from kingsheet.files.gamefile import read_game, read_text

    file = Path(path)
    try:
        text = read_text(file)
        data = parse(text)
    except (Unusable, TomlProblem) as exc:
        return {"sha": None, "problem": str(exc) if isinstance(exc, Unusable) else f"{file}: {exc}"}
    sha = hashlib.sha256(text.encode("utf-8")).hexdigest()
    if "rules" not in data and ({"stages", "games", "deck", "units"} & set(data) or not data.keys() & {"players", "deals"}):
        return {"sha": sha, "problem": None, "skip": True}  # a house template or other TOML: not a game
    key = hashlib.sha256(json.dumps(data, sort_keys=True, default=str, ensure_ascii=False).encode()).hexdigest()
    try:
        report = verify(read_game(text, file, file.parent, parsed=data))  # the text parsed once
    except Unusable as exc:
        return {"sha": sha, "problem": str(exc)}
    game = report.game
    rules = game.rules
    if not report.complete:
        status, problem = "unfinished", None
    elif not report.ok:
        status, problem = "problems", report.problems[0].message
    else:
        status, problem = "final", None
    money, why = game_money(report)
    if status == "final" and money is None:
        status, problem = "problems", why
    best = max(t.total for t in report.totals.values())
    results = [(seat, p, report.totals[p].total,
                minor_units(money.settled[p], money.currency) if money else None, int(report.totals[p].total == best))
               for seat, p in enumerate(game.players)]
    tallies: dict[tuple[str, str], list[int]] = {}
    for row in report.rows:  # the cells as scored (what each took, counted, for a Ералаш row)
        gid, cells = row.game_id, row.cells
        if gid is None or not cells:
            continue
        worst = min(cells)
        for p, v in zip(game.players, cells, strict=False):
            t = tallies.setdefault((p, gid), [0, 0, 0])
            t[0] += 1
            t[1] += v
            t[2] += 1 if v == worst and worst < 0 else 0
    return {"sha": sha, "key": key, "status": status, "problem": problem, "rules": rules.id,
            "date": str(game.date) if game.date else None, "title": game.title, "deals": len(game.deals),
            "stake": money_str(money.stake) if money else None, "currency": money.currency if money else None,
            "method": money.method if money else None, "results": results,
            "labels": [(rules.id, gid, n, lang, g.label(lang)) for n, (gid, g) in enumerate(rules.games.items())
                       for lang in LANGUAGES],
            "tallies": [(p, gid, *t) for (p, gid), t in tallies.items()]}


def _store(conn: sqlite3.Connection, rel: str, stamp: tuple[int, int], facts: dict[str, Any]) -> None:
    if facts.get("skip"):
        conn.execute("DELETE FROM files WHERE path = ?", (rel,))
        conn.execute("INSERT INTO files VALUES (?, ?, ?, ?, NULL, NULL)", (rel, *stamp, facts["sha"]))
        return
    key = facts.get("key")
    conn.execute("INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?, ?, ?)",
                 (rel, *stamp, facts["sha"], key, None if key else facts["problem"]))
    if key is None:
        return
    if conn.execute("SELECT 1 FROM games WHERE key = ?", (key,)).fetchone():
        return  # the same game under another name: counted once
    cur = conn.execute("INSERT INTO games(key, status, problem, rules, date, title, deals, stake, currency, method) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                       (key, facts["status"], facts["problem"], facts["rules"], facts["date"], facts["title"],
                        facts["deals"], facts["stake"], facts["currency"], facts["method"]))
    gid = cur.lastrowid
    conn.executemany("INSERT INTO results VALUES (?, ?, ?, ?, ?, ?)", [(gid, *r) for r in facts["results"]])
    conn.executemany("INSERT OR REPLACE INTO tallies VALUES (?, ?, ?, ?, ?, ?)", [(gid, *t) for t in facts["tallies"]])
    conn.executemany("INSERT OR IGNORE INTO labels VALUES (?, ?, ?, ?, ?)", facts["labels"])
