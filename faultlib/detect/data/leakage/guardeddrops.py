"""Columns dropped one by one under a test on a statistic of the rows, for the static leakage analysis.

Column filters are often written as a loop that drops a column when a statistic of it passes a threshold::

    for col in df.columns:
        null_pct = df[col].is_null().mean()        # the share of missing values over every row
        if null_pct > 0.95:
            df = df.drop(col)
        if df[col].n_unique() == 1:               # a column with one value in every row
            del df[col]

The frame that comes out is the one ``df.loc[:, df.isna().mean() <= .95]`` gives, which the analysis already reads
as a filter fitted on every row (:mod:`.spreadfilters`, :mod:`.countkeys`): which columns survive is what the
statistic of all the rows decided, test or validation rows included. Written as an ``if`` around a drop, the
decision went through the test (an implicit flow, as in :mod:`.keptnames`) and the frame lost it (issue 17 wave 87:
a Home Credit notebook dropping columns by their null share and their number of distinct values over every
training case before a grouped cross-validation).

So after an ``if`` whose body drops columns from a frame (``X = X.drop(...)``, ``X.drop(..., inplace=True)``,
``del X[c]``, ``X.pop(c)``), the frame carries the fits of the statistics its test reads (a value with no rows of its
own, read directly or through a name). A count of the rows (``nunique``/``n_unique``, ``count``, ``sum``,
``null_count``) is a number of the rows, not a fit, wherever else it is taken; read by such a test it decides the
drop, so there it is a statistic of the rows it counts (:func:`guard_reductions`). A test on anything else (a
dtype, a name, a column list) drops nothing by the rows and adds nothing, and neither does a test whether the column
is constant (``df[col].nunique() == 1``, ``df[col].std() == 0``: :mod:`.constancy`, judged false alarms at stop 53):
a column with one value over every row has one value in every training part cut from them, so no model can use it.

A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer`.
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.values import Data, maybe_data
from faultlib.pyflow.walk import walk_once

__all__ = ["GuardedDrops", "dropped_frames", "guard_reductions"]

#: reductions that count rows (pandas ``nunique``/``count``/``sum``, polars ``n_unique``/``null_count``)
_COUNTING = frozenset({"nunique", "n_unique", "count", "sum", "null_count"})
#: calls a compared value of a guard may make to be evaluated again: statistics, counts, missing masks and pure
#: functions of numbers (none has an effect)
_READS = vocab.STATISTICS | _COUNTING | frozenset({"isnull", "isna", "is_null", "notnull", "notna", "is_not_null",
                                                   "abs", "len", "float", "int", "round"})


def _name(node: ast.expr) -> str | None:
    return node.id if isinstance(node, ast.Name) else None


def _inplace(call: ast.Call) -> bool:
    return any(k.arg == "inplace" and isinstance(k.value, ast.Constant) and k.value.value is True
               for k in call.keywords)


def _dropped(stmt: ast.stmt) -> str | None:
    """The frame ``stmt`` drops a column from, by name: ``X = X.drop(...)``, ``X.drop(..., inplace=True)``,
    ``del X[c]``, ``X.pop(c)``."""
    if isinstance(stmt, ast.Delete) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Subscript):
        return _name(stmt.targets[0].value)
    call = stmt.value if isinstance(stmt, (ast.Assign, ast.Expr)) else None
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)):
        return None
    frame = _name(call.func.value)
    if isinstance(stmt, ast.Assign):
        same = len(stmt.targets) == 1 and _name(stmt.targets[0]) == frame
        return frame if same and call.func.attr == "drop" else None
    return frame if call.func.attr == "pop" or call.func.attr == "drop" and _inplace(call) else None


def dropped_frames(body: list[ast.stmt]) -> list[str]:
    """The frames the statements of ``body`` (nested blocks included, not nested functions) drop columns from."""
    out: list[str] = []
    for stmt in body:
        name = _dropped(stmt)
        if name is not None and name not in out:
            out.append(name)
        for block in (getattr(stmt, "body", None), getattr(stmt, "orelse", None)):
            if isinstance(block, list) and not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                  ast.ClassDef)):
                out += [n for n in dropped_frames(block) if n not in out]
    return out


def _counts_in(nodes: list[ast.AST]) -> list[ast.Call]:
    return [n for n in nodes if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and
            n.func.attr in _COUNTING and not n.args]



def _reads_only(expr: ast.expr) -> bool:
    """Every call of ``expr`` is one of :data:`_READS` (evaluating it again has no effect)."""
    return all(isinstance(n.func, (ast.Attribute, ast.Name)) and getattr(n.func, "attr", getattr(
        n.func, "id", None)) in _READS for n in ast.walk(expr) if isinstance(n, ast.Call))


def _outside(test: ast.expr, constant: frozenset[int]) -> list[ast.AST]:
    """The nodes of ``test`` outside the comparisons in ``constant`` (which ask whether a column is constant)."""
    out: list[ast.AST] = []
    todo: list[ast.AST] = [test]
    while todo:
        node = todo.pop()
        if id(node) in constant:
            continue
        out.append(node)
        todo.extend(ast.iter_child_nodes(node))
    return out


def guard_reductions(tree: ast.Module, constant: frozenset[int] = frozenset()) -> frozenset[int]:
    """Ids of the row counts (:data:`_COUNTING`) a drop's guard reads: in its test, or bound in the same scope to a
    name its test reads (see the module docstring); not in a comparison of ``constant``
    (:func:`~faultlib.detect.data.leakage.constancy.constancy_tests`: ``x.nunique() == 1`` learns nothing)."""
    out: set[int] = set()
    scopes = [tree, *(n for n in walk_once(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))]
    for scope in scopes:
        nodes = list(walk_once(scope))
        guards = [n for n in nodes if isinstance(n, ast.If) and dropped_frames(n.body)]
        if not guards:
            continue
        tested = [n for g in guards for n in _outside(g.test, constant)]
        read = {n.id for n in tested if isinstance(n, ast.Name)}
        out.update(id(c) for c in _counts_in(tested))
        for n in nodes:
            if isinstance(n, ast.Assign) and any(_name(t) in read for t in n.targets):
                out.update(id(c) for c in _counts_in(_outside(n.value, constant)))
    return frozenset(out)


class GuardedDrops:
    """A frame whose columns an ``if`` drops carries the fits of the statistics its test reads (see the module
    docstring)."""

    def _method_value(self, receiver: Any, name: str, args: list[Any], kwargs: dict[str, Any], node: ast.Call,
                      frame: Any) -> Any:
        if name in _COUNTING and id(node) in self._guard_counts():
            data = maybe_data(receiver)
            if data is not None and data.rows is not None:
                shown = ast.unparse(node.func)
                return self._statistic(data, f"{shown if len(shown) <= 40 else '...' + shown[-37:]}()", node,
                                       frame)  # type: ignore[attr-defined]
        return super()._method_value(receiver, name, args, kwargs, node, frame)  # type: ignore[misc]

    def _guard_counts(self) -> frozenset[int]:
        if not hasattr(self, "_guard_count_ids"):
            self._guard_count_ids = guard_reductions(self.tree, self._constancy)  # type: ignore[attr-defined]
        return self._guard_count_ids

    def _stmt(self, node: ast.stmt, frame: Any) -> None:
        dropped = dropped_frames(node.body) if isinstance(node, ast.If) else []
        if not dropped:
            super()._stmt(node, frame)  # type: ignore[misc]
            return
        fits = self._guard_fits(node.test, frame)  # type: ignore[union-attr]
        super()._stmt(node, frame)  # type: ignore[misc]
        for name in dropped if fits else ():
            held = maybe_data(self._lookup(name, frame))  # type: ignore[attr-defined]
            if held is not None and held.rows is not None and not fits <= held.taints:
                self._store(name, held.with_(taints=held.taints | fits), frame)  # type: ignore[attr-defined]

    def _guard_fits(self, test: ast.expr, frame: Any) -> frozenset:
        """The fits of the statistics the compared values of ``test`` hold (values without rows of their own)."""
        out: set = set()
        for node in ast.walk(test):
            if not isinstance(node, ast.Compare) or id(node) in self._constancy:  # type: ignore[attr-defined]
                continue  # x.nunique() == 1: a constant column goes, nothing of the rows is learned (constancy.py)
            for side in (node.left, *node.comparators):
                if isinstance(side, ast.Constant) or not _reads_only(side):
                    continue
                value = maybe_data(self._expr(side, frame))  # type: ignore[attr-defined]
                if isinstance(value, Data) and value.rows is None:
                    out |= value.taints
        return frozenset(out)
