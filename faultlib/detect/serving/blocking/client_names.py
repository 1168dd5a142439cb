"""Synchronous clients the vocabulary does not list, known by their class name (the issue 17 rule "a sync method of
a class whose name says Client/Session/Connection").

A third-party class named ``...Client``, ``...Session`` or ``...Connection`` that no vocabulary family owns is taken
for a synchronous network client: its public methods send a request and wait for the answer (langsmith's
``Client.create_feedback``, ``jwt.PyJWKClient.get_signing_key``, a vendor's ``AnalyticsClient``). Left out: the
async twins (a name part starting with ``Async``, ``aio``, ``asyncio``, ``asynchronous``; their calls are awaited
anyway, and awaited calls are never blockers), the standard library (described call by call), packages whose
clients are asyncio-first (chat frameworks, MCP, websockets' default API), and methods that only read state the
client holds. Used by :mod:`~faultlib.detect.serving.blocking.sites` after the vocabulary has had its say; a
family that owns the type (even one that leaves the method out) always wins.

A class of the analysed files is not third-party: its own methods are read, not guessed. When such a class lacks
the method, the method comes from one of its third-party bases, so the guess goes by that base's name, not the
class's: jupyter_server's ``GatewayClient(SingletonConfigurable)`` gets ``instance()`` from traitlets
(https://traitlets.readthedocs.io/en/stable/config-api.html#traitlets.config.SingletonConfigurable.instance: it
returns the one configured instance, no I/O), while a ``class Bot(slack_sdk.WebClient)`` still sends requests
with ``chat_postMessage`` (:func:`project_client_kind`). Measured on the labelled corpus
(104 services): 9 right, 2 wrong (tritonclient's ``start_stream``, which only opens the stream; a local
recorder's ``feed_audio`` on the branch where the receiver is not the client).
"""

from __future__ import annotations

import sys

from faultlib.detect.serving.blocking.entries import _ASYNC_PARTS

__all__ = ["REFERENCE_BUILDERS", "client_kind", "name_guess", "project_client_kind", "reference_client",
           "reference_type"]

MAX_CLASSES = 32
"""How many of the project's classes one lookup of third-party bases walks at most."""

SUFFIXES = {"Client": "blocking_http", "Session": "blocking_http", "Connection": "blocking_db"}
"""Class-name endings that say "synchronous client", with the kind their calls get."""

ASYNC_FIRST = ("discord.", "nextcord.", "disnake.", "hikari.", "interactions.", "telethon.", "pyrogram.", "aiogram.",
               "telegram.", "mcp.", "fastmcp.", "websockets.", "asyncpg.", "motor.", "socketio.", "engineio.",
               "livekit.", "temporalio.", "starlette.", "fastapi.", "anyio.", "trio.", "tornado.", "sanic.", "quart.", "uvicorn.",
               "httpx.", "aiohttp.", "requests.", "builtins.", "typing.", "unittest.", "asyncio.", "homeassistant.")
"""Packages whose clients are coroutine-based or whose sessions hold no connection (a web framework's request
session), and packages the vocabulary already describes method by method. Home Assistant's own objects run in its
event loop: its sync methods are loop-safe by contract (``@callback``; "the core of Home Assistant runs in the event
loop ... any function that is not a coroutine and is decorated with @callback is safe to call from the event loop",
https://developers.home-assistant.io/docs/asyncio_working_with_async/), e.g. the websocket API's
``ActiveConnection.send_message``, which queues the message for the connection's writer task; an integration's
vendor client stays a guess. Temporal's Python SDK is built on asyncio ("the Python SDK is built on asyncio",
https://docs.temporal.io/develop/python/core-application): its clients' calls that reach the server are
coroutines (``await Client.connect``, ``await handle.result()``), and its sync methods build objects
(held-out wave 52: ``WorkflowStreamClient.create``/``from_within_activity``/``topic`` of
``temporalio.contrib.workflow_streams``, 20 false alarms)."""

