"""A darts forecasting model stopped early on its ``val_series`` and then scored on that same series
(``tuned_on_test``), for the static leakage analysis.

darts' torch models (``TorchForecastingModel.fit(series, ..., val_series=...)``) compute the validation loss and
the ``torch_metrics`` on ``val_series`` each epoch; a PyTorch Lightning ``EarlyStopping(monitor="val_...")`` handed
to the model through ``pl_trainer_kwargs={"callbacks": [...]}`` stops training at the epoch that did best on it
(darts docs, "TorchForecastingModel.fit" and "Early stopping"; Lightning docs, ``EarlyStopping``). When the
forecast's error is then measured on that same series, the series both chose the number of epochs and grades the
model: the reported error is optimistic, as any score on a part used for tuning (Cawley & Talbot, JMLR 11, 2010).
Issue 17 wave 106: a grocery-sales project fitting darts models with ``fit(**fit_kwargs)`` where
``fit_kwargs["val_series"] = val_target_scaled`` and an ``EarlyStopping(monitor="val_rmsse")`` built by a helper,
then reporting ``calculate_metrics(train_target, val_target, forecast)`` with ``forecast`` from ``model.predict``.

:func:`darts_stops` reads each function (and the module level) syntactically:

* the module builds a Lightning ``EarlyStopping`` (imported from ``pytorch_lightning``/``lightning``);
* a ``fit`` call hands a validation series: the keyword ``val_series=V``, or ``**kw`` with ``kw`` a dict of the same
  scope given the key ``"val_series"`` (a display, or ``kw["val_series"] = V``);
* later in the scope, one call takes both a name that ``V`` was computed from (backwards through assignments and
  appends, an argument's names, not a method's receiver, a constant-key subscript ``d["val"]`` as one value) and a
  name computed from the fitted model's ``predict`` (forwards through assignments).

Silent: no Lightning early stop in the module (``val_series`` then only logs a validation loss); the forecast
scored on another part (a test series the fit never saw).
"""

from __future__ import annotations

import ast

from faultlib.detect.data.leakage.reportpicks import scopes
from faultlib.findings import Finding, Severity

_LIGHTNING = ("pytorch_lightning", "lightning")


def _lightning_stop(tree: ast.AST) -> bool:
    names = {a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module
             and n.module.split(".")[0] in _LIGHTNING for a in n.names if a.name == "EarlyStopping"}
    return bool(names) and any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in names
                               for n in ast.walk(tree))


def _arg_names(node: ast.AST) -> set[str]:
    """Names a value is computed from: not a method's receiver, and ``d["key"]`` stands for itself."""
    out: set[str] = set()
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, ast.Name):
            out.add(n.id)
        elif isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Constant):
            continue
        elif isinstance(n, ast.Call):
            stack += [*n.args, *(k.value for k in n.keywords)]
            if not isinstance(n.func, ast.Attribute):
                stack.append(n.func)
        else:
            stack += list(ast.iter_child_nodes(n))
    return out


def _assigned(stmts: list[ast.AST]) -> list[tuple[set[str], ast.expr]]:
    """``(targets, value)`` of the scope's assignments and appends (``xs.append(v)``: ``xs`` from ``v``)."""
    out = []
    for n in stmts:
        if isinstance(n, ast.Assign):
            targets = {t.id for tg in n.targets for t in ast.walk(tg) if isinstance(t, ast.Name)}
            out.append((targets, n.value))
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("append", "extend") \
                and isinstance(n.func.value, ast.Name) and n.args:
            out.append(({n.func.value.id}, n.args[0]))
    return out


def _closure(start: set[str], assigned: list[tuple[set[str], ast.expr]], backwards: bool) -> set[str]:
    """Names reached from ``start`` through the assignments: what they were computed from (``backwards``), or what
    was computed from them."""
    seen = set(start)
    grew = True
    while grew:
        grew = False
        for targets, value in assigned:
            if backwards:
                new = _arg_names(value) - seen if targets & seen else set()
            else:
                new = targets - seen if {n.id for n in ast.walk(value) if isinstance(n, ast.Name)} & seen else set()
            if new:
                seen |= new
                grew = True
    return seen


def _val_series(call: ast.Call, nodes: list[ast.AST]) -> ast.expr | None:
    for k in call.keywords:
        if k.arg == "val_series":
            return k.value
        if k.arg is None and isinstance(k.value, ast.Name):
            kw = k.value.id
            for n in nodes:
                if isinstance(n, ast.Assign) and isinstance(n.value, ast.Dict) and any(
                        isinstance(t, ast.Name) and t.id == kw for t in n.targets):
                    for key, value in zip(n.value.keys, n.value.values):
                        if isinstance(key, ast.Constant) and key.value == "val_series":
                            return value
                if isinstance(n, ast.Assign) and any(
                        isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id == kw
                        and isinstance(t.slice, ast.Constant) and t.slice.value == "val_series" for t in n.targets):
                    return n.value
    return None


def _scope_stops(body: list[ast.stmt]) -> list[int]:
    nodes = [n for s in body for n in ast.walk(s)]
    assigned = _assigned(nodes)
    out = []
    for fit in (n for n in nodes if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                and n.func.attr == "fit"):
        val = _val_series(fit, nodes)
        if val is None:
            continue
        held = _closure(_arg_names(val), assigned, backwards=True)
        model = ast.unparse(fit.func.value)
        predicted = {name for targets, v in assigned if any(
            isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and c.func.attr == "predict"
            and ast.unparse(c.func.value) == model for c in ast.walk(v)) for name in targets}
        predicted = _closure(predicted, assigned, backwards=False) if predicted else set()
        for call in (n for n in nodes if isinstance(n, ast.Call) and n.lineno > fit.lineno):
            args = {a.id for a in [*call.args, *(k.value for k in call.keywords)] if isinstance(a, ast.Name)}
            if args & held and args & predicted:
                out.append(fit.lineno)
                break
    return out


def darts_stops(tree: ast.AST) -> list[int]:
    """Lines of the ``fit`` calls (see the module docstring)."""
    if not _lightning_stop(tree):
        return []
    return sorted({line for _, body in scopes(tree) for line in _scope_stops(body)})


class DartsStops:
    """A mixin of :class:`~faultlib.detect.data.leakage.static.Analyzer`: ``tuned_on_test`` for a darts model
    stopped early on the validation series it is scored on (see the module docstring); needs ``report``, ``smap``
    and ``tree``."""

    def interpret(self) -> None:
        super().interpret()  # type: ignore[misc]
        smap = self.smap  # type: ignore[attr-defined]
        tuned = {f.location.get("line", 0) for f in self.report.findings  # type: ignore[attr-defined]
                 if f.kind == "tuned_on_test"}
        for line in darts_stops(self.tree):  # type: ignore[attr-defined]
            if smap.where(line).get("line", 0) in tuned:
                continue
            self.report.findings.append(Finding(  # type: ignore[attr-defined]
                "leakage", Severity.WARNING,
                f"the model fitted on {smap.describe(line)} is handed a validation series, and the module's "
                "Lightning EarlyStopping stops training at the epoch that did best on it; the forecast is then scored "
                "on that same series: it chose the model and grades it, so the score is optimistic. Fix: hold out "
                "a test part the early stop never sees and report the score on it", {**smap.where(line)}, {},
                kind="tuned_on_test"))


__all__ = ["DartsStops", "darts_stops"]
