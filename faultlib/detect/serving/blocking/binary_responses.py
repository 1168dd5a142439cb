"""The binary response of an OpenAI SDK request written to a file on the loop.

The OpenAI SDK returns the body of its binary endpoints -- ``audio.speech.create`` (text to speech),
``files.content``, ``containers.files.content.retrieve``, ``videos.download_content`` -- as an
``HttpxBinaryResponseContent`` (``openai/_legacy_response.py``), from the async client too: awaiting the request reads
the whole body, and the object's ``write_to_file``/``stream_to_file`` are plain functions that ``open(file, "wb")`` and
write the bytes in the calling thread; ``astream_to_file`` (and ``aiter_bytes``) is the async twin
(https://github.com/openai/openai-python/blob/main/src/openai/_legacy_response.py, ``HttpxBinaryResponseContent``).
litellm's ``speech``/``aspeech`` hand back the same object (https://docs.litellm.ai/docs/text_to_speech). So
``audio = await client.audio.speech.create(...)`` followed by ``audio.stream_to_file(path)`` in a coroutine writes the
file on the loop (held-out wave 62: a Telegram voice bot's text-to-speech helper).

The response is known by where it comes from: the receiver is the awaited request itself, or a local whose every
assignment in the function (or the function enclosing it) is such a request -- awaited, offloaded and awaited
(``await asyncio.to_thread(client.audio.speech.create, ...)``: the same object comes back) or called on a sync client.
Other SDKs generated like OpenAI's (groq, anthropic) return ``AsyncBinaryAPIResponse`` from their async clients,
whose ``write_to_file`` is a coroutine, so an awaited request counts only on a client not known to be another
package's; a request on a class of the analysed files is the project's own API (not followed here). A response taken through ``with_streaming_response`` is a streamed one (its async ``stream_to_file`` is a
coroutine, awaited where used), and a write that is awaited never reaches here. Used by
:func:`~faultlib.detect.serving.blocking.sites.any_of_site`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.bodies import OFFLOADERS
from faultlib.detect.serving.blocking.model import Func, dotted, nodes_of

__all__ = ["binary_response_write"]

WRITES = frozenset({"stream_to_file", "write_to_file"})
"""``HttpxBinaryResponseContent``'s methods that open the file and write the body synchronously."""
OPERATIONS = (("audio", "speech", "create"), ("files", "content"), ("content", "retrieve"), ("download_content",))
"""The tails of the OpenAI resource paths whose response is an ``HttpxBinaryResponseContent`` (api.md of
openai-python: ``audio.speech.create``, ``files.content``, ``containers.files.content.retrieve``,
``videos.download_content`` return ``HttpxBinaryResponseContent``)."""
LITELLM = frozenset({"litellm.speech", "litellm.aspeech"})
OPENAI_PACKAGE = "openai."


def binary_response_write(index, call: ast.Call, func: Func) -> str | None:
    """What ``call`` writes when it is a sync write of an OpenAI binary response to a file (see the module), or
    None."""
    if not isinstance(call.func, ast.Attribute) or call.func.attr not in WRITES:
        return None
    receiver = call.func.value
    values = _values(receiver.id, func) if isinstance(receiver, ast.Name) else [receiver]
    if not values or not all(_binary_response(index, v, func) for v in values):
        return None
    return (f"openai HttpxBinaryResponseContent.{call.func.attr} (a sync open and write of the response's bytes; "
            "astream_to_file is the async twin)")


def _values(name: str, func: Func | None) -> list[ast.expr]:
    """The values ``name`` is bound to in ``func`` (plain assignments), or else in the function enclosing it; empty
    when some binding is not a plain assignment (a ``with`` target, a loop variable, a parameter)."""
    while func is not None:
        stores = [n for n in func.nodes if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)]
        if stores:
            values = [a.value for a in nodes_of(func, ast.Assign) if len(a.targets) == 1
                      and isinstance(a.targets[0], ast.Name) and a.targets[0].id == name]
            return values if len(values) == len(stores) else []
        args = func.node.args
        if name in {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}:
            return []
        func = func.parent
    return []


def _binary_response(index, value: ast.expr, func: Func) -> bool:
    """``value`` is a request to one of :data:`OPERATIONS` (or litellm's speech): awaited on a client that is
    OpenAI's or of unknown type, offloaded and awaited, or called on a sync client."""
    awaited = isinstance(value, ast.Await)
    request = value.value if awaited else value
    if not isinstance(request, ast.Call):
        return False
    called = request.func
    if awaited and (dotted(called) or [""])[-1] in OFFLOADERS:  # await asyncio.to_thread(client.files.content, id)
        fn = request.args[1] if (dotted(called) or [""])[-1] == "run_in_executor" and len(request.args) > 1 else (
            request.args[0] if request.args else None)
        return fn is not None and _operation(index, fn, func, awaited=False)
    return _operation(index, called, func, awaited)


def _operation(index, called: ast.expr, func: Func, awaited: bool) -> bool:
    target = index.callee(called, func)
    if isinstance(target, str) and target in LITELLM:
        return True
    parts = dotted(called)
    if not parts or "with_streaming_response" in parts:
        return False
    tail = next((t for t in OPERATIONS if len(parts) > len(t) and tuple(parts[-len(t):]) == t), None)
    if tail is None:
        return False
    client = called
    for _ in tail:
        client = client.value
    kind = index.type_of(client, func)  # a class of the analysed files is the project's own API
    return kind is None or (isinstance(kind, str) and (not awaited or kind.startswith(OPENAI_PACKAGE)))
