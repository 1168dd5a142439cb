"""Type aliases a module binds at its top level and annotations then name.

``CaikitModelFuture = Future[ModuleBase]`` (often in a ``try:`` with a plain ``Future`` fallback for old Pythons),
then ``self._future: Optional[CaikitModelFuture]``: the annotation means what the alias names, so
``self._future.result()`` waits on a ``concurrent.futures.Future``. :func:`type_alias` gives the aliased
expression, with the module it is written in, for :meth:`~faultlib.detect.serving.blocking.index.Index.
annotation_type` to resolve in turn; a global bound to anything but a type expression (a call's result, a constant)
is not an alias.

An alias is often defined once and imported where it is used: FastAPI's documented dependency alias
``SessionDep = Annotated[Session, Depends(get_session)]`` in a ``deps`` module, then ``session: SessionDep`` in every
router (https://fastapi.tiangolo.com/tutorial/sql-databases/#create-a-session-dependency). A name imported from
another analysed module whose global there is a type expression is that alias, resolved in the module that wrote it
(where its own names are imported). ``Annotated[T, x]`` is ``T`` with metadata for tools
(https://docs.python.org/3/library/typing.html#typing.Annotated, PEP 593): its type is its first argument.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping

from faultlib.detect.serving.blocking.model import Module, dotted

__all__ = ["annotated_type", "type_alias"]

MAX_REEXPORTS = 4
"""How many modules an imported alias is followed through (``from .deps import SessionDep`` re-exported by a
package ``__init__``): a bound on cycles, not a limit met in practice."""


def type_alias(node: ast.expr, module: Module, modules: Mapping[str, Module] | None = None,
               depth: int = 0) -> tuple[ast.expr, Module] | None:
    """The expression the module-level name ``node`` is an alias of (``Future[Model]``, ``Future``, ``A | B``) and
    the module that binds it, or None when ``node`` is not such a name.

    Args:
        node: an annotation expression.
        module: the module the annotation is written in.
        modules: the analysed modules by dotted name; with it, a name imported from one of them whose global there is
            a type expression is followed (``from app.deps import SessionDep``).
        depth: re-exports followed so far.
    """
    if not isinstance(node, ast.Name):
        return None
    if node.id in module.imports:  # `if TYPE_CHECKING: from m import Model` / `else: Model = Any`: the import is it
        return _imported(module.imports[node.id], modules, depth) if modules is not None else None
    value = module.globals.get(node.id)
    if value is None or not _is_type_expression(value):
        return None
    if isinstance(value, ast.Name) and value.id == node.id:
        return None  # X = X: nothing new
    return value, module


def annotated_type(node: ast.Subscript) -> ast.expr | None:
    """The type ``Annotated[T, metadata...]`` stands for (``T``), or None when ``node`` is no ``Annotated``."""
    parts = dotted(node.value)
    if not parts or parts[-1] != "Annotated":
        return None
    inner = node.slice
    if isinstance(inner, ast.Tuple):
        return inner.elts[0] if inner.elts else None
    return inner


def _imported(target: str, modules: Mapping[str, Module], depth: int) -> tuple[ast.expr, Module] | None:
    """The alias the dotted ``target`` (``app.deps.SessionDep``) names in an analysed module, or None (a class, a
    function, a third-party name: resolved as usual)."""
    owner, _, name = target.rpartition(".")
    defining = modules.get(owner)
    if defining is None or depth >= MAX_REEXPORTS or name in defining.classes or name in defining.functions:
        return None
    return type_alias(ast.Name(id=name, ctx=ast.Load()), defining, modules, depth + 1)


def _is_type_expression(value: ast.expr) -> bool:
    if isinstance(value, ast.Subscript):
        return dotted(value.value) is not None
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.BitOr):
        return _is_type_expression(value.left) and _is_type_expression(value.right)
    if isinstance(value, ast.Constant):
        return value.value is None
    return isinstance(value, (ast.Name, ast.Attribute)) and dotted(value) is not None
