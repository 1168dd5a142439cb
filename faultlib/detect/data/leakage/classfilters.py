"""Rows of one class, for the static leakage analysis: a boolean mask of the label against a constant.

``X_all[y_all == 1]``, ``y_all[y_all == 0]``, ``df[df['churn'] == 1]``: pandas boolean indexing keeps every row
for which the mask is true (pandas user guide, "Boolean indexing"), and a mask that compares each row's *label*
with a constant keeps that class's rows of every part the table holds. Hand-written resampling does this: the
training and validation parts are stacked (``pd.concat([X_train, X_valid])``), cut by class, one class drawn down
(``.sample(n)``) or repeated, and the model trained on the result is then scored on the validation part. The
model saw that part's rows of the kept classes, so its score is measured on rows it was trained on (the ASE'22
paper's *overlap leakage*: Yang, Brower-Sinning, Lewis, Kästner, "Data leakage in notebooks: static detection and
better processes", ASE 2022). A filter that selects rows by identity (``~df.index.isin(test.index)``, an id list)
or by a feature's value is not a class filter and stays an ordinary one (it may be the complement of a held-out
part).

The label is read from the syntax: the target columns and the names passed as labels
(:func:`~faultlib.detect.data.leakage.rowdraws.label_columns`), and the names made from them by a split
(``X_tr, X_te, y_tr, y_te = train_test_split(X, y)``: the outputs of the label argument), a row stack
(``pd.concat([y_tr, y_val])``, also one item of a tuple assigned item by item) or a selection, copy or
conversion of one label name (``y2 = y_all[mask]``, ``y2 = y.values``). The constant is a number, a string or a bool; ``-1`` (the code of unlabelled rows in a
stacked train/test table) is left out.
"""

from __future__ import annotations

import ast

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.targets import call_name
from faultlib.pyflow.walk import walk_once

#: how many passes of forward derivation (a stack of a split's output of a stack...)
_DEPTH = 6


def _root_name(node: ast.expr) -> str | None:
    """``y`` of ``y``, ``y[m]``, ``y.values``, ``y.copy()``, ``y.sample(n)``, ``y.loc[m]``."""
    while True:
        if isinstance(node, ast.Name):
            return node.id
        if isinstance(node, (ast.Subscript, ast.Attribute)):
            node = node.value
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and not node.args[1:]:
            node = node.func.value
        else:
            return None


def _stacked(node: ast.expr) -> list[str]:
    """The names ``pd.concat([a, b])`` / ``np.concatenate((a, b))`` stacks (rows)."""
    if not (isinstance(node, ast.Call) and call_name(node) in vocab.ROW_STACKS and node.args and
            isinstance(node.args[0], (ast.List, ast.Tuple))):
        return []
    return [n for e in node.args[0].elts for n in [_root_name(e)] if n is not None]


def label_names(tree: ast.Module, labels: set[str]) -> set[str]:
    """``labels`` and the names made from them (see the module docstring)."""
    out = set(labels)
    assigns = [n for n in walk_once(tree) if isinstance(n, ast.Assign) and len(n.targets) == 1]
    for _ in range(_DEPTH):
        before = len(out)
        for a in assigns:
            target, value = a.targets[0], a.value
            if isinstance(target, ast.Name):
                if isinstance(value, ast.Call) and call_name(value) in vocab.SPLIT_FUNCTIONS:
                    continue
                sources = _stacked(value) or [_root_name(value)]
                if any(n in out for n in sources):
                    out.add(target.id)
            elif isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (ast.Tuple, ast.List)) and \
                    len(target.elts) == len(value.elts):  # X_b, y_b = pd.concat([...]), pd.concat([y_tr, y_val])
                for e, v in zip(target.elts, value.elts):
                    if isinstance(e, ast.Name) and any(n in out for n in _stacked(v) or [_root_name(v)]):
                        out.add(e.id)
            elif isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, ast.Call) and \
                    call_name(value) in vocab.SPLIT_FUNCTIONS:
                for i, e in enumerate(target.elts):  # outputs 2k and 2k + 1 are the parts of argument k
                    src = value.args[i // 2] if i // 2 < len(value.args) else None
                    if isinstance(e, ast.Name) and src is not None and _root_name(src) in out:
                        out.add(e.id)
        if len(out) == before:
            break
    return out


def _constant(node: ast.expr) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
        return node.operand.value != 1 and isinstance(node.operand.value, (int, float))
    return isinstance(node, ast.Constant) and isinstance(node.value, (int, float, str, bool))


def class_mask(index: ast.expr, labels: set[str], targets: set) -> bool:
    """``index`` (a subscript's key) compares the label with one constant: ``y == 1``, ``df['churn'] != 'No'``."""
    if not (isinstance(index, ast.Compare) and len(index.ops) == 1 and isinstance(index.ops[0], (
            ast.Eq, ast.NotEq, ast.Gt, ast.GtE, ast.Lt, ast.LtE))):
        return False
    left, right = index.left, index.comparators[0]
    if _constant(left):
        left, right = right, left
    if not _constant(right):
        return False
    if isinstance(left, ast.Name):
        return left.id in labels
    column = left.slice.value if isinstance(left, ast.Subscript) and isinstance(left.slice, ast.Constant) else \
        left.attr if isinstance(left, ast.Attribute) else None
    return isinstance(column, str) and column in targets


__all__ = ["class_mask", "label_names"]
