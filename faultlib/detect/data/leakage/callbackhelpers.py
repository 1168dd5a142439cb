"""Training callbacks built by a helper function, for ``tuned_on_test`` by early stopping (:mod:`.earlystop`).

Projects keep their Keras callbacks in one helper that every training script calls::

    def make_callbacks(path, patience=10):
        return [EarlyStopping(monitor="val_loss", restore_best_weights=True),
                ModelCheckpoint(path, monitor="val_loss", save_best_only=True)]

    model.fit(X_train, y_train, validation_data=(X_test, y_test), callbacks=make_callbacks(ckpt))

The list the call returns is the list the helper's ``return`` builds (Python language reference, 7.6 "The return
statement": the call's value is the returned expression's), so the callbacks ``fit`` receives are those calls:
:func:`returned_values` gives the expressions the helper returns (a module-level function of the analysed program,
a joined module's included: :mod:`.session`), which :mod:`.earlystop` reads as it reads a list written in place.
A helper defined more than once (which one runs is not known) or not defined in the program gives nothing.
"""

from __future__ import annotations

import ast

from faultlib.detect.data.leakage.samplehelpers import module_functions
from faultlib.pyflow.walk import walk_once


functions = module_functions  # module-level functions by name, a name defined twice left out (samplehelpers.py)


def returned_values(call: ast.Call, defs: dict[str, ast.FunctionDef]) -> list[ast.expr]:
    """The expressions of the ``return`` statements of the function ``call`` calls by its bare name (nested
    functions' returns left out); ``[]`` when it is no such function."""
    func = defs.get(call.func.id) if isinstance(call.func, ast.Name) else None
    if func is None:
        return []
    inner = {id(n) for d in walk_once(func) if isinstance(d, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
             and d is not func for n in ast.walk(d)}
    return [n.value for n in ast.walk(func) if isinstance(n, ast.Return) and n.value is not None
            and id(n) not in inner]


__all__ = ["functions", "returned_values"]
