"""The target of a script: names and columns that are labels, and a ``LabelEncoder`` of a feature.

Used by the static leakage analysis (:mod:`faultlib.detect.data.leakage.static` and its mixins) to tell the target
from the features by the script's own words: a name for the label (:func:`label_like`), a part named for validation
(:func:`validation_named`), the columns a script uses as ``y`` (:func:`target_columns`).

* :func:`feature_encoding`: ``LabelEncoder`` fitted on a *feature* column (not the target) of rows a later
  split divides learns the category set of the test rows too. Reported at ``info``, not as a leak: it learns
  no statistic of the values and nothing of the target (a test-only category gets a code instead of an error);
  the ASE'22 authors' own expectations count such a notebook clean (``tests/inputs/nb_277256.py``, a
  ``LabelEncoder`` per column of all rows before ``train_test_split``), and scikit-learn documents the class for
  targets ("This transformer should be used to encode target values, i.e. y, and not the input X", API
  reference). On the target it is silent.
"""

from __future__ import annotations

import ast

from faultlib.detect.data.leakage import vocab
from faultlib.pyflow.walk import walk_once

_LABEL_TOKENS = frozenset({"y", "yy", "target", "targets", "label", "labels", "outcome", "class", "classes"})
_VALIDATION_TOKENS = frozenset({"val", "valid", "validation", "dev"})
#: attributes of a frame that are not columns (``df.iloc[:, -1]``, ``df.values``, ``s.astype(str)``)
_ACCESSORS = frozenset({"iloc", "loc", "at", "iat", "values", "T", "index", "columns", "shape", "str", "dt", "cat",
                        "astype", "fillna", "append", "unique", "tolist", "to_numpy", "ravel", "reshape", "copy"})


def read_words(node: ast.AST) -> set[str]:
    """Names, attributes and identifier-like string constants read in ``node`` (``getattr(m, "pca")`` reads
    ``pca``)."""
    out = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Name):
            out.add(n.id)
        elif isinstance(n, ast.Attribute):
            out.add(n.attr)
        elif isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value.isidentifier():
            out.add(n.value)
    return out

def node_name(node: ast.expr | None) -> str:
    """``a.b`` -> ``b``, ``a`` -> ``a``; ``""`` for any other expression (a call, a subscript, a constant). The one
    way the rules read the last name of a callee or an attribute chain."""
    return node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""


def call_name(node: ast.Call) -> str:
    """``a.b.fit(...)`` -> ``fit``, ``fit(...)`` -> ``fit``; ``""`` for any other callee."""
    return node_name(node.func)


def label_like(name: str | None) -> bool:
    """``y``, ``y_train``, ``ytest``, ``target``, ``labels``, ``class``: a name for the target. A column name written
    in words is read word by word (``'Finding Labels'``, the NIH ChestX-ray14 findings column: ``labels``)."""
    if not name:
        return False
    tokens = [t for word in name.split() for t in vocab.name_tokens(word)]
    first = tokens[0] if tokens else ""
    return first in _LABEL_TOKENS or any(t in _LABEL_TOKENS - {"y", "yy", "class", "classes"} for t in tokens) or (
        first[:1] == "y" and first[1:] in ("train", "test", "trn", "tst", "val", "valid", "pred", "true"))


def validation_named(node: ast.expr | None) -> bool:
    """``X_val``, ``x_valid[:, cols]``, ``X_dev``: an argument named for validation rows."""
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        node = node.value
    return isinstance(node, ast.Name) and any(
        t in _VALIDATION_TOKENS or t[:1] in "xy" and t[1:] in _VALIDATION_TOKENS for t in vocab.name_tokens(node.id))


