"""A file parameter that only some callers fill with an in-memory buffer.

A helper ``def convert(file): wave.open(file, "rb")`` is typed from its call sites: when the sites whose argument
has a known type all pass ``io.BytesIO``, the parameter is typed ``io.BytesIO`` and the file call reads memory. A
site passing a path (a string built at run time, whose type the analysis does not name) is left out of that
typing, so the buffer's verdict would silence the path's file I/O too. :func:`mixed_memory_argument` says when
that happens: some site of the function passes for the parameter a value that is not known to be an in-memory
buffer. Used by :func:`~faultlib.detect.serving.blocking.sites.in_memory`; ``None`` and a left-out argument say
nothing (the default is no file).
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.infer import MAX_SITES, _argument, _positional
from faultlib.detect.serving.blocking.model import Func, _is_static
from faultlib.detect.serving.blocking.scopes import _unannotated_param

__all__ = ["mixed_memory_argument"]


def mixed_memory_argument(index, arg: ast.expr, func: Func, memory: frozenset[str]) -> bool:
    """Whether ``arg`` is an unannotated parameter of ``func`` for which some call site in the analysed files
    passes a value whose type is not one of ``memory`` (the in-memory file types)."""
    if not isinstance(arg, ast.Name) or func.parent is not None or not _unannotated_param(func, arg.id):
        return False
    params = _positional(func.node)
    if arg.id not in params:
        return False
    method = func.cls is not None and not _is_static(func.node)
    position = params.index(arg.id) - (1 if method else 0)
    key = func.cls.node.name if func.cls is not None and func.node.name == "__init__" else func.node.name
    for call, caller in index.infer.sites().get(key, [])[:MAX_SITES]:
        if index.callee(call.func, caller) is not (func.cls if func.node.name == "__init__" else func):
            continue
        passed = _argument(call, arg.id, position)
        if passed is None or (isinstance(passed, ast.Constant) and passed.value is None):
            continue
        if index.type_of(passed, caller) not in memory:
            return True
    return False
