"""Scikit-learn's old ``Imputer`` along rows, for the static leakage analysis.

``sklearn.preprocessing.Imputer`` (scikit-learn 0.19 and earlier; removed in 0.22 for ``SimpleImputer``) took an
``axis`` argument: "axis : integer, optional (default=0). The axis along which to impute. If axis=0, then impute
along columns. If axis=1, then impute along rows." (scikit-learn 0.19 API reference, ``Imputer``). With ``axis=1``
each row's missing values are filled with that row's own mean, median or most frequent value, computed at
``transform`` time: the fit learns nothing from the other rows, so fitting it before a split (or on test rows)
leaks nothing, as a ``Normalizer`` does not. With ``axis=0`` (the default) it learns one statistic per column from
every row it is fitted on, as ``SimpleImputer`` does.
"""

from __future__ import annotations

from typing import Any

from faultlib.pyflow.values import Const

#: ``Imputer(missing_values, strategy, axis, verbose, copy)``: where ``axis`` sits among the positional arguments
_AXIS_POSITION = 2


def imputes_along_rows(name: str, args: list[Any], kwargs: dict[str, Any]) -> bool:
    """Whether the constructor call ``name(*args, **kwargs)`` is an old ``Imputer`` with ``axis=1``.

    Args:
        name: the class name as called (``Imputer``).
        args: the analysed values of the positional arguments.
        kwargs: the analysed values of the keyword arguments.

    Returns:
        ``True`` only for ``Imputer`` whose ``axis`` is the constant 1 (see the module docstring).
    """
    if name != "Imputer":
        return False
    axis = kwargs.get("axis", args[_AXIS_POSITION] if len(args) > _AXIS_POSITION else None)
    return isinstance(axis, Const) and axis.value == 1


__all__ = ["imputes_along_rows"]
