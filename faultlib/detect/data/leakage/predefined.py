"""A search whose predefined validation fold is the test part, for the static leakage analysis's ``tuned_on_test``.

``PredefinedSplit(test_fold)`` lets a search score its candidates on a fold the user names: ``test_fold[i]`` is
the fold that holds out row ``i``, ``-1`` a row that is never held out (scikit-learn user guide,
"Predefined fold-splits / Validation-sets"). Its documented use is a validation set. Built from the lengths of
the parts that are stacked for the search,

    test_fold = [-1] * len(X_train) + [0] * len(X_test)
    GridSearchCV(model, grid, cv=PredefinedSplit(test_fold)).fit(np.vstack((X_train, X_test)), ...)

it makes the *test* part that fold: every candidate is scored on the test rows and the best is kept, so the best
score, and the refitted model's test score, is the maximum of many noisy test scores (ASE'22's multi-test leakage;
the same choice as a loop over candidates scored on the test part, :mod:`.choices`).

How it is read: the terms of ``test_fold`` (``a + b``, ``np.concatenate([a, b])``, ``np.hstack``) that give
``len(P)`` or ``P.shape[0]`` rows one fold number, ``[k] * len(P)``, ``np.full(len(P), k)``, ``np.zeros(len(P))``,
``np.ones``/``-np.ones``; a term whose fold is not ``-1`` holds ``P``'s rows out. When such a ``P`` is the test part
of a split (or rows named for held-out rows, and not for validation) and the
search is fitted on rows that hold it, the fit is reported. A held-out fold built from a validation part
(``X_val``, the second part of a split of training rows) is the documented use and stays silent.

The fold numbers may also be a marker column of the stacked rows: each part gets a constant column before the
stack (``X_train['fold'] = -1; X_test['fold'] = 0; stack = pd.concat([X_train, X_test])``) and
``PredefinedSplit(stack['fold'])`` reads it back. A part of the stack whose marker is not ``-1`` is held out, as
with the length terms above.
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage.values import as_data
from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.values import Data, Est, covers, is_test_rows, parts
from faultlib.findings import Finding, Severity

def _test_part(name: str, value: Data) -> bool:
    """The test part of a split, or rows named for testing (``x_test``, a table read from ``test.csv``); never a
    validation part (``x_val``, the second part of a split of training rows)."""
    if vocab.looks_like_validation(name) or any(s.part == "val" for p in parts(value.rows) for s in p.steps):
        return False
    return is_test_rows(value.rows) or value.test and vocab.looks_like_test(name)


_STACKS = frozenset({"concatenate", "hstack", "append", "r_", "concat"})


def _terms(expr: ast.expr) -> list[ast.expr]:
    """The pieces of a ``test_fold`` joined end to end."""
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
        return _terms(expr.left) + _terms(expr.right)
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in _STACKS and \
            expr.args and isinstance(expr.args[0], (ast.List, ast.Tuple)):
        return [t for e in expr.args[0].elts for t in _terms(e)]
    if isinstance(expr, ast.Call) and isinstance(expr.func, (ast.Name, ast.Attribute)) and expr.args and \
            (expr.func.id if isinstance(expr.func, ast.Name) else expr.func.attr) in ("list", "array", "asarray"):
        return _terms(expr.args[0])
    return [expr]


def _length_of(expr: ast.expr) -> ast.expr | None:
    """``len(P)`` / ``P.shape[0]`` / ``P.shape[:1]`` -> ``P``."""
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "len" and expr.args:
        return expr.args[0]
    if isinstance(expr, ast.Subscript) and isinstance(expr.value, ast.Attribute) and expr.value.attr == "shape" and \
            isinstance(expr.slice, ast.Constant) and expr.slice.value == 0:
        return expr.value.value
    return None


def _number(expr: ast.expr) -> int | None:
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub):
        inner = _number(expr.operand)
        return -inner if inner is not None else None
    if isinstance(expr, ast.Constant) and isinstance(expr.value, (int, float)) and not isinstance(expr.value, bool):
        return int(expr.value)
    return None


def _fold_term(term: ast.expr) -> tuple[int, ast.expr] | None:
    """``(fold, P)`` for a term that gives the rows of ``P`` one fold number; ``None`` for anything else."""
    negated = isinstance(term, ast.UnaryOp) and isinstance(term.op, ast.USub)
    core = term.operand if negated else term
    if isinstance(core, ast.BinOp) and isinstance(core.op, ast.Mult):  # [k] * len(P), len(P) * [k]
        for items, size in ((core.left, core.right), (core.right, core.left)):
            if isinstance(items, (ast.List, ast.Tuple)) and len(items.elts) == 1 and not negated:
                fold, rows = _number(items.elts[0]), _length_of(size)
                if fold is not None and rows is not None:
                    return fold, rows
        return None
    if isinstance(core, ast.Call) and isinstance(core.func, ast.Attribute) and core.args:
        rows = _length_of(core.args[0])
        if rows is None:
            return None
        sign = -1 if negated else 1
        if core.func.attr in ("zeros", "zeros_like"):
            return 0, rows
        if core.func.attr in ("ones", "ones_like"):
            return sign, rows
        if core.func.attr == "full" and len(core.args) > 1 and _number(core.args[1]) is not None and not negated:
            return _number(core.args[1]), rows  # type: ignore[return-value]
    return None


def _marker_column(expr: ast.expr | None) -> tuple[str, str] | None:
    """``(S, column)`` for ``S['column']``, a column of a named table; ``None`` for anything else."""
    if isinstance(expr, ast.Subscript) and isinstance(expr.value, ast.Name) and \
            isinstance(expr.slice, ast.Constant) and isinstance(expr.slice.value, str):
        return expr.value.id, expr.slice.value
    return None


def _marked_parts(tree: ast.AST, stacked: set[str], column: str) -> list[tuple[int, ast.Name]]:
    """``(fold, P)`` for every ``P['column'] = k`` (``k`` a number) of a part ``P`` stacked into the search rows."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            marker = _marker_column(node.targets[0])
            fold = _number(node.value)
            if marker is not None and marker[0] in stacked and marker[1] == column and fold is not None:
                out.append((fold, node.targets[0].value))  # type: ignore[attr-defined]
    return out


