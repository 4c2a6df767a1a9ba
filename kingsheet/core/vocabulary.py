"""Names of the games and of what is counted in them, in Russian and English.

Templates may override a game's label (``[labels]``); everything else reads from here.
"""

from __future__ import annotations

import unicodedata

from kingsheet.core.i18n import LANGUAGES, NP_, in_language, pgettext

#: What is counted in one deal, in the order of the paper blank.
CATEGORIES: tuple[str, ...] = ("tricks", "hearts", "boys", "girls", "king", "last")
#: The categories that are cards (the others are tricks).
CARD_CATEGORIES: tuple[str, ...] = ("hearts", "boys", "girls", "king")

#: Single games are the categories; Ералаш counts all six; trumps count tricks at their own unit.
BASE_GAMES: tuple[str, ...] = (*CATEGORIES, "eralash", "trumps", "penalty")

#: A game's name on the sheet, in the catalog under the context «game» (a template may give its own).
GAME_LABELS: dict[str, tuple[str, str]] = {
    "tricks": NP_("game", "Tricks"),
    "hearts": NP_("game", "Hearts"),
    "boys": NP_("game", "Boys"),
    "girls": NP_("game", "Girls"),
    "king": NP_("game", "King"),
    "last": NP_("game", "Last two"),
    "eralash": NP_("game", "Eralash"),
    "trumps": NP_("game", "Trumps"),
    "penalty": NP_("game", "Deal"),
}
#: «Две последние» where a deck has only one last trick.
LAST_ONE_LABEL = NP_("game", "The last trick")

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

#: What is counted, as a message names it («Аня: мальчики — 3, а в сдаче их 2»), context «count».
COUNT_WORDS: dict[str, tuple[str, str]] = {
    "tricks": NP_("count", "tricks"),
    "hearts": NP_("count", "hearts"),
    "boys": NP_("count", "boys"),
    "girls": NP_("count", "girls"),
    "king": NP_("count", "the King"),
    "last": NP_("count", "last tricks"),
    "trumps": NP_("count", "tricks"),
}

#: One card of a counted kind («K♥ — черва и мальчик»), context «card».
CARD_WORDS: dict[str, tuple[str, str]] = {
    "hearts": NP_("card", "a heart"),
    "boys": NP_("card", "a boy"),
    "girls": NP_("card", "a girl"),
    "king": NP_("card", "the King"),
}


def count_word(cat: str) -> str:
    """What is counted, in the language of the messages."""
    return pgettext(*COUNT_WORDS[cat])


def card_word(cat: str) -> str:
    return pgettext(*CARD_WORDS[cat])


def game_word(game: str, lang: str) -> str:
    """A base game's own name (``tricks``, ``eralash``…) in ``lang``; the id itself if it has none."""
    pair = GAME_LABELS.get(game)
    return in_language(lang, pair) if pair else game


def in_every_language(pair: tuple[str, str]) -> dict[str, str]:
    """A word of the catalog in each language kingsheet speaks (a game's labels, read in either)."""
    return {lang: in_language(lang, pair) for lang in LANGUAGES}


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
