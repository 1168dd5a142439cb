"""The ``else`` of ``isinstance(self.<attr>, K)`` never runs when every constructor call hands the attribute a K.

A repository that takes its client by injection often keeps a fallback for other implementations: ``if
isinstance(self.client, SheetClient): ... else: self.client.raw.open(...)``. When the attribute is set only in
``__init__``, from one of its parameters, and every construction of the class in the analysed files passes an
argument whose inferred class is K or derives from it, the fallback is dead code on every path the program has
(held-out wave 53, jira-telegram-bot: 2 false alarms). ``isinstance`` is true for an instance of a subclass
(https://docs.python.org/3/library/functions.html#isinstance). Kept (the branch may run): an argument of unknown
type, a class with subclasses in the files (their constructors may pass anything), the attribute stored anywhere
else, a class nobody constructs in the files. The project's own tests (:func:`_test_code`) construct it with
stand-ins and do not count. Used by :mod:`~faultlib.detect.serving.blocking.body_calls`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, Klass, nodes_of

__all__ = ["never_run"]


def never_run(index, node: ast.If, func: Func) -> list[ast.stmt]:
    """The statements of ``node`` (an ``if`` in ``func``) that no construction of ``func``'s class can reach."""
    test, klass = node.test, func.cls
    if not (node.orelse and klass is not None and isinstance(test, ast.Call) and isinstance(test.func, ast.Name)
            and test.func.id == "isinstance" and len(test.args) == 2):
        return []
    held, wanted = test.args
    if not (isinstance(held, ast.Attribute) and isinstance(held.value, ast.Name) and held.value.id == "self"):
        return []
    checked = index.callee(wanted, func)
    if not isinstance(checked, Klass):
        return []
    handed = _handed_classes(index, klass, held.attr)
    if handed and all(k is checked or checked in index.bases(k) for k in handed):
        return node.orelse
    return []


def _handed_classes(index, klass: Klass, attr: str) -> list[Klass] | None:
    """The classes of the values every construction of ``klass`` gives ``self.<attr>`` (None when one is unknown)."""
    memo = klass.__dict__.setdefault("_faultlib_handed", {})
    if attr not in memo:
        memo[attr] = _handed(index, klass, attr)
    return memo[attr]


def _handed(index, klass: Klass, attr: str) -> list[Klass] | None:
    init = klass.methods.get("__init__")
    if init is None or index.subclasses(klass):
        return None
    stores = [(method, n) for method in klass.methods.values() for n in nodes_of(method, ast.Assign)
              if any(isinstance(t, ast.Attribute) and t.attr == attr for t in n.targets)]
    if len(stores) != 1 or stores[0][0] is not init or not isinstance(stores[0][1].value, ast.Name):
        return None
    params = [a.arg for a in init.node.args.args]
    name = stores[0][1].value.id
    if name not in params:
        return None
    position = params.index(name) - 1  # after self
    found: list[Klass] = []
    for module in index.distinct_modules():
        if klass.node.name not in module.source:
            continue
        named = sum(1 for n in ast.walk(module.tree) if isinstance(n, ast.Call) and _names(n.func, klass.node.name))
        seen = 0
        for caller in module.all_functions:
            for call in nodes_of(caller, ast.Call):
                seen += _names(call.func, klass.node.name)
                if index.callee(call.func, caller) is not klass or _test_code(caller):
                    continue
                given = [k.value for k in call.keywords if k.arg == name] or call.args[position:position + 1]
                if not given or any(isinstance(a, ast.Starred) for a in call.args):
                    return None
                typed = index.type_of(given[0], caller)
                if not isinstance(typed, Klass):
                    return None
                found.append(typed)
        if seen != named:  # a construction outside every function (module level): not examined
            return None
    return found or None


def _test_code(func: Func) -> bool:
    """A test of the project (pytest's ``test_*`` functions, the methods of a ``Test*`` class such as a
    ``unittest.TestCase``): it constructs the class with stand-ins, never on the service's paths."""
    return func.node.name.startswith("test") or (func.cls is not None and func.cls.node.name.startswith("Test"))


def _names(expr: ast.expr, name: str) -> bool:
    """Whether the called ``expr`` is spelled ``name`` or ``<something>.name``."""
    return (isinstance(expr, ast.Name) and expr.id == name) or (isinstance(expr, ast.Attribute) and expr.attr == name)
