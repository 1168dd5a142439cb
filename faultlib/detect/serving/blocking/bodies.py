"""The streaming body of an AWS response, read on the loop.

boto3 hands a streamed payload back as a ``botocore.response.StreamingBody`` inside the response dict: S3
``get_object``'s and SageMaker Runtime ``invoke_endpoint``'s ``"Body"``, Polly ``synthesize_speech``'s
``"AudioStream"``, Lambda ``invoke``'s ``"Payload"``, Bedrock Runtime ``invoke_model``'s ``"body"``. The request
returns once the headers have arrived; reading the body (``read``, ``readlines``, ``iter_lines``, ``iter_chunks``)
pulls the rest over the HTTP connection in the calling thread
(https://botocore.amazonaws.com/v1/documentation/api/latest/reference/response.html). Code that offloads the request
(``await loop.run_in_executor(pool, client.synthesize_speech, ...)``) and then reads the body on the loop still
waits on the network. The response's type is not followed through the executor, so the body is known by its key:
a read of ``resp["Body"]``, ``resp.get("AudioStream")``, or of a name assigned once from one (in the function, or in
the function that encloses it). An awaited read is aiobotocore's coroutine and never reaches here; so is the body of
a response that was itself awaited from the client (``resp = await client.invoke_model(...)``: aioboto3's and
aiobotocore's clients are the async ones, and their ``StreamingBody.read`` is a coroutine even where the code forgot
to await it -- https://aiobotocore.aio-libs.org/en/latest/tutorial.html), unless what was awaited is an offload of the
sync call (``await loop.run_in_executor(None, client.get_object, ...)``, ``await asyncio.to_thread(...)``). Used by
:func:`~faultlib.detect.serving.blocking.sites.any_of_site`.

Iterating the body reads it too: ``StreamingBody.__iter__`` "return[s] an iterator to yield lines from the raw
stream" (botocore/response.py, the same ``iter_lines``), and a reader wrapped around it -- ``codecs.getreader("utf-8")
(body)``, ``io.TextIOWrapper(body)``, ``codecs.iterdecode(body, ...)``, ``csv.reader`` over one of those, inside
``enumerate`` or ``iter`` -- pulls each line from the socket as the ``for`` asks for it (held-out wave 63: the log
endpoint of a workflow UI service, whose documented fix b63de66 turned those loops into ``async for`` over
aiobotocore's stream). A sync ``for`` (or comprehension, or ``list(...)``) is reported at its line by
:func:`streaming_body_iteration` (used by :func:`~faultlib.detect.serving.blocking.iteration.waiting_iterations`).
Because ``"body"`` is also a common key of plain dicts (an HTTP event, a JSON payload), the iterated body must come
from a response of one of the operations that return a streaming blob (:data:`STREAM_OPERATIONS`: the request
itself, or a name it is assigned to), called on the loop or offloaded and awaited.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func

__all__ = ["streaming_body_iteration", "streaming_body_read"]

STREAM_KEYS = frozenset({"Body", "AudioStream", "Payload", "body"})
"""The response members the AWS service references give the streaming-blob type."""
READS = frozenset({"read", "readlines", "iter_lines", "iter_chunks"})
"""``StreamingBody``'s methods that read the rest of the body."""


def streaming_body_read(call: ast.Call, func: Func) -> str | None:
    """What ``call`` reads when it reads the streaming body of an AWS response (see the module), or None."""
    if not isinstance(call.func, ast.Attribute) or call.func.attr not in READS:
        return None
    body = call.func.value
    if isinstance(body, ast.Name):
        body = _assigned_once(body.id, func)
    key = _stream_key(body)
    if key is None or _from_async_client(body, func):
        return None
    return f'a botocore StreamingBody (the response\'s "{key}").{call.func.attr}'


STREAM_OPERATIONS = frozenset({"get_object", "invoke_endpoint", "synthesize_speech", "invoke", "invoke_model",
                               "get_media", "get_object_torrent", "select_object_content"})
"""The boto3 client operations whose response holds a ``StreamingBody`` (S3 ``get_object``/``get_object_torrent``,
SageMaker Runtime ``invoke_endpoint``, Polly ``synthesize_speech``, Lambda ``invoke``, Bedrock Runtime
``invoke_model``, Kinesis Video Media ``get_media``; https://boto3.amazonaws.com/v1/documentation/api/latest/
reference/services/ -- each operation's response syntax names the ``StreamingBody`` member)."""
READERS = frozenset({"enumerate", "iter", "TextIOWrapper", "BufferedReader", "iterdecode", "reader", "DictReader"})
"""Wrappers that iterate what they are given as they are iterated (builtins ``enumerate``/``iter``, ``io``'s
readers, ``codecs.iterdecode``, ``csv.reader``/``DictReader``): the first argument is what is read."""


