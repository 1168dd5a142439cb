"""A call that one of a value's possible types documents as a factory is not a request of another.

``self.storage = boto3.client("s3")`` on one branch, ``storage.Client()`` (GCS) or ``BlobServiceClient(...)``
(Azure) on others, then ``self.storage.bucket(name)``: the analysis types the attribute by one assignment (the
boto3 client, whose every method is a request), yet ``bucket`` is the GCS client's documented factory of a local
``Bucket`` handle. When a value is assigned several third-party types and the vocabulary's ``returns`` table lists
``<one of them>.<method>`` (a factory: it builds an object, it does not wait), :func:`documented_factory` says so
and the call is not reported under another type's wildcard. Used by
:func:`~faultlib.detect.serving.blocking.sites.named_site`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func

__all__ = ["documented_factory"]


def documented_factory(index, call: ast.Call, func: Func) -> bool:
    """Whether ``obj.method(...)`` is a documented factory of one of the several types ``obj`` is assigned."""
    if not isinstance(call.func, ast.Attribute):
        return False
    typed = [t for t in index.stores.candidates(call.func.value, func) if isinstance(t, str)]
    return len(typed) > 1 and any(f"{t}.{call.func.attr}" in index.vocab.returns for t in typed)
