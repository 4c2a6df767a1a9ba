"""Words on the sheets and in the terminal, in Russian and English."""

from __future__ import annotations

LABELS = {
    "minus": {"ru": "ИТОГО (−)", "en": "TOTAL (−)"},
    "plus": {"ru": "ИТОГО (+)", "en": "TOTAL (+)"},
    "total": {"ru": "ИТОГО", "en": "TOTAL"},
    "game": {"ru": "Игра", "en": "Game"},
    "points": {"ru": "Очки", "en": "Points"},
    "dealer": {"ru": "Сдаёт", "en": "Deals"},
    "declarer": {"ru": "Объявляет", "en": "Declares"},
    "orderer": {"ru": "Заказывает", "en": "Ordered by"},
    "leader": {"ru": "Лидер", "en": "Leader"},
    "deal": {"ru": "№", "en": "#"},
    "player": {"ru": "Игрок", "en": "Player"},
    "date": {"ru": "Дата", "en": "Date"},
    "place": {"ru": "Место", "en": "Place"},
    "stake": {"ru": "Ставка за очко", "en": "Stake a point"},
    "settlement": {"ru": "Расчёт", "en": "Settlement"},
    "units": {"ru": "Стоимость", "en": "Units"},
    "check": {"ru": "Проверка", "en": "Check"},
    "ordered_grid": {"ru": "Кто что заказал", "en": "Who ordered what"},
    "game_number": {"ru": "В столбце «Игра» достаточно написать номер игры из этой таблицы — его прочтёт "
                          "kingsheet scan.",
                    "en": "In the Game column, the game's number from this table is enough; kingsheet scan reads "
                          "it."},
    "pays": {"ru": "платит", "en": "pays"},
    "running": {"ru": "Счёт по ходу игры", "en": "Running totals"},
    "pairs": {"ru": "Каждый с каждым", "en": "Pair by pair"},
    "transfers": {"ru": "Переводы (наименьшее число)", "en": "Transfers (fewest)"},
    "problems": {"ru": "Ошибки", "en": "Problems"},
    "reminders": {"ru": "Напоминания", "en": "Reminders"},
}


def word(key: str, lang: str) -> str:
    return LABELS[key].get(lang) or LABELS[key]["ru"]
