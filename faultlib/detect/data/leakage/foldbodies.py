"""A resampling fold's body factored into a function: the held-out rows are one fold's, not a test set.

The static leakage analysis stays silent on early stopping against a cross-validation fold's held-out part
(``for tr, va in kf.split(X): model.fit(X[tr], ..., eval_set=[(X[va], ...)])``, see
:mod:`~faultlib.detect.data.leakage.earlystop`): the out-of-fold estimate is the intended use. The same body is
often moved into a function or method that receives the fold as **two index arrays into one frame**::

    def train_fold(self, frame, idx_train, idx_test):
        model.fit(Pool(frame[cols][idx_train], ...), eval_set=Pool(frame[cols][idx_test], ...))

Inside it the loop that calls it is not visible, only the name of the second array (often ``idx_test``,
``test_index``). What the data is says more than the name: the training rows and the evaluation rows are both
selected **by a parameter of the function** from **the same frame** (or from two frames of one parameter pair
that the body indexes alike), i.e. the function receives positions, not a prepared test set. Positions into one
frame, a training array and a held-out array, are what a splitter's ``split()`` yields (scikit-learn's
cross-validators "generate indices to split data into training and test set"); a train/test split made once
hands over frames (``train_test_split(X, y)`` returns the parts themselves), and a helper that receives a test
set receives it as data (``def fit_model(X_train, y_train, X_test, y_test)``), which this rule leaves alone.

:func:`fold_body` answers, for one training call, whether it sits in such a function: then its evaluation set
is treated like a fold's held-out part (silent). It reads only the syntax: the innermost function around the
call, its parameter names, and the subscripts in the training and evaluation arguments, followed up to three
assignments back through ``bindings`` (the module's name -> assigned values, as the analysis keeps them).
"""

from __future__ import annotations

import ast

from faultlib.pyflow.walk import nodes_of

__all__ = ["enclosing_function", "fold_body"]

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def enclosing_function(tree: ast.AST, line: int) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The innermost function whose body spans ``line`` (``None`` at module level)."""
    best = None
    for node in nodes_of(tree, _FUNCTIONS):
        if node.lineno <= line <= (node.end_lineno or node.lineno):
            if best is None or node.lineno >= best.lineno:
                best = node
    return best


def _selections(node: ast.expr, params: set[str], bindings: dict[str, list[ast.expr]],
                depth: int = 3) -> set[tuple[str, str]]:
    """``(frame, index parameter)`` for every ``frame[...][param]`` in ``node`` and, ``depth`` assignments back,
    in what its names were assigned; ``frame`` is the root name of the subscripted value."""
    out: set[tuple[str, str]] = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Subscript):
            index = sub.slice
            if isinstance(index, ast.Name) and index.id in params:
                root = sub.value
                while isinstance(root, (ast.Subscript, ast.Attribute)):
                    root = root.value
                if isinstance(root, ast.Name):
                    out.add((root.id, index.id))
        if depth and isinstance(sub, ast.Name) and sub.id not in params:
            for value in bindings.get(sub.id, [])[:4]:
                out |= _selections(value, params, bindings, depth - 1)
    return out


def fold_body(tree: ast.Module, call: ast.Call, train: ast.expr | None, evals: list[ast.expr],
              bindings: dict[str, list[ast.expr]]) -> bool:
    """Whether the training ``call`` sits in a function that receives its fold as two index arrays into one frame.

    Args:
        tree: the analysed module.
        call: the training call (``model.fit(...)``, ``lgb.train(...)``).
        train: the expression of its training rows (``fit``'s first argument, ``train``'s training set), or
            ``None`` when the call names none.
        evals: the expressions of its evaluation sets (``eval_set=``, ``valid_sets=``, ``validation_data=``).
        bindings: the module's variable name -> assigned expressions.

    Returns:
        ``True`` when the training rows and every evaluation set are selected from one frame by two different
        parameters of the innermost enclosing function (see the module docstring); ``False`` otherwise, also for
        a call at module level.
    """
    func = enclosing_function(tree, call.lineno)
    if func is None or train is None or not evals:
        return False
    params = {a.arg for a in [*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs]}
    fitted = _selections(train, params, bindings)
    held = set().union(*(_selections(e, params, bindings) for e in evals))
    if not fitted or not held:
        return False
    train_idx = {p for _, p in fitted}
    if {p for _, p in held} & train_idx:
        return False  # evaluated on (some of) the rows it trains on: not a fold's held-out part
    return all(any(frame == f and p != q for f, q in fitted) for frame, p in held)
