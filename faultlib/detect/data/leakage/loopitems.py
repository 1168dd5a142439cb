"""A ``for`` loop over a column, or over a list built item by item, for the static leakage analysis.

``for text in table['message']: words.append(clean(text))`` is the loop form of
``words = [clean(t) for t in table['message']]``: one item a row (:mod:`.embeddings` reads the comprehension so).
Each pass binds one row of the column, and what the body appends from it carries those rows: a vocabulary or an
embedding trained on ``words`` before the split is a fit of every message. The same holds for a loop over a list
the script built by appending (``corpus = []`` ... ``corpus.append(review)``, then ``for sent in corpus:``): its
items are the rows appended.

``for i in range(len(table)): text = table['msg'][i]`` visits every index: over the loop, ``table['msg'][i]`` reads
every row (the whole column), not a row selection; so does a loop with a literal count that builds a list
(``for i in range(0, 1000): corpus.append(clean(table['Review'][i]))``: the 1000 rows it keeps are the data). Inside a loop over rows, a loop over a call on the row (``for sent in sent_tokenize(text)``: its sentences) binds parts
of that row, the same rows. Only these sources bind the loop variable to the rows: iterating a frame gives its column names, an array its
rows of numbers whose identity the analysis does not follow, anything else an unknown value (as before).
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage.embeddings import _one_item_a_row
from faultlib.pyflow.walk import walk_once


def built_lists(tree: ast.Module) -> frozenset[str]:
    """Names assigned an empty list (``corpus = []``) and appended to (``corpus.append(x)``) in ``tree``."""
    empty = {t.id for n in walk_once(tree) if isinstance(n, ast.Assign) and isinstance(n.value, ast.List)
             and not n.value.elts for t in n.targets if isinstance(t, ast.Name)}
    appended = {n.func.value.id for n in walk_once(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                and n.func.attr == "append" and isinstance(n.func.value, ast.Name)}
    return frozenset(empty & appended)


def every_row_indices(tree: ast.Module) -> frozenset[int]:
    """Ids of the index expressions ``t[i]`` (``t['msg'][i]``) inside ``for i in range(len(...))`` /
    ``range(0, len(...))``: the loop visits every index, so over the whole loop ``t[i]`` reads every row of ``t``,
    not a selection of them."""
    out: set[int] = set()
    for loop in walk_once(tree):
        if not (isinstance(loop, ast.For) and isinstance(loop.target, ast.Name) and isinstance(loop.iter, ast.Call)
                and isinstance(loop.iter.func, ast.Name) and loop.iter.func.id == "range"):
            continue
        args = loop.iter.args
        every = len(args) == 1 or len(args) == 2 and isinstance(args[0], ast.Constant) and args[0].value == 0
        counted = isinstance(args[-1], ast.Call) and isinstance(args[-1].func, ast.Name) and args[-1].func.id == "len"
        if not (every and (counted or _builds_a_list(loop) and _int_constant(args[-1]))):
            continue
        var = loop.target.id
        out |= {id(n.slice) for stmt in loop.body for n in ast.walk(stmt) if isinstance(n, ast.Subscript)
                and isinstance(n.slice, ast.Name) and n.slice.id == var}
    return frozenset(out)


def row_text(node: ast.Call, every_row: frozenset[int]) -> bool:
    """``str(X[i])`` inside ``for i in range(len(X))``: one row's value written out as text (a review loaded as
    bytes, ``load_files(...).data``, turned into a string before ``re.sub``) is still that row, so over the loop
    the call reads every row as :func:`every_row_indices` says ``X[i]`` does (Python reference, ``str``: "Return a
    str version of object"). Issue 17, wave 74: a course's text-classification scripts whose corpus, built so,
    fed a TF-IDF vectorizer before the split. ``str`` of anything else (a shape, a path, a number) stays no data."""
    return isinstance(node.func, ast.Name) and node.func.id == "str" and len(node.args) == 1 and not node.keywords \
        and isinstance(node.args[0], ast.Subscript) and id(node.args[0].slice) in every_row


def _attribute_column(node: ast.expr) -> ast.Attribute | None:
    """``table.message`` in ``for text in list(table.message)`` / ``table.message.tolist()``: a column read as an
    attribute of a table name (see :func:`~faultlib.detect.data.leakage.embeddings._one_item_a_row`)."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "list" and len(node.args) == 1:
        node = node.args[0]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("tolist", "to_list"):
        node = node.func.value
    if isinstance(node, ast.Attribute) and node.attr in ("values", "array"):
        node = node.value
    return node if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and _one_item_a_row(
        node) else None


def _int_constant(node: ast.expr) -> bool:
    """``1000`` in ``range(0, 1000)``: a literal count."""
    return isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool)


