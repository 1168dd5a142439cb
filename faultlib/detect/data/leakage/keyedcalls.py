"""A function called out of a dictionary by a key the analysis cannot know, for the static leakage analysis.

Feature-selection studies keep their methods in a literal dictionary of records and call them in a loop over its
keys::

    methods = {"anova": {"run": by_anova, "scores": []}, "forest": {"run": by_forest, "scores": []}}
    for name in methods.keys():
        kept = methods[name]["run"](X, y, k)        # every selector fitted on every row and label
        print(holdout_accuracy(X[kept["feature"]], y))

The loop variable is not a constant, so ``methods[name]`` was an unknown value and none of the selectors ran: what
they fitted never reached the split that scores their columns (wave 75: six selectors of a malware study,
mutual information, forests' importances, RFE and ``SelectKBest``, all fitted on every row, then scored on a 70/30
split). Whatever the key, the callee is one of the dictionary's functions, so :class:`KeyedCalls` runs each of them
on the call's arguments and joins what they return, as the branches of an ``if`` are joined (a may-analysis:
Nielson, Nielson & Hankin, *Principles of Program Analysis*, 1999, section 2.1).

Only a call whose callee is reached from a name through subscripts, at least one of them by an unknown key, and
whose every candidate is a function of the file, is read so (a dictionary of models is :mod:`.registries`'s).
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.pyflow.values import Const, Container, Func

#: more candidates than this are not run one by one (the cost of the analysis grows with each)
MAX_CANDIDATES = 12


class KeyedCalls:
    """A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer` (see the module docstring)."""

    def _candidates(self, expr: ast.expr, frame: Any) -> tuple[list[Any], bool]:
        """The values ``expr`` may be, and whether an unknown key was crossed to reach them."""
        if isinstance(expr, ast.Name):
            return [self._lookup(expr.id, frame)], False  # type: ignore[attr-defined]
        if not isinstance(expr, ast.Subscript) or not isinstance(expr.slice, (ast.Name, ast.Attribute, ast.Constant)):
            return [], False
        bases, crossed = self._candidates(expr.value, frame)
        if not bases or not all(isinstance(b, Container) for b in bases):
            return [], False
        index = self._expr(expr.slice, frame)  # type: ignore[attr-defined]
        if isinstance(index, Const):
            return [b.items[index.value] for b in bases if index.value in b.items], crossed
        return [v for b in bases for v in b.items.values()], True

    def _call(self, node: ast.Call, frame: Any) -> Any:
        if isinstance(node.func, ast.Subscript):
            funcs, crossed = self._candidates(node.func, frame)
            if crossed and 0 < len(funcs) <= MAX_CANDIDATES and all(isinstance(f, Func) for f in funcs):
                args, kwargs = self._args(node, frame)  # type: ignore[attr-defined]
                out = None
                for func in funcs:
                    result = self._invoke(func, args, kwargs, node.lineno)  # type: ignore[attr-defined]
                    out = result if out is None else self._join(out, result)  # type: ignore[attr-defined]
                return out
        return super()._call(node, frame)  # type: ignore[misc]


__all__ = ["MAX_CANDIDATES", "KeyedCalls"]
