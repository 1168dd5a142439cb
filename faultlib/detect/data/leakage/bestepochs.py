"""A hand-written training loop that keeps its best epoch by a held-out score and reports that score, for the
static leakage analysis's ``tuned_on_test``.

PyTorch (and Keras one epoch at a time) scripts write early stopping by hand::

    best = 0
    for epoch in range(EPOCHS):
        train_one_epoch(model, train_loader)
        acc = evaluate(model, val_loader)          # the held-out rows, after every epoch
        if acc > best:                             # the epoch is chosen by them ...
            best = acc
            torch.save(model.state_dict(), "best.pt")
    fold_scores.append(best)                       # ... and their best score is the result

The reported ``best`` is the maximum of one score per epoch on the rows that chose the epoch: the selection's own
score, optimistic as any choice scored on the rows that made it (Cawley & Talbot, "On over-fitting in model
selection and subsequent selection bias in performance evaluation", JMLR 11, 2010; Goodfellow, Bengio & Courville,
*Deep Learning*, section 7.8: early stopping treats the number of epochs as a hyperparameter chosen on a validation
set, so the validation score of the kept epoch is a training-time quantity). It is the house's early-stopping
decision (:mod:`.earlystop` for the library callbacks, :mod:`.bestscores` for Lightning's ``best_model_score``)
written as a loop. Issue 17 waves 38-92: fold loops reporting ``best_f1``/``best_val_rmse``, a loop keeping the
best test accuracy over 20 one-epoch ``fit`` calls, ``max(test_accs)`` over MNIST test epochs.

:func:`best_epochs` reads the module syntactically. An *epoch loop* is a ``for``/``while`` loop whose header names
an epoch (``for epoch in range(n_epochs)``) or whose body fits one epoch at a time (``fit(..., epochs=1)``), and
whose body trains (``fit``, ``backward``, ``train_on_batch``, a call named for training). In it:

* a running best: ``if score > best: best = score`` (either way round, also ``best, epoch_at = score, epoch``;
  or ``best = max(best, score)``) of a
  score computed in the loop from held-out rows (its computation names a part for testing or validation:
  ``val_loader``, ``X_test``, ``dataloader['test']``; a training loss is not one); reported at the ``if``;
* or a per-epoch list, ``scores.append(score)`` of such a score, whose ``max``/``min``/``argmax`` is handed on;
  reported where it is.

It counts when the best is *handed on* after the loop: appended or stored as the run's or fold's result, printed or
logged (a test part's best also returned; a validation part's best returned to a caller that collects or prints
it: ``s = run_fold(...)``, ``cv_score += s / k``), or when the state saved at the best epoch is loaded back and the same
rows are scored again.
Silent: a best kept only to save a checkpoint; a validation part's best only returned (a search's objective); a validation part's best when the script then scores another,
test-named part (the intended practice: choose on validation, report the test), or when it is the validation-named
parameter of a function no code of the program calls (its callers' validation part, :mod:`.valparams`); a training loss's best; a loop
that builds a new model per pass (a candidate search, :mod:`.choices`/:mod:`.scoreloops`).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from faultlib.detect.data.leakage.reportedlines import ReportedLines
from faultlib.detect.data.leakage.targets import call_name
from faultlib.detect.data.leakage.valparams import caller_validation
from faultlib.detect.data.leakage.vocab import looks_like_test, looks_like_train, looks_like_validation, name_tokens
from faultlib.findings import Severity
from faultlib.detect.data.leakage.targets import read_words as _words
from faultlib.pyflow.walk import tree_fact, walk_once

__all__ = ["BestEpoch", "best_epoch_findings", "best_epochs"]

#: calls that train the model for a step or an epoch (scikit-learn/Keras ``fit``, PyTorch ``loss.backward()``)
_TRAINS = frozenset({"fit", "fit_generator", "train_on_batch", "partial_fit", "backward"})
#: calls that hand a value on as a result (printed, logged, collected)
_HANDS = frozenset({"print", "append", "extend", "insert", "add", "log", "info", "write", "log_metric",
                    "log_metrics", "add_scalar", "dump", "update", "format"})
#: calls that load a saved state back into a model
_LOADS = frozenset({"load_state_dict", "load_weights", "load", "load_model", "load_from_checkpoint", "deserialize"})
#: words of a call that scores rows (a library method, a helper named for evaluation, a metric)
_SCORE_WORDS = ("eval", "score", "valid", "test", "accuracy", "metric", "_error", "loss", "rmse", "f1", "auc",
                "confusion", "report", "r2", "mse", "mae")
#: words of a name for held-out rows (:func:`~.vocab.looks_like_test` also takes validation names)
_HELD = ("test", "val", "valid", "validation", "dev", "holdout", "heldout", "eval")
#: words of a name for rows (not for a score): the held-out part a message names
_DATA = ("loader", "dataloader", "dl", "dataset", "ds", "data", "set", "x", "df", "generator", "gen", "batches")


@dataclass(frozen=True)
class BestEpoch:
    """The line reported (the running best's comparison, or the list's max), the epoch loop's line, the best's
    name, the held-out rows that chose it, and the line handing it on."""

    line: int
    loop: int
    loop_end: int
    best: str
    rows: str
    handed: int


def _text(node: ast.AST | None) -> str:
    return ast.unparse(node) if node is not None else ""


def _calls(nodes: list[ast.stmt]) -> list[ast.Call]:
    return [c for s in nodes for c in ast.walk(s) if isinstance(c, ast.Call)]


def _trainers(tree: ast.Module) -> set[str]:
    """The module's functions that train (their body calls one of :data:`_TRAINS`): ``run_epoch(net, loader)``."""
    return {f.name for f in walk_once(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
            and any(call_name(c) in _TRAINS for c in _calls(f.body))}


def _trains(call: ast.Call, trainers: set[str]) -> bool:
    name = call_name(call)
    return name in _TRAINS or name in trainers or "train" in name.lower() and "split" not in name.lower()


def _epoch_loop(loop: ast.For | ast.While, trainers: set[str]) -> bool:
    """The header names an epoch, or the body fits one epoch a pass (``fit(..., epochs=1)``); and the body trains
    (directly or through a function of the module that does)."""
    header = _text(loop.target) + _text(loop.iter) if isinstance(loop, ast.For) else _text(loop.test)
    calls = _calls(loop.body)
    one_epoch = any(k.arg in ("epochs", "nb_epoch") and isinstance(k.value, ast.Constant) and k.value.value == 1
                    for c in calls for k in c.keywords)
    if "epoch" not in header.lower() and not one_epoch:
        return False
    return any(_trains(c, trainers) for c in calls)


def _running_best(loop: ast.stmt) -> list[tuple[str, str, int]]:
    """``(score, best, line)`` of each ``if score > best: best = score`` in ``loop``'s body (either way round, or
    ``best = max(best, score)``; the
    comparison may be bound to a name first: ``improved = score > best; if improved: ...``, reported there)."""
    nodes = [c for stmt in loop.body for c in ast.walk(stmt)]  # type: ignore[attr-defined]
    bound = {n.targets[0].id: n for n in nodes if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(
        n.targets[0], ast.Name) and isinstance(n.value, ast.Compare)}
    out = [pair for n in nodes if (pair := _running_max(n)) is not None]
    for n in nodes:
        if not isinstance(n, ast.If):
            continue
        test, line = n.test, n.lineno
        if isinstance(test, ast.Name) and test.id in bound:
            test, line = bound[test.id].value, bound[test.id].lineno
        if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(
                test.ops[0], (ast.Gt, ast.GtE, ast.Lt, ast.LtE))):
            continue
        a, b = _text(test.left), _text(test.comparators[0])
        for stmt in (c for s in n.body for c in ast.walk(s) if isinstance(c, ast.Assign)):
            pairs = [(_text(t), _text(v)) for t, v in _assigned_pairs(stmt)]
            if (b, a) in pairs:
                out.append((a, b, line))
            elif (a, b) in pairs:
                out.append((b, a, line))
    return out


