"""The best item of a ranking picked by a loop written by hand, for the static leakage analysis.

A greedy feature selection often writes its own ``argmax``::

    relevance = mutual_info_classif(X, y)
    for col in range(X.shape[1]):
        if relevance[col] > best:          # the ranking decides ...
            best, best_col = relevance[col], col
    chosen.append(best_col)                # ... which position is kept

``best_col`` is bound to the loop's counter, a plain number, so the column it keeps lost the fit that ranked the
columns; ``np.argmax(relevance)`` kept it. The comparison is what chooses (an implicit flow: the value assigned
depends on the ranking through the condition that guards the assignment; Denning & Denning, "Certification of
programs for secure information flow", CACM 20(7), 1977). Wave 61: mutual-information scores minus a redundancy
term picked the MIFS columns one by one this way (Battiti, "Using mutual information for selecting features in
supervised neural net learning", IEEE TNN 5(4), 1994), before ``cross_val_predict``.

:func:`best_item_picks` names the ``if`` statements, inside a ``for`` loop over a counter, whose test orders two
values (``<``, ``>``, ``<=``, ``>=``) and whose body binds a name to that counter; :class:`BestItems` then gives the
name, after the ``if``, the fits of any ranking the comparison read.
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage.classstats import chooses
from faultlib.detect.data.leakage.values import Data, maybe_data
from faultlib.pyflow.walk import walk_once

_ORDERS = (ast.Lt, ast.Gt, ast.LtE, ast.GtE)


def _counter_bindings(body: list[ast.stmt], counter: str) -> list[str]:
    """Names the branch binds to the counter: ``best_col = col``, ``best, best_col = score, col``."""
    out = []
    for stmt in body:
        if not isinstance(stmt, ast.Assign):
            continue
        for target in stmt.targets:
            pairs = zip(target.elts, stmt.value.elts) if isinstance(target, ast.Tuple) and isinstance(
                stmt.value, ast.Tuple) and len(target.elts) == len(stmt.value.elts) else [(target, stmt.value)]
            out.extend(t.id for t, v in pairs if isinstance(t, ast.Name) and isinstance(v, ast.Name) and v.id == counter)
    return out


def best_item_picks(tree: ast.AST) -> dict[int, tuple[list[str], list[ast.expr]]]:
    """``id(if_node)`` -> (the names bound to the loop counter, the operands of the ordering comparisons)."""
    out: dict[int, tuple[list[str], list[ast.expr]]] = {}
    for loop in walk_once(tree):
        if not isinstance(loop, ast.For) or not isinstance(loop.target, ast.Name):
            continue
        for node in ast.walk(loop):
            if not isinstance(node, ast.If):
                continue
            operands = [e for c in ast.walk(node.test) if isinstance(c, ast.Compare) and len(c.ops) == 1
                        and isinstance(c.ops[0], _ORDERS) for e in (c.left, *c.comparators)
                        if not any(isinstance(n, ast.Call) for n in ast.walk(e))]  # read again: no calls
            names = _counter_bindings(node.body, loop.target.id)
            if operands and names:
                out[id(node)] = (names, operands)
    return out


class BestItems:
    """A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer` (it needs ``_expr`` and ``_store``): after
    ``if ranking[j] > best: best_j = j``, ``best_j`` carries the ranking's fits (see the module docstring)."""

    def _stmt(self, node: ast.stmt, frame: Any) -> None:
        super()._stmt(node, frame)  # type: ignore[misc]
        if not isinstance(node, ast.If):
            return
        if not hasattr(self, "_best_picks"):
            self._best_picks = best_item_picks(self.tree)  # type: ignore[attr-defined]
        picked = self._best_picks.get(id(node))
        if picked is None:
            return
        names, operands = picked
        fits = frozenset(f for e in operands for d in [maybe_data(self._expr(e, frame))]  # type: ignore[attr-defined]
                         if d is not None and d.rows is None for f in d.taints if chooses(f))
        if fits:
            for name in names:
                self._store(name, Data(None, fits, False), frame)  # type: ignore[attr-defined]


__all__ = ["BestItems", "best_item_picks"]
