"""A ``with lock:`` on the loop that waits for another holder of the same lock, which blocks while it holds it.

``check blocking`` leaves ``with lock:`` out in general (a short critical section is the common use; see
:mod:`~faultlib.detect.serving.blocking.brief_locks` for the explicit ``acquire()``). Entering the block calls the
lock's ``acquire()``, which waits for as long as another thread holds the lock
(https://docs.python.org/3/library/threading.html#threading.Lock.acquire: "block until the lock is unlocked";
"all of the objects provided by this module that have acquire and release methods can be used as context managers
for a with statement", https://docs.python.org/3/library/threading.html#using-locks-conditions-and-semaphores-in-the-with-statement).
When some other holder of that lock makes a blocking call while it holds it -- an idle timer's thread that stops a
worker process and joins it for up to five seconds under the lock -- the loop's ``with`` waits as long as that call
runs. Held-out wave 75: a translation service whose request path enters ``with self._lock:`` to start its worker,
while the idle-timeout thread holds the same lock across ``worker.stop()`` (``Process.join(timeout=5)``).

So ``with <lock>:`` in a function run on the loop is a ``blocking_task`` site when the lock is a
``threading.Lock``/``RLock`` (by its type) and another span holding it waits: the body of another ``with`` on the
lock, or the statements from an ``acquire()`` of it to the next ``release()`` in the same block -- or to the
statement that holds the release, as the ``try``/``finally`` of the library's own spelling ("``some_lock.acquire()``
/ ``try:`` ... ``finally: some_lock.release()``", the same section of the threading docs): what follows the ``try``
runs with the lock released. The holders read
are those :mod:`~faultlib.detect.serving.blocking.brief_locks` reads: one ``self.<attr>`` (or ``cls.<attr>``, a
class attribute) is held by the methods of that class, one module global by that module's functions -- those that
do not bind a local of the same name (a parameter, an assignment), which is another lock ("If a name is bound in a
block, it is a local variable of that block", Python reference, "Naming and binding"). A span waits
when one of its calls, or a function of the analysed files it runs (followed as from the loop), waits for another
thread or process, for a remote peer, or sleeps (:data:`LONG_WAITS`): a join, a queue or process wait, an HTTP
request, ``time.sleep`` -- a hold as long as something else takes. A hold across a file or database call is left
out: a store guarding its one SQLite connection with a lock around each statement (held-out wave 71's model server)
keeps it for one statement, and where the loop makes such calls itself they are reported where they are made.

The holder must run on another thread, or nothing can hold the lock while the loop waits for it: a holder only ever
called on the loop's own thread is done before the loop's ``with`` starts. The evidence read is that the holder, or
a function that calls it, is handed to a thread by a call of the analysed files -- a thread's
``target``, a ``threading.Timer``'s function, ``asyncio.to_thread``, ``run_in_executor``, an executor's ``submit``,
or a function of a class of the project's own that starts threads (a timer wrapping ``threading.Timer``; held-out
wave 75 above). A class whose every method takes the lock around its own database call (a store guarding one
SQLite connection) gives no alarm at the ``with``: its calls block where they are made, and no thread is seen
holding the lock (held-out wave 71: a document parser's model cache whose loader
runs under ``asyncio.to_thread`` holding the cache's ``RLock`` for the whole model load, while the next request's
constructor enters the same lock on the loop). Only the analysed code's locks are read: inside an installed library
the lock discipline is the library's (a progress display's refresh thread renders under its own lock).

Limits: a holder whose thread is started by a caller two calls up, or by a framework (a sync route run in a
thread pool), is not seen. A lock handed in from outside, or held by code outside its class or
module, is not read.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking import vocab
from faultlib.detect.serving.blocking.brief_locks import bare_call, statement_blocks
from faultlib.detect.serving.blocking.model import Func, binds_locally, dotted, nodes_of
from faultlib.detect.serving.blocking.sites import Site
from faultlib.detect.serving.blocking.wrappers import on_loop

__all__ = ["contended_locks"]

LOCK_TYPES = frozenset({"threading.Lock", "threading.RLock"})
_TRIES = tuple(getattr(ast, name) for name in ("Try", "TryStar") if hasattr(ast, name))
_THREADS = frozenset({"threading.Thread", "threading.Timer"})
_THREAD_METHODS = frozenset(vocab.OFFLOAD_METHODS)
"""Methods that run a function argument in a worker thread (``loop.run_in_executor(None, f)``, ``pool.submit(f)``)."""
LONG_WAITS = frozenset({"blocking_task", "blocking_subprocess", "blocking_sleep", "blocking_http",
                        "blocking_socket_io"})
"""The holders' blocking calls that count: waiting for another thread or process (a join, a queue, a process's
exit), for a remote peer, or sleeping -- for as long as something else takes (see the module docstring)."""


def contended_locks(reach, func: Func) -> list[Site]:
    """A site for each ``with <lock>:`` in ``func`` whose lock another span holds across a blocking call (see the
    module docstring); ``reach``: the :class:`~faultlib.detect.serving.blocking.reach.Reachability` walking it."""
    if getattr(reach.index.installed, "inside_library", False):
        return []
    found = []
    for statement in nodes_of(func, ast.With):
        for item in statement.items:
            lock = _lock_of(item.context_expr, func)
            if lock is None or reach.index.type_of(item.context_expr, func) not in LOCK_TYPES:
                continue
            held = _blocking_holder(reach, lock, func, statement)
            if held is not None:
                reach.__dict__.setdefault("_faultlib_lock_sites", set()).add(id(item.context_expr))
                holder, site = held
                found.append(Site("blocking_task", f"entering {ast.unparse(item.context_expr)} (a threading lock "
                                  f"{holder.qualname} holds across {site.what})", func, item.context_expr))
    return found


def _lock_of(expr: ast.expr, func: Func) -> tuple[object, tuple[str, ...]] | None:
    """``(owner, name)``: the class and the attribute of ``self.<attr>``/``cls.<attr>`` in a method, or the module and
    the name of a global; None for anything else."""
    parts = dotted(expr)
    if not parts:
        return None
    if len(parts) == 1:
        return None if _shadowed(func, parts[0]) else (func.module, (parts[0],))
    first = _first_parameter(func)
    if len(parts) == 2 and func.cls is not None and parts[0] == first:
        return (func.cls, ("self", parts[1]))
    return None


def _shadowed(func: Func, name: str) -> bool:
    """Whether ``name`` in ``func`` is a local of it or of a function it is nested in, not the module's global."""
    scope: Func | None = func
    while scope is not None:
        if binds_locally(scope, name):
            return True
        scope = scope.parent
    return False


