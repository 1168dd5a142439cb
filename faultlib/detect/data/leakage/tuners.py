"""A hyperparameter tuner told the test score, for the static leakage analysis's ``tuned_on_test``.

A trial script of a tuning service gets its hyperparameters from the tuner and reports one number back; the
tuner keeps the configuration whose number is best. When that number is a score of the test rows (the part a
split held out), the search chose the model on the test set, and the test score of the best trial is the
maximum of many noisy test scores: optimistic, as a choice made in a loop is (:mod:`.choices`). NNI's trial API
(``nni.get_next_parameter()`` ... ``nni.report_final_result(metric)``, "Trial code" in the NNI documentation:
"the metric reported is used by the tuner to generate the next configurations"), and Ray's
``tune.report``/``train.report`` (Ray Tune documentation, "Reporting metrics") are such reports.

What is reported is followed back through the script's assignments (``test_loss = mse(pred, y_test).item()``,
three levels at most) to the values they read; a value holding the rows of a split's test part (not the
validation part carved from a training part) makes the report a choice made with the test rows. A report of a
validation score stays silent.
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.values import Data, parts
from faultlib.findings import Finding, Severity
from faultlib.pyflow.values import Ref
from faultlib.pyflow.walk import walk_once

#: tuner report functions: module prefix -> function names (NNI trial API; Ray Tune / Ray Train)
REPORTS = {"nni": frozenset({"report_final_result", "report_intermediate_result"}),
           "ray": frozenset({"report"})}
#: how many assignments back a reported value is followed
DEPTH = 3


def _reported_call(func: Any) -> bool:
    return isinstance(func, Ref) and func.name.split(".")[0] in REPORTS and \
        func.name.rsplit(".", 1)[-1] in REPORTS[func.name.split(".")[0]]


def _held_out(name: str, value: Data) -> bool:
    """The test part of a split, or a value held out under a test name (``x_test = X[-n:]``, ``test_loss``);
    never a validation part (``x_val``, the second part of a split of training rows)."""
    steps = [s for p in parts(value.rows) for s in p.steps]
    if any(s.part == "val" for s in steps) or vocab.looks_like_validation(name):
        return False
    return any(s.kind == "split" and s.part == "test" for s in steps) or value.test and vocab.looks_like_test(name)


class TunerReports:
    """``tuned_on_test`` for a test score reported to a tuner; needs ``tree``, ``_lookup``, ``report``, ``smap``."""

    def _call(self, node: ast.Call, frame: Any) -> Any:
        if isinstance(node.func, ast.Attribute) and node.args and _reported_call(self._expr(node.func, frame)):
            done = self.__dict__.setdefault("_tuner_reports", set())
            held = self._held_out_read(node.args[0], frame, node.lineno) if node.lineno not in done else None
            if held is not None:
                done.add(node.lineno)
                name, data = held
                step = next((s for p in parts(data.rows) for s in reversed(p.steps)), None)
                self.report.findings.append(Finding(
                    "leakage", Severity.WARNING,
                    f"{ast.unparse(node.func)}() reports to the tuner a score computed from `{name}`, the held-out "
                    f"rows cut on {self.smap.describe(step.line if step else node.lineno)}: the tuner keeps the trial that scores best "
                    "on the test rows, so the test score of the chosen model is optimistic (ASE'22 multi-test "
                    "leakage). Fix: report a validation score (a part carved from the training rows, or "
                    "cross-validation on them) and score the test part once, after the search",
                    {**self.smap.where(node.lineno), "column": node.col_offset + 1,
                     "function": getattr(frame, "qualname", None)},
                    {"reported": ast.unparse(node.args[0]),
                     "held_out_rows": data.rows.describe() if data.rows is not None else None},
                    kind="tuned_on_test"))
        return super()._call(node, frame)

    def _held_out_read(self, expr: ast.expr, frame: Any, line: int) -> tuple[str, Data] | None:
        """A name the reported expression reads (directly or through the last assignment of it before ``line``,
        up to :data:`DEPTH` levels) whose value holds the held-out rows."""
        assigns = self.__dict__.get("_tuner_assigns")
        if assigns is None:
            assigns = self.__dict__["_tuner_assigns"] = _assignments(self.tree)
        todo, seen = [(n.id, 0, line) for n in ast.walk(expr) if isinstance(n, ast.Name)], set()
        while todo:
            name, depth, before = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            value = self._lookup(name, frame)
            if isinstance(value, Data) and _held_out(name, value):
                return name, value
            earlier = [(ln, v) for ln, v in assigns.get(name, []) if ln < before]
            if depth < DEPTH and earlier:
                ln, bound = max(earlier, key=lambda a: a[0])
                todo.extend((n.id, depth + 1, ln) for n in ast.walk(bound) if isinstance(n, ast.Name))
        return None


def _assignments(tree: ast.Module) -> dict[str, list[tuple[int, ast.expr]]]:
    """``name -> [(line, value)]`` of every simple assignment ``name = value`` in the module."""
    out: dict[str, list[tuple[int, ast.expr]]] = {}
    for n in walk_once(tree):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            out.setdefault(n.targets[0].id, []).append((n.lineno, n.value))
    return out


__all__ = ["REPORTS", "TunerReports"]
