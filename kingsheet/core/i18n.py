"""The players' language: every message goes through here (gettext, catalogs in kingsheet/locale).

Source strings are English; ``kingsheet/locale/ru/LC_MESSAGES/kingsheet.po`` holds the Russian,
compiled to ``kingsheet.mo`` by ``python tools/i18n.py compile`` (a test keeps the two in step).
The active language is a context variable: a command sets it once; a server can set it per request.
"""

from __future__ import annotations

import gettext
import os
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache, wraps
from pathlib import Path
from typing import Any, TypeVar, cast

DEFAULT = "ru"  # the game's own language, when nothing says otherwise
SOURCE = "en"  # the language the messages are written in: no catalog
DOMAIN = "kingsheet"
LOCALE_DIR = Path(__file__).resolve().parent.parent / "locale"
#: a folder of catalogs beside the package's own (``xx/LC_MESSAGES/kingsheet.mo``): a translation
#: being written is tried with it before it goes into kingsheet/locale
EXTRA_LOCALE = "KINGSHEET_LOCALE_DIR"


def _catalog_dirs() -> tuple[Path, ...]:
    extra = os.environ.get(EXTRA_LOCALE)
    return (Path(extra), LOCALE_DIR) if extra else (LOCALE_DIR,)


def _spoken() -> tuple[str, ...]:
    """The languages kingsheet speaks: the game's own, English, then every other catalog found, in
    the order of their codes. Adding a language is adding its catalog."""
    found = {d.name for folder in _catalog_dirs() if folder.is_dir() for d in folder.iterdir()
             if (d / "LC_MESSAGES" / f"{DOMAIN}.mo").is_file()}
    return (DEFAULT, SOURCE, *sorted(found - {DEFAULT, SOURCE}))


LANGUAGES = _spoken()

_active: ContextVar[str] = ContextVar("kingsheet_language", default=DEFAULT)


class UnknownLanguage(ValueError):
    pass


def known(lang: str | None) -> str | None:
    """``ru``/``en`` (also ``ru_RU.UTF-8``, ``RU``, ``en-GB``) as one of LANGUAGES; None if not spoken here."""
    code = (lang or "").strip().replace("-", "_").split("_")[0].split(".")[0].lower()
    return code if code in LANGUAGES else None


def choose(explicit: str | None = None, environ: Mapping[str, str] | None = None) -> str:
    """``--lang``, then ``KINGSHEET_LANG``, then the locale (LANGUAGE, LC_ALL, LC_MESSAGES, LANG).

    An explicit choice or KINGSHEET_LANG that kingsheet does not speak is an error; a locale in
    another language gives English; no locale at all (C, POSIX, unset) gives Russian."""
    env = os.environ if environ is None else environ
    for given, source in ((explicit, "--lang"), (env.get("KINGSHEET_LANG"), "KINGSHEET_LANG")):
        if given:
            lang = known(given)
            if lang is None:
                raise UnknownLanguage(given, source)
            return lang
    for var in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(var, "")
        if value:
            first = value.split(":")[0]
            if first in ("C", "POSIX") or first.startswith(("C.", "POSIX.")):
                return DEFAULT
            return known(first) or "en"
    return DEFAULT


def use(lang: str) -> None:
    """Make ``lang`` the language of every message from here on (in this context)."""
    if lang not in LANGUAGES:
        raise UnknownLanguage(lang, "use")
    _active.set(lang)


@contextmanager
def speaking(lang: str) -> Iterator[None]:
    """Messages in ``lang`` inside the block (a sheet printed in another language than the prompt's)."""
    token = _active.set(lang if lang in LANGUAGES else DEFAULT)
    try:
        yield
    finally:
        _active.reset(token)


F = TypeVar("F", bound=Callable[..., Any])


def speaks(func: F) -> F:
    """A renderer with a ``lang`` parameter: everything it writes, messages and money included, is in
    that language (the default when a caller leaves it out)."""
    import inspect

    params = list(inspect.signature(func).parameters.values())
    where = next(k for k, p in enumerate(params) if p.name == "lang")
    default = params[where].default

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        lang = args[where] if len(args) > where else kwargs.get("lang", default)
        with speaking(lang):
            return func(*args, **kwargs)

    return cast(F, wrapper)


def language() -> str:
    return _active.get()


@cache
def catalog(lang: str) -> gettext.NullTranslations:
    if lang == SOURCE:
        return gettext.NullTranslations()
    for folder in _catalog_dirs():
        if (folder / lang / "LC_MESSAGES" / f"{DOMAIN}.mo").is_file():
            return gettext.translation(DOMAIN, localedir=folder, languages=[lang])
    return gettext.translation(DOMAIN, localedir=LOCALE_DIR, languages=[lang])


def _(message: str) -> str:
    """The message in the active language."""
    return catalog(_active.get()).gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form for ``n`` in the active language (Russian has three: 1 сдача, 2 сдачи, 5 сдач)."""
    return catalog(_active.get()).ngettext(singular, plural, n)


def pgettext(context: str, message: str) -> str:
    """The message in the active language, where one English word has two Russian ones by ``context``."""
    return catalog(_active.get()).pgettext(context, message)


def in_language(lang: str, pair: tuple[str, str]) -> str:
    """A word of a table marked with ``NP_`` in ``lang`` (a sheet in another language than the messages')."""
    return catalog(lang if lang in LANGUAGES else DEFAULT).pgettext(*pair)


def NP_(context: str, message: str) -> tuple[str, str]:
    """Marks a message and its context for the catalog where it is defined (a table of words); it is
    translated where it is shown, by ``pgettext(*pair)``."""
    return context, message


def N_(message: str) -> str:
    """Marks a string for the catalog where it is defined; it is translated where it is shown."""
    return message
