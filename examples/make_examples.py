"""Write one complete evening per template into examples/ (run by hand when templates change).

Every deal is a real one: a shuffled deck dealt and played by the rules of play
(kingsheet.simulate), so each example is consistent by construction; tests check them all.
Usage: python examples/make_examples.py [--all]
"""

from __future__ import annotations

import random
from pathlib import Path

from kingsheet.core.simulate import play_game
from kingsheet.files.templates import load_rules, template_ids

HERE = Path(__file__).parent
NAMES = ["Аня", "Боря", "Вася", "Галя", "Дима", "Женя"]
SUIT_NAMES = {"S": "пики", "C": "трефы", "D": "бубны", "H": "черви"}


def q(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def write_example(tid: str, seed: int) -> str:
    rules = load_rules(tid)
    rng = random.Random(seed)
    players = NAMES[: rules.players]
    out = [
        "format = 1",
        f"rules = {q(tid)}",
        f"title = {q('Пятница у Ани: ' + rules.template.name['ru'])}",
        "date = 2026-11-27",
        f"players = [{', '.join(q(p) for p in players)}]",
        f"first_dealer = {q(players[0])}",
        "",
        "[options]",
        *[f"{k} = {q(v)}" for k, v in rules.options.items()],
        "",
        "[money]",
        'stake = "0.50"',
        'currency = "RUB"',
        'method = "pairwise"',
    ]
    for k, (played, who) in enumerate(play_game(rules, rng), 1):
        game = rules.games[played.game]
        out += ["", "[[deals]]", f"game = {q(played.game)}"]
        if rules.order != "fixed":
            out.append(f"orderer = {q(players[who])}")
        points = list(played.points)
        if game.kind == "trumps":
            out.append(f"declarer = {q(players[who])}")
            out.append(f"contract = {q(rng.choice(list(SUIT_NAMES.values())))}")
            if rules.bidding:
                bid = rng.randint(1, 3)
                taken = played.taken[who]["tricks"]
                points[who] = game.units["trumps"] * max(0, taken - bid)
                out.append(f"bid = {bid}")
        if played.contract:
            out.append(f"declarer = {q(players[who])}")
            out.append(f"contract = {q(played.contract)}")
            if played.bid is not None:
                out.append(f"bid = {played.bid}")
        if game.kind == "eralash" and k % 2:
            out.append("taken = [")
            for t in played.taken:
                inner = ", ".join(f"{c} = {v}" for c, v in t.items())
                out.append(f"  {{ {inner} }},")
            out.append("]")
        else:
            out.append(f"points = [{', '.join(str(p) for p in points)}]")
    return "\n".join(out) + "\n"


CLUB = ["Аня", "Боря", "Вася", "Галя", "Дима", "Ева"]


def write_club(folder: Path, count: int, seed: int) -> list[Path]:
    """A club's year of evenings played with real cards: four of six people a night, on three rule
    systems, at stakes and methods that vary, with a copy of one file and a torn one among them, and
    a payment in club.toml (tests/test_club.py, bench.py club)."""
    import shutil

    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for k in range(count):
        tid = rng.choice(["blank-4", "short", "symmetric"])
        text = write_example(tid, seed * 100_000 + k)
        people = rng.sample(CLUB, 4)
        for i, old in enumerate(NAMES[:4]):
            text = text.replace(q(old), f'"#{i}"')
        for i, name in enumerate(people):
            text = text.replace(f'"#{i}"', q(name))
        day = f"2026-{1 + k * 12 // count:02d}-{1 + k % 28:02d}"
        text = text.replace("date = 2026-11-27", f"date = {day}")
        text = text.replace('stake = "0.50"', f'stake = "{rng.choice(["0.50", "1", "0.10", "2"])}"')
        text = text.replace('method = "pairwise"', f'method = "{rng.choice(["pairwise", "pot"])}"')
        path = folder / f"{day}-{k}.toml"
        path.write_text(text, encoding="utf-8")
        out.append(path)
    shutil.copy(out[0], folder / "copy-of-first.toml")
    (folder / "torn.toml").write_text(out[1].read_text(encoding="utf-8")[:300], encoding="utf-8")
    (folder / "club.toml").write_text('[[paid]]\nfrom = "Аня"\nto = "Боря"\namount = "3.30"\n', encoding="utf-8")
    return out


def main() -> None:
    """Write the examples that are missing; --all rewrites every one (the mistakes derive from blank-4)."""
    import sys
    import zlib

    rewrite = "--all" in sys.argv
    for tid in template_ids():
        path = HERE / f"{tid}.toml"
        if path.exists() and not rewrite:
            continue
        path.write_text(write_example(tid, 1000 + zlib.crc32(tid.encode()) % 1000), encoding="utf-8")
        print(f"wrote examples/{tid}.toml")


if __name__ == "__main__":
    main()
