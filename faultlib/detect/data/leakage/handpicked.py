"""A selector's choice copied by hand into a list of column names, for the static leakage analysis.

A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer`. Tutorials fit a feature selector on every row,
print what it kept (``print(rfe.support_)``), and type the kept columns into a list that selects the model's
features (``cols = ['a', 'b', ...]; X = df[cols]``), then split: the choice saw the held-out rows though no
value flows from the selector to the list. The copy is recognised by its size: the selector was asked for ``n``
columns (scikit-learn ``RFE(estimator, n_features_to_select=n)``, ``SequentialFeatureSelector(...,
n_features_to_select=n)``, ``SelectKBest(k=n)``, ``SelectFromModel(..., max_features=n)``) and, after its fit, a
literal list of exactly ``n`` column names selects columns of the table it was fitted on. A selector whose size
is not written as a number, or a list of another length, is left alone (precision first).

The other way round, a cross-validation over all rows inside a loop of candidates is a choice (the test rows among
them helped pick the model) only when the loop sweeps a hyperparameter or keeps the best one; a fixed list of models
whose scores are only shown is not.
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage.sortkeys import chosen_by_another_score
from faultlib.detect.data.leakage.values import Data, Est, parts
from faultlib.pyflow.values import Const, Tup

#: selector class -> (position of its size argument, keyword of its size), scikit-learn ``sklearn.feature_selection``
_SIZES = {"RFE": (1, "n_features_to_select"), "SequentialFeatureSelector": (1, "n_features_to_select"),
          "SelectKBest": (1, "k"), "SelectFromModel": (None, "max_features")}


class HandPicked:
    """Literal column lists of a selector's size carry its fit (see the module docstring)."""

    def _library(self, ref: Any, args: list[Any], kwargs: dict[str, Any], node: ast.Call, frame: Any) -> Any:
        out = super()._library(ref, args, kwargs, node, frame)
        if isinstance(out, Est) and ref.last in _SIZES:
            pos, key = _SIZES[ref.last]
            size = kwargs.get(key, args[pos] if pos is not None and len(args) > pos else None)
            if isinstance(size, Const) and isinstance(size.value, int) and not isinstance(size.value, bool) and \
                    size.value > 1:
                out.options["selects"] = size.value
        return out

    def _method_value(self, receiver: Any, name: str, args: list[Any], kwargs: dict[str, Any], node: ast.Call,
                      frame: Any) -> Any:
        out = super()._method_value(receiver, name, args, kwargs, node, frame)
        if isinstance(receiver, Est) and "selects" in receiver.options and receiver.fit is not None and \
                name in ("fit", "fit_transform"):
            if not hasattr(self, "_selector_fits"):
                self._selector_fits: list[tuple[int, Any]] = []
            self._selector_fits.append((receiver.options["selects"], receiver.fit))
        return out

    def _loop_keeps_a_choice(self, line: int) -> bool:
        """A cross-validation on ``line`` inside a ``for`` loop chooses a candidate when the loop sweeps a
        hyperparameter (a curve read by eye) or keeps the best (a comparison, ``max``/``argmax``, a sorted table's
        first row: ``LoopFacts.chooses``); scores of a fixed list of models collected into a table that is only
        shown choose nothing. Loops the syntax does not describe (a comprehension, a ``while``) count as choosing."""
        facts = next((f for f in self._loop_facts if f.start <= line <= f.end), None)
        if facts is not None and not facts.varies and facts.chooses and chosen_by_another_score(
                self.tree, facts.start, facts.end, line):
            return False  # the rows are sorted by another score: the CV's column is only shown (sortkeys.py)
        return facts is None or facts.varies or bool(facts.chooses)

    def _typed_choice(self, out: Any, index: Any, index_node: ast.expr) -> Any:
        """``df[cols]`` (``out``) with ``cols`` a literal list of as many names as a selector fitted on ``df``'s
        rows kept: ``out`` with that fit."""
        fits = getattr(self, "_selector_fits", ())
        if not fits or not isinstance(out, Data) or not isinstance(index, Tup) or not isinstance(
                index_node, (ast.Name, ast.List)):
            return out
        if not all(isinstance(i, Const) and isinstance(i.value, str) for i in index.items):
            return out
        roots = {p.root for p in parts(out.rows)}
        for size, fit in reversed(fits):
            if size == len(index.items) and roots & {p.root for p in parts(fit.rows)}:
                return out.with_(taints=out.taints | {fit})
        return out


__all__ = ["HandPicked"]
