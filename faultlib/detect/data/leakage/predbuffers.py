"""Arrays that hold only a model's predictions (one slot per fold or per seed), so that a mean over them is an
average of predictions -- an ensemble -- not a statistic of the rows the predictions were made for.

The out-of-fold stacking helper of many Kaggle solutions (Kaggle kernel "Introduction to Ensembling/Stacking in
Python", Anisotropic, 2016; copied into Avito, Mercari and Elo solutions, wave 57)::

    oof_test_skf = np.empty((NFOLDS, len_test))
    for i, (tr, va) in enumerate(kf):
        clf.fit(x_train[tr], y[tr])
        oof_train[va] = clf.predict(x_train[va])
        oof_test_skf[i, :] = clf.predict(x_test)
    oof_test[:] = oof_test_skf.mean(axis=0)

``oof_test_skf`` is named for the test rows, but it is allocated empty and every store into it is a fold model's
prediction: the mean over its first axis averages the folds' predictions for each test row. No statistic of the
test rows' features is learnt, and nothing is fitted on it (numpy reference: ``numpy.empty``/``numpy.zeros``
allocate an array "without initializing entries" / "filled with zeros"; scikit-learn glossary, "predict": the
estimator's output for each sample). A buffer that also receives anything else (a feature row) is not one of these.

An ensemble's predicted probabilities are also passed around as one three-dimensional array, one matrix per model
(cleanlab's ``pred_probs`` of shape ``(P, N, K)``: P models, N examples, K classes, in its multi-annotator API):
``np.mean(pred_probs, axis=0)`` averages the models' probabilities for each example and class, and no statistic of
the examples is taken (judged false alarms at stops 49 and 53, a library's active-learning scores on unlabelled
examples). :func:`prediction_stacks` names such arrays: named for predictions or probabilities (``pred_probs``,
``preds``, ``probas``) and read with a third axis in the same code (``axis=2``, ``x[:, :, k]``, ``x.shape[2]``); a
two-dimensional table of predictions averaged over its rows stays a statistic of those rows.
"""

from __future__ import annotations

import ast

from faultlib.detect.data.leakage.allocations import LIKE_ALLOCATORS
from faultlib.detect.data.leakage.foldlists import fresh_list, list_uses, stacked_list
from faultlib.pyflow.walk import walk_once

#: numpy allocators of a fresh array whose entries carry no data yet
_ALLOCATORS = frozenset({"zeros", "empty", "ones", "full"}) | LIKE_ALLOCATORS
#: estimator methods whose result is the model's output for each sample (scikit-learn glossary, keras Model)
_PREDICTORS = frozenset({"predict", "predict_proba", "predict_log_proba", "decision_function"})
#: calls that keep their argument's values' nature (a prediction reshaped, clipped, exponentiated stays one)
_KEEPS = frozenset({"reshape", "ravel", "flatten", "squeeze", "clip", "expm1", "exp", "round", "array", "asarray",
                    "astype", "log1p"})


def _called(node: ast.expr) -> str | None:
    if not isinstance(node, ast.Call):
        return None
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None


