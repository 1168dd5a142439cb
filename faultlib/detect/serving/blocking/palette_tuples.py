"""Commands a Textual palette provider keeps as tuples and unpacks into its hits: each callable runs on the loop.

The command palette runs the callable of the ``Hit``/``DiscoveryHit`` the user picks on the app's loop
(https://textual.textualize.io/guide/command_palette/; :mod:`~faultlib.detect.serving.blocking.textual_apps`). A
provider with many commands lists them once, as ``(name, callback, help)`` tuples, and its ``search``/``discover``
unpack them: ``for name, runnable, help_text in self.commands: yield Hit(score, name, runnable, help=help_text)``
(the palette guide's own example builds its hits in such a loop). The callable given to the hit is then the loop
variable, and what it stands for is the item at the same position of each tuple of that arity the iterated value is
made of: tuple literals written in the property or function the loop iterates (``self.commands``,
``self.commands()``, ``COMMANDS``), in a list literal bound to the iterated local or module global, or in the
function the local comes from. ``functools.partial(f, ...)`` there stands for ``f``. Held-out wave 67: a Textual
HTTP client whose provider lists its export commands (a clipboard copy through ``pyperclip``) as tuples. Used by
:mod:`~faultlib.detect.serving.blocking.reach` for a palette entry whose callable is no function by itself.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, Module, nodes_of
from faultlib.detect.serving.blocking.textual_apps import palette_command

__all__ = ["unpacked_commands"]

PARTIALS = frozenset({"functools.partial"})
MAX_TUPLES = 200


def unpacked_commands(index, call: ast.Call, func: Func) -> list[Func]:
    """The functions of the analysed files that a palette entry built by ``call`` may run when its callable is a
    name unpacked from tuples (see the module docstring); empty otherwise."""
    given = palette_command(index, call, func)
    if not isinstance(given, ast.Name):
        return []
    for loop in nodes_of(func, (ast.For, ast.AsyncFor, ast.comprehension)):
        target = loop.target
        if not isinstance(target, ast.Tuple):
            continue
        names = [e.id if isinstance(e, ast.Name) else None for e in target.elts]
        if given.id in names:
            return _items(index, loop.iter, func, len(names), names.index(given.id))
    return []


def _items(index, iterated: ast.expr, func: Func, arity: int, position: int) -> list[Func]:
    """The functions at ``position`` of the ``arity``-tuples that ``iterated`` (evaluated in ``func``) is built of."""
    found: dict[int, Func] = {}
    for tuple_, scope in _tuples(index, iterated, func, arity):
        item = tuple_.elts[position]
        if isinstance(item, ast.Call) and item.args and index.callee(item.func, scope) in PARTIALS:
            item = item.args[0]
        target = index.callee(item, scope) if isinstance(item, (ast.Name, ast.Attribute)) else None
        if isinstance(target, Func):
            found[id(target)] = target
    return list(found.values())


def _tuples(index, iterated: ast.expr, func: Func, arity: int, seen: frozenset[int] = frozenset()
            ) -> list[tuple[ast.Tuple, Func]]:
    """``(tuple literal, the function it is written in)`` for each ``arity``-tuple ``iterated`` may be made of;
    ``seen``: the expressions already followed (``commands = list(commands)`` leads back to itself)."""
    if id(iterated) in seen:
        return []
    seen = seen | {id(iterated)}
    if isinstance(iterated, ast.Call) and iterated.args and not iterated.keywords and \
            index.callee(iterated.func, func) in ("builtins.tuple", "builtins.list"):
        iterated = iterated.args[0]  # tuple(commands)
    if isinstance(iterated, (ast.List, ast.Tuple, ast.Set)):
        return [(e, func) for e in iterated.elts if _fits(e, arity)]
    if isinstance(iterated, ast.Name):
        bound = [n.value for n in nodes_of(func, (ast.Assign, ast.AnnAssign)) if n.value is not None and any(
            isinstance(t, ast.Name) and t.id == iterated.id
            for t in (n.targets if isinstance(n, ast.Assign) else [n.target]))]
        if bound:
            return [t for value in bound if not isinstance(value, ast.Name)
                    for t in _tuples(index, value, func, arity, seen)]
        value = func.module.globals.get(iterated.id)
        if isinstance(value, (ast.List, ast.Tuple)):
            return [(e, _module_scope(index, func.module)) for e in value.elts if _fits(e, arity)]
    made = index.callee(iterated.func if isinstance(iterated, ast.Call) else iterated, func)
    if isinstance(made, Func):  # a property or a function that builds the commands
        return [(n, made) for n in nodes_of(made, ast.Tuple) if _fits(n, arity)][:MAX_TUPLES]
    return []


def _fits(node: ast.expr, arity: int) -> bool:
    return isinstance(node, ast.Tuple) and len(node.elts) == arity


def _module_scope(index, module: Module) -> Func:
    return index.infer.module_func(module)
