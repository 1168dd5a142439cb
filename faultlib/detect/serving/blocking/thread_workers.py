"""Functions a UI framework's decorator runs as thread workers: Textual's ``@work(thread=True)``.

Textual's ``work`` decorator turns a method into a worker the app starts when the method is called; with
``thread=True`` the worker is a thread worker ("thread: Mark the method as a thread worker",
https://textual.textualize.io/api/work/; "Thread workers", https://textual.textualize.io/guide/workers/#thread-workers).
A thread worker made of an ``async def`` runs its coroutine to the end on an event loop of its own, in that thread
(``Worker._run_threaded`` in textual/worker.py hands it to ``asyncio.run``), and one made of a plain ``def`` runs it
there directly: either way the body never runs on the app's loop, so what it blocks is that worker's thread. Calling
the decorated method returns the ``Worker`` at once. ``@work`` without ``thread=True`` (or ``thread=False``) runs an
``async def`` as a task on the app's own loop: still an entry.

No other library in the vocabulary decorates a *coroutine* to run it in a thread: ``asyncer.asyncify``
(https://asyncer.tiangolo.com/tutorial/asyncify/: "a blocking regular callable"), asgiref's ``sync_to_async`` and
Tornado's ``run_on_executor`` take plain functions (:mod:`~faultlib.detect.serving.blocking.wrappers`), and
starlette's ``run_in_threadpool`` is a call, not a decorator. Used by
:func:`~faultlib.detect.serving.blocking.callers.loop_entry` (such a coroutine is no entry) and
:func:`~faultlib.detect.serving.blocking.wrappers.runs_off_loop` (such a plain ``def`` is no callee of the loop).
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func

__all__ = ["THREAD_WORKER_DECORATORS", "thread_worker"]

THREAD_WORKER_DECORATORS = frozenset({"textual.work", "textual._work_decorator.work"})
"""Textual's ``work`` by the names it is imported under (the package exports the one of ``_work_decorator``)."""


def thread_worker(index, func: Func) -> bool:
    """``func`` is decorated ``@work(thread=True)`` (Textual's; see the module docstring)."""
    return any(_thread_work(index, d, func) for d in func.node.decorator_list)


def _thread_work(index, decorator: ast.expr, func: Func) -> bool:
    if not isinstance(decorator, ast.Call):
        return False
    target = index.callee(decorator.func, func.parent or func)
    return (isinstance(target, str) and target in THREAD_WORKER_DECORATORS
            and any(k.arg == "thread" and isinstance(k.value, ast.Constant) and k.value.value is True
                    for k in decorator.keywords))
