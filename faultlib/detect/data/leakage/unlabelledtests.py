"""Predictions for a test table that has no labels are not a score, for ``tuned_on_test``.

A Kaggle solution reads the competition's ``test.csv`` -- the rows to predict, without the target column -- and
predicts it once per fold, per seed or per candidate to build the submission::

    for name, model in models.items():                    # a loop that keeps the best by the fold's log loss
        model.fit(X_fold, y_fold)
        test_preds.append(model.predict_proba(X_test))     # X_test: test.csv, no label anywhere
        score = log_loss(y_val, model.predict_proba(X_val))

``predict_proba(X_test)`` in a loop that keeps a best was read as the test rows scoring each candidate. Nothing can
score rows whose labels the script never has: the choice is made on the validation rows, and the test rows are only
predicted (scikit-learn glossary, "predict": the estimator's output, no comparison with a target). The competition
keeps the answers (Kaggle, "How do competitions work": the public and private leaderboards are scored on the test
set's hidden labels).

:meth:`UnlabelledTests._check_tuned` lets such a prediction through: a predicting call (``predict``,
``predict_proba``, ``decision_function``; never ``score`` or ``evaluate``, which take labels) on rows that are all a
whole table named for testing (no split, fold or sample of it), when the script reads no labels for a test table
anywhere: no column of a table named for testing is the target (``test['target']``, ``df_test.label``,
``test.pop('y')``; a column the script uses as its target elsewhere, ``y = train['outcome']``, or that a training
table both drops and reads, ``train.drop(columns='fraud')`` beside ``train['fraud']``), and no name for
test labels (``y_test``, ``test_labels``) is bound from a table named for testing, from a file, by a helper's
returned tuple, or as a function's parameter (``def evaluate(model, X_test, y_test)``: its caller has them). Test
labels made by a split or a fold (``y_test = y[test_idx]``, ``train_test_split``) belong to those parts, not to the
table. Issue 17, waves 50 and 74:
base models predicting the competition test inside a stacking loop (wave 74), and inside a fold loop that keeps
Optuna's blend weights (wave 50).
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.scoreloops import _test_labels
from faultlib.detect.data.leakage.targets import call_name, label_like, validation_named
from faultlib.detect.data.leakage.values import parts
from faultlib.pyflow.walk import walk_once

#: methods whose result is a model's output for each row, no score: the rows' labels are not read
_PREDICTS = frozenset({"predict", "predict_proba", "predict_log_proba", "decision_function", "staged_predict",
                       "staged_predict_proba"})
#: readers a test-label name may be loaded by (a labels file beside the features)
_READERS = vocab.FILE_READERS | {"load", "read", "loadtxt"}


def _base(node: ast.expr) -> ast.expr:
    while True:
        if isinstance(node, (ast.Subscript, ast.Attribute)):
            node = node.value
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            node = node.func.value  # test.target.values.ravel(): the table it is read from
        else:
            return node


def _test_table(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and vocab.looks_like_test(node.id) and not validation_named(node)


def _key(node: ast.expr) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return node.id if isinstance(node, ast.Name) else None


def _labelled(key: str | None, targets: set) -> bool:
    return key is not None and (key in targets or label_like(key) and "pred" not in key.lower())


def _strings(node: ast.expr) -> list[str]:
    items = node.elts if isinstance(node, (ast.List, ast.Tuple)) else [node]
    return [i.value for i in items if isinstance(i, ast.Constant) and isinstance(i.value, str)]


def split_off_columns(tree: ast.Module) -> set[str]:
    """Columns a table named for training both drops and reads (``train.drop(columns='fraud')`` beside
    ``train['fraud']``): the script's target, whatever its name; row ids (``id``, ``*_id``) left out."""
    dropped: set[str] = set()
    read: set[str] = set()
    for node in walk_once(tree):
        if isinstance(node, ast.Call) and call_name(node) == "drop" and isinstance(node.func, ast.Attribute) and \
                isinstance(node.func.value, ast.Name) and vocab.looks_like_train(node.func.value.id):
            for value in [*node.args[:1], *(k.value for k in node.keywords if k.arg in ("columns", "labels"))]:
                dropped.update(_strings(value))
        elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and isinstance(node.ctx, ast.Load) \
                and vocab.looks_like_train(node.value.id):
            read.update(_strings(node.slice))
    return {c for c in dropped & read if not (c.lower() == "id" or c.lower().endswith(("_id", "id")) and
                                              not label_like(c))}


def reads_test_labels(tree: ast.Module, targets: set) -> bool:
    """The script reads labels for a table named for testing (see the module docstring)."""
    targets = set(targets) | split_off_columns(tree)
    for node in walk_once(tree):
        if isinstance(node, ast.Subscript) and _test_table(node.value) and _labelled(_key(node.slice), targets):
            return True  # test['target'], df_test[TARGET]
        if isinstance(node, ast.Attribute) and _test_table(node.value) and _labelled(node.attr, targets):
            return True  # test.label
        if isinstance(node, ast.Call) and call_name(node) == "pop" and isinstance(node.func, ast.Attribute) and \
                _test_table(node.func.value) and node.args and _labelled(_key(node.args[0]), targets):
            return True  # test.pop('y')
        if isinstance(node, ast.arg) and _test_labels(ast.Name(node.arg)):
            return True  # def evaluate(model, X_test, y_test): the caller has the labels
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) and \
                _test_labels(node.targets[0]):
            source = _base(node.value)
            if _test_table(source) or isinstance(node.value, ast.Call) and call_name(node.value) in _READERS:
                return True  # y_test = test_df['label'].values, y_test = np.load('y_test.npy')
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Tuple) and \
                isinstance(node.value, ast.Call) and call_name(node.value) not in vocab.SPLIT_FUNCTIONS and any(
                isinstance(t, ast.Name) and _test_labels(t) for t in node.targets[0].elts):
            return True  # X_tr, y_tr, X_te, y_te = load_dataset(...): a helper hands the test labels over
    return False


class UnlabelledTests:
    """A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer`, before
    :class:`~faultlib.detect.data.leakage.choices.ChoiceChecks` (see the module docstring)."""

    def _check_tuned(self, est: Any, x: Any, node: ast.Call, frame: Any) -> None:
        if call_name(node) in _PREDICTS and self._only_unlabelled_test(x):
            return
        super()._check_tuned(est, x, node, frame)  # type: ignore[misc]

    def _only_unlabelled_test(self, x: Any) -> bool:
        ps = parts(getattr(x, "rows", None))
        if not ps or not all(p.root.test and not any(s.kind in ("split", "fold") or s.part in ("sample", "class")
                                                      for s in p.steps) for p in ps):
            return False
        if not hasattr(self, "_test_labels_read"):
            self._test_labels_read = reads_test_labels(self.tree, self._targets)  # type: ignore[attr-defined]
        return not self._test_labels_read


__all__ = ["UnlabelledTests", "reads_test_labels", "split_off_columns"]