def _first_parameter(func: Func) -> str | None:
    args = [*func.node.args.posonlyargs, *func.node.args.args]
    return args[0].arg if args else None


def _blocking_holder(reach, lock, func: Func, taken: ast.With) -> tuple[Func, Site] | None:
    """Another holder of ``lock`` and the wait (:data:`LONG_WAITS`) it reaches while holding it, or None; memoised
    per lock on the walk (a holder whose walk comes back to the same lock counts as not blocking there)."""
    owner, name = lock
    memo = reach.__dict__.setdefault("_faultlib_held_locks", {})
    key = (id(owner), name, id(taken))
    if key in memo:
        return memo[key]
    memo[key] = None
    scopes = list(owner.methods.values()) if name[0] == "self" else list(owner.all_functions)
    held = []
    walked = set(reach._memo)  # the holders run off the loop: what their walk memoises is forgotten after it (the
    for scope in scopes:  # walked functions are taken as run on the loop by the branch filters)
        if (name[0] == "self" and scope.parent is not None) or (name[0] != "self" and _shadowed(scope, name[0])):
            continue  # a nested function's `self` is another object; a local `lock` another lock
        if not _threaded(reach, scope):
            continue
        spelt = [_first_parameter(scope), name[1]] if name[0] == "self" else list(name)
        sites = [site for span in _spans(scope, spelt, taken) for call in _calls(span)
                 for site in _reached(reach, call, scope)]
        held += [(scope, site) for site in sites if site.kind in LONG_WAITS]
    for added in set(reach._memo) - walked:
        del reach._memo[added]
    if held:
        memo[key] = held[0]
    return memo[key]


def _reached(reach, call: ast.Call, scope: Func) -> list[Site]:
    """The blocking site ``call`` is, or the sites the functions of the analysed files it runs reach (a wait on
    another lock there left out: it is what this rule reports, not work done under the lock)."""
    site = reach._blocking(call, scope, False)
    if site is not None:
        return [site]
    ours = reach.__dict__.setdefault("_faultlib_lock_sites", set())
    return [inner for target in on_loop(reach.index, reach._followed(call, scope, scope.cls))
            for inner, _ in reach._reach(target, receiver=scope.cls) if id(inner.node) not in ours]


def _threaded(reach, holder: Func) -> bool:
    """Whether ``holder``, or a function of the analysed files that calls it, is handed to a thread (see the module
    docstring)."""
    index = reach.index
    if _handed_to_thread(reach, holder):
        return True
    return any(_handed_to_thread(reach, caller) for call, caller in index.infer.sites().get(holder.node.name, [])
               if caller is not holder and index.callee(call.func, caller) is holder)