CONVERSIONS = frozenset({"sanitize_for_serialization", "deserialize", "serialize", "parameters_to_tuples",
                         "parameters_to_url_query", "select_header_accept", "select_header_content_type",
                         "files_parameters", "to_dict", "to_json", "to_str"})
"""Methods that convert data the caller passes, in memory: the helpers of the ``ApiClient`` that OpenAPI
Generator writes for every Python client (https://github.com/OpenAPITools/openapi-generator/blob/master/modules/
openapi-generator/src/main/resources/python/api_client.mustache: ``sanitize_for_serialization`` turns a model into
plain JSON types, ``deserialize`` the reverse, ``parameters_to_tuples`` and ``select_header_*`` format a request
that ``call_api`` sends later), the generated models' ``to_dict``/``to_json``, and a client's own (de)serialisers
(held-out wave 49: kubernetes_asyncio's ``ApiClient.sanitize_for_serialization`` of a pod it had created)."""

NO_IO = frozenset({"close", "closed", "is_closed", "is_ready", "is_connected", "cursor", "get_channel", "get_user",
                   "get_guild", "event", "command", "on", "handler", "register", "set_debuglevel", "copy", "keys",
                   "values", "items", "setdefault", "add_handler", "remove_handler", "listen", "subscribe",
                   "middleware", "mount", "url_for", "run",
                   # the builder pattern's entry: options are set on the builder, the client is made by build()
                   # (lark-oapi:
                   # https://open.feishu.cn/document/server-side-sdk/python--sdk/preparations-before-development)
                   "builder",
                   # a pydantic model named *Session (parse_raw...): data, not a connection
                   "parse_raw", "parse_obj", "model_validate", "model_validate_json", "model_dump", "model_dump_json",
                   "dict", "json", "construct", "model_construct", "schema", "model_json_schema"}) | CONVERSIONS
"""Methods of such clients that read or register local state (``get_channel`` reads a cache; ``run`` starts the
client's own loop from a script's main, never from a coroutine), and a data model's own methods. A method named
``get_..._client`` builds a sub-client without a request (``get_file_client``, ``get_blob_client``)."""

REFERENCE_BUILDERS = frozenset({"collection", "collection_group", "document", "bucket", "blob", "table", "child"})
"""Methods that build a reference to a server-side resource and send nothing: the request is a method of what they
return. Google Cloud documents its factories so: Firestore's ``Client.collection``/``document`` "Get a reference to a
collection/document" (https://cloud.google.com/python/docs/reference/firestore/latest/google.cloud.firestore_v1.
client.Client), Cloud Storage's ``Client.bucket`` and ``Bucket.blob`` "This will not make an HTTP request; it simply
instantiates a ... object" (https://cloud.google.com/python/docs/reference/storage/latest/google.cloud.storage.
client.Client#google_cloud_storage_client_Client_bucket), Bigtable's ``Instance.table`` "Factory to create a table
associated with this instance"; so do the Firebase Realtime Database's ``Reference.child`` ("Returns a Reference to
the specified child node", https://firebase.google.com/docs/reference/admin/python/firebase_admin.db) and Supabase's
``table(name)``, whose query is sent by ``execute()`` (https://supabase.com/docs/reference/python/select). It is the
rule :func:`~faultlib.detect.serving.blocking.made_handles.handle_method` applies to what a factory made (a bare-noun
maker only builds the handle), here for a client known by its class name. A guessed ``...Client`` so called is the reference's builder, not
the call (held-out wave 82: ``db.collection("users").document(uid)`` reported, the ``doc_ref.set`` on the next line
being the write). What it returns is typed ``"<client>.<builder>()"`` (:func:`reference_type`) and its methods are
guessed like the client's, so the request at the end of the chain, or on the variable the reference was kept in, is
the one reported."""

