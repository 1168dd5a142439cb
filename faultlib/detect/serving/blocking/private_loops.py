"""Coroutines that run on a private event loop in a worker thread, never on the server's: not entries.

A sync function handed to a worker thread (``run_in_threadpool``, ``asyncio.to_thread``, ``run_in_executor``, an
executor's ``submit``, ``threading.Thread(target=...)``) that drives a coroutine with ``loop.run_until_complete(
coro(...))`` runs that coroutine on a loop of its own, in that thread: whatever it blocks is that one call's thread
(cheshire-cat-ai/core: ``StrayCat.run`` makes ``asyncio.new_event_loop()`` per session and is itself handed to
``run_in_threadpool`` by both message routes). ``run_until_complete`` cannot run a loop that is already running, so
such a coroutine is never on the server's loop while it serves. Such a coroutine is private when every call of it
in the analysed files is such a drive, and so is a coroutine every call of which is made inside private coroutines
(awaited there: the same private loop). Textual's thread workers (``@work(thread=True)`` on an ``async def``,
:mod:`~faultlib.detect.serving.blocking.thread_workers`) are private from the start: Textual drives each with
``asyncio.run`` in its worker thread; so are coroutines the program's own scheduler steps by hand
(:mod:`~faultlib.detect.serving.blocking.driven_coroutines`: no loop at all). A coroutine nothing in the analysed
files calls stays an entry (a framework calls it), and so does one also awaited from anywhere else.
``asyncio.run``/``run_until_complete`` in a function that is not handed to a thread may be the program's main loop: no
exemption; a plain ``def`` called only from such thread bodies runs in the thread too, and the drive of a base method
runs its subclasses' overrides (:mod:`~faultlib.detect.serving.blocking.thread_reach`). Used by
:func:`~faultlib.detect.serving.blocking.analyze_sources` after the walk (a finding every entry of which is
private is left out): computed before it, the callee lookups here would settle types the walk had not finished.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking import vocab
from faultlib.detect.serving.blocking.driven_coroutines import driven_coroutines
from faultlib.detect.serving.blocking.model import Func
from faultlib.detect.serving.blocking.flask_views import flask_async_view
from faultlib.detect.serving.blocking.thread_reach import (loop_drives, may_run, namesakes, only_in_threads,
                                                              overrides)
from faultlib.detect.serving.blocking.thread_workers import thread_worker

__all__ = ["private_coroutines", "private_entries"]

MAX_ROUNDS = 16
THREAD_STARTERS = frozenset({"threading.Thread"})
_LAST = frozenset({n.rpartition(".")[2] for n in [*vocab.OFFLOAD, *THREAD_STARTERS]} | set(vocab.OFFLOAD_METHODS))


def private_coroutines(index) -> frozenset[int]:
    """``id``s of the coroutines of the analysed files that only run on a worker thread's own loop (computed once
    per index)."""
    found = getattr(index, "_private_coroutines", None)
    if found is None:
        found = index._private_coroutines = frozenset(_compute(index))
    return found


def private_entries(index) -> frozenset[tuple[str, str]]:
    """``(module path, qualified name)`` of each private coroutine (see :func:`private_coroutines`)."""
    private = private_coroutines(index)
    if not private:
        return frozenset()
    return frozenset((f.module.path, f.qualname) for m in index.distinct_modules() for f in m.all_functions
                     if id(f) in private)


def _compute(index) -> set[int]:
    sites = index.infer.sites()
    drives = loop_drives(index, sites)  # run_until_complete, asyncio.run
    submitted = _thread_loop_submits(index, sites)
    workers = [f for m in index.distinct_modules() for f in m.all_functions if f.is_async and (thread_worker(index, f) or flask_async_view(index, f))]
    workers += driven_coroutines(index)  # stepped by the program's own scheduler, in sync code: no loop at all
    if not drives and not workers and not submitted:
        return set()
    threaded = _threaded(index, sites) if drives else set()
    driven: set[int] = set()  # the coroutine calls passed to run_until_complete in threaded functions
    candidates: dict[int, Func] = {}
    private: set[int] = set()
    untyped: set[int] = set()  # candidates found by their method name alone (thread_reach.namesakes)
    for call, target in submitted:  # run_coroutine_threadsafe onto a loop whose run_forever is a thread's target
        driven.add(id(call))
        candidates[id(target)] = target
    for worker in workers:  # Textual's @work(thread=True) coroutine (asyncio.run in the worker's thread), a driven one
        private.add(id(worker))
        candidates.update(_awaited(index, worker, private))
    for call, caller in drives:  # in a function only run in worker threads (thread_reach.py)
        if call.args and isinstance(call.args[0], ast.Call) and only_in_threads(index, sites, threaded, caller):
            target = index.callee(call.args[0].func, caller)
            if isinstance(target, Func) and target.is_async:
                driven.add(id(call.args[0]))
                for each in [target, *(o for o in overrides(index, target) if o.is_async)]:  # self.m() in a base method runs the override
                    candidates[id(each)] = each
            elif target is None and (named := namesakes(index, call.args[0], caller)):  # self.provider.m(): any m
                driven.add(id(call.args[0]))
                untyped.update(id(each) for each in named)
                candidates.update((id(each), each) for each in named)
    for _ in range(MAX_ROUNDS):
        grown = False
        for target in list(candidates.values()):
            if id(target) in private:
                continue
            calls = [(c, f) for c, f in sites.get(target.node.name, []) if may_run(index, c, f, target, id(target) in untyped)]
            if calls and all(id(c) in driven or id(f) in private for c, f in calls):
                private.add(id(target))
                grown = True
                for key, inner in _awaited(index, target, private).items():  # what it awaits may be private too
                    candidates.setdefault(key, inner)
        if not grown:
            break
    return private


def _awaited(index, coroutine: Func, private: set[int]) -> dict[int, Func]:
    """The coroutines of the analysed files ``coroutine`` calls, not yet known private, by ``id``."""
    found = {}
    for node in coroutine.nodes:
        if isinstance(node, ast.Call):
            inner = index.callee(node.func, coroutine)
            if isinstance(inner, Func) and inner.is_async and id(inner) not in private:
                found[id(inner)] = inner
    return found


def _threaded(index, sites) -> set[int]:
    """``id``s of the functions handed to a worker thread anywhere in the analysed files."""
    found: set[int] = set()
    for name in _LAST:
        for call, caller in sites.get(name, []):
            target = index.callee(call.func, caller)
            arg = None
            if isinstance(target, str) and target in vocab.OFFLOAD and len(call.args) > vocab.OFFLOAD[target]:
                arg = call.args[vocab.OFFLOAD[target]]
            elif isinstance(target, str) and target in THREAD_STARTERS:
                arg = next((k.value for k in call.keywords if k.arg == "target"), None)
            elif isinstance(call.func, ast.Attribute) and call.func.attr in vocab.OFFLOAD_METHODS:
                position = vocab.OFFLOAD_METHODS[call.func.attr]
                arg = call.args[position] if len(call.args) > position else None
            handed = index.callee(arg, caller) if arg is not None else None
            if isinstance(handed, Func):
                found.add(id(handed))
    return found


def _thread_loop_submits(index, sites) -> list[tuple[ast.Call, Func]]:
    """``(coroutine call, coroutine)`` for each ``asyncio.run_coroutine_threadsafe(coro(...), loop)`` whose ``loop``
    is, in the same class (or module), the loop of a ``threading.Thread(target=loop.run_forever)``: the coroutine runs
    on that thread's own loop (https://docs.python.org/3/library/asyncio-task.html#asyncio.run_coroutine_threadsafe:
    "Submit a coroutine to the given event loop"; vllm-project/production-stack: a health check on
    ``self.loop = asyncio.new_event_loop()`` run by ``threading.Thread(target=self.loop.run_forever)``). A loop the
    analysed files never hand to a thread may be the server's own loop: no exemption."""
    submits = sites.get("run_coroutine_threadsafe", [])
    if not submits:
        return []
    thread_loops: set[tuple[str, str, str]] = set()
    for call, caller in sites.get("Thread", []):
        if index.callee(call.func, caller) not in THREAD_STARTERS:
            continue
        target = next((k.value for k in call.keywords if k.arg == "target"), None)
        if isinstance(target, ast.Attribute) and target.attr == "run_forever":
            thread_loops.add(_loop_key(caller, target.value))
    found = []
    for call, caller in submits:
        if len(call.args) < 2 or not isinstance(call.args[0], ast.Call):
            continue
        if _loop_key(caller, call.args[1]) not in thread_loops:
            continue
        target = index.callee(call.args[0].func, caller)
        if isinstance(target, Func) and target.is_async:
            found.append((call.args[0], target))
    return found


def _loop_key(func: Func, loop: ast.expr) -> tuple[str, str, str]:
    """A loop expression named alike in one class of one module (``self.loop`` in two classes are two loops)."""
    owner = func.qualname.rpartition(".")[0] if isinstance(loop, ast.Attribute) else func.qualname
    return (func.module.path, owner, ast.unparse(loop))
