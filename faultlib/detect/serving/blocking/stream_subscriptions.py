"""A streaming client's method handed a callback subscribes a stream: it returns at once, no request is waited for.

Websocket and stream clients take the function that will receive each message as an argument of the subscribing
method (binance-futures-connector: ``ws.kline(symbol=..., id=1, interval="1m", callback=handler)``, "the callback
receives each message", https://binance-futures-connector.readthedocs.io/ -- the subscription is handed to the
client's socket thread or reactor; python-binance's ``ThreadedWebsocketManager.start_kline_socket(callback=...)``,
Alpaca's ``StockDataStream.subscribe_trades(handler, ...)``): the caller registers interest, and the messages come
later on the client's own thread. Such a call is no request of the class-name guess
(:mod:`~faultlib.detect.serving.blocking.client_names`) when the class's name says it streams (``...Websocket...``,
``...Socket...``, ``...Stream...``) and the call hands over a function under a callback keyword. A REST client's
method with a progress ``callback=`` is not matched (its class name says nothing of a stream), and neither is a
streaming client's method called without a callback (a snapshot request).
"""

from __future__ import annotations

import ast

__all__ = ["subscribes"]

STREAM_WORDS = ("websocket", "socket", "stream", "wsclient")
"""Parts of a class name that say the client holds a message stream (matched case-insensitively)."""

CALLBACK_KEYWORDS = frozenset({"callback", "on_message", "handler", "listener", "on_data", "on_update", "on_event",
                               "cb", "message_handler", "on_tick"})
"""Keywords under which a subscribing method receives the function called with each message."""


def subscribes(owner: str, call: ast.Call) -> bool:
    """Whether ``call`` of a method of the library class ``owner`` (a dotted name) is a stream subscription: the class
    name says it streams and a function (a name, an attribute, a lambda) is passed under a callback keyword."""
    last = owner.rpartition(".")[2].lower()
    if not any(word in last for word in STREAM_WORDS):
        return False
    return any(k.arg in CALLBACK_KEYWORDS and isinstance(k.value, (ast.Name, ast.Attribute, ast.Lambda))
               for k in call.keywords)
