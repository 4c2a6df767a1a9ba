"""A game as QR codes: the hand-over from phone to phone with no network (docs/game-file.md, «Game
codes»). Pure Python: the phone app runs it as it is.

A game (its file, byte for byte, and a house template when its rules are one) is deflated with the
format's fixed dictionary, written in base45 (RFC 9285: the QR code's own alphanumeric letters,
so a code holds 5.5 bits a letter) and cut into codes of at most :data:`PART_LETTERS` letters. Each
code starts with a header of fixed width::

    KSG 01 PP NN IIIIIIII data…
    │   │  │  │  └ the first 8 hex digits of the sha256 of all the codes' data, joined
    │   │  │  └ how many codes (01–99)
    │   │  └ this code's number (01–NN)
    │   └ the format's version
    └ a kingsheet game

so that the codes of one game can be read in any order, a code of another game is told apart, and
a damaged or missing part is found before anything is kept.
"""

from __future__ import annotations

import hashlib
import re
import zlib
from collections.abc import Iterable
from pathlib import Path

from kingsheet.core.i18n import _
from kingsheet.core.problems import InputError
from kingsheet.core.record import Record

VERSION = 1
PREFIX = "KSG"
HEADER = len(PREFIX) + 2 + 2 + 2 + 8
#: The letters of data a code holds: 600 + the header is a version-15 code at level M (77 modules).
PART_LETTERS = 600
MOST_PARTS = 99
#: What the codes may unpack to: a game file and its house template at their largest.
MOST_BYTES = 4 * 1024 * 1024 + 64 * 1024
LEVEL = "M"  # a screen read by a camera: a smudge or a glare of up to 15 % is corrected

_B45 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:"
_B45_VALUE = {c: i for i, c in enumerate(_B45)}
_CODE = re.compile(r"KSG(\d\d)(\d\d)(\d\d)([0-9A-F]{8})(.*)", re.S)
#: A file name the codes may carry (and a phone may keep): plain, no folder.
FILE_NAME = re.compile(r"[\w.-]{1,120}\.toml")

#: Format 1's deflate dictionary: the words every game file has, so that a short game packs small.
#: Part of the format: never changed within a version.
DICTIONARY = (
    'format = 1\nrules = "blank-4"\ntitle = "Кинг"\ndate = 2026-01-01\nplayers = ["", "", ""]\n'
    'first_dealer = ""\n\n[options]\nboys = "jacks+kings"\neralash = "yes"\n\n[money]\nstake = "0.50"\n'
    'currency = "RUB"\nmethod = "pairwise"\nmethod = "pot"\n'
    '\n[[deals]]\ngame = "trumps"\norderer = ""\ndeclarer = ""\ncontract = "пики"\ncontract = "трефы"\n'
    'contract = "бубны"\ncontract = "черви"\nbid = 1\ntaken = [0, 0, 0, 0]\npoints = [0, 0, 0, 0]\n'
    '\n[[deals]]\ngame = "tricks+"\npoints = [8, 16, 24, 32]\n\n[[deals]]\ngame = "hearts+"\npoints = [\n'
    '\n[[deals]]\ngame = "boys+"\n\n[[deals]]\ngame = "girls+"\n\n[[deals]]\ngame = "king+"\n\n[[deals]]\ngame = "last+"\n'
    '\n[[deals]]\ngame = "eralash+"\n\n[[deals]]\ngame = "penalty"\n'
    '\n[[deals]]\ngame = "eralash"\npoints = [-4, -8, -12, -16]\n\n[[deals]]\ngame = "last"\npoints = [-40, 0, 0, 0]\n'
    '\n[[deals]]\ngame = "king"\npoints = [0, -16, 0, 0]\n\n[[deals]]\ngame = "girls"\npoints = [0, -8, -4, -4]\n'
    '\n[[deals]]\ngame = "boys"\npoints = [0, -4, 0, -12]\n\n[[deals]]\ngame = "hearts"\npoints = [-4, -4, 0, -8]\n'
    '\n[[deals]]\ngame = "tricks"\npoints = [-4, -6, -6, 0]\n\n[[deals]]\ngame = "'
).encode()
DICTIONARY_SHA256 = "229eb02e3b5cd6940900a87c573ce7f5"  # its first 32 hex digits, checked by a test


