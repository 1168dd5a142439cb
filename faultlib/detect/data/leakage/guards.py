"""Comparisons that guard a loop's own progress, not a choice by a score, for the static leakage analysis.

:func:`faultlib.detect.data.leakage.choices.loop_facts` reads ``if score > best: best = score`` inside a loop as
*keeping the best candidate* (``tuned_on_test``). The same shape guards the bookkeeping of a loop:

    for k, (tr, va) in enumerate(KFold(5).split(X)):
        ...
        if k > 0:
            total = total + fold_pred   # sums the folds' predictions
        else:
            total = fold_pred

compares only a **counter** (the index of ``enumerate``, the variable of ``for ... in range(...)``) with constants
or other counters. Nothing measured on the rows takes part in it, so nothing is chosen by a score (one model per
label column with a fold loop inside it predicts the test rows once per fold, and averages them).

:func:`size_guard`: ``if X_test.shape[0] > 30000: subsample`` compares a **size** (``.shape``, ``len()``,
``.size``) with constants: it caps the work of a pass, it keeps no candidate. :func:`seed_only`: a constructor
that takes the loop variable only as a seed (``QuantileTransformer(random_state=np.random.RandomState(i))``
nested in a model's keyword) draws one model again; a seed sweep shows the spread of that model, it tries no
candidate (the same reading as a bare ``random_state=i``).
"""

from __future__ import annotations

import ast

from faultlib.pyflow.walk import walk_once

#: keywords that seed a run; calls whose arguments are a seed (numpy's and JAX's random generators)
SEED_KEYWORDS = frozenset({"random_state", "seed", "random_seed", "rng"})
_SEED_CALLS = frozenset({"RandomState", "default_rng", "seed", "PRNGKey", "Generator"})


def counters(tree: ast.AST) -> frozenset[str]:
    """Names that count a loop's passes: ``i`` in ``for i in range(n)`` and in ``for i, x in enumerate(xs)``."""
    out: set[str] = set()
    for loop in (n for n in walk_once(tree) if isinstance(n, (ast.For, ast.comprehension))):
        call = loop.iter
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)):
            continue
        target = loop.target
        if call.func.id == "range" and isinstance(target, ast.Name):
            out.add(target.id)
        elif call.func.id == "enumerate" and isinstance(target, ast.Tuple) and target.elts \
                and isinstance(target.elts[0], ast.Name):
            out.add(target.elts[0].id)
    return frozenset(out)


def counter_guard(test: ast.expr, counted: frozenset[str]) -> bool:
    """``test`` compares at least one loop counter and otherwise only counters and literals (``k > 0``,
    ``epoch >= 3``, ``0 < i < 5``). A named bound (``i < n_warm``) or a score (``acc > best``) makes it no guard."""
    if not isinstance(test, ast.Compare):
        return False
    operands = [test.left, *test.comparators]
    return any(isinstance(o, ast.Name) and o.id in counted for o in operands) and all(
        isinstance(o, ast.Constant) or isinstance(o, ast.Name) and o.id in counted for o in operands)


def branches(node: ast.If) -> list[ast.stmt]:
    """The statements of both branches of ``node``: a loop keeps its running best in either. Forward selection
    keeps a candidate in the ``if`` (``if auc - best > tol: best = auc; keep.append(f)``); backward elimination
    (recursive feature elimination by hand) keeps the feature in the ``if`` and rebinds its running score in the
    ``else`` (``if best - auc >= tol: print('keep') else: best = auc; drop.append(f)``)."""
    return [*node.body, *node.orelse]


def _size(node: ast.expr) -> bool:
    """``X.shape[0]``, ``X.shape``, ``len(X)``, ``X.size``, ``X.ndim``."""
    while isinstance(node, ast.Subscript):
        node = node.value
    if isinstance(node, ast.Attribute):
        return node.attr in ("shape", "size", "ndim")
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len"


def size_guard(test: ast.expr) -> bool:
    """``test`` compares at least one size (``X_te.shape[0] > 30000``, ``len(rows) >= n_max``) with constants
    or other sizes only: a cap on the work of a pass, not a score."""
    if not isinstance(test, ast.Compare):
        return False
    operands = [test.left, *test.comparators]
    return any(_size(o) for o in operands) and all(isinstance(o, ast.Constant) or _size(o) for o in operands)


def seed_only(value: ast.expr, targets: set[str]) -> bool:
    """Every use of a name of ``targets`` inside ``value`` is a seed: a keyword of :data:`SEED_KEYWORDS` of a
    nested call or an argument of a random generator (``np.random.RandomState(i)``)."""
    seeded: set[int] = set()
    for call in (n for n in ast.walk(value) if isinstance(n, ast.Call)):
        func = call.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        parts = [k.value for k in call.keywords if k.arg in SEED_KEYWORDS]
        if name in _SEED_CALLS:
            parts += [*call.args, *(k.value for k in call.keywords)]
        seeded.update(id(n) for part in parts for n in ast.walk(part))
    uses = [n for n in ast.walk(value) if isinstance(n, ast.Name) and n.id in targets]
    return bool(uses) and all(id(n) in seeded for n in uses)
