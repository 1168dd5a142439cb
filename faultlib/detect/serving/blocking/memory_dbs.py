"""SQLAlchemy sessions on an in-memory SQLite database: their queries wait on no disk and no network.

An engine built from ``"sqlite://"`` (no path) or ``"sqlite:///:memory:"`` keeps the whole database in the process's
memory (https://docs.sqlalchemy.org/en/20/dialects/sqlite.html#connect-strings: "The sqlite :memory: identifier is
the default if no filepath is present"), so a session bound to it runs each statement in microseconds without I/O;
a small in-process cache is the usual use (jupyter-scheduler's ``Cache``). The trace is local and literal: the call's
receiver is a name bound by ``with self.<factory>() as session`` (or ``session = self.<factory>()``), the class
assigns ``self.<factory> = sessionmaker(bind=engine)`` (or ``sessionmaker(engine)``), ``engine`` is
``create_engine(url, ...)`` in that method, and ``url`` is such a literal or a ``self.<attr>`` the class assigns
one. A URL read from configuration is never taken for memory. Used by
:func:`~faultlib.detect.serving.blocking.sites.named_site`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, dotted

__all__ = ["in_memory_session"]

MEMORY_URLS = frozenset({"sqlite://", "sqlite:///:memory:", "sqlite+pysqlite://", "sqlite+pysqlite:///:memory:"})
FACTORIES = frozenset({"sqlalchemy.orm.sessionmaker", "sqlmodel.orm.session.sessionmaker"})
ENGINES = frozenset({"sqlalchemy.create_engine", "sqlalchemy.engine.create_engine", "sqlmodel.create_engine"})


def in_memory_session(index, call: ast.Call, func: Func) -> bool:
    """``call`` (``session.query(...).first()``, ``session.commit()``) runs on a session of an in-memory SQLite
    engine (see the module docstring)."""
    root = call.func
    while isinstance(root, (ast.Attribute, ast.Call)):
        root = root.value if isinstance(root, ast.Attribute) else root.func
    if not isinstance(root, ast.Name) or func.cls is None:
        return False
    factory = _factory_attribute(root.id, func)
    if factory is None:
        return False
    for method in func.cls.methods.values():
        for node in method.nodes:
            if (isinstance(node, ast.Assign) and len(node.targets) == 1 and _on_self(node.targets[0], factory)
                    and isinstance(node.value, ast.Call) and _named(index, node.value.func, method, FACTORIES)):
                bind = next((k.value for k in node.value.keywords if k.arg == "bind"),
                            node.value.args[0] if node.value.args else None)
                return bind is not None and _memory_engine(index, bind, method)
    return False


def _factory_attribute(name: str, func: Func) -> str | None:
    """``<factory>`` when ``name`` is bound by ``with self.<factory>() as name`` or ``name = self.<factory>()``."""
    for node in func.nodes:
        pairs = ([(i.context_expr, i.optional_vars) for i in node.items] if isinstance(node, ast.With)
                 else [(node.value, node.targets[0])] if isinstance(node, ast.Assign) and len(node.targets) == 1
                 else [])
        for value, target in pairs:
            if (isinstance(target, ast.Name) and target.id == name and isinstance(value, ast.Call)
                    and isinstance(value.func, ast.Attribute) and dotted(value.func.value) == ["self"]):
                return value.func.attr
    return None


def _memory_engine(index, bind: ast.expr, method: Func) -> bool:
    if isinstance(bind, ast.Name):
        bind = next((n.value for n in method.nodes if isinstance(n, ast.Assign) and len(n.targets) == 1
                     and isinstance(n.targets[0], ast.Name) and n.targets[0].id == bind.id), None)
    if not (isinstance(bind, ast.Call) and _named(index, bind.func, method, ENGINES) and bind.args):
        return False
    url = bind.args[0]
    if isinstance(url, ast.Attribute) and dotted(url.value) == ["self"]:
        url = next((n.value for m in method.cls.methods.values() for n in m.nodes if isinstance(n, ast.Assign)
                    and len(n.targets) == 1 and _on_self(n.targets[0], url.attr)), None)
    return isinstance(url, ast.Constant) and url.value in MEMORY_URLS


def _on_self(target: ast.expr, attr: str) -> bool:
    return isinstance(target, ast.Attribute) and target.attr == attr and dotted(target.value) == ["self"]


def _named(index, expr: ast.expr, func: Func, names: frozenset[str]) -> bool:
    parts = dotted(expr)
    return bool(parts) and index.resolve_parts(parts, func.module, func) in names
