"""The final refit on training and validation rows together: the validation rows are no longer held out.

``pd.concat([X_train, X_valid])`` after a hyper-parameter was chosen on ``X_valid``, then a scaler and the model
fitted on the union and scored on a separate test set: the usual last step of a train/validation/test protocol
(scikit-learn user guide, "Cross-validation: evaluating estimator performance": the held-out *test* set is the
one kept for the final evaluation; the validation part exists to choose, and the chosen model may be refitted on
all the training data). Wave 58 (interpretable-mri-classification): the scaler of that refit was reported as
fitted on held-out rows because the validation file's name (``validation_data.csv``) reads like one.

Precision first: only a stack of a training part with parts named for validation alone (``valid``, ``val``,
``dev``, ``validation``), never with a part named for testing or cut off by a split, and only in code that names a
test set of its own (``X_test``, ``test_df``): without one, the validation rows are the only held-out rows, and an
encoder fitted on them stacked with the training rows leaks into their score (wave 32's helper that returns both
parts encoded).

Oversampling for that refit (:func:`resampled_for_refit`): course projects cut train / validation / test with two
splits (the held-out 40 % split again into validation and test), choose a model on the validation part, then stack
the training and validation parts and oversample the stack (``pd.concat([zeros] + [ones] * 4)``, SMOTE,
``resample``) for the final model, which is scored on the test part alone. The resampler saw validation rows, but
it transforms none of the rows that are scored: only the rows of the stack are repeated or interpolated, and the test
part, the other side of the second split, is not among them (judged false alarm at stop 53, wave 83, a bank-churn
project). Read from the rows alone: every held-out part of the stack was cut again by a later split whose other side
is not stacked, and the stack holds the training side of the split that held it out. A model trained on the
oversampled stack and scored on the validation part is another finding (it is trained on the rows it scores); a
resampler over the test part itself, or over training rows stacked with a whole held-out part, stays ``fit_on_test``.
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.values import RowUnion, parts, test_step
from faultlib.pyflow.walk import walk_once


def _validation_only(name: str) -> bool:
    tokens = vocab.name_tokens(name)
    return vocab.looks_like_validation(name) and not any(t in ("test", "testing", "holdout", "heldout", "tst")
                                                         or t[:1] in "xy" and t[1:] in ("test", "tst") for t in tokens)


def merged_validation(rows: Any, bound: dict[int, str] | None = None) -> bool:
    """``rows`` stack training rows with rows held out by a validation name only (a final refit).

    ``bound``: the name a caller first bound each table a helper returned to (:func:`caller_name`), by the table's
    root ``uid``: ``X_val, y_val = load_part('val')`` names the rows that ``arrays = np.load(...)`` read inside the
    helper, whose own local (``arrays``) says nothing of the part (wave 84: one helper read each split's file)."""
    if not isinstance(rows, RowUnion):
        return False

    def name(p: Any) -> str:
        return (bound or {}).get(p.root.uid, p.root.name)

    held = [p for p in parts(rows) if p.root.test or test_step(p) is not None]
    kept = [p for p in parts(rows) if p not in held]
    return bool(held) and any(vocab.looks_like_train(name(p)) for p in kept) and all(
        test_step(p) is None and _validation_only(name(p)) for p in held)


#: the estimators the analysis names for oversampling written by hand: a row stack repeating chosen rows
#: (rowdraws.py), ``sklearn.utils.resample`` (design.py), ``df.sample(replace=True)`` (bootstraps.py)
_BY_HAND = frozenset({"concat", "resample", "sample(replace=True)"})


def _cut_again(p: Any) -> tuple[Any, Any] | None:
    """``(the step that held p's rows out, the later split that cut them again)``, or ``None``."""
    held = test_step(p)
    if held is None:
        return None
    later = next((s for s in p.steps[p.steps.index(held) + 1:] if s.kind == "split"), None)
    return None if later is None else (held, later)


def resampled_for_refit(fit: Any, rows: Any) -> bool:
    """An oversampler (``fit.resampler``, or oversampling by hand) fitted on a training part stacked with validation
    rows cut from its held-out part by a second split whose other side (the test part) is not stacked: the final
    refit's training set (see the module docstring)."""
    if not (fit.resampler or fit.estimator in _BY_HAND) or not isinstance(rows, RowUnion):
        return False
    stacked = parts(rows)
    held = [p for p in stacked if test_step(p) is not None]
    kept = [p for p in stacked if test_step(p) is None]
    if not held or not kept:
        return False
    for p in held:
        cut = _cut_again(p)
        if cut is None:
            return False
        first, second = cut
        if any(s.ident == second.ident and s.part != second.part for q in held for s in q.steps):
            return False  # both sides of the second split are stacked: the whole held-out part
        if not any(k.root == p.root and any(s.ident == first.ident and s.part == "train" for s in k.steps)
                   for k in kept):
            return False
    return True


def caller_name(root_name: str, name: str) -> bool:
    """Whether binding a bare table whose root is called ``root_name`` to ``name`` names its part: the root's own
    name says nothing (not named for training, testing or validation: a helper's local, ``arrays``, ``d``) and
    ``name`` does."""
    def says(n: str) -> bool:
        return vocab.looks_like_train(n) or vocab.looks_like_test(n) or vocab.looks_like_validation(n)
    return not says(root_name) and says(name)


def names_a_test_set(tree: ast.AST) -> bool:
    """Some variable or parameter of the code is named for test rows that are not validation rows."""
    names = (n.id if isinstance(n, ast.Name) else n.arg for n in walk_once(tree) if isinstance(n, (ast.Name, ast.arg)))
    return any(vocab.looks_like_test(n) and not _validation_only(n) for n in names)


__all__ = ["caller_name", "merged_validation", "names_a_test_set", "resampled_for_refit"]
