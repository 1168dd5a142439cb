"""Lists that hold only metric results (one score per fold or per run), so that a mean or a standard deviation over
them is a summary of scores, not a statistic of the rows the scores were measured on.

``fold_scores.append(np.array([accuracy_score(y[te], p), roc_auc_score(y[te], s)]))`` in a cross-validation loop,
then ``np.average(np.vstack([fold_scores]), axis=0)`` and ``np.std(...)``: the reported mean and spread of the
per-fold scores. Each score is computed on a test fold, but the list holds one number per metric and fold, never a
row of the data: nothing fitted on it reaches a model. (Seen in wave 39, a clinical cross-validation script.)

The value a scikit-learn metric function returns is such a score too (:func:`returns_score`): ``confusion_matrix``
gives counts per pair of classes, ``roc_curve`` one point per threshold, ``precision_score`` a number; none of
them has a row per sample (scikit-learn API reference, ``sklearn.metrics``: "Classification metrics", "Regression
metrics", "Multilabel ranking metrics"). ``np.mean(np.diag(cm) / cm.sum(axis=0))`` is then a macro average of
per-class precisions, not a statistic of the test rows. (Seen in wave 42, a radiomics course.) The pairwise
functions of the same package (``pairwise_distances``, ``cosine_similarity``, ``rbf_kernel``) and
``silhouette_samples`` do return one row per sample and keep their rows.
"""

from __future__ import annotations

import ast

from faultlib.pyflow.walk import walk_once

#: metric functions outside the ``*_score``/``*_error``/``*_loss`` names (scikit-learn ``sklearn.metrics``, scipy)
_METRICS = frozenset({"matthews_corrcoef", "auc", "cohen_kappa_score", "pearsonr", "spearmanr", "kendalltau",
                      "normalized_gini", "gini", "rmse", "mae", "mse", "score"})
#: wrappers that keep their argument's items: np.array([..]), np.vstack([scores]), list(scores)
_WRAPPERS = frozenset({"array", "asarray", "vstack", "hstack", "stack", "concatenate", "list", "tuple", "Series",
                       "DataFrame", "mean", "round", "float"})


#: scikit-learn metric functions outside the ``*_score``/``*_error``/``*_loss`` names that return no row per sample
_TABLES = frozenset({"confusion_matrix", "multilabel_confusion_matrix", "classification_report", "roc_curve",
                     "precision_recall_curve", "det_curve", "precision_recall_fscore_support", "matthews_corrcoef",
                     "auc", "class_likelihood_ratios"})


def returns_score(module: str, name: str) -> bool:
    """``sklearn.metrics.confusion_matrix`` (or any of its metric functions): the result is a score, a curve or a
    table over classes, never the rows the metric was measured on; pairwise functions and per-sample
    silhouettes are not metrics of this kind."""
    if module.split(".")[:2] != ["sklearn", "metrics"] or "pairwise" in module or name == "silhouette_samples":
        return False
    return name.endswith(("_score", "_error", "_loss")) or name in _TABLES


def _called(node: ast.expr) -> str | None:
    if not isinstance(node, ast.Call):
        return None
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None


def is_metric(node: ast.expr, names: frozenset[str] = frozenset()) -> bool:
    """``accuracy_score(y, p)``, ``model.score(X, y)``, a list/tuple/array of them, or a name in ``names``."""
    if isinstance(node, ast.Name):
        return node.id in names
    if isinstance(node, (ast.List, ast.Tuple)):
        return bool(node.elts) and all(is_metric(e, names) for e in node.elts)
    name = _called(node)
    if name is None:
        return False
    if name.endswith(("_score", "_error", "_loss")) or name in _METRICS:
        return True
    return name in _WRAPPERS and len(node.args) == 1 and is_metric(node.args[0], names)


def score_lists(tree: ast.AST) -> frozenset[str]:
    """Names every binding of which is an empty list or a metric result, and whose ``append``/``extend``/``+=`` add
    only metric results (names of this kind count, to a fixed point)."""
    binds: dict[str, list[ast.expr]] = {}
    for node in walk_once(tree):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    binds.setdefault(target.id, []).append(node.value)
                else:
                    for n in ast.walk(target):
                        if isinstance(n, ast.Name):
                            binds.setdefault(n.id, []).append(target)  # unpacked or subscripted: unknown
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and isinstance(node.target, ast.Name):
            binds.setdefault(node.target.id, []).append(node.value or ast.List([]))
        elif isinstance(node, (ast.For, ast.comprehension)):
            for n in ast.walk(node.target):
                if isinstance(n, ast.Name):
                    binds.setdefault(n.id, []).append(node.target)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(
                node.func.value, ast.Name) and node.func.attr in ("append", "extend", "insert"):
            binds.setdefault(node.func.value.id, []).append(ast.List(node.args[-1:]) if node.func.attr != "extend"
                                                            else (node.args[0] if node.args else ast.List([])))
    names: frozenset[str] = frozenset()
    while True:
        grown = frozenset(n for n, values in binds.items() if any(not _empty(v) for v in values) and all(
            _empty(v) or is_metric(v, names) for v in values))
        if grown == names:
            return names
        names = grown


def _empty(node: ast.expr) -> bool:
    return isinstance(node, (ast.List, ast.Tuple)) and not node.elts or _called(node) == "list" and not node.args


def over_scores(node: ast.expr, names: frozenset[str]) -> bool:
    """``node`` (a statistic's argument or receiver) is a score list, possibly wrapped (``np.vstack([scores])``)."""
    return bool(names) and is_metric(node, names) and not (_called(node) or "").endswith(("_score", "_error", "_loss"))


__all__ = ["is_metric", "over_scores", "returns_score", "score_lists"]
