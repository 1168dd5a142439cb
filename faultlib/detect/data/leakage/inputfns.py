"""Data handed to a model through a function, for the static leakage analysis.

A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer`. Two ways. A pool of workers
(``multiprocessing.Pool.map``, an executor's ``map``) runs a function on chunks of the rows: the result is the
function's result on those rows. TensorFlow's Estimator API (``tf.estimator``,
also ``tf.compat.v1``) never takes arrays: ``train``, ``evaluate`` and ``predict`` take ``input_fn``, a function
of no arguments that builds a ``tf.data.Dataset`` from the rows (TensorFlow guide, "Premade Estimators"). The rows
that function reads are the rows the model trains on or is scored on, so the function is run (with the
arguments ``functools.partial`` or a ``lambda`` bound, as the interpreter sees them) and what it returns reaches
the model. An optuna study's ``optimize(objective)`` runs the objective there and then, once per trial: a
function, a method of an object (``study.optimize(self.objective)``), or a ``lambda`` written there or bound to a
name before (``run = lambda trial: objective(trial, X, y, X_test, y_test)``), whose body is then evaluated where
the lambda is handed over (its parameter an unknown trial), so the objective sees the rows the lambda passes.
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.pyflow.values import UNKNOWN, Bound, Func, Instance

#: keywords of model methods that take a function building the data (tf.estimator's ``input_fn``)
INPUT_FUNCTIONS = ("input_fn", "train_input_fn", "eval_input_fn")


class InputFunctions:
    """``estimator.train(input_fn=f)``: ``f``'s result reaches the model; ``pool.map(f, rows)`` is ``f(rows)``;
    ``study.optimize(objective)`` runs the objective (see the module docstring; needs ``_bindings``)."""

    _bindings: dict

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

    def _method_value(self, receiver: Any, name: str, args: list[Any], kwargs: dict[str, Any], node: ast.Call,
                      frame: Any) -> Any:
        objective = args[0] if args else kwargs.get("func")
        if name == "optimize" and isinstance(objective, Bound) and isinstance(objective.receiver, Instance) and \
                objective.name in objective.receiver.cls.methods:  # study.optimize(self.objective)
            self._invoke(objective.receiver.cls.methods[objective.name], [objective.receiver, self._opaque(
                "trial", node.lineno)], {}, node.lineno)
            return UNKNOWN
        lam = _lambda_handed(node, self._bindings) if name == "optimize" and not isinstance(objective, Func) else None
        if lam is not None:  # study.optimize(lambda trial: objective(trial, X, y)): the body runs here
            params = [a.arg for a in lam.args.args]
            saved = {p: frame.locals[p] for p in params if p in frame.locals}
            frame.locals.update({p: self._opaque(p, node.lineno) for p in params})
            try:
                self._expr(lam.body, frame)
            finally:
                for p in params:
                    frame.locals.pop(p, None)
                frame.locals.update(saved)
            return UNKNOWN
        return super()._method_value(receiver, name, args, kwargs, node, frame)  # type: ignore[misc]

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
        from faultlib.detect.data.leakage.values import maybe_data

        if name not in ("map", "imap", "imap_unordered", "map_async") or len(args) < 2 or not isinstance(
                args[0], Func) or maybe_data(args[1]) is None:
            return None
        return self._invoke(args[0], [maybe_data(args[1])], {}, line)

    def _free_data(self, func: Func) -> list[Any]:
        """The data values ``func`` reads from the module (``training_df`` inside ``def training_input():``): a
        dataset built from them (``tf.data.Dataset.from_tensor_slices``) holds their rows."""
        from faultlib.detect.data.leakage.values import maybe_data

        own = {a.arg for a in ast.walk(func.node.args) if isinstance(a, ast.arg)} | {
            n.id for n in ast.walk(func.node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        read = sorted({n.id for n in ast.walk(func.node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
                       and n.id not in own})
        return [d for d in (maybe_data(self.globals.get(name)) for name in read) if d is not None]


def _lambda_handed(node: ast.Call, bindings: dict[str, list[ast.expr]]) -> ast.Lambda | None:
    """The ``lambda`` handed to ``node`` as its first argument (or ``func=``): written there, or the only value of
    the name passed; ``None`` otherwise."""
    arg = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "func"), None)
    if isinstance(arg, ast.Name) and len(bindings.get(arg.id, ())) == 1:
        arg = bindings[arg.id][0]
    return arg if isinstance(arg, ast.Lambda) else None


__all__ = ["INPUT_FUNCTIONS", "InputFunctions"]
