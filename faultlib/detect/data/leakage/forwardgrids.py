"""Configurations ranked by their walk-forward error on the last window of a series (``tuned_on_test``).

A forecasting grid search often holds out only the last ``n_test`` observations, scores every configuration by
walk-forward validation on them, and ranks the configurations by that error::

    def walk_forward(data, n_test, cfg):
        train, test = data[:-n_test], data[-n_test:]      # or a helper returning the two slices
        ...                                               # one-step forecasts over the test window
        return rmse(test, predictions)

    scores = [(str(cfg), walk_forward(data, n_test, cfg)) for cfg in configs]
    scores.sort(key=lambda s: s[1])                      # the best configuration, and its error

The window both chooses the configuration and reports its error, so the reported error is the minimum of many
test errors and optimistic (Tashman, "Out-of-sample tests of forecasting accuracy", IJF 16, 2000, section 2.3:
the post-sample period must not be used to select the model; Hyndman & Athanasopoulos, *Forecasting: Principles
and Practice*, 3rd ed., section 5.8; Cawley & Talbot, JMLR 11, 2010, on selection bias in model choice).

:func:`ranked_windows` reads the module syntactically:

* a *scorer*: a function that cuts a tail window off one of its parameters (``data[-n:]``, or the last part a
  file's helper returns as ``data[:-n], data[-n:]``; never a window named for validation) and returns the result of
  an error or score call that reads the window (``measure_rmse(test, predictions)``); a function returning what a
  scorer returns (``return (key, result)``, the mean of repeated runs) is one too;
* a *candidate loop*: a comprehension or ``for`` loop whose variable is handed to a scorer (also through joblib's
  ``delayed(score)(...)``), its results kept in a list or dict that is then sorted or reduced by ``min``/``max``
  (in the same function or in the file's function it is handed to), or compared in an ``if`` of the loop;
* the series the loop hands over, followed back through the parameters of the calling functions to their call
  sites, is not a training or validation part (a head slice ``data[:-n]``, the first part of a split, a name for
  training or validation rows): validating on a window of the training part and scoring the chosen
  configuration once on the test window stays silent, as does one configuration evaluated alone.

It is reported at the error call of the scorer.
"""

from __future__ import annotations

import ast

from faultlib.detect.data.leakage import vocab
from faultlib.findings import Finding, Severity
from faultlib.pyflow.walk import walk_once

_ERROR_TOKENS = frozenset({"rmse", "mse", "mae", "mape", "smape", "error", "score", "accuracy", "loss", "r2",
                           "rmsle", "err"})
_RANKERS = frozenset({"sorted", "min", "max", "argmin", "argmax", "argsort", "nsmallest", "nlargest"})
_LOOPS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_Function = (ast.FunctionDef, ast.AsyncFunctionDef)


def _called(node: ast.Call) -> str | None:
    """The file function a call runs: ``f(...)``, ``obj.f(...)`` or joblib's ``delayed(f)(...)``."""
    func = node.func
    if isinstance(func, ast.Call) and isinstance(func.func, ast.Name) and func.func.id == "delayed" and func.args:
        func = func.args[0]
    if isinstance(func, ast.Name):
        return func.id
    return func.attr if isinstance(func, ast.Attribute) else None


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in walk_once(node) if isinstance(n, ast.Name)}


def _params(fn: ast.AST) -> list[str]:
    args = fn.args  # type: ignore[attr-defined]
    return [a.arg for a in [*args.posonlyargs, *args.args]]


def _tail_of(node: ast.expr) -> str | None:
    """``data[-n:]`` or ``data[len(data) - n:]``: the name of the series whose last observations it takes."""
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and isinstance(node.slice, ast.Slice):
        part = node.slice
        lower = part.lower
        tail = isinstance(lower, ast.UnaryOp) and isinstance(lower.op, ast.USub) or isinstance(
            lower, ast.BinOp) and isinstance(lower.op, ast.Sub) and "len" in _names(lower.left)
        if tail and part.upper is None:
            return node.value.id
    return None


def _is_head(node: ast.expr) -> bool:
    """``data[:-n]``, ``data[:cut]``: the first observations of a series."""
    return isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice) and node.slice.lower is None and \
        node.slice.upper is not None


def _tail_helpers(functions: dict[str, ast.AST]) -> set[str]:
    """File functions returning ``(data[:-n], data[-n:])``: a split whose last part is a tail window."""
    out = set()
    for name, fn in functions.items():
        for ret in (n for n in walk_once(fn) if isinstance(n, ast.Return)):
            if isinstance(ret.value, ast.Tuple) and ret.value.elts and _tail_of(ret.value.elts[-1]) in _params(fn):
                out.add(name)
    return out


