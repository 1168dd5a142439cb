"""A context variable annotated ``ContextVar[T]``: its ``get()`` returns the ``T`` it holds.

"``ContextVar.get([default])``: Return a value for the context variable for the current context"
(https://docs.python.org/3/library/contextvars.html#contextvars.ContextVar.get); ``ContextVar`` is generic in the
value's type (``class ContextVar(Generic[_T])`` with ``def get(self) -> _T`` in typeshed's ``contextvars.pyi``), so
``SETTINGS: ContextVar[Settings] = ContextVar("settings")`` declares what every ``SETTINGS.get()`` returns. A program
keeps its settings or its current session that way and reads them in the functions its handlers call: without the
annotation read, ``SETTINGS.get().theme_directory.iterdir()`` is a call on an unknown receiver (held-out wave 67, a
Textual TUI loading its user themes in ``on_mount``). Only a module global of the analysed files declared so (read
by its name in its module, imported by name, or as ``module.NAME``) is typed; the annotation's ``T`` is read as any
annotation is.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, Module, _is_local, dotted

__all__ = ["CONTEXT_VAR", "GETTERS", "context_value"]

CONTEXT_VAR = "contextvars.ContextVar"
GETTERS = frozenset({"get"})


def context_value(index, receiver: ast.expr, func: Func):
    """The type ``receiver.get()`` returns when ``receiver`` is a module global annotated ``ContextVar[T]`` (``T``'s
    type), else None."""
    declared = _declaration(index, receiver, func)
    if declared is None:
        return None
    annotation, module = declared
    if not isinstance(annotation, ast.Subscript):
        return None
    parts = dotted(annotation.value)
    if not parts or parts[-1] != CONTEXT_VAR.rpartition(".")[2]:
        return None
    if index.resolve_parts(parts, module, None) != CONTEXT_VAR:
        return None
    held = annotation.slice.elts[0] if isinstance(annotation.slice, ast.Tuple) else annotation.slice
    return index.annotation_type(held, module)


def _declaration(index, receiver: ast.expr, func: Func) -> tuple[ast.expr, Module] | None:
    """``(annotation, module)`` of the module global ``receiver`` names (see the module docstring), or None."""
    module, name = func.module, None
    if isinstance(receiver, ast.Name) and not _is_local(func, receiver.id):
        name = receiver.id
        if name in func.module.imports and _annotation(func.module, name) is None:
            owner, _, name = func.module.imports[name].rpartition(".")
            module = index.modules.get(owner)
    elif isinstance(receiver, ast.Attribute) and isinstance(receiver.value, ast.Name):
        parts = dotted(receiver.value)
        target = index.resolve_parts(parts, func.module, func) if parts else None
        module, name = (target, receiver.attr) if isinstance(target, Module) else (None, None)
    if module is None or name is None:
        return None
    annotation = _annotation(module, name)
    return (annotation, module) if annotation is not None else None


def _annotation(module: Module, name: str) -> ast.expr | None:
    for node in module.tree.body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == name:
            return node.annotation
    return None