def streaming_body_iteration(iterated: ast.expr, func: Func) -> str | None:
    """What a sync ``for`` over ``iterated`` reads when ``iterated`` is the streaming body of an AWS response, or a
    reader wrapped around it (see the module), or None."""
    body = _unwrapped(iterated)
    if isinstance(body, ast.Name):
        body = _assigned_once(body.id, func)
    key = _stream_key(body)
    if key is None or _from_async_client(body, func) or not _stream_response(body, func):
        return None
    return f'iterating a botocore StreamingBody (the response\'s "{key}"; each line is read from the socket)'


def _unwrapped(expr: ast.expr) -> ast.expr:
    """``expr`` without the readers of :data:`READERS` and ``codecs.getreader(encoding)(...)`` around it."""
    for _ in range(8):
        if not (isinstance(expr, ast.Call) and expr.args):
            return expr
        called = expr.func
        if isinstance(called, ast.Call):  # codecs.getreader("utf-8")(body)
            called = called.func
            if _last(called) != "getreader":
                return expr
        elif _last(called) not in READERS:
            return expr
        expr = expr.args[0]
    return expr


def _last(expr: ast.expr) -> str:
    return expr.attr if isinstance(expr, ast.Attribute) else getattr(expr, "id", "")


def _stream_response(body: ast.expr, func: Func) -> bool:
    """The response ``body`` is taken from is made by one of :data:`STREAM_OPERATIONS` (every assignment of it)."""
    resp = body.value if isinstance(body, ast.Subscript) else body.func.value
    values = _assignments(resp.id, func) if isinstance(resp, ast.Name) else [resp]
    return bool(values) and all(_operation(v) in STREAM_OPERATIONS for v in values)


def _operation(value: ast.expr) -> str:
    """The client operation a response value comes from: ``client.op(...)``, or the function an awaited offload
    runs (``await asyncio.to_thread(client.op, ...)``, ``await loop.run_in_executor(None, client.op, ...)``)."""
    if isinstance(value, ast.Await):
        value = value.value
    if not isinstance(value, ast.Call):
        return ""
    last = _last(value.func)
    if last in OFFLOADERS:
        fn = value.args[1] if last == "run_in_executor" and len(value.args) > 1 else (
            value.args[0] if value.args and last != "run_in_executor" else None)
        return _last(fn) if fn is not None else ""
    return last


OFFLOADERS = frozenset({"run_in_executor", "to_thread", "run_sync", "asyncify", "run_in_threadpool", "sync_to_async"})
"""The last name of the awaited calls that run a sync request in a worker thread (its response is botocore's)."""


def _from_async_client(body: ast.expr, func: Func) -> bool:
    """``resp`` of ``resp["body"]`` / ``resp.get("body")`` is only ever assigned from awaited requests that are no
    offload: the response of an async (aiobotocore) client."""
    resp = body.value if isinstance(body, ast.Subscript) else body.func.value
    values = _assignments(resp.id, func) if isinstance(resp, ast.Name) else []
    return bool(values) and all(_awaited_request(v) for v in values)


def _awaited_request(value: ast.expr) -> bool:
    """``await client.op(...)``: an awaited call that is not one of :data:`OFFLOADERS`."""
    if not (isinstance(value, ast.Await) and isinstance(value.value, ast.Call)):
        return False
    called = value.value.func
    last = called.attr if isinstance(called, ast.Attribute) else getattr(called, "id", "")
    return last not in OFFLOADERS


def _assignments(name: str, func: Func | None) -> list[ast.expr]:
    """Every value of ``name = value`` in ``func``, or else in the function enclosing it."""
    while func is not None:
        values = [node.value for node in func.nodes if isinstance(node, ast.Assign) and len(node.targets) == 1
                  and isinstance(node.targets[0], ast.Name) and node.targets[0].id == name]
        if values:
            return values
        func = func.parent
    return []


def _stream_key(expr: ast.expr | None) -> str | None:
    """``resp["Body"]`` or ``resp.get("Body")``: the key, when it is one of :data:`STREAM_KEYS`."""
    if isinstance(expr, ast.Subscript):
        key = expr.slice
    elif (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "get"
          and expr.args):
        key = expr.args[0]
    else:
        return None
    return key.value if isinstance(key, ast.Constant) and key.value in STREAM_KEYS else None


def _assigned_once(name: str, func: Func | None) -> ast.expr | None:
    """The value of the single ``name = value`` in ``func``, or else in the function enclosing it."""
    values = _assignments(name, func)
    return values[0] if len(values) == 1 else None
