"""``inverse_transform`` of an object the analysis does not know as an estimator, for the static leakage analysis.

scikit-learn's transformer contract: ``inverse_transform(X)`` maps each row of ``X`` back to the original space,
one output row per input row (scikit-learn glossary, "inverse_transform"; ``StandardScaler.inverse_transform``).
Its result is therefore the rows of its argument, whatever the receiver is: a scaler returned by a project's
data-preparation helper (an element of a tuple of tables, a pickled object) is often read as a table by the
analysis, and treating ``y_scaler.inverse_transform(part)`` as a row operation of that "table" made every part put
through it (the validation predictions, the test predictions) the same rows of it: a calibrator fitted on the
validation predictions then looked trained on the test predictions it maps (issue 17 wave 106 F1: a
``LinearRegression`` calibration map fitted on ``inverse_transform(val_pred, y_scaler)``, applied to the test
predictions of a separate test part, reported ``trained_on_test``; the predictions, of a model the analysis
does not know, are unknown values, and the scaler's "rows" stood in for all of them).

A known estimator's ``inverse_transform`` keeps its own handling (:mod:`.semantics`, the estimator branch).
"""

from __future__ import annotations

from typing import Any

from faultlib.detect.data.leakage.values import Data
from faultlib.pyflow.values import UNKNOWN


def maps_rows_back(part: Data | None) -> Any:
    """The value of ``obj.inverse_transform(part)``: ``part``'s rows, taints and held-out mark; an unknown value
    when ``part`` is not known as rows (a prediction of an unknown model): never the receiver's rows."""
    return UNKNOWN if part is None else Data(part.rows, part.taints, part.test)


__all__ = ["maps_rows_back"]
