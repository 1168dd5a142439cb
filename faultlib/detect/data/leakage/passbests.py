"""The best score of a candidate loop stored as the result of each pass of an outer loop, for the static leakage
analysis's ``tuned_on_test``.

Hand-written cross-validations that also tune a hyperparameter often tune it on the very rows each fold holds out::

    for fold in range(n_folds):
        train_x, val_x = ...                       # this fold's training and held-out subjects
        best = 0
        for C in grid:
            clf = LinearSVC(C=C).fit(train_x, train_y)
            acc = np.mean(clf.predict(val_x) == val_y)
            if acc > best:
                best, best_C = acc, C
        fold_scores[fold] = best                   # the fold's result is the best of the grid on its own rows
    print(np.mean(fold_scores))

Each fold's result is the maximum of several noisy scores of the rows that chose the winner, so their mean is
optimistic: the bias nested cross-validation removes (Varma & Simon, "Bias in error estimation when using
cross-validation for model selection", BMC Bioinformatics 7:91, 2006; Cawley & Talbot, JMLR 11, 2010; scikit-learn
user guide, "Nested versus non-nested cross-validation"). The part's name does not matter here: ``val_x`` is the only
held-out part of the pass, and its best score is what the script reports (issue 17 wave 91: an EEG emotion study's
C grid of a linear SVM, chosen and reported per fold on the held-out subjects).

:func:`kept_per_pass` reads the module syntactically: a ``for`` loop inside another loop keeps a running best (``if
s > best: best = s``), ``s`` computed in its body from a prediction or score of some rows (a call of
:data:`~faultlib.detect.data.leakage.vocab.EVALUATE`), and after it, in the outer loop's body, ``best`` is stored as
that pass's result (``scores[fold] = best``, ``scores.append(best)``). Silent: a pass that scores other rows after
the inner loop (a hand-written nested cross-validation: the chosen candidate refitted and scored on the outer fold),
a best that is only printed or used to build the final model, and a running best outside any outer loop (the test
rows' choice there is :mod:`.choices`' business, a validation part's choice is the intended practice).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.scoreloops import names_in
from faultlib.detect.data.leakage.stackfits import selection_base
from faultlib.pyflow.walk import walk_once

__all__ = ["PassBest", "kept_per_pass"]


@dataclass(frozen=True)
class PassBest:
    """The inner loop's line, the line of the running best's comparison, the line that stores it as the pass's
    result, and the running best's name."""

    loop: int
    compared: int
    stored: int
    best: str


def _root(node: ast.expr) -> str | None:
    """The name the rows handed to a call start from (``X`` of ``X.iloc[idx].values``, of ``X.fillna(0)``)."""
    node = selection_base(node, calls=True)
    return node.id if isinstance(node, ast.Name) else None


def _running_best(loop: ast.For) -> tuple[str, str, int] | None:
    """``(score, best, line)`` of ``if score > best: best = score`` in ``loop``'s body (either way round)."""
    for n in (c for stmt in loop.body for c in ast.walk(stmt)):
        if not (isinstance(n, ast.If) and isinstance(n.test, ast.Compare) and len(n.test.ops) == 1 and isinstance(
                n.test.ops[0], (ast.Gt, ast.GtE, ast.Lt, ast.LtE)) and isinstance(n.test.left, ast.Name)
                and isinstance(n.test.comparators[0], ast.Name)):
            continue
        a, b = n.test.left.id, n.test.comparators[0].id
        for stmt in (c for s in n.body for c in ast.walk(s)):
            if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Name):
                targets = {t.id for t in stmt.targets if isinstance(t, ast.Name)}
                if stmt.value.id == a and b in targets:
                    return a, b, n.lineno
                if stmt.value.id == b and a in targets:
                    return b, a, n.lineno
    return None


def _scoring_calls(loop: ast.For, score: str) -> tuple[list[ast.Call], set[str]]:
    """The prediction or score calls of ``loop``'s body whose results flow into ``score``, and the rows they take."""
    assigns = [n for stmt in loop.body for n in ast.walk(stmt) if isinstance(n, ast.Assign)]
    deps, calls = {score}, []
    changed = True
    while changed:
        changed = False
        for a in assigns:
            if {t for target in a.targets for t in names_in(target)} & deps:
                fresh = names_in(a.value) - deps
                if fresh:
                    deps |= fresh
                    changed = True
    for a in assigns:
        if {t for target in a.targets for t in names_in(target)} & deps:
            calls += [c for c in ast.walk(a.value) if isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute)
                      and c.func.attr in vocab.EVALUATE and c.args]
    return calls, {r for c in calls if (r := _root(c.args[0])) is not None}


def _stored(outer: ast.stmt, after: int, best: str) -> int | None:
    """The line, after ``after`` in ``outer``'s body, that stores ``best`` as the pass's result."""
    for n in sorted((c for s in outer.body for c in ast.walk(s)), key=lambda c: getattr(c, "lineno", 0)):  # type: ignore[attr-defined]
        if getattr(n, "lineno", 0) <= after:
            continue
        if isinstance(n, ast.Assign) and any(isinstance(t, ast.Subscript) for t in n.targets) and isinstance(
                n.value, ast.Name) and n.value.id == best:
            return n.lineno  # scores[fold] = best
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("append", "insert") \
                and any(isinstance(a, ast.Name) and a.id == best for a in n.args):
            return n.lineno  # scores.append(best)
    return None


def _other_rows_scored(outer: ast.stmt, after: int, rows: set[str]) -> bool:
    """A prediction or score of rows other than ``rows`` after line ``after`` in ``outer``'s body."""
    return any(isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and c.func.attr in vocab.EVALUATE
               and c.args and c.lineno > after and _root(c.args[0]) not in rows
               for s in outer.body for c in ast.walk(s))  # type: ignore[attr-defined]


def kept_per_pass(tree: ast.Module) -> dict[int, PassBest]:
    """Line of each scoring call whose score is a candidate loop's running best, stored as an outer loop's pass
    result (see the module docstring) -> what was found."""
    out: dict[int, PassBest] = {}
    outers = [n for n in walk_once(tree) if isinstance(n, (ast.For, ast.While))]
    for outer in outers:
        for loop in (n for s in outer.body for n in ast.walk(s) if isinstance(n, ast.For)):
            found = _running_best(loop)
            if found is None:
                continue
            score, best, compared = found
            calls, rows = _scoring_calls(loop, score)
            end = loop.end_lineno or loop.lineno
            stored = _stored(outer, end, best) if calls else None
            if stored is None or _other_rows_scored(outer, end, rows):
                continue
            for call in calls:
                out.setdefault(call.lineno, PassBest(loop.lineno, compared, stored, best))
    return out
