"""Synchronous streams a service talks to: the ``websocket-client`` package's sockets and PyAudio's device streams.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`).
``websocket-client`` (imported as ``websocket``; not ``websockets``, whose API is awaited) connects, sends and
receives in the calling thread: ``recv()`` waits until the peer sends a frame, ``run_forever()`` until the socket
closes. PyAudio's ``Stream.write``/``read`` in its default (blocking) mode return only once the device has played or
recorded the frames, the length of the audio.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary

SOCKET, WAIT = "blocking_socket_io", "blocking_sleep"
WEBSOCKET_CLIENT = ("https://websocket-client.readthedocs.io/en/latest/core.html (WebSocket.connect/send/recv and "
                    "create_connection are synchronous socket calls; WebSocketApp.run_forever runs the read loop in "
                    "the calling thread)")
PYAUDIO = ("https://people.csail.mit.edu/hubert/pyaudio/docs/#pyaudio.PyAudio.Stream.write ('blocking mode': "
           "write/read return once the frames are played or recorded)")

_SOCKETS = ("websocket.WebSocket", "websocket._core.WebSocket")
_APPS = ("websocket.WebSocketApp", "websocket._app.WebSocketApp")
_STREAMS = ("pyaudio.Stream", "pyaudio.PyAudio.Stream")

STREAMS = Vocabulary(
    calls={"websocket.create_connection": (SOCKET, WEBSOCKET_CLIENT),
           "websocket._core.create_connection": (SOCKET, WEBSOCKET_CLIENT)},
    families=(
        Family(_SOCKETS, {m: SOCKET for m in ("connect", "send", "send_text", "send_bytes", "send_binary",
                                               "send_frame", "recv", "recv_data", "recv_data_frame", "recv_frame",
                                               "ping", "pong", "close", "__next__")}, WEBSOCKET_CLIENT),
        Family(_APPS, {"run_forever": SOCKET, "send": SOCKET, "send_text": SOCKET, "send_bytes": SOCKET},
               WEBSOCKET_CLIENT),
        Family(_STREAMS, {"write": WAIT, "read": WAIT}, PYAUDIO),
    ),
    returns={"websocket.create_connection": _SOCKETS[0], "websocket._core.create_connection": _SOCKETS[0],
             **{name: name for name in (*_SOCKETS, *_APPS)}, "pyaudio.PyAudio.open": _STREAMS[0]},
)
