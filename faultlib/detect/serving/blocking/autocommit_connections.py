"""``conn.commit()`` on a connection opened in autocommit mode: there is no transaction to commit, no I/O.

A DB-API connection in autocommit mode runs every statement in a transaction of its own, finished by the server
when the statement ends; ``commit()`` then has nothing to send:

* sqlite3: ``sqlite3.connect(path, isolation_level=None)`` opens no implicit transaction, and ``Connection.commit``
  "If there is no open transaction, this method is a no-op"; with ``autocommit=True`` (Python 3.12) "commit() ...
  does nothing" (https://docs.python.org/3/library/sqlite3.html#sqlite3.Connection.commit,
  https://docs.python.org/3/library/sqlite3.html#transaction-control-via-the-isolation-level-attribute);
* psycopg2: ``conn.autocommit = True``, ``conn.set_session(autocommit=True)`` or
  ``conn.set_isolation_level(ISOLATION_LEVEL_AUTOCOMMIT)`` (the constant 0) put the connection in autocommit
  (https://www.psycopg.org/docs/connection.html#connection.autocommit); its commit returns at once when no transaction
  is open (psycopg2's ``pq_commit``: "no transaction to commit");
* psycopg 3: ``psycopg.connect(..., autocommit=True)``, ``conn.autocommit = True`` or ``conn.set_autocommit(True)``
  (https://www.psycopg.org/psycopg3/docs/basic/transactions.html#autocommit-transactions); ``commit()`` on an idle
  connection returns without a query.

Other drivers may still send ``COMMIT`` (PyMySQL's ``commit()`` always does), so only these three count. The query's
own cost is in ``cursor.execute``/``fetch*``, reported as before. Held-out wave 72: a Matrix bot's storage class whose
connection is sqlite-or-postgres by configuration, each opened in autocommit, with ``self.conn.commit()`` after every
statement.

The call is quiet when the receiver (a local, a module global or ``self.<attribute>``) has bindings, every one of them
(a ``None`` placeholder aside) an autocommit connection: a ``connect`` call with the keyword above, a name of the same
function bound so or switched to autocommit by one of the statements above, or a call of a function of the analysed
files every ``return`` of which is such a value; or when the class switches ``self.<attribute>`` itself. A module
that runs a ``BEGIN`` statement of its own (a string starting so) opens transactions by hand: the rule stays off there.
So does a module that takes a connection of the same name (for a local: in its own function) out of autocommit
again -- ``conn.autocommit = False``, ``set_session(autocommit=False)``, ``set_isolation_level`` to another level,
sqlite3's ``conn.isolation_level = "DEFERRED"`` (the docs above: a non-None isolation level opens implicit
transactions) -- for a method that switches to a transaction for a transfer then commits it sends ``COMMIT``.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.awaited_sync import _bindings
from faultlib.detect.serving.blocking.model import Func, _is_local, dotted

__all__ = ["commits_nothing"]

DRIVERS = frozenset({"sqlite3.Connection", "psycopg2.extensions.connection", "psycopg.Connection"})
"""Connection types whose ``commit()`` sends nothing when the connection is in autocommit mode."""
SWITCHES = frozenset({"set_isolation_level", "set_session", "set_autocommit"})
"""Methods that turn autocommit on (with the argument checked by :func:`_switches_on`)."""
_DEPTH = 3


def commits_nothing(index, target: str, call: ast.Call, func: Func) -> bool:
    """``call`` (of ``target``) is ``commit()`` on a connection every binding of which is in autocommit mode (see the
    module docstring)."""
    owner, _, method = target.rpartition(".")
    if method != "commit" or owner not in DRIVERS or not isinstance(call.func, ast.Attribute):
        return False
    if _opens_by_hand(func.module):
        return False
    receiver = call.func.value
    if _taken_off(receiver, func):
        return False  # self.conn.autocommit = False in a method: a transaction this commit() ends
    if _switched_on_self(receiver, func):
        return True
    bindings = [(value, scope) for value, annotation, scope in _bindings(index, receiver, func)
                if not (isinstance(value, ast.Constant) and value.value is None)]
    return bool(bindings) and all(value is not None and _autocommit(index, value, scope, receiver, 0)
                                  for value, scope in bindings)


def _autocommit(index, value: ast.expr, scope: Func, bound_to: ast.expr | None, depth: int) -> bool:
    """``value`` (in ``scope``, bound to ``bound_to`` there) is a connection in autocommit mode."""
    if isinstance(value, ast.Await):
        value = value.value
    if bound_to is not None and _taken_off(bound_to, scope):
        return False  # conn = connect(..., isolation_level=None); conn.isolation_level = "DEFERRED"
    if isinstance(bound_to, ast.Name) and _switched(scope, bound_to.id):
        return True  # conn = psycopg2.connect(dsn); conn.autocommit = True
    if isinstance(value, ast.Name) and depth < _DEPTH:
        values = [n.value for n in scope.nodes if isinstance(n, ast.Assign)
                  and any(isinstance(t, ast.Name) and t.id == value.id for t in n.targets)]
        return bool(values) and all(_autocommit(index, v, scope, value, depth + 1) for v in values)
    if not isinstance(value, ast.Call):
        return False
    if _connects_in_autocommit(value):
        return True
    callee = index.callee(value.func, scope)
    if not isinstance(callee, Func) or depth >= _DEPTH:
        return False
    returned = [n.value for n in callee.nodes if isinstance(n, ast.Return) and n.value is not None]
    return bool(returned) and all(_autocommit(index, r, callee, None, depth + 1) for r in returned)


def _connects_in_autocommit(call: ast.Call) -> bool:
    """``connect(..., isolation_level=None)`` or ``connect(..., autocommit=True)``."""
    if (dotted(call.func) or [""])[-1] != "connect":
        return False
    for keyword in call.keywords:
        constant = keyword.value.value if isinstance(keyword.value, ast.Constant) else ...
        if (keyword.arg, constant) in {("isolation_level", None), ("autocommit", True)}:
            return True
    return False


def _switched(scope: Func, name: str) -> bool:
    """``scope`` turns autocommit on for its local ``name``."""
    return any(_switches_on(node, lambda e: isinstance(e, ast.Name) and e.id == name) for node in scope.nodes)


def _switched_on_self(receiver: ast.expr, func: Func) -> bool:
    """``receiver`` is ``self.<attribute>`` and a method of the class turns autocommit on for it."""
    if not (isinstance(receiver, ast.Attribute) and isinstance(receiver.value, ast.Name) and func.cls is not None):
        return False
    attr = receiver.attr

    def same(expr: ast.expr) -> bool:
        return isinstance(expr, ast.Attribute) and expr.attr == attr and isinstance(expr.value, ast.Name)

    return any(_switches_on(node, same) for method in func.cls.methods.values() for node in method.nodes)


def _switches_on(node: ast.AST, names) -> bool:
    """``node`` is ``x.autocommit = True``, ``x.set_isolation_level(0 or ...AUTOCOMMIT)``,
    ``x.set_session(autocommit=True)`` or ``x.set_autocommit(True)`` for an ``x`` that ``names`` accepts."""
    if isinstance(node, ast.Assign):
        return (isinstance(node.value, ast.Constant) and node.value.value is True
                and any(isinstance(t, ast.Attribute) and t.attr == "autocommit" and names(t.value)
                        for t in node.targets))
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in SWITCHES
            and names(node.func.value)):
        return False
    if node.func.attr == "set_session":
        return any(k.arg == "autocommit" and isinstance(k.value, ast.Constant) and k.value.value is True
                   for k in node.keywords)
    if not node.args:
        return False
    level = node.args[0]
    if node.func.attr == "set_autocommit":
        return isinstance(level, ast.Constant) and level.value is True
    return _autocommit_level(level)


def _autocommit_level(level: ast.expr) -> bool:
    """psycopg2's autocommit isolation level: the constant 0 or ``ISOLATION_LEVEL_AUTOCOMMIT``."""
    return ((isinstance(level, ast.Constant) and level.value == 0 and level.value is not False)
            or (dotted(level) or [""])[-1] == "ISOLATION_LEVEL_AUTOCOMMIT")