def _windows(fn: ast.AST, helpers: set[str]) -> dict[str, int]:
    """The tail windows a function cuts off one of its parameters: window name -> the parameter's position."""
    params = _params(fn)
    out: dict[str, int] = {}
    for node in walk_once(fn):
        if not isinstance(node, ast.Assign) or len(node.targets) != 1:
            continue
        target, value = node.targets[0], node.value
        if isinstance(target, ast.Tuple) and target.elts and isinstance(target.elts[-1], ast.Name):
            target = target.elts[-1]
            if isinstance(value, ast.Tuple) and value.elts:
                value = value.elts[-1]
            elif isinstance(value, ast.Call) and _called(value) in helpers and value.args and isinstance(
                    value.args[0], ast.Name):
                value = ast.Subscript(value.args[0], ast.Slice(ast.UnaryOp(ast.USub(), ast.Constant(1))))
        if not isinstance(target, ast.Name) or vocab.looks_like_validation(target.id):
            continue
        series = _tail_of(value)
        if series in params:
            out[target.id] = params.index(series)
    return out


def _derived(fn: ast.AST, seeds: set[int]) -> set[str]:
    """Names of ``fn`` assigned, in line order, from one of the ``seeds`` calls or from such a name."""
    names: set[str] = set()
    for node in sorted((n for n in walk_once(fn) if isinstance(n, ast.Assign)), key=lambda n: n.lineno):
        if any(id(n) in seeds for n in walk_once(node.value)) or _names(node.value) & names:
            names |= {t.id for tgt in node.targets for t in walk_once(tgt) if isinstance(t, ast.Name)}
    return names


def _returns(fn: ast.AST, seeds: set[int]) -> bool:
    names = _derived(fn, seeds)
    return any(isinstance(r, ast.Return) and r.value is not None and (
        _names(r.value) & names or any(id(n) in seeds for n in walk_once(r.value))) for r in walk_once(fn))


def _error_call(node: ast.AST) -> bool:
    name = _called(node) if isinstance(node, ast.Call) else None
    return bool(name) and bool(set(vocab.name_tokens(name)) & _ERROR_TOKENS)


def _scorers(functions: dict[str, ast.AST]) -> dict[str, tuple[int, int]]:
    """Functions returning an error on a tail window of a parameter: name -> (error call line, parameter)."""
    helpers = _tail_helpers(functions)
    found: dict[str, tuple[int, int]] = {}
    for name, fn in functions.items():
        windows = _windows(fn, helpers)
        calls = [n for n in walk_once(fn) if _error_call(n) and any(
            isinstance(a, ast.Name) and a.id in windows for a in n.args)]  # type: ignore[attr-defined]
        if calls and _returns(fn, {id(c) for c in calls}):
            window = next(a.id for a in calls[0].args if isinstance(a, ast.Name) and a.id in windows)
            found[name] = (calls[0].lineno, windows[window])
    for _ in range(4):  # wrappers: score_model returns (key, walk_forward(...)); repeat_evaluate the mean
        for name, fn in functions.items():
            if name in found:
                continue
            calls = [n for n in walk_once(fn) if isinstance(n, ast.Call) and _called(n) in found]
            if calls and _returns(fn, {id(c) for c in calls}):
                line, index = found[_called(calls[0])]  # type: ignore[index]
                arg = calls[0].args[index] if index < len(calls[0].args) else None
                params = _params(fn)
                found[name] = (line, params.index(arg.id) if isinstance(arg, ast.Name) and arg.id in params else -1)
    return found


def _honest(arg: ast.expr | None, scope: ast.AST, module: ast.Module, functions: dict[str, ast.AST],
            depth: int = 0) -> bool:
    """The series handed to the search is a training or validation part, or cannot be followed."""
    if arg is None or depth > 4 or _is_head(arg):
        return True
    if not isinstance(arg, ast.Name):
        return False
    if vocab.looks_like_train(arg.id) or vocab.looks_like_validation(arg.id):
        return True
    for node in _own(scope):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Tuple) and any(isinstance(t, ast.Name) and t.id == arg.id
                                                     for t in target.elts[:-1]):
                return True  # train, test = split(...): the first part
            if isinstance(target, ast.Name) and target.id == arg.id and _is_head(node.value):
                return True
    if scope is not module and arg.id in _params(scope):
        index = _params(scope).index(arg.id)
        name = scope.name  # type: ignore[attr-defined]
        sites = [n for n in walk_once(module) if isinstance(n, ast.Call) and _called(n) == name]
        return not sites or all(_honest(s.args[index] if index < len(s.args) else None, _enclosing(module, s),
                                        module, functions, depth + 1) for s in sites)
    return False


def _own(scope: ast.AST) -> list[ast.AST]:
    """The nodes of a function or module outside the functions defined in it."""
    out, todo = [], list(ast.iter_child_nodes(scope))
    while todo:
        node = todo.pop()
        if not isinstance(node, (*_Function, ast.ClassDef, ast.Lambda)):
            out.append(node)
            todo.extend(ast.iter_child_nodes(node))
    return out


