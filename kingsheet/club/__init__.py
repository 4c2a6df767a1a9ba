"""A club's history: a folder of game files added up evening by evening (`kingsheet club`).

``config`` reads the club's own file (club.toml: its name, aliases, seasons and the payments made),
``index`` keeps an SQLite index of the games beside them, brought up to date on every command, and
``queries`` answers the standings, the ledger and a player's figures from it. All of it is pure
Python (sqlite3 is in the standard library, Pyodide's too)."""
