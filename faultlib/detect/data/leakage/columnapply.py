"""``frame.apply(F)``: a function run on each column of a table, where F learns from the column it is given.

``DataFrame.apply(func, axis=0)`` calls ``func`` once per column with the whole column as a Series (pandas API
reference, ``DataFrame.apply``: "axis 0 or 'index': apply function to each column"). Two spellings fit each
column on every row of the table:

* a scikit-learn functional transform given by name, ``prices.apply(minmax_scale)`` /
  ``df.apply(scale)``: each column rescaled with its own minimum and maximum (or mean and standard deviation) over
  all the rows, the function form of ``MinMaxScaler().fit_transform`` (scikit-learn API reference,
  ``sklearn.preprocessing.minmax_scale``: "the transformation is calculated as ... X.min(axis=0)");
* a lambda that takes a statistic of its own argument, ``df.apply(lambda x: x.clip(lower=x.quantile(.01),
  upper=x.quantile(.99)))`` (winsorising at the column's percentiles) or ``lambda x: (x - x.mean()) / x.std()``.

Before a split (a time series cut at a date, a train/test split) the held-out rows then shaped their own
scaling. ``axis=1`` passes each row alone (no statistic of other rows) and stays silent; so does a lambda that
computes nothing from its argument (``df.apply(lambda x: x.astype(float))``).
"""

from __future__ import annotations

from typing import Any

from faultlib.detect.data.leakage import vocab
from faultlib.pyflow.values import Ref


def transform_by_name(arg: Any) -> str | None:
    """The name of the scikit-learn functional transform ``arg`` refers to (``minmax_scale``), else None."""
    if isinstance(arg, Ref) and arg.last in vocab.FUNCTIONAL_TRANSFORMS and arg.module.split(".")[0] in (
            "sklearn", ""):
        return arg.last
    return None

