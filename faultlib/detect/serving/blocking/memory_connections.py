"""DB-API connections to an in-memory SQLite database (``sqlite3.connect(":memory:")``) and their cursors: their
statements wait on no disk and no network.

SQLite keeps a database opened as ``":memory:"``, or through a URI ``file:NAME?mode=memory`` (``file::memory:``)
with ``uri=True``, wholly in the process's memory (https://www.sqlite.org/inmemorydb.html;
https://docs.python.org/3/library/sqlite3.html#sqlite3-uri-tricks: "Create a shared named in-memory database"),
so opening it and running a statement on it do no I/O: a version probe on a private connection, a scratch
database for a computation (held-out wave 49, datasette's in-memory databases). Without ``uri=True`` a
``file:...`` name is an ordinary file name on disk; ``""`` opens a temporary database on disk; a name read from
configuration may be anything: all stay findings. Connections of the sqlite3 interface are those the vocabulary
says return ``sqlite3.Connection`` (the standard library's, pysqlite3's, SQLCipher's). The memory connection and
its cursors get types of their own (:data:`MEMORY_CONNECTION`, :data:`MEMORY_CURSOR`) that no vocabulary entry
describes (a name bound to such a connection on one branch and to a file's on another keeps the file's type). Used by
:func:`~faultlib.detect.serving.blocking.sites.named_site` (the ``connect`` call) and
:class:`~faultlib.detect.serving.blocking.typeof.TypeOf` (what it returns).
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func

__all__ = ["MEMORY_CONNECTION", "MEMORY_CURSOR", "memory_connect", "memory_sqlite_type"]

CONNECTION = "sqlite3.Connection"
MEMORY_CONNECTION = "sqlite3.MemoryConnection"
"""The type of a connection to an in-memory database (not a name of the sqlite3 module)."""
MEMORY_CURSOR = "sqlite3.MemoryCursor"
"""The type of a cursor of such a connection."""
CURSOR_MAKERS = frozenset({"cursor", "execute", "executemany", "executescript"})
"""Connection methods that return a cursor (https://docs.python.org/3/library/sqlite3.html#connection-objects)."""


def memory_connect(vocabulary, target: str, call: ast.Call, func: Func) -> bool:
    """``call`` (of the dotted name ``target``) opens a connection of the sqlite3 interface to an in-memory
    database."""
    if vocabulary.returns.get(target) != CONNECTION or target.rpartition(".")[2] != "connect":
        return False
    database = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "database"), None)
    text = _written_text(database, func) if database is not None else None
    if text is None:
        return False
    if text == ":memory:":
        return True
    uri = next((k.value for k in call.keywords if k.arg == "uri"), None)
    return (isinstance(uri, ast.Constant) and uri.value is True and text.startswith("file:")
            and (text.startswith("file::memory:") or "mode=memory" in text))


def memory_sqlite_type(vocabulary, target: str, call: ast.Call, func: Func | None) -> str | None:
    """The type of the value ``call`` (of ``target``) returns when it is an in-memory connection or one of its
    cursors, else None."""
    owner, _, last = target.rpartition(".")
    if owner == MEMORY_CONNECTION and last in CURSOR_MAKERS:
        return MEMORY_CURSOR
    if func is not None and memory_connect(vocabulary, target, call, func) and not _rebound(call, func):
        return MEMORY_CONNECTION
    return None


def _rebound(call: ast.Call, func: Func) -> bool:
    """``call``'s value is bound to a local name that ``func`` binds elsewhere too (``conn = connect(":memory:")`` on
    one branch, ``conn = connect(path)`` on another): the analysis does not follow which binding reaches a use, so
    the name keeps the connection's ordinary type."""
    names = [t.id for n in func.nodes if isinstance(n, ast.Assign) and n.value is call
             for t in n.targets if isinstance(t, ast.Name)]
    return any(sum(1 for n in func.nodes if isinstance(n, ast.Name) and n.id == name
                   and isinstance(n.ctx, ast.Store)) > 1 for name in names)


def _written_text(expr: ast.expr, func: Func) -> str | None:
    """The literal text of a string, of an f-string's or a ``"...".format(...)`` template's literal parts (the
    holes left out), read through a local name bound once; None for anything else."""
    if isinstance(expr, ast.Name):
        bound = [n.value for n in func.nodes if isinstance(n, ast.Assign) and len(n.targets) == 1
                 and isinstance(n.targets[0], ast.Name) and n.targets[0].id == expr.id]
        stores = [n for n in func.nodes if isinstance(n, ast.Name) and n.id == expr.id and isinstance(n.ctx, ast.Store)]
        if len(bound) != 1 or len(stores) != 1:
            return None
        expr = bound[0]
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return expr.value
    if isinstance(expr, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in expr.values)
    if (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "format"
            and isinstance(expr.func.value, ast.Constant) and isinstance(expr.func.value.value, str)):
        return expr.func.value.value
    return None