def _running_max(node: ast.AST) -> tuple[str, str, int] | None:
    """``(score, best, line)`` of ``best = max(best, score)`` (or ``min``, either order): the running best written
    with Python's built-in ``max``."""
    if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.value, ast.Call) and
            call_name(node.value) in ("max", "min") and len(node.value.args) == 2 and not node.value.keywords):
        return None
    best, (a, b) = _text(node.targets[0]), (_text(arg) for arg in node.value.args)
    return (b, best, node.lineno) if a == best else (a, best, node.lineno) if b == best else None


def _assigned_pairs(stmt: ast.Assign) -> list[tuple[ast.expr, ast.expr]]:
    """``best = s`` -> ``[(best, s)]``; ``best, at = s, epoch`` -> both pairs."""
    out = []
    for target in stmt.targets:
        if isinstance(target, ast.Tuple) and isinstance(stmt.value, ast.Tuple) and len(target.elts) == len(
                stmt.value.elts):
            out += list(zip(target.elts, stmt.value.elts))
        else:
            out.append((target, stmt.value))
    return out


def _slice(loop: ast.stmt, score: str) -> set[str]:
    """The words the computation of ``score`` in ``loop``'s body reads (assignments, ``+=``, appends and the loops
    that hold them), transitively."""
    try:
        deps = {score} | _words(ast.parse(score, mode="eval"))
    except SyntaxError:
        deps = {score}
    nodes = [c for s in loop.body for c in ast.walk(s)]  # type: ignore[attr-defined]
    fors = [n for n in nodes if isinstance(n, (ast.For, ast.AsyncFor))]
    changed = True
    while changed:
        changed = False
        for n in nodes:
            written: set[str] = set()
            read: ast.AST | None = None
            if isinstance(n, ast.Assign):
                written, read = {w for t in n.targets for w in _words(t)}, n.value
            elif isinstance(n, (ast.AugAssign, ast.AnnAssign)) and n.value is not None:
                written, read = _words(n.target), n.value
            elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("append", "extend"):
                written, read = _words(n.func.value), ast.Tuple(elts=list(n.args), ctx=ast.Load())
            if not written & deps or read is None:
                continue
            fresh = _words(read) - deps
            for f in fors:  # the loop that runs the statement: its rows are read too
                if f.lineno <= n.lineno <= (f.end_lineno or f.lineno) and f.lineno > loop.lineno:
                    fresh |= _words(f.iter) - deps
            if fresh:
                deps |= fresh
                changed = True
    return deps


