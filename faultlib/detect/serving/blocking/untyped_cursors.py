"""A PEP 249 cursor of a value whose type the analysis does not know, used without ``await``.

``with closing(bot.database.cursor()) as cur: cur.execute(sql, args); row = cur.fetchone()`` in a coroutine whose
``bot`` parameter nothing types (a command handler looked up by name in a registry filled with ``getattr`` at import
time): the analysis cannot tell which driver ``bot.database`` is, but the code says enough. PEP 249 is a
synchronous interface: a connection's ``cursor()`` returns a cursor whose ``execute`` "prepare[s] and execute[s] a
database operation" and whose ``fetchone``/``fetchall``/``fetchmany`` return rows, and the connection's ``commit``/
``rollback`` end the transaction, each call waiting for the database (https://peps.python.org/pep-0249/#cursor-
objects, #commit). The asyncio drivers keep the names but make them coroutines (aiosqlite, aiomysql, aiopg,
psycopg's ``AsyncCursor``: ``await cur.execute(...)``), so a cursor whose calls are never awaited is a synchronous
driver's (held-out wave 81: a Matrix bot's command and callback coroutines, 31 sqlite3 calls through ``bot.database``).

:func:`untyped_cursor_call` answers for a call in ``func`` when all of these hold:

* the receiver is a local bound in ``func`` only by ``name = X.cursor(...)`` or ``with X.cursor(...) as name`` (also
  through ``contextlib.closing``: :mod:`~faultlib.detect.serving.blocking.closed_things`), the ``cursor()`` call not
  awaited, and the call is a cursor's :data:`CURSOR_METHODS`; or the receiver is that ``X`` itself and the call is a
  connection's :data:`CONNECTION_METHODS`;
* neither the cursor nor ``X`` has a type the analysis knows (a known type is read by the vocabulary or by the
  class's own methods, never guessed);
* no call on the cursor in ``func`` is awaited or handed to a scheduler as a coroutine (``asyncio.wait_for(cur.
  execute(q), 5)``, :func:`~faultlib.detect.serving.blocking.coroutine_clients.coroutine_calls`) and it is never
  entered by ``async with`` (one such call makes it an async driver's);
* the analysed files import a synchronous DB-API driver (a module whose ``connect`` the vocabulary lists as
  ``blocking_db``: sqlite3, psycopg2, PyMySQL, mysql.connector...).

The call's own ``await`` is checked by the caller (awaited calls are never blockers). Used by
:func:`~faultlib.detect.serving.blocking.sites.any_of_site`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.closed_things import closed_thing
from faultlib.detect.serving.blocking.coroutine_clients import coroutine_calls
from faultlib.detect.serving.blocking.model import Func, dotted, nodes_of

__all__ = ["CONNECTION_METHODS", "CURSOR_METHODS", "untyped_cursor_call"]

CURSOR_METHODS = frozenset({"execute", "executemany", "executescript", "fetchone", "fetchall", "fetchmany",
                            "callproc"})
"""A PEP 249 cursor's calls that send a statement or read its rows (``executescript``: sqlite3's)."""
CONNECTION_METHODS = frozenset({"commit", "rollback"})
"""A PEP 249 connection's calls that end the transaction on the server."""


def untyped_cursor_call(index, call: ast.Call, func: Func) -> str | None:
    """What ``call`` does when it is a synchronous PEP 249 cursor's or connection's call on values of unknown type
    (see the module docstring), else None."""
    if not isinstance(call.func, ast.Attribute):
        return None
    method, receiver = call.func.attr, call.func.value
    if method not in CURSOR_METHODS and method not in CONNECTION_METHODS:
        return None
    cursors = _cursors(index, func)
    if not cursors:
        return None
    if method in CURSOR_METHODS and isinstance(receiver, ast.Name) and receiver.id in cursors:
        what = f"{receiver.id}.{method}() (a PEP 249 cursor of `{cursors[receiver.id]}`"
    elif method in CONNECTION_METHODS and ".".join(dotted(receiver) or []) in cursors.values():
        what = f"{'.'.join(dotted(receiver))}.{method}() (the connection whose cursor this function uses"
    else:
        return None
    if index.type_of(receiver, func) is not None:
        return None
    driver = _sync_driver(index)
    if driver is None:
        return None
    return f"{what}, a value of unknown type called without await; the analysed files import {driver})"


