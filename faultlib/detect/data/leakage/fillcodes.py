"""Missing-value codes placed past a column's range, for the static leakage analysis.

    df['image_top_1'] = df['image_top_1'].fillna(df['image_top_1'].max() + 1)
    df['floor_count'] = df['floor_count'].fillna(df['floor_count'].min() - 1)

The maximum (or minimum) here is no estimate of anything: it only picks a code that no present value takes, so
that the missing rows form their own category or sort past every value (the usual "missing as a separate value"
coding for tree models and embeddings, as a fixed ``-999`` does). Which number the code is changes no split of a
tree and no embedding row, and no property of the held-out rows reaches the present values. Read as a
hand-written statistic of every row, the fill looks like a fit before the split; :func:`fill_code_reductions`
names such reduction calls so that the analysis does not take them for fits (:mod:`.design`).

Recognised: the fill value of ``fillna`` (first argument or ``value=``) or the new value of ``replace(np.nan, v)``
is ``<max> + k`` or ``<min> - k`` with ``k`` a positive number, where ``<max>`` is ``x.max()``, ``np.max(x)``,
``np.nanmax(x)`` (and the minima alike). A mean, a median or a maximum used as is (``fillna(x.max())``: a
present value standing for the missing ones) stay fits, and so does a code in a column that a later statement of
the same block rescales (``minmax_scale(df[c])``: the code's distance below the minimum then sets where every
present value lands, so the fill shapes every row's feature; wave 50, a true alarm).
"""

from __future__ import annotations

import ast
import re

from faultlib.detect.data.leakage.targets import call_name
from faultlib.pyflow.walk import walk_once

#: calls that rescale a column by its range or moments: the code's distance from the values then moves every value
_SCALES = re.compile(r"scale|normali[sz]e", re.IGNORECASE)

#: the side of the range a code goes past, by the reduction naming that end
_ENDS = {"max": ast.Add, "amax": ast.Add, "nanmax": ast.Add, "min": ast.Sub, "amin": ast.Sub, "nanmin": ast.Sub}


def _fill_value(call: ast.Call) -> ast.expr | None:
    """The value ``fillna(v)`` / ``fillna(value=v)`` / ``replace(np.nan, v)`` writes into the missing cells."""
    if not isinstance(call.func, ast.Attribute):
        return None
    if call.func.attr == "fillna":
        value = [k.value for k in call.keywords if k.arg == "value"]
        return call.args[0] if call.args else value[0] if value else None
    if call.func.attr == "replace" and len(call.args) >= 2:
        old = call.args[0]
        if isinstance(old, ast.Attribute) and old.attr in ("nan", "NaN", "NAN"):
            return call.args[1]
    return None


def _past_end(value: ast.expr) -> ast.Call | None:
    """The reduction of ``x.max() + k`` / ``np.min(x) - k`` (``k`` > 0), else None."""
    if not isinstance(value, ast.BinOp) or not isinstance(value.right, ast.Constant):
        return None
    k = value.right.value
    if isinstance(k, bool) or not isinstance(k, (int, float)) or k <= 0:
        return None
    end = value.left
    if isinstance(end, ast.Call) and isinstance(end.func, ast.Attribute) and \
            isinstance(value.op, _ENDS.get(end.func.attr, ())):
        return end
    return None


def _rescaled_later(body: list[ast.stmt], index: int, column: str) -> bool:
    """A statement after ``body[index]`` passes ``column`` (its source text) to a scaling or normalising call."""
    for stmt in body[index + 1:]:
        for n in ast.walk(stmt):
            if isinstance(n, ast.Call) and _SCALES.search(call_name(n)) and any(
                    ast.unparse(a) == column for a in n.args):
                return True
    return False


def fill_code_reductions(tree: ast.Module) -> frozenset[int]:
    """Ids of the ``max``/``min`` calls in ``tree`` that only place a missing-value code past the range."""
    out: set[int] = set()
    for owner in walk_once(tree):
        for field in ("body", "orelse", "finalbody"):
            body = getattr(owner, field, None)
            if not isinstance(body, list):
                continue
            for i, stmt in enumerate(body):
                if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1:
                    continue
                for n in ast.walk(stmt.value):
                    value = _fill_value(n) if isinstance(n, ast.Call) else None
                    end = _past_end(value) if value is not None else None
                    if end is not None and not _rescaled_later(body, i, ast.unparse(stmt.targets[0])):
                        out.add(id(end))
    return frozenset(out)


__all__ = ["fill_code_reductions"]
