"""Names of the games and of what is counted in them, in Russian and English.

Templates may override a game's label (``[labels]``); everything else reads from here.
"""

from __future__ import annotations

import unicodedata

from kingsheet.core.i18n import NP_, language

#: What is counted in one deal, in the order of the paper blank.
CATEGORIES: tuple[str, ...] = ("tricks", "hearts", "boys", "girls", "king", "last")

#: Single games are the categories; Ералаш counts all six; trumps count tricks at their own unit.
BASE_GAMES: tuple[str, ...] = (*CATEGORIES, "eralash", "trumps", "penalty")

GAME_LABELS: dict[str, dict[str, str]] = {
    "tricks": {"ru": "Взятки", "en": "Tricks"},
    "hearts": {"ru": "Черви", "en": "Hearts"},
    "boys": {"ru": "Мальчики", "en": "Boys"},
    "girls": {"ru": "Девочки", "en": "Girls"},
    "king": {"ru": "Кинг", "en": "King"},
    "last": {"ru": "Две последние", "en": "Last two"},
    "eralash": {"ru": "Ералаш", "en": "Eralash"},
    "trumps": {"ru": "Козыри", "en": "Trumps"},
    "penalty": {"ru": "Сдача", "en": "Deal"},
}

#: Names a person may type for a count key in ``--taken`` or ``taken = [...]``.
CATEGORY_ALIASES: dict[str, str] = {
    "tricks": "tricks", "взятки": "tricks", "взятка": "tricks", "взяток": "tricks", "t": "tricks",
    "hearts": "hearts", "черви": "hearts", "червы": "hearts", "червей": "hearts", "h": "hearts",
    "boys": "boys", "мальчики": "boys", "мальчиков": "boys", "b": "boys",
    "girls": "girls", "девочки": "girls", "девочек": "girls", "дамы": "girls", "g": "girls",
    "king": "king", "кинг": "king", "k": "king",
    "last": "last", "последние": "last", "последняя": "last", "две последние": "last",
    "l": "last",
}

#: What is counted, as a message names it («Аня: мальчики — 3, а в сдаче их 2»).
COUNT_WORDS: dict[str, dict[str, str]] = {
    "tricks": {"ru": "взятки", "en": "tricks"},
    "hearts": {"ru": "черви", "en": "hearts"},
    "boys": {"ru": "мальчики", "en": "boys"},
    "girls": {"ru": "девочки", "en": "girls"},
    "king": {"ru": "Кинг", "en": "the King"},
    "last": {"ru": "последние взятки", "en": "last tricks"},
    "trumps": {"ru": "взятки", "en": "tricks"},
}

#: One card of a counted kind («K♥ — черва и мальчик»).
CARD_WORDS: dict[str, dict[str, str]] = {
    "hearts": {"ru": "черва", "en": "a heart"},
    "boys": {"ru": "мальчик", "en": "a boy"},
    "girls": {"ru": "девочка", "en": "a girl"},
    "king": {"ru": "Кинг", "en": "the King"},
}


def count_word(cat: str) -> str:
    """What is counted, in the language of the messages."""
    return COUNT_WORDS[cat][language()]


def card_word(cat: str) -> str:
    return CARD_WORDS[cat][language()]


#: A unit's phrase in the legend («−2 за взятку»), in the catalog under the context «unit».
UNIT_PHRASES: dict[str, tuple[str, str]] = {
    "tricks": NP_("unit", "a trick"),
    "hearts": NP_("unit", "a heart"),
    "boys": NP_("unit", "a boy"),
    "girls": NP_("unit", "a queen"),
    "king": NP_("unit", "the King (K♥)"),
    "last": NP_("unit", "each of the last tricks"),
    "trumps": NP_("unit", "a trick in a trump deal"),
}

#: Who the boys are, in the catalog under the context «boys».
BOYS_PHRASES: dict[str, tuple[str, str]] = {
    "jacks": NP_("boys", "jacks"),
    "kings": NP_("boys", "kings"),
    "jacks+kings": NP_("boys", "jacks and kings"),
}


def fold(text: str) -> str:
    """Fold a label for matching: case, ё/е, spaces and punctuation around '+' do not matter."""
    text = unicodedata.normalize("NFC", text).casefold().replace("ё", "е")
    return " ".join(text.replace("(", " ").replace(")", " ").split()).replace(" +", "+")