def _allocation(node: ast.expr) -> bool:
    """``np.zeros((n,))``, ``np.empty((k, n))``, ``np.zeros_like(pred)``: a fresh array of no data."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _ALLOCATORS


def is_prediction(node: ast.expr) -> bool:
    """``clf.predict(x_test)``, ``m.predict_proba(X)[:, 1]``, ``m.predict_proba(X)[:, 1].T``, ``model.predict(X) / n_folds``,
    ``np.expm1(m.predict(X)).reshape(-1)``: a model's output for each sample, possibly reshaped or scaled by a
    number."""
    if isinstance(node, ast.Subscript) or isinstance(node, ast.Attribute) and node.attr == "T":
        return is_prediction(node.value)  # m.predict_proba(X)[:, 1], its transpose (.T)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Div, ast.Mult, ast.Add, ast.Sub)):
        sides = (node.left, node.right)
        return any(is_prediction(s) for s in sides) and all(is_prediction(s) or _number(s) for s in sides)
    name = _called(node)
    if name in _PREDICTORS:
        return True
    if name in _KEEPS and isinstance(node, ast.Call):
        if isinstance(node.func, ast.Attribute) and is_prediction(node.func.value):
            return True  # m.predict(X).reshape(-1)
        return bool(node.args) and is_prediction(node.args[0])  # np.expm1(m.predict(X))
    return False


def _number(node: ast.expr) -> bool:
    """A constant, a name or attribute (``NFOLDS``, ``kf.n_splits``) or ``len(...)``: a scale, not data rows."""
    return isinstance(node, (ast.Constant, ast.Name, ast.Attribute)) or _called(node) == "len"


def _stored_name(target: ast.expr) -> str | None:
    """``buf[i, :]`` / ``buf[:, j]`` / ``buf``: the array a store writes into."""
    while isinstance(target, ast.Subscript):
        target = target.value
    return target.id if isinstance(target, ast.Name) else None


def prediction_buffers(tree: ast.AST) -> frozenset[str]:
    """Names every plain binding of which allocates a fresh numpy array and every store into which (``buf[i] =``,
    ``buf += ``, ``buf[i] += ``) is a model's prediction, with at least one such store."""
    allocated: dict[str, bool] = {}
    stores: dict[str, list[ast.expr]] = {}
    for node in walk_once(tree):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    allocated[target.id] = allocated.get(target.id, True) and _allocation(node.value)
                elif isinstance(target, ast.Subscript) and (name := _stored_name(target)) is not None:
                    stores.setdefault(name, []).append(node.value)
                else:
                    for n in ast.walk(target):
                        if isinstance(n, ast.Name):
                            allocated[n.id] = False  # unpacked: unknown
        elif isinstance(node, ast.AugAssign) and (name := _stored_name(node.target)) is not None:
            stores.setdefault(name, []).append(node.value)
    return frozenset(n for n, ok in allocated.items() if ok and stores.get(n) and all(
        is_prediction(v) for v in stores[n]))


def prediction_lists(tree: ast.AST) -> frozenset[str]:
    """Names bound only to ``[]`` (and to a stack of themselves), with at least one ``append`` and every ``append``
    or ``extend`` of them a model's output (:func:`is_prediction`), in the same function (or the module): the list
    form of :func:`prediction_buffers`. One model's predictions for all the rows per item, wherever they are
    appended (a loop over seeds, over training sets, or one statement per model), so ``np.average(np.array(preds),
    axis=0)`` blends models (numpy reference, ``numpy.average``: "Compute the weighted average along the specified
    axis"), as :mod:`.foldlists`' per-fold lists do; no feature and no label of the rows is read (issue 17: a
    Kaggle notebook's CatBoost predictions of the competition test, one per training period, averaged into the
    submission, judged false ``fit_on_test`` at stop 56)."""
    bindings, calls = list_uses(tree)
    return frozenset(name for (scope, name), added in calls.items() if fresh_list(
        bindings.get((scope, name), []), name) and all(_adds_prediction(c) for c in added))


def _adds_prediction(call: ast.Call) -> bool:
    """``preds.append(<prediction>)`` / ``preds.extend([<prediction>, ...])``; an ``insert`` or anything else: no."""
    item = call.args[-1] if call.args else None
    if call.func.attr == "append":  # type: ignore[attr-defined]
        return item is not None and is_prediction(item)
    return call.func.attr == "extend" and isinstance(item, (ast.List, ast.Tuple)) and all(  # type: ignore[attr-defined]
        is_prediction(e) for e in item.elts)


