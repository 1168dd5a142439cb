"""An awaited call of a synchronous client's method still runs on the loop: ``await`` waits for what it returns.

``await`` evaluates its operand first -- the call runs to completion in the calling thread -- and only then asks the
result for an awaitable (https://docs.python.org/3/reference/expressions.html#await-expression). The analysis leaves
awaited calls alone because a name alone does not say which client a call belongs to (``await conn.execute(...)`` is
asyncpg's coroutine as often as a DB-API cursor's method), but where the receiver's own binding names the synchronous
class, the ``await`` changes nothing::

    from clickhouse_driver import Client

    class Events:
        def __init__(self, host):
            self._client: Client = Client(host=host)

        async def save(self, rows):
            await self._client.execute("INSERT INTO events VALUES", rows)  # the INSERT runs here, then `await 3` fails

clickhouse-driver's ``Client.execute`` is a plain method over a blocking socket
(https://clickhouse-driver.readthedocs.io/en/latest/api.html#clickhouse_driver.Client.execute; its asyncio twins are
other packages, ``asynch`` and ``aiochclient``). Held-out wave 66: an aiokafka consumer's batch insert.

The call counts when every one of these holds, so that a client the analysis only guesses stays an awaited unknown:

* the receiver is a local or module name, ``self.<attribute>``, or ``<object>.<attribute>`` of an object typed as a
  class of the analysed files, and every binding of it constructs the class or annotates it (``x = Client(...)``,
  ``x: Client``, ``self.x: Client = ...``, a parameter ``x: Client``), a ``None`` placeholder aside -- a receiver
  also bound to anything else (``self.db = await asynch.connect()``) may be that other client. An object's
  attribute is bound by its class body (``hasher = CryptContext(...)``, shared by every instance and reached through
  the class itself: https://docs.python.org/3/tutorial/classes.html#class-and-instance-variables), by that class's
  or a base's methods, and by any store of that attribute name anywhere (``obj.hasher = other``); held-out wave 77:
  a Sanic view awaiting ``app.ctx.Passwords.context.verify(...)``, passlib's bcrypt check, a plain method;
* that class is listed by name in a vocabulary family (no package-wide or prefix rule: those also own the package's
  async twins), and the method is named in that family's table (not reached by ``*``).
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.handed_in import lineage
from faultlib.detect.serving.blocking.model import Func, Klass

__all__ = ["awaited_sync_call"]


def awaited_sync_call(index, call: ast.Call, func: Func) -> bool:
    """Whether the awaited ``call`` is a method of a synchronous client class the receiver's binding names (see the
    module docstring): it blocks as if it were not awaited."""
    if not isinstance(call.func, ast.Attribute) or call.func.attr not in _exact_methods(index.vocab):
        return False
    owner = index.type_of(call.func.value, func)
    if not isinstance(owner, str) or not _listed(index.vocab, owner, call.func.attr):
        return False
    bindings = [b for b in _bindings(index, call.func.value, func) if not _placeholder(*b)]
    return bool(bindings) and all(_names_class(index, value, annotation, scope, owner)
                                  for value, annotation, scope in bindings)


def _exact_methods(vocabulary) -> frozenset[str]:
    """The methods named by the families of exact class names (memoised on the vocabulary: every awaited call asks)."""
    found = vocabulary.__dict__.get("_faultlib_exact_methods")
    if found is None:
        found = vocabulary.__dict__["_faultlib_exact_methods"] = frozenset(
            m for f in vocabulary.families if not (f.prefix or f.package) for m in f.methods)
    return found


def _listed(vocabulary, owner: str, method: str) -> bool:
    """Whether a family names ``owner`` exactly and ``method`` in its table."""
    return any(owner in f.types and not (f.prefix or f.package) and method in f.methods for f in vocabulary.families)


def _placeholder(value: ast.expr | None, annotation: ast.expr | None, scope: Func) -> bool:
    """``self._db = None`` before the client is made: no client at all."""
    return annotation is None and isinstance(value, ast.Constant) and value.value is None


def _names_class(index, value: ast.expr | None, annotation: ast.expr | None, scope: Func, owner: str) -> bool:
    if annotation is not None and index.annotation_type(annotation, scope.module) == owner:
        return True
    return isinstance(value, ast.Call) and index.callee(value.func, scope) == owner


def _bindings(index, receiver: ast.expr, func: Func):
    """``(value, annotation, scope)`` for each binding of ``receiver``: a local or parameter of ``func``, a module
    global, or ``self.<attribute>`` stored in a method of ``func``'s class."""
    if isinstance(receiver, ast.Name):
        found = list(_name_bindings(func, receiver.id))
        args = func.node.args
        found += [(None, a.annotation, func) for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)
                  if a.arg == receiver.id and a.annotation is not None]
        if not found and receiver.id in func.module.globals:  # a module-level client
            found.append((func.module.globals[receiver.id], None, func))
        return found
    if (isinstance(receiver, ast.Attribute) and isinstance(receiver.value, ast.Name) and func.cls is not None
            and func.node.args.args and receiver.value.id == func.node.args.args[0].arg):
        return [binding for method in func.cls.methods.values() if method.node.args.args
                for binding in _attribute_bindings(method, method.node.args.args[0].arg, receiver.attr)]
    if isinstance(receiver, ast.Attribute):
        owner = index.type_of(receiver.value, func)
        return _object_bindings(index, owner, receiver.attr) if isinstance(owner, Klass) else []
    return []


def _object_bindings(index, klass: Klass, attr: str) -> list:
    """The bindings of ``<instance of klass>.<attr>``: its class body's and its bases' (``hasher = Ctx(...)``), the
    ``self.<attr>`` stores of their methods, and every other ``x.<attr> = ...`` of the analysed files (an object
    assigned from outside; no annotation is kept for those, so they name no class)."""
    found = []
    for k in lineage(index, klass):
        scope = index.infer.module_func(k.module)
        for stmt in k.node.body:
            if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == attr for t in stmt.targets):
                found.append((stmt.value, None, scope))
            elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id == attr:
                found.append((stmt.value, stmt.annotation, scope))
        found += [binding for method in k.methods.values() if method.node.args.args
                  for binding in _attribute_bindings(method, method.node.args.args[0].arg, attr)]
    for module in index.distinct_modules():
        scope = index.infer.module_func(module)
        found += [(value, None, scope) for name, value in module.attr_stores if name == attr
                  and not any(value is v for v, _, _ in found)]
    return found


def _name_bindings(func: Func, name: str):
    for node in func.nodes:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            yield node.value, None, func
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == name:
            yield node.value, node.annotation, func


def _attribute_bindings(method: Func, self_name: str, attr: str):
    for node in method.nodes:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, ast.AnnAssign) else []
        if any(isinstance(t, ast.Attribute) and t.attr == attr and isinstance(t.value, ast.Name)
               and t.value.id == self_name for t in targets):
            yield getattr(node, "value", None), getattr(node, "annotation", None), method