def feature_encoding(call: ast.Call, assigned: dict[int, list[str]], targets: set[str]) -> bool:
    """``le.fit_transform(df['city'])`` (or of ``df[col]``, or of train and test values stacked): a feature
    column, not the target (a column the script uses as ``y``, pops or names like a label). Only when the script
    names its target column elsewhere: with ``y = df.iloc[:, -1]`` which column is the target is unknown."""
    if not call.args or any(label_like(n) for n in assigned.get(id(call), [])):
        return False
    columns: list[str | None] = []
    for n in ast.walk(call.args[0]):
        if isinstance(n, ast.Subscript) and isinstance(n.value, (ast.Name, ast.Attribute)):
            key = n.slice
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                columns.append(key.value)
            elif isinstance(key, ast.Name):
                columns.append(None)  # df[col] in a loop over columns
            elif _position(key) is not None and _position(key) >= 0:
                # X[:, 3], dataset.iloc[:, 2]: a column by position; a feature when taken from a feature matrix
                # (X) or when the target is taken at another position
                base = n.value.value if isinstance(n.value, ast.Attribute) else n.value
                matrix = isinstance(base, ast.Name) and vocab.name_tokens(base.id)[:1] in (["x"], ["features"], ["feats"])
                positions = {t for t in targets if isinstance(t, int)}
                if not matrix and (not positions or _position(key) in positions):
                    return False
                columns.append(None)
        elif isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.attr not in _ACCESSORS:
            if not label_like(n.value.id):
                columns.append(n.attr)
    if isinstance(call.args[0], ast.Name) or any(isinstance(c, str) for c in columns) and not any(
            isinstance(t, str) for t in targets):
        return False  # a bare name, or a named column while the target is unnamed: which is the label is unknown
    return bool(columns) and all(c is None or c not in targets and not label_like(c) for c in columns)


def _position(key: ast.expr) -> int | None:
    """``[:, 3]`` -> 3, ``[:, -1]`` -> -1: the column position of a ``[rows, column]`` subscript."""
    if not (isinstance(key, ast.Tuple) and len(key.elts) == 2):
        return None
    col = key.elts[1]
    if isinstance(col, ast.UnaryOp) and isinstance(col.op, ast.USub) and isinstance(col.operand, ast.Constant):
        return -col.operand.value if isinstance(col.operand.value, int) else None
    return col.value if isinstance(col, ast.Constant) and isinstance(col.value, int) else None


def target_columns(tree: ast.Module) -> tuple[set, dict[int, list[str]]]:
    """Columns the script uses as the target (``y = df['Survived']``, ``df.pop('label')``, ``fit(X, df.price)``;
    an ``int`` for a position, ``y = df.iloc[:, -1]``), and, for every call on the right of an assignment, the
    names it is assigned to."""
    targets: set = set()
    assigned: dict[int, list[str]] = {}

    def cols(node: ast.AST) -> set[str]:
        out = set()
        called = {id(n.func) for n in ast.walk(node) if isinstance(n, ast.Call)}  # clf.predict(...) is no column
        for n in ast.walk(node):
            if id(n) in called:
                continue
            if isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Constant) and isinstance(n.slice.value, str):
                out.add(n.slice.value)
            elif isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.attr not in _ACCESSORS:
                out.add(n.attr)
        return out

    for n in walk_once(tree):
        if isinstance(n, ast.Assign):
            names = [t.id for t in n.targets if isinstance(t, ast.Name)] + [
                e.id for t in n.targets if isinstance(t, ast.Tuple) for e in t.elts if isinstance(e, ast.Name)]
            if isinstance(n.value, ast.Call):
                assigned[id(n.value)] = names
            if any(label_like(x) for x in names) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
                targets |= cols(n.value)
                targets |= {_position(s.slice) for s in ast.walk(n.value) if isinstance(s, ast.Subscript)} - {None}
            elif len(n.targets) == 1 and isinstance(n.targets[0], ast.Tuple) and isinstance(n.value, ast.Tuple) and \
                    len(n.targets[0].elts) == len(n.value.elts):  # X, y = df.drop(columns=['t']), df['t']
                for t, v in zip(n.targets[0].elts, n.value.elts):
                    if isinstance(t, ast.Name) and label_like(t.id):
                        targets |= cols(v)
        elif isinstance(n, ast.Call):
            name = call_name(n)
            if name == "pop" and n.args and isinstance(n.args[0], ast.Constant):
                targets.add(str(n.args[0].value))
            elif name in ("fit", *vocab.SPLIT_FUNCTIONS) and len(n.args) > 1:
                targets |= cols(n.args[1])  # fit(X, df.price), train_test_split(X, df['label'])
            elif name in vocab.CV_FUNCTIONS and len(n.args) > 2:
                targets |= cols(n.args[2])
            for k in n.keywords:
                if k.arg in ("y", "label", "target"):  # fit(y=...), lgb.Dataset(X, label=...)
                    targets |= cols(k.value)
    return targets, assigned