class PredefinedFolds:
    """``tuned_on_test`` for a search whose ``PredefinedSplit`` holds out the test part (see the module docstring);
    needs ``_bindings``, ``_expr``, ``_note_selection``, ``report`` and ``smap`` from the analyzer."""

    def _splitter(self, name: str, kwargs: dict[str, Any], node: ast.Call, frame: Any) -> Est:
        """A splitter estimator; a ``PredefinedSplit`` also keeps the values whose rows its folds hold out."""
        est = Est(name, "splitter", options=dict(kwargs))
        if name == "PredefinedSplit":
            fold = next((k.value for k in node.keywords if k.arg == "test_fold"), node.args[0] if node.args else None)
            exprs = self._bindings.get(fold.id, []) if isinstance(fold, ast.Name) else [fold] if fold else []
            held = []
            for expr in exprs[-1:]:  # the latest assignment of the name (a notebook rebinds it per section)
                for term in _terms(expr):
                    found = _fold_term(term)
                    if found is not None and found[0] != -1:
                        value = as_data(self._expr(found[1], frame))
                        if value is not None:
                            held.append((ast.unparse(found[1]), value))
            held += self._marked_held(fold, frame)
            est.options["held_out"] = held
        return est

    def _marked_held(self, fold: ast.expr | None, frame: Any) -> list[tuple[str, Data]]:
        """The parts held out by a marker-column ``test_fold`` (``stack['fold']``, see the module docstring)."""
        marker = _marker_column(fold)
        stack = self._bindings.get(marker[0], []) if marker is not None else []
        if marker is None or not stack or stack[-1] is None:
            return []
        stacked = {t.id for term in _terms(stack[-1]) for t in ast.walk(term) if isinstance(t, ast.Name)}
        held, seen = [], set()
        for number, part in _marked_parts(self.tree, stacked, marker[1]):  # type: ignore[attr-defined]
            value = as_data(self._expr(part, frame)) if number != -1 and part.id not in seen else None
            if value is not None:
                seen.add(part.id)
                held.append((part.id, value))
        return held

    def _search_fitted(self, est: Est, x: Data, node: ast.Call, frame: Any) -> None:
        """``search.fit(x, y)``: remembered as a selection (:mod:`.scoring`); reported when its predefined
        validation fold is a test part that ``x`` holds."""
        self._note_selection(est, x, f"{est.cls}.fit", node, frame)
        cv = est.options.get("cv")
        if not isinstance(cv, Est) or cv.cls != "PredefinedSplit":
            return
        for name, value in cv.options.get("held_out", []):
            if not _test_part(name, value) or not any(covers(p, h) or covers(h, p) for p in parts(x.rows)
                                                      for h in parts(value.rows)):
                continue
            done = self.__dict__.setdefault("_predefined_done", set())
            if node.lineno in done:
                return
            done.add(node.lineno)
            self.report.findings.append(Finding(
                "leakage", Severity.WARNING,
                f"{est.cls}.fit() on {self.smap.describe(node.lineno)} scores every candidate on the fold its "
                f"PredefinedSplit holds out, and that fold is the test part `{name}`: the test rows chose the "
                "hyperparameters, so the best score (and the refitted model's test score) is optimistic (ASE'22 "
                "multi-test leakage). Fix: hold out a validation part carved from the training rows, or "
                "cross-validate on the training part, then score the test part once",
                {**self.smap.where(node.lineno), "column": node.col_offset + 1, "function": frame.qualname},
                {"estimator": est.cls, "held_out": name,
                 "held_out_rows": value.rows.describe() if value.rows is not None else None},
                kind="tuned_on_test"))
            return


__all__ = ["PredefinedFolds"]
