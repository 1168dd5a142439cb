"""Sync streams iterated on the loop although no call on the loop opened them: each chunk is a network read.

Two shapes, both judged by what is iterated rather than by the call that made it:

* a stream made in a worker thread and iterated on the loop: ``for chunk in await cl.make_async(runnable.stream)(q)``,
  ``for chunk in await asyncio.to_thread(llm.stream_complete, prompt)``, or a local bound once to such an ``await``
  and iterated later. The thread only calls the stream method, which returns a sync generator at once (LangChain's
  ``Runnable.stream``, https://python.langchain.com/docs/concepts/streaming/; LlamaIndex's ``stream_chat``/
  ``stream_complete``): every chunk is then read by the ``for``, on the loop. The offloading call is one of
  :data:`~faultlib.detect.serving.blocking.vocab.OFFLOAD`, ``run_in_executor``, or an ``asyncify``-shaped wrapper
  (``asyncify(fn)(...)``; Chainlit's ``make_async`` is ``asyncer.asyncify``, ``backend/chainlit/sync.py``);
* a library's stream handle iterated with a sync ``for``: LlamaIndex's ``StreamingResponse.response_gen`` (what
  ``query_engine.query(q)`` returns with ``streaming=True``) is a sync generator over the LLM's HTTP stream; its
  loop twin is ``async_response_gen()`` with ``async for``
  (https://docs.llamaindex.ai/en/stable/module_guides/deploying/query_engine/streaming/).

A stream consumed inside the thread (``to_thread(lambda: list(chain.stream(q)))``) and an ``async for`` are silent.
Used by :func:`~faultlib.detect.serving.blocking.iteration.waiting_iterations`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking import vocab
from faultlib.detect.serving.blocking.model import Func, nodes_of
from faultlib.detect.serving.blocking.sites import Site

__all__ = ["STREAM_HANDLES", "STREAM_METHODS", "handle_iterations"]

STREAM_METHODS = frozenset({"stream", "stream_chat", "stream_complete"})
"""Sync methods that return a generator of chunks read from the model server as the caller iterates (LangChain
``Runnable.stream``; LlamaIndex ``LLM.stream_chat``/``stream_complete``, ``ChatEngine.stream_chat``)."""

STREAM_HANDLES = frozenset({"response_gen"})
"""Attributes that hold a sync generator over a streamed answer (LlamaIndex ``StreamingResponse.response_gen``,
``StreamingAgentChatResponse.response_gen``)."""

ASYNCIFY_WRAPPERS = frozenset({"asyncer.asyncify", "chainlit.make_async", "chainlit.sync.make_async",
                               "asgiref.sync.sync_to_async"})
"""``wrapper(fn)(*args)``: runs ``fn(*args)`` in a worker thread and returns its result."""


def handle_iterations(func: Func, index) -> list[Site]:
    """A ``blocking_http`` site at each sync ``for`` in ``func`` over a stream made off the loop or a stream handle
    (see the module docstring)."""
    bound: dict[str, list[ast.expr]] = {}
    for node in nodes_of(func, ast.Assign):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    bound.setdefault(target.id, []).append(node.value)
    found = []
    for node in nodes_of(func, ast.For):
        iterated = node.iter
        if isinstance(iterated, ast.Name) and len(bound.get(iterated.id, [])) == 1:
            iterated = bound[iterated.id][0]
        if isinstance(iterated, ast.Attribute) and iterated.attr in STREAM_HANDLES:
            found.append(Site("blocking_http", f"iterating .{iterated.attr} (a sync stream: each chunk waits)",
                              func, node))
        elif isinstance(iterated, ast.Await) and isinstance(iterated.value, ast.Call):
            method = _offloaded_stream(iterated.value, func, index)
            if method is not None:
                found.append(Site("blocking_http", f".{method}(...) made in a worker thread, iterated on the loop "
                                  "(each chunk waits)", func, node))
    return found


def _offloaded_stream(call: ast.Call, func: Func, index) -> str | None:
    """The stream method ``call`` (an awaited offload) runs in its thread, when it only makes a stream."""
    fn = None
    if isinstance(call.func, ast.Call) and call.func.args:  # asyncify(runnable.stream)(q)
        if index.callee(call.func.func, func) in ASYNCIFY_WRAPPERS:
            fn = call.func.args[0]
    else:
        target = index.callee(call.func, func)
        if isinstance(target, str) and target in vocab.OFFLOAD and len(call.args) > vocab.OFFLOAD[target]:
            fn = call.args[vocab.OFFLOAD[target]]
        elif isinstance(call.func, ast.Attribute) and call.func.attr == "run_in_executor" and len(call.args) > 1:
            fn = call.args[1]
    return fn.attr if isinstance(fn, ast.Attribute) and fn.attr in STREAM_METHODS else None
