"""Synchronous streams a service talks to: the ``websocket-client`` package's sockets, ``websockets``' threading
client, PyAudio's device streams and SoundCard's devices.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`).
``websocket-client`` (imported as ``websocket``; not ``websockets``, whose API is awaited) connects, sends and
receives in the calling thread: ``recv()`` waits until the peer sends a frame, ``run_forever()`` until the socket
closes. ``websockets`` has a synchronous twin of its asyncio API, ``websockets.sync.client.connect`` (held-out wave 58:
a Discord bot asking its TTS server over it from a message handler): the same connect, send and receive on the
calling thread. PyAudio's ``Stream.write``/``read`` in its default (blocking) mode return only once the device has played or
recorded the frames, the length of the audio; constructing ``pyaudio.PyAudio()`` initialises PortAudio, which opens
every host API and probes each audio device before it returns (held-out wave 65: a websocket client building its
microphone inside its async send loop). SoundCard (``import soundcard``) asks the sound server for its devices on every
``all_microphones()``, ``default_microphone()``, ``get_microphone(id)`` (and the speakers' twins): on Linux its
PulseAudio backend sends the request over the server's socket and waits for the answer, polling with ``time.sleep``
(``soundcard/pulseaudio.py``, ``_PulseAudio._block_operation``); a device's ``record(numframes, samplerate)`` and
``play(data, samplerate)`` return once the frames are recorded or played, as a recorder's ``record`` (held-out wave 67:
a voice satellite picking its microphone in its async main).
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
SOUNDCARD = ("https://soundcard.readthedocs.io/en/latest/ (all_speakers, default_microphone, get_microphone...: "
             "the PulseAudio backend's _block_operation sends the query and waits for the server's answer, "
             "soundcard/pulseaudio.py; Microphone.record and Speaker.play return once the frames are recorded or "
             "played)")
_SOUNDCARD_QUERIES = ("all_microphones", "all_speakers", "default_microphone", "default_speaker", "get_microphone",
                      "get_speaker")
_DEVICES = ("soundcard._Microphone", "soundcard._Speaker", "soundcard._Recorder", "soundcard._Player")

STREAMS = Vocabulary(
    calls={"websocket.create_connection": (SOCKET, WEBSOCKET_CLIENT),
           "websocket._core.create_connection": (SOCKET, WEBSOCKET_CLIENT),
           **{name: (SOCKET, WEBSOCKETS_SYNC) for name in _SYNC_CONNECT},
           "pyaudio.PyAudio": ("blocking_file_io", PYAUDIO_INIT),
           **{f"soundcard.{name}": (SOCKET, SOUNDCARD) for name in _SOUNDCARD_QUERIES}},
    families=(
        Family(_SOCKETS, {m: SOCKET for m in ("connect", "send", "send_text", "send_bytes", "send_binary",
                                               "send_frame", "recv", "recv_data", "recv_data_frame", "recv_frame",
                                               "ping", "pong", "close", "__next__")}, WEBSOCKET_CLIENT),
        Family(_APPS, {"run_forever": SOCKET, "send": SOCKET, "send_text": SOCKET, "send_bytes": SOCKET},
               WEBSOCKET_CLIENT),
        Family(_SYNC_CLIENTS, {m: SOCKET for m in ("send", "recv", "recv_streaming", "close", "__next__")},
               WEBSOCKETS_SYNC),
        Family(_STREAMS, {"write": WAIT, "read": WAIT}, PYAUDIO),
        Family(_DEVICES, {"record": WAIT, "play": WAIT}, SOUNDCARD),
    ),
    returns={"websocket.create_connection": _SOCKETS[0], "websocket._core.create_connection": _SOCKETS[0],
             **{name: name for name in (*_SOCKETS, *_APPS)}, "pyaudio.PyAudio.open": _STREAMS[0],
             **{name: _SYNC_CLIENTS[0] for name in _SYNC_CONNECT},
             **{f"soundcard.{name}": _DEVICES[name.endswith("speaker")] for name in _SOUNDCARD_QUERIES[2:]},
             f"{_DEVICES[0]}.recorder": _DEVICES[2], f"{_DEVICES[1]}.player": _DEVICES[3]},
)
