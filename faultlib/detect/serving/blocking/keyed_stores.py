"""Values the analysed files store under a key in some shared mapping, gathered once per analysis.

The tables of :mod:`~faultlib.detect.serving.blocking.tornado_settings` (a Tornado application's ``settings``) and
:mod:`~faultlib.detect.serving.blocking.hass_data` (Home Assistant's ``hass.data``) are built the same way: every
statement of every function of the analysed files is asked which ``(key, value)`` pairs it stores, and the values
are kept with the function that stores them, so that their types can be read there
(:func:`~faultlib.detect.serving.blocking.infer.stored_type`).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from typing import Any

from faultlib.detect.serving.blocking.model import Func

__all__ = ["keyed_stores"]


def keyed_stores(index, name: str, stored: Callable[[ast.AST, Func], Iterable[tuple[Any, ast.expr]]]
                 ) -> dict[Any, list[tuple[ast.expr, Func]]]:
    """``{key: [(value, scope), ...]}`` of every pair ``stored(node, scope)`` gives for a node of a function of the
    analysed files, memoised on ``index`` under ``name``."""
    memo = index.__dict__.get(name)
    if memo is not None:
        return memo
    memo = index.__dict__[name] = {}
    for module in index.distinct_modules():
        for scope in module.all_functions:
            for node in scope.nodes:
                for key, value in stored(node, scope):
                    memo.setdefault(key, []).append((value, scope))
    return memo
