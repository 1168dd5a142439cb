"""Helpers of a module that keep a candidate search's scores or pick its best one, for the choice of a loop of
candidates (:mod:`.choices`).

A search loop may hand each candidate's result to a function of the module that appends it to a list it is given,
and hand that list, after the loop, to another function that sorts the records and returns the first one's
setting::

    def record(y_test, board, setting, guess):
        board.append({"mae": mean_absolute_error(y_test, guess), "setting": setting})   # an appending helper

    def winner(board):
        return pd.DataFrame(board).sort_values("mae").head(1).to_dict("records")[0]["setting"]   # a picking helper

    for setting in settings:
        ...
        record(y_test, board, setting, model.predict(x_test))   # the loop keeps its scores in ``board``
    best = winner(board)                                         # and the best of them is picked here

The list is the loop's collected scores as if the loop appended to it itself, and the call of the picking helper
is the choice, as ``board.sort_values(...).iloc[0]`` written in place is (Python passes the list object itself,
so the callee's ``append`` grows the caller's list: Python Language Reference, 4.2 "Naming and binding" / 6.3.4
"Calls"). Issue 17 wave 106: a demand-forecast project whose ``grid_search`` helpers score every candidate on
``x_test`` through ``grid_search_report(..., error_list, ...)`` and return ``grid_search_hist(error_list)``, the
first row of the table sorted by test MAPE.

Only functions defined in the module are read (a library's function is not known to append or pick); a picking
helper must both sort (``sort_values``, ``sorted``, ``sort_index``, ``nsmallest``/``nlargest``) and take a first
row (``.iloc[0]``, ``.head(1)``, ``.index[0]``, ``[0]``) or call ``idxmin``/``idxmax``, and return it.
"""

from __future__ import annotations

import ast

from faultlib.pyflow.walk import walk_once

_SORTS = frozenset({"sort_values", "sort_index", "sorted", "nsmallest", "nlargest"})
_BEST_LABELS = frozenset({"idxmin", "idxmax"})


def _functions(tree: ast.AST) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [n for n in walk_once(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]


def appending_params(tree: ast.AST) -> dict[str, frozenset[int]]:
    """Function name -> positions of its parameters that its body appends to or extends (``board.append(...)``)."""
    out: dict[str, frozenset[int]] = {}
    for fn in _functions(tree):
        params = [a.arg for a in [*fn.args.posonlyargs, *fn.args.args]]
        grown = {n.func.value.id for n in ast.walk(fn) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                 and n.func.attr in ("append", "extend") and isinstance(n.func.value, ast.Name)}
        positions = frozenset(i for i, p in enumerate(params) if p in grown)
        if positions:
            out[fn.name] = positions
    return out


def _first_row(n: ast.AST) -> bool:
    if isinstance(n, ast.Subscript):
        key = n.slice.elts[0] if isinstance(n.slice, ast.Tuple) and n.slice.elts else n.slice
        return isinstance(key, ast.Constant) and key.value == 0
    if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute):
        if n.func.attr in _BEST_LABELS:
            return True
        return n.func.attr == "head" and [getattr(a, "value", None) for a in n.args] == [1]
    return False


def picking_functions(tree: ast.AST) -> frozenset[str]:
    """Functions of the module that sort something, take its first row (or the label of its best value) and
    return a value: the best of the records they are handed."""
    out = set()
    for fn in _functions(tree):
        nodes = list(ast.walk(fn))
        sorts = any(isinstance(n, ast.Call) and (getattr(n.func, "attr", None) or getattr(n.func, "id", None))
                    in _SORTS for n in nodes)
        returns = any(isinstance(n, ast.Return) and n.value is not None for n in nodes)
        if sorts and returns and any(_first_row(n) for n in nodes):
            out.add(fn.name)
    return frozenset(out)


def handed_to_appender(call: ast.Call, appenders: dict[str, frozenset[int]]) -> set[str]:
    """The names ``call`` (of a module function) hands at the positions its body appends to."""
    name = call.func.id if isinstance(call.func, ast.Name) else None
    positions = appenders.get(name or "", frozenset())
    return {a.id for i, a in enumerate(call.args) if i in positions and isinstance(a, ast.Name)}


__all__ = ["appending_params", "handed_to_appender", "picking_functions"]
