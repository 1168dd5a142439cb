"""Names kept in a list under a condition a fitted selector decides, for the static leakage analysis.

A selector's mask is often read by hand, one column at a time::

    kept = []
    for name, keep in zip(names, rfecv.support_):
        if keep:                    # the selector decides ...
            kept.append(name)       # ... which names the list receives
    X_new = df[kept]

The name appended is a plain string, so the list lost the fit that chose it; the comprehension
``[n for n, k in zip(names, rfecv.support_) if k]`` kept it. The ``if`` is what chooses (an implicit flow: what
is appended depends on the mask through the condition that guards the append; Denning & Denning, "Certification
of programs for secure information flow", CACM 20(7), 1977), as in :mod:`.bestitems`. Wave 68: ``RFECV`` fitted
on every row, its ``support_`` zipped with the column names, the names kept this way, then ``cross_val_score``
over the kept columns with the same folds (``fit_outside_cv``).

:class:`KeptNames` gives a list, after an ``if`` whose body or ``else`` appends to it (an expression statement
``L.append(x)``/``L.extend(x)``; wave 93: ``if r_a >= r_b: drop.append(b) else: drop.append(a)``), the fits of any selection the test read: a value without rows (a mask, a score)
carrying a fit that chooses (:func:`~faultlib.detect.data.leakage.classstats.chooses`), read directly
(``if rfe.support_[i]:``) or through a name an enclosing ``for`` binds from such a value (``for name, keep in
zip(names, rfe.support_)``, ``enumerate(pairs)``). Only a test whose only calls are pure functions of numbers
(:data:`_PURE`: ``abs(corr[c]) <= .1``), and a loop source whose only calls are
``zip``/``enumerate``/``list``/``tuple``/``sorted``, is evaluated again (neither has effects). Wave 76: columns
whose absolute correlation with the label over every listing is at most 0.1 appended to a drop list in a loop
(``if abs(d[i]) <= 0.1: to_drop.append(data.columns[i])``), dropped, then the split: a supervised selection that
saw the test labels, as ``d[abs(d) <= 0.1].index`` is.
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage.classstats import chooses
from faultlib.detect.data.leakage.scoreloops import loops_around
from faultlib.detect.data.leakage.values import Data, Enum, maybe_data
from faultlib.pyflow.values import Tup

#: calls that only regroup what they are given: a loop source built with them is evaluated again safely
_REGROUPING = frozenset({"zip", "enumerate", "list", "tuple", "sorted"})
#: pure functions of numbers a kept-name test may call (``abs``, ``np.abs``, ``math.fabs``, ``round``...)
_PURE = frozenset({"abs", "absolute", "fabs", "float", "int", "round", "len"})


def appended_lists(body: list[ast.stmt]) -> list[str]:
    """The names of the lists the statements of ``body`` append to (``L.append(x)``, ``L.extend(x)``)."""
    return [s.value.func.value.id for s in body if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) and
            isinstance(s.value.func, ast.Attribute) and s.value.func.attr in ("append", "extend") and
            isinstance(s.value.func.value, ast.Name)]


def kept_names_joined(a: Any, b: Any) -> Any:
    """The list after an ``if`` that may have appended to it: the longer of ``a``/``b`` when the other is its
    prefix and the extra items are only the selections :class:`KeptNames` records (row-less values carrying a fit
    that chooses); ``None`` otherwise. An enclosing ``if`` that does not run its body keeps the list as it was,
    and may run it: the names the selection chose may be in the list (wave 93: the pruning ``if`` nested in
    ``if pairwise.loc[b, a] > 0.8:``)."""
    if not isinstance(a, Tup) or not isinstance(b, Tup) or len(a.items) == len(b.items):
        return None
    longer, shorter = (a, b) if len(a.items) > len(b.items) else (b, a)
    if longer.items[:len(shorter.items)] != shorter.items:
        return None
    extra = [maybe_data(i) for i in longer.items[len(shorter.items):]]
    return longer if all(d is not None and d.rows is None and d.taints and all(chooses(f) for f in d.taints)
                         for d in extra) else None


def _pair_items_only(body: list[ast.stmt], name: str, bound: set[str]) -> bool:
    """Every ``name.append(x)`` of ``body`` appends a loop variable of ``bound`` or a constant index into one."""
    args = [s.value.args for s in body if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) and isinstance(
        s.value.func, ast.Attribute) and isinstance(s.value.func.value, ast.Name) and s.value.func.value.id == name]
    return bool(args) and all(len(a) == 1 and _loop_item(a[0], bound) for a in args)


def _loop_item(expr: ast.expr, bound: set[str]) -> bool:
    if isinstance(expr, ast.Subscript) and isinstance(expr.slice, ast.Constant):
        return _loop_item(expr.value, bound)
    return isinstance(expr, ast.Name) and expr.id in bound


def _pure_test(test: ast.expr) -> bool:
    """Every call of ``test`` is a pure function of numbers (:data:`_PURE`), by name or as a module's attribute."""
    for c in (n for n in ast.walk(test) if isinstance(n, ast.Call)):
        name = c.func.id if isinstance(c.func, ast.Name) else c.func.attr if isinstance(c.func, ast.Attribute) and \
            isinstance(c.func.value, ast.Name) and c.func.value.id in ("np", "numpy", "math") else None
        if name not in _PURE or c.keywords:
            return False
    return True