def _cursors(index, func: Func) -> dict[str, str]:
    """``{local name: dotted text of the X whose cursor() it holds}`` for the locals of ``func`` bound only to a
    cursor of an untyped ``X`` and never used through ``await`` or ``async with`` (memoised per function)."""
    memo = func.__dict__.get("_faultlib_untyped_cursors")
    if memo is not None:
        return memo
    bound: dict[str, str] = {}
    other: set[str] = set()
    for node in nodes_of(func, (ast.Assign, ast.With, ast.AsyncWith, ast.AnnAssign, ast.For, ast.NamedExpr)):
        for name, value in _bindings(node):
            source = _cursor_source(index, value, func) if isinstance(node, (ast.Assign, ast.With)) else None
            if source is None:
                other.add(name)
            elif bound.setdefault(name, source) != source:
                other.add(name)
    args = func.node.args
    other.update(a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs])
    for node in nodes_of(func, (ast.Await, ast.Call)):  # await cur.execute(q), wait_for(cur.execute(q), 5): async
        for inner in coroutine_calls(node):
            if isinstance(inner.func, ast.Attribute) and isinstance(inner.func.value, ast.Name):
                other.add(inner.func.value.id)
    memo = func.__dict__["_faultlib_untyped_cursors"] = {n: s for n, s in bound.items() if n not in other}
    return memo


def _bindings(node: ast.AST) -> list[tuple[str, ast.expr | None]]:
    """``(name, value)`` for each plain name ``node`` binds (value None when it is not one expression's)."""
    if isinstance(node, ast.Assign):  # cur, n = ...: a name unpacked from a tuple is no cursor() call's
        return [(t.id, node.value if len(node.targets) == 1 else None) for t in node.targets
                if isinstance(t, ast.Name)] + [(n.id, None) for t in node.targets if not isinstance(t, ast.Name)
                                               for n in ast.walk(t) if isinstance(n, ast.Name)]
    if isinstance(node, (ast.With, ast.AsyncWith)):
        return [(i.optional_vars.id, i.context_expr) for i in node.items if isinstance(i.optional_vars, ast.Name)]
    if isinstance(node, ast.AnnAssign):
        return [(node.target.id, None)] if isinstance(node.target, ast.Name) else []
    if isinstance(node, ast.NamedExpr):
        return [(node.target.id, None)]
    return [(n.id, None) for n in ast.walk(node.target) if isinstance(n, ast.Name)]  # a for loop's target


def _cursor_source(index, value: ast.expr | None, func: Func) -> str | None:
    """The dotted text of ``X`` when ``value`` is ``X.cursor(...)`` (or ``closing(X.cursor(...))``) on an ``X`` of
    unknown type, else None."""
    if value is None:
        return None
    value = closed_thing(index, value, func) or value
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "cursor"):
        return None
    parts = dotted(value.func.value)
    if parts is None or index.type_of(value.func.value, func) is not None:
        return None
    return ".".join(parts)


def _sync_driver(index) -> str | None:
    """The first (by name) synchronous DB-API driver module the analysed files import, or None (memoised per
    index)."""
    memo = index.__dict__.get("_faultlib_sync_driver")
    if memo is None:
        found = set()
        for module in index.distinct_modules():
            for target in module.imports.values():
                parts = target.split(".")
                for end in range(len(parts), 0, -1):
                    prefix = ".".join(parts[:end])
                    kind = index.vocab.calls.get(f"{prefix}.connect", ("",))[0]
                    if kind == "blocking_db" and not parts[end - 1][:1].isupper():
                        found.add(prefix)
                        break
        memo = index.__dict__["_faultlib_sync_driver"] = (min(found),) if found else ("",)
    return memo[0] or None
