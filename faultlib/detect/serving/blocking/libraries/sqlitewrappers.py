"""SQLite through APSW ("Another Python SQLite Wrapper"), the sqlite3 alternative Red-DiscordBot cogs and others use.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`; the
standard library's ``sqlite3`` is in :mod:`~faultlib.detect.serving.blocking.libraries.stdlib`). APSW wraps the
SQLite C library directly: ``apsw.Connection(filename)`` opens the database file, and a statement runs to its first
row in the calling thread when ``Cursor.execute``/``executemany`` (or the ``Connection.execute`` shortcut) is called,
the rest as the cursor is fetched from. ``Connection.cursor()`` only builds the cursor. Without an entry, the
inference of unknown factories named the calls ``blocking_http`` (held-out wave 50, FlameCogs' WordStats).
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary

D = "blocking_db"
APSW = ("https://rogerbinns.github.io/apsw/connection.html#apsw.Connection (opens the database file) and "
        "https://rogerbinns.github.io/apsw/cursor.html#apsw.Cursor.execute (executes the statements; iterating or "
        "fetchone/fetchall steps the rest)")
_CONNECTIONS = ("apsw.Connection",)
_CURSORS = ("apsw.Cursor",)
_STATEMENTS = ("execute", "executemany")

SQLITE_WRAPPERS = Vocabulary(
    calls={name: (D, APSW) for name in _CONNECTIONS},
    families=(
        Family(_CONNECTIONS, {m: D for m in _STATEMENTS}, APSW),
        Family(_CURSORS, {m: D for m in (*_STATEMENTS, "fetchone", "fetchall")}, APSW),
    ),
    returns={**{name: name for name in _CONNECTIONS},
             **{f"{c}.cursor": _CURSORS[0] for c in _CONNECTIONS},
             **{f"{c}.{m}": _CURSORS[0] for c in (*_CONNECTIONS, *_CURSORS) for m in _STATEMENTS}},
)
