"""Plain functions LangGraph's functional API runs in a worker thread: a ``def`` decorated ``@task`` or ``@entrypoint``.

``langgraph.func.task`` turns a function into a task that an entrypoint calls (``await fetch(...)`` in an ``async``
entrypoint, ``fetch(...).result()`` in a plain one); the call schedules it on the graph's runner. For a plain ``def``
the runnable the task is run by is ``RunnableCallable(func, partial(run_in_executor, None, func))`` (pregel's
``get_runnable_for_task``, ``langgraph/pregel/_call.py``; ``get_runnable_for_entrypoint`` does the same for a plain
``def`` entrypoint), so under an async run the body goes to the default executor, never onto the loop. An ``async
def`` task or entrypoint is awaited on the loop itself: what it calls blocks it ("Functional API",
https://langchain-ai.github.io/langgraph/concepts/functional_api/). Either decorator may be bare or called
(``@task(retry_policy=...)``, ``@entrypoint(checkpointer=...)``). Used by
:func:`~faultlib.detect.serving.blocking.wrappers.runs_off_loop`: such a plain function is no callee of the loop.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func

__all__ = ["FUNCTIONAL_DECORATORS", "threaded_task"]

FUNCTIONAL_DECORATORS = frozenset({"langgraph.func.task", "langgraph.func.entrypoint"})
"""LangGraph's functional-API decorators by the names they are imported under."""


def threaded_task(index, func: Func) -> bool:
    """``func`` is a plain ``def`` decorated with a functional-API decorator (see the module docstring)."""
    return not func.is_async and any(_functional(index, d, func) for d in func.node.decorator_list)


def _functional(index, decorator: ast.expr, func: Func) -> bool:
    target = index.callee(decorator.func if isinstance(decorator, ast.Call) else decorator, func.parent or func)
    return isinstance(target, str) and target in FUNCTIONAL_DECORATORS