def _held_words(words: set[str], score: str) -> list[str]:
    """The names among ``words`` for held-out rows (test-named first, then those that are not the score itself)."""
    held = [w for w in words if (looks_like_test(w) or looks_like_validation(w)) and not looks_like_train(w)
            and any(t in _HELD for t in name_tokens(w))]
    return sorted(held, key=lambda w: (not _test_named(w), not any(t in _DATA for t in name_tokens(w)), w))


def _test_named(name: str) -> bool:
    """``X_test``, ``test_loader``, ``sig_te``, ``y_holdout``: a part named for testing, not for validation."""
    return looks_like_test(name) and not looks_like_validation(name) and not any(
        t in ("eval", "evaluation", "dev") for t in name_tokens(name))


def _training_score(score: str, words: set[str]) -> bool:
    """A training loss or accuracy: the score's name, or everything it reads, is named for training."""
    return looks_like_train(score.split(".")[-1]) or any(looks_like_train(w) for w in words) and not any(
        looks_like_test(w) or looks_like_validation(w) for w in words if w != score)


def _mentions(node: ast.AST, best: str) -> bool:
    return any(_text(n) == best for n in ast.walk(node) if isinstance(n, (ast.Name, ast.Attribute)))


def _handed(after: list[ast.stmt], best: str, test: bool) -> int | None:
    """The first line after the loop that hands ``best`` on: collected (``scores.append(best)``, ``scores[k] =
    best``) or printed as a result; for a test part's best also returned or stored anywhere. A validation part's
    best returned to the caller or kept in an object is the objective of a search over settings (choosing on
    validation rows is the intended practice; the caller reports another part), so that alone is no report."""
    for n in sorted((c for s in after for c in ast.walk(s)), key=lambda c: getattr(c, "lineno", 0)):
        if isinstance(n, ast.Call) and call_name(n) in _HANDS and any(
                _mentions(a, best) for a in [*n.args, *(k.value for k in n.keywords)]):
            return n.lineno
        if isinstance(n, ast.Assign) and any(isinstance(t, ast.Subscript) for t in n.targets) and _mentions(
                n.value, best):
            return n.lineno
        if not test:
            continue
        if isinstance(n, ast.Return) and n.value is not None and _mentions(n.value, best):
            return n.lineno
        if isinstance(n, ast.Assign) and any(isinstance(t, ast.Attribute) for t in n.targets) and _mentions(
                n.value, best):
            return n.lineno
        if isinstance(n, ast.Dict) and any(v is not None and _mentions(v, best) for v in n.values):
            return n.lineno
    return None


def _functions(tree: ast.AST) -> tuple[tuple[ast.FunctionDef | ast.AsyncFunctionDef, frozenset[int]], ...]:
    """Each function of the module, in walk order, with the ids of the functions nested in it: walked once per tree
    (:func:`~faultlib.pyflow.walk.tree_fact`), not once per loop."""
    defs = (ast.FunctionDef, ast.AsyncFunctionDef)
    return tuple((f, frozenset(id(g) for g in ast.walk(f) if isinstance(g, defs) and g is not f))
                 for f in walk_once(tree) if isinstance(f, defs))


