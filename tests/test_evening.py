"""A whole evening at a real terminal (a pty, as a person has it), entirely inside `kingsheet play`:
12 deals with five slips, an edit of deal 3, an undo, Ctrl-C in the middle and a resumed session,
and at the end the sheet and the money pair by pair and through the pot. In Russian and English;
no traceback, and the Russian run has no English word outside names, ids and the file's path."""

from __future__ import annotations

import os
import re
import shutil
import sys
from pathlib import Path

import pytest

pexpect = pytest.importorskip("pexpect")

PLAYERS = "Аня,Боря,Вася,Галя"
# each line of the first sitting, and what it is
FIRST = [
    ("малчики 0 -8 -4 -4", "slip: a game's name mistyped"),
    ("-4 -6 -2 -4", "deal 1, Взятки"),
    ("-6 0 -8 -2 0", "slip: five numbers for four players"),
    ("-6 0 -8 -2", "deal 2, Черви"),
    ("-4 -8 0 -2", "slip: the row does not add up"),
    ("-4 -8 0 -4", "deal 3, Мальчики"),
    ("0 -4 -8 -4", "deal 4, Девочки"),
    ("{edit} 3 -8 -4 0 -4", "deal 3 corrected"),
    ("0 0 -16 0", "deal 5, Кинг"),
    ("Аня: {tricks}=2; Петя: {tricks}=6", "slip: no such player"),
    ("-8 0 0 -8", "deal 6, Две последние"),
]
SECOND = [
    ("-24 -24 -24 -24", "deal 7, Ералаш"),
    ("{undo}", "deal 7 removed"),
    ("-24 -24 -24 -24", "deal 7 again"),
    ("40 8 24 25", "slip: АнтиЕралаш adds up to 97"),
    ("40 8 24 24", "deal 8, АнтиЕралаш"),
    ("12 6 6 0", "deal 9, trumps"),
    ("6 9 9 0", "deal 10"),
    ("{check}", ""),
    ("3 6 9 6", "deal 11"),
    ("{show}", ""),
    ("{settle}", ""),
    ("9 3 3 9", "deal 12: the sheet is complete, and the prompt stays open"),
    ("{edit} 12 3 3 9 9", "a correction after the end: the sheet and the money again"),
    ("{quit}", ""),
]
WORDS = {"ru": {"edit": "исправить", "undo": "отмена", "check": "проверка", "show": "лист", "settle": "расчёт",
                "tricks": "взятки", "quit": "выход"},
         "en": {"edit": "edit", "undo": "undo", "check": "check", "show": "show", "settle": "settle",
                "tricks": "tricks", "quit": "quit"}}
PROMPT = r"— [^\r\n—]*: $"


def _kingsheet() -> list[str]:
    found = shutil.which("kingsheet", path=str(Path(sys.executable).parent))
    return [found] if found else [sys.executable, "-m", "kingsheet.cli"]


class _Log:
    def __init__(self) -> None:
        self.parts: list[str] = []

    def write(self, text: str) -> None:
        self.parts.append(text)

    def flush(self) -> None:
        pass


def evening(tmp_path: Path, lang: str) -> tuple[str, list[int | None]]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KINGSHEET_", "LC_", "LANG"))}
    env.update(KINGSHEET_STATE_DIR=str(tmp_path / "state"), TERM="xterm", NO_COLOR="1", HOME=str(tmp_path),
               KINGSHEET_LANG=lang)
    words = WORDS[lang]
    log = _Log()
    codes = []
    cmd = _kingsheet()
    for args, script, interrupt in (
            (["new", "friday.toml", "--rules", "blank-4", "--players", PLAYERS, "--stake", "0.50"], [], False),
            (["play"], [line.format(**words) for line, _ in FIRST], True),
            (["play"], [line.format(**words) for line, _ in SECOND], False)):
        child = pexpect.spawn(cmd[0], cmd[1:] + args, env=env, cwd=str(tmp_path), encoding="utf-8",
                              dimensions=(24, 80), timeout=30)
        child.logfile_read = log
        for line in script:
            child.expect(PROMPT)
            child.sendline(line)
        if interrupt:
            child.expect(PROMPT)
            child.sendintr()
        child.expect(pexpect.EOF)
        child.close()
        codes.append(child.exitstatus)
    return "".join(log.parts).replace("\r\n", "\n"), codes


# words that may stay Latin in a Russian run: the ids a person types or reads in a file
IDS = {"kingsheet", "export", "play", "friday", "toml", "pdf", "blank", "declarer", "bid", "buyer", "price", "orderer",
       "contract", "xterm"}


def english_words(text: str, names: tuple[str, ...] = ()) -> set[str]:
    """Latin words in ``text`` outside paths, ids and names."""
    out = set()
    for token in text.split():
        if "/" in token or "=" in token:
            continue
        for word in re.findall(r"[A-Za-z]{2,}", token):
            if word.lower() not in IDS and word not in names:
                out.add(word)
    return out


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_an_evening_at_a_real_terminal(tmp_path, lang):
    out, codes = evening(tmp_path, lang)
    assert codes == [0, 130, 0], out
    assert "Traceback" not in out
    said = {
        "ru": ["нет игры «малчики» в blank-4; может быть, «Мальчики»?",
               "очков указано 5, а игроков 4",
               "сумма строки −14, должно быть −16",
               "за столом нет игрока «Петя»",
               "сумма строки 97, должно быть 96",
               "✓ сдача 3 исправлена", "удалена сдача 7 (Ералаш: −24 −24 −24 −24)",
               "прервано; 6 сдач сохранено", "каждый с каждым", "лист заполнен",
               "чтобы напечатать: kingsheet export", "1:Аня (сдаёт)   2:Боря (ход)", "13,50 ₽"],
        "en": ["no game «малчики» in blank-4; did you mean «Мальчики»?",
               "5 points given for 4 players",
               "row sums to −14, expected −16",
               "no player 'Петя' at the table",
               "row sums to 97, expected 96",
               "✓ deal 3 corrected", "removed deal 7 (Eralash: −24 −24 −24 −24)",
               "interrupted; 6 deals saved", "pairwise", "the sheet is complete",
               "to print it: kingsheet export", "1:Аня (deals)   2:Боря (turn)", "13.50 ₽"],
    }[lang]
    missing = [s for s in said if s not in out]
    assert not missing, out
    # the game's own settlement (pairwise) only, and «the sheet is complete» once at the last deal
    assert ("расчёт: через стол" if lang == "ru" else "method: pot") not in out
    summary, alone = ("лист заполнен;", "лист заполнен") if lang == "ru" else ("complete;", "the sheet is complete")
    lines = out.splitlines()
    assert any(line.startswith(summary) for line in lines)  # the sheet's summary says it is complete
    assert not any(line.strip() == alone for line in lines)  # and nothing says it again
    if lang == "ru":
        assert english_words(out) == set(), out
