"""Values only shown to the reader, for the static leakage analysis's ``tuned_on_test``.

``print('scores', a.values, 'with the max value as', a.values.max())`` after a sweep over the test rows shows the
best score; it keeps nothing: no variable holds the maximum and no model is built from it. A choice is what the
code keeps (``best = max(scores)``, ``k = np.argmax(errs) + 1``, a candidate value typed back into the next model:
:func:`faultlib.detect.data.leakage.choices.loop_facts`). A maximum computed only inside ``print(...)`` or
``display(...)`` (IPython) is a report of the sweep, like its plot. Which candidate won (``max(results,
key=results.get)``, ``idxmax``, ``argmax``) stays a choice even when printed: the reader is told what to keep.
"""

from __future__ import annotations

import ast

_SHOW = frozenset({"print", "display"})


def _best_value_only(call: ast.Call) -> bool:
    """``max(scores)`` / ``scores.max()``: the best score, not which candidate had it (``max(d, key=d.get)``,
    ``argmax``, ``idxmax`` name the candidate)."""
    name = call.func.id if isinstance(call.func, ast.Name) else call.func.attr if isinstance(
        call.func, ast.Attribute) else None
    return name in ("max", "min") and not call.keywords


def shown_only(tree: ast.Module) -> frozenset[int]:
    """Ids of the ``max``/``min`` calls (the best score, not the best candidate) nested in the arguments of a
    ``print``/``display`` call: their value is only shown."""
    out: set[int] = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in _SHOW:
            out |= {id(c) for arg in [*n.args, *(k.value for k in n.keywords)] for c in ast.walk(arg)
                    if isinstance(c, ast.Call) and _best_value_only(c)}
    return frozenset(out)


__all__ = ["shown_only"]
