"""One-hot columns made over training and test rows stacked, for the static leakage analysis.

``pd.get_dummies`` makes one column per category it finds in the rows it is given (pandas API reference,
``get_dummies``: "Convert categorical variable into dummy/indicator variables ... each variable is converted in as
many 0/1 variables as there are different values"). Called on a table stacked from the training rows and the test
file's rows (the Kaggle "combine" idiom)::

    full = pd.concat([train, test])
    full = pd.get_dummies(full, dummy_na=True)
    train, test = full[:len(train)], full[len(train):]

the column set is learnt from the test rows too: a category that only the test file holds gets a column the
training rows are all 0 in, and the model's inputs are shaped by the rows it predicts, like a ``OneHotEncoder``
fitted on the stack (issue 17's house decision "one-hot over the stack": waves 56, 59, 99). Applied to one table
(the training rows alone, or each part on its own) it is a per-row relabelling whose columns the analysis does not
follow, and stays silent here.

:func:`one_hot_over_stack` tells a ``get_dummies`` call over such a stack: the rows it is given join two or more
parts, one of which the analysis knows as test rows (a test file, a held-out part).
"""

from __future__ import annotations

from typing import Any

from faultlib.detect.data.leakage.values import Data, parts, test_step


def one_hot_over_stack(name: str, top: str, data: Data | None) -> bool:
    """``pandas.get_dummies`` (``name``, ``top`` the module) of ``data`` stacked from several parts, one of them
    test rows (see the module docstring)."""
    if name != "get_dummies" or top not in ("pandas", "pd") or data is None or data.rows is None:
        return False
    pieces = parts(data.rows)
    return len(pieces) > 1 and any(p.root.test or test_step(p) is not None for p in pieces)


def data_argument(args: list[Any], kwargs: dict[str, Any]) -> Any:
    """The table ``get_dummies`` encodes: its first argument or ``data=``."""
    return args[0] if args else kwargs.get("data")


__all__ = ["data_argument", "one_hot_over_stack"]