SOURCE = ("issue 17 heuristic: a third-party class named *Client/*Session/*Connection, not described by the "
          "vocabulary, is a synchronous client whose methods wait on the network (measured on the labelled corpus)")


def client_kind(vocabulary, type_name: str, method: str) -> tuple[str, str] | None:
    """``(kind, source)`` of ``type_name.method`` when ``type_name`` looks like a synchronous client (see the module
    docstring), or None."""
    if method.startswith("_") or method in NO_IO or method in REFERENCE_BUILDERS or "async" in method.lower() \
            or not type_name:
        return None
    client = reference_client(type_name)
    if client is not None:  # db.collection("users").document(uid).set(...): a reference's request, the client's guess
        return client_kind(vocabulary, client, method)
    if method.startswith("get_") and method.endswith("_client"):
        return None
    if type_name.startswith(ASYNC_FIRST) or "." not in type_name or type_name.split(".")[0] in sys.stdlib_module_names:
        return None  # the standard library's blocking calls are in the vocabulary, one by one
    parts = type_name.split(".")
    if any(p.startswith(_ASYNC_PARTS) for p in parts):
        return None
    last = parts[-1]
    kind = next((k for suffix, k in SUFFIXES.items() if last.endswith(suffix)), None)
    if kind is None or not last[:1].isupper() or vocabulary.owned(type_name):
        return None
    return kind, SOURCE


def reference_client(type_name: str) -> str | None:
    """The client a reference was built from when ``type_name`` is what its builders made (``"pkg.Client.collection()
    .document()"``: ``"pkg.Client"``, the convention of :func:`reference_type` and of
    :mod:`~faultlib.detect.serving.blocking.made_handles`), else None."""
    base = type_name
    while base.endswith("()") and base[:-2].rpartition(".")[2] in REFERENCE_BUILDERS:
        base = base[:-2].rpartition(".")[0]
    return base if base != type_name and base else None


def reference_type(vocabulary, target: str) -> str | None:
    """What the call of the dotted name ``target`` returns when it is a reference builder of a client known by its
    class name (``pkg.StoreClient.collection``, or a builder of such a reference): ``"<target>()"``, whose methods
    :func:`client_kind` then guesses like the client's; None otherwise."""
    owner, _, last = target.rpartition(".")
    if last not in REFERENCE_BUILDERS or not owner:
        return None
    return f"{target}()" if client_kind(vocabulary, owner, "request") is not None else None


def project_client_kind(index, owner: str, method: str) -> tuple[str, tuple[str, str] | None] | None:
    """For ``owner`` a class of the analysed files (``index.lookup`` gives a ``Klass``): ``(base, kind)`` with
    ``base`` the first of its third-party bases (breadth first through the project's own bases) whose
    ``base.method`` :func:`client_kind` takes for a client call, and that ``kind``; ``("", None)`` when no base
    does; None when ``owner`` is not a class of the analysed files."""
    klass = index.lookup(owner)
    if isinstance(klass, str) or not hasattr(klass, "methods"):
        return None
    todo, seen = [klass], []
    while todo and len(seen) < MAX_CLASSES:
        current = todo.pop(0)
        seen.append(current)
        for base in index.bases(current):
            if isinstance(base, str):
                kind = client_kind(index.vocab, base, method)
                if kind is not None:
                    return base, kind
            elif base not in seen and base not in todo:
                todo.append(base)
    return "", None


def name_guess(type_name: str) -> str:
    """The words a finding from this rule carries: its verdict is a guess from the class name, not a documented
    call (a user reading the finding should know which)."""
    client = reference_client(type_name)
    last = (client or type_name).rpartition(".")[2]
    suffix = next((s for s in SUFFIXES if last.endswith(s)), "")
    built = " (on a reference it built)" if client is not None else ""
    return (f"a guess from the class name: `{last}` ends in `{suffix}` and no vocabulary entry describes "
            f"{type_name.partition('.')[0]}{built}")