def _regrouping_only(expr: ast.expr) -> bool:
    return all(isinstance(c.func, ast.Name) and c.func.id in _REGROUPING for c in ast.walk(expr)
               if isinstance(c, ast.Call))


class KeptNames:
    """A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer` (it needs ``_expr``, ``_lookup`` and
    ``_store``): see the module docstring."""

    def _stmt(self, node: ast.stmt, frame: Any) -> None:
        if not isinstance(node, ast.If) or not _pure_test(node.test):
            super()._stmt(node, frame)  # type: ignore[misc]
            return
        lists = list(dict.fromkeys(appended_lists(node.body) + appended_lists(node.orelse)))  # either branch
        before = {name: self._lookup(name, frame) for name in lists}  # type: ignore[attr-defined]
        super()._stmt(node, frame)  # type: ignore[misc]
        if not lists:
            return
        fits = self._choosing_fits(self._expr(node.test, frame))  # type: ignore[attr-defined]
        if not hasattr(self, "_loops_around_ifs"):
            self._loops_around_ifs = loops_around(self.tree)  # type: ignore[attr-defined]
        read = {n.id for n in ast.walk(node.test) if isinstance(n, ast.Name)}
        bound: set[str] = set()
        for loop in reversed(self._loops_around_ifs.get(id(node), [])):  # innermost first
            names = {n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name)}
            if read & names and _regrouping_only(loop.iter):
                fits |= self._choosing_fits(self._expr(loop.iter, frame))  # type: ignore[attr-defined]
                bound |= names
        if not fits:
            return
        for name in lists:
            held = self._lookup(name, frame)  # type: ignore[attr-defined]
            if isinstance(held, Tup):
                self._store(name, Tup((*held.items, Data(None, fits, False))), frame)  # type: ignore[attr-defined]
            elif isinstance(before[name], Tup) and _pair_items_only(node.body, name, bound):
                # kept.append(pair[0]) with pair from zip(names, mask): a name of the pair, not rows of a table
                self._store(name, Tup((*before[name].items, Data(None, fits, False))), frame)  # type: ignore

    @staticmethod
    def _choosing_fits(value: Any) -> frozenset:
        """The fits that choose carried by ``value`` when it has no rows (a mask, a score, pairs of them)."""
        data = maybe_data(value.inner if isinstance(value, Enum) else value)
        return frozenset(f for f in data.taints if chooses(f)) if data is not None and data.rows is None else \
            frozenset()


__all__ = ["KeptNames", "appended_lists", "kept_names_joined"]