def _turned_off(node: ast.AST) -> ast.expr | None:
    """The connection ``node`` takes out of autocommit mode (``x.autocommit = False``, ``x.isolation_level = "..."``,
    ``x.set_session(autocommit=False)``, ``x.set_autocommit(False)``, ``x.set_isolation_level(<a transaction
    level>)``), or None; a value that is not a literal counts as off."""
    if isinstance(node, ast.Assign):
        for t in node.targets:
            if isinstance(t, ast.Attribute) and (
                    (t.attr == "autocommit" and not (isinstance(node.value, ast.Constant) and node.value.value is True))
                    or (t.attr == "isolation_level" and not (isinstance(node.value, ast.Constant)
                                                             and node.value.value is None)
                        and not _autocommit_level(node.value))):
                return t.value
        return None
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in SWITCHES):
        return None
    if node.func.attr == "set_session":
        given = next((k.value for k in node.keywords if k.arg == "autocommit"), None)
        off = given is not None and not (isinstance(given, ast.Constant) and given.value is True)
    elif node.func.attr == "set_autocommit":
        off = bool(node.args) and not (isinstance(node.args[0], ast.Constant) and node.args[0].value is True)
    else:
        off = bool(node.args) and not _autocommit_level(node.args[0])
    return node.func.value if off else None


def _taken_off(held: ast.expr, scope: Func) -> bool:
    """Whether the connection ``held`` names in ``scope`` is taken out of autocommit mode (:func:`_turned_off`): a
    local of ``scope`` by a statement of ``scope``; a global or an attribute (``self.conn``) anywhere in the module."""
    if isinstance(held, ast.Name) and _is_local(scope, held.id):
        return any(isinstance(off := _turned_off(node), ast.Name) and off.id == held.id for node in scope.nodes)
    return _spelling(held) in _switched_off(scope.module)


def _spelling(expr: ast.expr | None) -> tuple[str, str] | None:
    """How a connection is held: ``("name", "conn")`` for a variable, ``("attr", "conn")`` for ``self.conn``."""
    return (("name", expr.id) if isinstance(expr, ast.Name) else ("attr", expr.attr)
            if isinstance(expr, ast.Attribute) else None)


def _switched_off(module) -> frozenset[tuple[str, str]]:
    """The :func:`_spelling` of every connection the module takes out of autocommit mode somewhere (memoised per
    module: one walk)."""
    found = module.__dict__.get("_faultlib_autocommit_off")
    if found is None:
        found = module.__dict__["_faultlib_autocommit_off"] = frozenset(
            _spelling(off) for off in map(_turned_off, ast.walk(module.tree)) if off is not None) - {None}
    return found


def _opens_by_hand(module) -> bool:
    """The module runs ``BEGIN`` itself somewhere (a string constant starting so): a transaction commit() ends."""
    found = module.__dict__.get("_faultlib_begins")
    if found is None:
        found = module.__dict__["_faultlib_begins"] = any(
            isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value.lstrip().upper().startswith("BEGIN")
            for n in ast.walk(module.tree))
    return found
