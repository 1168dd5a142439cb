"""Statistics of one class's rows, written by hand, for the static leakage analysis.

A feature-selection script without a library scores every column by how well it separates the classes::

    for col in range(X.shape[1]):
        for c in np.unique(y):
            part = X[y == c, col]                      # the rows of class c: chosen by their labels
            gaps.append(np.mean(part) ** 2 / np.var(part))
        scores.append(np.mean(gaps))
    top = np.argsort(scores)[-k:]

Each mean and variance is taken over rows the *labels* chose, so the score of a column is a supervised statistic:
it ranks the columns with the target, as ``f_classif`` (a one-way ANOVA F, a ratio of between-class to
within-class variance) or Fisher's score does. The columns it keeps then carry that choice into the model; chosen on
every row before a cross-validation, they bias its score (Ambroise & McLachlan, "Selection bias in gene extraction
on the basis of microarray gene-expression data", PNAS 99(10), 2002; Hastie, Tibshirani & Friedman, *The Elements
of Statistical Learning*, 2nd ed., section 7.10.2, "The wrong and right way to do cross-validation"). The analysis
took any statistic written by hand for an unsupervised one, and a column choice by such a statistic for a plain
threshold (wave 61: a per-class mean/variance ranking of vibration features before ``cross_val_predict``).

:func:`class_conditional_reductions` names the reduction calls whose operand is a subset of rows chosen by a
comparison of a label-named value (:func:`~faultlib.detect.data.leakage.targets.label_like`): ``X[y == c]``,
``df[df["target"] == 1]["amount"]``, or a name the same function binds to such a subset. :mod:`.design` then marks
that statistic supervised and takes it for a statistic of the rows before the class mask (:func:`every_class`): the
loop over the classes reads them all, and the mask chose them by label, not to hold any out.
"""

from __future__ import annotations

import ast

from faultlib.detect.data.leakage.targets import label_like
from faultlib.detect.data.leakage.values import Data, FitRef, Rows
from faultlib.pyflow.walk import walk_once

#: reductions over a subset of rows (NumPy functions and pandas methods of the same names)
_REDUCTIONS = frozenset({"mean", "var", "std", "median", "nanmean", "nanvar", "nanstd", "nanmedian", "sum", "mode",
                         "quantile", "nanquantile", "percentile", "nanpercentile"})


def _label_named(node: ast.expr, targets: frozenset = frozenset()) -> bool:
    """``y``, ``labels``, ``df["target"]``, ``df.label``: a value named for the target, or a column the script uses
    as its target (``targets``: ``df["Personality"]`` where ``y = df["Personality"]``)."""
    if isinstance(node, ast.Name):
        return label_like(node.id)
    if isinstance(node, ast.Attribute):
        return label_like(node.attr) or node.attr in targets
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
        return label_like(node.slice.value) or node.slice.value in targets
    return False


def _label_mask(index: ast.expr, targets: frozenset = frozenset()) -> bool:
    """An index holding ``label == c`` (alone, in ``X[mask, col]``, or joined with ``&``)."""
    return any(isinstance(n, ast.Compare) and len(n.ops) == 1 and isinstance(n.ops[0], (ast.Eq, ast.NotEq))
               and (_label_named(n.left, targets) or _label_named(n.comparators[0], targets)) for n in ast.walk(index))


def _class_rows(node: ast.expr, subsets: set[str], targets: frozenset = frozenset()) -> bool:
    """``X[y == c, i]``, ``df[df.target == 1]["x"]``, ``part`` bound to one of them: rows of one class."""
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        if isinstance(node, ast.Subscript) and _label_mask(node.slice, targets):
            return True
        node = node.value
    return isinstance(node, ast.Name) and node.id in subsets


def class_rows(node: ast.expr, subsets: set[str], targets: frozenset = frozenset()) -> bool:
    """``node`` is the rows of one class: a label mask (``X[y == c]``) or a name of ``subsets`` (see
    :func:`class_subsets`); ``targets`` are the columns the script uses as its target."""
    return _class_rows(node, subsets, targets)


def class_subsets(scope: ast.AST, targets: frozenset = frozenset()) -> set[str]:
    """The names ``scope`` binds to the rows of one class (``X_major = X[y == 0]``; item by item in
    ``X_major, y_major = X[y == 0], y[y == 0]``)."""
    out: set[str] = set()
    for n in ast.walk(scope):
        if not isinstance(n, ast.Assign):
            continue
        pairs = [(t, n.value) for t in n.targets]
        pairs += [(a, b) for t in n.targets if isinstance(t, ast.Tuple) and isinstance(n.value, ast.Tuple)
                  and len(t.elts) == len(n.value.elts) for a, b in zip(t.elts, n.value.elts)]
        out |= {t.id for t, v in pairs if isinstance(t, ast.Name) and _class_rows(v, set(), targets)}
    return out


def class_conditional_reductions(tree: ast.AST, targets: frozenset | set = frozenset()) -> frozenset[int]:
    """Ids of the reduction calls (``np.mean(part)``, ``part.var()``, ``part[col].mode()``: the fill value of a
    per-class imputation) over the rows of one class; ``targets`` are the columns the script uses as its target."""
    out: set[int] = set()
    targets = frozenset(t for t in targets if isinstance(t, str))
    scopes = [n for n in walk_once(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module))]
    for scope in scopes:
        subsets = class_subsets(scope, targets)
        for n in ast.walk(scope):
            if not isinstance(n, ast.Call) or not isinstance(n.func, ast.Attribute) or n.func.attr not in _REDUCTIONS:
                continue
            operand = n.args[0] if n.args and isinstance(n.func.value, ast.Name) and n.func.value.id in (
                "np", "numpy") else n.func.value
            if _class_rows(operand, subsets, targets):
                out.add(id(n))
    return frozenset(out)


def every_class(data: Data) -> Data:
    """The rows of one class (``X[y == c]``) as the rows the mask was taken from: a per-class statistic in a loop
    over the classes reads every row's value and label."""
    rows = data.rows
    if isinstance(rows, Rows) and rows.steps and rows.steps[-1].kind == "filter":
        return Data(Rows(rows.root, rows.steps[:-1]), data.taints, data.test)
    return data


def chooses(fit: FitRef) -> bool:
    """A fit whose ranking chooses columns: an estimator's or a score function's, or a statistic written by hand
    with the labels (a per-class mean); a plain statistic by hand (a column's range) is a threshold, not a choice."""
    return not fit.handwritten or fit.supervised


__all__ = ["chooses", "class_conditional_reductions", "class_rows", "class_subsets", "every_class"]
