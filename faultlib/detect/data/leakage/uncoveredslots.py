"""Statistics written only into the prediction slots no fold covered, under a splitter whose folds cover every row.

An out-of-fold helper keeps a mask of the rows its folds predicted and fills the rest with a fallback::

    preds, used = np.zeros(len(y)), np.zeros(len(y), dtype=bool)
    for tr, te in LeaveOneGroupOut().split(X, y, groups=groups):
        preds[te] = model.fit(X.iloc[tr], y[tr]).predict(X.iloc[te])
        used[te] = True
    if not used.all():
        preds[~used] = np.mean(y)          # the target mean of every row, as a fallback prediction

``np.mean(y)`` reads every label, but the slots it is written into are empty: K-fold, stratified, group and
leave-one(-group)-out splitters put each row in exactly one test fold (scikit-learn user guide, "Cross-validation
iterators": "each sample is used once as a test set", "each group will appear exactly once in the test set"), so
after the loop the mask is all true and ``preds[~used]`` selects no row. The fallback never reaches a scored
prediction (issue 17, wave 95, a judged false alarm). :func:`uncovered_fills` names such statistic calls: the value
of an assignment into ``buffer[~mask]`` (or ``buffer[mask == False]``, ``buffer[np.logical_not(mask)]``) where
``mask[test] = True`` is written in a loop over ``.split(...)`` of one of :data:`COVERING_SPLITTERS` whose test
indices are ``test``. A shuffle split or a time-series split (its first block is never tested) leaves rows out, and
such a fill stays a statistic.
"""

from __future__ import annotations

import ast

from faultlib.detect.data.leakage.targets import call_name
from faultlib.pyflow.walk import walk, walk_once

#: splitters whose test folds together hold every row exactly once (scikit-learn user guide, see above)
COVERING_SPLITTERS = frozenset({"KFold", "StratifiedKFold", "GroupKFold", "StratifiedGroupKFold", "LeaveOneOut",
                                "LeaveOneGroupOut", "RepeatedKFold", "RepeatedStratifiedKFold"})


def _splitter_loop(loop: ast.For, tree: ast.Module) -> str | None:
    """The test-index name of ``for tr, te in S(...).split(...)`` (or of a splitter bound to a name, or through
    ``enumerate``) when ``S`` is a covering splitter."""
    it, target = loop.iter, loop.target
    if isinstance(it, ast.Call) and call_name(it) == "enumerate" and it.args and isinstance(target, ast.Tuple) \
            and len(target.elts) == 2:
        it, target = it.args[0], target.elts[1]
    if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and it.func.attr == "split"):
        return None
    if not (isinstance(target, ast.Tuple) and len(target.elts) == 2 and isinstance(target.elts[1], ast.Name)):
        return None
    made = it.func.value
    if isinstance(made, ast.Name):
        made = next((n.value for n in walk_once(tree) if isinstance(n, ast.Assign) and len(n.targets) == 1 and
                     isinstance(n.targets[0], ast.Name) and n.targets[0].id == made.id), made)
    return target.elts[1].id if isinstance(made, ast.Call) and call_name(made) in COVERING_SPLITTERS else None


def _covering_masks(tree: ast.Module) -> set[str]:
    """Names ``m`` with ``m[te] = True`` inside a loop over a covering splitter's folds (``te`` its test indices)."""
    out: set[str] = set()
    for loop in walk_once(tree):
        if not isinstance(loop, ast.For):
            continue
        test = _splitter_loop(loop, tree)
        if test is None:
            continue
        for n in walk(loop):
            if isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant) and n.value.value is True:
                for t in n.targets:
                    if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and \
                            isinstance(t.slice, ast.Name) and t.slice.id == test:
                        out.add(t.value.id)
    return out


def _complement_of(index: ast.expr) -> str | None:
    """``m`` of ``~m``, ``m == False``, ``np.logical_not(m)``."""
    if isinstance(index, ast.UnaryOp) and isinstance(index.op, (ast.Invert, ast.Not)) and \
            isinstance(index.operand, ast.Name):
        return index.operand.id
    if isinstance(index, ast.Compare) and len(index.ops) == 1 and isinstance(index.ops[0], (ast.Eq, ast.Is)) and \
            isinstance(index.left, ast.Name) and isinstance(index.comparators[0], ast.Constant) and \
            index.comparators[0].value is False:
        return index.left.id
    if isinstance(index, ast.Call) and call_name(index) == "logical_not" and index.args and \
            isinstance(index.args[0], ast.Name):
        return index.args[0].id
    return None


def uncovered_fills(tree: ast.Module) -> frozenset[int]:
    """Ids of the calls inside the value of an assignment into the slots a covering splitter's folds all filled
    (see the module docstring)."""
    masks = _covering_masks(tree)
    if not masks:
        return frozenset()
    out: set[int] = set()
    for n in walk_once(tree):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Subscript) and \
                _complement_of(n.targets[0].slice) in masks:
            out.update(id(c) for c in walk(n.value) if isinstance(c, ast.Call))
    return frozenset(out)


__all__ = ["COVERING_SPLITTERS", "uncovered_fills"]
