"""What an awaited coroutine returns when it builds it through a local: ``db = Store(); return db.client.table(n)``.

:meth:`~faultlib.detect.serving.blocking.typeof.TypeOf.awaited_type` types ``x = await helper()`` by the object
``helper``'s body builds and returns, but only from constructors named from the module (``return Client(...)``):
typing the coroutine's locals could re-enter the locals of the function being typed (handlers await each other) and
leave them half known. A coroutine often builds its result in two steps, though: ``rag_db = RAGDB(embeddings=e)``,
then ``return rag_db.client.get_collection("files")``. The returned object hangs off an instance of a class named
from the module, and the chain after it is typed from that class's attributes and the vocabulary's return types. So
the returned expression is typed once more with its root local replaced by the constructor call that local was
given (its only assignment in the coroutine, a call of a module-level name), in the module's scope, where no local of
the coroutine is read (held-out wave 64: an async helper of a RAG service returns a chroma collection that five
callers then read, add to and update on the loop).
"""

from __future__ import annotations

import ast
import copy

from faultlib.detect.serving.blocking.model import Func, Type, _is_local, dotted

__all__ = ["built_through_local"]

MAX_LINKS = 8
"""Attribute reads, calls and subscripts between the root local and the returned value that are followed."""
_KEY = "_faultlib_through_local"  # the rebuilt expression, kept alive on the original node: memo keys are node ids


def built_through_local(index, coroutine: Func, value: ast.expr) -> Type | None:
    """The type of the returned ``value`` (``local.attr.method(...)``) with its root local replaced by the constructor
    it was assigned, or None when the root is no such local."""
    root = _root(value)
    if root is None or not _is_local(coroutine, root.id):
        return None
    assigned = [n.value for n in coroutine.nodes if isinstance(n, ast.Assign) and len(n.targets) == 1
                and isinstance(n.targets[0], ast.Name) and n.targets[0].id == root.id]
    if len(assigned) != 1 or not isinstance(assigned[0], ast.Call):
        return None
    parts = dotted(assigned[0].func)
    if not parts or _is_local(coroutine, parts[0]):
        return None  # built from another local: that one's type would need the locals
    rebuilt = value.__dict__.get(_KEY)
    if rebuilt is None:
        rebuilt = value.__dict__[_KEY] = _replaced(value, assigned[0])
    return index.type_of(rebuilt, index.infer.module_func(coroutine.module))


def _root(value: ast.expr) -> ast.Name | None:
    """The name a chain of attribute reads, calls and subscripts starts from (``db`` in ``db.client.get(n)``), when
    there is at least one link and at most :data:`MAX_LINKS`."""
    node, links = value, 0
    while isinstance(node, (ast.Attribute, ast.Call, ast.Subscript)) and links <= MAX_LINKS:
        node = node.func if isinstance(node, ast.Call) else node.value
        links += 1
    return node if isinstance(node, ast.Name) and 0 < links <= MAX_LINKS else None


def _replaced(value: ast.expr, constructor: ast.Call) -> ast.expr:
    """A copy of the chain ``value`` whose root name is ``constructor`` (the nodes of the chain are copied, the rest
    shared)."""
    if isinstance(value, ast.Name):
        return constructor
    new = copy.copy(value)
    if isinstance(value, ast.Call):
        new.func = _replaced(value.func, constructor)
    else:
        new.value = _replaced(value.value, constructor)
    return new
