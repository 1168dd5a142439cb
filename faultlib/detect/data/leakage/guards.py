"""Comparisons that guard a loop's own progress, not a choice by a score, for the static leakage analysis.

:func:`faultlib.detect.data.leakage.choices.loop_facts` reads ``if score > best: best = score`` inside a loop as
*keeping the best candidate* (``tuned_on_test``). The same shape guards the bookkeeping of a loop:

    for k, (tr, va) in enumerate(KFold(5).split(X)):
        ...
        if k > 0:
            total = total + fold_pred   # sums the folds' predictions
        else:
            total = fold_pred

compares only a **counter** (the index of ``enumerate``, the variable of ``for ... in range(...)``) with constants
or other counters. Nothing measured on the rows takes part in it, so nothing is chosen by a score (one model per
label column with a fold loop inside it predicts the test rows once per fold, and averages them).
"""

from __future__ import annotations

import ast


def counters(tree: ast.AST) -> frozenset[str]:
    """Names that count a loop's passes: ``i`` in ``for i in range(n)`` and in ``for i, x in enumerate(xs)``."""
    out: set[str] = set()
    for loop in (n for n in ast.walk(tree) if isinstance(n, (ast.For, ast.comprehension))):
        call = loop.iter
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)):
            continue
        target = loop.target
        if call.func.id == "range" and isinstance(target, ast.Name):
            out.add(target.id)
        elif call.func.id == "enumerate" and isinstance(target, ast.Tuple) and target.elts \
                and isinstance(target.elts[0], ast.Name):
            out.add(target.elts[0].id)
    return frozenset(out)


def counter_guard(test: ast.expr, counted: frozenset[str]) -> bool:
    """``test`` compares at least one loop counter and otherwise only counters and literals (``k > 0``,
    ``epoch >= 3``, ``0 < i < 5``). A named bound (``i < n_warm``) or a score (``acc > best``) makes it no guard."""
    if not isinstance(test, ast.Compare):
        return False
    operands = [test.left, *test.comparators]
    return any(isinstance(o, ast.Name) and o.id in counted for o in operands) and all(
        isinstance(o, ast.Constant) or isinstance(o, ast.Name) and o.id in counted for o in operands)


def branches(node: ast.If) -> list[ast.stmt]:
    """The statements of both branches of ``node``: a loop keeps its running best in either. Forward selection
    keeps a candidate in the ``if`` (``if auc - best > tol: best = auc; keep.append(f)``); backward elimination
    (recursive feature elimination by hand) keeps the feature in the ``if`` and rebinds its running score in the
    ``else`` (``if best - auc >= tol: print('keep') else: best = auc; drop.append(f)``)."""
    return [*node.body, *node.orelse]
