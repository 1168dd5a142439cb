"""Modal's synchronous client: remote functions, their spawned calls, and the named queues and dicts.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`; a method
decorated ``@modal.method()`` read through its instance is typed ``modal.Function`` by
:mod:`~faultlib.detect.serving.blocking.remote_methods`). Every call below is a request to Modal's servers that the
calling thread waits for; each has an ``.aio`` twin for async code (``f.remote.aio(...)``, ``q.get.aio()``), which
is left out (https://modal.com/docs/guide/async). Each entry names the documentation of the call.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary

H, T = "blocking_http", "blocking_task"

FUNCTION = ("https://modal.com/docs/reference/modal.Function (remote calls the function and waits for its result, "
            "spawn submits it and returns a FunctionCall, map/starmap/for_each run it over inputs)")
FUNCTION_CALL = ("https://modal.com/docs/reference/modal.FunctionCall (get waits for the result of a spawned call, "
                 "up to its timeout)")
QUEUE = ("https://modal.com/docs/reference/modal.Queue (get blocks until an item is available unless block=False; "
         "put, len and clear are requests to the server)")
DICT = "https://modal.com/docs/reference/modal.Dict (each read and write is a request to the server)"

_FUNCTION_CALLS = ("remote", "spawn", "map", "starmap", "for_each", "spawn_map", "remote_gen", "get_current_stats")
_QUEUE_CALLS = ("get", "get_many", "put", "put_many", "len", "clear", "iterate")
_DICT_CALLS = ("get", "put", "update", "pop", "contains", "len", "clear", "keys", "values", "items",
               "__getitem__", "__setitem__", "__delitem__", "__contains__")

MODAL_CLIENT = Vocabulary(
    families=(
        Family(("modal.Function",), {m: H for m in _FUNCTION_CALLS}, FUNCTION),
        Family(("modal.FunctionCall",), {"get": T, "get_gen": T}, FUNCTION_CALL),
        Family(("modal.Queue",), {m: H for m in _QUEUE_CALLS}, QUEUE),
        Family(("modal.Dict",), {m: H for m in _DICT_CALLS}, DICT),
    ),
    returns={
        **{f"modal.{c}.{m}": f"modal.{c}" for c in ("Function", "Queue", "Dict") for m in ("from_name", "lookup")},
        "modal.Function.spawn": "modal.FunctionCall",
        "modal.FunctionCall.from_id": "modal.FunctionCall",
    },
)
