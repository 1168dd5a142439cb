"""Scopes of the analysed code that the index and its type inference share: module scope, enclosing
functions, unannotated parameters, classmethods' ``cls``, and the classes of a module."""

from __future__ import annotations

import ast
import re

from faultlib.detect.serving.blocking.model import Func, Module, _is_local, dotted

_LOADED_MODEL = re.compile(r"^load_(?:\w+_)?model$")
"""A third-party function that loads and returns a model object whose class the code does not name."""
MAX_RESOLVE_DEPTH = 12  # re-exports followed, bases walked, nested type inference



def _all_classes(module: Module):
    """Every class of ``module``, nested ones included (methods' classes are reached through their functions)."""
    seen = {id(f.cls): f.cls for f in module.all_functions if f.cls is not None}
    for klass in module.classes.values():
        seen.setdefault(id(klass), klass)
    return seen.values()


def _module_func(func: Func) -> Func | None:
    """Globals are evaluated in module scope: no function's locals apply."""
    return Func(func.module, ast.FunctionDef(name="<module>", args=ast.arguments(
        posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]), body=[],
        decorator_list=[], lineno=1, col_offset=0), "<module>", _types={})




def _unannotated_param(func: Func, name: str, only_unannotated: bool = True) -> bool:
    """``name`` is a parameter of ``func`` (without an annotation when ``only_unannotated``; ``Any`` and
    ``object`` say nothing about the type, so they count as none)."""
    args = func.node.args
    for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs):
        if arg.arg == name:
            return not only_unannotated or arg.annotation is None or (dotted(arg.annotation) or [""])[-1] in (
                "Any", "object")
    return False



def _enclosing_scope(func: Func, name: str) -> Func | None:
    """The innermost enclosing function of which ``name`` (not local to ``func``) is a local or parameter."""
    if _is_local(func, name):
        return None
    scope = func.parent
    while scope is not None:
        if _is_local(scope, name):
            return scope
        scope = scope.parent
    return None


def _is_classmethod(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any(isinstance(d, ast.Name) and d.id == "classmethod" for d in node.decorator_list)


def _is_cls(func: Func, name: str) -> bool:
    """``name`` is the ``cls`` parameter of a classmethod of the analysed files (the class, not an instance)."""
    if func.cls is None or not _is_classmethod(func.node):
        return False
    params = [*func.node.args.posonlyargs, *func.node.args.args]
    return bool(params) and params[0].arg == name
