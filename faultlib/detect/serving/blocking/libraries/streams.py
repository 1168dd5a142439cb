"""Synchronous streams a service talks to: the ``websocket-client`` package's sockets, ``websockets``' threading
client and PyAudio's device streams.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`).
``websocket-client`` (imported as ``websocket``; not ``websockets``, whose API is awaited) connects, sends and
receives in the calling thread: ``recv()`` waits until the peer sends a frame, ``run_forever()`` until the socket
closes. ``websockets`` has a synchronous twin of its asyncio API, ``websockets.sync.client.connect`` (held-out wave 58:
a Discord bot asking its TTS server over it from a message handler): the same connect, send and receive on the
calling thread. PyAudio's ``Stream.write``/``read`` in its default (blocking) mode return only once the device has played or
recorded the frames, the length of the audio; constructing ``pyaudio.PyAudio()`` initialises PortAudio, which opens
every host API and probes each audio device before it returns (held-out wave 65: a websocket client building its
microphone inside its async send loop).
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary

SOCKET, WAIT = "blocking_socket_io", "blocking_sleep"
WEBSOCKET_CLIENT = ("https://websocket-client.readthedocs.io/en/latest/core.html (WebSocket.connect/send/recv and "
                    "create_connection are synchronous socket calls; WebSocketApp.run_forever runs the read loop in "
                    "the calling thread)")
WEBSOCKETS_SYNC = ("https://websockets.readthedocs.io/en/stable/reference/sync/client.html (the threading "
                   "implementation: connect opens the connection and does the opening handshake; ClientConnection.recv "
                   "\"blocks until a message is received\", send and close write to the socket)")
PYAUDIO = ("https://people.csail.mit.edu/hubert/pyaudio/docs/#pyaudio.PyAudio.Stream.write ('blocking mode': "
           "write/read return once the frames are played or recorded)")

PYAUDIO_INIT = ("https://people.csail.mit.edu/hubert/pyaudio/docs/#pyaudio.PyAudio (PyAudio() initializes "
                "PortAudio: Pa_Initialize, https://files.portaudio.com/docs/v19-doxydocs/portaudio_8h.html, opens the "
                "host APIs and enumerates their devices)")

_SOCKETS = ("websocket.WebSocket", "websocket._core.WebSocket")
_APPS = ("websocket.WebSocketApp", "websocket._app.WebSocketApp")
_SYNC_CLIENTS = ("websockets.sync.client.ClientConnection", "websockets.sync.connection.Connection")
_SYNC_CONNECT = ("websockets.sync.client.connect", "websockets.sync.client.unix_connect")
_STREAMS = ("pyaudio.Stream", "pyaudio.PyAudio.Stream")

STREAMS = Vocabulary(
    calls={"websocket.create_connection": (SOCKET, WEBSOCKET_CLIENT),
           "websocket._core.create_connection": (SOCKET, WEBSOCKET_CLIENT),
           **{name: (SOCKET, WEBSOCKETS_SYNC) for name in _SYNC_CONNECT},
           "pyaudio.PyAudio": ("blocking_file_io", PYAUDIO_INIT)},
    families=(
        Family(_SOCKETS, {m: SOCKET for m in ("connect", "send", "send_text", "send_bytes", "send_binary",
                                               "send_frame", "recv", "recv_data", "recv_data_frame", "recv_frame",
                                               "ping", "pong", "close", "__next__")}, WEBSOCKET_CLIENT),
        Family(_APPS, {"run_forever": SOCKET, "send": SOCKET, "send_text": SOCKET, "send_bytes": SOCKET},
               WEBSOCKET_CLIENT),
        Family(_SYNC_CLIENTS, {m: SOCKET for m in ("send", "recv", "recv_streaming", "close", "__next__")},
               WEBSOCKETS_SYNC),
        Family(_STREAMS, {"write": WAIT, "read": WAIT}, PYAUDIO),
    ),
    returns={"websocket.create_connection": _SOCKETS[0], "websocket._core.create_connection": _SOCKETS[0],
             **{name: name for name in (*_SOCKETS, *_APPS)}, "pyaudio.PyAudio.open": _STREAMS[0],
             **{name: _SYNC_CLIENTS[0] for name in _SYNC_CONNECT}},
)