class HandedOver(Record):
    """What the codes carry: the game file's name and text, and its house template if any."""

    file: str
    text: str
    template_name: str | None = None
    template_text: str | None = None


class Partial(Record):
    """Codes read so far of one game: which of how many."""

    have: tuple[int, ...]
    of: int


# -- base45 -----------------------------------------------------------------------------------------

def b45encode(data: bytes) -> str:
    out = []
    for i in range(0, len(data) - 1, 2):
        n = data[i] * 256 + data[i + 1]
        n, c = divmod(n, 45)
        e, d = divmod(n, 45)
        out.append(_B45[c] + _B45[d] + _B45[e])
    if len(data) % 2:
        d, c = divmod(data[-1], 45)
        out.append(_B45[c] + _B45[d])
    return "".join(out)


def b45decode(text: str) -> bytes:
    """The bytes, or ValueError for a letter outside base45 or a group that does not fit."""
    if len(text) % 3 == 1:
        raise ValueError("length")
    out = bytearray()
    for i in range(0, len(text), 3):
        group = text[i:i + 3]
        values = [_B45_VALUE[c] for c in group]  # KeyError is a ValueError's cousin: caught below
        n = sum(v * 45 ** k for k, v in enumerate(values))
        if len(group) == 3:
            if n > 0xFFFF:
                raise ValueError("group")
            out += bytes((n >> 8, n & 0xFF))
        else:
            if n > 0xFF:
                raise ValueError("group")
            out.append(n)
    return bytes(out)


# -- writing ----------------------------------------------------------------------------------------

def _packed(game: HandedOver) -> bytes:
    parts = [game.text, game.file]
    if game.template_name is not None and game.template_text is not None:
        parts += [game.template_name, game.template_text]
    raw = "\0".join(parts).encode("utf-8")
    packer = zlib.compressobj(9, zlib.DEFLATED, -15, 9, zlib.Z_DEFAULT_STRATEGY, DICTIONARY)
    return packer.compress(raw) + packer.flush()


