"""A sync ``for`` over an object whose iteration waits or computes: each ``next()`` blocks the thread.

``for text in streamer`` over a ``transformers.TextIteratorStreamer`` waits on its queue for each token the
generating thread puts there (https://huggingface.co/docs/transformers/internal/generation_utils#transformers.
TextIteratorStreamer; ``AsyncTextIteratorStreamer`` with ``async for`` is the loop's twin): on the loop, the loop
waits for the whole generation. A type's iteration blocks when the vocabulary gives it a ``__next__`` kind
(``Family(..., {"__next__": kind})``); the streaming body of an AWS response (or a reader around it) is
:func:`~faultlib.detect.serving.blocking.bodies.streaming_body_iteration`; sync streams made off the loop and library
stream handles are :mod:`~faultlib.detect.serving.blocking.stream_handles`. Used by
:mod:`~faultlib.detect.serving.blocking.reach`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.bodies import streaming_body_iteration
from faultlib.detect.serving.blocking.line_parsers import parsing_loops
from faultlib.detect.serving.blocking.model import Func, nodes_of
from faultlib.detect.serving.blocking.offload_results import offloaded_function
from faultlib.detect.serving.blocking.shapes import CONSUMERS, is_generator
from faultlib.detect.serving.blocking.sites import Site
from faultlib.detect.serving.blocking.stream_handles import handle_iterations

__all__ = ["handed_back", "offloaded_generators", "waiting_iterations"]


def waiting_iterations(func: Func, index) -> list[Site]:
    """A site for each sync ``for``/comprehension in ``func`` over a value whose ``__next__`` blocks."""
    found = []
    for node in nodes_of(func, (ast.Call, ast.For, ast.comprehension)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in CONSUMERS and node.args:
            iterated, at = node.args[0], node  # list(pool.map(fn, items)): consumed on the spot
        elif isinstance(node, (ast.For, ast.comprehension)) and not getattr(node, "is_async", 0):
            iterated = node.iter
            at = node if isinstance(node, ast.For) else node.iter
        else:
            continue
        body = streaming_body_iteration(iterated, func)  # for line in codecs.getreader("utf-8")(obj["Body"])
        if body is not None:
            found.append(Site("blocking_http", body, func, at))
            continue
        if not isinstance(iterated, (ast.Name, ast.Attribute, ast.Call)):
            continue
        if isinstance(iterated, ast.Call) and _own_generator(index, iterated, func):
            continue  # for x in chunks(): the generator's own body is followed, and its waits are found there
        if isinstance(iterated, ast.Name) and _materialised(func, iterated.id, at.lineno):
            continue  # segments = list(segments) above: the items are in memory, drained (and reported) there
        owner = index.type_of(iterated, func)  # a value (streamer, self.streamer), or a call's (as_completed(fs))
        kind = index.vocab.family_kind(owner, "__next__") if isinstance(owner, str) else None
        if kind is not None:
            found.append(Site(kind[0], f"iterating a {owner} (each item waits)", func, at))
    if func.is_async:  # for line in blob.splitlines(): datetime.strptime(...) written in the coroutine itself
        found += [Site("blocking_cpu", "a timestamp parsed on every line of a whole text (CPU in proportion to its "
                       "length)", func, loop) for loop in parsing_loops(index, func)]
    return found + handle_iterations(func, index)  # a stream made off the loop, a library's stream handle


def _materialised(func: Func, name: str, line: int) -> bool:
    """``name = list(name)`` (or another consuming builtin of itself) on a line before ``line`` in ``func``: from
    there on ``name`` holds the drained items, and iterating it again waits for nothing."""
    return any(isinstance(n.value, ast.Call) and isinstance(n.value.func, ast.Name) and n.value.func.id in CONSUMERS
               and n.value.args and isinstance(n.value.args[0], ast.Name) and n.value.args[0].id == name
               and any(isinstance(t, ast.Name) and t.id == name for t in n.targets) and n.lineno < line
               for n in nodes_of(func, ast.Assign))


def handed_back(index, target: Func | None, iterated: bool, itself: bool = False) -> list[Func]:
    """The generator functions whose generator ``target`` returns (``return self._chunks(path)``, or a local bound
    to such a call and returned), when the caller iterates what ``target`` returns on the spot (``iterated``):
    ``for part in model(path, stream=True)`` runs ``_chunks``' body on the loop, a step at a time. A generator
    ``target`` only makes and returns is otherwise never followed (its body runs where it is iterated).
    ``itself``: ``target`` first (when it is a sync function; nothing at all for None or an ``async def``)."""
    if target is None or target.is_async:
        return []
    if not iterated:
        return [target] if itself else []
    bound = {t.id: n.value for n in target.nodes if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call)
             for t in n.targets if isinstance(t, ast.Name)}
    found = []
    for node in target.nodes:
        value = node.value if isinstance(node, ast.Return) else None
        if isinstance(value, ast.Name):
            value = bound.get(value.id)
        made = index.callee(value.func, target) if isinstance(value, ast.Call) else None
        if isinstance(made, Func) and is_generator(made) and made not in found:
            found.append(made)
    return [target, *found] if itself else found


def offloaded_generators(index, call: ast.Call, func: Func) -> list[Func]:
    """``[gen]`` for ``await asyncio.to_thread(gen, ...)`` (or ``run_in_executor``) with ``gen`` a sync generator
    function of the analysed files whose awaited result ``func`` iterates on the spot (``for x in await ...``,
    ``list(await ...)``, or a local bound to it and iterated so): the worker thread only makes the generator, and
    its body runs here, on the loop, one step per item (django/channels#991 reports the same of
    ``database_sync_to_async`` over a generator). Empty otherwise: a generator handed on (to a
    ``StreamingResponse``, which iterates a sync iterator in its thread pool) is not followed."""
    fn = offloaded_function(index, call, func)
    target = None if fn is None else index.callee(fn, func)
    if not (isinstance(target, Func) and not target.is_async and is_generator(target)):
        return []
    waited = next((n for n in func.nodes if isinstance(n, ast.Await) and n.value is call), None)
    if waited is None:
        return []
    names = {t.id for n in func.nodes if isinstance(n, ast.Assign) and n.value is waited
             for t in n.targets if isinstance(t, ast.Name)}
    for node in func.nodes:
        if isinstance(node, (ast.For, ast.comprehension)) and not getattr(node, "is_async", 0):
            iterated = node.iter
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in CONSUMERS and node.args:
            iterated = node.args[0]
        else:
            continue
        if iterated is waited or (isinstance(iterated, ast.Name) and iterated.id in names):
            return [target]
    return []


def _own_generator(index, call: ast.Call, func: Func) -> bool:
    """``call`` makes a generator of the analysed files (whose items may have a lazy type it forwards:
    :mod:`~faultlib.detect.serving.blocking.lazy_generators`)."""
    target = index.callee(call.func, func)
    return isinstance(target, Func) and is_generator(target)
