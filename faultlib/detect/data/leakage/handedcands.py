"""A loop's candidate handed to the helper that scores it, for ``tuned_on_test``.

:mod:`.choices` reads a loop as trying candidates when a model constructor (or ``set_params``) in its body takes
the loop variable, or when the scored model is the loop variable itself. A project that keeps its scoring in a
helper hands the candidate over instead::

    for name, model in candidates:                    # the candidates: models built before the loop
        rows.append(evaluate_model(model, X_train, y_train, X_test, y_test, name))
    table = pd.DataFrame(rows).sort_values("rmse")
    best = table.iloc[0]["name"]                      # kept by its test score

``evaluate_model`` (in the same file, or in a module the script or notebook imports: :mod:`.session`) fits and
scores whatever model it is given; inside it the scored receiver is its parameter, never the loop's variable, so the
loop looked as if it scored one fixed model many times. The call that runs the helper is on a line of the loop and
takes the loop variable: each pass scores another candidate, exactly as if the body were written out in the loop
(the helper's body runs in the caller's frame: the Python language reference, section 6.3.4 "Calls", binds each
argument to its parameter). :func:`hands_candidate` says so.

Not a candidate: the loop variable passed only as a seed (``random_state=i``, :func:`.guards.seed_only`: a seed sweep
shows one model's spread) or only where a keyword of a run's settings takes it (``verbose``, ``n_jobs``).
"""

from __future__ import annotations

import ast

from faultlib.detect.data.leakage.guards import SEED_KEYWORDS, seed_only
from faultlib.pyflow.walk import walk_once

#: keywords that set how a call runs, not what it runs on (the loop variable there is no candidate)
_RUN_SETTINGS = SEED_KEYWORDS | {"verbose", "n_jobs", "warm_start", "title", "label", "name", "model_name"}


def hands_candidate(tree: ast.Module, call_lines: list[int], start: int, end: int, targets: set[str]) -> bool:
    """A call on one of ``call_lines`` (the user-function calls running now) that lies in the loop ``start..end``
    passes one of the loop's variables ``targets`` to the helper as data or a model (positionally, or by a keyword
    other than :data:`_RUN_SETTINGS`), not only as a seed."""
    lines = {ln for ln in call_lines if start <= ln <= end}
    if not lines or not targets:
        return False
    for call in (n for n in walk_once(tree) if isinstance(n, ast.Call) and n.lineno in lines):
        values = [*call.args, *(k.value for k in call.keywords if k.arg not in _RUN_SETTINGS)]
        if any(_uses(v, targets) and not seed_only(v, targets) for v in values):
            return True
    return False


def _uses(value: ast.expr, targets: set[str]) -> bool:
    return any(isinstance(n, ast.Name) and n.id in targets for n in ast.walk(value))


__all__ = ["hands_candidate"]
