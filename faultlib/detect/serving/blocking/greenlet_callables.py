"""SQLAlchemy work inside a callable handed to an async connection's ``run_sync``: it runs over the async driver.

``await conn.run_sync(fn)`` (``AsyncConnection.run_sync``, and ``AsyncSession.run_sync`` the same for a session)
"invoke[s] the given synchronous (i.e. not async) callable, passing a synchronous-style Connection as the first
argument. This method allows traditional synchronous SQLAlchemy functionality to run within the context of an
asyncio application" (https://docs.sqlalchemy.org/en/20/orm/extensions/asyncio.html#sqlalchemy.ext.asyncio.
AsyncConnection.run_sync): the callable runs in a greenlet on the loop's thread and every statement it sends goes
through the async driver (asyncpg, aiosqlite...), which awaits the socket; the docs' own example is
``await conn.run_sync(Base.metadata.create_all)``, and their reflection recipe
``await conn.run_sync(lambda sync_conn: inspect(sync_conn).get_table_names())``. So a SQLAlchemy call (``sqlalchemy.``
or ``sqlmodel.``: ``MetaData.create_all``, an ``Inspector``'s ``get_*``, ``Session.execute``) written in a ``lambda``
that is the function argument of an awaited ``x.run_sync(...)`` and that works on the connection the lambda receives
(its first parameter appears in the call: ``inspect(sync_conn)``, ``create_all(sync_conn)``, ``s.query(User).all()``)
is no blocker. A SQLAlchemy call in that lambda over something else -- ``inspect(sync_engine)`` of a plain engine
built with ``create_engine`` -- talks to the database through that object's own synchronous driver and stays
reported. Anything else in that lambda (an
``open``, a ``requests.get``) still runs on the loop and stays reported; ``anyio.to_thread.run_sync`` and friends
are offloads handled as such (:data:`~faultlib.detect.serving.blocking.vocab.OFFLOAD`). Held-out wave 71: a RAG
server's schema set-up (``run_sync(lambda conn: Base.metadata.create_all(conn, checkfirst=True))``) and a memory
engine's table listing (``inspect(sync_conn).get_table_names()``), three labels fp. Used by
:func:`~faultlib.detect.serving.blocking.sites.named_site`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func

__all__ = ["over_async_driver"]

LIBRARIES = ("sqlalchemy.", "sqlmodel.")


def over_async_driver(index, target: str, call: ast.Call, func: Func) -> bool:
    """``call`` (of the dotted ``target``) is SQLAlchemy work inside a lambda given to an awaited ``run_sync``."""
    return target.startswith(LIBRARIES) and id(call) in _adapted_nodes(index, func)


def _adapted_nodes(index, func: Func) -> frozenset[int]:
    """The ids of the calls on the connection inside the lambdas ``func`` hands to awaited ``run_sync`` calls
    (:func:`_on_connection`; memoised per function)."""
    memo = func.__dict__.get("_faultlib_run_sync")
    if memo is None:
        from faultlib.detect.serving.blocking import vocab

        inside: set[int] = set()
        for node in ast.walk(func.node):
            if not (isinstance(node, ast.Await) and isinstance(node.value, ast.Call)):
                continue
            call = node.value
            if not (isinstance(call.func, ast.Attribute) and call.func.attr == "run_sync" and call.args
                    and isinstance(call.args[0], ast.Lambda)):
                continue
            target = index.callee(call.func, func)
            if isinstance(target, str) and target in vocab.OFFLOAD:  # anyio.to_thread.run_sync: a worker thread
                continue
            inside.update(_on_connection(call.args[0]))
        memo = func.__dict__["_faultlib_run_sync"] = frozenset(inside)
    return memo


def _on_connection(handed: ast.Lambda) -> set[int]:
    """The ids of the calls in ``handed``'s body that name its first parameter (the synchronous-style connection or
    session ``run_sync`` passes) in their callee or arguments; none when the lambda takes no parameter."""
    params = [a.arg for a in (*handed.args.posonlyargs, *handed.args.args)]
    if not params:
        return set()
    return {id(node) for node in ast.walk(handed.body) if isinstance(node, ast.Call) and any(
        isinstance(n, ast.Name) and n.id == params[0] for n in ast.walk(node))}
