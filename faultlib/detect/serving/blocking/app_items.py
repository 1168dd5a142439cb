"""The values an aiohttp application keeps under a key, read back by its handlers as ``request.app[key]``.

aiohttp's ``web.Application`` is a mapping for application-wide state: the code stores a client in it while it
builds the application (``app["db"] = sqlite3.connect(path)``) and a handler reads it back through the request
(``request.app["db"]``, or ``request.config_dict["db"]``, which also looks in the parent applications; the key a
string or, since aiohttp 3.9, a ``web.AppKey`` global, ``app[DB_KEY]``):
https://docs.aiohttp.org/en/stable/web_advanced.html#application-s-config ("store global-like variables ... in an
Application instance", "get it back in the web-handler: ``request.app[key]``"). The value read has the type of the
value stored: every store of that literal key (or of that key global) into an expression the analysis types as an
aiohttp application, in any analysed file (a function's body or the module's top level), must agree. A sync client kept there (a sqlite3
connection, a sync redis client) then blocks each handler that uses it, directly or in the sync helpers it is
passed to (held-out wave 54: a shop's models on a sqlite3 connection kept in ``app["db"]``). Used by
:mod:`~faultlib.detect.serving.blocking.typeof`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.infer import stored_type
from faultlib.detect.serving.blocking.model import Func, Type, nodes_of

__all__ = ["app_item", "app_stores"]

APPLICATIONS = frozenset({"aiohttp.web.Application", "aiohttp.web_app.Application"})
"""aiohttp's application class, as exported (``aiohttp.web``) and where it is defined."""

READERS = frozenset({"app", "config_dict"})
"""``request.app`` (the application that called the handler) and ``request.config_dict`` (it and its parents):
https://docs.aiohttp.org/en/stable/web_reference.html#aiohttp.web.BaseRequest.app."""


def app_item(index, container: ast.expr, key: ast.expr, func: Func) -> Type | None:
    """The type stored under the string (or ``AppKey`` global) ``key`` of an aiohttp application, read in ``func`` as ``container[key]``
    (``container``: ``<request>.app``, ``<request>.config_dict``, or a value typed as the application), or None."""
    stores = app_stores(index, container, key, func)
    return stored_type(index, stores) if stores is not None else None


def app_stores(index, container: ast.expr, key: ast.expr, func: Func) -> list[tuple[ast.expr, Func]] | None:
    """Every ``(value, scope)`` stored under ``key`` of an aiohttp application that ``container[key]`` in ``func``
    reads (see :func:`app_item`), or None when ``container[key]`` is no such read."""
    name = _key(key)
    if name is None:
        return None
    if not (isinstance(container, ast.Attribute) and container.attr in READERS) and not (
            isinstance(container, ast.Name) and index.type_of(container, func) in APPLICATIONS):
        return None
    return _stores(index).get(name, [])


def _stores(index) -> dict[str, list[tuple[ast.expr, Func]]]:
    """``{key: [(value, scope), ...]}`` of every ``<application>[key] = value`` in the analysed files (memoised)."""
    memo = index.__dict__.get("_faultlib_app_items")
    if memo is not None:
        return memo
    memo = index.__dict__["_faultlib_app_items"] = {}
    for module in index.distinct_modules():
        top = index.infer.module_func(module)
        scoped = [(node, top) for node in module.tree.body if isinstance(node, ast.Assign)]
        scoped += [(node, scope) for scope in module.all_functions for node in nodes_of(scope, ast.Assign)]
        for node, scope in scoped:
            for target in node.targets:
                if (isinstance(target, ast.Subscript) and _key(target.slice) is not None
                        and index.type_of(target.value, scope) in APPLICATIONS):
                    memo.setdefault(_key(target.slice), []).append((node.value, scope))
    return memo


def _key(key: ast.expr) -> str | None:
    """A string key (``"db"``), or the name of the ``web.AppKey`` global it is (``DB``, kept as ``<DB>``)."""
    if isinstance(key, ast.Constant) and isinstance(key.value, str):
        return key.value
    return f"<{key.id}>" if isinstance(key, ast.Name) else None
