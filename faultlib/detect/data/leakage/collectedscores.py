"""Candidates scored on the test rows in a loop, every score collected, the best picked after the loop
(``tuned_on_test``).

:mod:`.scoreloops` reads a loop that keeps a running best; :mod:`.helperloops` the collected form inside a helper
handed its labels. Credit-scoring notebooks write the collected form in the open, with a profit function of their
own that reads the labels from a column of the test frame::

    test_frame["target"] = y_test.values
    results = []
    for cut in np.linspace(low, high, 50):
        gain = net_profit(test_frame, threshold=cut)             # accept above the cut, count gains and losses
        results.append({"cut": cut, "profit": gain})
    table = pd.DataFrame(results)
    best_cut = table.loc[table["profit"].idxmax(), "cut"]
    print(table["profit"].max())

The cut-off kept is the one that did best on the test rows, and the profit reported at it is the maximum of fifty
test scores: optimistic (ASE'22's *multi-test leakage*: Yang, Brower-Sinning, Lewis, Kästner, ASE 2022; Cawley &
Talbot, JMLR 11, 2010). The cut-off belongs to the model and is chosen on training or validation rows
(scikit-learn's ``TunedThresholdClassifierCV``). Issue 17 wave 94.

:func:`collected_test_choices` finds, syntactically, a ``for`` loop that fits no model and in which

* a call takes the held-out rows with their labels -- labels named for testing (``y_test``), or a frame named for
  test rows (never for validation) into which the program writes those labels as a column
  (``test_frame["target"] = y_test.values``) -- and, as another argument or keyword, a value computed from the loop
  variables (the candidate);
* its result (or a value computed from it) is appended to a list (``f1s.append(f1_score(y_test, proba >= t))``:
  the call may be the appended value itself);

and, after the loop in the same function (or module), a chooser (``argmax``, ``idxmax``..., the first or last row of
a table sorted by a score: ``table.sort_values('f1').iloc[0]``) reads that list or a value built from it
(``pd.DataFrame(results)``). It is reported at the chooser, unless a finding of
``tuned_on_test`` already lies in the loop (its candidates are models, :mod:`.choices`, or a running best,
:mod:`.scoreloops`: one choice, one report). Scoring every candidate and only
printing or plotting them stays silent, and so does a sweep over validation rows.
"""

from __future__ import annotations

import ast

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.curvecode import _CHOOSERS
from faultlib.detect.data.leakage.scoreloops import fits_models, names_in, test_labels
from faultlib.detect.data.leakage.targets import call_name
from faultlib.pyflow.walk import nodes_of, walk_once


def _labelled_test_frames(tree: ast.AST) -> set[str]:
    """Frames named for test rows that receive the test labels as a column: ``X_test["target"] = y_test.values``."""
    out = set()
    for n in walk_once(tree):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Subscript) and \
                isinstance(n.targets[0].value, ast.Name) and _test_rows(n.targets[0].value.id) and any(
                    isinstance(e, ast.Name) and test_labels(e) for e in ast.walk(n.value)):
            out.add(n.targets[0].value.id)
    return out


def _test_rows(name: str) -> bool:
    return vocab.looks_like_test(name) and not vocab.looks_like_validation(name)


def _scopes(tree: ast.AST) -> list[ast.AST]:
    return [tree, *(n for n in walk_once(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))]


def _own_loops(scope: ast.AST) -> list[ast.For]:
    """The ``for`` loops of ``scope`` outside its nested functions, outermost ones only."""
    out: list[ast.For] = []

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.For):
                out.append(child)
            elif not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                visit(child)

    visit(scope)
    return out