def _builds_a_list(loop: ast.For) -> bool:
    """The loop's body appends to a list (``corpus.append(review)``): a loop that builds one item per index, the
    hand-written form of ``[clean(t) for t in table['text'][:1000]]``. ``for i in range(0, 1000):
    corpus.append(clean(table['Review'][i]))`` reads the table's first 1000 rows -- the rows the script keeps as
    its data (a table of 1000 reviews); a loop with a literal count that builds nothing (``for i in range(5):
    print(t['text'][i])``) only looks at a few rows and is left as a row selection."""
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("append", "extend")
               and isinstance(n.func.value, ast.Name) for stmt in loop.body for n in ast.walk(stmt))


def _call_assignments(tree: ast.Module) -> dict[str, list[ast.Call]]:
    """``name -> [call, ...]`` for every ``name = call(...)`` in ``tree``."""
    out: dict[str, list[ast.Call]] = {}
    for n in walk_once(tree):
        if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call):
            for t in n.targets:
                if isinstance(t, ast.Name):
                    out.setdefault(t.id, []).append(n.value)
    return out


class LoopItems:
    """A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer` (see the module docstring)."""

    def _row_items(self, source: Any, node: ast.For, frame: Any = None) -> Any:
        """The loop variable's value when ``node`` iterates a column or a built list of rows; ``None`` otherwise."""
        from faultlib.detect.data.leakage.values import as_data, maybe_data

        if not hasattr(self, "_built_lists"):
            self._built_lists = built_lists(self.tree)
        data = maybe_data(source)
        column = _attribute_column(node.iter)
        if data is None and column is not None and frame is not None:  # for text in list(table.message)
            data = as_data(self._expr(column.value, frame))  # type: ignore[attr-defined]
        if data is None or data.rows is None:
            return None
        if _one_item_a_row(node.iter) or isinstance(node.iter, ast.Name) and node.iter.id in self._built_lists \
                or self._of_a_row(node.iter):
            return data
        return None

    def _of_a_row(self, expr: ast.expr) -> bool:
        """``sent_tokenize(text)`` / ``text.split('.')`` inside a loop over rows: the parts of one row (its
        sentences) are items of that row."""
        active = getattr(self, "_row_loop_names", set())
        if isinstance(expr, ast.Name):  # sent_token = sent_tokenize(sent); for s in sent_token
            if not hasattr(self, "_call_assigned"):
                self._call_assigned = _call_assignments(self.tree)
            return any(self._of_a_row(value) for value in self._call_assigned.get(expr.id, ()))
        return isinstance(expr, ast.Call) and any(isinstance(n, ast.Name) and n.id in active for n in ast.walk(expr))

    def _run_row_loop(self, node: ast.For, item: Any, frame: Any) -> None:
        """Bind one row to the loop variable and run the body once (names of such loops are active inside it)."""
        if not hasattr(self, "_row_loop_names"):
            self._row_loop_names: set[str] = set()
        name = node.target.id  # type: ignore[attr-defined]
        fresh = name not in self._row_loop_names
        self._row_loop_names.add(name)
        try:
            self._bind(node.target, item, frame, node.lineno)  # type: ignore[attr-defined]
            self._block(node.body, frame)  # type: ignore[attr-defined]
        finally:
            if fresh:
                self._row_loop_names.discard(name)


__all__ = ["LoopItems", "built_lists", "every_row_indices", "row_text"]
