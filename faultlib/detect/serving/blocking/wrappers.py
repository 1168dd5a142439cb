"""Decorators that move the decorated function off the loop: calling the function runs its body in a worker thread.

Two shapes: a library decorator that runs its function in a thread pool (``asyncer.asyncify``, asgiref's
``sync_to_async``: https://asyncer.tiangolo.com/tutorial/asyncify/, https://docs.djangoproject.com/en/stable/topics/
async/#sync-to-async, and Django Channels' ``database_sync_to_async``, its subclass that also closes stale database
connections: https://channels.readthedocs.io/en/stable/topics/databases.html#database-sync-to-async; Tornado's
``run_on_executor``: https://www.tornadoweb.org/en/stable/concurrent.html#tornado.concurrent.run_on_executor;
fastapi-utils' periodic ``repeat_every``: its ``fastapi_utils/tasks.py`` awaits a coroutine function and hands
any other to starlette's ``run_in_threadpool``, https://fastapi-utils.davidmontague.xyz/user-guide/repeated-tasks/),
and a decorator written in the analysed files whose wrapper is an ``async def`` handing the
decorated function (itself, ``functools.partial(fn, ...)`` of it, or a lambda calling it) to ``run_in_executor``,
``asyncio.to_thread`` or another offloading call of :data:`~faultlib.detect.serving.blocking.vocab.OFFLOAD`, or a plain
``def`` wrapper that *returns* that call (the caller awaits the future or coroutine it gets; ray-llm's ``make_async``),
the function given by position or as ``func=``::

    def async_wrap(fn):
        @wraps(fn)
        async def run(*args, **kwargs):
            return await asyncio.get_event_loop().run_in_executor(None, partial(fn, *args, **kwargs))
        return run

A wrapper that calls the function itself (``return fn(*args)``) keeps it on the loop. A third shape, a UI framework's
thread worker (Textual's ``@work(thread=True)``), is :mod:`~faultlib.detect.serving.blocking.thread_workers`', and a
fourth, a plain ``def`` LangGraph's functional API runs as a task,
:mod:`~faultlib.detect.serving.blocking.langgraph_tasks`'. Used by
:mod:`~faultlib.detect.serving.blocking.reach`: such a function is no callee of the loop.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking import vocab
from faultlib.detect.serving.blocking.langgraph_tasks import threaded_task
from faultlib.detect.serving.blocking.model import Func, dotted
from faultlib.detect.serving.blocking.thread_workers import thread_worker

__all__ = ["hands_off", "on_loop", "runs_off_loop"]

LIBRARY_WRAPPERS = frozenset({"asyncer.asyncify", "asgiref.sync.sync_to_async", "tornado.concurrent.run_on_executor",
                              "fastapi_utils.tasks.repeat_every", "channels.db.database_sync_to_async"})


def on_loop(index, funcs: list[Func]) -> list[Func]:
    """``funcs`` less those whose decorator runs them in a worker thread."""
    return [f for f in funcs if not runs_off_loop(index, f)]


def runs_off_loop(index, func: Func) -> bool:
    """``func`` is decorated so that calling it runs its body in a worker thread (see the module docstring).
    Memoised on ``func``."""
    if func._off_loop is None:
        func._off_loop = (any(_offloading_decorator(index, d, func) for d in func.node.decorator_list)
                          or thread_worker(index, func) or threaded_task(index, func))
    return func._off_loop


def _offloading_decorator(index, decorator: ast.expr, func: Func) -> bool:
    if isinstance(decorator, ast.Call):  # @sync_to_async(thread_sensitive=False): the factory's result decorates
        decorator = decorator.func
        target = index.callee(decorator, func)
        return isinstance(target, str) and target in LIBRARY_WRAPPERS
    target = index.callee(decorator, func)
    if isinstance(target, str):
        return target in LIBRARY_WRAPPERS or target in vocab.OFFLOAD
    if not isinstance(target, Func) or target.is_async or not target.node.args.args:
        return False
    wrapped = target.node.args.args[0].arg
    return any(_hands_off(index, call, wrapped, f) for f in target.nested.values() for call in _offers(f))


def hands_off(index, func: Func, name: str) -> bool:
    """``func`` hands its parameter ``name`` (itself, a ``partial`` of it, a lambda calling it, or a local bound to one)
    to ``run_in_executor`` or an offloading call of :data:`~faultlib.detect.serving.blocking.vocab.OFFLOAD` (any call
    of an ``async def``, a ``return``'s call of a plain ``def``), and never calls ``name(...)`` itself: what a caller
    passes for ``name`` runs in a worker thread. Memoised on ``func``."""
    memo = func._hands_off
    if name not in memo:
        memo[name] = (any(_hands_off(index, call, name, func) for call in _offers(func))
                      and not any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == name
                                  for n in func.nodes))
    return memo[name]


def _offers(wrapper: Func) -> list[ast.Call]:
    """The calls of a nested wrapper that may hand the function off: any call of an ``async def`` wrapper (it awaits
    them), only a ``return``'s call of a plain ``def`` one (its caller awaits the future it returns)."""
    if wrapper.is_async:
        return [n for n in wrapper.nodes if isinstance(n, ast.Call)]
    return [n.value for n in wrapper.nodes if isinstance(n, ast.Return) and isinstance(n.value, ast.Call)]


def _hands_off(index, call: ast.Call, wrapped: str, wrapper: Func) -> bool:
    """``call``, in the decorator's wrapper, runs ``wrapped`` (the decorated function) in a thread."""
    if isinstance(call.func, ast.Attribute) and call.func.attr == "run_in_executor":
        position = vocab.OFFLOAD_METHODS["run_in_executor"]
    else:
        target = index.callee(call.func, wrapper)
        if not (isinstance(target, str) and target in vocab.OFFLOAD):
            return False
        position = vocab.OFFLOAD[target]
    if len(call.args) > position:
        return _runs(call.args[position], wrapped, wrapper)
    given = [k.value for k in call.keywords if k.arg == "func"]  # loop.run_in_executor(executor=None, func=job)
    return bool(given) and _runs(given[0], wrapped, wrapper)


def _runs(arg: ast.expr, wrapped: str, wrapper: Func, depth: int = 0) -> bool:
    """``arg`` is the wrapped function, a ``partial`` of it, a lambda calling it, or a local bound to one of those."""
    if isinstance(arg, ast.Name):
        if arg.id == wrapped:
            return True
        bound = [n.value for n in wrapper.nodes if isinstance(n, ast.Assign) and len(n.targets) == 1
                 and isinstance(n.targets[0], ast.Name) and n.targets[0].id == arg.id]
        return depth < 2 and len(bound) == 1 and _runs(bound[0], wrapped, wrapper, depth + 1)
    if isinstance(arg, ast.Call) and (dotted(arg.func) or [""])[-1] == "partial" and arg.args:
        return isinstance(arg.args[0], ast.Name) and arg.args[0].id == wrapped
    if isinstance(arg, ast.Lambda) and isinstance(arg.body, ast.Call):
        return isinstance(arg.body.func, ast.Name) and arg.body.func.id == wrapped
    return False
