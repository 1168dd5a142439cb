"""A model whose target is the table a row came from (adversarial validation), for the static leakage analysis.

To see how far the competition's test rows drift from the training rows, Kaggle code marks each table, stacks
them and trains a classifier to tell them apart::

    train['is_train'] = 1
    test['is_train'] = 0
    both = pd.concat([train, test])
    for tr, va in StratifiedKFold(5).split(both, both['is_train']):
        booster = lgb.train(params, lgb.Dataset(both.iloc[tr][cols], both['is_train'].iloc[tr]),
                            valid_sets=[lgb.Dataset(both.iloc[va][cols], both['is_train'].iloc[va])],
                            early_stopping_rounds=100)
    print(roc_auc_score(both['is_train'], oof))        # 0.5: no drift; near 1: the columns give the table away

The classifier's AUC ranks how much the columns drift (Pan, Sheng, Jiang & Hu, "Adversarial validation approach to
concept drift problem in user targeting automation systems at Uber", arXiv:2004.03045, 2020: the membership
classifier's score measures the shift, its important features are the drifting ones). No model of the task is
trained or scored: the rows that stopped its boosting are not held out from any model whose score the program
reports, and its folds' AUC chooses nothing of one (issue 17: a fraud-detection project's per-feature drift scan,
wave 99, and a recommender challenge's, wave 89, judged false ``tuned_on_test``).

:func:`origin_columns` names the marks: a column set to one constant on a whole table (``train['is_train'] = 1``)
and to another constant on another table (``test['is_train'] = 0``), one of which holds the rows to predict (named
for testing, or read from a test-named file). The same marks on two tables of the task's classes (``fake['label'] =
0``, ``real['label'] = 1``: the Fake and True news files stacked into one labelled set) are the task's label, and a
stop on the test part of that set stays reported. :func:`learns_origin` says a training call
reads such a column as a value (``both['is_train'].iloc[tr]``, through the names its arguments are bound to): the
mark is what it learns. A mark only compared (``both[both['is_train'] == 1]``: the stack cut back into its tables,
:mod:`.partflags`) is a row selection, not a target, and the stops of models trained on the cut-back tables stay
reported. :class:`OriginTargets` leaves the early stopping of such a model unreported (placed before
:class:`~faultlib.detect.data.leakage.earlystop.EarlyStops` in the analyser's bases).
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.foldbodies import enclosing_function
from faultlib.pyflow.walk import scope_nodes, tree_fact, walk_once

#: how many assignments back a training call's arguments are followed
_DEPTH = 6


def _marked(target: ast.expr) -> tuple[str, str] | None:
    """``df['col']`` / ``df.col`` as a store: ``('df', 'col')``."""
    if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) and isinstance(
            target.slice, ast.Constant) and isinstance(target.slice.value, str):
        return target.value.id, target.slice.value
    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
        return target.value.id, target.attr
    return None


def _held_out_tables(tree: ast.AST) -> frozenset[str]:
    """Names that hold the rows to predict: named so (``test``, ``X_hidden``) or bound to what a test-named file
    holds (``future = pd.read_csv('test.csv')``)."""
    out: set[str] = set()
    for node in walk_once(tree):
        if isinstance(node, ast.Assign):
            files = [vocab.data_file_stem(n.value) for n in ast.walk(node.value)
                     if isinstance(n, ast.Constant) and isinstance(n.value, str)]
            if any(vocab.looks_like_test(stem) for stem in files if stem):
                out |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return frozenset(out)


def origin_columns(tree: ast.AST) -> frozenset[str]:
    """Columns set to a constant on one table and to another constant on another table, one of them the rows to
    predict (module docstring). Two tables of the task's classes marked with their label (``fake['label'] = 0``,
    ``real['label'] = 1``, then stacked) are a labelled data set, no train/test mark."""
    seen: dict[str, set[tuple[str, Any]]] = {}
    for node in walk_once(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and isinstance(
                node.value.value, (bool, int, str)):
            for target in node.targets:
                marked = _marked(target)
                if marked is not None:
                    seen.setdefault(marked[1], set()).add((marked[0], node.value.value))
    held_out = _held_out_tables(tree)
    return frozenset(c for c, marks in seen.items() if len({t for t, _ in marks}) > 1 and len(
        {v for _, v in marks}) > 1 and any(t in held_out or vocab.looks_like_test(t) for t, _ in marks))


def _bindings(scope: ast.AST) -> dict[str, tuple[ast.expr, ...]]:
    """The values bound to each name in ``scope``'s own body (not in functions defined in it)."""
    out: dict[str, list[ast.expr]] = {}
    for node in scope_nodes(scope):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                for n in ast.walk(target):
                    if isinstance(n, ast.Name):
                        out.setdefault(n.id, []).append(node.value)
    return {k: tuple(v) for k, v in out.items()}


def _compared(tree: ast.AST) -> frozenset[int]:
    """Ids of the operands of comparisons (``both['is_train'] == 1``)."""
    return frozenset(id(side) for n in walk_once(tree) if isinstance(n, ast.Compare) for side in [n.left, *n.comparators])


def learns_origin(tree: ast.Module, call: ast.Call) -> bool:
    """The training call ``call`` reads a column of :func:`origin_columns` as a value, in its arguments or in what
    the names they read were bound to (``_DEPTH`` assignments back, in the function that makes the call, else in the
    module)."""
    columns = tree_fact(tree, origin_columns)
    if not columns:
        return False
    compared = tree_fact(tree, _compared)
    module = tree_fact(tree, _bindings)
    inner = enclosing_function(tree, call.lineno)
    local = _bindings(inner) if inner is not None else {}
    todo: list[tuple[ast.AST, int]] = [(call, 0)]
    seen: set[str] = set()
    while todo:
        node, depth = todo.pop()
        nodes = list(ast.walk(node))
        callees = {id(n.func) for n in nodes if isinstance(n, ast.Call)}  # `lgb.train(...)` calls, reads no column
        for n in nodes:
            if id(n) not in compared and id(n) not in callees and isinstance(n, (ast.Subscript, ast.Attribute)) and (
                    isinstance(n.ctx, ast.Load) and (marked := _marked(n)) is not None and marked[1] in columns):
                return True
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id not in seen and depth < _DEPTH:
                seen.add(n.id)
                todo.extend((v, depth + 1) for v in local.get(n.id) or module.get(n.id, ()))
    return False


class OriginTargets:
    """A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer` (see the module docstring), placed before
    :class:`~faultlib.detect.data.leakage.earlystop.EarlyStops`: a stop of a model that learns a table mark is not
    reported."""

    tree: ast.Module

    def _report_stop(self, node: ast.Call, how: str, call: str, frame: Any, rows: str) -> None:
        if not learns_origin(self.tree, node):
            super()._report_stop(node, how, call, frame, rows)  # type: ignore[misc]

    def _report_scored_stop(self, node: ast.Call, how: str, call: str, frame: Any, rows: str, scored: str) -> None:
        if not learns_origin(self.tree, node):
            super()._report_scored_stop(node, how, call, frame, rows, scored)  # type: ignore[misc]


__all__ = ["OriginTargets", "learns_origin", "origin_columns"]