def _enclosing_function(tree: ast.AST, line: int) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The innermost function whose body holds ``line``."""
    functions = tree_fact(tree, _functions)
    holding = {id(f) for f, _ in functions if f.lineno < line <= (f.end_lineno or f.lineno)}
    return next((f for f, nested in functions if id(f) in holding and not holding & nested), None)


def _reported_by_caller(tree: ast.Module, loop: ast.stmt, best: str) -> int | None:
    """``return best`` of the function holding ``loop``, whose callers in the module collect or print the result
    (``s = run_fold(...)``, then ``cv += s / k`` or ``scores.append(s)``): the line of that ``return``."""
    func = _enclosing_function(tree, loop.lineno)
    ret = next((n for n in ast.walk(func) if isinstance(n, ast.Return) and n.value is not None and _mentions(
        n.value, best) and n.lineno > (loop.end_lineno or loop.lineno)), None) if func is not None else None
    if ret is None:
        return None
    for stmt in (n for n in walk_once(tree) if isinstance(n, (ast.Assign, ast.AugAssign, ast.Expr))):
        calls = [c for c in ast.walk(stmt.value) if isinstance(c, ast.Call) and call_name(c) == func.name]  # type: ignore[union-attr]
        if not calls:
            continue
        if isinstance(stmt, ast.AugAssign) or isinstance(stmt, ast.Expr) and _handed([stmt], _text(calls[0]), False):
            return ret.lineno
        if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Subscript) for t in stmt.targets):
            return ret.lineno
        names = {w for t in stmt.targets for w in _words(t)} if isinstance(stmt, ast.Assign) else set()
        for name in names:
            uses = [n for n in walk_once(tree) if getattr(n, "lineno", 0) > stmt.lineno]
            if any(isinstance(n, ast.AugAssign) and _mentions(n.value, name) for n in uses) or _handed(
                    [u for u in uses if isinstance(u, ast.stmt)], name, False):
                return ret.lineno
    return None


def _rescored(after: list[ast.stmt], rows: list[str]) -> int | None:
    """A state loaded back after the loop, then the same rows read again: the kept epoch scored on its chooser."""
    loaded = None
    for n in sorted((c for s in after for c in ast.walk(s) if isinstance(c, ast.Call)), key=lambda c: c.lineno):
        if loaded is None and call_name(n) in _LOADS:
            loaded = n.lineno
        elif loaded is not None and n.lineno >= loaded and set(rows) & _words(n):
            return n.lineno
    return None


def _tested_elsewhere(tree: ast.Module, loop: ast.stmt, rows: list[str]) -> bool:
    """Another part named for testing is scored outside the loop, anywhere in the program (choose on validation,
    report the test: a later cell, the caller of the training function): handed to a call named for scoring
    (``evaluate(model, test_loader)``, ``confusion_matrix(y_test, ...)``; not ``predict``), or walked with its labels
    (``for images, labels in test_loader``)."""
    def other_test(node: ast.AST) -> bool:
        return any(_test_named(w) and w not in rows for w in _words(node))

    start, end = loop.lineno, loop.end_lineno or loop.lineno
    for n in tree_fact(tree, _scoring_sites):
        if start <= getattr(n, "lineno", 0) <= end:
            continue
        if isinstance(n, ast.Call) and any(other_test(a) for a in [*n.args, *(k.value for k in n.keywords)]):
            return True
        if isinstance(n, ast.For) and other_test(n.iter):
            return True
    return False


def _scoring_sites(tree: ast.AST) -> tuple[ast.Call | ast.For, ...]:
    """The calls named for scoring and the loops walking rows with their labels (``for x, y in loader``), in walk
    order: what :func:`_tested_elsewhere` reads, found once per tree rather than once per loop."""
    return tuple(n for n in walk_once(tree) if isinstance(n, ast.Call) and any(
        w in call_name(n).lower() for w in _SCORE_WORDS) or isinstance(n, ast.For) and isinstance(
        n.target, ast.Tuple) and len(n.target.elts) >= 2)


def _list_max(after_and_loop: list[ast.stmt], lst: str) -> int | None:
    """The line of the first ``max(lst)``, ``min(lst)``, ``lst[np.argmax(lst)]`` handed on (returned, printed,
    collected)."""
    for n in sorted((c for s in after_and_loop for c in ast.walk(s)), key=lambda c: getattr(c, "lineno", 0)):
        value = n.value if isinstance(n, ast.Return) else None
        if isinstance(n, ast.Call) and call_name(n) in _HANDS:
            value = ast.Tuple(elts=[*n.args, *(k.value for k in n.keywords)], ctx=ast.Load())
        if value is None:
            continue
        for c in (c for c in ast.walk(value) if isinstance(c, ast.Call)):
            if call_name(c) in ("max", "min", "argmax", "argmin", "amax", "amin", "nanmax", "nanmin") and c.args and \
                    _text(c.args[0]) == lst:
                return c.lineno
    return None


def _loops_with_after(tree: ast.Module) -> list[tuple[ast.stmt, list[ast.stmt]]]:
    """``(loop, the statements that run after it)`` for each loop of the module: the rest of the block holding it
    and of every block around it, up to its function (or the module)."""
    out: list[tuple[ast.stmt, list[ast.stmt]]] = []
    scopes: list[Any] = [tree, *(n for n in walk_once(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))]
    for scope in scopes:
        _collect(scope.body, [], out)
    return out


def _collect(body: list[ast.stmt], outer_after: list[ast.stmt], out: list) -> None:
    for i, stmt in enumerate(body):
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        after = body[i + 1:] + outer_after
        if isinstance(stmt, (ast.For, ast.While)):
            out.append((stmt, after))
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(stmt, field, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                _collect(inner, after, out)
        for handler in getattr(stmt, "handlers", []):
            _collect(handler.body, after, out)


def best_epochs(tree: ast.Module) -> list[BestEpoch]:
    """The epoch loops whose best held-out score is handed on (see the module docstring)."""
    out: list[BestEpoch] = []
    trainers = _trainers(tree)
    for loop, after in _loops_with_after(tree):
        if not _epoch_loop(loop, trainers):  # type: ignore[arg-type]
            continue
        for score, best, line in _running_best(loop):
            words = _slice(loop, score)
            rows = _held_words(words, score)
            if not rows or _training_score(score, words):
                continue
            handed = _handed(after, best, _test_named(rows[0])) or _rescored(after, rows) or _reported_by_caller(
                tree, loop, best)
            if handed is None or not _test_named(rows[0]) and (_tested_elsewhere(tree, loop, rows) or caller_validation(
                    tree, _enclosing_function(tree, loop.lineno), rows[0])):  # callers out of sight (valparams.py)
                continue
            out.append(BestEpoch(line, loop.lineno, loop.end_lineno or loop.lineno, best, rows[0], handed))
        for call in (c for c in _calls(loop.body) if call_name(c) == "append" and isinstance(c.func, ast.Attribute)
                     and len(c.args) == 1):
            lst, score = _text(call.func.value), _text(call.args[0])  # type: ignore[union-attr]
            words = _slice(loop, score)
            rows = _held_words(words | {score}, score)
            if not rows or _training_score(score, words):
                continue
            at = _list_max(after, lst) or _list_max(loop.body, lst)
            if at is None or not _test_named(rows[0]) and _tested_elsewhere(tree, loop, rows):
                continue
            out.append(BestEpoch(at, loop.lineno, loop.end_lineno or loop.lineno, f"max({lst})", rows[0], at))
    return sorted({b.line: b for b in out}.values(), key=lambda b: b.line)


def _in_loop_already(b: BestEpoch, smap: Any, findings: list) -> bool:
    """A ``tuned_on_test`` finding already stands inside the epoch loop (the test scoring call a candidate rule
    reported): the loop is one choice, reported once."""
    start, end = smap.where(b.loop), smap.where(b.loop_end)
    return any(f.kind == "tuned_on_test" and f.location.get("file") == start.get("file") and f.location.get(
        "index") == start.get("index") and start.get("line", 0) <= f.location.get("line", -1) <= end.get("line", 0)
        and start.get("index") == end.get("index") for f in findings)


def best_epoch_findings(tree: ast.Module, smap: Any, findings: list, function_at: Any) -> list:
    """:func:`best_epochs` as ``tuned_on_test`` findings, leaving out a line already reported so."""
    reported = ReportedLines(findings)
    out: list = []
    for b in best_epochs(tree):
        if _in_loop_already(b, smap, findings):
            continue
        out += reported.finding(
            "tuned_on_test", Severity.WARNING,
            f"the training loop ({smap.describe(b.loop)}) keeps the epoch whose score on `{b.rows}` is best, and "
            f"`{b.best}` is handed on as the result ({smap.describe(b.handed)}): the best of one score per epoch on "
            "the rows that chose the epoch is optimistic. Fix: choose the epoch on a validation part of the training "
            "rows and report the kept model's score on rows that took no part in the choice",
            {**smap.where(b.line), "function": function_at(tree, b.line)},
            {"best": b.best, "rows": b.rows, "loop": smap.where(b.loop), "handed_on": smap.where(b.handed)})
    return out
