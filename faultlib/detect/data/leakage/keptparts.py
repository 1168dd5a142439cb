"""A split whose training parts are thrown away keeps its second part as a random subsample, not as held-out rows.

``_, X_train, _, y_train = train_test_split(X_train, y_train, test_size=0.3, stratify=...)`` draws 30 % of the
training rows to train on (a learning-curve point, a smaller budget): the part bound to ``X_train`` is used for
training and the part that ``train_test_split`` calls *train* is discarded, so nothing is held out and nothing is
scored on it. scikit-learn's ``train_test_split`` returns ``train, test`` for each array in order (API reference,
"sklearn.model_selection.train_test_split": "List containing train-test split of inputs"), so the names at the
even positions of the target tuple are the training parts. Wave 58 (medical-abstract-classification): a TF-IDF
vocabulary and a chi-squared selection fitted on the whole training file were reported as fitted before a split
that held part of it out, and the model trained on the kept part as trained on the test rows.

The mirror case, ``X_small, _, y_small, _ = train_test_split(...)``, is a subsample too (:func:`dropped_second_parts`):
the second parts are thrown away, so no row of the split is held out and a fit on the rows before it (an
oversampler on the training part, then a stratified subset drawn for a feature-importance forest) is not a fit
before a split. Issue 17 wave 105: SMOTE on the training part was reported as ``fit_before_split`` at such a draw,
where the leak was the cross-validated search of the next script (``fit_outside_cv``). ``static.py`` also records
the split when ``_`` is bound, for the model trained on the kept part.

So is one pair of a splitter's folds taken by ``next`` with its training indices thrown away: ``_, mini =
next(GroupShuffleSplit(n_splits=1, test_size=frac).split(df, groups=df.userId))`` draws a sample of whole users
(``split`` yields ``(train, test)`` index arrays, scikit-learn glossary "split"; :mod:`.positions` reads the pair as
one hold-out). Issue 17: a course's ratings preprocessing drew its exercise sample so, and the mean of the sample's
first rows was read as fitted on held-out rows, the centring of the full table as fitted before that split.
"""

from __future__ import annotations

import ast

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.values import Rows, parts
from faultlib.pyflow.walk import walk_once


def _discarded(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id == "_"


def _called(call: ast.Call) -> str | None:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None


def _fold_pair(call: ast.Call) -> bool:
    """``next(kf.split(X))``, ``next(iter(...))``, ``next(splits)``: one ``(train, test)`` pair of a splitter."""
    return isinstance(call.func, ast.Name) and call.func.id == "next" and len(call.args) == 1 and not call.keywords


def _split_parts(tree: ast.AST):
    """``(line, first parts, second parts)`` of every ``train_test_split`` (or ``next`` of a splitter's folds)
    unpacked into an even number of targets."""
    for node in walk_once(tree):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.value, ast.Call)
                and (_called(node.value) in vocab.SPLIT_FUNCTIONS or _fold_pair(node.value))):
            continue
        target = node.targets[0]
        if not isinstance(target, (ast.Tuple, ast.List)) or len(target.elts) < 2 or len(target.elts) % 2:
            continue
        yield node.value.lineno, target.elts[0::2], target.elts[1::2]


def kept_second_parts(tree: ast.AST) -> frozenset[int]:
    """Lines of ``train_test_split`` calls (or of ``next`` taking one pair of a splitter's folds) whose every
    training part (even position of the target tuple) is bound to ``_`` while a second part is bound to a name."""
    return frozenset(line for line, firsts, seconds in _split_parts(tree)
                     if all(_discarded(e) for e in firsts) and not all(_discarded(e) for e in seconds))


def dropped_second_parts(tree: ast.AST) -> frozenset[int]:
    """Lines of ``train_test_split`` calls whose every second part (odd position) is bound to ``_`` while a
    training part is bound to a name: ``X_small, _, y_small, _ = train_test_split(...)``, a subsample."""
    return frozenset(line for line, firsts, seconds in _split_parts(tree)
                     if all(_discarded(e) for e in seconds) and not all(_discarded(e) for e in firsts))


def _drawn(step) -> bool:
    return step.kind == "filter" and step.part == "sample"


def drawn_from(outer, inner) -> bool:
    """A part of ``inner`` is a random draw of the rows a part of ``outer`` was drawn from: the rows a subsample
    kept (``X_small`` of ``X_small, _, y_small, _ = train_test_split(X)``, ``X.sample(n)``), possibly of a split's
    training part, beside ``outer`` itself or another draw of the same rows. Random draws of one table share rows,
    so a fit on ``inner`` saw rows of every fold a cross-validation over ``outer`` holds out (wave 105: a
    feature-importance forest fitted on a stratified draw of the oversampled training part, whose kept columns the
    next script drew again and cross-validated)."""
    def drawn(o: Rows, i: Rows) -> bool:
        if o.root != i.root:
            return False
        common = 0
        while common < min(len(o.steps), len(i.steps)) and o.steps[common] == i.steps[common]:
            common += 1
        mine, theirs = i.steps[common:], o.steps[common:]
        return any(_drawn(s) for s in (*mine, *theirs)) and all(_drawn(s) for s in theirs) and all(
            _drawn(s) or s.kind == "split" and s.part == "train" for s in mine)

    return any(drawn(o, i) for o in parts(outer) for i in parts(inner))


__all__ = ["drawn_from", "dropped_second_parts", "kept_second_parts"]
