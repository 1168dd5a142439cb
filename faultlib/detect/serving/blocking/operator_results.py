"""What an arithmetic operator, or ``sum``, gives on a library object whose class overloads it.

A library type may define its operators to build a new object of its own kind: pydub's ``AudioSegment`` joins two
segments with ``+`` (or changes the gain by a number of dB), lowers it with ``-``, repeats or overlays it with ``*``,
and ``sum(segments)`` joins a list of them (``0 + a`` goes to ``AudioSegment.__radd__``, which returns the segment:
https://github.com/jiaaro/pydub/blob/master/API.markdown, "AudioSegment(...).__add__()" and the following entries,
and pydub/audio_segment.py). The vocabulary says so with ``returns`` entries for the operator's method
(``pydub.AudioSegment.__add__``). Python evaluates ``a + b`` as the left operand's ``__add__`` and, when that does
not apply, the right operand's reflected ``__radd__`` (https://docs.python.org/3/reference/datamodel.html#emulating-
numeric-types); ``sum(items)`` is ``0 + items[0] + items[1] ...``, so it has the items' type when their
``__radd__`` and ``__add__`` both give it. Used by :class:`~faultlib.detect.serving.blocking.typeof.TypeOf`
(held-out wave 75: a TTS service's segments joined with ``+``, then exported through ffmpeg in an async handler).
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func

__all__ = ["operator_result", "summed"]

_METHODS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.MatMult: "matmul", ast.Div: "truediv",
            ast.FloorDiv: "floordiv", ast.Mod: "mod", ast.Pow: "pow", ast.LShift: "lshift", ast.RShift: "rshift",
            ast.BitAnd: "and", ast.BitXor: "xor", ast.BitOr: "or"}


def operator_result(index, expr: ast.BinOp, func: Func | None, depth: int) -> str | None:
    """The type the vocabulary gives ``left <op> right``: the left operand's ``__op__`` return, else the right
    operand's ``__rop__`` return; None when neither operand is a library object with such an entry."""
    name = _METHODS.get(type(expr.op))
    if name is None:
        return None
    returns = index.vocab.returns
    left = index.type_of(expr.left, func, depth + 1)
    if isinstance(left, str) and f"{left}.__{name}__" in returns:
        return returns[f"{left}.__{name}__"]
    right = index.type_of(expr.right, func, depth + 1)
    return returns.get(f"{right}.__r{name}__") if isinstance(right, str) else None


def summed(index, call: ast.Call, func: Func | None, depth: int) -> str | None:
    """The type of ``sum(items)`` (``call``) when an item of ``items`` is a library object whose ``__radd__`` and
    ``__add__`` both return its own type, else None."""
    if not call.args or func is None:
        return None
    item = call.__dict__.setdefault("_faultlib_summed_item", ast.copy_location(ast.Subscript(
        value=call.args[0], slice=ast.copy_location(ast.Constant(0), call), ctx=ast.Load()), call))  # items[0]: typed as any element
    typed = index.type_of(item, func, depth + 1)
    returns = index.vocab.returns
    if isinstance(typed, str) and returns.get(f"{typed}.__radd__") == typed == returns.get(f"{typed}.__add__"):
        return typed
    return None
