"""check blocking: the kinds blocking wave 23 missed at first sight (issue 17) -- the websocket-client package's
synchronous sockets, PyAudio's blocking device streams, ``wave.open``, diffusers' ``load_image``, the OpenAI SDK's
polling helpers and other resource verbs, the Cartesia sync client. Each blocker is found at its line; each
look-alike (the awaited twin, a call made off the loop) stays silent. Every example is written for this test."""

from __future__ import annotations

from tests.detect.blocking_source import flagged


def test_websocket_client_sockets_block_and_the_websockets_package_does_not(tmp_path):
    found = flagged(tmp_path, """
        import json
        import websocket
        import websockets

        async def render(prompt_id):
            ws = websocket.WebSocket()
            ws.connect("ws://127.0.0.1:8188/ws")
            while True:
                message = json.loads(ws.recv())
                if message.get("done"):
                    return message

        async def ping(url):
            conn = websocket.create_connection(url, timeout=5)
            conn.send("ping")

        async def healthy(url):
            async with websockets.connect(url) as ws:
                await ws.send("ping")
                return await ws.recv()
    """)
    assert found == {("blocking_socket_io", 'ws.connect("ws://127.0.0.1:8188/ws")'),
                     ("blocking_socket_io", "message = json.loads(ws.recv())"),
                     ("blocking_socket_io", "conn = websocket.create_connection(url, timeout=5)"),
                     ("blocking_socket_io", 'conn.send("ping")')}


def test_a_pyaudio_stream_write_waits_for_the_device_and_wave_open_is_file_io(tmp_path):
    found = flagged(tmp_path, """
        import asyncio
        import wave
        import pyaudio

        audio = pyaudio.PyAudio()

        async def speak(pcm):
            stream = audio.open(format=pyaudio.paInt16, channels=1, rate=24000, output=True)
            stream.write(pcm)

        async def save(path, pcm):
            with wave.open(path, "wb") as wf:
                wf.setnchannels(1)

        def _play(pcm):
            stream = audio.open(format=pyaudio.paInt16, channels=1, rate=24000, output=True)
            stream.write(pcm)

        async def speak_off_the_loop(pcm):
            await asyncio.to_thread(_play, pcm)
    """)
    assert found == {("blocking_sleep", "stream.write(pcm)"),
                     ("blocking_file_io", 'with wave.open(path, "wb") as wf:')}


def test_sdk_polling_helpers_and_sync_tts_clients_block_their_async_twins_do_not(tmp_path):
    found = flagged(tmp_path, """
        from cartesia import AsyncCartesia, Cartesia
        from diffusers.utils import load_image
        from openai import AsyncOpenAI, OpenAI

        client = OpenAI()
        aclient = AsyncOpenAI()
        tts = Cartesia(api_key="k")
        atts = AsyncCartesia(api_key="k")

        async def answer(thread_id, assistant_id):
            run = client.beta.threads.runs.create_and_poll(thread_id=thread_id, assistant_id=assistant_id)
            return run.status

        async def answer_async(thread_id, assistant_id):
            return await aclient.beta.threads.runs.create_and_poll(thread_id=thread_id, assistant_id=assistant_id)

        async def voice(text):
            chosen = tts.voices.get(id="v1")
            return b"".join(tts.tts.bytes(model_id="sonic", transcript=text, voice={"id": chosen.id}))

        async def voice_async(text):
            return await atts.voices.get(id="v1")

        async def init_image(url):
            return load_image(url)
    """)
    assert found == {("blocking_http", "run = client.beta.threads.runs.create_and_poll(thread_id=thread_id, "
                                       "assistant_id=assistant_id)"),
                     ("blocking_http", 'chosen = tts.voices.get(id="v1")'),
                     ("blocking_http", 'return b"".join(tts.tts.bytes(model_id="sonic", transcript=text, '
                                       'voice={"id": chosen.id}))'),
                     ("blocking_http", "return load_image(url)")}
