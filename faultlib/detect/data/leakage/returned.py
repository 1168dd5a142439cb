"""What a helper the module never calls returns, for the static leakage analysis.

A module of helpers (``common/encoding.py``, ``features.py``) is imported by the scripts that train and score; it
calls none of its own functions. Each such function is analysed on opaque arguments named by its parameters
(``df_train``, ``df_valid``, ``x_test``), and what it **returns** is handed to its caller, which trains or scores on
it: the return is where its output goes on to a model, as a call to ``fit`` would be in a script.

    def encode(df_train, df_valid, cols):
        enc = OneHotEncoder().fit(pd.concat([df_train[cols], df_valid[cols]]))  # saw the validation rows
        return enc.transform(df_train[cols]), enc.transform(df_valid[cols])

The reach is *weak* (:meth:`faultlib.detect.data.leakage.static.Analyzer._reach`): it counts for an estimator's
fit, not for a statistic written by hand (a helper returning ``df.mean()`` for a report is no model input). A fit
on the validation parameter alone (``calibrator.fit(y_val, val_proba)``: Platt scaling or a stacker fitted on the
validation part, then applied to the test part) is what a validation part is for, and is not reached this way.
A function the module calls is analysed at its call sites instead, where its result meets the caller's model or not.

A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer` (it needs ``_reached_weak``).
"""

from __future__ import annotations

from typing import Any

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.helperstats import held_out_statistics
from faultlib.detect.data.leakage.values import Est, FitRef, maybe_data, parts
from faultlib.pyflow.values import Bound, Tup


def _validation_only(fit: FitRef) -> bool:
    """The fit saw only rows named for validation (``y_val``, ``x_valid``), no training or test rows."""
    rows = parts(fit.rows)
    return bool(rows) and all(vocab.looks_like_validation(p.root.name) for p in rows)


class ReturnedToCaller:
    """An uncalled helper's return value weakly reaches a model (see the module docstring)."""

    _reached: set[tuple[int, int]]
    _reached_weak: set[tuple[int, int]]

    def _call_opaque(self, func: Any) -> Any:
        out = super()._call_opaque(func)  # type: ignore[misc]
        self._reach_returned(out)
        self._reached.update(held_out_statistics(out, func.node))  # a returned feature table (helperstats.py)
        return out

    def _reach_returned(self, value: Any) -> None:
        if isinstance(value, Tup):
            for item in value.items:
                self._reach_returned(item)
            return
        if isinstance(value, Est):
            fits = [e.fit for e in [value, *value.steps] if e.fit]
        else:
            data = maybe_data(value.receiver if isinstance(value, Bound) else value)
            fits = list(data.taints) if data is not None else []
        self._reached_weak.update((f.line, f.column) for f in fits if not _validation_only(f))
