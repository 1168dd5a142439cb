"""Which kind a model's fit is reported with when it is found both fitted before a split and scoring held-out rows.

One fit can be found by several checks: :meth:`~.static.Analyzer._finalize` keeps its most specific kind, a fit
before the split ranking ahead of a model trained on its test rows (a scaler fitted on every row, then split, is a
``fit_before_split`` even when a model fitted on the same rows scores the test part).

A *model* (a classifier or a regressor: scikit-learn glossary, "predictor") is not a preprocessing step, even when
its predictions go on through another step. Credit-scoring notebooks save a stacking ensemble whose base models
were refitted on every row, then score a hold-out tail of those rows through the meta model::

    xgb_stack.fit(X, y)                                    # every row, the tail included
    meta_in = meta_scaler.transform(np.column_stack([xgb_stack.predict_proba(X_test)[:, 1], ...]))
    meta_model.predict_proba(meta_in)                      # X_test = X.iloc[split:]

The tail's predictions reach a scaler's ``transform``, which reads like a fit before the split; what happened is a
model scoring rows it was trained on (issue 17 wave 88, reported as ``fit_before_split``). When the check that the
fit trained a model on the rows it scores (``trained_on_test``) found it too, a model's fit is reported so.
"""

from __future__ import annotations

from typing import Any

from faultlib.detect.data.leakage import vocab

#: the kinds a preprocessing step's fit is reported with, most specific first (static.py's order)
ORDER = ("fit_on_test", "reused_across_folds", "fit_before_split", "fit_outside_cv", "trained_on_test")


def kind_rank(found: list[dict[str, Any]]) -> Any:
    """The sort key of one fit's findings (``found``: dicts with ``kind``, ``fit`` and maybe ``validation``): the
    static order, except that a model's ``trained_on_test`` goes ahead of its ``fit_before_split``."""
    model = any(p["kind"] == "trained_on_test" for p in found) and all(
        vocab.role(p["fit"].estimator) == "model" for p in found)

    def key(p: dict[str, Any]) -> float:
        if model and p["kind"] == "trained_on_test":
            return ORDER.index("fit_before_split") - 0.5
        return ORDER.index(p["kind"]) + 1.5 * bool(p.get("validation"))

    return key


__all__ = ["ORDER", "kind_rank"]
