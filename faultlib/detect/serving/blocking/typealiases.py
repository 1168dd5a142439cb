"""Type aliases a module binds at its top level and annotations then name.

``CaikitModelFuture = Future[ModuleBase]`` (often in a ``try:`` with a plain ``Future`` fallback for old Pythons),
then ``self._future: Optional[CaikitModelFuture]``: the annotation means what the alias names, so
``self._future.result()`` waits on a ``concurrent.futures.Future``. :func:`type_alias` gives the aliased
expression for :meth:`~faultlib.detect.serving.blocking.index.Index.annotation_type` to resolve in turn; a global
bound to anything but a type expression (a call's result, a constant) is not an alias.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Module, dotted

__all__ = ["type_alias"]


def type_alias(node: ast.expr, module: Module) -> ast.expr | None:
    """The expression the module-level name ``node`` is an alias of (``Future[Model]``, ``Future``, ``A | B``), or
    None when ``node`` is not such a name."""
    if not isinstance(node, ast.Name) or node.id in module.imports:
        return None  # `if TYPE_CHECKING: from m import Model` / `else: Model = Any`: the import is the type
    value = module.globals.get(node.id)
    if value is None or not _is_type_expression(value):
        return None
    if isinstance(value, ast.Name) and value.id == node.id:
        return None  # X = X: nothing new
    return value


def _is_type_expression(value: ast.expr) -> bool:
    if isinstance(value, ast.Subscript):
        return dotted(value.value) is not None
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.BitOr):
        return _is_type_expression(value.left) and _is_type_expression(value.right)
    if isinstance(value, ast.Constant):
        return value.value is None
    return isinstance(value, (ast.Name, ast.Attribute)) and dotted(value) is not None