def codes(game: HandedOver) -> list[str]:
    """The codes' texts, in order; InputError when the game is too large for :data:`MOST_PARTS`."""
    data = b45encode(_packed(game))
    n = max(1, -(-len(data) // PART_LETTERS))
    if n > MOST_PARTS:
        raise InputError(_("{file}: too large to go as codes ({n} would be needed, at most {most}); "
                           "send the game file instead").format(file=game.file, n=n, most=MOST_PARTS))
    size = -(-len(data) // n)  # the parts even, so that every code is about as dense
    digest = hashlib.sha256(data.encode("ascii")).hexdigest()[:8].upper()
    return [f"{PREFIX}{VERSION:02d}{k + 1:02d}{n:02d}{digest}{data[k * size:(k + 1) * size]}" for k in range(n)]


def game_codes(path: Path) -> list[str]:
    """The codes of a game file on disk, with its house template when its rules are one."""
    from kingsheet.files.gamefile import load_game, read_text
    from kingsheet.files.templates import template_dir

    text = read_text(path)
    game = load_game(path)
    template = game.rules.template.path
    file = path.name if FILE_NAME.fullmatch(path.name) else "game.toml"
    if template is not None and template.resolve().parent != template_dir().resolve():
        if not FILE_NAME.fullmatch(game.rules_ref):
            raise InputError(_("{file}: its house template {ref} is not beside it; codes carry a template "
                               "that lies in the game's own folder").format(file=path.name, ref=game.rules_ref))
        return codes(HandedOver(file, text, game.rules_ref, read_text(template)))
    return codes(HandedOver(file, text))


# -- reading ----------------------------------------------------------------------------------------

class Reading:
    """The codes of one game as they are read, in any order, each checked as it comes: ``add``
    says what is still missing, and ``game`` unpacks the whole once every code is in."""

    def __init__(self) -> None:
        self.parts: dict[int, str] = {}
        self.of = 0
        self.digest = ""

    def add(self, text: str) -> Partial:
        """Take one code's text; InputError (one sentence) for a code that is not a kingsheet
        game's, is of a newer format, is damaged, or belongs to another game than the codes so far."""
        text = text.strip("\r\n\t")  # a space is one of base45's letters: kept
        if not text.startswith(PREFIX):
            if text.startswith("KS"):
                raise InputError(_("this is the code of a printed blank, not of a game"))
            raise InputError(_("this is not a kingsheet game's code"))
        match = _CODE.fullmatch(text)
        if match is None:
            raise InputError(_("this game code is damaged (its header cannot be read)"))
        version, number, of, digest, data = match.groups()
        if int(version) > VERSION:
            raise InputError(_("this code was made by a newer kingsheet (code format {v}); this one reads "
                               "format {mine}: update kingsheet").format(v=int(version), mine=VERSION))
        if int(version) < 1 or not 1 <= int(number) <= int(of) or len(data) > PART_LETTERS + 1:
            raise InputError(_("this game code is damaged (its header cannot be read)"))
        if any(c not in _B45_VALUE for c in data):
            raise InputError(_("this game code is damaged (a letter outside the code's alphabet)"))
        if self.parts and (digest != self.digest or int(of) != self.of):
            raise InputError(_("this code is of another game than the {n} read so far; go on with "
                               "that game's codes, or start again").format(n=len(self.parts)))
        if not self.parts:
            self.of, self.digest = int(of), digest
        self.parts[int(number)] = data
        return Partial(tuple(sorted(self.parts)), self.of)

    @property
    def complete(self) -> bool:
        return bool(self.parts) and len(self.parts) == self.of

    def game(self) -> HandedOver:
        """The game the codes carry (every code read), or InputError: damaged, too large, not a game."""
        if not self.complete:
            raise InputError(_("{n} of {of} codes read; show the others").format(n=len(self.parts), of=self.of))
        data = "".join(self.parts[k] for k in range(1, self.of + 1))
        if hashlib.sha256(data.encode("ascii")).hexdigest()[:8].upper() != self.digest:
            raise InputError(_("these codes do not fit together (damaged, or of two versions of the game); "
                               "show them again"))
        try:
            packed = b45decode(data)
            unpacker = zlib.decompressobj(-15, DICTIONARY)
            raw = unpacker.decompress(packed, MOST_BYTES + 1)
        except (ValueError, KeyError, zlib.error):
            raise InputError(_("this game code is damaged (its data cannot be unpacked)")) from None
        if len(raw) > MOST_BYTES or unpacker.unconsumed_tail:
            raise InputError(_("these codes unpack to more than {mib} MiB: not a game").format(
                mib=MOST_BYTES // (1024 * 1024)))
        if not unpacker.eof:
            raise InputError(_("this game code is damaged (its data cannot be unpacked)"))
        try:
            fields = raw.decode("utf-8").split("\0")
        except UnicodeDecodeError:
            raise InputError(_("this game code is damaged (its data cannot be unpacked)")) from None
        if len(fields) not in (2, 4) or not FILE_NAME.fullmatch(fields[1]) or (
                len(fields) == 4 and not FILE_NAME.fullmatch(fields[2])):
            raise InputError(_("this game code is damaged (its data cannot be unpacked)"))
        if len(fields) == 4:
            return HandedOver(fields[1], fields[0], fields[2], fields[3])
        return HandedOver(fields[1], fields[0])


def read_codes(texts: Iterable[str]) -> HandedOver:
    """The game of a whole set of codes (a repeat of one is harmless)."""
    reading = Reading()
    for text in texts:
        reading.add(text)
    if not reading.parts:
        raise InputError(_("no game code was found"))
    return reading.game()


# -- one game further on -----------------------------------------------------------------------------

class Relation(Record):
    """How a game the codes carry stands to one already kept: ``kind`` is "same" (nothing new),
    "further" (the same game with more deals: brought up to date), "behind" (the kept one has deals
    the codes lack: nothing changed), "other" (another game) or "diverged" (the same start, then
    different deals: kept beside it, never over it); ``deals`` are the two counts (kept, given);
    ``differs``: the first deal that differs (diverged only)."""

    kind: str
    deals: tuple[int, int]
    differs: int = 0


def relation(kept: str, given: str) -> Relation:
    """``given`` (a game file's text) against ``kept``: the same game when everything but the deals
    is the same and one's deals begin the other's."""
    from kingsheet.core.tomltext import TomlProblem, parse

    try:
        a, b = parse(kept), parse(given)
    except TomlProblem:
        return Relation("other", (0, 0))
    da, db = a.pop("deals", []), b.pop("deals", [])
    if not isinstance(da, list) or not isinstance(db, list) or a != b:
        return Relation("other", (len(da) if isinstance(da, list) else 0, len(db) if isinstance(db, list) else 0))
    counts = (len(da), len(db))
    common = min(counts)
    if da[:common] != db[:common]:
        first = next(k for k, (x, y) in enumerate(zip(da, db), 1) if x != y)
        return Relation("diverged", counts, first)
    if counts[0] == counts[1]:
        return Relation("same", counts)
    return Relation("further" if counts[1] > counts[0] else "behind", counts)


# -- joining a live table: WebRTC's offer and answer as codes -----------------------------------------

#: The join codes' deflate dictionary: the lines every data-channel description has.
SIGNAL_DICTIONARY = (
    "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\na=group:BUNDLE 0\r\na=extmap-allow-mixed\r\n"
    "a=msid-semantic: WMS\r\nm=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\nc=IN IP4 0.0.0.0\r\n"
    "a=candidate:1 1 udp 2113937151 .local 5000 typ host generation 0 network-cost 999\r\n"
    "a=candidate:1 1 udp 2122260223 192.168.1.2 5000 typ host generation 0 network-id 1 network-cost 10\r\n"
    "a=candidate:1 1 tcp 1518280447 192.168.1.2 9 typ host tcptype active generation 0 network-id 1\r\n"
    "a=ice-ufrag:\r\na=ice-pwd:\r\na=ice-options:trickle\r\na=fingerprint:sha-256 \r\na=setup:actpass\r\n"
    "a=setup:active\r\na=mid:0\r\na=sctp-port:5000\r\na=max-message-size:262144\r\n"
).encode("ascii")
SIGNAL_PREFIX = "KSJ"
_SIGNAL = re.compile(r"KSJ(\d\d)([OA])([0-9A-F]{8})([0-9A-Z $%*+./:-]+)")
MOST_SIGNAL = 16 * 1024


class Signal(Record):
    """One side of a join: the offer (the phone that invites) or the answer, for one invitation."""

    kind: str  # "offer" or "answer"
    session: str  # 8 hex digits, the same in an offer and its answer
    sdp: str


def signal_code(signal: Signal) -> str:
    if signal.kind not in ("offer", "answer") or not re.fullmatch(r"[0-9A-F]{8}", signal.session):
        raise InputError(_("this is not an offer or an answer to join a table"))
    if len(signal.sdp) > MOST_SIGNAL:
        raise InputError(_("this connection's description is too long for a code"))
    packer = zlib.compressobj(9, zlib.DEFLATED, -15, 9, zlib.Z_DEFAULT_STRATEGY, SIGNAL_DICTIONARY)
    packed = packer.compress(signal.sdp.encode("utf-8")) + packer.flush()
    return f"{SIGNAL_PREFIX}{VERSION:02d}{'O' if signal.kind == 'offer' else 'A'}{signal.session}{b45encode(packed)}"


def read_signal(text: str) -> Signal:
    text = text.strip("\r\n\t")  # a space is one of base45's letters: kept
    match = _SIGNAL.fullmatch(text)
    if match is None:
        raise InputError(_("this code to join a table is damaged"))
    version, kind, session, data = match.groups()
    if int(version) > VERSION:
        raise InputError(_("this code was made by a newer kingsheet (code format {v}); this one reads "
                           "format {mine}: update kingsheet").format(v=int(version), mine=VERSION))
    try:
        unpacker = zlib.decompressobj(-15, SIGNAL_DICTIONARY)
        sdp = unpacker.decompress(b45decode(data), MOST_SIGNAL + 1).decode("utf-8")
    except (ValueError, KeyError, zlib.error, UnicodeDecodeError):
        raise InputError(_("this code to join a table is damaged")) from None
    if len(sdp) > MOST_SIGNAL or not unpacker.eof or not sdp.startswith("v=0"):
        raise InputError(_("this code to join a table is damaged"))
    return Signal("offer" if kind == "O" else "answer", session, sdp)
