"""Candidates that are not models, scored on the test labels in a loop that keeps the best (``tuned_on_test``).

The loops :mod:`.choices` reads try *models* (a constructor or ``set_params`` takes the loop variable, and the
model is scored on the test rows). Blending weights, a cut-off or a feature subset tried on predictions already
made are the same search without a model in the loop::

    best = 0
    for a in np.linspace(0, 1, 11):
        blend = a * p_forest + (1 - a) * p_boost
        auc = roc_auc_score(y_test, blend)
        if auc > best:
            best, weight = auc, a

The reported ``best`` is the maximum of many test scores, so it is optimistic (ASE'22's *multi-test leakage*:
Yang, Brower-Sinning, Lewis, Kästner, ASE 2022; Cawley & Talbot, JMLR 11, 2010). :func:`score_choices` finds,
syntactically, a call inside one or more nested ``for`` loops that

* takes labels named for testing (``y_test``, ``y_te``, ``test_y``, or the target column's own name with a test
  word: ``Survived_test`` when the script's label is ``df["Survived"]``; never a name for validation) and a value
  computed in the loop (``blend`` above; from the loop variables or from a random draw per iteration), and
* whose result is compared in an ``if`` of the loop whose branch keeps something (``best = auc``), or fed to
  ``max``/``min`` with the running best.

It is reported at the scoring call. Scoring every candidate and only printing or plotting them stays silent, and so
does a loop that fits models (those candidates are :mod:`.choices`'s).
"""

from __future__ import annotations

import ast
import re

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.targets import target_columns
from faultlib.pyflow.walk import walk_once

_LABEL_TOKENS = frozenset({"y", "label", "labels", "target", "targets", "truth"})
_VALIDATION_TOKENS = frozenset({"val", "valid", "validation", "dev"})


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _test_labels(node: ast.expr, columns: frozenset[str] = frozenset()) -> bool:
    """``y_test``, ``y_te``, ``test_y``, ``y_test.values``: a name for the test part's labels; with ``columns`` (the
    script's target columns, :func:`_target_keys`), also the test part of the target named by its column:
    ``Survived_test`` where the script's label is ``df["Survived"]``."""
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        node = node.value
    if not isinstance(node, ast.Name) or not vocab.looks_like_test(node.id):
        return False
    tokens = [t.lower() for t in vocab.name_tokens(node.id)]
    if any(t in _VALIDATION_TOKENS or t[:1] in "xy" and t[1:] in _VALIDATION_TOKENS for t in tokens):
        return False
    if any(t in _LABEL_TOKENS or t[:1] == "y" and t[1:] in ("test", "te", "tst", "holdout") for t in tokens):
        return True
    return "".join(t for t in tokens if not vocab.looks_like_test(t)) in columns


def _target_keys(tree: ast.AST) -> frozenset[str]:
    """The script's target columns (:func:`~.targets.target_columns`: ``y = df["Survived"]``, ``df.pop("price")``),
    lower-cased without separators, three characters or more (a one-letter column would match any ``x_test``)."""
    if not isinstance(tree, ast.Module):
        return frozenset()
    keys = {re.sub(r"[^0-9a-z]", "", c.lower()) for c in target_columns(tree)[0] if isinstance(c, str)}
    return frozenset(k for k in keys if len(k) >= 3)


def loops_around(tree: ast.AST) -> dict[int, list[ast.For]]:
    """For every statement node inside ``for`` loops: the loops around it (outermost first), within its function."""
    out: dict[int, list[ast.For]] = {}

    def visit(node: ast.AST, loops: list[ast.For]) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                visit(child, [])
                continue
            inner = [*loops, child] if isinstance(child, ast.For) else loops
            if isinstance(child, ast.stmt) and loops:
                out[id(child)] = loops
            visit(child, inner)

    visit(tree, [])
    return out


def _compares(test: ast.expr, result: str) -> list[ast.Compare]:
    """The comparisons of ``test`` (itself, or an operand of its ``and``) that read ``result``."""
    parts = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]
    return [p for p in parts if isinstance(p, ast.Compare) and result in _names(p)]


def _keeps(loop: ast.For, result: str) -> bool:
    """The loop keeps the best ``result``: ``if result > best: best = result``, or ``max(best, result)``; the
    comparison may stand beside a bar in an ``and`` (``if precision >= 0.6 and f1 > best_f1:``: the best ``f1``
    among the candidates that pass the bar, a constrained choice; issue 17 wave 103)."""
    for n in ast.walk(loop):
        running = set().union(*(_names(c) - {result} for c in _compares(n.test, result))) if isinstance(
            n, ast.If) else set()
        if isinstance(n, ast.If) and result in _names(n.test) and running & {
                name for b in n.body for s in ast.walk(b) if isinstance(s, ast.Assign) for t in s.targets
                for name in _names(t)}:
            return True  # if auc > best: best = auc (a bar the loop does not raise is a filter, not a choice)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("max", "min") and len(
                n.args) > 1 and any(isinstance(a, ast.Name) and a.id == result for a in n.args):
            return True
    return False


def _fits_models(loop: ast.For) -> bool:
    """The loop fits something (``.fit``, ``fit_transform``, ``.train``): its candidates are models, which
    :mod:`.choices` judges."""
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in (
        "fit", "fit_transform", "train", "fit_predict") for n in ast.walk(loop))


def score_choices(tree: ast.AST) -> list[tuple[int, int, int]]:
    """``(scoring call line, first line, last line of the outermost loop)`` of such loops (see the module
    docstring), in order."""
    around = loops_around(tree)
    columns = _target_keys(tree)
    found: list[tuple[int, int, int]] = []
    for stmt in (n for n in walk_once(tree) if isinstance(n, ast.Assign) and id(n) in around):
        call = stmt.value
        if not (isinstance(call, ast.Call) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
            continue
        args = list(call.args)
        if len(args) < 2 or not any(_test_labels(a, columns) for a in args[:2]):
            continue
        loops = around[id(stmt)]
        if _fits_models(loops[0]):
            continue
        derived = set().union(*(_names(lp.target) for lp in loops))
        for s in (n for n in ast.walk(loops[0]) if isinstance(n, ast.Assign) and n.lineno < stmt.lineno):
            derived |= {t.id for t in s.targets if isinstance(t, ast.Name)}  # computed anew for each candidate
        if not any(_names(a) & derived for a in args[:2] if not _test_labels(a, columns)):
            continue
        if _keeps(loops[-1], stmt.targets[0].id):
            found.append((stmt.lineno, loops[0].lineno, loops[0].end_lineno or loops[0].lineno))
    first = {}
    for line, start, end in sorted(found):
        first.setdefault(start, (line, start, end))  # one finding a loop
    return sorted(first.values())


#: for :mod:`.helperloops` (the same tests, on a loop in a helper handed its labels)
fits_models, keeps_best, names_in, test_labels = _fits_models, _keeps, _names, _test_labels

__all__ = ["fits_models", "keeps_best", "loops_around", "names_in", "score_choices", "test_labels"]
