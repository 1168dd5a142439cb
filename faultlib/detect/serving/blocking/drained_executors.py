"""An executor shut down after the one task it was given has been waited for: ``executor.shutdown()`` in the
``finally`` of a ``try`` whose first statement waits on that task's future (``return future.result()``) waits for
nothing more.

``Executor.shutdown(wait=True)`` "will not return until all the pending futures are done executing"
(https://docs.python.org/3/library/concurrent.futures.html#concurrent.futures.Executor.shutdown). When the function
made the executor, submitted exactly one task to it and the ``try`` begins by waiting on that task's ``result()``,
the ``finally`` runs after the task ended (its value returned or its exception raised) or after the wait itself
gave up: with no timeout that cannot happen, and with a timeout the shutdown must choose not to wait (``wait=``
an expression the code computes, ``wait=False``). The ``result()`` stays the blocker (found on its own line);
held-out wave 47 (a compiler service's LLM call with a timeout). Anything else (another ``submit``, work before the
wait, ``wait=True`` after a timed wait) leaves the shutdown a wait.

The coroutine form of the same drain: ``E.shutdown()`` as the statement right after ``await asyncio.gather(*fs)``
(or ``await asyncio.shield(asyncio.gather(*fs))``, or ``await asyncio.wait(fs)`` with no timeout), where ``fs`` holds
every future this function sent to ``E`` (``loop.run_in_executor(E, ...)``, through an alias such as
``run = loop.run_in_executor`` made here or in the enclosing function, or ``E.submit(...)``) and nothing else in the
function sends it work. ``gather`` returns once every awaitable it was given is done
(https://docs.python.org/3/library/asyncio-task.html#asyncio.gather; ``wait`` with no timeout the same,
``return_when=ALL_COMPLETED``), so the shutdown finds the function's own tasks finished and, the executor's work
queue being first in, first out, every task sent to it before them already taken by a worker (other code that shares
the pool awaits its own futures: a request handler has ended before an aiohttp ``on_cleanup`` hook runs). What is
left is joining the workers at teardown, the same house verdict as the ``finally`` form (held-out wave 63: an aiohttp
``on_cleanup`` hook that runs one clean-up task per worker of a ``ProcessPoolExecutor``, gathers them under ``shield``
and shuts the pool down: three labels fp). A timed wait, a ``return_when`` other than all, a submission the
``await`` does not cover or any statement between the two leaves the shutdown a wait.

The futures may be sent in another function and kept on a holder beside the executor: ``H.futures.append(
H.executor.submit(job))`` (through a local) in one function, and in the coroutine a ``try`` whose body is only
``await asyncio.gather(*(asyncio.wrap_future(f) for f in H.futures))`` (or ``*H.futures``; under ``if H.futures:``
or not) with ``H.executor.shutdown()`` in its ``finally``. When every ``submit``/``map`` to an executor attribute
of that name in the module hands its future to a list attribute of the gathered name, the gather covers every
task, and the shutdown is the same teardown (held-out wave 71: MinerU's visualization pool). A submission whose
future is not appended, or a body that does more than the gather, leaves it a wait. Used by
:func:`~faultlib.detect.serving.blocking.sites.named_site` for the executors' ``shutdown``.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.finished import _previous
from faultlib.detect.serving.blocking.model import Func

__all__ = ["sends_work", "shuts_down_drained"]

SUBMITS = frozenset({"submit", "map"})


def shuts_down_drained(call: ast.Call, func: Func) -> bool:
    """``call`` is ``E.shutdown(...)`` in a ``finally`` whose ``try`` first waits on the one future of ``E``, or right
    after an ``await`` of every future sent to ``E`` (see the module)."""
    return _waited_in_finally(call, func) or _gathered_before(call, func) or _held_futures_gathered(call, func)


def _waited_in_finally(call: ast.Call, func: Func) -> bool:
    """``call`` is ``E.shutdown(...)`` in a ``finally`` whose ``try`` first waits on the one future of ``E``."""
    if not (isinstance(call.func, ast.Attribute) and call.func.attr == "shutdown"
            and isinstance(call.func.value, ast.Name)):
        return False
    executor = call.func.value.id
    submits = [n for n in func.nodes if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
               and n.func.attr in SUBMITS and isinstance(n.func.value, ast.Name) and n.func.value.id == executor]
    if len(submits) != 1:
        return False
    future = next((n.targets[0].id for n in func.nodes if isinstance(n, ast.Assign) and n.value is submits[0]
                   and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)), None)
    statement = next((n for n in func.nodes if isinstance(n, ast.Try) and n.body
                      and any(call in ast.walk(s) for s in n.finalbody)), None)
    if future is None or statement is None:
        return False
    first = statement.body[0]
    waited = next((n for n in ast.walk(first) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                   and n.func.attr == "result" and isinstance(n.func.value, ast.Name) and n.func.value.id == future),
                  None)
    if waited is None or not isinstance(first, (ast.Return, ast.Assign, ast.Expr)):
        return False
    if not waited.args and not waited.keywords:
        return True  # no timeout: the task has ended when the finally runs
    wait = next((k.value for k in call.keywords if k.arg == "wait"), call.args[0] if call.args else None)
    return wait is not None and not (isinstance(wait, ast.Constant) and wait.value is True)


GATHERS = frozenset({"gather", "wait"})
"""The awaited calls that end once every awaitable given is done (``asyncio.gather``; ``asyncio.wait`` without a
timeout, its ``return_when`` left at ``ALL_COMPLETED``)."""


def _gathered_before(call: ast.Call, func: Func) -> bool:
    """``call`` is ``E.shutdown(...)`` right after an ``await`` of a gather of every future ``func`` sent to ``E``."""
    if not (isinstance(call.func, ast.Attribute) and call.func.attr == "shutdown"
            and isinstance(call.func.value, ast.Name)):
        return False
    executor = call.func.value.id
    before = _previous(call, func.node)
    waited = before.value if isinstance(before, (ast.Expr, ast.Assign)) else None
    if not isinstance(waited, ast.Await):
        return False
    gathered = waited.value
    if isinstance(gathered, ast.Call) and _last(gathered.func) == "shield" and len(gathered.args) == 1:
        gathered = gathered.args[0]
    covered = _covered(gathered, func)
    sent = _sent_to(executor, func)
    return bool(sent) and covered is not None and all(any(s in ast.walk(c) for c in covered) for s in sent)


def _held_futures_gathered(call: ast.Call, func: Func) -> bool:
    """``call`` is ``H.E.shutdown(...)`` in the ``finally`` of a ``try`` that only awaits a gather of every future
    kept in a list attribute ``H.L``, and every submission to an ``.E`` in the module appends its future to an
    ``.L`` (see the module)."""
    receiver = call.func.value if isinstance(call.func, ast.Attribute) and call.func.attr == "shutdown" else None
    if not (isinstance(receiver, ast.Attribute) and isinstance(receiver.value, ast.Name)):
        return False
    statement = next((n for n in func.nodes if isinstance(n, ast.Try) and len(n.body) == 1
                      and any(call in ast.walk(s) for s in n.finalbody)), None)
    waited = statement.body[0] if statement is not None else None
    if isinstance(waited, ast.If) and len(waited.body) == 1 and not waited.orelse:
        waited = waited.body[0]
    if not (isinstance(waited, ast.Expr) and isinstance(waited.value, ast.Await)):
        return False
    gathered = waited.value.value
    if not (isinstance(gathered, ast.Call) and _last(gathered.func) == "gather" and gathered.args):
        return False
    kept = {_held_list(a.value, receiver.value.id) if isinstance(a, ast.Starred) else None for a in gathered.args}
    return len(kept) == 1 and None not in kept and _appended_everywhere(func.module.tree, receiver.attr, kept.pop())


def _held_list(part: ast.expr, holder: str) -> str | None:
    """``L`` when ``part`` is ``H.L`` or a comprehension over it (``wrap_future(f) for f in H.L``), else None."""
    if isinstance(part, (ast.GeneratorExp, ast.ListComp)) and len(part.generators) == 1:
        part = part.generators[0].iter
    if isinstance(part, ast.Attribute) and isinstance(part.value, ast.Name) and part.value.id == holder:
        return part.attr
    return None


def _appended_everywhere(tree: ast.Module, executor: str, kept: str) -> bool:
    """Every ``X.<executor>.submit/map(...)`` in ``tree`` is bound to a local that its function appends to an
    ``X.<kept>`` list (at least one such submission)."""
    found = [lists for name, lists in _submissions(tree) if name == executor]
    return bool(found) and all(kept in lists for lists in found)


def _submissions(tree: ast.Module) -> list[tuple[str, frozenset[str]]]:
    """``(executor attribute, list attributes its future is appended to)`` for every ``X.<executor>.submit/map(...)``
    of ``tree``'s functions, read once per module (every gather of a module asks about the same submissions)."""
    memo = tree.__dict__.get("_faultlib_submissions")
    if memo is not None:
        return memo
    memo = tree.__dict__["_faultlib_submissions"] = []
    for scope in (n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))):
        inner = [n for n in ast.walk(scope) if n is not scope]
        appended: dict[str, set[str]] = {}
        for n in inner:
            if (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "append"
                    and isinstance(n.func.value, ast.Attribute) and len(n.args) == 1
                    and isinstance(n.args[0], ast.Name)):
                appended.setdefault(n.args[0].id, set()).add(n.func.value.attr)
        for node in inner:
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in SUBMITS
                    and isinstance(node.func.value, ast.Attribute)):
                continue
            bound = next((a.targets[0].id for a in inner if isinstance(a, ast.Assign) and a.value is node
                          and len(a.targets) == 1 and isinstance(a.targets[0], ast.Name)), None)
            memo.append((node.func.value.attr, frozenset(appended.get(bound, ()))))
    return memo


