"""Reading TOML text that a person (or an attacker) wrote: every failure is one plain sentence."""

from __future__ import annotations

import tomllib
from typing import Any

from kingsheet.core.i18n import _


class TomlProblem(Exception):
    """The text is not usable TOML; the message says where."""


def parse(text: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise TomlProblem(_("not valid TOML: {exc}").format(exc=_located(exc, text))) from None
    except RecursionError:
        raise TomlProblem(_("not a usable file: tables or arrays nested too deeply")) from None


def _located(exc: tomllib.TOMLDecodeError, text: str) -> str:
    """tomllib names line and column, except at the end of the text: name it there too."""
    msg = str(exc)
    if "end of document" in msg:  # tomlkit's words
        lines = text.splitlines() or [""]
        msg = msg.replace("(at end of document)", _("(at line {lines}, column {value}, the end)").format(lines=len(lines), value=len(lines[-1]) + 1))
    return msg
