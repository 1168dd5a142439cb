"""check blocking: the kinds held-out wave 69 (issue 17; async crawlers, agents, voice and websocket servers) left,
fixed by kind.

Each blocker is found at its line with its kind; each look-alike stays silent. Every example is written for this
test."""

from __future__ import annotations

import textwrap

from tests.detect.blocking_source import flagged


# -- coroutines driven on a worker thread's own loop, through the base class or an untyped provider ----------------

_SPEAKER = """
    import asyncio
    import queue
    import threading

    import requests


    class Speaker:
        def __init__(self):
            self.lines = queue.Queue()

        async def start(self):
            threading.Thread(target=self.pump, daemon=True).start()

        def pump(self):
            while True:
                self.say(self.lines.get())

        def say(self, text):
            audio = asyncio.run(self.synthesize(text))
            return audio

        async def synthesize(self, text):
            raise NotImplementedError


    class CloudSpeaker(Speaker):
        async def synthesize(self, text):
            return requests.post("https://tts.example.org", json={"text": text}).content
"""


def test_asyncio_run_in_a_method_a_thread_target_calls_runs_the_override_off_the_loop(tmp_path):
    assert flagged(tmp_path, _SPEAKER) == set()


def test_the_same_override_awaited_by_a_server_coroutine_is_found(tmp_path):
    source = textwrap.dedent(_SPEAKER) + textwrap.dedent("""

        async def handle(ws, speaker: CloudSpeaker):
            await ws.send(await speaker.synthesize(await ws.recv()))
    """)
    assert ("blocking_http", 'return requests.post("https://tts.example.org", json={"text": text}).content') in \
        flagged(tmp_path, source)


def test_asyncio_run_in_a_helper_also_called_outside_threads_is_no_exemption(tmp_path):
    source = textwrap.dedent(_SPEAKER) + textwrap.dedent("""

        def cli(speaker: CloudSpeaker):
            speaker.say("hello")
    """)
    assert ("blocking_http", 'return requests.post("https://tts.example.org", json={"text": text}).content') in \
        flagged(tmp_path, source)


_MEMORY = """
    import asyncio
    import json
    from concurrent.futures import ThreadPoolExecutor

    POOL = ThreadPoolExecutor(2)


    class NoteStore:
        async def save(self, notes, session):
            with open(f"/var/notes/{session}.json", "w") as out:
                json.dump(notes, out)


    class Session:
        def __init__(self, store, sid):
            self.store = store
            self.sid = sid
            self.notes = []

        async def close(self):
            def save_job():
                loop = asyncio.new_event_loop()
                try:
                    loop.run_until_complete(self.store.save(self.notes, self.sid))
                finally:
                    loop.close()

            POOL.submit(save_job)
"""


def test_a_new_loop_in_a_submitted_closure_drives_an_untyped_providers_coroutine_off_the_loop(tmp_path):
    assert flagged(tmp_path, _MEMORY) == set()


def test_the_untyped_providers_coroutine_awaited_on_the_loop_is_found(tmp_path):
    source = _MEMORY.replace("            POOL.submit(save_job)",
                             "            POOL.submit(save_job)\n\n        async def flush(self):\n"
                             "            await self.store.save(self.notes, self.sid)")
    assert ("blocking_file_io", 'with open(f"/var/notes/{session}.json", "w") as out:') in flagged(tmp_path, source)
