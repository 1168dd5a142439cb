"""Which parameter of a function of the analysed files each argument of a call of it binds.

A call binds its positional arguments to the function's positional parameters in order and its keyword arguments by
name (https://docs.python.org/3/reference/expressions.html#calls); a method called on an object (``obj.run(x)``)
gets the object as its first parameter, so the written arguments start at the second (a ``staticmethod`` excepted).
From the first ``*args`` on, positions are unknown and no later positional argument is bound. Shared by the rules
that follow a value into the function it is handed to (:mod:`~faultlib.detect.serving.blocking.driven_coroutines`,
:mod:`~faultlib.detect.serving.blocking.async_closures`).
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, dotted

__all__ = ["caller_parameters", "given_arguments"]


def caller_parameters(func: Func) -> list[str]:
    """``func``'s parameters that a caller passes: positional ones (``self``/``cls`` of a method left out), then the
    keyword-only ones."""
    args = func.node.args
    positional = [a.arg for a in [*args.posonlyargs, *args.args]]
    if _bound(func) and positional:
        positional = positional[1:]
    return positional + [a.arg for a in args.kwonlyargs]


def given_arguments(call: ast.Call, target: Func) -> dict[str, ast.expr]:
    """``{parameter: value}`` for each argument of ``call`` (a call of ``target``) given by position or keyword."""
    args = target.node.args
    positional = [a.arg for a in [*args.posonlyargs, *args.args]]
    if _bound(target) and isinstance(call.func, ast.Attribute) and positional:
        positional = positional[1:]
    given: dict[str, ast.expr] = {}
    for name, value in zip(positional, call.args):
        if isinstance(value, ast.Starred):
            break
        given[name] = value
    given.update((k.arg, k.value) for k in call.keywords if k.arg)
    return given


def _bound(func: Func) -> bool:
    return func.cls is not None and not any(dotted(d) == ["staticmethod"] for d in func.node.decorator_list)