def _score_lists(loop: ast.For, held: set[str]) -> set[str]:
    """Lists the loop appends scores of the held-out rows (``held``: labelled test frames) at a candidate to."""
    derived = names_in(loop.target)
    scored: set[str] = set()
    lists: set[str] = set()
    for s in sorted((n for n in ast.walk(loop) if isinstance(n, (ast.Assign, ast.Expr))), key=lambda n: n.lineno):
        value = s.value
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "append" \
                and isinstance(value.func.value, ast.Name) and value.args:
            if names_in(value.args[0]) & scored or any(  # f1s.append(f1_score(y_test, p >= t)): scored in place
                    _scores_candidate(c, derived, held) for c in ast.walk(value.args[0]) if isinstance(c, ast.Call)):
                lists.add(value.func.value.id)
            continue
        if not isinstance(s, ast.Assign):
            continue
        reads = names_in(value)
        targets = {name for t in s.targets for name in names_in(t)}
        calls = [c for c in ast.walk(value) if isinstance(c, ast.Call)]
        if reads & scored or any(_scores_candidate(c, derived, held) for c in calls):
            scored |= targets
        derived |= targets
    return lists


def _scores_candidate(call: ast.Call, derived: set[str], held: set[str]) -> bool:
    """``call`` takes the held-out rows with their labels and a value computed from the candidate."""
    given = [*call.args, *(k.value for k in call.keywords)]
    rows = [a for a in given if test_labels(a) or isinstance(a, ast.Name) and a.id in held]
    return bool(rows) and any(names_in(a) & derived for a in given if all(a is not r for r in rows))


def _scope_sites(scope: ast.AST) -> tuple[list[ast.Assign], list[ast.Call]]:
    """The assignments of ``scope`` in line order and its chooser calls: from the walk kept with the scope
    (:func:`~faultlib.pyflow.walk.nodes_of`), once per scope, then read for each of its loops by
    :func:`_chosen_after`."""
    return (sorted(nodes_of(scope, ast.Assign), key=lambda n: n.lineno),  # type: ignore[arg-type, attr-defined]
            [n for n in nodes_of(scope, ast.Call) if call_name(n) in _CHOOSERS] +  # type: ignore[arg-type]
            [p for n in nodes_of(scope, ast.Subscript) if (p := _sorted_pick(n)) is not None])  # type: ignore[arg-type]


def _sorted_pick(node: ast.Subscript) -> ast.Call | None:
    """The ``sort_values`` call of ``table.sort_values("f1").iloc[0]`` (or ``.iloc[-1]``): the end row of a table
    sorted by a score is its best row, as ``idxmax`` picks it (pandas API, ``DataFrame.sort_values``,
    ``DataFrame.iloc``); issue 17 wave 103: the best F1 among the cut-offs meeting precision and recall targets."""
    base, index = node.value, node.slice
    if isinstance(index, ast.UnaryOp) and isinstance(index.op, ast.USub):
        index = ast.Constant(-index.operand.value) if isinstance(index.operand, ast.Constant) and isinstance(
            index.operand.value, int) else index
    if not (isinstance(base, ast.Attribute) and base.attr == "iloc" and isinstance(index, ast.Constant) and
            index.value in (0, -1)):
        return None
    call = base.value
    return call if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and \
        call.func.attr == "sort_values" else None


def _chosen_after(sites: tuple[list[ast.Assign], list[ast.Call]], lists: set[str], after: int) -> int | None:
    """The line of a chooser reading one of ``lists`` (or a name built from one) after line ``after``, among a
    scope's :func:`_scope_sites`."""
    assigns, choosers = sites
    names = set(lists)
    for n in (n for n in assigns if n.lineno > after):
        if names_in(n.value) & names:
            names |= {name for t in n.targets for name in names_in(t)}
    lines = [n.lineno for n in choosers if n.lineno > after and names_in(n) & names]
    return min(lines) if lines else None


def collected_test_choices(tree: ast.AST) -> list[tuple[int, int, int]]:
    """``(chooser line, first line, last line of the loop)`` of each such loop (see the module docstring), in order."""
    held = _labelled_test_frames(tree)
    out = []
    for scope in _scopes(tree):
        sites = None
        for loop in _own_loops(scope):
            if fits_models(loop):
                continue  # candidates are models: choices.py
            lists = _score_lists(loop, held)
            if lists and sites is None:
                sites = _scope_sites(scope)
            line = _chosen_after(sites, lists, loop.end_lineno or loop.lineno) if lists and sites else None
            if line is not None:
                out.append((line, loop.lineno, loop.end_lineno or loop.lineno))
    return sorted(set(out))


__all__ = ["collected_test_choices"]
