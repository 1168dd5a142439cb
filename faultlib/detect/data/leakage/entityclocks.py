"""An entity's own clock rescaled by its ends, per group, for the static leakage analysis.

Run-to-failure and sensor tables hold one row per time step of each unit (an engine's cycles, a machine's steps)
and rescale each unit's clock by its own ends::

    train["time"] = train.groupby("unit")["time"].transform(lambda t: t / t.max())
    test["time"] = test.groupby("unit")["time"].transform(lambda t: t / t.max())

``t.max()`` is that unit's last observed step: for a test unit, the step at which it is scored (how long it has
run so far), for a training unit its own length. The lambda reads the unit's clock column only, and of it only its
ends (``max``, ``min``, ``first``, ``last``) or its count of steps: no measurement of any row, no row of another
unit. It is the position of the row in its own unit's history, known when the row is scored -- the same reading the
analysis gives ``groupby('item_id')['date_block_num'].transform('min')`` (each key's first period: a date the rows
carry, not a statistic of their values; :mod:`.design`). Source: pandas user guide, "Group by: split-apply-combine"
(``transform`` calls the function on each group's rows alone and broadcasts its result to them), with the
C-MAPSS turbofan data's layout (Saxena et al., "Damage propagation modeling for aircraft engine run-to-failure
simulation", PHM 2008: each test engine's series stops at the cycle where its RUL is asked), issue 17 wave 84.

:func:`clock_ends` recognises the lambda (``t / t.max()``, ``(t - t.min()) / (t.max() - t.min())``,
``t / len(t)``); :func:`clock_column` the column (a date or time by name, or a cycle/step counter). A
statistic of the values (``t.mean()``, ``t.std()``), a clock not grouped by a key, or a measurement column stay
statistics.
"""

from __future__ import annotations

import ast

from faultlib.detect.data.leakage import vocab

#: tokens of a column that counts a unit's steps (a cycle, a time step)
_CLOCK_TOKENS = frozenset({"cycle", "cycles", "timestep", "timesteps", "step", "steps", "tick", "ticks"})
#: reductions that read only a clock's ends or its length
_ENDS = frozenset({"max", "min", "first", "last", "count", "size", "nunique"})
_LENGTHS = frozenset({"len"})


def clock_column(expr: ast.expr) -> bool:
    """``g['time']``, ``g.cycle``, ``g['time_in_cycles']``: the column picked off a GroupBy is a clock (a date or
    time by name, :data:`vocab.DATE_COLUMN`, or a cycle/step counter)."""
    name = expr.attr if isinstance(expr, ast.Attribute) else expr.slice.value if isinstance(
        expr, ast.Subscript) and isinstance(expr.slice, ast.Constant) else None
    if not isinstance(name, str):
        return False
    return bool(vocab.DATE_COLUMN.search(name)) or bool(set(vocab.name_tokens(name)) & _CLOCK_TOKENS)


def clock_ends(node: ast.expr) -> bool:
    """``lambda t: t / t.max()``: a one-parameter lambda that reads its argument's ends or length and nothing else
    of it (every other use of the parameter is the value itself, in arithmetic)."""
    if not isinstance(node, ast.Lambda) or len(node.args.args) != 1:
        return False
    param = node.args.args[0].arg
    reads = 0
    for n in ast.walk(node.body):
        if isinstance(n, ast.Call):
            func = n.func
            on_param = isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == param
            if on_param and func.attr in _ENDS and not n.args:
                reads += 1
            elif isinstance(func, ast.Name) and func.id in _LENGTHS and len(n.args) == 1 and isinstance(
                    n.args[0], ast.Name) and n.args[0].id == param:
                reads += 1
            elif on_param or any(isinstance(a, ast.Name) and a.id == param for a in n.args):
                return False  # t.mean(), np.std(t), t.rank(): another statistic of the clock
        elif isinstance(n, (ast.Compare, ast.Subscript)):
            return False
    return reads > 0


def clock_rescaled(column: ast.expr | None, method: str, func: ast.expr | None) -> bool:
    """``groupby(k)[clock].transform(lambda t: t / t.max())``: see the module docstring (``column`` the GroupBy's
    column pick, ``method`` the method called on it, ``func`` its first argument)."""
    return method == "transform" and column is not None and func is not None and clock_column(column) and \
        clock_ends(func)


__all__ = ["clock_column", "clock_ends", "clock_rescaled"]
