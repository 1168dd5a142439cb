"""The hooks of :class:`~faultlib.pyflow.interp.Interpreter` that a subclass gives meaning: what a library call, a
method of a library object, an item of a data value or a value's name *mean*. Here each means nothing (``UNKNOWN``);
the leakage analysis (:mod:`faultlib.detect.data.leakage.static`) gives them scikit-learn's meaning."""

from __future__ import annotations

import ast
from typing import Any

from faultlib.pyflow.values import UNKNOWN, ClassVal, Const, Opaque, Ref

Frame = Any  # faultlib.pyflow.interp.Frame (not imported: interp imports this module)

__all__ = ["SemanticHooks"]


class SemanticHooks:
    """The meaning-free defaults of the interpreter's hooks (every method is overridden by an analysis that needs it)."""

    def _named(self, name: str, value: Any, line: int) -> Any:
        return self._opaque(name, line) if value is UNKNOWN else value

    def _opaque(self, name: str, line: int) -> Opaque:
        """The unknown value a name gets (an uncalled function's parameter, an unmodelled result)."""
        return Opaque(name, line)

    def _may_become_container(self, owner: Any) -> bool:
        """Whether ``name[key] = v`` on a name holding ``owner`` makes the name a :class:`Container`
        (``d = load(); d['train'] = ...``)."""
        return owner is UNKNOWN or isinstance(owner, Opaque)

    def _combine(self, values: list[Any]) -> Any:
        return UNKNOWN

    def _call_value(self, func: Any, args: list[Any], kwargs: dict[str, Any], node: ast.Call) -> Any:
        """A call of a value that is neither a function, a class, a method nor a library name (``d.values()`` where
        ``d.values`` is already a data value): what its arguments combine to, by default."""
        return self._combine(args + list(kwargs.values()))

    def _compare(self, values: list[Any]) -> Any:
        return self._combine(values)

    def _join(self, a: Any, b: Any) -> Any:
        """The value of a name after ``if``/``else`` bound it to ``a`` in one branch and ``b`` in the other."""
        return a if b is UNKNOWN or isinstance(b, (Opaque, Const)) and not isinstance(a, (Opaque, Const)) else b

    def _library(self, ref: Ref, args: list[Any], kwargs: dict[str, Any], node: ast.Call, frame: Frame) -> Any:
        return UNKNOWN

    def _method_value(self, receiver: Any, name: str, args: list[Any], kwargs: dict[str, Any], node: ast.Call,
                      frame: Frame) -> Any:
        return UNKNOWN

    def _attribute_value(self, base: Any, attr: str) -> Any:
        return UNKNOWN

    def _subscript_value(self, base: Any, index_node: ast.expr, frame: Frame, line: int) -> Any:
        self._expr(index_node, frame)
        return UNKNOWN

    def _bind_item(self, target: ast.expr, owner: Any, value: Any, frame: Frame, line: int) -> None:
        """``owner[key] = value`` / ``owner.attr = value`` where ``owner`` is not a container or an instance the
        interpreter models."""

    def _loop_item_done(self, item: Any, after: Any, frame: Frame) -> None:
        """The body of ``for name in [a, b]`` ran with ``name`` bound to ``item`` and left it bound to ``after``
        (a subclass may write a change made through the alias back to the names that hold ``item``)."""

    def _iterate(self, source: Any, node: ast.For, frame: Frame) -> bool:
        """Run a ``for`` loop over ``source`` in a subclass's own way; False to let the interpreter do it."""
        return False

    def _left_uncalled(self, func: Any) -> bool:
        """Whether a function the module never called is known to be called by nothing at all (a helper module's
        function that none of its importers calls): it is then not run on opaque arguments at the end."""
        return False

    def _class_value(self, cls: ClassVal) -> Any:
        """What calling a user class gives, if not an :class:`Instance` (``None``: an instance)."""
        return None