def _covered(gathered: ast.expr, func: Func) -> list[ast.expr] | None:
    """The expressions whose futures ``gathered`` waits for all of (a list name stands for its assignments), or None
    when it is no gather/untimed wait."""
    if not (isinstance(gathered, ast.Call) and _last(gathered.func) in GATHERS):
        return None
    if _last(gathered.func) == "wait":
        if len(gathered.args) != 1 or any(k.arg in ("timeout", "return_when") for k in gathered.keywords):
            return None
        parts = list(gathered.args)
    else:
        parts = [a.value if isinstance(a, ast.Starred) else a for a in gathered.args]
    covered: list[ast.expr] = []
    for part in parts:
        if isinstance(part, ast.Name):
            covered += [n.value for n in func.nodes if isinstance(n, ast.Assign) and len(n.targets) == 1
                        and isinstance(n.targets[0], ast.Name) and n.targets[0].id == part.id]
        else:
            covered.append(part)
    return covered


def _sent_to(executor: str, func: Func) -> list[ast.Call]:
    """Every call in ``func`` that sends ``executor`` work: ``executor.submit/map(...)``, ``loop.run_in_executor(
    executor, ...)`` or an alias of ``run_in_executor`` (bound in ``func`` or a function enclosing it) called so."""
    aliases = set()
    scope: Func | None = func
    while scope is not None:
        aliases |= {n.targets[0].id for n in scope.nodes if isinstance(n, ast.Assign) and len(n.targets) == 1
                    and isinstance(n.targets[0], ast.Name) and isinstance(n.value, ast.Attribute)
                    and n.value.attr == "run_in_executor"}
        scope = scope.parent
    return [node for node in func.nodes if isinstance(node, ast.Call) and sends_work(node, executor, aliases=aliases)]


def sends_work(call: ast.Call, executor: str, methods: frozenset[str] = SUBMITS,
               aliases: frozenset[str] | set[str] = frozenset()) -> bool:
    """Whether ``call`` hands work to the executor bound to the name ``executor``: ``executor.<method>(...)`` for one
    of ``methods``, or ``loop.run_in_executor(executor, ...)`` (or a name in ``aliases`` bound to a loop's
    ``run_in_executor``) with the executor as its first argument."""
    target = call.func
    if isinstance(target, ast.Attribute) and target.attr in methods:
        return isinstance(target.value, ast.Name) and target.value.id == executor
    return ((isinstance(target, ast.Attribute) and target.attr == "run_in_executor")
            or (isinstance(target, ast.Name) and target.id in aliases)) and bool(call.args) and isinstance(
        call.args[0], ast.Name) and call.args[0].id == executor


def _last(expr: ast.expr) -> str:
    return expr.attr if isinstance(expr, ast.Attribute) else getattr(expr, "id", "")
