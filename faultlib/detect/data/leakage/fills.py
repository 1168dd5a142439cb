"""Imputers that learn nothing from the rows, for the static leakage analysis.

``SimpleImputer(strategy='constant', fill_value='Missing')`` replaces every missing value with the value it was
given (scikit-learn API reference, ``SimpleImputer``: "If 'constant', then replace missing values with
fill_value"): its fit reads the rows only to check them, and what it writes into the test rows does not depend on
any row, so fitting it on all the rows, or on the test rows, is no leak (wave 56: a constant 'Missing' category
fitted on a train+test stack). The other strategies (``mean``, ``median``, ``most_frequent``) learn a statistic of
the rows and stay fits.
"""

from __future__ import annotations

from typing import Any

from faultlib.pyflow.values import Const

#: imputers whose ``strategy='constant'`` fills a given value
_CONSTANT_IMPUTERS = frozenset({"SimpleImputer"})


def constant_fill(name: str, kwargs: dict[str, Any]) -> bool:
    """``SimpleImputer(strategy='constant', ...)``: an imputer whose output depends on no row."""
    strategy = kwargs.get("strategy")
    return name in _CONSTANT_IMPUTERS and isinstance(strategy, Const) and strategy.value == "constant"


__all__ = ["constant_fill"]
