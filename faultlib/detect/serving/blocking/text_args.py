"""An argument the code shows to be a string: for a call whose work depends on whether it is given text (an
identifier to look up) or a structure already in memory.

commonmeta's ``Metadata(string)`` resolves a DOI or URL over HTTP when ``string`` is text and only reads the
mapping when it is a dict (https://github.com/front-matter/commonmeta-py, ``commonmeta/metadata.py``: "if
isinstance(string, dict): data = string ... elif isinstance(string, str): pid = normalize_id(string) ... data =
self.get_metadata(pid=pid, ...)"). The :class:`~faultlib.detect.serving.blocking.entries.BlocksWhen` test ``text``
asks for such an argument; :func:`textual` is what counts as one, read from the code written around the call: a
string literal or f-string, ``%``/``+`` with one, ``str(...)``, a ``str`` method's result (``doi.lower()``), a
parameter annotated ``str`` (``Optional[str]``, ``str | None``) with no binding above the call, or a local whose
nearest binding above the call is one of these. Any other value (a row read from a database, an unannotated
parameter) is not known to be text and does not count (held-out wave 65: 5 lookups found, 2 dict conversions left
silent). Used by :func:`~faultlib.detect.serving.blocking.sites.argument_blocks`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, dotted

__all__ = ["textual", "as_text"]

STR_METHODS = frozenset({"lower", "upper", "strip", "lstrip", "rstrip", "casefold", "title", "capitalize",
                         "removeprefix", "removesuffix", "zfill", "expandtabs", "swapcase"})
"""``str`` methods that return a new string (https://docs.python.org/3/library/stdtypes.html#string-methods) and
whose names other common types do not share (``replace``, ``format`` and ``join`` are left to literal receivers)."""

MAX_DEPTH = 4

TEXT = ast.Constant("")
"""What an argument shown to be text stands in as for the literal tests."""


def as_text(expr: ast.expr, func: Func) -> ast.expr:
    """``expr`` when it is a literal already, else :data:`TEXT` when :func:`textual` says it is a string, else
    ``expr`` (a variable: not known to be one)."""
    if isinstance(expr, ast.Constant):
        return expr
    return TEXT if textual(expr, func) else expr


def textual(expr: ast.expr, func: Func, depth: int = 0) -> bool:
    """Whether ``expr``, evaluated in ``func``, is a ``str`` by what the code writes (see the module docstring)."""
    if depth > MAX_DEPTH:
        return False
    if isinstance(expr, ast.Constant):
        return isinstance(expr.value, str)
    if isinstance(expr, ast.JoinedStr):
        return True
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Add, ast.Mod)):
        return isinstance(expr.left, (ast.Constant, ast.JoinedStr)) and textual(expr.left, func, depth + 1) or (
            isinstance(expr.op, ast.Add) and textual(expr.right, func, depth + 1))
    if isinstance(expr, ast.Call):
        if dotted(expr.func) == ["str"]:
            return True
        if isinstance(expr.func, ast.Attribute):
            if expr.func.attr in STR_METHODS:
                return True
            return expr.func.attr in ("format", "join") and isinstance(expr.func.value, ast.Constant) and isinstance(
                expr.func.value.value, str)
        return False
    if isinstance(expr, ast.Name):
        binding = _nearest_binding(func, expr)
        if binding is not None:
            return textual(binding, func, depth + 1)
        return _annotated_str(func, expr.id)  # a parameter not rebound above the call: what the caller passed
    return False


def _nearest_binding(func: Func, name: ast.Name) -> ast.expr | None:
    """The value of the last plain assignment to ``name`` in ``func`` written above ``name``'s line."""
    best = None
    for node in func.nodes:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id == name.id and node.lineno < name.lineno
                and (best is None or node.lineno > best.lineno)):
            best = node
    return best.value if best is not None else None


def _annotated_str(func: Func, name: str) -> bool:
    args = func.node.args
    for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
        if arg.arg == name and arg.annotation is not None:
            return _is_str(arg.annotation)
    return False


def _is_str(note: ast.expr) -> bool:
    if isinstance(note, ast.Constant) and isinstance(note.value, str):
        return note.value.replace(" ", "") in ("str", "str|None", "Optional[str]")
    if isinstance(note, ast.Name):
        return note.id == "str"
    if isinstance(note, ast.BinOp) and isinstance(note.op, ast.BitOr):  # str | None
        sides = [note.left, note.right]
        return any(_is_str(s) for s in sides) and all(_is_str(s) or (isinstance(s, ast.Constant) and s.value is None)
                                                      for s in sides)
    if isinstance(note, ast.Subscript) and (dotted(note.value) or [""])[-1] == "Optional":
        return _is_str(note.slice)
    return False
