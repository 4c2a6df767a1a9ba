"""The words `--help` puts beside a parameter: FILE, N, TEXT, in the reader's language.

Typer 0.2x writes a parameter's Python type there (`<list[str]>`, `<int range>`, `{file}`), which
reads as a programmer's note to a player. This swaps those three methods of typer's parameter
classes for plain words; a typer without them keeps its own (the help still works, only plainer)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, get_args, get_origin

from kingsheet.core.i18n import _


def _word(annotation: Any) -> str:
    """A type as a word a player reads: FILE, N, NUMBER, TEXT."""
    if get_origin(annotation) is list:
        (annotation,) = get_args(annotation)
    if isinstance(annotation, type) and issubclass(annotation, Path):
        return _("FILE")
    if annotation is int:
        return "N"
    if annotation is float:
        return _("NUMBER")
    return _("TEXT")


def _option_type(self: Any, ctx: Any) -> str:
    if getattr(self, "metavar", None):  # the option says what it takes (a folder is not a FILE)
        return str(self.metavar)
    desc = self.type_descriptor
    if desc.is_choice:
        return "|".join(str(getattr(c, "value", c)) for c in desc.choices or ())
    return _word(desc.annotation)


def _argument_type(self: Any, ctx: Any) -> str:
    return ""  # the argument's own name says what it is


def _name(self: Any) -> str:
    return str(self.metavar if self.metavar is not None else self.name.upper())


def _usage_name(self: Any) -> str:
    name = _name(self)
    if self.metavar is None:
        name = name if self.required else f"[{name}]"
        if self.nargs != 1:
            name += "..."
    return name


def _listing_name(self: Any) -> str:
    return _name(self) + ("..." if self.metavar is None and self.nargs != 1 else "")


def install() -> None:
    from typer import core

    argument, option = getattr(core, "TyperArgument", None), getattr(core, "TyperOption", None)
    if argument is None or option is None or not hasattr(argument, "display_type"):
        return
    argument.display_type = _argument_type
    option.display_type = _option_type
    if hasattr(argument, "_usage_display_name"):
        argument._usage_display_name = _usage_name
    if hasattr(argument, "_rich_display_name"):
        argument._rich_display_name = _listing_name
