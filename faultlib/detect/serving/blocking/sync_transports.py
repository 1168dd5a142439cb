"""A third-party object built on a synchronous HTTP transport the code hands it: evidence that it is a sync client.

Generated and hand-written API SDKs take the HTTP client they send their requests with as a constructor argument:
the Fern-generated SDKs (ElevenLabs, Cohere, ...) take ``httpx_client: typing.Optional[httpx.Client]`` for the sync
client and an ``httpx.AsyncClient`` for the async twin (https://github.com/elevenlabs/elevenlabs-python#custom-client:
"You can override the httpx client to customize it for your use-case", ``ElevenLabs(httpx_client=httpx.Client(...))``;
https://buildwithfern.com/learn/sdks/generators/python/custom-code#custom-httpx-client), OpenAI's and Anthropic's
Stainless-generated clients ``http_client=httpx.Client(...)`` (https://github.com/openai/openai-python#configuring-the-
http-client: "you must use ``DefaultAsyncHttpxClient`` for the async client"), and many wrappers a
``session=requests.Session()``. An object given a *synchronous* transport (``httpx.Client``, a requests ``Session``,
urllib3's ``PoolManager``) sends its requests through it in the calling thread, so the class is a synchronous network
client whatever its name: the argument counts as :mod:`~faultlib.detect.serving.blocking.inferred`'s evidence of a
server (a credential: the transport is what talks to it). An async transport (``httpx.AsyncClient``, an aiohttp
session) is no evidence: the object is then an async client.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func

__all__ = ["SYNC_TRANSPORTS", "transport_argument"]

SYNC_TRANSPORTS = frozenset({"httpx.Client", "requests.Session", "requests.sessions.Session", "urllib3.PoolManager"})
"""Types of synchronous HTTP clients (the vocabulary's: their requests block, :mod:`~faultlib.detect.serving.blocking.
libraries.http`)."""


def transport_argument(index, call: ast.Call, func: Func) -> str | None:
    """How ``call`` (a constructor call) hands the object a synchronous HTTP transport (``"`httpx_client=` (an
    httpx.Client)"``), or None."""
    for keyword in call.keywords:
        if keyword.arg and index.type_of(keyword.value, func) in SYNC_TRANSPORTS:
            return f"`{keyword.arg}=` (a {index.type_of(keyword.value, func)})"
    for arg in call.args:
        typed = index.type_of(arg, func)
        if typed in SYNC_TRANSPORTS:
            return f"a {typed} as an argument"
    return None
