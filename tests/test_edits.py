"""Editing a game file's text: the quick edits (a deal appended to the text, one deal's table
edited alone, the last cut off) read exactly as tomlkit's edits of the whole document, on files
written every way a person writes them; where the quick edit would read otherwise, tomlkit's is
what is returned."""

from __future__ import annotations

import tomllib

import tomlkit
from hypothesis import given, settings
from hypothesis import strategies as st

from kingsheet.files import edits

HEAD = 'format = 1\nrules = "blank-4"\nplayers = ["Аня", "Боря", "Вася", "Галя"]\n'
ROWS = [("tricks", [-4, -6, -6, 0]), ("hearts", [-4, -4, 0, -8]), ("boys", [0, -4, 0, -12]),
        ("girls", [-4, -4, -4, -4]), ("king", [0, -16, 0, 0])]

comment = st.sampled_from(["", "# a comment\n", "# [[deals]] in a comment\n", "\n\n", "   # indented\n"])
money = st.sampled_from(["", '\n[money]\nstake = "1"\n'])
note = st.sampled_from([None, "просто", 'a note with "[[deals]]" inside', "a [[deals]] note"])


@st.composite
def game_texts(draw: st.DrawFn) -> str:
    text = HEAD + draw(comment)
    k = draw(st.integers(0, len(ROWS)))
    for gid, pts in ROWS[:k]:
        text += draw(comment) + f'[[deals]]\ngame = "{gid}"  # the game\npoints = {pts}\n'
        n = draw(note)
        if n:
            text += f"note = '{n}'\n"
        text += draw(comment)
    where = draw(st.sampled_from(["start", "end"]))
    extra = draw(money)
    return (text + extra) if where == "end" else text.replace("\n", "\n" + extra, 1) if extra else text


def _whole(text: str, work) -> dict:
    """What tomlkit's edit of the whole document reads as."""
    return tomllib.loads(work(text))


@settings(max_examples=150, deadline=None)
@given(game_texts(), st.sampled_from(ROWS), note)
def test_the_quick_edits_read_as_tomlkits(text, row, n):
    fields = {"game": row[0], "points": row[1], **({"note": n} if n else {})}
    # appending
    quick = edits.append_deal(text, fields)
    doc = tomlkit.parse(text.rstrip("\n") + "\n\n" if text.strip() else text)
    deals = doc.get("deals") or tomlkit.aot()
    deals.append(edits.deal_table(fields))
    if "deals" not in doc:
        doc.append("deals", deals)
    assert tomllib.loads(quick) == tomllib.loads(tomlkit.dumps(doc))
    assert text.rstrip("\n") in quick  # the person's text is kept as written
    count = len(tomllib.loads(text).get("deals", []))
    if count:
        # editing every deal
        for number in range(1, count + 1):
            quick = edits.replace_deal(text, number, fields)
            assert tomllib.loads(quick) == tomllib.loads(edits._replaced(text, number, fields))
        # undoing
        quick, n_removed = edits.remove_last(text)
        want = tomllib.loads(text)
        want["deals"].pop()
        if not want["deals"]:
            del want["deals"]
        assert n_removed == count and tomllib.loads(quick) == want


def test_a_deal_header_inside_a_multiline_string_falls_back_to_tomlkit():
    text = HEAD + 'title = """\n[[deals]]\nnot a deal\n"""\n\n[[deals]]\ngame = "tricks"\npoints = [-4, -6, -6, 0]\n'
    fields = {"game": "tricks", "points": [-4, -4, -4, -4]}
    assert tomllib.loads(edits.replace_deal(text, 1, fields))["deals"][0]["points"] == [-4, -4, -4, -4]
    cut, n = edits.remove_last(text)
    assert n == 1 and "deals" not in tomllib.loads(cut) and tomllib.loads(cut)["title"].startswith("[[deals]]")


def test_a_plain_file_is_edited_without_parsing_it_whole(monkeypatch):
    """A long file (comments padding it to megabytes) is never handed to tomlkit whole."""
    text = HEAD + "# padding\n" * 1000 + "".join(f'\n[[deals]]\ngame = "{g}"\npoints = {p}\n' for g, p in ROWS)

    def whole(doc_text: str) -> None:
        assert len(doc_text) < 200, "the whole file went to tomlkit"
        return tomlkit.parse(doc_text)

    monkeypatch.setattr(edits, "_parse", whole)
    fields = {"game": "last", "points": [-8, -8, 0, 0]}
    assert tomllib.loads(edits.append_deal(text, fields))["deals"][-1]["game"] == "last"
    assert tomllib.loads(edits.replace_deal(text, 3, fields))["deals"][2]["points"] == [-8, -8, 0, 0]
    assert len(tomllib.loads(edits.remove_last(text)[0])["deals"]) == len(ROWS) - 1


@settings(max_examples=100, deadline=None)
@given(st.fixed_dictionaries({"game": st.sampled_from(["tricks", "eralash", "trumps"])}, optional={
    "declarer": st.text(min_size=1, max_size=8), "bid": st.integers(0, 13), "contract": st.sampled_from(["пики", 'a"b\\c']),
    "points": st.lists(st.integers(-96, 96), min_size=4, max_size=4),
    "taken": st.lists(st.dictionaries(st.sampled_from(["tricks", "hearts", "king"]), st.integers(0, 8), max_size=3),
                      min_size=4, max_size=4),
    "note": st.text(max_size=20), "forced": st.booleans(), "confirm": st.booleans()}))
def test_a_deal_written_without_tomlkit_is_written_as_tomlkit_writes_it(fields):
    doc = tomlkit.document()
    deals = tomlkit.aot()
    deals.append(edits.deal_table(fields))
    doc.append("deals", deals)
    assert tomllib.loads(edits._tables([fields])) == tomllib.loads(tomlkit.dumps(doc))
    if all(ch.isprintable() for v in fields.values() if isinstance(v, str) for ch in v):
        assert edits._tables([fields]) == tomlkit.dumps(doc)  # the same text, byte for byte
