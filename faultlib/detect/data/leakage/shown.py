"""Predictions that are only shown: a model's guesses for held-out rows that nothing scores are no evaluation.

A book's "deployment" section refits the final pipeline on every row and then displays ``model.predict(X_test[:5])``
as "new data"; an example prints ``search.best_estimator_.predict(X[:10])``. The rows reach the model, but no
metric, comparison or saved file ever sees the guesses, so no reported number is inflated: the house treats a fit
that no score reaches as a note (``info``), the same as a statistic plotted and never used.

A prediction is *only shown* when its value goes nowhere but the screen: the call (possibly wrapped in
:data:`SHOWN_THROUGH`, ``np.round(...)``, ``list(...)``, or cut with ``[...]``) is the last statement of a notebook
cell (its displayed value) or the argument of ``print``/``display``; or it is assigned to a name that no later
statement uses except in those ways, or as the iterable of a ``for`` loop whose body only prints. Anything else
(a metric, ``==``/``-`` against labels, a file written, a list appended to, a ``return``) keeps it an evaluation.

Findings raised at such a call (``fit_before_split``, ``trained_on_test``, ``fit_on_test``: the held-out rows used
there) are set aside; a fit whose every held-out use is only shown is reported at ``info``; one with any other use
is reported as before, at that use.
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage.targets import node_name
from faultlib.pyflow.walk import walk_once

#: the methods whose value is a model's guesses (scikit-learn glossary, "predict", "predict_proba", "decision_function")
PREDICTIONS = frozenset({"predict", "predict_proba", "predict_log_proba", "decision_function"})
#: calls that only show a value, or reshape it for showing (``print``, IPython ``display``, rounding, listing)
SHOWN_BY = frozenset({"print", "display", "pprint"})
SHOWN_THROUGH = frozenset({"round", "around", "list", "tolist", "str", "repr", "squeeze", "ravel", "flatten"})
#: the kinds a held-out use raises (the fit happened earlier; the use is where its rows come back)
AT_USE = frozenset({"fit_before_split", "trained_on_test", "fit_on_test"})


def _parents(tree: ast.AST) -> dict[ast.AST, ast.AST]:
    return {child: node for node in walk_once(tree) for child in ast.iter_child_nodes(node)}


def _outer(node: ast.AST, up: dict[ast.AST, ast.AST]) -> ast.AST:
    """``node`` with the wrappers that only reshape it for showing: ``np.round(node)``, ``node[:3]``,
    ``node.tolist()``."""
    while True:
        parent = up.get(node)
        if isinstance(parent, ast.Call) and node in parent.args and node_name(parent.func) in SHOWN_THROUGH:
            node = parent
        elif isinstance(parent, ast.Attribute) and parent.attr in SHOWN_THROUGH and isinstance(up.get(parent), ast.Call):
            node = up[parent]  # guesses.tolist()
        elif isinstance(parent, ast.Subscript) and parent.value is node:
            node = parent
        else:
            return node


def _shown(node: ast.AST, up: dict[ast.AST, ast.AST], displayed: frozenset[int]) -> bool:
    """The value of ``node`` is displayed and goes nowhere else."""
    node = _outer(node, up)
    parent = up.get(node)
    if isinstance(parent, ast.Expr):
        return id(parent) in displayed
    return isinstance(parent, ast.Call) and node in parent.args and node_name(parent.func) in SHOWN_BY and isinstance(
        up.get(parent), ast.Expr)


def displayed_values(tree: ast.Module, cells: list[tuple[int, int, int]] | None) -> frozenset[int]:
    """``id()`` of the expression statements a notebook displays: the last statement of a code cell (IPython
    shows the value of a cell's last expression). A script displays none: there a bare ``model.predict(X)`` is
    a value thrown away, read as a use the analysis cannot follow.

    Args:
        tree: the analysed module (the notebook's code cells joined).
        cells: ``(cell number, first line, line count)`` per code cell (:class:`~.source.SourceMap`), or ``None``.
    """
    if not cells:
        return frozenset()
    last: dict[int, ast.stmt] = {}
    for stmt in tree.body:
        cell = next((start for _, start, count in cells if start <= stmt.lineno < start + count), None)
        if cell is not None:
            last[cell] = stmt
    return frozenset(id(s) for s in last.values() if isinstance(s, ast.Expr))


def _prints_only(loop: ast.For) -> bool:
    return all(isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) and node_name(s.value.func) in SHOWN_BY
               for s in loop.body) and not loop.orelse


def _loads_after(tree: ast.AST, name: str, line: int) -> list[ast.Name]:
    """The later loads of ``name`` (anywhere, functions included) up to its next assignment."""
    stores = sorted(n.lineno for n in walk_once(tree) if isinstance(n, ast.Name) and n.id == name and
                    isinstance(n.ctx, ast.Store) and n.lineno > line)
    end = stores[0] if stores else None
    return [n for n in walk_once(tree) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)
            and n.lineno >= line and (end is None or n.lineno < end)]


def only_shown(call: ast.Call, tree: ast.Module, up: dict[ast.AST, ast.AST],
               displayed: frozenset[int] = frozenset()) -> bool:
    """Whether the prediction ``call`` (``model.predict(X_test)``) is only displayed (see the module docstring).

    Args:
        call: the call of one of :data:`PREDICTIONS`.
        tree: the analysed module, where the call is.
        up: child -> parent map of ``tree``.
        displayed: the expression statements whose value is shown (:func:`displayed_values`).

    Returns:
        ``True`` only where every way the value leaves the call is shown; ``False`` when unsure.
    """
    if _shown(call, up, displayed) or _printed_in_loop(call, up):
        return True
    top = _outer(call, up)
    assign = up.get(top)
    if not (isinstance(assign, ast.Assign) and assign.value is top and len(assign.targets) == 1
            and isinstance(assign.targets[0], ast.Name) and isinstance(up.get(assign), ast.Module)):
        return False
    for load in _loads_after(tree, assign.targets[0].id, assign.lineno):
        if not (_shown(load, up, displayed) or _printed_in_loop(load, up)):
            return False
    return True


def _printed_in_loop(node: ast.AST, up: dict[ast.AST, ast.AST]) -> bool:
    """``node`` is (in) the iterable of a ``for`` loop whose body only prints: ``for row, guess in zip(rows,
    guesses): print(row, guess)``."""
    loop = node
    while loop in up and not isinstance(loop, ast.stmt):
        loop = up[loop]
    return isinstance(loop, ast.For) and _inside(node, loop.iter, up) and _prints_only(loop)


def _inside(node: ast.AST, root: ast.AST, up: dict[ast.AST, ast.AST]) -> bool:
    while node is not None:
        if node is root:
            return True
        node = up.get(node)
    return False


class ShownPredictions:
    """A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer`, placed before the estimator semantics:
    held-out uses that are only shown are set aside (see the module docstring)."""

    def _estimator(self, est: Any, name: str, args: list[Any], kwargs: dict[str, Any], node: ast.Call,
                   frame: Any) -> Any:
        if name not in PREDICTIONS:
            return super()._estimator(est, name, args, kwargs, node, frame)  # type: ignore[misc]
        if "_up" not in self.__dict__:
            self.__dict__["_up"] = _parents(self.tree)  # type: ignore[attr-defined]
            self.__dict__["_displayed"] = displayed_values(self.tree, self.smap.cells)  # type: ignore[attr-defined]
        before = self.__dict__.get("_shown_use", False)
        self.__dict__["_shown_use"] = only_shown(node, self.tree, self.__dict__["_up"],  # type: ignore[attr-defined]
                                                 self.__dict__["_displayed"])
        try:
            return super()._estimator(est, name, args, kwargs, node, frame)  # type: ignore[misc]
        finally:
            self.__dict__["_shown_use"] = before

    def _emit(self, kind: str, fit: Any, **kw: Any) -> None:
        if kind in AT_USE and self.__dict__.get("_shown_use"):
            shown = self.__dict__.setdefault("_shown_pending", {})
            why = f"{kw.pop('why')}; the predictions made there are only shown, nothing scores them"
            shown.setdefault((kind, fit.line, fit.column), {"kind": kind, "fit": fit, **kw, "why": why, "shown": True})
            return
        super()._emit(kind, fit, **kw)  # type: ignore[misc]

    def _shown_only_pending(self) -> list[dict[str, Any]]:
        """The set-aside uses of fits that have no other finding: reported at ``info`` (``"shown"``)."""
        sites = {(p["fit"].line, p["fit"].column) for p in self._pending}  # type: ignore[attr-defined]
        return [p for p in self.__dict__.get("_shown_pending", {}).values()
                if (p["fit"].line, p["fit"].column) not in sites]
