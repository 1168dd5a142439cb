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


__all__ = ["caller_name", "merged_validation", "names_a_test_set"]
