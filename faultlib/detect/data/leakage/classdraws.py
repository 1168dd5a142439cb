"""One class drawn down with ``sklearn.utils.resample``, for the static leakage analysis's ``fit_before_split``.

Hand-balanced classification draws the majority class down to a fixed size with scikit-learn's ``resample``::

    X_major, y_major = X[y == 0], y[y == 0]
    X_down, y_down = resample(X_major, y_major, replace=False, n_samples=1500, random_state=0)
    X_bal = np.concatenate([X_down, X[y == 1]])

``resample(*arrays, replace=False, n_samples=k)`` keeps ``k`` rows drawn at random from those given (scikit-learn API
reference, ``sklearn.utils.resample``: "Resample arrays or sparse matrices in a consistent way"; without
replacement it "implements slicing by sampling"). Given the rows of one class it is a random under-sampler, what
imbalanced-learn's ``RandomUnderSampler`` does for each class it shrinks. Done before the split, the test part is cut
from the rebalanced rows: its class mix is the one the script made, not the population's, and the score measured
on it is not the score on new data (the house rule for a resampler before the split: the ASE'22 labels of
``RandomUnderSampler``, issue 17 waves 54 and 86). With ``replace=True`` (the default) ``resample`` repeats rows and
:mod:`.design` already takes it for an over-sampler.

:func:`class_draws` names the ``resample`` calls whose ``replace`` is ``False``, whose ``n_samples`` is given, and
whose first argument is the rows of one class (:func:`~faultlib.detect.data.leakage.classstats.class_rows`:
``X[y == c]``, or a name the same function binds to such rows). Left alone: ``resample(X, replace=False,
n_samples=k)`` over every row (a random subsample keeps the class mix), a draw without ``n_samples`` (every row in a
new order: ``sklearn.utils.shuffle``), and a draw that passes ``stratify=`` (the class mix kept).
"""

from __future__ import annotations

import ast

from faultlib.detect.data.leakage.classstats import class_rows, class_subsets
from faultlib.pyflow.walk import walk_once


def _keyword(call: ast.Call, name: str) -> ast.expr | None:
    return next((k.value for k in call.keywords if k.arg == name), None)


def _resample(call: ast.Call) -> bool:
    f = call.func
    return (f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else "") == "resample"


def class_draws(tree: ast.Module) -> frozenset[int]:
    """Ids of the ``resample`` calls that draw one class down without replacement (see the module docstring)."""
    out: set[int] = set()
    scopes = [n for n in walk_once(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module))]
    for scope in scopes:
        subsets: set[str] | None = None
        for n in ast.walk(scope):
            if not (isinstance(n, ast.Call) and _resample(n) and n.args):
                continue
            replace, size = _keyword(n, "replace"), _keyword(n, "n_samples")
            if not (isinstance(replace, ast.Constant) and replace.value is False) or size is None or \
                    isinstance(size, ast.Constant) and size.value is None or _keyword(n, "stratify") is not None:
                continue
            subsets = class_subsets(scope) if subsets is None else subsets
            if class_rows(n.args[0], subsets):
                out.add(id(n))
    return frozenset(out)


__all__ = ["class_draws"]
