"""Value flow for ``check resume``: which names a checkpoint's contents carry, on the shared interpreter.

:class:`StateFlow` runs the script through :class:`faultlib.pyflow.interp.Interpreter` (never importing or
running it) with one meaning for everything the interpreter does not model: a value *carries* the names it was
derived from. A library call's result carries the call's dotted name and everything its arguments carry
(``dict(model=model.state_dict())``), a method result its receiver's and arguments' names and the method's
name (``optimizer.state_dict()`` carries ``optimizer`` and ``state_dict``), an item or an arithmetic result its
operands' names, a container its keys and items. Every value bound to a variable (or passed to a parameter:
the interpreter inlines the script's own functions) also carries that variable's name, so an object created
as ``opt`` and saved inside ``save(trainer, path)`` as ``trainer.opt.state_dict()`` still carries ``opt``.

After :meth:`StateFlow.interpret`, :meth:`StateFlow.carried` answers for an argument expression of any call
the interpretation reached (``torch.save``'s first argument) and :meth:`StateFlow.receiver` for a method
call's receiver (``x.load_state_dict(...)``): the union over every time the call ran. This is the same
name-based over-approximation people's checkpoint code needs (an identifier ``scheduler`` in the dict handed
to ``torch.save`` counts as saving the object named ``scheduler``), now following values through instances,
returns and parameters instead of matching names along assignments.
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.pyflow.interp import Frame, Interpreter
from faultlib.pyflow.values import Bound, Const, Container, Opaque, Ref, Tup

MAX_CARRIED = 4_000
"""Most names one value carries (a bound on pathological files)."""
MAX_STRING = 80
"""Longer string constants (paths, messages) are not names a checkpoint is keyed by."""


class Carry:
    """A value the interpreter does not model, with the names it carries (and an identity of its own, so a
    variable name bound to it later is carried too)."""

    __slots__ = ("names",)

    def __init__(self, names: set[str]):
        self.names = set(list(names)[:MAX_CARRIED])


class StateFlow(Interpreter):
    """The interpreter with :mod:`.flow`'s meaning (module docstring).

    Args:
        tree: the parsed script.
    """

    follow_branch_returns = True  # `if args.eval: ...; return` before the training loop must not hide the loop

    def __init__(self, tree: ast.Module):
        super().__init__(tree)
        self._names: dict[int, set[str]] = {}
        self._keep: list[Any] = []  # values whose id() keys _names stay alive
        self._arg_names: dict[int, set[str]] = {}  # id(argument expression) -> names carried, over every run
        self._receivers: dict[int, set[str]] = {}  # id(method call) -> names its receiver carries

    # ------------------------------------------------------------------ answers

    def carried(self, expr: ast.AST) -> set[str] | None:
        """Names ``expr`` (an argument of a call) carried when the call ran; ``None`` when it never ran."""
        return self._arg_names.get(id(expr))

    def receiver(self, call: ast.Call) -> set[str] | None:
        """Names the receiver of the method call ``call`` carried; ``None`` when it never ran."""
        return self._receivers.get(id(call))

    # ------------------------------------------------------------------ carrying

    def names_of(self, value: Any, _depth: int = 0) -> set[str]:
        """The names ``value`` carries (see the module docstring)."""
        if _depth > 12:
            return set()
        out = set(self._names.get(id(value), ()))
        if isinstance(value, Carry):
            out |= value.names
        elif isinstance(value, Const):
            if isinstance(value.value, str) and len(value.value) < MAX_STRING:
                out.add(value.value)
        elif isinstance(value, Tup):
            for item in value.items:
                out |= self.names_of(item, _depth + 1)
        elif isinstance(value, Container):
            for key, item in value.items.items():
                if isinstance(key, str) and len(key) < MAX_STRING:
                    out.add(key)
                out |= self.names_of(item, _depth + 1)
        elif isinstance(value, Bound):
            out |= self.names_of(value.receiver, _depth + 1) | {value.name}
        elif isinstance(value, Ref):
            out |= set(value.name.split("."))
        elif isinstance(value, Opaque):
            out.add(value.name)
        return out

    def _carry(self, values: list[Any], extra: set[str] = frozenset()) -> Carry:
        names = set(extra)
        for value in values:
            names |= self.names_of(value)
            if len(names) > MAX_CARRIED:
                break
        return Carry(names)

    def _record_args(self, node: ast.Call, args: list[Any], kwargs: dict[str, Any]) -> None:
        for expr, value in zip(node.args, args):
            self._arg_names.setdefault(id(expr), set()).update(self.names_of(value))
        for keyword in node.keywords:
            if keyword.arg is not None and keyword.arg in kwargs:
                self._arg_names.setdefault(id(keyword.value), set()).update(self.names_of(kwargs[keyword.arg]))

    # ------------------------------------------------------------------ hooks

    def _named(self, name: str, value: Any, line: int) -> Any:
        value = super()._named(name, value, line)
        if not isinstance(value, (Const, Ref)):
            if id(value) not in self._names:
                self._keep.append(value)
            self._names.setdefault(id(value), set()).add(name)
        return value

    def _library(self, ref: Ref, args: list[Any], kwargs: dict[str, Any], node: ast.Call, frame: Frame) -> Any:
        self._record_args(node, args, kwargs)
        return self._carry([*args, *kwargs.values()], set(ref.name.split(".")))

    def _method_value(self, receiver: Any, name: str, args: list[Any], kwargs: dict[str, Any], node: ast.Call,
                      frame: Frame) -> Any:
        self._record_args(node, args, kwargs)
        self._receivers.setdefault(id(node), set()).update(self.names_of(receiver))
        return self._carry([receiver, *args, *kwargs.values()], {name})

    def _attribute_value(self, base: Any, attr: str) -> Any:
        return Bound(base, attr)

    def _subscript_value(self, base: Any, index_node: ast.expr, frame: Frame, line: int) -> Any:
        return self._carry([base, self._expr(index_node, frame)])

    def _combine(self, values: list[Any]) -> Any:
        return self._carry(values)

    def _bind_item(self, target: ast.expr, owner: Any, value: Any, frame: Frame, line: int) -> None:
        # ckpt.x = v / ckpt[k] = v on a value the interpreter does not model: the owner carries v from now on
        if not isinstance(owner, (Const, Ref)):
            if id(owner) not in self._names:
                self._keep.append(owner)
            self._names.setdefault(id(owner), set()).update(self.names_of(value))


__all__ = ["Carry", "StateFlow"]
