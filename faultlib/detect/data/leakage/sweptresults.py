"""A cut-off swept by a helper the program cannot read, told by the members of its result (``tuned_on_test``).

:mod:`.helperloops` reads the best-of loop of a helper the program defines. Evaluation notebooks also call a sweep
that lives in the project's package, or in a module the analysis cannot follow, and show what it found::

    result = sweep_cutoffs_for_profit(y_test.values, y_prob, costs)
    print(f"Optimal threshold: {result.best_threshold:.3f}")
    print(f"Max profit: {result.best_profit:,.0f}")

The helper's code is out of sight, but the call and its result say what happened: it was handed the test rows'
labels and the model's predictions for those rows, and its result holds the *best* cut-off and the score *at* it.
A best cut-off of labelled rows is one chosen by scoring every candidate on them, and the score shown at it is the
maximum of those test scores: optimistic (ASE'22's *multi-test leakage*: Yang, Brower-Sinning, Lewis & Kästner,
"Data leakage in notebooks: static detection and better processes", ASE 2022; Cawley & Talbot, JMLR 11, 2010). The
cut-off belongs to the model and is chosen on training or validation rows (scikit-learn's
``TunedThresholdClassifierCV``). Issue 17 wave 98: a hotel-cancellation notebook's profit-optimal threshold and
its maximum profit on the test split.

:func:`member_sweeps` finds, syntactically, in each function (or the module), an assignment of a call that

* is handed labels named for testing (``y_test``, ``y_test.values``; never a validation name:
  :func:`~.scoreloops.test_labels`) and, as another argument, the model's predictions (``clf.predict_proba(X)[:,
  1]``, or a name for them: ``y_prob``, ``preds``, ``scores``);
* whose result, read later in the same scope as an attribute or a string key (``result.best_threshold``,
  ``res["optimal_cutoff"]``), or unpacked into names (``best_t, best_f1 = ...``), gives both a best cut-off (a word
  for best -- ``best``, ``optimal``, ``opt`` -- with one for a cut-off -- ``threshold``, ``cutoff``, ``cut``, ``thr``,
  ``t``) and the best score (a word for best or ``max`` with any other word: ``best_profit``, ``max_f1``).

It is reported at the call. A sweep over validation labels, a result whose best score is never read, and a helper
handed no predictions stay silent. So do

* scikit-learn's curves (``roc_curve``, ``precision_recall_curve``, ``det_curve``): they return the rates at *every*
  threshold of the predictions, no chosen one (scikit-learn API reference, ``sklearn.metrics.roc_curve``: "Returns
  fpr, tpr, thresholds"); ``best`` in the names they are unpacked to (``fpr_best, tpr_best, thresholds_best =
  roc_curve(y_test, best_model.predict_proba(X_test)[:, 1])``) names the model whose curve it is. A pick from
  such a curve (``thresholds[np.argmax(tpr - fpr)]``) is :mod:`.thresholds`' to report;
* a result unpacked into names that are never read afterwards: a value nobody reads chose nothing (issue 17: a
  football-player classifier's GridSearchCV best model, its ROC curve's thresholds unpacked and unused, judged
  false ``tuned_on_test`` at stop 56).
"""

from __future__ import annotations

import ast

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.predbuffers import is_prediction
from faultlib.detect.data.leakage.scoreloops import test_labels
from faultlib.detect.data.leakage.targets import call_name
from faultlib.pyflow.walk import scope_nodes, walk_once

_BEST = frozenset({"best", "optimal", "optimum", "opt"})
_TOP = _BEST | {"max", "maximum", "highest"}
_CUTOFF = frozenset({"threshold", "thresholds", "thresh", "thr", "cutoff", "cut", "t"})
#: name tokens of a model's output for each row
_PREDICTIONS = frozenset({"pred", "preds", "prediction", "predictions", "prob", "probs", "proba", "probas",
                          "probabilities", "score", "scores", "yhat"})
#: scikit-learn curves: the rates at every threshold of the scores, none of them chosen
_CURVES = frozenset({"roc_curve", "precision_recall_curve", "det_curve"})


def _words(name: str) -> set[str]:
    return set(vocab.name_tokens(name))


def _predictions(node: ast.expr) -> bool:
    if is_prediction(node):
        return True
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        node = node.value
    return isinstance(node, ast.Name) and bool(_words(node.id) & _PREDICTIONS) and not test_labels(node)


def _cutoff(name: str) -> bool:
    words = _words(name)
    return bool(words & _BEST) and bool(words & _CUTOFF)


def _best_score(name: str) -> bool:
    words = _words(name)
    return bool(words & _TOP) and not words & _CUTOFF and bool(words - _TOP)


def _read_after(nodes: list[ast.AST], names: set[str], after: int) -> set[str]:
    """The ``names`` loaded after line ``after``."""
    return {n.id for n in nodes if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in names
            and getattr(n, "lineno", 0) > after}


def _members(nodes: list[ast.AST], name: str, after: int) -> set[str]:
    """The attributes and string keys of ``name`` read after line ``after``."""
    out: set[str] = set()
    for n in nodes:
        if getattr(n, "lineno", 0) <= after:
            continue
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == name:
            out.add(n.attr)
        elif isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and n.value.id == name and isinstance(
                n.slice, ast.Constant) and isinstance(n.slice.value, str):
            out.add(n.slice.value)
    return out


def member_sweeps(tree: ast.Module) -> list[int]:
    """Lines of the calls whose result tells a cut-off swept on the test labels (see the module docstring)."""
    out: set[int] = set()
    scopes = [tree, *(n for n in walk_once(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))]
    for scope in scopes:
        nodes = scope_nodes(scope)  # (a nested function is a scope of its own)
        for stmt in nodes:
            if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.value, ast.Call)) or \
                    call_name(stmt.value) in _CURVES:
                continue
            args = [*stmt.value.args, *(k.value for k in stmt.value.keywords)]
            labels = [a for a in args if test_labels(a)]
            if not labels or not any(_predictions(a) for a in args if a not in labels):
                continue
            target = stmt.targets[0]
            if isinstance(target, ast.Name):
                told = _members(nodes, target.id, stmt.lineno)
            elif isinstance(target, ast.Tuple):
                told = _read_after(nodes, {e.id for e in target.elts if isinstance(e, ast.Name)}, stmt.lineno)
            else:
                continue
            if any(_cutoff(m) for m in told) and any(_best_score(m) for m in told):
                out.add(stmt.lineno)
    return sorted(out)


__all__ = ["member_sweeps"]
