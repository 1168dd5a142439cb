"""A split whose held-out part only trains: nothing is scored on the rows it holds out, so nothing is inflated.

Notebooks that draw a classifier's decision surface project every row first (``PCA(n_components=2)``), split, and
then fit the classifier on the *test* part, drawing its regions over those same points::

    Xr = PCA(n_components=2).fit_transform(X)
    X_train, X_test, y_train, y_test = train_test_split(Xr, y, test_size=0.5)
    clf = SVC(kernel='linear').fit(X_test, y_test)
    plot_contours(ax, clf, xx, yy); ax.scatter(X_test[:, 0], X_test[:, 1], c=y_test)

The split only thins the points: the part it calls ``test`` is the classifier's training set, its training part is
never read again, and no prediction, score or metric ever takes the held-out rows (the predictions are over a
mesh grid). A fit before such a split is a fit before a subsample, not before an evaluation: ASE'22 define
preprocessing leakage by the data a trained model is *evaluated* on (Yang et al., "Data Leakage in Notebooks:
Static Detection and Better Processes", ASE 2022, section 2), and there is none. Wave 65: 38 such alarms in one
repository of audio-feature notebooks.

The rule (every condition, or the finding stays as it was):

* the split is unpacked into an even number of plain names on one line (``a_tr, a_te, b_tr, b_te = split(...)``);
* none of its training parts (every first name) is read after it;
* a ``fit``/``fit_transform``/``fit_predict`` call after it takes a held-out part as its rows (``clf.fit(X_test,
  y_test)``);
* no call that predicts, scores or computes a metric (:data:`SCORING`, names ending ``_score``/``_error``/``_loss``)
  has a held-out part among its arguments, however deep (``clf.score(X_test[:, :2], y_test)`` counts).

A held-out part that is scored anywhere, or a training part that is used, keeps the alarm.
"""

from __future__ import annotations

import ast

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.targets import call_name
from faultlib.detect.data.leakage.unscored import METRICS
from faultlib.pyflow.walk import walk_once

#: calls whose arguments are evaluated, not trained on (predictions, scores, Keras ``evaluate``, metrics)
SCORING = vocab.EVALUATE | {"evaluate", "evaluate_generator", "predict_classes"} | METRICS
#: calls that train on their first argument
_TRAINING = frozenset({"fit", "fit_transform", "fit_predict"})
_SUFFIXES = ("_score", "_error", "_loss")


def _split_names(tree: ast.AST, line: int) -> tuple[list[str], list[str], int] | None:
    """The training parts, the held-out parts and the last line of the split on ``line``, where it is unpacked
    into an even number of plain names; ``None`` otherwise."""
    for node in walk_once(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and node.value.lineno == line and \
                len(node.targets) == 1 and isinstance(node.targets[0], (ast.Tuple, ast.List)):
            names = node.targets[0].elts
            if names and len(names) % 2 == 0 and all(isinstance(n, ast.Name) for n in names):
                ids = [n.id for n in names]  # type: ignore[attr-defined]
                return ids[0::2], ids[1::2], node.end_lineno or line
    return None


def _mentions(node: ast.AST, names: set[str]) -> bool:
    return any(isinstance(n, ast.Name) and n.id in names for n in walk_once(node))


def held_out_only_trains(tree: ast.AST, line: int) -> bool:
    """Whether the split on ``line`` holds out rows that only train a model and are never scored (module docstring).

    Args:
        tree: the analysed module (a script, or a notebook's code cells joined).
        line: the line of the split call (1-based, in the analysed source).

    Returns:
        ``True`` only when every condition of the module docstring holds.
    """
    split = _split_names(tree, line)
    if split is None:
        return False
    training, held_out, end = set(split[0]), set(split[1]), split[2]
    trains = False
    for node in walk_once(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in training and \
                node.lineno > end:
            return False
        if not isinstance(node, ast.Call) or node.lineno <= end:
            continue
        name = call_name(node)
        arguments = [*node.args, *(k.value for k in node.keywords)]
        if name is not None and (name in SCORING or name.endswith(_SUFFIXES)) and \
                any(_mentions(a, held_out) for a in arguments):
            return False
        if name in _TRAINING and node.args and isinstance(node.args[0], ast.Name) and node.args[0].id in held_out:
            trains = True
    return trains


def before_training_only_split(kind: str, line: int, tree: ast.AST) -> bool:
    """Whether a finding of ``kind`` raised at the split on ``line`` is set aside (reported at ``info``): a
    ``fit_before_split`` whose split holds out rows that only train (:func:`held_out_only_trains`)."""
    return kind == "fit_before_split" and held_out_only_trains(tree, line)


__all__ = ["SCORING", "before_training_only_split", "held_out_only_trains"]
