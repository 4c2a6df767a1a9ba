"""Words on the sheets and in the terminal: English in the code, Russian in the catalog (context
«sheet»: a column's or a line's name, which may differ from the same English word elsewhere)."""

from __future__ import annotations

from kingsheet.core.i18n import NP_, pgettext, speaking

LABELS: dict[str, tuple[str, str]] = {
    "minus": NP_("sheet", "TOTAL (−)"),
    "plus": NP_("sheet", "TOTAL (+)"),
    "total": NP_("sheet", "TOTAL"),
    "game": NP_("sheet", "Game"),
    "points": NP_("sheet", "Points"),
    "dealer": NP_("sheet", "Deals"),
    "declarer": NP_("sheet", "Declares"),
    "orderer": NP_("sheet", "Ordered by"),
    "leader": NP_("sheet", "Leader"),
    "deal": NP_("sheet", "#"),
    "player": NP_("sheet", "Player"),
    "date": NP_("sheet", "Date"),
    "place": NP_("sheet", "Place"),
    "stake": NP_("sheet", "Stake per point"),
    "settlement": NP_("sheet", "Settlement"),
    "units": NP_("sheet", "Units"),
    "check": NP_("sheet", "Check"),
    "ordered_grid": NP_("sheet", "Who ordered what"),
    "game_number": NP_("sheet", "In the Game column, the game's number from this table is enough; kingsheet scan "
                                "reads it."),
    "pays": NP_("sheet", "pays"),
    "running": NP_("sheet", "Running totals"),
    "pairs": NP_("sheet", "Pair by pair"),
    "transfers": NP_("sheet", "Transfers (fewest)"),
    "problems": NP_("sheet", "Problems"),
    "reminders": NP_("sheet", "Reminders"),
}


def word(key: str, lang: str) -> str:
    with speaking(lang):
        return word_now(key)


def word_now(key: str) -> str:
    """A word of the sheets in the language spoken now."""
    return pgettext(*LABELS[key])
