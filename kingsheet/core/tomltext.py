"""Reading TOML text that a person (or an attacker) wrote: every failure is one plain sentence."""

from __future__ import annotations

import tomllib
from typing import Any


class TomlProblem(Exception):
    """The text is not usable TOML; the message says where."""


def parse(text: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise TomlProblem(f"not valid TOML: {_located(exc, text)}") from None
    except RecursionError:
        raise TomlProblem("not a usable file: tables or arrays nested too deeply") from None


def _located(exc: tomllib.TOMLDecodeError, text: str) -> str:
    """tomllib names line and column, except at the end of the text: name it there too."""
    msg = str(exc)
    if "end of document" in msg:
        lines = text.splitlines() or [""]
        msg = msg.replace("(at end of document)", f"(at line {len(lines)}, column {len(lines[-1]) + 1}, the end)")
    return msg
