"""Data handed to a model through a function, for the static leakage analysis.

A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer`. Two ways. A pool of workers
(``multiprocessing.Pool.map``, an executor's ``map``) runs a function on chunks of the rows: the result is the
function's result on those rows. TensorFlow's Estimator API (``tf.estimator``,
also ``tf.compat.v1``) never takes arrays: ``train``, ``evaluate`` and ``predict`` take ``input_fn``, a function
of no arguments that builds a ``tf.data.Dataset`` from the rows (TensorFlow guide, "Premade Estimators"). The rows
that function reads are the rows the model trains on or is scored on, so the function is run (with the
arguments ``functools.partial`` or a ``lambda`` bound, as the interpreter sees them) and what it returns reaches
the model. An optuna study's ``optimize(objective)`` runs the objective there and then, once per trial.
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.pyflow.values import UNKNOWN, Func

#: keywords of model methods that take a function building the data (tf.estimator's ``input_fn``)
INPUT_FUNCTIONS = ("input_fn", "train_input_fn", "eval_input_fn")


class InputFunctions:
    """``estimator.train(input_fn=f)``: ``f``'s result reaches the model; ``pool.map(f, rows)`` is ``f(rows)``
    (see the module docstring)."""

    def _through_functions(self, name: str, args: list[Any], kwargs: dict[str, Any], line: int) -> Any:
        """The value of a method call that hands data to a function (see the module docstring), else ``None``."""
        if self._input_functions(kwargs, line):
            return UNKNOWN
        objective = args[0] if args else kwargs.get("func")
        if name == "optimize" and isinstance(objective, Func):
            # study.optimize(objective, n_trials=n) (optuna): the objective runs now, on the rows as they are now
            # (read later as an uncalled function it would see the module's final tables, a refit's included)
            self._invoke(objective, [self._opaque("trial", line)], {}, line)
            return UNKNOWN
        return self._mapped(name, args, line)

    def _input_functions(self, kwargs: dict[str, Any], line: int) -> bool:
        """Run each input function passed in ``kwargs`` and let its data reach a model; ``True`` when there was one."""
        found = False
        for key in INPUT_FUNCTIONS:
            func = kwargs.get(key)
            if isinstance(func, Func):
                found = True
                self._reach(self._invoke(func, [], {}, line), *self._free_data(func))
        return found

    def _mapped(self, name: str, args: list[Any], line: int) -> Any:
        """``pool.map(transform, np.array_split(df, n))`` (``multiprocessing.Pool``, ``concurrent.futures``
        executors): the function runs on the rows, in chunks; its result, the chunks' results, is returned.
        ``None`` when this is not such a call."""
        from faultlib.detect.data.leakage.semantics import _maybe_data

        if name not in ("map", "imap", "imap_unordered", "map_async") or len(args) < 2 or not isinstance(
                args[0], Func) or _maybe_data(args[1]) is None:
            return None
        return self._invoke(args[0], [_maybe_data(args[1])], {}, line)

    def _free_data(self, func: Func) -> list[Any]:
        """The data values ``func`` reads from the module (``training_df`` inside ``def training_input():``): a
        dataset built from them (``tf.data.Dataset.from_tensor_slices``) holds their rows."""
        from faultlib.detect.data.leakage.semantics import _maybe_data

        own = {a.arg for a in ast.walk(func.node.args) if isinstance(a, ast.arg)} | {
            n.id for n in ast.walk(func.node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        read = sorted({n.id for n in ast.walk(func.node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
                       and n.id not in own})
        return [d for d in (_maybe_data(self.globals.get(name)) for name in read) if d is not None]


__all__ = ["INPUT_FUNCTIONS", "InputFunctions"]
