"""The handwriting the reader's tools use is kept apart from the handwriting an outside measurement
keeps for itself (tools/scan/outside-held-out.txt): no list of fonts, families or Debian packages in
tools/scan/ (training, validation, the bench) names any of them, or a variant of one."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "tools" / "scan"))

import handwriting  # noqa: E402
import sources  # noqa: E402


def _key(name: str) -> str:
    """A family's name as letters alone, lower case ("Shantell Sans", "shantell-sans", "ShantellSans")."""
    return re.sub(r"[^a-z0-9]", "", name.lower())


def _debian_fonts() -> list[str]:
    return [*handwriting.TRAIN_FONTS, *handwriting.HELD_OUT_FONTS, *handwriting.FRESH_FONTS,
            *handwriting.UNSEEN_FONTS]


def _google_families() -> list[str]:
    return [*sources.GOOGLE, *sources.VALIDATE_GOOGLE, *getattr(sources, "MORE_GOOGLE", [])]


def test_the_outside_list_is_read_whole():
    assert len(sources.OUTSIDE_HELD_OUT) >= 11
    assert "shantell-sans" in sources.OUTSIDE_HELD_OUT
    assert "fonts-dustin" in sources.OUTSIDE_HELD_OUT_PACKAGES


def test_no_google_family_of_the_project_is_held_out_outside():
    outside = [_key(n) for n in sources.OUTSIDE_HELD_OUT]
    clashes = [name for name in _google_families() if any(_key(name).startswith(o) for o in outside)]
    assert clashes == []


def test_no_debian_font_of_the_project_is_held_out_outside():
    outside = [_key(n) for n in sources.OUTSIDE_HELD_OUT]
    packages = set(sources.OUTSIDE_HELD_OUT_PACKAGES)
    for font in _debian_fonts():
        assert handwriting.package(font) not in packages, font
        assert not any(o in _key(Path(font).stem) for o in outside), font


def test_the_copy_is_the_outside_teams_list():
    """Where the outside team's own list is at hand (beside the repository), the copy here holds every name of it."""
    theirs = ROOT.parent / "shared" / "scan-held-out-fonts.txt"
    if not theirs.exists():
        pytest.skip("the outside team's list is not beside this checkout")
    names = [line.split("(")[0].strip() for line in theirs.read_text(encoding="utf-8").splitlines()
             if line.strip() and not line.startswith("#")]
    assert set(names) <= set(sources.OUTSIDE_HELD_OUT)
