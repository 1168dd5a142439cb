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
the function that encloses it). An awaited read is aiobotocore's coroutine and never reaches here. Used by
:func:`~faultlib.detect.serving.blocking.sites.any_of_site`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func

__all__ = ["streaming_body_read"]

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
    return None if key is None else f'a botocore StreamingBody (the response\'s "{key}").{call.func.attr}'


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
    while func is not None:
        values = [node.value for node in func.nodes if isinstance(node, ast.Assign) and len(node.targets) == 1
                  and isinstance(node.targets[0], ast.Name) and node.targets[0].id == name]
        if values:
            return values[0] if len(values) == 1 else None
        func = func.parent
    return None
