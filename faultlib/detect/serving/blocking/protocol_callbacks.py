"""asyncio protocol callbacks: the event loop calls a protocol's ``data_received`` (and the rest) itself.

asyncio's transports and protocols are callback-based: the loop calls a protocol's methods when a connection is made
or lost, data or a datagram arrives, the peer closes its end, or writing should pause or resume
(https://docs.python.org/3/library/asyncio-protocol.html#protocols: "Protocol classes ... the event loop calls
these callbacks"). They are plain functions run by the loop between its other tasks, so what they block blocks
every connection (https://docs.python.org/3/library/asyncio-dev.html#running-blocking-code). A protocol is a class
of the analysed files deriving from one of asyncio's protocol bases (:data:`PROTOCOL_BASES`), or handed as the
protocol factory to a loop method that makes the transport (:data:`TRANSPORT_FACTORIES`: ``loop.create_server(
lambda: Satellite(state), host, port)``, the class itself or a ``functools.partial`` of it, given first or as
``protocol_factory=``). Its entries are the methods the loop calls (:data:`PROTOCOL_METHODS`); a method a subclass
overrides is reached from its base's callback as :mod:`~faultlib.detect.serving.blocking.reach` follows ``self.m()``.
Held-out wave 67 (a voice satellite serving the ESPHome native API with ``loop.create_server``: a message handler run
from ``data_received`` downloads a wake-word model). Used by :mod:`~faultlib.detect.serving.blocking.frameworks`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, Klass, dotted

__all__ = ["PROTOCOL_BASES", "PROTOCOL_METHODS", "TRANSPORT_FACTORIES", "protocol_callback"]

_NAMES = ("BaseProtocol", "Protocol", "BufferedProtocol", "DatagramProtocol", "SubprocessProtocol")
PROTOCOL_BASES = frozenset({f"{module}.{name}" for module in ("asyncio", "asyncio.protocols") for name in _NAMES})
"""asyncio's protocol base classes, as imported and where they are defined."""

PROTOCOL_METHODS = frozenset({"connection_made", "connection_lost", "pause_writing", "resume_writing",
                              "data_received", "eof_received", "get_buffer", "buffer_updated", "datagram_received",
                              "error_received", "pipe_data_received", "pipe_connection_lost", "process_exited"})
"""The callbacks the loop calls on a protocol (https://docs.python.org/3/library/asyncio-protocol.html#protocols)."""

TRANSPORT_FACTORIES = frozenset({"create_server", "create_connection", "create_datagram_endpoint",
                                 "create_unix_server", "create_unix_connection", "connect_read_pipe",
                                 "connect_write_pipe", "subprocess_exec", "subprocess_shell",
                                 "connect_accepted_socket"})
"""Loop methods that take a protocol factory, first or as ``protocol_factory=``."""


def protocol_callback(index, func: Func) -> bool:
    """``func`` is one of :data:`PROTOCOL_METHODS` of a protocol class (see the module docstring)."""
    if func.is_async or func.cls is None or func.node.name not in PROTOCOL_METHODS:
        return False
    return index.subclass_of(func.cls, PROTOCOL_BASES.__contains__) or _handed(index, func.cls)


def _handed(index, klass: Klass) -> bool:
    """``klass`` (or a base of it of the analysed files) is handed to a loop method as the protocol factory."""
    memo = index.__dict__.get("_faultlib_protocol_factories")
    if memo is None:
        memo = index.__dict__["_faultlib_protocol_factories"] = _factories(index)
    todo, seen = [klass], 0
    while todo and seen < 16:
        k = todo.pop()
        seen += 1
        if id(k) in memo:
            return True
        todo.extend(b for b in index.bases(k) if isinstance(b, Klass))
    return False


def _factories(index) -> set[int]:
    found: set[int] = set()
    sites = index.infer.sites()
    for name in TRANSPORT_FACTORIES:
        for call, caller in sites.get(name, []):
            if not isinstance(call.func, ast.Attribute):
                continue
            given = next((k.value for k in call.keywords if k.arg == "protocol_factory"), None)
            if given is None and call.args:
                given = call.args[0]
            made = _made_class(index, given, caller) if given is not None else None
            if made is not None:
                found.add(id(made))
    return found


def _made_class(index, given: ast.expr, caller: Func) -> Klass | None:
    """The class a protocol factory makes: ``Satellite``, ``lambda: Satellite(...)``, ``partial(Satellite, ...)``."""
    if isinstance(given, ast.Lambda):
        given = given.body.func if isinstance(given.body, ast.Call) else given.body
    elif isinstance(given, ast.Call) and (dotted(given.func) or [""])[-1] == "partial" and given.args:
        given = given.args[0]
    target = index.callee(given, caller)
    return target if isinstance(target, Klass) else None
