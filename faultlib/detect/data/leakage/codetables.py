"""A category encoder fitted on the training and the test rows stacked at its fit: one code table for both.

``OrdinalEncoder`` (scikit-learn ``sklearn.preprocessing``, and ``category_encoders``) learns the category names of
each column it is fitted on (``categories_``, API reference) and maps each to a code; it reads no value of another
column, no statistic and no label. Fitted on ``pd.concat([X[cols], X_test[cols]])`` its purpose is a code table that
covers the levels of both files, which is exactly what ``LabelEncoder().fit(pd.concat([train[c], test[c]]))`` does,
and the house reports that one at ``info``, not as a leak (decision i17leak3, :func:`.targets.feature_encoding`:
"a LabelEncoder learns only the category names of the feature"; the ASE'22 authors' own expectations count such a
notebook clean, ``tests/inputs/nb_277256.py``). The same shape is therefore a note for the ordinal encoder too, as
``pd.Categorical(..., categories=levels_of_both)`` and ``astype('category')`` on the stack already are (they are no
fit at all in this analysis).

Only the shape written at the fit counts: the argument is a stacking call (``pd.concat``, ``np.vstack``,
``np.concatenate``, ``a.append(b)``) or a name assigned only from one, and its rows hold training rows *and* test
rows. An encoder fitted on every row before a split, on the training rows before cross-validation, or on training
rows a function was handed (pseudo-labelled test rows among them) keeps the house's category-set policy (a fit like
any other). A supervised encoder (feature-engine's ``OrdinalEncoder(encoding_method='ordered')`` orders the levels
by the target mean) is never a code table.

Issue 17, stop 48 (wave 69): a financial-health notebook fitted ``OrdinalEncoder(handle_unknown=...)`` on its train
and competition-test categorical columns concatenated, reported as ``fit_on_test``; the LabelEncoder of the same
shape in another repository (wave 41) was already a note.
"""

from __future__ import annotations

import ast

from faultlib.detect.data.leakage.values import Data, parts, test_step

#: encoders whose fit learns only category names and that the house reads as a code table when fitted on a stack
NAME_CODERS = frozenset({"OrdinalEncoder"})
#: calls that put rows of several tables one after the other
_STACKERS = frozenset({"concat", "concatenate", "vstack", "row_stack", "append"})


def _stacking_call(node: ast.expr | None) -> bool:
    """``pd.concat([a, b])``, ``np.vstack((a, b))``, ``a.append(b)``: rows stacked."""
    if not isinstance(node, ast.Call):
        return False
    f = node.func
    name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
    if name not in _STACKERS:
        return False
    axis = next((k.value for k in node.keywords if k.arg == "axis"), None)
    return not (isinstance(axis, ast.Constant) and axis.value in (1, "columns"))  # side by side: columns, not rows


def _written_stack(node: ast.expr | None, bindings: dict[str, list[ast.expr]]) -> bool:
    """The fit's argument is a stacking call, or a name (a column pick of one: ``both[cols]``) assigned only from
    stacking calls."""
    while isinstance(node, ast.Subscript):
        node = node.value
    if isinstance(node, ast.Name):
        values = bindings.get(node.id, [])
        return bool(values) and all(_stacking_call(v) for v in values)
    return _stacking_call(node)


def _train_and_test(x: Data | None) -> bool:
    """The rows hold at least one held-out (test) part and one that is not."""
    if x is None:
        return False
    held = [p.root.test or test_step(p) is not None for p in parts(x.rows)]
    return any(held) and not all(held)


def shared_code_table(cls: str, supervised: bool, call: ast.Call, x: Data | None,
                      bindings: dict[str, list[ast.expr]]) -> bool:
    """Whether ``enc.fit(stack)`` / ``enc.fit_transform(stack)`` builds one code table for the training and the
    test rows (see the module docstring).

    Args:
        cls: the encoder's class name.
        supervised: the encoder reads the target (never a code table).
        call: the ``fit``/``fit_transform`` call.
        x: the rows it is fitted on.
        bindings: ``{name: [assigned expressions]}`` of the module.
    """
    return cls in NAME_CODERS and not supervised and bool(call.args) and \
        _written_stack(call.args[0], bindings) and _train_and_test(x)


__all__ = ["NAME_CODERS", "shared_code_table"]
