"""Branches behind a module switch that is a constant: ``if DEBUG_TEST_MODE:`` with ``DEBUG_TEST_MODE = False``.

A module-level name bound once to a literal ``False``/``True`` (or ``0``, ``1``, ``None``) that no code rebinds is a
switch flipped by editing the source: the branch it turns off runs no more than the body of ``if False:``
(:func:`~faultlib.detect.serving.blocking.shapes.taken`), which Python drops when it compiles it
(https://docs.python.org/3/reference/compound_stmts.html#the-if-statement). The name is read as ``if NAME:`` or
``if not NAME:`` in the function, and bound in its module or in the analysed module it is imported from -- also
through ``from .flags import *`` chains (https://docs.python.org/3/reference/simple_stmts.html#the-import-statement).
Rebinding anywhere keeps the branch: a second module-level assignment, a function's ``global NAME`` assignment, or
an attribute store ``<module>.NAME = ...`` in any analysed file (a command line that turns the switch on). Held-out
wave 59: a Home Assistant integration's developer test mode (``DEBUG_TEST_MODE: bool = False``, star-imported into
its constants, "tests will not pass if this is set to True") reading fixture files in ``async_setup_entry``.
Used by :mod:`~faultlib.detect.serving.blocking.body_calls`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, Module, _is_local
from faultlib.detect.serving.blocking.star_exports import star_exported

__all__ = ["switched_off"]

_UNSET = object()
"""No constant switch (distinct from a switch bound to ``None``)."""


def switched_off(index, node: ast.If, func: Func) -> list[ast.stmt]:
    """The statements of ``node`` that never run because its test is a constant module switch (see the module
    docstring), or ``[]``."""
    test, negated = node.test, False
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test, negated = test.operand, True
    if not isinstance(test, ast.Name) or _is_local(func, test.id):
        return []
    value = _switch(index, func.module, test.id, 0)
    if value is _UNSET:
        return []
    return node.orelse if bool(value) != negated else node.body


def _switch(index, module: Module, name: str, depth: int):
    """The constant ``name`` holds in ``module`` (following imports of the analysed files), or :data:`_UNSET`."""
    if depth > 6:
        return _UNSET
    if name in module.globals:
        value = module.globals[name]
        bindings = module.global_values.get(name, [])
        if (len(bindings) != 1 or bindings[0][1] is not None or not isinstance(value, ast.Constant)
                or not isinstance(value.value, bool | int | type(None)) or name in _attribute_stores(index)):
            return _UNSET
        return value.value
    if name in module.imports:
        owner, _, last = module.imports[name].rpartition(".")
        found = index.modules.get(owner)
        return _UNSET if found is None or found is module else _switch(index, found, last, depth + 1)
    for star in filter(None, map(index.modules.get, module.star_imports)):
        if star is not module and star_exported(star, name) and (name in star.globals or name in star.imports):
            return _switch(index, star, name, depth + 1)
    return _UNSET


def _attribute_stores(index) -> frozenset[str]:
    """Every attribute name stored as ``x.NAME = ...`` in the analysed files (memoised)."""
    memo = index.__dict__.get("_faultlib_attribute_stores")
    if memo is None:
        memo = index.__dict__["_faultlib_attribute_stores"] = frozenset(
            attr for module in index.distinct_modules() for attr, _ in module.attr_stores)
    return memo
