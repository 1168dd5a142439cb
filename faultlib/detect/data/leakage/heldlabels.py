"""Arguments that hand a function the held-out rows: labels named for testing, or rows of a fold's test part.

:mod:`.helperloops` reports a call that hands a best-of helper the held-out rows' labels. The labels come in three
spellings:

* named for testing: ``y_test``, ``y_te`` (:func:`~faultlib.detect.data.leakage.scoreloops.test_labels`);
* a value's rows taken by the test indices of a split, ``y.iloc[test_index]``, ``prices[te_idx]``, ``up[b]`` in
  ``for a, b in kf.split(X)``: scikit-learn's cross-validators yield ``(train, test)`` index pairs ("generate indices
  to split data into training and test set"), so the second name a loop over ``split()`` binds indexes the fold's
  held-out rows whatever it is called (:func:`split_test_indices`, :func:`fold_test_rows`); a validation index, or
  predictions made for those rows, are not;
* gathered in a container before the call, ``truth = pd.DataFrame({"low": y_low.iloc[test_index], ...})``
  (:func:`gathered_labels`; issue 17 wave 90, a crypto forecaster's profit-optimal cut-off).
"""

from __future__ import annotations

import ast

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.scoreloops import test_labels
from faultlib.detect.data.leakage.targets import call_name, validation_named
from faultlib.pyflow.walk import walk_once

__all__ = ["fold_test_rows", "gathered_labels", "held_labels", "split_pair", "split_test_indices"]

#: name tokens of predictions or scores, made for the rows rather than taken from them
_PREDICTIONS = frozenset({"pred", "preds", "prediction", "predictions", "hat", "prob", "proba", "probs", "score",
                          "scores", "yhat"})


def split_pair(loop: ast.AST) -> list[ast.expr] | None:
    """The two names (or targets) a loop binds to each fold of a splitter, ``[train, test]``: ``a, b`` in ``for a, b in
    kf.split(X)``, in ``for fold, (a, b) in enumerate(tss.split(X))`` and in a comprehension's ``for`` of either
    (scikit-learn's splitters yield ``(train, test)`` index pairs); ``None`` for any other loop."""
    if not isinstance(loop, (ast.For, ast.AsyncFor, ast.comprehension)):
        return None
    source, target = loop.iter, loop.target
    if isinstance(source, ast.Call) and call_name(source) == "enumerate" and source.args and isinstance(
            target, ast.Tuple) and len(target.elts) == 2:
        source, target = source.args[0], target.elts[1]
    if isinstance(source, ast.Call) and call_name(source) == "split" and isinstance(target, ast.Tuple) and len(
            target.elts) == 2:
        return target.elts
    return None


def split_test_indices(tree: ast.AST) -> set[str]:
    """Names a loop over a splitter binds to each fold's test indices: ``b`` in ``for a, b in kf.split(X)`` and in
    ``for fold, (a, b) in enumerate(tss.split(X))`` (:func:`split_pair`)."""
    return {pair[1].id for loop in walk_once(tree) if (pair := split_pair(loop)) is not None and isinstance(
        pair[1], ast.Name)}


def fold_test_rows(node: ast.expr, held: frozenset[str] | set[str] = frozenset()) -> bool:
    """``y.iloc[test_index]``, ``prices[te_idx]``: a value's rows of a split's test part, taken by their index (named
    for testing, or one of ``held``, the test indices a splitter loop binds; not a validation index; not predictions,
    which are made for those rows, not taken from them)."""
    index = None
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        if isinstance(node, ast.Subscript):
            index = node.slice
        node = node.value
    if index is None or not isinstance(node, ast.Name) or set(vocab.name_tokens(node.id)) & _PREDICTIONS:
        return False
    return any(isinstance(n, ast.Name) and (n.id in held or vocab.looks_like_test(n.id)) and not validation_named(n)
               for n in ast.walk(index))


def held_labels(node: ast.expr, held: set[str]) -> bool:
    """Labels named for testing (``y_test``), or a value's rows of a fold's test part (:func:`fold_test_rows`)."""
    return test_labels(node) or fold_test_rows(node, held)


def gathered_labels(tree: ast.AST, held: set[str]) -> list[tuple[str, int, int, int]]:
    """``(name, line bound, first, last line of its function)`` for names bound to test labels gathered in a
    container: ``truth = pd.DataFrame({'low': y_low.iloc[test_index], 'high': y_high.iloc[test_index]})``."""
    out: list[tuple[str, int, int, int]] = []
    for fn in walk_once(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for s in ast.walk(fn):
            if not (isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)):
                continue
            parts = [s.value]
            while parts and not isinstance(parts[0], (ast.Dict, ast.List, ast.Tuple)) and isinstance(
                    parts[0], ast.Call):
                parts = list(parts[0].args)
            items = [v for part in parts for v in (
                part.values if isinstance(part, ast.Dict) else part.elts if isinstance(part, (ast.List, ast.Tuple))
                else ())]
            if items and any(v is not None and held_labels(v, held) for v in items):
                out.append((s.targets[0].id, s.lineno, fn.lineno, fn.end_lineno or fn.lineno))
    return out
