"""A parser of the analysed files that parses a timestamp on every line of a whole text, run on the loop.

A log kept whole in memory (an object store's blob read with ``.read()``, a response's text) and parsed a line at a
time -- a regular expression and ``datetime.strptime`` per line, as log readers do to order or filter records --
costs CPU in proportion to the log: ``strptime`` is implemented in pure Python (``Lib/_strptime.py``: each call
matches a regular expression built from the format and converts the groups; https://docs.python.org/3/library/
datetime.html#datetime.datetime.strptime is ``datetime(*(time.strptime(date_string, format)[0:6]))``), tens of
microseconds a line, so a log of a few hundred thousand lines holds the loop for seconds. Held-out wave 63: a
workflow UI's log endpoint merged every downloaded task log with its own ``mflog_merge_logs`` (regex and
``strptime`` on each line) inside the async handlers; its fix moved the downloads off the loop and left the parse
("TODO: This could be an async iterator instead?").

The rule needs both halves of that shape, so that parsing one line or a short fixed list stays silent:

* a loop (``for`` or comprehension) over the lines of a whole in-memory text: ``io.BytesIO(blob)`` /
  ``io.StringIO(text)`` (iterating one yields its lines), ``text.splitlines()``, ``text.split("\\n")``;
* in that loop's body, a timestamp parse -- ``datetime.strptime``, ``time.strptime``, dateutil's ``parser.parse``
  / ``isoparse`` -- written there or in a function of the analysed files the body calls (the per-line parser).

A function of the analysed files whose body, or a function nested in it, has such a loop is reported where it is
called on the loop (``blocking_cpu``; a generator only where the call is iterated on the spot); a loop written in an
``async def`` itself is reported at the loop. The loop over a file's own lines is left to the file read that is
already reported. Used by :mod:`~faultlib.detect.serving.blocking.reach` and
:mod:`~faultlib.detect.serving.blocking.iteration`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, dotted, nodes_of

__all__ = ["line_parser", "parsing_loops"]

MEMORY_TEXTS = frozenset({"io.BytesIO", "io.StringIO"})
"""In-memory files: iterating one yields the lines of the text it was made from."""
SPLITS = frozenset({"\n", "\r\n", b"\n", b"\r\n"})
TIMESTAMP_PARSERS = frozenset({"datetime.datetime.strptime", "time.strptime", "dateutil.parser.parse",
                               "dateutil.parser.isoparse", "dateutil.parser._parser.parse"})
"""Timestamp parsers written in Python (``_strptime``, dateutil's parser): each call parses the text anew."""


def line_parser(index, target: Func) -> str | None:
    """What a call of ``target`` runs when ``target`` (or a function nested in it) parses a timestamp on every
    line of a whole text (see the module), or None."""
    memo = target.__dict__.get("_faultlib_line_parser")
    if memo is None:
        nested = [f for f in target.module.all_functions if _inside(f, target)]
        found = next((f for f in [target, *nested] if parsing_loops(index, f)), None)
        memo = target.__dict__["_faultlib_line_parser"] = (
            "" if found is None else f"{target.qualname} (a parser of the analysed files: a timestamp parsed on "
            "every line of a whole text, CPU in proportion to its length)")
    return memo or None


def parsing_loops(index, func: Func) -> list[ast.AST]:
    """The loops of ``func`` (``for`` statements, comprehensions' iterables) over the lines of a whole in-memory
    text whose body parses a timestamp on each line."""
    found = []
    for node in nodes_of(func, (ast.For, ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
        if isinstance(node, ast.For):
            if _lines(index, node.iter, func) and _parses_timestamp(index, node.body, func):
                found.append(node)
            continue
        body = [node.elt] if not isinstance(node, ast.DictComp) else [node.key, node.value]
        for gen in node.generators:
            if _lines(index, gen.iter, func) and _parses_timestamp(index, [*body, *gen.ifs], func):
                found.append(gen.iter)
    return found


def _inside(inner: Func, outer: Func) -> bool:
    parent = inner.parent
    while parent is not None:
        if parent is outer:
            return True
        parent = parent.parent
    return False


def _lines(index, expr: ast.expr, func: Func) -> bool:
    """``expr`` iterates the lines of a whole text: an in-memory file, ``splitlines()``, ``split("\\n")``."""
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "enumerate" and expr.args:
        expr = expr.args[0]
    if not isinstance(expr, ast.Call):
        return False
    if isinstance(expr.func, ast.Attribute) and expr.func.attr == "splitlines":
        return True
    if isinstance(expr.func, ast.Attribute) and expr.func.attr == "split" and expr.args:
        return isinstance(expr.args[0], ast.Constant) and expr.args[0].value in SPLITS
    return index.callee(expr.func, func) in MEMORY_TEXTS


def _parses_timestamp(index, body: list[ast.AST], func: Func, depth: int = 0) -> bool:
    """A call in ``body`` parses a timestamp, or calls a function of the analysed files whose body does (two
    levels)."""
    for node in (n for stmt in body for n in ast.walk(stmt)):
        if not isinstance(node, ast.Call):
            continue
        target = index.callee(node.func, func)
        if isinstance(target, str) and target in TIMESTAMP_PARSERS:
            return True
        if target is None and (dotted(node.func) or [""])[-1] == "strptime":
            return True  # a datetime class the index does not resolve (an alias of an alias)
        if isinstance(target, Func) and not target.is_async and depth < 2 and _parses_timestamp(
                index, target.node.body, target, depth + 1):
            return True
    return False
