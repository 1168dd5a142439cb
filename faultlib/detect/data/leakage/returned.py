"""What a helper the module never calls returns, for the static leakage analysis.

A module of helpers (``common/encoding.py``, ``features.py``) is imported by the scripts that train and score; it
calls none of its own functions. Each such function is analysed on opaque arguments named by its parameters
(``df_train``, ``df_valid``, ``x_test``), and what it **returns** is handed to its caller, which trains or scores on
it: the return is where its output goes on to a model, as a call to ``fit`` would be in a script.

    def encode(df_train, df_valid, cols):
        enc = OneHotEncoder().fit(pd.concat([df_train[cols], df_valid[cols]]))  # saw the validation rows
        return enc.transform(df_train[cols]), enc.transform(df_valid[cols])

The reach is *weak* (:meth:`faultlib.detect.data.leakage.static.Analyzer._reach`): it counts for an estimator's
fit, not for a statistic written by hand (a helper returning ``df.mean()`` for a report is no model input).
A function the module calls is analysed at its call sites instead, where its result meets the caller's model or not.

A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer` (it needs ``_reach``).
"""

from __future__ import annotations

from typing import Any


class ReturnedToCaller:
    """An uncalled helper's return value weakly reaches a model (see the module docstring)."""

    def _call_opaque(self, func: Any) -> Any:
        out = super()._call_opaque(func)  # type: ignore[misc]
        self._reach(out, weak=True)  # type: ignore[attr-defined]
        return out
