"""The best epoch's own score, read off a PyTorch Lightning ``ModelCheckpoint``, reported as the model's score
(``tuned_on_test``), for the static leakage analysis.

``ModelCheckpoint(monitor="val_acc", mode="max")`` keeps the checkpoint whose ``val_acc`` is best over the epochs,
and its ``best_model_score`` is that best value (Lightning API reference, ``ModelCheckpoint.best_model_score``:
"The value of the monitored quantity of the best model"). A script that collects it as the fold's or the run's
score (``scores.append(float(ckpt.best_model_score))``, ``print(ckpt.best_model_score)``) reports the maximum of
many looks at the same rows, the rows that chose the epoch: an optimistic score (Cawley & Talbot, JMLR 11, 2010;
the same as a hand-written loop keeping the best test score, :mod:`~faultlib.detect.data.leakage.choices`).
Issue 17, wave 74: a sentiment competition's LSTM notebooks, whose 5-fold validation scores were these values.
The early stopping itself stays silent on a cross-validation fold (:mod:`.earlystop`); what is reported here is the
selection score handed on as the result.

Silent: a checkpoint that monitors a training quantity (``monitor="train_loss"``, ``"loss"``) or none (Lightning's
default keeps the last epoch); the path of the best checkpoint (``best_model_path``) loaded and scored on other
rows; ``best_model_score`` only compared or logged inside a callback of its own (no call hands it on).
"""

from __future__ import annotations

import ast
import re
from typing import Any

from faultlib.findings import Finding, Severity
from faultlib.pyflow.walk import walk_once

#: a monitored name that is a training quantity, not a held-out score
_TRAINING = re.compile(r"^(train|trn|tr)_|_train$|^loss$", re.IGNORECASE)


def _checkpoint_monitor(node: ast.expr, bindings: dict[str, list[ast.expr]]) -> str | None:
    """The monitored metric when ``node`` names a ``ModelCheckpoint(monitor=...)`` (its only kind of binding)."""
    if not isinstance(node, ast.Name):
        return None
    values = bindings.get(node.id, [])
    calls = [v for v in values if isinstance(v, ast.Call)]
    if not values or len(calls) != len(values):
        return None
    monitors = set()
    for call in calls:
        func = call.func
        if (func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")) != "ModelCheckpoint":
            return None
        monitor = next((k.value for k in call.keywords if k.arg == "monitor"), None)
        if not (isinstance(monitor, ast.Constant) and isinstance(monitor.value, str)):
            return None
        monitors.add(monitor.value)
    return next(iter(monitors)) if len(monitors) == 1 else None


def best_score_read(call: ast.Call, bindings: dict[str, list[ast.expr]]) -> tuple[ast.Attribute, str] | None:
    """``(ckpt.best_model_score, monitor)`` when one of ``call``'s arguments reads the best score of a checkpoint
    that monitors a held-out metric (see the module docstring)."""
    for arg in [*call.args, *(k.value for k in call.keywords)]:
        for n in ast.walk(arg):
            if isinstance(n, ast.Attribute) and n.attr == "best_model_score":
                monitor = _checkpoint_monitor(n.value, bindings)
                if monitor and not _TRAINING.search(monitor):
                    return n, monitor
    return None


def _fit_of(checkpoint: str, before: int, tree: ast.Module, bindings: dict[str, list[ast.expr]]) -> ast.Call | None:
    """The last ``trainer.fit(...)`` before line ``before`` whose trainer was built with ``checkpoint`` among its
    ``callbacks``: the training the checkpoint chose from (reported there, as :mod:`.earlystop` reports a stop)."""
    def has_checkpoint(value: ast.expr) -> bool:
        return isinstance(value, ast.Call) and any(
            k.arg == "callbacks" and any(isinstance(n, ast.Name) and n.id == checkpoint for n in ast.walk(k.value))
            for k in value.keywords)

    fits = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
            and n.func.attr == "fit" and isinstance(n.func.value, ast.Name) and n.lineno < before
            and any(has_checkpoint(v) for v in bindings.get(n.func.value.id, []))]
    return max(fits, key=lambda n: n.lineno, default=None)


class BestScores:
    """A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer` (see the module docstring)."""

    def _call(self, node: ast.Call, frame: Any) -> Any:
        if "_best_score_lines" not in self.__dict__:  # once per module: does it read a best score at all?
            self._best_score_lines: set[int] = set() if any(
                isinstance(n, ast.Attribute) and n.attr == "best_model_score" for n in walk_once(self.tree)) else {-1}
        done = self._best_score_lines
        found = best_score_read(node, self._bindings) if -1 not in done and node.lineno not in done else None
        if found is not None:
            done.add(node.lineno)
            read, monitor = found
            fit = _fit_of(ast.unparse(read.value), node.lineno, self.tree, self._bindings)
            at = fit if fit is not None and fit.lineno not in done else node
            done.add(at.lineno)
            self.report.findings.append(Finding(
                "leakage", Severity.WARNING,
                f"`{ast.unparse(read)}` is handed on as the score: it is the best `{monitor}` over every epoch, "
                "measured on the rows that chose the checkpoint this training kept, so the score reported for that "
                "model is optimistic. Fix: choose the checkpoint on a validation part of the training rows and "
                "score the held-out rows once with the kept model",
                {**self.smap.where(at.lineno), "column": at.col_offset + 1,
                 "function": getattr(frame, "qualname", None)},
                {"reported": ast.unparse(read), "monitor": monitor, "read_at": self.smap.describe(node.lineno)},
                kind="tuned_on_test"))
        return super()._call(node, frame)  # type: ignore[misc]

    _bindings: dict
    tree: ast.Module
    report: Any
    smap: Any


__all__ = ["BestScores", "best_score_read"]
