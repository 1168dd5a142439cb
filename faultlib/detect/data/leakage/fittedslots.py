"""Fitted models kept in a dict under a loop's key, for the static leakage analysis.

A model fitted once per group, per band or per store is kept under the loop's key and read back under another loop's
key when the rows are scored::

    per_band = {}
    for band, part in frame.groupby('band'):
        per_band[band] = LogisticRegression().fit(part[['p']], part['y'])     # one calibrator a band
    for band in per_band:
        mask = frame['band'] == band
        out[mask] = per_band[band].predict_proba(frame.loc[mask, ['p']])[:, 1]

The interpreter's dict holds items by constant key only, so the fitted model was dropped and ``per_band[band]`` read
nothing: the calibrators' fit on the scored rows never met their score. As :mod:`.keyeddicts` does for tables, a
*fitted* model stored under a key that is not a constant is kept in the dict's shared slot
(:attr:`~faultlib.pyflow.values.Container.under_unread_key`), and a read under a key that is not a constant gives
it (the analysis runs a loop's body once: the model kept is every pass's model, with the rows it was fitted on).
A statistic of rows kept so (``woe[col] = np.log(good / bad)`` per column, a weight-of-evidence map) is kept the
same way: a read under the loop's key carries its fit. Unfitted candidates (``models[name] = SVC()``) are left to
:mod:`.registries`, and a slot already holding tables is left to :mod:`.keyeddicts`. Issue 17 wave 89: a click-through notebook's bucketized Platt layer, one
``LogisticRegression`` per ``qcut`` bucket of the validation rows kept in ``bucket_models[b]`` and applied by a
helper to the same rows.
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage.statlists import statistic
from faultlib.detect.data.leakage.values import Est
from faultlib.pyflow.values import Const, Container

__all__ = ["FittedSlots"]


def _fitted(value: Any) -> bool:
    """A fitted model or transformer, or a statistic of rows (no rows of its own, some fit: a contingency table's
    weights of evidence kept per column)."""
    return isinstance(value, Est) and value.category in ("model", "pipeline", "search", "transformer") \
        and value.fit is not None or statistic(value)


class FittedSlots:
    """A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer` (see the module docstring); it sits before
    :class:`~faultlib.detect.data.leakage.keyeddicts.LoopKeyedDicts`, whose shared slot it fills."""

    def _store_keyed(self, target: ast.expr, owner: Any, value: Any) -> bool:
        """``per_band[band] = model`` with ``per_band`` a dict, ``band`` no constant and ``model`` fitted: the model
        takes the shared slot (unless tables hold it). Returns whether it did."""
        if isinstance(owner, Container) and isinstance(target, ast.Subscript) and _fitted(value) and (
                owner.under_unread_key is None or _fitted(owner.under_unread_key)):
            owner.under_unread_key = value
            return True
        return super()._store_keyed(target, owner, value)  # type: ignore[misc]

    def _subscript(self, base: Any, index_node: ast.expr, frame: Any, line: int) -> Any:
        if isinstance(base, Container) and _fitted(base.under_unread_key) and not isinstance(
                index_node, ast.Constant):
            key = self._expr(index_node, frame)  # type: ignore[attr-defined]
            if not isinstance(key, Const) or key.value not in base.items:
                return base.under_unread_key  # per_band[band]: the model kept under the loop's key
            index_node = ast.copy_location(ast.Constant(key.value), index_node)  # (not evaluated a second time)
        return super()._subscript(base, index_node, frame, line)  # type: ignore[misc]