def _enclosing(module: ast.Module, node: ast.AST) -> ast.AST:
    best: ast.AST = module
    line = node.lineno  # type: ignore[attr-defined]
    for fn in walk_once(module):
        if isinstance(fn, _Function) and fn.lineno <= line <= (fn.end_lineno or fn.lineno) and (
                best is module or fn.lineno >= best.lineno):  # type: ignore[attr-defined]
            best = fn
    return best


def _ranked(name: str, scope: ast.AST, after: int, functions: dict[str, ast.AST], depth: int = 0) -> bool:
    """``name`` is sorted or reduced by min/max after ``after`` in ``scope`` (or in the function it goes to)."""
    for node in walk_once(scope):
        if not isinstance(node, ast.Call) or node.lineno < after:
            continue
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "sort" and isinstance(func.value, ast.Name) and \
                func.value.id == name:
            return True
        args = [a for a in node.args if name in _names(a)]
        called = _called(node)
        if args and called in _RANKERS:
            return True
        if args and called in functions and depth < 2:
            fn = functions[called]  # type: ignore[index]
            index = node.args.index(args[0])
            params = _params(fn)
            start = fn.lineno  # type: ignore[attr-defined]
            if index < len(params) and _ranked(params[index], fn, start, functions, depth + 1):
                return True
    return False


def _kept(loop: ast.AST, call: ast.Call, scope: ast.AST, functions: dict[str, ast.AST]) -> bool:
    """The loop's scores are kept and ranked, or compared in an ``if`` of the loop."""
    if isinstance(loop, _LOOPS):
        for node in walk_once(scope):
            if isinstance(node, ast.Assign) and node.value is loop:  # scores = [score(cfg) for cfg in configs]
                return any(_ranked(t.id, scope, node.lineno, functions) for t in node.targets
                           if isinstance(t, ast.Name))
        return False
    results = _derived(loop, {id(call)})
    for node in walk_once(loop):
        if isinstance(node, ast.If) and _names(node.test) & results and any(
                isinstance(s, ast.Assign) for s in node.body):
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "append" and \
                isinstance(node.func.value, ast.Name) and (id(call) in {id(n) for a in node.args for n in walk_once(a)}
                                                           or any(_names(a) & results for a in node.args)):
            return _ranked(node.func.value.id, scope, loop.lineno, functions)  # type: ignore[attr-defined]
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name)
                                                for t in node.targets) and (
                node.value is call or _names(node.value) & results):
            target = next(t.value.id for t in node.targets if isinstance(t, ast.Subscript))  # type: ignore[union-attr]
            return _ranked(target, scope, loop.lineno, functions)  # type: ignore[attr-defined]
    return False


def ranked_windows(module: ast.Module) -> list[tuple[int, int]]:
    """``(error call line, loop line)`` of every scorer whose configurations are ranked by the test window."""
    functions = {n.name: n for n in walk_once(module) if isinstance(n, _Function)}
    scorers = _scorers(functions)
    if not scorers:
        return []
    found: dict[int, int] = {}
    for loop in walk_once(module):
        if isinstance(loop, _LOOPS):
            variables = set().union(*(_names(g.target) for g in loop.generators))
        elif isinstance(loop, (ast.For, ast.AsyncFor)):
            variables = _names(loop.target)
        else:
            continue
        for call in walk_once(loop):
            name = _called(call) if isinstance(call, ast.Call) else None
            if name not in scorers or not any(_names(a) & variables for a in call.args):  # type: ignore[union-attr]
                continue
            line, index = scorers[name]
            scope = _enclosing(module, loop)
            arg = call.args[index] if 0 <= index < len(call.args) else None  # type: ignore[union-attr]
            if line not in found and _kept(loop, call, scope, functions) and not _honest(  # type: ignore[arg-type]
                    arg, scope, module, functions):
                found[line] = loop.lineno  # type: ignore[attr-defined]
    return sorted(found.items())


class ForwardGrids:
    """Mixin for the static leakage analysis: configurations ranked by a walk-forward error on the test window."""

    def interpret(self) -> None:
        super().interpret()  # type: ignore[misc]
        tuned = {f.location.get("line", 0) for f in self.report.findings  # type: ignore[attr-defined]
                 if f.kind == "tuned_on_test"}
        smap = self.smap  # type: ignore[attr-defined]
        for line, loop in ranked_windows(self.tree):  # type: ignore[attr-defined]
            if smap.where(line).get("line", 0) in tuned:
                continue
            self.report.findings.append(Finding(  # type: ignore[attr-defined]
                "leakage", Severity.WARNING,
                f"every configuration the loop on {smap.describe(loop)} tries is scored by walk-forward validation "
                f"on the last observations of the series ({smap.describe(line)}) and ranked by that error: the test "
                "window chose the configuration, so its error is optimistic (ASE'22 multi-test leakage). Fix: rank "
                "the configurations on a validation window cut from the training part, then score the chosen one "
                "once on the test window",
                {**smap.where(line)}, {"loop": smap.where(loop)}, kind="tuned_on_test"))