def prediction_vectors(tree: ast.AST) -> frozenset[str]:
    """Names every plain binding of which is a model's output (``oof_preds = clf.predict_proba(X_val)[:, 1]``,
    :func:`is_prediction`), bound at least once and never unpacked or written into: a statistic of one
    (``(p - p.min()) / (p.max() - p.min())``, a fold's predicted probabilities rescaled to [0, 1]) summarises what
    the model said about those rows, no label and no feature of theirs, and nothing is fitted on it (judged false
    alarms at stop 54: a fraud notebook's per-fold min-max of its out-of-fold probabilities, which keeps their
    order, the only thing the AUC it reports reads)."""
    bound: dict[str, bool] = {}
    for node in walk_once(tree):
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                plain = isinstance(target, ast.Name) and not isinstance(node, ast.AugAssign)
                for n in ast.walk(target):
                    if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) or \
                            isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name):
                        name = n.id if isinstance(n, ast.Name) else n.value.id  # type: ignore[union-attr]
                        ok = plain and node.value is not None and is_prediction(node.value)
                        bound[name] = bound.get(name, True) and ok
        elif isinstance(node, (ast.For, ast.comprehension, ast.With, ast.withitem)):
            for n in ast.walk(getattr(node, "target", None) or getattr(node, "optional_vars", None) or ast.Pass()):
                if isinstance(n, ast.Name):
                    bound[n.id] = False
    return frozenset(n for n, ok in bound.items() if ok)


#: name tokens of an array of model outputs (predictions, predicted probabilities)
_PREDICTION_TOKENS = frozenset({"pred", "preds", "prediction", "predictions", "prob", "probs", "proba", "probas",
                                "probabilities"})


def _three_axes(node: ast.AST) -> str | None:
    """The name read with a third axis: ``f(x, axis=2)``, ``x.f(axis=2)``, ``x[:, :, k]``, ``x.shape[2]``."""
    if isinstance(node, ast.Call) and any(k.arg == "axis" and isinstance(k.value, ast.Constant) and k.value.value == 2
                                          for k in node.keywords):
        target = node.args[0] if node.args else node.func.value if isinstance(node.func, ast.Attribute) else None
        return target.id if isinstance(target, ast.Name) else None
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and isinstance(node.slice, ast.Tuple) \
            and len(node.slice.elts) == 3:
        return node.value.id
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and node.slice.value == 2 and \
            isinstance(node.value, ast.Attribute) and node.value.attr == "shape" and isinstance(node.value.value,
                                                                                               ast.Name):
        return node.value.value.id
    return None


def prediction_stacks(tree: ast.AST) -> frozenset[str]:
    """Names of three-dimensional arrays of predictions, one matrix per model (see the module docstring)."""
    out: set[str] = set()
    for node in walk_once(tree):
        name = _three_axes(node)
        if name is not None and any(t in _PREDICTION_TOKENS for t in name.lower().split("_")):
            out.add(name)
    return frozenset(out)


#: NumPy functions that stack arrays along an axis
_STACKS = frozenset({"concatenate", "stack", "vstack"})


def over_predictions(node: ast.expr, names: frozenset[str]) -> bool:
    """``node`` (a statistic's receiver or argument) is a prediction buffer, a part of one (``buf[:, 1:]``), a list of
    predictions stacked in place (``np.array(preds)``: foldlists.py), or such a buffer stacked with arrays built from
    numbers (``np.concatenate((pred_probs, np.full(...)))``: one more model, a uniform one)."""
    while isinstance(node, ast.Subscript) or stacked_list(node) is not None:
        node = node.value if isinstance(node, ast.Subscript) else stacked_list(node)  # type: ignore[assignment]
    if _called(node) in _STACKS and node.args and isinstance(node.args[0], (ast.Tuple, ast.List)):  # type: ignore[attr-defined]
        items = node.args[0].elts  # type: ignore[attr-defined]
        ours = [over_predictions(i, names) for i in items]
        built = [_allocated(i) for i in items]  # one more model made of numbers: the stack is a new ensemble
        return any(ours) and any(built) and all(o or b for o, b in zip(ours, built))
    return isinstance(node, ast.Name) and node.id in names


def _allocated(node: ast.expr) -> bool:
    """``np.full(shape, 1 / k)``, ``np.zeros(...)[None, :, :]``: an array of numbers, no data."""
    while isinstance(node, ast.Subscript):
        node = node.value
    return _allocation(node)


__all__ = ["is_prediction", "over_predictions", "prediction_buffers", "prediction_lists", "prediction_stacks",
           "prediction_vectors"]
