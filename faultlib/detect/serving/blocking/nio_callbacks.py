"""matrix-nio's event callbacks: a plain ``def`` given to ``client.add_event_callback`` runs on the client's loop.

``AsyncClient.add_event_callback(callback, filter)`` takes "a function that will be called if the event type in the
filter argument is found in a room timeline", typed ``Callable[[MatrixRoom, Event], Optional[Awaitable[None]]]``
(https://matrix-nio.readthedocs.io/en/latest/nio.html#nio.AsyncClient.add_event_callback): a coroutine function is
awaited, a plain function is called as it is, inside the client's ``sync``/``sync_forever`` coroutine
(``nio/client/async_client.py``: ``ClientCallback.execute`` calls ``self.func(...)`` and awaits only a coroutine
function's result). So the sync callback's body runs on the event loop like a handler written ``async def``. The
same holds for the client's other callback registrations listed in :data:`NIO_REGISTRARS`. Held-out waves 52 and 57
(matrix bots whose message callbacks are plain functions). Used by
:mod:`~faultlib.detect.serving.blocking.registrations` and :mod:`~faultlib.detect.serving.blocking.frameworks`.
"""

from __future__ import annotations

import ast

__all__ = ["NIO_CLIENTS", "NIO_REGISTRARS", "nio_registration"]

NIO_CLIENTS = frozenset({"nio.AsyncClient", "nio.client.AsyncClient", "nio.client.async_client.AsyncClient"})
"""matrix-nio's asyncio client, as imported and where it is defined."""

NIO_REGISTRARS = frozenset({"add_event_callback", "add_response_callback", "add_to_device_callback",
                            "add_ephemeral_callback", "add_global_account_data_callback",
                            "add_room_account_data_callback", "add_presence_callback"})
"""``AsyncClient`` methods whose first argument is a callback the client runs inside its sync coroutine."""


def nio_registration(index, call: ast.Call, caller) -> bool:
    """``call`` is ``client.add_event_callback(fn, ...)`` (or another of :data:`NIO_REGISTRARS`) on a matrix-nio
    ``AsyncClient`` (or a subclass of it in the analysed files)."""
    if not (isinstance(call.func, ast.Attribute) and call.func.attr in NIO_REGISTRARS):
        return False
    kind = index.type_of(call.func.value, caller)
    if isinstance(kind, str):
        return kind in NIO_CLIENTS
    from faultlib.detect.serving.blocking.model import Klass

    return isinstance(kind, Klass) and index.subclass_of(kind, NIO_CLIENTS.__contains__)
