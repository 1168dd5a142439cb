"""A split whose training parts are thrown away keeps its second part as a random subsample, not as held-out rows.

``_, X_train, _, y_train = train_test_split(X_train, y_train, test_size=0.3, stratify=...)`` draws 30 % of the
training rows to train on (a learning-curve point, a smaller budget): the part bound to ``X_train`` is used for
training and the part that ``train_test_split`` calls *train* is discarded, so nothing is held out and nothing is
scored on it. scikit-learn's ``train_test_split`` returns ``train, test`` for each array in order (API reference,
"sklearn.model_selection.train_test_split": "List containing train-test split of inputs"), so the names at the
even positions of the target tuple are the training parts. Wave 58 (medical-abstract-classification): a TF-IDF
vocabulary and a chi-squared selection fitted on the whole training file were reported as fitted before a split
that held part of it out, and the model trained on the kept part as trained on the test rows.

The mirror case, ``X_small, _, y_small, _ = train_test_split(...)``, is a subsample too (``static.py`` records it
when ``_`` is bound).

So is one pair of a splitter's folds taken by ``next`` with its training indices thrown away: ``_, mini =
next(GroupShuffleSplit(n_splits=1, test_size=frac).split(df, groups=df.userId))`` draws a sample of whole users
(``split`` yields ``(train, test)`` index arrays, scikit-learn glossary "split"; :mod:`.positions` reads the pair as
one hold-out). Issue 17: a course's ratings preprocessing drew its exercise sample so, and the mean of the sample's
first rows was read as fitted on held-out rows, the centring of the full table as fitted before that split.
"""

from __future__ import annotations

import ast

from faultlib.detect.data.leakage import vocab
from faultlib.pyflow.walk import walk_once


def _discarded(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id == "_"


def _called(call: ast.Call) -> str | None:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None


def _fold_pair(call: ast.Call) -> bool:
    """``next(kf.split(X))``, ``next(iter(...))``, ``next(splits)``: one ``(train, test)`` pair of a splitter."""
    return isinstance(call.func, ast.Name) and call.func.id == "next" and len(call.args) == 1 and not call.keywords


def kept_second_parts(tree: ast.AST) -> frozenset[int]:
    """Lines of ``train_test_split`` calls (or of ``next`` taking one pair of a splitter's folds) whose every
    training part (even position of the target tuple) is bound to ``_`` while a second part is bound to a name."""
    lines: set[int] = set()
    for node in walk_once(tree):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.value, ast.Call)
                and (_called(node.value) in vocab.SPLIT_FUNCTIONS or _fold_pair(node.value))):
            continue
        target = node.targets[0]
        if not isinstance(target, (ast.Tuple, ast.List)) or len(target.elts) < 2 or len(target.elts) % 2:
            continue
        firsts, seconds = target.elts[0::2], target.elts[1::2]
        if all(_discarded(e) for e in firsts) and not all(_discarded(e) for e in seconds):
            lines.add(node.value.lineno)
    return frozenset(lines)


__all__ = ["kept_second_parts"]