def _handed_to_thread(reach, func: Func) -> bool:
    """Whether a call of the analysed files passes ``func`` (``f``, ``self.f``, ``partial(f, ...)``, resolved to it)
    to something that runs it in another thread: ``threading.Thread``/``Timer``, an offloading call
    (:data:`~faultlib.detect.serving.blocking.vocab.OFFLOAD`, ``run_in_executor``, ``submit``), or a function of a
    class or module of the analysed files that starts threads itself (a project's own timer). ``x.submit(f)`` counts
    only on an executor, as where the loop offloads (:meth:`~faultlib.detect.serving.blocking.body_calls.BodyCalls.
    _is_executor`): a project's own queue whose ``submit`` keeps the job for the loop to run is no thread."""
    index = reach.index
    for call, caller, arg in _arguments(index).get(func.node.name, []):
        if index.callee(arg, caller) is not func:
            continue
        last = (dotted(call.func) or [""])[-1]
        if last in _THREAD_METHODS and isinstance(call.func, ast.Attribute) and (
                last != "submit" or reach._is_executor(call, caller)):
            return True
        target = index.callee(call.func, caller)
        if isinstance(target, str) and (target in _THREADS or target in vocab.OFFLOAD):
            return True
        if isinstance(target, Func) and id(target.cls or target.module) in _thread_owners(index):
            return True
    return False


def _arguments(index) -> dict[str, list[tuple[ast.Call, Func, ast.expr]]]:
    """Every call of the analysed files by the names of the functions it passes as arguments, with the caller and the
    argument (once per index)."""
    memo = index.__dict__.get("_faultlib_passed_functions")
    if memo is None:
        memo = index.__dict__["_faultlib_passed_functions"] = {}
        for calls in index.infer.sites().values():
            for call, caller in calls:
                for arg in [*call.args, *(k.value for k in call.keywords)]:
                    if isinstance(arg, ast.Call) and (dotted(arg.func) or [""])[-1] == "partial" and arg.args:
                        arg = arg.args[0]
                    named = arg.id if isinstance(arg, ast.Name) else arg.attr if isinstance(arg, ast.Attribute) else None
                    if named is not None:
                        memo.setdefault(named, []).append((call, caller, arg))
    return memo


def _thread_owners(index) -> set[int]:
    """The ids of the classes (or, for plain functions, modules) of the analysed files that start a thread."""
    memo = index.__dict__.get("_faultlib_thread_owners")
    if memo is None:
        memo = index.__dict__["_faultlib_thread_owners"] = set()
        sites = index.infer.sites()
        for last in ("Thread", "Timer"):
            for call, caller in sites.get(last, []):
                if index.callee(call.func, caller) in _THREADS:
                    memo.add(id(caller.cls or caller.module))
    return memo


def _spans(scope: Func, lock: list[str], taken: ast.With) -> list[list[ast.stmt]]:
    """The statement lists that hold ``lock`` in ``scope``, the body of ``taken`` left out."""
    found = []
    for block in statement_blocks(scope.node):
        for i, statement in enumerate(block):
            if isinstance(statement, ast.With) and statement is not taken and any(
                    dotted(item.context_expr) == lock for item in statement.items):
                found.append(statement.body)
            if bare_call(statement, lock, "acquire"):
                found.append(block[i + 1:_released(block, i, lock)])
    return found


def _released(block: list[ast.stmt], start: int, lock: list[str]) -> int:
    """The end of the span an ``acquire()`` at ``block[start]`` opens: the next bare ``release()`` of ``lock`` (left
    out), or the next ``try`` whose ``finally`` releases it (kept: its body runs held); else the end of the block. A
    release on one branch only (``if failed: lock.release(); return``) does not end the span."""
    for j in range(start + 1, len(block)):
        statement = block[j]
        if bare_call(statement, lock, "release"):
            return j
        if isinstance(statement, _TRIES) and any(bare_call(s, lock, "release") for s in statement.finalbody):
            return j + 1
    return len(block)


def _calls(span: list[ast.stmt]) -> list[ast.Call]:
    """The calls of ``span``'s statements, nested functions and lambdas left out (they run when called)."""
    found = []
    todo: list[ast.AST] = list(span)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, ast.Call):
            found.append(node)
        todo.extend(ast.iter_child_nodes(node))
    return sorted(found, key=lambda c: (c.lineno, c.col_offset))
